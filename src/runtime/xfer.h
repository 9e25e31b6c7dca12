/* Large host <-> device copies through pinned staging memory (module
 * prefix tdcl_xfer_).
 *
 * A GPU driver copies from ordinary (pageable) memory through a bounce
 * buffer of its own on one thread, several times slower than its copies
 * from pinned memory (docs/internals/matmul-kernels.md has the figures).
 * Pinning the whole input costs more than it saves (a fresh pinned page
 * is allocated, zeroed and locked), so a small ring
 * of pinned, mapped chunks (CL_MEM_ALLOC_HOST_PTR, mapped once per
 * context) carries the data: for an upload each of a few host threads
 * fills one of its two chunks while the device copies the other; for a
 * download each thread reads ahead into its two chunks and hands them to
 * a sink (the file writer, pwrite at the chunk's place) straight from the
 * pinned memory: tmpfs and the page cache take writes from several
 * threads faster than from one.
 *
 * On a CPU device host memory is device memory: the copies go straight
 * through clEnqueueWriteBuffer/ReadBuffer. TILEDCL_STAGING=0 turns the ring
 * off, =1 uses it on any device and size (tests); TILEDCL_STAGING_CHUNK
 * sets the chunk size in bytes (default 1 MiB) and TILEDCL_STAGING_THREADS
 * the copying threads (default 8): the ring is 2 x threads x chunk. A
 * ring that cannot be allocated or mapped falls back to the plain copies
 * (logged at -v), never to an error. */
#ifndef TDCL_XFER_H
#define TDCL_XFER_H

#include <stddef.h>

#include "base/status.h"
#include "runtime/clrt.h"

/* Receives the n bytes at byte pos of a download; p is valid during the
 * call only. Chunks come in any order, from several threads at once (each
 * range once): a sink writes them at their position (pwrite, memcpy). A
 * non-zero status stops the download and is returned. */
typedef tdcl_status (*tdcl_xfer_sink)(void *user, size_t pos, const void *p, size_t n,
                                      tdcl_err *err);

/* Copies n bytes from src into buf at byte offset off; returns when they
 * are on the device (src may then be freed). */
tdcl_status tdcl_xfer_upload(tdcl_ctx *ctx, cl_mem buf, size_t off, const void *src, size_t n,
                             tdcl_err *err);

/* Copies n bytes of buf from byte offset off to sink, in chunks, over
 * tdcl_xfer_lanes(ctx, n) threads. The caller times the sink. */
tdcl_status tdcl_xfer_download(tdcl_ctx *ctx, cl_mem buf, size_t off, size_t n, tdcl_xfer_sink sink,
                               void *user, tdcl_err *err);

/* tdcl_xfer_download into host memory dst (n bytes). */
tdcl_status tdcl_xfer_read(tdcl_ctx *ctx, cl_mem buf, size_t off, void *dst, size_t n,
                           tdcl_err *err);

/* How many threads a copy of n bytes runs on (1 without the ring). */
int tdcl_xfer_lanes(tdcl_ctx *ctx, size_t n);

/* 1 when copies of n bytes on ctx's device go through the ring. */
int tdcl_xfer_staged(const tdcl_ctx *ctx, size_t n);

/* A copy channel: a queue of its own on ctx's device and a ring of its
 * own, so that its copies run beside the kernels of ctx's queue (and of
 * another channel's: one for uploads, one for downloads). The caller
 * orders them against the kernels (events, waits). Channels of one
 * context; OpenCL has no copy between the contexts of two devices, so a
 * set's devices each get their own from host memory. */
typedef struct tdcl_xfer tdcl_xfer;

/* Opens a channel on ctx (tdcl_xfer_close releases it). */
tdcl_status tdcl_xfer_open(tdcl_ctx *ctx, tdcl_xfer **out, tdcl_err *err);

/* Releases x (waiting for its copies); accepts NULL. */
void tdcl_xfer_close(tdcl_xfer *x);

/* tdcl_xfer_upload on x's queue and ring. */
tdcl_status tdcl_xfer_put(tdcl_xfer *x, cl_mem buf, size_t off, const void *src, size_t n,
                          tdcl_err *err);

/* tdcl_xfer_read on x's queue and ring: the ring's threads write dst, so
 * that fresh pages of dst are faulted in on several threads at once. */
tdcl_status tdcl_xfer_get(tdcl_xfer *x, cl_mem buf, size_t off, void *dst, size_t n, tdcl_err *err);

/* Releases ctx's ring (tdcl_ctx_close calls it); accepts a context
 * without one. */
void tdcl_xfer_release(tdcl_ctx *ctx);

#endif
