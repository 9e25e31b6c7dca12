/* The tile plane: the host's index of tiles and the generation loop around
 * cl/life/plane.cl. */
#include "ops/life/life_plane.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/mem.h"
#include "ops/life/life_prog.h"

#define T TDCL_LIFE_TILE
#define SLOTW (T + 1) /* words a slot: the rows, then the rows changed last (plane.cl) */
#define ROW_BYTES (sizeof(uint64_t) * SLOTW)

/* The flag bits of plane.cl: bit k (0..7) live cells in the band facing
 * neighbour k, the same for changed cells from SH_CHANGED and moved ones
 * from SH_MOVED. */
enum { F_ALIVE = 1 << 8, SH_CHANGED = 9, F_CHANGED = 1 << 17, SH_MOVED = 18, F_MOVED = 1 << 26 };

/* Neighbour k (plane.cl's order NW, N, NE, W, E, SW, S, SE) lies at
 * (dx[k], dy[k]) tiles; its band is bit k, and its own band facing back
 * is bit 7 - k. */
static const int dx[8] = {-1, 0, 1, -1, 1, -1, 0, 1};
static const int dy[8] = {-1, -1, -1, 0, 0, 1, 1, 1};

struct tdcl_life_tiles {
    tdcl_ctx *ctx;
    cl_program prog;
    cl_kernel step_k, clear_k;
    int per_item;    /* life_plane_wi: a work-item a tile (CPUs) */
    size_t wg;       /* step_k's work-items a tile */
    size_t clear_wg; /* clear_k's work-items a slot */
    int kmax;        /* the most generations a launch, and the edge flags' band */
    cl_mem buf[2];   /* the pool's two buffers; buf[cur] holds the generation */
    int cur;
    cl_mem act_m, out_m; /* per listed tile: slot and neighbours; flags and count */
    int64_t cap;         /* slots of every per-slot array, host and device */
    int64_t used;        /* slots ever handed out */
    int64_t max_cap;     /* the bound on cap */
    uint64_t max_bytes;
    /* per slot */
    int64_t *tx, *ty;
    uint32_t *flags, *pop, *mark;
    int32_t (*nbr)[8];
    uint8_t *live;
    uint8_t *isnew; /* on the new list: its slot not yet cleared */
    int32_t *free_slots;
    int64_t nfree;
    /* the index: open addressing, linear probing; -1 empty */
    int32_t *table;
    uint64_t hmask;
    int64_t tiles;
    /* the lists: tiles to compute, the next generation's, new slots */
    int32_t *act, *next, *fresh, *act_up;
    uint32_t *out_dl;
    int64_t nact, nnext, nfresh;
    uint32_t stamp;
    int klast; /* the list is for another launch of klast generations; 0: of any length */
    int64_t gen0;
    int64_t bcols, brows; /* a fixed grid [0, bcols) x [0, brows) with a dead edge; 0: unbounded */
    int actw;             /* ints a listed tile: 9, 10 with the bound's word (plane.cl) */
    tdcl_life_tiles_stats st;
};

/* PLANE_K, the generations a launch may advance (TILEDCL_PLANE_K=1..32
 * overrides): each launch costs a command round trip (0.2 ms to several on
 * a loaded PoCL, most of it waking PoCL's threads); a wider K makes wider
 * bands, so more tiles exist and more neighbours are listed. On the 2-core
 * CPU, with the CPU kernel's overlapping words, 100000 generations of
 * constructor-memory-loop took 2.4-2.8 s at 8 and 1.4-1.9 s at 16 (12500
 * and 6250 launches); telegraph 4000 and slide-breeder 5000 took 5-10%
 * more user CPU at 16. */
#define KMAX_CPU 16
#define KMAX_WI 16 /* life_plane_wi's frame words overlap by 2K columns of 64 */
#define KMAX_GPU 32

const char *tdcl_life_tiles_refuses(const tdcl_life_rule *rule)
{
    if (tdcl_life_rule_has_b0(rule))
        return "B0 rules wake every dead cell of the plane, so it cannot be held in tiles";
    if (rule->nbhd != TDCL_LIFE_MOORE) return "the tile plane counts the Moore neighbourhood only";
    return NULL;
}

uint64_t tdcl_life_tiles_bytes(int64_t tiles)
{
    return (uint64_t)tiles * TDCL_LIFE_TILE_BYTES;
}

