/* Life with tiles skipped (ops/life/life_sparse.c): every run against the
 * host reference byte for byte, on grids whose sizes are no multiple of
 * the tile, for each boundary and several depths: soups in part of an
 * otherwise empty grid, a glider crossing empty tiles into settled ones, a
 * period-2 oscillator at even and odd depths, the Gosper gun on a torus,
 * launches of changing depth, rows written from outside; that tiles were
 * indeed skipped; and the automatic choice. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdcl_test.h"

#include "ops/life/life.h"

static tdcl_matrix grid_new(int64_t rows, int64_t cols)
{
    tdcl_matrix m = {0};
    assert_int_equal(tdcl_matrix_alloc(&m, rows, cols, 1, TDCL_U8, NULL), TDCL_OK);
    memset(m.data, 0, (size_t)(rows * cols));
    return m;
}

/* Draws the pattern lines ('O' alive) into g with its top-left at (y, x). */
static void stamp(tdcl_matrix *g, const char *const *lines, int n, int64_t y, int64_t x)
{
    uint8_t *c = g->data;
    for (int i = 0; i < n; i++)
        for (int64_t j = 0; lines[i][j]; j++)
            c[(y + i) * g->cols + x + j] = lines[i][j] == 'O';
}

static const char *const glider_se[] = {".O.", "..O", "OOO"};
static const char *const blinker[] = {"OOO"};
static const char *const block[] = {"OO", "OO"};
static const char *const beehive[] = {".OO.", "O..O", ".OO."};
static const char *const gun[] = {
    "........................O...........", "......................O.O...........",
    "............OO......OO............OO", "...........O...O....OO............OO",
    "OO........O.....O...OO..............", "OO........O...O.OO....O.............",
    "..........O.....O.......O.O.........", "...........O...O....................",
    "............OO......................",
};

/* A soup of the given density in rows [y0, y1) and columns [x0, x1). */
static void soup_patch(tdcl_matrix *g, uint64_t seed, double density, int64_t y0, int64_t y1,
                       int64_t x0, int64_t x1)
{
    uint64_t s = seed * 7919 + 5;
    uint8_t *c = g->data;
    for (int64_t y = y0; y < y1; y++)
        for (int64_t x = x0; x < x1; x++)
            c[y * g->cols + x] = tdcl_test_uniform(&s, 0, 1) < density;
}

static void host_advance(tdcl_matrix *a, const tdcl_life_opts *o, int64_t gens)
{
    tdcl_matrix t = grid_new(a->rows, a->cols);
    tdcl_life_rule r = tdcl_life_opts_rule(o);
    for (int64_t i = 0; i < gens; i++) {
        tdcl_life_host_step(a, &t, &r, o->boundary);
        tdcl_matrix x = *a;
        *a = t;
        t = x;
    }
    tdcl_matrix_free(&t);
}

/* The plan's grid equals the host's grid h, byte for byte. */
static void expect_same(tdcl_life_plan *p, const tdcl_matrix *h, const char *what)
{
    tdcl_matrix got = {0};
    tdcl_err err = {0};
    if (tdcl_life_plan_result(p, &got, &err) != TDCL_OK) fail_msg("%s: result: %s", what, err.msg);
    int64_t n = h->rows * h->cols, diff = 0, first = -1, live = 0;
    for (int64_t k = 0; k < n; k++) {
        live += ((uint8_t *)h->data)[k] != 0;
        if (((uint8_t *)got.data)[k] != ((uint8_t *)h->data)[k] && diff++ == 0) first = k;
    }
    tdcl_matrix_free(&got);
    if (diff)
        fail_msg("%s: %lld cells differ from the host, the first at row %lld col %lld", what,
                 (long long)diff, (long long)(first / h->cols), (long long)(first % h->cols));
    if (live == 0) fail_msg("%s: the reference died out: the case tests nothing", what);
}

typedef struct run_case {
    const char *what;
    tdcl_life_boundary b;
    int depth, wb;
    tdcl_life_layout layout;
    const int64_t *steps; /* execute calls, ending with 0 */
    const char *rule;     /* NULL: B3/S23 */
} run_case;

