/*
 * Llama 3.x encoders (docs/formats/llama3.md): a result as the model writes
 * it (llama3) and the prompts of the Llama 3.1 and 3.3 chat templates
 * (llama-3.1-prompt, llama-3.3-prompt: the two templates are the same
 * text), byte for byte what Python's Jinja renders.
 */
#include "toolwire/llama3.h"

#include <stdio.h>
#include <string.h>

#include "enc_common.h"
#include "formats.h"
#include "py_text.h"
#include "tw_macros.h"

/* ===================== the output encoder ===================== */

static bool has_markup(const char *p, size_t n)
{
    static const char *const toks[] = {"<|python_tag|>", "<|eot_id|>", "<|eom_id|>",
                                       "<|end_of_text|>"};
    for (size_t i = 0; i < 4; i++)
        if (tw_memmem(p, n, toks[i], strlen(toks[i])))
            return true;
    return false;
}

/* The id a decoder gives the i-th call (0-based) of a message. */
static bool generated_id(const char *id, size_t i)
{
    char want[32];
    snprintf(want, sizeof want, "call_%zu", i + 1);
    return id && strcmp(id, want) == 0;
}

static tw_status write_output(tw_buf *b, const tw_result *r, const tw_encode_opts *o)
{
    const tw_message *m = &r->msg;
    const char *c = m->content.data ? m->content.data : "";
    size_t n = m->content.len;
    if (m->thinking.len || m->thinking_signature || m->has_redacted_thinking ||
        m->redacted_thinking)
        TRY(tw_not_carried(o, "llama3: thinking not carried (the dialect has no reasoning)"));
    const char *fin = r->finish_reason ? r->finish_reason : "";
    if (fin[0] && strcmp(fin, m->ncalls ? "tool_calls" : "stop") != 0)
        TRY(tw_not_carried(o, "llama3: finish_reason %.32s not carried (the text reads as %s)", fin,
                           m->ncalls ? "tool_calls" : "stop"));
    size_t i = 0;
    while (i < n && (c[i] == ' ' || c[i] == '\t' || c[i] == '\n' || c[i] == '\r'))
        i++;
    if ((i < n && c[i] == '{') || has_markup(c, n))
        TRY(tw_not_carried(o, "llama3: content that reads back as a call or a special token "
                              "written as it is"));
    TRY(tw_buf_append(b, c, n));
    if (!m->ncalls)
        return TW_OK;
    if (n)
        TRY(PUTS(b, "<|python_tag|>"));
    for (size_t k = 0; k < m->ncalls; k++) {
        const tw_call *call = &m->calls[k];
        if (!generated_id(call->id, k))
            TRY(tw_not_carried(o, "llama3: call id %.64s not carried", call->id ? call->id : ""));
        if (k)
            TRY(PUTS(b, "; "));
        TRY(PUTS(b, "{\"name\": "));
        TRY(tw_json_write_str(b, call->name ? call->name : "", call->name ? strlen(call->name) : 0,
                              TW_JSON_SPACED));
        TRY(PUTS(b, ", \"parameters\": "));
        if (call->arguments)
            TRY(tw_json_write(b, call->arguments, TW_JSON_SPACED));
        else
            TRY(PUTS(b, "{}"));
        TRY(tw_buf_putc(b, '}'));
    }
    return TW_OK;
}

tw_status tw_llama3_output_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!r || !out)
        return TW_ERR_INVALID;
    if (!o)
        o = &tw_enc_default_opts;
    tw_capsave cs;
    tw_cap_begin(out, o, &cs);
    tw_status st = write_output(out, r, o);
    return tw_cap_end(out, &cs, st);
}

/* ===================== Python's str.strip() ===================== */

/* The code point at p[0, n) and its length; a byte that does not begin a
 * valid sequence is itself, length 1. */
static unsigned long utf8_at(const unsigned char *p, size_t n, size_t *len)
{
    unsigned long c = p[0];
    size_t k = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (k <= 1 || k > n) {
        *len = 1;
        return c;
    }
    c &= 0x7Fu >> k;
    for (size_t i = 1; i < k; i++) {
        if ((p[i] & 0xC0) != 0x80) {
            *len = 1;
            return p[0];
        }
        c = (c << 6) | (p[i] & 0x3F);
    }
    *len = k;
    return c;
}

