/* tiledcl bench: measures the operations on the selected device, beside
 * the device's copy ceiling (and measured arithmetic peak) of the same run,
 * or (OP io) reading and writing matrix files on the host. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench_io.h"
#include "bench/bench_ops.h"
#include "bench/bench_report.h"
#include "bench/bench_scale.h"
#include "cli/cli.h"
#include "base/spec.h"
#include "base/log.h"
#include "ops/matmul/matmul_tc.h"
#include "runtime/devset.h"
#include "dist/mpi.h"
#include "base/json.h"

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: tiledcl bench OP [options]\n"
            "\n"
            "Measures an operation on the selected device: a warm-up, then R timed runs on\n"
            "seeded random inputs (never all zeros). Each figure uses the median kernel\n"
            "time from OpenCL profiling events (life: the whole generation loop), with min\n"
            "and max, the host time of a run and the total with uploads and one download\n"
            "beside it. Outputs are spot-checked against the host.\n"
            "\n"
            "Every figure is shown as a fraction of a ceiling measured in the same run,\n"
            "each from its fastest run (figures use the median, so a busy machine lowers\n"
            "the fractions rather than inflating them), each the best of several shapes:\n"
            "  copy       a device-to-device copy of an NxN float array (cl/copy.cl,\n"
            "             vector widths 1, 4, 8), GB/s read plus written; always measured\n"
            "  read       a read-mostly sum of the same array (cl/copy.cl read_f32: vector\n"
            "             widths 1, 4, 8; 16 or 256 vectors per work-item, strided or\n"
            "             contiguous), GB/s; the ceiling of tile-avg, which reads far more\n"
            "             than it writes\n"
            "  peak       a multiply-add loop (cl/peak.cl, vector widths 4, 8, 16),\n"
            "             GFLOP/s; the ceiling of matmul, beside the vendor's specified\n"
            "             peak where tiledcl knows it (NVIDIA)\n"
            "  life-peak  life's own bit-sliced adder network and rule run from registers\n"
            "             (cl/life/peak.cl life_peak: 32- and 64-bit words, 1 to 8 per vector),\n"
            "             cell updates/s; the ceiling of life's bit-packed kernels (the\n"
            "             byte-per-cell kernel is measured against copy)\n"
            "A fraction past 100%% says why it can be.\n"
            "\n"
            "OP is one of:\n"
            "  copy      the copy ceiling alone                       GB/s\n"
            "  matmul    C = A*B, 2*M*N*K FLOP per product            GFLOP/s\n"
            "  tile-avg  mean of each tile; bytes read plus written   GB/s\n"
            "  life      Game of Life (B3/S23) generations            cell updates/s\n"
            "  all       the ceilings, then matmul, tile-avg and life in turn\n"
            "  e2e       whole commands beside their floor (start-up, reading,\n"
            "            copies, kernel, writing): see 'tiledcl bench e2e --help'\n"
            "  io        Matrix Market and .npy files, read and written   MB/s\n"
            "            on the host (no device): see below\n"
            "  spgemm    sparse A*A on generated matrices             GFLOP/s\n"
            "  spmm      sparse A times dense blocks                  GFLOP/s\n"
            "            see 'tiledcl bench spgemm --help'\n"
            "\n");
    fprintf(fp, "options (defaults: GPU / CPU):\n"
                "  --size N          NxN problem; matmul 8192 / 2048, tile-avg 16384 / 4096,\n"
                "                    life 16384 / 2048, copy 16384 / 4096 (shrunk to fit the\n"
                "                    device's memory unless given)\n"
                "  --shape MxKxN     a non-square matmul: A is MxK, B is KxN\n"
                "  --tile T[xU]      the operation's tile edge (default: its own choice for the\n"
                "                    device); tile-avg also takes T rows x U columns (1x256);\n"
                "                    for copy, the vector width 1, 4 or 8\n"
                "  --gens G          life generations per run (default 100)\n"
                "  --pattern FILE    life: the pattern (RLE, .cells, ... as tiledcl life reads)\n"
                "                    centred in the NxN grid, dead boundary, its own rule, each\n"
                "                    run from the pattern: timed with tiles skipped (--sparse),\n"
                "                    then dense in the same run; the two end grids must agree\n"
                "                    byte for byte. The Gosper gun at the issue's size:\n"
                "                    --pattern data/gosper-gun.rle --size 65536 --gens 10000\n"
                "  --plane P         life --pattern: dense (default, centred in the N x N grid)\n"
                "                    or tiles: the unbounded plane in 64x64 tiles, its rate the\n"
                "                    cell updates/s of the active area, the 64x64 cells of\n"
                "                    each tile computed, each generation (the plan gives\n"
                "                    generations/s, live cells, tiles, tiles computed and\n"
                "                    held a launch, launch and host milliseconds)\n"
                "  --sparse M        life: skip tiles that do not change: auto (default, as\n"
                "                    tiledcl life --sparse), on or off; a run that skipped\n"
                "                    tiles also gives cell updates/s of the tiles it computed\n"
                "  --boundary B      life: the soup's boundary, dead (default), torus or clamp\n"
                "  --shards RxC      matmul over a set of devices or MPI ranks: the grid of\n"
                "                    shards (default: the squarest), e.g. 4x1 for row bands\n"
                "  --reps R          timed runs (default 10)\n"
                "  --warmup W        untimed runs first (default 1)\n"
                "  --type T          matmul element type: f32 (default), f64 or i64\n"
                "  --precision P     matmul arithmetic for f32: fp32 (default; exact float32\n"
                "                    multiply-adds), tf32 (NVIDIA tensor cores, inputs rounded\n"
                "                    to TF32: ~1e-3 relative error), 3xtf32 (tensor cores,\n"
                "                    float32-level accuracy) or auto (3xtf32 where the device\n"
                "                    has it, else fp32); tf32 and 3xtf32 need an NVIDIA GPU of\n"
                "                    compute capability 8.0 or later. Their fractions of peak\n"
                "                    are of the FP32 peaks (so tf32 can pass 100%%)\n"
                "  --params P        matmul kernel parameters (as tiledcl matmul --params);\n"
                "                    default: the tuned table (tiledcl tune matmul), else the\n"
                "                    built-in one, else defaults; \"plan\" shows which\n"
                "  --no-tune         matmul with plain defaults, no table\n"
                "  --copy-size N     the copy ceiling's NxN size when OP is not copy (default\n"
                "                    as copy's --size)\n"
                "  --seed S          seed of the random inputs (default fixed)\n"
                "  --json            one JSON object per line instead of text\n"
                "\n");
    fprintf(fp,
            "io: writes an NxN array file (--size, default 4000) and a coordinate file\n"
            "(--nnz entries, default 10 million or half the cells) of float32 values in %%.9g,\n"
            "reads them back from the page cache with 1 thread and with T, writes a\n"
            "dense float32 matrix as array and a sparse one as coordinate in tiledcl's\n"
            "shortest text, and times .npy both ways beside malloc + memcpy of the same\n"
            "bytes. Medians of R runs (--reps, default 5, at most 31) after a warm-up;\n"
            "MB are 10^6 bytes of file; MB/cpu-s counts the CPU time of all threads.\n"
            "Writes go to a new file without fsync (the formatter's speed, not the\n"
            "disk's); the array file written is read back and checked bit for bit.\n"
            "  --nnz K           coordinate entries\n"
            "  --threads T       threads of the many-thread figures (default: one per\n"
            "                    core)\n"
            "  --dir DIR         where the files go (default $TMPDIR, else /tmp); they\n"
            "                    are removed at the end\n"
            "  --read FILE       only time reading FILE (Matrix Market)\n"
            "  --plain           also time fgets+strtod and fprintf(\"%%.9g\"), for scale\n"
            "\n"
            "JSON fields: op, device, type, size (null for --shape; then m, k, n), tile\n"
            "(null when none), plan, reps, median_ms, min_ms, max_ms, host_median_ms,\n"
            "upload_ms, download_ms, total_ms, copy_gbps, frac_copy, ceiling (the name of\n"
            "the ceiling above that bounds the figure), frac_ceiling, checked, and gbps\n"
            "(copy, read, tile-avg; with read_gbps, frac_read once read is measured),\n"
            "gflops (peak, matmul; with peak_gflops, frac_peak, spec_peak_gflops,\n"
            "frac_spec_peak) or cells_per_s (life-peak, life; with\n"
            "life_peak_cells_per_s, frac_life_peak; with tiles skipped also\n"
            "computed_cells_per_s). Unknown values are null.\n"
            "io: op, what, threads, mb, median_ms, cpu_median_ms, mbps, mb_per_cpu_s.\n"
            "\n"
            "examples:\n"
            "  tiledcl bench copy\n"
            "  tiledcl bench matmul --size 1600 --tile 16 --reps 5\n"
            "  tiledcl --device gpu bench matmul --precision 3xtf32 --reps 20\n"
            "  tiledcl --device gpu bench all --json > bench.jsonl\n"
            "  tiledcl bench io --size 2000 --reps 3\n"
            "\n"
            "exit status: 0 success, 1 bad input, runtime failure or a failed output\n"
            "             check, 2 usage error, 3 no usable device or OpenCL failure\n");
}

enum {
    OPT_SIZE = 256,
    OPT_SHAPE,
    OPT_TILE,
    OPT_GENS,
    OPT_REPS,
    OPT_WARMUP,
    OPT_PRECISION,
    OPT_TYPE,
    OPT_COPY_SIZE,
    OPT_SEED,
    OPT_PARAMS,
    OPT_NO_TUNE,
    OPT_JSON,
    OPT_PATTERN,
    OPT_SPARSE,
    OPT_PLANE,
    OPT_BOUNDARY,
    OPT_SHARDS,
    OPT_NNZ,
    OPT_THREADS,
    OPT_DIR,
    OPT_READ,
    OPT_PLAIN
};

/* What the command line asked for: a device job, or (OP io) the file one. */
typedef struct bench_cli {
    tdcl_bench_opts dev;
    tdcl_bench_io_opts io;
    const char *dev_only; /* the first option given that only device operations take */
    const char *io_only;  /* the first option given that only io takes */
    int json;
} bench_cli;

