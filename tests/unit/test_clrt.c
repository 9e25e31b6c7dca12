/* The OpenCL runtime: device choice rules, kernel search order, the binary
 * cache (miss, hit, corruption, key changes) and error naming. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tdcl_test.h"

#include "runtime/clcache.h"
#include "base/fileio.h"

static tdcl_device_info fake(unsigned p, unsigned d, cl_device_type t, const char *plat,
                             const char *name)
{
    tdcl_device_info di;
    memset(&di, 0, sizeof di);
    di.pidx = p;
    di.didx = d;
    di.type = t;
    snprintf(di.platform_name, sizeof di.platform_name, "%s", plat);
    snprintf(di.device_name, sizeof di.device_name, "%s", name);
    return di;
}

static void test_pick_rules(void **state)
{
    (void)state;
    tdcl_device_info l[3] = {
        fake(0, 0, CL_DEVICE_TYPE_CPU, "Portable Computing Language", "pthread-skylake"),
        fake(1, 0, CL_DEVICE_TYPE_GPU, "NVIDIA CUDA", "NVIDIA H200"),
        fake(1, 1, CL_DEVICE_TYPE_GPU, "NVIDIA CUDA", "NVIDIA H100 80GB"),
    };
    size_t i = 99;
    tdcl_err e = {0};
    assert_int_equal(tdcl_cl_pick(l, 3, NULL, &i, &e), TDCL_OK);
    assert_int_equal(i, 1); /* default: the first GPU */
    assert_int_equal(tdcl_cl_pick(l, 1, "", &i, &e), TDCL_OK);
    assert_int_equal(i, 0); /* no GPU: the first device */
    assert_int_equal(tdcl_cl_pick(l, 3, "1:1", &i, &e), TDCL_OK);
    assert_int_equal(i, 2);
    assert_int_equal(tdcl_cl_pick(l, 3, "cpu", &i, &e), TDCL_OK);
    assert_int_equal(i, 0);
    assert_int_equal(tdcl_cl_pick(l, 3, "GPU", &i, &e), TDCL_OK);
    assert_int_equal(i, 1);
    assert_int_equal(tdcl_cl_pick(l, 3, "h100", &i, &e), TDCL_OK);
    assert_int_equal(i, 2); /* substring of the device name, any case */
    assert_int_equal(tdcl_cl_pick(l, 3, "portable", &i, &e), TDCL_OK);
    assert_int_equal(i, 0); /* substring of the platform name */
    i = 99;
    assert_int_equal(tdcl_cl_pick(l, 3, "pocl", &i, &e), TDCL_OK);
    assert_int_equal(i, 0); /* what users call PoCL, whose platform says otherwise */
    i = 99;
    assert_int_equal(tdcl_cl_pick(l, 3, "PoCL", &i, &e), TDCL_OK);
    assert_int_equal(i, 0);
}

static void test_pick_miss_lists_devices(void **state)
{
    (void)state;
    tdcl_device_info l[2] = {
        fake(0, 0, CL_DEVICE_TYPE_CPU, "Portable Computing Language", "pthread-skylake"),
        fake(0, 1, CL_DEVICE_TYPE_CPU, "Portable Computing Language", "other-cpu"),
    };
    size_t i;
    tdcl_err e = {0};
    assert_int_equal(tdcl_cl_pick(l, 2, "radeon", &i, &e), TDCL_ENODEV);
    assert_non_null(strstr(e.msg, "no device matches 'radeon'"));
    assert_non_null(strstr(e.msg, "0:0"));
    assert_non_null(strstr(e.msg, "other-cpu"));
    assert_int_equal(tdcl_cl_pick(l, 2, "gpu", &i, &e), TDCL_ENODEV);
    assert_int_equal(tdcl_cl_pick(l, 2, "3:0", &i, &e), TDCL_ENODEV);
    assert_int_equal(tdcl_exit_code(e.status), 3);
}

/* The device spec in force: a given one wins, else the environment's,
 * and an empty one counts as none. */
