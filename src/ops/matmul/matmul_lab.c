/* Reads the text of the tensor-core plans' overrides into matmul_lab.h's
 * struct: the one place that knows their -D names. */
#include "ops/matmul/matmul_lab.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LAB_KEY(name, field)                                                                       \
    {                                                                                              \
        name, offsetof(tdcl_mm_lab, field)                                                         \
    }

static const struct {
    const char *name;
    size_t off;
} lab_keys[] = {
    LAB_KEY("STAGES", stages),         LAB_KEY("WGMMA", wgmma),
    LAB_KEY("WG_NOLIMIT", wg_nolimit), LAB_KEY("WG_NWG", wg_nwg),
    LAB_KEY("WG_BN", wg_bn),           LAB_KEY("WG_BK", wg_bk),
    LAB_KEY("WG_LAG", wg_lag),         LAB_KEY("WG_KSUB", wg_ksub),
    LAB_KEY("WG_GROUP_M", wg_group_m), LAB_KEY("WG_PRODUCER", wg_producer),
    LAB_KEY("WG_STAGES", wg_stages),
};

void tdcl_mm_lab_init(tdcl_mm_lab *lab)
{
    *lab = (tdcl_mm_lab){0};
    for (size_t i = 0; i < sizeof lab_keys / sizeof lab_keys[0]; i++)
        *(int *)((char *)lab + lab_keys[i].off) = -1;
    lab->wg_nolimit = 0;
}

tdcl_status tdcl_mm_lab_parse(const char *text, tdcl_mm_lab *lab, tdcl_err *err)
{
    tdcl_mm_lab_init(lab);
    if (!text) return TDCL_OK;
    if (snprintf(lab->build, sizeof lab->build, "%s", text) >= (int)sizeof lab->build)
        return tdcl_fail(err, TDCL_EINVAL, "extra tensor-core build options longer than %zu bytes",
                         sizeof lab->build - 1);
    for (size_t i = 0; i < sizeof lab_keys / sizeof lab_keys[0]; i++) {
        char pat[32];
        snprintf(pat, sizeof pat, "-D%s=", lab_keys[i].name);
        const char *at = strstr(lab->build, pat);
        if (at) *(int *)((char *)lab + lab_keys[i].off) = atoi(at + strlen(pat));
    }
    return TDCL_OK;
}
