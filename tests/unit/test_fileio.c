/* Atomic output files, whole-file reads and extension tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>
#include <fcntl.h>

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

/* TILEDCL_FSYNC=1 (and only "1") asks for the sync; either way the commit
 * replaces the target and leaves no temporary. */
static void test_fsync_choice(void **state)
{
    (void)state;
    const char *vals[] = {NULL, "0", "1", "yes"};
    const int want[] = {0, 0, 1, 0};
    char *dir = tdcl_test_tmpdir(), *path = tdcl_test_join(dir, "out.txt");
    for (size_t i = 0; i < 4; i++) {
        if (vals[i])
            setenv("TILEDCL_FSYNC", vals[i], 1);
        else
            unsetenv("TILEDCL_FSYNC");
        assert_int_equal(tdcl_out_sync_wanted(), want[i]);
        tdcl_test_write_text(path, "old contents\n");
        tdcl_outfile o;
        tdcl_err e;
        assert_int_equal(tdcl_out_open(&o, path, &e), TDCL_OK);
        fprintf(o.fp, "run %zu\n", i);
        assert_int_equal(tdcl_out_commit(&o, &e), TDCL_OK);
        char *after = read_all(path), expect[16];
        snprintf(expect, sizeof expect, "run %zu\n", i);
        assert_string_equal(after, expect);
        assert_int_equal(count_entries(dir), 1);
        free(after);
    }
    unsetenv("TILEDCL_FSYNC");
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
    if (!full) skip();
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

/* Writes text through tdcl_out_* to path. */
static void write_through(const char *path, const char *text)
{
    tdcl_outfile o;
    tdcl_err e;
    assert_int_equal(tdcl_out_open(&o, path, &e), TDCL_OK);
    fputs(text, o.fp);
    assert_int_equal(tdcl_out_commit(&o, &e), TDCL_OK);
}

/* A link is followed, the target replaced, the link kept; modes survive. */
static void test_link_and_mode_kept(void **state)
{
    (void)state;
    char *dir = tdcl_test_tmpdir(), *real = tdcl_test_join(dir, "real.txt"),
         *link = tdcl_test_join(dir, "link.txt");
    tdcl_test_write_text(real, "old\n");
    assert_int_equal(chmod(real, 0640), 0);
    assert_int_equal(symlink("real.txt", link), 0);
    write_through(link, "new\n");
    struct stat sb;
    assert_int_equal(lstat(link, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    assert_int_equal(stat(real, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0640);
    char *got = read_all(real);
    assert_string_equal(got, "new\n");
    free(got);
    assert_int_equal(count_entries(dir), 2); /* no temporary */
    unlink(link);
    unlink(real);
    rmdir(dir);
    free(link);
    free(real);
    free(dir);
}

/* A 255-byte name: the temporary must fit the same directory. */
static void test_longest_name(void **state)
{
    (void)state;
    char name[256];
    memset(name, 'n', 251);
    strcpy(name + 251, ".txt");
    char *dir = tdcl_test_tmpdir(), *path = tdcl_test_join(dir, name);
    write_through(path, "long\n");
    char *got = read_all(path);
    assert_string_equal(got, "long\n");
    free(got);
    assert_int_equal(count_entries(dir), 1);
    unlink(path);
    rmdir(dir);
    free(path);
    free(dir);
}

/* A FIFO is written in place, not replaced. */
static void test_fifo_written_in_place(void **state)
{
    (void)state;
    char *dir = tdcl_test_tmpdir(), *fifo = tdcl_test_join(dir, "pipe");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    /* a reader that does not block the writer's open: O_RDWR on Linux */
    int rd = open(fifo, O_RDWR | O_NONBLOCK);
    assert_true(rd >= 0);
    write_through(fifo, "through\n");
    char buf[32] = "";
    assert_int_equal(read(rd, buf, sizeof buf - 1), 8);
    assert_string_equal(buf, "through\n");
    struct stat sb;
    assert_int_equal(lstat(fifo, &sb), 0);
    assert_true(S_ISFIFO(sb.st_mode));
    close(rd);
    unlink(fifo);
    rmdir(dir);
    free(fifo);
    free(dir);
}

/* The pre-check refuses what cannot be written, before anything exists. */
static void test_precheck(void **state)
{
    (void)state;
    char *dir = tdcl_test_tmpdir(), *missing = tdcl_test_join(dir, "no/out.txt"),
         *file = tdcl_test_join(dir, "f"), *under = tdcl_test_join(dir, "f/out.txt");
    tdcl_err e = {0};
    assert_int_equal(tdcl_out_precheck(NULL, &e), TDCL_OK);
    assert_int_equal(tdcl_out_precheck("-", &e), TDCL_OK);
    assert_int_equal(tdcl_out_precheck("/dev/stdout", &e), TDCL_OK);
    assert_int_equal(tdcl_out_precheck(missing, &e), TDCL_EIO);
    assert_non_null(strstr(e.msg, "No such file or directory"));
    assert_int_equal(tdcl_out_precheck(dir, &e), TDCL_EIO);
    assert_non_null(strstr(e.msg, "it is a directory"));
    tdcl_test_write_text(file, "x\n");
    assert_int_equal(tdcl_out_precheck(under, &e), TDCL_EIO);
    assert_non_null(strstr(e.msg, "is not a directory"));
    assert_int_equal(tdcl_out_precheck(file, &e), TDCL_OK);
    assert_int_equal(count_entries(dir), 1); /* nothing created */
    assert_true(tdcl_path_is_stdout("/dev/fd/1") && tdcl_path_is_stdout("-"));
    assert_false(tdcl_path_is_stdout("/dev/fd/2"));
    /* written in place, in standard output's format: devices, and links to
     * /dev/stdout whatever stdout is; never a file or a directory */
    char *link = tdcl_test_join(dir, "so");
    assert_int_equal(symlink("/dev/stdout", link), 0);
    assert_true(tdcl_path_is_stream(link) && tdcl_path_is_stream("/dev/null"));
    assert_int_equal(tdcl_out_precheck(link, &e), TDCL_OK);
    assert_false(tdcl_path_is_stream(file) || tdcl_path_is_stream(dir));
    assert_false(tdcl_path_is_stream(missing));
    /* one file however spelled: by inode where it exists, else by name */
    char *dot = tdcl_test_join(dir, "./sub/../f"), *nf = tdcl_test_join(dir, "new"),
         *nf2 = tdcl_test_join(dir, "./new"), *to_new = tdcl_test_join(dir, "to-new");
    assert_int_equal(symlink("new", to_new), 0);
    assert_true(tdcl_path_same_file(file, file) && tdcl_path_same_file(nf, nf2));
    assert_true(tdcl_path_same_file(to_new, nf2)); /* a dangling link and its target */
    assert_false(tdcl_path_same_file(file, nf) || tdcl_path_same_file(dot, file));
    assert_false(tdcl_path_same_file("/dev/null", "/dev/null")); /* written in place */
    assert_true(tdcl_path_same_file("-", "/dev/stdout"));
    unlink(to_new);
    free(dot);
    free(nf);
    free(nf2);
    free(to_new);
    unlink(link);
    free(link);
    unlink(file);
    rmdir(dir);
    free(under);
    free(file);
    free(missing);
    free(dir);
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
        cmocka_unit_test(test_link_and_mode_kept),
        cmocka_unit_test(test_longest_name),
        cmocka_unit_test(test_fifo_written_in_place),
        cmocka_unit_test(test_precheck),
        cmocka_unit_test(test_fsync_choice),
    };
    return cmocka_run_group_tests_name("fileio", tests, NULL, NULL);
}
