/*
 * DeepSeek V3.1 encoders: the output the model writes for a result
 * (deepseek-v3.1) and the prompt of its chat template (deepseek-v3.1-prompt),
 * byte for byte what Python's Jinja renders. Rules:
 * docs/formats/deepseek-v3.1.md.
 */
#include "toolwire/deepseek.h"

#include <stdio.h>
#include <string.h>

#include "deepseek_text.h"
#include "enc_common.h"
#include "formats.h"
#include "py_text.h"
#include "tw_macros.h"

#define OUT "deepseek-v3.1"
#define PROMPT "deepseek-v3.1-prompt"

static bool holds(const char *p, size_t n, const char *lit)
{
    return tw_memmem(p ? p : "", n, lit, strlen(lit)) != NULL;
}

/* ===================== the output ===================== */

/* The first special token of `marks` that p[0, n) holds, or NULL. */
static const char *holds_any(const char *p, size_t n, const char *const *marks, size_t nm)
{
    for (size_t i = 0; i < nm; i++)
        if (holds(p, n, marks[i]))
            return marks[i];
    return NULL;
}

static tw_status refuse_out(const tw_encode_opts *o, const char *what, const char *tok)
{
    tw_not_carried(o, OUT ": refused: %s holds %s, which the decoder reads as markup", what, tok);
    return TW_ERR_INVALID;
}

static tw_status render_output(tw_buf *b, const tw_result *r, const tw_encode_opts *o)
{
    static const char *const in_text[] = {T_THINK_CLOSE, T_CALLS_BEGIN, T_CALL_BEGIN, T_EOS};
    static const char *const in_args[] = {T_CALL_END, T_CALL_BEGIN, T_CALLS_END, T_EOS};
    static const char *const in_name[] = {T_SEP, T_CALL_END, T_CALL_BEGIN, T_CALLS_END, T_EOS};
    const tw_message *m = &r->msg;
    const char *tok;
    /* the reasoning ends at the first </think> or section; the content at a
     * section or call (a </think> in content is text) */
    if ((tok = holds_any(m->thinking.data, m->thinking.len, in_text, 4)) != NULL)
        return refuse_out(o, "the reasoning", tok);
    if ((tok = holds_any(m->content.data, m->content.len, in_text + 1, 3)) != NULL)
        return refuse_out(o, "the content", tok);
    if (m->has_redacted_thinking || m->redacted_thinking)
        TRY(tw_not_carried(o, OUT ": redacted thinking not carried"));
    if (m->thinking_signature)
        TRY(tw_not_carried(o, OUT ": thinking signature not carried"));
    if (r->finish_reason && r->finish_reason[0] &&
        strcmp(r->finish_reason, m->ncalls ? "tool_calls" : "stop") != 0)
        TRY(tw_not_carried(o, OUT ": finish_reason %.32s not carried", r->finish_reason));
    /* <think>...</think> whether the prompt opened the reasoning or not: a
     * decoder with forced_open drops the repeated opener */
    TRY(PUTS(b, T_THINK_OPEN));
    TRY(tw_buf_append(b, m->thinking.data ? m->thinking.data : "", m->thinking.len));
    TRY(PUTS(b, T_THINK_CLOSE));
    TRY(tw_buf_append(b, m->content.data ? m->content.data : "", m->content.len));
    if (m->ncalls == 0)
        return TW_OK;
    tw_limits L;
    tw_limits_resolve(&L, &o->limits);
    TRY(PUTS(b, T_CALLS_BEGIN));
    for (size_t i = 0; i < m->ncalls; i++) {
        const tw_call *c = &m->calls[i];
        const char *nm = c->name ? c->name : "";
        size_t nn = strlen(nm);
        char gen[32];
        snprintf(gen, sizeof gen, "call_%zu", i + 1);
        if (c->id && strcmp(c->id, gen) != 0)
            TRY(tw_not_carried(o, OUT ": id of call %.64s not carried", nm));
        if ((tok = holds_any(nm, nn, in_name, 5)) != NULL)
            return refuse_out(o, "a call name", tok);
        if (nn == 0 || memchr(nm, '\n', nn) || tw_is_space((unsigned char)nm[0]) ||
            tw_is_space((unsigned char)nm[nn - 1])) {
            tw_not_carried(o, OUT ": refused: the call name %.64s cannot be written", nm);
            return TW_ERR_INVALID;
        }
        TRY(PUTS(b, T_CALL_BEGIN));
        TRY(tw_buf_append(b, nm, nn));
        TRY(PUTS(b, T_SEP));
        tw_buf t = {0};
        tw_status st = TW_OK;
        if (c->raw_args && c->raw_args_len)
            st = tw_buf_append(&t, c->raw_args, c->raw_args_len);
        else
            st = tw_args_text(c, &L, &t);
        if (st == TW_OK && (tok = holds_any(t.data, t.len, in_args, 4)) != NULL)
            st = refuse_out(o, "call arguments", tok);
        if (st == TW_OK)
            st = tw_buf_append(b, t.data ? t.data : "", t.len);
        tw_buf_free(&t);
        TRY(st);
        TRY(PUTS(b, T_CALL_END));
    }
    return PUTS(b, T_CALLS_END);
}

