/* Life-like rule notation: B/S and S/B forms, Golly's bounded-grid suffix. */
#include "base/rule.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

tdcl_life_rule tdcl_life_rule_conway(void)
{
    tdcl_life_rule r = {.birth = 1u << 3, .survive = (1u << 2) | (1u << 3)};
    return r;
}

/* Reads neighbour-count digits 0..8 from *p into *mask; stops at anything
 * else. Returns -1 on a digit 9 or a repeated digit. */
static int read_counts(const char **p, uint16_t *mask)
{
    *mask = 0;
    for (; isdigit((unsigned char)**p); (*p)++) {
        int d = **p - '0';
        if (d > 8 || (*mask & (1u << d))) return -1;
        *mask |= (uint16_t)(1u << d);
    }
    return 0;
}

/* B/S form: "B<digits>/S<digits>" (either order of letters is not Golly's,
 * so only B first). */
static int parse_bs(const char *s, tdcl_life_rule *r)
{
    if (tolower((unsigned char)*s) != 'b') return -1;
    s++;
    if (read_counts(&s, &r->birth) || *s++ != '/' || tolower((unsigned char)*s++) != 's') return -1;
    if (read_counts(&s, &r->survive)) return -1;
    return *s ? -1 : 0;
}

/* S/B form: "<survive digits>/<birth digits>" ("23/3"). */
static int parse_sb(const char *s, tdcl_life_rule *r)
{
    if (read_counts(&s, &r->survive) || *s++ != '/') return -1;
    if (read_counts(&s, &r->birth)) return -1;
    return *s ? -1 : 0;
}

/* Reads a positive decimal dimension; -1 if none or out of range. */
static int read_dim(const char **p, int64_t *v)
{
    if (!isdigit((unsigned char)**p)) return -1;
    errno = 0;
    char *end;
    long long x = strtoll(*p, &end, 10);
    if (errno || x < 0 || x > ((int64_t)1 << 31)) return -1;
    *p = end;
    *v = x;
    return 0;
}

static tdcl_status parse_topology(const char *text, const char *suffix, tdcl_life_topology *topo,
                                  tdcl_err *err)
{
    char kind = (char)toupper((unsigned char)suffix[0]);
    if (kind != 'T' && kind != 'P')
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "rule '%s': bounded grid ':%c' is not supported (only ':T' torus and "
                         "':P' plane)",
                         text, suffix[0] ? suffix[0] : ' ');
    const char *p = suffix + 1;
    int64_t w = 0, h = 0;
    if (read_dim(&p, &w)) goto bad;
    h = w;
    if (*p == ',') {
        p++;
        if (read_dim(&p, &h)) goto bad;
    }
    if (*p == '+' || *p == '-' || *p == '*')
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "rule '%s': shifted or twisted bounded grids are not supported", text);
    if (*p) goto bad;
    if (w == 0 || h == 0)
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "rule '%s': a bounded grid unbounded in one direction (size 0) is not "
                         "supported",
                         text);
    topo->present = 1;
    topo->boundary = kind == 'T' ? TDCL_LIFE_TORUS : TDCL_LIFE_DEAD;
    topo->width = w;
    topo->height = h;
    return TDCL_OK;
bad:
    return tdcl_fail(err, TDCL_EINVAL,
                     "rule '%s': expected a bounded grid like ':T64,48' or ':P64,48' after ':'",
                     text);
}

tdcl_status tdcl_life_rule_parse(const char *text, tdcl_life_rule *rule, tdcl_life_topology *topo,
                                 tdcl_err *err)
{
    char body[64];
    if (topo) memset(topo, 0, sizeof *topo);
    if (!text) return tdcl_fail(err, TDCL_EINVAL, "no rule given");
    const char *colon = strchr(text, ':');
    size_t n = colon ? (size_t)(colon - text) : strlen(text);
    if (n >= sizeof body) return tdcl_fail(err, TDCL_EINVAL, "rule '%.40s...' is too long", text);
    memcpy(body, text, n);
    body[n] = '\0';
    tdcl_life_rule r = {0, 0};
    if (parse_bs(body, &r) != 0 && parse_sb(body, &r) != 0)
        return tdcl_fail(err, TDCL_EINVAL,
                         "rule '%s': expected B/S notation with counts 0-8 like 'B3/S23', or "
                         "S/B like '23/3'",
                         text);
    if (colon) {
        if (!topo)
            return tdcl_fail_param(err, TDCL_EINVAL, TDCL_PARAM_BOUNDARY,
                                   "rule '%s': a bounded-grid suffix is only read from RLE files; "
                                   "give the boundary and the grid size instead",
                                   text);
        tdcl_status st = parse_topology(text, colon + 1, topo, err);
        if (st) return st;
    }
    *rule = r;
    return TDCL_OK;
}

char *tdcl_life_rule_format(const tdcl_life_rule *rule, char *buf, size_t n)
{
    char tmp[24];
    size_t k = 0;
    tmp[k++] = 'B';
    for (int d = 0; d <= 8; d++)
        if (rule->birth & (1u << d)) tmp[k++] = (char)('0' + d);
    tmp[k++] = '/';
    tmp[k++] = 'S';
    for (int d = 0; d <= 8; d++)
        if (rule->survive & (1u << d)) tmp[k++] = (char)('0' + d);
    tmp[k] = '\0';
    snprintf(buf, n, "%s", tmp);
    return buf;
}

int tdcl_life_rule_has_b0(const tdcl_life_rule *rule)
{
    return rule->birth & 1u;
}

const char *tdcl_life_boundary_name(tdcl_life_boundary b)
{
    switch (b) {
    case TDCL_LIFE_DEAD:
        return "dead";
    case TDCL_LIFE_TORUS:
        return "torus";
    case TDCL_LIFE_CLAMP:
        return "clamp";
    }
    return "?";
}

int tdcl_life_boundary_parse(const char *name, tdcl_life_boundary *b)
{
    static const tdcl_life_boundary all[] = {TDCL_LIFE_DEAD, TDCL_LIFE_TORUS, TDCL_LIFE_CLAMP};
    for (size_t i = 0; i < 3; i++)
        if (name && strcasecmp(name, tdcl_life_boundary_name(all[i])) == 0) {
            *b = all[i];
            return 0;
        }
    return -1;
}
