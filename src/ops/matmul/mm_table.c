/* matmul's parameter table (module prefix tdcl_mm_table_): the built-in
 * rows of known devices, the tuned table (parsing, merging, formatting; the
 * runtime's cache reads and writes its file, as ops open no files) and the
 * lookup every plan makes. The search that fills the tuned table is tune/,
 * above this layer. */
#include "ops/matmul/mm_table.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/log.h"
#include "runtime/clcache.h"
/* ---- tables -------------------------------------------------------------- */

typedef struct table_entry {
    tdcl_mm_kernel kernel;
    tdcl_dtype type;
    int64_t size;
    double gflops; /* as measured when tuned; 0 in the built-in table */
    int fallback;  /* built-in: only where the nearest row has too few groups */
    char params[200];
} table_entry;

/* NVIDIA H200 (driver 580.159.04), from tuner sweeps: 32x32 tiles of 4x4
 * blocks with long slabs for small products, 64x64 of 8x4 for 1024,
 * 128x256 of 8x16 (one buffer, A transposed first) from 2048 up. 64x128
 * tiles did better around 3072, where 128x256 ones are 2.2 waves of one
 * group per SM, until the last wave was split. Their row stays as a
 * fallback, taken only where the nearest row's tiles are too few, for
 * products whose C is too small for a wave of 128x256 tiles under a long
 * K; at 2560 it is farther than the 1024 row from 1500^3, which the 1024
 * row serves better (docs/internals/matmul-kernels.md has the figures). */
#define H200_256 "bm=32 bn=32 bk=32 tm=4 tn=4 wx=8 wy=4 nbuf=2 aload=2 atrans=1 ksplit=1"
#define H200_512 "bm=32 bn=32 bk=32 tm=4 tn=4 wx=8 wy=4 nbuf=2 aload=1 atrans=1 ksplit=1"
#define H200_1024 "bm=64 bn=64 bk=32 tm=8 tn=4 wx=8 wy=4 nbuf=2 aload=1 atrans=2 ksplit=1"
#define H200_2560 "bm=64 bn=128 bk=16 tm=8 tn=8 wx=8 wy=4 nbuf=2 aload=1 atrans=2 ksplit=1"
#define H200_LARGE "bm=128 bn=256 bk=16 tm=8 tn=16 wx=8 wy=4 nbuf=1 aload=1 atrans=2 ksplit=1"

/* Measured winners on known devices (docs/internals/tuning.md).
 * vendor and name are substrings of the platform vendor and device name
 * (name: any of its '|'-separated alternatives); "" matches any. Entries
 * give only the keys that differ from defaults. */
static const struct {
    const char *vendor, *name;
    tdcl_mm_kernel kernel;
    int64_t size;
    const char *params;
    int fallback; /* see table_entry */
} builtin[] = {
    /* PoCL on x86: 6 rows by 4 vectors (24 of 32 AVX-512 registers), the
     * best of 4x6, 6x4, 8x3 and 12x2 on Zen 4; vw and kc follow the
     * device's vector width */
    {"The pocl project", "", TDCL_MM_CPU, 1024, "mr=6", 0},
    /* the H100 is the same SM (sm_90) with the same limits: same sets */
    {"NVIDIA", "H200|H100", TDCL_MM_GPU, 256, H200_256, 0},
    {"NVIDIA", "H200|H100", TDCL_MM_GPU, 512, H200_512, 0},
    {"NVIDIA", "H200|H100", TDCL_MM_GPU, 1024, H200_1024, 0},
    {"NVIDIA", "H200|H100", TDCL_MM_GPU, 2048, H200_LARGE, 0},
    {"NVIDIA", "H200|H100", TDCL_MM_GPU, 2560, H200_2560, 1},
    {"NVIDIA", "H200|H100", TDCL_MM_GPU, 4096, H200_LARGE, 0},
};

const char *tdcl_mm_table_builtin(size_t i, tdcl_mm_kernel *k)
{
    if (i >= sizeof builtin / sizeof builtin[0]) return NULL;
    *k = builtin[i].kernel;
    return builtin[i].params;
}

static const char *kernel_key(tdcl_mm_kernel k)
{
    return k == TDCL_MM_CPU ? "cpu" : "gpu";
}

