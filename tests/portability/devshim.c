/* LD_PRELOAD shim for the Oclgrind suite: makes Oclgrind's simulated device
 * answer like another vendor's. Oclgrind reports every device type bit at
 * once (so tiledcl takes its CPU paths) and always has fp64; its own
 * options set only sizes (OCLGRIND_MAX_WGSIZE, OCLGRIND_LOCAL_MEM_SIZE).
 *
 *   TDCL_SHIM_TYPE=gpu   CL_DEVICE_TYPE answers CL_DEVICE_TYPE_GPU alone
 *   TDCL_SHIM_FP64=0     no CL_DEVICE_DOUBLE_FP_CONFIG, no cl_khr_fp64
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

typedef cl_int (*info_fn)(cl_device_id, cl_device_info, size_t, void *, size_t *);

static int env_is(const char *name, const char *value)
{
    const char *v = getenv(name);
    return v && strcmp(v, value) == 0;
}

/* Blanks every "cl_khr_fp64" in the extension list (same length). */
static void drop_fp64(char *ext, size_t n)
{
    static const char word[] = "cl_khr_fp64";
    for (char *p = ext; p && (size_t)(p - ext) < n && (p = strstr(p, word)) != NULL;)
        if (p[sizeof word - 1] == ' ' || p[sizeof word - 1] == '\0')
            memset(p, ' ', sizeof word - 1);
        else
            p += sizeof word - 1;
}

CL_API_ENTRY cl_int CL_API_CALL clGetDeviceInfo(cl_device_id d, cl_device_info what, size_t size,
                                                void *value, size_t *ret)
{
    static info_fn real;
    if (!real) {
        void *sym = dlsym(RTLD_NEXT, "clGetDeviceInfo");
        memcpy(&real, &sym, sizeof real); /* ISO C has no object-to-function cast */
    }
    cl_int rc = real(d, what, size, value, ret);
    if (rc != CL_SUCCESS || !value) return rc;
    if (what == CL_DEVICE_TYPE && env_is("TDCL_SHIM_TYPE", "gpu"))
        *(cl_device_type *)value = CL_DEVICE_TYPE_GPU;
    if (env_is("TDCL_SHIM_FP64", "0")) {
        if (what == CL_DEVICE_DOUBLE_FP_CONFIG) memset(value, 0, size);
        if (what == CL_DEVICE_EXTENSIONS) drop_fp64(value, size);
    }
    return rc;
}
