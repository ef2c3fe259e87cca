/* toolwire convert (placeholder until implemented). */
#include "cli.h"

int tw_cmd_convert(int argc, char **argv)
{
    (void)argc, (void)argv;
    fprintf(stderr, "toolwire convert: not implemented yet\n");
    return TW_EXIT_USAGE;
}
