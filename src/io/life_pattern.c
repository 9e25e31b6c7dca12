/* The pattern the Life readers give, and the pieces they share. */
#include "io/life_pattern.h"

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
