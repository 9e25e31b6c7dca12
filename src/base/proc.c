/* The helper of tdcl_proc_detach_teardown (base/proc.h). */
#define _GNU_SOURCE
#include "base/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { HELPER_STACK = 64 * 1024, MAX_FDS = 4096 };

typedef struct helper_args {
    int wait_fd, caller_end; /* the pipe: read end, and the caller's write end */
    int nfds;                /* descriptors below this are looked at */
} helper_args;

/* Runs on the caller's memory, thread pointer included, so it makes raw
 * system calls only. Every descriptor that is not a character device is
 * closed at once, and stdio too; then it waits for the pipe's last writer,
 * the caller, to end, and ends itself, which releases the shared memory
 * and the device files. */
static int helper(void *arg)
{
    const helper_args *h = arg;
    int wait_fd = h->wait_fd, caller_end = h->caller_end, nfds = h->nfds;
    struct stat sb;
    syscall(SYS_close, caller_end);
    for (int fd = 0; fd < nfds; fd++)
        if (fd != wait_fd && (fd < 3 || syscall(SYS_fstat, fd, &sb) != 0 || !S_ISCHR(sb.st_mode)))
            syscall(SYS_close, fd);
    char c;
    long r;
    do
        r = syscall(SYS_read, wait_fd, &c, 1);
    while (r > 0 || (r < 0 && errno == EINTR));
    syscall(SYS_exit_group, 0);
    return 0;
}

pid_t tdcl_proc_detach_teardown(void)
{
    static helper_args h; /* read by the helper after this returns */
    int fds[2];
    struct rlimit rl;
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    h.wait_fd = fds[0], h.caller_end = fds[1];
    h.nfds =
        getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < MAX_FDS ? (int)rl.rlim_cur : MAX_FDS;
    void *stack = mmap(NULL, HELPER_STACK, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) goto fail;
    /* CLONE_VM: the helper holds the address space; without CLONE_FILES it
     * holds its own copies of the descriptors. SIGCHLD: whoever adopts it
     * reaps it. */
    pid_t pid = clone(helper, (char *)stack + HELPER_STACK, CLONE_VM | SIGCHLD, &h);
    if (pid == -1) {
        munmap(stack, HELPER_STACK);
        goto fail;
    }
    close(fds[0]); /* fds[1] stays open until this process ends */
    return pid;
fail:
    close(fds[0]);
    close(fds[1]);
    return -1;
}
