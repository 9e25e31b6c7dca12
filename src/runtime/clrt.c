/* Device discovery, device choice, context set-up, kernel file search and
 * program building. The binary cache itself lives in clcache.c. */
#include "runtime/clrt.h"
#include "runtime/xfer.h"

#include "base/clock.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "runtime/clcache.h"
#include "base/fileio.h"
#include "base/log.h"

#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

#ifndef CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV
#define CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV 0x4000
#define CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV 0x4001
#endif

double tdcl_event_ms(cl_event ev)
{
    cl_ulong t0 = 0, t1 = 0;
    if (clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL) ||
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL))
        return 0;
    return t1 > t0 ? (t1 - t0) / 1e6 : 0;
}

const char *tdcl_cl_type_name(cl_device_type t)
{
    if (t & CL_DEVICE_TYPE_GPU) return "GPU";
    if (t & CL_DEVICE_TYPE_CPU) return "CPU";
    if (t & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
    return "other";
}

/* Copies src into buf of n bytes, truncating. */
static void copy_trunc(char *buf, size_t n, const char *src)
{
    size_t len = strlen(src);
    if (len >= n) len = n - 1;
    memcpy(buf, src, len);
    buf[len] = '\0';
}

/* The queries describing one device: the first failure is kept and the
 * later queries are skipped, so a device that cannot answer is reported
 * rather than used with zero limits or empty names. */
typedef struct dev_query {
    cl_device_id d;
    cl_int rc;        /* first failure, CL_SUCCESS if none */
    const char *call; /* the call that failed */
    int nomem;
} dev_query;

static int q_ok(const dev_query *q)
{
    return q->rc == CL_SUCCESS && !q->nomem;
}

static void q_note(dev_query *q, cl_int rc, const char *call)
{
    if (q_ok(q) && rc != CL_SUCCESS) {
        q->rc = rc;
        q->call = call;
    }
}

static void q_dev(dev_query *q, cl_device_info what, size_t size, void *v)
{
    if (q_ok(q)) q_note(q, clGetDeviceInfo(q->d, what, size, v, NULL), "clGetDeviceInfo");
}

/* Copies a string property, truncated to fit: drivers answer
 * CL_INVALID_VALUE rather than truncate when the buffer is short. */
static void info_str(dev_query *q, cl_device_info what, char *buf, size_t n)
{
    size_t need = 0;
    buf[0] = '\0';
    if (!q_ok(q)) return;
    q_note(q, clGetDeviceInfo(q->d, what, 0, NULL, &need), "clGetDeviceInfo");
    if (!q_ok(q) || need == 0) return;
    char *tmp = malloc(need + 1);
    if (!tmp) {
        q->nomem = 1;
        return;
    }
    q_note(q, clGetDeviceInfo(q->d, what, need, tmp, NULL), "clGetDeviceInfo");
    if (q_ok(q)) {
        tmp[need] = '\0';
        copy_trunc(buf, n, tmp);
    }
    free(tmp);
}

/* 1 if the device's extension string names ext. */
static int has_extension(dev_query *q, const char *ext)
{
    char s[8192];
    info_str(q, CL_DEVICE_EXTENSIONS, s, sizeof s);
    size_t el = strlen(ext);
    for (char *p = strstr(s, ext); p; p = strstr(p + 1, ext))
        if ((p == s || p[-1] == ' ') && (p[el] == ' ' || p[el] == '\0')) return 1;
    return 0;
}

static void platform_str(dev_query *q, cl_platform_id p, cl_platform_info what, char *buf, size_t n)
{
    char tmp[1024];
    buf[0] = '\0';
    if (!q_ok(q)) return;
    q_note(q, clGetPlatformInfo(p, what, sizeof tmp, tmp, NULL), "clGetPlatformInfo");
    if (q_ok(q)) {
        tmp[sizeof tmp - 1] = '\0';
        copy_trunc(buf, n, tmp);
    }
}

/* Fills di from the driver's answers; a failed query fails the device. */
static tdcl_status describe_device(tdcl_device_info *di, tdcl_err *err)
{
    dev_query q = {.d = di->device, .rc = CL_SUCCESS};
    platform_str(&q, di->platform, CL_PLATFORM_NAME, di->platform_name, sizeof di->platform_name);
    platform_str(&q, di->platform, CL_PLATFORM_VENDOR, di->platform_vendor,
                 sizeof di->platform_vendor);
    info_str(&q, CL_DEVICE_NAME, di->device_name, sizeof di->device_name);
    info_str(&q, CL_DEVICE_VENDOR, di->device_vendor, sizeof di->device_vendor);
    info_str(&q, CL_DRIVER_VERSION, di->driver_version, sizeof di->driver_version);
    info_str(&q, CL_DEVICE_VERSION, di->device_version, sizeof di->device_version);
    info_str(&q, CL_DEVICE_OPENCL_C_VERSION, di->opencl_c_version, sizeof di->opencl_c_version);
    q_dev(&q, CL_DEVICE_TYPE, sizeof di->type, &di->type);
    q_dev(&q, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof di->compute_units, &di->compute_units);
    q_dev(&q, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof di->clock_mhz, &di->clock_mhz);
    q_dev(&q, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof di->global_mem, &di->global_mem);
    q_dev(&q, CL_DEVICE_LOCAL_MEM_SIZE, sizeof di->local_mem, &di->local_mem);
    q_dev(&q, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof di->max_alloc, &di->max_alloc);
    q_dev(&q, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof di->max_wg, &di->max_wg);
    q_dev(&q, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof di->max_item_sizes, di->max_item_sizes);
    /* 1 ns where the query fails: only a resolution of 0 marks a bad timer */
    di->timer_ns = 1;
    if (q_ok(&q))
        clGetDeviceInfo(q.d, CL_DEVICE_PROFILING_TIMER_RESOLUTION, sizeof di->timer_ns,
                        &di->timer_ns, NULL);
    /* OpenCL 1.1 drivers may refuse this query; the extension decides then. */
    cl_device_fp_config fp = 0;
    if (q_ok(&q)) clGetDeviceInfo(q.d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, NULL);
    di->fp64 = fp != 0 || has_extension(&q, "cl_khr_fp64");
    if (has_extension(&q, "cl_nv_device_attribute_query")) {
        cl_uint ma = 0, mi = 0;
        q_dev(&q, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof ma, &ma);
        q_dev(&q, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, sizeof mi, &mi);
        di->nv_cc_major = (int)ma;
        di->nv_cc_minor = (int)mi;
        di->nv_options = ma > 0 && has_extension(&q, "cl_nv_compiler_options");
    }
    if (q.nomem) return tdcl_fail(err, TDCL_ENOMEM, "out of memory querying a device");
    if (q.rc != CL_SUCCESS)
        return tdcl_fail_cl(err, q.rc, q.call, "querying device %u:%u", di->pidx, di->didx);
    return TDCL_OK;
}

/* Lists platform p's devices into *out (grown as needed). A platform with
 * no devices answers CL_DEVICE_NOT_FOUND: that is not a failure. */
static tdcl_status list_platform(cl_platform_id plat, cl_uint p, tdcl_device_info **out,
                                 size_t *count, size_t *cap, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_uint nd = 0;
    cl_device_id devs[64];
    cl_int rc = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
    if (rc == CL_DEVICE_NOT_FOUND || (rc == CL_SUCCESS && nd == 0)) return TDCL_OK;
    TDCL_CL_TRY(err, rc, "clGetDeviceIDs");
    if (nd > 64) nd = 64;
    TDCL_CL_TRY(err, clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, nd, devs, NULL), "clGetDeviceIDs");
    for (cl_uint d = 0; d < nd; d++) {
        if (*count == *cap) {
            size_t ncap = *cap ? *cap * 2 : 8;
            tdcl_device_info *grown = realloc(*out, ncap * sizeof **out);
            if (!grown) {
                st = tdcl_fail(err, TDCL_ENOMEM, "out of memory listing devices");
                goto out;
            }
            *out = grown;
            *cap = ncap;
        }
        tdcl_device_info *di = &(*out)[*count];
        memset(di, 0, sizeof *di);
        di->pidx = p;
        di->didx = d;
        di->platform = plat;
        di->device = devs[d];
        TDCL_TRY(describe_device(di, err));
        ++*count;
    }
out:
    return st;
}