static uint64_t hash_of(int64_t x, int64_t y)
{
    uint64_t z = (uint64_t)x * 0x9E3779B97F4A7C15u ^ (uint64_t)y;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* The slot of tile (x, y), or -1; *at: where it is or would go. */
static int32_t find(const tdcl_life_tiles *p, int64_t x, int64_t y, uint64_t *at)
{
    uint64_t i = hash_of(x, y) & p->hmask;
    for (;; i = (i + 1) & p->hmask) {
        int32_t s = p->table[i];
        if (s < 0 || (p->tx[s] == x && p->ty[s] == y)) {
            if (at) *at = i;
            return s;
        }
    }
}

static tdcl_status rehash(tdcl_life_tiles *p, uint64_t size, tdcl_err *err)
{
    int32_t *t = malloc(size * sizeof *t);
    if (!t) return tdcl_fail(err, TDCL_ENOMEM, "out of memory for the plane's index");
    memset(t, 0xff, size * sizeof *t);
    free(p->table);
    p->table = t;
    p->hmask = size - 1;
    for (int64_t s = 0; s < p->used; s++) {
        uint64_t at;
        if (p->live[s] && find(p, p->tx[s], p->ty[s], &at) < 0) p->table[at] = (int32_t)s;
    }
    return TDCL_OK;
}

/* Removes slot s from the index (backward-shift deletion, so that probes
 * never need tombstones). */
static void unindex(tdcl_life_tiles *p, int32_t s)
{
    uint64_t i, j;
    find(p, p->tx[s], p->ty[s], &i);
    p->table[i] = -1;
    for (j = (i + 1) & p->hmask; p->table[j] >= 0; j = (j + 1) & p->hmask) {
        int32_t m = p->table[j];
        uint64_t h = hash_of(p->tx[m], p->ty[m]) & p->hmask;
        /* m may move to the hole at i unless its home lies in (i, j] */
        int stays = i <= j ? (h > i && h <= j) : (h > i || h <= j);
        if (stays) continue;
        p->table[i] = m;
        p->table[j] = -1;
        i = j;
    }
}

#define GROW(field, n)                                                                             \
    do {                                                                                           \
        void *q_ = realloc(p->field, (size_t)(n) * sizeof *p->field);                              \
        if (!q_) return tdcl_fail(err, TDCL_ENOMEM, "out of memory for the plane's tiles");        \
        p->field = q_;                                                                             \
    } while (0)

static tdcl_status limit_fail(tdcl_life_tiles *p, int64_t tiles, tdcl_err *err)
{
    char need[32], have[32];
    return tdcl_fail(err, TDCL_ELIMIT,
                     "at generation %" PRId64 " the pattern (population %" PRId64 ") needs %" PRId64
                     " tiles of %d x %d cells, %s of device memory, more than "
                     "the %s allowed",
                     p->gen0 + p->st.generation, p->st.population, tiles, T, T,
                     tdcl_mem_size(tdcl_life_tiles_bytes(tiles), need, sizeof need),
                     tdcl_mem_size(tdcl_life_tiles_bytes(p->max_cap), have, sizeof have));
}

/* Device buffers of cap slots, the pool's contents kept. */
static tdcl_status device_grow(tdcl_life_tiles *p, int64_t old, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_int rc;
    cl_context c = p->ctx->context;
    size_t pool = (size_t)p->cap * ROW_BYTES, list = (size_t)p->cap * sizeof(int32_t);
    for (int b = 0; b < 2; b++) {
        cl_mem m = clCreateBuffer(c, CL_MEM_READ_WRITE, pool, NULL, &rc);
        TDCL_CL_TRY(err, rc, "clCreateBuffer");
        if (p->buf[b] && old)
            rc = clEnqueueCopyBuffer(p->ctx->queue, p->buf[b], m, 0, 0, (size_t)old * ROW_BYTES, 0,
                                     NULL, NULL);
        if (p->buf[b]) clReleaseMemObject(p->buf[b]);
        p->buf[b] = m;
        TDCL_CL_TRY(err, rc, "clEnqueueCopyBuffer");
    }
    cl_mem *lists[] = {&p->act_m, &p->out_m};
    for (int i = 0; i < 2; i++) {
        if (*lists[i]) clReleaseMemObject(*lists[i]);
        *lists[i] =
            clCreateBuffer(c, CL_MEM_READ_WRITE, i ? 2 * list : (size_t)p->actw * list, NULL, &rc);
        TDCL_CL_TRY(err, rc, "clCreateBuffer");
    }
    TDCL_CL_TRY(err, clFinish(p->ctx->queue), "clFinish");
out:
    return st;
}

/* Room for one more slot: host arrays, the index and the device pool. */
static tdcl_status reserve(tdcl_life_tiles *p, int64_t want, int device, tdcl_err *err)
{
    if (2 * (uint64_t)(want + 1) > p->hmask + 1) {
        tdcl_status st = rehash(p, 4 * (p->hmask + 1), err);
        if (st) return st;
    }
    if (want <= p->cap) return TDCL_OK;
    if (want > p->max_cap) return limit_fail(p, want, err);
    int64_t old = p->cap, cap = p->cap * 2 > want ? p->cap * 2 : want;
    if (cap < 64) cap = 64;
    if (cap > p->max_cap) cap = p->max_cap;
    GROW(tx, cap);
    GROW(ty, cap);
    GROW(flags, cap);
    GROW(pop, cap);
    GROW(mark, cap);
    GROW(nbr, cap);
    GROW(live, cap);
    GROW(isnew, cap);
    GROW(free_slots, cap);
    GROW(act, cap);
    GROW(next, cap);
    GROW(fresh, cap);
    GROW(act_up, 10 * cap);
    GROW(out_dl, 2 * cap);
    memset(p->mark + old, 0, (size_t)(cap - old) * sizeof *p->mark);
    memset(p->isnew + old, 0, (size_t)(cap - old) * sizeof *p->isnew);
    p->cap = cap;
    return device ? device_grow(p, old, err) : TDCL_OK;
}

/* A new empty tile at (x, y), linked to its neighbours, listed for the
 * next generation; *out its slot. */
static tdcl_status create(tdcl_life_tiles *p, int64_t x, int64_t y, int device, int32_t *out,
                          tdcl_err *err)
{
    tdcl_status st = reserve(p, p->tiles + 1, device, err);
    if (st) return st;
    if (!p->nfree) { /* fresh slots come from the top; freed ones are reused first */
        if (p->used == p->cap && (st = reserve(p, p->used + 1, device, err))) return st;
        p->free_slots[p->nfree++] = (int32_t)p->used++;
    }
    int32_t s = p->free_slots[--p->nfree];
    uint64_t at;
    find(p, x, y, &at);
    p->table[at] = s;
    p->tx[s] = x;
    p->ty[s] = y;
    p->flags[s] = p->pop[s] = 0;
    p->live[s] = 1;
    for (int k = 0; k < 8; k++) {
        int32_t n = find(p, x + dx[k], y + dy[k], NULL);
        p->nbr[s][k] = n;
        if (n >= 0) p->nbr[n][7 - k] = s;
    }
    p->tiles++;
    if (p->tiles > p->st.peak_tiles) p->st.peak_tiles = p->tiles;
    p->fresh[p->nfresh++] = s;
    p->isnew[s] = 1;
    *out = s;
    return TDCL_OK;
}

static void release(tdcl_life_tiles *p, int32_t s)
{
    unindex(p, s);
    for (int k = 0; k < 8; k++)
        if (p->nbr[s][k] >= 0) p->nbr[p->nbr[s][k]][7 - k] = -1;
    p->live[s] = 0;
    p->free_slots[p->nfree++] = s;
    p->tiles--;
}

/* 1 when tile (x, y) holds cells of the bounded grid. */
static int in_bound(const tdcl_life_tiles *p, int64_t x, int64_t y)
{
    return x >= 0 && y >= 0 && x <= (p->bcols - 1) / T && y <= (p->brows - 1) / T;
}

/* The neighbour k of slot s, created when missing (never beyond the
 * bound). */
static tdcl_status ensure(tdcl_life_tiles *p, int32_t s, int k, int device, tdcl_err *err)
{
    if (p->nbr[s][k] >= 0) return TDCL_OK;
    int64_t x, y;
    if (p->bcols && !in_bound(p, p->tx[s] + dx[k], p->ty[s] + dy[k]))
        return TDCL_OK; /* beyond a dead edge: missing, so dead, for good */
    if (__builtin_add_overflow(p->tx[s], dx[k], &x) ||
        __builtin_add_overflow(p->ty[s], dy[k], &y) || x > INT64_MAX / T || x < INT64_MIN / T ||
        y > INT64_MAX / T || y < INT64_MIN / T)
        return tdcl_fail(err, TDCL_ERANGE,
                         "at generation %" PRId64 " the pattern comes within %d cells of the edge "
                         "of the 64-bit plane (cells are numbered -2^63..2^63-1)",
                         p->gen0 + p->st.generation, p->kmax);
    int32_t n;
    return create(p, x, y, device, &n, err);
}

static void list_next(tdcl_life_tiles *p, int32_t s)
{
    if (p->mark[s] == p->stamp) return;
    p->mark[s] = p->stamp;
    p->next[p->nnext++] = s;
}

/* 1 if a neighbour's live cells touch slot s. */
static int touched(const tdcl_life_tiles *p, int32_t s)
{
    for (int k = 0; k < 8; k++) {
        int32_t n = p->nbr[s][k];
        if (n >= 0 && (p->flags[n] >> (7 - k) & 1)) return 1;
    }
    return 0;
}

/* Slot s onto the next list if its flags have bit any, and each neighbour
 * whose band (bit sh + k) has it too: a change further than K cells away
 * cannot reach a tile within K generations. */
static void list_changes(tdcl_life_tiles *p, int32_t s, uint32_t any, int sh)
{
    if (!(p->flags[s] & any)) return;
    list_next(p, s);
    for (int k = 0; k < 8; k++)
        if ((p->flags[s] >> (sh + k) & 1) && p->nbr[s][k] >= 0) list_next(p, p->nbr[s][k]);
}

/* The next list becomes the list, freed tiles left out. */
static void take_next(tdcl_life_tiles *p)
{
    p->nact = 0;
    for (int64_t i = 0; i < p->nnext; i++)
        if (p->live[p->next[i]]) p->act[p->nact++] = p->next[i];
}

/* After a launch of k generations: the flags taken in, tiles created where
 * live cells come within a launch of a missing neighbour, empty untouched
 * tiles freed, and the list for another launch of k made: the tiles that
 * moved (ended unlike they began), the neighbours their moved cells come
 * within K cells of, and the new ones. A tile left off, and every cell
 * within K of it, were the same after the launch as before, so its next k
 * generations repeat the last (a still life's, or an oscillator's whose
 * period divides k: a blinker's tile is computed no more). */
static tdcl_status after_step(tdcl_life_tiles *p, int k, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    p->stamp++;
    p->nnext = 0;
    for (int64_t i = 0; i < p->nact; i++) {
        int32_t s = p->act[i];
        p->st.population += (int64_t)p->out_dl[2 * i + 1] - (int64_t)p->pop[s];
        p->pop[s] = p->out_dl[2 * i + 1];
        p->flags[s] = p->out_dl[2 * i];
    }
    for (int64_t i = 0; i < p->nact; i++) {
        int32_t s = p->act[i];
        for (int e = 0; e < 8; e++)
            if ((p->flags[s] >> e & 1) && (st = ensure(p, s, e, 1, err))) return st;
        list_changes(p, s, F_MOVED, SH_MOVED);
    }
    for (int64_t i = 0; i < p->nfresh; i++)
        list_next(p, p->fresh[i]);
    for (int64_t i = 0; i < p->nact; i++) {
        int32_t s = p->act[i];
        /* one that died in the last generation stays a launch more: its
         * neighbours' first generation reads its changed rows */
        if (p->live[s] && !(p->flags[s] & (F_ALIVE | F_CHANGED)) && !touched(p, s)) release(p, s);
    }
    take_next(p);
    p->klast = k;
    return st;
}

/* The list for a launch of another length than the last: every tile that
 * changed in its last generation joins it with its neighbours (a change
 * further than a tile away cannot reach a tile within 64 generations). A
 * tile left off the last list repeats with that launch's period, so its
 * flags from when it was last computed still say whether it changes. */
static void relist(tdcl_life_tiles *p)
{
    p->stamp++;
    p->nnext = 0;
    for (int64_t i = 0; i < p->nact; i++)
        list_next(p, p->act[i]);
    for (int32_t s = 0; s < p->used; s++)
        if (p->live[s]) list_changes(p, s, F_CHANGED, SH_CHANGED);
    take_next(p);
    p->klast = 0;
}

static tdcl_status launch(tdcl_life_tiles *p, cl_kernel k, int64_t groups, size_t lws,
                          tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    size_t gws = (size_t)groups * lws;
    TDCL_CL_TRY(err, clEnqueueNDRangeKernel(p->ctx->queue, k, 1, NULL, &gws, &lws, 0, NULL, NULL),
                "clEnqueueNDRangeKernel");
out:
    return st;
}

/* New slots start dead: life_plane_clear zeroes them in the buffer the
 * launch reads (the other is written before it is read). */
static tdcl_status clear_new(tdcl_life_tiles *p, cl_mem cur, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    TDCL_CL_TRY(err,
                clEnqueueWriteBuffer(p->ctx->queue, p->act_m, CL_FALSE, 0, (size_t)p->nfresh * 4,
                                     p->fresh, 0, NULL, NULL),
                "clEnqueueWriteBuffer");
    TDCL_CL_TRY(err, clSetKernelArg(p->clear_k, 0, sizeof cur, &cur), "clSetKernelArg");
    TDCL_CL_TRY(err, clSetKernelArg(p->clear_k, 1, sizeof p->act_m, &p->act_m), "clSetKernelArg");
    TDCL_TRY(launch(p, p->clear_k, p->nfresh, p->clear_wg, err));
out:
    return st;
}

/* a - b clamped to -64..128, plus 64: a byte */
static uint32_t clamp_byte(int64_t a, int64_t b)
{
    int64_t d = a - b; /* a in 0..2^62, b a tile's corner within the grid */
    return (uint32_t)((d < -T ? -T : d > 2 * T ? 2 * T : d) + T);
}

/* The bound's word of slot s (plane.cl): the grid's columns and rows
 * relative to the tile's top-left cell. */
static uint32_t bound_word(const tdcl_life_tiles *p, int32_t s)
{
    int64_t x = p->tx[s] * T, y = p->ty[s] * T;
    return clamp_byte(0, x) | clamp_byte(p->bcols, x) << 8 | clamp_byte(0, y) << 16 |
           clamp_byte(p->brows, y) << 24;
}

/* The list's upload: each listed slot and its neighbours. With inline_new
 * (life_plane_wi, every new slot listed) a new slot comes as -2 - slot
 * (the kernel reads it as dead and clears it) and as -1 to its
 * neighbours, which saves a launch of life_plane_clear. */
static void act_upload(tdcl_life_tiles *p, int inline_new)
{
    for (int64_t i = 0; i < p->nact; i++) {
        int32_t s = p->act[i], *u = p->act_up + p->actw * i;
        u[0] = inline_new && p->isnew[s] ? -2 - s : s;
        for (int k = 0; k < 8; k++) {
            int32_t n = p->nbr[s][k];
            u[1 + k] = inline_new && n >= 0 && p->isnew[n] ? -1 : n;
        }
        if (p->bcols) u[9] = (int32_t)bound_word(p, s);
    }
}

/* Advances the listed tiles gens (1..kmax) generations. */
static tdcl_status step(tdcl_life_tiles *p, int gens, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_command_queue q = p->ctx->queue;
    cl_mem cur = p->buf[p->cur], nxt = p->buf[!p->cur];
    double t0 = tdcl_now_ms();
    int inline_new = 0;
    if (p->nfresh && p->per_item) {
        int64_t listed = 0;
        for (int64_t i = 0; i < p->nact; i++)
            listed += p->isnew[p->act[i]];
        inline_new = listed == p->nfresh;
    }
    if (p->nfresh && !inline_new) TDCL_TRY(clear_new(p, cur, err));
    act_upload(p, inline_new);
    for (int64_t i = 0; i < p->nfresh; i++)
        p->isnew[p->fresh[i]] = 0;
    p->nfresh = 0;
    size_t n = (size_t)p->nact;
    TDCL_CL_TRY(err,
                clEnqueueWriteBuffer(q, p->act_m, CL_FALSE, 0, n * 4 * (size_t)p->actw, p->act_up,
                                     0, NULL, NULL),
                "clEnqueueWriteBuffer");
    cl_mem args[] = {cur, nxt, p->act_m, p->out_m};
    for (cl_uint a = 0; a < 4; a++)
        TDCL_CL_TRY(err, clSetKernelArg(p->step_k, a, sizeof args[a], &args[a]), "clSetKernelArg");
    TDCL_CL_TRY(err, clSetKernelArg(p->step_k, 4, sizeof gens, &gens), "clSetKernelArg");
    TDCL_TRY(launch(p, p->step_k, p->nact, p->wg, err));
    TDCL_CL_TRY(err, clEnqueueReadBuffer(q, p->out_m, CL_TRUE, 0, n * 8, p->out_dl, 0, NULL, NULL),
                "clEnqueueReadBuffer");
    double t1 = tdcl_now_ms();
    p->cur = !p->cur;
    p->st.cell_updates += (double)n * T * T * gens;
    p->st.generation += gens;
    p->st.launches++;
    p->st.tile_launches += (double)n;
    p->st.tiles_held += (double)p->tiles;
    p->st.device_ms += t1 - t0;
    st = after_step(p, gens, err);
    p->st.host_ms += tdcl_now_ms() - t1;
out:
    return st;
}

tdcl_status tdcl_life_tiles_run(tdcl_life_tiles *p, int64_t gens, tdcl_err *err)
{
    for (int64_t g = 0; g < gens;) {
        int k = gens - g < p->kmax ? (int)(gens - g) : p->kmax;
        if (p->klast && k != p->klast) relist(p);
        if (!p->nact) { /* nothing moves over launches of klast; over any, if 0 */
            int64_t skip = p->klast ? (gens - g) / p->klast * p->klast : gens - g;
            p->st.generation += skip;
            g += skip;
            continue;
        }
        tdcl_status st = step(p, k, err);
        if (st) return st;
        g += k;
    }
    return TDCL_OK;
}

/* The bands (bits 0..7, as plane.cl's band_bits) the set cells of v, row
 * r of a tile, lie in: within band cells of each edge and corner. */
static uint32_t band_bits(int r, uint64_t v, int band)
{
    if (!v) return 0;
    uint64_t west = ((uint64_t)1 << band) - 1, east = west << (T - band);
    uint32_t w = (v & west) != 0, e = (v & east) != 0, n = r < band, s = r >= T - band;
    return (n & w) | n << 1 | (n & e) << 2 | w << 3 | e << 4 | (s & w) << 5 | s << 6 | (s & e) << 7;
}

/* The flags and count of a tile's words (alive and its bands only). */
static void tile_flags(const uint64_t *w, int band, uint32_t *flags, uint32_t *pop)
{
    uint32_t f = 0, n = 0;
    for (int r = 0; r < T; r++) {
        f |= w[r] ? F_ALIVE | band_bits(r, w[r], band) : 0;
        n += (uint32_t)__builtin_popcountll(w[r]);
    }
    *flags = f;
    *pop = n;
}

/* The tiles of the cells and their neighbours where cells reach an edge,
 * indexed; the words into *words (the caller's), both buffers uploaded. */
static tdcl_status load(tdcl_life_tiles *p, const tdcl_life_cells *cells, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    uint64_t *words = NULL;
    p->st.population = (int64_t)cells->n; /* for a refusal's message */
    for (size_t i = 0; i < cells->n; i++) {
        int64_t x = cells->xy[2 * i], y = cells->xy[2 * i + 1];
        int64_t tx = x >> 6, ty = y >> 6; /* floor: an arithmetic shift */
        int32_t s = find(p, tx, ty, NULL);
        if (s < 0) TDCL_TRY(create(p, tx, ty, 0, &s, err));
        /* within a launch's reach of an edge: its neighbour must exist */
        uint32_t f = band_bits((int)(y & (T - 1)), (uint64_t)1 << (x & (T - 1)), p->kmax);
        for (int k = 0; k < 8; k++)
            if (f >> k & 1) TDCL_TRY(ensure(p, s, k, 0, err));
    }
    if (!(words = calloc((size_t)p->cap * SLOTW, sizeof *words))) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory for the plane's tiles");
        goto out;
    }
    for (size_t i = 0; i < cells->n; i++) {
        int64_t x = cells->xy[2 * i], y = cells->xy[2 * i + 1];
        int32_t s = find(p, x >> 6, y >> 6, NULL);
        words[(size_t)s * SLOTW + (size_t)(y & (T - 1))] |= (uint64_t)1 << (x & (T - 1));
    }
    p->st.population = 0;
    p->nact = 0;
    for (int64_t s = 0; s < p->used; s++) {
        tile_flags(words + s * SLOTW, p->kmax, &p->flags[s], &p->pop[s]);
        words[s * SLOTW + T] = ~(uint64_t)0; /* unknown: every row computed */
        p->st.population += p->pop[s];
        p->act[p->nact++] = (int32_t)s; /* the first generation computes every tile */
    }
    for (int64_t i = 0; i < p->nfresh; i++) /* uploaded below */
        p->isnew[p->fresh[i]] = 0;
    p->nfresh = 0;
    p->klast = 0;
    TDCL_TRY(device_grow(p, 0, err));
    for (int b = 0; b < 2; b++)
        TDCL_CL_TRY(err,
                    clEnqueueWriteBuffer(p->ctx->queue, p->buf[b], CL_TRUE, 0,
                                         (size_t)p->cap * ROW_BYTES, words, 0, NULL, NULL),
                    "clEnqueueWriteBuffer");
out:
    free(words);
    return st;
}