static bool py_space(unsigned long c)
{
    return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
           c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
           c == 0x202F || c == 0x205F || c == 0x3000;
}

/* Python's s.strip() (Jinja's | trim). */
static span py_strip(span s)
{
    const unsigned char *p = (const unsigned char *)s.p;
    size_t len;
    while (s.n && py_space(utf8_at(p, s.n, &len))) {
        p += len;
        s.n -= len;
    }
    s.p = (const char *)p;
    while (s.n) {
        size_t at = s.n - 1;
        while (at > 0 && s.n - at < 4 && (p[at] & 0xC0) == 0x80)
            at--;
        unsigned long c = utf8_at(p + at, s.n - at, &len);
        if (at + len != s.n) {
            at = s.n - 1;
            c = p[at];
        }
        if (!py_space(c))
            break;
        s.n = at;
    }
    return s;
}

/* ===================== the prompt ===================== */

#define HDR(role) "<|start_header_id|>" role "<|end_header_id|>\n\n"
#define FORMAT_LINE                                                                                \
    "Respond in the format {\"name\": function name, \"parameters\": dictionary of argument "      \
    "name and its value}.Do not use variables.\n\n"

typedef struct l3p {
    const char *fmt;
    const cJSON *builtin; /* options.builtin_tools when given (an array), else NULL */
    bool in_user;         /* tools_in_user_message */
    const char *date;
} l3p;

/* Compact Python-style JSON re-indented as json.dumps(indent=4) writes it:
 * ", " between items and ": " after keys become ",\n" and ": " with each
 * level indented by four spaces; empty containers stay {} and []. */
static tw_status reindent(tw_buf *b, const char *p, size_t n)
{
    size_t level = 0;
    bool str = false, esc = false;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (str) {
            TRY(tw_buf_putc(b, c));
            if (esc)
                esc = false;
            else if (c == '\\')
                esc = true;
            else if (c == '"')
                str = false;
            continue;
        }
        if (c == '"') {
            str = true;
            TRY(tw_buf_putc(b, c));
        } else if ((c == '{' || c == '[') && i + 1 < n && p[i + 1] == (c == '{' ? '}' : ']')) {
            TRY(tw_buf_putc(b, c));
            TRY(tw_buf_putc(b, p[++i]));
        } else if (c == '{' || c == '[') {
            level++;
            TRY(tw_buf_putc(b, c));
            TRY(tw_buf_putc(b, '\n'));
            for (size_t k = 0; k < level * 4; k++)
                TRY(tw_buf_putc(b, ' '));
        } else if (c == '}' || c == ']') {
            level--;
            TRY(tw_buf_putc(b, '\n'));
            for (size_t k = 0; k < level * 4; k++)
                TRY(tw_buf_putc(b, ' '));
            TRY(tw_buf_putc(b, c));
        } else if (c == ',' && i + 1 < n && p[i + 1] == ' ') {
            i++;
            TRY(PUTS(b, ",\n"));
            for (size_t k = 0; k < level * 4; k++)
                TRY(tw_buf_putc(b, ' '));
        } else {
            TRY(tw_buf_putc(b, c));
        }
    }
    return TW_OK;
}

static tw_status put_tools(tw_buf *b, const tw_request *r, const tw_encode_opts *o,
                           size_t max_depth, const l3p *lp)
{
    for (size_t i = 0; i < r->ntools; i++) {
        tw_buf t = {0};
        t.max = b->max;
        tw_status st = tw_py_tool_json_write(&t, &r->tools[i], max_depth, o->warnings, lp->fmt);
        if (st == TW_OK)
            st = reindent(b, t.data ? t.data : "", t.len);
        tw_buf_free(&t);
        TRY(st);
        TRY(PUTS(b, "\n\n"));
    }
    return TW_OK;
}

static tw_status refuse(const tw_encode_opts *o, const l3p *lp, const char *why)
{
    tw_not_carried(o, "%s: refused: %s", lp->fmt, why);
    return TW_ERR_INVALID;
}

