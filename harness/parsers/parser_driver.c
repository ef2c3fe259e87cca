/*
 * toolwire's own parser driver (parsers.h, tw_parser_driver): the parser
 * driver protocol (docs/parsers.md) spoken with the reference decoders, so
 * that `toolwire parsers` is tested on a driver that must pass everything.
 */
#include "parsers.h"

#include <stdlib.h>
#include <string.h>

#include "toolwire/decode.h"
#include "toolwire/json.h"

/* What the decoder's events delivered so far: the message a streaming
 * client would be shown. */
typedef struct shown {
    tw_buf content, reasoning;
    tw_buf calls; /* the calls, written as the message's array items */
    size_t ncalls;
} shown;

static tw_status write_call(tw_buf *b, const tw_call *c)
{
    tw_status st = tw_buf_puts(b, "{\"name\":");
    if (st == TW_OK)
        st = tw_json_write_str(b, c->name ? c->name : "", c->name ? strlen(c->name) : 0, 0);
    if (st == TW_OK)
        st = tw_buf_puts(b, ",\"arguments\":");
    if (st == TW_OK && c->arguments)
        st = tw_json_write(b, c->arguments, 0);
    else if (st == TW_OK)
        st = tw_buf_puts(b, "{}");
    if (st == TW_OK)
        st = tw_buf_puts(b, ",\"id\":");
    if (st == TW_OK && c->id)
        st = tw_json_write_str(b, c->id, strlen(c->id), 0);
    else if (st == TW_OK)
        st = tw_buf_puts(b, "null");
    return st == TW_OK ? tw_buf_putc(b, '}') : st;
}

static tw_status on_event(void *user, const tw_event *ev)
{
    shown *s = user;
    switch (ev->kind) {
    case TW_EV_CONTENT: return tw_buf_append(&s->content, ev->text, ev->len);
    case TW_EV_THINKING: return tw_buf_append(&s->reasoning, ev->text, ev->len);
    case TW_EV_TOOL_CALL:
        if (s->ncalls++ && tw_buf_putc(&s->calls, ',') != TW_OK)
            return TW_ERR_NOMEM;
        return write_call(&s->calls, ev->call);
    default: return TW_OK;
    }
}

/* {"content":…,"reasoning":…,"tool_calls":[calls],"error":null} onto b. */
static tw_status write_message(tw_buf *b, const char *c, size_t cn, const char *r, size_t rn,
                               const char *calls, size_t calls_len)
{
    tw_status st = tw_buf_puts(b, "{\"content\":");
    if (st == TW_OK)
        st = tw_json_write_str(b, c ? c : "", c ? cn : 0, 0);
    if (st == TW_OK)
        st = tw_buf_puts(b, ",\"reasoning\":");
    if (st == TW_OK)
        st = tw_json_write_str(b, r ? r : "", r ? rn : 0, 0);
    if (st == TW_OK)
        st = tw_buf_puts(b, ",\"tool_calls\":[");
    if (st == TW_OK && calls_len)
        st = tw_buf_append(b, calls, calls_len);
    if (st == TW_OK)
        st = tw_buf_puts(b, "],\"error\":null}");
    return st;
}

static int fail(FILE *err, const char *why)
{
    fprintf(err, "toolwire parser-driver: %s\n", why);
    return 2;
}

static int describe(FILE *out)
{
    size_t n;
    const char *const *d = tw_parser_dialects(&n);
    tw_buf b = {0};
    tw_buf_printf(&b, "{\"protocol\":%d,\"parser\":\"toolwire\",\"version\":\"%s\",\"dialects\":[",
                  TW_PARSER_PROTOCOL, TOOLWIRE_VERSION);
    for (size_t i = 0; i < n; i++)
        tw_buf_printf(&b, "%s{\"dialect\":\"%s\"}", i ? "," : "", d[i]);
    tw_buf_puts(&b, "]}\n");
    if (!b.data)
        return 2;
    fwrite(b.data, 1, b.len, out);
    tw_buf_free(&b);
    return fflush(out) == 0 ? 0 : 2;
}

/* Read all of in, at most max bytes; NULL (with *too_big) past it. */
static char *read_all(FILE *in, size_t max, size_t *len, bool *too_big)
{
    tw_buf b = {0};
    char chunk[65536];
    size_t n;
    *too_big = false;
    while ((n = fread(chunk, 1, sizeof chunk, in)) > 0) {
        if (b.len + n > max) {
            *too_big = true;
            tw_buf_free(&b);
            return NULL;
        }
        if (tw_buf_append(&b, chunk, n) != TW_OK) {
            tw_buf_free(&b);
            return NULL;
        }
    }
    tw_buf_putc(&b, 0);
    *len = b.len ? b.len - 1 : 0;
    return b.data;
}

