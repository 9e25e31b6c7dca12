/* The fork-join fan-out (base/pool.h). */
#include "base/pool.h"

#include <pthread.h>
#include <unistd.h>

typedef struct pool_job {
    void (*fn)(void *, int);
    void *arg;
    int i;
} pool_job;

static void *pool_main(void *p)
{
    pool_job *j = p;
    j->fn(j->arg, j->i);
    return NULL;
}

void tdcl_pool_run(int n, void (*fn)(void *arg, int i), void *arg)
{
    pthread_t th[TDCL_POOL_MAX];
    pool_job jobs[TDCL_POOL_MAX];
    int started[TDCL_POOL_MAX] = {0};
    if (n > TDCL_POOL_MAX) n = TDCL_POOL_MAX;
    for (int i = 1; i < n; i++) {
        jobs[i] = (pool_job){fn, arg, i};
        started[i] = pthread_create(&th[i], NULL, pool_main, &jobs[i]) == 0;
    }
    if (n > 0) fn(arg, 0);
    for (int i = 1; i < n; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else
            fn(arg, i);
    }
}

int tdcl_pool_size(int want, int cap)
{
    if (want > 0) return want > TDCL_POOL_MAX ? TDCL_POOL_MAX : want;
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    if (cap > TDCL_POOL_MAX) cap = TDCL_POOL_MAX;
    return c < 1 ? 1 : c > cap ? cap : (int)c;
}