/* Runs g on the device with tiles skipped, one execute per step, each
 * checked against the host; returns the fraction of the dense cell
 * updates that were computed. */
static double run_sparse(tdcl_ctx *ctx, const tdcl_matrix *g, const run_case *rc)
{
    tdcl_life_opts o = tdcl_life_opts_default();
    o.boundary = rc->b;
    o.depth = rc->depth;
    o.word_bits = rc->wb;
    o.layout = rc->layout;
    if (rc->rule) assert_int_equal(tdcl_life_rule_parse(rc->rule, &o.rule, NULL, NULL), TDCL_OK);
    o.sparse = TDCL_LIFE_SPARSE_ON;
    tdcl_life_plan *p = NULL;
    tdcl_err err = {0};
    tdcl_matrix h = grid_new(g->rows, g->cols);
    memcpy(h.data, g->data, (size_t)(g->rows * g->cols));
    if (tdcl_life_plan_create(ctx, &o, g, &p, &err) != TDCL_OK)
        fail_msg("%s: plan: %s", rc->what, err.msg);
    if (!tdcl_life_plan_sparse(p)) fail_msg("%s: the plan does not skip tiles", rc->what);
    char what[160];
    int64_t done = 0;
    for (const int64_t *s = rc->steps; *s; s++) {
        if (tdcl_life_plan_execute(p, *s, NULL, &err) != TDCL_OK)
            fail_msg("%s: execute: %s", rc->what, err.msg);
        host_advance(&h, &o, *s);
        done += *s;
        snprintf(what, sizeof what, "%s, %s, depth %d, generation %lld", rc->what,
                 tdcl_life_boundary_name(rc->b), rc->depth, (long long)done);
        expect_same(p, &h, what);
    }
    double computed = 0;
    assert_int_equal(tdcl_life_plan_computed(p, &computed, &err), TDCL_OK);
    tdcl_life_plan_destroy(p);
    tdcl_matrix_free(&h);
    return computed / ((double)g->rows * (double)g->cols * (double)done);
}

/* Soups in the left part of grids of no whole number of tiles (CPU tiles
 * are 896 x 48 cells at depth 8; 448 x 58 of 32-bit words at depth 3; GPU
 * tiles 896 x 96 at depth 16), the rest empty; a torus whose last tile is
 * narrower than the depth. */
