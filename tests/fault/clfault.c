/* Test-only fault injection, loaded with LD_PRELOAD in front of libOpenCL:
 * wraps the OpenCL entry points tiledcl calls and the host allocator, and
 * makes one chosen call fail, so a test can walk a failure over every call
 * of a command and check that each gives a clear error, no leak and no
 * partial output.
 *
 * Environment:
 *   TDCL_FAULT_TRACE=FILE   append one line per wrapped OpenCL call
 *                           ("N clName", "N clName FAULT" for the failed
 *                           one), so a first run learns the count
 *   TDCL_FAULT_CALL=N       the Nth wrapped OpenCL call (1-based) fails
 *   TDCL_FAULT_ONLY=clName  count only calls of that entry point
 *   TDCL_FAULT_ERROR=NAME   the error returned: CL_OUT_OF_RESOURCES
 *                           (default), CL_OUT_OF_HOST_MEMORY,
 *                           CL_MEM_OBJECT_ALLOCATION_FAILURE,
 *                           CL_BUILD_PROGRAM_FAILURE,
 *                           CL_INVALID_WORK_GROUP_SIZE, CL_DEVICE_NOT_FOUND,
 *                           CL_INVALID_VALUE, or a number
 *   TDCL_FAULT_MAX_ALLOC=B  the device reports CL_DEVICE_MAX_MEM_ALLOC_SIZE
 *   TDCL_FAULT_GLOBAL_MEM=B and CL_DEVICE_GLOBAL_MEM_SIZE of at most B bytes,
 *                           and clCreateBuffer refuses a larger buffer
 *                           (CL_INVALID_BUFFER_SIZE) or more in total
 *                           (CL_MEM_OBJECT_ALLOCATION_FAILURE), as a small
 *                           device would; buffers are never freed in the
 *                           tally, which is stricter than a device
 *   TDCL_FAULT_TIMER=0      a profiling timer that does not run, as Mesa's
 *                           rusticl's: CL_DEVICE_PROFILING_TIMER_RESOLUTION
 *                           is 0 and every command ends 1 ns after it starts
 *   TDCL_FAULT_KERNEL_WG=N  CL_KERNEL_WORK_GROUP_SIZE answers at most N, as
 *                           Mesa's rusticl on llvmpipe answers 32 for any
 *                           kernel (the driver still runs larger groups)
 *   TDCL_FAULT_MALLOC=N     the Nth malloc/calloc/realloc made directly by
 *                           the executable fails (tiledcl and its core; not
 *                           libc, libpng or the OpenCL driver). Counted
 *                           calls are traced as "N malloc". Under ASan the
 *                           sanitizer's allocator comes first and these
 *                           wrappers never run.
 *   TDCL_FAULT_FALLOCATE=E  every fallocate fails with errno E (ENOSPC or
 *                           EOPNOTSUPP): the space of an output reserved
 *                           early (base/fileio.h tdcl_out_reserve)
 *   TDCL_FAULT_MMAP=1       every mmap of a file made directly by the
 *                           executable fails with ENOMEM (the mapped .npy
 *                           input must fall back to reading)
 *   TDCL_FAULT_STEAL_SIGNALS=1  every wrapped OpenCL call installs, for
 *                           SIGQUIT, SIGUSR1 and SIGXCPU, a handler that
 *                           swallows the signal, as PoCL's LLVM does when it
 *                           compiles (llvm::sys::RemoveFileOnSignal), so a
 *                           test can check that tiledcl still cleans up
 *                           and dies of them whoever holds the handler
 * Release and retain calls are forwarded uncounted: a failing release only
 * leaks, which is not a failure the program can handle. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <CL/cl.h>

static long fault_call = -1, fault_malloc = -1;
static int fault_mmap;
static int fault_fallocate; /* an errno, 0: none */
static const char *only;
static cl_int fault_error = CL_OUT_OF_RESOURCES;
static int trace_fd = -1;
static int steal_signals;
static long cl_calls, mem_calls;
static uintptr_t exe_lo, exe_hi;
static cl_ulong max_alloc, global_mem, allocated;
static int dead_timer;
static size_t kernel_wg;

