/* tiledcl matmul: C = A*B of two matrix files on an OpenCL device. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "base/fileio.h"
#include "base/log.h"
#include "jobs/matmul_job.h"
#include "dist/mpi.h"
#include "ops/matmul/matmul_tc.h"

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: tiledcl matmul A B [-o C] [--type TYPE] [--precision P] [--tile T]\n"
            "                      [--kernel K] [--params P] [--no-tune] [--verify] [--wrap]\n"
            "                      [--shards RxC]\n"
            "\n"
            "Computes C = A*B for A of M x K and B of K x N on an OpenCL device, with a\n"
            "tiled kernel: local-memory tiles and barriers, or register blocks shaped for\n"
            "the device (CPUs: packed panels, no local memory; GPUs: 8x8 blocks per\n"
            "work-item in 128x128 local tiles). Any M, K, N >= 1. Inputs larger than the\n"
            "device's largest buffer are multiplied in panels that fit.\n"
            "\n"
            "A and B are Matrix Market (.mtx, .mtx.gz; array or coordinate), NumPy .npy or\n"
            "scipy .npz files, recognised by content; '-' reads one of them from stdin.\n"
            "Sparse files (coordinate .mtx, .npz) stay sparse (CSR) where that is faster:\n"
            "two sparse operands whose densities multiply to less than 0.02 (0.002 on a\n"
            "GPU) give a sparse product (SpGEMM), a sparse operand below 30%% density\n"
            "(13%% on a GPU) times a dense one a dense product (SpMM), and either does\n"
            "when the dense product would not fit in memory; otherwise they are made\n"
            "dense. -v and the summary say which.\n"
            "\n"
            "options:\n"
            "  -o, --output FILE  write C to FILE, format by extension: .mtx (Matrix Market\n"
            "                     array; coordinate for a sparse C), .npy or .npz (scipy's\n"
            "                     CSR); default: Matrix Market on stdout. A sparse C\n"
            "                     goes to .npy after a memory check naming its size\n"
            "      --sparse       keep sparse files sparse whatever their density (two\n"
            "                     dense files: multiply their nonzeros as CSR)\n"
            "      --dense        make every operand dense (the dense kernels)\n"
            "      --dense-output write a sparse C as a Matrix Market array\n"
            "  -t, --type TYPE    f32 (float32), f64 (float64; needs a device with\n"
            "                     cl_khr_fp64) or i64 (exact 64-bit integer sums; needs\n"
            "                     integer inputs). Default, as numpy's A @ B: i64 when\n"
            "                     both inputs hold integers (Matrix Market 'integer',\n"
            "                     integer .npy), f64 when either is float64 (Matrix Market\n"
            "                     'real', float64 .npy; f32 with a warning on a device\n"
            "                     without fp64, where a sparse product runs on the host\n"
            "                     in f64), else f32.\n"
            "                     An i64 product whose exact value leaves the int64 range\n"
            "                     is an error naming the first such element (row, column)\n"
            "      --wrap         i64: accept sums wrapped modulo 2^64 where the exact value\n"
            "                     leaves int64 (two's complement wrap-around, as C's\n"
            "                     unsigned arithmetic); --verify then checks modulo 2^64\n"
            "      --precision P  how a float32 product is computed (default fp32):\n"
            "                       fp32    exact float32 multiply-adds (CUDA cores, CPU ALUs)\n"
            "                       tf32    NVIDIA tensor cores; each input rounded to TF32\n"
            "                               (10 mantissa bits): relative error ~1e-3,\n"
            "                               fastest\n"
            "                       3xtf32  tensor cores; each x split into big = tf32(x)\n"
            "                               and small = tf32(x - big), summing small*big +\n"
            "                               big*small + big*big: float32-level error (measured\n"
            "                               no worse than fp32), at a third of tf32's rate\n"
            "                       auto    3xtf32 where the device has it, else fp32\n"
            "                     tf32 and 3xtf32 need an NVIDIA GPU of compute capability\n"
            "                     8.0 or later (-v says what was used); elsewhere they are an\n"
            "                     error. --verify allows tf32 an extra 2^-10 per product\n"
            "      --tile T       use the local-memory tiled kernel with T x T work-groups;\n"
            "                     default: the kernel and its blocks are chosen per device\n"
            "                     (-v shows them). A T the device cannot run is an error\n"
            "  -k, --kernel K     auto (default), tiled, cpu or gpu: force a kernel shape on\n"
            "                     any device (the cpu and gpu shapes run anywhere; they are\n"
            "                     only fast where named)\n");
    fprintf(fp,
            "      --params P     kernel parameters, e.g. 'bm=64 bn=64 tm=4' (gpu shape: bm bn\n"
            "                     bk tm tn wx wy nbuf aload atrans ksplit pad frag cp swz\n"
            "                     tail; cpu shape: mr nv vw kc; see tiledcl tune --help).\n"
            "                     Default: the table that\n"
            "                     `tiledcl tune matmul` stored for this device and driver,\n"
            "                     else the built-in table of known devices, else defaults,\n"
            "                     for the product's size (-v says which). Keys not given\n"
            "                     take the defaults; a set the device cannot run is an error\n"
            "      --no-tune      ignore the tuned and built-in tables: plain defaults\n"
            "      --verify       also compute A*B on the host (double precision, blocked,\n"
            "                     all cores) and print the relative Frobenius error\n"
            "                     ||C - R|| / ||R|| to stderr. Exit 1, writing nothing, when\n"
            "                     ||C - R|| > 2 (K + 2) (u ||A|| ||B|| + e sqrt(M N))\n"
            "                     (u = 2^-24, e = 2^-149 for f32; 2^-53, 2^-1074 for f64):\n"
            "                     twice the worst-case rounding of K-term dot products,\n"
            "                     underflow included, over the elements where the host's\n"
            "                     product is finite; where it is NaN C must be NaN, where\n"
            "                     it is an infinity C must be the same one. An i64\n"
            "                     product must match exactly and fit in int64 (modulo\n"
            "                     2^64 with --wrap)\n"
            "      --max-alloc B  use device buffers of at most B bytes (default: the\n"
            "                     device's limit); smaller values force panels\n"
            "      --shards RxC   over several devices (--device all, gpu:all or a list, or\n"
            "                     mpirun -n R*C): C in an R x C grid of blocks, one per\n"
            "                     device or rank. Several devices of one process each\n"
            "                     compute their block from A and B in host memory;\n"
            "                     default n x 1, bands of rows (no copies of B's columns).\n"
            "                     MPI ranks run SUMMA; default the most square grid (4:\n"
            "                     2x2)\n"
            "      --panel W      MPI ranks: SUMMA's panels are W columns of A (rows of B)\n"
            "                     wide; default: a quarter of the longest stretch of K one\n"
            "                     rank owns, in multiples of 16\n"
            "  -h, --help         this help\n"
            "\n"
            "examples:\n"
            "  tiledcl matmul data/a.mtx data/b.mtx -o c.npy --verify\n"
            "  tiledcl -v matmul data/ai.mtx data/bi.mtx        # exact integers, to stdout\n"
            "  tiledcl --device cpu matmul a.npy b.npy --type f64 --tile 8 -o c.mtx\n"
            "  tiledcl --device gpu matmul a.npy b.npy --precision 3xtf32 -o c.npy\n"
            "  tiledcl --device gpu:all matmul a.npy b.npy --shards 2x2 -o c.npy\n"
            "  mpirun -n 4 tiledcl matmul a.npy b.npy -o c.npy --verify\n"
            "\n"
            "exit status: 0 success, 1 bad input, shape mismatch, failed --verify or other\n"
            "runtime failure, 2 usage error, 3 no usable device or OpenCL failure\n");
}

/* The types a product is computed in. */
static const tdcl_dtype mm_types[] = {TDCL_F32, TDCL_F64, TDCL_I64};

