/* tiledcl bench e2e: whole commands beside their floor (bench_e2e.h). */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/bench_e2e.h"
#include "cli/cli.h"

static void usage(FILE *fp)
{
    fprintf(fp, "usage: tiledcl bench e2e [--size N] [--image-size N] [--reps R] [--quick]\n"
                "                         [--no-numpy] [--no-vips] [--dir DIR] [--json]\n"
                "                         [--rows SET[,SET]] [--matrix SPEC]... [--no-scipy]\n"
                "                         [--pattern FILE[:GENS]]... [--no-bgolly]\n"
                "\n"
                "Runs whole tiledcl commands as a user would, each as a new process on files it\n"
                "generates, and shows each one's wall time and -v phases beside the floor of\n"
                "each phase measured in the same run:\n"
                "  matmul A.npy B.npy -o C.npy          (N x N float32; GPU 8192, CPU 2048)\n"
                "  life --size S --gens G -o L.npy      (GPU 16384 x 10000, CPU 4096 x 1000)\n"
                "  life --gens 200                      (the default 500 x 500 soup)\n"
                "  tile-avg A.npy --tile 4 -o T.npy     (N x N)\n"
                "  tile-avg I.png --tile 8 -o O.png     (an RGB picture; GPU 16000, CPU 4000)\n"
                "  tile-avg I.jpg --tile 8 -o O.jpg     (the same as a JPEG)\n"
                "  tile-avg I.tif --tile 8 -o O.tif     (the same as a 16-bit TIFF)\n"
                "The floors: start-up is the fastest device opening (platform discovery,\n"
                "context, queue) seen in the run; read, plain read() of the same inputs from the\n"
                "page cache; upload and download, the bytes at the bandwidth of a pinned\n"
                "(mapped) buffer's copies; kernel, the command's own kernel time; write, plain\n"
                "write() of the output's bytes to a new file (no fsync). The floor is shown\n"
                "laid end to end and overlapped (start-up beside reading), and as a fraction\n"
                "of the wall time. maxrss is the command's peak resident memory. The matmul\n"
                "row is also timed against numpy (np.load, @, np.save) when python3 has it,\n"
                "the image rows against libvips' 'vips shrink IN OUT 8 8' (its peak memory\n"
                "through /usr/bin/time) when vips is installed.\n"
                "Each row: one warm-up run, then the median of R runs. A command leaves its\n"
                "device's release (100-140 ms for an NVIDIA context) to a helper process\n"
                "that ends after it; each run's wall time ends with the command, and the next\n"
                "run starts once the helper has ended too (\"device released ... after the\n"
                "exit\").\n"
                "\n");
    fprintf(fp,
            "--rows sparse (or default,sparse: both sets) runs, on seeded coordinate .mtx\n"
            "files (R-MAT 2^15 vertices x 8 edges, the 2D Laplacian of 1000^2, uniform 10^5 x 16\n"
            "per row; as bench spgemm makes them):\n"
            "  matmul A.mtx A.mtx -o C.mtx          (sparse x sparse, file to file)\n"
            "  tile-avg A.mtx --tile T -o T.npy     (T: a 512th of the side, at least 2)\n"
            "each beside scipy (mmread, @ or the tile sums, mmwrite or np.save) reading\n"
            "through fast_matrix_market where python3 has it, else scipy.io.\n"
            "--rows golly runs life PATTERN --gens N -o L.rle beside 'bgolly -a QuickLife\n"
            "-m N -o G.rle PATTERN' on Golly's constructor-memory-loop (100000 gens),\n"
            "switch-engine-ping-pong, slide-breeder and high-bandwidth-telegraph (20000)\n"
            "from "
            "/usr/share/golly/Patterns/Life, or on the --pattern files. Both rows\n"
            "compare the two outputs: the same entries, tile means or live cells (bgolly's\n"
            "RLE has no position: the cells are then placed from their boxes' corners).\n"
            "Their peak memory comes through /usr/bin/time.\n"
            "\n");
    fprintf(fp, "options:\n"
                "  --size N     matmul and tile-avg N x N\n"
                "  --image-size N  the images' side\n"
                "  --reps R     timed runs per row (default 3, at most 31)\n"
                "  --quick      small sizes (256; life 256 x 10 generations; tiny sparse\n"
                "               matrices; a thousandth of Golly's generations; the tools beside\n"
                "               without a warm-up), for a smoke test\n"
                "  --no-numpy   do not time numpy\n"
                "  --no-vips    do not time vips\n"
                "  --rows SET   the rows: default, sparse, golly or all, comma-separated\n"
                "               (default: default)\n"
                "  --matrix SPEC  a sparse row's matrix, rmat:K:E, uniform:N:R or laplace:M\n"
                "               (repeatable, up to 8)\n"
                "  --no-scipy   do not time scipy\n"
                "  --pattern FILE[:GENS]  a golly row's pattern and generations (default\n"
                "               20000; repeatable, up to 16)\n"
                "  --no-bgolly  do not time bgolly\n"
                "  --dir DIR    where the files go (default $TMPDIR, else /tmp); removed after\n"
                "  --exe PATH   run the commands of another tiledcl build (a baseline)\n"
                "  --json       one JSON object per row: op, row, command, reps, wall_ms,\n"
                "               wall_min_ms, release_ms, the phases (read_ms, setup_ms, wait_ms, "
                "compile_ms,\n"
                "               upload_ms, kernel_ms, download_ms, write_ms), floor_startup_ms,\n"
                "               floor_read_ms, floor_upload_ms, floor_kernel_ms,\n"
                "               floor_download_ms, floor_write_ms, write_fsync_ms (writing with\n"
                "               fsync, as TILEDCL_FSYNC=1 does; not in the floor), floor_ms,\n"
                "               floor_overlap_ms, frac_floor, in_mb, out_mb, maxrss_mb, numpy_ms,\n"
                "               vs_numpy, vips_ms, vips_maxrss_mb, vs_vips, vips (why there\n"
                "               is no vips time); sparse and golly rows: anchor, anchor_ms,\n"
                "               anchor_maxrss_mb, vs_anchor, mem_vs_anchor, anchor_note (why\n"
                "               there is no anchor time), check (the outputs compared)\n");
}

