/* Loading only the OpenCL driver the device choice needs.
 *
 * The ICD loader opens every driver registered under /etc/OpenCL/vendors
 * on the first OpenCL call: with NVIDIA's and PoCL's both there, PoCL's
 * LLVM alone adds ~100 ms to every command that runs on the GPU. After a
 * full listing, tiledcl keeps a map of which registration file (.icd) gave
 * each device, keyed by the registration files and the environment
 * variables that hide or add devices. A later run whose device choice the
 * map answers points the loader at a directory holding only that one .icd
 * (OCL_ICD_VENDORS, which both ocl-icd and Khronos's loader read), so the
 * other drivers are never loaded. The loader reads its drivers once per
 * process: if the narrowed listing lacks the device the map promised, the
 * map is removed and the run fails with a message saying to run again. */
#ifndef TDCL_ICDMAP_H
#define TDCL_ICDMAP_H

#include <stddef.h>

#include "runtime/clrt.h"

/* Before the process's first OpenCL call: 1 when the map answers SPEC's
 * choice (NULL or "" the default, a type or a name; never a "P:D" pair,
 * whose numbers depend on every driver) with one .icd and the loader was
 * pointed at it (*want then holds the device expected, with its full
 * listing's indices); 0 when everything will be loaded. Nothing is done
 * where the user steers the loader (OCL_ICD_VENDORS, OCL_ICD_FILENAMES) or
 * cache_dir is NULL. */
int tdcl_icd_narrow(const char *cache_dir, const char *spec, tdcl_device_info *want);

/* After a full listing (list, n): records each device's .icd in the map,
 * rewriting the file only when it changed. Devices whose driver cannot be
 * told apart leave the map without them. */
void tdcl_icd_learn(const char *cache_dir, const tdcl_device_info *list, size_t n);

/* After a narrowed listing: the index of want in list with the full
 * listing's P:D numbers restored on its platform's devices, or -1 (and
 * the map removed) when the drivers changed since the map was made. */
long tdcl_icd_match(const char *cache_dir, tdcl_device_info *list, size_t n,
                    const tdcl_device_info *want);

#endif
