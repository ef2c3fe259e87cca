/* toolwire convert: one wire format to another through the neutral model. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "decode_opts.h"
#include "toolwire/encode.h"
#include "toolwire/registry.h"
#include "toolwire/transcode.h"

static void convert_help(FILE *f)
{
    fputs("usage: toolwire convert --from F --to G [options] [FILE|-]\n"
          "\n"
          "Read FILE (or standard input) in format F, convert it through the neutral\n"
          "model and write it in format G (docs/cli-encode.md).\n"
          "\n"
          "sources (--from):\n",
          f);
    /* the request readers, from the registry */
    size_t nm = 0;
    const tw_module *mods = tw_modules(&nm);
    for (size_t i = 0; i < nm; i++)
        if (mods[i].kind == TW_MODULE_REQUEST_READER)
            fprintf(f, "  %-24s %s\n", mods[i].name, mods[i].reader->summary);
    fputs("  neutral-request          neutral request JSON\n"
          "  neutral-result           neutral result JSON\n"
          "  neutral                  neutral JSON, request or result by its keys\n",
          f);
    for (const tw_format_ops *const *p = tw_formats(); *p; p++)
        fprintf(f, "  %-24s %s (decoded to a result)\n", (*p)->name, (*p)->summary);
    fputs("\ntargets (--to):\n"
          "  neutral                  neutral JSON (request or result, as read)\n",
          f);
    for (const tw_encoder_ops *const *p = tw_encoders(); *p; p++)
        fprintf(f, "  %-24s %s (takes a %s)\n", (*p)->name, (*p)->summary,
                (*p)->input == TW_ENC_REQUEST ? "request" : "result");
    fputs("\n"
          "options:\n"
          "  --from F, --to G           source and target formats (required)\n"
          "  --model M, --id ID, --created N, --args-fragment N, --text-fragment N,\n"
          "  --usage, --omit-done, --partial-args, --parallel-tool-calls true|false\n"
          "                             encoder options, as for toolwire encode\n"
          "  --max-input-bytes N        cap on the input (default 16M)\n"
          "  --max-output-bytes N       cap on the output (default 64M)\n"
          "  --max-args-bytes N         cap on one call's arguments or <tool_call> block read\n"
          "                             from a request body or prompt (default 204800)\n"
          "  --max-messages N           cap on the messages of a request read (default 4096)\n"
          "  --max-depth N              cap on JSON nesting (default 64, at most 1000)\n"
          "  --tools FILE               JSON array of declared tools ({name, description,\n"
          "                             parameters} or {type: \"function\", function: {...}}),\n"
          "                             for a decoder source, as for toolwire parse\n"
          "  --allow-unknown-tool, --schema-warn, --bare-json, --forced-open,\n"
          "  --unterminated P, --finish F, --think-tags T\n"
          "                             decoder options for a decoder source, as for\n"
          "                             toolwire parse\n"
          "  --pretty                   indent neutral JSON output\n"
          "  -h, --help                 this text\n"
          "\n"
          "Numbers keep their input spelling (a Python-rendered prompt prints them as\n"
          "Python's json does and warns number_inexact where that changes a value).\n"
          "What the target cannot carry is reported on standard error, one line per\n"
          "warning; a decoded result's own errors and warnings are reported the same way\n"
          "when the target is a wire format. A neutral source with a top-level key the\n"
          "neutral model does not have is refused (FILE:LINE:COL, the keys expected).\n"
          "Exit status: 0 when the output was written,\n"
          "1 when reading or writing failed (a decoder or encoder not implemented, an\n"
          "invalid body, a request given to a result encoder) or when a decoder source\n"
          "reported errors (a truncated stream, a body that is not JSON, a refused call:\n"
          "the output is still written, with the errors on standard error or, for a\n"
          "neutral target, in the output), 2 on a bad option, unreadable input, input\n"
          "that is not JSON where JSON is read, or output that cannot be written.\n",
          f);
}

