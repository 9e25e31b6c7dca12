/* Life on the device: both kernels against the host reference on random
 * soups for every boundary and several rules and odd sizes; known
 * patterns (blinker, block, beehive, glider on a torus, a replicator); the
 * clamp boundary against a literal transcription of the MATLAB seed; the
 * soup generator against an independent splitmix64; the plan API. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdcl_test.h"

#include "io/life_io.h"
#include "ops/life/life.h"
#include "ops/life/life_choice.h"
#include "ops/life/life_lab.h"

/* ---- helpers ---------------------------------------------------------- */

static tdcl_matrix grid_new(int64_t rows, int64_t cols)
{
    tdcl_matrix m = {0};
    assert_int_equal(tdcl_matrix_alloc(&m, rows, cols, 1, TDCL_U8, NULL), TDCL_OK);
    return m;
}

/* A grid from rows of '.' and 'O'. */
static tdcl_matrix grid_from_text(const char *const *lines, int64_t rows)
{
    int64_t cols = (int64_t)strlen(lines[0]);
    tdcl_matrix m = grid_new(rows, cols);
    for (int64_t y = 0; y < rows; y++)
        for (int64_t x = 0; x < cols; x++)
            ((uint8_t *)m.data)[y * cols + x] = lines[y][x] == 'O';
    return m;
}

static tdcl_matrix random_grid(int64_t rows, int64_t cols, uint64_t seed, double density)
{
    tdcl_matrix m = grid_new(rows, cols);
    uint64_t s = seed * 7919 + 3;
    uint8_t *c = m.data;
    for (int64_t k = 0; k < rows * cols; k++)
        c[k] = tdcl_test_uniform(&s, 0, 1) < density;
    return m;
}

static tdcl_matrix host_run(const tdcl_matrix *g, const tdcl_life_rule *r, tdcl_life_boundary b,
                            int64_t gens)
{
    tdcl_matrix a = grid_new(g->rows, g->cols), t = grid_new(g->rows, g->cols);
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

static int64_t count_diff(const tdcl_matrix *a, const tdcl_matrix *b, int64_t *first)
{
    int64_t n = 0;
    *first = -1;
    for (int64_t k = 0; k < a->rows * a->cols; k++)
        if (((uint8_t *)a->data)[k] != ((uint8_t *)b->data)[k]) {
            if (*first < 0) *first = k;
            n++;
        }
    return n;
}

/* Runs the device with o and compares with the host after gens. */
static void check_device(tdcl_ctx *ctx, const tdcl_life_opts *o, const tdcl_matrix *g, int64_t gens,
                         const char *what)
{
    tdcl_matrix want = host_run(g, &o->rule, o->boundary, gens), got = {0};
    tdcl_err err = {0};
    tdcl_life_plan *p = NULL;
    if (tdcl_life_plan_create(ctx, o, g, &p, &err) != TDCL_OK)
        fail_msg("%s: plan: %s", what, err.msg);
    /* in two pieces, so the ping-pong and a partial launch are exercised */
    int64_t half = gens / 2;
    assert_int_equal(tdcl_life_plan_execute(p, half, NULL, &err), TDCL_OK);
    assert_int_equal(tdcl_life_plan_execute(p, gens - half, NULL, &err), TDCL_OK);
    assert_int_equal(tdcl_life_plan_generation(p), gens);
    assert_int_equal(tdcl_life_plan_result(p, &got, &err), TDCL_OK);
    int64_t first;
    int64_t nd = count_diff(&want, &got, &first);
    if (nd)
        fail_msg("%s (%s) %lldx%lld after %lld gens: %lld cells differ, first at (%lld, %lld)",
                 what, tdcl_life_plan_describe(p), (long long)g->cols, (long long)g->rows,
                 (long long)gens, (long long)nd, (long long)(first / g->cols),
                 (long long)(first % g->cols));
    tdcl_life_plan_destroy(p);
    tdcl_matrix_free(&want);
    tdcl_matrix_free(&got);
}

static tdcl_life_rule rule(const char *s)
{
    tdcl_life_rule r;
    assert_int_equal(tdcl_life_rule_parse(s, &r, NULL, NULL), TDCL_OK);
    return r;
}

/* ---- host reference and soups (no device) ---------------------------- */

static void test_blinker_block_beehive(void **state)
{
    (void)state;
    static const char *blinker[] = {".....", "..O..", "..O..", "..O..", "....."};
    static const char *blinker1[] = {".....", ".....", ".OOO.", ".....", "....."};
    static const char *still[] = {"............", ".OO.........", ".OO.....OO..",
                                  ".......O..O.", "........OO..", "............"};
    tdcl_life_rule conway = tdcl_life_rule_conway();
    for (int b = 0; b < 3; b++) {
        tdcl_matrix g = grid_from_text(blinker, 5), g1 = grid_from_text(blinker1, 5);
        tdcl_matrix r1 = host_run(&g, &conway, (tdcl_life_boundary)b, 1);
        tdcl_matrix r2 = host_run(&g, &conway, (tdcl_life_boundary)b, 2);
        assert_memory_equal(r1.data, g1.data, 25);
        assert_memory_equal(r2.data, g.data, 25);
        tdcl_matrix s = grid_from_text(still, 6), s5 = host_run(&s, &conway, b, 5);
        assert_memory_equal(s5.data, s.data, 72);
        tdcl_matrix_free(&g);
        tdcl_matrix_free(&g1);
        tdcl_matrix_free(&r1);
        tdcl_matrix_free(&r2);
        tdcl_matrix_free(&s);
        tdcl_matrix_free(&s5);
    }
}

/* The MATLAB seed's updateGrid, transcribed literally with 1-based p and q:
 * p = [1 1:N-1], q = [2:N N]; neighbours = grid(p,:) + grid(q,:) +
 * grid(:,p) + grid(:,q) + grid(p,p) + grid(q,q) + grid(p,q) + grid(q,p);
 * grid = double((neighbours == 3) | (grid & neighbours == 2)). */
static void matlab_update(const uint8_t *g, uint8_t *out, int64_t R, int64_t C)
{
    int64_t *pr = malloc(sizeof(int64_t) * (size_t)R), *qr = malloc(sizeof(int64_t) * (size_t)R);
    int64_t *pc = malloc(sizeof(int64_t) * (size_t)C), *qc = malloc(sizeof(int64_t) * (size_t)C);
    for (int64_t i = 1; i <= R; i++) {
        pr[i - 1] = i == 1 ? 1 : i - 1;
        qr[i - 1] = i == R ? R : i + 1;
    }
    for (int64_t j = 1; j <= C; j++) {
        pc[j - 1] = j == 1 ? 1 : j - 1;
        qc[j - 1] = j == C ? C : j + 1;
    }
#define G(i, j) g[((i)-1) * C + ((j)-1)]
    for (int64_t i = 1; i <= R; i++)
        for (int64_t j = 1; j <= C; j++) {
            int n = G(pr[i - 1], j) + G(qr[i - 1], j) + G(i, pc[j - 1]) + G(i, qc[j - 1]) +
                    G(pr[i - 1], pc[j - 1]) + G(qr[i - 1], qc[j - 1]) + G(pr[i - 1], qc[j - 1]) +
                    G(qr[i - 1], pc[j - 1]);
            out[(i - 1) * C + (j - 1)] = (uint8_t)(n == 3 || (G(i, j) && n == 2));
        }
#undef G
    free(pr);
    free(qr);
    free(pc);
    free(qc);
}

static void test_clamp_is_matlab(void **state)
{
    (void)state;
    tdcl_life_rule conway = tdcl_life_rule_conway();
    static const int64_t sizes[][2] = {{1, 1}, {1, 7}, {6, 1}, {2, 2}, {9, 13}, {31, 17}};
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
        int64_t R = sizes[t][0], C = sizes[t][1];
        tdcl_matrix g = random_grid(R, C, t + 1, 0.45);
        tdcl_matrix want = grid_new(R, C), got = grid_new(R, C);
        for (int gen = 0; gen < 6; gen++) {
            matlab_update(g.data, want.data, R, C);
            tdcl_life_host_step(&g, &got, &conway, TDCL_LIFE_CLAMP);
            assert_memory_equal(want.data, got.data, (size_t)(R * C));
            memcpy(g.data, got.data, (size_t)(R * C));
        }
        tdcl_matrix_free(&g);
        tdcl_matrix_free(&want);
        tdcl_matrix_free(&got);
    }
    /* the semantics on a 3x3 grid: a lone corner cell counts itself 3 times */
    static const char *corner[] = {"O..", "...", "..."};
    tdcl_matrix c = grid_from_text(corner, 3), c1 = host_run(&c, &conway, TDCL_LIFE_CLAMP, 1);
    /* (0,0) sees itself as its N, W and NW neighbours: 3 of them, and a
     * live cell with 3 survives; (0,1) and (1,0) see it twice: not born */
    assert_int_equal(((uint8_t *)c1.data)[0], 1);
    assert_int_equal(tdcl_life_population(&c1), 1);
    tdcl_matrix_free(&c);
    tdcl_matrix_free(&c1);
}