static const struct {
    const char *name;
    cl_int code;
} errors[] = {
    {"CL_OUT_OF_RESOURCES", CL_OUT_OF_RESOURCES},
    {"CL_OUT_OF_HOST_MEMORY", CL_OUT_OF_HOST_MEMORY},
    {"CL_MEM_OBJECT_ALLOCATION_FAILURE", CL_MEM_OBJECT_ALLOCATION_FAILURE},
    {"CL_BUILD_PROGRAM_FAILURE", CL_BUILD_PROGRAM_FAILURE},
    {"CL_INVALID_WORK_GROUP_SIZE", CL_INVALID_WORK_GROUP_SIZE},
    {"CL_DEVICE_NOT_FOUND", CL_DEVICE_NOT_FOUND},
    {"CL_INVALID_VALUE", CL_INVALID_VALUE},
};

/* The executable's mapped range: allocations from there are the ones
 * counted. The first object dl_iterate_phdr reports is the executable. */
static int exe_range(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (!exe_lo || lo < exe_lo) exe_lo = lo;
        if (hi > exe_hi) exe_hi = hi;
    }
    return 1;
}

__attribute__((constructor)) static void fault_init(void)
{
    const char *s;
    if ((s = getenv("TDCL_FAULT_CALL"))) fault_call = atol(s);
    if ((s = getenv("TDCL_FAULT_MALLOC"))) fault_malloc = atol(s);
    only = getenv("TDCL_FAULT_ONLY");
    fault_mmap = (s = getenv("TDCL_FAULT_MMAP")) && strcmp(s, "1") == 0;
    if ((s = getenv("TDCL_FAULT_FALLOCATE")))
        fault_fallocate = strcmp(s, "ENOSPC") == 0 ? ENOSPC : EOPNOTSUPP;
    if ((s = getenv("TDCL_FAULT_MAX_ALLOC"))) max_alloc = strtoull(s, NULL, 10);
    if ((s = getenv("TDCL_FAULT_GLOBAL_MEM"))) global_mem = strtoull(s, NULL, 10);
    dead_timer = (s = getenv("TDCL_FAULT_TIMER")) && strcmp(s, "0") == 0;
    if ((s = getenv("TDCL_FAULT_KERNEL_WG"))) kernel_wg = strtoull(s, NULL, 10);
    if ((s = getenv("TDCL_FAULT_ERROR"))) {
        fault_error = (cl_int)atoi(s);
        for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
            if (strcmp(s, errors[i].name) == 0) fault_error = errors[i].code;
    }
    steal_signals = getenv("TDCL_FAULT_STEAL_SIGNALS") != NULL;
    if ((s = getenv("TDCL_FAULT_TRACE")))
        trace_fd = open(s, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    dl_iterate_phdr(exe_range, NULL);
    /* Programs the driver runs (PoCL runs the linker) are not under test,
     * and under ASan a preloaded sanitizer runtime would fail them. */
    unsetenv("LD_PRELOAD");
}

static void trace(long n, const char *name, int fault)
{
    char line[96];
    int len = snprintf(line, sizeof line, "%ld %s%s\n", n, name, fault ? " FAULT" : "");
    if (trace_fd >= 0 && len > 0 && write(trace_fd, line, (size_t)len) < 0) trace_fd = -1;
}

/* LLVM's handler for its "kill" signals that are not faults, as far as the
 * signal is concerned: it returns, and the signal is gone. */
static void swallow(int sig)
{
    (void)sig;
}

static void steal(void)
{
    static const int sigs[] = {SIGQUIT, SIGUSR1, SIGXCPU};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = swallow;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
}

/* Counts a call of name; 1 when this one is to fail. */
static int fault_now(const char *name)
{
    if (steal_signals) steal();
    if (only && strcmp(only, name) != 0) return 0;
    long n = __atomic_add_fetch(&cl_calls, 1, __ATOMIC_SEQ_CST);
    int fault = n == fault_call;
    trace(n, name, fault);
    return fault;
}

static void *real(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        fprintf(stderr, "clfault: no next definition of %s\n", name);
        abort();
    }
    return f;
}

