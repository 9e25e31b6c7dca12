/* tiledcl tile-avg: the mean of each tile of a matrix or image. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "base/fileio.h"
#include "base/spec.h"
#include "io/image.h"
#include "jobs/tile_avg_job.h"

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: tiledcl tile-avg IN --tile T[xU] [--op OP] [-o OUT] [options]\n"
            "\n"
            "Reduces each T x U tile (the mean unless --op says otherwise). Means of\n"
            "one-channel matrices take the tuned kernels: averages each T x U tile (T rows by U "
            "columns) of a matrix or image on the\n"
            "OpenCL device: work-items sum runs of a tile row in registers and, where a\n"
            "tile is too large for one work-item, add their partial sums as a tree in\n"
            "local memory (gpu variant) or in further stages (cpu variant); short wide\n"
            "tiles (such as 1x256) go to the band variant, a team of work-items per\n"
            "tile along a band of rows with one local-memory pass. The result has\n"
            "ceil(rows/T) x ceil(cols/U) entries. Images are averaged per channel.\n"
            "\n"
            "Edge tiles: where the matrix is not a whole number of tiles, the last tile\n"
            "row and column average the cells they hold (an 8x10 matrix in 4x4 tiles\n"
            "gives 2x3 means, the last column over 4x2 cells each); --strict refuses\n"
            "such input instead.\n"
            "\n"
            "  --tile T[xU]    tile rows x columns, 1 <= T <= rows, 1 <= U <= cols;\n"
            "                  'T' alone means T x T (required)\n"
            "  -o, --output F  write the means to F, by extension: .mtx, .npy, .png, .jpg,\n"
            "                  .tif, .pgm, .ppm, .pam, .pbm; default: Matrix Market on\n"
            "                  stdout (a terminal gets\n"
            "                  the size and the top-left corner)\n"
            "  --op OP         mean (default), sum, min, max, median (of an even count\n"
            "                  the mean of the two middle values) or mode (the most\n"
            "                  frequent value, the smallest among ties); a NaN in a\n"
            "                  float tile gives NaN\n"
            "  --alpha A       straight (default: every channel averaged alike) or\n"
            "                  weighted (images with alpha: colour weighted by alpha,\n"
            "                  round(sum(colour*alpha) / sum(alpha)), 0 where the alpha\n"
            "                  is all 0; alpha the plain mean)\n"
            "  --type T        convert the results to T (f32, f64, i32, i64, u8, u16):\n"
            "                  integers rounded half up; a value past T's range is an\n"
            "                  error\n"
            "  --strict        refuse a matrix that is not a whole number of tiles\n"
            "  --variant V     auto (default: band for short wide tiles, else cpu on a CPU\n"
            "                  device and gpu elsewhere), cpu, gpu or band\n"
            "  --verify        check the means against a float64 host computation and\n"
            "                  fail (exit 1) past a relative error of 1e-6\n"
            "  --band-rows N   image inputs on one device stream through it in bands of\n"
            "                  about N rows (whole tiles; default: about 8 MiB of\n"
            "                  samples), decoding, reducing and encoding at once;\n"
            "                  'whole' reads the image whole first (as a set of\n"
            "                  devices and MPI ranks do). A plain .npy streams too,\n"
            "                  read by offset in whole blocks of 8 tile rows, when\n"
            "                  N is given or it exceeds the memory at hand\n"
            "  --max-bytes N   refuse inputs larger than N bytes once dense (default: no\n"
            "                  limit)\n"
            "  --clip          image outputs: clamp means outside the samples' range\n"
            "                  (0..255 or 0..65535) to it; without it such a mean, or a\n"
            "                  NaN, is an error naming the first one (row, column)\n"
            "  --quality Q     JPEG outputs: quality 1..100 (default 90)\n"
            "  --compress C    TIFF outputs: none (default), deflate or lzw (lossless,\n"
            "                  with horizontal differencing)\n"
            "  -h, --help      this help\n");
    fprintf(fp, "\n"
                "Input formats: Matrix Market (.mtx, .mtx.gz), NumPy (.npy), and images by\n"
                "extension or content: PNG, JPEG, TIFF, BMP, PBM, PGM, PPM, PAM (Netpbm\n"
                "samples of any maxval rescaled to 255 or 65535).\n"
                "'-' reads a matrix from stdin.");
    fprintf(fp,
            " A sparse IN (coordinate .mtx, .npz) is\n"
            "reduced from its entries on one device, never made dense: mean, sum, min\n"
            "and max over every cell of a tile, the cells without an entry as zeros;\n"
            "median and mode are refused; --max-bytes bounds its CSR arrays.\n"
            "Output type, unless --type: images keep their sample type for\n"
            "every reduction but sum (uint8 in, uint8 out), means and even medians\n"
            "rounded half up from the exact integer sum. sum gives int64 for integer\n"
            "input, float64 for float input (float32 on a device without fp64). A\n"
            "matrix's mean is float32 (float64 for float64 or int32/int64 input where\n"
            "the device has fp64); min, max, median and mode keep the input's type\n"
            "(integer medians rounded half up). Written as an image (.png, .pgm, ...),\n"
            "results are rounded to the input's bit depth (8 bits for a matrix input); a PBM "
            "input's means (the\n"
            "share of black) become grey, 0 black to 255 white. As .pbm, a grey input's\n"
            "mean below half its maxval is black, a PBM or matrix input's mean of 0.5 or\n"
            "more. A multi-channel result needs an image output.\n"
            "\n"
            "examples:\n"
            "  tiledcl tile-avg data/seed8x8.mtx --tile 2          # 4x4 means on stdout\n"
            "  tiledcl tile-avg photo.png --tile 8 -o small.png    # downsample 8x, per channel\n"
            "  tiledcl tile-avg big.npy --tile 1x256 -o rows.npy --verify\n"
            "\n"
            "exit status: 0 success, 1 bad input or runtime failure (including --strict\n"
            "and --verify failures), 2 usage error, 3 no usable device or OpenCL failure\n");
}

/* Parses "T" or "TxU" into o's tile. 0 on success. */
static int parse_tile(const char *s, tdcl_ta_opts *o)
{
    return tdcl_spec_pair(s, TDCL_SPEC_SQUARE | TDCL_SPEC_UPPER_X, INT64_MAX, &o->tile_rows,
                          &o->tile_cols);
}

