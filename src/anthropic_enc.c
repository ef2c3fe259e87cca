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

#include "enc_common.h"
#include "formats.h"
#include "toolwire/openai_encode.h"
#include "toolwire/shims.h"

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

static void block_thinking(tw_jw *w, const tw_message *m)
{
    tw_jw_open(w, NULL, '{');
    tw_jw_str(w, "type", "thinking");
    tw_jw_strn(w, "thinking", m->thinking.data, m->thinking.len);
    if (m->thinking_signature)
        tw_jw_str(w, "signature", m->thinking_signature);
    tw_jw_close(w, '}');
}

/* A redacted_thinking element: the block object as given, or its data. */
static void block_redacted(tw_jw *w, const char *key, const cJSON *x)
{
    if (cJSON_IsObject(x)) {
        tw_jw_json(w, key, x);
        return;
    }
    tw_jw_open(w, key, '{');
    tw_jw_str(w, "type", "redacted_thinking");
    tw_jw_str(w, "data", cJSON_IsString(x) ? x->valuestring : "");
    tw_jw_close(w, '}');
}

static bool has_redacted(const tw_message *m)
{
    return cJSON_IsArray(m->redacted_thinking) && m->redacted_thinking->child;
}

static tw_status check_redacted(const tw_message *m, const tw_encode_opts *o, const char *where)
{
    if (m->has_redacted_thinking && !has_redacted(m))
        return tw_not_carried(o, "%sredacted_thinking: flagged but no block data to write", where);
    return TW_OK;
}

static void block_tool_use(tw_jw *w, const tw_call *c)
{
    tw_jw_open(w, NULL, '{');
    tw_jw_str(w, "type", "tool_use");
    tw_jw_str(w, "id", c->id ? c->id : "");
    tw_jw_str(w, "name", c->name);
    if (c->arguments)
        tw_jw_json(w, "input", c->arguments);
    else
        tw_jw_raw(w, "input", "{}");
    tw_jw_close(w, '}');
}

/* Whether an assistant message gets a thinking block. A request's block
 * needs its signature: the Messages API refuses a thinking block without
 * one, so unsigned thinking is left out of a request (request_warnings
 * reports it); a response or stream writes the thinking as it is. */
static bool has_thinking_block(const tw_message *m, bool request)
{
    return m->thinking_signature || (!request && m->thinking.len);
}

