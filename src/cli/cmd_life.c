/* tiledcl life: Life-like rules on the device, from a pattern file or a
 * seeded soup, written as RLE, .cells, .mtx, .npy, .pbm or .png. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/cli.h"
#include "io/life_io.h"
#include "base/fileio.h"
#include "jobs/life_job.h"
#include "jobs/life_plane_job.h"
#include "dist/mpi.h"
#include "base/log.h"

static void usage(FILE *fp)
{
    fprintf(fp, "usage: tiledcl life [IN] [--gens N] [-o OUT] [options]\n"
                "\n"
                "Runs Conway's Game of Life, or any Life-like rule, for N generations on the\n"
                "device. Without IN the grid is a random soup, the same on every run and\n"
                "device: 'tiledcl life --gens 200' is a 500x500 grid, about 25%% alive, for\n"
                "200 generations.\n"
                "\n"
                "  IN                 pattern: .rle (Golly/LifeWiki RLE), .cells (plaintext),\n"
                "                     .lif (Life 1.05/1.06), .mc (two-state Macrocell), each\n"
                "                     also gzipped (.rle.gz ...); .mtx/.mtx.gz/.npy/.npz\n"
                "                     (nonzero = alive; a sparse one straight into the grid),\n"
                "                     .pbm or .png (black = alive); '-' reads stdin\n"
                "                     (format from the content). As in Golly, a pattern whose\n"
                "                     rule has no bounded grid runs on an unbounded plane: the\n"
                "                     grid grows as the pattern does (up to what the device\n"
                "                     holds) and the output holds the live cells at their\n"
                "                     place (RLE '#CXRLE Pos='). Arrays and images are a fixed\n"
                "                     grid with a dead edge\n"
                "  -g, --gens N       generations to run (default 200)\n"
                "  -o, --output OUT   write the final grid; the format comes from the\n"
                "                     extension: .rle .cells .mtx (0/1 integers) .npy .pbm .png.\n"
                "                     Without -o: RLE on stdout when stdout is not a terminal,\n"
                "                     a summary (and a preview of small grids) when it is\n"
                "  -r, --rule RULE    any spelling Golly takes for a two-state totalistic rule:\n"
                "                     B3/S23 (default, or the file's rule), B36/S23, S23/B3,\n"
                "                     B3S23, 23/3, B2/S, names (Life, HighLife, Seeds, Day and\n"
                "                     Night, ...); an H or V suffix for Golly's hexagonal or von\n"
                "                     Neumann neighbourhood (B2/S34H, B2/S013V)\n"
                "  -b, --boundary B   dead (cells outside are dead), torus (wrap around),\n"
                "                     clamp (a neighbour past the edge is the edge cell: the\n"
                "                     edges replicated), klein, cross, sphere, or any\n"
                "                     Golly bounded grid with its size: ':T64,48', ':T64+2,48'\n"
                "                     (shifted), ':K64*,48' (Klein bottle), ':C64,48'\n"
                "                     (cross-surface), ':S64' (sphere), ':P64,48'. A file's\n"
                "                     rule suffix (tubes ':T0,48' too) sets them unless\n"
                "                     --boundary/--size say otherwise. Rules with B0 need a\n"
                "                     grid with no outside (not dead or unbounded)\n");
    fprintf(fp, "  -s, --size WxH     soup size (default 500x500); with IN, a fixed grid the\n"
                "                     pattern is centred in (default: the file's bounded grid,\n"
                "                     else an unbounded plane; with --boundary alone, the\n"
                "                     pattern's own size)\n"
                "  -d, --density P    soup density, 0 to 1 (default 0.25)\n"
                "      --seed S       soup seed, an integer (default 1)\n"
                "      --every K      print generation and population every K generations\n"
                "      --frames DIR   with --every: a PNG per K generations in DIR\n"
                "                     (gen-00000000.png, ...; on an unbounded plane: the\n"
                "                     starting grid's window, as for --gif)\n"
                "      --gif FILE     an animated GIF of the run: a frame per --every K\n"
                "                     generations, else per generation (on an unbounded\n"
                "                     plane: the starting grid's window)\n"
                "      --scale K      pixels per cell in PNG and GIF output (default 1)\n"
                "      --kernel K     bits (default: 32 or 64 cells per word, several\n"
                "                     generations per launch) or bytes (a byte per cell, the\n"
                "                     reference; the automatic choice for H and V rules and\n"
                "                     for Golly's shifted, Klein, cross, sphere and tube grids)\n"
                "      --tile N       bytes: an N x N tile; bits: the rows a work-group's tile\n"
                "                     holds (depth > 1) or a work-item's strip (depth 1).\n"
                "                     Default: chosen within the device's limits; a tile the\n"
                "                     device cannot run is refused\n"
                "      --depth N      bits: generations per launch, 1 to the word size\n"
                "                     (default: 1 on CPUs; on GPUs 8 or 16 in tiles, 32 in\n"
                "                     bands of whole rows for narrow grids, or all of them\n"
                "                     when a small grid fits one work-group)\n"
                "      --word-bits W  bits: 32 or 64 cells per word (default 64)\n"
                "      --max-bytes B  host memory the grid may take (about 2 bytes a cell, more\n"
                "                     on a CPU device). Default: half of what the host has\n"
                "                     available; a larger grid is refused with its size, and B\n"
                "                     goes ahead, within the process's limits (ulimit -v)\n"
                "      --sparse M     auto (default), on or off: skip tiles that are empty or\n"
                "                     whose neighbourhood did not change in the last launch\n"
                "                     (the same result; far less work for a gun or glider in a\n"
                "                     large grid). auto skips on grids of at least 2^22 cells\n"
                "                     where at most a quarter of the tiles hold live cells\n"
                "                     (and no --tile asks for a dense shape);\n"
                "                     rules with B0 and Golly's bounded grids other than torus\n"
                "                     and clamp run dense (-v says so)\n"
                "      --plane P      auto (default), tiles or dense: the unbounded plane as\n"
                "                     64x64 tiles that exist only near live cells (memory and\n"
                "                     work follow the live cells), or one grid over the\n"
                "                     pattern's box; auto takes tiles when under 10%% of the\n"
                "                     box is alive on a CPU, 15%% on a GPU (-v says which);\n"
                "                     rules with B0 run dense; a matrix or a :P grid (a dead\n"
                "                     edge) runs in tiles too, none past its edges\n"
                "      --window X,Y,W,H  the plane's window that --frames and --gif show on the\n"
                "                     tile plane (default: the starting grid's window)\n"
                "      --halo K       with --device naming several devices (the grid split\n"
                "                     into bands of rows, one per device): generations\n"
                "                     between exchanges, the rows each band keeps of its\n"
                "                     neighbours (default: from the measured exchange cost)\n"
                "\n");
    fprintf(fp,
            "With -v, or on a terminal, a closing line on stderr gives generations,\n"
            "population, time and cell updates per second of the whole grid (and, when\n"
            "tiles were skipped, of the tiles computed); long runs show progress.\n"
            "\n"
            "examples:\n"
            "  tiledcl life --gens 200 -o soup.png --scale 2\n"
            "  tiledcl life data/gosper-gun.rle --gens 300 -o gun.rle\n"
            "  tiledcl life data/glider.rle --boundary :K16*,16 --gens 100 -o k.rle\n"
            "  tiledcl life data/glider.rle --size 16x16 --boundary torus --gens 64 --gif g.gif\n"
            "  tiledcl life --rule B36/S23 --size 256x256 --gens 1000 --every 100 > end.rle\n"
            "\n"
            "exit status: 0 success, 1 bad input or runtime failure, 2 usage error,\n"
            "             3 no usable device or OpenCL failure\n");
}

/* Parses "WxH" (or "N" for NxN) into positive sizes. */
static int parse_size(const char *s, int64_t *w, int64_t *h)
{
    char buf[64];
    if (!s || strlen(s) >= sizeof buf) return -1;
    strcpy(buf, s);
    char *x = strchr(buf, 'x');
    if (!x) x = strchr(buf, 'X');
    if (x) *x = '\0';
    if (cli_parse_i64(buf, 1, INT32_MAX / 2, w) != 0) return -1;
    if (!x) {
        *h = *w;
        return 0;
    }
    return cli_parse_i64(x + 1, 1, INT32_MAX / 2, h);
}

