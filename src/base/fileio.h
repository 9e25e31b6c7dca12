/* Files in and out: whole-file input (with "-" for stdin), atomic output
 * through a temporary file renamed into place, and extension tests.
 *
 * Nothing is lost: tdcl_out_open writes to a temporary file beside the
 * target; only tdcl_out_commit, after every byte is flushed and synced,
 * renames it over the target. tdcl_out_abort (and SIGINT/SIGTERM, once
 * tdcl_out_install_signal_cleanup ran) removes the temporary file and
 * leaves any existing target untouched. */
#ifndef TDCL_FILEIO_H
#define TDCL_FILEIO_H

#include <stdio.h>
#include <stddef.h>

#include "base/status.h"

typedef struct tdcl_outfile {
    FILE *fp;        /* write here */
    char *path;      /* the target, NULL for stdout */
    char *tmp;       /* the temporary file, NULL for stdout */
    int slot;        /* index in the signal-cleanup registry, -1 if none */
} tdcl_outfile;

/* Opens an output. path NULL or "-" means stdout (written directly). On
 * failure names the directory or file and the reason. */
tdcl_status tdcl_out_open(tdcl_outfile *o, const char *path, tdcl_err *err);

/* Flushes, syncs, closes and renames into place. On any failure the
 * temporary file is removed, the target is untouched and an error naming
 * the target is returned. After this call o is closed either way. */
tdcl_status tdcl_out_commit(tdcl_outfile *o, tdcl_err *err);

/* Closes and removes the temporary file. Accepts NULL, an unopened
 * (zeroed) outfile and a committed one. */
void tdcl_out_abort(tdcl_outfile *o);

/* Installs SIGINT/SIGTERM/SIGHUP handlers that remove every pending
 * temporary output, then die of the same signal. Call once from main. */
void tdcl_out_install_signal_cleanup(void);

/* Reads a whole file ("-" = stdin) into a malloc'd buffer with a NUL byte
 * after its end (not counted in *len). The caller frees *data. */
tdcl_status tdcl_read_file(const char *path, char **data, size_t *len, tdcl_err *err);

/* 1 if path ends with ext (".mtx", ".mtx.gz"), compared without case. */
int tdcl_path_has_ext(const char *path, const char *ext);

/* The name to show for path in messages: "<stdin>" for "-". */
const char *tdcl_path_display(const char *path);

#endif
