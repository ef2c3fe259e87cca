/*
 * OpenAI Responses API encoders: POST /v1/responses request bodies,
 * `response` objects and the typed event stream. Output is deterministic
 * (fixed id/created_at defaults, item ids from the output index, key order
 * fixed here, compact JSON without the locale) so tests compare bytes.
 * Rules: docs/formats/openai-responses-encode.md.
 */
#include "alloc.h"
#include "toolwire/openai_responses_encode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enc_common.h"
#include "formats.h"
#include "toolwire/openai_encode.h"

/* ===================== output items ===================== */

/* What a neutral assistant message becomes: a reasoning item when it has
 * thinking or a signature, a message item when it has content (or nothing
 * else at all), then one function_call item per call. */
static bool has_reasoning(const tw_message *m)
{
    return m->thinking.len || m->thinking_signature;
}

static bool has_message(const tw_message *m)
{
    return m->content.len || (!m->ncalls && !has_reasoning(m));
}

static bool calls_named(const tw_message *m)
{
    for (size_t i = 0; i < m->ncalls; i++)
        if (!m->calls[i].name || !m->calls[i].name[0])
            return false;
    return true;
}

static void item_id(char *buf, size_t n, const char *prefix, size_t index)
{
    snprintf(buf, n, "%s_%zu", prefix, index);
}

static void summary_parts(tw_jw *w, const tw_message *m, bool with_text)
{
    tw_jw_open(w, "summary", '[');
    if (with_text && m->thinking.len) {
        tw_jw_open(w, NULL, '{');
        tw_jw_str(w, "type", "summary_text");
        tw_jw_strn(w, "text", m->thinking.data, m->thinking.len);
        tw_jw_close(w, '}');
    }
    tw_jw_close(w, ']');
}

/* A reasoning output item; done: with its summary and encrypted content. */
static void reasoning_item(tw_jw *w, const char *key, const tw_message *m, size_t index, bool done)
{
    char id[48];
    item_id(id, sizeof id, "rs", index);
    tw_jw_open(w, key, '{');
    tw_jw_str(w, "type", "reasoning");
    tw_jw_str(w, "id", id);
    summary_parts(w, m, done);
    if (done && m->thinking_signature)
        tw_jw_str(w, "encrypted_content", m->thinking_signature);
    tw_jw_close(w, '}');
}

static void output_text_part(tw_jw *w, const char *key, const char *s, size_t n)
{
    tw_jw_open(w, key, '{');
    tw_jw_str(w, "type", "output_text");
    tw_jw_strn(w, "text", s, n);
    tw_jw_open(w, "annotations", '[');
    tw_jw_close(w, ']');
    tw_jw_close(w, '}');
}

static void message_item(tw_jw *w, const char *key, const tw_message *m, size_t index, bool done)
{
    char id[48];
    item_id(id, sizeof id, "msg", index);
    tw_jw_open(w, key, '{');
    tw_jw_str(w, "type", "message");
    tw_jw_str(w, "id", id);
    tw_jw_str(w, "status", done ? "completed" : "in_progress");
    tw_jw_str(w, "role", "assistant");
    tw_jw_open(w, "content", '[');
    if (done)
        output_text_part(w, NULL, m->content.data, m->content.len);
    tw_jw_close(w, ']');
    tw_jw_close(w, '}');
}

static void call_item(tw_jw *w, const char *key, const tw_call *c, const char *args, size_t alen,
                      size_t index, bool done)
{
    char id[48];
    item_id(id, sizeof id, "fc", index);
    tw_jw_open(w, key, '{');
    tw_jw_str(w, "type", "function_call");
    tw_jw_str(w, "id", id);
    tw_jw_str(w, "call_id", c->id ? c->id : "");
    tw_jw_str(w, "name", c->name);
    tw_jw_strn(w, "arguments", done ? args : "", done ? alen : 0);
    tw_jw_str(w, "status", done ? "completed" : "in_progress");
    tw_jw_close(w, '}');
}

