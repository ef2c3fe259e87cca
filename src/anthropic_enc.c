/*
 * Anthropic messages encoders: request bodies, message responses and event
 * streams. Output is deterministic (fixed id default, key order fixed here,
 * compact JSON without the locale) so tests compare bytes. Rules:
 * docs/formats/encoding.md.
 */
#include "toolwire/anthropic_encode.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "toolwire/openai_encode.h"
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

const char *tw_anthropic_stop_reason(const char *fr, size_t ncalls)
{
    if (!fr || !fr[0])
        return ncalls ? "tool_use" : "end_turn";
    if (strcmp(fr, "tool_calls") == 0)
        return "tool_use";
    if (strcmp(fr, "stop") == 0)
        return "end_turn";
    if (strcmp(fr, "length") == 0)
        return "max_tokens";
    if (strcmp(fr, "content_filter") == 0)
        return "refusal";
    return fr;
}

/* ===================== content blocks ===================== */

static void block_thinking(jw *w, const tw_message *m)
{
    jw_open(w, NULL, '{');
    jw_str(w, "type", "thinking");
    jw_strn(w, "thinking", m->thinking.data, m->thinking.len);
    if (m->thinking_signature)
        jw_str(w, "signature", m->thinking_signature);
    jw_close(w, '}');
}

/* A redacted_thinking element: the block object as given, or its data. */
static void block_redacted(jw *w, const char *key, const cJSON *x)
{
    if (cJSON_IsObject(x)) {
        jw_json(w, key, x);
        return;
    }
    jw_open(w, key, '{');
    jw_str(w, "type", "redacted_thinking");
    jw_str(w, "data", cJSON_IsString(x) ? x->valuestring : "");
    jw_close(w, '}');
}

static bool has_redacted(const tw_message *m)
{
    return cJSON_IsArray(m->redacted_thinking) && m->redacted_thinking->child;
}

static tw_status check_redacted(const tw_message *m, const tw_encode_opts *o, const char *where)
{
    if (m->has_redacted_thinking && !has_redacted(m))
        return not_carried(o, "%sredacted_thinking: flagged but no block data to write", where);
    return TW_OK;
}

static void block_tool_use(jw *w, const tw_call *c)
{
    jw_open(w, NULL, '{');
    jw_str(w, "type", "tool_use");
    jw_str(w, "id", c->id ? c->id : "");
    jw_str(w, "name", c->name);
    if (c->arguments)
        jw_json(w, "input", c->arguments);
    else
        jw_raw(w, "input", "{}");
    jw_close(w, '}');
}

/* The content blocks of an assistant message, in the API's order. */
static void assistant_blocks(jw *w, const tw_message *m)
{
    if (m->thinking.len || m->thinking_signature)
        block_thinking(w, m);
    if (has_redacted(m))
        for (const cJSON *x = m->redacted_thinking->child; x; x = x->next)
            block_redacted(w, NULL, x);
    if (m->content.len) {
        jw_open(w, NULL, '{');
        jw_str(w, "type", "text");
        jw_strn(w, "text", m->content.data, m->content.len);
        jw_close(w, '}');
    }
    for (size_t i = 0; i < m->ncalls; i++)
        block_tool_use(w, &m->calls[i]);
}

static bool calls_named(const tw_message *m)
{
    for (size_t i = 0; i < m->ncalls; i++)
        if (!m->calls[i].name || !m->calls[i].name[0])
            return false;
    return true;
}

/* ===================== requests ===================== */

static const char *const anthropic_options[] = {"temperature", "top_p",    "top_k", "metadata",
                                                 "stream",      "thinking", NULL};

static bool is_anthropic_option(const char *k)
{
    for (size_t i = 0; anthropic_options[i]; i++)
        if (strcmp(anthropic_options[i], k) == 0)
            return true;
    return false;
}

