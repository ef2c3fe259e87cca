/*
 * OpenAI chat completions encoders: request bodies, chat.completion
 * responses and chat.completion.chunk SSE streams. Output is deterministic
 * (fixed id/created defaults, key order fixed here, compact JSON without the
 * locale) so tests compare bytes. Rules: docs/formats/encoding.md.
 */
#include "toolwire/openai_encode.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "toolwire/shims.h"

/* ===================== a small compact JSON writer ===================== */

#define JW_MAX_DEPTH 16

/* Sticky status: after the first failure every call is a no-op. */
typedef struct jw {
    tw_buf *b;
    tw_status st;
    unsigned depth;
    bool first[JW_MAX_DEPTH + 1];
} jw;

static void jw_put(jw *w, const char *s, size_t n)
{
    if (w->st == TW_OK)
        w->st = tw_buf_append(w->b, s, n);
}

static void jw_lit(jw *w, const char *s) { jw_put(w, s, strlen(s)); }

static void jw_key(jw *w, const char *k)
{
    if (w->depth) {
        if (!w->first[w->depth])
            jw_put(w, ",", 1);
        w->first[w->depth] = false;
    }
    if (k) {
        if (w->st == TW_OK)
            w->st = tw_json_write_str(w->b, k, strlen(k), TW_JSON_COMPACT);
        jw_put(w, ":", 1);
    }
}

static void jw_open(jw *w, const char *k, char c)
{
    jw_key(w, k);
    jw_put(w, &c, 1);
    if (w->depth >= JW_MAX_DEPTH) {
        if (w->st == TW_OK)
            w->st = TW_ERR_LIMIT;
        return;
    }
    w->first[++w->depth] = true;
}

static void jw_close(jw *w, char c)
{
    jw_put(w, &c, 1);
    if (w->depth)
        w->depth--;
}

static void jw_strn(jw *w, const char *k, const char *s, size_t n)
{
    jw_key(w, k);
    if (w->st == TW_OK)
        w->st = tw_json_write_str(w->b, s ? s : "", s ? n : 0, TW_JSON_COMPACT);
}

static void jw_str(jw *w, const char *k, const char *s) { jw_strn(w, k, s, s ? strlen(s) : 0); }

static void jw_raw(jw *w, const char *k, const char *lit)
{
    jw_key(w, k);
    jw_lit(w, lit);
}

static void jw_int(jw *w, const char *k, long long v)
{
    jw_key(w, k);
    if (w->st == TW_OK)
        w->st = tw_buf_printf(w->b, "%lld", v);
}

static void jw_json(jw *w, const char *k, const cJSON *v)
{
    jw_key(w, k);
    if (w->st == TW_OK)
        w->st = tw_json_write(w->b, v, TW_JSON_COMPACT);
}

/* ===================== shared helpers ===================== */

static const tw_encode_opts default_opts = {.parallel_tool_calls = -1};

typedef struct capsave {
    size_t len, max;
} capsave;

/* Narrow out->max so that at most max_output_bytes are added. */
static void cap_begin(tw_buf *out, const tw_encode_opts *o, capsave *s)
{
    tw_limits l;
    tw_limits_resolve(&l, &o->limits);
    s->len = out->len;
    s->max = out->max;
    size_t lim = out->len + l.max_output_bytes < out->len ? SIZE_MAX
                                                          : out->len + l.max_output_bytes;
    if (out->max == 0 || out->max > lim)
        out->max = lim;
}

static tw_status cap_end(tw_buf *out, const capsave *s, tw_status st)
{
    out->max = s->max;
    if (st != TW_OK) {
        out->len = s->len;
        if (out->data)
            out->data[out->len] = '\0';
    }
    return st;
}

