/* Life pattern files: RLE and .cells parsers and writers, the dispatch to
 * matio.h and image.h by extension or content. Animated GIFs are io/gif.c. */
#include "io/life_io.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "base/fileio.h"
#include "io/image.h"
#include "io/matio.h"
#include "io/mtx.h"
#include "io/sparse_io.h"
#include "base/mem.h"

int64_t tdcl_life_population(const tdcl_matrix *grid)
{
    const uint8_t *c = grid->data;
    size_t n = tdcl_matrix_count(grid);
    int64_t pop = 0;
    for (size_t k = 0; k < n; k++)
        pop += c[k] != 0;
    return pop;
}

/* Shows one input character in a message: 'x' or '\xNN'. */
static const char *show_char(int c, char buf[16])
{
    if (c == EOF || c == '\0')
        snprintf(buf, 16, "end of file");
    else if (isprint(c))
        snprintf(buf, 16, "'%c'", c);
    else
        snprintf(buf, 16, "'\\x%02x'", (unsigned)c & 0xff);
    return buf;
}

/* Copies the line at p (up to 40 characters) for quoting in messages. */
static const char *show_line(const char *p, char buf[48])
{
    size_t n = 0;
    while (p[n] && p[n] != '\n' && p[n] != '\r' && n < 40)
        n++;
    memcpy(buf, p, n);
    strcpy(buf + n, p[n] && p[n] != '\n' && p[n] != '\r' ? "..." : "");
    return buf;
}

/* Allocates a rows x cols grid after checking it against max_cells. */
static tdcl_status alloc_grid(const char *name, int64_t rows, int64_t cols, int64_t max_cells,
                              tdcl_matrix *g, tdcl_err *err)
{
    if (rows < 1 || cols < 1)
        return tdcl_fail(err, TDCL_EPARSE, "%s: the grid is empty (%" PRId64 " x %" PRId64 ")",
                         name, cols, rows);
    if (rows > INT64_MAX / cols || (max_cells > 0 && rows * cols > max_cells))
        return tdcl_fail(err, TDCL_ELIMIT,
                         "%s: a grid of %" PRId64 " x %" PRId64 " cells is larger than the limit "
                         "of %" PRId64 " cells",
                         name, cols, rows, max_cells);
    return tdcl_matrix_alloc(g, rows, cols, 1, TDCL_U8, err);
}

/* ---- RLE ---------------------------------------------------------------- */

typedef struct rle_header {
    int64_t x, y;
    int has_pos;
    int64_t pos_x, pos_y;
    int clamp; /* "#C tiledcl boundary=clamp" */
} rle_header;

/* tiledcl's clamp boundary has no Golly suffix: this comment carries it. */
static const char clamp_comment[] = "#C tiledcl boundary=clamp";