/* ===================== status and what a result cannot carry ===================== */

/* The status of a finish_reason and, for "incomplete", the reason. */
static const char *status_of(const char *fr, const char **reason)
{
    *reason = NULL;
    if (fr && strcmp(fr, "length") == 0)
        *reason = "max_output_tokens";
    else if (fr && strcmp(fr, "content_filter") == 0)
        *reason = "content_filter";
    return *reason ? "incomplete" : "completed";
}

static tw_status result_warnings(const tw_result *r, const tw_encode_opts *o)
{
    const tw_message *m = &r->msg;
    tw_status st = TW_OK;
    if (m->has_redacted_thinking || m->redacted_thinking)
        st = tw_not_carried(o, "redacted_thinking: the Responses API has no redacted thinking");
    const char *fr = r->finish_reason;
    if (st == TW_OK && fr && fr[0]) {
        const char *reason;
        status_of(fr, &reason);
        const char *back = reason ? fr : (m->ncalls ? "tool_calls" : "stop");
        if (strcmp(back, fr) != 0)
            st = tw_not_carried(o,
                                "finish_reason: \"%s\" reads back as \"%s\" from a Responses "
                                "status",
                                fr, back);
    }
    return st;
}

/* Compact argument text of every call, in one buffer: call i is
 * text[off[i], off[i + 1]). */
typedef struct args_texts {
    tw_buf text;
    size_t *off;
} args_texts;

static tw_status args_collect(const tw_message *m, const tw_limits *l, args_texts *a)
{
    memset(a, 0, sizeof *a);
    a->text.max = l->max_output_bytes;
    if (!(a->off = tw_calloc(m->ncalls + 1, sizeof *a->off)))
        return TW_ERR_NOMEM;
    for (size_t i = 0; i < m->ncalls; i++) {
        tw_buf t = {0};
        tw_status st = tw_args_text(&m->calls[i], l, &t);
        if (st == TW_OK)
            st = tw_buf_append(&a->text, t.data ? t.data : "", t.len);
        tw_buf_free(&t);
        if (st != TW_OK)
            return st;
        a->off[i + 1] = a->text.len;
    }
    return TW_OK;
}

static void args_free(args_texts *a)
{
    tw_buf_free(&a->text);
    tw_free(a->off);
}

static void write_usage(tw_jw *w)
{
    tw_jw_open(w, "usage", '{');
    tw_jw_int(w, "input_tokens", 0);
    tw_jw_open(w, "input_tokens_details", '{');
    tw_jw_int(w, "cached_tokens", 0);
    tw_jw_close(w, '}');
    tw_jw_int(w, "output_tokens", 0);
    tw_jw_open(w, "output_tokens_details", '{');
    tw_jw_int(w, "reasoning_tokens", 0);
    tw_jw_close(w, '}');
    tw_jw_int(w, "total_tokens", 0);
    tw_jw_close(w, '}');
}

/* Every output item in neutral order, done. */
static void output_items(tw_jw *w, const tw_message *m, const args_texts *a)
{
    size_t k = 0;
    if (has_reasoning(m))
        reasoning_item(w, NULL, m, k++, true);
    if (has_message(m))
        message_item(w, NULL, m, k++, true);
    for (size_t i = 0; i < m->ncalls && w->st == TW_OK; i++)
        call_item(w, NULL, &m->calls[i], a->text.data + a->off[i], a->off[i + 1] - a->off[i], k++,
                  true);
}

/* The response object, in the order of the recorded ones (without the
 * request's echo); done: its final status, output and usage. */
