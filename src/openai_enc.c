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

#include "enc_common.h"
#include "formats.h"
#include "shims_int.h"
#include "toolwire/shims.h"

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

static tw_status write_tool_calls(tw_jw *w, const tw_call *calls, size_t n, const tw_limits *l)
{
    tw_jw_open(w, "tool_calls", '[');
    for (size_t i = 0; i < n && w->st == TW_OK; i++) {
        if (!calls[i].name || !calls[i].name[0])
            return TW_ERR_INVALID;
        tw_buf t = {0};
        tw_status st = tw_args_text(&calls[i], l, &t);
        if (st != TW_OK) {
            tw_buf_free(&t);
            return st;
        }
        tw_jw_open(w, NULL, '{');
        tw_jw_str(w, "id", calls[i].id ? calls[i].id : "");
        tw_jw_str(w, "type", "function");
        tw_jw_open(w, "function", '{');
        tw_jw_str(w, "name", calls[i].name);
        tw_jw_strn(w, "arguments", t.data, t.len);
        tw_jw_close(w, '}');
        tw_jw_close(w, '}');
        tw_buf_free(&t);
    }
    tw_jw_close(w, ']');
    return w->st;
}

static tw_status write_message(tw_jw *w, const tw_request *r, size_t mi, const tw_encode_opts *o,
                               const tw_limits *l, tw_name_memo *memo)
{
    const tw_message *m = &r->messages[mi];
    tw_status st = TW_OK;
    if (m->thinking.len)
        st = tw_not_carried(o, "messages[%zu].thinking: OpenAI requests carry no reasoning", mi);
    if (st == TW_OK && m->thinking_signature)
        st = tw_not_carried(o, "messages[%zu].thinking_signature: OpenAI has no thinking signature",
                            mi);
    if (st == TW_OK && (m->has_redacted_thinking || m->redacted_thinking))
        st = tw_not_carried(o, "messages[%zu].redacted_thinking: OpenAI has no redacted thinking",
                            mi);
    if (st == TW_OK && m->ncalls && m->role != TW_ROLE_ASSISTANT)
        st = tw_not_carried(o, "messages[%zu].tool_calls: only assistant messages carry calls", mi);
    if (st == TW_OK && m->role == TW_ROLE_TOOL && m->is_error)
        st = tw_not_carried(o, "messages[%zu].is_error: OpenAI tool messages have no error flag",
                            mi);
    if (st == TW_OK && m->role == TW_ROLE_TOOL && m->name &&
        !tw_name_recoverable(memo, r, mi, m->tool_call_id, m->name))
        st = tw_not_carried(o,
                            "messages[%zu].name: OpenAI tool messages carry no tool name and no "
                            "earlier call names it",
                            mi);
    if (st != TW_OK)
        return st;

    tw_jw_open(w, NULL, '{');
    tw_jw_str(w, "role", tw_role_name(m->role));
    if (m->role == TW_ROLE_ASSISTANT && m->ncalls) {
        if (m->content.len)
            tw_jw_strn(w, "content", m->content.data, m->content.len);
        else
            tw_jw_raw(w, "content", "null");
        if (w->st == TW_OK)
            w->st = write_tool_calls(w, m->calls, m->ncalls, l);
    } else {
        if (m->role == TW_ROLE_TOOL)
            tw_jw_str(w, "tool_call_id", m->tool_call_id ? m->tool_call_id : "");
        tw_jw_strn(w, "content", m->content.data, m->content.len);
    }
    tw_jw_close(w, '}');
    return w->st;
}

