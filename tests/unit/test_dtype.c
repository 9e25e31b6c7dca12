/* The one element-type vocabulary (base/matrix.c tdcl_dtype_parse): every
 * short and long name of every dtype, the names written back, and the
 * refusal of anything else naming the choices. */
#include <string.h>

#include "tdcl_test.h"

#include "base/matrix.h"

static void test_names(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        tdcl_dtype type;
    } cases[] = {{"f32", TDCL_F32},   {"float32", TDCL_F32}, {"float", TDCL_F32},
                 {"f64", TDCL_F64},   {"float64", TDCL_F64}, {"double", TDCL_F64},
                 {"i32", TDCL_I32},   {"int32", TDCL_I32},   {"i64", TDCL_I64},
                 {"int64", TDCL_I64}, {"u8", TDCL_U8},       {"uint8", TDCL_U8},
                 {"u16", TDCL_U16},   {"uint16", TDCL_U16}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tdcl_dtype t = (tdcl_dtype)-1;
        tdcl_err e = {0};
        assert_int_equal(tdcl_dtype_parse(cases[i].name, &t, &e), TDCL_OK);
        assert_int_equal(t, cases[i].type);
    }
}

/* What tdcl_dtype_name and tdcl_dtype_short_name write parses back. */
static void test_round_trip(void **state)
{
    (void)state;
    const tdcl_dtype all[] = {TDCL_F32, TDCL_F64, TDCL_I32, TDCL_I64, TDCL_U8, TDCL_U16};
    const char *shorts[] = {"f32", "f64", "i32", "i64", "u8", "u16"};
    for (size_t i = 0; i < 6; i++) {
        tdcl_dtype t;
        assert_string_equal(tdcl_dtype_short_name(all[i]), shorts[i]);
        assert_int_equal(tdcl_dtype_parse(tdcl_dtype_name(all[i]), &t, NULL), TDCL_OK);
        assert_int_equal(t, all[i]);
        assert_int_equal(tdcl_dtype_parse(tdcl_dtype_short_name(all[i]), &t, NULL), TDCL_OK);
        assert_int_equal(t, all[i]);
    }
}

static void test_refused(void **state)
{
    (void)state;
    const char *bad[] = {"", "f16", "F32", "float32 ", "int", "int8", "uint64", NULL};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tdcl_dtype t = TDCL_U16;
        tdcl_err e = {0};
        assert_int_equal(tdcl_dtype_parse(bad[i], &t, &e), TDCL_EINVAL);
        assert_int_equal(t, TDCL_U16); /* untouched */
        assert_non_null(strstr(e.msg, "unknown element type"));
        assert_non_null(strstr(e.msg, "f32"));
        assert_non_null(strstr(e.msg, "uint16"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