/* The device key of the tuned table: the kernel cache's identity fields. */
static void device_key(const tdcl_ctx *ctx, char *buf, size_t n)
{
    snprintf(buf, n, "platform=%s\ndevice=%s\ndriver=%s\nversion=%s\n", ctx->dev.platform_name,
             ctx->dev.device_name, ctx->dev.driver_version, ctx->dev.device_version);
}

/* The tuned table's file name in the cache directory: the device key's hash. */
static void table_name(const tdcl_ctx *ctx, char *buf, size_t n)
{
    char key[1024];
    device_key(ctx, key, sizeof key);
    snprintf(buf, n, "tune-%016llx.txt", (unsigned long long)tdcl_hash64(0, key, strlen(key)));
}

char *tdcl_mm_table_path(const tdcl_ctx *ctx)
{
    char name[64];
    table_name(ctx, name, sizeof name);
    return tdcl_cache_file_path(ctx, name);
}

/* Parses "matmul TYPE KERNEL SIZE GFLOPS PARAMS..." into *e; 0 on success. */
static int parse_entry(const char *line, table_entry *e)
{
    char type[16], kern[8];
    long long size;
    int off = 0;
    if (sscanf(line, "matmul %15s %7s %lld %lf %n", type, kern, &size, &e->gflops, &off) < 4 ||
        off == 0 || size < 1)
        return -1;
    if (strcmp(kern, "cpu") == 0)
        e->kernel = TDCL_MM_CPU;
    else if (strcmp(kern, "gpu") == 0)
        e->kernel = TDCL_MM_GPU;
    else
        return -1;
    if (tdcl_dtype_parse(type, &e->type, NULL) || (e->type != TDCL_F32 && e->type != TDCL_F64))
        return -1;
    e->size = size;
    snprintf(e->params, sizeof e->params, "%.*s", (int)strcspn(line + off, "\n"), line + off);
    tdcl_mm_params chk = {0};
    return tdcl_mm_params_parse(e->params, &chk, NULL) == TDCL_OK ? 0 : -1;
}

/* Reads the tuned table of ctx's device into *list (malloc'd, *n entries).
 * A missing file is an empty table; a file for another device or driver
 * (a hash collision) or a malformed line is skipped with a verbose note. */
static void read_table(const tdcl_ctx *ctx, table_entry **list, size_t *n)
{
    char *path = tdcl_mm_table_path(ctx), *data = NULL, name[64];
    size_t len = 0;
    *list = NULL;
    *n = 0;
    table_name(ctx, name, sizeof name);
    if (!path || tdcl_cache_file_read(ctx, name, &data, &len, NULL) != TDCL_OK) goto out;
    char key[1024];
    device_key(ctx, key, sizeof key);
    const char *body = strstr(data, key);
    if (!body) {
        tdcl_log(TDCL_LOG_VERBOSE, "tuned table %s is for another device or driver; ignored", path);
        goto out;
    }
    size_t cap = 0;
    for (const char *s = body + strlen(key); *s; s += strcspn(s, "\n"), s += *s == '\n') {
        table_entry e = {0};
        if (strncmp(s, "matmul ", 7) != 0) continue;
        if (parse_entry(s, &e)) {
            tdcl_log(TDCL_LOG_VERBOSE, "tuned table %s: skipping '%.*s'", path,
                     (int)strcspn(s, "\n"), s);
            continue;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            table_entry *g = realloc(*list, cap * sizeof *g);
            if (!g) break;
            *list = g;
        }
        (*list)[(*n)++] = e;
    }
out:
    free(data);
    free(path);
}

/* Distance between sizes as a ratio, in log scale. */
static double size_dist(double a, double b)
{
    return fabs(log(a / b));
}

/* Work-groups the gpu shape of e launches for an M x N product (0 for
 * the cpu shape, which always has many). */
static double entry_groups(const table_entry *e, int64_t M, int64_t N)
{
    tdcl_mm_params p = {0};
    if (e->kernel != TDCL_MM_GPU || tdcl_mm_params_parse(e->params, &p, NULL)) return 0;
    double bm = p.bm ? p.bm : 64, bn = p.bn ? p.bn : 64, ks = p.ksplit ? p.ksplit : 1;
    return ceil((double)M / bm) * ceil((double)N / bn) * ks;
}