tw_status tw_openai_request_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!o)
        o = &tw_enc_default_opts;
    tw_limits l;
    tw_limits_resolve(&l, &o->limits);
    if (r->nmessages > l.max_messages || r->ntools > l.max_tools)
        return TW_ERR_LIMIT;
    tw_capsave cs;
    tw_cap_begin(out, o, &cs);
    tw_jw w = {.b = out};
    tw_status st = TW_OK;

    tw_jw_open(&w, NULL, '{');
    const char *model = o->model ? o->model : r->model;
    if (model)
        tw_jw_str(&w, "model", model);
    tw_jw_open(&w, "messages", '[');
    tw_name_memo memo = {0};
    for (size_t i = 0; i < r->nmessages && st == TW_OK && w.st == TW_OK; i++)
        st = write_message(&w, r, i, o, &l, &memo);
    tw_jw_close(&w, ']');
    if (st == TW_OK && r->ntools) {
        tw_jw_open(&w, "tools", '[');
        for (size_t i = 0; i < r->ntools && w.st == TW_OK; i++) {
            const tw_tool *t = &r->tools[i];
            tw_jw_open(&w, NULL, '{');
            tw_jw_str(&w, "type", "function");
            tw_jw_open(&w, "function", '{');
            tw_jw_str(&w, "name", t->name);
            if (t->description)
                tw_jw_str(&w, "description", t->description);
            if (t->parameters && tw_shim_schema_removals(t->parameters, l.max_depth) == 0) {
                /* nothing to normalize: written as it is, not copied */
                tw_jw_json(&w, "parameters", t->parameters);
            } else if (t->parameters) {
                cJSON *p = cJSON_Duplicate(t->parameters, 1);
                if (!p) {
                    st = TW_ERR_NOMEM;
                    break;
                }
                tw_shim_schema_normalize(p, l.max_depth);
                tw_jw_json(&w, "parameters", p);
                cJSON_Delete(p);
            }
            tw_jw_close(&w, '}');
            tw_jw_close(&w, '}');
        }
        tw_jw_close(&w, ']');
    }
    /* an empty tools array is refused by OpenAI; leaving it out means the same */
    if (st == TW_OK) {
        switch (r->choice) {
        case TW_CHOICE_AUTO: tw_jw_str(&w, "tool_choice", "auto"); break;
        case TW_CHOICE_NONE: tw_jw_str(&w, "tool_choice", "none"); break;
        case TW_CHOICE_REQUIRED: tw_jw_str(&w, "tool_choice", "required"); break;
        case TW_CHOICE_NAMED:
            tw_jw_open(&w, "tool_choice", '{');
            tw_jw_str(&w, "type", "function");
            tw_jw_open(&w, "function", '{');
            tw_jw_str(&w, "name", r->choice_name ? r->choice_name : "");
            tw_jw_close(&w, '}');
            tw_jw_close(&w, '}');
            break;
        default: break;
        }
    }
    int ptc = o->parallel_tool_calls >= 0 ? o->parallel_tool_calls : r->parallel_tool_calls;
    if (st == TW_OK) {
        if (r->ntools)
            tw_jw_raw(&w, "parallel_tool_calls", ptc > 0 ? "true" : "false");
        else if (ptc >= 0)
            st = tw_not_carried(o, "parallel_tool_calls: OpenAI takes it only with tools");
    }
    if (st == TW_OK && r->options) {
        for (const cJSON *c = r->options->child; c && w.st == TW_OK && st == TW_OK; c = c->next) {
            if (!c->string)
                continue;
            if (is_openai_option(c->string))
                tw_jw_json(&w, c->string, c);
            else
                st = tw_not_carried(o, "options.%s: not an OpenAI request field", c->string);
        }
    }
    tw_jw_close(&w, '}');
    if (st == TW_OK)
        st = w.st;
    return tw_cap_end(out, &cs, st);
}

/* ===================== responses ===================== */

static tw_status result_warnings(const tw_result *r, const tw_encode_opts *o)
{
    tw_status st = TW_OK;
    if (r->msg.thinking_signature)
        st = tw_not_carried(o, "thinking_signature: OpenAI has no thinking signature");
    if (st == TW_OK && (r->msg.has_redacted_thinking || r->msg.redacted_thinking))
        st = tw_not_carried(o, "redacted_thinking: OpenAI has no redacted thinking");
    return st;
}

static void write_usage(tw_jw *w)
{
    tw_jw_open(w, "usage", '{');
    tw_jw_int(w, "prompt_tokens", 0);
    tw_jw_int(w, "completion_tokens", 0);
    tw_jw_int(w, "total_tokens", 0);
    tw_jw_close(w, '}');
}