enum {
    O_FROM = 1000,
    O_TO,
    O_PRETTY,
    O_TOOLS,
    O_ALLOW,
    O_SCHEMA_WARN,
    O_BARE,
    O_FORCED,
    O_UNTERM,
    O_FINISH,
    O_TAGS,
    O_ARGS, /* --max-args-bytes */
    O_MSGS  /* --max-messages */
};

/* Load --tools FILE into h, as `parse` does; TW_EXIT_OK or a usage error. */
/* the names --from and --to take besides the registry's modules */
static const char *const neutral_names[] = {"neutral", "neutral-request", "neutral-result"};

static int load_tools(const char *path, tw_opts_holder *h)
{
    tw_error why = {.offset = -1};
    cJSON *tj = tw_load_json_file(path, (size_t)16 << 20, 256, &why);
    if (!tj)
        return tw_cli_usage_error("convert", "--tools: %s", why.message);
    tw_tool *t = NULL;
    size_t n = 0;
    tw_error te;
    tw_error_clear(&te);
    tw_status st = tw_tools_read(tj, &h->o.limits, &t, &n, &te);
    cJSON_Delete(tj);
    if (st != TW_OK)
        return tw_cli_usage_error("convert", "--tools %s: %s", path, te.message);
    tw_opts_set_tools(h, t, n);
    return TW_EXIT_OK;
}

