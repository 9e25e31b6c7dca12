/* Matrix Market reading: banner, size line, and a body parsed in line-aligned
 * chunks on several threads, then scattered into a dense row-major matrix,
 * or for a sparse result gathered per band of rows for mtx_csr.c. */
#include "io/mtx.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/mem.h"
#include "base/pool.h"
#include "io/mtx_impl.h"
#include "io/numconv.h"

#define CHUNK ((size_t)4 << 20)     /* text per thread and round */
#define MAX_LINE ((size_t)64 << 20) /* longest header line we buffer */
#define PREFETCH 16                 /* entries ahead for the coordinate scatter */

typedef enum { F_REAL, F_INTEGER, F_PATTERN } mtx_field;
typedef enum { S_GENERAL, S_SYMMETRIC, S_SKEW, S_HERMITIAN } mtx_sym;

typedef struct mtx_hdr {
    int coord;
    mtx_field field;
    mtx_sym sym;   /* S_HERMITIAN is read as S_SYMMETRIC: its values are real */
    int hermitian; /* the banner said hermitian */
    int64_t rows, cols;
    uint64_t want; /* stored entries the size line promises */
} mtx_hdr;

/* A coordinate entry as parsed: 0-based row and column, and its value. */
typedef struct centry {
    int64_t i, j;
    val8 v;
} centry;

typedef mtx_item item;

/* The items one part sends to one band of rows, in file order. */
typedef mtx_list band;

/* One thread's share of a chunk: its text, what it parsed, its error. The
 * entries of a coordinate part go straight into one list per band of rows
 * (band b: rows bound[b] to bound[b + 1] - 1), so that the thread which
 * owns a band reads only its own items when it adds them up. */
typedef struct part {
    const mtx_hdr *h;
    const char *p, *e;
    val8 *v; /* array only: the values in file order */
    size_t n, cap;
    int nb;               /* coordinate: bands (the threads that add them up) */
    const int64_t *bound; /* nb + 1 row bounds */
    band b[MTX_MAXT];
    int64_t lines; /* line ends passed */
    int64_t line0; /* lines of the file before the part */
    uint64_t k0;   /* index of the first entry in the file's order */
    tdcl_status st;
    int64_t err_line; /* 1-based within the part */
    char msg[400];
} part;

typedef struct rd {
    tdcl_src *src;
    const char *name;
    const char *p, *e; /* text not yet consumed */
    const char *base;  /* the mapped file, or NULL */
    char *buf;         /* stream buffer (NULL when the file is mapped) */
    size_t cap;
    int eof;
    int64_t line; /* lines consumed */
    mtx_hdr h;
    tdcl_matrix *m;
    int nt;
    size_t chunk;
    /* Two sets of parts: a mapped coordinate file adds up one chunk's
     * entries while it parses the next. */
    part sets[2][MTX_MAXT];
    int64_t bounds[2][MTX_MAXT + 1]; /* the rows of each band */
    part *parts;                     /* the set being parsed */
    int64_t *bound;
    uint64_t have; /* entries stored */
    /* A sparse result: every band's items of the whole file, in file
     * order, with the bands fixed at nt. */
    int sparse;
    mtx_list acc[MTX_MAXT];
} rd;

/* --- small text helpers ------------------------------------------------ */

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static char lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* 1 if [p, e) equals word, ASCII case-insensitive (locale-free). */
static int word_is(const char *p, const char *e, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(e - p) != n) return 0;
    for (size_t i = 0; i < n; i++)
        if (lower(p[i]) != word[i]) return 0;
    return 1;
}

/* Copies the token at p (up to whitespace, at most 40 chars) into out, or
 * "end of line" when there is none. */
/* s with control bytes replaced by '?': messages never echo raw bytes to
 * a terminal. */
static char *printable(char *s)
{
    for (char *c = s; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    return s;
}

/* 1 when the first line holds bytes no text file has (NUL, other control
 * bytes than tab, CR, VT and FF): the file is binary data. */
static int binary_line(const char *p, const char *e)
{
    for (; p < e && p[0] != '\n'; p++) {
        unsigned char c = (unsigned char)*p;
        if ((c < 0x20 && c != '\t' && c != '\r' && c != '\v' && c != '\f') || c == 0x7f) return 1;
    }
    return 0;
}

static const char *token(const char *p, const char *e, char out[48])
{
    size_t n = 0;
    while (p + n < e && p[n] != '\n' && !is_blank(p[n]) && n < 40)
        n++;
    if (n == 0) return "end of line";
    memcpy(out, p, n);
    out[n] = '\0';
    if (n == 40) memcpy(out + 37, "...", 4);
    return printable(out);
}

/* Copies a whole line, trimmed, at most 60 chars, for size-line messages. */
static const char *line_text(const char *p, const char *e, char out[72])
{
    while (p < e && is_blank(*p))
        p++;
    while (e > p && is_blank(e[-1]))
        e--;
    size_t n = (size_t)(e - p) > 60 ? 60 : (size_t)(e - p);
    memcpy(out, p, n);
    out[n] = '\0';
    if (n == 60) memcpy(out + 57, "...", 4);
    return printable(out);
}

/* --- the text window ---------------------------------------------------- */

/* Refills the stream buffer, keeping the unconsumed text; grows the buffer
 * when it is full of one line. */
static tdcl_status fill(rd *r, tdcl_err *err)
{
    if (r->eof) return TDCL_OK;
    size_t keep = (size_t)(r->e - r->p);
    if (keep == r->cap) {
        if (r->cap >= MAX_LINE)
            return tdcl_fail(err, TDCL_EPARSE, "%s:%lld: expected a line end within %zu bytes",
                             r->name, (long long)r->line + 1, r->cap);
        char *nb = malloc(r->cap * 2);
        if (!nb) return tdcl_fail(err, TDCL_ENOMEM, "out of memory reading '%s'", r->name);
        memcpy(nb, r->p, keep);
        free(r->buf);
        r->buf = nb;
        r->cap *= 2;
    } else {
        memmove(r->buf, r->p, keep);
    }
    r->p = r->buf;
    r->e = r->buf + keep;
    size_t got;
    tdcl_status st = tdcl_src_read(r->src, r->buf + keep, r->cap - keep, &got, err);
    if (st) return st;
    r->e += got;
    if (got == 0) r->eof = 1;
    return TDCL_OK;
}

/* The next line, without its line end, in [*ls, *le); *any = 0 at the end. */
static tdcl_status next_line(rd *r, const char **ls, const char **le, int *any, tdcl_err *err)
{
    for (;;) {
        const char *nl = memchr(r->p, '\n', (size_t)(r->e - r->p));
        if (nl || (r->eof && r->p < r->e)) {
            *ls = r->p;
            *le = nl ? nl : r->e;
            r->p = nl ? nl + 1 : r->e;
            r->line++;
            *any = 1;
            return TDCL_OK;
        }
        if (r->eof) {
            *any = 0;
            return TDCL_OK;
        }
        tdcl_status st = fill(r, err);
        if (st) return st;
    }
}

/* --- header ------------------------------------------------------------- */

/* Splits [p, e) at blanks: the next word in [*ws, *we); 0 when none. */
static int next_word(const char **p, const char *e, const char **ws, const char **we)
{
    const char *s = *p;
    while (s < e && is_blank(*s))
        s++;
    if (s == e) return 0;
    const char *t = s;
    while (t < e && !is_blank(*t))
        t++;
    *ws = s;
    *we = t;
    *p = t;
    return 1;
}

/* The four words after "%%MatrixMarket": what each may be, and the values
 * tiledcl refuses (valid Matrix Market, but not data it can use). */
typedef struct banner_choice {
    const char *word;
    int value;
    const char *refusal; /* non-NULL: refuse with this */
} banner_choice;

typedef struct banner_slot {
    const char *what;
    banner_choice choices[6];
} banner_slot;

static const banner_slot banner_slots[4] = {
    {"object", {{"matrix", 0, NULL}, {"vector", 0, "vector objects are not supported"}}},
    {"format", {{"array", 0, NULL}, {"coordinate", 1, NULL}}},
    {"field",
     {{"real", F_REAL, NULL},
      {"double", F_REAL, NULL},
      {"integer", F_INTEGER, NULL},
      {"pattern", F_PATTERN, NULL},
      {"complex", 0, "complex matrices are not supported"}}},
    {"symmetry",
     {{"general", S_GENERAL, NULL},
      {"symmetric", S_SYMMETRIC, NULL},
      {"skew-symmetric", S_SKEW, NULL},
      {"hermitian", S_HERMITIAN, NULL}}},
};

/* Reads the next banner word into *value, or fails naming the choices. */
static tdcl_status banner_word(rd *r, const char **p, const char *e, const banner_slot *sl,
                               int *value, tdcl_err *err)
{
    const char *ws = e, *we = e;
    char tok[48], list[160] = "";
    next_word(p, e, &ws, &we);
    const banner_choice *c = sl->choices;
    for (; c->word; c++)
        if (word_is(ws, we, c->word)) {
            if (c->refusal)
                return tdcl_fail(err, TDCL_EUNSUPPORTED, "%s:1: %s (%s '%s')", r->name, c->refusal,
                                 sl->what, c->word);
            *value = c->value;
            return TDCL_OK;
        }
    int n = 0;
    for (c = sl->choices; c->word; c++)
        n += !c->refusal;
    for (int i = 0, k = 0; sl->choices[i].word; i++) {
        if (sl->choices[i].refusal) continue;
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s'%s'",
                 k == 0       ? ""
                 : k == n - 1 ? " or "
                              : ", ",
                 sl->choices[i].word);
        k++;
    }
    return tdcl_fail(err, TDCL_EPARSE, "%s:1: expected the %s %s, got '%s'", r->name, sl->what,
                     list, token(ws, we, tok));
}

