/* Life-like rule notation as Golly spells it: B/S and S/B forms, named
 * rules, the H and V neighbourhoods, Golly's bounded-grid suffixes. */
#include "base/rule.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

tdcl_life_rule tdcl_life_rule_conway(void)
{
    tdcl_life_rule r = {.birth = 1u << 3, .survive = (1u << 2) | (1u << 3), .nbhd = 0};
    return r;
}

/* Golly's named rules (its Set Rule dialog's list, two-state ones), matched
 * without case, spaces or hyphens. */
static const struct {
    const char *name, *rule;
} named_rules[] = {
    {"life", "B3/S23"},
    {"conway", "B3/S23"},
    {"34life", "B34/S34"},
    {"highlife", "B36/S23"},
    {"antilife", "B0123478/S01234678"},
    {"lifewithoutdeath", "B3/S012345678"},
    {"plowworld", "B378/S012345678"},
    {"dayandnight", "B3678/S34678"},
    {"diamoeba", "B35678/S5678"},
    {"longlife", "B345/S5"},
    {"seeds", "B2/S"},
    {"persianrug", "B234/S"},
    {"serviettes", "B234/S"},
    {"replicator", "B1357/S1357"},
    {"fredkin", "B1357/S02468"},
    {"morley", "B368/S245"},
    {"move", "B368/S245"},
    {"maze", "B3/S12345"},
    {"mazectric", "B3/S1234"},
    {"coral", "B3/S45678"},
    {"2x2", "B36/S125"},
    {"drylife", "B37/S23"},
    {"pedestrianlife", "B38/S23"},
};

/* Names of Golly's multi-state rule families, for a message that names
 * them. */
static const char *const multistate_names[] = {
    "wireworld", "jvn29",   "nobili32", "hutton32", "lifehistory", "langtonsloops", "byl",
    "chou",      "evoloop", "sdsr",     "codd",     "devore",      "perrier",       "briansbrain"};

/* Reads neighbour-count digits from *p into *mask; stops at anything else.
 * Returns -1 on a digit over max or a repeated digit. */
static int read_counts(const char **p, uint16_t *mask, int max)
{
    for (; isdigit((unsigned char)**p); (*p)++) {
        int d = **p - '0';
        if (d > max || (*mask & (1u << d))) return -1;
        *mask |= (uint16_t)(1u << d);
    }
    return 0;
}

typedef enum { R_OK, R_BAD, R_HENSEL, R_MULTI } rule_kind;

/* Hensel's letters for non-totalistic rules. */
static int hensel_letter(int c)
{
    return c && strchr("cekainyqjrtwz-", c) != NULL;
}

/* Parses a lower-case rule with no spaces, no suffix and no neighbourhood
 * letter: "b3/s23", "b3s23", "s23/b3", "23/3", "/3". */
static rule_kind parse_counts(const char *s, tdcl_life_rule *r, int max)
{
    int slashes = 0;
    for (const char *q = s; *q; q++) {
        slashes += *q == '/' || *q == '_';
        if (hensel_letter(*q) && *q != '-') return R_HENSEL;
    }
    if (strchr(s, '-')) return R_HENSEL;
    if (slashes > 1) return R_MULTI; /* Generations: "B2/S/3", "23/3/2" */
    if (strchr(s, 'b') || strchr(s, 's')) {
        int seen_b = 0, seen_s = 0;
        const char *p = s;
        while (*p) {
            if (*p == '/' && p != s) {
                p++;
                continue;
            }
            if (*p == 'b' && !seen_b) {
                p++;
                seen_b = 1;
                if (read_counts(&p, &r->birth, max)) return R_BAD;
            } else if (*p == 's' && !seen_s) {
                p++;
                seen_s = 1;
                if (read_counts(&p, &r->survive, max)) return R_BAD;
            } else {
                return R_BAD;
            }
        }
        return R_OK;
    }
    /* S/B: survival counts, a slash, birth counts */
    const char *p = s;
    if (read_counts(&p, &r->survive, max) || *p++ != '/') return R_BAD;
    if (read_counts(&p, &r->birth, max)) return R_BAD;
    return *p ? R_BAD : R_OK;
}

