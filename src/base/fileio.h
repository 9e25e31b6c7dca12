/* Files in and out: whole-file input (with "-" for stdin), atomic output
 * through a temporary file renamed into place, and extension tests.
 *
 * Nothing is lost: tdcl_out_open writes to a temporary file beside the
 * target; only tdcl_out_commit, after every byte is flushed (and synced
 * when TILEDCL_FSYNC=1), renames it over the target. tdcl_out_abort (and
 * any terminating signal, once tdcl_out_install_signal_cleanup ran)
 * removes the temporary file and leaves any existing target untouched.
 *
 * As cp and sed -i do: a symbolic link is followed and the file it names
 * is replaced (the link stays a link); a replaced file keeps its
 * permission bits; a FIFO, a device or /dev/stdout is written in place. */
#ifndef TDCL_FILEIO_H
#define TDCL_FILEIO_H

#include <stdio.h>
#include <stddef.h>

#include "base/status.h"

typedef struct tdcl_outfile {
    FILE *fp;   /* write here */
    char *path; /* the target, NULL for stdout */
    char *tmp;  /* the temporary file, NULL for stdout */
    int slot;   /* index in the signal-cleanup registry, -1 if none */
    int direct; /* written in place (FIFO, device, /dev/stdout) */
} tdcl_outfile;

/* Opens an output. path NULL or "-" means stdout (written directly). On
 * failure names the directory or file and the reason. */
tdcl_status tdcl_out_open(tdcl_outfile *o, const char *path, tdcl_err *err);

/* Allocates bytes of the temporary file now (fallocate): written later,
 * the data then lands in space the file system holds already (on tmpfs,
 * pages allocated and zeroed while the caller waits for something else;
 * writing 256 MiB into them took a third of the time on this project's
 * machines). A file system that cannot, a FIFO, a device or stdout are
 * left alone (TDCL_OK); no space fails here, naming the file, before any
 * work. */
tdcl_status tdcl_out_reserve(tdcl_outfile *o, unsigned long long bytes, tdcl_err *err);

/* 1 when TILEDCL_FSYNC=1: tdcl_out_commit then fsyncs before the rename
 * (durable across a power loss); by default it does not, as cp does not. */
int tdcl_out_sync_wanted(void);

/* Flushes, syncs if wanted, closes and renames into place. On any
 * failure the temporary file is removed, the target is untouched and an
 * error naming the target is returned. After this call o is closed either way. */
tdcl_status tdcl_out_commit(tdcl_outfile *o, tdcl_err *err);

/* Closes and removes the temporary file. Accepts NULL, an unopened
 * (zeroed) outfile and a committed one. */
void tdcl_out_abort(tdcl_outfile *o);

/* Installs handlers for every terminating asynchronous signal (HUP, INT,
 * QUIT, TERM, PIPE, ALRM, USR1/2, IO, PROF, VTALRM, XCPU, STKFLT, PWR) and
 * SIGABRT that remove every pending temporary output, then die of the same
 * signal; blocks SIGQUIT, SIGUSR1 and SIGXCPU and starts a thread that
 * waits for them and does the same (see tdcl_out_reclaim_signals); ignores
 * SIGXFSZ so that a file-size limit is a write error with a message. A
 * signal ignored at the start stays ignored. Call once from main, before
 * any other thread exists (threads inherit the blocked signals). */
void tdcl_out_install_signal_cleanup(void);

/* Checks before any work that an output can be written to path: its
 * directory exists and is writable, it is not a directory, its name fits.
 * NULL and "-" (stdout) pass. Creates nothing. */
tdcl_status tdcl_out_precheck(const char *path, tdcl_err *err);

/* Registers a file for removal if a signal ends the process (bench's
 * scratch files); path must stay valid until tdcl_cleanup_remove(slot).
 * Returns the slot, -1 if the registry is full. */
int tdcl_cleanup_add(char *path);
void tdcl_cleanup_remove(int slot);

/* Text written to stderr if a signal ends the process, NULL for none: a
 * progress bar sets its line eraser so the shell prompt starts clean. The
 * string must stay valid. */
void tdcl_signal_note(const char *text);

/* 1 if path names standard output: NULL, "-", /dev/stdout, /dev/fd/1,
 * /proc/self/fd/1. The CLI treats these alike (format: the default). */
int tdcl_path_is_stdout(const char *path);

/* path as an absolute name without links ("." and ".." gone) that need not
 * exist: symbolic links followed as an output follows them, the directory
 * resolved, the last name kept. Malloc'd; NULL when out of memory or a
 * link cannot be read. */
char *tdcl_path_canonical(const char *path);

/* 1 if outputs a and b are one file however spelled: by device and inode
 * where both exist, else by tdcl_path_canonical. Devices and FIFOs, which
 * are written in place, are never one output. */
int tdcl_path_same_file(const char *a, const char *b);

/* 1 if path is written in place as a stream: standard output, a link to
 * it, or (through links) something that is neither a regular file nor a
 * directory, such as /dev/null, a FIFO or a terminal. Without an extension
 * that names a format, such an output gets standard output's format. */
int tdcl_path_is_stream(const char *path);

/* Takes back the handlers of tdcl_out_install_signal_cleanup (a no-op if
 * it never ran): an OpenCL compiler (PoCL's LLVM) installs its own for
 * SIGHUP, SIGINT, SIGTERM, SIGQUIT, SIGUSR1, SIGXCPU, ... when it compiles.
 * Those that swallow the signal (SIGQUIT, SIGUSR1, SIGXCPU) are blocked in
 * every thread and taken by a thread of ours with sigwait, whoever holds
 * the handler; the others pass the signal on to the handler they found,
 * but a handler of ours is surer. tdcl_out_open, the runtime after a build
 * and a job after its first launch (PoCL compiles then) call this. */
void tdcl_out_reclaim_signals(void);

/* Reads a whole file ("-" = stdin) into a malloc'd buffer with a NUL byte
 * after its end (not counted in *len). The caller frees *data. */
tdcl_status tdcl_read_file(const char *path, char **data, size_t *len, tdcl_err *err);

/* 1 if path ends with ext (".mtx", ".mtx.gz"), compared without case. */
int tdcl_path_has_ext(const char *path, const char *ext);

/* The name to show for path in messages: "<stdin>" for "-". */
const char *tdcl_path_display(const char *path);

#endif
