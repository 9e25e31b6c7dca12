/* Shards: band splits, device-set specs and their resolution (pure), and
 * matmul's grids; matmul's accumulating plan and its local transport, and
 * life over 2 and 3 devices against the host reference for every boundary,
 * odd shapes and halos (PoCL shows several CPU devices with POCL_DEVICES,
 * set here before OpenCL starts; skipped with fewer than two devices). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdcl_test.h"

#include "dist/exec.h"
#include "dist/shard.h"
#include "dist/life_shards.h"
#include "dist/matmul_run.h"
#include "dist/tile_avg_run.h"
#include "ops/life/life.h"
#include "runtime/devset.h"

static void split_even_and_uneven(void **state)
{
    (void)state;
    int64_t b[5];
    assert_int_equal(tdcl_shard_split(10, 3, 1, b, NULL), TDCL_OK);
    assert_int_equal(b[0], 0);
    assert_int_equal(b[1], 4);
    assert_int_equal(b[2], 7);
    assert_int_equal(b[3], 10);
    assert_int_equal(tdcl_shard_split(8, 4, 1, b, NULL), TDCL_OK);
    assert_int_equal(b[2], 4);
    assert_int_equal(b[4], 8);
    /* blocks of 4 rows: 10 rows are 3 blocks, 2 shards take 2 and 1 */
    assert_int_equal(tdcl_shard_split(10, 2, 4, b, NULL), TDCL_OK);
    assert_int_equal(b[1], 8);
    assert_int_equal(b[2], 10);
    assert_int_equal(tdcl_shard_split(3, 3, 1, b, NULL), TDCL_OK);
    assert_int_equal(b[1], 1);
    assert_int_equal(b[3], 3);
}

static void split_refuses_empty_bands(void **state)
{
    (void)state;
    int64_t b[8];
    tdcl_err err = {0};
    assert_int_equal(tdcl_shard_split(2, 3, 1, b, &err), TDCL_EINVAL);
    assert_non_null(strstr(err.msg, "3 shards for a grid of 2 rows"));
    assert_int_equal(tdcl_shard_split(9, 4, 4, b, &err), TDCL_EINVAL); /* 3 blocks */
    assert_non_null(strstr(err.msg, "blocks of 4"));
}

/* The execution's kind: ranks first, then a set spec, else one device. */
static void exec_kinds(void **state)
{
    (void)state;
    assert_int_equal(tdcl_exec_kind_of(NULL, 0), TDCL_EXEC_ONE);
    assert_int_equal(tdcl_exec_kind_of("gpu", 1), TDCL_EXEC_ONE);
    assert_int_equal(tdcl_exec_kind_of("all", 0), TDCL_EXEC_SET);
    assert_int_equal(tdcl_exec_kind_of("0:0,0:1", 1), TDCL_EXEC_SET);
    assert_int_equal(tdcl_exec_kind_of("all", 2), TDCL_EXEC_RANKS);
    assert_int_equal(tdcl_exec_kind_of(NULL, 4), TDCL_EXEC_RANKS);
}

static void spec_is_set(void **state)
{
    (void)state;
    assert_true(tdcl_devset_spec_is_set("all"));
    assert_true(tdcl_devset_spec_is_set("ALL"));
    assert_true(tdcl_devset_spec_is_set("gpu:all"));
    assert_true(tdcl_devset_spec_is_set("cpu:all"));
    assert_true(tdcl_devset_spec_is_set("1:0,1:1"));
    assert_true(tdcl_devset_spec_is_set("0:0,"));
    assert_false(tdcl_devset_spec_is_set(NULL));
    assert_false(tdcl_devset_spec_is_set("gpu"));
    assert_false(tdcl_devset_spec_is_set("1:0"));
    assert_false(tdcl_devset_spec_is_set("NVIDIA"));
}

/* Two platforms: a GPU and a CPU on platform 0, a CPU on platform 1. */
static void fake_list(tdcl_device_info *l)
{
    memset(l, 0, 3 * sizeof *l);
    l[0] = (tdcl_device_info){.pidx = 0, .didx = 0, .type = CL_DEVICE_TYPE_GPU};
    l[1] = (tdcl_device_info){.pidx = 0, .didx = 1, .type = CL_DEVICE_TYPE_CPU};
    l[2] = (tdcl_device_info){.pidx = 1, .didx = 0, .type = CL_DEVICE_TYPE_CPU};
    snprintf(l[0].device_name, sizeof l[0].device_name, "Big GPU");
    snprintf(l[1].device_name, sizeof l[1].device_name, "Small CPU");
    snprintf(l[2].device_name, sizeof l[2].device_name, "Other CPU");
}

