/* tiledcl bench spgemm / spmm: sparse products on generated matrices
 * (bench/bench_sparse.h). */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench_sparse.h"
#include "cli/cli.h"

#define MAX_GENS 16

static void usage(FILE *fp, const char *op)
{
    fprintf(fp,
            "usage: tiledcl bench %s [--matrix SPEC]... %s[--reps R] [--warmup W]\n"
            "                        [--seed S] [--json]\n"
            "\n"
            "Times the device's sparse product %s on seeded generated matrices\n"
            "(checked once against the host's product), in GFLOP/s counting 2 per product\n"
            "term, beside the bytes of the operands and result per second and the copy\n"
            "bandwidth measured in the same run. Times are the median device time of the\n"
            "product's kernels.\n"
            "\n"
            "options:\n"
            "  --matrix SPEC   rmat:K:E (R-MAT, 2^K vertices, E edges each), uniform:N:R\n"
            "                  (N x N, R random columns a row), laplace:M (2D 5-point\n"
            "                  Laplacian of M^2 unknowns); repeatable; default rmat:15:8,\n"
            "                  rmat:16:8, laplace:1000, uniform:100000:16\n"
            "  --cols N        spmm: the dense block's columns; repeatable; default 32,\n"
            "                  128, 512\n"
            "  --reps R        timed repetitions (5)\n"
            "  --warmup W      untimed runs first (1)\n"
            "  --seed S        the generators' seed (1); bench/cusparse_anchor.py makes the\n"
            "                  same matrices from the same seed\n"
            "  --json          one JSON object a line\n",
            op, strcmp(op, "spmm") == 0 ? "[--cols N]... " : "",
            strcmp(op, "spmm") == 0 ? "A times a dense block" : "A*A");
}

static void emit(const tdcl_bench_sparse_row *r, void *user)
{
    char buf[512];
    if (*(const int *)user)
        tdcl_bench_sparse_json(r, buf, sizeof buf);
    else
        tdcl_bench_sparse_text(r, buf, sizeof buf);
    cli_put_line(stdout, "", buf, "\n");
    fflush(stdout);
}

int cmd_bench_sparse(int argc, char **argv, const cli_globals *g)
{
    const char *op = argv[1];
    static const struct option longs[] = {
        {"matrix", required_argument, 0, 'm'}, {"cols", required_argument, 0, 'c'},
        {"reps", required_argument, 0, 'r'},   {"warmup", required_argument, 0, 'w'},
        {"seed", required_argument, 0, 's'},   {"json", no_argument, 0, 'j'},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0},
    };
    tdcl_spgen gens[MAX_GENS];
    int cols[MAX_GENS], json = 0, c;
    int64_t v;
    tdcl_err err = {0};
    tdcl_bench_sparse_opts o = {.spmm = strcmp(op, "spmm") == 0, .warmup = -1};
    optind = 2;
    while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        switch (c) {
        case 'm':
            if (o.ngens == MAX_GENS) return cli_usage_error("bench", "too many --matrix");
            if (tdcl_spgen_parse(optarg, &gens[o.ngens], &err) != TDCL_OK)
                return cli_usage_error("bench", "--matrix: %s", err.msg);
            o.gens = gens;
            o.ngens++;
            break;
        case 'c':
            if (!o.spmm || o.ncols == MAX_GENS || cli_parse_i64(optarg, 1, 1 << 16, &v) != 0)
                return cli_usage_error("bench", "--cols takes 1 to 65536, for spmm only");
            cols[o.ncols++] = (int)v;
            o.cols = cols;
            break;
        case 'r':
            if (cli_parse_i64(optarg, 1, 100000, &v) != 0)
                return cli_usage_error("bench", "--reps takes 1 to 100000, got '%s'", optarg);
            o.reps = (int)v;
            break;
        case 'w':
            if (cli_parse_i64(optarg, 0, 100000, &v))
                return cli_usage_error("bench", "--warmup takes 0 to 100000, got '%s'", optarg);
            o.warmup = (int)v;
            break;
        case 's':
            if (cli_parse_i64(optarg, 1, INT64_MAX, &v))
                return cli_usage_error("bench", "--seed takes a positive integer, got '%s'",
                                       optarg);
            o.seed = (uint64_t)v;
            break;
        case 'j':
            json = 1;
            break;
        case 'h':
            usage(stdout, op);
            return 0;
        default:
            usage(stderr, op);
            return CLI_EXIT_USAGE;
        }
    }
    if (optind < argc) return cli_usage_error("bench", "unexpected argument '%s'", argv[optind]);
    tdcl_ctx *ctx = NULL;
    if (!g->ctx) return cli_usage_error("bench", "%s runs on one device", op);
    if (cli_device(g, &ctx, &err) != TDCL_OK) return cli_report(&err);
    if (!json)
        printf("device %u:%u %s (%s), %s\n", ctx->dev.pidx, ctx->dev.didx, ctx->dev.device_name,
               tdcl_cl_type_name(ctx->dev.type), ctx->dev.driver_version);
    tdcl_status st = tdcl_bench_sparse(ctx, &o, emit, &json, &err);
    return st ? cli_report(&err) : 0;
}