/* 1 if dir exists (or can be made) and we can create files in it. */
static int dir_usable(const char *dir)
{
    char buf[4096];
    if ((size_t)snprintf(buf, sizeof buf, "%s", dir) >= sizeof buf) return 0;
    for (char *s = buf + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(buf, 0777);
            *s = '/';
        }
    mkdir(buf, 0777);
    struct stat sb;
    return stat(buf, &sb) == 0 && S_ISDIR(sb.st_mode) && access(buf, W_OK | X_OK) == 0;
}

/* Below this much free space a directory is too full for the driver's
 * compiler files (PoCL writes a few MiB per program it builds). */
#define DRIVER_ROOM_BYTES ((unsigned long long)16 << 20)

/* Free bytes for us on dir's file system; ULLONG_MAX when unknown. */
static unsigned long long dir_free(const char *dir)
{
    struct statvfs vf;
    if (statvfs(dir, &vf) != 0) return ULLONG_MAX;
    return (unsigned long long)vf.f_bavail * vf.f_frsize;
}

/* PoCL's compiler cache directory as PoCL picks it: POCL_CACHE_DIR, else
 * $XDG_CACHE_HOME/pocl, else ~/.cache/pocl; "" when none. */
static void pocl_cache_dir(char *dir, size_t n)
{
    const char *set = getenv("POCL_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (set && *set)
        snprintf(dir, n, "%s", set);
    else if (xdg && *xdg)
        snprintf(dir, n, "%s/pocl", xdg);
    else if (home && *home)
        snprintf(dir, n, "%s/.cache/pocl", home);
    else
        dir[0] = '\0';
}

/* Why no directory for PoCL's cache could be found, for the messages of
 * a failure it causes; "" when one was (or none was needed). */
static char pocl_cache_problem[8400];

/* Makes (or checks) the private directory priv under tmp for PoCL's
 * cache: made 0700 by us, or already ours and 0700, with room. 1 when
 * usable. */
static int private_dir_usable(const char *tmp, char *priv, size_t n)
{
    struct stat sb;
    snprintf(priv, n, "%s/tiledcl-pocl-%ld", tmp, (long)getuid());
    if (mkdir(priv, 0700) != 0 && errno != EEXIST) return 0;
    return lstat(priv, &sb) == 0 && S_ISDIR(sb.st_mode) && sb.st_uid == getuid() &&
           (sb.st_mode & 077) == 0 && access(priv, W_OK | X_OK) == 0 &&
           dir_free(priv) >= DRIVER_ROOM_BYTES;
}

/* PoCL keeps its own compiler cache under $XDG_CACHE_HOME/pocl (else
 * ~/.cache/pocl) and reports no device at all when it cannot write there,
 * --no-cache or not; on a full disk every build fails with an empty log.
 * When that directory is unusable or nearly full and the user set no
 * POCL_CACHE_DIR, point PoCL at a private directory under $TMPDIR, else
 * /tmp, before any platform is asked for. Other drivers ignore the
 * variable. */
static void pocl_cache_fallback(void)
{
    static int done;
    if (done) return;
    done = 1;
    const char *set = getenv("POCL_CACHE_DIR");
    if (set && *set) return;
    char dir[4096];
    pocl_cache_dir(dir, sizeof dir);
    int usable = dir[0] && dir_usable(dir);
    if (usable && dir_free(dir) >= DRIVER_ROOM_BYTES) return;
    const char *tmp = getenv("TMPDIR");
    const char *tries[] = {tmp && *tmp ? tmp : "/tmp", "/tmp"};
    char priv[4096] = "";
    for (int i = 0; i < 2; i++) {
        if (i == 1 && strcmp(tries[0], tries[1]) == 0) break;
        if (!private_dir_usable(tries[i], priv, sizeof priv)) continue;
        setenv("POCL_CACHE_DIR", priv, 1);
        tdcl_log(TDCL_LOG_VERBOSE,
                 "the driver's cache directory %s is %s; PoCL caches in %s instead",
                 dir[0] ? dir : "(no $XDG_CACHE_HOME or $HOME)",
                 usable ? "nearly full" : "not usable", priv);
        return;
    }
    snprintf(
        pocl_cache_problem, sizeof pocl_cache_problem,
        "PoCL's compiler cache directory '%s' is %s, and no private one could be made in '%s'%s "
        "(set POCL_CACHE_DIR to a writable directory)",
        dir[0] ? dir : "(no $XDG_CACHE_HOME or $HOME)", usable ? "nearly full" : "not usable",
        tries[0], strcmp(tries[0], "/tmp") ? " or '/tmp'" : "");
}

/* Why a build that failed without a compiler diagnostic may have failed:
 * the driver's compiler writes files (PoCL: into its cache directory),
 * and a small file size limit or a full disk makes it fail with an empty
 * log. A clause naming the cause into buf; 0 when none is seen. */
static int build_write_problem(char *buf, size_t n)
{
    struct rlimit rl;
    char dir[4096];
    if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (unsigned long long)rl.rlim_cur < DRIVER_ROOM_BYTES * 4) {
        snprintf(buf, n,
                 "the file size limit (%llu KiB) may be too small for the driver's compiler files",
                 (unsigned long long)rl.rlim_cur / 1024);
        return 1;
    }
    if (pocl_cache_problem[0]) {
        snprintf(buf, n, "%s", pocl_cache_problem);
        return 1;
    }
    pocl_cache_dir(dir, sizeof dir);
    if (!dir[0]) return 0;
    unsigned long long room = dir_free(dir);
    if (room < DRIVER_ROOM_BYTES)
        snprintf(buf, n,
                 "the driver's compiler cache directory '%s' is nearly full (%llu KiB free)", dir,
                 room / 1024);
    else if (access(dir, W_OK | X_OK) != 0)
        snprintf(buf, n, "the driver's compiler cache directory '%s' cannot be written: %s", dir,
                 strerror(errno));
    else
        return 0;
    return 1;
}