/* The entry of list for (k, type) nearest in size to the product, among
 * those that give at least 3/4 of a work-group per compute unit when any
 * does (a size between two entries should not take the larger one's tiles
 * if they leave the device half idle); fallback rows only where the
 * nearest other row gives fewer; -1 when none is for (k, type). */
static long choose(const table_entry *list, size_t n, const tdcl_ctx *ctx, tdcl_mm_kernel k,
                   tdcl_dtype type, int64_t M, int64_t K, int64_t N)
{
    double size = cbrt((double)M * (double)K * (double)N);
    double want = 0.75 * (double)ctx->dev.compute_units;
    long best = -1, best_full = -1, nearest = -1;
    for (size_t i = 0; i < n; i++)
        if (list[i].kernel == k && list[i].type == type && !list[i].fallback &&
            (nearest < 0 ||
             size_dist((double)list[i].size, size) < size_dist((double)list[nearest].size, size)))
            nearest = (long)i;
    int few = nearest >= 0 && k == TDCL_MM_GPU && entry_groups(&list[nearest], M, N) < want;
    for (size_t i = 0; i < n; i++) {
        if (list[i].kernel != k || list[i].type != type || (list[i].fallback && !few)) continue;
        double d = size_dist((double)list[i].size, size);
        if (best < 0 || d < size_dist((double)list[best].size, size)) best = (long)i;
        if ((k != TDCL_MM_GPU || entry_groups(&list[i], M, N) >= want) &&
            (best_full < 0 || d < size_dist((double)list[best_full].size, size)))
            best_full = (long)i;
    }
    return best_full >= 0 ? best_full : best;
}

/* 1 if one of the '|'-separated alternatives of alts is a substring of s
 * ("" is one of any s). */
static int names_match(const char *s, const char *alts)
{
    char alt[64];
    for (const char *a = alts;; a++) {
        size_t len = strcspn(a, "|");
        snprintf(alt, sizeof alt, "%.*s", (int)len, a);
        if (strstr(s, alt)) return 1;
        a += len;
        if (!*a) return 0;
    }
}

/* The built-in rows that match ctx's device, as entries; returns how many. */
static size_t builtin_table(const tdcl_ctx *ctx, table_entry *list, size_t cap)
{
    size_t n = 0;
    for (size_t j = 0; j < sizeof builtin / sizeof builtin[0] && n < cap; j++)
        if (strstr(ctx->dev.platform_vendor, builtin[j].vendor) &&
            names_match(ctx->dev.device_name, builtin[j].name)) {
            table_entry *e = &list[n++];
            e->kernel = builtin[j].kernel, e->type = TDCL_F32, e->size = builtin[j].size;
            e->gflops = 0, e->fallback = builtin[j].fallback;
            snprintf(e->params, sizeof e->params, "%s", builtin[j].params);
        }
    return n;
}

/* The tuned tables read so far, by path (cache directory and device): each
 * is read from disk once per process, and tdcl_mm_table_store replaces
 * its own. Plans may be made on several threads, hence the lock. The
 * tables stay until the process ends. */
typedef struct cached_table {
    char *path;
    table_entry *list;
    size_t n;
} cached_table;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static cached_table *cache;
static size_t ncache, cache_cap;

/* The cached table of path, or NULL; call with cache_lock held. */
static cached_table *cache_find(const char *path)
{
    for (size_t i = 0; i < ncache; i++)
        if (strcmp(cache[i].path, path) == 0) return &cache[i];
    return NULL;
}

/* Makes list (n entries, malloc'd; taken over) the cached table of path,
 * replacing any; returns it, or NULL (list freed) when memory runs out.
 * Call with cache_lock held. */
static cached_table *cache_put(const char *path, table_entry *list, size_t n)
{
    cached_table *c = cache_find(path);
    if (!c) {
        char *copy = malloc(strlen(path) + 1);
        if (ncache == cache_cap) {
            size_t cap = cache_cap ? 2 * cache_cap : 4;
            cached_table *g = copy ? realloc(cache, cap * sizeof *g) : NULL;
            if (g) cache = g, cache_cap = cap;
        }
        if (!copy || ncache == cache_cap) {
            free(copy);
            free(list);
            return NULL;
        }
        c = &cache[ncache++];
        *c = (cached_table){.path = strcpy(copy, path)};
    }
    free(c->list);
    c->list = list;
    c->n = n;
    return c;
}

