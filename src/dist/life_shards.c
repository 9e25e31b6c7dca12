/* Life over a set of devices: bands of rows with K-deep halos, exchanged
 * every K generations through pinned host buffers (dist/shard.h). The
 * runner of dist/life_run.h takes the file job (jobs/life_job.c) here.
 *
 * Why it is exact: a band's plan holds its rows and K rows of each
 * neighbour. Whatever the plan does at its own edges (its boundary rule
 * applied to rows that are not the grid's edges) reaches one row further
 * in each generation, so after K generations only the halo rows are
 * wrong, and the exchange replaces them with the neighbours' true rows.
 * A band at the grid's top or bottom edge (dead or clamp) has no halo on
 * that side: there the plan's boundary is the grid's. Columns are whole in
 * every band, so the plan's boundary across is the grid's too.
 *
 * Streamed: where the bands would not fit their devices (a grid larger
 * than the device), the grid stays in host memory, two copies by round
 * parity, and is cut into as many bands as it takes; each round every
 * device takes its bands in turn (band b on device b mod n): the band and
 * its halos from this round's grid into the device's plan, K generations,
 * the band's rows read back into the next round's grid. No exchange: each
 * band's halos come from the whole grid of the round before. The host's
 * copies are in the plans' packed layout (the first round reads the
 * byte-a-cell grid): a round moves an eighth of a byte a cell each way and
 * packs nothing; a device's plan is made again only when a band's rows
 * differ from the last one's. */
#include "dist/life_shards.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "dist/shard.h"
#include "io/life_io.h"

/* The halo tried before the exchange is measured. */
enum { HALO_FIRST = 64 };

typedef struct life_shard {
    tdcl_shard_stat stat; /* first: tdcl_shard_run reads it */
    tdcl_ctx *ctx;
    tdcl_life_plan *plan;
    int64_t begin, end;  /* the band: rows of the grid */
    int64_t top, bot;    /* halo rows above and below the band in the plan */
    tdcl_pinned edge[2]; /* by round parity: the band's first halo rows, then its last */
    double kernel_ms;
    double round_compute_ms, round_exchange_ms; /* the last round's, host time */
    double round_kernel_ms;                     /* the last round's device time */
    int64_t pop;
    int64_t plan_rows; /* streamed: the rows of plan, the last band's and its halos' */
} life_shard;

enum { TASK_CREATE, TASK_STEP, TASK_POP, TASK_GATHER, TASK_STREAM, TASK_UNPACK };

/* Streamed: generations per round, at most, and the share of a device's
 * largest grid a band with its halos may take (the plan pads rows to
 * words, and a sparse plan adds its tile maps). */
enum { STREAM_HALO = 256 };
#define STREAM_SHARE 0.9

struct tdcl_life_shards {
    tdcl_devset *set;
    tdcl_life_opts o;
    size_t n;
    int64_t rows, cols;
    int halo;                /* K: halo rows each side, generations per round at most */
    int auto_halo;           /* chosen: measure on the first execute */
    int64_t round;           /* rounds since the plans were made: parity of the edges */
    int64_t round_gens;      /* TASK_STEP: this round's generations */
    int task;                /* what shard_task does */
    const tdcl_matrix *grid; /* TASK_CREATE: the grid; TASK_GATHER: its destination */
    size_t row_bytes;
    life_shard s[TDCL_DEVSET_MAX];
    char desc[256];
    int stream;            /* streamed: the grid in host memory, nb bands */
    int64_t nb, band;      /* streamed: how many bands, and rows a band (the last: the rest) */
    tdcl_matrix cur;       /* streamed: the grid as given, until the first round */
    uint8_t *pcur, *pnext; /* streamed: this round's grid and the next's, packed */
    size_t rb;             /* streamed: a packed row's bytes */
    int wb;                /* streamed: the plans' word bits (0: a byte a cell) */
    int packed;            /* streamed: pcur holds the grid (a round has run) */
};

/* Grid rows of shard i's plan, the halos included (wrapping on a torus),
 * from grid. */