static void response_object(tw_jw *w, const char *key, const tw_result *r, const tw_encode_opts *o,
                            const args_texts *a, bool done)
{
    const char *reason;
    const char *status = status_of(r->finish_reason, &reason);
    tw_jw_open(w, key, '{');
    tw_jw_str(w, "id", o->id ? o->id : TW_RESPONSES_DEFAULT_ID);
    tw_jw_str(w, "object", "response");
    tw_jw_int(w, "created_at", o->created ? o->created : TW_OPENAI_DEFAULT_CREATED);
    tw_jw_str(w, "status", done ? status : "in_progress");
    tw_jw_raw(w, "error", "null");
    if (done && reason) {
        tw_jw_open(w, "incomplete_details", '{');
        tw_jw_str(w, "reason", reason);
        tw_jw_close(w, '}');
    } else {
        tw_jw_raw(w, "incomplete_details", "null");
    }
    tw_jw_str(w, "model", o->model ? o->model : TW_DEFAULT_MODEL);
    tw_jw_open(w, "output", '[');
    if (done)
        output_items(w, &r->msg, a);
    tw_jw_close(w, ']');
    if (done)
        write_usage(w);
    else
        tw_jw_raw(w, "usage", "null");
    tw_jw_close(w, '}');
}

/* Checks and the argument texts every result encoder needs. */
static tw_status result_begin(const tw_result *r, const tw_encode_opts *o, tw_limits *l,
                              args_texts *a)
{
    tw_limits_resolve(l, &o->limits);
    memset(a, 0, sizeof *a);
    if (!calls_named(&r->msg))
        return TW_ERR_INVALID;
    tw_status st = result_warnings(r, o);
    if (st == TW_OK)
        st = args_collect(&r->msg, l, a);
    return st;
}

tw_status tw_responses_response_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!o)
        o = &tw_enc_default_opts;
    tw_limits l;
    args_texts a;
    tw_status st = result_begin(r, o, &l, &a);
    if (st != TW_OK) {
        args_free(&a);
        return st;
    }
    tw_capsave cs;
    tw_cap_begin(out, o, &cs);
    tw_jw w = {.b = out};
    response_object(&w, NULL, r, o, &a, true);
    args_free(&a);
    return tw_cap_end(out, &cs, w.st);
}

/* ===================== streams ===================== */

typedef struct evw {
    tw_jw w;
    long long seq; /* the next sequence_number */
} evw;

/* "event: <type>\ndata: {"type":…,"sequence_number":n" — the caller adds
 * the event's fields, then ev_end. */
static void ev_begin(evw *e, const char *type)
{
    tw_jw *w = &e->w;
    tw_jw_lit(w, "event: ");
    tw_jw_lit(w, type);
    tw_jw_lit(w, "\ndata: ");
    w->depth = 0;
    tw_jw_open(w, NULL, '{');
    tw_jw_str(w, "type", type);
    tw_jw_int(w, "sequence_number", e->seq++);
}

static void ev_end(evw *e)
{
    tw_jw_close(&e->w, '}');
    tw_jw_lit(&e->w, "\n\n");
}

static void ev_item(evw *e, const char *type, size_t index)
{
    ev_begin(e, type);
    tw_jw_int(&e->w, "output_index", (long long)index);
}

static void ev_where(evw *e, const char *type, const char *prefix, size_t index)
{
    char id[48];
    item_id(id, sizeof id, prefix, index);
    ev_begin(e, type);
    tw_jw_str(&e->w, "item_id", id);
    tw_jw_int(&e->w, "output_index", (long long)index);
}

/* The text of the item as deltas of at most frag bytes, then its .done. */
static void text_events(evw *e, const char *delta_type, const char *done_type, const char *done_key,
                        const char *prefix, size_t index, const char *index_key, const char *s,
                        size_t n, size_t frag)
{
    for (size_t off = 0; off < n && e->w.st == TW_OK;) {
        size_t k = tw_frag_len(s + off, n - off, frag);
        ev_where(e, delta_type, prefix, index);
        if (index_key)
            tw_jw_int(&e->w, index_key, 0);
        tw_jw_strn(&e->w, "delta", s + off, k);
        ev_end(e);
        off += k;
    }
    ev_where(e, done_type, prefix, index);
    if (index_key)
        tw_jw_int(&e->w, index_key, 0);
    tw_jw_strn(&e->w, done_key, s, n);
    ev_end(e);
}