static uint64_t ref_splitmix(uint64_t *x)
{
    *x += 0x9E3779B97F4A7C15ULL;
    uint64_t z = *x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void test_soup(void **state)
{
    (void)state;
    tdcl_matrix a = {0}, b = {0}, c = {0};
    assert_int_equal(tdcl_life_soup(61, 97, 0.25, 1, &a, NULL), TDCL_OK);
    assert_int_equal(tdcl_life_soup(61, 97, 0.25, 1, &b, NULL), TDCL_OK);
    assert_memory_equal(a.data, b.data, 61 * 97);
    /* independent definition: one splitmix64 draw per cell, row-major */
    uint64_t s = 1;
    for (int k = 0; k < 61 * 97; k++) {
        double u = (double)(ref_splitmix(&s) >> 11) / 9007199254740992.0;
        assert_int_equal(((uint8_t *)a.data)[k], u < 0.25);
    }
    int64_t pop = tdcl_life_population(&a);
    assert_true(pop > 61 * 97 * 0.22 && pop < 61 * 97 * 0.28);
    /* a soup large enough to be drawn by several threads is still the one stream */
    assert_int_equal(tdcl_life_soup(4099, 4097, 0.3, 77, &c, NULL), TDCL_OK);
    s = 77;
    for (size_t k = 0; k < (size_t)4099 * 4097; k++)
        if (((uint8_t *)c.data)[k] != ((double)(ref_splitmix(&s) >> 11) / 9007199254740992.0 < 0.3))
            fail_msg("big soup differs at cell %zu", k);
    tdcl_matrix_free(&c);
    assert_int_equal(tdcl_life_soup(61, 97, 0.25, 2, &c, NULL), TDCL_OK);
    assert_memory_not_equal(a.data, c.data, 61 * 97);
    tdcl_matrix_free(&c);
    assert_int_equal(tdcl_life_soup(4, 4, 1.0, 9, &c, NULL), TDCL_OK);
    assert_int_equal(tdcl_life_population(&c), 16);
    tdcl_matrix_free(&c);
    assert_int_equal(tdcl_life_soup(4, 4, 1.5, 9, &c, NULL), TDCL_EINVAL);
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
}

/* Rows of a soup sown alone (as each MPI rank sows its own) are the whole
 * soup's rows, against the independent stream; a row range of the host
 * step is the whole step's rows. */
static void test_soup_rows_and_step_rows(void **state)
{
    (void)state;
    enum { R = 4099, C = 4097, R0 = 1000, N = 2050 };
    uint8_t *rows = malloc((size_t)N * C);
    assert_non_null(rows);
    assert_int_equal(tdcl_life_soup_rows(C, R0, N, 0.3, 77, rows, NULL), TDCL_OK);
    uint64_t s = 77;
    for (size_t k = 0; k < (size_t)R0 * C; k++)
        ref_splitmix(&s);
    for (size_t k = 0; k < (size_t)N * C; k++)
        if (rows[k] != ((double)(ref_splitmix(&s) >> 11) / 9007199254740992.0 < 0.3))
            fail_msg("rows %d.. of the soup differ at cell %zu", R0, k);
    assert_int_equal(tdcl_life_soup_rows(C, 0, 1, -0.1, 77, rows, NULL), TDCL_EINVAL);
    free(rows);

    tdcl_life_rule conway = tdcl_life_rule_conway();
    tdcl_matrix g = {0}, whole = {0}, parts = {0};
    /* square: the sphere joins the top edge to the left one */
    assert_int_equal(tdcl_life_soup(53, 53, 0.4, 5, &g, NULL), TDCL_OK);
    assert_int_equal(tdcl_matrix_alloc(&whole, 53, 53, 1, TDCL_U8, NULL), TDCL_OK);
    assert_int_equal(tdcl_matrix_alloc(&parts, 53, 53, 1, TDCL_U8, NULL), TDCL_OK);
    for (int b = TDCL_LIFE_DEAD; b <= TDCL_LIFE_SPHERE; b++) {
        tdcl_life_host_step(&g, &whole, &conway, (tdcl_life_boundary)b);
        memset(parts.data, 7, 53 * 53);
        tdcl_life_host_step_rows(&g, &parts, &conway, (tdcl_life_boundary)b, 0, 20);
        tdcl_life_host_step_rows(&g, &parts, &conway, (tdcl_life_boundary)b, 20, 21);
        tdcl_life_host_step_rows(&g, &parts, &conway, (tdcl_life_boundary)b, 21, 53);
        assert_memory_equal(whole.data, parts.data, 53 * 53);
        assert_true(tdcl_life_population(&whole) > 0);
    }
    tdcl_matrix_free(&g);
    tdcl_matrix_free(&whole);
    tdcl_matrix_free(&parts);
}

static void test_b0_needs_finite_boundary(void **state)
{
    (void)state;
    tdcl_life_opts o = tdcl_life_opts_default();
    tdcl_err err = {0};
    o.rule = rule("B0123/S01234");
    assert_int_equal(tdcl_life_check(&o, &err), TDCL_EINVAL);
    assert_non_null(strstr(err.msg, "B0"));
    o.boundary = TDCL_LIFE_TORUS;
    assert_int_equal(tdcl_life_check(&o, &err), TDCL_OK);
    o.boundary = TDCL_LIFE_CLAMP;
    assert_int_equal(tdcl_life_check(&o, &err), TDCL_OK);
}

/* ---- device ----------------------------------------------------------- */

typedef struct cfg {
    const char *name;
    tdcl_life_kernel kernel;
    tdcl_life_layout layout;
    int wb, depth, tile;
} cfg;

/* Every kernel and layout: the CPU's (vectors from global memory), the
 * GPU's (one work-group for the whole grid, or tiles several generations
 * deep), the bytes reference, and odd depths. Few, since every program
 * takes PoCL a second or two to compile. */
static const cfg cfgs[] = {
    {"bytes", TDCL_LIFE_KERNEL_BYTES, TDCL_LIFE_LAYOUT_AUTO, 0, 0, 0},
    {"cpu", TDCL_LIFE_KERNEL_AUTO, TDCL_LIFE_LAYOUT_CPU, 0, 0, 0},
    {"cpu depth 5", TDCL_LIFE_KERNEL_BITS, TDCL_LIFE_LAYOUT_CPU, 0, 5, 0},
    {"gpu", TDCL_LIFE_KERNEL_AUTO, TDCL_LIFE_LAYOUT_GPU, 0, 0, 0},
    {"gpu depth 8", TDCL_LIFE_KERNEL_BITS, TDCL_LIFE_LAYOUT_GPU, 0, 8, 0},
    {"gpu depth 1", TDCL_LIFE_KERNEL_BITS, TDCL_LIFE_LAYOUT_GPU, 0, 1, 0},
    {"cpu depth 1", TDCL_LIFE_KERNEL_BITS, TDCL_LIFE_LAYOUT_CPU, 0, 1, 0},
};

static tdcl_life_opts opts_for(const cfg *c, const char *r, int b)
{
    tdcl_life_opts o = tdcl_life_opts_default();
    o.rule = rule(r);
    o.boundary = (tdcl_life_boundary)b;
    o.kernel = c->kernel;
    o.layout = c->layout;
    o.word_bits = c->wb;
    o.depth = c->depth;
    o.tile = c->tile;
    return o;
}

/* Conway on every boundary, odd sizes, every configuration. */
static void test_kernels_vs_host(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    static const int64_t sizes[][2] = {{1, 1}, {1, 70}, {61, 97}, {130, 200}, {3, 300}};
    for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++)
        for (int b = 0; b < 3; b++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                if (c == 3 && s == 4)
                    continue; /* one-group programs differ by size: two of them are enough */
                tdcl_life_opts o = opts_for(&cfgs[c], "B3/S23", b);
                tdcl_matrix g = random_grid(sizes[s][0], sizes[s][1], b * 31 + s * 7 + c, 0.35);
                char what[96];
                snprintf(what, sizeof what, "B3/S23 %s, %s", tdcl_life_boundary_name(o.boundary),
                         cfgs[c].name);
                check_device(ctx, &o, &g, 11, what);
                tdcl_matrix_free(&g);
            }
}