static void test_device_spec_resolved(void **state)
{
    (void)state;
    const char *saved = getenv("TILEDCL_DEVICE");
    char *keep = saved ? strdup(saved) : NULL;
    setenv("TILEDCL_DEVICE", "cpu", 1);
    assert_string_equal(tdcl_device_spec("1:0"), "1:0");
    assert_string_equal(tdcl_device_spec(NULL), "cpu");
    assert_string_equal(tdcl_device_spec(""), "cpu");
    setenv("TILEDCL_DEVICE", "", 1);
    assert_null(tdcl_device_spec(NULL));
    unsetenv("TILEDCL_DEVICE");
    assert_null(tdcl_device_spec(""));
    if (keep) setenv("TILEDCL_DEVICE", keep, 1);
    free(keep);
}

static void test_kernel_path_order(void **state)
{
    (void)state;
    char *a = tdcl_test_tmpdir(), *b = tdcl_test_tmpdir();
    char *fa = tdcl_test_join(a, "k.cl"), *fb = tdcl_test_join(b, "k.cl");
    tdcl_test_write_text(fa, "// a\n");
    tdcl_test_write_text(fb, "// b\n");
    char *saved = getenv("TILEDCL_KERNEL_PATH") ? strdup(getenv("TILEDCL_KERNEL_PATH")) : NULL;
    char env[8192];
    snprintf(env, sizeof env, "/nonexistent:%s:%s", b, a);
    setenv("TILEDCL_KERNEL_PATH", env, 1);
    char *p = NULL;
    tdcl_err e = {0};
    /* --kernels wins over the environment */
    assert_int_equal(tdcl_kernel_path(a, "k.cl", &p, &e), TDCL_OK);
    assert_string_equal(p, fa);
    free(p);
    /* then the environment's directories, in order */
    assert_int_equal(tdcl_kernel_path(NULL, "k.cl", &p, &e), TDCL_OK);
    assert_string_equal(p, fb);
    free(p);
    /* --kernels naming a directory without the file is an error, no fallback */
    assert_int_equal(tdcl_kernel_path("/nonexistent", "k.cl", &p, &e), TDCL_EIO);
    assert_non_null(strstr(e.msg, "'/nonexistent'"));
    /* a miss everywhere names the places tried */
    assert_int_equal(tdcl_kernel_path(NULL, "missing.cl", &p, &e), TDCL_EIO);
    assert_non_null(strstr(e.msg, "missing.cl"));
    assert_non_null(strstr(e.msg, b));
    if (saved) {
        setenv("TILEDCL_KERNEL_PATH", saved, 1);
        free(saved);
    } else {
        unsetenv("TILEDCL_KERNEL_PATH");
    }
    unlink(fa);
    unlink(fb);
    rmdir(a);
    rmdir(b);
    free(fa);
    free(fb);
    free(a);
    free(b);
}

/* Opens a fresh context whose cache lives in dir. */
static tdcl_ctx *ctx_with_cache(const char *dir)
{
    setenv("XDG_CACHE_HOME", dir, 1);
    return tdcl_test_ctx();
}

/* Runs copy_f32 from prog on n random floats and checks the copy. */
static void check_copy_runs(tdcl_ctx *ctx, cl_program prog)
{
    enum { N = 1003 }; /* not a multiple of the vector width: the tail path runs */
    float src[N], dst[N];
    uint64_t s = 7;
    for (int i = 0; i < N; i++)
        src[i] = (float)tdcl_test_uniform(&s, -1, 1);
    cl_int rc;
    cl_kernel k;
    tdcl_err e;
    assert_int_equal(tdcl_ctx_kernel(prog, "copy_f32", &k, &e), TDCL_OK);
    cl_mem a =
        clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof src, src, &rc);
    assert_int_equal(rc, CL_SUCCESS);
    cl_mem b = clCreateBuffer(ctx->context, CL_MEM_WRITE_ONLY, sizeof dst, NULL, &rc);
    assert_int_equal(rc, CL_SUCCESS);
    cl_ulong n = N;
    clSetKernelArg(k, 0, sizeof a, &a);
    clSetKernelArg(k, 1, sizeof b, &b);
    clSetKernelArg(k, 2, sizeof n, &n);
    size_t gs = 64;
    assert_int_equal(clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &gs, NULL, 0, NULL, NULL),
                     CL_SUCCESS);
    assert_int_equal(clEnqueueReadBuffer(ctx->queue, b, CL_TRUE, 0, sizeof dst, dst, 0, NULL, NULL),
                     CL_SUCCESS);
    assert_memory_equal(src, dst, sizeof src);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseKernel(k);
}

