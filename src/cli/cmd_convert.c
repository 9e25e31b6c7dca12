/* tiledcl convert: not implemented yet (see the issue tracker). */
#include <stdio.h>

#include "cli.h"

int cmd_convert(int argc, char **argv, const cli_globals *g)
{
    (void)argc;
    (void)argv;
    (void)g;
    fprintf(stderr, "tiledcl: convert: not implemented yet\n");
    return 1;
}