/* Skips spaces and tabs. */
static const char *skip_blank(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* Reads an optionally signed decimal number; NULL on none or overflow. */
static const char *read_num(const char *p, int64_t *v)
{
    const char *q = p;
    if (*q == '-' || *q == '+') q++;
    if (!isdigit((unsigned char)*q)) return NULL;
    errno = 0;
    char *end;
    long long x = strtoll(p, &end, 10);
    if (errno) return NULL;
    *v = x;
    return end;
}

/* 1 if p holds digits that read_num refused: a number past int64. */
static int num_too_big(const char *p)
{
    if (*p == '-' || *p == '+') p++;
    return isdigit((unsigned char)*p);
}

/* "#CXRLE Pos=-3,-5 Gen=10": Golly's extended RLE line. Pos takes any int64,
 * as the writer writes it (a deep .mc pattern lies near 2^62). A malformed
 * item is skipped as Golly skips it; a number past int64 is refused, since
 * dropping it would run the pattern somewhere else without a word. */
static tdcl_status parse_cxrle(const char *name, long line, const char *p, rle_header *h,
                               int64_t *gen, tdcl_err *err)
{
    char quote[48];
    for (; *p && *p != '\n'; p++) {
        int pos = strncmp(p, "Pos=", 4) == 0;
        if (!pos && strncmp(p, "Gen=", 4) != 0) continue;
        int64_t v[2];
        int n = 0;
        const char *q = p + 4;
        for (; n < 1 + pos; n++) {
            const char *e = read_num(q, &v[n]);
            if (!e) {
                if (num_too_big(q))
                    return tdcl_fail(err, TDCL_ERANGE,
                                     "%s:%ld: expected a 64-bit integer after '%.4s', got '%s'",
                                     name, line, p, show_line(q, quote));
                break;
            }
            q = e;
            if (pos && n == 0) {
                if (*q != ',') break;
                q++;
            }
        }
        if (pos && n == 2) {
            h->has_pos = 1;
            h->pos_x = v[0];
            h->pos_y = v[1];
        } else if (!pos && n == 1 && v[0] >= 0) {
            *gen = v[0];
        }
    }
    return TDCL_OK;
}

/* 1 if p is at ", key =" (another header item). */
static int next_key(const char *p)
{
    if (*p != ',') return 0;
    p = skip_blank(p + 1);
    if (!isalpha((unsigned char)*p)) return 0;
    while (isalpha((unsigned char)*p))
        p++;
    return *skip_blank(p) == '=';
}

/* Parses "x = W, y = H[, rule = R]" at p (one line). */
static tdcl_status parse_header(const char *name, long line, const char *p, rle_header *h,
                                tdcl_life_pattern *out, tdcl_err *err)
{
    char quote[48];
    const char *start = p;
    int seen_x = 0, seen_y = 0;
    while (*p && *p != '\n' && *p != '\r') {
        p = skip_blank(p);
        char key[8] = "";
        size_t k = 0;
        while (isalpha((unsigned char)*p) && k < sizeof key - 1)
            key[k++] = (char)tolower((unsigned char)*p++);
        key[k] = '\0';
        p = skip_blank(p);
        if (!k || *p != '=') goto bad;
        p = skip_blank(p + 1);
        if (strcmp(key, "x") == 0 || strcmp(key, "y") == 0) {
            int64_t v;
            const char *q = read_num(p, &v);
            if (!q || v < 0)
                return tdcl_fail(err, TDCL_EPARSE,
                                 "%s:%ld: expected a size >= 0 after '%s =', got '%s'", name, line,
                                 key, show_line(p, quote));
            *(key[0] == 'x' ? &h->x : &h->y) = v;
            *(key[0] == 'x' ? &seen_x : &seen_y) = 1;
            p = q;
        } else if (strcmp(key, "rule") == 0) {
            char rule[96];
            size_t n = 0;
            /* to the end of the line or the next "key =": a bounded grid's
             * size ("B3/S23:T64,48") has a comma of its own */
            while (*p && *p != '\n' && *p != '\r' && n < sizeof rule - 1 && !next_key(p))
                rule[n++] = *p++;
            while (n && (rule[n - 1] == ' ' || rule[n - 1] == '\t'))
                n--;
            rule[n] = '\0';
            tdcl_err e = {0}; /* err may be NULL */
            tdcl_status st = tdcl_life_rule_parse(rule, &out->rule, &out->topo, &e);
            if (st) return tdcl_fail(err, st, "%s:%ld: %s", name, line, e.msg);
            out->has_rule = 1;
        } else {
            /* other keys are ignored, as Golly does */
            while (*p && *p != ',' && *p != '\n')
                p++;
        }
        p = skip_blank(p);
        if (*p == ',')
            p++;
        else if (*p && *p != '\n' && *p != '\r')
            goto bad;
    }
    if (seen_x && seen_y) return TDCL_OK;
bad:
    return tdcl_fail(err, TDCL_EPARSE,
                     "%s:%ld: expected the header 'x = W, y = H, rule = R', got '%s'", name, line,
                     show_line(start, quote));
}

/* The pattern's place (px, py) less the grid's top-left into (*ox, *oy),
 * both computed; 1 when either overflows int64. */
static int place_overflows(int64_t px, int64_t py, const tdcl_life_pattern *out, int64_t *ox,
                           int64_t *oy)
{
    int over_x = __builtin_sub_overflow(px, out->x0, ox);
    int over_y = __builtin_sub_overflow(py, out->y0, oy);
    return over_x || over_y;
}

/* Sizes the grid from the header (and bounded grid) and finds where the
 * pattern's top-left cell goes and where the grid lies on Golly's plane. */
static tdcl_status rle_layout(const char *name, long line, const rle_header *h,
                              tdcl_life_pattern *out, int64_t max_cells, int shape_only,
                              int64_t *ox, int64_t *oy, tdcl_err *err)
{
    int64_t w = h->x, hh = h->y;
    *ox = *oy = 0;
    if (h->clamp && !out->topo.present) {
        out->topo.present = 1;
        out->topo.boundary = TDCL_LIFE_CLAMP;
        out->topo.width = h->x;
        out->topo.height = h->y;
    }
    /* Golly: without Pos, the pattern's top-left is at 0,0 on an unbounded
     * plane, and the pattern is centred (top-left -x/2,-y/2) in a bounded
     * grid, whose own top-left cell is -W/2,-H/2. */
    int64_t px = h->has_pos ? h->pos_x : 0, py = h->has_pos ? h->pos_y : 0;
    int outside = 0;
    out->x0 = px;
    out->y0 = py;
    if (out->topo.present && out->topo.boundary == TDCL_LIFE_CLAMP) {
        w = out->topo.width;
        hh = out->topo.height;
        out->x0 = -(w / 2);
        out->y0 = -(hh / 2);
        *ox = (w - h->x) / 2;
        *oy = (hh - h->y) / 2;
        if (h->has_pos) outside = place_overflows(px, py, out, ox, oy);
    } else if (out->topo.present) {
        if (!h->has_pos) {
            px = -(h->x / 2);
            py = -(h->y / 2);
        }
        w = out->topo.width ? out->topo.width : h->x;
        hh = out->topo.height ? out->topo.height : h->y;
        out->x0 = out->topo.width ? -(w / 2) : px;
        out->y0 = out->topo.height ? -(hh / 2) : py;
        outside = place_overflows(px, py, out, ox, oy);
    }
    if (out->topo.present) {
        /* a place too far for int64 arithmetic is outside any bounded grid */
        if (outside || *ox < 0 || *oy < 0 || *ox > w - h->x || *oy > hh - h->y)
            return tdcl_fail(err, TDCL_EPARSE,
                             "%s:%ld: the pattern (%" PRId64 " x %" PRId64 " at %" PRId64
                             ",%" PRId64 ") does not fit in its bounded grid of %" PRId64
                             " x %" PRId64,
                             name, line, h->x, h->y, outside ? px : *ox + out->x0,
                             outside ? py : *oy + out->y0, w, hh);
        if (w == 0 || hh == 0) w = hh = 1; /* an empty pattern on an open side */
    } else if (w == 0 || hh == 0) {
        w = hh = 1; /* Golly writes an empty plane as "x = 0, y = 0" */
    }
    /* on the plane, the far cell needs a place too */
    if ((h->x > 0 && out->x0 > INT64_MAX - (h->x - 1)) ||
        (h->y > 0 && out->y0 > INT64_MAX - (h->y - 1)))
        return tdcl_fail(err, TDCL_ERANGE,
                         "%s:%ld: the pattern (%" PRId64 " x %" PRId64 " at %" PRId64 ",%" PRId64
                         ") runs past the edge of the 64-bit plane",
                         name, line, h->x, h->y, px, py);
    if (shape_only) { /* cells listed, not drawn: the box may be any size */
        out->grid.rows = hh;
        out->grid.cols = w;
        return TDCL_OK;
    }
    return alloc_grid(name, hh, w, max_cells, &out->grid, err);
}

typedef struct rle_body {
    const char *name;
    long line;
    int64_t x, y, ox, oy;
    int64_t row, col;
    uint8_t *cells;
    int64_t stride;
    tdcl_life_cells *list; /* non-NULL: live cells appended here at x0, y0, not drawn */
    int64_t x0, y0;
    int64_t max_cells; /* the list's bound (TDCL_LIFE_CELL_BYTES) */
} rle_body;

/* Applies one "<count><tag>" item. */
static tdcl_status rle_item(rle_body *b, int tag, int64_t count, tdcl_err *err)
{
    char cb[16];
    if (tag == '$') {
        b->row += count;
        b->col = 0;
        return TDCL_OK;
    }
    int alive = tag == 'o' || tag == 'A';
    if (!alive && tag != 'b' && tag != '.') {
        if (tag >= 'B' && tag <= 'X')
            return tdcl_fail(err, TDCL_EUNSUPPORTED,
                             "%s:%ld: state '%c' of a multi-state pattern; Life-like rules have "
                             "two states ('b' and 'o')",
                             b->name, b->line, tag);
        return tdcl_fail(err, TDCL_EPARSE, "%s:%ld: expected 'b', 'o', '$' or '!', got %s", b->name,
                         b->line, show_char(tag, cb));
    }
    if (count > b->x - b->col)
        return tdcl_fail(err, TDCL_EPARSE,
                         "%s:%ld: row %" PRId64 " has more than the header's x = %" PRId64 " cells",
                         b->name, b->line, b->row + 1, b->x);
    if (alive) {
        if (b->row >= b->y)
            return tdcl_fail(err, TDCL_EPARSE,
                             "%s:%ld: more than the header's y = %" PRId64 " rows", b->name,
                             b->line, b->y);
        if (!b->list)
            memset(b->cells + (b->oy + b->row) * b->stride + b->ox + b->col, 1, (size_t)count);
        /* one run may claim more cells than memory holds: refused before the list grows */
        tdcl_status room = b->list ? tdcl_life_cells_room(b->name, b->line, b->list,
                                                          (uint64_t)count, b->max_cells, err)
                                   : TDCL_OK;
        if (room) return room;
        for (int64_t i = 0; b->list && i < count; i++) {
            tdcl_status st = tdcl_life_cells_add(b->list, b->x0 + b->col + i, b->y0 + b->row, err);
            if (st) return st;
        }
    }
    b->col += count;
    return TDCL_OK;
}

/* Reads the run-length body from p to '!' (or the end of the text). */
static tdcl_status rle_body_parse(rle_body *b, const char *p, tdcl_err *err)
{
    char cb[16];
    int at_line_start = 1;
    while (*p && *p != '!') {
        int c = (unsigned char)*p;
        if (c == '\n') {
            b->line++;
            at_line_start = 1;
            p++;
            continue;
        }
        if (c == '#' && at_line_start) { /* a comment line inside the body */
            while (*p && *p != '\n')
                p++;
            continue;
        }
        at_line_start = 0;
        if (c == ' ' || c == '\t' || c == '\r') {
            p++;
            continue;
        }
        int64_t count = 1;
        if (isdigit(c)) {
            count = 0;
            for (; isdigit((unsigned char)*p); p++) {
                if (count > (INT64_MAX - 9) / 10)
                    return tdcl_fail(err, TDCL_EPARSE, "%s:%ld: run count too large", b->name,
                                     b->line);
                count = count * 10 + (*p - '0');
            }
            /* Golly carries a count across line breaks to its tag (a blank
             * in between it drops, which is refused here) */
            while (*p == '\r' || *p == '\n') {
                if (*p == '\n') b->line++;
                p++;
            }
            c = (unsigned char)*p;
            if (!isalpha(c) && c != '$' && c != '.')
                return tdcl_fail(err, TDCL_EPARSE,
                                 "%s:%ld: expected 'b', 'o' or '$' after the run count %" PRId64
                                 ", got %s",
                                 b->name, b->line, count, show_char(c, cb));
            if (count == 0)
                return tdcl_fail(err, TDCL_EPARSE, "%s:%ld: expected a run count >= 1, got 0",
                                 b->name, b->line);
        }
        tdcl_status st = rle_item(b, c, count, err);
        if (st) return st;
        p++;
    }
    return TDCL_OK;
}

/* Whether a pattern with this topology is listed rather than drawn: the
 * unbounded plane, and a fixed grid with a dead edge (":P"), whose cells
 * stay where they are put and which the tile plane runs from a list, so
 * its size is not bounded by memory. Other bounded grids are drawn. */
static int listed_grid(const tdcl_life_topology *t, int clamp)
{
    if (clamp) return 0;
    if (!t->present) return 1;
    return t->boundary == TDCL_LIFE_DEAD && t->width > 0 && t->height > 0 && !t->edges.open_x &&
           !t->edges.open_y;
}

/* tdcl_life_rle_parse; with list, a pattern on the unbounded plane or a
 * fixed grid with a dead edge has its live cells appended there and a grid
 * of its box's (or the grid's) shape only. */
static tdcl_status rle_parse(const char *name, const char *buf, int64_t max_cells,
                             tdcl_life_pattern *out, tdcl_life_cells *list, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    rle_header h = {0};
    long line = 1;
    const char *p = buf;
    memset(out, 0, sizeof *out);
    out->rule = tdcl_life_rule_conway();
    /* comment lines and blank lines before the header */
    for (;;) {
        const char *q = skip_blank(p);
        if (*q == '#') {
            if (strncmp(q, "#CXRLE", 6) == 0) {
                st = parse_cxrle(name, line, q + 6, &h, &out->generation, err);
                if (st) return st;
            } else if (q[1] == 'r') { /* a legacy rule line, "#r 23/3" */
                st = tdcl_life_rule_line(name, line, q + 2, 1, out, err);
                if (st) return st;
            } else if (strncmp(q, clamp_comment, sizeof clamp_comment - 1) == 0) {
                h.clamp = 1;
            }
        } else if (!*q) {
            return tdcl_fail(err, TDCL_EPARSE,
                             "%s:%ld: expected the header 'x = W, y = H, rule = R', got end of "
                             "file",
                             name, line);
        } else if (*q != '\n' && *q != '\r') {
            break;
        }
        while (*p && *p != '\n')
            p++;
        if (*p) p++;
        line++;
    }
    TDCL_TRY(parse_header(name, line, p, &h, out, err));
    int64_t ox, oy;
    if (!listed_grid(&out->topo, h.clamp)) list = NULL; /* a bounded grid is drawn */
    TDCL_TRY(rle_layout(name, line, &h, out, max_cells, list != NULL, &ox, &oy, err));
    while (*p && *p != '\n')
        p++;
    /* listed cells are at their plane coordinates: the grid's corner plus
     * the pattern's place in it */
    rle_body b = {name,           line,           h.x,  h.y,          ox,           oy,       0, 0,
                  out->grid.data, out->grid.cols, list, out->x0 + ox, out->y0 + oy, max_cells};
    TDCL_TRY(rle_body_parse(&b, p, err));
out:
    if (st) tdcl_life_pattern_free(out);
    return st;
}

tdcl_status tdcl_life_rle_parse(const char *name, const char *buf, size_t len, int64_t max_cells,
                                tdcl_life_pattern *out, tdcl_err *err)
{
    (void)len;
    return rle_parse(name, buf, max_cells, out, NULL, err);
}

/* ---- plaintext .cells ------------------------------------------------- */

/* The end of the line at p, less trailing blanks and '\r'. */
static const char *cells_line_end(const char *p, const char **next)
{
    const char *e = p;
    while (*e && *e != '\n')
        e++;
    *next = *e ? e + 1 : e;
    while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        e--;
    return e;
}

static int cells_alive(int c)
{
    return c == 'O' || c == 'o' || c == '*';
}

/* First pass: the grid's size and the first bad character. */
static tdcl_status cells_measure(const char *name, const char *buf, int64_t *rows, int64_t *cols,
                                 tdcl_err *err)
{
    char cb[16];
    long line = 1;
    int64_t r = 0, w = 0;
    for (const char *p = buf, *next; *p; p = next, line++) {
        const char *e = cells_line_end(p, &next);
        if (*p == '!') continue;
        for (const char *q = p; q < e; q++)
            if (*q != '.' && !cells_alive(*q))
                return tdcl_fail(err, TDCL_EPARSE, "%s:%ld: expected '.' or 'O', got %s", name,
                                 line, show_char((unsigned char)*q, cb));
        w = e - p > w ? e - p : w;
        r++;
    }
    *rows = r;
    *cols = w;
    return TDCL_OK;
}

/* The live cells of checked .cells text into the list, top-left at 0,0. */
static tdcl_status cells_list(const char *name, const char *buf, int64_t max_cells,
                              tdcl_life_cells *list, tdcl_err *err)
{
    long line = 1;
    int64_t r = 0;
    for (const char *p = buf, *next; *p; p = next, line++) {
        const char *e = cells_line_end(p, &next);
        if (*p == '!') continue;
        for (const char *q = p; q < e; q++) {
            if (!cells_alive(*q)) continue;
            tdcl_status st = tdcl_life_cells_room(name, line, list, 1, max_cells, err);
            if (!st) st = tdcl_life_cells_add(list, q - p, r, err);
            if (st) return st;
        }
        r++;
    }
    return TDCL_OK;
}

/* tdcl_life_cells_parse; with list, the live cells appended there and
 * out->grid only the shape. */
static tdcl_status cells_parse(const char *name, const char *buf, int64_t max_cells,
                               tdcl_life_pattern *out, tdcl_life_cells *list, tdcl_err *err)
{
    int64_t rows = 0, cols = 0;
    memset(out, 0, sizeof *out);
    out->rule = tdcl_life_rule_conway();
    tdcl_status st = cells_measure(name, buf, &rows, &cols, err);
    if (st) return st;
    if (rows == 0 || cols == 0)
        return tdcl_fail(err, TDCL_EPARSE, "%s: no cells (expected rows of '.' and 'O')", name);
    if (list) {
        out->grid.rows = rows;
        out->grid.cols = cols;
        return cells_list(name, buf, max_cells, list, err);
    }
    st = alloc_grid(name, rows, cols, max_cells, &out->grid, err);
    if (st) return st;
    uint8_t *c = out->grid.data;
    int64_t r = 0;
    for (const char *p = buf, *next; *p; p = next) {
        const char *e = cells_line_end(p, &next);
        if (*p == '!') continue;
        for (const char *q = p; q < e; q++)
            c[r * cols + (q - p)] = (uint8_t)cells_alive(*q);
        r++;
    }
    return TDCL_OK;
}

tdcl_status tdcl_life_cells_parse(const char *name, const char *buf, size_t len, int64_t max_cells,
                                  tdcl_life_pattern *out, tdcl_err *err)
{
    (void)len;
    return cells_parse(name, buf, max_cells, out, NULL, err);
}

/* ---- writers ------------------------------------------------------------ */

/* Writes RLE items, wrapping lines at 70 characters between items. */
typedef struct rle_out {
    FILE *fp;
    int col;
} rle_out;

static void rle_emit(rle_out *o, int64_t count, char tag)
{
    /* digits by hand: a large pattern's RLE is tens of millions of items,
     * and snprintf's formatting was most of writing it */
    char item[24], digits[20];
    int n = 0, k = 0;
    for (uint64_t v = count > 1 ? (uint64_t)count : 0; v; v /= 10)
        digits[k++] = (char)('0' + v % 10);
    while (k)
        item[n++] = digits[--k];
    item[n++] = tag;
    if (o->col + n > 70) {
        putc('\n', o->fp);
        o->col = 0;
    }
    fwrite(item, 1, (size_t)n, o->fp);
    o->col += n;
}

/* Emits one row's runs, without its trailing dead cells. */
static void rle_row(rle_out *o, const uint8_t *row, int64_t cols)
{
    int64_t end = cols;
    while (end > 0 && !row[end - 1])
        end--;
    for (int64_t j = 0; j < end;) {
        int64_t k = j;
        while (k < end && (row[k] != 0) == (row[j] != 0))
            k++;
        rle_emit(o, k - j, row[j] ? 'o' : 'b');
        j = k;
    }
}

static int row_empty(const uint8_t *row, int64_t cols)
{
    for (int64_t j = 0; j < cols; j++)
        if (row[j]) return 0;
    return 1;
}

/* The box of the live cells: rows r0..r1, columns c0..c1; 0 if none. */
static int live_box(const tdcl_matrix *grid, int64_t *r0, int64_t *r1, int64_t *c0, int64_t *c1)
{
    const uint8_t *c = grid->data;
    int64_t w = grid->cols, h = grid->rows;
    *r0 = h;
    *r1 = -1;
    *c0 = w;
    *c1 = -1;
    for (int64_t i = 0; i < h; i++)
        for (int64_t j = 0; j < w; j++)
            if (c[i * w + j]) {
                if (i < *r0) *r0 = i;
                *r1 = i;
                if (j < *c0) *c0 = j;
                if (j > *c1) *c1 = j;
            }
    return *r1 >= 0;
}

tdcl_status tdcl_life_rle_write_fp(FILE *fp, const tdcl_matrix *grid, const tdcl_life_write_opts *o,
                                   tdcl_err *err)
{
    char rule[32], suffix[80];
    tdcl_life_rule_format(&o->rule, rule, sizeof rule);
    int64_t w = grid->cols, h = grid->rows, r0 = 0, c0 = 0, x0, y0;
    int64_t stride = grid->cols;
    if (o->comment) fprintf(fp, "#C %s\n", o->comment);
    suffix[0] = '\0';
    if (o->unbounded) {
        /* the live cells' box at its place on the plane; Golly's "x = 0, y = 0"
         * for none */
        int64_t r1, c1;
        if (live_box(grid, &r0, &r1, &c0, &c1)) {
            w = c1 - c0 + 1;
            h = r1 - r0 + 1;
        } else {
            w = h = 0;
        }
        /* nothing alive has no place: 0,0, as the tile plane writes it */
        x0 = w ? o->x0 + c0 : 0;
        y0 = w ? o->y0 + r0 : 0;
    } else if (o->boundary == TDCL_LIFE_CLAMP) {
        x0 = -(w / 2);
        y0 = -(h / 2);
        fprintf(fp, "%s (Golly has no clamped grid)\n", clamp_comment);
    } else {
        /* Golly's bounded grid has its top-left cell at -W/2,-H/2; an open side
         * keeps the grid's own place */
        x0 = o->edges.open_x ? o->x0 : -(w / 2);
        y0 = o->edges.open_y ? o->y0 : -(h / 2);
        tdcl_life_topology_format(o->boundary, &o->edges, w, h, suffix, sizeof suffix);
    }
    fprintf(fp, "#CXRLE Pos=%" PRId64 ",%" PRId64 " Gen=%" PRId64 "\n", x0, y0, o->generation);
    fprintf(fp, "x = %" PRId64 ", y = %" PRId64 ", rule = %s%s\n", w, h, rule, suffix);
    rle_out out = {fp, 0};
    const uint8_t *c = grid->data;
    int64_t last = -1;
    for (int64_t i = 0; i < h; i++) {
        const uint8_t *row = c + (r0 + i) * stride + c0;
        if (row_empty(row, w)) continue;
        if (last >= 0)
            rle_emit(&out, i - last, '$');
        else if (i > 0)
            rle_emit(&out, i, '$');
        rle_row(&out, row, w);
        last = i;
    }
    rle_emit(&out, 1, '!');
    fputc('\n', fp);
    if (ferror(fp)) return tdcl_fail(err, TDCL_EIO, "write error: %s", strerror(errno));
    return TDCL_OK;
}

static tdcl_status rle_runs(FILE *fp, const tdcl_life_cells *c, int64_t x0, int64_t y0,
                            tdcl_err *err);

/* The live cells as RLE at their place on the plane, from a sorted list
 * (tdcl_life_cells_sort): runs come straight from the list, so no grid of
 * the box is made. */
static tdcl_status rle_write_list(FILE *fp, const tdcl_life_cells *c, const tdcl_life_write_opts *o,
                                  tdcl_err *err)
{
    char rule[32];
    int64_t x0 = 0, y0 = 0, x1 = -1, y1 = -1;
    for (size_t i = 0; i < c->n; i++) {
        int64_t x = c->xy[2 * i];
        if (i == 0 || x < x0) x0 = x;
        if (i == 0 || x > x1) x1 = x;
    }
    if (c->n) y0 = c->xy[1], y1 = c->xy[2 * c->n - 1];
    uint64_t w = c->n ? (uint64_t)x1 - (uint64_t)x0 + 1 : 0,
             h = c->n ? (uint64_t)y1 - (uint64_t)y0 + 1 : 0;
    if (w > INT64_MAX || h > INT64_MAX)
        return tdcl_fail(err, TDCL_ERANGE,
                         "the live cells span more than 2^63 cells, more than RLE's counts hold");
    if (o->comment) fprintf(fp, "#C %s\n", o->comment);
    fprintf(fp, "#CXRLE Pos=%" PRId64 ",%" PRId64 " Gen=%" PRId64 "\n", x0, y0, o->generation);
    fprintf(fp, "x = %" PRIu64 ", y = %" PRIu64 ", rule = %s\n", w, h,
            tdcl_life_rule_format(&o->rule, rule, sizeof rule));
    return rle_runs(fp, c, x0, y0, err);
}

/* A fixed grid's RLE from its sorted cells (grid coordinates), as
 * tdcl_life_rle_write_fp writes the grid: its size, its suffix, Golly's
 * place for it. */
static tdcl_status rle_write_grid_list(FILE *fp, const tdcl_life_cells *c, int64_t rows,
                                       int64_t cols, const tdcl_life_write_opts *o, tdcl_err *err)
{
    char rule[32], suffix[80];
    tdcl_life_topology_format(o->boundary, &o->edges, cols, rows, suffix, sizeof suffix);
    if (o->comment) fprintf(fp, "#C %s\n", o->comment);
    fprintf(fp, "#CXRLE Pos=%" PRId64 ",%" PRId64 " Gen=%" PRId64 "\n", -(cols / 2), -(rows / 2),
            o->generation);
    fprintf(fp, "x = %" PRId64 ", y = %" PRId64 ", rule = %s%s\n", cols, rows,
            tdcl_life_rule_format(&o->rule, rule, sizeof rule), suffix);
    return rle_runs(fp, c, 0, 0, err);
}

tdcl_status tdcl_life_rle_write_grid_cells(const char *path, const tdcl_life_cells *cells,
                                           int64_t rows, int64_t cols,
                                           const tdcl_life_write_opts *o, tdcl_err *err)
{
    tdcl_outfile f;
    tdcl_status st = tdcl_out_open(&f, path, err);
    if (st) return st;
    tdcl_err e = {0};
    st = rle_write_grid_list(f.fp, cells, rows, cols, o, &e);
    if (st) {
        tdcl_fail(err, st, "cannot write '%s': %s", tdcl_path_display(path), e.msg);
        tdcl_out_abort(&f);
        return st;
    }
    return tdcl_out_commit(&f, err);
}

/* The runs of sorted cells from row y0, column x0 (where the box or grid
 * starts), then '!'. */
static tdcl_status rle_runs(FILE *fp, const tdcl_life_cells *c, int64_t x0, int64_t y0,
                            tdcl_err *err)
{
    rle_out out = {fp, 0};
    int64_t row = y0, col = x0; /* where the next item starts */
    for (size_t i = 0; i < c->n;) {
        int64_t x = c->xy[2 * i], y = c->xy[2 * i + 1];
        size_t j = i + 1;
        while (j < c->n && c->xy[2 * j + 1] == y && c->xy[2 * j] == x + (int64_t)(j - i))
            j++;
        if (y != row) {
            rle_emit(&out, (int64_t)((uint64_t)y - (uint64_t)row), '$');
            row = y;
            col = x0;
        }
        if (x != col) rle_emit(&out, (int64_t)((uint64_t)x - (uint64_t)col), 'b');
        rle_emit(&out, (int64_t)(j - i), 'o');
        col = x + (int64_t)(j - i);
        i = j;
    }
    rle_emit(&out, 1, '!');
    fputc('\n', fp);
    if (ferror(fp)) return tdcl_fail(err, TDCL_EIO, "write error: %s", strerror(errno));
    return TDCL_OK;
}

tdcl_status tdcl_life_rle_write_cells(const char *path, const tdcl_life_cells *cells,
                                      const tdcl_life_write_opts *o, tdcl_err *err)
{
    tdcl_outfile f;
    tdcl_status st = tdcl_out_open(&f, path, err);
    if (st) return st;
    tdcl_err e = {0};
    st = rle_write_list(f.fp, cells, o, &e);
    if (st) {
        tdcl_fail(err, st, "cannot write '%s': %s", tdcl_path_display(path), e.msg);
        tdcl_out_abort(&f);
        return st;
    }
    return tdcl_out_commit(&f, err);
}

tdcl_status tdcl_life_cells_write_fp(FILE *fp, const tdcl_matrix *grid,
                                     const tdcl_life_write_opts *o, tdcl_err *err)
{
    char rule[24];
    if (o->comment) fprintf(fp, "!%s\n", o->comment);
    if (o->unbounded)
        fprintf(fp,
                "!generation %" PRId64 ", rule %s, unbounded plane, top-left cell at %" PRId64
                ",%" PRId64 "\n",
                o->generation, tdcl_life_rule_format(&o->rule, rule, sizeof rule), o->x0, o->y0);
    else
        fprintf(fp, "!generation %" PRId64 ", rule %s, boundary %s\n", o->generation,
                tdcl_life_rule_format(&o->rule, rule, sizeof rule),
                tdcl_life_boundary_name(o->boundary));
    const uint8_t *c = grid->data;
    for (int64_t i = 0; i < grid->rows; i++) {
        for (int64_t j = 0; j < grid->cols; j++)
            fputc(c[i * grid->cols + j] ? 'O' : '.', fp);
        fputc('\n', fp);
    }
    if (ferror(fp)) return tdcl_fail(err, TDCL_EIO, "write error: %s", strerror(errno));
    return TDCL_OK;
}

typedef tdcl_status (*text_writer)(FILE *, const tdcl_matrix *, const tdcl_life_write_opts *,
                                   tdcl_err *);

static tdcl_status write_text(const char *path, text_writer fn, const tdcl_matrix *grid,
                              const tdcl_life_write_opts *o, tdcl_err *err)
{
    tdcl_outfile f;
    tdcl_status st = tdcl_out_open(&f, path, err);
    if (st) return st;
    tdcl_err e = {0};
    st = fn(f.fp, grid, o, &e);
    if (st) {
        /* e, not err: formatting err->msg into itself would overlap */
        tdcl_fail(err, st, "cannot write '%s': %s", tdcl_path_display(path), e.msg);
        tdcl_out_abort(&f);
        return st;
    }
    return tdcl_out_commit(&f, err);
}

/* Live cells black on white, scale x scale pixels each. */
static tdcl_status write_png(const char *path, const tdcl_matrix *grid, int scale, tdcl_err *err)
{
    tdcl_matrix img = {0};
    int64_t k = scale > 1 ? scale : 1;
    if (grid->rows > INT64_MAX / k || grid->cols > INT64_MAX / k)
        return tdcl_fail_param(err, TDCL_ELIMIT, TDCL_PARAM_SCALE,
                               "'%s': %d pixels per cell make the image too large", path, scale);
    tdcl_status st = tdcl_matrix_alloc(&img, grid->rows * k, grid->cols * k, 1, TDCL_U8, err);
    if (st) return st;
    const uint8_t *c = grid->data;
    uint8_t *px = img.data;
    for (int64_t y = 0; y < img.rows; y++)
        for (int64_t x = 0; x < img.cols; x++)
            px[y * img.cols + x] = c[(y / k) * grid->cols + x / k] ? 0 : 255;
    st = tdcl_image_write(path, &img, 8, err);
    tdcl_matrix_free(&img);
    return st;
}

int tdcl_life_path_known(const char *path)
{
    static const char *ext[] = {".rle", ".cells", ".mtx", ".npy", ".pbm", ".png"};
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
        if (tdcl_path_has_ext(path, ext[i])) return 1;
    return 0;
}

tdcl_status tdcl_life_write(const char *path, const tdcl_matrix *grid,
                            const tdcl_life_write_opts *o, tdcl_err *err)
{
    if (!path || strcmp(path, "-") == 0 || tdcl_path_has_ext(path, ".rle"))
        return write_text(path, tdcl_life_rle_write_fp, grid, o, err);
    if (tdcl_path_has_ext(path, ".cells"))
        return write_text(path, tdcl_life_cells_write_fp, grid, o, err);
    if (tdcl_path_has_ext(path, ".mtx") || tdcl_path_has_ext(path, ".npy"))
        return tdcl_matrix_write(path, grid, o->comment, err);
    if (tdcl_path_has_ext(path, ".pbm")) return tdcl_image_write(path, grid, 1, err);
    if (tdcl_path_has_ext(path, ".png")) return write_png(path, grid, o->scale, err);
    if (tdcl_path_is_stream(path)) /* /dev/null, a FIFO: as stdout */
        return write_text(path, tdcl_life_rle_write_fp, grid, o, err);
    return tdcl_fail(err, TDCL_EINVAL,
                     "'%s': unknown output format (expected .rle, .cells, .mtx, .npy, .pbm or "
                     ".png)",
                     path);
}

/* ---- reading any format --------------------------------------------- */

/* Cells from a matrix (nonzero alive) or an image (dark alive). */
static tdcl_status grid_from(const tdcl_matrix *m, int maxval, int image, tdcl_matrix *g,
                             tdcl_err *err)
{
    tdcl_status st = tdcl_matrix_alloc(g, m->rows, m->cols, 1, TDCL_U8, err);
    if (st) return st;
    uint8_t *c = g->data;
    size_t n = (size_t)(m->rows * m->cols);
    int colours = m->channels >= 3 ? 3 : 1; /* alpha is not looked at */
    for (size_t k = 0; k < n; k++) {
        if (!image || maxval == 1) {
            c[k] = tdcl_matrix_get_f64(m, k * (size_t)m->channels) != 0;
            continue;
        }
        double sum = 0;
        for (int ch = 0; ch < colours; ch++)
            sum += tdcl_matrix_get_f64(m, k * (size_t)m->channels + (size_t)ch);
        c[k] = sum / colours < (maxval + 1) / 2.0;
    }
    return TDCL_OK;
}

typedef enum { FMT_RLE, FMT_CELLS, FMT_MATRIX, FMT_IMAGE, FMT_LIF, FMT_MC } life_format;

static life_format format_by_ext(const char *path, int *known)
{
    *known = 1;
    if (tdcl_path_has_ext(path, ".rle") || tdcl_path_has_ext(path, ".rle.gz")) return FMT_RLE;
    if (tdcl_path_has_ext(path, ".cells") || tdcl_path_has_ext(path, ".cells.gz")) return FMT_CELLS;
    if (tdcl_path_has_ext(path, ".lif") || tdcl_path_has_ext(path, ".lif.gz") ||
        tdcl_path_has_ext(path, ".life") || tdcl_path_has_ext(path, ".life.gz"))
        return FMT_LIF;
    if (tdcl_path_has_ext(path, ".mc") || tdcl_path_has_ext(path, ".mc.gz")) return FMT_MC;
    if (tdcl_path_has_ext(path, ".mtx") || tdcl_path_has_ext(path, ".mtx.gz") ||
        tdcl_path_has_ext(path, ".npy") || tdcl_path_has_ext(path, ".npz"))
        return FMT_MATRIX;
    if (tdcl_image_path(path)) return FMT_IMAGE;
    *known = 0;
    return FMT_RLE;
}

static life_format format_by_content(const char *buf, size_t len)
{
    int image;
    /* any image: the image reader reads it or names what it is */
    if (tdcl_file_kind((const unsigned char *)buf, len, &image, NULL) && image) return FMT_IMAGE;
    if (len >= 4 && memcmp(buf, "PK\3\4", 4) == 0) return FMT_MATRIX; /* named there */
    if ((len >= 2 && memcmp(buf, "%%", 2) == 0) || (len >= 6 && memcmp(buf, "\x93NUMPY", 6) == 0) ||
        (len >= 2 && (unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b))
        return FMT_MATRIX;
    if (len >= 5 && strncmp(buf, "#Life", 5) == 0) return FMT_LIF;
    if (len >= 10 && strncmp(buf, "[M2]", 4) == 0) return FMT_MC;
    /* RLE: the first line that is not a comment starts with "x" */
    const char *p = buf;
    while (*p == '#' || *p == '\n' || *p == '\r') {
        while (*p && *p != '\n')
            p++;
        if (*p) p++;
    }
    while (*p == ' ' || *p == '\t')
        p++;
    return (*p == 'x' || *p == 'X') ? FMT_RLE : FMT_CELLS;
}

/* A binary format arriving on stdin goes through a temporary file, since
 * matio and image read paths. */
static tdcl_status spill_stdin(const char *buf, size_t len, char **tmp, tdcl_err *err)
{
    const char *dir = getenv("TMPDIR");
    size_t n = strlen(dir && *dir ? dir : "/tmp") + 32;
    *tmp = malloc(n);
    if (!*tmp) return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    snprintf(*tmp, n, "%s/tiledcl-stdin-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(*tmp);
    if (fd < 0) {
        tdcl_fail(err, TDCL_EIO, "cannot create a temporary file for stdin: %s", strerror(errno));
        free(*tmp);
        *tmp = NULL;
        return TDCL_EIO;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, buf + done, len - done);
        if (w <= 0) break;
        done += (size_t)w;
    }
    close(fd);
    if (done < len) {
        unlink(*tmp);
        return tdcl_fail(err, TDCL_EIO, "cannot write a temporary copy of stdin");
    }
    return TDCL_OK;
}

/* An array or image is a fixed grid with a dead edge, not a pattern on an
 * unbounded plane: nothing in it says where the plane would be. */
static void fixed_grid(tdcl_life_pattern *out)
{
    out->topo.present = 1;
    out->topo.boundary = TDCL_LIFE_DEAD;
    out->topo.width = out->grid.cols;
    out->topo.height = out->grid.rows;
    out->x0 = -(out->grid.cols / 2);
    out->y0 = -(out->grid.rows / 2);
}

/* A sparse matrix (coordinate Matrix Market, .npz) straight into the
 * grid, its nonzero entries alive: no dense copy of its values, and the
 * grid's size checked before it is allocated. */
static tdcl_status read_sparse(const char *path, int64_t max_cells, tdcl_life_pattern *out,
                               tdcl_err *err)
{
    tdcl_csr m;
    tdcl_mtx_header h;
    tdcl_err e;
    char what[128];
    /* a Matrix Market header is enough to refuse a grid too large, before
     * the row offsets (4 or 8 bytes a row) are read */
    if (max_cells > 0 && !tdcl_path_has_ext(path, ".npz") &&
        tdcl_mtx_peek_path(path, &h, &e) == TDCL_OK && h.rows > max_cells / h.cols)
        return tdcl_fail(err, TDCL_ELIMIT,
                         "%s: a grid of %" PRId64 " x %" PRId64 " cells is larger than the limit "
                         "of %" PRId64 " cells",
                         tdcl_path_display(path), h.cols, h.rows, max_cells);
    tdcl_status st = tdcl_sparse_read_path(path, 0, &m, err);
    if (st) return st;
    snprintf(what, sizeof what, "a %" PRId64 " x %" PRId64 " grid of cells", m.cols, m.rows);
    if (max_cells > 0 && m.rows > max_cells / m.cols)
        st = tdcl_fail(err, TDCL_ELIMIT,
                       "%s: a grid of %" PRId64 " x %" PRId64 " cells is larger than the limit "
                       "of %" PRId64 " cells",
                       tdcl_path_display(path), m.cols, m.rows, max_cells);
    else if (m.rows > INT64_MAX / m.cols)
        st = tdcl_fail(err, TDCL_ELIMIT, "%s: %s does not fit in memory", tdcl_path_display(path),
                       what);
    else
        st = tdcl_mem_check((uint64_t)(m.rows * m.cols), what, 0, 0, err);
    if (!st) st = tdcl_matrix_alloc(&out->grid, m.rows, m.cols, 1, TDCL_U8, err);
    for (int64_t i = 0; !st && i < m.rows; i++)
        for (int64_t k = tdcl_csr_rp(&m, i); k < tdcl_csr_rp(&m, i + 1); k++)
            if (m.dtype == TDCL_I64 ? tdcl_csr_get_i64(&m, k) != 0 : tdcl_csr_get_f64(&m, k) != 0)
                ((uint8_t *)out->grid.data)[i * m.cols + tdcl_csr_ci(&m, k)] = 1;
    tdcl_csr_free(&m);
    if (!st) fixed_grid(out);
    return st;
}

/* A sparse matrix's nonzero entries as the live cells of its fixed grid,
 * appended to list at their plane coordinates; out->grid only the shape.
 * Memory follows the entries, whatever the grid's size: the CSR arrays
 * (held to max_cells bytes) and the list (TDCL_LIFE_CELL_BYTES). */
static tdcl_status read_sparse_cells(const char *path, int64_t max_cells, tdcl_life_pattern *out,
                                     tdcl_life_cells *list, tdcl_err *err)
{
    tdcl_csr m;
    size_t max_bytes = max_cells > 0 ? (size_t)max_cells : 0;
    tdcl_status st = tdcl_sparse_read_path(path, max_bytes, &m, err);
    if (st) return st;
    uint64_t live = 0;
    for (int64_t k = 0; k < m.nnz; k++)
        live += m.dtype == TDCL_I64 ? tdcl_csr_get_i64(&m, k) != 0 : tdcl_csr_get_f64(&m, k) != 0;
    out->grid.rows = m.rows;
    out->grid.cols = m.cols;
    fixed_grid(out);
    if (max_cells > 0 && live > (uint64_t)max_cells / TDCL_LIFE_CELL_BYTES) {
        char need[32], lim[32];
        st = tdcl_fail(err, TDCL_ELIMIT,
                       "%s: %" PRIu64 " live cells take %s as a list, more than the limit of %s",
                       tdcl_path_display(path), live,
                       tdcl_mem_size(live * TDCL_LIFE_CELL_BYTES, need, sizeof need),
                       tdcl_mem_size((uint64_t)max_cells, lim, sizeof lim));
    }
    if (!st) st = tdcl_life_cells_reserve(list, (size_t)live, err);
    for (int64_t i = 0; !st && i < m.rows; i++)
        for (int64_t k = tdcl_csr_rp(&m, i); !st && k < tdcl_csr_rp(&m, i + 1); k++)
            if (m.dtype == TDCL_I64 ? tdcl_csr_get_i64(&m, k) != 0 : tdcl_csr_get_f64(&m, k) != 0)
                st = tdcl_life_cells_add(list, out->x0 + tdcl_csr_ci(&m, k), out->y0 + i, err);
    tdcl_csr_free(&m);
    return st;
}

static tdcl_status read_binary(const char *path, life_format f, int64_t max_cells,
                               tdcl_life_pattern *out, tdcl_life_cells *list, tdcl_err *err)
{
    if (f == FMT_MATRIX && list && tdcl_sparse_path(path))
        return read_sparse_cells(path, max_cells, out, list, err);
    if (f == FMT_MATRIX && tdcl_sparse_path(path)) return read_sparse(path, max_cells, out, err);
    tdcl_matrix m = {0};
    int maxval = 1;
    size_t max_bytes =
        max_cells > 0 && (uint64_t)max_cells < SIZE_MAX / 8 ? (size_t)max_cells * 8 : 0;
    tdcl_status st = f == FMT_MATRIX ? tdcl_matrix_read(path, max_bytes, &m, err)
                                     : tdcl_image_read(path, &m, &maxval, err);
    if (st) return st;
    if (max_cells > 0 && m.rows * m.cols > max_cells)
        st = tdcl_fail(err, TDCL_ELIMIT,
                       "%s: a grid of %" PRId64 " x %" PRId64 " cells is larger than the limit "
                       "of %" PRId64 " cells",
                       tdcl_path_display(path), m.cols, m.rows, max_cells);
    else
        st = grid_from(&m, maxval, f == FMT_IMAGE, &out->grid, err);
    tdcl_matrix_free(&m);
    if (!st) fixed_grid(out);
    return st;
}

/* Replaces *buf (len bytes of gzip) with its inflated text, NUL after
 * the end. */
static tdcl_status gunzip(const char *name, char **buf, size_t *len, tdcl_err *err)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 32) != Z_OK) return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    size_t cap = *len * 4 + 4096, n = 0;
    char *out = malloc(cap + 1);
    tdcl_status st = TDCL_OK;
    int zr = Z_OK;
    z.next_in = (Bytef *)*buf;
    z.avail_in = (uInt)*len;
    while (out && zr != Z_STREAM_END) {
        if (n == cap) {
            char *nb = cap < SIZE_MAX / 4 ? realloc(out, cap * 2 + 1) : NULL;
            if (!nb) break;
            out = nb;
            cap *= 2;
        }
        z.next_out = (Bytef *)out + n;
        z.avail_out = (uInt)(cap - n);
        zr = inflate(&z, Z_NO_FLUSH);
        n = cap - z.avail_out;
        if (zr == Z_STREAM_END) break;
        if (zr != Z_OK && zr != Z_BUF_ERROR) break;
        if (zr == Z_BUF_ERROR && z.avail_in == 0) break;
    }
    inflateEnd(&z);
    if (!out || (n == cap && zr != Z_STREAM_END && zr == Z_OK))
        st = tdcl_fail(err, TDCL_ENOMEM, "%s: out of memory inflating gzip data", name);
    else if (zr != Z_STREAM_END)
        st = tdcl_fail(err, TDCL_EPARSE, "%s: bad or truncated gzip data (%s)", name,
                       z.msg ? z.msg : "unexpected end");
    if (st) {
        free(out);
        return st;
    }
    out[n] = '\0';
    free(*buf);
    *buf = out;
    *len = n;
    return TDCL_OK;
}

