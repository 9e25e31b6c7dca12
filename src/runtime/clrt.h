/* The OpenCL runtime: device discovery and choice, a context with one
 * profiling queue, kernel files found at run time and built programs cached
 * on disk.
 *
 * Every operation takes a tdcl_ctx. Work is expressed by the operations as
 * independent regions of the output (with their halos where a stencil needs
 * them), so a later version can hand regions to several contexts; today a
 * context holds one device. */
#ifndef TDCL_CLRT_H
#define TDCL_CLRT_H

#include <stddef.h>

#include <CL/cl.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/status.h"

typedef struct tdcl_device_info {
    unsigned pidx, didx; /* the "P:D" index pair of `tiledcl devices` */
    cl_platform_id platform;
    cl_device_id device;
    char platform_name[128];
    char platform_vendor[128];
    char device_name[128];
    char device_vendor[128];
    char driver_version[128];
    char device_version[128];   /* "OpenCL 3.0 CUDA" */
    char opencl_c_version[128]; /* "OpenCL C 1.2" */
    cl_device_type type;
    cl_uint compute_units;
    cl_uint clock_mhz;
    cl_ulong global_mem;
    cl_ulong local_mem;
    size_t timer_ns; /* CL_DEVICE_PROFILING_TIMER_RESOLUTION; 0: a timer that does not run */
    cl_ulong max_alloc;
    size_t max_wg;
    size_t max_item_sizes[3];
    int fp64;                     /* cl_khr_fp64 or a double-capable device */
    int nv_cc_major, nv_cc_minor; /* NVIDIA compute capability, 0 elsewhere */
    int nv_options;               /* NVIDIA's, taking its build options
                                     (cl_nv_compiler_options: -cl-nv-maxrregcount) */
} tdcl_device_info;

/* Lists every device of every platform. *list is malloc'd (free() it); a
 * machine with no platform gives TDCL_ENODEV with a hint. */
tdcl_status tdcl_cl_devices(tdcl_device_info **list, size_t *n, tdcl_err *err);

/* Chooses a device from list by SPEC: "P:D", a type ("gpu", "cpu",
 * "accelerator") or a case-insensitive substring of platform or device name.
 * NULL or "" chooses the first GPU, else the first device. Pure: no OpenCL
 * calls, so it is tested without a device. A SPEC matching nothing gives
 * TDCL_ENODEV whose message lists the devices. */
tdcl_status tdcl_cl_pick(const tdcl_device_info *list, size_t n, const char *spec, size_t *index,
                         tdcl_err *err);

/* The device spec in force: given when it names something, else
 * $TILEDCL_DEVICE, else NULL (the default rule). The one place the
 * variable is read: the CLI resolves its spec with it once and passes the
 * result down; tdcl_ctx_open applies it to a NULL spec. */
const char *tdcl_device_spec(const char *given);

/* "GPU", "CPU", "accelerator", "other". */
const char *tdcl_cl_type_name(cl_device_type type);

/* Where the time of one command went, in milliseconds; printed by -v. */
typedef struct tdcl_timing {
    double read_ms, setup_ms, compile_ms, upload_ms, kernel_ms, download_ms, write_ms;
    double peak_rss_mb;  /* the process's peak memory in MB, filled by tdcl_timing_log */
    double wait_ms;      /* of setup_ms, how long the command waited for it (an
                            asynchronous open overlaps the rest with reading) */
    int programs_built;  /* compiled from source */
    int programs_cached; /* loaded from the binary cache */
} tdcl_timing;

typedef struct tdcl_ctx_opts {
    const char *device_spec; /* NULL: tdcl_device_spec(NULL) */
    const char *kernel_dir;  /* --kernels DIR, or NULL */
    int no_cache;            /* --no-cache; TILEDCL_CACHE=0 also disables */
} tdcl_ctx_opts;

/* Slots of tdcl_ctx_memo_set. */
#define TDCL_CTX_MEMOS 8

typedef struct tdcl_ctx {
    tdcl_device_info dev;
    cl_context context;
    cl_command_queue queue; /* in order, with profiling */
    char *kernel_dir;       /* copy of opts->kernel_dir */
    char *cache_dir;        /* NULL when caching is off */
    struct {
        const char *key; /* the caller's string, static; NULL: free slot */
        int value;
    } memo[TDCL_CTX_MEMOS]; /* tdcl_ctx_memo_get/set */
    tdcl_timing t;
    struct tdcl_ctx_pending *pending; /* tdcl_ctx_open_async's thread, private */
    struct tdcl_xfer *xfer;           /* pinned staging ring (xfer.h), made on first use */
} tdcl_ctx;

/* Chooses the device, makes the context and queue. *out is owned by the
 * caller; release with tdcl_ctx_close. */
tdcl_status tdcl_ctx_open(const tdcl_ctx_opts *opts, tdcl_ctx **out, tdcl_err *err);

/* Starts choosing the device and making the context and queue on a thread,
 * so that the caller reads its inputs meanwhile (platform discovery and
 * context creation take 0.1-0.3 s on a GPU driver). *out is owned by the
 * caller and released with tdcl_ctx_close; until tdcl_ctx_wait returns
 * TDCL_OK only its field t may be used (the thread never touches it).
 * Fails only when the thread cannot start (TDCL_ENOMEM, TDCL_EOS). */
