/* Host memory checks: limits from getrlimit, use and availability from
 * /proc (Linux; elsewhere only the limits are known). */
#include "base/mem.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

/* A "Key:   123 kB" figure of a /proc file in bytes; UINT64_MAX if absent. */
static uint64_t proc_kb(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    char line[256];
    size_t kl = strlen(key);
    uint64_t v = UINT64_MAX;
    if (!f) return v;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
            unsigned long long kb;
            if (sscanf(line + kl + 1, "%llu", &kb) == 1) v = (uint64_t)kb * 1024;
            break;
        }
    fclose(f);
    return v;
}

static uint64_t limit_of(int res)
{
    struct rlimit rl;
    if (getrlimit(res, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return UINT64_MAX;
    return (uint64_t)rl.rlim_cur;
}

void tdcl_mem_query(tdcl_mem_info *mi)
{
    mi->as_limit = limit_of(RLIMIT_AS);
    mi->data_limit = limit_of(RLIMIT_DATA);
    mi->as_used = mi->as_limit == UINT64_MAX ? 0 : proc_kb("/proc/self/status", "VmSize");
    mi->data_used = mi->data_limit == UINT64_MAX ? 0 : proc_kb("/proc/self/status", "VmData");
    if (mi->as_used == UINT64_MAX) mi->as_used = 0;
    if (mi->data_used == UINT64_MAX) mi->data_used = 0;
    uint64_t avail = proc_kb("/proc/meminfo", "MemAvailable"),
             swap = proc_kb("/proc/meminfo", "SwapFree");
    mi->available = avail == UINT64_MAX ? UINT64_MAX : avail + (swap == UINT64_MAX ? 0 : swap);
}

static uint64_t room(uint64_t limit, uint64_t used)
{
    return limit == UINT64_MAX ? UINT64_MAX : limit > used ? limit - used : 0;
}

uint64_t tdcl_mem_headroom(const tdcl_mem_info *mi)
{
    uint64_t a = room(mi->as_limit, mi->as_used), d = room(mi->data_limit, mi->data_used);
    uint64_t m = a < d ? a : d;
    return mi->available < m ? mi->available : m;
}

const char *tdcl_mem_size(uint64_t b, char *buf, size_t n)
{
    if (b >= 1000000000)
        snprintf(buf, n, "%.1f GB", (double)b / 1e9);
    else if (b >= 1000000)
        snprintf(buf, n, "%.1f MB", (double)b / 1e6);
    else if (b >= 1000)
        snprintf(buf, n, "%.1f kB", (double)b / 1e3);
    else
        snprintf(buf, n, "%" PRIu64 " bytes", b);
    return buf;
}

tdcl_status tdcl_mem_check(uint64_t bytes, const char *what, int soft, uint64_t allow,
                           tdcl_err *err)
{
    tdcl_mem_info mi;
    char need[32], have[32], lim[32];
    tdcl_mem_query(&mi);
    tdcl_mem_size(bytes, need, sizeof need);
    const struct {
        uint64_t limit, used;
        const char *name;
    } lims[2] = {{mi.as_limit, mi.as_used, "address-space limit (RLIMIT_AS, ulimit -v)"},
                 {mi.data_limit, mi.data_used, "data limit (RLIMIT_DATA, ulimit -d)"}};
    for (int i = 0; i < 2; i++) {
        uint64_t left = room(lims[i].limit, lims[i].used);
        if (bytes > left)
            return tdcl_fail(err, TDCL_ELIMIT,
                             "%s needs %s (%" PRIu64 " bytes) of host memory, but the %s of %s "
                             "leaves %s",
                             what, need, bytes, lims[i].name,
                             tdcl_mem_size(lims[i].limit, lim, sizeof lim),
                             tdcl_mem_size(left, have, sizeof have));
    }
    if (mi.available == UINT64_MAX) return TDCL_OK;
    if (bytes > mi.available)
        return tdcl_fail(err, TDCL_ELIMIT,
                         "%s needs %s (%" PRIu64 " bytes) of host memory, more than the %s this "
                         "host has available (MemAvailable and free swap)",
                         what, need, bytes, tdcl_mem_size(mi.available, have, sizeof have));
    if (soft && bytes > mi.available / 2 && !(allow > 0 && allow >= bytes))
        return tdcl_fail(err, TDCL_ELIMIT,
                         "%s needs %s (%" PRIu64 " bytes) of host memory, more than half of the "
                         "%s this host has available; allow %" PRIu64 " bytes to go ahead",
                         what, need, bytes, tdcl_mem_size(mi.available, have, sizeof have), bytes);
    if (allow > 0 && bytes > allow)
        return tdcl_fail(err, TDCL_ELIMIT,
                         "%s needs %s (%" PRIu64 " bytes) of host memory, more than the limit of "
                         "%" PRIu64 " bytes",
                         what, need, bytes, allow);
    return TDCL_OK;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

uint64_t tdcl_mem_budget(uint64_t allow, uint64_t held, tdcl_mem_bound *by)
{
    tdcl_mem_info mi;
    tdcl_mem_query(&mi);
    mi.as_used = mi.as_used > held ? mi.as_used - held : 0;
    mi.data_used = mi.data_used > held ? mi.data_used - held : 0;
    if (mi.available != UINT64_MAX) mi.available = add_sat(mi.available, held);
    uint64_t b = tdcl_mem_headroom(&mi);
    uint64_t soft = mi.available == UINT64_MAX ? UINT64_MAX : mi.available / 2;
    if (allow > 0) soft = allow;
    tdcl_mem_bound bound = TDCL_MEM_BY_LIMITS;
    if (soft < b) {
        b = soft;
        bound = allow > 0 ? TDCL_MEM_BY_ALLOW : TDCL_MEM_BY_HALF;
    }
    if (by) *by = bound;
    return b;
}

int64_t tdcl_mem_max_items(int64_t cap, double item_bytes, uint64_t allow)
{
    double n = (double)tdcl_mem_budget(allow, 0, NULL) / item_bytes;
    return n < (double)cap ? (int64_t)n : cap;
}