/* The OpenCL loader and the driver open several files while platforms
 * are listed (the vendors directory, the ICD files, the libraries); with
 * fewer descriptors free than this, finding no platform is more likely
 * the descriptor limit than a missing driver. */
#define LOADER_FDS 8

/* 1 when few descriptors are free: *limit and *used get the soft limit
 * and the descriptors open now. Counted only under a small limit, where
 * the count is cheap (one fcntl per descriptor) and the shortage real. */
static int fds_short(long *limit, long *used)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 4096)
        return 0;
    *limit = (long)rl.rlim_cur;
    *used = 0;
    for (long fd = 0; fd < *limit; fd++)
        *used += fcntl((int)fd, F_GETFD) != -1;
    return *limit - *used < LOADER_FDS;
}

tdcl_status tdcl_cl_devices(tdcl_device_info **list, size_t *n, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_platform_id *plats = NULL;
    tdcl_device_info *out = NULL;
    size_t count = 0, cap = 0;
    cl_uint np = 0;
    tdcl_err first = {0}; /* the first platform that failed to list */
    *list = NULL;
    *n = 0;
    pocl_cache_fallback();
    cl_int rc = clGetPlatformIDs(0, NULL, &np);
    long limit = 0, used = 0;
    if ((rc == CL_PLATFORM_NOT_FOUND_KHR || (rc == CL_SUCCESS && np == 0)) &&
        fds_short(&limit, &used)) {
        st = tdcl_fail(err, TDCL_ENODEV,
                       "no OpenCL platform could be loaded: too many open files (the descriptor "
                       "limit is %ld, %ld in use; the OpenCL loader needs a few more)",
                       limit, used);
        goto out;
    }
    if (rc == CL_PLATFORM_NOT_FOUND_KHR || (rc == CL_SUCCESS && np == 0)) {
        st = tdcl_fail(err, TDCL_ENODEV,
                       "no OpenCL platform found (install an ICD such as pocl-opencl-icd, or "
                       "register the vendor's driver under /etc/OpenCL/vendors)");
        goto out;
    }
    TDCL_CL_TRY(err, rc, "clGetPlatformIDs");
    plats = calloc(np, sizeof *plats);
    if (!plats) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory listing platforms");
        goto out;
    }
    TDCL_CL_TRY(err, clGetPlatformIDs(np, plats, NULL), "clGetPlatformIDs");
    tdcl_out_reclaim_signals(); /* a driver may install handlers as it loads */
    /* One broken platform must not hide the others: its failure is a
     * warning, and the error only when no device is left. */
    for (cl_uint p = 0; p < np; p++) {
        tdcl_err e = {0};
        if (list_platform(plats[p], p, &out, &count, &cap, &e) != TDCL_OK && !first.status)
            first = e;
    }
    if (count > 0 && first.status) {
        tdcl_log(TDCL_LOG_WARN, "some OpenCL devices were skipped: %s", first.msg);
    } else if (count == 0 && first.status) {
        if (err) *err = first;
        st = first.status;
    } else if (count == 0) {
        if (fds_short(&limit, &used))
            st = tdcl_fail(err, TDCL_ENODEV,
                           "OpenCL platforms found, but no device in any of them: too many open "
                           "files (the descriptor limit is %ld, %ld in use)",
                           limit, used);
        else
            st = tdcl_fail(err, TDCL_ENODEV,
                           "OpenCL platforms found, but no device in any of them%s%s",
                           pocl_cache_problem[0] ? ": " : "", pocl_cache_problem);
    }