/* The content blocks of an assistant message, in the API's order. */
static void assistant_blocks(tw_jw *w, const tw_message *m, bool request)
{
    if (has_thinking_block(m, request))
        block_thinking(w, m);
    if (has_redacted(m))
        for (const cJSON *x = m->redacted_thinking->child; x; x = x->next)
            block_redacted(w, NULL, x);
    if (m->content.len) {
        tw_jw_open(w, NULL, '{');
        tw_jw_str(w, "type", "text");
        tw_jw_strn(w, "text", m->content.data, m->content.len);
        tw_jw_close(w, '}');
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
    tw_name_memo memo = {0};
    for (size_t i = 0; st == TW_OK && i < r->nmessages; i++) {
        const tw_message *m = &r->messages[i];
        char where[48];
        snprintf(where, sizeof where, "messages[%zu].", i);
        if (m->role == TW_ROLE_SYSTEM && other_seen)
            st = tw_not_carried(o,
                                "messages[%zu]: a system message inside the conversation; its text "
                                "moved to the top-level system",
                                i);
        if (m->role != TW_ROLE_SYSTEM)
            other_seen = true;
        if (st == TW_OK && m->role != TW_ROLE_ASSISTANT) {
            if (m->thinking.len)
                st = tw_not_carried(
                    o, "messages[%zu].thinking: only assistant turns carry thinking", i);
            if (st == TW_OK && m->thinking_signature)
                st = tw_not_carried(o,
                                    "messages[%zu].thinking_signature: only assistant turns "
                                    "carry thinking",
                                    i);
            if (st == TW_OK && (m->has_redacted_thinking || m->redacted_thinking))
                st = tw_not_carried(o,
                                    "messages[%zu].redacted_thinking: only assistant turns "
                                    "carry thinking",
                                    i);
            if (st == TW_OK && m->ncalls)
                st = tw_not_carried(o, "messages[%zu].tool_calls: only assistant turns carry calls",
                                    i);
        } else if (st == TW_OK) {
            st = check_redacted(m, o, where);
            if (st == TW_OK && m->thinking.len && !m->thinking_signature)
                st = tw_not_carried(o,
                                    "messages[%zu].thinking: no thinking_signature; Anthropic "
                                    "refuses a thinking block without its signature, so the "
                                    "thinking (%zu bytes) is not written",
                                    i, m->thinking.len);
        }
        if (st == TW_OK && m->role == TW_ROLE_TOOL && m->name &&
            !tw_name_recoverable(&memo, r, i, m->tool_call_id, m->name))
            st = tw_not_carried(o,
                                "messages[%zu].name: tool_result blocks carry no tool name and no "
                                "earlier call names it",
                                i);
    }
    return st;
}

static void tool_result_block(tw_jw *w, const tw_message *m)
{
    tw_jw_open(w, NULL, '{');
    tw_jw_str(w, "type", "tool_result");
    tw_jw_str(w, "tool_use_id", m->tool_call_id ? m->tool_call_id : "");
    tw_jw_strn(w, "content", m->content.data, m->content.len);
    if (m->is_error)
        tw_jw_raw(w, "is_error", "true");
    tw_jw_close(w, '}');
}

static void write_messages(tw_jw *w, const tw_request *r)
{
    tw_jw_open(w, "messages", '[');
    for (size_t i = 0; i < r->nmessages && w->st == TW_OK; i++) {
        const tw_message *m = &r->messages[i];
        switch (m->role) {
        case TW_ROLE_SYSTEM: break;
        case TW_ROLE_USER:
            tw_jw_open(w, NULL, '{');
            tw_jw_str(w, "role", "user");
            tw_jw_strn(w, "content", m->content.data, m->content.len);
            tw_jw_close(w, '}');
            break;
        case TW_ROLE_ASSISTANT:
            tw_jw_open(w, NULL, '{');
            tw_jw_str(w, "role", "assistant");
            if (!has_thinking_block(m, true) && !has_redacted(m) && !m->ncalls) {
                tw_jw_strn(w, "content", m->content.data, m->content.len);
            } else {
                tw_jw_open(w, "content", '[');
                assistant_blocks(w, m, true);
                tw_jw_close(w, ']');
            }
            tw_jw_close(w, '}');
            break;
        case TW_ROLE_TOOL: {
            /* one user turn: every consecutive tool result first, then the
             * text of a user message that follows them */
            tw_jw_open(w, NULL, '{');
            tw_jw_str(w, "role", "user");
            tw_jw_open(w, "content", '[');
            size_t j = i;
            for (; j < r->nmessages && r->messages[j].role == TW_ROLE_TOOL; j++)
                tool_result_block(w, &r->messages[j]);
            if (j < r->nmessages && r->messages[j].role == TW_ROLE_USER) {
                const tw_message *u = &r->messages[j];
                if (u->content.len) {
                    tw_jw_open(w, NULL, '{');
                    tw_jw_str(w, "type", "text");
                    tw_jw_strn(w, "text", u->content.data, u->content.len);
                    tw_jw_close(w, '}');
                }
                j++;
            }
            tw_jw_close(w, ']');
            tw_jw_close(w, '}');
            i = j - 1;
            break;
        }
        }
    }
    tw_jw_close(w, ']');
}

tw_status tw_anthropic_request_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!o)
        o = &tw_enc_default_opts;
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
        st = tw_not_carried(o, "parallel_tool_calls: Anthropic takes it only with tools");
    else if (st == TW_OK && ptc >= 0 && r->choice == TW_CHOICE_NONE)
        st = tw_not_carried(o, "parallel_tool_calls: Anthropic has no parallel setting with "
                               "tool_choice none");
    if (st != TW_OK)
        return st;

    tw_capsave cs;
    tw_cap_begin(out, o, &cs);
    tw_jw w = {.b = out};
    tw_jw_open(&w, NULL, '{');
    const char *model = o->model ? o->model : r->model;
    if (model)
        tw_jw_str(&w, "model", model);
    const cJSON *mt = tw_json_get(r->options, "max_tokens");
    if (cJSON_IsNumber(mt))
        tw_jw_json(&w, "max_tokens", mt);
    else
        tw_jw_int(&w, "max_tokens", TW_ANTHROPIC_DEFAULT_MAX_TOKENS);
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
        tw_jw_strn(&w, "system", sys.data, sys.len);
        tw_buf_free(&sys);
    }
    write_messages(&w, r);
    if (r->ntools) {
        tw_jw_open(&w, "tools", '[');
        for (size_t i = 0; i < r->ntools && w.st == TW_OK; i++) {
            const tw_tool *t = &r->tools[i];
            tw_jw_open(&w, NULL, '{');
            tw_jw_str(&w, "name", t->name);
            if (t->description)
                tw_jw_str(&w, "description", t->description);
            if (t->parameters)
                tw_jw_json(&w, "input_schema", t->parameters);
            else
                tw_jw_raw(&w, "input_schema", "{\"type\":\"object\",\"properties\":{}}");
            tw_jw_close(&w, '}');
        }
        tw_jw_close(&w, ']');
    }
    bool ptc_here = ptc >= 0 && r->ntools && r->choice != TW_CHOICE_NONE;
    if (r->choice != TW_CHOICE_UNSET || ptc_here) {
        tw_jw_open(&w, "tool_choice", '{');
        switch (r->choice) {
        case TW_CHOICE_NONE: tw_jw_str(&w, "type", "none"); break;
        case TW_CHOICE_REQUIRED: tw_jw_str(&w, "type", "any"); break;
        case TW_CHOICE_NAMED:
            tw_jw_str(&w, "type", "tool");
            tw_jw_str(&w, "name", r->choice_name ? r->choice_name : "");
            break;
        default: tw_jw_str(&w, "type", "auto"); break;
        }
        if (ptc_here)
            tw_jw_raw(&w, "disable_parallel_tool_use", ptc ? "false" : "true");
        tw_jw_close(&w, '}');
    }
    if (r->options) {
        for (const cJSON *c = r->options->child; c && w.st == TW_OK && st == TW_OK; c = c->next) {
            if (!c->string || strcmp(c->string, "max_tokens") == 0)
                continue;
            if (strcmp(c->string, "stop") == 0 && cJSON_IsString(c)) {
                tw_jw_open(&w, "stop_sequences", '[');
                tw_jw_str(&w, NULL, c->valuestring);
                tw_jw_close(&w, ']');
            } else if (strcmp(c->string, "stop") == 0 && cJSON_IsArray(c)) {
                tw_jw_json(&w, "stop_sequences", c);
            } else if (is_anthropic_option(c->string)) {
                tw_jw_json(&w, c->string, c);
            } else {
                st = tw_not_carried(o, "options.%s: not an Anthropic request field", c->string);
            }
        }
    }
    tw_jw_close(&w, '}');
    if (st == TW_OK)
        st = w.st;
    return tw_cap_end(out, &cs, st);
}

