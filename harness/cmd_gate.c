/* toolwire gate (placeholder until implemented). */
#include "cli.h"

int tw_cmd_gate(int argc, char **argv)
{
    (void)argc, (void)argv;
    fprintf(stderr, "toolwire gate: not implemented yet\n");
    return TW_EXIT_USAGE;
}