static void test_cache_miss_hit_corrupt(void **state)
{
    (void)state;
    char *dir = tdcl_test_tmpdir();
    char *saved = getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME")) : NULL;
    tdcl_ctx *ctx = ctx_with_cache(dir);
    if (!ctx) {
        free(saved);
        skip();
    }
    cl_program p;
    tdcl_err e = {0};
    /* a miss compiles and stores */
    assert_int_equal(tdcl_ctx_program(ctx, "copy.cl", "-DVEC=4", &p, &e), TDCL_OK);
    assert_int_equal(ctx->t.programs_built, 1);
    assert_int_equal(ctx->t.programs_cached, 0);
    check_copy_runs(ctx, p);
    clReleaseProgram(p);
    tdcl_ctx_close(ctx);

    /* a second context hits */
    ctx = ctx_with_cache(dir);
    assert_int_equal(tdcl_ctx_program(ctx, "copy.cl", "-DVEC=4", &p, &e), TDCL_OK);
    assert_int_equal(ctx->t.programs_built, 0);
    assert_int_equal(ctx->t.programs_cached, 1);
    check_copy_runs(ctx, p);
    clReleaseProgram(p);

    /* other options are another entry */
    assert_int_equal(tdcl_ctx_program(ctx, "copy.cl", "-DVEC=8", &p, &e), TDCL_OK);
    assert_int_equal(ctx->t.programs_built, 1);
    check_copy_runs(ctx, p);
    clReleaseProgram(p);

    /* a corrupted entry is rebuilt, not trusted */
    char *src;
    size_t len;
    char *kpath;
    assert_int_equal(tdcl_kernel_path(NULL, "copy.cl", &kpath, &e), TDCL_OK);
    assert_int_equal(tdcl_read_file(kpath, &src, &len, &e), TDCL_OK);
    char *entry = tdcl_cache_entry_path(ctx, src, len, "-cl-std=CL1.2 -DVEC=4");
    assert_non_null(entry);
    assert_int_equal(access(entry, R_OK), 0);
    FILE *fp = fopen(entry, "r+b");
    assert_non_null(fp);
    fseek(fp, -5, SEEK_END);
    fputs("XXXXX", fp);
    fclose(fp);
    assert_int_equal(tdcl_ctx_program(ctx, "copy.cl", "-DVEC=4", &p, &e), TDCL_OK);
    assert_int_equal(ctx->t.programs_built, 2);
    check_copy_runs(ctx, p);
    clReleaseProgram(p);
    /* and a truncated one too */
    assert_int_equal(truncate(entry, 20), 0);
    assert_int_equal(tdcl_ctx_program(ctx, "copy.cl", "-DVEC=4", &p, &e), TDCL_OK);
    assert_int_equal(ctx->t.programs_built, 3);
    clReleaseProgram(p);
    tdcl_ctx_close(ctx);

    /* --no-cache: always compile */
    tdcl_ctx_opts o = {.no_cache = 1};
    assert_int_equal(tdcl_ctx_open(&o, &ctx, &e), TDCL_OK);
    assert_null(ctx->cache_dir);
    assert_int_equal(tdcl_ctx_program(ctx, "copy.cl", "-DVEC=4", &p, &e), TDCL_OK);
    assert_int_equal(ctx->t.programs_built, 1);
    clReleaseProgram(p);
    tdcl_ctx_close(ctx);

    if (saved) {
        setenv("XDG_CACHE_HOME", saved, 1);
        free(saved);
    }
    free(entry);
    free(kpath);
    free(src);
    free(dir);
}

/* A program from a binary through the cache (the path of edited PTX on
 * NVIDIA), tried with PoCL's own binary of copy.cl: a miss builds and
 * stores it, a second context loads it, other options or other bytes are
 * other entries, and every program copies as the kernel says. */