static tdcl_status sub_grid(const tdcl_life_shards *S, const tdcl_matrix *grid,
                            const life_shard *sh, tdcl_matrix *sub, tdcl_err *err)
{
    int64_t n = sh->top + (sh->end - sh->begin) + sh->bot;
    tdcl_status st = tdcl_matrix_alloc(sub, n, S->cols, 1, TDCL_U8, err);
    if (st) return st;
    for (int64_t r = 0; r < n; r++) {
        int64_t y = ((sh->begin - sh->top + r) % S->rows + S->rows) % S->rows;
        memcpy((uint8_t *)sub->data + r * S->cols, (const uint8_t *)grid->data + y * S->cols,
               (size_t)S->cols);
    }
    return TDCL_OK;
}

/* Streamed: band b's rows of the grid, its halos included. */
static life_shard stream_place(const tdcl_life_shards *S, int64_t b)
{
    int wrap = S->o.boundary == TDCL_LIFE_TORUS;
    life_shard band = {.begin = b * S->band};
    band.end = b + 1 == S->nb ? S->rows : band.begin + S->band;
    /* the grid's own rows only, past its edges (dead, clamp): the last
     * band may be thinner than the halo */
    band.top = wrap || band.begin >= S->halo ? S->halo : band.begin;
    band.bot = wrap || S->rows - band.end >= S->halo ? S->halo : S->rows - band.end;
    return band;
}

/* Streamed: device sh's plan for band's rows: kept when its rows are the
 * same, else made again from grid's (the byte-a-cell grid of the first
 * round) or empty, to be written over. Its layout must be the host
 * copies'. */
static tdcl_status stream_plan(tdcl_life_shards *S, life_shard *sh, const life_shard *band,
                               const tdcl_matrix *grid, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix sub = {0};
    int64_t rows = band->top + (band->end - band->begin) + band->bot;
    if (sh->plan && sh->plan_rows == rows && !grid) return TDCL_OK;
    tdcl_life_plan_destroy(sh->plan);
    sh->plan = NULL;
    tdcl_life_opts o = S->o;
    o.quiet = 1; /* stream_setup's plan said it once */
    if (grid)
        TDCL_TRY(sub_grid(S, grid, band, &sub, err));
    else /* the shape only: the rows are written over it (stream_write) */
        sub = (tdcl_matrix){.rows = rows, .cols = S->cols, .channels = 1, .dtype = TDCL_U8};
    TDCL_TRY(tdcl_life_plan_create(sh->ctx, &o, &sub, &sh->plan, err));
    sh->plan_rows = rows;
    if (tdcl_life_plan_row_bytes(sh->plan) != S->rb || tdcl_life_plan_word_bits(sh->plan) != S->wb)
        st = tdcl_fail(err, TDCL_EINVAL, "life: a band's plan took another layout ('%s')",
                       tdcl_life_plan_describe(sh->plan));
out:
    tdcl_matrix_free(&sub);
    return st;
}

/* Streamed: band's rows, halos included (wrapping on a torus), from the
 * packed grid into the device's plan. */
static tdcl_status stream_write(tdcl_life_shards *S, life_shard *sh, const life_shard *band,
                                tdcl_err *err)
{
    int64_t n = band->top + (band->end - band->begin) + band->bot, done = 0;
    while (done < n) {
        int64_t y = ((band->begin - band->top + done) % S->rows + S->rows) % S->rows;
        int64_t run = S->rows - y < n - done ? S->rows - y : n - done;
        tdcl_status st =
            tdcl_life_plan_write_rows(sh->plan, done, run, S->pcur + (size_t)y * S->rb, err);
        if (st) return st;
        done += run;
    }
    return TDCL_OK;
}

/* Streamed: band b of this round on device sh: into its plan, advanced,
 * its rows read into the next round's grid. */
static tdcl_status stream_band(tdcl_life_shards *S, life_shard *sh, int64_t b, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    double ms = 0;
    life_shard band = stream_place(S, b);
    TDCL_TRY(stream_plan(S, sh, &band, S->packed ? NULL : &S->cur, err));
    if (S->packed) TDCL_TRY(stream_write(S, sh, &band, err));
    TDCL_TRY(tdcl_life_plan_execute(sh->plan, S->round_gens, &ms, err));
    TDCL_TRY(tdcl_life_plan_read_rows(sh->plan, band.top, band.end - band.begin,
                                      S->pnext + (size_t)band.begin * S->rb, err));
    sh->kernel_ms += ms;
    sh->round_kernel_ms += ms;
out:
    return st;
}