typedef struct life_cli {
    tdcl_life_job_opts job;
    int summary; /* stdout is a terminal and there is no -o */
    int halo;    /* --halo K; 0: chosen */
} life_cli;

enum {
    OPT_SEED = 256,
    OPT_EVERY,
    OPT_FRAMES,
    OPT_GIF,
    OPT_SCALE,
    OPT_KERNEL,
    OPT_TILE,
    OPT_DEPTH,
    OPT_WORD_BITS,
    OPT_MAX_BYTES,
    OPT_HALO,
    OPT_SPARSE,
    OPT_PLANE,
    OPT_WINDOW,
};

/* --boundary as Golly's bounded grid (":T64+2,48", "K64*,48"): the
 * boundary, its edges and the grid's size. */
static int take_golly_grid(const char *arg, tdcl_life_job_opts *o)
{
    char rule[96];
    tdcl_life_rule r;
    tdcl_life_topology t;
    tdcl_err err = {0};
    if (strlen(arg) > 64 || !strchr("PTKCSptkcs:", arg[0]))
        return cli_usage_error("life",
                               "--boundary is dead, torus, clamp, klein, cross, sphere or a Golly "
                               "grid like ':T64,48', got '%s'",
                               arg);
    snprintf(rule, sizeof rule, "B3/S23%s%s", arg[0] == ':' ? "" : ":", arg);
    if (tdcl_life_rule_parse(rule, &r, &t, &err))
        return cli_usage_error("life", "--boundary '%s': %s", arg, strstr(err.msg, ": ") + 2);
    if (t.edges.open_x || t.edges.open_y)
        return cli_usage_error("life",
                               "--boundary '%s': a side of size 0 comes only from a pattern "
                               "file's rule",
                               arg);
    o->life.boundary = t.boundary;
    o->life.edges = t.edges;
    o->width = t.width;
    o->height = t.height;
    return 0;
}