static int parse_shape(const char *s, tdcl_bench_opts *o)
{
    long long m, k, n;
    char tail;
    if (sscanf(s, "%lldx%lldx%lld%c", &m, &k, &n, &tail) != 3 || m < 1 || k < 1 || n < 1 ||
        m > (1 << 20) || k > (1 << 20) || n > (1 << 20))
        return -1;
    o->m = m;
    o->k = k;
    o->n = n;
    return 0;
}

/* The types bench's matmul computes in. */
static const tdcl_dtype bench_types[] = {TDCL_F32, TDCL_F64, TDCL_I64};

/* Parses one of io's own options into b; returns 0, or the usage exit code. */
static int take_io_option(int c, const char *arg, bench_cli *b)
{
    int64_t v;
    switch (c) {
    case OPT_NNZ:
        if (cli_parse_i64(arg, 1, INT64_C(1) << 40, &b->io.nnz))
            return cli_usage_error("bench", "expected --nnz >= 1, got '%s'", arg);
        return 0;
    case OPT_THREADS:
        if (cli_parse_i64(arg, 1, 64, &v))
            return cli_usage_error("bench", "expected --threads 1..64, got '%s'", arg);
        b->io.threads = (int)v;
        return 0;
    case OPT_DIR:
        b->io.dir = arg;
        return 0;
    case OPT_READ:
        b->io.read_path = arg;
        return 0;
    case OPT_PLAIN:
        b->io.plain = 1;
        return 0;
    }
    return CLI_EXIT_USAGE;
}