/* CL_KERNEL_WORK_GROUP_SIZE of k, 0 when it cannot be read. */
static size_t kernel_wg(const tdcl_life_tiles *p, cl_kernel k)
{
    size_t wg = 0;
    if (clGetKernelWorkGroupInfo(k, p->ctx->dev.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg,
                                 NULL) != CL_SUCCESS)
        return 0;
    return wg;
}

static void release_prog(tdcl_life_tiles *p)
{
    if (p->step_k) clReleaseKernel(p->step_k);
    if (p->clear_k) clReleaseKernel(p->clear_k);
    if (p->prog) clReleaseProgram(p->prog);
    p->step_k = p->clear_k = NULL;
    p->prog = NULL;
}

/* The program, life_plane in groups of wg items (0: a frame row each). */
static tdcl_status build_prog(tdcl_life_tiles *p, const tdcl_life_rule *rule, size_t wg,
                              const char *name, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    char opts[160];
    int n = snprintf(opts, sizeof opts, "-DWBITS=64 -DBIRTH=0x%x -DSURVIVE=0x%x -DPLANE_K=%d%s",
                     rule->birth, rule->survive, p->kmax, p->bcols ? " -DPLANE_BOUND" : "");
    if (wg) snprintf(opts + n, sizeof opts - (size_t)n, " -DPLANE_WG=%zu", wg);
    TDCL_TRY(tdcl_life_prog_build(p->ctx, TDCL_LIFE_PROG_PLANE, opts, &p->prog, err));
    TDCL_TRY(tdcl_ctx_kernel(p->prog, name, &p->step_k, err));
    TDCL_TRY(tdcl_ctx_kernel(p->prog, "life_plane_clear", &p->clear_k, err));
    TDCL_TRY(tdcl_kernel_local_check(p->ctx, p->step_k, name, err));
out:
    return st;
}

