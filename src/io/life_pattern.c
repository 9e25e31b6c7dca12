/* The pattern the Life readers give, and the pieces they share. */
#include "io/life_pattern.h"

#include <inttypes.h>

#include "base/mem.h"

void tdcl_life_pattern_free(tdcl_life_pattern *p)
{
    if (p) tdcl_matrix_free(&p->grid);
}

tdcl_status tdcl_life_rule_line(const char *name, long line, const char *p, int with_topo,
                                tdcl_life_pattern *out, tdcl_err *err)
{
    char rule[96];
    size_t n = 0;
    while (*p == ' ' || *p == '\t')
        p++;
    while (*p && *p != '\n' && *p != '\r' && n < sizeof rule - 1)
        rule[n++] = *p++;
    while (n && (rule[n - 1] == ' ' || rule[n - 1] == '\t'))
        n--;
    rule[n] = '\0';
    tdcl_err e = {0}; /* err may be NULL */
    tdcl_status st = tdcl_life_rule_parse(rule, &out->rule, with_topo ? &out->topo : NULL, &e);
    if (st) return tdcl_fail(err, st, "%s:%ld: %s", name, line, e.msg);
    out->has_rule = 1;
    return TDCL_OK;
}

tdcl_status tdcl_life_cells_room(const char *name, long line, tdcl_life_cells *c, uint64_t more,
                                 int64_t max_cells, tdcl_err *err)
{
    uint64_t max = (uint64_t)max_cells / TDCL_LIFE_CELL_BYTES;
    if (max_cells <= 0 || (more <= max && c->n <= max - more)) return TDCL_OK;
    char need[32], lim[32];
    uint64_t n = more > UINT64_MAX - c->n ? UINT64_MAX : c->n + more;
    c->over_limit = 1;
    uint64_t bytes = n > UINT64_MAX / TDCL_LIFE_CELL_BYTES ? UINT64_MAX : n * TDCL_LIFE_CELL_BYTES;
    return tdcl_fail(err, TDCL_ELIMIT,
                     "%s:%ld: %s%" PRIu64 " live cells take %s as a list, more than the limit "
                     "of %s",
                     name, line, n == UINT64_MAX ? "over " : "", n,
                     tdcl_mem_size(bytes, need, sizeof need),
                     tdcl_mem_size((uint64_t)max_cells, lim, sizeof lim));
}