/* "default,sparse" and so on into CLI_E2E_* bits; -1 on a word it does
 * not know. */
static int parse_rows(const char *s, unsigned *rows)
{
    static const struct {
        const char *name;
        unsigned bits;
    } sets[] = {{"default", CLI_E2E_DEFAULT},
                {"sparse", CLI_E2E_SPARSE},
                {"golly", CLI_E2E_GOLLY},
                {"all", CLI_E2E_DEFAULT | CLI_E2E_SPARSE | CLI_E2E_GOLLY}};
    *rows = 0;
    while (*s) {
        size_t len = strcspn(s, ","), i = 0;
        while (i < sizeof sets / sizeof sets[0] &&
               (strlen(sets[i].name) != len || strncmp(s, sets[i].name, len) != 0))
            i++;
        if (i == sizeof sets / sizeof sets[0]) return -1;
        *rows |= sets[i].bits;
        s += len + (s[len] == ',');
    }
    return *rows ? 0 : -1;
}

static void emit(const cli_e2e_row *r, void *user)
{
    tdcl_jsonl j;
    char buf[4096];
    const char *line = buf;
    if (*(const int *)user)
        line = cli_e2e_row_json(r, &j);
    else
        cli_e2e_row_text(r, buf, sizeof buf);
    if (line) printf("%s\n", line);
    fflush(stdout);
}