/* Applies one parsed option; 0 or the usage error's exit status. */
static int take_option(int c, const char *arg, const char *name, life_cli *lc)
{
    tdcl_life_job_opts *o = &lc->job;
    int64_t v;
    tdcl_err err = {0};
    switch (c) {
    case 'g':
        /* half of int64: a resumed run adds the file's generation */
        if (cli_parse_i64(arg, 0, INT64_MAX / 2, &o->gens))
            return cli_usage_error("life",
                                   "--gens needs an integer from 0 to %" PRId64 ", got '%s'",
                                   INT64_MAX / 2, arg);
        return 0;
    case 'o':
        o->output = tdcl_path_is_stdout(arg) ? "-" : arg; /* /dev/stdout: as '-' */
        return 0;
    case 'r':
        if (tdcl_life_rule_parse(arg, &o->life.rule, NULL, &err))
            return cli_usage_error("life", "%s%s", err.msg,
                                   err.param == TDCL_PARAM_BOUNDARY ? " (--boundary, --size)" : "");
        o->rule_given = 1;
        return 0;
    case 'b':
        o->boundary_given = 1;
        memset(&o->life.edges, 0, sizeof o->life.edges);
        if (tdcl_life_boundary_parse(arg, &o->life.boundary) == 0) {
            o->life.edges.twist_h =
                o->life.boundary == TDCL_LIFE_KLEIN || o->life.boundary == TDCL_LIFE_CROSS;
            o->life.edges.twist_v = o->life.boundary == TDCL_LIFE_CROSS;
            return 0;
        }
        return take_golly_grid(arg, o);
    case 's':
        if (parse_size(arg, &o->width, &o->height))
            return cli_usage_error("life", "--size needs WxH with positive integers, got '%s'",
                                   arg);
        return 0;
    case 'd':
        if (cli_parse_double(arg, &o->density) || !(o->density >= 0 && o->density <= 1))
            return cli_usage_error("life", "--density needs a number from 0 to 1, got '%s'", arg);
        return 0;
    case OPT_SEED:
        if (cli_parse_i64(arg, 0, INT64_MAX, &v))
            return cli_usage_error("life", "--seed needs an integer >= 0, got '%s'", arg);
        o->seed = (uint64_t)v;
        return 0;
    case OPT_EVERY:
        if (cli_parse_i64(arg, 1, INT64_MAX / 2, &o->every))
            return cli_usage_error("life",
                                   "--every needs an integer from 1 to %" PRId64 ", got '%s'",
                                   INT64_MAX / 2, arg);
        return 0;
    case OPT_FRAMES:
        o->frames_dir = arg;
        return 0;
    case OPT_GIF:
        o->gif_path = arg;
        return 0;
    case OPT_SCALE:
        if (cli_parse_i64(arg, 1, 64, &v))
            return cli_usage_error("life", "--scale needs an integer from 1 to 64, got '%s'", arg);
        o->scale = (int)v;
        return 0;
    case OPT_KERNEL:
        if (strcasecmp(arg, "bits") == 0)
            o->life.kernel = TDCL_LIFE_KERNEL_BITS;
        else if (strcasecmp(arg, "bytes") == 0)
            o->life.kernel = TDCL_LIFE_KERNEL_BYTES;
        else if (strcasecmp(arg, "auto") != 0)
            return cli_usage_error("life", "--kernel is bits or bytes, got '%s'", arg);
        return 0;
    case OPT_TILE:
        if (cli_parse_i64(arg, 1, 4096, &v))
            return cli_usage_error("life", "--tile needs an integer from 1 to 4096, got '%s'", arg);
        o->life.tile = (int)v;
        return 0;
    case OPT_DEPTH:
        if (cli_parse_i64(arg, 1, 64, &v))
            return cli_usage_error("life", "--depth needs an integer from 1 to 64, got '%s'", arg);
        o->life.depth = (int)v;
        return 0;
    case OPT_WORD_BITS:
        if (cli_parse_i64(arg, 32, 64, &v) || (v != 32 && v != 64))
            return cli_usage_error("life", "--word-bits is 32 or 64, got '%s'", arg);
        o->life.word_bits = (int)v;
        return 0;
    case OPT_MAX_BYTES:
        if (cli_parse_i64(arg, 1, INT64_MAX, &v))
            return cli_usage_error("life", "--max-bytes needs a byte count, got '%s'", arg);
        o->max_bytes = (uint64_t)v;
        return 0;
    case OPT_SPARSE:
        if (strcasecmp(arg, "on") == 0)
            o->life.sparse = TDCL_LIFE_SPARSE_ON;
        else if (strcasecmp(arg, "off") == 0)
            o->life.sparse = TDCL_LIFE_SPARSE_OFF;
        else if (strcasecmp(arg, "auto") == 0)
            o->life.sparse = TDCL_LIFE_SPARSE_AUTO;
        else
            return cli_usage_error("life", "--sparse is auto, on or off, got '%s'", arg);
        return 0;
    case OPT_PLANE:
        if (strcasecmp(arg, "tiles") == 0)
            o->plane = TDCL_LIFE_PLANE_TILES;
        else if (strcasecmp(arg, "dense") == 0)
            o->plane = TDCL_LIFE_PLANE_DENSE;
        else if (strcasecmp(arg, "auto") == 0)
            o->plane = TDCL_LIFE_PLANE_AUTO;
        else
            return cli_usage_error("life", "--plane is auto, tiles or dense, got '%s'", arg);
        return 0;
    case OPT_WINDOW: {
        char tail;
        long long x, y, w, h;
        if (sscanf(arg, "%lld,%lld,%lld,%lld%c", &x, &y, &w, &h, &tail) != 4 || w < 1 || h < 1 ||
            w > 65536 || h > 65536)
            return cli_usage_error(
                "life", "--window needs X,Y,W,H (W and H from 1 to 65536), got '%s'", arg);
        o->window_given = 1;
        o->window_x = x, o->window_y = y, o->window_w = w, o->window_h = h;
        return 0;
    }
    case OPT_HALO:
        if (cli_parse_i64(arg, 1, 1 << 20, &v))
            return cli_usage_error("life", "--halo needs an integer >= 1, got '%s'", arg);
        lc->halo = (int)v;
        return 0;
    default:
        return cli_usage_error("life", "unknown option '%s'", name);
    }
}