tw_status tw_openai_response_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!o)
        o = &tw_enc_default_opts;
    tw_limits l;
    tw_limits_resolve(&l, &o->limits);
    tw_status st = result_warnings(r, o);
    if (st != TW_OK)
        return st;
    tw_capsave cs;
    tw_cap_begin(out, o, &cs);
    tw_jw w = {.b = out};
    tw_jw_open(&w, NULL, '{');
    tw_jw_str(&w, "id", o->id ? o->id : TW_OPENAI_DEFAULT_ID);
    tw_jw_str(&w, "object", "chat.completion");
    tw_jw_int(&w, "created", o->created ? o->created : TW_OPENAI_DEFAULT_CREATED);
    tw_jw_str(&w, "model", o->model ? o->model : TW_DEFAULT_MODEL);
    tw_jw_open(&w, "choices", '[');
    tw_jw_open(&w, NULL, '{');
    tw_jw_int(&w, "index", 0);
    tw_jw_open(&w, "message", '{');
    tw_jw_str(&w, "role", "assistant");
    if (r->msg.content.len || !r->msg.ncalls)
        tw_jw_strn(&w, "content", r->msg.content.data, r->msg.content.len);
    else
        tw_jw_raw(&w, "content", "null");
    if (r->msg.thinking.len)
        tw_jw_strn(&w, "reasoning_content", r->msg.thinking.data, r->msg.thinking.len);
    if (r->msg.ncalls && w.st == TW_OK)
        w.st = write_tool_calls(&w, r->msg.calls, r->msg.ncalls, &l);
    tw_jw_close(&w, '}');
    tw_jw_str(&w, "finish_reason", tw_openai_finish_reason(r));
    tw_jw_close(&w, '}');
    tw_jw_close(&w, ']');
    write_usage(&w);
    tw_jw_close(&w, '}');
    return tw_cap_end(out, &cs, w.st);
}

/* ===================== streams ===================== */

typedef struct chunker {
    tw_jw w;
    const tw_encode_opts *o;
} chunker;

/* "data: {header ... "choices":[{"index":0,"delta":" — the caller writes the
 * delta object, then chunk_end. */
static void chunk_begin(chunker *c)
{
    tw_jw *w = &c->w;
    tw_jw_lit(w, "data: ");
    w->depth = 0;
    tw_jw_open(w, NULL, '{');
    tw_jw_str(w, "id", c->o->id ? c->o->id : TW_OPENAI_DEFAULT_ID);
    tw_jw_str(w, "object", "chat.completion.chunk");
    tw_jw_int(w, "created", c->o->created ? c->o->created : TW_OPENAI_DEFAULT_CREATED);
    tw_jw_str(w, "model", c->o->model ? c->o->model : TW_DEFAULT_MODEL);
    tw_jw_open(w, "choices", '[');
    tw_jw_open(w, NULL, '{');
    tw_jw_int(w, "index", 0);
    tw_jw_open(w, "delta", '{');
}

static void chunk_end(chunker *c, const char *finish)
{
    tw_jw *w = &c->w;
    tw_jw_close(w, '}');
    if (finish)
        tw_jw_str(w, "finish_reason", finish);
    else
        tw_jw_raw(w, "finish_reason", "null");
    tw_jw_close(w, '}');
    tw_jw_close(w, ']');
    tw_jw_close(w, '}');
    tw_jw_lit(w, "\n\n");
}

static void text_chunks(chunker *c, const char *key, const char *s, size_t n, size_t frag)
{
    for (size_t off = 0; off < n && c->w.st == TW_OK;) {
        size_t k = tw_frag_len(s + off, n - off, frag);
        chunk_begin(c);
        tw_jw_strn(&c->w, key, s + off, k);
        chunk_end(c, NULL);
        off += k;
    }
}