/* Replaces the temporary file's name in a message with '-'. */
static void name_stdin(tdcl_err *err, const char *tmp)
{
    char *at;
    if (!err || !tmp || !(at = strstr(err->msg, tmp))) return;
    size_t tl = strlen(tmp);
    memmove(at + 1, at + tl, strlen(at + tl) + 1);
    at[0] = '-';
}

static tdcl_status read_any(const char *path, int64_t max_cells, tdcl_life_pattern *out,
                            tdcl_life_cells *list, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    char *buf = NULL, *tmp = NULL;
    size_t len = 0;
    int known;
    const char *name = path;
    memset(out, 0, sizeof *out);
    out->rule = tdcl_life_rule_conway();
    life_format f = format_by_ext(path, &known);
    if (f != FMT_MATRIX && f != FMT_IMAGE) {
        TDCL_TRY(tdcl_read_file(path, &buf, &len, err));
        if (len >= 2 && (unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b) {
            char *zbuf = malloc(len + 1); /* kept for the matrix reader */
            if (!zbuf) {
                st = tdcl_fail(err, TDCL_ENOMEM, "out of memory");
                goto out;
            }
            memcpy(zbuf, buf, len + 1);
            size_t zlen = len;
            st = gunzip(name, &buf, &len, err);
            if (!st && !known && len >= 2 && memcmp(buf, "%%", 2) == 0) {
                free(buf); /* gzipped Matrix Market: matio reads it */
                buf = zbuf;
                len = zlen;
                f = FMT_MATRIX;
                known = 1;
            } else {
                free(zbuf);
            }
            if (st) goto out;
        }
        if (!known) f = format_by_content(buf, len);
    }
    if (buf && strncmp(buf, "#MCell", 6) == 0) {
        st = tdcl_fail(err, TDCL_EUNSUPPORTED,
                       "%s: an MCell file; tiledcl reads RLE, .cells, Life 1.05/1.06 and "
                       "Macrocell patterns",
                       name);
    } else if (f == FMT_RLE) {
        st = rle_parse(name, buf, max_cells, out, list, err);
    } else if (f == FMT_CELLS) {
        st = cells_parse(name, buf, max_cells, out, list, err);
    } else if (f == FMT_LIF) {
        st = tdcl_life_lif_read(name, buf, max_cells, out, list, err);
    } else if (f == FMT_MC) {
        st = tdcl_life_mc_read(name, buf, max_cells, out, list, err);
    } else {
        if (buf && strcmp(path, "-") == 0) {
            TDCL_TRY(spill_stdin(buf, len, &tmp, err));
            path = tmp;
        }
        st = read_binary(path, f, max_cells, out, list, err);
        if (st) name_stdin(err, tmp);
    }
out:
    if (tmp) {
        unlink(tmp);
        free(tmp);
    }
    free(buf);
    return st;
}

tdcl_status tdcl_life_read(const char *path, int64_t max_cells, tdcl_life_pattern *out,
                           tdcl_err *err)
{
    return read_any(path, max_cells, out, NULL, err);
}

tdcl_status tdcl_life_read_cells(const char *path, int64_t max_cells, tdcl_life_pattern *out,
                                 tdcl_life_cells *cells, tdcl_err *err)
{
    tdcl_status st = read_any(path, max_cells, out, cells, err);
    if (st || !out->grid.data || out->topo.present) return st;
    /* the formats read into a grid: listed, and the grid's memory given back */
    int64_t rows = out->grid.rows, cols = out->grid.cols;
    st = tdcl_life_cells_from_grid(&out->grid, out->x0, out->y0, cells, err);
    tdcl_matrix_free(&out->grid);
    out->grid.rows = rows;
    out->grid.cols = cols;
    if (st) tdcl_life_pattern_free(out);
    return st;
}