/* ===================== responses ===================== */

static void write_usage(tw_jw *w, bool with_input)
{
    tw_jw_open(w, "usage", '{');
    if (with_input)
        tw_jw_int(w, "input_tokens", 0);
    tw_jw_int(w, "output_tokens", 0);
    tw_jw_close(w, '}');
}

static void message_head(tw_jw *w, const tw_encode_opts *o)
{
    tw_jw_str(w, "id", o->id ? o->id : TW_ANTHROPIC_DEFAULT_ID);
    tw_jw_str(w, "type", "message");
    tw_jw_str(w, "role", "assistant");
    tw_jw_str(w, "model", o->model ? o->model : TW_DEFAULT_MODEL);
}

tw_status tw_anthropic_response_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!o)
        o = &tw_enc_default_opts;
    if (!calls_named(&r->msg))
        return TW_ERR_INVALID;
    tw_status st = check_redacted(&r->msg, o, "");
    if (st != TW_OK)
        return st;
    tw_capsave cs;
    tw_cap_begin(out, o, &cs);
    tw_jw w = {.b = out};
    tw_jw_open(&w, NULL, '{');
    message_head(&w, o);
    tw_jw_open(&w, "content", '[');
    assistant_blocks(&w, &r->msg, false);
    tw_jw_close(&w, ']');
    tw_jw_str(&w, "stop_reason", tw_anthropic_stop_reason(r->finish_reason, r->msg.ncalls));
    tw_jw_raw(&w, "stop_sequence", "null");
    write_usage(&w, true);
    tw_jw_close(&w, '}');
    return tw_cap_end(out, &cs, w.st);
}

/* ===================== streams ===================== */

static void ev_begin(tw_jw *w, const char *type)
{
    tw_jw_lit(w, "event: ");
    tw_jw_lit(w, type);
    tw_jw_lit(w, "\ndata: ");
    w->depth = 0;
    tw_jw_open(w, NULL, '{');
    tw_jw_str(w, "type", type);
}

static void ev_end(tw_jw *w)
{
    tw_jw_close(w, '}');
    tw_jw_lit(w, "\n\n");
}

static void block_start_open(tw_jw *w, size_t index)
{
    ev_begin(w, "content_block_start");
    tw_jw_int(w, "index", (long long)index);
}

