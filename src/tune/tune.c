/* The search behind `tiledcl tune matmul`: candidate parameter sets, each
 * checked against a host product and timed; the winners go into matmul's
 * tuned table (ops/matmul/mm_table.h). */
#include "tune/tune.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/timer.h"
#include "runtime/clcache.h"
#include "base/fileio.h"
#include "base/rng.h"
#include "base/log.h"
#include "base/clock.h"

/* ---- the search ---------------------------------------------------------- */

/* The candidate sets, in the order they are tried. */
typedef struct cand_list {
    tdcl_mm_params *v;
    int n, cap;
} cand_list;

static int cand_push(cand_list *c, const tdcl_mm_params *p)
{
    for (int i = 0; i < c->n; i++)
        if (memcmp(&c->v[i], p, sizeof *p) == 0) return 0;
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 256;
        tdcl_mm_params *g = realloc(c->v, (size_t)cap * sizeof *g);
        if (!g) return -1;
        c->v = g, c->cap = cap;
    }
    c->v[c->n++] = *p;
    return 0;
}

/* Set p as it is, with fragments read ahead (frag=2), and, where two
 * buffers may be unpadded or filled by cp.async, those too (three buffers
 * only with cp.async), each where the device can run it. */
static void push_gpu_variants(const tdcl_device_info *d, cand_list *c, const tdcl_mm_params *base)
{
    for (int v = 0; v < 16; v++) {
        tdcl_mm_params p = *base;
        p.frag = 1 + (v & 1);
        p.pad = 1 + !(v >> 1 & 1);
        p.cp = 1 + (v >> 2 & 1);
        if (v >> 3 & 1) p.nbuf = 3;
        if ((p.pad == 1 || p.cp == 2) && p.nbuf == 1) continue;
        if ((v >> 3 & 1) && (p.cp != 2 || base->nbuf != 2)) continue;
        p.swz = 1;
        if (tdcl_mm_params_check(d, TDCL_MM_GPU, &p, 4, NULL, NULL) == TDCL_OK) cand_push(c, &p);
    }
}

/* Every GPU set the device can run: tiles 32..256, blocks 4..16, teams of
 * the whole group or of one 32-item warp, both load paths and buffers,
 * and the variants above. */
static void gpu_space(const tdcl_device_info *d, cand_list *c)
{
    static const int tiles[] = {32, 64, 128, 256}, blocks[] = {4, 8, 16}, slabs[] = {8, 16, 32};
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    for (int s = 0; s < 3; s++)
                        for (int f = 0; f < 32; f++) {
                            tdcl_mm_params p = {.bm = tiles[a],
                                                .bn = tiles[b],
                                                .bk = slabs[s],
                                                .tm = blocks[i],
                                                .tn = blocks[j]};
                            int gx = p.bn / p.tn, gy = p.bm / p.tm, team = f & 3;
                            /* past 128 accumulators or 256 items NVIDIA's
                             * registers run out (spills, refused groups) */
                            if (p.tm * p.tn > 128 || gx * gy < 32 || gx * gy > 256) continue;
                            /* team 0: whole group; 1..3: 32 items, 4/8/16 wide */
                            p.wx = team ? 2 << team : gx;
                            p.wy = team ? 32 / p.wx : gy;
                            p.nbuf = 1 + (f >> 2 & 1);
                            p.aload = 1 + (f >> 3 & 1);
                            p.atrans = 1 + (f >> 4 & 1);
                            p.ksplit = 1;
                            if (p.atrans == 2 && p.aload == 2) continue; /* aload unused */
                            push_gpu_variants(d, c, &p);
                        }
}

static void cpu_space(const tdcl_device_info *d, cand_list *c)
{
    static const int mrs[] = {2, 4, 6, 8, 12}, nvs[] = {1, 2, 3, 4}, vws[] = {4, 8, 16},
                     kcs[] = {256, 512, 1024, 2048};
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 4; b++)
            for (int v = 0; v < 3; v++)
                for (int k = 0; k < 4; k++) {
                    tdcl_mm_params p = {.mr = mrs[a], .nv = nvs[b], .vw = vws[v], .kc = kcs[k]};
                    if (p.mr * p.nv > 28) continue; /* accumulators past the registers */
                    if (tdcl_mm_params_check(d, TDCL_MM_CPU, &p, 4, NULL, NULL) == TDCL_OK)
                        cand_push(c, &p);
                }
}

/* Fisher-Yates from index from on. */
static void shuffle(cand_list *c, int from, uint64_t seed)
{
    uint64_t s = seed ? seed : 0x9e3779b97f4a7c15ULL;
    for (int i = c->n - 1; i > from; i--) {
        int j = from + (int)(tdcl_rng_next(&s) % (uint64_t)(i - from + 1));
        tdcl_mm_params t = c->v[i];
        c->v[i] = c->v[j];
        c->v[j] = t;
    }
}