/* Reads a decimal dimension 0..2^31; -1 if none or out of range. */
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

/* One side of a suffix: a size, an optional '*' (twisted), an optional
 * signed shift. */
static int read_side(const char **p, int64_t *size, int *twist, int64_t *shift)
{
    if (read_dim(p, size)) return -1;
    if (**p == '*') {
        *twist = 1;
        (*p)++;
    }
    if (**p == '+' || **p == '-') {
        int neg = **p == '-';
        (*p)++;
        int64_t v;
        if (read_dim(p, &v)) return -1;
        *shift = neg ? -v : v;
    }
    return 0;
}

static tdcl_status parse_topology(const char *text, const char *suffix, tdcl_life_topology *topo,
                                  tdcl_err *err)
{
    char kind = (char)toupper((unsigned char)suffix[0]);
    const char *p = suffix + 1;
    int64_t w = 0, h = 0, sh = 0, sv = 0;
    int th = 0, tv = 0;
    tdcl_life_topology t = {0};
    if (!kind || !strchr("PTKCS", kind))
        return tdcl_fail(err, TDCL_EINVAL,
                         "rule '%s': expected a bounded grid ':P', ':T', ':K', ':C' or ':S' with "
                         "its size after ':'",
                         text);
    if (read_side(&p, &w, &th, &sh)) goto bad;
    h = w;
    if (*p == ',') {
        p++;
        if (read_side(&p, &h, &tv, &sv)) goto bad;
    }
    if (*p) goto bad;
    if ((sh && sv) || (th && tv))
        return tdcl_fail(err, TDCL_EINVAL, "rule '%s': only one pair of edges may be %s", text,
                         sh && sv ? "shifted" : "twisted");
    if ((sh || sv) && kind != 'T' && kind != 'K')
        return tdcl_fail(err, TDCL_EINVAL, "rule '%s': only a torus or Klein bottle is shifted",
                         text);
    if ((th || tv) && kind != 'K')
        return tdcl_fail(err, TDCL_EINVAL, "rule '%s': only a Klein bottle has a '*' edge", text);
    if ((w == 0 || h == 0) && (kind == 'K' || kind == 'C' || kind == 'S'))
        return tdcl_fail(err, TDCL_EINVAL,
                         "rule '%s': a Klein bottle, cross-surface or sphere needs both sizes "
                         "above 0",
                         text);
    if ((w == 0 || h == 0) && (sh || sv))
        return tdcl_fail(err, TDCL_EINVAL, "rule '%s': a grid of size 0 one way has no shift",
                         text);
    if (w == 0 && h == 0) { /* Golly: ":P0,0" and ":T0,0" are the unbounded plane */
        memset(topo, 0, sizeof *topo);
        return TDCL_OK;
    }
    if (kind == 'S' && w != h)
        return tdcl_fail(err, TDCL_EINVAL, "rule '%s': a sphere is square", text);
    if (kind == 'K') {
        if (!th && !tv) th = 1; /* Golly: ":K30,20" twists the horizontal edges */
        /* on a Klein bottle only the twisted edges shift, and every shift of an
         * even side is a shift of 1 */
        if ((sh && !th) || (sv && !tv))
            return tdcl_fail(err, TDCL_EINVAL,
                             "rule '%s': a Klein bottle shifts only its twisted "
                             "edges",
                             text);
        if ((sh && w % 2) || (sv && h % 2))
            return tdcl_fail(err, TDCL_EINVAL,
                             "rule '%s': a Klein bottle's shifted side must be even", text);
        sh = sh ? 1 : 0;
        sv = sv ? 1 : 0;
    }
    if (kind == 'T' && w) sh %= w; /* a whole turn is none */
    if (kind == 'T' && h) sv %= h;
    t.present = 1;
    t.boundary = kind == 'P'   ? TDCL_LIFE_DEAD
                 : kind == 'T' ? TDCL_LIFE_TORUS
                 : kind == 'K' ? TDCL_LIFE_KLEIN
                 : kind == 'C' ? TDCL_LIFE_CROSS
                               : TDCL_LIFE_SPHERE;
    t.width = w;
    t.height = h;
    t.edges.shift_h = sh;
    t.edges.shift_v = sv;
    t.edges.twist_h = th || kind == 'C';
    t.edges.twist_v = tv || kind == 'C';
    t.edges.open_x = w == 0;
    t.edges.open_y = h == 0;
    *topo = t;
    return TDCL_OK;
bad:
    return tdcl_fail(err, TDCL_EINVAL,
                     "rule '%s': expected a bounded grid like ':T64,48', ':P64,48', ':T64+2,48' "
                     "or ':K64*,48' after ':'",
                     text);
}

