/*
 * DeepSeek V3.2 encoders: the output the model writes for a result (dsml),
 * as the chat template writes an assistant turn's calls. Rules:
 * docs/formats/dsml.md.
 */
#include "toolwire/dsml.h"

#include <stdio.h>
#include <string.h>

#include "dsml_text.h"
#include "enc_common.h"
#include "formats.h"
#include "tw_macros.h"
#include "toolwire/json.h"

#define OUT "dsml"

static bool holds(const char *p, size_t n, const char *lit)
{
    return tw_memmem(p ? p : "", n, lit, strlen(lit)) != NULL;
}

/* The first marker of `marks` that p[0, n) holds, or NULL. */
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

/* A name or key as an attribute value: not empty, no '<', '>', '"' or
 * control byte (what the decoder takes back; a space is kept). */
static bool attr_ok(const char *p)
{
    if (!p || !p[0])
        return false;
    for (; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c < 0x20 || c == '<' || c == '>' || c == '"' || c == 0x7f)
            return false;
    }
    return true;
}

/* <｜DSML｜invoke name="NAME">\n, a line per argument, </｜DSML｜invoke>\n. */
static tw_status put_invoke(tw_buf *b, const tw_call *c, size_t i, const tw_encode_opts *o,
                            size_t max_depth)
{
    static const char *const in_value[] = {D_PARAM_CLOSE, D_INVOKE_CLOSE, D_INVOKE_OPEN,
                                           D_CALLS_CLOSE, D_EOS};
    const char *nm = c->name ? c->name : "";
    char gen[32];
    snprintf(gen, sizeof gen, "call_%zu", i + 1);
    if (c->id && strcmp(c->id, gen) != 0)
        TRY(tw_not_carried(o, OUT ": id of call %.64s not carried", nm));
    if (!attr_ok(nm)) {
        tw_not_carried(o, OUT ": refused: the call name %.64s cannot be written", nm);
        return TW_ERR_INVALID;
    }
    if (c->arguments && !cJSON_IsObject(c->arguments)) {
        tw_not_carried(o, OUT ": refused: arguments of call %.64s are not an object", nm);
        return TW_ERR_INVALID;
    }
    TRY(PUTS(b, D_INVOKE_OPEN " name=\""));
    TRY(tw_buf_puts(b, nm));
    TRY(PUTS(b, "\">\n"));
    for (const cJSON *a = c->arguments ? c->arguments->child : NULL; a; a = a->next) {
        const char *k = a->string ? a->string : "";
        if (!attr_ok(k)) {
            tw_not_carried(o, OUT ": refused: parameter name %.64s of call %.64s cannot be written",
                           k, nm);
            return TW_ERR_INVALID;
        }
        TRY(PUTS(b, D_PARAM_OPEN " name=\""));
        TRY(tw_buf_puts(b, k));
        if (cJSON_IsString(a)) {
            const char *v = a->valuestring ? a->valuestring : "";
            size_t vn = strlen(v);
            const char *tok = holds_any(v, vn, in_value, 5);
            if (tok)
                return refuse_out(o, "a string argument", tok);
            TRY(PUTS(b, "\" string=\"true\">"));
            TRY(tw_buf_append(b, v, vn));
        } else {
            TRY(PUTS(b, "\" string=\"false\">"));
            size_t at = b->len;
            (void)max_depth;
            TRY(tw_json_write(b, a, 0));
            const char *tok = holds_any(b->data + at, b->len - at, in_value, 5);
            if (tok)
                return refuse_out(o, "an argument", tok);
        }
        TRY(PUTS(b, D_PARAM_CLOSE "\n"));
    }
    return PUTS(b, D_INVOKE_CLOSE "\n");
}

static tw_status render_output(tw_buf *b, const tw_result *r, const tw_encode_opts *o)
{
    static const char *const in_text[] = {D_THINK_CLOSE, D_CALLS_OPEN, D_INVOKE_OPEN, D_EOS};
    const tw_message *m = &r->msg;
    const char *tok;
    /* the reasoning ends at the first </think> or block; the content at a
     * block or an invoke (a </think> in content is text) */
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
    TRY(PUTS(b, D_THINK_OPEN));
    TRY(tw_buf_append(b, m->thinking.data ? m->thinking.data : "", m->thinking.len));
    TRY(PUTS(b, D_THINK_CLOSE));
    TRY(tw_buf_append(b, m->content.data ? m->content.data : "", m->content.len));
    if (m->ncalls == 0)
        return TW_OK;
    tw_limits L;
    tw_limits_resolve(&L, &o->limits);
    TRY(PUTS(b, "\n\n" D_CALLS_OPEN "\n"));
    for (size_t i = 0; i < m->ncalls; i++)
        TRY(put_invoke(b, &m->calls[i], i, o, L.max_depth));
    return PUTS(b, D_CALLS_CLOSE);
}

tw_status tw_dsml_output_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out)
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

const tw_encoder_ops tw_encoder_dsml_output = {
    OUT, "neutral result -> the DeepSeek V3.2 model output (</think>, DSML function_calls)",
    TW_ENC_RESULT, tw_unsupported_encode_request, tw_dsml_output_encode};