tdcl_status tdcl_ctx_open_async(const tdcl_ctx_opts *opts, tdcl_ctx **out, tdcl_err *err);

/* Waits for tdcl_ctx_open_async to finish and returns its result (the
 * same each time it is called). TDCL_OK on a context opened any other way.
 * The wait is added to ctx->t.wait_ms. */
tdcl_status tdcl_ctx_wait(tdcl_ctx *ctx, tdcl_err *err);

/* Releases everything, waiting for an asynchronous open first; accepts
 * NULL. */
void tdcl_ctx_close(tdcl_ctx *ctx);

/* What an operation found out once for this context's device and driver
 * (a probe kernel builds, runs right), kept so that later plans skip the
 * probe. key names it ("mm.tc"), chosen by the operation; the runtime
 * knows none. tdcl_ctx_memo_get returns the value stored under key, 0 when
 * none; tdcl_ctx_memo_set stores a non-zero value, keeping the pointer key
 * (static storage), and when all slots are taken stores nothing: the
 * operation then finds out again. */
int tdcl_ctx_memo_get(const tdcl_ctx *ctx, const char *key);
void tdcl_ctx_memo_set(tdcl_ctx *ctx, const char *key, int value);

/* Finds kernel file name ("matmul/gemm.cl"): kernel_dir, each directory of
 * $TILEDCL_KERNEL_PATH (':'-separated), the cl/ directory beside the
 * executable, then the installed datadir. *path is malloc'd. A miss lists
 * every place tried. */
tdcl_status tdcl_kernel_path(const char *kernel_dir, const char *name, char **path, tdcl_err *err);

/* Builds (or loads from the cache) the program of kernel file `name` with
 * the -D options given; "-cl-std=CL1.2" is added when the device's OpenCL C is
 * 1.2 or later (or unreadable) and not given. *prog is owned by the caller. A failed build logs the
 * build log and names the file and options. */
tdcl_status tdcl_ctx_program(tdcl_ctx *ctx, const char *name, const char *options, cl_program *prog,
                             tdcl_err *err);

/* tdcl_ctx_program over several kernel files ("life/prelude.cl" first, then
 * the files that use it), each found as tdcl_kernel_path finds one, built as
 * one program. Every byte of every file is in the cache key. */
tdcl_status tdcl_ctx_program_files(tdcl_ctx *ctx, const char *const *names, size_t n,
                                   const char *options, cl_program *prog, tdcl_err *err);

/* A program from len bytes of a binary for ctx's device (on NVIDIA's
 * OpenCL, PTX text, such as PTX the caller edited), built with options,
 * through the cache: keyed by the binary's bytes, the options, the
 * platform, the device and the driver; a hit loads the driver's build of
 * it, a miss builds it and stores that build. what names it in messages
 * ("matmul/wg.cl as sm_90a PTX"). *prog is the caller's, set also when the
 * build fails (its build log says why). */
tdcl_status tdcl_ctx_program_binary(tdcl_ctx *ctx, const char *what, const unsigned char *bin,
                                    size_t len, const char *options, cl_program *prog,
                                    tdcl_err *err);

/* Logs the build log of prog for dev at level, one message a line, each
 * "what: build log: LINE"; nothing when the log is empty. Returns 1 when the
 * log holds a compiler diagnostic (an error or a warning), else 0. */
int tdcl_log_build_log(cl_program prog, cl_device_id dev, tdcl_log_level level, const char *what);

/* Creates kernel `kname` of prog, naming it on failure. */
tdcl_status tdcl_ctx_kernel(cl_program prog, const char *kname, cl_kernel *k, tdcl_err *err);

/* TDCL_ELIMIT, naming kname, when compiled kernel k needs more local
 * memory (CL_KERNEL_LOCAL_MEM_SIZE: the compiler's view, its own additions
 * included) than the device has, which would fail only at launch with
 * CL_OUT_OF_RESOURCES. */
tdcl_status tdcl_kernel_local_check(const tdcl_ctx *ctx, cl_kernel k, const char *kname,
                                    tdcl_err *err);

/* Device time of a finished, profiled event in milliseconds (0 if unknown). */
double tdcl_event_ms(cl_event ev);

/* Largest square tile T (power of two) with T*T <= max_wg and
 * bytes_per_item_local*T*T <= local_mem; 0 if none >= 1 fits. Helper for the
 * operations' default tile choices. */
size_t tdcl_cl_fit_square_tile(const tdcl_device_info *d, size_t max_tile,
                               size_t local_bytes_per_item);

/* Logs the timing breakdown at TDCL_LOG_VERBOSE: one line, "time (ms): "
 * and tdcl_timing_format's text. */
void tdcl_timing_log(const tdcl_timing *t);

/* The breakdown as text into buf ("read 1.00  device setup ..."). */
void tdcl_timing_format(const tdcl_timing *t, char *buf, size_t cap);

/* Finds a "time (ms): " line of tdcl_timing_log in text (a child's stderr,
 * for `tiledcl bench e2e`) and reads it back into *t; 0 on success, -1 if
 * there is none. */
int tdcl_timing_parse(const char *text, tdcl_timing *t);

#endif
