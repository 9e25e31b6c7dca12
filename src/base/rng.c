/* xorshift64* and counter-based splitmix64 (base/rng.h). */
#include "base/rng.h"

uint64_t tdcl_rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

double tdcl_rng_unit(uint64_t *s)
{
    return (double)(tdcl_rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

double tdcl_rng_uniform(uint64_t *s, double lo, double hi)
{
    return lo + (hi - lo) * tdcl_rng_unit(s);
}