/* Parses argv into lc; returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, life_cli *lc)
{
    static const struct option longopts[] = {{"gens", required_argument, NULL, 'g'},
                                             {"output", required_argument, NULL, 'o'},
                                             {"rule", required_argument, NULL, 'r'},
                                             {"boundary", required_argument, NULL, 'b'},
                                             {"size", required_argument, NULL, 's'},
                                             {"density", required_argument, NULL, 'd'},
                                             {"seed", required_argument, NULL, OPT_SEED},
                                             {"every", required_argument, NULL, OPT_EVERY},
                                             {"frames", required_argument, NULL, OPT_FRAMES},
                                             {"gif", required_argument, NULL, OPT_GIF},
                                             {"scale", required_argument, NULL, OPT_SCALE},
                                             {"kernel", required_argument, NULL, OPT_KERNEL},
                                             {"tile", required_argument, NULL, OPT_TILE},
                                             {"depth", required_argument, NULL, OPT_DEPTH},
                                             {"word-bits", required_argument, NULL, OPT_WORD_BITS},
                                             {"max-bytes", required_argument, NULL, OPT_MAX_BYTES},
                                             {"halo", required_argument, NULL, OPT_HALO},
                                             {"sparse", required_argument, NULL, OPT_SPARSE},
                                             {"plane", required_argument, NULL, OPT_PLANE},
                                             {"window", required_argument, NULL, OPT_WINDOW},
                                             {"help", no_argument, NULL, 'h'},
                                             {0, 0, 0, 0}};
    int c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "g:o:r:b:s:d:h", longopts, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return 0;
        }
        if (c == '?') { /* optopt: 0 for an unknown long option, else the one missing a value */
            const char *bad = argv[optind - 1];
            int known = optopt > 255 || (optopt && strchr("gorbsd", optopt));
            if (known) return cli_usage_error("life", "option '%s' needs a value", bad);
            return cli_usage_error("life", "unknown option '%s'", bad);
        }
        int rc = take_option(c, optarg, argv[optind - 1], lc);
        if (rc) return rc;
    }
    if (optind < argc) lc->job.input = argv[optind++];
    if (optind < argc) return cli_usage_error("life", "unexpected argument '%s'", argv[optind]);
    if (lc->job.frames_dir && !lc->job.every)
        return cli_usage_error("life", "--frames needs --every K");
    int wb = lc->job.life.word_bits ? lc->job.life.word_bits : 64;
    if (lc->job.life.kernel != TDCL_LIFE_KERNEL_BYTES && lc->job.life.depth > wb)
        return cli_usage_error("life",
                               "--depth %d is more than the %d cells of a word (--word-bits)",
                               lc->job.life.depth, wb);
    if (lc->job.output && tdcl_path_has_ext(lc->job.output, ".gif"))
        return cli_usage_error("life",
                               "'%s': an animated GIF of the run is --gif FILE; -o takes .rle, "
                               ".cells, .mtx, .npy, .pbm or .png",
                               lc->job.output);
    if (lc->job.output && !tdcl_life_path_known(lc->job.output) &&
        !tdcl_path_is_stream(lc->job.output))
        return cli_usage_error("life",
                               "'%s': unknown output format (use .rle, .cells, .mtx, .npy, .pbm "
                               "or .png)",
                               lc->job.output);
    return -1;
}

