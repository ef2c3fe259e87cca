/* Shared helpers of the toolwire program. */
#include "cli.h"

#include "apis.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json_locate.h"
#include "names.h"

int tw_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "toolwire %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return TW_EXIT_USAGE;
}

int tw_cli_option_error(const char *cmd, const struct option *longopts, const char *arg)
{
    if (arg && strncmp(arg, "--", 2) == 0 && !strchr(arg, '='))
        for (const struct option *o = longopts; o && o->name; o++)
            if (o->has_arg == required_argument && strcmp(o->name, arg + 2) == 0)
                return tw_cli_usage_error(cmd, "option '%s' needs a value", arg);
    return tw_cli_usage_error(cmd, "unknown option '%s' (see --help)", arg ? arg : "?");
}

int tw_cli_unknown_format(const char *cmd, const char *what, const char *given,
                          bool (*accept)(const char *name), const char *const *extra,
                          size_t n_extra)
{
    const char *names[256];
    size_t n = tw_format_names(names, sizeof names / sizeof names[0], accept, extra, n_extra);
    tw_error why = {.offset = -1};
    tw_unknown_name_error(&why, what, given, names, n);
    return tw_cli_usage_error(cmd, "%s", why.message);
}

bool tw_parse_size(const char *s, size_t *out)
{
    if (!s || !*s)
        return false;
    unsigned long long v = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (~0ULL - 9) / 10)
            return false;
        v = v * 10 + (unsigned long long)(*p - '0');
    }
    if (p == s)
        return false;
    unsigned long long mul = 1;
    if (*p == 'K' || *p == 'k')
        mul = 1024, p++;
    else if (*p == 'M' || *p == 'm')
        mul = 1024 * 1024, p++;
    else if (*p == 'G' || *p == 'g')
        mul = 1024ULL * 1024 * 1024, p++;
    if (*p)
        return false;
    if (v > (~0ULL) / mul)
        return false;
    *out = (size_t)(v * mul);
    return true;
}

cJSON *tw_load_json_file(const char *path, size_t max_bytes, size_t max_depth, tw_error *err)
{
    size_t len = 0;
    char *buf = tw_read_file(path, max_bytes, &len, err);
    if (!buf)
        return NULL;
    cJSON *v = NULL;
    tw_error e;
    if (tw_json_parse(buf, len, max_depth, &v, &e) != TW_OK) {
        size_t line, col;
        tw_line_col(buf, len, e.offset >= 0 ? (size_t)e.offset : 0, &line, &col);
        tw_error_file(err, TW_ERR_PARSE, e.offset, path, "%s:%zu:%zu: %s", path, line, col,
                      e.message);
        free(buf);
        return NULL;
    }
    free(buf);
    return v;
}

void tw_cli_print_warnings(const char *cmd, const tw_diag_list *w)
{
    tw_cli_print_warnings_at(cmd, w, NULL, NULL, 0);
}

void tw_cli_print_warnings_at(const char *cmd, const tw_diag_list *w, const char *path,
                              const char *input, size_t len)
{
    for (size_t i = 0; i < w->len; i++) {
        fprintf(stderr, "toolwire %s: warning: %s: ", cmd, tw_code_name(w->items[i].code));
        int64_t off = w->items[i].offset;
        if (path && input && off >= 0 && (uint64_t)off <= len) {
            /* where in the input, as every reader of the CLI says it */
            size_t line, col;
            tw_line_col(input, len, (size_t)off, &line, &col);
            fprintf(stderr, "%s:%zu:%zu (byte %lld): ", path, line, col, (long long)off);
        }
        for (const char *p = w->items[i].message; p && *p; p++)
            fputc((unsigned char)*p < 0x20 ? ' ' : *p, stderr);
        fputc('\n', stderr);
    }
    if (w->dropped)
        fprintf(stderr, "toolwire %s: warning: %zu more warnings were not kept\n", cmd, w->dropped);
}

char *tw_cli_read_operand(const char *cmd, int argc, char **argv, size_t max, const char **path,
                          size_t *len, int *rc)
{
    if (argc - optind > 1) {
        *rc = tw_cli_usage_error(cmd, "expected one input file, got %d", argc - optind);
        return NULL;
    }
    *path = optind < argc ? argv[optind] : "-";
    tw_error why = {.offset = -1};
    *len = 0;
    char *input = tw_read_file(*path, max, len, &why);
    if (!input)
        *rc = tw_cli_usage_error(cmd, "%s", why.message);
    return input;
}

