/* The on-disk cache of built program binaries.
 *
 * An entry is keyed by the kernel source bytes, the build options, and the
 * platform, device, driver and device version, so any change of either side
 * misses. Entries carry their full key and a checksum: a stale, truncated or
 * corrupt entry is ignored (and rebuilt), never trusted. */
#ifndef TDCL_CLCACHE_H
#define TDCL_CLCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/clrt.h"

/* $XDG_CACHE_HOME/tiledcl, else $HOME/.cache/tiledcl; malloc'd, NULL when
 * neither variable is set. The directory is created on first store. */
char *tdcl_cache_dir(void);

/* mkdir -p: creates dir and its parents; 0 on success (or when it exists). */
int tdcl_cache_make_dirs(const char *dir);

/* Loads and builds the cached binary for (source, options, ctx's device).
 * Returns TDCL_OK with *prog set on a hit; any miss or defect returns
 * non-OK and leaves nothing behind. */
tdcl_status tdcl_cache_load(tdcl_ctx *ctx, const char *src, size_t src_len, const char *options,
                            cl_program *prog);

/* Stores prog's binary. Failures are logged at verbose level and ignored:
 * the cache is an optimisation. Written atomically (temp file + rename). */
void tdcl_cache_store(tdcl_ctx *ctx, const char *src, size_t src_len, const char *options,
                      cl_program prog);

/* The entry's file path for (source, options, ctx's device); malloc'd.
 * Exposed for tests that corrupt entries. */
char *tdcl_cache_entry_path(const tdcl_ctx *ctx, const char *src, size_t src_len,
                            const char *options);

#endif
