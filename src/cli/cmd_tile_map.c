/* tiledcl tile-map: the global, tile and local indices of a tiled launch,
 * as grids (tiles told apart by rules, and by colour on a terminal) or
 * JSON. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "base/spec.h"
#include "ops/tile_avg/tile_avg.h"

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: tiledcl tile-map RxC --tile TxU [--json] [--color WHEN]\n"
            "\n"
            "Shows how a launch is tiled: one work-item per element of an R x C matrix,\n"
            "in work-groups of T x U work-items, one per tile (the global size rounded\n"
            "up to whole tiles; items past the matrix do nothing). Each work-item\n"
            "records its global index (get_global_id), its tile (get_group_id) and its\n"
            "place in the tile (get_local_id), as (row, col): dimension 1 counts rows,\n"
            "dimension 0 columns, as in every tiledcl kernel. The indices are checked\n"
            "against row / T, row %% T, col / U, col %% U before they are shown.\n"
            "\n"
            "  --tile TxU    tile rows x columns ('T' alone: T x T); T x U work-items\n"
            "                must fit the device's work-group (required)\n"
            "  --json        one JSON object instead of grids\n"
            "  --color WHEN  colour tiles apart: auto (default: on a terminal), always,\n"
            "                never\n"
            "  -h, --help    this help\n"
            "\n"
            "At most %d cells.\n"
            "\n"
            "example (an 8x9 matrix in 2x3 tiles: 4 x 3 tiles):\n"
            "  tiledcl tile-map 8x9 --tile 2x3\n"
            "\n"
            "exit status: 0 success, 1 bad sizes, a tile larger than a work-group may\n"
            "be, or an index that differs, 2 usage error, 3 no usable device or OpenCL\n"
            "failure\n",
            TDCL_TA_MAP_MAX_CELLS);
}

typedef struct map_opts {
    int64_t rows, cols, t, u;
    int json;
    int color; /* -1 auto, 0 never, 1 always */
} map_opts;

/* Parses "AxB" (or "A" when square is set, meaning A x A). 0 on success. */
static int parse_pair(const char *s, int square, int64_t *a, int64_t *b)
{
    return tdcl_spec_pair(s, square ? TDCL_SPEC_SQUARE : 0, INT32_MAX, a, b);
}

enum { OPT_TILE = 256, OPT_JSON, OPT_COLOR };

/* Fills o from argv; returns -1 to go on, else the exit status. */
static int parse(int argc, char **argv, map_opts *o)
{
    static const struct option longopts[] = {{"tile", required_argument, NULL, OPT_TILE},
                                             {"json", no_argument, NULL, OPT_JSON},
                                             {"color", required_argument, NULL, OPT_COLOR},
                                             {"help", no_argument, NULL, 'h'},
                                             {0, 0, 0, 0}};
    int c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_TILE:
            if (parse_pair(optarg, 1, &o->t, &o->u))
                return cli_usage_error("tile-map", "expected --tile T or TxU, got '%s'", optarg);
            break;
        case OPT_JSON:
            o->json = 1;
            break;
        case OPT_COLOR:
            if (strcmp(optarg, "auto") == 0)
                o->color = -1;
            else if (strcmp(optarg, "always") == 0)
                o->color = 1;
            else if (strcmp(optarg, "never") == 0)
                o->color = 0;
            else
                return cli_usage_error("tile-map",
                                       "expected --color auto, always or never, got '%s'", optarg);
            break;
        case 'h':
            usage(stdout);
            return 0;
        case ':':
            return cli_usage_error("tile-map", "option '%s' needs a value", argv[optind - 1]);
        default:
            return cli_usage_error("tile-map", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) return cli_usage_error("tile-map", "expected the matrix size RxC");
    if (optind + 1 < argc)
        return cli_usage_error("tile-map", "unexpected argument '%s'", argv[optind + 1]);
    if (parse_pair(argv[optind], 0, &o->rows, &o->cols))
        return cli_usage_error("tile-map", "expected the matrix size as RxC, got '%s'",
                               argv[optind]);
    if (!o->t) return cli_usage_error("tile-map", "expected --tile T or TxU");
    return -1;
}

