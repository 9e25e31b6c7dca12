/* The tile plane (ops/life/life_plane.c) against the host reference on a
 * dense grid large enough that nothing reaches its edge: gliders crossing
 * tile edges and corners in all four directions from an origin that is no
 * multiple of a tile, the Gosper gun creating tiles, a pattern dying out
 * (every tile freed), HighLife, a glider near the far end of the 64-bit
 * plane; B0 refused; the memory bound naming generation and population. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdcl_test.h"

#include "io/life_pattern.h"
#include "ops/life/life.h"
#include "ops/life/life_plane.h"

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
static const char *const glider_nw[] = {"OOO", "O..", ".O."};
static const char *const glider_ne[] = {"OOO", "..O", ".O."};
static const char *const glider_sw[] = {".O.", "O..", "OOO"};
static const char *const diehard[] = {"......O.", "OO......", ".O...OOO"};
static const char *const gun[] = {
    "........................O...........", "......................O.O...........",
    "............OO......OO............OO", "...........O...O....OO............OO",
    "OO........O.....O...OO..............", "OO........O...O.OO....O.O...........",
    "..........O.....O.......O...........", "...........O...O....................",
    "............OO......................",
};

/* Runs g, placed with its cell (0, 0) at plane (x0, y0), on the plane and
 * on the host for the steps given (ending with 0), comparing the whole
 * grid and the population after each; returns the final stats. bounded:
 * the plane is g's own grid with a dead edge (x0 = y0 = 0), as the host's
 * grid is. */
static tdcl_life_tiles_stats run_on(tdcl_ctx *ctx, tdcl_matrix *g, int64_t x0, int64_t y0,
                                    const char *rule_text, const int64_t *steps, const char *what,
                                    int bounded)
{
    tdcl_life_rule rule = tdcl_life_rule_conway();
    if (rule_text) assert_int_equal(tdcl_life_rule_parse(rule_text, &rule, NULL, NULL), TDCL_OK);
    tdcl_life_cells cells = {0};
    tdcl_life_tiles *p = NULL;
    tdcl_err err = {0};
    assert_int_equal(tdcl_life_cells_from_grid(g, x0, y0, &cells, NULL), TDCL_OK);
    if (tdcl_life_tiles_create_bounded(ctx, &rule, 0, 0, bounded ? g->cols : 0,
                                       bounded ? g->rows : 0, &cells, &p, &err))
        fail_msg("%s: create: %s", what, err.msg);
    tdcl_matrix t = grid_new(g->rows, g->cols);
    int64_t done = 0;
    tdcl_life_tiles_stats s;
    for (const int64_t *n = steps; *n; n++) {
        if (tdcl_life_tiles_run(p, *n, &err)) fail_msg("%s: run: %s", what, err.msg);
        for (int64_t i = 0; i < *n; i++) {
            tdcl_life_host_step(g, &t, &rule, TDCL_LIFE_DEAD);
            tdcl_matrix x = *g;
            *g = t;
            t = x;
        }
        done += *n;
        tdcl_matrix got = {0};
        if (tdcl_life_tiles_window(p, x0, y0, g->rows, g->cols, &got, &err))
            fail_msg("%s: window: %s", what, err.msg);
        int64_t live = 0, diff = 0;
        for (int64_t k = 0; k < g->rows * g->cols; k++) {
            live += ((uint8_t *)g->data)[k];
            diff += ((uint8_t *)got.data)[k] != ((uint8_t *)g->data)[k];
        }
        tdcl_matrix_free(&got);
        tdcl_life_tiles_stats_get(p, &s);
        if (diff)
            fail_msg("%s: generation %lld: %lld cells differ", what, (long long)done,
                     (long long)diff);
        if (s.population != live)
            fail_msg("%s: generation %lld: population %lld, the host has %lld", what,
                     (long long)done, (long long)s.population, (long long)live);
        assert_int_equal(s.generation, done);
    }
    tdcl_life_cells out = {0};
    assert_int_equal(tdcl_life_tiles_cells(p, &out, NULL), TDCL_OK);
    assert_int_equal((int64_t)out.n, s.population);
    for (size_t i = 1; i < out.n; i++) /* sorted by row, then column */
        assert_true(out.xy[2 * i + 1] > out.xy[2 * i - 1] ||
                    (out.xy[2 * i + 1] == out.xy[2 * i - 1] && out.xy[2 * i] > out.xy[2 * i - 2]));
    tdcl_life_cells_free(&out);
    tdcl_life_cells_free(&cells);
    tdcl_life_tiles_destroy(p);
    tdcl_matrix_free(&t);
    return s;
}

static tdcl_life_tiles_stats run_both(tdcl_ctx *ctx, tdcl_matrix *g, int64_t x0, int64_t y0,
                                      const char *rule_text, const int64_t *steps, const char *what)
{
    return run_on(ctx, g, x0, y0, rule_text, steps, what, 0);
}