static tw_status request_warnings(const tw_request *r, const tw_encode_opts *o)
{
    tw_status st = TW_OK;
    bool other_seen = false;
    for (size_t i = 0; st == TW_OK && i < r->nmessages; i++) {
        const tw_message *m = &r->messages[i];
        char where[48];
        snprintf(where, sizeof where, "messages[%zu].", i);
        if (m->role == TW_ROLE_SYSTEM && other_seen)
            st = not_carried(o,
                             "messages[%zu]: a system message inside the conversation; its text "
                             "moved to the top-level system",
                             i);
        if (m->role != TW_ROLE_SYSTEM)
            other_seen = true;
        if (st == TW_OK && m->role != TW_ROLE_ASSISTANT) {
            if (m->thinking.len)
                st = not_carried(o, "messages[%zu].thinking: only assistant turns carry thinking",
                                 i);
            if (st == TW_OK && m->thinking_signature)
                st = not_carried(o, "messages[%zu].thinking_signature: only assistant turns "
                                    "carry thinking", i);
            if (st == TW_OK && (m->has_redacted_thinking || m->redacted_thinking))
                st = not_carried(o, "messages[%zu].redacted_thinking: only assistant turns "
                                    "carry thinking", i);
            if (st == TW_OK && m->ncalls)
                st = not_carried(o, "messages[%zu].tool_calls: only assistant turns carry calls",
                                 i);
        } else if (st == TW_OK) {
            st = check_redacted(m, o, where);
        }
        if (st == TW_OK && m->role == TW_ROLE_TOOL && m->name &&
            !name_recoverable(r, i, m->tool_call_id, m->name))
            st = not_carried(o,
                             "messages[%zu].name: tool_result blocks carry no tool name and no "
                             "earlier call names it",
                             i);
    }
    return st;
}

static void tool_result_block(jw *w, const tw_message *m)
{
    jw_open(w, NULL, '{');
    jw_str(w, "type", "tool_result");
    jw_str(w, "tool_use_id", m->tool_call_id ? m->tool_call_id : "");
    jw_strn(w, "content", m->content.data, m->content.len);
    if (m->is_error)
        jw_raw(w, "is_error", "true");
    jw_close(w, '}');
}

static void write_messages(jw *w, const tw_request *r)
{
    jw_open(w, "messages", '[');
    for (size_t i = 0; i < r->nmessages && w->st == TW_OK; i++) {
        const tw_message *m = &r->messages[i];
        switch (m->role) {
        case TW_ROLE_SYSTEM: break;
        case TW_ROLE_USER:
            jw_open(w, NULL, '{');
            jw_str(w, "role", "user");
            jw_strn(w, "content", m->content.data, m->content.len);
            jw_close(w, '}');
            break;
        case TW_ROLE_ASSISTANT:
            jw_open(w, NULL, '{');
            jw_str(w, "role", "assistant");
            if (!m->thinking.len && !m->thinking_signature && !has_redacted(m) && !m->ncalls) {
                jw_strn(w, "content", m->content.data, m->content.len);
            } else {
                jw_open(w, "content", '[');
                assistant_blocks(w, m);
                jw_close(w, ']');
            }
            jw_close(w, '}');
            break;
        case TW_ROLE_TOOL: {
            /* one user turn: every consecutive tool result first, then the
             * text of a user message that follows them */
            jw_open(w, NULL, '{');
            jw_str(w, "role", "user");
            jw_open(w, "content", '[');
            size_t j = i;
            for (; j < r->nmessages && r->messages[j].role == TW_ROLE_TOOL; j++)
                tool_result_block(w, &r->messages[j]);
            if (j < r->nmessages && r->messages[j].role == TW_ROLE_USER) {
                const tw_message *u = &r->messages[j];
                if (u->content.len) {
                    jw_open(w, NULL, '{');
                    jw_str(w, "type", "text");
                    jw_strn(w, "text", u->content.data, u->content.len);
                    jw_close(w, '}');
                }
                j++;
            }
            jw_close(w, ']');
            jw_close(w, '}');
            i = j - 1;
            break;
        }
        }
    }
    jw_close(w, ']');
}