out:
    free(plats);
    if (st) {
        free(out);
        return st;
    }
    *list = out;
    *n = count;
    return TDCL_OK;
}

static int contains_nocase(const char *hay, const char *needle)
{
    size_t nl = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, nl) == 0) return 1;
    return nl == 0;
}

static void list_devices_into(char *buf, size_t len, const tdcl_device_info *list, size_t n)
{
    size_t used = strlen(buf);
    for (size_t i = 0; i < n && used + 1 < len; i++) {
        int w =
            snprintf(buf + used, len - used, "\n  %u:%u  %s  %s (%s)", list[i].pidx, list[i].didx,
                     tdcl_cl_type_name(list[i].type), list[i].device_name, list[i].platform_name);
        if (w < 0) break;
        used += (size_t)w;
    }
}

tdcl_status tdcl_cl_pick(const tdcl_device_info *list, size_t n, const char *spec, size_t *index,
                         tdcl_err *err)
{
    if (n == 0) return tdcl_fail(err, TDCL_ENODEV, "no OpenCL device found");
    if (!spec || !*spec) {
        for (size_t i = 0; i < n; i++)
            if (list[i].type & CL_DEVICE_TYPE_GPU) {
                *index = i;
                return TDCL_OK;
            }
        *index = 0;
        return TDCL_OK;
    }
    unsigned p, d;
    char tail;
    if (sscanf(spec, "%u:%u%c", &p, &d, &tail) == 2) {
        for (size_t i = 0; i < n; i++)
            if (list[i].pidx == p && list[i].didx == d) {
                *index = i;
                return TDCL_OK;
            }
    } else {
        static const struct {
            const char *name;
            cl_device_type type;
        } types[] = {{"gpu", CL_DEVICE_TYPE_GPU},
                     {"cpu", CL_DEVICE_TYPE_CPU},
                     {"accelerator", CL_DEVICE_TYPE_ACCELERATOR}};
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
            if (strcasecmp(spec, types[t].name) != 0) continue;
            for (size_t i = 0; i < n; i++)
                if (list[i].type & types[t].type) {
                    *index = i;
                    return TDCL_OK;
                }
            goto none;
        }
        /* the names users call drivers by, where the platform says otherwise */
        static const struct {
            const char *alias, *platform;
        } aliases[] = {{"pocl", "Portable Computing Language"}};
        const char *also = NULL;
        for (size_t k = 0; k < sizeof aliases / sizeof aliases[0]; k++)
            if (strcasecmp(spec, aliases[k].alias) == 0) also = aliases[k].platform;
        for (size_t i = 0; i < n; i++)
            if (contains_nocase(list[i].device_name, spec) ||
                contains_nocase(list[i].platform_name, spec) ||
                contains_nocase(list[i].platform_vendor, spec) ||
                (also && contains_nocase(list[i].platform_name, also))) {
                *index = i;
                return TDCL_OK;
            }
    }
none:
    tdcl_fail(err, TDCL_ENODEV, "no device matches '%s'; the devices are:", spec);
    if (err) list_devices_into(err->msg, sizeof err->msg, list, n);
    return TDCL_ENODEV;
}

const char *tdcl_device_spec(const char *given)
{
    if (given && *given) return given;
    const char *env = getenv("TILEDCL_DEVICE");
    return env && *env ? env : NULL;
}

size_t tdcl_cl_fit_square_tile(const tdcl_device_info *d, size_t max_tile,
                               size_t local_bytes_per_item)
{
    for (size_t t = max_tile; t >= 1; t /= 2) {
        if (t * t <= d->max_wg && t <= d->max_item_sizes[0] && t <= d->max_item_sizes[1] &&
            local_bytes_per_item * t * t <= d->local_mem)
            return t;
        if (t == 1) break;
    }
    return 0;
}

/* Chooses the device and fills c's context, queue, kernel and cache
 * directories; on failure what was made stays in c for tdcl_ctx_close.
 * Runs on tdcl_ctx_open_async's thread: it touches nothing but c's fields
 * other than t, and logs nothing but warnings. */
static tdcl_status open_into(tdcl_ctx *c, const tdcl_ctx_opts *opts, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_device_info *list = NULL;
    size_t n = 0, pick = 0;
    const char *spec = tdcl_device_spec(opts ? opts->device_spec : NULL);
    TDCL_TRY(tdcl_cl_devices(&list, &n, err));
    TDCL_TRY(tdcl_cl_pick(list, n, spec, &pick, err));
    c->dev = list[pick];
    cl_int rc;
    c->context = clCreateContext(NULL, 1, &c->dev.device, NULL, NULL, &rc);
    TDCL_CL_TRY(err, rc, "clCreateContext");
    c->queue = clCreateCommandQueue(c->context, c->dev.device, CL_QUEUE_PROFILING_ENABLE, &rc);
    TDCL_CL_TRY(err, rc, "clCreateCommandQueue");
    if (opts && opts->kernel_dir && !(c->kernel_dir = strdup(opts->kernel_dir))) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory");
        goto out;
    }
    const char *env_cache = getenv("TILEDCL_CACHE");
    int cache_off = (opts && opts->no_cache) || (env_cache && strcmp(env_cache, "0") == 0);
    if (!cache_off) c->cache_dir = tdcl_cache_dir();
out:
    free(list);
    return st;
}