/* Feed every piece, printing the message after each, then the final one. */
static int parse_run(const tw_format_ops *f, const cJSON *pieces, const tw_decode_opts *o,
                     FILE *out, FILE *err)
{
    shown s;
    memset(&s, 0, sizeof s);
    tw_stream *st = tw_stream_new(f, o, on_event, &s);
    tw_buf line = {0};
    int rc = st ? 0 : fail(err, "out of memory");
    size_t k = 0;
    for (const cJSON *p = pieces->child; p && rc == 0; p = p->next, k++) {
        size_t n = strlen(p->valuestring);
        /* an exact-size copy: a read past the piece is caught */
        char *copy = malloc(n ? n : 1);
        tw_status fs = copy ? TW_OK : TW_ERR_NOMEM;
        if (copy) {
            memcpy(copy, p->valuestring, n);
            fs = tw_stream_feed(st, copy, n);
            free(copy);
        }
        tw_buf_reset(&line);
        if (fs == TW_OK)
            fs = tw_buf_printf(&line, "{\"piece\":%zu,\"message\":", k);
        if (fs == TW_OK)
            fs = write_message(&line, s.content.data, s.content.len, s.reasoning.data,
                               s.reasoning.len, s.calls.data, s.calls.len);
        if (fs == TW_OK)
            fs = tw_buf_puts(&line, "}\n");
        if (fs != TW_OK)
            rc = fail(err, tw_code_message(fs));
        else
            fwrite(line.data, 1, line.len, out);
    }
    tw_result r;
    memset(&r, 0, sizeof r);
    if (rc == 0) {
        tw_status fs = tw_stream_finish(st, &r);
        tw_buf calls = {0};
        for (size_t i = 0; fs == TW_OK && i < r.msg.ncalls; i++) {
            if (i)
                fs = tw_buf_putc(&calls, ',');
            if (fs == TW_OK)
                fs = write_call(&calls, &r.msg.calls[i]);
        }
        tw_buf_reset(&line);
        if (fs == TW_OK)
            fs = tw_buf_puts(&line, "{\"final\":true,\"message\":");
        if (fs == TW_OK)
            fs = write_message(&line, r.msg.content.data, r.msg.content.len, r.msg.thinking.data,
                               r.msg.thinking.len, calls.data, calls.len);
        if (fs == TW_OK)
            fs = tw_buf_puts(&line, "}\n");
        if (fs != TW_OK)
            rc = fail(err, tw_code_message(fs));
        else
            fwrite(line.data, 1, line.len, out);
        tw_buf_free(&calls);
        tw_result_free(&r);
    }
    tw_stream_free(st);
    tw_buf_free(&line);
    tw_buf_free(&s.content);
    tw_buf_free(&s.reasoning);
    tw_buf_free(&s.calls);
    if (rc == 0 && fflush(out) != 0)
        rc = 2;
    return rc;
}

int tw_parser_driver(const char *arg, FILE *in, FILE *out, FILE *err, const tw_limits *Lin)
{
    tw_limits L;
    tw_limits_resolve(&L, Lin);
    if (arg && strcmp(arg, "--describe") == 0)
        return describe(out);
    if (!arg || strcmp(arg, "--parse") != 0)
        return fail(err, "give --describe or --parse (docs/parsers.md)");
    /* JSON may spell a byte in up to six: the request's cap follows the text's */
    size_t cap = L.max_input_bytes <= SIZE_MAX / 8 ? L.max_input_bytes * 8 : SIZE_MAX;
    size_t len = 0;
    bool too_big = false;
    char *text = read_all(in, cap, &len, &too_big);
    if (!text)
        return fail(err, too_big ? "the request is over 8 x limits.max_input_bytes"
                                 : "cannot read the request");
    cJSON *j = NULL;
    tw_status ps = tw_json_parse(text, len, L.max_depth, &j, NULL);
    free(text);
    if (ps != TW_OK || !cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return fail(err, "the request is not one JSON object");
    }
    const char *dialect = tw_json_get_str(j, "dialect");
    const cJSON *pieces = tw_json_get(j, "pieces");
    const cJSON *tools = tw_json_get(j, "tools");
    const cJSON *opts = tw_json_get(j, "options");
    const tw_format_ops *f =
        dialect && tw_parser_is_dialect(dialect) ? tw_format_find(dialect) : NULL;
    size_t total = 0;
    bool pieces_ok = cJSON_IsArray(pieces) && pieces->child;
    for (const cJSON *p = pieces_ok ? pieces->child : NULL; p && pieces_ok; p = p->next) {
        pieces_ok = cJSON_IsString(p);
        total += pieces_ok ? strlen(p->valuestring) : 0;
    }
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits = L;
    tw_tool *tl = NULL;
    size_t ntl = 0;
    tw_error why = {.offset = -1};
    int rc = 0;
    if (tw_json_int(tw_json_get(j, "protocol"), 0, 1000, -1) != TW_PARSER_PROTOCOL)
        rc = fail(err, "the request's protocol must be 1");
    else if (!f)
        rc = fail(err, "the request's dialect is not a text decoder of toolwire");
    else if (!pieces_ok)
        rc = fail(err, "the request's pieces must be an array of 1 or more strings");
    else if (total > L.max_input_bytes)
        rc = fail(err, "the request's text is over limits.max_input_bytes");
    else if (tools && !cJSON_IsNull(tools) && tw_tools_read(tools, &L, &tl, &ntl, &why) != TW_OK) {
        fprintf(err, "toolwire parser-driver: tools: %s\n", why.message);
        rc = 2;
    } else {
        if (tools && !cJSON_IsNull(tools)) {
            o.tools = tl;
            o.ntools = ntl;
            o.tools_declared = true;
        }
        o.forced_open = cJSON_IsTrue(tw_json_get(opts, "forced_open"));
        rc = parse_run(f, pieces, &o, out, err);
    }
    tw_tools_free(tl, ntl);
    cJSON_Delete(j);
    return rc;
}
