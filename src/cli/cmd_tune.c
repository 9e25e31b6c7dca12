/* tiledcl tune matmul: searches the matmul kernel's parameters on the
 * device and stores the winners where later runs find them. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "base/fileio.h"
#include "tune/tune.h"

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: tiledcl tune matmul [--sizes N[,N...]] [--time-limit S] [--candidates FILE]\n"
            "                           [--max-sets N] [--seed N] [--dry-run]\n"
            "\n"
            "Searches the float32 matmul kernel's parameters on the device and stores the\n"
            "fastest set per product size in the cache directory ($XDG_CACHE_HOME/tiledcl,\n"
            "else ~/.cache/tiledcl), in a table keyed by platform, device, driver and\n"
            "device version like the kernel cache. Later `tiledcl matmul` and `tiledcl\n"
            "bench matmul` runs on that device take the entry nearest to their product's\n"
            "size (cube root of M*N*K) unless given --params or --no-tune; -v and bench's\n"
            "\"plan\" field show the parameters and where they came from (params=tuned,\n"
            "built-in, default or given). Without a tuned table, a built-in one covers\n"
            "known devices. --no-cache (a global option) neither reads nor writes it.\n"
            "\n"
            "GPUs tune the gpu shape, other devices the cpu shape. First the current\n"
            "choice is timed at each size, then candidate sets in turn: each is built,\n"
            "run on a small product with edge tiles and a partial K slab and compared\n"
            "with a host reference (a wrong or failing set is rejected), then timed at\n"
            "every size (a warm-up, then the median of 3 to 20 runs, device time from\n"
            "profiling events). The search stops starting new sets at the time limit.\n"
            "A progress bar shows on a terminal's stderr (not with -q); -v logs every\n"
            "set with its rates.\n"
            "\n");
    fprintf(fp, "parameters (tiledcl matmul --params takes the same text):\n"
                "  gpu shape  bm, bn  work-group tile of C (32..256)      bk  K slab (8..32)\n"
                "             tm, tn  block of C per work-item (4, 8, 16)\n"
                "             wx, wy  team of work-items sharing local reads: 32 (a warp:\n"
                "                     8x4, 16x2, 4x8) or the whole group (bn/tn x bm/tm)\n"
                "             nbuf    local slab buffers: 1, or 2 (load the next while\n"
                "                     computing); 3 with cp=2\n"
                "             aload   A's slab read along k (1) or along m (2)\n"
                "             atrans  A read as it is (1) or transposed first (2)\n"
                "             ksplit  groups along K, summed by a second kernel (1..64)\n"
                "             pad     local rows unpadded (1) or padded by 4 (2, default)\n"
                "             frag    registers of the next slab row read ahead (2) or not\n"
                "                     (1, default)\n"
                "             cp      slabs staged through registers (1, default) or copied\n"
                "                     by cp.async (2: NVIDIA, compute capability 8.0 on,\n"
                "                     atrans=2, nbuf 2 or 3)\n"
                "             swz     tiles handed out in bands of swz tile rows (1..64;\n"
                "                     1, row by row, is the default)\n"
                "             tail    the last, partial wave of tiles run with K split\n"
                "                     tail ways (2..16) and summed, or kept whole (1);\n"
                "                     default: split where the estimate says it pays (GPUs)\n"
                "  cpu shape  mr, nv, vw  block of mr rows by nv vectors of vw lanes\n"
                "             kc      K pass length (cache blocking)\n"
                "\n"
                "options:\n"
                "  --sizes N,...      square products to tune for, up to 8 (default: 256,1024,\n"
                "                     4096 on GPUs; 256,1024 elsewhere)\n"
                "  --time-limit S     seconds after which no new set is started (default 60)\n"
                "  --candidates FILE  try exactly these sets, one per line (\"bm=64 bn=64 ...\";\n"
                "                     keys not given take the defaults; '#' comments), instead\n"
                "                     of searching the space in a fixed shuffled order\n"
                "  --max-sets N       stop after N sets (default: no limit)\n"
                "  --seed N           order of the search (default: a fixed one)\n"
                "  --dry-run          report, store nothing\n"
                "  --min-gain PCT     store a set only where it is at least PCT%% faster than\n"
                "                     the current choice, measured in the same run (default\n"
                "                     2): tuning never makes a later run slower\n"
                "  -h, --help         this help\n"
                "\n"
                "output (stdout): one line per size: size, GFLOP/s before, GFLOP/s after, the\n"
                "winning parameters; then where the table was stored.\n"
                "\n"
                "examples:\n"
                "  tiledcl --device gpu tune matmul                 # one minute, default sizes\n"
                "  tiledcl tune matmul --sizes 512,2048 --time-limit 300\n"
                "  tiledcl -v tune matmul --candidates sets.txt --dry-run\n"
                "\n"
                "exit status: 0 success, 1 bad candidates file, no set right at every size or\n"
                "the table not written, 2 usage error, 3 no usable device or OpenCL failure\n");
}

typedef struct tune_cli {
    tdcl_tune_opts o;
    const char *cand_path;
    int dry_run;
    double gain_pct; /* --min-gain as given, for the report */
} tune_cli;

static int parse_sizes(const char *s, tdcl_tune_opts *o)
{
    o->nsizes = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int64_t v;
        if (o->nsizes == TDCL_TUNE_MAX_SIZES || cli_parse_i64(t, 16, 65536, &v)) return -1;
        o->sizes[o->nsizes++] = v;
    }
    return o->nsizes > 0 ? 0 : -1;
}