static void log_device(const tdcl_ctx *c)
{
    tdcl_log(TDCL_LOG_VERBOSE, "device %u:%u: %s (%s, %s), driver %s", c->dev.pidx, c->dev.didx,
             c->dev.device_name, c->dev.platform_name, tdcl_cl_type_name(c->dev.type),
             c->dev.driver_version);
}

tdcl_status tdcl_ctx_open(const tdcl_ctx_opts *opts, tdcl_ctx **out, tdcl_err *err)
{
    double t0 = tdcl_now_ms();
    tdcl_ctx *c = calloc(1, sizeof *c);
    *out = NULL;
    if (!c) return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    tdcl_status st = open_into(c, opts, err);
    if (st) {
        tdcl_ctx_close(c);
        return st;
    }
    log_device(c);
    double ms = tdcl_now_ms() - t0;
    c->t.setup_ms += ms;
    c->t.wait_ms += ms; /* all of it: nothing overlapped */
    *out = c;
    return TDCL_OK;
}

/* The state of an asynchronous open. The thread writes st, err, ms and the
 * context's fields; the caller reads them only after joining it. */
struct tdcl_ctx_pending {
    pthread_t thread;
    int joined;
    tdcl_ctx_opts opts; /* strings below are copies */
    char *device_spec, *kernel_dir;
    tdcl_status st;
    tdcl_err err;
    double t_start; /* when the open was asked for */
    double ms;      /* from then until the thread was done */
};

static void *open_thread(void *arg)
{
    tdcl_ctx *c = arg;
    struct tdcl_ctx_pending *p = c->pending;
    /* A driver may give the calling thread an alternate signal stack of its
     * own (PoCL does); the thread's is put back before it ends, for whoever
     * set it up (AddressSanitizer unmaps its own at thread exit) */
    stack_t alt;
    int have_alt = sigaltstack(NULL, &alt) == 0;
    p->st = open_into(c, &p->opts, &p->err);
    if (have_alt) sigaltstack(&alt, NULL);
    p->ms = tdcl_now_ms() - p->t_start;
    return NULL;
}

static char *dup_or_null(const char *s, int *nomem)
{
    char *d = s ? strdup(s) : NULL;
    if (s && !d) *nomem = 1;
    return d;
}

tdcl_status tdcl_ctx_open_async(const tdcl_ctx_opts *opts, tdcl_ctx **out, tdcl_err *err)
{
    tdcl_ctx *c = calloc(1, sizeof *c);
    struct tdcl_ctx_pending *p = calloc(1, sizeof *p);
    int nomem = !c || !p;
    *out = NULL;
    if (!nomem && opts) {
        p->opts = *opts;
        p->opts.device_spec = p->device_spec = dup_or_null(opts->device_spec, &nomem);
        p->opts.kernel_dir = p->kernel_dir = dup_or_null(opts->kernel_dir, &nomem);
    }
    if (nomem) {
        if (p) {
            free(p->device_spec);
            free(p->kernel_dir);
        }
        free(p);
        free(c);
        return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    }
    c->pending = p;
    p->t_start = tdcl_now_ms();
    int rc = pthread_create(&p->thread, NULL, open_thread, c);
    if (rc) {
        p->joined = 1; /* nothing to join */
        tdcl_ctx_close(c);
        return tdcl_fail(err, TDCL_ENOMEM, "cannot start a thread to open the device: %s",
                         strerror(rc));
    }
    *out = c;
    return TDCL_OK;
}

tdcl_status tdcl_ctx_wait(tdcl_ctx *c, tdcl_err *err)
{
    struct tdcl_ctx_pending *p = c->pending;
    if (!p) return TDCL_OK;
    if (!p->joined) {
        double t0 = tdcl_now_ms();
        pthread_join(p->thread, NULL);
        double t1 = tdcl_now_ms();
        /* the setup is over when the caller has it, which it may see a
         * little after the thread ends: so that the wait is a part of it */
        if (t1 - p->t_start > p->ms) p->ms = t1 - p->t_start;
        p->joined = 1;
        c->t.wait_ms += t1 - t0;
        c->t.setup_ms += p->ms;
        if (p->st == TDCL_OK) log_device(c);
    }
    if (p->st && err) *err = p->err;
    return p->st;
}

void tdcl_ctx_close(tdcl_ctx *c)
{
    if (!c) return;
    struct tdcl_ctx_pending *p = c->pending;
    if (p && !p->joined) pthread_join(p->thread, NULL);
    if (p) {
        free(p->device_spec);
        free(p->kernel_dir);
        free(p);
    }
    tdcl_xfer_release(c);
    if (c->queue) clReleaseCommandQueue(c->queue);
    if (c->context) clReleaseContext(c->context);
    free(c->kernel_dir);
    free(c->cache_dir);
    free(c);
}

int tdcl_ctx_memo_get(const tdcl_ctx *ctx, const char *key)
{
    for (size_t i = 0; i < TDCL_CTX_MEMOS && ctx->memo[i].key; i++)
        if (strcmp(ctx->memo[i].key, key) == 0) return ctx->memo[i].value;
    return 0;
}

void tdcl_ctx_memo_set(tdcl_ctx *ctx, const char *key, int value)
{
    size_t i = 0;
    while (i < TDCL_CTX_MEMOS && ctx->memo[i].key && strcmp(ctx->memo[i].key, key) != 0)
        i++;
    if (i == TDCL_CTX_MEMOS) return;
    ctx->memo[i].key = key;
    ctx->memo[i].value = value;
}

static char *join_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* Tries dir/name; on a hit stores the path. Appends dir to `tried`. */
/* 1 when dir holds name (*path set), 0 when not (dir added to tried), -1
 * when memory ran out: that is no reason to say the kernel is missing. */
