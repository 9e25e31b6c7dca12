/* A rule's last network stage as three 3-input gates, found by search:
 * see life_net.h. */
#include "ops/life/life_net.h"

#include <stdint.h>
#include <stdio.h>

/* Every assignment of the five planes is one of 32 rows: bit p of the row
 * number is plane p. A plane's (or a gate's) values over the rows are one
 * 32-bit mask. */
enum { NROWS = 32, NPLANES = 5 };

/* The wirings tried, in order (planes 0..4, gate outputs 5 and 6): those
 * with which three gates compute B3/S23, from an exhaustive search over
 * every wiring of three gates (80 networks, these nine wirings). */
static const int wirings[][3][3] = {
    {{TDCL_NET_K0, TDCL_NET_X, TDCL_NET_Y},
     {TDCL_NET_S0, TDCL_NET_Y, TDCL_NET_G0},
     {TDCL_NET_S0, TDCL_NET_ALIVE, TDCL_NET_G1}},
    {{TDCL_NET_K0, TDCL_NET_X, TDCL_NET_Y},
     {TDCL_NET_S0, TDCL_NET_ALIVE, TDCL_NET_G0},
     {TDCL_NET_S0, TDCL_NET_Y, TDCL_NET_G1}},
    {{TDCL_NET_K0, TDCL_NET_X, TDCL_NET_Y},
     {TDCL_NET_S0, TDCL_NET_ALIVE, TDCL_NET_G0},
     {TDCL_NET_Y, TDCL_NET_G0, TDCL_NET_G1}},
    {{TDCL_NET_K0, TDCL_NET_X, TDCL_NET_Y},
     {TDCL_NET_S0, TDCL_NET_Y, TDCL_NET_ALIVE},
     {TDCL_NET_S0, TDCL_NET_G0, TDCL_NET_G1}},
    {{TDCL_NET_K0, TDCL_NET_X, TDCL_NET_Y},
     {TDCL_NET_S0, TDCL_NET_Y, TDCL_NET_G0},
     {TDCL_NET_ALIVE, TDCL_NET_G0, TDCL_NET_G1}},
    {{TDCL_NET_K0, TDCL_NET_X, TDCL_NET_Y},
     {TDCL_NET_Y, TDCL_NET_ALIVE, TDCL_NET_G0},
     {TDCL_NET_S0, TDCL_NET_G0, TDCL_NET_G1}},
    {{TDCL_NET_S0, TDCL_NET_K0, TDCL_NET_Y},
     {TDCL_NET_X, TDCL_NET_Y, TDCL_NET_G0},
     {TDCL_NET_S0, TDCL_NET_ALIVE, TDCL_NET_G1}},
    {{TDCL_NET_S0, TDCL_NET_X, TDCL_NET_Y},
     {TDCL_NET_K0, TDCL_NET_Y, TDCL_NET_G0},
     {TDCL_NET_S0, TDCL_NET_ALIVE, TDCL_NET_G1}},
    {{TDCL_NET_S0, TDCL_NET_Y, TDCL_NET_ALIVE},
     {TDCL_NET_K0, TDCL_NET_X, TDCL_NET_Y},
     {TDCL_NET_S0, TDCL_NET_G0, TDCL_NET_G1}},
};

static int plane_of(int row, int p)
{
    return (row >> p) & 1;
}

/* The gate with truth table t over input masks a, b, c. */
static uint32_t gate(unsigned t, uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t out = 0;
    for (int m = 0; m < 8; m++)
        if ((t >> m) & 1) out |= ((m & 4) ? a : ~a) & ((m & 2) ? b : ~b) & ((m & 1) ? c : ~c);
    return out;
}

/* The rule's next state over the rows, and the rows that can occur. */
static void rule_rows(tdcl_life_rule rule, uint32_t *next, uint32_t *care)
{
    *next = *care = 0;
    for (int r = 0; r < NROWS; r++) {
        const int count = plane_of(r, TDCL_NET_S0) +
                          2 * (plane_of(r, TDCL_NET_K0) + plane_of(r, TDCL_NET_X)) +
                          4 * plane_of(r, TDCL_NET_Y);
        const int alive = plane_of(r, TDCL_NET_ALIVE);
        /* the count takes in the cell itself: a live cell has count - 1
         * neighbours, and a count of 0 around a live cell never occurs
         * (skipped before the shift, which would be by -1) */
        if (alive && count == 0) continue;
        const int on = alive ? (rule.survive >> (count - 1)) & 1 : (rule.birth >> count) & 1;
        *care |= 1u << r;
        *next |= (uint32_t)on << r;
    }
}

unsigned tdcl_life_net_table(unsigned mask, int s)
{
    unsigned t = 0;
    for (int i = 0; i < 8; i++) {
        int n = s + 2 * (((i >> 2) & 1) + ((i >> 1) & 1)) + 4 * (i & 1);
        t |= ((mask >> n) & 1u) << i;
    }
    return t;
}

/* Operations cl/life/prelude.cl's own form (rule_half, rule3) takes for a rule. */
static int own_cost(tdcl_life_rule rule)
{
    const unsigned s9 = (unsigned)rule.survive << 1;
    const unsigned tb[2] = {tdcl_life_net_table(rule.birth, 0), tdcl_life_net_table(rule.birth, 1)};
    const unsigned ts[2] = {tdcl_life_net_table(s9, 0), tdcl_life_net_table(s9, 1)};
    int half[2];
    for (int s = 0; s < 2; s++)
        half[s] = tb[s] == ts[s] ? (tb[s] != 0) : (tb[s] == 0 || ts[s] == 0) ? 2 : 3;
    if (tb[0] == 0 && ts[0] == 0) return half[1] + 1;
    if (tb[1] == 0 && ts[1] == 0) return half[0] + 1;
    return half[0] + half[1] + 1;
}