/* Streamed: band b's cells of the packed grid into S->grid, through the
 * device's plan. */
static tdcl_status stream_unpack(tdcl_life_shards *S, life_shard *sh, int64_t b, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    life_shard band = stream_place(S, b);
    TDCL_TRY(stream_plan(S, sh, &band, NULL, err));
    TDCL_TRY(stream_write(S, sh, &band, err));
    TDCL_TRY(tdcl_life_plan_cells(sh->plan, band.top, band.end - band.begin,
                                  (uint8_t *)S->grid->data + band.begin * S->cols, err));
out:
    return st;
}

/* Shard i's part of a step; see the task names. */
static void shard_task(void *arg, int i)
{
    tdcl_life_shards *S = arg;
    life_shard *sh = &S->s[i];
    tdcl_err *err = &sh->stat.err;
    tdcl_status st = TDCL_OK;
    tdcl_matrix sub = {0};
    uint8_t *cells = NULL;
    const int64_t band = sh->end - sh->begin, H = S->halo;
    switch (S->task) {
    case TASK_STREAM: {
        double t0 = tdcl_now_ms();
        sh->round_kernel_ms = 0;
        /* every other round backwards: the band a round ends with (and
         * its plan's rows) is the one the next starts with */
        int64_t mine = (S->nb - i + (int64_t)S->n - 1) / (int64_t)S->n;
        for (int64_t k = 0; k < mine; k++) {
            int64_t j = S->round % 2 ? mine - 1 - k : k;
            TDCL_TRY(stream_band(S, sh, i + j * (int64_t)S->n, err));
        }
        sh->stat.compute_ms += tdcl_now_ms() - t0;
        break;
    }
    case TASK_UNPACK:
        for (int64_t b = i; b < S->nb; b += (int64_t)S->n)
            TDCL_TRY(stream_unpack(S, sh, b, err));
        break;
    case TASK_CREATE:
        TDCL_TRY(sub_grid(S, S->grid, sh, &sub, err));
        TDCL_TRY(tdcl_life_plan_create(sh->ctx, &S->o, &sub, &sh->plan, err));
        if (S->n > 1) {
            size_t rb = tdcl_life_plan_row_bytes(sh->plan);
            for (int p = 0; p < 2; p++)
                TDCL_TRY(tdcl_pinned_alloc(sh->ctx, 2 * (size_t)H * rb, &sh->edge[p], err));
        }
        break;
    case TASK_STEP: {
        double t0 = tdcl_now_ms(), ms = 0;
        size_t rb = S->row_bytes;
        if (S->round > 0 && S->n > 1) { /* halos from the neighbours' edges of the last round */
            int p = (int)((S->round - 1) & 1);
            const life_shard *prev = &S->s[(i + S->n - 1) % S->n], *next = &S->s[(i + 1) % S->n];
            if (sh->top)
                TDCL_TRY(tdcl_life_plan_write_rows(
                    sh->plan, 0, sh->top, (uint8_t *)prev->edge[p].ptr + (size_t)H * rb, err));
            if (sh->bot)
                TDCL_TRY(tdcl_life_plan_write_rows(sh->plan, sh->top + band, sh->bot,
                                                   next->edge[p].ptr, err));
        }
        double t1 = tdcl_now_ms();
        TDCL_TRY(tdcl_life_plan_execute(sh->plan, S->round_gens, &ms, err));
        double t2 = tdcl_now_ms();
        sh->kernel_ms += ms;
        if (S->n > 1) {
            uint8_t *e = sh->edge[S->round & 1].ptr;
            TDCL_TRY(tdcl_life_plan_read_rows(sh->plan, sh->top, H, e, err));
            TDCL_TRY(
                tdcl_life_plan_read_rows(sh->plan, sh->top + band - H, H, e + (size_t)H * rb, err));
        }
        sh->round_compute_ms = t2 - t1;
        sh->round_kernel_ms = ms;
        sh->round_exchange_ms = (t1 - t0) + (tdcl_now_ms() - t2);
        sh->stat.compute_ms += sh->round_compute_ms;
        sh->stat.exchange_ms += sh->round_exchange_ms;
        break;
    }
    case TASK_POP:
        if (!(cells = malloc((size_t)(band * S->cols)))) {
            st = tdcl_fail(err, TDCL_ENOMEM, "out of memory");
            goto out;
        }
        TDCL_TRY(tdcl_life_plan_cells(sh->plan, sh->top, band, cells, err));
        sh->pop = 0;
        for (int64_t k = 0; k < band * S->cols; k++)
            sh->pop += cells[k];
        break;
    default: /* TASK_GATHER */
        TDCL_TRY(tdcl_life_plan_cells(sh->plan, sh->top, band,
                                      (uint8_t *)S->grid->data + sh->begin * S->cols, err));
        break;
    }
out:
    free(cells);
    tdcl_matrix_free(&sub);
    sh->stat.st = st;
}