/* Other rules: the default CPU layout on every boundary, and the GPU's
 * tiles for some. */
static void test_rules_vs_host(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    static const char *rules[] = {"B36/S23", "B2/S", "B1357/S1357"};
    for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++)
        for (int b = 0; b < 3; b++) {
            tdcl_matrix g = random_grid(67, 150, r * 5 + (size_t)b, 0.3);
            tdcl_life_opts o = opts_for(&cfgs[1], rules[r], b);
            check_device(ctx, &o, &g, 9, rules[r]);
            if (r == 0) {
                o = opts_for(&cfgs[4], rules[r], b);
                check_device(ctx, &o, &g, 9, rules[r]);
            }
            tdcl_matrix_free(&g);
        }
}

/* The rule's adder networks (the 3-input one with the rule's gates found
 * by search, the rule's own 3-input form: net OWN, and the 4-bit count
 * with apply_rule: net COUNT) on the CPU's bands and the GPU's tiles (and
 * its row sums' other funnel form, halves=2),
 * against the host, for named rules and random ones (any birth and
 * survival masks; B0 only where it is defined), every boundary in turn.
 * Each rule is a program per variant (PoCL: seconds each, cold), so each
 * variant runs on a third of the rules, chosen so that it meets named and
 * random ones on every boundary; test_life_net checks the networks
 * themselves for many more rules on the host. */