static tdcl_status parse_banner(rd *r, const char *p, const char *e, tdcl_err *err)
{
    char tok[48];
    const char *ws = NULL, *we = NULL;
    if (e - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) /* a UTF-8 byte order mark */
        p += 3;
    if (binary_line(p, e))
        return tdcl_fail(err, TDCL_EPARSE, "%s: not a Matrix Market file (binary data)", r->name);
    if (!next_word(&p, e, &ws, &we) || !word_is(ws, we, "%%matrixmarket"))
        return tdcl_fail(err, TDCL_EPARSE,
                         "%s:1: expected the banner '%%%%MatrixMarket matrix FORMAT FIELD "
                         "SYMMETRY', got '%s'",
                         r->name, token(ws ? ws : p, e, tok));
    int v[4];
    for (int i = 0; i < 4; i++) {
        tdcl_status st = banner_word(r, &p, e, &banner_slots[i], &v[i], err);
        if (st) return st;
    }
    r->h.coord = v[1];
    r->h.field = (mtx_field)v[2];
    r->h.sym = (mtx_sym)v[3];
    r->h.hermitian = r->h.sym == S_HERMITIAN;
    if (r->h.hermitian) r->h.sym = S_SYMMETRIC; /* complex was refused above: the values are real */
    if (r->h.field == F_PATTERN && !r->h.coord)
        return tdcl_fail(err, TDCL_EPARSE,
                         "%s:1: the field 'pattern' needs the coordinate format, got array",
                         r->name);
    if (r->h.sym == S_SKEW && r->h.field == F_PATTERN)
        return tdcl_fail(err, TDCL_EPARSE,
                         "%s:1: a pattern matrix cannot be skew-symmetric (its entries are 1)",
                         r->name);
    if (next_word(&p, e, &ws, &we))
        return tdcl_fail(err, TDCL_EPARSE,
                         "%s:1: expected the end of the banner after the symmetry, got '%s'",
                         r->name, token(ws, we, tok));
    return TDCL_OK;
}

/* Parses "rows cols" or "rows cols entries" into v; returns the count of
 * numbers, or -1 when a word is not a nonnegative int64. */
static int size_numbers(const char *p, const char *e, int64_t v[3])
{
    const char *ws, *we;
    int n = 0;
    while (next_word(&p, e, &ws, &we)) {
        if (n == 3) return -1;
        uint64_t u;
        int ovf;
        const char *q = tdcl_nc_parse_u64(ws, we, &u, &ovf);
        if (!q || q != we || u > (uint64_t)INT64_MAX) return -1;
        v[n++] = (int64_t)u;
    }
    return n;
}

/* Stored entries an array file holds for its symmetry. */
static tdcl_status array_entries(rd *r, tdcl_err *err)
{
    uint64_t n = (uint64_t)r->h.rows, c = (uint64_t)r->h.cols;
    if (r->h.sym == S_GENERAL) {
        if (c > UINT64_MAX / n)
            return tdcl_fail(err, TDCL_ELIMIT, "%s:%lld: a %llux%llu matrix is too large", r->name,
                             (long long)r->line, (unsigned long long)n, (unsigned long long)c);
        r->h.want = n * c;
    } else {
        if (n > UINT32_MAX) /* n*(n+1)/2 must not overflow */
            return tdcl_fail(err, TDCL_ELIMIT, "%s:%lld: a %llux%llu matrix is too large", r->name,
                             (long long)r->line, (unsigned long long)n, (unsigned long long)c);
        r->h.want = r->h.sym == S_SYMMETRIC ? n * (n + 1) / 2 : n * (n - 1) / 2;
    }
    return TDCL_OK;
}

static tdcl_status parse_size_line(rd *r, const char *p, const char *e, tdcl_err *err)
{
    char txt[72];
    int64_t v[3];
    int want = r->h.coord ? 3 : 2;
    int n = size_numbers(p, e, v);
    if (n != want || v[0] < 1 || v[1] < 1)
        return tdcl_fail(err, TDCL_EPARSE, "%s:%lld: expected '%s' after the banner, got '%s'",
                         r->name, (long long)r->line,
                         r->h.coord ? "rows cols entries" : "rows cols", line_text(p, e, txt));
    r->h.rows = v[0];
    r->h.cols = v[1];
    if (r->h.sym != S_GENERAL && v[0] != v[1])
        return tdcl_fail(err, TDCL_EPARSE, "%s:%lld: a %s matrix must be square, got %lldx%lld",
                         r->name, (long long)r->line,
                         r->h.hermitian            ? "hermitian"
                         : r->h.sym == S_SYMMETRIC ? "symmetric"
                                                   : "skew-symmetric",
                         (long long)v[0], (long long)v[1]);
    if (r->h.coord) {
        r->h.want = (uint64_t)v[2];
        return TDCL_OK;
    }
    return array_entries(r, err);
}

/* Reads the banner, comments, blank lines and the size line. */
static tdcl_status parse_header(rd *r, tdcl_err *err)
{
    const char *ls, *le;
    int any;
    tdcl_status st = next_line(r, &ls, &le, &any, err);
    if (st) return st;
    if (!any)
        return tdcl_fail(err, TDCL_EPARSE, "'%s' is empty: expected a Matrix Market file", r->name);
    if ((st = parse_banner(r, ls, le, err))) return st;
    for (;;) {
        if ((st = next_line(r, &ls, &le, &any, err))) return st;
        if (!any)
            return tdcl_fail(err, TDCL_EPARSE,
                             "%s:%lld: expected the size line, got the end of the file", r->name,
                             (long long)r->line + 1);
        const char *q = ls;
        while (q < le && is_blank(*q))
            q++;
        if (q < le && *q != '%') return parse_size_line(r, q, le, err);
    }
}