static tdcl_status run_task(tdcl_life_shards *S, int task, tdcl_err *err)
{
    S->task = task;
    return tdcl_shard_run(S->n, shard_task, S, &S->s[0].stat, sizeof S->s[0], err);
}

static void free_plans(tdcl_life_shards *S)
{
    for (size_t i = 0; i < S->n; i++) {
        tdcl_life_plan_destroy(S->s[i].plan);
        S->s[i].plan = NULL;
        for (int p = 0; p < 2; p++)
            tdcl_pinned_free(&S->s[i].edge[p]);
    }
}

/* Splits grid into bands with a halo of halo rows and makes the plans. */
static tdcl_status build(tdcl_life_shards *S, const tdcl_matrix *grid, int halo, tdcl_err *err)
{
    int64_t begin[TDCL_DEVSET_MAX + 1], thinnest = INT64_MAX;
    tdcl_status st = tdcl_shard_split(S->rows, S->n, 1, begin, err);
    if (st) return st;
    for (size_t i = 0; i < S->n; i++)
        if (begin[i + 1] - begin[i] < thinnest) thinnest = begin[i + 1] - begin[i];
    if (S->n > 1 && halo > thinnest)
        return tdcl_fail(err, TDCL_EINVAL,
                         "a halo of %d rows is more than the %" PRId64
                         " rows of the thinnest of %zu bands",
                         halo, thinnest, S->n);
    S->halo = S->n > 1 ? halo : 0;
    int wrap = S->o.boundary == TDCL_LIFE_TORUS;
    for (size_t i = 0; i < S->n; i++) {
        life_shard *sh = &S->s[i];
        sh->begin = begin[i];
        sh->end = begin[i + 1];
        sh->top = S->n > 1 && (i > 0 || wrap) ? S->halo : 0;
        sh->bot = S->n > 1 && (i + 1 < S->n || wrap) ? S->halo : 0;
    }
    S->grid = grid;
    S->round = 0;
    st = run_task(S, TASK_CREATE, err);
    S->grid = NULL;
    if (st) return st;
    S->row_bytes = tdcl_life_plan_row_bytes(S->s[0].plan);
    for (size_t i = 1; i < S->n; i++)
        if (!tdcl_life_plan_same_layout(S->s[0].plan, S->s[i].plan))
            return tdcl_fail(err, TDCL_EINVAL,
                             "the devices chose different cell layouts ('%s' and '%s'); give the "
                             "kernel and the cells per word",
                             tdcl_life_plan_describe(S->s[0].plan),
                             tdcl_life_plan_describe(S->s[i].plan));
    snprintf(S->desc, sizeof S->desc, "%zu shards, halo %d: %s", S->n, S->halo,
             tdcl_life_plan_describe(S->s[0].plan));
    return TDCL_OK;
}

/* Rows of a band with its halos that every device of the set holds, with
 * room for the plan's own buffers. */
static int64_t rows_that_fit(const tdcl_life_shards *S)
{
    int64_t least = INT64_MAX;
    for (size_t i = 0; i < S->n; i++) {
        int64_t r = tdcl_life_max_rows(&S->s[i].ctx->dev, &S->o, S->cols);
        if (r < least) least = r;
    }
    return (int64_t)((double)least * STREAM_SHARE);
}

/* Streamed (the bands do not fit their devices): the grid copied into
 * host memory, the bands' height and halo chosen, and one band planned to
 * check the options and describe the kernel. */
