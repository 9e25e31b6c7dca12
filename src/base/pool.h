/* The one way the library spreads work over threads (module prefix
 * tdcl_pool_): a fork-join fan-out over an index range. Each piece of work
 * is one index; how the caller splits its work into indices fixes the
 * result, whatever thread runs which index, so results never depend on
 * scheduling (parsers, the Life soup, the matmul host check). */
#ifndef TDCL_POOL_H
#define TDCL_POOL_H

/* The most indices one tdcl_pool_run takes. */
#define TDCL_POOL_MAX 64

/* Runs fn(arg, i) for i in [0, n) (n capped at TDCL_POOL_MAX): i = 0 on
 * the calling thread, the others each on a thread of its own; an index
 * whose thread cannot be started runs on the calling thread after i = 0.
 * Returns after all have finished. */
void tdcl_pool_run(int n, void (*fn)(void *arg, int i), void *arg);

/* How many indices to use: want when > 0 (at most TDCL_POOL_MAX), else
 * the online cores, at most cap (and at least 1). */
int tdcl_pool_size(int want, int cap);

#endif