static void pick_sets(void **state)
{
    (void)state;
    tdcl_device_info l[3];
    size_t idx[8], n = 0;
    tdcl_err err = {0};
    fake_list(l);
    assert_int_equal(tdcl_devset_pick(l, 3, "all", idx, 8, &n, NULL), TDCL_OK);
    assert_int_equal(n, 3);
    assert_int_equal(idx[2], 2);
    assert_int_equal(tdcl_devset_pick(l, 3, "cpu:all", idx, 8, &n, NULL), TDCL_OK);
    assert_int_equal(n, 2);
    assert_int_equal(idx[0], 1);
    assert_int_equal(idx[1], 2);
    assert_int_equal(tdcl_devset_pick(l, 3, "gpu:all", idx, 8, &n, NULL), TDCL_OK);
    assert_int_equal(n, 1);
    assert_int_equal(idx[0], 0);
    assert_int_equal(tdcl_devset_pick(l, 3, "1:0,0:0,1:0", idx, 8, &n, NULL), TDCL_OK);
    assert_int_equal(n, 3);
    assert_int_equal(idx[0], 2);
    assert_int_equal(idx[1], 0);
    assert_int_equal(idx[2], 2);
    assert_int_equal(tdcl_devset_pick(l, 3, "other,gpu", idx, 8, &n, NULL), TDCL_OK);
    assert_int_equal(idx[0], 2);
    assert_int_equal(idx[1], 0);
    assert_int_equal(tdcl_devset_pick(l, 3, "accelerator:all", idx, 8, &n, &err), TDCL_ENODEV);
    assert_int_equal(tdcl_devset_pick(l, 3, "0:0,,0:1", idx, 8, &n, &err), TDCL_EINVAL);
    assert_int_equal(tdcl_devset_pick(l, 3, "0:0,5:5", idx, 8, &n, &err), TDCL_ENODEV);
    assert_non_null(strstr(err.msg, "'5:5'"));
    assert_int_equal(tdcl_devset_pick(l, 3, "all", idx, 2, &n, &err), TDCL_EINVAL);
    assert_int_equal(tdcl_devset_pick(l, 3, "foo:all", idx, 8, &n, &err), TDCL_EINVAL);
}

/* ---- life over a set, against the host reference ---------------------- */

static tdcl_devset *open_set(size_t want)
{
    tdcl_device_info *list = NULL;
    size_t n = 0;
    if (tdcl_cl_devices(&list, &n, NULL) != TDCL_OK) return NULL;
    char spec[256] = "";
    size_t got = 0;
    for (size_t i = 0; i < n && got < want; i++)
        if (list[i].type & CL_DEVICE_TYPE_CPU) {
            size_t used = strlen(spec);
            snprintf(spec + used, sizeof spec - used, "%s%u:%u", got ? "," : "", list[i].pidx,
                     list[i].didx);
            got++;
        }
    free(list);
    if (got < want) return NULL;
    tdcl_devset *set = NULL;
    tdcl_err err = {0};
    if (tdcl_devset_open_async(spec, NULL, &set, &err) != TDCL_OK ||
        tdcl_devset_wait(set, &err) != TDCL_OK) {
        print_message("cannot open '%s': %s\n", spec, err.msg);
        tdcl_devset_close(set);
        return NULL;
    }
    return set;
}

static tdcl_matrix random_grid(int64_t rows, int64_t cols, uint64_t seed)
{
    tdcl_matrix m = {0};
    assert_int_equal(tdcl_matrix_alloc(&m, rows, cols, 1, TDCL_U8, NULL), TDCL_OK);
    uint64_t s = seed * 7919 + 3;
    for (int64_t k = 0; k < rows * cols; k++)
        ((uint8_t *)m.data)[k] = tdcl_test_uniform(&s, 0, 1) < 0.4;
    return m;
}

