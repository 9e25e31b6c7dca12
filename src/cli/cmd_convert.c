/* tiledcl convert: move data between file formats, chosen by extension.
 * The dispatch between matrices, images and Life patterns is the core's
 * tdcl_convert. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "base/fileio.h"
#include "jobs/convert_job.h"

typedef struct convert_opts {
    const char *in, *out;
    int dtype; /* -1: keep */
    int threads;
    int coordinate;
    int clip;
    int quality, compress; /* image writers' options, 0: their defaults */
    int rep;               /* a tdcl_convert_rep */
} convert_opts;

static void usage(FILE *fp)
{
    fprintf(fp, "usage: tiledcl convert [options] IN OUT\n"
                "\n"
                "Converts a matrix, an image or a Life pattern between file formats. IN is\n"
                "recognised by its contents (images and patterns by extension), OUT's format\n"
                "by its extension. Nothing is written unless IN was read whole: OUT appears\n"
                "atomically (an existing OUT is kept on any failure).\n"
                "\n"
                "formats:\n"
                "  .mtx     Matrix Market: array or coordinate; real, double, integer or\n"
                "           pattern; general, symmetric, skew-symmetric or hermitian (real\n"
                "           values). A coordinate IN stays sparse: written as coordinate\n"
                "           general, rows then columns ascending (array general with\n"
                "           --dense); an array IN is written as array general (coordinate\n"
                "           with --coordinate or --sparse); integer dtypes with the integer\n"
                "           field, floats in the shortest form that reads back exactly\n"
                "  .mtx.gz  Matrix Market compressed with gzip (input only; found by its magic\n"
                "           bytes, whatever the name)\n"
                "  .npy     NumPy: 2-D float32, float64, int32, int64 (and uint8, uint16),\n"
                "           little-endian, C or Fortran order; written in C order\n"
                "  .npz     scipy.sparse.save_npz (csr, csc or coo): read and written as a\n"
                "           sparse matrix; a dense IN keeps its nonzeros\n"
                "  .png .jpg .tif .pbm .pgm .ppm .pam  images (also read: BMP; Netpbm\n"
                "           samples of any maxval rescaled to 255 or 65535): a matrix\n"
                "           is rounded to 8 bits (16 past 255; .pbm: nonzero is black); a\n"
                "           Life pattern is drawn black (alive) on white. Grey images become\n"
                "           PBM black below half their maxval; PBM becomes grey 0 (black) and\n"
                "           255 (white). As IN, an image becomes an integer matrix (one\n"
                "           channel; PBM: 1 black, 0 white) or a pattern\n"
                "  .rle .cells  Life patterns (RLE as Golly writes it, plaintext): any IN is\n"
                "           read as a pattern (nonzero, black or dark cells alive)\n"
                "  -        IN: standard input (Matrix Market, plain or gzip, or .npy;\n"
                "           coordinate text is read straight from the pipe and stays\n"
                "           sparse); OUT: Matrix Market on standard output\n"
                "\n"
                "Matrix Market real and pattern files read as float64, integer files as\n"
                "int64; .npy keeps its dtype. A sparse IN (coordinate .mtx, .npz) is made\n"
                "dense only for .npy, an image or --dense, after a memory check naming the\n"
                "size (a pattern then becomes int64 ones).\n"
                "\n"
                "options:\n");
    fprintf(fp, "  --dtype TYPE    convert the values to f32, f64, i32 or i64 (or float32,\n"
                "                  float64, int32, int64) before writing (default: keep the dtype "
                "read). Floats\n"
                "                  round to nearest, integer types truncate fractions\n"
                "  --clip          saturate values outside the target's range to its ends\n"
                "                  (int32, float32's largest finite value, image samples\n"
                "                  0..255 or 0..65535). Without it such a value, and NaN or\n"
                "                  an infinity for an integer type, is an error naming the\n"
                "                  first one (row, column); NaN to an integer or a pixel is\n"
                "                  an error even with --clip\n"
                "  --coordinate    write Matrix Market as coordinate general, nonzeros only\n"
                "                  (default: as IN: array for a dense IN)\n"
                "  --dense         write a sparse IN dense: array Matrix Market\n"
                "  --sparse        write a dense IN sparse: coordinate Matrix Market or .npz\n"
                "                  (its nonzeros; the value type is kept)\n"
                "  --quality Q     JPEG outputs: quality 1..100 (default 90)\n"
                "  --compress C    TIFF outputs: none (default), deflate or lzw (lossless,\n"
                "                  with horizontal differencing)\n"
                "  --threads N     threads parsing and printing Matrix Market (default 0: one\n"
                "                  per core, at most 8)\n"
                "  -h, --help      this help\n"
                "With -v, the sizes, times and MB/s of the read and the write are shown, and\n"
                "whether each side was sparse or dense.\n"
                "\n"
                "examples:\n"
                "  tiledcl convert bcsstk01.mtx.gz bcsstk01.npy\n"
                "  tiledcl convert --dtype float32 A.mtx A32.npy\n"
                "  tiledcl -v convert big.mtx big.npy     # measure Matrix Market reading\n"
                "  tiledcl convert C.npy - | less\n"
                "  tiledcl convert data/gosper-gun.rle gun.png\n"
                "  tiledcl convert data/rings.pgm rings.npy\n"
                "\n"
                "exit status: 0 success, 1 bad input or cannot write, 2 usage error\n");
}