static bool is_builtin(const l3p *lp, const char *name)
{
    for (const cJSON *c = lp->builtin ? lp->builtin->child : NULL; c; c = c->next)
        if (cJSON_IsString(c) && name && strcmp(c->valuestring, name) == 0)
            return true;
    return false;
}

static tw_status put_call(tw_buf *b, const tw_message *m, const tw_encode_opts *o, size_t max_depth,
                          const l3p *lp)
{
    const tw_call *c = &m->calls[0];
    const char *name = c->name ? c->name : "";
    TRY(PUTS(b, HDR("assistant")));
    if (is_builtin(lp, name)) {
        TRY(PUTS(b, "<|python_tag|>"));
        TRY(tw_buf_puts(b, name));
        TRY(PUTS(b, ".call("));
        for (const cJSON *a = c->arguments ? c->arguments->child : NULL; a; a = a->next) {
            if (!cJSON_IsString(a))
                return refuse(o, lp, "a built-in tool call's argument is not a string");
            if (a != c->arguments->child)
                TRY(PUTS(b, ", "));
            TRY(tw_buf_puts(b, a->string ? a->string : ""));
            TRY(PUTS(b, "=\""));
            TRY(tw_buf_puts(b, a->valuestring));
            TRY(tw_buf_putc(b, '"'));
        }
        TRY(tw_buf_putc(b, ')'));
    } else {
        TRY(PUTS(b, "{\"name\": \""));
        TRY(tw_buf_puts(b, name));
        TRY(PUTS(b, "\", \"parameters\": "));
        char where[160];
        snprintf(where, sizeof where, "%s: call %.64s arguments", lp->fmt, name);
        if (c->arguments)
            TRY(tw_json_write_py_warn(b, c->arguments, max_depth, o->warnings, where));
        else
            TRY(PUTS(b, "{}"));
        TRY(tw_buf_putc(b, '}'));
    }
    return tw_buf_puts(b, lp->builtin ? "<|eom_id|>" : "<|eot_id|>");
}