static void test_rule_nets_vs_host(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    static const char *named[] = {"B36/S23", "B2/S", "B1357/S1357", "B3678/S34678", "B45678/S2345"};
    static const tdcl_life_lab count = {.net = TDCL_LIFE_LAB_NET_COUNT},
                               block = {.mode = TDCL_LIFE_LAB_BLOCK, .s = 7, .k = 3, .vw = 2},
                               funnel = {.halves = TDCL_LIFE_LAB_HALVES_FUNNEL},
                               own = {.net = TDCL_LIFE_LAB_NET_OWN};
    static const tdcl_life_lab *const labs[] = {NULL, &count, &block, NULL, &count, &funnel};
    uint64_t seed = 12345;
    for (int i = 0; i < 11; i++) {
        tdcl_life_rule r;
        if (i < 5) {
            r = rule(named[i]);
        } else {
            r.birth = (uint16_t)(tdcl_test_rand(&seed) & 0x1ff);
            r.survive = (uint16_t)(tdcl_test_rand(&seed) & 0x1ff);
            r.nbhd = 0;
        }
        int b = i % 3;
        if ((r.birth & 1) && b == TDCL_LIFE_DEAD) b = TDCL_LIFE_TORUS;
        tdcl_matrix g = random_grid(37 + i, 150 + 13 * i, 77 + (uint64_t)i, 0.35);
        for (int t = 0; t < 6; t++) {
            tdcl_life_opts o = opts_for(&cfgs[t < 3 ? 1 : 4], "B3/S23", b);
            o.rule = r;
            o.lab = labs[t];
            if ((i + i / 3 + t) % 3 != 0) continue; /* a third of the rules each, see above */
            char lab[96] = "none", what[160];
            if (o.lab) tdcl_life_lab_describe(o.lab, lab, sizeof lab);
            snprintf(what, sizeof what, "B%x/S%x %s layout, lab %s", r.birth, r.survive,
                     t < 3 ? "cpu" : "gpu", lab);
            check_device(ctx, &o, &g, 9, what);
        }
        if (i == 0 || i == 5) { /* the rule's own 3-input form, not the gates found by search */
            tdcl_life_opts o = opts_for(&cfgs[1], "B3/S23", b);
            o.rule = r;
            o.lab = &own;
            check_device(ctx, &o, &g, 9, "the rule's own form (net OWN)");
        }
        tdcl_matrix_free(&g);
    }
}

/* The packed kernel against the byte-per-cell one directly, on odd sizes
 * for every boundary and two rules, many generations. */
static void test_bits_vs_bytes(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    static const char *rules[] = {"B3/S23", "B36/S23"};
    for (size_t r = 0; r < 2; r++)
        for (int b = 0; b < 3; b++) {
            tdcl_matrix g = {0}, x = {0}, y = {0};
            assert_int_equal(tdcl_life_soup(83, 131, 0.3, 40 + (uint64_t)b, &g, NULL), TDCL_OK);
            tdcl_life_opts bits = opts_for(&cfgs[1], rules[r], b);
            tdcl_life_opts bytes = opts_for(&cfgs[0], rules[r], b);
            assert_int_equal(tdcl_life_run(ctx, &bits, &g, 60, &x, NULL), TDCL_OK);
            assert_int_equal(tdcl_life_run(ctx, &bytes, &g, 60, &y, NULL), TDCL_OK);
            assert_true(tdcl_life_population(&x) > 0);
            assert_memory_equal(x.data, y.data, 83 * 131);
            tdcl_matrix_free(&g);
            tdcl_matrix_free(&x);
            tdcl_matrix_free(&y);
        }
}

/* B0 rules on the finite boundaries, where every empty area is born. */
static void test_b0_on_device(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    for (int b = 1; b < 3; b++)
        for (size_t c = 1; c < sizeof cfgs / sizeof cfgs[0]; c += 3) {
            tdcl_life_opts o = opts_for(&cfgs[c], "B0123478/S01234678", b);
            tdcl_matrix g = random_grid(45, 77, (uint64_t)b * 3 + c, 0.2);
            check_device(ctx, &o, &g, 10, "B0 rule");
            tdcl_matrix_free(&g);
        }
}

/* A glider on a W x W torus is back where it started after 4W generations,
 * and moved by one cell diagonally after 4. */
static void test_glider_torus(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    static const char *glider[] = {".O.", "..O", "OOO"};
    for (int k = 0; k < 2; k++) {
        const int64_t W = k ? 70 : 24;
        tdcl_matrix g = grid_new(W, W);
        for (int y = 0; y < 3; y++)
            for (int x = 0; x < 3; x++)
                ((uint8_t *)g.data)[((y + W - 2) % W) * W + (x + W - 2) % W] = glider[y][x] == 'O';
        tdcl_life_opts o = opts_for(&cfgs[k ? 2 : 1], "B3/S23", TDCL_LIFE_TORUS);
        tdcl_matrix m4 = {0}, back = {0};
        assert_int_equal(tdcl_life_run(ctx, &o, &g, 4, &m4, NULL), TDCL_OK);
        for (int64_t y = 0; y < W; y++) /* shifted by (+1, +1), wrapping */
            for (int64_t x = 0; x < W; x++)
                assert_int_equal(((uint8_t *)m4.data)[((y + 1) % W) * W + (x + 1) % W],
                                 ((uint8_t *)g.data)[y * W + x]);
        assert_int_equal(tdcl_life_run(ctx, &o, &g, 4 * W, &back, NULL), TDCL_OK);
        assert_memory_equal(back.data, g.data, (size_t)(W * W));
        tdcl_matrix_free(&g);
        tdcl_matrix_free(&m4);
        tdcl_matrix_free(&back);
    }
}