static void test_program_binary_cached(void **state)
{
    (void)state;
    char *dir = tdcl_test_tmpdir();
    char *saved = getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME")) : NULL;
    tdcl_ctx *ctx = ctx_with_cache(dir);
    if (!ctx) {
        free(saved);
        skip();
    }
    cl_program p, q;
    tdcl_err e = {0};
    size_t n = 0;
    assert_int_equal(tdcl_ctx_program(ctx, "copy.cl", "-DVEC=4", &p, &e), TDCL_OK);
    assert_int_equal(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof n, &n, NULL), CL_SUCCESS);
    assert_true(n > 0);
    unsigned char *bin = malloc(n);
    assert_non_null(bin);
    assert_int_equal(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL), CL_SUCCESS);
    clReleaseProgram(p);
    int built = ctx->t.programs_built;

    assert_int_equal(tdcl_ctx_program_binary(ctx, "copy.cl's binary", bin, n, "", &q, &e), TDCL_OK);
    assert_int_equal(ctx->t.programs_built, built + 1);
    check_copy_runs(ctx, q);
    clReleaseProgram(q);
    tdcl_ctx_close(ctx);

    ctx = ctx_with_cache(dir); /* a second context hits */
    assert_int_equal(tdcl_ctx_program_binary(ctx, "copy.cl's binary", bin, n, "", &q, &e), TDCL_OK);
    assert_int_equal(ctx->t.programs_built, 0);
    assert_int_equal(ctx->t.programs_cached, 1);
    check_copy_runs(ctx, q);
    clReleaseProgram(q);
    assert_int_equal(
        tdcl_ctx_program_binary(ctx, "copy.cl's binary", bin, n, "-cl-opt-disable", &q, &e),
        TDCL_OK);
    assert_int_equal(ctx->t.programs_built, 1); /* other options: another entry */
    clReleaseProgram(q);
    /* bytes that are no binary fail, naming what was built */
    static const unsigned char junk[] = "not a program binary";
    q = NULL;
    assert_int_not_equal(tdcl_ctx_program_binary(ctx, "junk", junk, sizeof junk, "", &q, &e),
                         TDCL_OK);
    assert_non_null(strstr(e.msg, "junk"));
    if (q) clReleaseProgram(q);
    assert_int_equal(ctx->t.programs_cached, 1);
    tdcl_ctx_close(ctx);
    if (saved) {
        setenv("XDG_CACHE_HOME", saved, 1);
        free(saved);
    }
    free(bin);
    free(dir);
}

/* A program of several files: the prelude's macros reach the file after
 * it, the files are found as one file is (here in a subfolder of the
 * kernel directory), and each file's bytes are in the cache key: a change
 * to the prelude alone is a new entry, not the old binary. */
static void test_program_of_files(void **state)
{
    (void)state;
    char *dir = tdcl_test_tmpdir(), *kdir = tdcl_test_tmpdir();
    char *saved = getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME")) : NULL;
    tdcl_ctx *ctx = ctx_with_cache(dir);
    if (!ctx) {
        free(saved);
        skip();
    }
    char *sub = tdcl_test_join(kdir, "k");
    assert_int_equal(mkdir(sub, 0700), 0);
    char *pre = tdcl_test_join(sub, "prelude.cl"), *body = tdcl_test_join(sub, "copy.cl");
    tdcl_test_write_text(pre, "#define T float"); /* no final newline */
    tdcl_test_write_text(body,
                         "__kernel void copy_f32(__global const T *a, __global T *b, ulong n)\n"
                         "{\n"
                         "    for (ulong i = get_global_id(0); i < n; i += get_global_size(0))\n"
                         "        b[i] = a[i];\n"
                         "}\n");
    char *saved_dir = ctx->kernel_dir;
    ctx->kernel_dir = kdir;
    const char *names[] = {"k/prelude.cl", "k/copy.cl"};
    cl_program p;
    tdcl_err e = {0};
    assert_int_equal(tdcl_ctx_program_files(ctx, names, 2, "", &p, &e), TDCL_OK);
    assert_int_equal(ctx->t.programs_built, 1);
    check_copy_runs(ctx, p);
    clReleaseProgram(p);
    assert_int_equal(tdcl_ctx_program_files(ctx, names, 2, "", &p, &e), TDCL_OK);
    assert_int_equal(ctx->t.programs_cached, 1);
    clReleaseProgram(p);
    /* the first file changed, the second not: built again */
    tdcl_test_write_text(pre, "#define T float /* another prelude */\n");
    assert_int_equal(tdcl_ctx_program_files(ctx, names, 2, "", &p, &e), TDCL_OK);
    assert_int_equal(ctx->t.programs_built, 2);
    check_copy_runs(ctx, p);
    clReleaseProgram(p);
    /* a missing file is named */
    const char *missing[] = {"k/prelude.cl", "k/none.cl"};
    assert_int_equal(tdcl_ctx_program_files(ctx, missing, 2, "", &p, &e), TDCL_EIO);
    assert_non_null(strstr(e.msg, "k/none.cl"));
    ctx->kernel_dir = saved_dir;
    tdcl_ctx_close(ctx);
    if (saved) {
        setenv("XDG_CACHE_HOME", saved, 1);
        free(saved);
    }
    tdcl_test_rmtree(dir);
    tdcl_test_rmtree(kdir);
    free(pre);
    free(body);
    free(sub);
    free(dir);
    free(kdir);
}

