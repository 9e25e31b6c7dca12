/* Error records, OpenCL error names and the status to exit-code mapping. */
#include "base/status.h"

#include <stdio.h>
#include <string.h>

tdcl_status tdcl_vfail(tdcl_err *err, tdcl_status status, const char *fmt, va_list ap)
{
    if (err) {
        err->status = status;
        err->cl_code = 0;
        err->param = TDCL_PARAM_NONE;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    }
    return status;
}

tdcl_status tdcl_fail(tdcl_err *err, tdcl_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tdcl_vfail(err, status, fmt, ap);
    va_end(ap);
    return status;
}

tdcl_status tdcl_fail_param(tdcl_err *err, tdcl_status status, tdcl_param param, const char *fmt,
                            ...)
{
    va_list ap;
    va_start(ap, fmt);
    tdcl_vfail(err, status, fmt, ap);
    va_end(ap);
    if (err) err->param = param;
    return status;
}

tdcl_status tdcl_fail_cl(tdcl_err *err, int cl_code, const char *call, const char *fmt, ...)
{
    if (!err) return TDCL_ECL;
    char ctx[768] = "";
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx, sizeof ctx, fmt, ap);
        va_end(ap);
    }
    err->status = TDCL_ECL;
    err->cl_code = cl_code;
    err->param = TDCL_PARAM_NONE;
    snprintf(err->msg, sizeof err->msg, "%s failed: %s (%d)%s%s", call, tdcl_cl_error_name(cl_code),
             cl_code, ctx[0] ? ": " : "", ctx);
    return TDCL_ECL;
}

const char *tdcl_cl_error_name(int code)
{
    /* The table follows cl.h; written out so the names exist even where the
     * headers are older than the driver. */
    static const struct {
        int code;
        const char *name;
    } names[] = {
        {0, "CL_SUCCESS"},
        {-1, "CL_DEVICE_NOT_FOUND"},
        {-2, "CL_DEVICE_NOT_AVAILABLE"},
        {-3, "CL_COMPILER_NOT_AVAILABLE"},
        {-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
        {-5, "CL_OUT_OF_RESOURCES"},
        {-6, "CL_OUT_OF_HOST_MEMORY"},
        {-7, "CL_PROFILING_INFO_NOT_AVAILABLE"},
        {-8, "CL_MEM_COPY_OVERLAP"},
        {-9, "CL_IMAGE_FORMAT_MISMATCH"},
        {-10, "CL_IMAGE_FORMAT_NOT_SUPPORTED"},
        {-11, "CL_BUILD_PROGRAM_FAILURE"},
        {-12, "CL_MAP_FAILURE"},
        {-13, "CL_MISALIGNED_SUB_BUFFER_OFFSET"},
        {-14, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"},
        {-15, "CL_COMPILE_PROGRAM_FAILURE"},
        {-16, "CL_LINKER_NOT_AVAILABLE"},
        {-17, "CL_LINK_PROGRAM_FAILURE"},
        {-18, "CL_DEVICE_PARTITION_FAILED"},
        {-19, "CL_KERNEL_ARG_INFO_NOT_AVAILABLE"},
        {-30, "CL_INVALID_VALUE"},
        {-31, "CL_INVALID_DEVICE_TYPE"},
        {-32, "CL_INVALID_PLATFORM"},
        {-33, "CL_INVALID_DEVICE"},
        {-34, "CL_INVALID_CONTEXT"},
        {-35, "CL_INVALID_QUEUE_PROPERTIES"},
        {-36, "CL_INVALID_COMMAND_QUEUE"},
        {-37, "CL_INVALID_HOST_PTR"},
        {-38, "CL_INVALID_MEM_OBJECT"},
        {-39, "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR"},
        {-40, "CL_INVALID_IMAGE_SIZE"},
        {-41, "CL_INVALID_SAMPLER"},
        {-42, "CL_INVALID_BINARY"},
        {-43, "CL_INVALID_BUILD_OPTIONS"},
        {-44, "CL_INVALID_PROGRAM"},
        {-45, "CL_INVALID_PROGRAM_EXECUTABLE"},
        {-46, "CL_INVALID_KERNEL_NAME"},
        {-47, "CL_INVALID_KERNEL_DEFINITION"},
        {-48, "CL_INVALID_KERNEL"},
        {-49, "CL_INVALID_ARG_INDEX"},
        {-50, "CL_INVALID_ARG_VALUE"},
        {-51, "CL_INVALID_ARG_SIZE"},
        {-52, "CL_INVALID_KERNEL_ARGS"},
        {-53, "CL_INVALID_WORK_DIMENSION"},
        {-54, "CL_INVALID_WORK_GROUP_SIZE"},
        {-55, "CL_INVALID_WORK_ITEM_SIZE"},
        {-56, "CL_INVALID_GLOBAL_OFFSET"},
        {-57, "CL_INVALID_EVENT_WAIT_LIST"},
        {-58, "CL_INVALID_EVENT"},
        {-59, "CL_INVALID_OPERATION"},
        {-60, "CL_INVALID_GL_OBJECT"},
        {-61, "CL_INVALID_BUFFER_SIZE"},
        {-62, "CL_INVALID_MIP_LEVEL"},
        {-63, "CL_INVALID_GLOBAL_WORK_SIZE"},
        {-64, "CL_INVALID_PROPERTY"},
        {-65, "CL_INVALID_IMAGE_DESCRIPTOR"},
        {-66, "CL_INVALID_COMPILER_OPTIONS"},
        {-67, "CL_INVALID_LINKER_OPTIONS"},
        {-68, "CL_INVALID_DEVICE_PARTITION_COUNT"},
        {-69, "CL_INVALID_PIPE_SIZE"},
        {-70, "CL_INVALID_DEVICE_QUEUE"},
        {-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].code == code) return names[i].name;
    return "CL_UNKNOWN_ERROR";
}

const char *tdcl_status_name(tdcl_status s)
{
    switch (s) {
    case TDCL_OK:
        return "ok";
    case TDCL_EINVAL:
        return "invalid argument";
    case TDCL_EIO:
        return "i/o error";
    case TDCL_EPARSE:
        return "parse error";
    case TDCL_EUNSUPPORTED:
        return "unsupported";
    case TDCL_ENOMEM:
        return "out of memory";
    case TDCL_ELIMIT:
        return "size limit";
    case TDCL_EVERIFY:
        return "verification failed";
    case TDCL_ENODEV:
        return "no usable device";
    case TDCL_ECL:
        return "opencl error";
    case TDCL_EINTR:
        return "interrupted";
    case TDCL_ERANGE:
        return "out of range";
    }
    return "unknown status";
}

int tdcl_exit_code(tdcl_status s)
{
    switch (s) {
    case TDCL_OK:
        return 0;
    case TDCL_ENODEV:
    case TDCL_ECL:
        return 3;
    default:
        return 1;
    }
}