static tdcl_status build(tdcl_life_tiles *p, const tdcl_life_rule *rule, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    int cpu = (p->ctx->dev.type & CL_DEVICE_TYPE_CPU) != 0;
    const char *env = getenv("TILEDCL_PLANE_K");
    p->kmax = cpu ? KMAX_CPU : KMAX_GPU;
    if (env && atoi(env) >= 1 && atoi(env) <= 32) p->kmax = atoi(env);
    p->per_item = cpu;
    if ((env = getenv("TILEDCL_PLANE_WI"))) p->per_item = atoi(env);
    if (p->per_item && p->kmax > KMAX_WI) p->kmax = KMAX_WI;
    const char *name = p->per_item ? "life_plane_wi" : "life_plane";
    size_t frame = (size_t)(T + 2 * p->kmax);
    p->wg = p->per_item ? 1 : frame;
    TDCL_TRY(build_prog(p, rule, 0, name, err));
    size_t wg = kernel_wg(p, p->step_k);
    if (!p->per_item && wg && wg < frame) {
        /* a kernel's limit can be below the frame (Mesa's llvmpipe: 32) */
        tdcl_log(TDCL_LOG_VERBOSE,
                 "life: life_plane allows work-groups of %zu work-items on '%s', fewer than the "
                 "frame's %zu rows: built for %zu, up to %zu rows an item",
                 wg, p->ctx->dev.device_name, frame, wg, (frame + wg - 1) / wg);
        release_prog(p);
        p->wg = wg;
        TDCL_TRY(build_prog(p, rule, wg, name, err));
        wg = kernel_wg(p, p->step_k);
    }
    if (wg && wg < p->wg) {
        st = tdcl_fail(err, TDCL_ELIMIT,
                       "%s needs work-groups of %zu work-items; the device runs %zu", name, p->wg,
                       wg);
        goto out;
    }
    wg = kernel_wg(p, p->clear_k);
    p->clear_wg = wg && wg < T ? wg : T;
out:
    return st;
}