tw_status tw_anthropic_encode_request(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!o)
        o = &default_opts;
    tw_limits l;
    tw_limits_resolve(&l, &o->limits);
    if (r->nmessages > l.max_messages || r->ntools > l.max_tools)
        return TW_ERR_LIMIT;
    for (size_t i = 0; i < r->nmessages; i++)
        if (r->messages[i].role == TW_ROLE_ASSISTANT && !calls_named(&r->messages[i]))
            return TW_ERR_INVALID;
    tw_status st = request_warnings(r, o);
    int ptc = o->parallel_tool_calls >= 0 ? o->parallel_tool_calls : r->parallel_tool_calls;
    if (st == TW_OK && ptc >= 0 && !r->ntools)
        st = not_carried(o, "parallel_tool_calls: Anthropic takes it only with tools");
    else if (st == TW_OK && ptc >= 0 && r->choice == TW_CHOICE_NONE)
        st = not_carried(o, "parallel_tool_calls: Anthropic has no parallel setting with "
                            "tool_choice none");
    if (st != TW_OK)
        return st;

    capsave cs;
    cap_begin(out, o, &cs);
    jw w = {.b = out};
    jw_open(&w, NULL, '{');
    const char *model = o->model ? o->model : r->model;
    if (model)
        jw_str(&w, "model", model);
    const cJSON *mt = tw_json_get(r->options, "max_tokens");
    if (cJSON_IsNumber(mt))
        jw_json(&w, "max_tokens", mt);
    else
        jw_int(&w, "max_tokens", TW_ANTHROPIC_DEFAULT_MAX_TOKENS);
    bool any_system = false;
    for (size_t i = 0; i < r->nmessages; i++)
        any_system |= r->messages[i].role == TW_ROLE_SYSTEM;
    if (any_system) {
        tw_buf sys = {0};
        sys.max = l.max_output_bytes;
        bool first = true;
        for (size_t i = 0; i < r->nmessages && st == TW_OK; i++) {
            const tw_message *m = &r->messages[i];
            if (m->role != TW_ROLE_SYSTEM)
                continue;
            if (!first)
                st = tw_buf_append(&sys, "\n\n", 2);
            if (st == TW_OK)
                st = tw_buf_append(&sys, m->content.data ? m->content.data : "", m->content.len);
            first = false;
        }
        jw_strn(&w, "system", sys.data, sys.len);
        tw_buf_free(&sys);
    }
    write_messages(&w, r);
    if (r->ntools) {
        jw_open(&w, "tools", '[');
        for (size_t i = 0; i < r->ntools && w.st == TW_OK; i++) {
            const tw_tool *t = &r->tools[i];
            jw_open(&w, NULL, '{');
            jw_str(&w, "name", t->name);
            if (t->description)
                jw_str(&w, "description", t->description);
            if (t->parameters)
                jw_json(&w, "input_schema", t->parameters);
            else
                jw_raw(&w, "input_schema", "{\"type\":\"object\",\"properties\":{}}");
            jw_close(&w, '}');
        }
        jw_close(&w, ']');
    }
    bool ptc_here = ptc >= 0 && r->ntools && r->choice != TW_CHOICE_NONE;
    if (r->choice != TW_CHOICE_UNSET || ptc_here) {
        jw_open(&w, "tool_choice", '{');
        switch (r->choice) {
        case TW_CHOICE_NONE: jw_str(&w, "type", "none"); break;
        case TW_CHOICE_REQUIRED: jw_str(&w, "type", "any"); break;
        case TW_CHOICE_NAMED:
            jw_str(&w, "type", "tool");
            jw_str(&w, "name", r->choice_name ? r->choice_name : "");
            break;
        default: jw_str(&w, "type", "auto"); break;
        }
        if (ptc_here)
            jw_raw(&w, "disable_parallel_tool_use", ptc ? "false" : "true");
        jw_close(&w, '}');
    }
    if (r->options) {
        for (const cJSON *c = r->options->child; c && w.st == TW_OK && st == TW_OK; c = c->next) {
            if (!c->string || strcmp(c->string, "max_tokens") == 0)
                continue;
            if (strcmp(c->string, "stop") == 0 && cJSON_IsString(c)) {
                jw_open(&w, "stop_sequences", '[');
                jw_str(&w, NULL, c->valuestring);
                jw_close(&w, ']');
            } else if (strcmp(c->string, "stop") == 0 && cJSON_IsArray(c)) {
                jw_json(&w, "stop_sequences", c);
            } else if (is_anthropic_option(c->string)) {
                jw_json(&w, c->string, c);
            } else {
                st = not_carried(o, "options.%s: not an Anthropic request field", c->string);
            }
        }
    }
    jw_close(&w, '}');
    if (st == TW_OK)
        st = w.st;
    return cap_end(out, &cs, st);
}