/* The smallest text an entry needs ("1\n", "1 1\n", "1 1 1\n"). */
static uint64_t min_entry_bytes(const mtx_hdr *h)
{
    return !h->coord ? 2 : h->field == F_PATTERN ? 4 : 6;
}

/* Refuses a header claiming more entries than the rest of the file can
 * hold, before anything large is allocated. */
static tdcl_status check_claim(rd *r, tdcl_err *err)
{
    uint64_t max = tdcl_src_max_content(r->src);
    if (max == UINT64_MAX || r->h.want == 0) return TDCL_OK;
    uint64_t used =
        r->base ? (uint64_t)(r->p - r->base) : r->src->consumed - (uint64_t)(r->e - r->p);
    uint64_t left = max > used ? max - used : 0;
    uint64_t per = min_entry_bytes(&r->h);
    if (r->h.want > (left + 1) / per && r->src->gz)
        return tdcl_fail(err, TDCL_EPARSE,
                         "%s:%lld: the size line claims %llu entries, but %llu bytes of gzip "
                         "inflate to at most %llu bytes, which hold at most %llu",
                         r->name, (long long)r->line, (unsigned long long)r->h.want,
                         (unsigned long long)r->src->file_size, (unsigned long long)max,
                         (unsigned long long)((left + 1) / per));
    if (r->h.want > (left + 1) / per)
        return tdcl_fail(err, TDCL_EPARSE,
                         "%s:%lld: the size line claims %llu entries, but the %llu bytes after "
                         "it can hold at most %llu",
                         r->name, (long long)r->line, (unsigned long long)r->h.want,
                         (unsigned long long)left, (unsigned long long)((left + 1) / per));
    return TDCL_OK;
}

/* --- body: parsing one part ---------------------------------------------- */

static void part_fail(part *t, tdcl_status st, int64_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void part_fail(part *t, tdcl_status st, int64_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->msg, sizeof t->msg, fmt, ap);
    va_end(ap);
    t->st = st;
    t->err_line = line;
}

static int part_grow(part *t)
{
    size_t cap = t->cap ? t->cap * 2 : (size_t)(t->e - t->p) / 8 + 64;
    val8 *v = realloc(t->v, cap * sizeof *v);
    if (!v) return -1;
    t->v = v;
    t->cap = cap;
    return 0;
}

/* The band of row i. */
static int band_of(const part *t, int64_t i)
{
    int b = 0;
    for (int k = 1; k < t->nb; k++)
        b += i >= t->bound[k];
    return b;
}

static int band_grow(const part *t, band *bd)
{
    size_t cap = bd->cap ? bd->cap * 2 : (size_t)(t->e - t->p) / 16 / (size_t)t->nb + 64;
    item *it = realloc(bd->it, cap * sizeof *it);
    if (!it) return -1;
    bd->it = it;
    bd->cap = cap;
    return 0;
}

/* Appends the item (i, j) += v to the list of row i's band; -1 when out of
 * memory. */
static inline int put_item(part *t, int64_t i, int64_t j, val8 v)
{
    band *bd = &t->b[t->nb == 1 ? 0 : t->nb == 2 ? i >= t->bound[1] : band_of(t, i)];
    if (__builtin_expect(bd->n == bd->cap, 0) && band_grow(t, bd)) return -1;
    bd->it[bd->n++] = (item){(uint64_t)i * (uint64_t)t->h->cols + (uint64_t)j, v};
    return 0;
}

/* Parses one value of the header's field at p; NULL (and a part error) if
 * there is none. */
static const char *parse_value(part *t, const char *p, const char *e, val8 *out)
{
    char tok[48];
    const char *q;
    if (t->h->field == F_INTEGER) {
        int ovf;
        q = tdcl_nc_parse_i64(p, e, &out->i, &ovf);
        if (q && q < e && !is_blank(*q) && *q != '\n')
            q = NULL; /* "12.5" or "3x" is not an integer */
        if (!q)
            part_fail(t, TDCL_EPARSE, t->lines + 1,
                      ovf ? "integer '%s' is outside the int64 range"
                          : "expected an integer, "
                            "got '%s'",
                      token(p, e, tok));
        if (q && t->h->sym == S_SKEW && out->i == INT64_MIN) {
            part_fail(t, TDCL_EPARSE, t->lines + 1,
                      "'%s' cannot be negated for the mirrored skew-symmetric entry",
                      token(p, e, tok));
            q = NULL;
        }
        return q;
    }
    q = tdcl_nc_parse_f64_fast(p, e, &out->f);
    if (!q)
        part_fail(t, TDCL_EPARSE, t->lines + 1, "expected a real number, got '%s'",
                  token(p, e, tok));
    return q;
}

/* After the last value of a line: blanks, then the line end or the end of
 * the text. Returns the start of the next line, or NULL (part error). */
static const char *end_of_entry(part *t, const char *p, const char *e, const char *what)
{
    char tok[48];
    while (p < e && is_blank(*p))
        p++;
    if (p < e && *p != '\n') {
        part_fail(t, TDCL_EPARSE, t->lines + 1, "expected the end of the line after %s, got '%s'",
                  what, token(p, e, tok));
        return NULL;
    }
    if (p < e) {
        t->lines++;
        p++;
    }
    return p;
}

/* Parses the array entries of [p, e), one value per line, into t->v. */
static void parse_array_text(part *t, const char *p, const char *e)
{
    while (p < e) {
        while (p < e && is_blank(*p))
            p++;
        if (p < e && *p == '\n') { /* a blank line */
            t->lines++;
            p++;
            continue;
        }
        if (p == e) break;
        if (t->n == t->cap && part_grow(t)) {
            part_fail(t, TDCL_ENOMEM, t->lines + 1, "out of memory");
            return;
        }
        if (!(p = parse_value(t, p, e, &t->v[t->n]))) return;
        t->n++;
        if (!(p = end_of_entry(t, p, e, "the value"))) return;
    }
}

/* Parses a 1-based index in [1, max] at p, followed by a blank. */
static const char *parse_index(part *t, const char *p, const char *e, int64_t max, const char *what,
                               int64_t *out)
{
    char tok[48];
    uint64_t u;
    int ovf;
    const char *q = tdcl_nc_parse_u64_fast(p, e, &u, &ovf);
    if (!q || (q < e && !is_blank(*q) && *q != '\n')) {
        part_fail(t, TDCL_EPARSE, t->lines + 1, "expected a %s index, got '%s'", what,
                  token(p, e, tok));
        return NULL;
    }
    if (u < 1 || u > (uint64_t)max) {
        part_fail(t, TDCL_EPARSE, t->lines + 1, "%s index %s is out of range 1..%lld", what,
                  token(p, e, tok), (long long)max);
        return NULL;
    }
    *out = (int64_t)u - 1;
    return q;
}