static const int32_t *cell(const tdcl_ta_map *m, int64_t i, int64_t j)
{
    return m->cells + ((size_t)i * (size_t)m->cols + (size_t)j) * 6;
}

static void print_json(const tdcl_ta_map *m)
{
    printf("{\"rows\": %lld, \"cols\": %lld, \"tile\": [%lld, %lld], \"tiles\": [%lld, %lld], "
           "\"cells\": [",
           (long long)m->rows, (long long)m->cols, (long long)m->tile_rows, (long long)m->tile_cols,
           (long long)((m->rows + m->tile_rows - 1) / m->tile_rows),
           (long long)((m->cols + m->tile_cols - 1) / m->tile_cols));
    for (int64_t i = 0; i < m->rows; i++) {
        printf("%s\n  [", i ? "," : "");
        for (int64_t j = 0; j < m->cols; j++) {
            const int32_t *c = cell(m, i, j);
            printf("%s{\"global\": [%d, %d], \"tile\": [%d, %d], \"local\": [%d, %d]}",
                   j ? ", " : "", c[0], c[1], c[2], c[3], c[4], c[5]);
        }
        printf("]");
    }
    printf("\n]}\n");
}

static int digits(int64_t v)
{
    int d = 1;
    while (v >= 10)
        v /= 10, d++;
    return d;
}

/* One grid: index pair `which` (0 global, 1 tile, 2 local) of every cell,
 * '|' and '-' between tiles, tiles shaded alternately when colour is on. */
static void print_grid(const tdcl_ta_map *m, int which, int color)
{
    int w = digits(m->rows - 1) + digits(m->cols - 1) + 1;
    for (int64_t i = 0; i < m->rows; i++) {
        if (i && i % m->tile_rows == 0) {
            for (int64_t j = 0; j < m->cols; j++)
                printf("%s%.*s", j && j % m->tile_cols == 0 ? "-+" : "", w + 1,
                       "----------------------------------------");
            printf("\n");
        }
        for (int64_t j = 0; j < m->cols; j++) {
            const int32_t *c = cell(m, i, j);
            char txt[48];
            snprintf(txt, sizeof txt, "%d,%d", c[2 * which], c[2 * which + 1]);
            if (j && j % m->tile_cols == 0) printf(" |");
            if (color) printf("\033[%dm", (c[2] + c[3]) % 2 ? 46 : 43);
            printf(" %*s", w, txt);
            if (color) printf("\033[0m");
        }
        printf("\n");
    }
}

static void print_text(const tdcl_ta_map *m, int color)
{
    static const char *titles[3] = {"global (row,col) = get_global_id(1), get_global_id(0)",
                                    "tile (row,col) = get_group_id(1), get_group_id(0)",
                                    "local (row,col) = get_local_id(1), get_local_id(0)"};
    printf("%lldx%lld matrix in %lldx%lld tiles: %lldx%lld work-groups of %lldx%lld items\n",
           (long long)m->rows, (long long)m->cols, (long long)m->tile_rows, (long long)m->tile_cols,
           (long long)((m->rows + m->tile_rows - 1) / m->tile_rows),
           (long long)((m->cols + m->tile_cols - 1) / m->tile_cols), (long long)m->tile_rows,
           (long long)m->tile_cols);
    for (int k = 0; k < 3; k++) {
        printf("\n%s\n", titles[k]);
        print_grid(m, k, color);
    }
}

int cmd_tile_map(int argc, char **argv, const cli_globals *g)
{
    map_opts o = {.color = -1};
    int rc = parse(argc, argv, &o);
    if (rc >= 0) return rc;
    tdcl_err err = {0};
    tdcl_ctx *ctx = NULL;
    tdcl_ta_map m = {0};
    tdcl_status st = cli_device(g, &ctx, &err);
    if (st == TDCL_OK) st = tdcl_ta_map_run(ctx, o.rows, o.cols, o.t, o.u, &m, &err);
    if (st == TDCL_OK) {
        const char *term = getenv("TERM");
        int color =
            o.color >= 0 ? o.color : isatty(STDOUT_FILENO) && term && strcmp(term, "dumb") != 0;
        if (o.json)
            print_json(&m);
        else
            print_text(&m, color);
    }
    tdcl_ta_map_free(&m);
    return st ? cli_report(&err) : 0;
}
