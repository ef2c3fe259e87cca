/* toolwire encode: neutral JSON in, wire bytes out, through the encoder
 * registry. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "toolwire/encode.h"

static void encode_help(FILE *f)
{
    fputs("usage: toolwire encode --format F [options] [FILE|-]\n"
          "\n"
          "Read a neutral request (request encoders) or a neutral result (response and\n"
          "stream encoders) as JSON from FILE or standard input (docs/neutral.md) and\n"
          "write the wire bytes of format F to standard output (docs/cli-encode.md).\n"
          "\n"
          "formats:\n",
          f);
    for (const tw_encoder_ops *const *p = tw_encoders(); *p; p++)
        fprintf(f, "  %-24s %s (reads a %s)\n", (*p)->name, (*p)->summary,
                (*p)->input == TW_ENC_REQUEST ? "request" : "result");
    fputs("\n"
          "options:\n"
          "  --format F                 the encoder (required)\n"
          "  --model M                  model name to write (overrides the request's)\n"
          "  --id ID                    response id (default chatcmpl-toolwire / msg_toolwire /\n"
          "                             resp_toolwire; Gemini: responseId, none by default)\n"
          "  --created N                OpenAI 'created', Responses 'created_at' (default\n"
          "                             1700000000)\n"
          "  --args-fragment N          streams: arguments in pieces of N bytes (0: whole)\n"
          "  --text-fragment N          streams: content and thinking in pieces of N bytes\n"
          "  --usage                    OpenAI streams: a usage chunk before [DONE]\n"
          "  --omit-done                streams: leave out data: [DONE] / message_stop (fault)\n"
          "  --partial-args             gemini-stream: call arguments as streamed partialArgs\n"
          "                             pieces (Gemini 3; strings split by --args-fragment)\n"
          "  --parallel-tool-calls B    requests: true or false (default: the request's,\n"
          "                             else false when tools are present)\n"
          "  --max-output-bytes N       cap on the output (default 64M)\n"
          "  --max-depth N              cap on JSON nesting (default 64, at most 1000)\n"
          "  --max-input-bytes N        cap on the input (default 16M)\n"
          "  -h, --help                 this text\n"
          "\n"
          "Numbers keep their input spelling; the Python-rendered prompts print them as\n"
          "Python's json does (number_inexact warns of a number rendered as a different\n"
          "value).\n"
          "What the format cannot carry is reported on standard error, one line per\n"
          "warning (\"toolwire encode: warning: not_carried: FIELD: ...\"). Input of the\n"
          "wrong shape is refused: a key the neutral request (or result), one of its\n"
          "messages, tool calls or tools does not have, or JSON that is not an object,\n"
          "fails with FILE:LINE:COL, the JSON path and the keys expected. A tool call\n"
          "without an id gets call_N, with a warning. Exit status: 0 when the bytes were written, "
          "1 when the input is not\n"
          "a neutral request/result (wrong shape, unknown key, invalid value) or encoding\n"
          "failed (format not implemented, output cap), 2 on a bad option, unreadable\n"
          "input, a JSON syntax error or output that cannot be written.\n",
          f);
}

enum { O_FORMAT = 1000 };

/* a name --format takes (for the list of an unknown one) */
static bool is_encoder(const char *name)
{
    return tw_encoder_find(name) != NULL;
}

int tw_cmd_encode(int argc, char **argv)
{
    static const struct option longopts[] = {{"format", required_argument, NULL, O_FORMAT},
                                             TW_ENC_LONGOPTS,
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const tw_encoder_ops *enc = NULL;
    tw_diag_list warnings = {0};
    tw_encode_opts o;
    tw_cli_encode_opts_init(&o, &warnings);
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case O_FORMAT:
            enc = tw_encoder_find(optarg);
            if (!enc)
                return tw_cli_unknown_format("encode", "format", optarg, is_encoder, NULL, 0);
            break;
        case 'h': encode_help(stdout); return TW_EXIT_OK;
        default: {
            int rc = tw_cli_encode_opt("encode", c, argv, &o);
            if (rc != TW_EXIT_OK)
                return rc;
            break;
        }
        }
    }
    if (!enc)
        return tw_cli_usage_error("encode", "--format is required (see --help)");
    tw_limits lim;
    tw_limits_resolve(&lim, &o.limits);
    const char *path;
    size_t len;
    int rc;
    char *input = tw_cli_read_operand("encode", argc, argv, lim.max_input_bytes, &path, &len, &rc);
    if (!input)
        return rc;
    tw_error why = {.offset = -1};
    cJSON *j = NULL;
    tw_error je;
    tw_status st = tw_json_parse(input, len, lim.max_depth, &j, &je);
    if (st != TW_OK) {
        size_t line, col;
        tw_line_col(input, len, je.offset >= 0 ? (size_t)je.offset : 0, &line, &col);
        free(input);
        return tw_cli_usage_error("encode", "%s:%zu:%zu: %s", path, line, col, je.message);
    }
    tw_request req;
    tw_result res;
    bool is_req = enc->input == TW_ENC_REQUEST;
    /* wrong shape (another kind of JSON, a wrapper object): refused, never
     * encoded as an empty message */
    bool shaped = tw_cli_neutral_shape(j, is_req ? 'q' : 'r', input, len, path, &why);
    free(input);
    if (!shaped) {
        cJSON_Delete(j);
        fprintf(stderr, "toolwire encode: %s (--format %s reads a neutral %s)\n", why.message,
                enc->name, is_req ? "request" : "result");
        return TW_EXIT_FAIL;
    }
    tw_error re;
    st = is_req ? tw_request_read(j, &lim, &req, &re) : tw_result_read(j, &lim, &res, &re);
    cJSON_Delete(j);
    if (st != TW_OK) {
        fprintf(stderr, "toolwire encode: %s: not a neutral %s: %s\n", path,
                is_req ? "request" : "result", re.message);
        return TW_EXIT_FAIL;
    }
    /* a call without an id gets one: never written as "id": "" */
    st = is_req ? tw_cli_fill_request_ids("encode", &req)
                : tw_cli_fill_call_ids("encode", &res.msg, "");
    if (st != TW_OK) {
        if (is_req)
            tw_request_free(&req);
        else
            tw_result_free(&res);
        fprintf(stderr, "toolwire encode: %s\n", tw_code_message(st));
        return TW_EXIT_FAIL;
    }
    tw_buf out = {0};
    st = is_req ? enc->encode_request(&req, &o, &out) : enc->encode_result(&res, &o, &out);
    if (is_req)
        tw_request_free(&req);
    else
        tw_result_free(&res);
    rc = TW_EXIT_OK;
    tw_cli_print_warnings("encode", &warnings);
    if (st == TW_ERR_UNSUPPORTED) {
        fprintf(stderr, "toolwire encode: format '%s' is not implemented yet\n", enc->name);
        rc = TW_EXIT_FAIL;
    } else if (st == TW_ERR_LIMIT) {
        fprintf(stderr,
                "toolwire encode: the output exceeds --max-output-bytes (%zu) or a "
                "limit was exceeded\n",
                lim.max_output_bytes);
        rc = TW_EXIT_FAIL;
    } else if (st != TW_OK) {
        fprintf(stderr, "toolwire encode: encoding failed: %s\n", tw_code_message(st));
        rc = TW_EXIT_FAIL;
    } else if (!tw_write_all(stdout, out.data ? out.data : "", out.len) || fflush(stdout) != 0) {
        fprintf(stderr, "toolwire encode: cannot write the output\n");
        rc = TW_EXIT_USAGE;
    }
    tw_buf_free(&out);
    tw_diag_list_free(&warnings);
    return rc;
}