static int try_dir(const char *dir, const char *name, char **path, char *tried, size_t tlen)
{
    if (!dir || !*dir) return 0;
    char *p = join_path(dir, name);
    if (!p) return -1;
    if (access(p, R_OK) == 0) {
        *path = p;
        return 1;
    }
    free(p);
    size_t used = strlen(tried);
    snprintf(tried + used, tlen - used, "%s%s", used ? ", " : "", dir);
    return 0;
}

tdcl_status tdcl_kernel_path(const char *kernel_dir, const char *name, char **path, tdcl_err *err)
{
    char tried[2048] = "";
    int hit = 0;
    *path = NULL;
    if (kernel_dir) {
        if ((hit = try_dir(kernel_dir, name, path, tried, sizeof tried)) != 0) goto found;
        return tdcl_fail_param(err, TDCL_EIO, TDCL_PARAM_KERNEL_DIR,
                               "kernel '%s' not found in the kernel directory '%s'", name,
                               kernel_dir);
    }
    const char *env = getenv("TILEDCL_KERNEL_PATH");
    if (env && *env) {
        char *copy = strdup(env);
        if (!copy) return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
        for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir && !hit;
             dir = strtok_r(NULL, ":", &save))
            hit = try_dir(dir, name, path, tried, sizeof tried);
        free(copy);
        if (hit) goto found;
    }
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 32);
    if (len > 0) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            strcpy(slash + 1, "cl"); /* the build tree */
            if ((hit = try_dir(exe, name, path, tried, sizeof tried)) != 0) goto found;
            /* an install, wherever it was staged or moved to: BIN/../share/tiledcl */
            strcpy(slash + 1, "../share/tiledcl");
            if ((hit = try_dir(exe, name, path, tried, sizeof tried)) != 0) goto found;
        }
    }
    if ((hit = try_dir(TDCL_DATADIR, name, path, tried, sizeof tried)) != 0) goto found;
    return tdcl_fail_param(err, TDCL_EIO, TDCL_PARAM_KERNEL_DIR,
                           "kernel '%s' not found (looked in: %s); give a kernel directory or set "
                           "TILEDCL_KERNEL_PATH",
                           name, tried);
found:
    return hit > 0 ? TDCL_OK : tdcl_fail(err, TDCL_ENOMEM, "out of memory");
}

/* Logs the build log of prog for the device, line by line under "what: build
 * log: "; 1 when it holds a compiler diagnostic (an error or a warning), 0
 * when it is empty or holds only the driver's own "failed" line. */
int tdcl_log_build_log(cl_program prog, cl_device_id dev, tdcl_log_level level, const char *what)
{
    size_t n = 0;
    int said = 0;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) != CL_SUCCESS || n < 2)
        return 0;
    char *log = malloc(n + 1);
    if (!log) return 0;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL) == CL_SUCCESS) {
        log[n] = '\0';
        said = strstr(log, "error") != NULL || strstr(log, "warning") != NULL;
        /* line by line, so that each carries the caller's prefix */
        for (char *line = log, *next; line && *line; line = next) {
            next = strchr(line, '\n');
            if (next) *next++ = '\0';
            size_t len = strlen(line);
            if (len && line[len - 1] == '\r') line[--len] = '\0';
            if (len) tdcl_log(level, "%s: build log: %s", what, line);
        }
    }
    free(log);
    return said;
}

/* Reads the files of a program, each found by tdcl_kernel_path, into one
 * source: one file as it is (so its cache entry is the one it always had),
 * several each after a "#line 1" naming it, so that a build log points
 * into the right file. *path is the first file's path; *name the names
 * joined by '+'. Every byte of every file is in the source, and so in the
 * cache key. */
static tdcl_status read_sources(const tdcl_ctx *ctx, const char *const *names, size_t n,
                                char **path, char **name, char **src, size_t *src_len,
                                tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    char *fpath = NULL, *text = NULL;
    size_t text_len = 0, cap = 0, len = 0, name_len = 0;
    *path = *name = *src = NULL;
    *src_len = 0;
    if (n == 0) return tdcl_fail(err, TDCL_EINVAL, "a program needs at least one kernel file");
    for (size_t i = 0; i < n; i++)
        name_len += strlen(names[i]) + 1;
    if (!(*name = malloc(name_len))) return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    (*name)[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (i) strcat(*name, "+");
        strcat(*name, names[i]);
        if ((st = tdcl_kernel_path(ctx->kernel_dir, names[i], &fpath, err)) ||
            (st = tdcl_read_file(fpath, &text, &text_len, err)))
            goto out;
        if (n == 1) {
            *src = text;
            *src_len = text_len;
            text = NULL;
            *path = fpath;
            fpath = NULL;
            goto out;
        }
        size_t need = len + text_len + strlen(names[i]) + 32;
        if (need > cap) {
            size_t ncap = need * 2;
            char *grown = realloc(*src, ncap);
            if (!grown) {
                st = tdcl_fail(err, TDCL_ENOMEM, "out of memory");
                goto out;
            }
            *src = grown;
            cap = ncap;
        }
        len += (size_t)snprintf(*src + len, cap - len, "#line 1 \"%s\"\n", names[i]);
        memcpy(*src + len, text, text_len);
        len += text_len;
        if (text_len && text[text_len - 1] != '\n') (*src)[len++] = '\n';
        (*src)[len] = '\0';
        free(text);
        text = NULL;
        if (i == 0) {
            *path = fpath;
            fpath = NULL;
        } else {
            free(fpath);
            fpath = NULL;
        }
    }
    *src_len = len;
out:
    free(fpath);
    free(text);
    if (st) {
        free(*path);
        free(*name);
        free(*src);
        *path = *name = *src = NULL;
    }
    return st;
}

/* 1 where the device's OpenCL C is 1.2 or later ("OpenCL C 1.2 ..."): an
 * OpenCL 1.1 compiler refuses -cl-std=CL1.2. */