static void summary_part_event(evw *e, const char *type, const tw_message *m, size_t index,
                               bool done)
{
    ev_where(e, type, "rs", index);
    tw_jw_int(&e->w, "summary_index", 0);
    tw_jw_open(&e->w, "part", '{');
    tw_jw_str(&e->w, "type", "summary_text");
    tw_jw_strn(&e->w, "text", done ? m->thinking.data : "", done ? m->thinking.len : 0);
    tw_jw_close(&e->w, '}');
    ev_end(e);
}

static void reasoning_events(evw *e, const tw_message *m, size_t index, size_t frag)
{
    ev_item(e, "response.output_item.added", index);
    reasoning_item(&e->w, "item", m, index, false);
    ev_end(e);
    if (m->thinking.len) {
        summary_part_event(e, "response.reasoning_summary_part.added", m, index, false);
        text_events(e, "response.reasoning_summary_text.delta",
                    "response.reasoning_summary_text.done", "text", "rs", index, "summary_index",
                    m->thinking.data, m->thinking.len, frag);
        summary_part_event(e, "response.reasoning_summary_part.done", m, index, true);
    }
    ev_item(e, "response.output_item.done", index);
    reasoning_item(&e->w, "item", m, index, true);
    ev_end(e);
}

static void content_part_event(evw *e, const char *type, const tw_message *m, size_t index,
                               bool done)
{
    ev_where(e, type, "msg", index);
    tw_jw_int(&e->w, "content_index", 0);
    output_text_part(&e->w, "part", done ? m->content.data : "", done ? m->content.len : 0);
    ev_end(e);
}

static void message_events(evw *e, const tw_message *m, size_t index, size_t frag)
{
    ev_item(e, "response.output_item.added", index);
    message_item(&e->w, "item", m, index, false);
    ev_end(e);
    content_part_event(e, "response.content_part.added", m, index, false);
    text_events(e, "response.output_text.delta", "response.output_text.done", "text", "msg", index,
                "content_index", m->content.data, m->content.len, frag);
    content_part_event(e, "response.content_part.done", m, index, true);
    ev_item(e, "response.output_item.done", index);
    message_item(&e->w, "item", m, index, true);
    ev_end(e);
}

static void call_events(evw *e, const tw_call *c, const char *args, size_t alen, size_t index,
                        size_t frag)
{
    ev_item(e, "response.output_item.added", index);
    call_item(&e->w, "item", c, args, alen, index, false);
    ev_end(e);
    text_events(e, "response.function_call_arguments.delta",
                "response.function_call_arguments.done", "arguments", "fc", index, NULL, args, alen,
                frag);
    ev_item(e, "response.output_item.done", index);
    call_item(&e->w, "item", c, args, alen, index, true);
    ev_end(e);
}

tw_status tw_responses_stream_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!o)
        o = &tw_enc_default_opts;
    tw_limits l;
    args_texts a;
    tw_status st = result_begin(r, o, &l, &a);
    if (st != TW_OK) {
        args_free(&a);
        return st;
    }
    const tw_message *m = &r->msg;
    tw_capsave cs;
    tw_cap_begin(out, o, &cs);
    evw e = {.w = {.b = out}};
    ev_begin(&e, "response.created");
    response_object(&e.w, "response", r, o, &a, false);
    ev_end(&e);
    ev_begin(&e, "response.in_progress");
    response_object(&e.w, "response", r, o, &a, false);
    ev_end(&e);
    size_t k = 0;
    if (has_reasoning(m))
        reasoning_events(&e, m, k++, o->text_fragment);
    if (has_message(m))
        message_events(&e, m, k++, o->text_fragment);
    for (size_t i = 0; i < m->ncalls && e.w.st == TW_OK; i++)
        call_events(&e, &m->calls[i], a.text.data + a.off[i], a.off[i + 1] - a.off[i], k++,
                    o->args_fragment);
    const char *reason;
    status_of(r->finish_reason, &reason);
    ev_begin(&e, reason ? "response.incomplete" : "response.completed");
    response_object(&e.w, "response", r, o, &a, true);
    ev_end(&e);
    args_free(&a);
    return tw_cap_end(out, &cs, e.w.st);
}