void tw_cli_encode_opts_init(tw_encode_opts *o, tw_diag_list *warnings)
{
    memset(o, 0, sizeof *o);
    o->parallel_tool_calls = -1;
    o->warnings = warnings;
}

int tw_cli_encode_opt(const char *cmd, int c, char **argv, tw_encode_opts *o)
{
    size_t n = 0;
    switch (c) {
    case TW_ENC_OPT_MODEL: o->model = optarg; break;
    case TW_ENC_OPT_ID: o->id = optarg; break;
    case TW_ENC_OPT_CREATED:
        if (!tw_parse_size(optarg, &n) || n == 0 || n > (size_t)1 << 52)
            return tw_cli_usage_error(cmd, "--created needs a positive integer, got '%s'", optarg);
        o->created = (long long)n;
        break;
    case TW_ENC_OPT_ARGS_FRAG:
    case TW_ENC_OPT_TEXT_FRAG:
        if (!tw_parse_size(optarg, &n))
            return tw_cli_usage_error(cmd, "'%s' needs a size, got '%s'",
                                      argv[optind - 2 >= 0 ? optind - 2 : 0], optarg);
        if (c == TW_ENC_OPT_ARGS_FRAG)
            o->args_fragment = n;
        else
            o->text_fragment = n;
        break;
    case TW_ENC_OPT_USAGE: o->include_usage = true; break;
    case TW_ENC_OPT_OMIT_DONE: o->omit_done = true; break;
    case TW_ENC_OPT_PARTIAL_ARGS: o->partial_args = true; break;
    case TW_ENC_OPT_PTC:
        if (strcmp(optarg, "true") == 0)
            o->parallel_tool_calls = 1;
        else if (strcmp(optarg, "false") == 0)
            o->parallel_tool_calls = 0;
        else
            return tw_cli_usage_error(cmd, "--parallel-tool-calls expects true or false, got '%s'",
                                      optarg);
        break;
    case TW_ENC_OPT_MAX_OUT:
    case TW_ENC_OPT_MAX_IN:
        if (!tw_parse_size(optarg, &n) || n == 0)
            return tw_cli_usage_error(cmd, "'%s' needs a positive size, got '%s'",
                                      argv[optind - 2 >= 0 ? optind - 2 : 0], optarg);
        if (c == TW_ENC_OPT_MAX_OUT)
            o->limits.max_output_bytes = n;
        else
            o->limits.max_input_bytes = n;
        break;
    case TW_ENC_OPT_MAX_DEPTH:
        if (!tw_parse_size(optarg, &n) || n == 0)
            return tw_cli_usage_error(cmd, "'%s' needs a positive size, got '%s'",
                                      argv[optind - 2 >= 0 ? optind - 2 : 0], optarg);
        if (n > TW_DEPTH_HARD_MAX)
            return tw_cli_usage_error(cmd, "--max-depth is at most %u", TW_DEPTH_HARD_MAX);
        o->limits.max_depth = n;
        break;
    case ':': return tw_cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
    default: return tw_cli_usage_error(cmd, "unknown option '%s' (see --help)", argv[optind - 1]);
    }
    return TW_EXIT_OK;
}

/* ---- neutral JSON shape ---- */

static const char *const neutral_request_keys[] = {
    "model", "messages", "tools", "tool_choice", "parallel_tool_calls", "options", NULL};
static const char *const neutral_result_keys[] = {
    "content",       "thinking", "thinking_signature", "tool_calls",
    "finish_reason", "errors",   "warnings",           NULL};

static bool key_in(const char *k, const char *const *keys)
{
    for (; *keys; keys++)
        if (strcmp(k, *keys) == 0)
            return true;
    return false;
}

static void key_list(char *dst, size_t n, const char *const *keys)
{
    size_t o = 0;
    dst[0] = 0;
    for (size_t i = 0; keys[i] && o < n; i++) {
        int w = snprintf(dst + o, n - o, "%s%s", i ? ", " : "", keys[i]);
        if (w < 0)
            break;
        o += (size_t)w;
    }
}

static const char *const neutral_call_keys[] = {"id",   "name",     "arguments", "args",
                                                "type", "function", NULL};
