/* toolwire import: vcrpy cassettes and HAR files into fixtures. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "fixture_write.h"
#include "out.h"
#include "import.h"

static void import_help(FILE *f)
{
    fputs("usage: toolwire import --from vcr|har [--expect] [options] FILE...\n"
          "\n"
          "Turn recorded traffic into fixtures (docs/fixtures.md): each FILE becomes one\n"
          "fixture, OUT/PREFIXNAME.json, with one exchange per recorded interaction.\n"
          "Streaming responses (text/event-stream) are split into events; the backend and\n"
          "the decoder that judges each exchange are inferred from the request path; an\n"
          "answer whose content (or /generate text) holds <tool_call><function=...> is a\n"
          "Qwen3-Coder recording: its text becomes model_text, decoded by qwen3-coder.\n"
          "\n"
          "Secrets never reach the output: credential and account headers (authorization,\n"
          "cookie, set-cookie, any name containing token, secret, password, session,\n"
          "auth, key, organization or project) are dropped; JSON fields named like\n"
          "credentials (token, password, pwd, api_key, secret_key, access_key,\n"
          "client_secret, *_token, *_secret, …, camelCase too)\n"
          "at any depth, also inside JSON-encoded strings, and credential query\n"
          "parameters (key, api_key, access_token, …) become [REDACTED]; and every value\n"
          "found in any of them, every bearer token and sk-… key is replaced by\n"
          "[REDACTED] wherever it appears in the file (JSON-escaped, percent-encoded or\n"
          "as HTML/XML character references too), in requests and responses, headers,\n"
          "URLs, bodies and stream events. A streamed tool call's arguments are\n"
          "assembled from their fragments, so a credential split across events is\n"
          "found and removed from every fragment.\n"
          "\n"
          "options:\n"
          "  --from vcr|har          the input format (required)\n"
          "  --redact-header NAME    drop this header too and scrub its value (repeatable)\n"
          "  --redact-field NAME     redact JSON fields and query parameters of this name\n"
          "                          too and scrub their values (repeatable)\n"
          "  --out DIR               where to write (default: .; created if missing)\n"
          "  --name PREFIX           prefix for fixture names and file names\n"
          "  --expect                record what each recorded response shows: expect.result\n"
          "                          is the reference decoder's neutral result for it, and\n"
          "                          expect.failing_checks lists the checks that fail on it\n"
          "                          (reason \"observed when imported: EVIDENCE\"), so that\n"
          "                          `toolwire run --backend NAME=mock:replay` matches\n"
          "  -h, --help              this text\n"
          "\n"
          "Exit status: 0 when every file was imported; 1 when one was read and refused\n"
          "(not a cassette or HAR of the format, an exchange that is not a fixture's; the\n"
          "others are still imported); 2 on bad usage or a file that cannot be read or\n"
          "written (the others are still imported).\n",
          f);
}

enum { O_FROM = 1000, O_REDACT, O_FIELD, O_OUT, O_NAME, O_EXPECT };

int tw_cmd_import(int argc, char **argv)
{
    static const struct option longopts[] = {{"from", required_argument, NULL, O_FROM},
                                             {"redact-header", required_argument, NULL, O_REDACT},
                                             {"redact-field", required_argument, NULL, O_FIELD},
                                             {"out", required_argument, NULL, O_OUT},
                                             {"name", required_argument, NULL, O_NAME},
                                             {"expect", no_argument, NULL, O_EXPECT},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    tw_import_opts o;
    memset(&o, 0, sizeof o);
    bool have_from = false;
    tw_redactor red;
    memset(&red, 0, sizeof red);
    red.publish = true; /* every secret found is scrubbed from every output too */
    int rc = TW_EXIT_OK;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case O_FROM:
            if (strcmp(optarg, "vcr") == 0)
                o.kind = TW_IMPORT_VCR;
            else if (strcmp(optarg, "har") == 0)
                o.kind = TW_IMPORT_HAR;
            else {
                rc = tw_cli_usage_error("import", "--from expects vcr or har, got '%s'", optarg);
                goto out;
            }
            have_from = true;
            break;
        case O_REDACT:
            if (!*optarg || tw_redactor_add_name(&red, optarg) != TW_OK) {
                rc = tw_cli_usage_error("import", "--redact-header needs a header name");
                goto out;
            }
            break;
        case O_FIELD:
            if (!*optarg || tw_redactor_add_field(&red, optarg) != TW_OK) {
                rc = tw_cli_usage_error("import", "--redact-field needs a field name");
                goto out;
            }
            break;
        case O_OUT: o.out_dir = optarg; break;
        case O_NAME: o.name_prefix = optarg; break;
        case O_EXPECT: o.expect = true; break;
        case 'h': import_help(stdout); goto out;
        case ':':
            rc = tw_cli_usage_error("import", "option '%s' needs a value", argv[optind - 1]);
            goto out;
        default: rc = tw_cli_option_error("import", longopts, argv[optind - 1]); goto out;
        }
    }
    if (!have_from) {
        rc = tw_cli_usage_error("import", "--from is required (see --help)");
        goto out;
    }
    if (optind >= argc) {
        rc = tw_cli_usage_error("import", "expected at least one input file");
        goto out;
    }
    if (o.out_dir && *o.out_dir && !tw_mkdirs(o.out_dir)) {
        fprintf(stderr, "toolwire import: cannot create '%s': %s\n", o.out_dir, strerror(errno));
        rc = TW_EXIT_USAGE;
        goto out;
    }
    if (o.out_dir && *o.out_dir)
        tw_clean_stale_temps(o.out_dir);
    for (int i = optind; i < argc; i++) {
        tw_error why = {.offset = -1};
        char *written = NULL;
        size_t nx = 0;
        tw_status st = tw_import_file(argv[i], &o, &red, &written, &nx, &why);
        if (st != TW_OK) {
            fprintf(stderr, "toolwire import: %s\n", why.message);
            /* 2: a file that cannot be read or written; 1: one read and refused */
            int frc = st == TW_ERR_IO || st == TW_ERR_NOMEM ? TW_EXIT_USAGE : TW_EXIT_FAIL;
            rc = rc > frc ? rc : frc;
            continue;
        }
        printf("%s: %zu exchange%s\n", written, nx, nx == 1 ? "" : "s");
        free(written);
    }
    fflush(stdout);
out:
    tw_redactor_free(&red);
    return rc;
}
