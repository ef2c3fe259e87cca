/* toolwire serve (placeholder until implemented). */
#include "cli.h"

int tw_cmd_serve(int argc, char **argv)
{
    (void)argc, (void)argv;
    fprintf(stderr, "toolwire serve: not implemented yet\n");
    return TW_EXIT_USAGE;
}
