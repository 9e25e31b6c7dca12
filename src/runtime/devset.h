/* Device sets (module prefix tdcl_devset_): several OpenCL devices of one
 * process, one context each, for work split into shards (dist/shard.h).
 *
 * A set's spec is "all" (every device), "TYPE:all" (every device of a type:
 * gpu, cpu, accelerator) or a comma-separated list of single-device specs
 * as tdcl_cl_pick takes them ("1:0,1:1", "gpu,cpu"); a list may name a
 * device twice (two shards on one device). */
#ifndef TDCL_DEVSET_H
#define TDCL_DEVSET_H

#include <stddef.h>

#include "runtime/clrt.h"

/* The most devices in one set. */
#define TDCL_DEVSET_MAX 64

/* 1 if spec names a set of devices ("all", "TYPE:all", a list with a
 * comma), 0 for a single-device spec (NULL included). Pure. */
int tdcl_devset_spec_is_set(const char *spec);

/* Resolves spec against list (of tdcl_cl_devices): fills idx[0..*count)
 * with indices into list, in the spec's order (for "all": the list's).
 * Pure. TDCL_ENODEV when an item matches nothing or a type has no device,
 * TDCL_EINVAL for an empty item or more than cap devices. */
tdcl_status tdcl_devset_pick(const tdcl_device_info *list, size_t n, const char *spec, size_t *idx,
                             size_t cap, size_t *count, tdcl_err *err);

typedef struct tdcl_devset {
    size_t n;
    tdcl_ctx *ctx[TDCL_DEVSET_MAX]; /* one context per shard, owned by the set */
} tdcl_devset;

/* Starts opening every device of spec (each on a thread, as
 * tdcl_ctx_open_async); opts->device_spec is ignored. *out is the caller's,
 * released with tdcl_devset_close; wait with tdcl_devset_wait before use. */
tdcl_status tdcl_devset_open_async(const char *spec, const tdcl_ctx_opts *opts, tdcl_devset **out,
                                   tdcl_err *err);

/* Waits for every context of the set; the first failure is returned. */
tdcl_status tdcl_devset_wait(tdcl_devset *set, tdcl_err *err);

/* Releases every context; accepts NULL. */
void tdcl_devset_close(tdcl_devset *set);

#endif