static tdcl_matrix host_run(const tdcl_matrix *g, const tdcl_life_rule *r, tdcl_life_boundary b,
                            int64_t gens)
{
    tdcl_matrix a = {0}, t = {0};
    assert_int_equal(tdcl_matrix_alloc(&a, g->rows, g->cols, 1, TDCL_U8, NULL), TDCL_OK);
    assert_int_equal(tdcl_matrix_alloc(&t, g->rows, g->cols, 1, TDCL_U8, NULL), TDCL_OK);
    memcpy(a.data, g->data, (size_t)(g->rows * g->cols));
    for (int64_t i = 0; i < gens; i++) {
        tdcl_life_host_step(&a, &t, r, b);
        tdcl_matrix x = a;
        a = t;
        t = x;
    }
    tdcl_matrix_free(&t);
    return a;
}

/* The shards' grid and population are the host's want (a grid with live
 * cells); then S and want are released. what names the case. */
static void expect_host_grid(tdcl_life_shards *S, tdcl_matrix *want, const char *what)
{
    tdcl_matrix got = {0};
    tdcl_err err = {0};
    int64_t pop = -1, want_pop = 0;
    assert_int_equal(tdcl_life_shards_population(S, &pop, &err), TDCL_OK);
    assert_int_equal(tdcl_life_shards_result(S, &got, &err), TDCL_OK);
    for (int64_t k = 0; k < want->rows * want->cols; k++)
        want_pop += ((uint8_t *)want->data)[k];
    if (memcmp(got.data, want->data, (size_t)(want->rows * want->cols)) != 0)
        fail_msg("%s (%s): differs from the host", what, tdcl_life_shards_describe(S));
    assert_int_equal(pop, want_pop);
    assert_true(want_pop > 0);
    tdcl_life_shards_destroy(S);
    tdcl_matrix_free(&got);
    tdcl_matrix_free(want);
}

static void life_on(size_t devices, void **state)
{
    (void)state;
    tdcl_devset *set = open_set(devices);
    if (!set) {
        print_message("fewer than %zu CPU OpenCL devices: skipped\n", devices);
        skip();
    }
    static const struct {
        int64_t rows, cols, gens;
        int halo;
    } cases[] = {{48, 64, 37, 0}, {53, 67, 29, 0}, {7, 129, 23, 0},
                 {31, 90, 25, 1}, {40, 40, 33, 5}, {9, 200, 19, 3}};
    const tdcl_life_boundary bounds[] = {TDCL_LIFE_DEAD, TDCL_LIFE_TORUS, TDCL_LIFE_CLAMP};
    tdcl_life_rule conway = tdcl_life_rule_conway();
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t b = 0; b < 3; b++) {
            if (cases[c].halo > cases[c].rows / (int64_t)devices) continue;
            tdcl_matrix g = random_grid(cases[c].rows, cases[c].cols, c * 3 + b);
            tdcl_matrix want = host_run(&g, &conway, bounds[b], cases[c].gens);
            tdcl_life_opts o = tdcl_life_opts_default();
            o.boundary = bounds[b];
            tdcl_life_shards *S = NULL;
            tdcl_err err = {0};
            assert_int_equal(tdcl_life_shards_create(set, &o, &g, cases[c].halo, &S, &err),
                             TDCL_OK);
            /* two calls: a round boundary inside the run */
            assert_int_equal(tdcl_life_shards_execute(S, cases[c].gens / 3, &err), TDCL_OK);
            assert_int_equal(tdcl_life_shards_execute(S, cases[c].gens - cases[c].gens / 3, &err),
                             TDCL_OK);
            char what[96];
            snprintf(what, sizeof what, "%zu devices, %lld x %lld, boundary %zu, halo %d", devices,
                     (long long)cases[c].cols, (long long)cases[c].rows, b,
                     tdcl_life_shards_halo(S));
            expect_host_grid(S, &want, what);
            tdcl_matrix_free(&g);
        }
    tdcl_devset_close(set);
}

static void life_two(void **state)
{
    life_on(2, state);
}

static void life_three(void **state)
{
    life_on(3, state);
}

/* A grid larger than its devices: streamed through them in bands, each
 * round from the whole grid of the round before, against the host; one
 * device and two (the same context twice), each boundary, a last band of
 * a row, a halo given, and a round boundary inside the run. */
