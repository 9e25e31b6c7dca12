/* Which .icd gave each device, and loading only the one a choice needs. */
#define _GNU_SOURCE /* dladdr */
#include "runtime/icdmap.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fileio.h"
#include "base/hash.h"
#include "base/log.h"
#include "runtime/clcache.h"

#define MAP_NAME "icd-map"
#define MAP_HEAD "tiledcl icd map 1"
#define MAX_ICDS 32

extern char **environ;

typedef struct icd_file {
    char name[NAME_MAX + 1]; /* "nvidia.icd" */
    char lib[PATH_MAX];      /* its first line: the driver library */
} icd_file;

static const char *vendors_dir(void)
{
    const char *d = getenv("OPENCL_VENDOR_PATH");
    return d && *d ? d : "/etc/OpenCL/vendors";
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const icd_file *)a)->name, ((const icd_file *)b)->name);
}

static int by_string(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .icd files of the vendors directory, sorted; their count (at most
 * MAX_ICDS), and a hash of their names, contents and times in *sig. */
static int read_icds(icd_file *f, uint64_t *sig)
{
    DIR *d = opendir(vendors_dir());
    int n = 0;
    *sig = tdcl_hash64(0, vendors_dir(), strlen(vendors_dir()));
    if (!d) return 0;
    for (struct dirent *e; (e = readdir(d)) && n < MAX_ICDS;) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".icd") != 0) continue;
        snprintf(f[n].name, sizeof f[n].name, "%s", e->d_name);
        n++;
    }
    closedir(d);
    qsort(f, (size_t)n, sizeof *f, by_name);
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX + NAME_MAX + 2];
        snprintf(path, sizeof path, "%s/%s", vendors_dir(), f[i].name);
        struct stat st;
        FILE *fp = fopen(path, "r");
        f[i].lib[0] = '\0';
        if (fp && fgets(f[i].lib, sizeof f[i].lib, fp)) f[i].lib[strcspn(f[i].lib, "\r\n")] = '\0';
        if (fp) fclose(fp);
        if (stat(path, &st) == 0) {
            *sig = tdcl_hash64(*sig, &st.st_size, sizeof st.st_size);
            *sig = tdcl_hash64(*sig, &st.st_mtim, sizeof st.st_mtim);
        }
        *sig = tdcl_hash64(*sig, f[i].name, strlen(f[i].name) + 1);
        *sig = tdcl_hash64(*sig, f[i].lib, strlen(f[i].lib) + 1);
    }
    return n;
}