static tw_status not_carried(const tw_encode_opts *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static tw_status not_carried(const tw_encode_opts *o, const char *fmt, ...)
{
    if (!o->warnings)
        return TW_OK;
    char tmp[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    return tw_diag_add(o->warnings, TW_D_NOT_CARRIED, -1, tmp);
}

/* Compact JSON text of a call's arguments ({} when none). */
static tw_status args_text(const tw_call *c, const tw_limits *l, tw_buf *t)
{
    t->max = l->max_output_bytes;
    if (!c->arguments)
        return tw_buf_puts(t, "{}");
    return tw_json_write(t, c->arguments, TW_JSON_COMPACT);
}

/* Bytes of the next fragment of s[0, n): at most frag (0: all), never
 * splitting a UTF-8 sequence, at least one character. */
static size_t frag_len(const char *s, size_t n, size_t frag)
{
    if (frag == 0 || n <= frag)
        return n;
    size_t k = tw_utf8_cut(s, n, frag);
    if (k == 0) {
        k = 1;
        while (k < n && k < 4 && ((unsigned char)s[k] & 0xC0) == 0x80)
            k++;
    }
    return k;
}

const char *tw_openai_finish_reason(const tw_result *r)
{
    if (r->finish_reason && r->finish_reason[0])
        return r->finish_reason;
    return r->msg.ncalls ? "tool_calls" : "stop";
}

/* ===================== requests ===================== */

/* Generation options OpenAI takes as top-level request fields. */
static const char *const openai_options[] = {
    "temperature", "top_p",  "max_tokens",       "max_completion_tokens", "stop",
    "seed",        "n",      "presence_penalty", "frequency_penalty",     "logit_bias",
    "user",        "stream", "stream_options",   "response_format",       "reasoning_effort",
    NULL};

static bool is_openai_option(const char *k)
{
    for (size_t i = 0; openai_options[i]; i++)
        if (strcmp(openai_options[i], k) == 0)
            return true;
    return false;
}

/* Was a call with this id and name in an assistant message before index mi? */
static bool name_recoverable(const tw_request *r, size_t mi, const char *id, const char *name)
{
    for (size_t i = mi; i-- > 0;) {
        const tw_message *m = &r->messages[i];
        if (m->role != TW_ROLE_ASSISTANT)
            continue;
        for (size_t k = 0; k < m->ncalls; k++)
            if (m->calls[k].id && id && strcmp(m->calls[k].id, id) == 0)
                return m->calls[k].name && strcmp(m->calls[k].name, name) == 0;
        return false;
    }
    return false;
}

static tw_status write_tool_calls(jw *w, const tw_call *calls, size_t n, const tw_limits *l)
{
    jw_open(w, "tool_calls", '[');
    for (size_t i = 0; i < n && w->st == TW_OK; i++) {
        if (!calls[i].name || !calls[i].name[0])
            return TW_ERR_INVALID;
        tw_buf t = {0};
        tw_status st = args_text(&calls[i], l, &t);
        if (st != TW_OK) {
            tw_buf_free(&t);
            return st;
        }
        jw_open(w, NULL, '{');
        jw_str(w, "id", calls[i].id ? calls[i].id : "");
        jw_str(w, "type", "function");
        jw_open(w, "function", '{');
        jw_str(w, "name", calls[i].name);
        jw_strn(w, "arguments", t.data, t.len);
        jw_close(w, '}');
        jw_close(w, '}');
        tw_buf_free(&t);
    }
    jw_close(w, ']');
    return w->st;
}

static tw_status write_message(jw *w, const tw_request *r, size_t mi, const tw_encode_opts *o,
                               const tw_limits *l)
{
    const tw_message *m = &r->messages[mi];
    tw_status st = TW_OK;
    if (m->thinking.len)
        st = not_carried(o, "messages[%zu].thinking: OpenAI requests carry no reasoning", mi);
    if (st == TW_OK && m->thinking_signature)
        st = not_carried(o, "messages[%zu].thinking_signature: OpenAI has no thinking signature",
                         mi);
    if (st == TW_OK && (m->has_redacted_thinking || m->redacted_thinking))
        st = not_carried(o, "messages[%zu].redacted_thinking: OpenAI has no redacted thinking",
                         mi);
    if (st == TW_OK && m->ncalls && m->role != TW_ROLE_ASSISTANT)
        st = not_carried(o, "messages[%zu].tool_calls: only assistant messages carry calls", mi);
    if (st == TW_OK && m->role == TW_ROLE_TOOL && m->is_error)
        st = not_carried(o, "messages[%zu].is_error: OpenAI tool messages have no error flag",
                         mi);
    if (st == TW_OK && m->role == TW_ROLE_TOOL && m->name &&
        !name_recoverable(r, mi, m->tool_call_id, m->name))
        st = not_carried(o,
                         "messages[%zu].name: OpenAI tool messages carry no tool name and no "
                         "earlier call names it",
                         mi);
    if (st != TW_OK)
        return st;

    jw_open(w, NULL, '{');
    jw_str(w, "role", tw_role_name(m->role));
    if (m->role == TW_ROLE_ASSISTANT && m->ncalls) {
        if (m->content.len)
            jw_strn(w, "content", m->content.data, m->content.len);
        else
            jw_raw(w, "content", "null");
        if (w->st == TW_OK)
            w->st = write_tool_calls(w, m->calls, m->ncalls, l);
    } else {
        if (m->role == TW_ROLE_TOOL)
            jw_str(w, "tool_call_id", m->tool_call_id ? m->tool_call_id : "");
        jw_strn(w, "content", m->content.data, m->content.len);
    }
    jw_close(w, '}');
    return w->st;
}

tw_status tw_openai_encode_request(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!o)
        o = &default_opts;
    tw_limits l;
    tw_limits_resolve(&l, &o->limits);
    if (r->nmessages > l.max_messages || r->ntools > l.max_tools)
        return TW_ERR_LIMIT;
    capsave cs;
    cap_begin(out, o, &cs);
    jw w = {.b = out};
    tw_status st = TW_OK;

    jw_open(&w, NULL, '{');
    const char *model = o->model ? o->model : r->model;
    if (model)
        jw_str(&w, "model", model);
    jw_open(&w, "messages", '[');
    for (size_t i = 0; i < r->nmessages && st == TW_OK && w.st == TW_OK; i++)
        st = write_message(&w, r, i, o, &l);
    jw_close(&w, ']');
    if (st == TW_OK && r->ntools) {
        jw_open(&w, "tools", '[');
        for (size_t i = 0; i < r->ntools && w.st == TW_OK; i++) {
            const tw_tool *t = &r->tools[i];
            jw_open(&w, NULL, '{');
            jw_str(&w, "type", "function");
            jw_open(&w, "function", '{');
            jw_str(&w, "name", t->name);
            if (t->description)
                jw_str(&w, "description", t->description);
            if (t->parameters) {
                cJSON *p = cJSON_Duplicate(t->parameters, 1);
                if (!p) {
                    st = TW_ERR_NOMEM;
                    break;
                }
                tw_shim_schema_normalize(p, l.max_depth);
                jw_json(&w, "parameters", p);
                cJSON_Delete(p);
            }
            jw_close(&w, '}');
            jw_close(&w, '}');
        }
        jw_close(&w, ']');
    }
    /* an empty tools array is refused by OpenAI; leaving it out means the same */
    if (st == TW_OK) {
        switch (r->choice) {
        case TW_CHOICE_AUTO: jw_str(&w, "tool_choice", "auto"); break;
        case TW_CHOICE_NONE: jw_str(&w, "tool_choice", "none"); break;
        case TW_CHOICE_REQUIRED: jw_str(&w, "tool_choice", "required"); break;
        case TW_CHOICE_NAMED:
            jw_open(&w, "tool_choice", '{');
            jw_str(&w, "type", "function");
            jw_open(&w, "function", '{');
            jw_str(&w, "name", r->choice_name ? r->choice_name : "");
            jw_close(&w, '}');
            jw_close(&w, '}');
            break;
        default: break;
        }
    }
    int ptc = o->parallel_tool_calls >= 0 ? o->parallel_tool_calls : r->parallel_tool_calls;
    if (st == TW_OK) {
        if (r->ntools)
            jw_raw(&w, "parallel_tool_calls", ptc > 0 ? "true" : "false");
        else if (ptc >= 0)
            st = not_carried(o, "parallel_tool_calls: OpenAI takes it only with tools");
    }
    if (st == TW_OK && r->options) {
        for (const cJSON *c = r->options->child; c && w.st == TW_OK && st == TW_OK; c = c->next) {
            if (!c->string)
                continue;
            if (is_openai_option(c->string))
                jw_json(&w, c->string, c);
            else
                st = not_carried(o, "options.%s: not an OpenAI request field", c->string);
        }
    }
    jw_close(&w, '}');
    if (st == TW_OK)
        st = w.st;
    return cap_end(out, &cs, st);
}

/* ===================== responses ===================== */

static tw_status result_warnings(const tw_result *r, const tw_encode_opts *o)
{
    tw_status st = TW_OK;
    if (r->msg.thinking_signature)
        st = not_carried(o, "thinking_signature: OpenAI has no thinking signature");
    if (st == TW_OK && (r->msg.has_redacted_thinking || r->msg.redacted_thinking))
        st = not_carried(o, "redacted_thinking: OpenAI has no redacted thinking");
    return st;
}

static void write_usage(jw *w)
{
    jw_open(w, "usage", '{');
    jw_int(w, "prompt_tokens", 0);
    jw_int(w, "completion_tokens", 0);
    jw_int(w, "total_tokens", 0);
    jw_close(w, '}');
}

tw_status tw_openai_encode_response(const tw_result *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!o)
        o = &default_opts;
    tw_limits l;
    tw_limits_resolve(&l, &o->limits);
    tw_status st = result_warnings(r, o);
    if (st != TW_OK)
        return st;
    capsave cs;
    cap_begin(out, o, &cs);
    jw w = {.b = out};
    jw_open(&w, NULL, '{');
    jw_str(&w, "id", o->id ? o->id : TW_OPENAI_DEFAULT_ID);
    jw_str(&w, "object", "chat.completion");
    jw_int(&w, "created", o->created ? o->created : TW_OPENAI_DEFAULT_CREATED);
    jw_str(&w, "model", o->model ? o->model : TW_DEFAULT_MODEL);
    jw_open(&w, "choices", '[');
    jw_open(&w, NULL, '{');
    jw_int(&w, "index", 0);
    jw_open(&w, "message", '{');
    jw_str(&w, "role", "assistant");
    if (r->msg.content.len || !r->msg.ncalls)
        jw_strn(&w, "content", r->msg.content.data, r->msg.content.len);
    else
        jw_raw(&w, "content", "null");
    if (r->msg.thinking.len)
        jw_strn(&w, "reasoning_content", r->msg.thinking.data, r->msg.thinking.len);
    if (r->msg.ncalls && w.st == TW_OK)
        w.st = write_tool_calls(&w, r->msg.calls, r->msg.ncalls, &l);
    jw_close(&w, '}');
    jw_str(&w, "finish_reason", tw_openai_finish_reason(r));
    jw_close(&w, '}');
    jw_close(&w, ']');
    write_usage(&w);
    jw_close(&w, '}');
    return cap_end(out, &cs, w.st);
}

