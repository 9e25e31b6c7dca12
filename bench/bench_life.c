/* A small timing harness for the life kernels (beside `tiledcl bench
 * life`, which times the default plan on a dead boundary): a seeded soup, a
 * warm-up run, then the median of R repetitions of G generations, device
 * time from profiling events and wall time beside it.
 *
 * usage: bench_life [SIZE [GENS [REPS [BOUNDARY [KERNEL [WORD_BITS [DEPTH [TILE [LAYOUT
 *                   [TUNES]]]]]]]]]]
 *   defaults: 4096 100 5 dead bits auto auto auto auto auto; LAYOUT cpu or gpu
 *   forces that device's layout (the GPU's runs on PoCL too). TUNES is a
 * list of plans separated by ';', each "auto", "bytes" (the byte-per-cell
 * reference) or a forced shape, "key=value,..." read into a tdcl_life_lab
 * (life_lab.h; keys as its fields, e.g. "mode=bands,lx=16,ly=40,s=3,k=32";
 * dbuf, lop3, flow, reg, net and halves take the numbers cl/life takes:
 * 0, 1, 2 for halves), all timed on the same soup; every
 * plan's grid after its runs (all advance the same generations) is
 * compared with the first one's: "same" or "DIFFERS". Run it through
 * `meson test -C build --benchmark` or with TILEDCL_KERNEL_PATH=build/cl. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/clrt.h"
#include "ops/life/life.h"
#include "ops/life/life_lab.h"
#include "base/log.h"
#include "base/clock.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void log_stderr(tdcl_log_level level, const char *msg, void *user)
{
    (void)level;
    (void)user;
    fprintf(stderr, "%s\n", msg);
}

/* Reads "mode=bands,k=40,..." into *lab; 0, or -1 naming the bad pair. */
static int parse_lab(const char *text, tdcl_life_lab *lab)
{
    static const char *const modes[] = {"tiles", "bands", "single", "global", "block", "stream"};
    static const char *const keys[] = {"w",    "lx",   "ly",  "s",      "k",    "vx",   "vw", "g",
                                       "regs", "dbuf", "net", "halves", "lop3", "flow", "reg"};
    int *const num[] = {&lab->w,  &lab->lx, &lab->ly, &lab->s,   &lab->k,
                        &lab->vx, &lab->vw, &lab->g,  &lab->regs};
    const size_t nnum = sizeof num / sizeof num[0];
    *lab = (tdcl_life_lab){0};
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, ","), klen = strcspn(p, "=,");
        char v[24] = "";
        if (klen < n && n - klen - 1 < sizeof v) memcpy(v, p + klen + 1, n - klen - 1);
        int done = 0;
        for (size_t m = 0;
             m < sizeof modes / sizeof modes[0] && klen == 4 && !strncmp(p, "mode", 4); m++)
            if (!strcmp(v, modes[m])) {
                lab->mode = (tdcl_life_lab_mode)(TDCL_LIFE_LAB_TILES + (int)m);
                done = 1;
            }
        char *end = NULL;
        long x = strtol(v, &end, 10);
        for (size_t i = 0; i < sizeof keys / sizeof keys[0] && !done; i++) {
            if (strlen(keys[i]) != klen || strncmp(p, keys[i], klen) || !*v || *end || x < 0 ||
                x > TDCL_LIFE_LAB_MAX)
                continue;
            done = 1;
            if (i < nnum)
                *num[i] = (int)x;
            else if (!strcmp(keys[i], "net"))
                lab->net = (tdcl_life_lab_net)(x + 1); /* range checked by the plan */
            else if (!strcmp(keys[i], "halves"))
                lab->halves = (tdcl_life_lab_halves)(x + 1);
            else {
                tdcl_life_lab_switch sw = (tdcl_life_lab_switch)(x + 1);
                if (!strcmp(keys[i], "dbuf")) lab->dbuf = sw;
                if (!strcmp(keys[i], "lop3")) lab->lop3 = sw;
                if (!strcmp(keys[i], "flow")) lab->flow = sw;
                if (!strcmp(keys[i], "reg")) lab->reg = sw;
            }
        }
        if (!done) {
            fprintf(stderr,
                    "bench_life: expected key=value (mode, w, lx, ly, s, k, vx, vw, g, "
                    "regs, dbuf, net, halves, lop3, flow, reg), got '%.*s'\n",
                    (int)n, p);
            return -1;
        }
        p += n + (p[n] == ',');
    }
    return 0;
}

typedef struct bench {
    long size, gens;
    int reps;
    tdcl_ctx *ctx;
    tdcl_matrix soup, first; /* first: the first plan's final grid */
    double *dev, *wall;
} bench;