static int c_1_2(const tdcl_device_info *d)
{
    int major = 0, minor = 0;
    if (sscanf(d->opencl_c_version, "OpenCL C %d.%d", &major, &minor) != 2) return 1;
    return major > 1 || (major == 1 && minor >= 2);
}

/* TILEDCL_PROGRAM_LOG=FILE appends a line per program the process asks for:
 * "compiled|cached<TAB>ms<TAB>files joined by '+'<TAB>options". The test
 * suite collects it to count the compilations each test costs and to
 * compile every (files, options) pair the host really builds with a strict
 * compiler. One write(2) per line with O_APPEND: processes do not mix
 * their lines. */
static void note_program(const char *name, const char *opts, int built, double ms)
{
    const char *file = getenv("TILEDCL_PROGRAM_LOG");
    if (!file || !*file) return;
    char line[4096];
    int n = snprintf(line, sizeof line, "%s\t%.0f\t%s\t%s\n", built ? "compiled" : "cached", ms,
                     name, opts);
    if (n <= 0 || (size_t)n >= sizeof line) return;
    int fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;
    if (write(fd, line, (size_t)n) != n) { /* a debugging aid: nothing to report */
    }
    close(fd);
}

static tdcl_status program_unlocked(tdcl_ctx *ctx, const char *const *names, size_t n,
                                    const char *options, cl_program *prog, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    char *path = NULL, *src = NULL, *opts = NULL, *name = NULL;
    size_t src_len = 0;
    cl_program p = NULL;
    double t0 = tdcl_now_ms();
    *prog = NULL;
    TDCL_TRY(read_sources(ctx, names, n, &path, &name, &src, &src_len, err));
    /* Pin the language version so every driver compiles the same dialect. */
    const char *user = options ? options : "";
    size_t olen = strlen(user) + 32;
    opts = malloc(olen);
    if (!opts) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory");
        goto out;
    }
    snprintf(opts, olen, "%s%s",
             strstr(user, "-cl-std=") || !c_1_2(&ctx->dev) ? "" : "-cl-std=CL1.2 ", user);

    if (ctx->cache_dir && tdcl_cache_load(ctx, src, src_len, opts, &p) == TDCL_OK) {
        ctx->t.programs_cached++;
        tdcl_log(TDCL_LOG_VERBOSE, "kernel %s: loaded from cache (%s)", name, opts);
        note_program(name, opts, 0, tdcl_now_ms() - t0);
        goto out;
    }
    if (ctx->t.programs_built == 0) /* the first build takes seconds; once is enough */
        tdcl_log(TDCL_LOG_STATUS, "compiling kernels for %s%s...", ctx->dev.device_name,
                 ctx->cache_dir ? " (cached for later runs)" : "");
    cl_int rc;
    char what[128];
    snprintf(what, sizeof what, "kernel %s", name);
    const char *srcs[] = {src};
    p = clCreateProgramWithSource(ctx->context, 1, srcs, &src_len, &rc);
    TDCL_CL_TRY(err, rc, "clCreateProgramWithSource");
    rc = clBuildProgram(p, 1, &ctx->dev.device, opts, NULL, NULL);
    if (rc != CL_SUCCESS) {
        char why[8600] = "";
        if (!tdcl_log_build_log(p, ctx->dev.device, TDCL_LOG_ERROR, what) &&
            build_write_problem(why + 2, sizeof why - 2))
            memcpy(why, "; ", 2);
        st = tdcl_fail_cl(err, rc, "clBuildProgram", "building '%s' with options '%s' on %s%s",
                          n > 1 ? name : path, opts, ctx->dev.device_name, why);
        goto out;
    }
    if (tdcl_log_enabled(TDCL_LOG_DEBUG))
        tdcl_log_build_log(p, ctx->dev.device, TDCL_LOG_DEBUG, what);
    ctx->t.programs_built++;
    tdcl_log(TDCL_LOG_VERBOSE, "kernel %s: compiled from source (%s)", name, opts);
    note_program(name, opts, 1, tdcl_now_ms() - t0);
    if (ctx->cache_dir) tdcl_cache_store(ctx, src, src_len, opts, p);
out:
    /* the driver's compiler may have put its own signal handlers in */
    tdcl_out_reclaim_signals();
    ctx->t.compile_ms += tdcl_now_ms() - t0;
    free(path);
    free(name);
    free(src);
    free(opts);
    if (st) {
        if (p) clReleaseProgram(p);
        return st;
    }
    *prog = p;
    return TDCL_OK;
}

/* Programs are built one at a time in the process: PoCL 3.1 builds the
 * programs of several devices at once unsafely (an assertion in its
 * dlhandle cache, seen with 4 devices), and the shards of a set make their
 * plans on threads of their own so that their uploads overlap. */
static pthread_mutex_t build_lock = PTHREAD_MUTEX_INITIALIZER;

tdcl_status tdcl_ctx_program_files(tdcl_ctx *ctx, const char *const *names, size_t n,
                                   const char *options, cl_program *prog, tdcl_err *err)
{
    pthread_mutex_lock(&build_lock);
    tdcl_status st = program_unlocked(ctx, names, n, options, prog, err);
    pthread_mutex_unlock(&build_lock);
    return st;
}

/* The cache's "source" of a binary: a marker, then its bytes, so that no
 * source text shares its key. */
static const char binary_mark[] = "tiledcl program binary\n";