static void life_streamed(void **state)
{
    (void)state;
    tdcl_devset *set = open_set(1);
    if (!set) {
        print_message("no CPU OpenCL device: skipped\n");
        skip();
    }
    tdcl_ctx *ctx = set->ctx[0];
    cl_ulong keep = ctx->dev.max_alloc;
    static const struct {
        int64_t rows, cols, gens;
        int halo, devices;
    } cases[] = {{111, 130, 31, 0, 1}, {97, 64, 17, 3, 1}, {200, 70, 45, 0, 2}};
    const tdcl_life_boundary bounds[] = {TDCL_LIFE_DEAD, TDCL_LIFE_TORUS, TDCL_LIFE_CLAMP};
    tdcl_life_rule conway = tdcl_life_rule_conway();
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t b = 0; b < 3; b++) {
            tdcl_matrix g = random_grid(cases[c].rows, cases[c].cols, 50 + c * 3 + b);
            tdcl_matrix want = host_run(&g, &conway, bounds[b], cases[c].gens);
            tdcl_life_opts o = tdcl_life_opts_default();
            o.boundary = bounds[b];
            tdcl_life_shards *S = NULL;
            tdcl_err err = {0};
            tdcl_devset two = {.n = (size_t)cases[c].devices, .ctx = {ctx, ctx}};
            /* 24 rows of up to 192 cells (24-byte words) in the largest buffer */
            ctx->dev.max_alloc = 24 * 24;
            tdcl_status st = tdcl_life_shards_create(&two, &o, &g, cases[c].halo, &S, &err);
            if (st == TDCL_OK) st = tdcl_life_shards_execute(S, cases[c].gens / 2, &err);
            if (st == TDCL_OK)
                st = tdcl_life_shards_execute(S, cases[c].gens - cases[c].gens / 2, &err);
            ctx->dev.max_alloc = keep;
            if (st) fail_msg("case %zu, boundary %zu: %s", c, b, err.msg);
            assert_non_null(strstr(tdcl_life_shards_describe(S), "streamed in"));
            char what[96];
            snprintf(what, sizeof what, "streamed %lld x %lld, boundary %zu",
                     (long long)cases[c].cols, (long long)cases[c].rows, b);
            expect_host_grid(S, &want, what);
            tdcl_matrix_free(&g);
        }
    tdcl_devset_close(set);
}

static void life_refusals(void **state)
{
    (void)state;
    tdcl_devset *set = open_set(3);
    if (!set) skip();
    tdcl_matrix g = random_grid(2, 30, 1);
    tdcl_life_opts o = tdcl_life_opts_default();
    tdcl_life_shards *S = NULL;
    tdcl_err err = {0};
    assert_int_equal(tdcl_life_shards_create(set, &o, &g, 0, &S, &err), TDCL_EINVAL);
    assert_non_null(strstr(err.msg, "3 shards for a grid of 2 rows"));
    tdcl_matrix_free(&g);
    g = random_grid(10, 30, 2);
    assert_int_equal(tdcl_life_shards_create(set, &o, &g, 4, &S, &err), TDCL_EINVAL);
    assert_non_null(strstr(err.msg, "halo of 4 rows"));
    assert_null(S);
    tdcl_matrix_free(&g);
    tdcl_devset_close(set);
}

/* tile-avg over 2 and 3 devices: byte-identical to one device for float32
 * and float64, 1 and 3 channels, tiles that do and do not divide */