static void test_gliders(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_matrix g = grid_new(300, 300);
    stamp(&g, glider_se, 3, 140, 140);
    stamp(&g, glider_nw, 3, 120, 120);
    stamp(&g, glider_ne, 3, 120, 170);
    stamp(&g, glider_sw, 3, 170, 120);
    const int64_t steps[] = {1, 3, 17, 40, 64, 100, 0};
    /* the origin off the tiles' grid, negative: tile edges fall everywhere */
    tdcl_life_tiles_stats s = run_both(*state, &g, -157, -93, NULL, steps, "four gliders");
    assert_int_equal(s.population, 20);
    assert_true(s.tiles >= 4 && s.tiles <= 4 * 16);
    tdcl_matrix_free(&g);
}

static void test_gun(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_matrix g = grid_new(260, 260);
    stamp(&g, gun, 9, 10, 10);
    const int64_t steps[] = {30, 90, 120, 160, 0};
    tdcl_life_tiles_stats s = run_both(*state, &g, 33, 5, NULL, steps, "Gosper gun");
    assert_true(s.peak_tiles >= 4); /* from 2: the stream made tiles */
    assert_true(s.cell_updates < 400.0 * 260 * 260);
    /* the active area: 64 x 64 cells a listed tile and generation, 1..K
     * generations a launch */
    assert_true(s.launches > 0 && s.tile_launches >= (double)s.launches);
    assert_true(s.cell_updates >= s.tile_launches * 64 * 64);
    assert_true(s.cell_updates <= s.tile_launches * 64 * 64 * s.launch_gens);
    tdcl_matrix_free(&g);
}

/* A tile that settles within a launch (a pre-block becomes a block at the
 * first generation), a blinker's tile flipping, a glider crossing a tile
 * corner; stopped at generations no launch length divides. A blinker's
 * tile skipped. */
static void test_settles(void **state)
{
    static const char *const preblock[] = {"OO", "O."};
    static const char *const blinker[] = {"OOO"};
    TDCL_NEED_DEVICE(state);
    tdcl_matrix g = grid_new(300, 300);
    /* from (7, 9), tiles of 64: tiles (4, 0) and (0, 4), far from the
     * glider going north-west from the corner of four tiles at (128, 128) */
    stamp(&g, preblock, 2, 20, 280);
    stamp(&g, blinker, 1, 280, 20);
    stamp(&g, glider_nw, 3, 119, 119);
    const int64_t steps[] = {33, 1, 7, 64, 31, 5, 0};
    tdcl_life_tiles_stats s = run_both(*state, &g, 7, 9, NULL, steps, "settling tiles");
    tdcl_matrix_free(&g);
    /* a lone blinker's tile repeats over launches of an even length, so
     * after the first it is computed again only for the shorter last one */
    g = grid_new(100, 100);
    stamp(&g, blinker, 1, 32, 31); /* in its tile's middle, in no band */
    const int64_t eighty[] = {80, 0};
    s = run_both(*state, &g, 0, 0, NULL, eighty, "a blinker");
    if (s.launch_gens % 2 == 0)
        assert_true(s.cell_updates <= 2.0 * s.launch_gens * 64 * 64 * s.peak_tiles);
    tdcl_matrix_free(&g);
}

static void test_dies(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_matrix g = grid_new(120, 120);
    stamp(&g, diehard, 3, 60, 60);
    /* empty at generation 130; its last tiles go the generation after */
    const int64_t steps[] = {100, 29, 1, 1, 0};
    tdcl_life_tiles_stats s = run_both(*state, &g, -64, -64, NULL, steps, "diehard");
    assert_int_equal(s.population, 0);
    assert_int_equal(s.tiles, 0);
    assert_int_equal(s.active, 0);
    tdcl_matrix_free(&g);
}

static void test_highlife(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_matrix g = grid_new(200, 200);
    uint64_t seed = 41;
    for (int64_t y = 80; y < 120; y++)
        for (int64_t x = 60; x < 140; x++)
            ((uint8_t *)g.data)[y * 200 + x] = tdcl_test_uniform(&seed, 0, 1) < 0.35;
    const int64_t steps[] = {5, 20, 35, 0};
    run_both(*state, &g, 0, 0, "B36/S23", steps, "HighLife soup");
    tdcl_matrix_free(&g);
}

/* A glider at the far corner of the plane crosses tiles there, and is
 * stopped with a message before a tile past 2^63 would be needed (a launch
 * may carry cells a tile's half further, so it stops that far before). */
static void test_far(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_matrix g = grid_new(40, 40);
    stamp(&g, glider_se, 3, 2, 2);
    const int64_t far = INT64_MAX - 72;
    const int64_t steps[] = {16, 20, 0};
    run_both(*state, &g, far, far, NULL, steps, "far glider");
    tdcl_life_rule rule = tdcl_life_rule_conway();
    tdcl_life_cells cells = {0};
    tdcl_life_tiles *p = NULL;
    tdcl_err err = {0};
    stamp(&g, glider_se, 3, 20, 20);
    assert_int_equal(tdcl_life_cells_from_grid(&g, far, far, &cells, NULL), TDCL_OK);
    assert_int_equal(tdcl_life_tiles_create(*state, &rule, 0, 0, &cells, &p, &err), TDCL_OK);
    assert_int_equal(tdcl_life_tiles_run(p, 200, &err), TDCL_ERANGE);
    assert_non_null(strstr(err.msg, "64-bit plane"));
    tdcl_life_tiles_destroy(p);
    tdcl_life_cells_free(&cells);
    tdcl_matrix_free(&g);
}