int cmd_bench_e2e(int argc, char **argv, const cli_globals *g)
{
    enum {
        O_SIZE = 256,
        O_REPS,
        O_QUICK,
        O_NO_NUMPY,
        O_DIR,
        O_JSON,
        O_EXE,
        O_IMAGE_SIZE,
        O_NO_VIPS,
        O_ROWS,
        O_MATRIX,
        O_NO_SCIPY,
        O_PATTERN,
        O_NO_BGOLLY
    };
    static const struct option longopts[] = {{"size", required_argument, NULL, O_SIZE},
                                             {"reps", required_argument, NULL, O_REPS},
                                             {"quick", no_argument, NULL, O_QUICK},
                                             {"no-numpy", no_argument, NULL, O_NO_NUMPY},
                                             {"dir", required_argument, NULL, O_DIR},
                                             {"json", no_argument, NULL, O_JSON},
                                             {"exe", required_argument, NULL, O_EXE},
                                             {"image-size", required_argument, NULL, O_IMAGE_SIZE},
                                             {"no-vips", no_argument, NULL, O_NO_VIPS},
                                             {"rows", required_argument, NULL, O_ROWS},
                                             {"matrix", required_argument, NULL, O_MATRIX},
                                             {"no-scipy", no_argument, NULL, O_NO_SCIPY},
                                             {"pattern", required_argument, NULL, O_PATTERN},
                                             {"no-bgolly", no_argument, NULL, O_NO_BGOLLY},
                                             {"help", no_argument, NULL, 'h'},
                                             {0, 0, 0, 0}};
    cli_e2e_opts o = {.numpy = 1};
    static tdcl_spgen matrices[8];
    static const char *patterns[16];
    tdcl_err perr = {0};
    int json = 0, c;
    int64_t v;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case O_SIZE:
            if (cli_parse_i64(optarg, 1, 1 << 17, &v))
                return cli_usage_error("bench", "expected --size 1..131072, got '%s'", optarg);
            o.size = v;
            break;
        case O_REPS:
            if (cli_parse_i64(optarg, 1, 31, &v))
                return cli_usage_error("bench", "e2e takes --reps 1..31, got '%s'", optarg);
            o.reps = (int)v;
            break;
        case O_IMAGE_SIZE:
            if (cli_parse_i64(optarg, 8, 1 << 17, &v))
                return cli_usage_error("bench", "expected --image-size 8..131072, got '%s'",
                                       optarg);
            o.image_size = v;
            break;
        case O_NO_VIPS:
            o.no_vips = 1;
            break;
        case O_ROWS:
            if (parse_rows(optarg, &o.rows))
                return cli_usage_error("bench",
                                       "e2e takes --rows default, sparse, golly or all "
                                       "(comma-separated), got '%s'",
                                       optarg);
            break;
        case O_MATRIX:
            if (o.nmatrices == 8) return cli_usage_error("bench", "e2e takes at most 8 --matrix");
            if (tdcl_spgen_parse(optarg, &matrices[o.nmatrices], &perr))
                return cli_usage_error("bench", "%s", perr.msg);
            o.matrices = matrices;
            o.nmatrices++;
            break;
        case O_NO_SCIPY:
            o.no_scipy = 1;
            break;
        case O_PATTERN:
            if (o.npatterns == 16)
                return cli_usage_error("bench", "e2e takes at most 16 --pattern");
            patterns[o.npatterns++] = optarg;
            o.patterns = patterns;
            break;
        case O_NO_BGOLLY:
            o.no_bgolly = 1;
            break;
        case O_QUICK:
            o.quick = 1;
            break;
        case O_NO_NUMPY:
            o.numpy = 0;
            break;
        case O_DIR:
            o.dir = optarg;
            break;
        case O_JSON:
            json = 1;
            break;
        case O_EXE:
            o.exe = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            return cli_usage_error("bench", "e2e: unknown option or missing value '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind >= argc || strcmp(argv[optind], "e2e") != 0 || optind + 1 < argc)
        return cli_usage_error("bench", "e2e: unexpected argument '%s'", argv[argc - 1]);
    static char exe[PATH_MAX];
    ssize_t len = o.exe ? 1 : readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) {
        fprintf(stderr, "tiledcl: bench e2e: cannot find the tiledcl executable\n");
        return 1;
    }
    if (!o.exe) {
        exe[len] = '\0';
        o.exe = exe;
    }
    const char *global[8];
    int n = 0;
    if (g->device_spec) {
        global[n++] = "--device";
        global[n++] = g->device_spec;
    }
    if (g->kernel_dir) {
        global[n++] = "--kernels";
        global[n++] = g->kernel_dir;
    }
    if (g->no_cache) global[n++] = "--no-cache";
    global[n] = NULL;
    o.global = global;
    tdcl_err err = {0};
    tdcl_ctx *ctx = NULL;
    if (cli_device(g, &ctx, &err) != TDCL_OK) return cli_report(&err);
    if (!json) {
        double load[1] = {-1};
        getloadavg(load, 1);
        printf("device %u:%u %s (%s), %s; host load average %.2f\n", ctx->dev.pidx, ctx->dev.didx,
               ctx->dev.device_name, tdcl_cl_type_name(ctx->dev.type), ctx->dev.driver_version,
               load[0]);
    }
    tdcl_status st = cli_e2e_run(ctx, &o, emit, &json, &err);
    return st ? cli_report(&err) : 0;
}