/* Blinker period 2, block still life, on the device with the default plan. */
static void test_oscillators_device(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    static const char *blinker[] = {".....", "..O..", "..O..", "..O..", "....."};
    static const char *block[] = {"....", ".OO.", ".OO.", "...."};
    tdcl_matrix g = grid_from_text(blinker, 5), b = grid_from_text(block, 4), r = {0};
    tdcl_life_opts o = tdcl_life_opts_default();
    assert_int_equal(tdcl_life_run(ctx, &o, &g, 1, &r, NULL), TDCL_OK);
    assert_memory_not_equal(r.data, g.data, 25);
    assert_int_equal(tdcl_life_population(&r), 3);
    tdcl_matrix_free(&r);
    assert_int_equal(tdcl_life_run(ctx, &o, &g, 100, &r, NULL), TDCL_OK);
    assert_memory_equal(r.data, g.data, 25);
    tdcl_matrix_free(&r);
    assert_int_equal(tdcl_life_run(ctx, &o, &b, 37, &r, NULL), TDCL_OK);
    assert_memory_equal(r.data, b.data, 16);
    tdcl_matrix_free(&r);
    tdcl_matrix_free(&g);
    tdcl_matrix_free(&b);
}

/* B1357/S1357 (Replicator) is linear over GF(2): the next state is the
 * parity of the 8 neighbours, so a single cell's pattern after t
 * generations is P^t with P = (1+x+1/x)(1+y+1/y) - 1, and P^4 = P(x^4, y^4):
 * 8 cells at distance 4 around an empty centre. */
static void test_replicator(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    tdcl_matrix g = grid_new(33, 33), r = {0};
    ((uint8_t *)g.data)[16 * 33 + 16] = 1;
    tdcl_life_opts o = tdcl_life_opts_default();
    o.rule = rule("B1357/S1357");
    assert_int_equal(tdcl_life_run(ctx, &o, &g, 1, &r, NULL), TDCL_OK);
    assert_int_equal(tdcl_life_population(&r), 8); /* the 8 neighbours are born, centre dies */
    assert_int_equal(((uint8_t *)r.data)[16 * 33 + 16], 0);
    tdcl_matrix_free(&r);
    assert_int_equal(tdcl_life_run(ctx, &o, &g, 4, &r, NULL), TDCL_OK);
    assert_int_equal(tdcl_life_population(&r), 8);
    for (int dy = -4; dy <= 4; dy += 4)
        for (int dx = -4; dx <= 4; dx += 4)
            assert_int_equal(((uint8_t *)r.data)[(16 + dy) * 33 + 16 + dx], dx || dy);
    check_device(ctx, &o, &g, 12, "replicator");
    tdcl_matrix_free(&r);
    tdcl_matrix_free(&g);
}

/* Long runs and a larger grid (several work-groups in both directions). */
static void test_larger(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    for (int b = 0; b < 3; b++)
        for (size_t c = 1; c < sizeof cfgs / sizeof cfgs[0]; c += 3) {
            tdcl_life_opts o = opts_for(&cfgs[c], "B3/S23", b);
            tdcl_matrix g = {0};
            assert_int_equal(tdcl_life_soup(301, 517, 0.3, (uint64_t)b + 5, &g, NULL), TDCL_OK);
            check_device(ctx, &o, &g, 40, "larger soup");
            tdcl_matrix_free(&g);
        }
}

/* ---- the GPU layout's shapes ---------------------------------------------- */

/* The most rows of a grid cols wide that pred(d, rows, cols) holds for on
 * this device: bisection between what fits and what not. */
