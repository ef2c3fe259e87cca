/* toolwire parse: decode one input with a reference decoder. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "decode_opts.h"

static void parse_help(FILE *f)
{
    fputs("usage: toolwire parse --format F [options] [FILE|-]\n"
          "\n"
          "Decode FILE (or standard input) with the reference decoder of format F and\n"
          "print the neutral result as one JSON object (docs/neutral.md).\n"
          "\n"
          "formats:\n",
          f);
    for (const tw_format_ops *const *p = tw_formats(); *p; p++)
        fprintf(f, "  %-20s %s\n", (*p)->name, (*p)->summary);
    fputs(
        "\n"
        "options:\n"
        "  --format F              the wire format (required)\n"
        "  --chunk N               decode through the streaming decoder in N-byte pieces\n"
        "  --forced-open           the output starts inside a think block\n"
        "  --unterminated P        unterminated think block: synthesize (default) | direct\n"
        "  --finish F              how generation ended: stop (default) | length | stop_sequence\n"
        "  --think-tags T          think | thinking | both (default)\n"
        "  --tools FILE            JSON array of declared tools ({name, description,\n"
        "                          parameters} or {type: \"function\", function: {...}})\n"
        "  --allow-unknown-tool    accept calls to undeclared tools\n"
        "  --schema-warn           keep calls failing the schema, with a warning\n"
        "  --bare-json             a response that is one JSON object with a name is a call\n"
        "  --max-args-bytes N      cap on serialised arguments (default 204800)\n"
        "  --max-calls N           cap on calls per message (default 64)\n"
        "  --max-depth N           cap on JSON nesting (default 64)\n"
        "  --max-input-bytes N     cap on decoded input (default 16M)\n"
        "  --pretty                indent the output\n"
        "  -h, --help              this text\n"
        "\n"
        "Sizes accept K, M and G suffixes. Exit status: 0 when a result was printed (even\n"
        "with refused calls: they are in its errors; parse judges nothing, it never\n"
        "exits 1), 2 on a bad option, unreadable input, a decoder that could not finish\n"
        "(out of memory) or a result that cannot be written.\n",
        f);
}

enum {
    O_FORMAT = 1000,
    O_CHUNK,
    O_FORCED,
    O_UNTERM,
    O_FINISH,
    O_TAGS,
    O_TOOLS,
    O_ALLOW,
    O_SCHEMA_WARN,
    O_BARE,
    O_MAX_ARGS,
    O_MAX_CALLS,
    O_MAX_DEPTH,
    O_MAX_INPUT,
    O_PRETTY
};

/* Read at most cap + 1 bytes: the decoder reports input past its cap. */
/* a name --format takes (for the list of an unknown one) */
static bool is_decoder(const char *name)
{
    return tw_format_find(name) != NULL;
}

static char *read_capped(const char *path, size_t cap, size_t *len, tw_error *err)
{
    return tw_read_file_head(path, cap < (size_t)-2 ? cap + 1 : cap, len, err);
}

