/* Device sets: parsing "all", "TYPE:all" and lists, and opening one
 * context per device, all at once. */
#include "runtime/devset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int tdcl_devset_spec_is_set(const char *spec)
{
    if (!spec) return 0;
    if (strchr(spec, ',')) return 1;
    if (strcasecmp(spec, "all") == 0) return 1;
    const char *colon = strrchr(spec, ':');
    return colon && strcasecmp(colon + 1, "all") == 0;
}

/* Adds every device of list whose type matches (all when type is 0). */
static tdcl_status pick_all(const tdcl_device_info *list, size_t n, cl_device_type type,
                            const char *spec, size_t *idx, size_t cap, size_t *count, tdcl_err *err)
{
    for (size_t i = 0; i < n; i++) {
        if (type && !(list[i].type & type)) continue;
        if (*count >= cap)
            return tdcl_fail(err, TDCL_EINVAL, "'%s' names more than %zu devices", spec, cap);
        idx[(*count)++] = i;
    }
    if (*count == 0) return tdcl_fail(err, TDCL_ENODEV, "no device matches '%s'", spec);
    return TDCL_OK;
}

tdcl_status tdcl_devset_pick(const tdcl_device_info *list, size_t n, const char *spec, size_t *idx,
                             size_t cap, size_t *count, tdcl_err *err)
{
    static const struct {
        const char *name;
        cl_device_type type;
    } types[] = {{"all", 0},
                 {"gpu:all", CL_DEVICE_TYPE_GPU},
                 {"cpu:all", CL_DEVICE_TYPE_CPU},
                 {"accelerator:all", CL_DEVICE_TYPE_ACCELERATOR}};
    *count = 0;
    if (n == 0) return tdcl_fail(err, TDCL_ENODEV, "no OpenCL device found");
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        if (strcasecmp(spec, types[t].name) == 0)
            return pick_all(list, n, types[t].type, spec, idx, cap, count, err);
    if (strchr(spec, ',') == NULL && tdcl_devset_spec_is_set(spec))
        return tdcl_fail(err, TDCL_EINVAL,
                         "'%s': a set of devices is 'all', 'gpu:all', 'cpu:all', "
                         "'accelerator:all' or a list 'P:D,P:D'",
                         spec);
    for (const char *s = spec;;) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        char item[128];
        if (len == 0 || len >= sizeof item)
            return tdcl_fail(err, TDCL_EINVAL, "'%s': an empty or overlong item in the device list",
                             spec);
        memcpy(item, s, len);
        item[len] = '\0';
        if (*count >= cap)
            return tdcl_fail(err, TDCL_EINVAL, "'%s' names more than %zu devices", spec, cap);
        tdcl_status st = tdcl_cl_pick(list, n, item, &idx[*count], err);
        if (st) return st;
        (*count)++;
        if (!end) break;
        s = end + 1;
    }
    return TDCL_OK;
}

tdcl_status tdcl_devset_open_async(const char *spec, const tdcl_ctx_opts *opts, tdcl_devset **out,
                                   tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_device_info *list = NULL;
    size_t n = 0, idx[TDCL_DEVSET_MAX], count = 0;
    tdcl_devset *set = NULL;
    *out = NULL;
    TDCL_TRY(tdcl_cl_devices(&list, &n, err));
    TDCL_TRY(tdcl_devset_pick(list, n, spec, idx, TDCL_DEVSET_MAX, &count, err));
    if (!(set = calloc(1, sizeof *set))) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < count; i++) {
        char one[32];
        snprintf(one, sizeof one, "%u:%u", list[idx[i]].pidx, list[idx[i]].didx);
        tdcl_ctx_opts o = opts ? *opts : (tdcl_ctx_opts){0};
        o.device_spec = one;
        TDCL_TRY(tdcl_ctx_open_async(&o, &set->ctx[i], err));
        set->n = i + 1;
    }
out:
    free(list);
    if (st) {
        tdcl_devset_close(set);
        return st;
    }
    *out = set;
    return TDCL_OK;
}

tdcl_status tdcl_devset_wait(tdcl_devset *set, tdcl_err *err)
{
    tdcl_status first = TDCL_OK;
    for (size_t i = 0; i < set->n; i++) {
        tdcl_err e = {0};
        tdcl_status st = tdcl_ctx_wait(set->ctx[i], &e);
        if (st && !first) {
            first = st;
            if (err) *err = e;
        }
    }
    return first;
}

void tdcl_devset_close(tdcl_devset *set)
{
    if (!set) return;
    for (size_t i = 0; i < set->n; i++)
        tdcl_ctx_close(set->ctx[i]);
    free(set);
}
