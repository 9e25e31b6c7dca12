/* The life command's pipeline (module prefix tdcl_life_job): pattern file
 * or seeded soup -> host grid -> device plan -> host grid -> pattern,
 * image or array file, with progress, population logs, PNG frames and an
 * animated GIF on the way. */
#ifndef TDCL_LIFE_JOB_H
#define TDCL_LIFE_JOB_H

#include <stdint.h>

#include "base/matrix.h"
#include "base/status.h"
#include "dist/exec.h"
#include "ops/life/life.h"
#include "runtime/clrt.h"

/* Called between chunks of a long run, at most a few times a second. */
typedef void (*tdcl_life_progress_fn)(int64_t done, int64_t total, double elapsed_ms, void *user);

typedef struct tdcl_life_job_opts {
    const char *input;  /* pattern file, "-" stdin; NULL: a random soup */
    const char *output; /* by extension; "-" RLE to stdout; NULL: nothing written */
    int64_t gens;
    tdcl_life_opts life;
    int rule_given;        /* life.rule overrides the file's rule */
    int boundary_given;    /* life.boundary overrides the file's bounded grid */
    int64_t width, height; /* soup size, or a grid to centre the input in; 0: default */
    double density;
    uint64_t seed;
    int64_t every;          /* log generation and population every N generations; 0: never */
    const char *frames_dir; /* with every: a PNG per N generations there */
    const char *gif_path;   /* an animated GIF of the run (every N generations, else each) */
    int scale;              /* pixels per cell for PNG and GIF output */
    uint64_t max_bytes;     /* host memory the grid may take; 0: half of what the host
                               has available (tdcl_mem_check), within the process's limits */
    tdcl_life_progress_fn progress; /* NULL: progress goes to the log (INFO) */
    void *progress_user;
    /* The unbounded plane (jobs/life_plane_job.h): AUTO, tiles for sparse
     * patterns; TILES or DENSE forced. */
    int plane;
    int window_given; /* frames and GIF show this window of the plane */
    int64_t window_x, window_y, window_w, window_h; /* (top-left, width, height) */
} tdcl_life_job_opts;

typedef struct tdcl_life_summary {
    int64_t rows, cols, generations, population;
    double kernel_ms, wall_ms; /* device time of the generation loop; wall time of the run */
    int host_timed;            /* kernel_ms is the host's time: the device's timer is unusable */
    double computed;           /* cell updates of the tiles computed when the run's one
                                  plan skipped tiles, else -1 (or 0) */
    char describe[160];
    int64_t tiles, peak_tiles; /* the tile plane's tiles at the end and at most; 0: a grid ran */
    tdcl_life_rule rule;
    tdcl_life_boundary boundary;
    int open_x, open_y; /* the grid grew with its pattern that way: both, the
                           unbounded plane; one, a Golly grid open one way */
} tdcl_life_summary;

/* Reads (or seeds) the grid, runs it on ex, whichever its kind (the
 * runner of dist/life_run.h; halo as it takes it, 0: chosen), writes the
 * output; fills, when non-NULL, *sum and *final (the last grid, the
 * caller's; over ranks rank 0's). The device or the set may still be
 * opening; the job waits for it. On one device the grid's limits are the
 * device's and host memory's, a grid larger than the device streams
 * through it in bands, and a pattern without a bounded grid lives on the
 * unbounded plane; a set or the ranks run the bounded grid as read. Over
 * ranks rank 0 reads the pattern and sends it to every rank (a plain .npy
 * file every rank holds alike: each reads its own rows; the soup: each
 * sows its own rows) and gathers the result (a .npy output: every rank
 * writes its rows); a failure on any rank stops every rank, the lowest
 * failing rank's error returned with its message, the others' TDCL_EIO
 * with an empty one. */
tdcl_status tdcl_life_exec_job(tdcl_exec *ex, int halo, const tdcl_life_job_opts *o,
                               tdcl_life_summary *sum, tdcl_matrix *final, tdcl_err *err);

#endif