int tw_cmd_parse(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, O_FORMAT},
        {"chunk", required_argument, NULL, O_CHUNK},
        {"forced-open", no_argument, NULL, O_FORCED},
        {"unterminated", required_argument, NULL, O_UNTERM},
        {"finish", required_argument, NULL, O_FINISH},
        {"think-tags", required_argument, NULL, O_TAGS},
        {"tools", required_argument, NULL, O_TOOLS},
        {"allow-unknown-tool", no_argument, NULL, O_ALLOW},
        {"schema-warn", no_argument, NULL, O_SCHEMA_WARN},
        {"bare-json", no_argument, NULL, O_BARE},
        {"max-args-bytes", required_argument, NULL, O_MAX_ARGS},
        {"max-calls", required_argument, NULL, O_MAX_CALLS},
        {"max-depth", required_argument, NULL, O_MAX_DEPTH},
        {"max-input-bytes", required_argument, NULL, O_MAX_INPUT},
        {"pretty", no_argument, NULL, O_PRETTY},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    const tw_format_ops *fmt = NULL;
    size_t chunk = 0;
    bool chunked = false, pretty = false;
    const char *tools_path = NULL;
    tw_opts_holder h;
    tw_opts_holder_init(&h);
    int rc = TW_EXIT_OK;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        size_t *lim = NULL;
        switch (c) {
        case O_FORMAT:
            fmt = tw_format_find(optarg);
            if (!fmt) {
                rc = tw_cli_unknown_format("parse", "format", optarg, is_decoder, NULL, 0);
                goto out;
            }
            break;
        case O_CHUNK:
            if (!tw_parse_size(optarg, &chunk) || chunk == 0) {
                rc = tw_cli_usage_error("parse", "--chunk needs a positive size, got '%s'", optarg);
                goto out;
            }
            chunked = true;
            break;
        case O_FORCED: h.o.forced_open = true; break;
        case O_UNTERM:
            if (!tw_parse_unterminated(optarg, &h.o.unterminated)) {
                rc = tw_cli_usage_error(
                    "parse", "--unterminated expects synthesize or direct, got '%s'", optarg);
                goto out;
            }
            break;
        case O_FINISH:
            if (!tw_parse_finish(optarg, &h.o.finish)) {
                rc = tw_cli_usage_error(
                    "parse", "--finish expects stop, length or stop_sequence, got '%s'", optarg);
                goto out;
            }
            break;
        case O_TAGS:
            if (!tw_parse_think_tags(optarg, &h.o.think_tags)) {
                rc = tw_cli_usage_error(
                    "parse", "--think-tags expects think, thinking or both, got '%s'", optarg);
                goto out;
            }
            break;
        case O_TOOLS: tools_path = optarg; break;
        case O_ALLOW: h.o.allow_unknown_tool = true; break;
        case O_SCHEMA_WARN: h.o.schema_warn = true; break;
        case O_BARE: h.o.bare_json = true; break;
        case O_MAX_ARGS: lim = &h.o.limits.max_args_bytes; break;
        case O_MAX_CALLS: lim = &h.o.limits.max_calls; break;
        case O_MAX_DEPTH: lim = &h.o.limits.max_depth; break;
        case O_MAX_INPUT: lim = &h.o.limits.max_input_bytes; break;
        case O_PRETTY: pretty = true; break;
        case 'h': parse_help(stdout); goto out;
        case ':':
            rc = tw_cli_usage_error("parse", "option '%s' needs a value", argv[optind - 1]);
            goto out;
        default: rc = tw_cli_option_error("parse", longopts, argv[optind - 1]); goto out;
        }
        if (lim) {
            if (!tw_parse_size(optarg, lim) || *lim == 0) {
                rc = tw_cli_usage_error("parse", "'%s' needs a positive size, got '%s'",
                                        argv[optind - 2 >= 0 ? optind - 2 : 0], optarg);
                goto out;
            }
            if (lim == &h.o.limits.max_depth && *lim > TW_DEPTH_HARD_MAX) {
                rc = tw_cli_usage_error("parse", "--max-depth is at most %u", TW_DEPTH_HARD_MAX);
                goto out;
            }
        }
    }
    if (!fmt) {
        rc = tw_cli_usage_error("parse", "--format is required (see --help)");
        goto out;
    }
    if (argc - optind > 1) {
        rc = tw_cli_usage_error("parse", "expected one input file, got %d", argc - optind);
        goto out;
    }
    tw_error why = {.offset = -1};
    if (tools_path) {
        cJSON *tj = tw_load_json_file(tools_path, (size_t)16 << 20, 256, &why);
        if (!tj) {
            rc = tw_cli_usage_error("parse", "--tools: %s", why.message);
            goto out;
        }
        tw_tool *t = NULL;
        size_t n = 0;
        tw_error te;
        tw_status st = tw_tools_read(tj, &h.o.limits, &t, &n, &te);
        cJSON_Delete(tj);
        if (st != TW_OK) {
            rc = tw_cli_usage_error("parse", "--tools %s: %s", tools_path, te.message);
            goto out;
        }
        tw_opts_set_tools(&h, t, n);
    }
    tw_limits lim;
    tw_limits_resolve(&lim, &h.o.limits);
    const char *path = optind < argc ? argv[optind] : "-";
    size_t len = 0;
    char *input = read_capped(path, lim.max_input_bytes, &len, &why);
    if (!input) {
        rc = tw_cli_usage_error("parse", "%s", why.message);
        goto out;
    }
    tw_result res;
    tw_status st = chunked ? tw_decode_chunked(fmt, input, len, chunk, &h.o, &res)
                           : fmt->decode(input, len, &h.o, &res);
    free(input);
    if (st != TW_OK) {
        fprintf(stderr, "toolwire parse: decoding failed: %s\n", tw_code_message(st));
        rc = TW_EXIT_USAGE;
        goto out;
    }
    tw_buf out = {0};
    st = tw_result_write(&out, &res, pretty ? TW_JSON_PRETTY : TW_JSON_COMPACT);
    tw_result_free(&res);
    if (st == TW_OK)
        st = tw_buf_putc(&out, '\n');
    if (st != TW_OK || !tw_write_all(stdout, out.data, out.len)) {
        fprintf(stderr, "toolwire parse: cannot write the result\n");
        rc = TW_EXIT_USAGE;
    }
    tw_buf_free(&out);
out:
    tw_opts_holder_free(&h);
    return rc;
}