/* Parses argv into t; returns -1 when done, else the exit code to return. */
static int parse(int argc, char **argv, tune_cli *t)
{
    static const struct option longopts[] = {{"sizes", required_argument, NULL, 's'},
                                             {"time-limit", required_argument, NULL, 'T'},
                                             {"candidates", required_argument, NULL, 'c'},
                                             {"max-sets", required_argument, NULL, 'm'},
                                             {"seed", required_argument, NULL, 'S'},
                                             {"dry-run", no_argument, NULL, 'd'},
                                             {"min-gain", required_argument, NULL, 'G'},
                                             {"help", no_argument, NULL, 'h'},
                                             {0, 0, 0, 0}};
    int c;
    int64_t v;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (parse_sizes(optarg, &t->o))
                return cli_usage_error("tune",
                                       "--sizes needs up to %d sizes from 16 to 65536, "
                                       "separated by commas, got '%s'",
                                       TDCL_TUNE_MAX_SIZES, optarg);
            break;
        case 'T':
            if (cli_parse_double(optarg, &t->o.time_limit_s) || !(t->o.time_limit_s > 0))
                return cli_usage_error("tune", "--time-limit needs seconds > 0, got '%s'", optarg);
            break;
        case 'c':
            t->cand_path = optarg;
            break;
        case 'm':
            if (cli_parse_i64(optarg, 1, 1000000, &v))
                return cli_usage_error("tune", "--max-sets needs a count >= 1, got '%s'", optarg);
            t->o.max_sets = (int)v;
            break;
        case 'S':
            if (cli_parse_i64(optarg, 0, INT64_MAX, &v))
                return cli_usage_error("tune", "--seed needs a whole number, got '%s'", optarg);
            t->o.seed = (uint64_t)v;
            break;
        case 'd':
            t->dry_run = 1;
            break;
        case 'G':
            if (cli_parse_double(optarg, &t->o.min_gain) || t->o.min_gain < -100 ||
                t->o.min_gain > 1000)
                return cli_usage_error("tune", "--min-gain needs a percentage, got '%s'", optarg);
            t->gain_pct = t->o.min_gain;
            t->o.min_gain /= 100;
            if (t->o.min_gain == 0) t->o.min_gain = 1e-9; /* 0%: any faster set */
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            return cli_usage_error("tune", "unknown option or missing value: '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind >= argc) return cli_usage_error("tune", "expected what to tune: matmul");
    if (strcmp(argv[optind], "matmul") != 0)
        return cli_usage_error("tune", "can tune only 'matmul', not '%s'", argv[optind]);
    if (optind + 1 < argc)
        return cli_usage_error("tune", "unexpected argument '%s'", argv[optind + 1]);
    return -1;
}

/* A bar on a terminal's stderr, redrawn in place: the larger of the sets
 * done and the time used, as a fraction. */
static void progress_bar(void *user, int done, int total, double elapsed_s, double limit_s,
                         const char *line)
{
    (void)user;
    double f = (double)done / total, ft = elapsed_s / limit_s;
    f = ft > f ? ft : f;
    f = f > 1 ? 1 : f;
    int width = 24, fill = (int)(width * f);
    fprintf(stderr, "\r\033[K[%.*s%*s] %3.0f s of %.0f s, %d sets; best GFLOP/s %s", fill,
            "########################", width - fill, "", elapsed_s, limit_s, done, line);
    fflush(stderr);
}

static void report(const tdcl_tune_result *r, double gain_pct)
{
    char par[200];
    for (int i = 0; i < r->nsizes; i++) {
        const tdcl_tune_best *b = &r->best[i];
        printf("%6" PRId64 "  %10.1f -> %10.1f GFLOP/s (x%.2f)  %s%s\n", b->size, b->base_gflops,
               b->gflops, b->base_gflops > 0 ? b->gflops / b->base_gflops : 0.0,
               tdcl_mm_params_format(&b->par, r->kernel, par, sizeof par),
               b->improved ? "" : "  (the current choice, kept)");
    }
    printf("%d sets tried, %d rejected, %.1f s\n", r->tried, r->rejected, r->elapsed_s);
    if (r->stored[0]) printf("stored in %s\n", r->stored);
    int any = 0;
    for (int i = 0; i < r->nsizes; i++)
        any |= r->best[i].improved;
    if (!any) printf("no set beat the current choice by %g%%: nothing to store\n", gain_pct);
}

int cmd_tune(int argc, char **argv, const cli_globals *g)
{
    tune_cli t;
    memset(&t, 0, sizeof t);
    t.gain_pct = 2; /* the library's default margin */
    int rc = parse(argc, argv, &t);
    if (rc >= 0) return rc;
    tdcl_err err = {0};
    tdcl_ctx *ctx = NULL;
    char *cands = NULL;
    size_t len = 0;
    tdcl_tune_result res;
    tdcl_status st = TDCL_OK;
    if (t.cand_path && (st = tdcl_read_file(t.cand_path, &cands, &len, &err))) goto out;
    t.o.candidates = cands;
    st = cli_device(g, &ctx, &err);
    if (st) goto out;
    t.o.store = !t.dry_run && ctx->cache_dir != NULL;
    if (!t.dry_run && !ctx->cache_dir)
        fprintf(stderr, "tiledcl: tune: no cache directory (--no-cache, or neither "
                        "XDG_CACHE_HOME nor HOME set): the result is not stored\n");
    if (isatty(STDERR_FILENO) && !g->quiet) {
        t.o.progress = progress_bar;
        tdcl_signal_note("\r\033[K"); /* Ctrl-C: the bar goes, the prompt starts clean */
    }
    st = tdcl_tune_matmul(ctx, &t.o, &res, &err);
    if (t.o.progress) fprintf(stderr, "\r\033[K");
    tdcl_signal_note(NULL);
    if (st == TDCL_OK) report(&res, t.gain_pct);
out:
    free(cands);
    return st ? cli_report(&err) : 0;
}
