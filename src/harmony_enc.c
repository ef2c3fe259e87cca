/*
 * The Harmony output encoder (docs/formats/harmony.md): a result written as
 * gpt-oss writes it after the generation prompt `<|start|>assistant`:
 * the reasoning as an analysis message, the content as a final message (a
 * commentary preamble when calls follow), each call as a commentary message
 * to functions.NAME with its JSON arguments, ended by <|call|>.
 */
#include <stdio.h>
#include <string.h>

#include "enc_common.h"
#include "formats.h"

static const char *const TOKENS[] = {"<|start|>",   "<|end|>",     "<|call|>",     "<|return|>",
                                     "<|channel|>", "<|message|>", "<|constrain|>"};

/* Does s[0, n) hold a special token (the decoder would read it as one)? */
static bool has_token(const char *s, size_t n)
{
    for (const char *p = s; p && (size_t)(p - s) < n;) {
        p = memchr(p, '<', n - (size_t)(p - s));
        if (!p)
            break;
        for (size_t i = 0; i < sizeof TOKENS / sizeof TOKENS[0]; i++) {
            size_t k = strlen(TOKENS[i]);
            if ((size_t)(p - s) + k <= n && memcmp(p, TOKENS[i], k) == 0)
                return true;
        }
        p++;
    }
    return false;
}

/* A name the header carries: no white space, no '<'. */
static bool name_ok(const char *s)
{
    if (!s || !*s)
        return false;
    for (; *s; s++)
        if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '<')
            return false;
    return true;
}

static tw_status begin(tw_buf *out, bool *first)
{
    tw_status st = *first ? TW_OK : tw_buf_puts(out, "<|start|>assistant");
    *first = false;
    return st;
}

static tw_status text_message(tw_buf *out, const tw_encode_opts *o, bool *first, const char *chan,
                              const tw_buf *t, const char *end)
{
    if (t->len == 0)
        return TW_OK;
    tw_status st = TW_OK;
    if (has_token(t->data, t->len))
        st = tw_not_carried(o, "%s text holds a Harmony special token; it ends the message early",
                            chan);
    if (st == TW_OK)
        st = begin(out, first);
    if (st == TW_OK)
        st = tw_buf_printf(out, "<|channel|>%s<|message|>", chan);
    if (st == TW_OK)
        st = tw_buf_append(out, t->data, t->len);
    if (st == TW_OK)
        st = tw_buf_puts(out, end);
    return st;
}

static tw_status harmony_output_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!o)
        o = &tw_enc_default_opts;
    tw_limits l;
    tw_limits_resolve(&l, &o->limits);
    tw_capsave cs;
    tw_cap_begin(out, o, &cs);
    bool first = true;
    tw_status st = TW_OK;
    const char *fin = r->finish_reason, *plain = r->msg.ncalls ? "tool_calls" : "stop";
    if (fin && *fin && strcmp(fin, plain) != 0)
        st = tw_not_carried(o, "finish_reason %s: Harmony text says none (the decoder gives %s)",
                            fin, plain);
    if (st == TW_OK && r->msg.thinking_signature)
        st = tw_not_carried(o, "the reasoning's signature: Harmony text has none");
    if (st == TW_OK)
        st = text_message(out, o, &first, "analysis", &r->msg.thinking, "<|end|>");
    if (st == TW_OK)
        st = text_message(out, o, &first, r->msg.ncalls ? "commentary" : "final", &r->msg.content,
                          r->msg.ncalls ? "<|end|>" : "<|return|>");
    for (size_t i = 0; st == TW_OK && i < r->msg.ncalls; i++) {
        const tw_call *c = &r->msg.calls[i];
        char want[32];
        snprintf(want, sizeof want, "call_%zu", i + 1);
        if (c->id && strcmp(c->id, want) != 0)
            st = tw_not_carried(o, "call id %s: Harmony has no call ids (the decoder numbers them)",
                                c->id);
        if (st == TW_OK && !name_ok(c->name))
            st = tw_not_carried(o, "call name '%s' cannot stand in a Harmony header",
                                c->name ? c->name : "");
        tw_buf t = {0};
        if (st == TW_OK)
            st = tw_args_text(c, &l, &t);
        if (st == TW_OK && has_token(t.data, t.len))
            st = tw_not_carried(o, "arguments of %s hold a Harmony special token", c->name);
        if (st == TW_OK)
            st = begin(out, &first);
        if (st == TW_OK)
            st = tw_buf_printf(out,
                               "<|channel|>commentary to=functions.%s <|constrain|>json<|message|>",
                               c->name ? c->name : "");
        if (st == TW_OK)
            st = tw_buf_append(out, t.data, t.len);
        if (st == TW_OK)
            st = tw_buf_puts(out, "<|call|>");
        tw_buf_free(&t);
    }
    return tw_cap_end(out, &cs, st);
}

const tw_encoder_ops tw_encoder_harmony_output = {
    "harmony", "OpenAI gpt-oss Harmony model output (what the model writes for a result)",
    TW_ENC_RESULT, tw_unsupported_encode_request, harmony_output_encode};