/* The loading mark is judged by its lock, never by the process and host it
 * names: an unheld mark naming this very process (a fresh PID namespace
 * gives a restarted run the dead run's id), a live process (a reused id) or
 * another host (a changed host name) condemns the entry, and a held one,
 * whatever it names, is a load in progress that must not be condemned. */
static void test_cache_mark_judged_by_lock(void **state)
{
    (void)state;
    char *dir = tdcl_test_tmpdir();
    char *saved = getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME")) : NULL;
    tdcl_ctx *ctx = ctx_with_cache(dir);
    if (!ctx) {
        free(saved);
        skip();
    }
    cl_program p;
    tdcl_err e = {0};
    assert_int_equal(tdcl_ctx_program(ctx, "copy.cl", "-DVEC=4", &p, &e), TDCL_OK);
    clReleaseProgram(p);
    char *src, *kpath, host[256] = "", owner[320];
    size_t len;
    assert_int_equal(tdcl_kernel_path(NULL, "copy.cl", &kpath, &e), TDCL_OK);
    assert_int_equal(tdcl_read_file(kpath, &src, &len, &e), TDCL_OK);
    char *entry = tdcl_cache_entry_path(ctx, src, len, "-cl-std=CL1.2 -DVEC=4");
    assert_non_null(entry);
    char mark[4200];
    snprintf(mark, sizeof mark, "%s.loading", entry);
    gethostname(host, sizeof host - 1);
    long pids[] = {(long)getpid(), (long)getppid(), 1};
    for (int i = 0; i < 3; i++) {
        snprintf(owner, sizeof owner, "%s%s %ld\n", i == 2 ? "another-" : "", host, pids[i]);
        tdcl_test_write_text(mark, owner);
        int built = ctx->t.programs_built;
        assert_int_equal(tdcl_ctx_program(ctx, "copy.cl", "-DVEC=4", &p, &e), TDCL_OK);
        assert_int_equal(ctx->t.programs_built, built + 1); /* condemned and rebuilt */
        assert_int_not_equal(access(mark, F_OK), 0);
        check_copy_runs(ctx, p);
        clReleaseProgram(p);
    }
    /* held through another open file: loaded, and the mark left alone */
    tdcl_test_write_text(mark, "another-host 1\n");
    FILE *held = fopen(mark, "r");
    assert_non_null(held);
    assert_int_equal(flock(fileno(held), LOCK_EX | LOCK_NB), 0);
    int cached = ctx->t.programs_cached;
    assert_int_equal(tdcl_ctx_program(ctx, "copy.cl", "-DVEC=4", &p, &e), TDCL_OK);
    assert_int_equal(ctx->t.programs_cached, cached + 1);
    assert_int_equal(access(mark, F_OK), 0);
    clReleaseProgram(p);
    fclose(held);
    tdcl_ctx_close(ctx);
    if (saved) {
        setenv("XDG_CACHE_HOME", saved, 1);
        free(saved);
    }
    tdcl_test_rmtree(dir);
    free(entry);
    free(kpath);
    free(src);
    free(dir);
}