static tdcl_status stream_setup(tdcl_life_shards *S, const tdcl_matrix *grid, int halo, int64_t fit,
                                tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix sub = {0};
    tdcl_life_plan *plan = NULL;
    int64_t h = halo > 0 ? halo : STREAM_HALO;
    if (fit < 3)
        return tdcl_fail(err, TDCL_ELIMIT,
                         "a row of %" PRId64 " cells takes more than a third of what '%s' holds",
                         S->cols, S->s[0].ctx->dev.device_name);
    if (fit - 2 * h < h) h = fit / 4 > 0 ? fit / 4 : 1;
    S->stream = 1;
    S->halo = (int)h;
    S->band = fit - 2 * h;
    S->nb = (S->rows + S->band - 1) / S->band;
    TDCL_TRY(tdcl_matrix_alloc(&S->cur, S->rows, S->cols, 1, TDCL_U8, err));
    memcpy(S->cur.data, grid->data, (size_t)(S->rows * S->cols));
    /* the plans made empty and written over run dense: every band the same */
    S->o.sparse = TDCL_LIFE_SPARSE_OFF;
    life_shard first = {.begin = 0, .end = S->band < S->rows ? S->band : S->rows};
    int wrap = S->o.boundary == TDCL_LIFE_TORUS;
    first.bot = wrap || S->rows - first.end >= h ? h : S->rows - first.end;
    first.top = wrap ? h : 0;
    TDCL_TRY(sub_grid(S, &S->cur, &first, &sub, err));
    TDCL_TRY(tdcl_life_plan_create(S->s[0].ctx, &S->o, &sub, &plan, err));
    /* every band's plan keeps this one's layout, which the host copies take */
    S->wb = tdcl_life_plan_word_bits(plan);
    if (S->wb) S->o.word_bits = S->wb;
    S->rb = tdcl_life_plan_row_bytes(plan);
    if (!(S->pcur = malloc((size_t)S->rows * S->rb)) ||
        !(S->pnext = malloc((size_t)S->rows * S->rb)))
        TDCL_TRY(tdcl_fail(err, TDCL_ENOMEM, "out of memory for the grid's packed copies"));
    snprintf(S->desc, sizeof S->desc,
             "streamed in %" PRId64 " bands of %" PRId64 " rows through %zu device(s), halo %d: %s",
             S->nb, S->band, S->n, S->halo, tdcl_life_plan_describe(plan));
out:
    tdcl_life_plan_destroy(plan);
    tdcl_matrix_free(&sub);
    return st;
}

tdcl_status tdcl_life_shards_create(tdcl_devset *set, const tdcl_life_opts *o,
                                    const tdcl_matrix *grid, int halo, tdcl_life_shards **out,
                                    tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    *out = NULL;
    if (grid->dtype != TDCL_U8 || grid->channels != 1 || grid->rows < 1 || grid->cols < 1)
        return tdcl_fail(err, TDCL_EINVAL, "a life grid is a non-empty uint8 matrix");
    if (set->n < 1) return tdcl_fail(err, TDCL_ENODEV, "no device in the set");
    if (halo < 0) return tdcl_fail(err, TDCL_EINVAL, "the halo must be >= 0, got %d", halo);
    if ((st = tdcl_life_check(o, err)) != TDCL_OK) return st;
    tdcl_life_shards *S = calloc(1, sizeof *S);
    if (!S) return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    S->set = set;
    S->o = *o;
    S->o.rule = tdcl_life_opts_rule(o);
    S->n = set->n;
    S->rows = grid->rows;
    S->cols = grid->cols;
    for (size_t i = 0; i < S->n; i++)
        S->s[i].ctx = set->ctx[i];
    if (S->n > (size_t)grid->rows) {
        st = tdcl_fail(err, TDCL_EINVAL,
                       "%zu shards for a grid of %" PRId64
                       " rows: each shard needs a row at least; use fewer devices",
                       S->n, grid->rows);
        goto out;
    }
    int64_t fit = rows_that_fit(S), thickest = (S->rows + (int64_t)S->n - 1) / (int64_t)S->n;
    if (thickest + 2 * (int64_t)(halo > 0 ? halo : STREAM_HALO) * (S->n > 1) > fit) {
        TDCL_TRY(stream_setup(S, grid, halo, fit, err));
        goto out;
    }
    S->auto_halo = halo == 0 && S->n > 1;
    if (halo == 0) {
        halo = HALO_FIRST;
        int64_t thinnest = grid->rows / (int64_t)S->n;
        if (halo > thinnest) halo = (int)thinnest;
    }
    TDCL_TRY(build(S, grid, halo, err));
out:
    if (st) {
        tdcl_life_shards_destroy(S);
        return st;
    }
    *out = S;
    return TDCL_OK;
}

