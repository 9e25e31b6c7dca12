/* Two-state Macrocell (.mc) as Golly reads it: the quadtree's nodes, the
 * live cells' box and population found per node, then a dense grid of that
 * box, or the tree walked into a list of live cells, placed where Golly
 * puts the root (centred on 0,0, y counted upwards). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/life_pattern.h"

/* ---- Macrocell ------------------------------------------------------------ */

typedef struct mc_node {
    int level;                  /* 3: an 8x8 leaf; k: 2^k cells a side */
    int64_t kid[4];             /* nw ne sw se node numbers, 0 empty (level > 3) */
    uint8_t leaf[8];            /* level 3: row r's bit c is cell (c, r) */
    int64_t bx0, by0, bx1, by1; /* live box relative to the node's corner; bx1 < bx0: none */
    uint64_t pop;               /* live cells, UINT64_MAX past it */
} mc_node;

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static void mc_union(mc_node *n, const mc_node *k, int64_t dx, int64_t dy)
{
    if (k->bx1 < k->bx0) return;
    int64_t x0 = k->bx0 + dx, x1 = k->bx1 + dx, y0 = k->by0 + dy, y1 = k->by1 + dy;
    if (n->bx1 < n->bx0) {
        n->bx0 = x0, n->bx1 = x1, n->by0 = y0, n->by1 = y1;
        return;
    }
    if (x0 < n->bx0) n->bx0 = x0;
    if (x1 > n->bx1) n->bx1 = x1;
    if (y0 < n->by0) n->by0 = y0;
    if (y1 > n->by1) n->by1 = y1;
}

/* Sets node i's live cells into the grid at (ox, oy) relative to the box. */
static void mc_fill(const mc_node *nodes, int64_t i, int64_t ox, int64_t oy, uint8_t *cells,
                    int64_t cols)
{
    const mc_node *n = &nodes[i];
    if (!i || n->bx1 < n->bx0) return;
    if (n->level == 3) {
        for (int r = 0; r < 8; r++)
            for (int c = 0; c < 8; c++)
                if ((n->leaf[r] >> c) & 1) cells[(oy + r) * cols + ox + c] = 1;
        return;
    }
    int64_t half = (int64_t)1 << (n->level - 1);
    for (int q = 0; q < 4; q++)
        mc_fill(nodes, n->kid[q], ox + (q & 1) * half, oy + (q >> 1) * half, cells, cols);
}

/* Appends node i's live cells to the list, its corner at plane (ox, oy):
 * time and memory in proportion to the live cells, since only nodes with
 * live cells are entered. */
static tdcl_status mc_list(const mc_node *nodes, int64_t i, int64_t ox, int64_t oy,
                           tdcl_life_cells *list, tdcl_err *err)
{
    const mc_node *n = &nodes[i];
    if (!i || !n->pop) return TDCL_OK;
    if (n->level == 3) {
        for (int r = 0; r < 8; r++)
            for (int c = 0; c < 8; c++)
                if ((n->leaf[r] >> c) & 1) {
                    tdcl_status st = tdcl_life_cells_add(list, ox + c, oy + r, err);
                    if (st) return st;
                }
        return TDCL_OK;
    }
    int64_t half = (int64_t)1 << (n->level - 1);
    for (int q = 0; q < 4; q++) {
        tdcl_status st =
            mc_list(nodes, n->kid[q], ox + (q & 1) * half, oy + (q >> 1) * half, list, err);
        if (st) return st;
    }
    return TDCL_OK;
}

/* The root's live cells into the list (out->grid their box's shape) or a
 * grid of their box; line is the root's, for messages. */
static tdcl_status mc_place(const char *name, long line, const mc_node *nodes, size_t root_i,
                            int64_t max_cells, tdcl_life_pattern *out, tdcl_life_cells *list,
                            tdcl_err *err)
{
    const mc_node *root = &nodes[root_i];
    int64_t half = (int64_t)1 << (root->level - 1); /* the root is centred on 0,0 */
    if (root->bx1 < root->bx0) {
        if (!list) return tdcl_matrix_alloc(&out->grid, 1, 1, 1, TDCL_U8, err);
        out->grid.rows = out->grid.cols = 1;
        return TDCL_OK;
    }
    int64_t w = root->bx1 - root->bx0 + 1, h = root->by1 - root->by0 + 1;
    /* Golly's hashlife counts y upwards: the root's top row is at -half + 1 */
    out->x0 = root->bx0 - half;
    out->y0 = root->by0 - half + 1;
    if (list) {
        out->grid.rows = h;
        out->grid.cols = w;
        tdcl_status st = tdcl_life_cells_room(name, line, list, root->pop, max_cells, err);
        if (!st && root->pop > SIZE_MAX / 2)
            st = tdcl_fail(err, TDCL_ENOMEM, "%s:%ld: out of memory for %" PRIu64 " live cells",
                           name, line, root->pop);
        if (!st) st = tdcl_life_cells_reserve(list, (size_t)root->pop, err);
        return st ? st : mc_list(nodes, (int64_t)root_i, -half, -half + 1, list, err);
    }
    if (max_cells > 0 && h > max_cells / w)
        return tdcl_fail(err, TDCL_ELIMIT,
                         "%s: the pattern's live cells span %" PRId64 " x %" PRId64
                         " cells, more than the limit of %" PRId64 " cells",
                         name, w, h, max_cells);
    tdcl_status st = tdcl_matrix_alloc(&out->grid, h, w, 1, TDCL_U8, err);
    if (!st) mc_fill(nodes, (int64_t)root_i, -root->bx0, -root->by0, out->grid.data, w);
    return st;
}