static const char *skip_blanks(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* Parses the entry at p into c and counts it in t->n; returns the start of
 * the next line, or NULL (part error). The count includes an entry whose
 * line ends in garbage, so that an extra entry is named as such. */
static const char *parse_coord_entry(part *t, const char *p, const char *e, centry *c)
{
    const mtx_hdr *h = t->h;
    char tok[48];
    if (!(p = parse_index(t, p, e, h->rows, "row", &c->i))) return NULL;
    if (!(p = parse_index(t, skip_blanks(p, e), e, h->cols, "column", &c->j))) return NULL;
    if (h->field == F_PATTERN) {
        c->v.f = 1.0;
        t->n++;
        return end_of_entry(t, p, e, "'row column'");
    }
    const char *vs = skip_blanks(p, e);
    if (vs == p || vs == e || *vs == '\n' || *vs == '\r') {
        part_fail(t, TDCL_EPARSE, t->lines + 1, "expected 'row column value', got no value");
        return NULL;
    }
    if (!(p = parse_value(t, vs, e, &c->v))) return NULL;
    if (h->sym == S_SKEW && c->i == c->j && (h->field == F_INTEGER ? c->v.i != 0 : c->v.f != 0)) {
        part_fail(t, TDCL_EPARSE, t->lines + 1,
                  "a skew-symmetric matrix has a zero diagonal, got '%s' at (%lld, %lld)",
                  token(vs, e, tok), (long long)c->i + 1, (long long)c->j + 1);
        return NULL;
    }
    t->n++;
    return end_of_entry(t, p, e, "'row column value'");
}

/* Skips blanks and blank lines; returns the start of the next entry, or e. */
static const char *skip_blank_lines(part *t, const char *p, const char *e)
{
    for (;;) {
        while (p < e && is_blank(*p))
            p++;
        if (p == e || *p != '\n') return p;
        t->lines++;
        p++;
    }
}

/* The rows an entry adds to: its own, and for a symmetric or skew-symmetric
 * file the mirrored one off the diagonal. Returns how many (1 or 2). */
static int entry_rows(const mtx_hdr *h, const centry *c, int64_t rows[2])
{
    rows[0] = c->i;
    rows[1] = c->j;
    return h->sym != S_GENERAL && c->i != c->j ? 2 : 1;
}

/* Stores entry c: its item, and the mirrored one of a symmetric or
 * skew-symmetric file; -1 when out of memory. */
static inline int put_entry(part *t, const centry *c)
{
    int64_t rows[2];
    if (put_item(t, c->i, c->j, c->v)) return -1;
    if (entry_rows(t->h, c, rows) == 1) return 0;
    val8 m = c->v; /* the parser refused INT64_MIN for skew files */
    if (t->h->sym == S_SKEW && t->h->field == F_INTEGER)
        m.i = -m.i;
    else if (t->h->sym == S_SKEW)
        m.f = -m.f;
    return put_item(t, c->j, c->i, m);
}

#ifdef __SSE2__
/* The bits of the '\n' among the 64 bytes at p. */
static uint64_t newline_bits(const char *p)
{
    const __m128i nl = _mm_set1_epi8('\n');
    uint64_t m = 0;
    for (int k = 0; k < 4; k++) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
        m |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, nl)) << (16 * k);
    }
    return m;
}

/* The usual line, "row column value" with single spaces and a value in the
 * simple form, parsed with no loop over characters; 0 to leave the line to
 * the general parser (which also names what is wrong). p starts the line,
 * le is its '\n'; 128 bytes from p are readable. */
static int fast_coord_line(const mtx_hdr *h, const char *p, const char *le, centry *c)
{
    int n = tdcl_nc_digit_run(p);
    if (n == 0 || n > 15 || p[n] != ' ') return 0;
    uint64_t i = tdcl_nc_run_value(p, n);
    p += n + 1;
    n = tdcl_nc_digit_run(p);
    if (n == 0 || n > 15) return 0;
    uint64_t j = tdcl_nc_run_value(p, n);
    p += n;
    if (i - 1 >= (uint64_t)h->rows || j - 1 >= (uint64_t)h->cols) return 0;
    if (h->field == F_PATTERN) {
        c->v.f = 1.0;
    } else if (*p++ != ' ') {
        return 0;
    } else if (h->field == F_REAL) {
        size_t len = (size_t)(le - p); /* the value runs to the line end */
        len -= len > 0 && le[-1] == '\r';
        if (!tdcl_nc_parse_f64_line(p, len, &c->v.f)) return 0;
        p += len;
    } else {
        int neg = *p == '-';
        p += neg;
        n = tdcl_nc_digit_run(p);
        if (n == 0 || n > 15) return 0;
        int64_t v = (int64_t)tdcl_nc_run_value(p, n);
        c->v.i = neg ? -v : v;
        p += n;
    }
    if (p != le && (p + 1 != le || *p != '\r')) return 0; /* CRLF files too */
    if (h->sym == S_SKEW && i == j) return 0; /* the general parser checks the diagonal */
    c->i = (int64_t)i - 1;
    c->j = (int64_t)j - 1;
    return 1;
}

/* Parses the lines of [*pp, e) that start at least 128 bytes before e. The
 * line ends are found first, 64 bytes at a time, so each line's parse
 * starts from a known place instead of waiting for the previous one to
 * finish: the core overlaps consecutive lines. Lines the fast path does
 * not take go to the general parser. Returns -1 on a part error. */
static int parse_coord_lines(part *t, const char **pp, const char *e)
{
    const char *p = *pp, *blk = p;
    if (e - p < 192) return 0;
    const char *stop = e - 128;
    uint64_t bits = newline_bits(blk);
    while (p < stop) {
        while (!bits) {
            blk += 64;
            if (blk > e - 64) goto out;
            bits = newline_bits(blk);
        }
        const char *le = blk + __builtin_ctzll(bits);
        bits &= bits - 1;
        if (le - p < 48) {
            centry c;
            if (fast_coord_line(t->h, p, le, &c)) {
                t->n++;
                t->lines++;
                if (put_entry(t, &c)) goto oom;
                p = le + 1;
                continue;
            }
        }
        const char *q = p;
        while (q < le && is_blank(*q))
            q++;
        if (q == le) { /* a blank line */
            t->lines++;
        } else {
            centry c; /* one entry, up to and past le, or an error */
            if (!parse_coord_entry(t, q, e, &c)) return -1;
            if (put_entry(t, &c)) goto oom;
        }
        p = le + 1;
    }
out:
    *pp = p;
    return 0;
oom:
    part_fail(t, TDCL_ENOMEM, t->lines, "out of memory");
    return -1;
}
#endif

#ifdef __SSE2__
/* One array line [p, le) the fast path did not take: a blank line, or
 * an entry for the general parser (which names what is wrong). Returns
 * -1 on a part error. */
static int array_line_slow(part *t, const char *p, const char *le, const char *e)
{
    const char *q = p;
    while (q < le && is_blank(*q))
        q++;
    if (q == le) { /* a blank line */
        t->lines++;
        return 0;
    }
    if (!(q = parse_value(t, q, e, &t->v[t->n]))) return -1;
    t->n++;
    return end_of_entry(t, q, e, "the value") ? 0 : -1;
}

/* parse_coord_lines for a real array file: the lines of [*pp, e) that
 * start at least 128 bytes before e, each found from the line ends of 64
 * bytes at a time and parsed whole by tdcl_nc_parse_f64_line, so the
 * parse of a line never waits for the one before it. */
static int parse_array_lines(part *t, const char **pp, const char *e)
{
    const char *p = *pp, *blk = p;
    if (e - p < 192) return 0;
    const char *stop = e - 128;
    uint64_t bits = newline_bits(blk);
    while (p < stop) {
        while (!bits) {
            blk += 64;
            if (blk > e - 64) goto out;
            bits = newline_bits(blk);
        }
        const char *le = blk + __builtin_ctzll(bits);
        bits &= bits - 1;
        if (__builtin_expect(t->n == t->cap, 0) && part_grow(t)) {
            part_fail(t, TDCL_ENOMEM, t->lines + 1, "out of memory");
            return -1;
        }
        size_t len = (size_t)(le - p);
        len -= len > 0 && le[-1] == '\r'; /* CRLF files too */
        if (tdcl_nc_parse_f64_line(p, len, &t->v[t->n].f)) {
            t->n++;
            t->lines++;
        } else if (array_line_slow(t, p, le, e)) {
            return -1;
        }
        p = le + 1;
    }
out:
    *pp = p;
    return 0;
}
#endif