int tw_cmd_convert(int argc, char **argv)
{
    static const struct option longopts[] = {{"from", required_argument, NULL, O_FROM},
                                             {"to", required_argument, NULL, O_TO},
                                             TW_ENC_LONGOPTS,
                                             {"max-args-bytes", required_argument, NULL, O_ARGS},
                                             {"max-messages", required_argument, NULL, O_MSGS},
                                             {"pretty", no_argument, NULL, O_PRETTY},
                                             {"tools", required_argument, NULL, O_TOOLS},
                                             {"allow-unknown-tool", no_argument, NULL, O_ALLOW},
                                             {"schema-warn", no_argument, NULL, O_SCHEMA_WARN},
                                             {"bare-json", no_argument, NULL, O_BARE},
                                             {"forced-open", no_argument, NULL, O_FORCED},
                                             {"unterminated", required_argument, NULL, O_UNTERM},
                                             {"finish", required_argument, NULL, O_FINISH},
                                             {"think-tags", required_argument, NULL, O_TAGS},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const char *from = NULL, *to = NULL, *tools_path = NULL;
    const char *dec_opt = NULL; /* the first decoder option given, for the message below */
    bool pretty = false;
    /* the decoder options; tools are loaded into it after the options */
    tw_opts_holder h;
    tw_opts_holder_init(&h);
    tw_diag_list warnings = {0};
    tw_encode_opts o;
    tw_cli_encode_opts_init(&o, &warnings);
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case O_FROM:
            if (!tw_transcode_is_source(optarg))
                return tw_cli_unknown_format("convert", "source format", optarg,
                                             tw_transcode_is_source, neutral_names, 3);
            from = optarg;
            break;
        case O_TO:
            if (!tw_transcode_is_target(optarg))
                return tw_cli_unknown_format("convert", "target format", optarg,
                                             tw_transcode_is_target, neutral_names, 3);
            to = optarg;
            break;
        case O_PRETTY: pretty = true; break;
        case O_ARGS:
        case O_MSGS: { /* the caps of the request readers */
            size_t n = 0;
            if (!tw_parse_size(optarg, &n) || n == 0)
                return tw_cli_usage_error("convert", "'%s' needs a positive %s, got '%s'",
                                          argv[optind - 2 >= 0 ? optind - 2 : 0],
                                          c == O_ARGS ? "size" : "count", optarg);
            *(c == O_ARGS ? &o.limits.max_args_bytes : &o.limits.max_messages) = n;
            break;
        }
        case O_TOOLS:
            tools_path = optarg;
            dec_opt = "--tools";
            break;
        case O_ALLOW:
            h.o.allow_unknown_tool = true;
            dec_opt = "--allow-unknown-tool";
            break;
        case O_SCHEMA_WARN:
            h.o.schema_warn = true;
            dec_opt = "--schema-warn";
            break;
        case O_BARE:
            h.o.bare_json = true;
            dec_opt = "--bare-json";
            break;
        case O_FORCED:
            h.o.forced_open = true;
            dec_opt = "--forced-open";
            break;
        case O_UNTERM:
            if (!tw_parse_unterminated(optarg, &h.o.unterminated))
                return tw_cli_usage_error(
                    "convert", "--unterminated expects synthesize or direct, got '%s'", optarg);
            dec_opt = "--unterminated";
            break;
        case O_FINISH:
            if (!tw_parse_finish(optarg, &h.o.finish))
                return tw_cli_usage_error(
                    "convert", "--finish expects stop, length or stop_sequence, got '%s'", optarg);
            dec_opt = "--finish";
            break;
        case O_TAGS:
            if (!tw_parse_think_tags(optarg, &h.o.think_tags))
                return tw_cli_usage_error(
                    "convert", "--think-tags expects think, thinking or both, got '%s'", optarg);
            dec_opt = "--think-tags";
            break;
        case 'h': convert_help(stdout); return TW_EXIT_OK;
        default: {
            int rc = tw_cli_encode_opt("convert", c, argv, &o);
            if (rc != TW_EXIT_OK)
                return rc;
            break;
        }
        }
    }
    if (!from || !to)
        return tw_cli_usage_error("convert", "--from and --to are required (see --help)");
    /* a decoder source (not a request reader, not neutral JSON) */
    bool decoded =
        tw_format_find(from) && !tw_request_reader_find(from) && strncmp(from, "neutral", 7) != 0;
    if (dec_opt && !decoded)
        return tw_cli_usage_error("convert",
                                  "%s applies to a decoder source; %s is read as a request "
                                  "or as neutral JSON (see --help)",
                                  dec_opt, from);
    tw_limits lim;
    tw_limits_resolve(&lim, &o.limits);
    const char *path;
    size_t len;
    int rc;
    h.o.limits = o.limits;
    if (tools_path && (rc = load_tools(tools_path, &h)) != TW_EXIT_OK) {
        tw_opts_holder_free(&h);
        return rc;
    }
    char *input = tw_cli_read_operand("convert", argc, argv, lim.max_input_bytes, &path, &len, &rc);
    if (!input) {
        tw_opts_holder_free(&h);
        return rc;
    }
    tw_error why = {.offset = -1};
    tw_decode_opts d = h.o;
    /* neutral sources: a key the neutral model does not have means the input
     * is something else (a wrapper, another format), not an empty message */
    if (strncmp(from, "neutral", 7) == 0) {
        cJSON *j = NULL;
        tw_limits lim2;
        tw_limits_resolve(&lim2, &o.limits);
        if (tw_json_parse(input, len, lim2.max_depth, &j, NULL) == TW_OK) {
            char want = strcmp(from, "neutral-request") == 0  ? 'q'
                        : strcmp(from, "neutral-result") == 0 ? 'r'
                                                              : 'n';
            bool shaped = tw_cli_neutral_shape(j, want, input, len, path, &why);
            cJSON_Delete(j);
            if (!shaped) {
                free(input);
                fprintf(stderr, "toolwire convert: cannot read %s as %s: %s\n", path, from,
                        why.message);
                tw_diag_list_free(&warnings);
                tw_opts_holder_free(&h);
                return TW_EXIT_FAIL;
            }
        }
    }
    tw_neutral_value v;
    tw_error te;
    tw_error_clear(&te);
    tw_status st = tw_transcode_read(from, input, len, &d, &v, &warnings, &te);
    tw_opts_holder_free(&h); /* the tools were read by the decoder; nothing keeps them */
    tw_error_set(&why, TW_ERR_INVALID, -1, NULL, "%s", te.message);
    /* where in the file, as every JSON reader of the CLI says it */
    size_t line = 0, col = 0;
    bool at = st != TW_OK && te.offset >= 0 && (size_t)te.offset <= len;
    if (at)
        tw_line_col(input, len, (size_t)te.offset, &line, &col);
    /* a decoder source with errors (a truncated stream, a body that is not
     * JSON, a refused call) is written as far as it was read, and fails */
    size_t derr =
        decoded && v.kind == TW_NEUTRAL_RESULT ? v.res.errors.len + v.res.errors.dropped : 0;
    rc = TW_EXIT_OK;
    tw_buf out = {0};
    if (st != TW_OK) {
        tw_cli_print_warnings_at("convert", &warnings, path, input, len);
        free(input);
        if (at)
            fprintf(stderr, "toolwire convert: %s:%zu:%zu: cannot read it as %s (byte %lld): %s\n",
                    path, line, col, from, (long long)te.offset, why.message);
        else
            fprintf(stderr, "toolwire convert: cannot read %s as %s: %s\n", path, from,
                    why.message);
        tw_diag_list_free(&warnings);
        /* a file that is not JSON at all is bad input, as for encode */
        return st == TW_ERR_PARSE ? TW_EXIT_USAGE : TW_EXIT_FAIL;
    }
    /* a neutral call without an id gets one, as in `encode` */
    if (strncmp(from, "neutral", 7) == 0)
        st = v.kind == TW_NEUTRAL_REQUEST ? tw_cli_fill_request_ids("convert", &v.req)
                                          : tw_cli_fill_call_ids("convert", &v.res.msg, "");
    if (st != TW_OK) {
        tw_neutral_value_free(&v);
        free(input);
        fprintf(stderr, "toolwire convert: %s\n", tw_code_message(st));
        tw_diag_list_free(&warnings);
        return TW_EXIT_FAIL;
    }
    bool neutral_out = strncmp(to, "neutral", 7) == 0;
    if (neutral_out && pretty &&
        (strcmp(to, "neutral") == 0 ||
         (strcmp(to, "neutral-request") == 0) == (v.kind == TW_NEUTRAL_REQUEST))) {
        out.max = lim.max_output_bytes;
        st = v.kind == TW_NEUTRAL_REQUEST ? tw_request_write(&out, &v.req, TW_JSON_PRETTY)
                                          : tw_result_write(&out, &v.res, TW_JSON_PRETTY);
        if (st != TW_OK)
            tw_error_set(&why, TW_ERR_INVALID, -1, NULL, "%s", tw_code_message(st));
    } else {
        tw_error_clear(&te);
        st = tw_transcode_write(&v, to, &o, &out, &te);
        tw_error_set(&why, TW_ERR_INVALID, -1, NULL, "%s", te.message);
    }
    tw_neutral_value_free(&v);
    if (st == TW_OK && neutral_out)
        st = tw_buf_putc(&out, '\n');
    /* decode diagnostics carry byte offsets into the input */
    tw_cli_print_warnings_at("convert", &warnings, path, input, len);
    free(input);
    if (st != TW_OK) {
        fprintf(stderr, "toolwire convert: cannot write %s: %s\n", to, why.message);
        rc = TW_EXIT_FAIL;
    } else if (!tw_write_all(stdout, out.data ? out.data : "", out.len) || fflush(stdout) != 0) {
        fprintf(stderr, "toolwire convert: cannot write the output\n");
        rc = TW_EXIT_USAGE;
    } else if (derr) {
        fprintf(stderr,
                "toolwire convert: the %s decoder reported %zu error(s); the output holds what "
                "it decoded\n",
                from, derr);
        rc = TW_EXIT_FAIL;
    }
    tw_buf_free(&out);
    tw_diag_list_free(&warnings);
    return rc;
}