/* ===================== responses ===================== */

static void write_usage(jw *w, bool with_input)
{
    jw_open(w, "usage", '{');
    if (with_input)
        jw_int(w, "input_tokens", 0);
    jw_int(w, "output_tokens", 0);
    jw_close(w, '}');
}

static void message_head(jw *w, const tw_encode_opts *o)
{
    jw_str(w, "id", o->id ? o->id : TW_ANTHROPIC_DEFAULT_ID);
    jw_str(w, "type", "message");
    jw_str(w, "role", "assistant");
    jw_str(w, "model", o->model ? o->model : TW_DEFAULT_MODEL);
}

tw_status tw_anthropic_encode_response(const tw_result *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!o)
        o = &default_opts;
    if (!calls_named(&r->msg))
        return TW_ERR_INVALID;
    tw_status st = check_redacted(&r->msg, o, "");
    if (st != TW_OK)
        return st;
    capsave cs;
    cap_begin(out, o, &cs);
    jw w = {.b = out};
    jw_open(&w, NULL, '{');
    message_head(&w, o);
    jw_open(&w, "content", '[');
    assistant_blocks(&w, &r->msg);
    jw_close(&w, ']');
    jw_str(&w, "stop_reason", tw_anthropic_stop_reason(r->finish_reason, r->msg.ncalls));
    jw_raw(&w, "stop_sequence", "null");
    write_usage(&w, true);
    jw_close(&w, '}');
    return cap_end(out, &cs, w.st);
}

/* ===================== streams ===================== */

static void ev_begin(jw *w, const char *type)
{
    jw_lit(w, "event: ");
    jw_lit(w, type);
    jw_lit(w, "\ndata: ");
    w->depth = 0;
    jw_open(w, NULL, '{');
    jw_str(w, "type", type);
}

static void ev_end(jw *w)
{
    jw_close(w, '}');
    jw_lit(w, "\n\n");
}

static void block_start_open(jw *w, size_t index)
{
    ev_begin(w, "content_block_start");
    jw_int(w, "index", (long long)index);
}

static void block_stop(jw *w, size_t index)
{
    ev_begin(w, "content_block_stop");
    jw_int(w, "index", (long long)index);
    ev_end(w);
}

static void delta(jw *w, size_t index, const char *type, const char *key, const char *s,
                  size_t n)
{
    ev_begin(w, "content_block_delta");
    jw_int(w, "index", (long long)index);
    jw_open(w, "delta", '{');
    jw_str(w, "type", type);
    jw_strn(w, key, s, n);
    jw_close(w, '}');
    ev_end(w);
}

static void deltas(jw *w, size_t index, const char *type, const char *key, const char *s,
                   size_t n, size_t frag)
{
    for (size_t off = 0; off < n && w->st == TW_OK;) {
        size_t k = frag_len(s + off, n - off, frag);
        delta(w, index, type, key, s + off, k);
        off += k;
    }
}