static tw_status render(tw_buf *b, const tw_request *r, const tw_encode_opts *o, size_t max_depth,
                        const char *fmt)
{
    const cJSON *opt = r->options;
    l3p lp = {fmt, NULL, true, "26 Jul 2024"};
    const cJSON *v = tw_json_get(opt, "builtin_tools");
    if (v) {
        if (!cJSON_IsArray(v))
            return refuse(o, &lp, "options.builtin_tools is not a list");
        for (const cJSON *c = v->child; c; c = c->next)
            if (!cJSON_IsString(c))
                return refuse(o, &lp, "options.builtin_tools holds a value that is not a string");
        lp.builtin = v;
    }
    v = tw_json_get(opt, "tools_in_user_message");
    if (v)
        lp.in_user = truthy(v);
    v = tw_json_get(opt, "date_string");
    if (v) {
        if (!cJSON_IsString(v))
            return refuse(o, &lp, "options.date_string is not a string");
        lp.date = v->valuestring;
    }
    const tw_message *ms = r->messages;
    size_t n = r->nmessages, i = 0;
    bool tools = r->ntools > 0;
    span sys = {"", 0};
    if (n && ms[0].role == TW_ROLE_SYSTEM) {
        sys = py_strip(buf_span(&ms[0].content));
        i = 1;
    }
    TRY(PUTS(b, "<|begin_of_text|>" HDR("system")));
    if (lp.builtin || tools)
        TRY(PUTS(b, "Environment: ipython\n"));
    if (lp.builtin) {
        TRY(PUTS(b, "Tools: "));
        bool any = false;
        for (const cJSON *c = lp.builtin->child; c; c = c->next) {
            if (strcmp(c->valuestring, "code_interpreter") == 0)
                continue;
            if (any)
                TRY(PUTS(b, ", "));
            TRY(tw_buf_puts(b, c->valuestring));
            any = true;
        }
        TRY(PUTS(b, "\n\n"));
    }
    TRY(PUTS(b, "Cutting Knowledge Date: December 2023\nToday Date: "));
    TRY(tw_buf_puts(b, lp.date));
    TRY(PUTS(b, "\n\n"));
    if (tools && !lp.in_user) {
        TRY(PUTS(b, "You have access to the following functions. To call a function, please "
                    "respond with JSON for a function call." FORMAT_LINE));
        TRY(put_tools(b, r, o, max_depth, &lp));
    }
    TRY(put_span(b, sys));
    TRY(PUTS(b, "<|eot_id|>"));
    if (tools && lp.in_user) {
        if (i == n)
            return refuse(o, &lp,
                          "Cannot put tools in the first user message when there's no first "
                          "user message!");
        TRY(PUTS(b, HDR("user") "Given the following functions, please respond with a JSON for a "
                                "function call with its proper arguments that best answers the "
                                "given prompt.\n\n" FORMAT_LINE));
        TRY(put_tools(b, r, o, max_depth, &lp));
        TRY(put_span(b, py_strip(buf_span(&ms[i].content))));
        TRY(PUTS(b, "<|eot_id|>"));
        if (ms[i].role != TW_ROLE_USER || ms[i].ncalls)
            TRY(tw_not_carried(o,
                               "%s: the first message after the system is written as the "
                               "user's (the template puts the tools in it)",
                               fmt));
        i++;
    }
    static const char *const opts[] = {"add_generation_prompt", "builtin_tools",
                                       "tools_in_user_message", "date_string"};
    TRY(tw_py_prompt_losses(r, o, fmt, n, false, opts, 4));
    bool dropped = false;
    for (; i < n; i++) {
        const tw_message *m = &ms[i];
        if (m->role == TW_ROLE_TOOL) {
            TRY(PUTS(b, HDR("ipython")));
            TRY(tw_json_write_str(b, m->content.data ? m->content.data : "", m->content.len,
                                  TW_JSON_SPACED));
            TRY(PUTS(b, "<|eot_id|>"));
        } else if (m->ncalls) {
            if (m->ncalls != 1)
                return refuse(o, &lp, "This model only supports single tool-calls at once!");
            dropped |= m->content.len > 0;
            TRY(put_call(b, m, o, max_depth, &lp));
        } else {
            TRY(PUTS(b, "<|start_header_id|>"));
            TRY(tw_buf_puts(b, tw_role_name(m->role)));
            TRY(PUTS(b, "<|end_header_id|>\n\n"));
            TRY(put_span(b, py_strip(buf_span(&m->content))));
            TRY(PUTS(b, "<|eot_id|>"));
        }
    }
    if (dropped)
        TRY(tw_not_carried(o,
                           "%s: content of an assistant message with a call not carried (the "
                           "template writes the call alone)",
                           fmt));
    if (truthy(tw_json_get(opt, "add_generation_prompt")))
        TRY(PUTS(b, HDR("assistant")));
    return TW_OK;
}

static tw_status render31(tw_buf *b, const tw_request *r, const tw_encode_opts *o, size_t md)
{
    return render(b, r, o, md, "llama-3.1-prompt");
}

static tw_status render33(tw_buf *b, const tw_request *r, const tw_encode_opts *o, size_t md)
{
    return render(b, r, o, md, "llama-3.3-prompt");
}

tw_status tw_llama31_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!r || !out)
        return TW_ERR_INVALID;
    return tw_encode_capped(r, o ? o : &tw_enc_default_opts, out, render31);
}

tw_status tw_llama33_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!r || !out)
        return TW_ERR_INVALID;
    return tw_encode_capped(r, o ? o : &tw_enc_default_opts, out, render33);
}

const tw_encoder_ops tw_encoder_llama3_output = {
    "llama3", "neutral result -> Llama 3.x model output (JSON calls, <|python_tag|>)",
    TW_ENC_RESULT, tw_unsupported_encode_request, tw_llama3_output_encode};
const tw_encoder_ops tw_encoder_llama31_prompt = {
    "llama-3.1-prompt", "neutral request -> the Llama 3.1 prompt (byte-exact template)",
    TW_ENC_REQUEST, tw_llama31_prompt_encode, tw_unsupported_encode_result};
const tw_encoder_ops tw_encoder_llama33_prompt = {
    "llama-3.3-prompt", "neutral request -> the Llama 3.3 prompt (byte-exact template)",
    TW_ENC_REQUEST, tw_llama33_prompt_encode, tw_unsupported_encode_result};