/* The variables that hide, add or reorder devices, sorted, into sig. */
static uint64_t env_sig(uint64_t sig)
{
    static const char *const prefixes[] = {"POCL_", "CUDA_", "HIP_",    "ROCR_",           "GPU_",
                                           "ZE_",   "OCL_",  "OPENCL_", "NEOReadDebugKeys"};
    char *vars[256];
    size_t n = 0;
    for (char **e = environ; e && *e && n < 256; e++)
        for (size_t p = 0; p < sizeof prefixes / sizeof *prefixes; p++)
            if (strncmp(*e, prefixes[p], strlen(prefixes[p])) == 0 &&
                strncmp(*e, "POCL_CACHE_DIR=", 15) != 0) {
                vars[n++] = *e;
                break;
            }
    qsort(vars, n, sizeof *vars, by_string);
    for (size_t i = 0; i < n; i++)
        sig = tdcl_hash64(sig, vars[i], strlen(vars[i]) + 1);
    return sig;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* The .icd whose library holds platform plat's functions, or NULL. An ICD
 * driver's platform starts with its dispatch table (cl_khr_icd), whose
 * entries are the driver's own functions: dladdr names their library. */
static const char *icd_of(cl_platform_id plat, const icd_file *f, int n)
{
    void **table = plat ? *(void ***)plat : NULL;
    Dl_info info;
    if (!table || !table[1] || !dladdr(table[1], &info) || !info.dli_fname) return NULL;
    char real[PATH_MAX];
    const char *lib = realpath(info.dli_fname, real) ? real : info.dli_fname;
    for (int i = 0; i < n; i++) {
        char want[PATH_MAX];
        if (!f[i].lib[0]) continue;
        if (strcmp(base_name(f[i].lib), base_name(info.dli_fname)) == 0 ||
            (realpath(f[i].lib, want) && strcmp(want, lib) == 0))
            return f[i].name;
    }
    return NULL;
}

static char *map_path(const char *cache_dir)
{
    size_t n = strlen(cache_dir) + sizeof MAP_NAME + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s", cache_dir, MAP_NAME);
    return p;
}

/* s with tabs and line ends as spaces, into out (n bytes). */
static void one_field(const char *s, char *out, size_t n)
{
    snprintf(out, n, "%s", s);
    for (char *c = out; *c; c++)
        if (*c == '\t' || *c == '\n' || *c == '\r') *c = ' ';
}

/* The map's text for list, or NULL when a device's .icd is unknown. */
static char *map_text(const tdcl_device_info *list, size_t n, const icd_file *f, int nf,
                      uint64_t sig)
{
    size_t cap = 64 + n * 600, used = 0;
    char *t = malloc(cap);
    if (!t) return NULL;
    used += (size_t)snprintf(t, cap, "%s %016" PRIx64 "\n", MAP_HEAD, sig);
    for (size_t i = 0; i < n; i++) {
        const char *icd = icd_of(list[i].platform, f, nf);
        char dn[128], pn[128], pv[128];
        if (!icd) {
            free(t);
            return NULL;
        }
        one_field(list[i].device_name, dn, sizeof dn);
        one_field(list[i].platform_name, pn, sizeof pn);
        one_field(list[i].platform_vendor, pv, sizeof pv);
        used += (size_t)snprintf(t + used, cap - used, "%u %u %llu %s\t%s\t%s\t%s\n", list[i].pidx,
                                 list[i].didx, (unsigned long long)list[i].type, icd, dn, pn, pv);
    }
    return t;
}

void tdcl_icd_learn(const char *cache_dir, const tdcl_device_info *list, size_t n)
{
    icd_file f[MAX_ICDS];
    uint64_t sig;
    int nf = read_icds(f, &sig);
    char *path = NULL, *text = NULL, *old = NULL;
    size_t olen = 0;
    tdcl_err e = {0};
    if (!cache_dir || nf < 2 || n == 0) return; /* one driver: nothing to leave out */
    sig = env_sig(sig);
    if (!(path = map_path(cache_dir)) || !(text = map_text(list, n, f, nf, sig))) goto out;
    if (tdcl_read_file(path, &old, &olen, &e) == TDCL_OK && olen == strlen(text) &&
        memcmp(old, text, olen) == 0)
        goto out;
    tdcl_outfile o = {.slot = -1};
    if (tdcl_cache_make_dirs(cache_dir) == 0 && tdcl_out_open(&o, path, &e) == TDCL_OK) {
        fputs(text, o.fp);
        if (tdcl_out_commit(&o, &e) != TDCL_OK)
            tdcl_log(TDCL_LOG_VERBOSE, "driver map not stored: %s", e.msg);
    }
    tdcl_out_abort(&o);
out:
    free(old);
    free(text);
    free(path);
}

/* Parses one map line into d and its .icd name; 0 when malformed. */
static int parse_line(char *line, tdcl_device_info *d, char *icd, size_t icd_n)
{
    unsigned long long type;
    int used = 0;
    char name[NAME_MAX + 1];
    memset(d, 0, sizeof *d);
    if (sscanf(line, "%u %u %llu %255[^\t]%n", &d->pidx, &d->didx, &type, name, &used) != 4 ||
        line[used] != '\t')
        return 0;
    d->type = (cl_device_type)type;
    snprintf(icd, icd_n, "%s", name);
    char *fields[3], *s = line + used + 1;
    for (int i = 0; i < 3; i++) {
        fields[i] = s;
        s += strcspn(s, "\t");
        if (i < 2 && *s != '\t') return 0;
        if (*s) *s++ = '\0';
    }
    snprintf(d->device_name, sizeof d->device_name, "%s", fields[0]);
    snprintf(d->platform_name, sizeof d->platform_name, "%s", fields[1]);
    snprintf(d->platform_vendor, sizeof d->platform_vendor, "%s", fields[2]);
    return 1;
}

/* The directory holding only the copy of vendors/icd, made if needed;
 * malloc'd, NULL on failure. */
static char *one_icd_dir(const char *cache_dir, const char *icd, const icd_file *f, int nf)
{
    const char *lib = NULL;
    for (int i = 0; i < nf; i++)
        if (strcmp(f[i].name, icd) == 0) lib = f[i].lib;
    size_t n = strlen(cache_dir) + 2 * strlen(icd) + 16;
    char *dir = malloc(n), *file = malloc(n);
    tdcl_err e = {0};
    tdcl_outfile o = {.slot = -1};
    char *have = NULL;
    size_t hlen = 0;
    if (!lib || !dir || !file) goto fail;
    snprintf(dir, n, "%s/icd/%.*s", cache_dir, (int)(strlen(icd) - 4), icd);
    snprintf(file, n, "%s/%s", dir, icd);
    if (tdcl_read_file(file, &have, &hlen, &e) == TDCL_OK && hlen == strlen(lib) + 1 &&
        memcmp(have, lib, hlen - 1) == 0 && have[hlen - 1] == '\n')
        goto done;
    if (tdcl_cache_make_dirs(dir) != 0 || tdcl_out_open(&o, file, &e) != TDCL_OK) goto fail;
    fprintf(o.fp, "%s\n", lib);
    if (tdcl_out_commit(&o, &e) != TDCL_OK) goto fail;
done:
    tdcl_out_abort(&o);
    free(have);
    free(file);
    return dir;
fail:
    tdcl_out_abort(&o);
    free(have);
    free(file);
    free(dir);
    return NULL;
}

/* The map's devices (up to cap) if its signature is sig; their count. */
static size_t read_map(const char *cache_dir, uint64_t sig, tdcl_device_info *d,
                       char (*icd)[NAME_MAX + 1], size_t cap)
{
    char *path = map_path(cache_dir), *text = NULL, head[64];
    size_t len = 0, n = 0;
    tdcl_err e = {0};
    if (!path || tdcl_read_file(path, &text, &len, &e) != TDCL_OK) goto out;
    snprintf(head, sizeof head, "%s %016" PRIx64 "\n", MAP_HEAD, sig);
    if (strncmp(text, head, strlen(head)) != 0) goto out;
    for (char *line = text + strlen(head); *line && n < cap;) {
        char *end = line + strcspn(line, "\n");
        int last = *end == '\0';
        *end = '\0';
        if (!parse_line(line, &d[n], icd[n], sizeof icd[n])) {
            n = 0;
            goto out;
        }
        n++;
        line = last ? end : end + 1;
    }
out:
    free(text);
    free(path);
    return n;
}

int tdcl_icd_narrow(const char *cache_dir, const char *spec, tdcl_device_info *want)
{
    icd_file f[MAX_ICDS];
    tdcl_device_info d[64];
    char icd[64][NAME_MAX + 1];
    uint64_t sig;
    unsigned p, q;
    char tail;
    const char *v = getenv("OCL_ICD_VENDORS"), *fn = getenv("OCL_ICD_FILENAMES");
    if (!cache_dir || (v && *v) || (fn && *fn)) return 0;
    if (spec && sscanf(spec, "%u:%u%c", &p, &q, &tail) == 2) return 0;
    int nf = read_icds(f, &sig);
    if (nf < 2) return 0;
    size_t n = read_map(cache_dir, env_sig(sig), d, icd, 64), pick;
    if (n == 0 || tdcl_cl_pick(d, n, spec, &pick, NULL) != TDCL_OK) return 0;
    char *dir = one_icd_dir(cache_dir, icd[pick], f, nf);
    if (!dir) return 0;
    int ok = setenv("OCL_ICD_VENDORS", dir, 1) == 0;
    if (ok) {
        *want = d[pick];
        tdcl_log(
            TDCL_LOG_VERBOSE,
            "loading only the OpenCL driver of %s (%s), as the last full listing found it there",
            icd[pick], d[pick].device_name);
    }
    free(dir);
    return ok;
}

long tdcl_icd_match(const char *cache_dir, tdcl_device_info *list, size_t n,
                    const tdcl_device_info *want)
{
    long at = -1;
    for (size_t i = 0; i < n && at < 0; i++)
        if (strcmp(list[i].device_name, want->device_name) == 0 &&
            strcmp(list[i].platform_name, want->platform_name) == 0 && list[i].didx == want->didx)
            at = (long)i;
    if (at < 0) {
        char *path = cache_dir ? map_path(cache_dir) : NULL;
        if (path) remove(path);
        free(path);
        return -1;
    }
    unsigned from = list[at].pidx;
    for (size_t i = 0; i < n; i++)
        if (list[i].pidx == from) list[i].pidx = want->pidx;
    return at;
}