/* The most slots the device (and max_bytes) allows: each buffer within the
 * largest allocation, all within the memory. */
static int64_t max_slots(const tdcl_device_info *d, uint64_t max_bytes, int actw)
{
    uint64_t slot = TDCL_LIFE_TILE_BYTES + 4 * (uint64_t)(actw - 9); /* the bound's word */
    uint64_t by_alloc = d->max_alloc / ROW_BYTES, by_mem = d->global_mem / slot;
    uint64_t n = by_alloc < by_mem ? by_alloc : by_mem;
    if (max_bytes && max_bytes / slot < n) n = max_bytes / slot;
    return n > INT32_MAX ? INT32_MAX : (int64_t)n;
}

/* A cell of the list outside the bound; 0 when none (or unbounded). */
static int outside(const tdcl_life_tiles *p, const tdcl_life_cells *c, size_t *at)
{
    for (size_t i = 0; p->bcols && i < c->n; i++) {
        int64_t x = c->xy[2 * i], y = c->xy[2 * i + 1];
        if (x < 0 || y < 0 || x >= p->bcols || y >= p->brows) {
            *at = i;
            return 1;
        }
    }
    return 0;
}

tdcl_status tdcl_life_tiles_create(tdcl_ctx *ctx, const tdcl_life_rule *rule, uint64_t max_bytes,
                                   int64_t gen0, const tdcl_life_cells *cells,
                                   tdcl_life_tiles **out, tdcl_err *err)
{
    return tdcl_life_tiles_create_bounded(ctx, rule, max_bytes, gen0, 0, 0, cells, out, err);
}

