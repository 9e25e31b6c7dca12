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
                "\n"
                "options:\n"
                "  --size N     matmul and tile-avg N x N\n"
                "  --image-size N  the images' side\n"
                "  --reps R     timed runs per row (default 3, at most 31)\n"
                "  --quick      small sizes (256; life 256 x 10 generations), for a smoke test\n"
                "  --no-numpy   do not time numpy\n"
                "  --no-vips    do not time vips\n"
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
                "               is no vips time)\n");
}

static void emit(const cli_e2e_row *r, void *user)
{
    tdcl_jsonl j;
    char buf[2048];
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
        O_NO_VIPS
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
                                             {"help", no_argument, NULL, 'h'},
                                             {0, 0, 0, 0}};
    cli_e2e_opts o = {.numpy = 1};
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
