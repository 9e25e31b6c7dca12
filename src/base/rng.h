/* The library's pseudo-random numbers (module prefix tdcl_rng_): the same
 * values for the same seed on every machine, so benchmark inputs, the tune
 * search's order and Life soups can be reproduced. Two forms of one
 * purpose: a stream (xorshift64*) drawn in order, and a counter-based
 * draw (splitmix64) for data drawn in pieces on several threads. */
#ifndef TDCL_RNG_H
#define TDCL_RNG_H

#include <stdint.h>

/* xorshift64*: advances the state *s and returns the next draw. The state
 * must start non-zero (zero stays zero). */
uint64_t tdcl_rng_next(uint64_t *s);

/* A double in [0, 1) from the top 53 bits of one tdcl_rng_next draw. */
double tdcl_rng_unit(uint64_t *s);

/* lo + (hi - lo) * tdcl_rng_unit(s). */
double tdcl_rng_uniform(uint64_t *s, double lo, double hi);

/* splitmix64 as a counter: draw k (from 0) of the stream seeded with seed,
 * mix(seed + (k + 1) * golden gamma), so any range of draws can be made
 * without the ones before it. */
static inline uint64_t tdcl_rng_at(uint64_t seed, uint64_t k)
{
    /* inline: the Life soup's loop over every cell is faster when it sees
     * the arithmetic (an 8192^2 soup: 51 ms against 56-64 with a call per
     * cell, on this 2-core host while the device opened beside it) */
    uint64_t z = seed + (k + 1) * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#endif
