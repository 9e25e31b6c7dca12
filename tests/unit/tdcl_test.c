/* Shared test helpers (see tdcl_test.h). */
#include "tdcl_test.h"

#include "base/rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

/* Set when a context was asked for and no device could be opened. */
static int no_device;

tdcl_ctx *tdcl_test_ctx(void)
{
    tdcl_ctx *ctx = NULL;
    tdcl_err err = {0};
    tdcl_ctx_opts o = {0};
    if (tdcl_ctx_open(&o, &ctx, &err) != TDCL_OK) {
        fprintf(stdout, "# no usable OpenCL device (%s)\n", err.msg);
        no_device = 1;
        return NULL;
    }
    return ctx;
}

int tdcl_test_exit(int rc)
{
    if (rc == 0 && no_device) {
        fprintf(stdout, "# no OpenCL device: the device tests were skipped (exit 77)\n");
        return 77;
    }
    return rc;
}

int tdcl_test_ctx_setup(void **state)
{
    *state = tdcl_test_ctx();
    return 0;
}

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

int tdcl_test_ctx_teardown(void **state)
{
    tdcl_ctx_close(*state);
#if defined(__SANITIZE_ADDRESS__)
    /* Check for leaks now, while PoCL's worker threads sleep: LeakSanitizer's
     * own at-exit check runs while the driver tears those threads down, and
     * its thread tracer has crashed there (signal 11) now and then. A check
     * made here replaces the one at exit. */
    __lsan_do_leak_check();
#endif
    return 0;
}

uint64_t tdcl_test_rand(uint64_t *s)
{
    if (!*s) *s = 0x9e3779b97f4a7c15ULL;
    return tdcl_rng_next(s);
}

double tdcl_test_uniform(uint64_t *s, double lo, double hi)
{
    return lo + (hi - lo) * ((tdcl_test_rand(s) >> 11) * (1.0 / 9007199254740992.0));
}

void tdcl_test_fill(tdcl_matrix *m, uint64_t seed, double lo, double hi)
{
    size_t n = tdcl_matrix_count(m);
    uint64_t s = seed * 2654435761u + 1;
    for (size_t k = 0; k < n; k++)
        tdcl_matrix_set_f64(m, k, tdcl_test_uniform(&s, lo, hi));
}

char *tdcl_test_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/tdcl-test-XXXXXX", base && *base ? base : "/tmp");
    char *d = mkdtemp(tmpl);
    assert_non_null(d);
    return strdup(d);
}

void tdcl_test_write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
}

char *tdcl_test_join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    assert_non_null(p);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

void tdcl_test_rmtree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            char *p = tdcl_test_join(dir, e->d_name);
            struct stat st;
            if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
                tdcl_test_rmtree(p);
            else
                unlink(p);
            free(p);
        }
        closedir(d);
    }
    rmdir(dir);
}