/* Parses one option's value into b; returns 0, or the usage exit code. */
static int take_option(int c, const char *arg, const char *name, bench_cli *b)
{
    tdcl_bench_opts *o = &b->dev;
    int64_t v, u;
    const int64_t big = 1 << 20;
    if (c >= OPT_NNZ) {
        if (!b->io_only) b->io_only = name;
        return take_io_option(c, arg, b);
    }
    if (c != OPT_SIZE && c != OPT_REPS && c != OPT_JSON && !b->dev_only) b->dev_only = name;
    switch (c) {
    case OPT_SIZE:
        if (cli_parse_i64(arg, 1, big, &o->size))
            return cli_usage_error("bench", "expected --size 1..%lld, got '%s'", (long long)big,
                                   arg);
        b->io.n = o->size;
        return 0;
    case OPT_COPY_SIZE:
        if (cli_parse_i64(arg, 1, big, &o->copy_size))
            return cli_usage_error("bench", "expected --copy-size 1..%lld, got '%s'",
                                   (long long)big, arg);
        return 0;
    case OPT_SHAPE:
        if (parse_shape(arg, o))
            return cli_usage_error("bench", "expected --shape MxKxN (each 1..%lld), got '%s'",
                                   (long long)big, arg);
        return 0;
    case OPT_TILE: {
        if (tdcl_spec_pair(arg, TDCL_SPEC_SQUARE, 4096, &v, &u))
            return cli_usage_error("bench", "expected --tile T or TxU (1..4096), got '%s'", arg);
        o->tile = (int)v;
        o->tile_cols = u != v ? (int)u : 0;
        return 0;
    }
    case OPT_GENS:
        if (cli_parse_i64(arg, 1, INT64_C(1) << 40, &o->gens))
            return cli_usage_error("bench", "expected --gens >= 1, got '%s'", arg);
        return 0;
    case OPT_REPS:
    case OPT_WARMUP:
        if (cli_parse_i64(arg, c == OPT_REPS ? 1 : 0, 100000, &v))
            return cli_usage_error("bench", "expected --%s %d..100000, got '%s'",
                                   c == OPT_REPS ? "reps" : "warmup", c == OPT_REPS, arg);
        *(c == OPT_REPS ? &o->reps : &o->warmup) = (int)v;
        if (c == OPT_REPS) b->io.reps = (int)v;
        return 0;
    case OPT_TYPE:
        return cli_parse_dtype("bench", "--type", arg, bench_types, 3, &o->type);
    case OPT_PRECISION:
        if (tdcl_mm_precision_parse(arg, &o->precision, NULL))
            return cli_usage_error(
                "bench", "expected --precision fp32, tf32, 3xtf32 or auto, got '%s'", arg);
        return 0;
    case OPT_PARAMS: {
        tdcl_err e = {0};
        if (tdcl_mm_params_parse(arg, &o->mm_par, &e))
            return cli_usage_error("bench", "--params: %s", e.msg);
        return 0;
    }
    case OPT_NO_TUNE:
        o->mm_no_tune = 1;
        return 0;
    case OPT_SEED:
        if (cli_parse_i64(arg, 1, INT64_MAX, &v))
            return cli_usage_error("bench", "expected --seed >= 1, got '%s'", arg);
        o->seed = (uint64_t)v;
        return 0;
    case OPT_JSON:
        b->json = 1;
        return 0;
    case OPT_PATTERN:
        o->life_pattern = arg;
        return 0;
    case OPT_PLANE:
        if (strcmp(arg, "tiles") != 0 && strcmp(arg, "dense") != 0)
            return cli_usage_error("bench", "--plane is tiles or dense, got '%s'", arg);
        o->life_plane = strcmp(arg, "tiles") == 0;
        return 0;
    case OPT_SPARSE:
        if (strcmp(arg, "on") == 0)
            o->life_sparse = TDCL_LIFE_SPARSE_ON;
        else if (strcmp(arg, "off") == 0)
            o->life_sparse = TDCL_LIFE_SPARSE_OFF;
        else if (strcmp(arg, "auto") == 0)
            o->life_sparse = TDCL_LIFE_SPARSE_AUTO;
        else
            return cli_usage_error("bench", "expected --sparse auto, on or off, got '%s'", arg);
        return 0;
    case OPT_BOUNDARY:
        if (tdcl_life_boundary_parse(arg, &o->life_boundary) != 0 ||
            o->life_boundary > TDCL_LIFE_CLAMP)
            return cli_usage_error("bench", "expected --boundary dead, torus or clamp, got '%s'",
                                   arg);
        return 0;
    case OPT_SHARDS:
        if (tdcl_spec_pair(arg, TDCL_SPEC_UPPER_X, TDCL_DEVSET_MAX, &v, &u))
            return cli_usage_error("bench", "expected --shards RxC (each 1..%d), got '%s'",
                                   TDCL_DEVSET_MAX, arg);
        o->grid_rows = (int)v;
        o->grid_cols = (int)u;
        return 0;
    }
    return CLI_EXIT_USAGE;
}