enum {
    OPT_TILE = 256,
    OPT_STRICT,
    OPT_VARIANT,
    OPT_VERIFY,
    OPT_MAX_BYTES,
    OPT_CLIP,
    OPT_OP,
    OPT_ALPHA,
    OPT_TYPE,
    OPT_BAND_ROWS
};

/* Fills jo from argv; returns -1 to go on, else the exit status. */
static int parse(int argc, char **argv, tdcl_ta_job_opts *jo)
{
    static const struct option longopts[] = {
        {"tile", required_argument, NULL, OPT_TILE},
        {"output", required_argument, NULL, 'o'},
        {"strict", no_argument, NULL, OPT_STRICT},
        {"variant", required_argument, NULL, OPT_VARIANT},
        {"verify", no_argument, NULL, OPT_VERIFY},
        {"clip", no_argument, NULL, OPT_CLIP},
        {"max-bytes", required_argument, NULL, OPT_MAX_BYTES},
        {"op", required_argument, NULL, OPT_OP},
        {"alpha", required_argument, NULL, OPT_ALPHA},
        {"type", required_argument, NULL, OPT_TYPE},
        {"band-rows", required_argument, NULL, OPT_BAND_ROWS},
        {"quality", required_argument, NULL, CLI_OPT_QUALITY},
        {"compress", required_argument, NULL, CLI_OPT_COMPRESS},
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0}};
    int c;
    int64_t v;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_TILE:
            if (parse_tile(optarg, &jo->ta))
                return cli_usage_error("tile-avg",
                                       "expected --tile T or TxU with positive "
                                       "whole numbers, got '%s'",
                                       optarg);
            break;
        case 'o':
            jo->out_path = tdcl_path_is_stdout(optarg) ? "-" : optarg; /* /dev/stdout: as '-' */
            break;
        case OPT_STRICT:
            jo->ta.strict = 1;
            break;
        case OPT_VARIANT:
            if (tdcl_ta_variant_parse(optarg, &jo->ta.variant))
                return cli_usage_error(
                    "tile-avg", "expected --variant auto, cpu, gpu or band, got '%s'", optarg);
            break;
        case OPT_VERIFY:
            jo->verify = 1;
            break;
        case OPT_OP:
            if (tdcl_ta_op_parse(optarg, &jo->ta.op))
                return cli_usage_error(
                    "tile-avg", "expected --op mean, sum, min, max, median or mode, got '%s'",
                    optarg);
            break;
        case OPT_ALPHA:
            if (strcmp(optarg, "straight") != 0 && strcmp(optarg, "weighted") != 0)
                return cli_usage_error("tile-avg",
                                       "expected --alpha straight or weighted, got '%s'", optarg);
            jo->ta.alpha_weighted = strcmp(optarg, "weighted") == 0;
            break;
        case OPT_TYPE:
            if (tdcl_dtype_parse(optarg, &jo->out_type, NULL))
                return cli_usage_error(
                    "tile-avg", "expected --type f32, f64, i32, i64, u8 or u16, got '%s'", optarg);
            jo->retype = 1;
            break;
        case OPT_BAND_ROWS:
            if (strcmp(optarg, "whole") == 0)
                jo->band_rows = -1;
            else if (cli_parse_i64(optarg, 1, INT64_MAX, &jo->band_rows))
                return cli_usage_error("tile-avg", "expected --band-rows N > 0 or whole, got '%s'",
                                       optarg);
            break;
        case OPT_CLIP:
            jo->clip = 1;
            break;
        case CLI_OPT_QUALITY:
        case CLI_OPT_COMPRESS: {
            int rc = cli_parse_img_wopt("tile-avg", c, optarg, &jo->quality, &jo->compress);
            if (rc >= 0) return rc;
            break;
        }
        case OPT_MAX_BYTES:
            if (cli_parse_i64(optarg, 1, INT64_MAX, &v))
                return cli_usage_error("tile-avg", "expected --max-bytes N > 0, got '%s'", optarg);
            jo->max_bytes = (size_t)v;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case ':':
            return cli_usage_error("tile-avg", "option '%s' needs a value", argv[optind - 1]);
        default:
            return cli_usage_error("tile-avg", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) return cli_usage_error("tile-avg", "expected an input file");
    if (optind + 1 < argc)
        return cli_usage_error("tile-avg", "unexpected argument '%s'", argv[optind + 1]);
    if (!jo->ta.tile_rows) return cli_usage_error("tile-avg", "expected --tile T or TxU");
    const char *out = jo->out_path;
    if (out && strcmp(out, "-") != 0 && !tdcl_path_has_ext(out, ".mtx") &&
        !tdcl_path_has_ext(out, ".npy") && !tdcl_image_path(out) && !tdcl_path_is_stream(out))
        return cli_usage_error(
            "tile-avg",
            "-o '%s': unknown extension (write .mtx, .npy, an image (.png, .jpg, "
            ".tif, .pgm, .ppm, .pam, .pbm) "
            "or '-' for stdout)",
            out);
    int rc = cli_check_img_wopts("tile-avg", out, jo->quality, jo->compress);
    if (rc >= 0) return rc;
    jo->in_path = argv[optind];
    return -1;
}