/* ===================== requests ===================== */

/* Request fields the Responses API takes as they are in the neutral
 * options. */
static const char *const passed_options[] = {"stream",
                                             "stream_options",
                                             "temperature",
                                             "top_p",
                                             "user",
                                             "metadata",
                                             "store",
                                             "reasoning",
                                             "text",
                                             "truncation",
                                             "include",
                                             "service_tier",
                                             "top_logprobs",
                                             "max_tool_calls",
                                             "prompt_cache_key",
                                             "safety_identifier",
                                             "background",
                                             "max_output_tokens",
                                             NULL};

static bool is_passed_option(const char *k)
{
    for (size_t i = 0; passed_options[i]; i++)
        if (strcmp(passed_options[i], k) == 0)
            return true;
    return false;
}

static bool is_max_tokens(const char *k)
{
    return strcmp(k, "max_output_tokens") == 0 || strcmp(k, "max_tokens") == 0 ||
           strcmp(k, "max_completion_tokens") == 0;
}

static bool is_reasoning(const char *k)
{
    return strcmp(k, "reasoning") == 0 || strcmp(k, "reasoning_effort") == 0;
}

/* The neutral options as Responses fields: max_tokens and
 * max_completion_tokens become max_output_tokens, reasoning_effort
 * {"reasoning": {"effort": …}}; a second spelling of either, and every
 * field the API does not take, is not carried. */
static tw_status write_options(tw_jw *w, const tw_request *r, const tw_encode_opts *o)
{
    bool maxtok = false, reasoning = false;
    tw_status st = TW_OK;
    for (const cJSON *c = r->options ? r->options->child : NULL; c && st == TW_OK && w->st == TW_OK;
         c = c->next) {
        const char *k = c->string;
        if (!k)
            continue;
        if (is_max_tokens(k)) {
            if (maxtok)
                st = tw_not_carried(o, "options.%s: max_output_tokens is already set", k);
            else
                tw_jw_json(w, "max_output_tokens", c);
            maxtok = true;
        } else if (is_reasoning(k)) {
            if (reasoning) {
                st = tw_not_carried(o, "options.%s: reasoning is already set", k);
            } else if (strcmp(k, "reasoning") == 0) {
                tw_jw_json(w, k, c);
            } else {
                tw_jw_open(w, "reasoning", '{');
                tw_jw_json(w, "effort", c);
                tw_jw_close(w, '}');
            }
            reasoning = true;
        } else if (is_passed_option(k)) {
            tw_jw_json(w, k, c);
        } else {
            st = tw_not_carried(o, "options.%s: not a Responses request field", k);
        }
    }
    return st;
}

/*
 * What the messages cannot carry. The reader joins an assistant message to
 * the assistant turn right before it when the message starts with no
 * reasoning item and either has no message item or follows a turn with
 * neither content nor calls: such a pair reads back as one message.
 */
