/* The toolwire program: subcommand dispatch. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "out.h"

typedef struct cmd {
    const char *name;
    tw_cmd_fn fn;
    const char *summary;
} cmd;

static const cmd commands[] = {
    {"main", tw_cmd_main, "the main job: check every fixture, write reports/latest/"},
    {"parse", tw_cmd_parse, "decode one input with a reference decoder, print the neutral result"},
    {"encode", tw_cmd_encode, "encode a neutral request or result into a wire format"},
    {"convert", tw_cmd_convert, "convert a request or response between wire formats"},
    {"run", tw_cmd_run, "replay fixtures against backends, write conformance reports"},
    {"serve", tw_cmd_serve, "serve fixtures from the embedded mock backend"},
    {"record", tw_cmd_record, "capture live exchanges as fixtures (secrets redacted)"},
    {"import", tw_cmd_import, "turn vcrpy cassettes or HAR files into fixtures"},
    {"compare", tw_cmd_compare, "put several reports side by side"},
    {"gate", tw_cmd_gate, "exit 1 when a report regresses against a baseline"},
    {"merge", tw_cmd_merge, "join the reports of a sharded run (run --shard K/N)"},
    {"clients", tw_cmd_clients, "judge client libraries through their drivers, write reports"},
    {"parsers", tw_cmd_parsers, "judge model-output parsers through their drivers, write reports"},
    {"parser-driver", tw_cmd_parser_driver,
     "the parser driver protocol spoken with toolwire's own decoders"},
};

static void usage(FILE *f)
{
    fputs("usage: toolwire COMMAND [options]\n\ncommands:\n", f);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-13s %s\n", commands[i].name, commands[i].summary);
    fputs("\n'toolwire COMMAND --help' describes each command.\n", f);
}

int main(int argc, char **argv)
{
    /* every byte written from here on is redacted (out.h) */
    tw_out_stdio_install();
    if (argc < 2) {
        usage(stderr);
        return TW_EXIT_USAGE;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return TW_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("toolwire %s\n", TOOLWIRE_VERSION);
        return TW_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "toolwire: unknown command '%s' (see toolwire --help)\n", argv[1]);
    return TW_EXIT_USAGE;
}
