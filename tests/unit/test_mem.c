/* base/mem: the host memory checks against RLIMIT_AS, the available
 * memory and a caller's confirmation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "tdcl_test.h"

#include "base/mem.h"

#if defined(__SANITIZE_ADDRESS__)
#define TDCL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TDCL_ASAN 1
#endif
#endif

static void test_sizes(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(tdcl_mem_size(17, b, sizeof b), "17 bytes");
    assert_string_equal(tdcl_mem_size(1500, b, sizeof b), "1.5 kB");
    assert_string_equal(tdcl_mem_size(3200640032ULL, b, sizeof b), "3.2 GB");
}

/* Without limits: what the host has decides; a confirmation (allow) lets
 * a soft check past half of it, and caps it. */
static void test_available(void **state)
{
    (void)state;
    tdcl_mem_info mi;
    tdcl_err e = {0};
    tdcl_mem_query(&mi);
    if (mi.available == UINT64_MAX) skip();
    assert_int_equal(tdcl_mem_check(1 << 20, "a test buffer", 1, 0, &e), TDCL_OK);
    uint64_t big = mi.available / 5 * 3; /* past half, within what there is */
    if (big > tdcl_mem_headroom(&mi)) skip();
    assert_int_equal(tdcl_mem_check(big, "a test buffer", 0, 0, &e), TDCL_OK);
    assert_int_equal(tdcl_mem_check(big, "a test buffer", 1, 0, &e), TDCL_ELIMIT);
    assert_non_null(strstr(e.msg, "a test buffer needs"));
    assert_non_null(strstr(e.msg, "half of the"));
    assert_int_equal(tdcl_mem_check(big, "a test buffer", 1, big, &e), TDCL_OK);
    assert_int_equal(tdcl_mem_check(1 << 20, "a test buffer", 1, 1000, &e), TDCL_ELIMIT);
    assert_non_null(strstr(e.msg, "more than the limit of 1000 bytes"));
    assert_int_equal(tdcl_mem_check(mi.available * 2, "a test buffer", 0, 0, &e), TDCL_ELIMIT);
    assert_non_null(strstr(e.msg, "available"));
    /* the grid sizes tdcl_mem_max_items gives follow the same rules */
    assert_int_equal(tdcl_mem_max_items(1000, 8, 0), 1000);
    assert_int_equal(tdcl_mem_max_items(INT64_MAX, 8, 8000), 1000);
}

/* Under RLIMIT_AS (not with AddressSanitizer, whose shadow needs the
 * address space). */
static void test_rlimit_as(void **state)
{
    (void)state;
#ifdef TDCL_ASAN
    skip();
#else
    struct rlimit old, rl;
    tdcl_mem_info mi;
    tdcl_err e = {0};
    assert_int_equal(getrlimit(RLIMIT_AS, &old), 0);
    tdcl_mem_query(&mi);
    rl = old;
    rl.rlim_cur = (rlim_t)(mi.as_used + (256u << 20)); /* 256 MiB more than used now */
    if (old.rlim_max != RLIM_INFINITY && rl.rlim_cur > old.rlim_max) skip();
    assert_int_equal(setrlimit(RLIMIT_AS, &rl), 0);
    tdcl_status big = tdcl_mem_check(1ULL << 30, "the product", 0, 0, &e);
    char msg[sizeof e.msg];
    memcpy(msg, e.msg, sizeof msg);
    tdcl_status small = tdcl_mem_check(1 << 20, "the product", 0, 0, &e);
    int64_t items = tdcl_mem_max_items(INT64_MAX, 1, 0);
    assert_int_equal(setrlimit(RLIMIT_AS, &old), 0);
    assert_int_equal(big, TDCL_ELIMIT);
    assert_non_null(strstr(msg, "the product needs 1.1 GB"));
    assert_non_null(strstr(msg, "RLIMIT_AS"));
    assert_int_equal(small, TDCL_OK);
    assert_true(items > 0 && items <= (int64_t)(256u << 20));
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_available),
        cmocka_unit_test(test_rlimit_as),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
