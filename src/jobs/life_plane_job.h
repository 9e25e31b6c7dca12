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

/* Below this share of live cells in the box, AUTO takes the tile plane.
 * Measured with bench/life_plane_crossover.sh (random soups as patterns,
 * whole commands, tiles against dense): on the 2-core CPU through PoCL,
 * 256 generations, the tiles stop winning at 10.6% (2048^2) and 11.2%
 * (4096^2); on an H200, 1000 generations, at 21.8% (4096^2), and at
 * 16384^2 they took 0.19-0.48 of the dense time up to 3%. */
#define TDCL_LIFE_PLANE_DENSITY_CPU 0.10
#define TDCL_LIFE_PLANE_DENSITY_GPU 0.15

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