/* Times one plan with options o; prints its line. */
static int bench_one(bench *b, const char *label, const tdcl_life_opts *o, tdcl_err *err)
{
    tdcl_life_plan *p = NULL;
    tdcl_matrix got = {0};
    int rc = 1;
    double c0 = b->ctx->t.compile_ms;
    if (tdcl_life_plan_create(b->ctx, o, &b->soup, &p, err) ||
        tdcl_life_plan_execute(p, b->gens, NULL, err)) /* warm-up */
        goto out;
    for (int r = 0; r < b->reps; r++) {
        double t0 = tdcl_now_ms();
        if (tdcl_life_plan_execute(p, b->gens, &b->dev[r], err)) goto out;
        b->wall[r] = tdcl_now_ms() - t0;
    }
    if (tdcl_life_plan_result(p, &got, err)) goto out;
    const char *check = "first";
    if (!b->first.data) {
        b->first = got;
        got.data = NULL;
    } else {
        check = memcmp(got.data, b->first.data, (size_t)(b->size * b->size)) ? "DIFFERS" : "same";
    }
    qsort(b->dev, (size_t)b->reps, sizeof *b->dev, cmp_double);
    qsort(b->wall, (size_t)b->reps, sizeof *b->wall, cmp_double);
    double md = b->dev[b->reps / 2], mw = b->wall[b->reps / 2];
    double cells = (double)b->size * (double)b->size * (double)b->gens;
    printf("%s | %s | %ldx%ld x %ld gens %s | device %.3f ms (%.3f us/gen, %.3g cells/s) | wall "
           "%.3f ms (%.3g cells/s) | %s | %s | compile %.0f ms\n",
           label, b->ctx->dev.device_name, b->size, b->size, b->gens,
           tdcl_life_boundary_name(o->boundary), md, md * 1000 / (double)b->gens,
           cells / (md / 1000), mw, cells / (mw / 1000), tdcl_life_plan_describe(p), check,
           b->ctx->t.compile_ms - c0);
    fflush(stdout);
    rc = 0;
out:
    tdcl_life_plan_destroy(p);
    tdcl_matrix_free(&got);
    return rc;
}

int main(int argc, char **argv)
{
    bench b = {0};
    b.size = argc > 1 ? atol(argv[1]) : 4096;
    b.gens = argc > 2 ? atol(argv[2]) : 100;
    b.reps = argc > 3 ? atoi(argv[3]) : 5;
    tdcl_life_opts o = tdcl_life_opts_default();
    if (argc > 4 && tdcl_life_boundary_parse(argv[4], &o.boundary)) {
        fprintf(stderr, "bad boundary '%s'\n", argv[4]);
        return 2;
    }
    if (argc > 5 && strcmp(argv[5], "bytes") == 0) o.kernel = TDCL_LIFE_KERNEL_BYTES;
    o.word_bits = argc > 6 && strcmp(argv[6], "auto") ? atoi(argv[6]) : 0;
    o.depth = argc > 7 && strcmp(argv[7], "auto") ? atoi(argv[7]) : 0;
    o.tile = argc > 8 && strcmp(argv[8], "auto") ? atoi(argv[8]) : 0;
    if (argc > 9 && strcmp(argv[9], "auto"))
        o.layout = strcmp(argv[9], "gpu") == 0 ? TDCL_LIFE_LAYOUT_GPU : TDCL_LIFE_LAYOUT_CPU;
    char *tunes = strdup(argc > 10 ? argv[10] : "auto");
    if (b.size < 1 || b.gens < 1 || b.reps < 1 || !tunes) {
        fprintf(stderr, "usage: bench_life [SIZE [GENS [REPS [BOUNDARY [KERNEL [WORD_BITS "
                        "[DEPTH [TILE [LAYOUT [TUNES]]]]]]]]]]\n");
        free(tunes);
        return 2;
    }
    tdcl_log_set(log_stderr, NULL, getenv("BENCH_VERBOSE") ? TDCL_LOG_VERBOSE : TDCL_LOG_WARN);
    tdcl_err err = {0};
    int rc = 1;
    b.dev = calloc((size_t)b.reps, sizeof *b.dev);
    b.wall = calloc((size_t)b.reps, sizeof *b.wall);
    if (!b.dev || !b.wall || tdcl_ctx_open(NULL, &b.ctx, &err) ||
        tdcl_life_soup(b.size, b.size, 0.25, 1, &b.soup, &err))
        goto out;
    rc = 0;
    char *save = NULL;
    for (char *t = strtok_r(tunes, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
        tdcl_life_opts oo = o;
        tdcl_life_lab lab;
        if (strcmp(t, "bytes") == 0) {
            oo.kernel = TDCL_LIFE_KERNEL_BYTES;
        } else if (strcmp(t, "auto") != 0) {
            if (parse_lab(t, &lab)) {
                printf("%s | FAILED: not a shape\n", t);
                rc = 1;
                continue;
            }
            oo.lab = &lab;
        }
        if (bench_one(&b, t, &oo, &err)) { /* report and go on with the next plan */
            fprintf(stderr, "bench_life: %s: %s\n", t, err.msg);
            printf("%s | FAILED: %s\n", t, err.msg);
            rc = 1;
        }
    }
out:
    if (rc && !b.ctx) fprintf(stderr, "bench_life: %s\n", err.msg);
    tdcl_matrix_free(&b.soup);
    tdcl_matrix_free(&b.first);
    tdcl_ctx_close(b.ctx);
    free(b.dev);
    free(b.wall);
    free(tunes);
    return rc;
}