tdcl_status tdcl_life_tiles_create_bounded(tdcl_ctx *ctx, const tdcl_life_rule *rule,
                                           uint64_t max_bytes, int64_t gen0, int64_t cols,
                                           int64_t rows, const tdcl_life_cells *cells,
                                           tdcl_life_tiles **out, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    const char *why = tdcl_life_tiles_refuses(rule);
    size_t at;
    *out = NULL;
    if (why) return tdcl_fail(err, TDCL_EINVAL, "%s", why);
    if (cols < 0 || rows < 0 || (cols == 0) != (rows == 0) || cols > INT64_MAX / 2 ||
        rows > INT64_MAX / 2)
        return tdcl_fail(err, TDCL_EINVAL,
                         "a bounded tile plane needs 1..2^62 columns and rows, got %" PRId64
                         " x %" PRId64,
                         cols, rows);
    tdcl_life_tiles *p = calloc(1, sizeof *p);
    if (!p) return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    p->ctx = ctx;
    p->gen0 = gen0;
    p->bcols = cols;
    p->brows = rows;
    p->actw = cols ? 10 : 9;
    if (outside(p, cells, &at)) {
        st = tdcl_fail(err, TDCL_EINVAL,
                       "the live cell at %" PRId64 ",%" PRId64 " lies outside the %" PRId64
                       " x %" PRId64 " grid",
                       cells->xy[2 * at], cells->xy[2 * at + 1], cols, rows);
        goto out;
    }
    p->max_bytes = max_bytes;
    p->max_cap = max_slots(&ctx->dev, max_bytes, p->actw);
    TDCL_TRY(rehash(p, 1024, err));
    TDCL_TRY(build(p, rule, err));
    TDCL_TRY(load(p, cells, err));
    *out = p;
    p = NULL;
out:
    tdcl_life_tiles_destroy(p);
    return st;
}

