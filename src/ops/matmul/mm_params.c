/* The text form and the checks of matmul's kernel parameters (module
 * prefix tdcl_mm_): kernel and precision names, "bm=128 bn=128 ..." parsing
 * and formatting, value ranges and whether a set fits a device. The plan
 * (matmul.c), the parameter table (mm_table.c), tune, bench and the CLI
 * use it; it uses neither the plan nor the table. */
#include "ops/matmul/mm_params.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/matmul/matmul_lab.h"

const char *tdcl_mm_kernel_name(tdcl_mm_kernel k)
{
    switch (k) {
    case TDCL_MM_AUTO:
        return "auto";
    case TDCL_MM_TILED:
        return "tiled";
    case TDCL_MM_CPU:
        return "cpu";
    case TDCL_MM_GPU:
        return "gpu";
    }
    return "unknown";
}

tdcl_status tdcl_mm_kernel_parse(const char *s, tdcl_mm_kernel *k, tdcl_err *err)
{
    static const tdcl_mm_kernel all[] = {TDCL_MM_AUTO, TDCL_MM_TILED, TDCL_MM_CPU, TDCL_MM_GPU};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (s && strcmp(s, tdcl_mm_kernel_name(all[i])) == 0) {
            *k = all[i];
            return TDCL_OK;
        }
    return tdcl_fail(err, TDCL_EINVAL, "unknown kernel '%s' (choose auto, tiled, cpu or gpu)",
                     s ? s : "");
}

/* ---- parameters: text form, checks ------------------------------------ */

typedef struct par_key {
    const char *name;
    size_t off;
    int gpu; /* 0: cpu shape, 1: gpu shape */
} par_key;

#define PK(f, g)                                                                                   \
    {                                                                                              \
#f, offsetof(tdcl_mm_params, f), g                                                         \
    }
static const par_key par_keys[] = {
    PK(mr, 0),     PK(nv, 0),  PK(vw, 0),   PK(kc, 0), PK(bm, 1),   PK(bn, 1),    PK(bk, 1),
    PK(tm, 1),     PK(tn, 1),  PK(wx, 1),   PK(wy, 1), PK(nbuf, 1), PK(aload, 1), PK(atrans, 1),
    PK(ksplit, 1), PK(pad, 1), PK(frag, 1), PK(cp, 1), PK(swz, 1),  PK(tail, 1),
};
#define NPAR_KEYS (sizeof par_keys / sizeof par_keys[0])

static int *par_field(tdcl_mm_params *p, size_t i)
{
    return (int *)((char *)p + par_keys[i].off);
}

/* Each given (non-zero) value within what check_gpu and check_cpu accept
 * on any device, and the block dividing the tile where both are given: a
 * set that breaks these is wrong whatever the device. */
static tdcl_status params_ranges(const tdcl_mm_params *p, tdcl_err *err)
{
    static const struct {
        const char *name;
        int lo, hi, step;
    } r[] = {{"mr", 1, 32, 1},  {"nv", 1, 16, 1},   {"vw", 2, 16, 1},    {"bm", 4, 256, 1},
             {"bn", 4, 256, 1}, {"bk", 4, 64, 4},   {"tm", 4, 16, 4},    {"tn", 4, 16, 4},
             {"nbuf", 1, 3, 1}, {"aload", 1, 2, 1}, {"atrans", 1, 2, 1}, {"ksplit", 1, 64, 1},
             {"pad", 1, 2, 1},  {"frag", 1, 2, 1},  {"cp", 1, 2, 1},     {"swz", 1, 64, 1},
             {"tail", 1, 16, 1}};
    for (size_t i = 0; i < NPAR_KEYS; i++) {
        int v = *par_field((tdcl_mm_params *)p, i);
        for (size_t j = 0; v && j < sizeof r / sizeof r[0]; j++) {
            if (strcmp(r[j].name, par_keys[i].name) != 0) continue;
            int pow2 = strcmp(r[j].name, "vw") != 0 || (v & (v - 1)) == 0;
            if (!pow2)
                return tdcl_fail(err, TDCL_EINVAL,
                                 "kernel parameter vw=%d is out of range: vw is 2, 4, 8 or 16", v);
            if (v < r[j].lo || v > r[j].hi || v % r[j].step)
                return tdcl_fail(err, TDCL_EINVAL,
                                 "kernel parameter %s=%d is out of range: %s is %d to %d%s",
                                 r[j].name, v, r[j].name, r[j].lo, r[j].hi,
                                 r[j].step > 1 ? ", a multiple of 4" : "");
        }
    }
    if ((p->bm && p->tm && p->bm % p->tm) || (p->bn && p->tn && p->bn % p->tn))
        return tdcl_fail(err, TDCL_EINVAL,
                         "kernel parameters bm=%d bn=%d tm=%d tn=%d: each block (tm, tn) must "
                         "divide its tile (bm, bn)",
                         p->bm, p->bn, p->tm, p->tn);
    return TDCL_OK;
}