tw_status tw_deepseek_output_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!r || !out)
        return TW_ERR_INVALID;
    if (!o)
        o = &tw_enc_default_opts;
    tw_capsave cs;
    tw_cap_begin(out, o, &cs);
    size_t before = out->len;
    tw_status st = render_output(out, r, o);
    if (st != TW_OK)
        out->len = before < out->len ? before : out->len;
    return tw_cap_end(out, &cs, st);
}

/* ===================== the prompt ===================== */

static bool thinking_on(const tw_request *r)
{
    const cJSON *t = tw_json_get(r->options, "thinking");
    if (!t)
        t = tw_json_get(r->options, "enable_thinking");
    return truthy(t);
}

/* What the template leaves out, as not_carried warnings. */
static tw_status prompt_losses(const tw_request *r, const tw_encode_opts *o)
{
    if (!o->warnings)
        return TW_OK;
    if (r->model)
        TRY(tw_not_carried(o, PROMPT ": model not carried"));
    if (r->ntools)
        TRY(tw_not_carried(o, PROMPT ": tools not carried (the template writes no tool list)"));
    if (r->parallel_tool_calls >= 0)
        TRY(tw_not_carried(o, PROMPT ": parallel_tool_calls not carried"));
    if (r->choice == TW_CHOICE_NONE || r->choice == TW_CHOICE_REQUIRED ||
        r->choice == TW_CHOICE_NAMED)
        TRY(tw_not_carried(o, PROMPT ": tool_choice not carried"));
    for (const cJSON *c = r->options ? r->options->child : NULL; c; c = c->next) {
        const char *k = c->string ? c->string : "";
        if (strcmp(k, "add_generation_prompt") && strcmp(k, "thinking") &&
            strcmp(k, "enable_thinking"))
            TRY(tw_not_carried(o, PROMPT ": options.%.64s not carried", k));
    }
    bool ids = false, think = false, late_sys = false, names = false, err = false;
    tw_name_memo memo = {0, 0};
    for (size_t i = 0; i < r->nmessages; i++) {
        const tw_message *m = &r->messages[i];
        ids |= m->ncalls > 0 || (m->role == TW_ROLE_TOOL && m->tool_call_id);
        think |= m->thinking.len > 0 || m->thinking_signature || m->has_redacted_thinking ||
                 m->redacted_thinking;
        late_sys |= m->role == TW_ROLE_SYSTEM && i > 0 && r->messages[i - 1].role != TW_ROLE_SYSTEM;
        err |= m->role == TW_ROLE_TOOL && m->is_error;
        if (m->role == TW_ROLE_TOOL && m->name)
            names |= !tw_name_recoverable(&memo, r, i, m->tool_call_id, m->name);
    }
    if (ids)
        TRY(tw_not_carried(o, PROMPT ": tool call ids and tool_call_id not carried (each result "
                                     "answers the previous assistant's calls in order)"));
    if (names)
        TRY(tw_not_carried(o, PROMPT ": name of a tool result not carried"));
    if (err)
        TRY(tw_not_carried(o, PROMPT ": is_error of a tool result not carried"));
    if (think)
        TRY(tw_not_carried(o, PROMPT ": thinking of assistant messages not carried (the "
                                     "template drops it)"));
    if (late_sys)
        TRY(tw_not_carried(o, PROMPT
                           ": the place of a system message after other messages not "
                           "carried (the template joins every system message at the start)"));
    return TW_OK;
}

static tw_status put_buf(tw_buf *b, const tw_buf *s)
{
    return tw_buf_append(b, s->data ? s->data : "", s->len);
}