/* "RxC" into the shard options' grid; 0 when it parses. */
static int parse_grid(const char *s, tdcl_mm_shard_opts *so)
{
    int r = 0, c = 0, used = 0;
    if (sscanf(s, "%d%*[xX]%d%n", &r, &c, &used) != 2 || s[used] || r < 1 || c < 1 ||
        r > TDCL_DEVSET_MAX || c > TDCL_DEVSET_MAX)
        return -1;
    so->grid_rows = r;
    so->grid_cols = c;
    return 0;
}

/* Parses argv into j; returns -1 when done, else the exit code to return. */
static int parse(int argc, char **argv, tdcl_mm_job_opts *j, tdcl_mm_shard_opts *so)
{
    static const struct option longopts[] = {{"output", required_argument, NULL, 'o'},
                                             {"type", required_argument, NULL, 't'},
                                             {"tile", required_argument, NULL, 'T'},
                                             {"kernel", required_argument, NULL, 'k'},
                                             {"verify", no_argument, NULL, 'V'},
                                             {"max-alloc", required_argument, NULL, 'M'},
                                             {"precision", required_argument, NULL, 'P'},
                                             {"params", required_argument, NULL, 'p'},
                                             {"no-tune", no_argument, NULL, 'N'},
                                             {"wrap", no_argument, NULL, 'W'},
                                             {"shards", required_argument, NULL, 'S'},
                                             {"panel", required_argument, NULL, 'w'},
                                             {"sparse", no_argument, NULL, 's'},
                                             {"dense", no_argument, NULL, 'd'},
                                             {"dense-output", no_argument, NULL, 'D'},
                                             {"help", no_argument, NULL, 'h'},
                                             {0, 0, 0, 0}};
    int c;
    int64_t v;
    tdcl_err e;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:t:k:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            j->out_path = tdcl_path_is_stdout(optarg) ? "-" : optarg; /* /dev/stdout: as '-' */
            break;
        case 't':
            if (cli_parse_dtype("matmul", "--type", optarg, mm_types, 3, &j->mm.type))
                return CLI_EXIT_USAGE;
            j->type_given = 1;
            break;
        case 'T':
            if (cli_parse_i64(optarg, 1, 1024, &v))
                return cli_usage_error("matmul",
                                       "--tile needs a whole number from 1 to 1024, got "
                                       "'%s'",
                                       optarg);
            j->mm.tile = (int)v;
            break;
        case 'k':
            if (tdcl_mm_kernel_parse(optarg, &j->mm.kernel, &e))
                return cli_usage_error("matmul", "%s", e.msg);
            break;
        case 'P':
            if (tdcl_mm_precision_parse(optarg, &j->mm.precision, &e))
                return cli_usage_error("matmul", "%s", e.msg);
            break;
        case 'V':
            j->verify = 1;
            break;
        case 'p':
            if (tdcl_mm_params_parse(optarg, &j->mm.par, &e))
                return cli_usage_error("matmul", "--params: %s", e.msg);
            break;
        case 'N':
            j->mm.no_tune = 1;
            break;
        case 'W':
            j->mm.wrap = 1;
            break;
        case 'M':
            if (cli_parse_i64(optarg, 1, INT64_MAX, &v))
                return cli_usage_error("matmul", "--max-alloc needs a byte count, got '%s'",
                                       optarg);
            j->mm.max_alloc = (size_t)v;
            break;
        case 'S':
            if (parse_grid(optarg, so))
                return cli_usage_error("matmul",
                                       "--shards needs ROWSxCOLS, e.g. 2x2 (each 1 to %d), got "
                                       "'%s'",
                                       TDCL_DEVSET_MAX, optarg);
            break;
        case 'w':
            if (cli_parse_i64(optarg, 1, INT32_MAX, &v))
                return cli_usage_error("matmul", "--panel needs a width of 1 or more, got '%s'",
                                       optarg);
            so->panel = v;
            break;
        case 's':
        case 'd':
            if (j->sparse && j->sparse != (c == 's' ? TDCL_MM_SPARSE_ON : TDCL_MM_SPARSE_OFF))
                return cli_usage_error("matmul", "--sparse and --dense exclude each other");
            j->sparse = c == 's' ? TDCL_MM_SPARSE_ON : TDCL_MM_SPARSE_OFF;
            break;
        case 'D':
            j->dense_output = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            return cli_usage_error("matmul", "unknown option or missing value: '%s'",
                                   argv[optind - 1]);
        }
    }
    if (argc - optind != 2)
        return cli_usage_error("matmul",
                               argc - optind < 2 ? "needs two input files, A and B"
                                                 : "unexpected argument '%s'",
                               argv[argc - 1]);
    if (j->mm.tile && j->mm.kernel != TDCL_MM_AUTO && j->mm.kernel != TDCL_MM_TILED)
        return cli_usage_error("matmul", "--tile applies to the tiled kernel, not '--kernel %s'",
                               tdcl_mm_kernel_name(j->mm.kernel));
    if (j->out_path && strcmp(j->out_path, "-") != 0 && !tdcl_path_has_ext(j->out_path, ".mtx") &&
        !tdcl_path_has_ext(j->out_path, ".npy") && !tdcl_path_has_ext(j->out_path, ".npz") &&
        !tdcl_path_is_stream(j->out_path))
        return cli_usage_error("matmul",
                               "-o '%s': unknown extension (write .mtx, .npy or .npz, or '-' "
                               "for stdout)",
                               j->out_path);
    j->a_path = argv[optind];
    j->b_path = argv[optind + 1];
    if (strcmp(j->a_path, "-") == 0 && strcmp(j->b_path, "-") == 0)
        return cli_usage_error("matmul", "only one of A and B can be read from stdin ('-')");
    return -1;
}