/* ===================== streams ===================== */

typedef struct chunker {
    jw w;
    const tw_encode_opts *o;
} chunker;

/* "data: {header ... "choices":[{"index":0,"delta":" — the caller writes the
 * delta object, then chunk_end. */
static void chunk_begin(chunker *c)
{
    jw *w = &c->w;
    jw_lit(w, "data: ");
    w->depth = 0;
    jw_open(w, NULL, '{');
    jw_str(w, "id", c->o->id ? c->o->id : TW_OPENAI_DEFAULT_ID);
    jw_str(w, "object", "chat.completion.chunk");
    jw_int(w, "created", c->o->created ? c->o->created : TW_OPENAI_DEFAULT_CREATED);
    jw_str(w, "model", c->o->model ? c->o->model : TW_DEFAULT_MODEL);
    jw_open(w, "choices", '[');
    jw_open(w, NULL, '{');
    jw_int(w, "index", 0);
    jw_open(w, "delta", '{');
}

static void chunk_end(chunker *c, const char *finish)
{
    jw *w = &c->w;
    jw_close(w, '}');
    if (finish)
        jw_str(w, "finish_reason", finish);
    else
        jw_raw(w, "finish_reason", "null");
    jw_close(w, '}');
    jw_close(w, ']');
    jw_close(w, '}');
    jw_lit(w, "\n\n");
}

