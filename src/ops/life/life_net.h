/* The last stage of the bits kernels' adder network, a rule's next state
 * from the count of a 3x3 block, as three 3-input operations found by
 * search (cl/life/prelude.cl's NET3).
 *
 * The kernels reduce the block (the cell itself included) to five bit
 * planes: s0, k0, x, y and the cell's state, with the count s0 + 2 (k0 +
 * x) + 4 y. cl/life/prelude.cl's own form of the rule takes up to four 3-input
 * operations from them (four for B3/S23). tdcl_life_net_find tries a few
 * wirings of three gates over those planes, every pair of truth tables
 * for the first two gates, and reads the third's table off the rule; a
 * block of count 0 around a live cell cannot occur, so its row is free. */
#ifndef TDCL_LIFE_NET_H
#define TDCL_LIFE_NET_H

#include <stddef.h>

#include "base/rule.h"
#include "runtime/clrt.h"

/* The planes, as cl/life/prelude.cl numbers them: gate g's inputs are planes
 * 0..4 or the outputs of the gates before it (5: gate 0, 6: gate 1). */
enum { TDCL_NET_S0, TDCL_NET_K0, TDCL_NET_X, TDCL_NET_Y, TDCL_NET_ALIVE, TDCL_NET_G0, TDCL_NET_G1 };

typedef struct tdcl_life_net {
    int in[3][3];      /* gate g's inputs a, b, c */
    unsigned table[3]; /* gate g's truth table, bit 4a + 2b + c (PTX lop3's order) */
} tdcl_life_net;

/* Finds a three-gate network for a Moore rule whose own form takes more
 * than three operations: 1 and *net filled, else 0 (the kernels keep their
 * own form). */
int tdcl_life_net_find(tdcl_life_rule rule, tdcl_life_net *net);

/* The next state by net for planes s0, k0, x, y and alive (0 or 1): what
 * the kernels compute, for the tests. */
int tdcl_life_net_eval(const tdcl_life_net *net, int s0, int k0, int x, int y, int alive);

/* cl/life/prelude.cl's TABLE(mask, s): the rule's own table for count parity s,
 * bit 4 k0 + 2 x + y set where s + 2 (k0 + x) + 4 y is in mask (the
 * LOP3ASM kernels' LUT_* literals). */
unsigned tdcl_life_net_table(unsigned mask, int s);

/* 1 where a kernel on d should take the gates: where each is one
 * instruction (lop3: NVIDIA's inline PTX is in the build) or on a CPU,
 * which compiles them as well as the rule's own form (PoCL: measured the
 * same). NVIDIA's compiler, given them written as logic, makes about twice
 * the instructions. */
int tdcl_life_net_pays(const tdcl_device_info *d, int lop3);

/* Appends the build options that give cl/life/prelude.cl the rule's network
 * (" -DNET3=1 -DN3_A0=k0 ... -DN3_T0=0x...") at buf + *used and returns 1,
 * *used grown by what was written; 0 and nothing written where the rule
 * has no such network or buf no room. */
int tdcl_life_net_opts(tdcl_life_rule rule, char *buf, size_t size, int *used);

#endif