/* Lower case without spaces, tabs or (names only) hyphens. */
static void squeeze(const char *s, size_t n, char *out, int drop_hyphen)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)s[i];
        if (c == ' ' || c == '\t' || (drop_hyphen && c == '-')) continue;
        out[k++] = (char)tolower(c);
    }
    out[k] = '\0';
}

tdcl_status tdcl_life_rule_parse(const char *text, tdcl_life_rule *rule, tdcl_life_topology *topo,
                                 tdcl_err *err)
{
    char body[128], name[128];
    if (topo) memset(topo, 0, sizeof *topo);
    if (!text) return tdcl_fail(err, TDCL_EINVAL, "no rule given");
    const char *colon = strchr(text, ':');
    size_t n = colon ? (size_t)(colon - text) : strlen(text);
    if (n >= sizeof body) return tdcl_fail(err, TDCL_EINVAL, "rule '%.40s...' is too long", text);
    squeeze(text, n, body, 0);
    squeeze(text, n, name, 1);
    tdcl_life_rule r = {0, 0, 0};
    rule_kind k = R_BAD;
    for (size_t i = 0; i < sizeof named_rules / sizeof named_rules[0]; i++)
        if (strcmp(name, named_rules[i].name) == 0) {
            char lower[32];
            squeeze(named_rules[i].rule, strlen(named_rules[i].rule), lower, 0);
            k = parse_counts(lower, &r, 8);
            break;
        }
    if (k != R_OK) {
        size_t len = strlen(body);
        int max = 8;
        if (len && (body[len - 1] == 'h' || body[len - 1] == 'v')) {
            r.nbhd = body[len - 1] == 'h' ? TDCL_LIFE_HEX : TDCL_LIFE_VONNEUMANN;
            max = body[len - 1] == 'h' ? 6 : 4;
            body[--len] = '\0';
        }
        for (size_t i = 0; i < sizeof multistate_names / sizeof multistate_names[0]; i++)
            if (strncmp(name, multistate_names[i], strlen(multistate_names[i])) == 0) k = R_MULTI;
        if (name[0] == 'w' && isdigit((unsigned char)name[1]))
            return tdcl_fail(err, TDCL_EUNSUPPORTED,
                             "'%s' is a one-dimensional Wolfram rule; tiledcl runs two-state "
                             "totalistic Moore, hexagonal and von Neumann rules",
                             text);
        if (k != R_MULTI && isalpha((unsigned char)name[0]) && name[0] != 'b' && name[0] != 's')
            return tdcl_fail(err, TDCL_EINVAL,
                             "rule '%s': unknown rule name (tiledcl knows Golly's Life-like "
                             "names such as Life, HighLife, Seeds, Day and Night, and B/S "
                             "notation like 'B3/S23')",
                             text);
        if (k != R_MULTI) k = parse_counts(body, &r, max);
        if (k == R_BAD && r.nbhd && !parse_counts(body, &(tdcl_life_rule){0, 0, 0}, 8))
            return tdcl_fail(err, TDCL_EINVAL, "rule '%s': a %s rule counts 0 to %d neighbours",
                             text, r.nbhd == TDCL_LIFE_HEX ? "hexagonal" : "von Neumann", max);
    }
    if (k == R_HENSEL)
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "'%s' is a non-totalistic rule; tiledcl runs totalistic Moore, "
                         "hexagonal and von Neumann rules",
                         text);
    if (k == R_MULTI)
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "'%s' is a multi-state rule; tiledcl runs two-state totalistic Moore, "
                         "hexagonal and von Neumann rules",
                         text);
    if (k != R_OK)
        return tdcl_fail(err, TDCL_EINVAL,
                         "rule '%s': expected B/S notation with counts 0-8 like 'B3/S23', S/B "
                         "like '23/3', or a name like 'HighLife'",
                         text);
    if (colon) {
        if (!topo)
            return tdcl_fail_param(err, TDCL_EINVAL, TDCL_PARAM_BOUNDARY,
                                   "rule '%s': a bounded-grid suffix is only read from pattern "
                                   "files; give the boundary and size apart",
                                   text);
        tdcl_status st = parse_topology(text, colon + 1, topo, err);
        if (st) return st;
    }
    *rule = r;
    return TDCL_OK;
}