static void tile_avg_bands(void **state)
{
    (void)state;
    tdcl_devset *set = open_set(3);
    if (!set) skip();
    static const struct {
        int64_t rows, cols, t, u;
        int ch;
        tdcl_dtype dt;
        tdcl_ta_variant v;
    } cases[] = {
        {103, 77, 3, 5, 1, TDCL_F32, TDCL_TA_AUTO}, {400, 64, 16, 16, 1, TDCL_F64, TDCL_TA_AUTO},
        {200, 41, 7, 4, 3, TDCL_F32, TDCL_TA_AUTO}, {80, 200, 3, 64, 1, TDCL_F32, TDCL_TA_AUTO},
        {75, 300, 3, 64, 1, TDCL_F32, TDCL_TA_GPU}, {61, 600, 1, 256, 1, TDCL_F32, TDCL_TA_BAND},
        {90, 520, 2, 96, 1, TDCL_F32, TDCL_TA_BAND}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tdcl_matrix in = {0}, one = {0}, got = {0};
        assert_int_equal(
            tdcl_matrix_alloc(&in, cases[c].rows, cases[c].cols, cases[c].ch, cases[c].dt, NULL),
            TDCL_OK);
        tdcl_test_fill(&in, 11 + c, -3, 5);
        tdcl_ta_opts o = {.tile_rows = cases[c].t, .tile_cols = cases[c].u, .variant = cases[c].v};
        tdcl_err err = {0};
        assert_int_equal(tdcl_ta_run(set->ctx[0], &o, &in, &one, &err), TDCL_OK);
        for (size_t n = 2; n <= 3; n++) {
            tdcl_devset sub = {.n = n, .ctx = {set->ctx[0], set->ctx[1], set->ctx[2]}};
            assert_int_equal(tdcl_ta_shards_run(&sub, &o, &in, &got, &err), TDCL_OK);
            assert_int_equal(got.rows, one.rows);
            assert_int_equal(got.dtype, one.dtype);
            size_t bytes =
                (size_t)(one.rows * one.cols * one.channels) * tdcl_dtype_size(one.dtype);
            for (size_t k = 0; k < bytes / 4 && one.dtype == TDCL_F32; k++)
                if (((float *)got.data)[k] != ((float *)one.data)[k])
                    print_message("case %zu, %zu devices: element %zu: %.9g vs one device %.9g\n",
                                  c, n, k, ((float *)got.data)[k], ((float *)one.data)[k]);
            if (memcmp(got.data, one.data, bytes) != 0)
                fail_msg("case %zu on %zu devices: %s differs from %s", c, n, "bands", "one");
            tdcl_matrix_free(&got);
        }
        tdcl_matrix_free(&in);
        tdcl_matrix_free(&one);
    }
    /* 3 devices, 2 whole tile rows (not one block of 8 each): refused */
    tdcl_matrix in = {0}, got = {0};
    tdcl_err err = {0};
    assert_int_equal(tdcl_matrix_alloc(&in, 25, 10, 1, TDCL_F32, NULL), TDCL_OK);
    tdcl_test_fill(&in, 3, 0, 1);
    tdcl_ta_opts o = {.tile_rows = 10, .tile_cols = 2};
    assert_int_equal(tdcl_ta_shards_run(set, &o, &in, &got, &err), TDCL_EINVAL);
    assert_non_null(strstr(err.msg, "3 shards for 25 rows in tiles of 10 rows"));
    tdcl_matrix_free(&in);
    tdcl_devset_close(set);
}

/* The halo for a round's fixed cost and a row's time: sqrt(fixed / 2 t_row),
 * rounded, within 1, the cap and the thinnest band. */
static void halo_choice(void **state)
{
    (void)state;
    assert_int_equal(tdcl_shard_halo(0.25, 0.000011, 100000), 107); /* 106.6 */
    assert_int_equal(tdcl_shard_halo(0.25, 0.000011, 50), 50);
    assert_int_equal(tdcl_shard_halo(10.0, 0.000001, 100000), TDCL_SHARD_HALO_MAX);
    assert_int_equal(tdcl_shard_halo(0.0, 0.01, 1000), 1);
    assert_int_equal(tdcl_shard_halo(0.3, 0.0, 1000), TDCL_SHARD_HALO_MAX);
    assert_int_equal(tdcl_shard_halo(0.02, 0.01, 1000), 1); /* 1.0 */
    assert_int_equal(tdcl_shard_halo(0.18, 0.01, 1000), 3); /* 3.0 */
    /* a rebuild for another halo only where a generation costs 5% less:
     * band 2048, t_row 1e-4, fixed 0.2: K* = 32 */
    assert_true(tdcl_shard_halo_worth(0.2, 0.0001, 2048, 1, 32));   /* 0.4050 -> 0.2175 */
    assert_false(tdcl_shard_halo_worth(0.2, 0.0001, 2048, 64, 32)); /* 0.2207 -> 0.2175 */
    assert_false(tdcl_shard_halo_worth(0.2, 0.0001, 2048, 32, 32));
    assert_true(tdcl_shard_halo_worth(5.0, 0.0001, 2048, 16, 158)); /* 0.5205 -> 0.2680 */
}

