/* tiledcl matmul: not implemented yet (see the issue tracker). */
#include <stdio.h>

#include "cli.h"

int cmd_matmul(int argc, char **argv, const cli_globals *g)
{
    (void)argc;
    (void)argv;
    (void)g;
    fprintf(stderr, "tiledcl: matmul: not implemented yet\n");
    return 1;
}
