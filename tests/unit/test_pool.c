/* The fork-join fan-out (base/pool.c): every index runs exactly once, the
 * range is capped, and the size follows the request or the cores. */
#include <stdatomic.h>
#include <string.h>

#include "tdcl_test.h"

#include "base/pool.h"

typedef struct hits {
    atomic_int runs[TDCL_POOL_MAX + 8];
    atomic_int total;
} hits;

static void mark(void *arg, int i)
{
    hits *h = arg;
    atomic_fetch_add(&h->runs[i], 1);
    atomic_fetch_add(&h->total, 1);
}

static void test_each_index_once(void **state)
{
    (void)state;
    const int ns[] = {0, 1, 2, 7, TDCL_POOL_MAX, TDCL_POOL_MAX + 5};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        static hits h;
        memset(&h, 0, sizeof h);
        tdcl_pool_run(ns[k], mark, &h);
        int want = ns[k] > TDCL_POOL_MAX ? TDCL_POOL_MAX : ns[k];
        assert_int_equal(atomic_load(&h.total), want);
        for (int i = 0; i < TDCL_POOL_MAX + 8; i++)
            assert_int_equal(atomic_load(&h.runs[i]), i < want ? 1 : 0);
    }
}

/* Partial sums per index, added in index order, are the same on every run:
 * the pattern the matmul check and the parsers rely on. */
typedef struct sums {
    double part[16];
    int n;
} sums;

static void sum_part(void *arg, int i)
{
    sums *s = arg;
    double acc = 0;
    for (int k = i; k < 100000; k += s->n)
        acc += 1.0 / (1.0 + k);
    s->part[i] = acc;
}

static void test_sums_repeat(void **state)
{
    (void)state;
    double first = 0;
    for (int rep = 0; rep < 5; rep++) {
        sums s = {.n = 16};
        tdcl_pool_run(s.n, sum_part, &s);
        double total = 0;
        for (int i = 0; i < s.n; i++)
            total += s.part[i];
        if (rep == 0) first = total;
        assert_memory_equal(&total, &first, sizeof total);
    }
    assert_true(first > 12.0 && first < 12.1); /* H(100000) = 12.0901... */
}

static void test_size(void **state)
{
    (void)state;
    assert_int_equal(tdcl_pool_size(3, 8), 3);
    assert_int_equal(tdcl_pool_size(1000, 8), TDCL_POOL_MAX);
    int n = tdcl_pool_size(0, 8);
    assert_true(n >= 1 && n <= 8);
    assert_int_equal(tdcl_pool_size(0, 1), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_index_once),
        cmocka_unit_test(test_sums_repeat),
        cmocka_unit_test(test_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