/* A wrapper for an entry point returning cl_int. */
#define WRAP_INT(name, params, args)                                                               \
    CL_API_ENTRY cl_int CL_API_CALL name params                                                    \
    {                                                                                              \
        static cl_int(CL_API_CALL *next) params;                                                   \
        if (!next) *(void **)&next = real(#name);                                                  \
        if (fault_now(#name)) return fault_error;                                                  \
        return next args;                                                                          \
    }

/* A wrapper for an entry point returning a handle and an error in err. */
#define WRAP_OBJ(type, name, params, args)                                                         \
    CL_API_ENTRY type CL_API_CALL name params                                                      \
    {                                                                                              \
        static type(CL_API_CALL *next) params;                                                     \
        if (!next) *(void **)&next = real(#name);                                                  \
        if (fault_now(#name)) {                                                                    \
            if (err) *err = fault_error;                                                           \
            return NULL;                                                                           \
        }                                                                                          \
        return next args;                                                                          \
    }

WRAP_INT(clGetPlatformIDs, (cl_uint n, cl_platform_id *p, cl_uint *np), (n, p, np))
WRAP_INT(clGetPlatformInfo, (cl_platform_id p, cl_platform_info i, size_t s, void *v, size_t *r),
         (p, i, s, v, r))
WRAP_INT(clGetDeviceIDs,
         (cl_platform_id p, cl_device_type t, cl_uint n, cl_device_id *d, cl_uint *nd),
         (p, t, n, d, nd))
/* Lowers a memory size answer to the limit set, if any. */
static void clamp_answer(cl_device_info i, size_t s, void *v)
{
    cl_ulong lim = i == CL_DEVICE_MAX_MEM_ALLOC_SIZE ? max_alloc
                   : i == CL_DEVICE_GLOBAL_MEM_SIZE  ? global_mem
                                                     : 0;
    if (lim && v && s == sizeof(cl_ulong) && *(cl_ulong *)v > lim) *(cl_ulong *)v = lim;
    if (dead_timer && v && i == CL_DEVICE_PROFILING_TIMER_RESOLUTION && s == sizeof(size_t))
        *(size_t *)v = 0;
}

CL_API_ENTRY cl_int CL_API_CALL clGetDeviceInfo(cl_device_id d, cl_device_info i, size_t s, void *v,
                                                size_t *r)
{
    static cl_int(CL_API_CALL * next)(cl_device_id, cl_device_info, size_t, void *, size_t *);
    if (!next) *(void **)&next = real("clGetDeviceInfo");
    if (fault_now("clGetDeviceInfo")) return fault_error;
    cl_int rc = next(d, i, s, v, r);
    if (rc == CL_SUCCESS) clamp_answer(i, s, v);
    return rc;
}
WRAP_OBJ(cl_context, clCreateContext,
         (const cl_context_properties *p, cl_uint n, const cl_device_id *d,
          void(CL_CALLBACK *cb)(const char *, const void *, size_t, void *), void *u, cl_int *err),
         (p, n, d, cb, u, err))
WRAP_OBJ(cl_command_queue, clCreateCommandQueue,
         (cl_context c, cl_device_id d, cl_command_queue_properties p, cl_int *err), (c, d, p, err))
CL_API_ENTRY cl_mem CL_API_CALL clCreateBuffer(cl_context c, cl_mem_flags f, size_t s, void *h,
                                               cl_int *err)
{
    static cl_mem(CL_API_CALL * next)(cl_context, cl_mem_flags, size_t, void *, cl_int *);
    if (!next) *(void **)&next = real("clCreateBuffer");
    cl_int refuse = fault_now("clCreateBuffer")                ? fault_error
                    : max_alloc && s > max_alloc               ? CL_INVALID_BUFFER_SIZE
                    : global_mem && allocated + s > global_mem ? CL_MEM_OBJECT_ALLOCATION_FAILURE
                                                               : CL_SUCCESS;
    if (refuse != CL_SUCCESS) {
        if (err) *err = refuse;
        return NULL;
    }
    allocated += s;
    return next(c, f, s, h, err);
}
/* A released buffer's bytes go back to the device's memory (sub-buffers
 * were never counted). */
CL_API_ENTRY cl_int CL_API_CALL clReleaseMemObject(cl_mem m)
{
    static cl_int(CL_API_CALL * next)(cl_mem);
    static cl_int(CL_API_CALL * info)(cl_mem, cl_mem_info, size_t, void *, size_t *);
    if (!next) *(void **)&next = real("clReleaseMemObject");
    if (!info) *(void **)&info = real("clGetMemObjectInfo");
    cl_uint refs = 0;
    size_t size = 0;
    cl_mem parent = NULL;
    if (m && info(m, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs, NULL) == CL_SUCCESS && refs == 1 &&
        info(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL) == 0 && !parent &&
        info(m, CL_MEM_SIZE, sizeof size, &size, NULL) == CL_SUCCESS)
        allocated = size < allocated ? allocated - size : 0;
    return next(m);
}
WRAP_OBJ(cl_program, clCreateProgramWithSource,
         (cl_context c, cl_uint n, const char **s, const size_t *l, cl_int *err), (c, n, s, l, err))
WRAP_OBJ(cl_program, clCreateProgramWithBinary,
         (cl_context c, cl_uint n, const cl_device_id *d, const size_t *l, const unsigned char **b,
          cl_int *st, cl_int *err),
         (c, n, d, l, b, st, err))
WRAP_INT(clBuildProgram,
         (cl_program p, cl_uint n, const cl_device_id *d, const char *o,
          void(CL_CALLBACK *cb)(cl_program, void *), void *u),
         (p, n, d, o, cb, u))
WRAP_INT(clGetProgramInfo, (cl_program p, cl_program_info i, size_t s, void *v, size_t *r),
         (p, i, s, v, r))
WRAP_INT(clGetProgramBuildInfo,
         (cl_program p, cl_device_id d, cl_program_build_info i, size_t s, void *v, size_t *r),
         (p, d, i, s, v, r))
WRAP_OBJ(cl_kernel, clCreateKernel, (cl_program p, const char *n, cl_int *err), (p, n, err))
WRAP_INT(clSetKernelArg, (cl_kernel k, cl_uint i, size_t s, const void *v), (k, i, s, v))
CL_API_ENTRY cl_int CL_API_CALL clGetKernelWorkGroupInfo(cl_kernel k, cl_device_id d,
                                                         cl_kernel_work_group_info i, size_t s,
                                                         void *v, size_t *r)
{
    static cl_int(CL_API_CALL * next)(cl_kernel, cl_device_id, cl_kernel_work_group_info, size_t,
                                      void *, size_t *);
    if (!next) *(void **)&next = real("clGetKernelWorkGroupInfo");
    if (fault_now("clGetKernelWorkGroupInfo")) return fault_error;
    cl_int rc = next(k, d, i, s, v, r);
    if (rc == CL_SUCCESS && kernel_wg && v && i == CL_KERNEL_WORK_GROUP_SIZE &&
        s == sizeof(size_t) && *(size_t *)v > kernel_wg)
        *(size_t *)v = kernel_wg;
    return rc;
}
WRAP_INT(clEnqueueReadBuffer,
         (cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t s, void *p, cl_uint n,
          const cl_event *w, cl_event *e),
         (q, m, b, o, s, p, n, w, e))
WRAP_INT(clEnqueueWriteBuffer,
         (cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t s, const void *p, cl_uint n,
          const cl_event *w, cl_event *e),
         (q, m, b, o, s, p, n, w, e))
WRAP_INT(clEnqueueReadBufferRect,
         (cl_command_queue q, cl_mem m, cl_bool b, const size_t *bo, const size_t *ho,
          const size_t *r, size_t brp, size_t bsp, size_t hrp, size_t hsp, void *p, cl_uint n,
          const cl_event *w, cl_event *e),
         (q, m, b, bo, ho, r, brp, bsp, hrp, hsp, p, n, w, e))
WRAP_INT(clEnqueueWriteBufferRect,
         (cl_command_queue q, cl_mem m, cl_bool b, const size_t *bo, const size_t *ho,
          const size_t *r, size_t brp, size_t bsp, size_t hrp, size_t hsp, const void *p, cl_uint n,
          const cl_event *w, cl_event *e),
         (q, m, b, bo, ho, r, brp, bsp, hrp, hsp, p, n, w, e))
WRAP_INT(clEnqueueFillBuffer,
         (cl_command_queue q, cl_mem m, const void *p, size_t ps, size_t o, size_t s, cl_uint n,
          const cl_event *w, cl_event *e),
         (q, m, p, ps, o, s, n, w, e))
WRAP_INT(clEnqueueNDRangeKernel,
         (cl_command_queue q, cl_kernel k, cl_uint d, const size_t *o, const size_t *g,
          const size_t *l, cl_uint n, const cl_event *w, cl_event *e),
         (q, k, d, o, g, l, n, w, e))
WRAP_INT(clWaitForEvents, (cl_uint n, const cl_event *e), (n, e))
CL_API_ENTRY cl_int CL_API_CALL clGetEventProfilingInfo(cl_event e, cl_profiling_info i, size_t s,
                                                        void *v, size_t *r)
{
    static cl_int(CL_API_CALL * next)(cl_event, cl_profiling_info, size_t, void *, size_t *);
    if (!next) *(void **)&next = real("clGetEventProfilingInfo");
    if (fault_now("clGetEventProfilingInfo")) return fault_error;
    if (dead_timer && i == CL_PROFILING_COMMAND_END && v && s == sizeof(cl_ulong)) {
        cl_int rc = next(e, CL_PROFILING_COMMAND_START, s, v, r);
        if (rc == CL_SUCCESS) *(cl_ulong *)v += 1;
        return rc;
    }
    return next(e, i, s, v, r);
}
WRAP_INT(clFinish, (cl_command_queue q), (q))
WRAP_INT(clFlush, (cl_command_queue q), (q))
WRAP_OBJ(void *, clEnqueueMapBuffer,
         (cl_command_queue q, cl_mem m, cl_bool b, cl_map_flags f, size_t o, size_t s, cl_uint n,
          const cl_event *w, cl_event *e, cl_int *err),
         (q, m, b, f, o, s, n, w, e, err))
WRAP_INT(clEnqueueUnmapMemObject,
         (cl_command_queue q, cl_mem m, void *p, cl_uint n, const cl_event *w, cl_event *e),
         (q, m, p, n, w, e))

/* ---- host allocation ------------------------------------------------ */

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t s);
extern void *__libc_realloc(void *p, size_t n);

/* 1 when this allocation, requested from caller, is to fail. */
static int malloc_fault(const void *caller)
{
    uintptr_t c = (uintptr_t)caller;
    if (fault_malloc < 0 || c < exe_lo || c >= exe_hi) return 0;
    long n = __atomic_add_fetch(&mem_calls, 1, __ATOMIC_SEQ_CST);
    int fault = n == fault_malloc;
    trace(n, "malloc", fault);
    return fault;
}

void *malloc(size_t n)
{
    return malloc_fault(__builtin_return_address(0)) ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t s)
{
    return malloc_fault(__builtin_return_address(0)) ? NULL : __libc_calloc(n, s);
}

void *realloc(void *p, size_t n)
{
    return malloc_fault(__builtin_return_address(0)) ? NULL : __libc_realloc(p, n);
}

/* ---- space reserved for outputs ---------------------------------------- */

int fallocate(int fd, int mode, off_t off, off_t len)
{
    static int (*next)(int, int, off_t, off_t);
    if (!next) *(void **)&next = real("fallocate");
    if (fault_fallocate) {
        trace(0, "fallocate", 1);
        errno = fault_fallocate;
        return -1;
    }
    return next(fd, mode, off, len);
}

/* ---- file mappings --------------------------------------------------- */

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    static void *(*next)(void *, size_t, int, int, int, off_t);
    uintptr_t c = (uintptr_t)__builtin_return_address(0);
    if (!next) *(void **)&next = real("mmap");
    if (fault_mmap && fd >= 0 && c >= exe_lo && c < exe_hi) {
        trace(0, "mmap", 1);
        errno = ENOMEM;
        return MAP_FAILED;
    }
    return next(addr, len, prot, flags, fd, off);
}