static int64_t most_rows(int (*pred)(const tdcl_device_info *, int64_t, int64_t),
                         const tdcl_device_info *d, int64_t cols)
{
    int64_t lo = 1, hi = 2;
    assert_true(pred(d, lo, cols));
    while (pred(d, hi, cols)) {
        lo = hi;
        hi *= 2;
        assert_true(hi < (INT64_C(1) << 40));
    }
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (pred(d, mid, cols))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Grids just inside and just past what one work-group holds (the device's
 * local memory or its work-items), at an odd width, on every boundary, with
 * rules other than B3/S23, for generations no multiple of any depth: the
 * automatic GPU layout (the whole run in one launch, or several groups
 * just past it) against the host. */
static void test_one_group_limit(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    const int64_t cols = 301; /* 10 words, the last with 13 cells */
    static const char *rules[] = {"B36/S23", "B2/S"};
    int64_t lim = most_rows(tdcl_life_one_group, &ctx->dev, cols);
    for (int past = 0; past < 2; past++)
        for (int b = 0; b < 3; b++) {
            tdcl_life_opts o = opts_for(&cfgs[3], rules[past], b);
            tdcl_matrix g = random_grid(lim + past, cols, (size_t)past * 3 + (size_t)b, 0.3);
            tdcl_life_plan *p = NULL;
            assert_int_equal(tdcl_life_plan_create(ctx, &o, &g, &p, NULL), TDCL_OK);
            const char *d = tdcl_life_plan_describe(p);
            if ((strstr(d, "single-group") != NULL) != !past)
                fail_msg("%lld x %lld: one group %sexpected, got %s", (long long)cols,
                         (long long)(lim + past), past ? "not " : "", d);
            tdcl_life_plan_destroy(p);
            check_device(ctx, &o, &g, 37, past ? "just past one group" : "one group, full");
            tdcl_matrix_free(&g);
        }
}

/* One work-group forced (mode SINGLE) on the most rows the
 * device's local memory and work-items let it hold, at an odd width, on
 * every boundary with a rule other than B3/S23, for an odd number of
 * generations (one launch); a row more is refused, not run otherwise. */
static void test_one_group_local_limit(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    const int64_t cols = 455; /* 8 words, the last with 7 cells */
    int64_t lim = most_rows(tdcl_life_one_group_fits, &ctx->dev, cols);
    static const tdcl_life_lab single = {.mode = TDCL_LIFE_LAB_SINGLE};
    for (int b = 0; b < 3; b++) {
        tdcl_life_opts o = opts_for(&cfgs[3], "B36/S23", b);
        o.lab = &single;
        tdcl_matrix g = random_grid(lim, cols, 60 + (size_t)b, 0.3);
        check_device(ctx, &o, &g, 29, "one group at the limit");
        tdcl_matrix_free(&g);
    }
    tdcl_life_opts o = opts_for(&cfgs[3], "B36/S23", 0);
    o.lab = &single;
    tdcl_matrix g = random_grid(lim + 1, cols, 1, 0.3);
    tdcl_life_plan *p = NULL;
    assert_int_equal(tdcl_life_plan_create(ctx, &o, &g, &p, NULL), TDCL_ELIMIT);
    assert_null(p);
    tdcl_matrix_free(&g);
}

/* Shapes the automatic choice may not pick on this device, forced: bands of
 * whole rows deeper than a word, vectors of 2 and 4 words per work-item,
 * one tile buffer, 64-bit words, tiles deeper than 32 generations, odd
 * work-group widths; odd sizes, every boundary, a rule each (B0 on the
 * finite boundaries only). */
static void test_shapes_vs_host(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    static const struct {
        tdcl_life_lab lab;
        const char *rule;
        int64_t rows, cols, gens;
    } shapes[] = {
        {{.mode = TDCL_LIFE_LAB_BANDS, .lx = 8, .ly = 17, .s = 5, .k = 40},
         "B0123478/S01234678",
         150,
         97,
         45},
        {{.mode = TDCL_LIFE_LAB_BANDS,
          .w = 64,
          .lx = 4,
          .vx = 2,
          .ly = 16,
          .s = 3,
          .k = 9,
          .dbuf = TDCL_LIFE_LAB_OFF},
         "B36/S23",
         83,
         500,
         20},
        {{.mode = TDCL_LIFE_LAB_TILES,
          .lx = 3,
          .vx = 4,
          .ly = 4,
          .s = 6,
          .k = 5,
          .dbuf = TDCL_LIFE_LAB_OFF},
         "B1357/S1357",
         53,
         333,
         12},
        {{.mode = TDCL_LIFE_LAB_TILES, .w = 64, .lx = 5, .ly = 8, .s = 9, .k = 33},
         "B3/S23",
         97,
         1000,
         35},
        /* life_stream: partial last launches, a row of work-items wider than
         * the grid, whole last words, rows fewer than the depth, interior
         * warps (5 programs: PoCL takes about 6 s to build each) */
        {{.mode = TDCL_LIFE_LAB_STREAM, .lx = 8, .ly = 2, .s = 7, .k = 5}, "B3/S23", 53, 333, 12},
        {{.mode = TDCL_LIFE_LAB_STREAM, .lx = 32, .ly = 2, .s = 16, .k = 8}, "B3/S23", 70, 100, 30},
        {{.mode = TDCL_LIFE_LAB_STREAM, .lx = 6, .ly = 2, .s = 10, .k = 4},
         "B3678/S34678",
         64,
         256,
         17},
        {{.mode = TDCL_LIFE_LAB_STREAM, .lx = 3, .ly = 4, .s = 2, .k = 8}, "B3/S23", 5, 130, 19},
        {{.mode = TDCL_LIFE_LAB_STREAM, .lx = 8, .ly = 2, .s = 7, .k = 5}, "B3/S23", 200, 1000, 23},
        /* 32-bit words: a part last word, then whole ones (one program) */
        {{.mode = TDCL_LIFE_LAB_STREAM, .w = 32, .lx = 8, .ly = 2, .s = 7, .k = 5},
         "B3/S23",
         53,
         333,
         12},
        {{.mode = TDCL_LIFE_LAB_STREAM, .w = 32, .lx = 8, .ly = 2, .s = 7, .k = 5},
         "B3/S23",
         61,
         256,
         23},
        /* life_flow (one program): a part last word (a torus's straddles the
         * wrap), a part last step, last tiles thinner than the halo (1 row
         * of 8; 4 cells), so that a torus's first tile waits for the one
         * before the last; tiles hand steps on within a launch and across */
        {{.mode = TDCL_LIFE_LAB_TILES, .lx = 4, .ly = 4, .s = 5, .k = 6, .flow = TDCL_LIFE_LAB_ON},
         "B3/S23",
         97,
         333,
         40},
        {{.mode = TDCL_LIFE_LAB_TILES, .lx = 4, .ly = 4, .s = 5, .k = 6, .flow = TDCL_LIFE_LAB_ON},
         "B3/S23",
         41,
         260,
         31},
        /* the tile in registers (each one program): launched step by step,
         * a rule without a three-gate network, a part last word; and in
         * life_flow, as above */
        {{.mode = TDCL_LIFE_LAB_TILES, .lx = 5, .ly = 3, .s = 6, .k = 6, .reg = TDCL_LIFE_LAB_ON},
         "B36/S23",
         97,
         333,
         40},
        {{.mode = TDCL_LIFE_LAB_TILES,
          .lx = 4,
          .ly = 4,
          .s = 5,
          .k = 6,
          .flow = TDCL_LIFE_LAB_ON,
          .reg = TDCL_LIFE_LAB_ON},
         "B3/S23",
         97,
         333,
         40},
        {{.mode = TDCL_LIFE_LAB_TILES,
          .lx = 4,
          .ly = 4,
          .s = 5,
          .k = 6,
          .flow = TDCL_LIFE_LAB_ON,
          .reg = TDCL_LIFE_LAB_ON},
         "B3/S23",
         41,
         256,
         31},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int b = 0; b < 3; b++) {
            tdcl_life_opts o = opts_for(&cfgs[3], shapes[i].rule, b);
            if (tdcl_life_check(&o, NULL) != TDCL_OK) continue; /* B0 on a dead boundary */
            o.lab = &shapes[i].lab;
            tdcl_matrix g = random_grid(shapes[i].rows, shapes[i].cols, i * 3 + (size_t)b, 0.3);
            char lab[96], what[160];
            tdcl_life_lab_describe(o.lab, lab, sizeof lab);
            snprintf(what, sizeof what, "%s %s", shapes[i].rule, lab);
            check_device(ctx, &o, &g, shapes[i].gens, what);
            tdcl_matrix_free(&g);
        }
    /* a forced shape the grid or device cannot take is refused, not shrunk */
    tdcl_life_opts o = opts_for(&cfgs[3], "B3/S23", 0);
    tdcl_matrix g = random_grid(40, 100, 1, 0.3);
    tdcl_life_plan *p = NULL;
    tdcl_err err = {0};
    /* 2 words across for 4, 16 rows for 40 */
    const tdcl_life_lab narrow = {.mode = TDCL_LIFE_LAB_SINGLE, .lx = 2, .ly = 4, .s = 4},
                        wide = {.mode = TDCL_LIFE_LAB_BANDS, .w = 48},
                        deep = {.mode = TDCL_LIFE_LAB_BANDS, .k = TDCL_LIFE_LAB_MAX + 1},
                        regt = {.mode = TDCL_LIFE_LAB_TILES,
                                .lx = 4,
                                .ly = 4,
                                .s = 5,
                                .k = 6,
                                .reg = TDCL_LIFE_LAB_ON};
    o.lab = &narrow;
    assert_int_equal(tdcl_life_plan_create(ctx, &o, &g, &p, &err), TDCL_ELIMIT);
    assert_null(p);
    assert_non_null(strstr(err.msg, "mode=single,lx=2,ly=4,s=4"));
    o.lab = &wide;
    assert_int_equal(tdcl_life_plan_create(ctx, &o, &g, &p, &err), TDCL_EINVAL);
    assert_non_null(strstr(err.msg, "w must be 32 or 64"));
    o.lab = &deep;
    assert_int_equal(tdcl_life_plan_create(ctx, &o, &g, &p, &err), TDCL_EINVAL);
    assert_non_null(strstr(err.msg, "k=4097"));
    o = opts_for(&cfgs[3], "B2/S34H", 0); /* the tile in registers: Moore only */
    o.lab = &regt;
    assert_int_equal(tdcl_life_plan_create(ctx, &o, &g, &p, &err), TDCL_EINVAL);
    assert_non_null(strstr(err.msg, "reg=1"));
    tdcl_matrix_free(&g);
}

static void test_plan_errors(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    tdcl_matrix g = grid_new(8, 8), f = {0};
    tdcl_life_plan *p = NULL;
    tdcl_err err = {0};
    tdcl_life_opts o = tdcl_life_opts_default();
    o.kernel = TDCL_LIFE_KERNEL_BYTES;
    o.tile = 4096; /* 4096 x 4096 work-items: no device runs that */
    assert_int_equal(tdcl_life_plan_create(ctx, &o, &g, &p, &err), TDCL_ELIMIT);
    assert_null(p);
    assert_non_null(strstr(err.msg, "tile 4096: "));
    assert_int_equal(err.param, TDCL_PARAM_TILE); /* the CLI names --tile */
    o = tdcl_life_opts_default();
    o.rule = rule("B0/S8");
    assert_int_equal(tdcl_life_plan_create(ctx, &o, &g, &p, &err), TDCL_EINVAL);
    assert_int_equal(err.param, TDCL_PARAM_BOUNDARY);
    assert_int_equal(tdcl_matrix_alloc(&f, 4, 4, 1, TDCL_F32, NULL), TDCL_OK);
    o = tdcl_life_opts_default();
    assert_int_equal(tdcl_life_plan_create(ctx, &o, &f, &p, &err), TDCL_EINVAL);
    assert_int_equal(tdcl_life_plan_create(ctx, &o, &g, &p, &err), TDCL_OK);
    assert_non_null(strstr(tdcl_life_plan_describe(p), "kernel=bits"));
    assert_int_equal(tdcl_life_plan_execute(p, -1, NULL, &err), TDCL_EINVAL);
    double ms = -1;
    assert_int_equal(tdcl_life_plan_execute(p, 0, &ms, &err), TDCL_OK);
    assert_true(ms == 0);
    tdcl_life_plan_destroy(p);
    tdcl_life_plan_destroy(NULL);
    tdcl_matrix_free(&g);
    tdcl_matrix_free(&f);
}

/* ---- Golly's bounded grids -------------------------------------------- */

/* Golly's Help/bounded.html pictures: a 4x3 grid (3x3 for the sphere)
 * with its one-cell border, each border cell named by the grid cell it
 * copies. The shifted Klein bottles are drawn as bgolly runs them
 * (lifealgo::JoinTwistedAndShiftedEdges), not as the Help page draws
 * :K4*+1,3. */
static const struct {
    const char *suffix;
    const char *rows[7];
} golly_pictures[] = {
    {"T4,3", {"LIJKLI", "DABCDA", "HEFGHE", "LIJKLI", "DABCDA"}},
    {"T4+1,3", {"KLIJKL", "DABCDA", "HEFGHE", "LIJKLI", "ABCDAB"}},
    {"T4,3+1", {"HIJKLA", "LABCDE", "DEFGHI", "HIJKLA", "LABCDE"}},
    {"K4*,3", {"ILKJIL", "DABCDA", "HEFGHE", "LIJKLI", "ADCBAD"}},
    {"K4,3*", {"DIJKLA", "LABCDI", "HEFGHE", "DIJKLA", "LABCDI"}},
    {"K4*+1,3", {"LKJILK", "DABCDA", "HEFGHE", "LIJKLI", "DCBADC"}},
    {"K3,4*+1", {"LJKLJ", "IABCG", "FDEFD", "CGHIA", "LJKLJ", "IABCG"}},
    {"C4,3", {"ALKJID", "LABCDI", "HEFGHE", "DIJKLA", "IDCBAL"}},
    {"S3", {"AADGC", "AABCG", "BDEFH", "CGHII", "GCFII"}},
    {"P4,3", {"......", ".ABCD.", ".EFGH.", ".IJKL.", "......"}},
};

static void test_edge_map_golly_pictures(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof golly_pictures / sizeof golly_pictures[0]; i++) {
        char rule[32];
        tdcl_life_rule r;
        tdcl_life_topology t;
        tdcl_err e = {0};
        snprintf(rule, sizeof rule, "B3/S23:%s", golly_pictures[i].suffix);
        if (tdcl_life_rule_parse(rule, &r, &t, &e)) fail_msg("%s: %s", rule, e.msg);
        for (int64_t y = -1; y <= t.height; y++)
            for (int64_t x = -1; x <= t.width; x++) {
                int64_t ry, rx;
                char want = golly_pictures[i].rows[y + 1][x + 1], got = '.';
                if (tdcl_life_edge_map(t.boundary, &t.edges, t.height, t.width, y, x, &ry, &rx))
                    got = (char)('A' + ry * t.width + rx);
                if (got != want)
                    fail_msg(":%s: the border cell at (%lld, %lld) is %c, Golly draws %c",
                             golly_pictures[i].suffix, (long long)x, (long long)y, got, want);
            }
    }
}