static void test_build_failure_names_file_and_options(void **state)
{
    tdcl_ctx *ctx = *state;
    TDCL_NEED_DEVICE(state);
    char *dir = tdcl_test_tmpdir(), *f = tdcl_test_join(dir, "bad.cl");
    tdcl_test_write_text(f, "__kernel void k(__global float *x) { x[0] = undefined_thing; }\n");
    char *saved = ctx->kernel_dir;
    ctx->kernel_dir = dir;
    cl_program p;
    tdcl_err e = {0};
    assert_int_equal(tdcl_ctx_program(ctx, "bad.cl", "-DTS=16", &p, &e), TDCL_ECL);
    ctx->kernel_dir = saved;
    assert_non_null(strstr(e.msg, "CL_BUILD_PROGRAM_FAILURE"));
    assert_non_null(strstr(e.msg, "bad.cl"));
    assert_non_null(strstr(e.msg, "-DTS=16"));
    assert_int_equal(tdcl_exit_code(e.status), 3);
    unlink(f);
    rmdir(dir);
    free(f);
    free(dir);
}

static void test_device_limits_read(void **state)
{
    tdcl_ctx *ctx = *state;
    TDCL_NEED_DEVICE(state);
    assert_true(ctx->dev.max_wg >= 1);
    assert_true(ctx->dev.local_mem >= 1024);
    assert_true(ctx->dev.max_alloc >= 1024 * 1024);
    size_t t = tdcl_cl_fit_square_tile(&ctx->dev, 64, 8);
    assert_true(t >= 1 && t * t <= ctx->dev.max_wg && 8 * t * t <= ctx->dev.local_mem);
    /* a tile demanding more local memory than exists does not fit */
    assert_int_equal(tdcl_cl_fit_square_tile(&ctx->dev, 1, ctx->dev.local_mem + 1), 0);
}

/* An asynchronous open gives the same device as a plain one, keeps its
 * result for every wait, and reports a bad device spec at the wait, not at
 * the start; closing without waiting joins the thread. */
static void test_open_async(void **state)
{
    tdcl_ctx *ref = *state;
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = NULL;
    tdcl_err e = {0};
    assert_int_equal(tdcl_ctx_open_async(NULL, &ctx, &e), TDCL_OK);
    assert_non_null(ctx);
    ctx->t.read_ms = 5; /* the caller's field while the thread runs */
    assert_int_equal(tdcl_ctx_wait(ctx, &e), TDCL_OK);
    assert_int_equal(tdcl_ctx_wait(ctx, &e), TDCL_OK);
    assert_string_equal(ctx->dev.device_name, ref->dev.device_name);
    assert_non_null(ctx->context);
    assert_non_null(ctx->queue);
    assert_true(ctx->t.setup_ms > 0);
    assert_true(ctx->t.wait_ms <= ctx->t.setup_ms + 1);
    assert_true(ctx->t.read_ms == 5);
    cl_program p;
    assert_int_equal(tdcl_ctx_program(ctx, "copy.cl", "-DVEC=4", &p, &e), TDCL_OK);
    check_copy_runs(ctx, p);
    clReleaseProgram(p);
    tdcl_ctx_close(ctx);

    tdcl_ctx_opts o = {.device_spec = "no-such-device-xyz"};
    assert_int_equal(tdcl_ctx_open_async(&o, &ctx, &e), TDCL_OK);
    assert_int_equal(tdcl_ctx_wait(ctx, &e), TDCL_ENODEV);
    assert_non_null(strstr(e.msg, "no-such-device-xyz"));
    memset(&e, 0, sizeof e);
    assert_int_equal(tdcl_ctx_wait(ctx, &e), TDCL_ENODEV);
    assert_non_null(strstr(e.msg, "no-such-device-xyz"));
    tdcl_ctx_close(ctx);

    /* never waited for */
    assert_int_equal(tdcl_ctx_open_async(NULL, &ctx, &e), TDCL_OK);
    tdcl_ctx_close(ctx);
    /* a context opened plainly needs no wait */
    assert_int_equal(tdcl_ctx_wait(ref, &e), TDCL_OK);
}

