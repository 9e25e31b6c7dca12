/* tiledcl bench: not implemented yet (see the issue tracker). */
#include <stdio.h>

#include "cli.h"

int cmd_bench(int argc, char **argv, const cli_globals *g)
{
    (void)argc;
    (void)argv;
    (void)g;
    fprintf(stderr, "tiledcl: bench: not implemented yet\n");
    return 1;
}
