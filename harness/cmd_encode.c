/* toolwire encode (placeholder until implemented). */
#include "cli.h"

int tw_cmd_encode(int argc, char **argv)
{
    (void)argc, (void)argv;
    fprintf(stderr, "toolwire encode: not implemented yet\n");
    return TW_EXIT_USAGE;
}