int cmd_tile_avg(int argc, char **argv, const cli_globals *g)
{
    tdcl_ta_job_opts jo = {0};
    int rc = parse(argc, argv, &jo);
    if (rc >= 0) return rc;
    tdcl_err err = {0};
    /* a terminal gets a summary and a corner, not every mean; pipes and
     * files get everything (over MPI ranks, rank 0 writes to stdout) */
    tdcl_matrix res = {0};
    if (g->exec->kind != TDCL_EXEC_RANKS && tdcl_path_is_stdout(jo.out_path) &&
        isatty(STDOUT_FILENO))
        jo.result = &res;
    /* the job reads its input before it waits for the device */
    tdcl_status st = tdcl_ta_job(g->exec, &jo, &err);
    if (st && !err.msg[0]) return tdcl_exit_code(st); /* another MPI rank reported it */
    if (st == TDCL_OK && jo.result) {
        printf("%s of %" PRId64 "x%" PRId64 " tiles of %s: %" PRId64 "x%" PRId64 " %s\n",
               jo.ta.op == TDCL_TA_MEAN ? "means" : tdcl_ta_op_name(jo.ta.op), jo.ta.tile_rows,
               jo.ta.tile_cols, tdcl_path_display(jo.in_path), res.rows, res.cols,
               tdcl_dtype_name(res.dtype));
        cli_print_corner(&res);
    }
    tdcl_matrix_free(&res);
    return st ? cli_report(&err) : 0;
}