static void parse_array_part(part *t)
{
    const char *p = t->p;
#ifdef __SSE2__
    if (t->h->field == F_REAL && parse_array_lines(t, &p, t->e)) return;
#endif
    parse_array_text(t, p, t->e);
}

static void parse_coord_part(part *t)
{
    const char *p = t->p, *e = t->e;
#ifdef __SSE2__
    if (parse_coord_lines(t, &p, e)) return;
#endif
    while ((p = skip_blank_lines(t, p, e)) < e) {
        centry c;
        if (!(p = parse_coord_entry(t, p, e, &c))) return;
        if (put_entry(t, &c)) {
            part_fail(t, TDCL_ENOMEM, t->lines, "out of memory");
            return;
        }
    }
}

/* Parses part t again from its start (error paths only), counting in
 * cnt[b] the items each band gets, until `stop` entries are done or band
 * `wb` is about to get its item `wi`. Returns the 1-based line, within the
 * part, of the entry it stopped at. */
static int64_t walk_part(const part *t, size_t stop, int wb, size_t wi, size_t cnt[MTX_MAXT])
{
    part s = {.h = t->h, .p = t->p, .e = t->e, .nb = t->nb, .bound = t->bound};
    const char *p = s.p;
    memset(cnt, 0, MTX_MAXT * sizeof *cnt);
    while (s.n < stop && (p = skip_blank_lines(&s, p, s.e)) < s.e) {
        int64_t line = s.lines + 1, rows[2];
        centry c;
        if (!(p = parse_coord_entry(&s, p, s.e, &c))) return line;
        for (int k = 0, nr = entry_rows(s.h, &c, rows); k < nr; k++) {
            int b = band_of(&s, rows[k]);
            if (b == wb && cnt[b] == wi) return line;
            cnt[b]++;
        }
    }
    return s.lines + 1;
}

static void parse_part(void *arg, int i)
{
    part *t = &((rd *)arg)->parts[i];
    if (t->p == t->e) return;
    if (t->h->coord)
        parse_coord_part(t);
    else
        parse_array_part(t);
}

/* --- body: placing the parsed entries ------------------------------------ */

/* Row and column of stored entry k of a symmetric (diag = 1) or
 * skew-symmetric (diag = 0) array file: the lower triangle column by column. */
static void tri_pos(uint64_t k, int64_t n, int diag, int64_t *i, int64_t *j)
{
    int64_t c = 0;
    for (;;) {
        uint64_t len = (uint64_t)(n - c - (diag ? 0 : 1));
        if (k < len) break;
        k -= len;
        c++;
    }
    *j = c;
    *i = c + (diag ? 0 : 1) + (int64_t)k;
}

/* Column-major entries k0..k1 of a general array into row-major d, one by
 * one (the partial columns at the ends of a part). */
static void scatter_cm_range(val8 *d, int64_t rows, int64_t cols, uint64_t k0, uint64_t k1,
                             const val8 *v)
{
    int64_t i = (int64_t)(k0 % (uint64_t)rows), j = (int64_t)(k0 / (uint64_t)rows);
    for (uint64_t k = k0; k < k1; k++) {
        d[i * cols + j] = *v++;
        if (++i == rows) {
            i = 0;
            j++;
        }
    }
}

/* Whole columns j0..j1 (v holds them column-major) into row-major d, eight
 * columns at a time, so each row gets a full cache line per visit instead
 * of one value per line and page. */
static void scatter_cm_columns(val8 *d, int64_t rows, int64_t cols, int64_t j0, int64_t j1,
                               const val8 *v)
{
    enum { W = 8 };
    int64_t j = j0;
    for (; j + W <= j1; j += W) {
        const val8 *src = v + (j - j0) * rows;
        for (int64_t i = 0; i < rows; i++)
            for (int c = 0; c < W; c++)
                d[i * cols + j + c] = src[c * rows + i];
    }
    if (j < j1)
        scatter_cm_range(d, rows, cols, (uint64_t)(j * rows), (uint64_t)(j1 * rows),
                         v + (j - j0) * rows);
}

static void scatter_general_array(rd *r, const part *t)
{
    int64_t rows = r->h.rows, cols = r->h.cols;
    uint64_t k0 = t->k0, k1 = t->k0 + t->n, ur = (uint64_t)rows;
    uint64_t a = (k0 + ur - 1) / ur * ur, b = k1 / ur * ur; /* whole columns in [a, b) */
    val8 *d = r->m->data;
    if (a >= b) {
        scatter_cm_range(d, rows, cols, k0, k1, t->v);
        return;
    }
    scatter_cm_range(d, rows, cols, k0, a, t->v);
    scatter_cm_columns(d, rows, cols, (int64_t)(a / ur), (int64_t)(b / ur), t->v + (a - k0));
    scatter_cm_range(d, rows, cols, b, k1, t->v + (b - k0));
}

static void scatter_array_part(rd *r, const part *t)
{
    const mtx_hdr *h = &r->h;
    int64_t n = h->rows, cols = h->cols, i, j;
    val8 *d = r->m->data;
    if (h->sym == S_GENERAL) {
        scatter_general_array(r, t);
        return;
    }
    int diag = h->sym == S_SYMMETRIC;
    int isint = h->field == F_INTEGER;
    tri_pos(t->k0, n, diag, &i, &j);
    for (size_t k = 0; k < t->n; k++) {
        val8 v = t->v[k], m = v;
        if (!diag) {
            if (isint)
                m.i = -v.i;
            else
                m.f = -v.f;
        }
        d[i * cols + j] = v;
        d[j * cols + i] = m; /* on the diagonal this rewrites v itself */
        if (++i == n) {
            j++;
            i = j + (diag ? 0 : 1);
        }
    }
}

/* Adds band items to d in order, asking for the cell a few items ahead so
 * the cache misses of the scattered cells overlap instead of queueing. */
static void add_real(val8 *d, const item *it, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (k + PREFETCH < n) __builtin_prefetch(&d[it[k + PREFETCH].cell], 1);
        d[it[k].cell].f += it[k].v.f;
    }
}

/* A pattern's items set their cells to 1: an entry given twice is still
 * one entry, as in the CSR reading. */
static void set_ones(val8 *d, const item *it, size_t n)
{
    for (size_t k = 0; k < n; k++)
        d[it[k].cell].f = 1.0;
}

/* add_real for integers; returns n, or the index of the first item whose
 * sum overflows int64. */
static size_t add_int(val8 *d, const item *it, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (k + PREFETCH < n) __builtin_prefetch(&d[it[k + PREFETCH].cell], 1);
        if (__builtin_add_overflow(d[it[k].cell].i, it[k].v.i, &d[it[k].cell].i)) return k;
    }
    return n;
}

typedef struct coord_job {
    rd *r;
    const part *parts; /* the chunk to add up */
    int nparts;
    int bad_part[MTX_MAXT]; /* -1, or the part of the first overflowing item */
    size_t bad_item[MTX_MAXT];
    int oom[MTX_MAXT];
} coord_job;