/* Every bounded grid, and the H and V neighbourhoods, on the device
 * against the host reference (whose map the pictures above check). */
static void test_topologies_vs_host(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    static const char *rules[] = {"B3/S23:T30+7,21",  "B3/S23:T30,21-4",  "B3/S23:T0,21",
                                  "B3/S23:T30,0",     "B3/S23:K30*,21",   "B3/S23:K31,21*",
                                  "B3/S23:K30*+1,21", "B3/S23:K31,22*+1", "B3/S23:C30,21",
                                  "B3/S23:C31,22",    "B3/S23:S25",       "B0/S8:S1",
                                  "B2/S34H",          "B2/S013V",         "B245/S3H:K30*,21",
                                  "B13/S012V:C31,22", "B2/S34H:T30,21",   "B2/S013V:S17"};
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        tdcl_life_topology t;
        tdcl_life_opts o = tdcl_life_opts_default();
        assert_int_equal(tdcl_life_rule_parse(rules[i], &o.rule, &t, NULL), TDCL_OK);
        int64_t w = 29, h = 23;
        if (t.present) {
            o.boundary = t.boundary;
            o.edges = t.edges;
            w = t.width ? t.width : 40;
            h = t.height ? t.height : 40;
        }
        tdcl_matrix g = random_grid(h, w, i + 100, 0.4), a = grid_new(h, w), b = grid_new(h, w);
        memcpy(a.data, g.data, (size_t)(w * h));
        for (int k = 0; k < 13; k++) {
            tdcl_life_host_step_edges(&a, &b, &o.rule, o.boundary, &o.edges);
            tdcl_matrix x = a;
            a = b;
            b = x;
        }
        tdcl_matrix got = {0};
        tdcl_err err = {0};
        if (tdcl_life_run(ctx, &o, &g, 13, &got, &err)) fail_msg("%s: %s", rules[i], err.msg);
        int64_t first, nd = count_diff(&a, &got, &first);
        if (nd)
            fail_msg("%s: %lld cells differ from the host, first at row %lld col %lld", rules[i],
                     (long long)nd, (long long)(first / w), (long long)(first % w));
        if (tdcl_life_population(&a) == 0) /* two empty grids prove nothing */
            fail_msg("%s: the grid died out", rules[i]);
        /* the bits kernel refuses Golly's other grids by name */
        if (t.present && (t.boundary > TDCL_LIFE_CLAMP || tdcl_life_edges_any(&t.edges))) {
            o.kernel = TDCL_LIFE_KERNEL_BITS;
            tdcl_life_plan *p = NULL;
            assert_int_equal(tdcl_life_plan_create(ctx, &o, &g, &p, &err), TDCL_EUNSUPPORTED);
            assert_non_null(strstr(err.msg, "the bytes kernel runs"));
        }
        tdcl_matrix_free(&g);
        tdcl_matrix_free(&a);
        tdcl_matrix_free(&b);
        tdcl_matrix_free(&got);
    }
}

