/* The toolwire program: shared helpers for subcommands. */
#ifndef TOOLWIRE_CLI_H
#define TOOLWIRE_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "files.h"
#include "json_locate.h"
#include "toolwire/core.h"
#include "toolwire/decode.h"
#include "toolwire/encode.h"
#include "toolwire/json.h"
#include "toolwire/neutral.h"

/* Exit codes shared by every subcommand. */
enum { TW_EXIT_OK = 0, TW_EXIT_FAIL = 1, TW_EXIT_USAGE = 2 };

typedef int (*tw_cmd_fn)(int argc, char **argv);

int tw_cmd_parse(int argc, char **argv);
int tw_cmd_main(int argc, char **argv);
int tw_cmd_encode(int argc, char **argv);
int tw_cmd_convert(int argc, char **argv);
int tw_cmd_run(int argc, char **argv);
int tw_cmd_serve(int argc, char **argv);
int tw_cmd_record(int argc, char **argv);
int tw_cmd_import(int argc, char **argv);
int tw_cmd_compare(int argc, char **argv);
int tw_cmd_gate(int argc, char **argv);
int tw_cmd_clients(int argc, char **argv);
int tw_cmd_merge(int argc, char **argv);
int tw_cmd_parsers(int argc, char **argv);
int tw_cmd_parser_driver(int argc, char **argv);

struct option;
/* The usage error for the option getopt_long refused at arg (argv[optind - 1]):
 * "option '--out' needs a value" when arg is a long option of longopts that
 * takes one, else "unknown option '…' (see --help)"; returns TW_EXIT_USAGE. */
int tw_cli_option_error(const char *cmd, const struct option *longopts, const char *arg);

/* Print "toolwire CMD: message" on stderr; returns TW_EXIT_USAGE. */
/* A client or parser name: 1-64 bytes of [A-Za-z0-9._@-]. */
bool tw_cli_name_ok(const char *s, size_t n);

/* --OPT NAME=CMD of command cmd (what: "client", "parser"): stores[n] gets a
 * copy holding "NAME\0CMD" (NULL when none was made), name and prog point
 * into it. -1 when taken; else the usage error's exit status (bad form, out
 * of memory, or a NAME given before in stores[0..n), whose copy is kept in
 * stores[n] for the caller to free). */
int tw_cli_name_cmd(const char *cmd, const char *opt, const char *what, const char *arg,
                    char **stores, size_t n, const char **name, const char **prog);

int tw_cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/*
 * "toolwire CMD: unknown WHAT 'GIVEN' (one of: …; did you mean '…'?)" on
 * stderr over the registry's module names that accept() takes and the
 * n_extra names of extra (names.h); returns TW_EXIT_USAGE.
 */
int tw_cli_unknown_format(const char *cmd, const char *what, const char *given,
                          bool (*accept)(const char *name), const char *const *extra,
                          size_t n_extra);

/* Parse a size option ("123", "16M", "200K"); false on a bad value. */
bool tw_parse_size(const char *s, size_t *out);
/* A whole decimal integer in [lo, hi] (nothing before or after it). */
bool tw_cli_parse_long(const char *s, long lo, long hi, long *out);

/* Load a JSON file with a line/column error message. */
cJSON *tw_load_json_file(const char *path, size_t max_bytes, size_t max_depth, tw_error *err);

/* Warnings on stderr as "toolwire CMD: warning: CODE: message", one line
 * each (control bytes become spaces), then a count of those not kept. */
void tw_cli_print_warnings(const char *cmd, const tw_diag_list *w);
/* The same, each diagnostic with a byte offset into input (of len bytes,
 * read from path) also named as PATH:LINE:COL (byte N). */
void tw_cli_print_warnings_at(const char *cmd, const tw_diag_list *w, const char *path,
                              const char *input, size_t len);

/* getopt_long values of the encoder options shared by encode and convert. */
enum {
    TW_ENC_OPT_MODEL = 1100,
    TW_ENC_OPT_ID,
    TW_ENC_OPT_CREATED,
    TW_ENC_OPT_ARGS_FRAG,
    TW_ENC_OPT_TEXT_FRAG,
    TW_ENC_OPT_USAGE,
    TW_ENC_OPT_OMIT_DONE,
    TW_ENC_OPT_PTC,
    TW_ENC_OPT_MAX_OUT,
    TW_ENC_OPT_MAX_IN,
    TW_ENC_OPT_PARTIAL_ARGS,
    TW_ENC_OPT_MAX_DEPTH
};