/* The third gate's table if out, over the rows that can occur, is a
 * function of masks a, b, c: 1 and *t, else 0. */
static int table_of(uint32_t a, uint32_t b, uint32_t c, uint32_t out, uint32_t care, unsigned *t)
{
    *t = 0;
    for (int m = 0; m < 8; m++) {
        const uint32_t rows = ((m & 4) ? a : ~a) & ((m & 2) ? b : ~b) & ((m & 1) ? c : ~c) & care;
        const uint32_t on = rows & out;
        if (on && on != rows) return 0;
        if (on) *t |= 1u << m;
    }
    return 1;
}

/* Tables for wiring w: 1 and net filled, else 0. */
static int try_wiring(const int w[3][3], uint32_t next, uint32_t care, tdcl_life_net *net)
{
    uint32_t sig[NPLANES + 2];
    for (int p = 0; p < NPLANES; p++) {
        sig[p] = 0;
        for (int r = 0; r < NROWS; r++)
            sig[p] |= (uint32_t)plane_of(r, p) << r;
    }
    for (unsigned t0 = 0; t0 < 256; t0++) {
        sig[TDCL_NET_G0] = gate(t0, sig[w[0][0]], sig[w[0][1]], sig[w[0][2]]);
        for (unsigned t1 = 0; t1 < 256; t1++) {
            sig[TDCL_NET_G1] = gate(t1, sig[w[1][0]], sig[w[1][1]], sig[w[1][2]]);
            unsigned t2;
            if (!table_of(sig[w[2][0]], sig[w[2][1]], sig[w[2][2]], next, care, &t2)) continue;
            for (int g = 0; g < 3; g++)
                for (int i = 0; i < 3; i++)
                    net->in[g][i] = w[g][i];
            net->table[0] = t0;
            net->table[1] = t1;
            net->table[2] = t2;
            return 1;
        }
    }
    return 0;
}

int tdcl_life_net_pays(const tdcl_device_info *d, int lop3)
{
    return lop3 || (d->type & CL_DEVICE_TYPE_CPU) != 0;
}

/* The search without the cache below: 1 and *net, else 0. */
static int net_search(tdcl_life_rule rule, tdcl_life_net *net)
{
    if (rule.nbhd != TDCL_LIFE_MOORE || own_cost(rule) <= 3) return 0;
    uint32_t next, care;
    rule_rows(rule, &next, &care);
    for (size_t i = 0; i < sizeof wirings / sizeof wirings[0]; i++)
        if (try_wiring(wirings[i], next, care, net)) return 1;
    return 0;
}

int tdcl_life_net_find(tdcl_life_rule rule, tdcl_life_net *net)
{
    /* A rule without a network costs up to ~15 ms of search, and a run
     * builds a plan per band or device: the last answer is kept, per
     * thread (plans are built on several at once). */
    static _Thread_local struct {
        int valid, found;
        tdcl_life_rule rule;
        tdcl_life_net net;
    } last;
    if (!last.valid || last.rule.birth != rule.birth || last.rule.survive != rule.survive ||
        last.rule.nbhd != rule.nbhd) {
        last.found = net_search(rule, &last.net);
        last.rule = rule;
        last.valid = 1;
    }
    if (last.found) *net = last.net;
    return last.found;
}

int tdcl_life_net_eval(const tdcl_life_net *net, int s0, int k0, int x, int y, int alive)
{
    int v[NPLANES + 2] = {s0 & 1, k0 & 1, x & 1, y & 1, alive & 1, 0, 0};
    for (int g = 0; g < 3; g++) {
        const int m = 4 * v[net->in[g][0]] + 2 * v[net->in[g][1]] + v[net->in[g][2]];
        const int out = (int)((net->table[g] >> m) & 1);
        if (g == 2) return out;
        v[TDCL_NET_G0 + g] = out;
    }
    return 0;
}

int tdcl_life_net_opts(tdcl_life_rule rule, char *buf, size_t size, int *used)
{
    tdcl_life_net net;
    if (*used < 0 || (size_t)*used >= size || !tdcl_life_net_find(rule, &net)) return 0;
    char *at = buf + *used;
    const size_t room = size - (size_t)*used;
    /* gate g's inputs by the names cl/life/prelude.cl's rule3 gives them */
    static const char *const names[] = {"s0", "k0", "x", "y", "alive", "g0", "g1"};
    int n = snprintf(at, room, " -DNET3=1");
    for (int g = 0; g < 3 && n > 0 && (size_t)n < room; g++)
        n += snprintf(at + n, room - (size_t)n,
                      " -DN3_A%d=%s -DN3_B%d=%s -DN3_C%d=%s -DN3_T%d=0x%x", g, names[net.in[g][0]],
                      g, names[net.in[g][1]], g, names[net.in[g][2]], g, net.table[g]);
    if (n <= 0 || (size_t)n >= room) { /* no room: no network rather than half its options */
        *at = '\0';
        return 0;
    }
    *used += n;
    return 1;
}