tw_status tw_anthropic_encode_stream(const tw_result *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!o)
        o = &default_opts;
    tw_limits l;
    tw_limits_resolve(&l, &o->limits);
    const tw_message *m = &r->msg;
    if (!calls_named(m))
        return TW_ERR_INVALID;
    tw_status st = check_redacted(m, o, "");
    if (st != TW_OK)
        return st;
    capsave cs;
    cap_begin(out, o, &cs);
    jw w = {.b = out};
    size_t index = 0;

    ev_begin(&w, "message_start");
    jw_open(&w, "message", '{');
    message_head(&w, o);
    jw_open(&w, "content", '[');
    jw_close(&w, ']');
    jw_raw(&w, "stop_reason", "null");
    jw_raw(&w, "stop_sequence", "null");
    write_usage(&w, true);
    jw_close(&w, '}');
    ev_end(&w);

    if (m->thinking.len || m->thinking_signature) {
        block_start_open(&w, index);
        jw_open(&w, "content_block", '{');
        jw_str(&w, "type", "thinking");
        jw_str(&w, "thinking", "");
        jw_close(&w, '}');
        ev_end(&w);
        deltas(&w, index, "thinking_delta", "thinking", m->thinking.data, m->thinking.len,
               o->text_fragment);
        if (m->thinking_signature)
            delta(&w, index, "signature_delta", "signature", m->thinking_signature,
                  strlen(m->thinking_signature));
        block_stop(&w, index++);
    }
    if (has_redacted(m))
        for (const cJSON *x = m->redacted_thinking->child; x; x = x->next) {
            block_start_open(&w, index);
            block_redacted(&w, "content_block", x);
            ev_end(&w);
            block_stop(&w, index++);
        }
    if (m->content.len) {
        block_start_open(&w, index);
        jw_open(&w, "content_block", '{');
        jw_str(&w, "type", "text");
        jw_str(&w, "text", "");
        jw_close(&w, '}');
        ev_end(&w);
        deltas(&w, index, "text_delta", "text", m->content.data, m->content.len,
               o->text_fragment);
        block_stop(&w, index++);
    }
    for (size_t i = 0; i < m->ncalls && w.st == TW_OK; i++) {
        const tw_call *c = &m->calls[i];
        tw_buf t = {0};
        st = args_text(c, &l, &t);
        if (st != TW_OK) {
            tw_buf_free(&t);
            break;
        }
        block_start_open(&w, index);
        jw_open(&w, "content_block", '{');
        jw_str(&w, "type", "tool_use");
        jw_str(&w, "id", c->id ? c->id : "");
        jw_str(&w, "name", c->name);
        jw_raw(&w, "input", "{}");
        jw_close(&w, '}');
        ev_end(&w);
        deltas(&w, index, "input_json_delta", "partial_json", t.data, t.len, o->args_fragment);
        block_stop(&w, index++);
        tw_buf_free(&t);
    }
    if (st == TW_OK) {
        ev_begin(&w, "message_delta");
        jw_open(&w, "delta", '{');
        jw_str(&w, "stop_reason", tw_anthropic_stop_reason(r->finish_reason, m->ncalls));
        jw_raw(&w, "stop_sequence", "null");
        jw_close(&w, '}');
        write_usage(&w, false);
        ev_end(&w);
        if (!o->omit_done) {
            ev_begin(&w, "message_stop");
            ev_end(&w);
        }
        st = w.st;
    }
    return cap_end(out, &cs, st);
}

/* ===================== registry ===================== */

const tw_encoder_ops tw_encoder_anthropic_request = {
    "anthropic-request", "Anthropic messages request body", TW_ENC_REQUEST,
    tw_anthropic_encode_request, tw_unsupported_encode_result};
const tw_encoder_ops tw_encoder_anthropic_response = {
    "anthropic-response", "Anthropic message response body", TW_ENC_RESULT,
    tw_unsupported_encode_request, tw_anthropic_encode_response};
const tw_encoder_ops tw_encoder_anthropic_stream = {
    "anthropic-stream", "Anthropic messages event stream (SSE)", TW_ENC_RESULT,
    tw_unsupported_encode_request, tw_anthropic_encode_stream};