/* Their struct option entries (for a longopts table; needs <getopt.h>). */
#define TW_ENC_LONGOPTS                                                                            \
    {"model", required_argument, NULL, TW_ENC_OPT_MODEL},                                          \
        {"id", required_argument, NULL, TW_ENC_OPT_ID},                                            \
        {"created", required_argument, NULL, TW_ENC_OPT_CREATED},                                  \
        {"args-fragment", required_argument, NULL, TW_ENC_OPT_ARGS_FRAG},                          \
        {"text-fragment", required_argument, NULL, TW_ENC_OPT_TEXT_FRAG},                          \
        {"usage", no_argument, NULL, TW_ENC_OPT_USAGE},                                            \
        {"omit-done", no_argument, NULL, TW_ENC_OPT_OMIT_DONE},                                    \
        {"partial-args", no_argument, NULL, TW_ENC_OPT_PARTIAL_ARGS},                              \
        {"parallel-tool-calls", required_argument, NULL, TW_ENC_OPT_PTC},                          \
        {"max-output-bytes", required_argument, NULL, TW_ENC_OPT_MAX_OUT},                         \
        {"max-depth", required_argument, NULL, TW_ENC_OPT_MAX_DEPTH},                              \
    {                                                                                              \
        "max-input-bytes", required_argument, NULL, TW_ENC_OPT_MAX_IN                              \
    }

/*
 * Read the one optional FILE operand after the options ("-" or none:
 * standard input) whole, at most max bytes: the buffer (free it) with
 * *path and *len set, or NULL after the usage error, its exit code in *rc.
 */
char *tw_cli_read_operand(const char *cmd, int argc, char **argv, size_t max, const char **path,
                          size_t *len, int *rc);

/*
 * The shape of neutral JSON (docs/neutral.md, docs/cli-encode.md): j, parsed
 * from buf[0, len) read from `path`, must be an object whose top-level keys
 * are all keys of a neutral request (want 'q'), of a neutral result ('r'),
 * or of the kind its keys select ('n': a request when it has "messages").
 * false with "PATH:LINE:COL: unknown key 'K' …" (what was expected) in why.
 * The keys of tool calls, messages and tools inside are checked the same way
 * ("PATH:LINE:COL: tool_calls[0].argz: unknown key in a tool call …").
 */
/*
 * Give every call of m without an id (absent or "") the id "call_N" (N its
 * place, 1-based, made unique among m's calls) as the decoders do, with a
 * warning "toolwire CMD: warning: WHEREtool_calls[I] has no id; wrote ID".
 */
tw_status tw_cli_fill_call_ids(const char *cmd, tw_message *m, const char *where);
/* The same for a neutral request's messages and a neutral result. */
tw_status tw_cli_fill_request_ids(const char *cmd, tw_request *r);

bool tw_cli_neutral_shape(const cJSON *j, char want, const char *buf, size_t len, const char *path,
                          tw_error *err);

/* Zero *o, parallel_tool_calls unset (-1), warnings collected in *warnings. */
void tw_cli_encode_opts_init(tw_encode_opts *o, tw_diag_list *warnings);

/*
 * Apply getopt_long's answer c (value in optarg) to *o, for the options a
 * command does not handle itself: TW_EXIT_OK when c is an encoder option
 * and its value is good, else the usage-error exit code (bad value, missing
 * value ':', unknown option).
 */
int tw_cli_encode_opt(const char *cmd, int c, char **argv, tw_encode_opts *o);

/* puts(text), with %PROFILES% in it written as the mock's profiles (the
 * table of formats) and %MOCKS% as toolwire main's suites of them (mock-P
 * for every profile P but script), joined by ", " and wrapped before column
 * 80, the continuation lines indented by `indent` spaces. */
void tw_cli_print_help(const char *text, size_t indent);

#endif
