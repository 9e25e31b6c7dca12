/* Status codes, error records and OpenCL error names. */
#include <string.h>

#include "tdcl_test.h"

#include "base/status.h"

static void test_fail_formats_message(void **state)
{
    (void)state;
    tdcl_err e = {0};
    assert_int_equal(tdcl_fail(&e, TDCL_EPARSE, "%s:%d: expected '%s'", "a.mtx", 3, "rows cols"),
                     TDCL_EPARSE);
    assert_string_equal(e.msg, "a.mtx:3: expected 'rows cols'");
    assert_int_equal(e.status, TDCL_EPARSE);
    /* a NULL record is allowed */
    assert_int_equal(tdcl_fail(NULL, TDCL_EIO, "x"), TDCL_EIO);
}

static void test_cl_error_names(void **state)
{
    (void)state;
    assert_string_equal(tdcl_cl_error_name(-5), "CL_OUT_OF_RESOURCES");
    assert_string_equal(tdcl_cl_error_name(-4), "CL_MEM_OBJECT_ALLOCATION_FAILURE");
    assert_string_equal(tdcl_cl_error_name(-11), "CL_BUILD_PROGRAM_FAILURE");
    assert_string_equal(tdcl_cl_error_name(-54), "CL_INVALID_WORK_GROUP_SIZE");
    assert_string_equal(tdcl_cl_error_name(-9999), "CL_UNKNOWN_ERROR");
}

static void test_fail_cl_names_call_and_error(void **state)
{
    (void)state;
    tdcl_err e = {0};
    assert_int_equal(tdcl_fail_cl(&e, -5, "clEnqueueNDRangeKernel", "kernel '%s'", "mm"), TDCL_ECL);
    assert_string_equal(e.msg,
                        "clEnqueueNDRangeKernel failed: CL_OUT_OF_RESOURCES (-5): kernel 'mm'");
    assert_int_equal(e.cl_code, -5);
}

/* An error about an option records which; any later failure clears it. */
static void test_fail_param(void **state)
{
    (void)state;
    tdcl_err e = {0};
    assert_int_equal(tdcl_fail_param(&e, TDCL_ELIMIT, TDCL_PARAM_TILE, "tile %d too big", 64),
                     TDCL_ELIMIT);
    assert_string_equal(e.msg, "tile 64 too big");
    assert_int_equal(e.param, TDCL_PARAM_TILE);
    assert_int_equal(e.status, TDCL_ELIMIT);
    tdcl_fail(&e, TDCL_EIO, "other");
    assert_int_equal(e.param, TDCL_PARAM_NONE);
    tdcl_fail_param(&e, TDCL_EINVAL, TDCL_PARAM_SIZE, "x");
    tdcl_fail_cl(&e, -5, "clFinish", NULL);
    assert_int_equal(e.param, TDCL_PARAM_NONE);
    assert_int_equal(tdcl_fail_param(NULL, TDCL_EINVAL, TDCL_PARAM_SIZE, "x"), TDCL_EINVAL);
}

static void test_exit_codes(void **state)
{
    (void)state;
    assert_int_equal(tdcl_exit_code(TDCL_OK), 0);
    assert_int_equal(tdcl_exit_code(TDCL_EPARSE), 1);
    assert_int_equal(tdcl_exit_code(TDCL_EIO), 1);
    assert_int_equal(tdcl_exit_code(TDCL_EVERIFY), 1);
    assert_int_equal(tdcl_exit_code(TDCL_ECL), 3);
    assert_int_equal(tdcl_exit_code(TDCL_ENODEV), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fail_formats_message),
        cmocka_unit_test(test_cl_error_names),
        cmocka_unit_test(test_fail_cl_names_call_and_error),
        cmocka_unit_test(test_fail_param),
        cmocka_unit_test(test_exit_codes),
    };
    return cmocka_run_group_tests_name("status", tests, NULL, NULL);
}