/* Appends n items to l; -1 when out of memory. */
static int list_append(mtx_list *l, const item *it, size_t n)
{
    if (n == 0) return 0;
    if (n > l->cap - l->n) {
        size_t cap = l->cap ? l->cap : 4096;
        while (cap - l->n < n)
            cap *= 2;
        item *p = realloc(l->it, cap * sizeof *p);
        if (!p) return -1;
        l->it = p;
        l->cap = cap;
    }
    memcpy(l->it + l->n, it, n * sizeof *it);
    l->n += n;
    return 0;
}

/* scatter_coord for a sparse result: band w's items of every part go to
 * the end of the band's list, part by part, so the list keeps file order. */
static void gather_coord(coord_job *job, int w)
{
    for (int pi = 0; pi < job->nparts; pi++) {
        const band *bd = &job->parts[pi].b[w];
        if (list_append(&job->r->acc[w], bd->it, bd->n)) {
            job->oom[w] = 1;
            return;
        }
    }
}

/* Thread w adds up band w: the items of every part for its rows, part by
 * part in file order. Each cell is summed by one thread in the order of the
 * file, so the sums do not depend on the thread count. */
static void scatter_coord(void *arg, int w)
{
    coord_job *job = arg;
    job->bad_part[w] = -1;
    job->oom[w] = 0;
    if (job->r->sparse) {
        gather_coord(job, w);
        return;
    }
    val8 *d = job->r->m->data;
    int isint = job->r->h.field == F_INTEGER, pattern = job->r->h.field == F_PATTERN;
    for (int pi = 0; pi < job->nparts; pi++) {
        const band *bd = &job->parts[pi].b[w];
        if (pattern) {
            set_ones(d, bd->it, bd->n);
            continue;
        }
        if (!isint) {
            add_real(d, bd->it, bd->n);
            continue;
        }
        size_t k = add_int(d, bd->it, bd->n);
        if (k < bd->n) {
            job->bad_part[w] = pi;
            job->bad_item[w] = k;
            return;
        }
    }
}

/* After scatter_coord ran on every band of job: names the first int64
 * overflow in file order, if any (the parts' text must still be there). */
static tdcl_status overflow_error(const coord_job *job, tdcl_err *err)
{
    const rd *r = job->r;
    int64_t best = -1;
    uint64_t cell = 0;
    for (int w = 0; w < job->parts[0].nb; w++)
        if (job->oom[w]) return tdcl_fail(err, TDCL_ENOMEM, "out of memory reading '%s'", r->name);
    for (int w = 0; w < job->parts[0].nb; w++) {
        if (job->bad_part[w] < 0) continue;
        const part *t = &job->parts[job->bad_part[w]];
        size_t cnt[MTX_MAXT];
        int64_t line = t->line0 + walk_part(t, SIZE_MAX, w, job->bad_item[w], cnt);
        if (best < 0 || line < best) {
            best = line;
            cell = t->b[w].it[job->bad_item[w]].cell;
        }
    }
    if (best < 0) return TDCL_OK;
    uint64_t cols = (uint64_t)r->h.cols;
    return tdcl_fail(err, TDCL_EPARSE,
                     "%s:%lld: the sum of the entries at (%llu, %llu) overflows int64", r->name,
                     (long long)best, (unsigned long long)(cell / cols + 1),
                     (unsigned long long)(cell % cols + 1));
}

/* Adds up the items of the first np parts being parsed. */
static tdcl_status scatter_coord_parts(rd *r, int np, tdcl_err *err)
{
    coord_job job = {.r = r, .parts = r->parts, .nparts = np};
    tdcl_pool_run(r->parts[0].nb, scatter_coord, &job);
    return overflow_error(&job, err);
}

static void scatter_array(void *arg, int i)
{
    rd *r = arg;
    scatter_array_part(r, &r->parts[i]);
}

/* Splits [p, q) into parts at line ends, one per thread unless small. */
static int split_region(rd *r, const char *p, const char *q)
{
    size_t len = (size_t)(q - p);
    int np = len <= r->chunk ? 1 : r->nt;
    int nb = r->sparse ? r->nt : np; /* a sparse result keeps its bands */
    const char *s = p;
    for (int i = 0; i < np; i++) {
        const char *e = i == np - 1 ? q : p + len / (size_t)np * (size_t)(i + 1);
        if (e < s) e = s;
        if (i < np - 1) {
            const char *nl = memchr(e, '\n', (size_t)(q - e));
            e = nl ? nl + 1 : q;
        }
        part *t = &r->parts[i];
        t->h = &r->h;
        t->p = s;
        t->e = e;
        t->n = 0;
        t->nb = nb;
        t->bound = r->bound;
        for (int b = 0; b < nb; b++)
            t->b[b].n = 0;
        t->lines = 0;
        t->st = TDCL_OK;
        s = e;
    }
    for (int b = 0; b <= nb; b++)
        r->bound[b] = (int64_t)((uint64_t)r->h.rows * (uint64_t)b / (uint64_t)nb);
    return np;
}

/* The 1-based line, within part t, of its stored entry k (0-based). */
static int64_t entry_line(const part *t, size_t k, const char **at)
{
    const char *p = t->p;
    int64_t line = 1;
    for (;;) {
        const char *q = p;
        while (q < t->e && is_blank(*q))
            q++;
        if (q < t->e && *q != '\n' && k-- == 0) {
            *at = q;
            return line;
        }
        const char *nl = memchr(q, '\n', (size_t)(t->e - q));
        if (!nl) {
            *at = t->e;
            return line;
        }
        p = nl + 1;
        line++;
    }
}

/* Checks each part in file order and gives it its place among the entries.
 * On an error, *ngood is the count of parts whose items precede it (the
 * failing part's kept to its entries before the error), so that an integer
 * overflow earlier in the file can still be found and named first. */
static tdcl_status account_parts(rd *r, int np, int *ngood, tdcl_err *err)
{
    *ngood = np;
    for (int i = 0; i < np; i++) {
        part *t = &r->parts[i];
        uint64_t room = r->h.want - r->have;
        t->line0 = r->line;
        *ngood = i + 1;
        if (t->n > room && r->h.coord) { /* keep only the entries that fit */
            size_t cnt[MTX_MAXT];
            walk_part(t, (size_t)room, -1, 0, cnt);
            for (int b = 0; b < t->nb; b++)
                t->b[b].n = cnt[b];
        }
        if (t->n > room) {
            const char *at;
            char tok[48];
            int64_t line = entry_line(t, (size_t)room, &at);
            return tdcl_fail(err, TDCL_EPARSE,
                             "%s:%lld: expected the end of the file after %llu entries, got '%s'",
                             r->name, (long long)(r->line + line), (unsigned long long)r->h.want,
                             token(at, t->e, tok));
        }
        if (t->st)
            return tdcl_fail(err, t->st, "%s:%lld: %s", r->name, (long long)(r->line + t->err_line),
                             t->msg);
        t->k0 = r->have;
        r->have += t->n;
        r->line += t->lines;
    }
    return TDCL_OK;
}

static tdcl_status do_region(rd *r, const char *p, const char *q, tdcl_err *err)
{
    int np = split_region(r, p, q), ngood;
    tdcl_pool_run(np, parse_part, r);
    tdcl_status st = account_parts(r, np, &ngood, err);
    if (!r->h.coord) {
        if (!st) tdcl_pool_run(np, scatter_array, r);
        return st;
    }
    tdcl_status over = scatter_coord_parts(r, ngood, err);
    return over ? over : st;
}

/* One round of the overlapped reading: thread w places part w (array) or
 * adds up band w (coordinate) of the chunk parsed last round, then parses
 * part w of the next chunk. */
typedef struct round_job {
    rd *r;
    int np;          /* parts to parse */
    coord_job *prev; /* NULL in the first round */
} round_job;