static void test_soups(void **state)
{
    TDCL_NEED_DEVICE(state);
    const int64_t steps8[] = {8, 16, 13, 0}, steps3[] = {9, 4, 6, 0}, steps16[] = {32, 21, 0};
    const tdcl_life_boundary bs[] = {TDCL_LIFE_DEAD, TDCL_LIFE_TORUS, TDCL_LIFE_CLAMP};
    for (int i = 0; i < 3; i++) {
        tdcl_matrix g = grid_new(131, 1900);
        soup_patch(&g, 1 + (uint64_t)i, 0.35, 0, 131, 0, 300);
        soup_patch(&g, 9 + (uint64_t)i, 0.35, 60, 90, 1850, 1900);
        run_case c = {"soup", bs[i], 8, 64, TDCL_LIFE_LAYOUT_CPU, steps8, NULL};
        run_sparse(*state, &g, &c);
        run_case c3 = {"soup 32-bit", bs[i], 3, 32, TDCL_LIFE_LAYOUT_CPU, steps3, NULL};
        run_sparse(*state, &g, &c3);
        run_case c1 = {"soup, a generation a launch", bs[i],  0,   0,
                       TDCL_LIFE_LAYOUT_CPU,          steps3, NULL};
        run_sparse(*state, &g, &c1);
        tdcl_matrix_free(&g);
    }
    tdcl_matrix h = grid_new(131, 1900); /* the hexagonal and von Neumann neighbourhoods */
    soup_patch(&h, 12, 0.3, 40, 90, 870, 930);
    const char *const nb[] = {"B2/S34H", "B2/S013V"};
    for (int i = 0; i < 2; i++) {
        run_case c = {nb[i], TDCL_LIFE_TORUS, 0, 0, TDCL_LIFE_LAYOUT_CPU, steps3, nb[i]};
        run_sparse(*state, &h, &c);
        run_case d = {nb[i], TDCL_LIFE_CLAMP, 8, 64, TDCL_LIFE_LAYOUT_CPU, steps8, nb[i]};
        run_sparse(*state, &h, &d);
    }
    tdcl_matrix_free(&h);
    tdcl_matrix g = grid_new(99, 1797); /* last tiles: 5 columns, 3 rows */
    soup_patch(&g, 4, 0.4, 0, 99, 0, 200);
    soup_patch(&g, 5, 0.4, 90, 99, 1780, 1797);
    run_case t = {"soup, narrow last tiles", TDCL_LIFE_TORUS, 8,   64,
                  TDCL_LIFE_LAYOUT_CPU,      steps8,          NULL};
    run_sparse(*state, &g, &t);
    tdcl_matrix_free(&g);
    /* a glider crossing last tiles of one column and one row into the
     * first ones: a tile's reach passes the narrow tile */
    const int64_t glide[] = {40, 40, 24, 0};
    g = grid_new(97, 1793);
    stamp(&g, glider_se, 3, 70, 1770);
    run_case n = {"glider across 1-cell last tiles",
                  TDCL_LIFE_TORUS,
                  8,
                  64,
                  TDCL_LIFE_LAYOUT_CPU,
                  glide,
                  NULL};
    run_sparse(*state, &g, &n);
    tdcl_matrix_free(&g);
    g = grid_new(250, 2000);
    soup_patch(&g, 6, 0.3, 100, 200, 900, 1000);
    for (int i = 0; i < 3; i++) {
        run_case c = {"soup, GPU tiles", bs[i], 16, 64, TDCL_LIFE_LAYOUT_GPU, steps16, NULL};
        run_sparse(*state, &g, &c);
    }
    tdcl_matrix_free(&g);
}

/* A glider leaves its empty corner, crosses empty tiles and strikes a
 * settled block and beehive far away; a blinker ticks elsewhere. Most
 * tiles are skipped most of the time. Every boundary, and a generation a
 * launch and 8 on the dead one; the host reference of 404 generations is
 * most of the time, so not every pair (test_soups runs each). */
static void test_glider_into_settled(void **state)
{
    TDCL_NEED_DEVICE(state);
    const int64_t steps[] = {100, 7, 8, 8, 277, 4, 0};
    tdcl_matrix g = grid_new(300, 2000);
    stamp(&g, glider_se, 3, 1, 1);
    stamp(&g, block, 2, 100, 101);
    stamp(&g, beehive, 3, 140, 135);
    stamp(&g, blinker, 1, 20, 1950);
    stamp(&g, glider_se, 3, 150, 600); /* in tiles away from the grid's sides */
    for (int b = TDCL_LIFE_DEAD; b <= TDCL_LIFE_CLAMP; b++) {
        for (int d = 0; d <= 8; d += 8) {
            if (b != TDCL_LIFE_DEAD && (d == 8) != (b == TDCL_LIFE_TORUS)) continue;
            run_case c = {"glider into still lifes",
                          (tdcl_life_boundary)b,
                          d,
                          64,
                          TDCL_LIFE_LAYOUT_CPU,
                          steps,
                          NULL};
            run_sparse(*state, &g, &c);
        }
    }
    tdcl_matrix_free(&g);
}

/* One glider in a large grid: most tiles are skipped (the first launch
 * computes them all). */
static void test_skips(void **state)
{
    TDCL_NEED_DEVICE(state);
    const int64_t steps[] = {8, 40, 0};
    tdcl_matrix g = grid_new(1000, 4000);
    stamp(&g, glider_se, 3, 500, 2000);
    for (int d = 0; d <= 8; d += 8) {
        run_case c = {"one glider", TDCL_LIFE_DEAD, d, 64, TDCL_LIFE_LAYOUT_CPU, steps, NULL};
        double f = run_sparse(*state, &g, &c);
        if (f > 0.3) fail_msg("one glider: %.0f%% of the cell updates computed", 100 * f);
    }
    tdcl_matrix_free(&g);
}