static const char *const neutral_function_keys[] = {"name", "arguments", "args", NULL};
static const char *const neutral_message_keys[] = {
    "role",       "content",      "thinking", "reasoning_content", "thinking_signature",
    "tool_calls", "tool_call_id", "name",     "is_error",          NULL};
static const char *const neutral_tool_keys[] = {"name", "description", "parameters", "input_schema",
                                                "type", "function",    NULL};
static const char *const neutral_tool_fn_keys[] = {"name", "description", "parameters", NULL};

/* The first member of the object at jpath whose key is not in keys: "FILE:L:C:
 * JPATH.KEY: unknown key in WHAT (expected only: …)". */
static bool nested_keys(const cJSON *obj, const char *jpath, const char *const *keys,
                        const char *what, const char *buf, size_t len, const char *path,
                        tw_error *err)
{
    if (!cJSON_IsObject(obj))
        return true; /* the reader says what is wrong with its type */
    for (const cJSON *m = obj->child; m; m = m->next) {
        if (!m->string || key_in(m->string, keys))
            continue;
        char kp[300];
        snprintf(kp, sizeof kp, "%s.%.80s", jpath, m->string);
        size_t line = 1, col = 1;
        if (!strpbrk(m->string, ".[]\"") && strlen(kp) < sizeof kp - 1)
            tw_json_locate(buf, len, kp, true, &line, &col);
        char list[200];
        key_list(list, sizeof list, keys);
        tw_error_set(err, TW_ERR_PARSE, -1, NULL,
                     "%s:%zu:%zu: %s: unknown key in %s (expected only: %s)", path, line, col, kp,
                     what, list);
        return false;
    }
    return true;
}

static bool calls_keys(const cJSON *arr, const char *jpath, const char *buf, size_t len,
                       const char *path, tw_error *err)
{
    size_t i = 0;
    for (const cJSON *c = cJSON_IsArray(arr) ? arr->child : NULL; c; c = c->next, i++) {
        char cp[200];
        snprintf(cp, sizeof cp, "%s[%zu]", jpath, i);
        if (!nested_keys(c, cp, neutral_call_keys, "a tool call", buf, len, path, err))
            return false;
        char fp[220];
        snprintf(fp, sizeof fp, "%s.function", cp);
        if (cJSON_IsObject(c) && !nested_keys(tw_json_get(c, "function"), fp, neutral_function_keys,
                                              "a call's function", buf, len, path, err))
            return false;
    }
    return true;
}

tw_status tw_cli_fill_call_ids(const char *cmd, tw_message *m, const char *where)
{
    for (size_t i = 0; i < m->ncalls; i++) {
        tw_call *c = &m->calls[i];
        if (c->id && c->id[0])
            continue;
        char gen[32];
        snprintf(gen, sizeof gen, "call_%zu", i + 1);
        bool rewritten = false;
        char *id = tw_unique_call_id(m, gen, &rewritten);
        if (!id)
            return TW_ERR_NOMEM;
        free(c->id);
        c->id = id;
        fprintf(stderr, "toolwire %s: warning: %stool_calls[%zu] has no id; wrote %s\n", cmd, where,
                i, id);
    }
    return TW_OK;
}

tw_status tw_cli_fill_request_ids(const char *cmd, tw_request *r)
{
    for (size_t i = 0; i < r->nmessages; i++) {
        char where[48];
        snprintf(where, sizeof where, "messages[%zu].", i);
        tw_status st = tw_cli_fill_call_ids(cmd, &r->messages[i], where);
        if (st != TW_OK)
            return st;
    }
    return TW_OK;
}

