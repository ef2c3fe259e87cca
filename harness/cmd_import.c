/* toolwire import (placeholder until implemented). */
#include "cli.h"

int tw_cmd_import(int argc, char **argv)
{
    (void)argc, (void)argv;
    fprintf(stderr, "toolwire import: not implemented yet\n");
    return TW_EXIT_USAGE;
}