tdcl_status tdcl_mm_params_parse(const char *s, tdcl_mm_params *p, tdcl_err *err)
{
    while (s && *s) {
        s += strspn(s, " ,\t\n");
        if (!*s) break;
        size_t klen = strcspn(s, "= ,\t\n");
        size_t i = 0;
        while (i < NPAR_KEYS &&
               !(strlen(par_keys[i].name) == klen && strncmp(par_keys[i].name, s, klen) == 0))
            i++;
        if (i == NPAR_KEYS || s[klen] != '=')
            return tdcl_fail(err, TDCL_EINVAL,
                             "unknown kernel parameter '%.*s' (expected key=value with keys mr nv "
                             "vw kc bm bn bk tm tn wx wy nbuf aload atrans ksplit pad frag cp swz "
                             "tail)",
                             (int)strcspn(s, " ,\t\n"), s);
        char *end;
        long v = strtol(s + klen + 1, &end, 10);
        if (end == s + klen + 1 || (*end && !strchr(" ,\t\n", *end)) || v < 1 || v > 1 << 20)
            return tdcl_fail(err, TDCL_EINVAL,
                             "kernel parameter '%s' needs a positive whole "
                             "number, got '%.*s'",
                             par_keys[i].name, (int)strcspn(s + klen + 1, " ,\t\n"), s + klen + 1);
        *par_field(p, i) = (int)v;
        s = end;
    }
    return params_ranges(p, err);
}

char *tdcl_mm_params_format(const tdcl_mm_params *p, tdcl_mm_kernel k, char *buf, size_t n)
{
    size_t used = 0;
    if (n) buf[0] = '\0';
    for (size_t i = 0; i < NPAR_KEYS && used < n; i++) {
        int v = *par_field((tdcl_mm_params *)p, i);
        if (par_keys[i].gpu != (k == TDCL_MM_GPU) || !v) continue;
        int w = snprintf(buf + used, n - used, "%s%s=%d", used ? " " : "", par_keys[i].name, v);
        if (w < 0) break;
        used += (size_t)w;
    }
    return buf;
}

static const char *const prec_names[] = {"fp32", "tf32", "3xtf32", "auto"};

const char *tdcl_mm_precision_name(tdcl_mm_precision p)
{
    return (unsigned)p < 4 ? prec_names[p] : "unknown";
}

tdcl_status tdcl_mm_precision_parse(const char *s, tdcl_mm_precision *p, tdcl_err *err)
{
    for (int i = 0; i < 4; i++)
        if (s && strcmp(s, prec_names[i]) == 0) {
            *p = (tdcl_mm_precision)i;
            return TDCL_OK;
        }
    return tdcl_fail(err, TDCL_EINVAL, "unknown precision '%s' (choose fp32, tf32, 3xtf32 or auto)",
                     s ? s : "");
}

/* ---- checks against a device ------------------------------------------- */

int tdcl_mm_nvidia(const tdcl_device_info *d)
{
    return d->nv_options; /* inline PTX: NVIDIA's own compiler, not its name */
}

/* cp.async came with compute capability 8.0, as the tensor-core tf32 did. */
int tdcl_mm_cp_async_ok(const tdcl_device_info *d)
{
    return tdcl_mm_nvidia(d) && d->nv_cc_major >= 8;
}

/* cp=2's extra conditions: float slabs of a transposed A, 2 or 3 stages
 * (one buffer is not a pipeline), and a device whose compiler has it, or
 * the copies emulated. */
static tdcl_status check_cp(const tdcl_device_info *d, const tdcl_mm_params *p, size_t esz,
                            int emulate, tdcl_err *err)
{
    if (p->cp != 2) {
        if (p->nbuf > 2)
            return tdcl_fail(err, TDCL_ELIMIT,
                             "gpu kernel nbuf=%d: 3 buffers need the cp.async copies (cp=2)",
                             p->nbuf);
        return TDCL_OK;
    }
    if (esz != 4 || p->atrans != 2 || p->nbuf < 2)
        return tdcl_fail(err, TDCL_ELIMIT,
                         "gpu kernel cp=2 copies float slabs of a transposed A (atrans=2) into "
                         "2 or 3 buffers (nbuf); got %zu-byte elements, atrans=%d, nbuf=%d",
                         esz, p->atrans, p->nbuf);
    if (!emulate && !tdcl_mm_cp_async_ok(d))
        return tdcl_fail(err, TDCL_ELIMIT,
                         "gpu kernel cp=2 needs cp.async: an NVIDIA device of compute capability "
                         "8.0 or later, and '%s' is not one",
                         d->device_name);
    return TDCL_OK;
}