/* The product's size and type, and the top-left corner that fits the
 * terminal. */
static void print_corner(const tdcl_matrix *c, const tdcl_mm_job_opts *j)
{
    if (j->repr->c[0]) printf("A: %s\nB: %s\nC: %s\n", j->repr->a, j->repr->b, j->repr->c);
    printf("C = A*B: %" PRId64 "x%" PRId64 " %s (A = %s, B = %s)\n", c->rows, c->cols,
           tdcl_dtype_name(c->dtype), j->a_path, j->b_path);
    if (j->repr->c[0]) printf("A: %s\nB: %s\nC: %s\n", j->repr->a, j->repr->b, j->repr->c);
    cli_print_corner(c);
}

int cmd_matmul(int argc, char **argv, const cli_globals *g)
{
    tdcl_mm_job_opts j;
    tdcl_mm_check chk;
    memset(&j, 0, sizeof j);
    memset(&chk, 0, sizeof chk);
    j.check = &chk;
    tdcl_mm_shard_opts so = {0};
    int rc = parse(argc, argv, &j, &so);
    if (rc >= 0) return rc;
    tdcl_err err = {0};
    /* a terminal gets a summary and a corner, not M*N numbers; pipes and
     * files get everything */
    tdcl_matrix c = {0};
    tdcl_csr cs = {0};
    tdcl_mm_repr repr;
    memset(&repr, 0, sizeof repr);
    j.repr = &repr;
    if (tdcl_path_is_stdout(j.out_path) && isatty(STDOUT_FILENO)) {
        j.product = &c;
        j.sparse_product = &cs;
    }
    /* the job reads A and B before it waits for the device */
    tdcl_status st;
    if (g->exec->kind == TDCL_EXEC_ONE && so.grid_rows * so.grid_cols > 1)
        st = tdcl_fail(&err, TDCL_EINVAL,
                       "--shards %dx%d needs %d devices (--device all or a list) or MPI ranks",
                       so.grid_rows, so.grid_cols, so.grid_rows * so.grid_cols);
    else
        st = tdcl_mm_exec_job(g->exec, &so, &j, &err);
    if (st && !err.msg[0]) return tdcl_exit_code(st); /* another MPI rank reported it */
    if (g->ranks > 1 && tdcl_mpi_rank() != 0) j.verify = 0, j.product = NULL; /* rank 0 reports */
    if (st == TDCL_OK && j.product && cs.rowptr)
        printf("C = A*B: %" PRId64 "x%" PRId64 " %s, sparse (A = %s, B = %s)\nA: %s\nB: %s\nC: "
               "%s\n",
               cs.rows, cs.cols, tdcl_dtype_name(cs.dtype), j.a_path, j.b_path, repr.a, repr.b,
               repr.c);
    else if (st == TDCL_OK && j.product)
        print_corner(&c, &j);
    tdcl_matrix_free(&c);
    tdcl_csr_free(&cs);
    /* a failed check is reported by the job's error message */
    if (st == TDCL_OK && j.verify && chk.exact && chk.overflowed)
        fprintf(stderr,
                "tiledcl: verify: every element equals the host's product modulo 2^64 "
                "(%lld wrapped, as --wrap asked)\n",
                (long long)chk.overflowed);
    else if (st == TDCL_OK && j.verify && chk.exact)
        fprintf(stderr, "tiledcl: verify: exact, every element equals the host's int64 product\n");
    else if (st == TDCL_OK && j.verify)
        fprintf(stderr,
                "tiledcl: verify: relative Frobenius error %.3g (bound %.3g for %s, K=%lld): "
                "ok%s\n",
                chk.rel_err, chk.bound, tdcl_dtype_name(chk.type), (long long)chk.k,
                chk.nonfinite ? " over the finite elements; the host product's NaN and "
                                "infinite elements match"
                              : "");
    return st ? cli_report(&err) : 0;
}
