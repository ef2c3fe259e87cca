/* toolwire record (placeholder until implemented). */
#include "cli.h"

int tw_cmd_record(int argc, char **argv)
{
    (void)argc, (void)argv;
    fprintf(stderr, "toolwire record: not implemented yet\n");
    return TW_EXIT_USAGE;
}