static void call_chunk(chunker *c, size_t index, const tw_call *call, const char *args, size_t alen,
                       bool header)
{
    tw_jw *w = &c->w;
    chunk_begin(c);
    tw_jw_open(w, "tool_calls", '[');
    tw_jw_open(w, NULL, '{');
    tw_jw_int(w, "index", (long long)index);
    if (header) {
        tw_jw_str(w, "id", call->id ? call->id : "");
        tw_jw_str(w, "type", "function");
    }
    tw_jw_open(w, "function", '{');
    if (header)
        tw_jw_str(w, "name", call->name);
    tw_jw_strn(w, "arguments", args, alen);
    tw_jw_close(w, '}');
    tw_jw_close(w, '}');
    tw_jw_close(w, ']');
    chunk_end(c, NULL);
}

tw_status tw_openai_stream_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!o)
        o = &tw_enc_default_opts;
    tw_limits l;
    tw_limits_resolve(&l, &o->limits);
    tw_status st = result_warnings(r, o);
    if (st != TW_OK)
        return st;
    for (size_t i = 0; i < r->msg.ncalls; i++)
        if (!r->msg.calls[i].name || !r->msg.calls[i].name[0])
            return TW_ERR_INVALID;
    tw_capsave cs;
    tw_cap_begin(out, o, &cs);
    chunker c = {.w = {.b = out}, .o = o};

    chunk_begin(&c);
    tw_jw_str(&c.w, "role", "assistant");
    tw_jw_str(&c.w, "content", "");
    chunk_end(&c, NULL);
    text_chunks(&c, "reasoning_content", r->msg.thinking.data, r->msg.thinking.len,
                o->text_fragment);
    text_chunks(&c, "content", r->msg.content.data, r->msg.content.len, o->text_fragment);
    for (size_t i = 0; i < r->msg.ncalls && c.w.st == TW_OK; i++) {
        tw_buf t = {0};
        st = tw_args_text(&r->msg.calls[i], &l, &t);
        if (st != TW_OK) {
            tw_buf_free(&t);
            break;
        }
        if (o->args_fragment == 0 || t.len <= o->args_fragment) {
            call_chunk(&c, i, &r->msg.calls[i], t.data, t.len, true);
        } else {
            call_chunk(&c, i, &r->msg.calls[i], "", 0, true);
            for (size_t off = 0; off < t.len && c.w.st == TW_OK;) {
                size_t k = tw_frag_len(t.data + off, t.len - off, o->args_fragment);
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
        tw_jw *w = &c.w;
        tw_jw_lit(w, "data: ");
        w->depth = 0;
        tw_jw_open(w, NULL, '{');
        tw_jw_str(w, "id", o->id ? o->id : TW_OPENAI_DEFAULT_ID);
        tw_jw_str(w, "object", "chat.completion.chunk");
        tw_jw_int(w, "created", o->created ? o->created : TW_OPENAI_DEFAULT_CREATED);
        tw_jw_str(w, "model", o->model ? o->model : TW_DEFAULT_MODEL);
        tw_jw_open(w, "choices", '[');
        tw_jw_close(w, ']');
        write_usage(w);
        tw_jw_close(w, '}');
        tw_jw_lit(w, "\n\n");
    }
    if (st == TW_OK && !o->omit_done)
        tw_jw_lit(&c.w, "data: [DONE]\n\n");
    if (st == TW_OK)
        st = c.w.st;
    return tw_cap_end(out, &cs, st);
}

/* ===================== registry ===================== */

const tw_encoder_ops tw_encoder_openai_request = {
    "openai-request", "OpenAI chat completions request body", TW_ENC_REQUEST,
    tw_openai_request_encode, tw_unsupported_encode_result};
const tw_encoder_ops tw_encoder_openai_response = {
    "openai-response", "OpenAI chat.completion response body", TW_ENC_RESULT,
    tw_unsupported_encode_request, tw_openai_response_encode};
const tw_encoder_ops tw_encoder_openai_stream = {
    "openai-stream", "OpenAI chat.completion.chunk SSE stream", TW_ENC_RESULT,
    tw_unsupported_encode_request, tw_openai_stream_encode};