static void block_stop(tw_jw *w, size_t index)
{
    ev_begin(w, "content_block_stop");
    tw_jw_int(w, "index", (long long)index);
    ev_end(w);
}

static void delta(tw_jw *w, size_t index, const char *type, const char *key, const char *s,
                  size_t n)
{
    ev_begin(w, "content_block_delta");
    tw_jw_int(w, "index", (long long)index);
    tw_jw_open(w, "delta", '{');
    tw_jw_str(w, "type", type);
    tw_jw_strn(w, key, s, n);
    tw_jw_close(w, '}');
    ev_end(w);
}

static void deltas(tw_jw *w, size_t index, const char *type, const char *key, const char *s,
                   size_t n, size_t frag)
{
    for (size_t off = 0; off < n && w->st == TW_OK;) {
        size_t k = tw_frag_len(s + off, n - off, frag);
        delta(w, index, type, key, s + off, k);
        off += k;
    }
}

tw_status tw_anthropic_stream_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!o)
        o = &tw_enc_default_opts;
    tw_limits l;
    tw_limits_resolve(&l, &o->limits);
    const tw_message *m = &r->msg;
    if (!calls_named(m))
        return TW_ERR_INVALID;
    tw_status st = check_redacted(m, o, "");
    if (st != TW_OK)
        return st;
    tw_capsave cs;
    tw_cap_begin(out, o, &cs);
    tw_jw w = {.b = out};
    size_t index = 0;

    ev_begin(&w, "message_start");
    tw_jw_open(&w, "message", '{');
    message_head(&w, o);
    tw_jw_open(&w, "content", '[');
    tw_jw_close(&w, ']');
    tw_jw_raw(&w, "stop_reason", "null");
    tw_jw_raw(&w, "stop_sequence", "null");
    write_usage(&w, true);
    tw_jw_close(&w, '}');
    ev_end(&w);

    if (has_thinking_block(m, false)) {
        block_start_open(&w, index);
        tw_jw_open(&w, "content_block", '{');
        tw_jw_str(&w, "type", "thinking");
        tw_jw_str(&w, "thinking", "");
        tw_jw_close(&w, '}');
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
        tw_jw_open(&w, "content_block", '{');
        tw_jw_str(&w, "type", "text");
        tw_jw_str(&w, "text", "");
        tw_jw_close(&w, '}');
        ev_end(&w);
        deltas(&w, index, "text_delta", "text", m->content.data, m->content.len, o->text_fragment);
        block_stop(&w, index++);
    }
    for (size_t i = 0; i < m->ncalls && w.st == TW_OK; i++) {
        const tw_call *c = &m->calls[i];
        tw_buf t = {0};
        st = tw_args_text(c, &l, &t);
        if (st != TW_OK) {
            tw_buf_free(&t);
            break;
        }
        block_start_open(&w, index);
        tw_jw_open(&w, "content_block", '{');
        tw_jw_str(&w, "type", "tool_use");
        tw_jw_str(&w, "id", c->id ? c->id : "");
        tw_jw_str(&w, "name", c->name);
        tw_jw_raw(&w, "input", "{}");
        tw_jw_close(&w, '}');
        ev_end(&w);
        deltas(&w, index, "input_json_delta", "partial_json", t.data, t.len, o->args_fragment);
        block_stop(&w, index++);
        tw_buf_free(&t);
    }
    if (st == TW_OK) {
        ev_begin(&w, "message_delta");
        tw_jw_open(&w, "delta", '{');
        tw_jw_str(&w, "stop_reason", tw_anthropic_stop_reason(r->finish_reason, m->ncalls));
        tw_jw_raw(&w, "stop_sequence", "null");
        tw_jw_close(&w, '}');
        write_usage(&w, false);
        ev_end(&w);
        if (!o->omit_done) {
            ev_begin(&w, "message_stop");
            ev_end(&w);
        }
        st = w.st;
    }
    return tw_cap_end(out, &cs, st);
}

/* ===================== registry ===================== */

const tw_encoder_ops tw_encoder_anthropic_request = {
    "anthropic-request", "Anthropic messages request body", TW_ENC_REQUEST,
    tw_anthropic_request_encode, tw_unsupported_encode_result};
const tw_encoder_ops tw_encoder_anthropic_response = {
    "anthropic-response", "Anthropic message response body", TW_ENC_RESULT,
    tw_unsupported_encode_request, tw_anthropic_response_encode};
const tw_encoder_ops tw_encoder_anthropic_stream = {
    "anthropic-stream", "Anthropic messages event stream (SSE)", TW_ENC_RESULT,
    tw_unsupported_encode_request, tw_anthropic_stream_encode};