/* Prints one figure's line (NULL: a JSON line that overflowed) and
 * flushes, so a long run shows each figure as it comes. */
static void put_line(const char *line)
{
    if (line) printf("%s\n", line);
    fflush(stdout);
}

static void emit_line(const tdcl_bench_result *r, void *user)
{
    tdcl_jsonl j;
    char buf[1024];
    if (!*(const int *)user) tdcl_bench_result_text(r, buf, sizeof buf);
    put_line(*(const int *)user ? tdcl_bench_result_json(r, &j) : buf);
}

static void emit_io_line(const tdcl_bench_io_result *r, void *user)
{
    tdcl_jsonl j;
    char buf[256];
    if (!*(const int *)user) tdcl_bench_io_result_text(r, buf, sizeof buf);
    put_line(*(const int *)user ? tdcl_bench_io_result_json(r, &j) : buf);
}

/* Checks that the options given fit OP; returns -1 to go on, else an exit
 * code. */
static int check_op_options(const bench_cli *b, int io)
{
    const tdcl_bench_opts *o = &b->dev;
    if (io && b->dev_only)
        return cli_usage_error("bench", "--%s is for the device operations, not io", b->dev_only);
    if (!io && b->io_only) return cli_usage_error("bench", "--%s is for io only", b->io_only);
    if (io && b->io.reps > 31)
        return cli_usage_error("bench", "io takes --reps 1..31, got %d", b->io.reps);
    if (o->m && o->op != TDCL_BENCH_MATMUL)
        return cli_usage_error("bench", "--shape is for matmul only");
    if (o->m && o->size) return cli_usage_error("bench", "give --size or --shape, not both");
    if (o->grid_rows && o->op != TDCL_BENCH_MATMUL)
        return cli_usage_error("bench", "--shards is for matmul only");
    if ((o->life_pattern || o->life_sparse) && o->op != TDCL_BENCH_LIFE)
        return cli_usage_error("bench", "--pattern and --sparse are for life only");
    if (o->op == TDCL_BENCH_COPY && o->tile && o->tile != 1 && o->tile != 4 && o->tile != 8)
        return cli_usage_error("bench", "copy takes --tile as its vector width 1, 4 or 8, got %d",
                               o->tile);
    return -1;
}