/* A bar on a terminal's stderr, redrawn in place. */
static void progress_bar(int64_t done, int64_t total, double elapsed_ms, void *user)
{
    (void)user;
    int width = 30, fill = (int)((double)width * (double)done / (double)total);
    fprintf(stderr, "\r[%.*s%*s] %3d%%  generation %" PRId64 " of %" PRId64 "  %.1f s", fill,
            "##############################", width - fill, "",
            (int)(100.0 * (double)done / (double)total), done, total, elapsed_ms / 1000);
    fflush(stderr);
}

/* The tile plane's box can be 2^40 cells wide: its rates are of the
 * tiles computed and of generations, never of the box. */
static void plane_line(FILE *fp, const tdcl_life_summary *s)
{
    char rule[24];
    double sec = s->wall_ms / 1000;
    fprintf(fp,
            "%" PRId64 " generations on the tile plane (%s): population %" PRId64 " %s %" PRId64
            " x %" PRId64 " %s, %" PRId64 " tile%s of 64x64 (at most %" PRId64
            "), %.3f ms on the host, %.3g generations/s, %.3g cell updates/s of the tiles "
            "computed\n",
            s->generations, tdcl_life_rule_format(&s->rule, rule, sizeof rule), s->population,
            s->open_x ? "in a" : "on a", s->cols, s->rows,
            s->open_x ? "box" : "grid with a dead edge", s->tiles, s->tiles == 1 ? "" : "s",
            s->peak_tiles, s->wall_ms, sec > 0 ? (double)s->generations / sec : 0.0,
            sec > 0 ? s->computed / sec : 0.0);
}

