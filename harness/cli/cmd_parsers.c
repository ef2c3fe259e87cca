/* toolwire parsers: judge model-output parsers through their drivers; toolwire parser-driver:
 * toolwire's own. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "parsers.h"

static const char parsers_help[] =
    "usage: toolwire parsers --parser NAME=CMD … [--dialect D …] [--fixtures DIR]\n"
    "                        [--out DIR] [--timeout S] [--max-output SIZE]\n"
    "                        [--expected FILE …] [--seed N] [--quiet]\n"
    "\n"
    "Judge the parsers that turn model text into tool calls inside a server\n"
    "(llama.cpp's chat parser, vLLM's tool parsers, …) through parser drivers\n"
    "(docs/parsers.md). Each driver is asked --describe (the parser, its version,\n"
    "the dialects it reads); then every decode fixture of those dialects (FIXTURE\n"
    "under --fixtures) runs through it twice: FIXTURE [whole], the text in one\n"
    "piece, and FIXTURE [stream], the text in pieces of 1-8 bytes (seeded, cut\n"
    "inside special tokens on purpose). The parser checks PRS-01..PRS-08 judge\n"
    "what it read against the dialect's reference decoder: calls, names,\n"
    "arguments (as JSON values), content, reasoning, a throw; streamed, nothing\n"
    "retracted and the final message the one-piece one; a crash, a hang or bad\n"
    "output. A fixture whose options are toolwire's own (max_calls, finish, …),\n"
    "or whose input is not UTF-8, is skipped. Reports under --out: <name>.json,\n"
    ".md, .junit.xml, .html and comparison.md/.html.\n"
    "\n"
    "  --parser NAME=CMD     a driver: /bin/sh -c 'exec CMD \"$@\"' runs it with\n"
    "                        --describe, then once per fixture and mode with\n"
    "                        --parse (repeatable, at most 32; required)\n"
    "  --dialect D           only the dialect D (repeatable; it selects, the order\n"
    "                        is the fixtures' sorted paths), one of the text\n"
    "                        decoders: %DIALECTS%\n"
    "  --fixtures DIR        the decode fixtures, a directory or one file\n"
    "                        (default tests/data/decode)\n"
    "  --out DIR             report directory (default reports/parsers), created\n"
    "                        and checked before any driver runs\n"
    "  --timeout S           one driver run, in seconds; killed past it (default 10)\n"
    "  --max-output SIZE     cap on a driver's stdout; killed past it (default 8M)\n"
    "  --expected FILE       the expected differences of a parser (JSON, its\n"
    "                        \"parser\" a NAME or the described parser; repeatable):\n"
    "                        failing checks it declares are counted apart\n"
    "  --seed N              the pieces' generator (default 1)\n"
    "  --quiet               no summary lines and no progress (findings are still\n"
    "                        listed)\n"
    "\n"
    "Each parser's summary line is followed by its findings and then its expected\n"
    "differences, at most 50 each. Progress on stderr: a line as a parser ends\n"
    "the fixtures of a dialect:\n"
    "  toolwire parsers: NAME hermes: 180 rows (54 skipped), 0 findings, 4.1 s\n"
    "\n"
    "Exit status: 0 when every parser passes every check (expected differences\n"
    "allowed), 1 when a check fails or a driver fails on a row, 2 when a parser\n"
    "could not be judged: bad usage, a --describe that fails or breaks the\n"
    "protocol, an unknown --dialect, no fixture selected for a parser, an\n"
    "--expected file that does not read, an --out that cannot be created or\n"
    "written into, a report that cannot be written.";

enum { O_DIALECT = 256, O_FIXTURES, O_TO, O_MAXO, O_EXPECTED, O_SEED };

/* The help text with %DIALECTS% written as the table's text decoders. */
static void print_help(void)
{
    const char *mark = strstr(parsers_help, "%DIALECTS%");
    size_t n;
    const char *const *d = tw_parser_dialects(&n);
    fwrite(parsers_help, 1, (size_t)(mark - parsers_help), stdout);
    size_t col = 32;
    for (size_t i = 0; i < n; i++) {
        size_t w = strlen(d[i]) + 2;
        if (i && col + w > 78) {
            fputs(",\n                        ", stdout);
            col = 24;
        } else if (i) {
            fputs(", ", stdout);
        }
        fputs(d[i], stdout);
        col += w;
    }
    puts(mark + strlen("%DIALECTS%"));
}

