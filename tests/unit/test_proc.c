/* tdcl_proc_detach_teardown (base/proc.c): the caller's status arrives at
 * once, its pipes end with it, and the helper lives on until the caller
 * has ended, then ends by itself. This process adopts the helper (a
 * subreaper) to see its end. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tdcl_test.h"

#include "base/proc.h"

/* The child: stdout on out, a second pipe held at extra, a device file
 * open; the helper started and its id written to out; then waits for go
 * before it ends with 7. */
static void child(int out, int extra, int go)
{
    (void)extra;
    dup2(out, 1);
    int dev = open("/dev/null", O_RDONLY); /* a character device: the helper keeps it */
    (void)dev;
    pid_t h = tdcl_proc_detach_teardown();
    if (write(1, &h, sizeof h) != (ssize_t)sizeof h) _exit(9);
    char c;
    while (read(go, &c, 1) < 0 && errno == EINTR)
        ;
    _exit(7);
}

/* read(fd) reaches the end of the pipe within 10 s */
static void assert_ends(int fd)
{
    char buf[64];
    ssize_t r;
    alarm(10);
    while ((r = read(fd, buf, sizeof buf)) > 0 || (r < 0 && errno == EINTR))
        ;
    alarm(0);
    assert_int_equal(r, 0);
}

/* The process's state letter from /proc/PID/stat ('Z': ended, unreaped). */
static char state_of(pid_t pid)
{
    char path[64], comm[64], st = '?';
    int p;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return '?';
    if (fscanf(f, "%d %63s %c", &p, comm, &st) != 3) st = '?';
    fclose(f);
    return st;
}

static void test_helper_outlives_caller(void **state)
{
    (void)state;
    int out[2], extra[2], go[2], st = 0;
    pid_t h = -1;
    assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    assert_int_equal(pipe(out), 0);
    assert_int_equal(pipe(extra), 0);
    assert_int_equal(pipe(go), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(out[0]), close(extra[0]), close(go[1]);
        child(out[1], extra[1], go[0]);
    }
    close(out[1]), close(extra[1]), close(go[0]);
    assert_int_equal(read(out[0], &h, sizeof h), (ssize_t)sizeof h);
    assert_true(h > 0 && h != pid);
    usleep(50 * 1000);
    /* the helper waits for the caller: alive, not ended */
    char s = state_of(h);
    assert_true(s == 'S' || s == 'R' || s == 'D');
    assert_int_equal(write(go[1], "g", 1), 1);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 7);
    assert_ends(out[0]);
    assert_ends(extra[0]);
    /* then the helper, adopted here, ends by itself with status 0 */
    alarm(10);
    assert_int_equal(waitpid(h, &st, 0), h);
    alarm(0);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    close(out[0]), close(extra[0]), close(go[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_helper_outlives_caller),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