/* One round of gens <= halo generations on every shard. */
static tdcl_status round_run(tdcl_life_shards *S, int64_t gens, tdcl_err *err)
{
    S->round_gens = gens;
    tdcl_status st = run_task(S, TASK_STEP, err);
    S->round++;
    return st;
}

/* Streamed: rounds of at most the halo's generations, each over every
 * band, the grids swapped after each. */
static tdcl_status stream_run(tdcl_life_shards *S, int64_t gens, tdcl_err *err)
{
    for (int64_t done = 0; done < gens;) {
        int64_t n = gens - done < S->halo ? gens - done : S->halo;
        S->round_gens = n;
        tdcl_status st = run_task(S, TASK_STREAM, err);
        if (st) return st;
        uint8_t *t = S->pcur;
        S->pcur = S->pnext;
        S->pnext = t;
        if (!S->packed) tdcl_matrix_free(&S->cur); /* the packed copy holds it now */
        S->packed = 1;
        S->round++;
        done += n;
    }
    return TDCL_OK;
}

/* After two rounds of gens generations, the halo's first depth (the
 * second timed whole, round_ms, from the threads' start to their join):
 * the halo K for a row's device time a generation t_row and what a round
 * costs beyond the slowest shard's device time (starting and joining the
 * threads, the copies both ways, the waits), as tdcl_shard_halo weighs
 * them. Rounds of one generation made t_row that of a launch one
 * generation deep, several times a deeper launch's a generation where
 * the kernels block several generations (PoCL's band kernel, 8): the halo
 * came out 11-17 where 64 ran 15-35% faster over two devices of this CPU.
 * The plans are rebuilt only where the new halo saves 5% a generation:
 * the fixed cost measured from one round varied 0.06-4 ms there. */
static tdcl_status choose_halo(tdcl_life_shards *S, double round_ms, int64_t gens, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix g = {0};
    double exch = 0, t_row = 0, slowest = 0;
    int64_t thinnest = INT64_MAX, thickest = 0;
    for (size_t i = 0; i < S->n; i++) {
        const life_shard *sh = &S->s[i];
        int64_t rows = sh->top + (sh->end - sh->begin) + sh->bot;
        if (sh->end - sh->begin > thickest) thickest = sh->end - sh->begin;
        double dev = sh->round_kernel_ms > 0 ? sh->round_kernel_ms : sh->round_compute_ms;
        if (dev > slowest) slowest = dev;
        if (dev / (double)rows / (double)gens > t_row) t_row = dev / (double)rows / (double)gens;
        if (sh->end - sh->begin < thinnest) thinnest = sh->end - sh->begin;
    }
    exch = round_ms > slowest ? round_ms - slowest : 0;
    S->auto_halo = 0;
    int64_t want = tdcl_shard_halo(exch, t_row, thinnest);
    if (!tdcl_shard_halo_worth(exch, t_row, thickest, S->halo, want)) want = S->halo;
    tdcl_log(TDCL_LOG_VERBOSE,
             "shards: a round's fixed cost %.3f ms, a row's generation %.6f ms: halo %" PRId64
             " (%d before)",
             exch, t_row, want, S->halo);
    if (want == S->halo) return TDCL_OK;
    TDCL_TRY(tdcl_life_shards_result(S, &g, err));
    free_plans(S);
    TDCL_TRY(build(S, &g, (int)want, err));
out:
    tdcl_matrix_free(&g);
    return st;
}