static tw_status message_warnings(const tw_request *r, const tw_encode_opts *o)
{
    tw_status st = TW_OK;
    const tw_message *last = NULL; /* the assistant message of the current turn */
    for (size_t i = 0; st == TW_OK && i < r->nmessages; i++) {
        const tw_message *m = &r->messages[i];
        const tw_message *prev = i ? &r->messages[i - 1] : NULL;
        if (m->has_redacted_thinking || m->redacted_thinking)
            st = tw_not_carried(o,
                                "messages[%zu].redacted_thinking: the Responses API has no "
                                "redacted thinking",
                                i);
        if (st == TW_OK && m->role != TW_ROLE_ASSISTANT &&
            (m->thinking.len || m->thinking_signature || m->ncalls))
            st = tw_not_carried(o,
                                "messages[%zu]: only assistant messages carry reasoning and "
                                "calls",
                                i);
        if (st == TW_OK && m->role == TW_ROLE_ASSISTANT && prev &&
            prev->role == TW_ROLE_ASSISTANT && !has_reasoning(m) &&
            (!has_message(m) || (!has_message(prev) && !prev->ncalls)))
            st = tw_not_carried(o,
                                "messages[%zu]: follows an assistant message with nothing "
                                "between; the items read back as one message",
                                i);
        if (st == TW_OK && m->role == TW_ROLE_TOOL && m->is_error)
            st = tw_not_carried(o,
                                "messages[%zu].is_error: function_call_output has no error "
                                "flag",
                                i);
        if (st == TW_OK && m->role == TW_ROLE_TOOL && m->name) {
            const char *called = NULL;
            for (size_t k = 0; last && k < last->ncalls && !called; k++)
                if (last->calls[k].id && m->tool_call_id &&
                    strcmp(last->calls[k].id, m->tool_call_id) == 0)
                    called = last->calls[k].name;
            if (!called || strcmp(called, m->name) != 0)
                st = tw_not_carried(o,
                                    "messages[%zu].name: function_call_output carries no name "
                                    "and the call it answers does not give it",
                                    i);
        }
        if (m->role == TW_ROLE_ASSISTANT)
            last = m;
    }
    return st;
}

static void plain_message(tw_jw *w, const char *role, const tw_buf *t)
{
    tw_jw_open(w, NULL, '{');
    tw_jw_str(w, "role", role);
    tw_jw_strn(w, "content", t->data, t->len);
    tw_jw_close(w, '}');
}

static tw_status assistant_items(tw_jw *w, const tw_message *m, const tw_limits *l)
{
    if (has_reasoning(m)) {
        tw_jw_open(w, NULL, '{');
        tw_jw_str(w, "type", "reasoning");
        summary_parts(w, m, true);
        if (m->thinking_signature)
            tw_jw_str(w, "encrypted_content", m->thinking_signature);
        tw_jw_close(w, '}');
    }
    if (has_message(m)) {
        tw_jw_open(w, NULL, '{');
        tw_jw_str(w, "type", "message");
        tw_jw_str(w, "role", "assistant");
        tw_jw_open(w, "content", '[');
        tw_jw_open(w, NULL, '{');
        tw_jw_str(w, "type", "output_text");
        tw_jw_strn(w, "text", m->content.data, m->content.len);
        tw_jw_close(w, '}');
        tw_jw_close(w, ']');
        tw_jw_close(w, '}');
    }
    for (size_t i = 0; i < m->ncalls && w->st == TW_OK; i++) {
        const tw_call *c = &m->calls[i];
        tw_buf t = {0};
        tw_status st = tw_args_text(c, l, &t);
        if (st != TW_OK) {
            tw_buf_free(&t);
            return st;
        }
        tw_jw_open(w, NULL, '{');
        tw_jw_str(w, "type", "function_call");
        tw_jw_str(w, "call_id", c->id ? c->id : "");
        tw_jw_str(w, "name", c->name);
        tw_jw_strn(w, "arguments", t.data ? t.data : "", t.len);
        tw_jw_close(w, '}');
        tw_buf_free(&t);
    }
    return w->st;
}

static tw_status write_input(tw_jw *w, const tw_request *r, size_t first, const tw_limits *l)
{
    tw_status st = TW_OK;
    tw_jw_open(w, "input", '[');
    for (size_t i = first; i < r->nmessages && st == TW_OK && w->st == TW_OK; i++) {
        const tw_message *m = &r->messages[i];
        switch (m->role) {
        case TW_ROLE_SYSTEM: plain_message(w, "system", &m->content); break;
        case TW_ROLE_USER: plain_message(w, "user", &m->content); break;
        case TW_ROLE_ASSISTANT: st = assistant_items(w, m, l); break;
        case TW_ROLE_TOOL:
            tw_jw_open(w, NULL, '{');
            tw_jw_str(w, "type", "function_call_output");
            tw_jw_str(w, "call_id", m->tool_call_id ? m->tool_call_id : "");
            tw_jw_strn(w, "output", m->content.data, m->content.len);
            tw_jw_close(w, '}');
            break;
        }
    }
    tw_jw_close(w, ']');
    return st;
}

