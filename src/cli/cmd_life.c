/* tiledcl life: not implemented yet (see the issue tracker). */
#include <stdio.h>

#include "cli.h"

int cmd_life(int argc, char **argv, const cli_globals *g)
{
    (void)argc;
    (void)argv;
    (void)g;
    fprintf(stderr, "tiledcl: life: not implemented yet\n");
    return 1;
}