tdcl_status tdcl_life_shards_execute(tdcl_life_shards *S, int64_t gens, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    if (gens < 0)
        return tdcl_fail(err, TDCL_EINVAL, "generations must be >= 0, got %" PRId64, gens);
    if (S->stream) return stream_run(S, gens, err);
    if (S->n == 1) return round_run(S, gens, err);
    int64_t done = 0;
    int64_t g = S->halo; /* HALO_FIRST, or the thinnest band */
    if (S->auto_halo && gens > 2 * g) {
        TDCL_TRY(round_run(S, g, err));
        double t0 = tdcl_now_ms();
        TDCL_TRY(round_run(S, g, err));
        done = 2 * g;
        TDCL_TRY(choose_halo(S, tdcl_now_ms() - t0, g, err));
    }
    while (done < gens) {
        int64_t n = gens - done < S->halo ? gens - done : S->halo;
        TDCL_TRY(round_run(S, n, err));
        done += n;
    }
out:
    return st;
}

tdcl_status tdcl_life_shards_population(tdcl_life_shards *S, int64_t *pop, tdcl_err *err)
{
    if (S->stream) {
        tdcl_matrix g = {0};
        tdcl_status st = tdcl_life_shards_result(S, &g, err);
        *pop = st ? 0 : tdcl_life_population(&g);
        tdcl_matrix_free(&g);
        return st;
    }
    tdcl_status st = run_task(S, TASK_POP, err);
    *pop = 0;
    for (size_t i = 0; st == TDCL_OK && i < S->n; i++)
        *pop += S->s[i].pop;
    return st;
}

tdcl_status tdcl_life_shards_result(tdcl_life_shards *S, tdcl_matrix *grid, tdcl_err *err)
{
    tdcl_status st = tdcl_matrix_alloc(grid, S->rows, S->cols, 1, TDCL_U8, err);
    if (st) return st;
    if (S->stream && !S->packed) {
        memcpy(grid->data, S->cur.data, (size_t)(S->rows * S->cols));
        return TDCL_OK;
    }
    S->grid = grid;
    st = run_task(S, S->stream ? TASK_UNPACK : TASK_GATHER, err);
    S->grid = NULL;
    if (st) tdcl_matrix_free(grid);
    return st;
}

void tdcl_life_shards_log(const tdcl_life_shards *S, int timing)
{
    if (S->stream) {
        if (!timing) tdcl_log(TDCL_LOG_VERBOSE, "life: more than the device holds: %s", S->desc);
        for (size_t i = 0; timing && i < S->n; i++)
            tdcl_log(TDCL_LOG_VERBOSE, "device %zu: bands %.3f ms (device %.3f ms)", i,
                     S->s[i].stat.compute_ms, S->s[i].kernel_ms);
        return;
    }
    if (!timing)
        tdcl_log(TDCL_LOG_VERBOSE, "shards: %zu over %" PRId64 " rows, halo %d rows%s", S->n,
                 S->rows, S->halo, S->auto_halo ? " (to be measured)" : "");
    for (size_t i = 0; i < S->n; i++) {
        const life_shard *sh = &S->s[i];
        const tdcl_device_info *d = &sh->ctx->dev;
        if (timing)
            tdcl_log(TDCL_LOG_VERBOSE,
                     "shard %zu: compute %.3f ms (device %.3f ms), exchange %.3f ms", i,
                     sh->stat.compute_ms, sh->kernel_ms, sh->stat.exchange_ms);
        else
            tdcl_log(TDCL_LOG_VERBOSE,
                     "shard %zu: rows %" PRId64 "-%" PRId64 " (%" PRId64 " and %" PRId64
                     " halo) on %u:%u %s",
                     i, sh->begin, sh->end - 1, sh->top, sh->bot, d->pidx, d->didx, d->device_name);
    }
}

const char *tdcl_life_shards_describe(const tdcl_life_shards *S)
{
    return S->desc;
}

int tdcl_life_shards_halo(const tdcl_life_shards *S)
{
    return S->halo;
}

void tdcl_life_shards_kernel_ms(const tdcl_life_shards *S, double *sum, double *max)
{
    *sum = *max = 0;
    for (size_t i = 0; i < S->n; i++) {
        *sum += S->s[i].kernel_ms;
        if (S->s[i].kernel_ms > *max) *max = S->s[i].kernel_ms;
    }
}

void tdcl_life_shards_destroy(tdcl_life_shards *S)
{
    if (!S) return;
    free_plans(S);
    tdcl_matrix_free(&S->cur);
    free(S->pcur);
    free(S->pnext);
    free(S);
}