static void write_tools(tw_jw *w, const tw_request *r)
{
    if (r->ntools || r->tools_present) {
        tw_jw_open(w, "tools", '[');
        for (size_t i = 0; i < r->ntools && w->st == TW_OK; i++) {
            const tw_tool *t = &r->tools[i];
            tw_jw_open(w, NULL, '{');
            tw_jw_str(w, "type", "function");
            tw_jw_str(w, "name", t->name);
            if (t->description)
                tw_jw_str(w, "description", t->description);
            if (t->parameters)
                tw_jw_json(w, "parameters", t->parameters);
            tw_jw_close(w, '}');
        }
        tw_jw_close(w, ']');
    }
    switch (r->choice) {
    case TW_CHOICE_AUTO: tw_jw_str(w, "tool_choice", "auto"); break;
    case TW_CHOICE_NONE: tw_jw_str(w, "tool_choice", "none"); break;
    case TW_CHOICE_REQUIRED: tw_jw_str(w, "tool_choice", "required"); break;
    case TW_CHOICE_NAMED:
        tw_jw_open(w, "tool_choice", '{');
        tw_jw_str(w, "type", "function");
        tw_jw_str(w, "name", r->choice_name ? r->choice_name : "");
        tw_jw_close(w, '}');
        break;
    default: break;
    }
}

tw_status tw_responses_request_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!o)
        o = &tw_enc_default_opts;
    tw_limits l;
    tw_limits_resolve(&l, &o->limits);
    if (r->nmessages > l.max_messages || r->ntools > l.max_tools)
        return TW_ERR_LIMIT;
    for (size_t i = 0; i < r->nmessages; i++)
        if (!calls_named(&r->messages[i]))
            return TW_ERR_INVALID;
    tw_status st = message_warnings(r, o);
    if (st != TW_OK)
        return st;
    tw_capsave cs;
    tw_cap_begin(out, o, &cs);
    tw_jw w = {.b = out};
    tw_jw_open(&w, NULL, '{');
    const char *model = o->model ? o->model : r->model;
    if (model)
        tw_jw_str(&w, "model", model);
    /* the first message, when it is a system message, is the instructions;
     * any other system message stays in the input as a system message */
    size_t first = 0;
    if (r->nmessages && r->messages[0].role == TW_ROLE_SYSTEM) {
        tw_jw_strn(&w, "instructions", r->messages[0].content.data, r->messages[0].content.len);
        first = 1;
    }
    st = write_input(&w, r, first, &l);
    if (st == TW_OK)
        write_tools(&w, r);
    int ptc = o->parallel_tool_calls >= 0 ? o->parallel_tool_calls : r->parallel_tool_calls;
    if (st == TW_OK && ptc >= 0)
        tw_jw_raw(&w, "parallel_tool_calls", ptc ? "true" : "false");
    if (st == TW_OK)
        st = write_options(&w, r, o);
    tw_jw_close(&w, '}');
    if (st == TW_OK)
        st = w.st;
    return tw_cap_end(out, &cs, st);
}

/* ===================== registry ===================== */

const tw_encoder_ops tw_encoder_responses_request = {
    "openai-responses-request", "OpenAI Responses API request body (POST /v1/responses)",
    TW_ENC_REQUEST, tw_responses_request_encode, tw_unsupported_encode_result};
const tw_encoder_ops tw_encoder_responses_response = {
    "openai-responses", "OpenAI Responses API response object", TW_ENC_RESULT,
    tw_unsupported_encode_request, tw_responses_response_encode};
const tw_encoder_ops tw_encoder_responses_stream = {
    "openai-responses-stream", "OpenAI Responses API typed event stream", TW_ENC_RESULT,
    tw_unsupported_encode_request, tw_responses_stream_encode};
