/* toolwire compare (placeholder until implemented). */
#include "cli.h"

int tw_cmd_compare(int argc, char **argv)
{
    (void)argc, (void)argv;
    fprintf(stderr, "toolwire compare: not implemented yet\n");
    return TW_EXIT_USAGE;
}