static void text_chunks(chunker *c, const char *key, const char *s, size_t n, size_t frag)
{
    for (size_t off = 0; off < n && c->w.st == TW_OK;) {
        size_t k = frag_len(s + off, n - off, frag);
        chunk_begin(c);
        jw_strn(&c->w, key, s + off, k);
        chunk_end(c, NULL);
        off += k;
    }
}

static void call_chunk(chunker *c, size_t index, const tw_call *call, const char *args,
                       size_t alen, bool header)
{
    jw *w = &c->w;
    chunk_begin(c);
    jw_open(w, "tool_calls", '[');
    jw_open(w, NULL, '{');
    jw_int(w, "index", (long long)index);
    if (header) {
        jw_str(w, "id", call->id ? call->id : "");
        jw_str(w, "type", "function");
    }
    jw_open(w, "function", '{');
    if (header)
        jw_str(w, "name", call->name);
    jw_strn(w, "arguments", args, alen);
    jw_close(w, '}');
    jw_close(w, '}');
    jw_close(w, ']');
    chunk_end(c, NULL);
}

tw_status tw_openai_encode_stream(const tw_result *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!o)
        o = &default_opts;
    tw_limits l;
    tw_limits_resolve(&l, &o->limits);
    tw_status st = result_warnings(r, o);
    if (st != TW_OK)
        return st;
    for (size_t i = 0; i < r->msg.ncalls; i++)
        if (!r->msg.calls[i].name || !r->msg.calls[i].name[0])
            return TW_ERR_INVALID;
    capsave cs;
    cap_begin(out, o, &cs);
    chunker c = {.w = {.b = out}, .o = o};

    chunk_begin(&c);
    jw_str(&c.w, "role", "assistant");
    jw_str(&c.w, "content", "");
    chunk_end(&c, NULL);
    text_chunks(&c, "reasoning_content", r->msg.thinking.data, r->msg.thinking.len,
                o->text_fragment);
    text_chunks(&c, "content", r->msg.content.data, r->msg.content.len, o->text_fragment);
    for (size_t i = 0; i < r->msg.ncalls && c.w.st == TW_OK; i++) {
        tw_buf t = {0};
        st = args_text(&r->msg.calls[i], &l, &t);
        if (st != TW_OK) {
            tw_buf_free(&t);
            break;
        }
        if (o->args_fragment == 0 || t.len <= o->args_fragment) {
            call_chunk(&c, i, &r->msg.calls[i], t.data, t.len, true);
        } else {
            call_chunk(&c, i, &r->msg.calls[i], "", 0, true);
            for (size_t off = 0; off < t.len && c.w.st == TW_OK;) {
                size_t k = frag_len(t.data + off, t.len - off, o->args_fragment);
                call_chunk(&c, i, &r->msg.calls[i], t.data + off, k, false);
                off += k;
            }
        }
        tw_buf_free(&t);
    }
    if (st == TW_OK) {
        chunk_begin(&c);
        chunk_end(&c, tw_openai_finish_reason(r));
    }
    if (st == TW_OK && o->include_usage) {
        jw *w = &c.w;
        jw_lit(w, "data: ");
        w->depth = 0;
        jw_open(w, NULL, '{');
        jw_str(w, "id", o->id ? o->id : TW_OPENAI_DEFAULT_ID);
        jw_str(w, "object", "chat.completion.chunk");
        jw_int(w, "created", o->created ? o->created : TW_OPENAI_DEFAULT_CREATED);
        jw_str(w, "model", o->model ? o->model : TW_DEFAULT_MODEL);
        jw_open(w, "choices", '[');
        jw_close(w, ']');
        write_usage(w);
        jw_close(w, '}');
        jw_lit(w, "\n\n");
    }
    if (st == TW_OK && !o->omit_done)
        jw_lit(&c.w, "data: [DONE]\n\n");
    if (st == TW_OK)
        st = c.w.st;
    return cap_end(out, &cs, st);
}

/* ===================== registry ===================== */

const tw_encoder_ops tw_encoder_openai_request = {
    "openai-request", "OpenAI chat completions request body", TW_ENC_REQUEST,
    tw_openai_encode_request, tw_unsupported_encode_result};
const tw_encoder_ops tw_encoder_openai_response = {
    "openai-response", "OpenAI chat.completion response body", TW_ENC_RESULT,
    tw_unsupported_encode_request, tw_openai_encode_response};
const tw_encoder_ops tw_encoder_openai_stream = {
    "openai-stream", "OpenAI chat.completion.chunk SSE stream", TW_ENC_RESULT,
    tw_unsupported_encode_request, tw_openai_encode_stream};