/* Fills o from argv; returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, convert_opts *o)
{
    enum { OPT_DTYPE = 256, OPT_THREADS, OPT_COORD, OPT_CLIP, OPT_DENSE, OPT_SPARSE };
    static const struct option longopts[] = {
        {"dtype", required_argument, NULL, OPT_DTYPE},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"coordinate", no_argument, NULL, OPT_COORD},
        {"clip", no_argument, NULL, OPT_CLIP},
        {"dense", no_argument, NULL, OPT_DENSE},
        {"sparse", no_argument, NULL, OPT_SPARSE},
        {"quality", required_argument, NULL, CLI_OPT_QUALITY},
        {"compress", required_argument, NULL, CLI_OPT_COMPRESS},
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0}};
    int c;
    int64_t v;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_DTYPE: {
            static const tdcl_dtype types[] = {TDCL_F32, TDCL_F64, TDCL_I32, TDCL_I64};
            tdcl_dtype t;
            if (cli_parse_dtype("convert", "--dtype", optarg, types, 4, &t)) return CLI_EXIT_USAGE;
            o->dtype = (int)t;
            break;
        }
        case OPT_THREADS:
            if (cli_parse_i64(optarg, 0, 64, &v))
                return cli_usage_error("convert", "--threads must be 0..64, got '%s'", optarg);
            o->threads = (int)v;
            break;
        case OPT_COORD:
            o->coordinate = 1;
            break;
        case OPT_CLIP:
            o->clip = 1;
            break;
        case CLI_OPT_QUALITY:
        case CLI_OPT_COMPRESS: {
            int rc = cli_parse_img_wopt("convert", c, optarg, &o->quality, &o->compress);
            if (rc >= 0) return rc;
            break;
        }
        case OPT_DENSE:
        case OPT_SPARSE:
            if (o->rep && o->rep != (c == OPT_DENSE ? TDCL_REP_DENSE : TDCL_REP_SPARSE))
                return cli_usage_error("convert", "--dense and --sparse exclude each other");
            o->rep = c == OPT_DENSE ? TDCL_REP_DENSE : TDCL_REP_SPARSE;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case ':':
            return cli_usage_error("convert", "option '%s' needs a value", argv[optind - 1]);
        default:
            return cli_usage_error("convert", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (argc - optind != 2)
        return cli_usage_error("convert", "expected IN and OUT, got %d argument%s", argc - optind,
                               argc - optind == 1 ? "" : "s");
    if (o->coordinate && o->rep == TDCL_REP_DENSE)
        return cli_usage_error("convert", "--coordinate and --dense exclude each other");
    o->in = argv[optind];
    o->out = tdcl_path_is_stdout(argv[optind + 1]) ? "-" : argv[optind + 1];
    return cli_check_img_wopts("convert", o->out, o->quality, o->compress);
}

int cmd_convert(int argc, char **argv, const cli_globals *g)
{
    (void)g;
    convert_opts o = {.dtype = -1};
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    tdcl_convert_opts co = {.in = o.in,
                            .out = o.out,
                            .dtype = o.dtype,
                            .clip = o.clip,
                            .quality = o.quality,
                            .compress = o.compress,
                            .rep = o.rep,
                            .io = {.threads = o.threads,
                                   .coordinate = o.coordinate,
                                   .comment = "written by tiledcl convert"}};
    if (!tdcl_convert_out_known(o.out))
        return cli_usage_error("convert",
                               "cannot tell the format of '%s' (use .mtx, .npy, .npz, .pbm, "
                               ".pgm, .png, .rle, .cells or '-')",
                               o.out);
    int dense_only = tdcl_path_has_ext(o.out, ".npy") || tdcl_path_has_ext(o.out, ".pbm") ||
                     tdcl_path_has_ext(o.out, ".pgm") || tdcl_path_has_ext(o.out, ".png");
    if (o.rep == TDCL_REP_SPARSE && dense_only)
        return cli_usage_error("convert", "--sparse: '%s' holds a dense matrix", o.out);
    if (o.rep == TDCL_REP_DENSE && tdcl_path_has_ext(o.out, ".npz"))
        return cli_usage_error("convert", "--dense: '%s' holds a sparse matrix", o.out);
    tdcl_err err = {0};
    if (tdcl_convert(&co, &err) != TDCL_OK) {
        return cli_report(&err);
    }
    return 0;
}