/* Candidates from text, one set per line, each with keys of kernel k. */
static tdcl_status parse_candidates(const char *text, tdcl_mm_kernel k, cand_list *c, tdcl_err *err)
{
    int line = 0;
    for (const char *s = text; *s; s += strcspn(s, "\n"), s += *s == '\n') {
        line++;
        char buf[512];
        snprintf(buf, sizeof buf, "%.*s", (int)strcspn(s, "\n"), s);
        buf[strcspn(buf, "#")] = '\0';
        if (buf[strspn(buf, " \t\r")] == '\0') continue;
        buf[strcspn(buf, "\r")] = '\0';
        tdcl_mm_params p = {0};
        tdcl_err e = {0};
        char fmt[200];
        if (tdcl_mm_params_parse(buf, &p, &e))
            return tdcl_fail(err, TDCL_EINVAL, "candidates:%d: %s", line, e.msg);
        if (!tdcl_mm_params_format(&p, k, fmt, sizeof fmt)[0])
            return tdcl_fail(err, TDCL_EINVAL,
                             "candidates:%d: no parameter of the %s shape that "
                             "this device tunes",
                             line, tdcl_mm_kernel_name(k));
        if (cand_push(c, &p)) return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    }
    if (c->n == 0) return tdcl_fail(err, TDCL_EINVAL, "candidates: no parameter set given");
    return TDCL_OK;
}

/* Uniform in [-1, 1), deterministic. */
static void fill(tdcl_matrix *m, uint64_t seed)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 1;
    float *f = m->data;
    for (size_t i = 0; i < tdcl_matrix_count(m); i++)
        f[i] = (float)(tdcl_rng_unit(&s) * 2 - 1);
}

static tdcl_status rand_pair(int64_t M, int64_t K, int64_t N, uint64_t seed, tdcl_matrix *a,
                             tdcl_matrix *b, tdcl_err *err)
{
    tdcl_status st = tdcl_matrix_alloc(a, M, K, 1, TDCL_F32, err);
    if (!st) st = tdcl_matrix_alloc(b, K, N, 1, TDCL_F32, err);
    if (st) return st;
    fill(a, seed);
    fill(b, seed + 1);
    return TDCL_OK;
}

/* 1 if set p computes a right product on ctx: a small one whose shape
 * leaves edge tiles, a partial last slab and several K slices, with the
 * alignment (and so the build) the timed sizes use. */
static int check_set(tdcl_ctx *ctx, tdcl_mm_kernel k, const tdcl_mm_params *p, int aligned)
{
    int64_t M, K, N;
    if (k == TDCL_MM_GPU)
        M = 2 * p->bm + 5, N = 2 * p->bn + (aligned ? 4 : 3),
        K = 2 * p->bk * p->ksplit + (aligned ? 12 : 13);
    else
        M = 3 * p->mr + 5, N = 2 * p->nv * p->vw + (aligned ? 4 : 3), K = 70;
    tdcl_matrix a = {0}, b = {0}, c = {0};
    tdcl_mm_check chk = {0};
    tdcl_mm_opts o = {.kernel = k, .par = *p, .poison = 1};
    tdcl_err e = {0};
    tdcl_status st = rand_pair(M, K, N, 99, &a, &b, &e);
    if (!st) st = tdcl_mm_run(ctx, &o, &a, &b, &c, &e);
    if (!st) st = tdcl_mm_check_product(&a, &b, &c, &chk, &e);
    char buf[200];
    if (st || !chk.ok)
        tdcl_log(TDCL_LOG_VERBOSE, "tune: %s rejected: %s",
                 tdcl_mm_params_format(p, k, buf, sizeof buf),
                 st ? e.msg : "wrong result on the check product");
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
    tdcl_matrix_free(&c);
    return !st && chk.ok;
}

/* Median GFLOP/s of a plan of o on (a, b): a warm-up, then at least 3
 * runs and up to 20 or about 50 ms. 0 when it fails; *desc gets the plan's
 * description. */