void tdcl_mm_table_forget(void)
{
    pthread_mutex_lock(&cache_lock);
    for (size_t i = 0; i < ncache; i++) {
        free(cache[i].path);
        free(cache[i].list);
    }
    ncache = 0;
    pthread_mutex_unlock(&cache_lock);
}

const char *tdcl_mm_table_lookup(tdcl_ctx *ctx, tdcl_mm_kernel k, tdcl_dtype type, int64_t M,
                                 int64_t K, int64_t N, tdcl_mm_params *out)
{
    table_entry *list = NULL, table[sizeof builtin / sizeof builtin[0]];
    size_t n = 0;
    const char *src = NULL;
    char *path = tdcl_mm_table_path(ctx);
    if (path) {
        pthread_mutex_lock(&cache_lock);
        cached_table *c = cache_find(path);
        if (!c) {
            read_table(ctx, &list, &n);
            c = cache_put(path, list, n);
        }
        long i = c ? choose(c->list, c->n, ctx, k, type, M, K, N) : -1;
        if (i >= 0 && tdcl_mm_params_parse(c->list[i].params, out, NULL) == TDCL_OK) src = "tuned";
        pthread_mutex_unlock(&cache_lock);
        free(path);
    }
    if (src) return src;
    n = builtin_table(ctx, table, sizeof table / sizeof table[0]);
    long i = choose(table, n, ctx, k, type, M, K, N);
    if (i >= 0 && tdcl_mm_params_parse(table[i].params, out, NULL) == TDCL_OK) return "built-in";
    return NULL;
}

tdcl_status tdcl_mm_table_store(tdcl_ctx *ctx, tdcl_mm_kernel kernel, const tdcl_mm_table_row *rows,
                                int nrows, char *stored, size_t stored_cap, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    table_entry *list = NULL, *merged = NULL;
    size_t n = 0, nm = 0, len = 0;
    char *text = NULL, name[64];
    FILE *fp = NULL;
    int lock = -1;
    char *path = tdcl_mm_table_path(ctx);
    if (!path) return tdcl_fail(err, TDCL_EIO, "no cache directory to store the tuned table in");
    pthread_mutex_lock(&cache_lock);
    table_name(ctx, name, sizeof name);
    /* merged with what is on disk now (another process may have tuned),
     * under a lock: of two processes merging at once, the later rename
     * would drop the other's rows */
    if ((st = tdcl_cache_file_lock(ctx, name, &lock, err))) goto out;
    read_table(ctx, &list, &n);
    if (!(merged = malloc((n + (size_t)nrows + 1) * sizeof *merged))) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        int replaced = 0;
        for (int j = 0; j < nrows; j++)
            replaced |= list[i].kernel == kernel && list[i].type == TDCL_F32 &&
                        list[i].size == rows[j].size;
        if (!replaced) merged[nm++] = list[i];
    }
    for (int j = 0; j < nrows; j++) {
        table_entry *e = &merged[nm++];
        *e = (table_entry){
            .kernel = kernel, .type = TDCL_F32, .size = rows[j].size, .gflops = rows[j].gflops};
        tdcl_mm_params_format(&rows[j].par, kernel, e->params, sizeof e->params);
    }
    /* The new table is made in memory; the runtime's cache writes it. */
    if (!(fp = open_memstream(&text, &len))) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory for the tuned table");
        goto out;
    }
    char key[1024];
    device_key(ctx, key, sizeof key);
    fprintf(fp, "# tiledcl tune matmul: parameters per product size\n%s", key);
    for (size_t i = 0; i < nm; i++)
        fprintf(fp, "matmul %s %s %" PRId64 " %.1f %s\n", tdcl_dtype_name(merged[i].type),
                kernel_key(merged[i].kernel), merged[i].size, merged[i].gflops, merged[i].params);
    int bad = ferror(fp);
    fclose(fp);
    if (bad || !text) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory for the tuned table");
        goto out;
    }
    st = tdcl_cache_file_write(ctx, name, text, len, err);
    if (st) goto out;
    cache_put(path, merged, nm); /* what was written is what the next plan reads */
    merged = NULL;
    if (stored) snprintf(stored, stored_cap, "%s", path);
out:
    tdcl_cache_file_unlock(lock);
    pthread_mutex_unlock(&cache_lock);
    free(merged);
    free(text);
    free(list);
    free(path);
    return st;
}
