/* The process's own end (module prefix tdcl_proc_). */
#ifndef TDCL_PROC_H
#define TDCL_PROC_H

#include <sys/types.h>

/* Starts a helper process that shares this process's memory and holds its
 * character-device files (an OpenCL driver's), and ends only once this
 * process has ended. The kernel's release of that memory and of those
 * files, which for an NVIDIA context takes 100-140 ms after _exit, then
 * happens in the helper, after this process's exit status has reached its
 * parent. The helper keeps no other file open: a reader of this process's
 * pipes sees their end when this process ends.
 *
 * Call it just before _exit, with every output committed and the stdio
 * streams flushed. Returns the helper's process id, or -1 where none could
 * be started (the release then happens in this process, as it would
 * anyway). */
pid_t tdcl_proc_detach_teardown(void);

#endif