int tw_cmd_parsers(int argc, char **argv)
{
    static const struct option longopts[] = {{"parser", required_argument, NULL, 'p'},
                                             {"dialect", required_argument, NULL, O_DIALECT},
                                             {"fixtures", required_argument, NULL, O_FIXTURES},
                                             {"out", required_argument, NULL, 'o'},
                                             {"timeout", required_argument, NULL, O_TO},
                                             {"max-output", required_argument, NULL, O_MAXO},
                                             {"expected", required_argument, NULL, O_EXPECTED},
                                             {"seed", required_argument, NULL, O_SEED},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    tw_parser_spec specs[TW_PARSERS_MAX];
    char *stores[TW_PARSERS_MAX];
    const char *dialects[64], *expected[TW_PARSERS_MAX];
    size_t np = 0;
    tw_parsers_opts o;
    memset(&o, 0, sizeof o);
    o.out = stdout;
    o.seed = 1;
    const char *outdir = "reports/parsers";
    int rc = -1, c;
    long v;
    optind = 1;
    opterr = 0;
    while (rc < 0 && (c = getopt_long(argc, argv, "p:o:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'p':
            if (np == TW_PARSERS_MAX)
                rc = tw_cli_usage_error("parsers", "at most %d parsers", TW_PARSERS_MAX);
            else if ((rc = tw_cli_name_cmd("parsers", "parser", "parser", optarg, stores, np,
                                           &specs[np].name, &specs[np].cmd)) < 0 ||
                     stores[np])
                np++;
            break;
        case O_DIALECT:
            if (o.ndialects == sizeof dialects / sizeof dialects[0])
                rc = tw_cli_usage_error("parsers", "at most 64 --dialect");
            else
                dialects[o.ndialects++] = optarg;
            break;
        case O_EXPECTED:
            if (o.nexpected == TW_PARSERS_MAX)
                rc = tw_cli_usage_error("parsers", "at most %d --expected", TW_PARSERS_MAX);
            else
                expected[o.nexpected++] = optarg;
            break;
        case O_FIXTURES: o.fixtures = optarg; break;
        case 'o': outdir = optarg; break;
        case 'q': o.quiet = true; break;
        case O_TO:
            if (!tw_cli_parse_long(optarg, 1, 86400, &v))
                rc = tw_cli_usage_error("parsers", "--timeout wants seconds (1-86400), got '%s'",
                                        optarg);
            else
                o.timeout_ms = v * 1000;
            break;
        case O_MAXO:
            if (!tw_parse_size(optarg, &o.max_out) || !o.max_out)
                rc = tw_cli_usage_error("parsers", "bad --max-output '%s'", optarg);
            break;
        case O_SEED:
            if (!tw_cli_parse_long(optarg, 0, 2147483647L, &v))
                rc = tw_cli_usage_error("parsers", "--seed wants 0-2147483647, got '%s'", optarg);
            else
                o.seed = (uint64_t)v;
            break;
        case 'h':
            print_help();
            rc = TW_EXIT_OK;
            break;
        default: rc = tw_cli_option_error("parsers", longopts, argv[optind - 1]);
        }
    }
    if (rc < 0 && optind < argc)
        rc = tw_cli_usage_error("parsers", "unexpected argument '%s' (see --help)", argv[optind]);
    if (rc < 0 && np == 0)
        rc = tw_cli_usage_error("parsers", "give at least one --parser NAME=CMD (see --help)");
    if (rc < 0) {
        o.dialects = dialects;
        o.expected = expected;
        rc = tw_parsers_run_all(specs, np, outdir, &o);
    }
    for (size_t i = 0; i < np; i++)
        free(stores[i]);
    return rc;
}

int tw_cmd_parser_driver(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        puts("usage: toolwire parser-driver --describe | --parse\n"
             "\n"
             "The parser driver protocol (docs/parsers.md) spoken with toolwire's own\n"
             "reference decoders: --describe names every text decoder as a dialect;\n"
             "--parse reads one request on stdin, feeds its pieces to the dialect's push\n"
             "decoder and prints the message after each piece, then the final one.\n"
             "Give it to toolwire parsers: --parser toolwire=\"toolwire parser-driver\".\n"
             "\n"
             "Exit status: 0, or 2 on a bad request or one over a cap (the reason on\n"
             "stderr).");
        return TW_EXIT_OK;
    }
    if (argc != 2)
        return tw_cli_usage_error("parser-driver", "give --describe or --parse (see --help)");
    return tw_parser_driver(argv[1], stdin, stdout, stderr, NULL);
}