/* ---- matmul: grids, the plan's accumulation, the local transport ------- */

static void mm_grids(void **state)
{
    (void)state;
    static const int want[][2] = {{1, 1}, {2, 1}, {3, 1}, {2, 2}, {5, 1}, {3, 2}, {7, 1}, {4, 2}};
    int r, c;
    tdcl_err err;
    for (size_t n = 1; n <= 8; n++) {
        assert_int_equal(tdcl_mm_shard_grid(n, 0, 0, &r, &c, &err), TDCL_OK);
        assert_int_equal(r, want[n - 1][0]);
        assert_int_equal(c, want[n - 1][1]);
    }
    assert_int_equal(tdcl_mm_shard_grid(3, 1, 3, &r, &c, &err), TDCL_OK);
    assert_true(r == 1 && c == 3);
    assert_int_equal(tdcl_mm_shard_grid(3, 2, 2, &r, &c, &err), TDCL_EINVAL);
    /* one process's set: row bands unless a grid is given */
    assert_int_equal(tdcl_mm_shard_grid_local(4, 0, 0, &r, &c, &err), TDCL_OK);
    assert_true(r == 4 && c == 1);
    assert_int_equal(tdcl_mm_shard_grid_local(4, 2, 2, &r, &c, &err), TDCL_OK);
    assert_true(r == 2 && c == 2);
    assert_int_equal(tdcl_mm_shard_grid_local(4, 3, 1, &r, &c, &err), TDCL_EINVAL);
    int64_t rb[4], cb[4];
    assert_int_equal(tdcl_mm_shard_split(7, 5, 3, 2, rb, cb, &err), TDCL_OK);
    assert_true(rb[0] == 0 && rb[3] == 7 && cb[0] == 0 && cb[1] == 3 && cb[2] == 5);
    assert_int_equal(tdcl_mm_shard_split(2, 5, 3, 1, rb, cb, &err), TDCL_EINVAL);
    assert_non_null(strstr(err.msg, "a 3x1 grid of shards for a 2x5 product"));
}

static tdcl_matrix small_ints(int64_t rows, int64_t cols, tdcl_dtype t, uint64_t seed)
{
    tdcl_matrix m = {0};
    assert_int_equal(tdcl_matrix_alloc(&m, rows, cols, 1, t, NULL), TDCL_OK);
    uint64_t s = seed * 104729 + 1;
    for (int64_t k = 0; k < rows * cols; k++) {
        int64_t v = (int64_t)tdcl_test_uniform(&s, -50, 50);
        if (t == TDCL_I64)
            ((int64_t *)m.data)[k] = v;
        else
            ((double *)m.data)[k] = (double)v;
    }
    return m;
}

/* C = A1*B1, then C += A2*B2 with new inputs: exact for small integers
 * in float64, on every kernel shape. */
static void mm_accumulate(void **state)
{
    (void)state;
    tdcl_ctx *ctx = tdcl_test_ctx();
    if (!ctx) skip();
    static const tdcl_mm_kernel kinds[] = {TDCL_MM_TILED, TDCL_MM_CPU, TDCL_MM_GPU};
    tdcl_matrix a1 = small_ints(9, 6, TDCL_F64, 1), b1 = small_ints(6, 7, TDCL_F64, 2);
    tdcl_matrix a2 = small_ints(9, 6, TDCL_F64, 3), b2 = small_ints(6, 7, TDCL_F64, 4), c;
    tdcl_err err = {0};
    for (size_t i = 0; i < 3; i++) {
        tdcl_mm_opts o = {.type = TDCL_F64, .kernel = kinds[i]};
        tdcl_mm_plan *p = NULL;
        assert_int_equal(tdcl_mm_plan_create(ctx, &o, &a1, &b1, &p, &err), TDCL_OK);
        assert_int_equal(tdcl_mm_plan_execute_with(p, &a1, &b1, 0, NULL, &err), TDCL_OK);
        assert_int_equal(tdcl_mm_plan_execute_with(p, &a2, &b2, 1, NULL, &err), TDCL_OK);
        assert_int_equal(tdcl_mm_plan_result(p, &c, &err), TDCL_OK);
        for (int r = 0; r < 9; r++)
            for (int j = 0; j < 7; j++) {
                double want = 0;
                for (int k = 0; k < 6; k++)
                    want += ((double *)a1.data)[r * 6 + k] * ((double *)b1.data)[k * 7 + j] +
                            ((double *)a2.data)[r * 6 + k] * ((double *)b2.data)[k * 7 + j];
                assert_true(((double *)c.data)[r * 7 + j] == want);
            }
        tdcl_matrix_free(&c);
        tdcl_mm_plan_destroy(p);
    }
    tdcl_matrix_free(&a1);
    tdcl_matrix_free(&b1);
    tdcl_matrix_free(&a2);
    tdcl_matrix_free(&b2);
    tdcl_ctx_close(ctx);
}

