/* Atomic output files, whole-file reads and extension tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>

#include "tdcl_test.h"

#include "base/fileio.h"

static char *read_all(const char *path)
{
    char *d;
    size_t n;
    tdcl_err e;
    assert_int_equal(tdcl_read_file(path, &d, &n, &e), TDCL_OK);
    assert_int_equal(strlen(d), n);
    return d;
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static void test_commit_replaces_target(void **state)
{
    (void)state;
    char *dir = tdcl_test_tmpdir(), *path = tdcl_test_join(dir, "out.txt");
    tdcl_test_write_text(path, "old contents\n");
    tdcl_outfile o;
    tdcl_err e;
    assert_int_equal(tdcl_out_open(&o, path, &e), TDCL_OK);
    fputs("new\n", o.fp);
    /* before commit the target is untouched */
    char *mid = read_all(path);
    assert_string_equal(mid, "old contents\n");
    free(mid);
    assert_int_equal(tdcl_out_commit(&o, &e), TDCL_OK);
    char *after = read_all(path);
    assert_string_equal(after, "new\n");
    assert_int_equal(count_entries(dir), 1); /* no temporary left */
    free(after);
    unlink(path);
    rmdir(dir);
    free(path);
    free(dir);
}

static void test_abort_keeps_old_file(void **state)
{
    (void)state;
    char *dir = tdcl_test_tmpdir(), *path = tdcl_test_join(dir, "keep.txt");
    tdcl_test_write_text(path, "precious\n");
    tdcl_outfile o;
    tdcl_err e;
    assert_int_equal(tdcl_out_open(&o, path, &e), TDCL_OK);
    fputs("half a resu", o.fp);
    tdcl_out_abort(&o);
    char *after = read_all(path);
    assert_string_equal(after, "precious\n");
    assert_int_equal(count_entries(dir), 1);
    tdcl_out_abort(&o); /* twice is harmless */
    free(after);
    unlink(path);
    rmdir(dir);
    free(path);
    free(dir);
}

static void test_open_in_missing_dir_fails_clearly(void **state)
{
    (void)state;
    tdcl_outfile o;
    tdcl_err e = {0};
    assert_int_equal(tdcl_out_open(&o, "/nonexistent-dir-tdcl/x.mtx", &e), TDCL_EIO);
    assert_non_null(strstr(e.msg, "/nonexistent-dir-tdcl/x.mtx"));
    assert_non_null(strstr(e.msg, "No such file"));
}

static void test_full_disk_keeps_old_file(void **state)
{
    (void)state;
    /* /dev/full reports ENOSPC on every write; a temp file cannot be made
     * there, so write through a target in a writable dir and check the
     * commit path on a real ENOSPC only where /dev/full exists. */
    FILE *full = fopen("/dev/full", "w");
    if (!full)
        skip();
    fclose(full);
    char *dir = tdcl_test_tmpdir(), *path = tdcl_test_join(dir, "t.txt");
    tdcl_test_write_text(path, "old\n");
    tdcl_outfile o;
    tdcl_err e = {0};
    assert_int_equal(tdcl_out_open(&o, path, &e), TDCL_OK);
    /* swap the stream for one on /dev/full: the flush at commit fails */
    FILE *keep = o.fp;
    o.fp = fopen("/dev/full", "w");
    assert_non_null(o.fp);
    fclose(keep);
    for (int i = 0; i < 10000; i++)
        fputs("data data data data\n", o.fp);
    assert_int_equal(tdcl_out_commit(&o, &e), TDCL_EIO);
    assert_non_null(strstr(e.msg, "No space left"));
    char *after = read_all(path);
    assert_string_equal(after, "old\n");
    assert_int_equal(count_entries(dir), 1);
    free(after);
    unlink(path);
    rmdir(dir);
    free(path);
    free(dir);
}

static void test_read_missing_file_names_it(void **state)
{
    (void)state;
    char *d;
    size_t n;
    tdcl_err e = {0};
    assert_int_equal(tdcl_read_file("/no/such/file.mtx", &d, &n, &e), TDCL_EIO);
    assert_non_null(strstr(e.msg, "'/no/such/file.mtx'"));
}

static void test_extensions(void **state)
{
    (void)state;
    assert_true(tdcl_path_has_ext("a.mtx", ".mtx"));
    assert_true(tdcl_path_has_ext("A.MTX", ".mtx"));
    assert_true(tdcl_path_has_ext("dir/a.mtx.gz", ".mtx.gz"));
    assert_false(tdcl_path_has_ext("a.mtx.gz", ".mtx"));
    assert_false(tdcl_path_has_ext(".mtx", ".mtx"));
    assert_false(tdcl_path_has_ext(NULL, ".mtx"));
    assert_string_equal(tdcl_path_display("-"), "<stdin>");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_commit_replaces_target),
        cmocka_unit_test(test_abort_keeps_old_file),
        cmocka_unit_test(test_open_in_missing_dir_fails_clearly),
        cmocka_unit_test(test_full_disk_keeps_old_file),
        cmocka_unit_test(test_read_missing_file_names_it),
        cmocka_unit_test(test_extensions),
    };
    return cmocka_run_group_tests_name("fileio", tests, NULL, NULL);
}
