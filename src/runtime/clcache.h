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

/* Other files of the cache (the matmul tuned table), so that the layers
 * above keep no files of their own: NAME's path in ctx's cache directory,
 * malloc'd; NULL when ctx does not cache. */
char *tdcl_cache_file_path(const tdcl_ctx *ctx, const char *name);

/* Reads the cache file NAME whole into *data (malloc'd, the caller's, a NUL
 * byte after its end not counted in *len). TDCL_EIO when ctx does not cache
 * or the file cannot be read (a missing file too). */
tdcl_status tdcl_cache_file_read(const tdcl_ctx *ctx, const char *name, char **data, size_t *len,
                                 tdcl_err *err);

/* Replaces the cache file NAME by len bytes of data, atomically (temp file
 * and rename), creating the directory. TDCL_EIO when ctx does not cache or
 * the file cannot be written. */
tdcl_status tdcl_cache_file_write(const tdcl_ctx *ctx, const char *name, const char *data,
                                  size_t len, tdcl_err *err);

/* Takes the lock that serialises read-merge-replace updates of the cache
 * file NAME among processes: an exclusive flock on NAME.lock beside it
 * (made if needed, and left in place: removing it would let two processes
 * lock two different files). Waits for another holder, a bounded time.
 * *fd gets the descriptor that holds the lock, for tdcl_cache_file_unlock.
 * TDCL_EIO when ctx does not cache, the file cannot be made, or the lock is
 * not had in time. */
tdcl_status tdcl_cache_file_lock(const tdcl_ctx *ctx, const char *name, int *fd, tdcl_err *err);

/* Releases a lock from tdcl_cache_file_lock; a negative fd is ignored. */
void tdcl_cache_file_unlock(int fd);

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
