/* Shared test helpers: cmocka includes, a device context that skips when no
 * OpenCL device exists, deterministic random data and scratch directories. */
#ifndef TDCL_TEST_H
#define TDCL_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "runtime/clrt.h"
#include "base/matrix.h"

/* Opens the default device (TILEDCL_DEVICE honoured). Returns NULL, after
 * printing why, when there is no usable device; the caller then skip()s. */
tdcl_ctx *tdcl_test_ctx(void);

/* The exit status of a device suite's main from cmocka's result rc: 77
 * (meson's SKIP) when nothing failed but no device was found, so that a
 * machine without a device never reports the device tests as passed. */
int tdcl_test_exit(int rc);

/* A group setup/teardown pair storing a tdcl_ctx* in *state (NULL if none). */
int tdcl_test_ctx_setup(void **state);
int tdcl_test_ctx_teardown(void **state);

/* Skips the current test when state holds no device. */
#define TDCL_NEED_DEVICE(state)                                                                    \
    do {                                                                                           \
        if (!*(state)) {                                                                           \
            print_message("no OpenCL device: skipped\n");                                          \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

/* xorshift64*: the same sequence everywhere for the same seed. */
uint64_t tdcl_test_rand(uint64_t *s);
/* Uniform in [lo, hi). */
double tdcl_test_uniform(uint64_t *s, double lo, double hi);

/* Fills m (already allocated) with uniform values in [lo, hi) (integers:
 * rounded down). */
void tdcl_test_fill(tdcl_matrix *m, uint64_t seed, double lo, double hi);

/* A fresh scratch directory under $TMPDIR; malloc'd path. */
char *tdcl_test_tmpdir(void);

/* Writes text to path (for fixtures built inside a test). */
void tdcl_test_write_text(const char *path, const char *text);

/* path joined from dir and name; malloc'd. */
char *tdcl_test_join(const char *dir, const char *name);

/* Removes dir and everything under it (a scratch directory's cleanup). */
void tdcl_test_rmtree(const char *dir);

#endif