/* The pool's words of slots [0, used), the caller's to free. */
static tdcl_status download(tdcl_life_tiles *p, uint64_t **words, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    size_t bytes = (size_t)(p->used ? p->used : 1) * ROW_BYTES;
    *words = malloc(bytes);
    if (!*words) return tdcl_fail(err, TDCL_ENOMEM, "out of memory for the plane's cells");
    if (p->used)
        TDCL_CL_TRY(err,
                    clEnqueueReadBuffer(p->ctx->queue, p->buf[p->cur], CL_TRUE, 0, bytes, *words, 0,
                                        NULL, NULL),
                    "clEnqueueReadBuffer");
out:
    if (st) {
        free(*words);
        *words = NULL;
    }
    return st;
}

tdcl_status tdcl_life_tiles_cells(tdcl_life_tiles *p, tdcl_life_cells *out, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    uint64_t *w = NULL;
    TDCL_TRY(download(p, &w, err));
    for (int64_t s = 0; s < p->used; s++) {
        if (!p->live[s] || !p->pop[s]) continue;
        for (int r = 0; r < T; r++)
            for (uint64_t v = w[s * SLOTW + r]; v; v &= v - 1)
                TDCL_TRY(tdcl_life_cells_add(out, p->tx[s] * T + __builtin_ctzll(v),
                                             p->ty[s] * T + r, err));
    }
    tdcl_life_cells_sort(out);
out:
    free(w);
    return st;
}

