/* Host memory checks (module prefix tdcl_mem): before a large host
 * allocation, or device buffers that live in host memory (CPU devices),
 * whether it fits what this process may still take (RLIMIT_AS and
 * RLIMIT_DATA against what it holds now) and what the system has
 * available (MemAvailable plus free swap), so a limit is met with a
 * message giving the sizes instead of a failed allocation deep inside a
 * driver (PoCL aborts on one). */
#ifndef TDCL_MEM_H
#define TDCL_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

typedef struct tdcl_mem_info {
    uint64_t as_limit, as_used;     /* RLIMIT_AS and VmSize; limit UINT64_MAX: none */
    uint64_t data_limit, data_used; /* RLIMIT_DATA and VmData */
    uint64_t available;             /* MemAvailable + SwapFree; UINT64_MAX: unknown */
} tdcl_mem_info;

/* Reads the limits and /proc figures now. */
void tdcl_mem_query(tdcl_mem_info *mi);

/* The most bytes the process may still allocate: the smallest headroom
 * under RLIMIT_AS and RLIMIT_DATA, and the available memory. */
uint64_t tdcl_mem_headroom(const tdcl_mem_info *mi);

/* TDCL_OK when bytes more of host memory for `what` ("the product's
 * device buffers") fit the headroom; with soft, also when they are at most
 * half the available memory, unless allow (> 0) is at least bytes: a
 * confirmation that the caller means it. TDCL_ELIMIT giving bytes, the
 * bound and where it comes from otherwise. */
tdcl_status tdcl_mem_check(uint64_t bytes, const char *what, int soft, uint64_t allow,
                           tdcl_err *err);

/* The most items of item_bytes each that tdcl_mem_check(n * item_bytes,
 * what, 1, allow) accepts, and at most cap. */
int64_t tdcl_mem_max_items(int64_t cap, double item_bytes, uint64_t allow);

/* Which bound sets tdcl_mem_budget. */
typedef enum tdcl_mem_bound {
    TDCL_MEM_BY_LIMITS, /* the process's limits or the host's available memory */
    TDCL_MEM_BY_ALLOW,  /* the caller's allow */
    TDCL_MEM_BY_HALF,   /* half of the available memory (no allow) */
} tdcl_mem_bound;

/* The bytes a request may take in all under tdcl_mem_max_items's rules,
 * where held bytes of it are already allocated (and so counted in the
 * process's use and gone from the available memory): the same figure
 * before and after they were, so a limit does not shrink as the request
 * grows. *by (if non-NULL) receives the bound that sets it. */
uint64_t tdcl_mem_budget(uint64_t allow, uint64_t held, tdcl_mem_bound *by);

/* "1.5 GB" / "900 MB" / "12 kB" / "17 bytes" into buf; returns buf. */
const char *tdcl_mem_size(uint64_t bytes, char *buf, size_t n);

#endif
