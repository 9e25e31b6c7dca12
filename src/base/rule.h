/* Life-like rules: parsing B/S and S/B notation (with Golly's bounded-grid
 * suffix) and formatting them back.
 *
 * A rule says, for each count 0..8 of live neighbours, whether a dead cell
 * is born and whether a live cell survives. */
#ifndef TDCL_RULE_H
#define TDCL_RULE_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

typedef struct tdcl_life_rule {
    uint16_t birth;   /* bit n set: a dead cell with n live neighbours is born */
    uint16_t survive; /* bit n set: a live cell with n live neighbours survives */
} tdcl_life_rule;

/* What happens past the edge of the grid. */
typedef enum tdcl_life_boundary {
    TDCL_LIFE_DEAD = 0, /* cells outside are dead (Golly's bounded plane, ":P") */
    TDCL_LIFE_TORUS,    /* wrap-around (Golly's ":T") */
    TDCL_LIFE_CLAMP,    /* a neighbour index past the edge is clamped to the edge */
} tdcl_life_boundary;

/* Golly's bounded-grid suffix of a rule (":T64,48", ":P64,48"). */
typedef struct tdcl_life_topology {
    int present;                 /* 0: the rule had no suffix */
    tdcl_life_boundary boundary; /* TDCL_LIFE_TORUS or TDCL_LIFE_DEAD */
    int64_t width, height;
} tdcl_life_topology;

/* Conway's Life, B3/S23. */
tdcl_life_rule tdcl_life_rule_conway(void);

/* Parses a rule: B/S ("B3/S23", "b36/s23", "B2/S", "B/S012345678") or S/B
 * ("23/3"), case-insensitive. When topo is non-NULL a Golly suffix
 * (":T64,48", ":P64,48", ":T64" for 64x64) is accepted and stored there;
 * when NULL a suffix is an error. Returns TDCL_EINVAL (TDCL_EUNSUPPORTED for
 * Golly topologies other than T and P) with a message quoting the rule. */
tdcl_status tdcl_life_rule_parse(const char *text, tdcl_life_rule *rule, tdcl_life_topology *topo,
                                 tdcl_err *err);

/* Writes "B3/S23" into buf (at least 24 bytes); returns buf. */
char *tdcl_life_rule_format(const tdcl_life_rule *rule, char *buf, size_t n);

/* 1 when the rule births cells with no live neighbour (B0). */
int tdcl_life_rule_has_b0(const tdcl_life_rule *rule);

/* "dead", "torus", "clamp". */
const char *tdcl_life_boundary_name(tdcl_life_boundary b);

/* Parses "dead", "torus" or "clamp" (any case); -1 for anything else. */
int tdcl_life_boundary_parse(const char *name, tdcl_life_boundary *b);

#endif