/* The -v timing line reads back as written (bench e2e parses a child's). */
static void test_timing_roundtrip(void **state)
{
    (void)state;
    tdcl_timing t = {.read_ms = 12.25,
                     .setup_ms = 230.5,
                     .wait_ms = 17.75,
                     .compile_ms = 3.5,
                     .programs_built = 1,
                     .programs_cached = 2,
                     .upload_ms = 8.5,
                     .kernel_ms = 22.125,
                     .download_ms = 9.25,
                     .write_ms = 45.5,
                     .peak_rss_mb = 123.5};
    char buf[512], line[600];
    tdcl_timing_format(&t, buf, sizeof buf);
    snprintf(line, sizeof line, "tiledcl: device 0:0: x\ntiledcl: time (ms): %s\n", buf);
    tdcl_timing r;
    assert_int_equal(tdcl_timing_parse(line, &r), 0);
    assert_true(r.read_ms == 12.25 && r.setup_ms == 230.5 && r.wait_ms == 17.75);
    assert_true(r.compile_ms == 3.5 && r.programs_built == 1 && r.programs_cached == 2);
    assert_true(r.upload_ms == 8.5 && r.kernel_ms == 22.125 && r.download_ms == 9.25);
    assert_true(r.write_ms == 45.5 && r.peak_rss_mb == 123.5);
    assert_int_equal(tdcl_timing_parse("tiledcl: no timing here", &r), -1);
    /* the older line, without the wait */
    assert_int_equal(tdcl_timing_parse("time (ms): read 1.50  device setup 2.00  compile 3.00 "
                                       "(1 built, 0 from cache)  upload 4.00  kernel 5.000  "
                                       "download 6.00  write 7.00",
                                       &r),
                     0);
    assert_true(r.read_ms == 1.5 && r.setup_ms == 2 && r.wait_ms == 0 && r.write_ms == 7);
    assert_int_equal(tdcl_timing_parse("time (ms): read 1.0  device", &r), -1);
}

/* An operation's answers kept in the context: 0 until stored, the last
 * value stored under a key (compared as text, not by address), and when
 * the slots run out nothing more is kept but the stored answers stay. */
static void test_ctx_memo(void **state)
{
    (void)state;
    tdcl_ctx *c = calloc(1, sizeof *c);
    assert_non_null(c);
    char key[16] = "op.a";
    assert_int_equal(tdcl_ctx_memo_get(c, "op.a"), 0);
    tdcl_ctx_memo_set(c, "op.a", -1);
    tdcl_ctx_memo_set(c, "op.b", 1);
    assert_int_equal(tdcl_ctx_memo_get(c, key), -1);
    assert_int_equal(tdcl_ctx_memo_get(c, "op.b"), 1);
    tdcl_ctx_memo_set(c, "op.a", 1);
    assert_int_equal(tdcl_ctx_memo_get(c, "op.a"), 1);
    static const char *const more[] = {"k2", "k3", "k4", "k5", "k6", "k7", "k8"};
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
        tdcl_ctx_memo_set(c, more[i], (int)i + 2);
    assert_int_equal(tdcl_ctx_memo_get(c, "k7"), 7);
    assert_int_equal(tdcl_ctx_memo_get(c, "k8"), 0); /* the ninth key: no slot left */
    assert_int_equal(tdcl_ctx_memo_get(c, "op.b"), 1);
    tdcl_ctx_close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pick_rules),
        cmocka_unit_test(test_pick_miss_lists_devices),
        cmocka_unit_test(test_device_spec_resolved),
        cmocka_unit_test(test_kernel_path_order),
        cmocka_unit_test(test_cache_miss_hit_corrupt),
        cmocka_unit_test(test_program_of_files),
        cmocka_unit_test(test_program_binary_cached),
        cmocka_unit_test(test_cache_mark_judged_by_lock),
        cmocka_unit_test(test_build_failure_names_file_and_options),
        cmocka_unit_test(test_device_limits_read),
        cmocka_unit_test(test_open_async),
        cmocka_unit_test(test_timing_roundtrip),
        cmocka_unit_test(test_ctx_memo),
    };
    return tdcl_test_exit(
        cmocka_run_group_tests_name("clrt", tests, tdcl_test_ctx_setup, tdcl_test_ctx_teardown));
}