/* Hexagonal and von Neumann rules on every kernel and layout (the GPU's
 * tiles, bands and one group run on PoCL too) and every plain boundary,
 * odd sizes. Each rule is a program per configuration (PoCL: seconds
 * each, cold), so each configuration runs one H and one V rule: B2/S34H
 * and B0/S4V on half of them, B245/S3H and B13/S012V on the others, each
 * pair on the CPU's bands and the GPU's tiles. */
static void test_nbhd_every_layout(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    static const char *rules[] = {"B2/S34H", "B13/S012V", "B245/S3H", "B0/S4V"};
    static const int64_t sizes[][2] = {{61, 97}, {3, 130}, {130, 70}};
    for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++)
        for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++)
            for (int b = 0; b < 3; b++) {
                if ((r == 0 || r == 3) != (c % 2 == 0)) continue; /* see above */
                if (r == 3 && b == TDCL_LIFE_DEAD) continue;      /* B0 needs no outside */
                size_t sz = (r + c + (size_t)b) % 3;
                tdcl_matrix g =
                    random_grid(sizes[sz][0], sizes[sz][1], r * 13 + c * 3 + (size_t)b, 0.3);
                tdcl_life_opts o = opts_for(&cfgs[c], rules[r], b);
                char what[96];
                snprintf(what, sizeof what, "%s %s, %s", rules[r],
                         tdcl_life_boundary_name(o.boundary), cfgs[c].name);
                check_device(ctx, &o, &g, 10, what);
                tdcl_matrix_free(&g);
            }
}

int main(void)
{
    const struct CMUnitTest host[] = {
        cmocka_unit_test(test_blinker_block_beehive),
        cmocka_unit_test(test_clamp_is_matlab),
        cmocka_unit_test(test_soup),
        cmocka_unit_test(test_soup_rows_and_step_rows),
        cmocka_unit_test(test_b0_needs_finite_boundary),
        cmocka_unit_test(test_edge_map_golly_pictures),
    };
    const struct CMUnitTest dev[] = {
        cmocka_unit_test(test_kernels_vs_host),
        cmocka_unit_test(test_rules_vs_host),
        cmocka_unit_test(test_rule_nets_vs_host),
        cmocka_unit_test(test_bits_vs_bytes),
        cmocka_unit_test(test_b0_on_device),
        cmocka_unit_test(test_glider_torus),
        cmocka_unit_test(test_oscillators_device),
        cmocka_unit_test(test_replicator),
        cmocka_unit_test(test_larger),
        cmocka_unit_test(test_one_group_limit),
        cmocka_unit_test(test_one_group_local_limit),
        cmocka_unit_test(test_shapes_vs_host),
        cmocka_unit_test(test_plan_errors),
        cmocka_unit_test(test_topologies_vs_host),
        cmocka_unit_test(test_nbhd_every_layout),
    };
    int rc = cmocka_run_group_tests_name("life_host", host, NULL, NULL);
    return tdcl_test_exit(rc | cmocka_run_group_tests_name("life_device", dev, tdcl_test_ctx_setup,
                                                           tdcl_test_ctx_teardown));
}