/* Parses argv into b and *io (OP is io); returns -1 to go on, else an exit
 * code. */
static int parse_args(int argc, char **argv, bench_cli *b, int *io)
{
    static const struct option longopts[] = {{"size", required_argument, NULL, OPT_SIZE},
                                             {"shape", required_argument, NULL, OPT_SHAPE},
                                             {"tile", required_argument, NULL, OPT_TILE},
                                             {"gens", required_argument, NULL, OPT_GENS},
                                             {"reps", required_argument, NULL, OPT_REPS},
                                             {"warmup", required_argument, NULL, OPT_WARMUP},
                                             {"precision", required_argument, NULL, OPT_PRECISION},
                                             {"type", required_argument, NULL, OPT_TYPE},
                                             {"copy-size", required_argument, NULL, OPT_COPY_SIZE},
                                             {"seed", required_argument, NULL, OPT_SEED},
                                             {"params", required_argument, NULL, OPT_PARAMS},
                                             {"no-tune", no_argument, NULL, OPT_NO_TUNE},
                                             {"json", no_argument, NULL, OPT_JSON},
                                             {"pattern", required_argument, NULL, OPT_PATTERN},
                                             {"sparse", required_argument, NULL, OPT_SPARSE},
                                             {"plane", required_argument, NULL, OPT_PLANE},
                                             {"boundary", required_argument, NULL, OPT_BOUNDARY},
                                             {"shards", required_argument, NULL, OPT_SHARDS},
                                             {"nnz", required_argument, NULL, OPT_NNZ},
                                             {"threads", required_argument, NULL, OPT_THREADS},
                                             {"dir", required_argument, NULL, OPT_DIR},
                                             {"read", required_argument, NULL, OPT_READ},
                                             {"plain", no_argument, NULL, OPT_PLAIN},
                                             {"help", no_argument, NULL, 'h'},
                                             {0, 0, 0, 0}};
    int c, rc, idx = -1;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, &idx)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return 0;
        }
        if (c == '?' || c == ':')
            return cli_usage_error("bench", "unknown option or missing value '%s'",
                                   argv[optind - 1]);
        if ((rc = take_option(c, optarg, longopts[idx].name, b)) != 0) return rc;
    }
    if (optind >= argc)
        return cli_usage_error("bench", "expected an operation: copy, matmul, tile-avg, life, "
                                        "all or io");
    *io = strcmp(argv[optind], "io") == 0;
    if (!*io && tdcl_bench_op_parse(argv[optind], &b->dev.op))
        return cli_usage_error("bench",
                               "unknown operation '%s' (copy, matmul, tile-avg, life, "
                               "all, io)",
                               argv[optind]);
    if (optind + 1 < argc)
        return cli_usage_error("bench", "unexpected argument '%s'", argv[optind + 1]);
    return check_op_options(b, *io);
}

/* OP io: no device; the machine's load beside the figures, since they are
 * the host's. */