static tdcl_status binary_unlocked(tdcl_ctx *ctx, const char *what, const unsigned char *bin,
                                   size_t len, const char *options, cl_program *prog, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_int rc, bst = CL_SUCCESS;
    char call[192];
    size_t mlen = sizeof binary_mark - 1, klen = mlen + len;
    char *key = malloc(klen);
    *prog = NULL;
    if (!key) return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    memcpy(key, binary_mark, mlen);
    memcpy(key + mlen, bin, len);
    if (ctx->cache_dir && tdcl_cache_load(ctx, key, klen, options, prog) == TDCL_OK) {
        ctx->t.programs_cached++;
        tdcl_log(TDCL_LOG_VERBOSE, "%s: loaded from cache (%s)", what, options);
        goto out;
    }
    *prog = clCreateProgramWithBinary(ctx->context, 1, &ctx->dev.device, &len, &bin, &bst, &rc);
    if (rc == CL_SUCCESS && bst != CL_SUCCESS) rc = bst;
    snprintf(call, sizeof call, "clCreateProgramWithBinary (%s)", what);
    TDCL_CL_TRY(err, rc, call);
    rc = clBuildProgram(*prog, 1, &ctx->dev.device, options, NULL, NULL);
    snprintf(call, sizeof call, "clBuildProgram (%s)", what);
    TDCL_CL_TRY(err, rc, call); /* *prog stays: the caller reads its build log */
    ctx->t.programs_built++;
    tdcl_log(TDCL_LOG_VERBOSE, "%s: built from its binary (%s)", what, options);
    if (ctx->cache_dir) tdcl_cache_store(ctx, key, klen, options, *prog);
out:
    free(key);
    return st;
}

tdcl_status tdcl_ctx_program_binary(tdcl_ctx *ctx, const char *what, const unsigned char *bin,
                                    size_t len, const char *options, cl_program *prog,
                                    tdcl_err *err)
{
    pthread_mutex_lock(&build_lock);
    tdcl_status st = binary_unlocked(ctx, what, bin, len, options ? options : "", prog, err);
    pthread_mutex_unlock(&build_lock);
    return st;
}

tdcl_status tdcl_ctx_program(tdcl_ctx *ctx, const char *name, const char *options, cl_program *prog,
                             tdcl_err *err)
{
    return tdcl_ctx_program_files(ctx, &name, 1, options, prog, err);
}

tdcl_status tdcl_ctx_kernel(cl_program prog, const char *kname, cl_kernel *k, tdcl_err *err)
{
    cl_int rc;
    *k = clCreateKernel(prog, kname, &rc);
    if (rc != CL_SUCCESS) {
        *k = NULL;
        return tdcl_fail_cl(err, rc, "clCreateKernel", "kernel '%s'", kname);
    }
    return TDCL_OK;
}

tdcl_status tdcl_kernel_local_check(const tdcl_ctx *ctx, cl_kernel k, const char *kname,
                                    tdcl_err *err)
{
    cl_ulong used = 0;
    cl_int rc = clGetKernelWorkGroupInfo(k, ctx->dev.device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof used,
                                         &used, NULL);
    if (rc != CL_SUCCESS)
        return tdcl_fail_cl(err, rc, "clGetKernelWorkGroupInfo", "local memory of kernel '%s'",
                            kname);
    if (used > ctx->dev.local_mem)
        return tdcl_fail(err, TDCL_ELIMIT,
                         "kernel '%s' needs %llu bytes of local memory; device '%s' has %llu",
                         kname, (unsigned long long)used, ctx->dev.device_name,
                         (unsigned long long)ctx->dev.local_mem);
    return TDCL_OK;
}

#define TIMING_FMT                                                                                 \
    "read %.2f  device setup %.2f (waited %.2f)  compile %.2f (%d built, %d from cache)  upload "  \
    "%.2f  kernel %.3f  download %.2f  write %.2f"
#define TIMING_SCAN                                                                                \
    "read %lf device setup %lf (waited %lf) compile %lf (%d built, %d from cache) upload %lf "     \
    "kernel %lf download %lf write %lf"
#define TIMING_PREFIX "time (ms): "

void tdcl_timing_format(const tdcl_timing *t, char *buf, size_t cap)
{
    snprintf(buf, cap, TIMING_FMT, t->read_ms, t->setup_ms, t->wait_ms, t->compile_ms,
             t->programs_built, t->programs_cached, t->upload_ms, t->kernel_ms, t->download_ms,
             t->write_ms);
    size_t len = strlen(buf);
    if (t->peak_rss_mb > 0 && len < cap)
        snprintf(buf + len, cap - len, "  peak rss %.1f MB", t->peak_rss_mb);
}

void tdcl_timing_log(const tdcl_timing *t)
{
    char buf[512];
    tdcl_timing c = *t;
    c.peak_rss_mb = tdcl_peak_rss_mb();
    tdcl_timing_format(&c, buf, sizeof buf);
    tdcl_log(TDCL_LOG_VERBOSE, TIMING_PREFIX "%s", buf);
}

int tdcl_timing_parse(const char *text, tdcl_timing *t)
{
    const char *p = text ? strstr(text, TIMING_PREFIX) : NULL;
    tdcl_timing r = {0};
    if (!p) return -1;
    if (sscanf(p + strlen(TIMING_PREFIX), TIMING_SCAN, &r.read_ms, &r.setup_ms, &r.wait_ms,
               &r.compile_ms, &r.programs_built, &r.programs_cached, &r.upload_ms, &r.kernel_ms,
               &r.download_ms, &r.write_ms) != 10 &&
        /* the line before the asynchronous open had no "(waited ...)" */
        sscanf(p + strlen(TIMING_PREFIX),
               "read %lf device setup %lf compile %lf (%d built, %d from cache) upload %lf kernel "
               "%lf download %lf write %lf",
               &r.read_ms, &r.setup_ms, &r.compile_ms, &r.programs_built, &r.programs_cached,
               &r.upload_ms, &r.kernel_ms, &r.download_ms, &r.write_ms) != 9)
        return -1;
    const char *rss = strstr(p, "peak rss ");
    const char *eol = strchr(p, '\n');
    if (rss && (!eol || rss < eol)) sscanf(rss, "peak rss %lf", &r.peak_rss_mb);
    *t = r;
    return 0;
}