/* A fixed grid with a dead edge, its far edges inside tiles (150 % 64,
 * 100 % 64): gliders into each edge and the far corner, blinkers on the
 * last column and the last row (a blinker there dies: the cells beyond
 * stay dead), against the host's dead edge; in both kernels. */
static void test_bounded(void **state)
{
    TDCL_NEED_DEVICE(state);
    static const char *const blinker_v[] = {"O", "O", "O"};
    static const char *const blinker_h[] = {"OOO"};
    const int64_t steps[] = {1, 2, 13, 31, 64, 120, 0};
    const char *wi = getenv("TILEDCL_PLANE_WI");
    char *keep = wi ? strdup(wi) : NULL;
    for (int shape = 0; shape < 2; shape++) {
        tdcl_matrix g = grid_new(100, 150);
        stamp(&g, glider_se, 3, 80, 130); /* the far corner */
        stamp(&g, glider_ne, 3, 30, 135); /* the last column */
        stamp(&g, glider_sw, 3, 85, 60);  /* the last row */
        stamp(&g, glider_nw, 3, 4, 4);    /* the near corner */
        stamp(&g, blinker_v, 3, 50, 149);
        stamp(&g, blinker_h, 1, 99, 100);
        setenv("TILEDCL_PLANE_WI", shape ? "0" : "1", 1);
        tdcl_life_tiles_stats s =
            run_on(*state, &g, 0, 0, NULL, steps,
                   shape ? "bounded, life_plane" : "bounded, life_plane_wi", 1);
        /* nothing made beyond the edge: the grid is 3 x 2 tiles */
        assert_true(s.peak_tiles <= 6);
        tdcl_matrix_free(&g);
    }
    if (keep)
        setenv("TILEDCL_PLANE_WI", keep, 1);
    else
        unsetenv("TILEDCL_PLANE_WI");
    free(keep);
    /* a cell outside the grid is the caller's error */
    tdcl_life_rule rule = tdcl_life_rule_conway();
    tdcl_life_cells cells = {0};
    tdcl_life_tiles *p = NULL;
    tdcl_err err = {0};
    assert_int_equal(tdcl_life_cells_add(&cells, 10, 7, NULL), TDCL_OK);
    assert_int_equal(tdcl_life_tiles_create_bounded(*state, &rule, 0, 0, 10, 8, &cells, &p, &err),
                     TDCL_EINVAL);
    assert_non_null(strstr(err.msg, "outside the 10 x 8 grid"));
    assert_null(p);
    tdcl_life_cells_free(&cells);
}

static void test_refusals(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_life_rule rule;
    tdcl_life_cells cells = {0};
    tdcl_life_tiles *p = NULL;
    tdcl_err err = {0};
    assert_int_equal(tdcl_life_rule_parse("B03/S23", &rule, NULL, NULL), TDCL_OK);
    assert_int_equal(tdcl_life_tiles_create(*state, &rule, 0, 0, &cells, &p, &err), TDCL_EINVAL);
    assert_non_null(strstr(err.msg, "B0"));
    assert_null(p);
    /* the gun needs three tiles at the start (its own, the tiles west and
     * north of its edge cells), then more for its gliders */
    tdcl_matrix g = grid_new(9, 36);
    stamp(&g, gun, 9, 0, 0);
    rule = tdcl_life_rule_conway();
    assert_int_equal(tdcl_life_cells_from_grid(&g, 0, 0, &cells, NULL), TDCL_OK);
    assert_int_equal(
        tdcl_life_tiles_create(*state, &rule, tdcl_life_tiles_bytes(2), 7, &cells, &p, &err),
        TDCL_ELIMIT);
    assert_non_null(strstr(err.msg, "needs 3 tiles"));
    assert_non_null(strstr(err.msg, "at generation 7 "));
    assert_non_null(strstr(err.msg, "population 36"));
    assert_int_equal(
        tdcl_life_tiles_create(*state, &rule, tdcl_life_tiles_bytes(6), 7, &cells, &p, &err),
        TDCL_OK);
    assert_int_equal(tdcl_life_tiles_run(p, 1000, &err), TDCL_ELIMIT);
    assert_non_null(strstr(err.msg, "needs 7 tiles"));
    tdcl_life_tiles_destroy(p);
    tdcl_life_cells_free(&cells);
    tdcl_matrix_free(&g);
}

int main(void)
{
    const struct CMUnitTest dev[] = {
        cmocka_unit_test(test_gliders),  cmocka_unit_test(test_gun),
        cmocka_unit_test(test_settles),  cmocka_unit_test(test_dies),
        cmocka_unit_test(test_highlife), cmocka_unit_test(test_far),
        cmocka_unit_test(test_refusals), cmocka_unit_test(test_bounded),
    };
    return tdcl_test_exit(cmocka_run_group_tests_name("life_plane", dev, tdcl_test_ctx_setup,
                                                      tdcl_test_ctx_teardown));
}
