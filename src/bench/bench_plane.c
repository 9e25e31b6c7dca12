/* bench life --pattern FILE --plane tiles: the pattern on the tile plane
 * (ops/life/life_plane.h), every repetition from its first generation. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "bench/bench_job.h"
#include "io/life_io.h"
#include "ops/life/life_plane.h"

/* One repetition: a fresh plane of the pattern (built from the cache,
 * not timed), then the generations, timed on the host. */
typedef struct plane_run {
    bench_job *j;
    const tdcl_life_rule *rule;
    const tdcl_life_cells *cells;
    tdcl_life_tiles_stats last;
} plane_run;

static tdcl_status plane_exec(void *user, double *ms, tdcl_err *err)
{
    plane_run *r = user;
    tdcl_life_tiles *t = NULL;
    tdcl_status st = tdcl_life_tiles_create(r->j->ctx, r->rule, 0, 0, r->cells, &t, err);
    double t0 = tdcl_now_ms();
    if (!st) st = tdcl_life_tiles_run(t, r->j->o.gens, err);
    *ms = tdcl_now_ms() - t0;
    if (!st) tdcl_life_tiles_stats_get(t, &r->last);
    tdcl_life_tiles_destroy(t);
    return st;
}

tdcl_status tdcl_bench_life_plane(bench_job *j, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_life_pattern pat = {0};
    tdcl_life_cells cells = {0};
    tdcl_bench_result r;
    TDCL_TRY(tdcl_life_read_cells(j->o.life_pattern, INT64_C(1) << 30, &pat, &cells, err));
    if (pat.topo.present || (!cells.n && pat.grid.data)) {
        st = tdcl_fail(err, TDCL_EINVAL,
                       "bench: the tile plane runs the unbounded plane; '%s' "
                       "has a bounded grid",
                       j->o.life_pattern);
        goto out;
    }
    tdcl_life_rule rule = pat.has_rule ? pat.rule : tdcl_life_rule_conway();
    plane_run run = {j, &rule, &cells, {0}};
    tdcl_bench_result_init(j, &r, "life");
    TDCL_TRY(tdcl_bench_run_time(j, plane_exec, &run, &r.t, err));
    tdcl_life_tiles_stats *s = &run.last;
    double sec = r.t.median_ms / 1e3;
    r.gens = j->o.gens;
    r.type = "bit";
    r.rate_key = "cells_per_s";
    /* the rate is of the active area, the 64 x 64 cells of every tile a
     * launch computed, each generation; tiles held but skipped and the
     * box around them are not counted */
    double per_launch = s->launches ? 1.0 / (double)s->launches : 0.0;
    snprintf(r.plan, sizeof r.plan,
             "plane=tiles tile=%dx%d generations/s=%.4g rate=active-area live=%" PRId64
             " tiles=%" PRId64 " peak_tiles=%" PRId64 " launches=%" PRId64
             " computed/launch=%.1f held/launch=%.1f launch_ms=%.4g host_ms=%.4g",
             TDCL_LIFE_TILE, TDCL_LIFE_TILE, sec > 0 ? (double)j->o.gens / sec : 0.0, s->population,
             s->tiles, s->peak_tiles, s->launches, s->tile_launches * per_launch,
             s->tiles_held * per_launch, s->device_ms, s->host_ms);
    r.checked = 0;
    tdcl_bench_result_emit(j, &r, s->cell_updates);
out:
    tdcl_life_cells_free(&cells);
    tdcl_life_pattern_free(&pat);
    return st;
}