static void round_step(void *arg, int w)
{
    round_job *j = arg;
    if (j->prev && w < j->prev->parts[0].nb) {
        if (j->r->h.coord)
            scatter_coord(j->prev, w);
        else
            scatter_array_part(j->r, &j->prev->parts[w]);
    }
    if (w < j->np) parse_part(j->r, w);
}

static const char *last_newline(const char *p, const char *e)
{
    while (e > p)
        if (*--e == '\n') return e;
    return NULL;
}

/* The next line-aligned region of text, or 0 at the end of the input. */
static tdcl_status next_region(rd *r, const char **q, int *any, tdcl_err *err)
{
    *any = 0;
    if (!r->buf) {
        if (r->p == r->e) return TDCL_OK;
        size_t span = (size_t)r->nt * r->chunk;
        *q = (size_t)(r->e - r->p) <= span ? r->e : r->p + span;
        if (*q < r->e) {
            const char *nl = memchr(*q, '\n', (size_t)(r->e - *q));
            *q = nl ? nl + 1 : r->e;
        }
        *any = 1;
        return TDCL_OK;
    }
    for (;;) {
        tdcl_status st = fill(r, err);
        if (st) return st;
        if (r->eof) {
            *q = r->e;
            *any = r->p < r->e;
            return TDCL_OK;
        }
        const char *nl = last_newline(r->p, r->e);
        if (nl) {
            *q = nl + 1;
            *any = 1;
            return TDCL_OK;
        }
    }
}

typedef struct touch_job {
    char *p;
    size_t bytes, page;
    int nw;
} touch_job;

/* Thread w writes one zero per page of its share of the matrix. */
static void touch_pages(void *arg, int w)
{
    touch_job *j = arg;
    size_t pages = (j->bytes + j->page - 1) / j->page;
    size_t a = pages * (size_t)w / (size_t)j->nw, b = pages * (size_t)(w + 1) / (size_t)j->nw;
    for (size_t k = a; k < b; k++)
        ((volatile char *)j->p)[k * j->page] = 0;
}

/* Gets the dense result ready for the scatter of the entries. Left to
 * calloc's lazy zero pages, the first `+=` of a coordinate entry to a page
 * reads the shared zero page and then faults again to copy it, which
 * flushes the TLB of every core running the process: an interrupt per
 * page, a third of the time with two threads. Writing one byte per page
 * first (each thread its share) maps every page once, writable. Huge
 * pages, where the kernel grants them, spare the random cells of a
 * coordinate file and the column-to-row transposition of an array file a
 * TLB miss per entry or row. Only done for a mapped file whose text is at
 * least an eighth of the matrix: then the entries touch every page anyway,
 * and the text is really there (a header cannot make us commit memory
 * that a short or bogus body would never fill). A large matrix with few
 * entries keeps its untouched pages unbacked. */
static void prepare_dense(rd *r)
{
    size_t bytes = tdcl_matrix_count(r->m) * sizeof(val8);
    long page = sysconf(_SC_PAGE_SIZE);
    if (!r->base || page <= 0 || (size_t)(r->e - r->p) < bytes / 8) return;
#ifdef MADV_HUGEPAGE
    uintptr_t a = ((uintptr_t)r->m->data + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    uintptr_t b = ((uintptr_t)r->m->data + bytes) & ~((uintptr_t)page - 1);
    if (b > a) madvise((void *)a, b - a, MADV_HUGEPAGE); /* advice: failure is harmless */
#endif
    touch_job j = {.p = r->m->data, .bytes = bytes, .page = (size_t)page, .nw = r->nt};
    tdcl_pool_run(r->nt, touch_pages, &j);
}

/* Chunk after chunk: parse, then place. */
static tdcl_status parse_in_turn(rd *r, tdcl_err *err)
{
    for (;;) {
        const char *q;
        int any;
        tdcl_status st = next_region(r, &q, &any, err);
        if (st) return st;
        if (!any) return TDCL_OK;
        if ((st = do_region(r, r->p, q, err))) return st;
        r->p = q;
    }
}

/* A mapped file: each round places the chunk parsed in the round before
 * while it parses the next, so the threads meet once per chunk instead of
 * twice, and a thread that finishes its part early goes on to its share of
 * the placing. The order of errors stays the file's: an overflow in the
 * earlier chunk is named before anything wrong in the later one. The text
 * of the earlier chunk is still mapped when an overflow needs its line
 * (a stream's buffer is not: streams go chunk after chunk). */
static tdcl_status parse_overlapped(rd *r, tdcl_err *err)
{
    coord_job prev = {.r = r};
    for (int set = 0;; set ^= 1) {
        const char *q = r->e;
        int any, np = 0, ngood;
        tdcl_status st = next_region(r, &q, &any, err);
        if (st) return st;
        r->parts = r->sets[set];
        r->bound = r->bounds[set];
        if (any) np = split_region(r, r->p, q);
        round_job j = {.r = r, .np = np, .prev = prev.nparts ? &prev : NULL};
        int nb = j.prev ? prev.parts[0].nb : 0;
        tdcl_pool_run(np > nb ? np : nb, round_step, &j);
        if (j.prev && r->h.coord && (st = overflow_error(&prev, err))) return st;
        if (!any) return TDCL_OK;
        if ((st = account_parts(r, np, &ngood, err))) {
            tdcl_status over = r->h.coord ? scatter_coord_parts(r, ngood, err) : TDCL_OK;
            return over ? over : st;
        }
        prev = (coord_job){.r = r, .parts = r->parts, .nparts = np};
        r->p = q;
    }
}

static tdcl_status parse_body(rd *r, tdcl_err *err)
{
    tdcl_status st = r->base ? parse_overlapped(r, err) : parse_in_turn(r, err);
    if (st) return st;
    if (r->have < r->h.want)
        return tdcl_fail(err, TDCL_EPARSE,
                         "%s:%lld: expected %llu entries, got %llu before the end of the file",
                         r->name, (long long)r->line, (unsigned long long)r->h.want,
                         (unsigned long long)r->have);
    return TDCL_OK;
}

static void rd_free(rd *r)
{
    if (!r) return;
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < MTX_MAXT; i++) {
            free(r->sets[s][i].v);
            for (int b = 0; b < MTX_MAXT; b++)
                free(r->sets[s][i].b[b].it);
        }
    for (int b = 0; b < MTX_MAXT; b++)
        free(r->acc[b].it);
    free(r->buf);
    free(r);
}

/* A reader over src: the file mapped whole, or a stream buffer. */
static tdcl_status rd_open(tdcl_src *src, const tdcl_mtx_read_opts *o, rd **out, tdcl_err *err)
{
    rd *r = calloc(1, sizeof *r);
    *out = r;
    if (!r) return tdcl_fail(err, TDCL_ENOMEM, "out of memory reading '%s'", src->name);
    r->src = src;
    r->name = src->name;
    r->parts = r->sets[0];
    r->bound = r->bounds[0];
    r->nt = tdcl_pool_size(o ? o->threads : 0, 8);
    r->chunk = o && o->chunk ? o->chunk : CHUNK;
    const char *map;
    size_t len;
    if (tdcl_src_map(src, &map, &len)) {
        r->base = r->p = map;
        r->e = map + len;
        r->eof = 1;
        return TDCL_OK;
    }
    r->cap = (size_t)r->nt * r->chunk;
    r->buf = malloc(r->cap);
    if (!r->buf) return tdcl_fail(err, TDCL_ENOMEM, "out of memory reading '%s'", src->name);
    r->p = r->e = r->buf;
    return TDCL_OK;
}