static double time_plan(tdcl_ctx *ctx, const tdcl_mm_opts *o, const tdcl_matrix *a,
                        const tdcl_matrix *b, char *desc, size_t n)
{
    tdcl_mm_plan *p = NULL;
    tdcl_err e = {0};
    double ms[20], warm = 0, rate = 0;
    int reps = 0;
    if (tdcl_mm_plan_create(ctx, o, a, b, &p, &e) || tdcl_mm_plan_execute(p, &warm, &e)) {
        tdcl_log(TDCL_LOG_VERBOSE, "tune: %s", e.msg);
        goto out;
    }
    snprintf(desc, n, "%s", tdcl_mm_plan_describe(p));
    int want = warm > 0 ? (int)(50.0 / warm) : 20;
    want = want < 3 ? 3 : want > 20 ? 20 : want;
    for (; reps < want; reps++)
        if (tdcl_mm_plan_execute(p, &ms[reps], &e)) goto out;
    double med = tdcl_median(ms, (size_t)reps);
    if (med > 0) rate = 2.0 * (double)a->rows * (double)a->cols * (double)b->cols / med / 1e6;
out:
    tdcl_mm_plan_destroy(p);
    return rate;
}

typedef struct tune_state {
    tdcl_ctx *ctx;
    const tdcl_tune_opts *o;
    tdcl_tune_result *res;
    tdcl_matrix a[TDCL_TUNE_MAX_SIZES], b[TDCL_TUNE_MAX_SIZES];
    double t0, limit;
} tune_state;

/* Tries set p: check, then time at every size; keeps the winners. */
static void try_set(tune_state *s, const tdcl_mm_params *p)
{
    tdcl_tune_result *r = s->res;
    char par[200], desc[400], line[1024];
    int checked[2] = {0, 0}; /* per alignment: 0 not yet, 1 right, -1 wrong */
    int used = snprintf(line, sizeof line,
                        "tune: %s:", tdcl_mm_params_format(p, r->kernel, par, sizeof par));
    for (int i = 0; i < r->nsizes; i++) {
        int al = r->best[i].size % 4 == 0;
        if (!checked[al]) checked[al] = check_set(s->ctx, r->kernel, p, al) ? 1 : -1;
        if (checked[al] < 0) {
            r->rejected++;
            return;
        }
        tdcl_mm_opts o = {.kernel = r->kernel, .par = *p};
        double g = time_plan(s->ctx, &o, &s->a[i], &s->b[i], desc, sizeof desc);
        if (g <= 0) {
            r->rejected++;
            return;
        }
        if (used > 0 && (size_t)used < sizeof line)
            used += snprintf(line + used, sizeof line - (size_t)used, " %" PRId64 ": %.1f GFLOP/s",
                             r->best[i].size, g);
        if (g > r->best[i].gflops || (s->o->min_gain < 0 && !r->best[i].tried_any)) {
            r->best[i].tried_any = 1;
            r->best[i].gflops = g;
            r->best[i].par = *p;
        }
    }
    r->tried++;
    tdcl_log(TDCL_LOG_VERBOSE, "%s", line);
}

/* The rate of the plan's own choice at each size, and its parameters as
 * the first winners: a set tried must beat them to win, so tuning never
 * stores a set slower than what runs today (--candidates included). */
static void measure_baseline(tune_state *s)
{
    tdcl_tune_result *r = s->res;
    for (int i = 0; i < r->nsizes; i++) {
        tdcl_mm_opts o = {.kernel = r->kernel};
        char desc[400] = "";
        int64_t n = r->best[i].size;
        tdcl_mm_params p = {0};
        tdcl_mm_table_lookup(s->ctx, r->kernel, TDCL_F32, n, n, n, &p);
        tdcl_mm_params_defaults(s->ctx, r->kernel, TDCL_F32, n, n, n, &p);
        r->best[i].base_gflops = time_plan(s->ctx, &o, &s->a[i], &s->b[i], desc, sizeof desc);
        if (r->best[i].base_gflops > 0) {
            r->best[i].par = p;
            r->best[i].gflops = r->best[i].base_gflops;
        }
        tdcl_log(TDCL_LOG_VERBOSE, "tune: size %" PRId64 " now: %s: %.1f GFLOP/s", r->best[i].size,
                 desc, r->best[i].base_gflops);
    }
}

static void progress(tune_state *s, int done, int total)
{
    if (!s->o->progress) return;
    char line[256] = "";
    size_t used = 0;
    for (int i = 0; i < s->res->nsizes && used < sizeof line; i++) {
        int w = snprintf(line + used, sizeof line - used, "%s%" PRId64 ": %.0f", i ? ", " : "",
                         s->res->best[i].size, s->res->best[i].gflops);
        used += w > 0 ? (size_t)w : 0;
    }
    s->o->progress(s->o->user, done, total, (tdcl_now_ms() - s->t0) / 1000.0, s->limit, line);
}