bool tw_cli_neutral_shape(const cJSON *j, char want, const char *buf, size_t len, const char *path,
                          tw_error *err)
{
    bool req = want == 'q' || (want == 'n' && cJSON_IsObject(j) && tw_json_get(j, "messages"));
    const char *kind = req ? "request" : "result";
    if (!cJSON_IsObject(j)) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                     "%s:1:1: expected a neutral %s, a JSON object, got %s", path, kind,
                     cJSON_IsArray(j)    ? "an array"
                     : cJSON_IsString(j) ? "a string"
                                         : "a scalar");
        return false;
    }
    const char *const *keys = req ? neutral_request_keys : neutral_result_keys;
    for (const cJSON *m = j->child; m; m = m->next) {
        if (!m->string || key_in(m->string, keys))
            continue;
        size_t line = 1, col = 1;
        /* the key's place, when its name can be followed as a path */
        if (!strpbrk(m->string, ".[]\"") && strlen(m->string) < 200)
            tw_json_locate(buf, len, m->string, true, &line, &col);
        char list[200];
        key_list(list, sizeof list, keys);
        bool other = key_in(m->string, req ? neutral_result_keys : neutral_request_keys);
        tw_error_set(err, TW_ERR_PARSE, -1, NULL,
                     "%s:%zu:%zu: unknown key '%.80s' in a neutral %s (expected only: %s)%s", path,
                     line, col, m->string, kind, list,
                     other ? (req ? "; it is a key of a neutral result"
                                  : "; it is a key of a neutral request")
                           : "");
        return false;
    }
    /* the same inside: tool calls, messages, tools */
    if (!req)
        return calls_keys(tw_json_get(j, "tool_calls"), "tool_calls", buf, len, path, err);
    const cJSON *msgs = tw_json_get(j, "messages");
    size_t i = 0;
    for (const cJSON *m = cJSON_IsArray(msgs) ? msgs->child : NULL; m; m = m->next, i++) {
        char mp[64];
        snprintf(mp, sizeof mp, "messages[%zu]", i);
        if (!nested_keys(m, mp, neutral_message_keys, "a message", buf, len, path, err))
            return false;
        char cp[80];
        snprintf(cp, sizeof cp, "%s.tool_calls", mp);
        if (cJSON_IsObject(m) && !calls_keys(tw_json_get(m, "tool_calls"), cp, buf, len, path, err))
            return false;
    }
    const cJSON *tools = tw_json_get(j, "tools");
    i = 0;
    for (const cJSON *t = cJSON_IsArray(tools) ? tools->child : NULL; t; t = t->next, i++) {
        char tp[64];
        snprintf(tp, sizeof tp, "tools[%zu]", i);
        if (!nested_keys(t, tp, neutral_tool_keys, "a tool", buf, len, path, err))
            return false;
        char fp[80];
        snprintf(fp, sizeof fp, "%s.function", tp);
        if (cJSON_IsObject(t) && !nested_keys(tw_json_get(t, "function"), fp, neutral_tool_fn_keys,
                                              "a tool's function", buf, len, path, err))
            return false;
    }
    return true;
}

bool tw_cli_parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

void tw_cli_print_help(const char *text, size_t indent)
{
    /* %PROFILES%: every profile; %MOCKS%: mock-P for every profile P but script */
    static const char *const marks[] = {"%PROFILES%", "%MOCKS%"};
    for (;;) {
        const char *at = NULL;
        size_t which = 0;
        for (size_t k = 0; k < 2; k++) {
            const char *m = strstr(text, marks[k]);
            if (m && (!at || m < at))
                at = m, which = k;
        }
        if (!at)
            break;
        fwrite(text, 1, (size_t)(at - text), stdout);
        const char *line = at;
        while (line > text && line[-1] != '\n')
            line--;
        tw_profile_list_print(stdout, which ? "mock-" : NULL, which ? "script" : NULL, indent,
                              (size_t)(at - line), 80);
        text = at + strlen(marks[which]);
    }
    puts(text);
}

bool tw_cli_name_ok(const char *s, size_t n)
{
    if (n == 0 || n > 64)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-' || s[i] == '.' ||
              s[i] == '@'))
            return false;
    return true;
}

int tw_cli_name_cmd(const char *cmd, const char *opt, const char *what, const char *arg,
                    char **stores, size_t n, const char **name, const char **prog)
{
    const char *eq = strchr(arg, '=');
    stores[n] = NULL;
    if (!eq || !tw_cli_name_ok(arg, (size_t)(eq - arg)) || !eq[1])
        return tw_cli_usage_error(cmd, "--%s wants NAME=CMD (NAME of [A-Za-z0-9._@-]), got '%s'",
                                  opt, arg);
    if (!(stores[n] = tw_strdup(arg)))
        return tw_cli_usage_error(cmd, "out of memory");
    stores[n][eq - arg] = 0;
    *name = stores[n];
    *prog = stores[n] + (eq - arg) + 1;
    for (size_t k = 0; k < n; k++)
        if (strcmp(stores[k], stores[n]) == 0)
            return tw_cli_usage_error(cmd, "%s name '%s' given twice", what, stores[k]);
    return -1;
}