static int bench_io(bench_cli *b)
{
    tdcl_err err = {0};
    double load[1] = {-1};
    if (!b->json) {
        getloadavg(load, 1);
        printf("host: %ld cores, load average %.2f\n", sysconf(_SC_NPROCESSORS_ONLN), load[0]);
    }
    tdcl_status st = tdcl_bench_io(&b->io, emit_io_line, &b->json, &err);
    if (!b->json && !st) {
        getloadavg(load, 1);
        printf("load average at the end %.2f\n", load[0]);
    }
    return st ? cli_report(&err) : 0;
}

/* A figure over a set or ranks, as a block of text or a JSON line. */
static void put_scale(const tdcl_bench_scale *r, int json)
{
    static char buf[sizeof r->devices + 2048];
    if (json)
        tdcl_bench_scale_json(r, buf, sizeof buf);
    else
        tdcl_bench_scale_text(r, buf, sizeof buf);
    printf("%s\n", buf);
}

/* --device names a set: OP over its devices against the first alone. */
static int bench_set(const bench_cli *b, const cli_globals *g)
{
    tdcl_err err = {0};
    tdcl_status st;
    tdcl_bench_scale r;
    tdcl_ctx_opts co = {.kernel_dir = g->kernel_dir, .no_cache = g->no_cache};
    const char *spec = g->device_spec;
    if (b->dev.op == TDCL_BENCH_LIFE)
        st = tdcl_bench_life_set(spec, &co, &b->dev, &r, &err);
    else if (b->dev.op == TDCL_BENCH_MATMUL)
        st = tdcl_bench_matmul_set(spec, &co, &b->dev, &r, &err);
    else if (b->dev.op == TDCL_BENCH_TILE_AVG)
        st = tdcl_bench_tile_avg_set(spec, &co, &b->dev, &r, &err);
    else
        return cli_usage_error("bench", "over several devices, bench measures life, matmul and "
                                        "tile-avg only");
    if (st) return cli_report(&err);
    put_scale(&r, b->json);
    return 0;
}

/* One of several MPI ranks: OP over the ranks against rank 0 alone, which
 * prints the figure. */
static int bench_ranks(const bench_cli *b, const cli_globals *g)
{
    tdcl_err err = {0};
    tdcl_status st;
    tdcl_bench_scale r;
    const char *spec = g->device_spec;
    if (b->dev.op == TDCL_BENCH_LIFE) {
        st = tdcl_bench_life_ranks(spec, &b->dev, &r, &err);
    } else if (b->dev.op == TDCL_BENCH_MATMUL) {
        st = tdcl_bench_matmul_ranks(spec, &b->dev, &r, &err);
    } else if (b->dev.op == TDCL_BENCH_TILE_AVG) {
        st = tdcl_bench_tile_avg_ranks(spec, &b->dev, &r, &err);
    } else {
        if (tdcl_mpi_rank() == 0)
            fprintf(stderr, "tiledcl: bench: under mpirun, bench measures life, matmul and "
                            "tile-avg only\n");
        return CLI_EXIT_USAGE;
    }
    if (st && !err.msg[0]) return tdcl_exit_code(st); /* another rank reported it */
    if (st) return cli_report(&err);
    if (r.root) put_scale(&r, b->json);
    return 0;
}

int cmd_bench(int argc, char **argv, const cli_globals *g)
{
    bench_cli b = {0};
    tdcl_err err = {0};
    tdcl_ctx *ctx = NULL;
    int io = 0, rc;
    tdcl_bench_opts_init(&b.dev);
    for (int i = 1; i < argc && !g->ranks; i++) /* e2e has options of its own */
        if (strcmp(argv[i], "e2e") == 0) return cmd_bench_e2e(argc, argv, g);
    if (argc > 1 && (strcmp(argv[1], "spgemm") == 0 || strcmp(argv[1], "spmm") == 0))
        return cmd_bench_sparse(argc, argv, g);
    if ((rc = parse_args(argc, argv, &b, &io)) >= 0) return rc;
    if (g->ranks > 1) return bench_ranks(&b, g); /* one of several MPI ranks */
    if (io) return bench_io(&b);
    if (!g->ctx) return bench_set(&b, g); /* --device names a set */
    if (cli_device(g, &ctx, &err) != TDCL_OK) return cli_report(&err);
    if (!b.json)
        printf("device %u:%u %s (%s), %s\n", ctx->dev.pidx, ctx->dev.didx, ctx->dev.device_name,
               tdcl_cl_type_name(ctx->dev.type), ctx->dev.driver_version);
    tdcl_status st = tdcl_bench_job(ctx, &b.dev, emit_line, &b.json, &err);
    return st ? cli_report(&err) : 0;
}
