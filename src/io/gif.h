/* Animated GIFs of a Life run, written through giflib (module prefix
 * tdcl_life_gif_): two colours, live cells black on white, scale pixels
 * per cell, one frame per generation shown, the same delay after each,
 * looping forever (the NETSCAPE2.0 extension). The file goes through
 * tdcl_outfile: written to a temporary and renamed into place on close. */
#ifndef TDCL_GIF_H
#define TDCL_GIF_H

#include <stdint.h>

#include "base/matrix.h"
#include "base/status.h"

/* An animated GIF being written, one frame per call. */
typedef struct tdcl_life_gif tdcl_life_gif;

/* Opens path ("-": stdout) for a rows x cols animation at scale pixels per
 * cell, delay_cs hundredths of a second between frames. *out is owned by
 * the caller: finish with tdcl_life_gif_close (commits the file) or
 * tdcl_life_gif_abort. TDCL_ELIMIT when the image would pass 65535 pixels
 * a side. */
tdcl_status tdcl_life_gif_open(const char *path, int64_t rows, int64_t cols, int scale,
                               int delay_cs, tdcl_life_gif **out, tdcl_err *err);

/* Appends grid (TDCL_U8, rows x cols as opened; non-zero = alive) as a
 * frame. TDCL_EIO naming the file when writing fails. */
tdcl_status tdcl_life_gif_frame(tdcl_life_gif *g, const tdcl_matrix *grid, tdcl_err *err);

/* Ends the animation and commits the file; releases g either way. */
tdcl_status tdcl_life_gif_close(tdcl_life_gif *g, tdcl_err *err);

/* Drops the file (the target is untouched) and releases g; accepts NULL. */
void tdcl_life_gif_abort(tdcl_life_gif *g);

#endif