char *tdcl_life_rule_format(const tdcl_life_rule *rule, char *buf, size_t n)
{
    char tmp[32];
    size_t k = 0;
    tmp[k++] = 'B';
    for (int d = 0; d <= 8; d++)
        if (rule->birth & (1u << d)) tmp[k++] = (char)('0' + d);
    tmp[k++] = '/';
    tmp[k++] = 'S';
    for (int d = 0; d <= 8; d++)
        if (rule->survive & (1u << d)) tmp[k++] = (char)('0' + d);
    if (rule->nbhd == TDCL_LIFE_HEX) tmp[k++] = 'H';
    if (rule->nbhd == TDCL_LIFE_VONNEUMANN) tmp[k++] = 'V';
    tmp[k] = '\0';
    snprintf(buf, n, "%s", tmp);
    return buf;
}

int tdcl_life_edges_any(const tdcl_life_edges *e)
{
    return e && (e->shift_h || e->shift_v || e->twist_h || e->twist_v || e->open_x || e->open_y);
}

char *tdcl_life_topology_format(tdcl_life_boundary b, const tdcl_life_edges *e, int64_t width,
                                int64_t height, char *buf, size_t n)
{
    static const tdcl_life_edges none = {0};
    static const char letter[] = {'P', 'T', 0, 'K', 'C', 'S'};
    if (!e) e = &none;
    if ((unsigned)b >= sizeof letter || !letter[b]) {
        snprintf(buf, n, "%s", "");
        return buf;
    }
    int64_t w = e->open_x ? 0 : width, h = e->open_y ? 0 : height;
    if (b == TDCL_LIFE_SPHERE) {
        snprintf(buf, n, ":S%" PRId64, w);
        return buf;
    }
    char sx[32] = "", sy[32] = "";
    int kl = b == TDCL_LIFE_KLEIN;
    if (e->shift_h) snprintf(sx, sizeof sx, "%+" PRId64, e->shift_h);
    if (e->shift_v) snprintf(sy, sizeof sy, "%+" PRId64, e->shift_v);
    snprintf(buf, n, ":%c%" PRId64 "%s%s,%" PRId64 "%s%s", letter[b], w,
             kl && e->twist_h ? "*" : "", sx, h, kl && e->twist_v ? "*" : "", sy);
    return buf;
}

int tdcl_life_rule_has_b0(const tdcl_life_rule *rule)
{
    return rule->birth & 1u;
}

static const char *const boundary_names[] = {"dead", "torus", "clamp", "klein", "cross", "sphere"};

const char *tdcl_life_boundary_name(tdcl_life_boundary b)
{
    return (unsigned)b < sizeof boundary_names / sizeof boundary_names[0] ? boundary_names[b] : "?";
}

int tdcl_life_boundary_parse(const char *name, tdcl_life_boundary *b)
{
    for (size_t i = 0; i < sizeof boundary_names / sizeof boundary_names[0]; i++)
        if (name && strcasecmp(name, boundary_names[i]) == 0) {
            *b = (tdcl_life_boundary)i;
            return 0;
        }
    return -1;
}
