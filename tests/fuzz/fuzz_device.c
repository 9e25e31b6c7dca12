/* libFuzzer target for --device SPEC against a made-up device list: the
 * first byte chooses how many devices there are and their types, the rest is
 * the spec. A pick must be in range; a miss gives TDCL_ENODEV with the list
 * in a message that stays within the error record. */
#include <assert.h>

#include "runtime/clrt.h"
#include "fuzz_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fill(tdcl_device_info *d, unsigned i, unsigned bits)
{
    static const cl_device_type types[] = {CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU,
                                           CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_CUSTOM};
    static const char *names[] = {"pthread-Intel(R) Xeon(R) CPU", "NVIDIA H100 80GB HBM3",
                                  "gfx90a:sramecc+:xnack-", ""};
    static const char *plats[] = {"Portable Computing Language", "NVIDIA CUDA", "AMD APP", ""};
    memset(d, 0, sizeof *d);
    d->pidx = i / 2;
    d->didx = i % 2;
    d->type = types[bits & 3];
    strcpy(d->device_name, names[(bits >> 2) & 3]);
    strcpy(d->platform_name, plats[(bits >> 4) & 3]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tdcl_device_info list[4] = {0};
    size_t n = size ? data[0] % 5 : 0;
    for (unsigned i = 0; i < n; i++)
        fill(&list[i], i, size > 1 + i ? data[1 + i] : i);
    char *spec = fuzz_text(size ? data + 1 : data, size ? size - 1 : 0);
    if (!spec) return 0;
    size_t idx = 99;
    tdcl_err e;
    tdcl_status st = tdcl_cl_pick(list, n, spec, &idx, &e);
    if (st == TDCL_OK)
        assert(idx < n);
    else
        assert(st == TDCL_ENODEV && memchr(e.msg, '\0', sizeof e.msg));
    (void)tdcl_cl_pick(list, n, size % 2 ? NULL : spec, &idx, NULL);
    free(spec);
    return 0;
}
