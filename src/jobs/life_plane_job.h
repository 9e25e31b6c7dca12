/* The life job on the tile plane (ops/life/life_plane.h): a pattern on the
 * unbounded plane that is sparse (live cells a small part of its box) runs
 * in tiles that follow its live cells; frames and the GIF show a window
 * (the starting box or the one given), the output is RLE from the cells
 * (other formats: the live box, where it fits). */
#ifndef TDCL_LIFE_PLANE_JOB_H
#define TDCL_LIFE_PLANE_JOB_H

#include "io/life_pattern.h"
#include "jobs/life_job.h"

/* tdcl_life_job_opts.plane */
enum { TDCL_LIFE_PLANE_AUTO = 0, TDCL_LIFE_PLANE_TILES, TDCL_LIFE_PLANE_DENSE };

/* Below this share of live cells in the box, AUTO takes the tile plane:
 * on a CPU, measured with random soups run 256 generations on the 2-core
 * CPU (user CPU, tiles against dense): 4096^2 at 4% 0.11 s against 0.28,
 * 5% 0.26 against 0.32, 6% 0.55 against 0.36, 8% 1.03 against 0.38;
 * 1024^2 even up to 8%. GPUs' dense kernels are far faster: 2% there until
 * measured. */
#define TDCL_LIFE_PLANE_DENSITY_CPU 0.05
#define TDCL_LIFE_PLANE_DENSITY_GPU 0.02

/* Runs the job on the tile plane when o asks for it or its pattern is
 * sparse: *taken 1 and the job's result; else *taken 0 and TDCL_OK, and
 * the caller runs it dense (a B0 rule, a bounded grid, a dense pattern)
 * from *left, the pattern as read (empty when none was: no file, or dense
 * forced), the caller's. A pattern whose cell list outgrows the memory
 * limit goes to the caller too, unless the tiles are forced: *taken -1,
 * TDCL_OK and the refusal in *err, for the caller to give if the grid is
 * refused as well. Same contract as tdcl_life_job otherwise. */
tdcl_status tdcl_life_plane_job(tdcl_ctx *ctx, const tdcl_life_job_opts *o, tdcl_life_summary *sum,
                                tdcl_matrix *final, int *taken, tdcl_life_pattern *left,
                                tdcl_err *err);

#endif