/* One history call: <｜tool▁call▁begin｜>NAME<｜tool▁sep｜>ARGS|tojson<｜tool▁call▁end｜>. */
static tw_status put_call(tw_buf *b, const tw_call *c, const tw_encode_opts *o, size_t max_depth)
{
    const char *nm = c->name ? c->name : "";
    TRY(PUTS(b, T_CALL_BEGIN));
    TRY(tw_buf_puts(b, nm));
    TRY(PUTS(b, T_SEP));
    char where[160];
    snprintf(where, sizeof where, PROMPT ": call %.64s arguments", nm);
    if (!c->arguments)
        TRY(PUTS(b, "{}"));
    else
        TRY(tw_json_write_py_warn(b, c->arguments, max_depth, o->warnings, where));
    return PUTS(b, T_CALL_END);
}

static tw_status render_prompt(tw_buf *b, const tw_request *r, const tw_encode_opts *o,
                               size_t max_depth)
{
    TRY(prompt_losses(r, o));
    TRY(PUTS(b, T_BOS));
    bool first_sp = true;
    for (size_t i = 0; i < r->nmessages; i++) {
        const tw_message *m = &r->messages[i];
        if (m->role != TW_ROLE_SYSTEM)
            continue;
        if (!first_sp)
            TRY(PUTS(b, "\n\n"));
        TRY(put_buf(b, &m->content));
        first_sp = false;
    }
    bool is_tool = false, last_user = false;
    for (size_t i = 0; i < r->nmessages; i++) {
        const tw_message *m = &r->messages[i];
        span content = buf_span(&m->content);
        switch (m->role) {
        case TW_ROLE_SYSTEM: break;
        case TW_ROLE_USER:
            is_tool = false;
            last_user = true;
            TRY(PUTS(b, T_USER));
            TRY(put_span(b, content));
            break;
        case TW_ROLE_TOOL:
            last_user = false;
            is_tool = true;
            TRY(PUTS(b, T_OUT_BEGIN));
            TRY(put_span(b, content));
            TRY(PUTS(b, T_OUT_END));
            break;
        case TW_ROLE_ASSISTANT:
            if (last_user)
                TRY(PUTS(b, T_ASSISTANT T_THINK_OPEN T_THINK_CLOSE));
            last_user = false;
            if (m->ncalls) {
                is_tool = false;
                TRY(put_span(b, content));
                TRY(PUTS(b, T_CALLS_BEGIN));
                for (size_t j = 0; j < m->ncalls; j++)
                    TRY(put_call(b, &m->calls[j], o, max_depth));
                TRY(PUTS(b, T_CALLS_END T_EOS));
                break;
            }
            if (!is_tool) { /* the template keeps what follows the first </think> */
                const char *cut = tw_memmem(content.p, content.n, T_THINK_CLOSE, 8);
                if (cut) {
                    TRY(tw_not_carried(o,
                                       PROMPT ": content before </think> in message %zu not "
                                              "carried (the template drops it)",
                                       i));
                    content.n -= (size_t)(cut + 8 - content.p);
                    content.p = cut + 8;
                }
            }
            is_tool = false;
            TRY(put_span(b, content));
            TRY(PUTS(b, T_EOS));
            break;
        }
    }
    bool gen = truthy(tw_json_get(r->options, "add_generation_prompt"));
    if (gen && last_user && !is_tool) {
        TRY(PUTS(b, T_ASSISTANT));
        if (thinking_on(r))
            TRY(PUTS(b, T_THINK_OPEN));
        else
            TRY(PUTS(b, T_THINK_OPEN T_THINK_CLOSE));
    } else if (gen) {
        TRY(tw_not_carried(o, PROMPT ": add_generation_prompt not carried (the template opens no "
                                     "assistant turn unless a user message is last)"));
    }
    return TW_OK;
}

tw_status tw_deepseek_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!r || !out || r->nmessages == 0)
        return TW_ERR_INVALID;
    return tw_encode_capped(r, o ? o : &tw_enc_default_opts, out, render_prompt);
}

const tw_encoder_ops tw_encoder_deepseek_v31_output = {
    OUT, "neutral result -> the DeepSeek V3.1 model output (</think>, tool call sections)",
    TW_ENC_RESULT, tw_unsupported_encode_request, tw_deepseek_output_encode};
const tw_encoder_ops tw_encoder_deepseek_v31_prompt = {
    PROMPT, "neutral request -> the DeepSeek V3.1 prompt (byte-exact template)", TW_ENC_REQUEST,
    tw_deepseek_prompt_encode, tw_unsupported_encode_result};