static tdcl_status check_gpu(const tdcl_device_info *d, const tdcl_mm_params *p, size_t esz,
                             int emulate, tdcl_err *err)
{
    int ok = p->bm >= 4 && p->bm <= 256 && p->bn >= 4 && p->bn <= 256 && p->bk >= 4 &&
             p->bk <= 64 && p->bk % 4 == 0 && p->tm >= 4 && p->tm <= 16 && p->tm % 4 == 0 &&
             p->tn >= 4 && p->tn <= 16 && p->tn % 4 == 0 && p->bm % p->tm == 0 &&
             p->bn % p->tn == 0;
    if (!ok)
        return tdcl_fail(err, TDCL_ELIMIT,
                         "gpu kernel tile %dx%d, slab %d, block %dx%d: the block must be a "
                         "multiple of 4 up to 16 each way and divide the tile (up to 256), the "
                         "slab a multiple of 4 up to 64",
                         p->bm, p->bn, p->bk, p->tm, p->tn);
    int gx = p->bn / p->tn, gy = p->bm / p->tm, nt = gx * gy;
    if (p->wx < 1 || p->wy < 1 || gx % p->wx || gy % p->wy)
        return tdcl_fail(err, TDCL_ELIMIT,
                         "gpu kernel team %dx%d must divide the group's %dx%d work-items", p->wx,
                         p->wy, gx, gy);
    if (p->bm * p->bk % (4 * nt) || p->bk * p->bn % (4 * nt) || p->bm * p->bk < 4 * nt ||
        p->bk * p->bn < 4 * nt)
        return tdcl_fail(err, TDCL_ELIMIT,
                         "gpu kernel tile %dx%d, slab %d: each of the %d work-items must load a "
                         "whole number (at least one) of 4-vectors of both slabs",
                         p->bm, p->bn, p->bk, nt);
    if (p->nbuf < 1 || p->nbuf > 3 || p->aload < 1 || p->aload > 2 || p->atrans < 1 ||
        p->atrans > 2 || p->ksplit < 1 || p->ksplit > 64 || p->pad < 1 || p->pad > 2 ||
        p->frag < 1 || p->frag > 2 || p->cp < 1 || p->cp > 2 || p->swz < 1 || p->swz > 64 ||
        p->tail < 0 || p->tail > 16)
        return tdcl_fail(
            err, TDCL_ELIMIT,
            "gpu kernel nbuf=%d aload=%d atrans=%d ksplit=%d pad=%d frag=%d cp=%d tail=%d: "
            "nbuf is 1 to 3, aload, atrans, pad, frag and cp 1 or 2, ksplit and swz 1 to "
            "64, tail 1 to 16",
            p->nbuf, p->aload, p->atrans, p->ksplit, p->pad, p->frag, p->cp, p->tail);
    tdcl_status st = check_cp(d, p, esz, emulate, err);
    if (st != TDCL_OK) return st;
    if (!tdcl_mm_wg_fits(d, (size_t)nt, 1) || tdcl_mm_gpu_local(p, esz) > d->local_mem)
        return tdcl_fail(err, TDCL_ELIMIT,
                         "gpu kernel tile %dx%d, slab %d needs %d work-items and %zu bytes of "
                         "local memory; device '%s' allows %zu and %llu",
                         p->bm, p->bn, p->bk, nt, tdcl_mm_gpu_local(p, esz), d->device_name,
                         d->max_wg, (unsigned long long)d->local_mem);
    return TDCL_OK;
}

static tdcl_status check_cpu(const tdcl_device_info *d, const tdcl_mm_params *p, tdcl_err *err)
{
    int vw = p->vw;
    (void)d;
    if (p->mr < 1 || p->mr > 32 || p->nv < 1 || p->nv > 16 ||
        (vw != 2 && vw != 4 && vw != 8 && vw != 16) || p->kc < 1)
        return tdcl_fail(err, TDCL_ELIMIT,
                         "cpu kernel block %d rows by %d vectors of %d, pass %d: rows must be "
                         "1..32, vectors 1..16 of 2, 4, 8 or 16 lanes, and the pass at least 1",
                         p->mr, p->nv, vw, p->kc);
    return TDCL_OK;
}

tdcl_status tdcl_mm_params_check(const tdcl_device_info *d, tdcl_mm_kernel k,
                                 const tdcl_mm_params *p, size_t esz, const struct tdcl_mm_lab *lab,
                                 tdcl_err *err)
{
    if (k == TDCL_MM_GPU) return check_gpu(d, p, esz, lab && lab->emulate, err);
    if (k == TDCL_MM_CPU) return check_cpu(d, p, err);
    return tdcl_fail(err, TDCL_EINVAL, "kernel '%s' has no parameters", tdcl_mm_kernel_name(k));
}