tdcl_status tdcl_life_mc_parse(const char *name, const char *buf, size_t len, int64_t max_cells,
                               tdcl_life_pattern *out, tdcl_err *err)
{
    (void)len;
    return tdcl_life_mc_read(name, buf, max_cells, out, NULL, err);
}

tdcl_status tdcl_life_mc_read(const char *name, const char *buf, int64_t max_cells,
                              tdcl_life_pattern *out, tdcl_life_cells *list, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    mc_node *nodes = NULL;
    size_t cap = 0, nn = 1; /* node 0 is the empty node */
    long line = 0, root_line = 0;
    memset(out, 0, sizeof *out);
    out->rule = tdcl_life_rule_conway();
    if (strncmp(buf, "[M2]", 4) != 0)
        return tdcl_fail(err, TDCL_EPARSE, "%s:1: expected a Macrocell header '[M2]'", name);
    cap = 1024;
    if (!(nodes = calloc(cap, sizeof *nodes))) return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    nodes[0].bx1 = nodes[0].by1 = -1; /* node 0: empty */
    for (const char *p = buf, *next; *p; p = next) {
        const char *e = p;
        while (*e && *e != '\n')
            e++;
        next = *e ? e + 1 : e;
        line++;
        if (line == 1 || p[0] == '\r' || p == e) continue;
        if (p[0] == '#') {
            if (p[1] == 'R') {
                TDCL_TRY(tdcl_life_rule_line(name, line, p + 2, 1, out, err));
            } else if (p[1] == 'G') {
                long long g;
                if (sscanf(p + 2, " %lld", &g) == 1 && g >= 0) out->generation = g;
            }
            continue;
        }
        if (nn == cap) {
            mc_node *nb =
                cap < SIZE_MAX / 2 / sizeof *nb ? realloc(nodes, 2 * cap * sizeof *nb) : NULL;
            if (!nb) {
                st = tdcl_fail(err, TDCL_ENOMEM, "%s: out of memory", name);
                goto out;
            }
            nodes = nb;
            cap *= 2;
        }
        mc_node *n = &nodes[nn];
        memset(n, 0, sizeof *n);
        n->bx1 = n->by1 = -1;
        if (p[0] == '.' || p[0] == '*' || p[0] == '$') {
            int r = 0, c = 0;
            n->level = 3;
            for (const char *q = p; q < e && *q != '\r'; q++) {
                if (*q == '*' && (r >= 8 || c >= 8)) {
                    /* Golly refuses it too: a cell outside the leaf is not the file's */
                    st = tdcl_fail(err, TDCL_EPARSE,
                                   "%s:%ld: expected a leaf of 8 rows of 8 cells, got a live "
                                   "cell at column %d of row %d",
                                   name, line, c + 1, r + 1);
                    goto out;
                }
                if (*q == '$') {
                    r++, c = 0;
                } else if (r < 8 && c < 8) {
                    if (*q == '*') {
                        n->leaf[r] |= (uint8_t)(1u << c);
                        n->pop++;
                        mc_union(n, &(mc_node){.bx0 = c, .bx1 = c, .by0 = r, .by1 = r}, 0, 0);
                    }
                    c++;
                }
            }
        } else {
            long long k, a[4];
            if (sscanf(p, "%lld %lld %lld %lld %lld", &k, &a[0], &a[1], &a[2], &a[3]) != 5 ||
                k < 1) {
                st = tdcl_fail(err, TDCL_EPARSE,
                               "%s:%ld: expected a leaf of '.', '*', '$' or a node 'level nw ne "
                               "sw se'",
                               name, line);
                goto out;
            }
            if (k < 4) {
                st = tdcl_fail(err, TDCL_EUNSUPPORTED,
                               "%s:%ld: a multi-state Macrocell file; tiledcl reads two-state "
                               "ones",
                               name, line);
                goto out;
            }
            if (k > 62) {
                st = tdcl_fail(err, TDCL_ELIMIT, "%s:%ld: a node of 2^%lld cells a side", name,
                               line, k);
                goto out;
            }
            n->level = (int)k;
            int64_t half = (int64_t)1 << (k - 1);
            for (int q = 0; q < 4; q++) {
                if (a[q] < 0 || (size_t)a[q] >= nn || (a[q] && nodes[a[q]].level != k - 1)) {
                    st = tdcl_fail(err, TDCL_EPARSE,
                                   "%s:%ld: node %lld is not a level-%lld node "
                                   "defined before",
                                   name, line, a[q], k - 1);
                    goto out;
                }
                n->kid[q] = a[q];
                n->pop = add_sat(n->pop, nodes[a[q]].pop);
                mc_union(n, &nodes[a[q]], (q & 1) * half, (q >> 1) * half);
            }
        }
        nn++;
        root_line = line;
    }
    if (nn < 2) {
        st = tdcl_fail(err, TDCL_EPARSE, "%s: no nodes", name);
        goto out;
    }
    /* a bounded grid ("#R B3/S23:T100,100") is drawn */
    st = mc_place(name, root_line, nodes, nn - 1, max_cells, out, out->topo.present ? NULL : list,
                  err);
out:
    free(nodes);
    if (st) tdcl_life_pattern_free(out);
    return st;
}