static void closing_line(FILE *fp, const tdcl_life_summary *s)
{
    char rule[24], where[48];
    if (s->peak_tiles > 0) {
        plane_line(fp, s);
        return;
    }
    /* a grid that grew with its pattern has no dead edge to name */
    if (s->open_x && s->open_y)
        snprintf(where, sizeof where, "plane");
    else if (s->open_x || s->open_y)
        snprintf(where, sizeof where, "%s, unbounded %s", tdcl_life_boundary_name(s->boundary),
                 s->open_x ? "left and right" : "up and down");
    else
        snprintf(where, sizeof where, "%s", tdcl_life_boundary_name(s->boundary));
    double cells = (double)s->rows * (double)s->cols * (double)s->generations;
    double ms = s->kernel_ms > 0 ? s->kernel_ms : s->wall_ms;
    fprintf(fp,
            "%" PRId64 " generations of %" PRId64 " x %" PRId64 " (%s, %s): population %" PRId64
            ", %.3f ms on the %s, %.3g cell updates/s\n",
            s->generations, s->cols, s->rows, tdcl_life_rule_format(&s->rule, rule, sizeof rule),
            where, s->population, s->kernel_ms,
            s->host_timed ? "host (the device's timer is unusable)" : "device",
            ms > 0 ? cells / (ms / 1000) : 0.0);
    if (s->computed > 0 && ms > 0)
        fprintf(fp,
                "tiles skipped: %.3g cell updates computed (%.2g%% of the grid's), %.3g cell "
                "updates/s of the tiles computed\n",
                s->computed, 100 * s->computed / (cells > 0 ? cells : 1),
                s->computed / (ms / 1000));
}

/* The terminal summary: the closing line and, for small grids, the grid. */
static void print_summary(const tdcl_life_summary *s, const tdcl_matrix *g)
{
    closing_line(stdout, s);
    /* a preview that fits the terminal: the whole grid if it does, else
     * its top-left corner */
    int64_t w = cli_term_cols() - 1, h = 50;
    if (g->cols <= 4 * w && g->rows <= 4 * h) {
        const uint8_t *c = g->data;
        int64_t cw = g->cols < w ? g->cols : w, ch = g->rows < h ? g->rows : h;
        for (int64_t y = 0; y < ch; y++) {
            for (int64_t x = 0; x < cw; x++)
                putchar(c[y * g->cols + x] ? 'O' : '.');
            putchar('\n');
        }
        if (cw < g->cols || ch < g->rows)
            printf("(the top-left %" PRId64 "x%" PRId64 " of %" PRId64 "x%" PRId64
                   " cells; use -o FILE to save the grid, or redirect stdout for RLE)\n",
                   cw, ch, g->cols, g->rows);
    } else {
        printf("(use -o FILE to save the grid, or redirect stdout for RLE)\n");
    }
}

int cmd_life(int argc, char **argv, const cli_globals *g)
{
    life_cli lc;
    memset(&lc, 0, sizeof lc);
    lc.job.gens = 200;
    lc.job.life = tdcl_life_opts_default();
    lc.job.density = 0.25;
    lc.job.seed = 1;
    lc.job.scale = 1;
    int rc = parse_args(argc, argv, &lc);
    if (rc >= 0) return rc;
    if (!lc.job.output) {
        if (isatty(STDOUT_FILENO))
            lc.summary = 1;
        else
            lc.job.output = "-";
    }
    int tty_err = isatty(STDERR_FILENO);
    if (tty_err && !g->quiet) {
        lc.job.progress = progress_bar;
        tdcl_signal_note("\r\033[K"); /* Ctrl-C: the bar goes, the prompt starts clean */
    }
    tdcl_err err = {0};
    tdcl_matrix final = {0};
    tdcl_life_summary sum = {0};
    tdcl_status st;
    int ranks = g->exec->kind == TDCL_EXEC_RANKS;
    if (ranks) { /* one of several MPI ranks: rank 0 writes and reports */
        lc.summary = 0;
        lc.job.progress = NULL;
    }
    st = tdcl_life_exec_job(g->exec, lc.halo, &lc.job, &sum, lc.summary ? &final : NULL, &err);
    if (ranks && st && !err.msg[0]) return tdcl_exit_code(st); /* another rank reported it */
    if (ranks && (st || tdcl_mpi_rank() != 0)) return st ? cli_report(&err) : 0;
    if (lc.job.progress) fprintf(stderr, "\r\033[K");
    tdcl_signal_note(NULL);
    if (st == TDCL_OK) {
        if (lc.summary)
            print_summary(&sum, &final);
        else if (g->verbose || (tty_err && !g->quiet))
            closing_line(stderr, &sum);
    }
    tdcl_matrix_free(&final);
    return st == TDCL_OK ? 0 : cli_report(&err);
}