/* A blinker alone: at depth 2 each launch returns it unchanged (skipped
 * from the second launch on), at depth 3 never; the last launch of 41 is
 * partial either way. */
static void test_oscillator(void **state)
{
    TDCL_NEED_DEVICE(state);
    const int64_t steps[] = {41, 2, 0};
    tdcl_matrix g = grid_new(100, 1000);
    stamp(&g, blinker, 1, 47, 895); /* across a tile's edge, 896 cells */
    run_case c2 = {"blinker", TDCL_LIFE_DEAD, 2, 64, TDCL_LIFE_LAYOUT_CPU, steps, NULL};
    double f2 = run_sparse(*state, &g, &c2);
    run_case c3 = {"blinker", TDCL_LIFE_TORUS, 3, 64, TDCL_LIFE_LAYOUT_CPU, steps, NULL};
    double f3 = run_sparse(*state, &g, &c3);
    if (!(f2 < f3)) fail_msg("blinker: depth 2 computed %.3g, depth 3 %.3g", f2, f3);
    tdcl_matrix_free(&g);
}

/* The Gosper gun on a torus: its gliders wrap around and come back. */
static void test_gun_torus(void **state)
{
    TDCL_NEED_DEVICE(state);
    const int64_t steps[] = {150, 161, 0};
    tdcl_matrix g = grid_new(150, 1000);
    stamp(&g, gun, 9, 5, 880);
    run_case c = {"gun", TDCL_LIFE_TORUS, 8, 64, TDCL_LIFE_LAYOUT_CPU, steps, NULL};
    run_sparse(*state, &g, &c);
    run_case c1 = {"gun", TDCL_LIFE_CLAMP, 0, 32, TDCL_LIFE_LAYOUT_CPU, steps, NULL};
    run_sparse(*state, &g, &c1);
    tdcl_matrix_free(&g);
}

/* Rows written into a settled grid (as shards do) take effect: a glider
 * appears in an empty region after the map says nothing changes. */
static void test_write_rows(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_life_opts o = tdcl_life_opts_default();
    o.sparse = TDCL_LIFE_SPARSE_ON;
    o.layout = TDCL_LIFE_LAYOUT_CPU;
    o.depth = 8;
    tdcl_matrix g = grid_new(120, 1000), h = grid_new(120, 1000);
    stamp(&g, block, 2, 10, 10);
    memcpy(h.data, g.data, (size_t)(120 * 1000));
    tdcl_life_plan *p = NULL;
    tdcl_err err = {0};
    assert_int_equal(tdcl_life_plan_create(*state, &o, &g, &p, &err), TDCL_OK);
    assert_int_equal(tdcl_life_plan_execute(p, 24, NULL, &err), TDCL_OK);
    size_t rb = tdcl_life_plan_row_bytes(p);
    uint8_t *rows = calloc(3, rb);
    for (int y = 0; y < 3; y++) /* the glider at rows 60..62, columns 500..502 */
        for (int x = 0; x < 3; x++)
            if (glider_se[y][x] == 'O')
                rows[(size_t)y * rb + (500 + x) / 8] |= 1 << ((500 + x) % 8);
    assert_int_equal(tdcl_life_plan_write_rows(p, 60, 3, rows, &err), TDCL_OK);
    stamp(&h, glider_se, 3, 60, 500);
    assert_int_equal(tdcl_life_plan_execute(p, 40, NULL, &err), TDCL_OK);
    host_advance(&h, &o, 40);
    expect_same(p, &h, "glider written into a settled grid");
    free(rows);
    tdcl_life_plan_destroy(p);
    tdcl_matrix_free(&g);
    tdcl_matrix_free(&h);
}

/* Automatic: a glider in 2048^2 skips, a quarter-full soup does not; B0
 * and Golly's other grids run dense even when asked, and stay exact. */