/* The body of a file whose header r has read, into a new dense matrix. */
static tdcl_status read_dense(rd *r, size_t max_bytes, tdcl_matrix *out, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix m = {0};
    tdcl_dtype dt = r->h.field == F_INTEGER ? TDCL_I64 : TDCL_F64;
    size_t bytes;
    TDCL_TRY(tdcl_src_check_size(r->name, r->h.rows, r->h.cols, (int)dt, max_bytes, &bytes, err));
    TDCL_TRY(tdcl_matrix_alloc(&m, r->h.rows, r->h.cols, 1, dt, err));
    r->m = &m;
    prepare_dense(r);
    TDCL_TRY(parse_body(r, err));
    *out = m;
    memset(&m, 0, sizeof m);
out:
    r->m = NULL;
    tdcl_matrix_free(&m);
    return st;
}

tdcl_status tdcl_mtx_read(tdcl_src *src, const tdcl_mtx_read_opts *o, tdcl_matrix *out,
                          tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    memset(out, 0, sizeof *out);
    rd *r = NULL;
    TDCL_TRY(rd_open(src, o, &r, err));
    TDCL_TRY(parse_header(r, err));
    TDCL_TRY(check_claim(r, err));
    st = read_dense(r, o ? o->max_bytes : 0, out, err);
out:
    rd_free(r);
    return st;
}

tdcl_status tdcl_mtx_read_path(const char *path, const tdcl_mtx_read_opts *o, tdcl_matrix *out,
                               tdcl_err *err)
{
    tdcl_src src;
    memset(out, 0, sizeof *out);
    tdcl_status st = tdcl_src_open(&src, path, err);
    if (st) return st;
    st = tdcl_mtx_read(&src, o, out, err);
    tdcl_src_close(&src);
    return st;
}

/* --- sparse results ------------------------------------------------------ */

/* Refuses, before the body is read, a coordinate file whose claimed
 * entries would not fit: the matrix's cell offsets must fit 64 bits, and
 * the CSR arrays plus the parsed entries (the mirrored ones of a
 * symmetric file counted) must fit max_bytes and the memory left. */
static tdcl_status check_sparse_size(const rd *r, size_t max_bytes, tdcl_err *err)
{
    const mtx_hdr *h = &r->h;
    char a[32], b[32], what[320];
    uint64_t cells;
    if (__builtin_mul_overflow((uint64_t)h->rows, (uint64_t)h->cols, &cells))
        return tdcl_fail(err, TDCL_ELIMIT,
                         "'%s': a %lldx%lld sparse matrix has more than 2^64 cells, more than "
                         "tiledcl addresses",
                         r->name, (long long)h->rows, (long long)h->cols);
    uint64_t n = h->want > (uint64_t)INT64_MAX / 2 ? (uint64_t)INT64_MAX / 2 : h->want;
    if (h->sym != S_GENERAL) n *= 2;
    int pattern = h->field == F_PATTERN;
    tdcl_dtype dt = h->field == F_REAL ? TDCL_F64 : TDCL_I64;
    size_t bytes;
    snprintf(what, sizeof what, "'%s': a %lldx%lld sparse matrix with up to %llu entries", r->name,
             (long long)h->rows, (long long)h->cols, (unsigned long long)n);
    uint64_t parsed = n * sizeof(mtx_item);
    if (tdcl_csr_bytes(h->rows, h->cols, (int64_t)n, dt, pattern, &bytes, NULL) ||
        bytes > UINT64_MAX - parsed)
        return tdcl_fail(err, TDCL_ELIMIT, "%s does not fit in memory", what);
    if (max_bytes > 0 && bytes > max_bytes)
        return tdcl_fail(err, TDCL_ELIMIT, "%s needs %s, more than the limit of %s", what,
                         tdcl_mem_size(bytes, a, sizeof a), tdcl_mem_size(max_bytes, b, sizeof b));
    return tdcl_mem_check(bytes + parsed, what, 0, 0, err);
}

/* The body of a coordinate file whose header r has read, into CSR. */
static tdcl_status read_sparse(rd *r, size_t max_bytes, tdcl_csr *out, tdcl_err *err)
{
    tdcl_status st = check_sparse_size(r, max_bytes, err);
    if (st) return st;
    r->sparse = 1;
    if ((st = parse_body(r, err))) return st;
    int64_t bound[MTX_MAXT + 1];
    for (int b = 0; b <= r->nt; b++)
        bound[b] = (int64_t)((uint64_t)r->h.rows * (uint64_t)b / (uint64_t)r->nt);
    mtx_csr_in in = {.name = r->name,
                     .rows = r->h.rows,
                     .cols = r->h.cols,
                     .integer = r->h.field == F_INTEGER,
                     .pattern = r->h.field == F_PATTERN,
                     .nb = r->nt,
                     .bound = bound,
                     .lists = r->acc,
                     .threads = r->nt};
    return tdcl_mtx_build_csr(&in, out, err);
}

tdcl_status tdcl_mtx_read_csr(tdcl_src *src, const tdcl_mtx_read_opts *o, tdcl_csr *out,
                              tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix m = {0};
    size_t max_bytes = o ? o->max_bytes : 0;
    memset(out, 0, sizeof *out);
    rd *r = NULL;
    TDCL_TRY(rd_open(src, o, &r, err));
    TDCL_TRY(parse_header(r, err));
    TDCL_TRY(check_claim(r, err));
    if (r->h.coord) {
        st = read_sparse(r, max_bytes, out, err);
    } else { /* an array file is dense text: read dense, then keep the nonzeros */
        TDCL_TRY(read_dense(r, max_bytes, &m, err));
        st = tdcl_csr_from_dense(&m, out, err);
    }
out:
    tdcl_matrix_free(&m);
    rd_free(r);
    return st;
}

tdcl_status tdcl_mtx_read_csr_path(const char *path, const tdcl_mtx_read_opts *o, tdcl_csr *out,
                                   tdcl_err *err)
{
    tdcl_src src;
    memset(out, 0, sizeof *out);
    tdcl_status st = tdcl_src_open(&src, path, err);
    if (st) return st;
    st = tdcl_mtx_read_csr(&src, o, out, err);
    tdcl_src_close(&src);
    return st;
}

static const int field_pub[] = {
    [F_REAL] = TDCL_MTX_REAL, [F_INTEGER] = TDCL_MTX_INTEGER, [F_PATTERN] = TDCL_MTX_PATTERN};

tdcl_status tdcl_mtx_peek(tdcl_src *src, tdcl_mtx_header *h, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_mtx_read_opts o = {.threads = 1, .chunk = (size_t)64 << 10};
    memset(h, 0, sizeof *h);
    rd *r = NULL;
    TDCL_TRY(rd_open(src, &o, &r, err));
    TDCL_TRY(parse_header(r, err));
    h->rows = r->h.rows;
    h->cols = r->h.cols;
    h->entries = r->h.want > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)r->h.want;
    h->coordinate = r->h.coord;
    h->field = field_pub[r->h.field];
    h->symmetry = r->h.hermitian            ? TDCL_MTX_HERMITIAN
                  : r->h.sym == S_SYMMETRIC ? TDCL_MTX_SYMMETRIC
                  : r->h.sym == S_SKEW      ? TDCL_MTX_SKEW
                                            : TDCL_MTX_GENERAL;
    h->header_lines = r->line;
out:
    rd_free(r);
    return st;
}

tdcl_status tdcl_mtx_peek_path(const char *path, tdcl_mtx_header *h, tdcl_err *err)
{
    tdcl_src src;
    memset(h, 0, sizeof *h);
    tdcl_status st = tdcl_src_open(&src, path, err);
    if (st) return st;
    st = tdcl_mtx_peek(&src, h, err);
    tdcl_src_close(&src);
    return st;
}
