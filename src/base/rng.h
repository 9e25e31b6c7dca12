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
uint64_t tdcl_rng_at(uint64_t seed, uint64_t k);

#endif