static void test_auto_and_fallback(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_life_opts o = tdcl_life_opts_default();
    tdcl_life_plan *p = NULL;
    tdcl_err err = {0};
    tdcl_matrix g = grid_new(2048, 2048), s = {0};
    stamp(&g, glider_se, 3, 1000, 1000);
    assert_int_equal(tdcl_life_plan_create(*state, &o, &g, &p, &err), TDCL_OK);
    assert_int_equal(tdcl_life_plan_sparse(p), 1);
    tdcl_life_plan_destroy(p);
    assert_int_equal(tdcl_life_soup(2048, 2048, 0.25, 3, &s, &err), TDCL_OK);
    assert_int_equal(tdcl_life_plan_create(*state, &o, &s, &p, &err), TDCL_OK);
    assert_int_equal(tdcl_life_plan_sparse(p), 0);
    tdcl_life_plan_destroy(p);
    o.sparse = TDCL_LIFE_SPARSE_OFF;
    assert_int_equal(tdcl_life_plan_create(*state, &o, &g, &p, &err), TDCL_OK);
    assert_int_equal(tdcl_life_plan_sparse(p), 0);
    tdcl_life_plan_destroy(p);
    tdcl_matrix_free(&g);
    tdcl_matrix_free(&s);

    o.sparse = TDCL_LIFE_SPARSE_ON;
    o.boundary = TDCL_LIFE_TORUS;
    assert_int_equal(tdcl_life_rule_parse("B0123478/S01234678", &o.rule, NULL, &err), TDCL_OK);
    g = grid_new(60, 200);
    soup_patch(&g, 7, 0.3, 10, 50, 10, 190);
    tdcl_matrix h = grid_new(60, 200);
    memcpy(h.data, g.data, 60 * 200);
    assert_int_equal(tdcl_life_plan_create(*state, &o, &g, &p, &err), TDCL_OK);
    assert_int_equal(tdcl_life_plan_sparse(p), 0);
    assert_int_equal(tdcl_life_plan_execute(p, 9, NULL, &err), TDCL_OK);
    host_advance(&h, &o, 9);
    expect_same(p, &h, "B0 rule, dense");
    tdcl_life_plan_destroy(p);
    tdcl_matrix_free(&g);
    tdcl_matrix_free(&h);
}

/* A GPU of 32 KiB of local memory, the least OpenCL allows (the limit
 * lowered here; the device has more): tiles of 16 words by 128 rows take
 * 33,284 bytes, so they shrink to 64 rows (32 output rows at depth 16) and
 * tiles are still skipped, with the same result. */
static void test_small_local_memory(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    const cl_ulong local = ctx->dev.local_mem;
    const int64_t steps[] = {32, 21, 0};
    tdcl_matrix g = grid_new(250, 2000);
    soup_patch(&g, 6, 0.3, 100, 200, 900, 1000);
    ctx->dev.local_mem = 32768;
    run_case c = {"soup, GPU tiles in 32 KiB", TDCL_LIFE_TORUS, 16,  64,
                  TDCL_LIFE_LAYOUT_GPU,        steps,           NULL};
    run_sparse(ctx, &g, &c);
    tdcl_life_opts o = tdcl_life_opts_default();
    o.boundary = TDCL_LIFE_TORUS;
    o.depth = 16;
    o.layout = TDCL_LIFE_LAYOUT_GPU;
    o.sparse = TDCL_LIFE_SPARSE_ON;
    tdcl_life_plan *p = NULL;
    tdcl_err err = {0};
    assert_int_equal(tdcl_life_plan_create(ctx, &o, &g, &p, &err), TDCL_OK);
    assert_non_null(strstr(tdcl_life_plan_describe(p), "tiles=896x32 "));
    tdcl_life_plan_destroy(p);

    ctx->dev.local_mem = local;
    tdcl_matrix_free(&g);
}

int main(void)
{
    const struct CMUnitTest dev[] = {
        cmocka_unit_test(test_soups),
        cmocka_unit_test(test_glider_into_settled),
        cmocka_unit_test(test_skips),
        cmocka_unit_test(test_oscillator),
        cmocka_unit_test(test_gun_torus),
        cmocka_unit_test(test_write_rows),
        cmocka_unit_test(test_auto_and_fallback),
        cmocka_unit_test(test_small_local_memory),
    };
    return tdcl_test_exit(cmocka_run_group_tests_name("life_sparse", dev, tdcl_test_ctx_setup,
                                                      tdcl_test_ctx_teardown));
}