static tdcl_status make_candidates(tune_state *s, cand_list *c, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    if (s->o->candidates) return parse_candidates(s->o->candidates, s->res->kernel, c, err);
    /* the current choices (tuned, built-in, defaults) first, then the space */
    for (int i = 0; i < s->res->nsizes; i++) {
        tdcl_mm_params p = {0};
        int64_t n = s->res->best[i].size;
        tdcl_mm_table_lookup(s->ctx, s->res->kernel, TDCL_F32, n, n, n, &p);
        tdcl_mm_params_defaults(s->ctx, s->res->kernel, TDCL_F32, n, n, n, &p);
        cand_push(c, &p);
    }
    int first = c->n;
    if (s->res->kernel == TDCL_MM_GPU)
        gpu_space(&s->ctx->dev, c);
    else
        cpu_space(&s->ctx->dev, c);
    shuffle(c, first, s->o->seed);
    if (c->n == 0) st = tdcl_fail(err, TDCL_ELIMIT, "no parameter set fits the device");
    return st;
}

/* A set must beat the current choice by this much to replace it: timing
 * noise alone must not swap a set for a slower one. */
#define TUNE_MARGIN_DEFAULT 0.02

/* Merges the winners that beat the current choice into the tuned table;
 * stores nothing when none did. */
static tdcl_status store_winners(tdcl_ctx *ctx, tdcl_tune_result *res, tdcl_err *err)
{
    tdcl_mm_table_row rows[TDCL_TUNE_MAX_SIZES];
    int n = 0;
    for (int j = 0; j < res->nsizes; j++) {
        tdcl_tune_best *b = &res->best[j];
        if (b->improved)
            rows[n++] = (tdcl_mm_table_row){b->size, b->par, b->gflops};
        else
            tdcl_log(TDCL_LOG_VERBOSE,
                     "tune: size %" PRId64 ": no set beat the current choice (%.1f GFLOP/s) "
                     "by the margin; kept",
                     b->size, b->base_gflops);
    }
    if (n == 0) return TDCL_OK;
    return tdcl_mm_table_store(ctx, res->kernel, rows, n, res->stored, sizeof res->stored, err);
}

tdcl_status tdcl_tune_matmul(tdcl_ctx *ctx, const tdcl_tune_opts *o, tdcl_tune_result *res,
                             tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tune_state s = {.ctx = ctx, .o = o, .res = res, .t0 = tdcl_now_ms()};
    cand_list c = {0};
    int gpu = (ctx->dev.type & CL_DEVICE_TYPE_GPU) != 0;
    static const int64_t gpu_sizes[] = {256, 1024, 4096}, cpu_sizes[] = {256, 1024};
    memset(res, 0, sizeof *res);
    res->kernel = gpu ? TDCL_MM_GPU : TDCL_MM_CPU;
    res->nsizes = o->nsizes > 0 ? o->nsizes : gpu ? 3 : 2;
    if (res->nsizes > TDCL_TUNE_MAX_SIZES) res->nsizes = TDCL_TUNE_MAX_SIZES;
    for (int i = 0; i < res->nsizes; i++)
        res->best[i].size = o->nsizes > 0 ? o->sizes[i] : gpu ? gpu_sizes[i] : cpu_sizes[i];
    s.limit = o->time_limit_s > 0 ? o->time_limit_s : 60;
    for (int i = 0; i < res->nsizes; i++) {
        int64_t n = res->best[i].size;
        TDCL_TRY(rand_pair(n, n, n, 1000 + (uint64_t)i, &s.a[i], &s.b[i], err));
    }
    TDCL_TRY(make_candidates(&s, &c, err));
    measure_baseline(&s);
    int total = o->max_sets > 0 && o->max_sets < c.n ? o->max_sets : c.n;
    for (int i = 0; i < total; i++) {
        if (i > 0 && tdcl_now_ms() - s.t0 >= s.limit * 1000.0) break;
        try_set(&s, &c.v[i]);
        progress(&s, i + 1, total);
    }
    res->elapsed_s = (tdcl_now_ms() - s.t0) / 1000.0;
    int found = 1;
    for (int i = 0; i < res->nsizes; i++)
        found &= res->best[i].gflops > 0;
    if (!found)
        st = tdcl_fail(err, TDCL_EVERIFY,
                       "no parameter set ran correctly at every size (%d "
                       "rejected)",
                       res->rejected);
    double margin = 1 + (o->min_gain != 0 ? o->min_gain : TUNE_MARGIN_DEFAULT);
    for (int i = 0; i < res->nsizes; i++)
        res->best[i].improved = res->best[i].gflops > res->best[i].base_gflops * margin;
    if (found && o->store) st = store_winners(ctx, res, err);
out:
    for (int i = 0; i < TDCL_TUNE_MAX_SIZES; i++) {
        tdcl_matrix_free(&s.a[i]);
        tdcl_matrix_free(&s.b[i]);
    }
    free(c.v);
    return st;
}