/* int64 over 3 devices in 3x1 and 1x3 grids: exact; an overflow in two
 * shards is reported at the first element of the whole C. */
static void mm_local(void **state)
{
    (void)state;
    tdcl_devset *set = open_set(3);
    if (!set) skip();
    tdcl_matrix a = small_ints(8, 11, TDCL_I64, 5), b = small_ints(11, 10, TDCL_I64, 6), c;
    tdcl_err err = {0};
    tdcl_mm_opts o = {.type = TDCL_I64};
    static const int grids[][2] = {{3, 1}, {1, 3}};
    for (int g = 0; g < 2; g++) {
        assert_int_equal(tdcl_mm_shard_run(set, &o, grids[g][0], grids[g][1], &a, &b, &c, &err),
                         TDCL_OK);
        for (int r = 0; r < 8; r++)
            for (int j = 0; j < 10; j++) {
                int64_t want = 0;
                for (int k = 0; k < 11; k++)
                    want += ((int64_t *)a.data)[r * 11 + k] * ((int64_t *)b.data)[k * 10 + j];
                assert_int_equal(((int64_t *)c.data)[r * 10 + j], want);
            }
        tdcl_matrix_free(&c);
    }
    /* row 5 and row 1 overflow in columns 8 (third shard) and 2 (first) */
    for (int k = 0; k < 11; k++) {
        ((int64_t *)a.data)[5 * 11 + k] = INT64_C(1) << 40;
        ((int64_t *)a.data)[1 * 11 + k] = INT64_C(1) << 20;
        ((int64_t *)b.data)[k * 10 + 8] = INT64_C(1) << 40;
        ((int64_t *)b.data)[k * 10 + 2] = INT64_C(1) << 45;
    }
    assert_int_equal(tdcl_mm_shard_run(set, &o, 1, 3, &a, &b, &c, &err), TDCL_ERANGE);
    assert_non_null(strstr(err.msg, "element (2, 3) of C"));
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
    tdcl_devset_close(set);
}

int main(void)
{
    /* PoCL 3.1 reads POCL_MAX_PTHREAD_COUNT, later ones POCL_CPU_MAX_CU_COUNT */
    setenv("POCL_DEVICES", "pthread pthread pthread", 0);
    setenv("POCL_MAX_PTHREAD_COUNT", "1", 0);
    setenv("POCL_CPU_MAX_CU_COUNT", "1", 0);
    const struct CMUnitTest pure[] = {
        cmocka_unit_test(split_even_and_uneven),
        cmocka_unit_test(split_refuses_empty_bands),
        cmocka_unit_test(spec_is_set),
        cmocka_unit_test(exec_kinds),
        cmocka_unit_test(pick_sets),
        cmocka_unit_test(halo_choice),
        cmocka_unit_test(mm_grids),
    };
    const struct CMUnitTest dev[] = {
        cmocka_unit_test(life_two),      cmocka_unit_test(life_three),
        cmocka_unit_test(life_refusals), cmocka_unit_test(tile_avg_bands),
        cmocka_unit_test(life_streamed), cmocka_unit_test(mm_accumulate),
        cmocka_unit_test(mm_local),
    };
    int rc = cmocka_run_group_tests_name("shard", pure, NULL, NULL);
    return rc | cmocka_run_group_tests_name("shard_device", dev, NULL, NULL);
}
