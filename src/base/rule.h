/* Life-like rules: parsing every spelling Golly takes for a two-state
 * totalistic rule (B/S, S/B, without the slash, either order, any case,
 * spaces, Golly's named rules, the H and V neighbourhood suffixes) with
 * Golly's bounded-grid suffix, and formatting them back.
 *
 * A rule says, for each count of live neighbours (0..8 Moore, 0..6
 * hexagonal, 0..4 von Neumann), whether a dead cell is born and whether a
 * live cell survives. */
#ifndef TDCL_RULE_H
#define TDCL_RULE_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

/* Which neighbours a cell counts. */
typedef enum tdcl_life_nbhd {
    TDCL_LIFE_MOORE = 0, /* the 8 around it */
    TDCL_LIFE_HEX,       /* Golly's "H": the Moore ones but NE and SW (6) */
    TDCL_LIFE_VONNEUMANN /* Golly's "V": N, S, E and W (4) */
} tdcl_life_nbhd;

typedef struct tdcl_life_rule {
    uint16_t birth;   /* bit n set: a dead cell with n live neighbours is born */
    uint16_t survive; /* bit n set: a live cell with n live neighbours survives */
    uint16_t nbhd;    /* tdcl_life_nbhd; 0 Moore */
} tdcl_life_rule;

/* What happens past the edge of the grid. */
typedef enum tdcl_life_boundary {
    TDCL_LIFE_DEAD = 0, /* cells outside are dead (Golly's bounded plane, ":P") */
    TDCL_LIFE_TORUS,    /* wrap-around (Golly's ":T"), shifted with tdcl_life_edges */
    TDCL_LIFE_CLAMP,    /* a neighbour index past the edge is clamped to the edge */
    TDCL_LIFE_KLEIN,    /* Golly's ":K": a torus with one pair of edges twisted */
    TDCL_LIFE_CROSS,    /* Golly's ":C": both pairs twisted, corners see themselves */
    TDCL_LIFE_SPHERE,   /* Golly's ":S": top joined to left, right to bottom */
} tdcl_life_boundary;

/* How a torus or Klein bottle joins its edges beyond plain wrapping, and
 * which directions have no edge at all (Golly's size 0: a tube or a
 * plane unbounded one way). All zero: plain. Golly's Help/bounded.html
 * gives the meaning. */
typedef struct tdcl_life_edges {
    int64_t shift_h; /* crossing the top or bottom edge moves x by this (":T30+5,20") */
    int64_t shift_v; /* crossing the left or right edge moves y by this (":T30,20+5") */
    int twist_h;     /* crossing the top or bottom edge reverses x (":K30*,20") */
    int twist_v;     /* crossing the left or right edge reverses y (":K30,20*") */
    int open_x;      /* no left or right edge (width 0): dead past them */
    int open_y;      /* no top or bottom edge (height 0): dead past them */
} tdcl_life_edges;

/* Golly's bounded-grid suffix of a rule (":T64,48", ":P64,48", ":K64*,48",
 * ":C64,48", ":S64", ":T0,48"). */
typedef struct tdcl_life_topology {
    int present;                 /* 0: the rule had no suffix */
    tdcl_life_boundary boundary; /* DEAD (P), TORUS, KLEIN, CROSS or SPHERE */
    int64_t width, height;       /* 0: unbounded that way (P and T only) */
    tdcl_life_edges edges;       /* shifts, twists; open_x/open_y for a size 0 */
} tdcl_life_topology;

/* Conway's Life, B3/S23. */
tdcl_life_rule tdcl_life_rule_conway(void);

/* Parses a rule as Golly does: B/S ("B3/S23", "b36/s23", "B2/S",
 * "B/S012345678", "B3S23", "S23/B3", "B3 / S23"), S/B ("23/3"), a named rule
 * ("Life", "HighLife", "Day and Night", ...), each with an optional "H"
 * or "V" neighbourhood suffix ("B2/S34H"). When topo is non-NULL a Golly
 * suffix (":T64,48", ":P64,48", ":T64" for 64x64, ":T64+2,48", ":T0,48",
 * ":K64*,48", ":C64,48", ":S64") is accepted and stored there; when NULL a
 * suffix is an error. Returns TDCL_EINVAL with a message quoting the rule,
 * TDCL_EUNSUPPORTED for non-totalistic and multi-state rules, named so. */
tdcl_status tdcl_life_rule_parse(const char *text, tdcl_life_rule *rule, tdcl_life_topology *topo,
                                 tdcl_err *err);

/* Writes "B3/S23" ("B2/S34H") into buf (at least 24 bytes); returns buf. */
char *tdcl_life_rule_format(const tdcl_life_rule *rule, char *buf, size_t n);

/* Writes Golly's suffix for a grid of width x height with boundary b and
 * edges e (":T64,48", ":K64*+1,48", ":T0,48"), "" for clamp, into buf (at
 * least 64 bytes); returns buf. */
char *tdcl_life_topology_format(tdcl_life_boundary b, const tdcl_life_edges *e, int64_t width,
                                int64_t height, char *buf, size_t n);

/* 1 if e joins edges in more than the plain way (a shift, a twist, an
 * open side). */
int tdcl_life_edges_any(const tdcl_life_edges *e);

/* 1 when the rule births cells with no live neighbour (B0). */
int tdcl_life_rule_has_b0(const tdcl_life_rule *rule);

/* "dead", "torus", "clamp", "klein", "cross", "sphere". */
const char *tdcl_life_boundary_name(tdcl_life_boundary b);

/* Parses "dead", "torus", "clamp", "klein", "cross" or "sphere" (any case);
 * -1 for anything else. */
int tdcl_life_boundary_parse(const char *name, tdcl_life_boundary *b);

#endif