tdcl_status tdcl_life_tiles_window(tdcl_life_tiles *p, int64_t x, int64_t y, int64_t rows,
                                   int64_t cols, tdcl_matrix *out, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    uint64_t *w = NULL;
    TDCL_TRY(tdcl_matrix_alloc(out, rows, cols, 1, TDCL_U8, err));
    TDCL_TRY(download(p, &w, err));
    uint8_t *c = out->data;
    for (int64_t s = 0; s < p->used; s++) {
        if (!p->live[s] || !p->pop[s]) continue;
        /* the tile's cells relative to the window (never past 64 bits:
         * a tile far away is skipped by the test before) */
        int64_t ox, oy;
        if (__builtin_sub_overflow(p->tx[s] * T, x, &ox) ||
            __builtin_sub_overflow(p->ty[s] * T, y, &oy) || ox <= -T || oy <= -T || ox >= cols ||
            oy >= rows)
            continue;
        for (int r = 0; r < T; r++) {
            if (oy + r < 0 || oy + r >= rows) continue;
            for (uint64_t v = w[s * SLOTW + r]; v; v &= v - 1) {
                int64_t cx = ox + __builtin_ctzll(v);
                if (cx >= 0 && cx < cols) c[(oy + r) * cols + cx] = 1;
            }
        }
    }
out:
    free(w);
    if (st) tdcl_matrix_free(out);
    return st;
}

void tdcl_life_tiles_stats_get(const tdcl_life_tiles *p, tdcl_life_tiles_stats *s)
{
    *s = p->st;
    s->launch_gens = p->kmax;
    s->tiles = p->tiles;
    s->active = p->nact;
}

void tdcl_life_tiles_destroy(tdcl_life_tiles *p)
{
    if (!p) return;
    cl_mem m[] = {p->buf[0], p->buf[1], p->act_m, p->out_m};
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (m[i]) clReleaseMemObject(m[i]);
    release_prog(p);
    void *h[] = {p->tx,  p->ty,   p->flags, p->pop,        p->mark,
                 p->nbr, p->live, p->isnew, p->free_slots, p->table,
                 p->act, p->next, p->fresh, p->act_up,     p->out_dl};
    for (size_t i = 0; i < sizeof h / sizeof h[0]; i++)
        free(h[i]);
    free(p);
}
