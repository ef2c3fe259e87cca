/* toolwire run (placeholder until implemented). */
#include "cli.h"

int tw_cmd_run(int argc, char **argv)
{
    (void)argc, (void)argv;
    fprintf(stderr, "toolwire run: not implemented yet\n");
    return TW_EXIT_USAGE;
}
