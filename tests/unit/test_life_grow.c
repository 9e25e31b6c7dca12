/* The life job's unbounded plane: refits keep a margin of dead cells past
 * the live ones along the open directions and follow the plane's
 * coordinates; the memory bound is reported; crops and windows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdcl_test.h"

#include "jobs/life_grow.h"

static tdcl_matrix grid(int64_t rows, int64_t cols)
{
    tdcl_matrix m = {0};
    assert_int_equal(tdcl_matrix_alloc(&m, rows, cols, 1, TDCL_U8, NULL), TDCL_OK);
    return m;
}

static void set(tdcl_matrix *m, int64_t y, int64_t x)
{
    ((uint8_t *)m->data)[y * m->cols + x] = 1;
}

static int get(const tdcl_matrix *m, int64_t y, int64_t x)
{
    return ((const uint8_t *)m->data)[y * m->cols + x];
}

static void test_fit(void **state)
{
    (void)state;
    tdcl_life_plane pl = {.open_x = 1, .open_y = 1, .x0 = 100, .y0 = -50, .margin = 4};
    tdcl_matrix g = grid(3, 5), out = {0};
    set(&g, 1, 2);
    set(&g, 2, 4);
    int changed = 0;
    assert_int_equal(tdcl_life_plane_fit(&pl, &g, 0, &out, &changed, NULL), TDCL_OK);
    assert_true(changed);
    /* the live box (2 rows x 3 columns) plus 2 margins on each side */
    assert_int_equal(out.rows, 2 + 16);
    assert_int_equal(out.cols, 3 + 16);
    assert_int_equal(pl.x0, 100 + 2 - 8);
    assert_int_equal(pl.y0, -50 + 1 - 8);
    assert_true(get(&out, 8, 8) && get(&out, 9, 10));
    int64_t pop = 0;
    for (int64_t k = 0; k < out.rows * out.cols; k++)
        pop += ((uint8_t *)out.data)[k];
    assert_int_equal(pop, 2);
    /* far enough from every edge: left alone */
    tdcl_matrix again = {0};
    assert_int_equal(tdcl_life_plane_fit(&pl, &out, 0, &again, &changed, NULL), TDCL_OK);
    assert_false(changed);
    assert_null(again.data);
    /* open one way only: the other keeps its size and place */
    tdcl_life_plane tube = {.open_x = 1, .margin = 4};
    tdcl_matrix t = grid(6, 5);
    set(&t, 0, 0);
    assert_int_equal(tdcl_life_plane_fit(&tube, &t, 0, &again, &changed, NULL), TDCL_OK);
    assert_true(changed);
    assert_int_equal(again.rows, 6);
    assert_int_equal(again.cols, 1 + 16);
    assert_int_equal(tube.y0, 0);
    assert_int_equal(tube.x0, -8);
    assert_true(get(&again, 0, 8));
    tdcl_matrix_free(&again);
    tdcl_matrix_free(&t);
    /* the plane ends at int64: a grid that would pass it is refused, never
     * wrapped round to the far side */
    tdcl_life_plane edge = {.open_x = 1, .margin = 4, .x0 = INT64_MAX - 5};
    t = grid(6, 6);
    set(&t, 2, 5); /* cell INT64_MAX itself: fits, the margin past it does not */
    tdcl_err e = {0};
    assert_int_equal(tdcl_life_plane_fit(&edge, &t, 77, &again, &changed, &e), TDCL_ERANGE);
    assert_non_null(strstr(e.msg, "at generation 77 the pattern reaches the edge of the 64-bit"));
    assert_int_equal(edge.x0, INT64_MAX - 5);
    assert_null(again.data);
    tdcl_matrix_free(&t);
    tdcl_matrix_free(&out);
    tdcl_matrix_free(&g);
}

static void test_bound(void **state)
{
    (void)state;
    tdcl_life_plane pl = {.open_x = 1, .open_y = 1, .margin = 64, .max_cells = 10000};
    snprintf(pl.where, sizeof pl.where, "the device 'test'");
    tdcl_matrix g = grid(2, 2), out = {0};
    set(&g, 0, 0);
    int changed = 0;
    tdcl_err e = {0};
    assert_int_equal(tdcl_life_plane_fit(&pl, &g, 1234, &out, &changed, &e), TDCL_ELIMIT);
    assert_string_equal(e.msg, "at generation 1234 the unbounded plane's grid of 257 x 257 cells "
                               "is more than the 10000 cells the device 'test' holds");
    assert_null(out.data);
    tdcl_matrix_free(&g);
}

static void test_crop_window(void **state)
{
    (void)state;
    tdcl_matrix g = grid(10, 12), c = {0}, w = {0};
    set(&g, 3, 4);
    set(&g, 5, 9);
    int64_t dx, dy;
    assert_int_equal(tdcl_life_crop(&g, &c, &dx, &dy, NULL), TDCL_OK);
    assert_int_equal(c.rows, 3);
    assert_int_equal(c.cols, 6);
    assert_int_equal(dx, 4);
    assert_int_equal(dy, 3);
    assert_true(get(&c, 0, 0) && get(&c, 2, 5));
    /* a window half outside the grid: dead there */
    assert_int_equal(tdcl_life_window(&g, 100, 200, 102, 202, 4, 4, &w, NULL), TDCL_OK);
    assert_true(get(&w, 1, 2));
    int n = 0;
    for (int64_t k = 0; k < 16; k++)
        n += ((uint8_t *)w.data)[k];
    assert_int_equal(n, 1);
    tdcl_matrix_free(&w);
    assert_int_equal(tdcl_life_window(&g, 0, 0, -3, -3, 5, 5, &w, NULL), TDCL_OK);
    for (int64_t k = 0; k < 25; k++)
        assert_int_equal(((uint8_t *)w.data)[k], 0);
    tdcl_matrix_free(&w);
    tdcl_matrix_free(&c);
    tdcl_matrix_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit),
        cmocka_unit_test(test_bound),
        cmocka_unit_test(test_crop_window),
    };
    return cmocka_run_group_tests_name("life_grow", tests, NULL, NULL);
}
