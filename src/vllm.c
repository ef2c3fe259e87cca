/*
 * vLLM-native /generate (the two-pass contract): the GenerateResponse
 * decoder, the GenerateRequest / GenerateResponse encoders, the server's
 * two-pass assembly and the client's AIMessage mapping.
 * Rules: docs/formats/vllm-native.md.
 */
#include "alloc.h"
#include "toolwire/vllm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enc_common.h"
#include "formats.h"
#include "json_marks.h"
#include "wire_common.h"
#include "toolwire/json.h"
#include "toolwire/text.h"
#include "tw_macros.h"

/* The streaming state (opaque in toolwire/vllm.h): the body is buffered
 * (up to max_input_bytes) and decoded at finish; events fire from finish. */
struct tw_vllm_dec {
    tw_decode_opts o;
    tw_limits L;
    tw_event_fn fn;
    void *user;
    tw_buf body;
    bool too_large;
    bool finished;
    tw_status stop; /* a callback's status that stopped the decode; TW_OK while none */
};

static tw_status put_str(tw_buf *b, const char *s, size_t n)
{
    return tw_json_write_str(b, s ? s : "", s ? n : 0, TW_JSON_COMPACT);
}

static tw_status put_cstr(tw_buf *b, const char *s)
{
    return put_str(b, s, s ? strlen(s) : 0);
}

/* ===================== parameters and tokens ===================== */

static bool count_field(const cJSON *v, size_t *out)
{
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 1e15 ||
        v->valuedouble != (double)(size_t)v->valuedouble)
        return false;
    *out = (size_t)v->valuedouble;
    return true;
}

static tw_status bad(tw_error *err, const char *key)
{
    tw_error_set(err, TW_ERR_INVALID, -1, NULL, "option '%s' has a bad value", key);
    return TW_ERR_INVALID;
}

tw_status tw_vllm_params_read(const cJSON *options, tw_vllm_params *out, tw_error *err)
{
    memset(out, 0, sizeof *out);
    out->two_pass = true;
    out->hermes = true;
    const cJSON *v;
    if ((v = tw_json_get(options, "two_pass")) && !cJSON_IsNull(v)) {
        if (!cJSON_IsBool(v))
            return bad(err, "two_pass");
        out->two_pass = cJSON_IsTrue(v);
    }
    if ((v = tw_json_get(options, "think_tag")) && !cJSON_IsNull(v)) {
        if (!cJSON_IsString(v) ||
            (strcmp(v->valuestring, "think") != 0 && strcmp(v->valuestring, "thinking") != 0))
            return bad(err, "think_tag");
        out->thinking_tag = strcmp(v->valuestring, "thinking") == 0;
    }
    if ((v = tw_json_get(options, "max_thinking_tokens")) && !cJSON_IsNull(v) &&
        !count_field(v, &out->max_thinking_tokens))
        return bad(err, "max_thinking_tokens");
    if ((v = tw_json_get(options, "max_response_tokens")) && !cJSON_IsNull(v) &&
        !count_field(v, &out->max_response_tokens))
        return bad(err, "max_response_tokens");
    if ((v = tw_json_get(options, "tool_parser")) && !cJSON_IsNull(v)) {
        if (!cJSON_IsString(v))
            return bad(err, "tool_parser");
        if (strcmp(v->valuestring, "hermes") != 0 && strcmp(v->valuestring, "openai") != 0 &&
            strcmp(v->valuestring, "qwen3_coder") != 0) {
            /* another text decoder of the registry: a model dialect */
            const tw_format_ops *f = tw_format_find(v->valuestring);
            if (!f || !tw_decoder_is_text(f->name) || strcmp(f->name, "proxy") == 0)
                return bad(err, "tool_parser");
            out->parser = f->name;
            out->hermes = false;
        } else {
            /* qwen3_coder keeps the Hermes block and its stop, with XML calls inside */
            out->qwen3_coder = strcmp(v->valuestring, "qwen3_coder") == 0;
            out->hermes = out->qwen3_coder || strcmp(v->valuestring, "hermes") == 0;
        }
    }
    if ((v = tw_json_get(options, "temperature")) && !cJSON_IsNull(v) && !cJSON_IsNumber(v))
        return bad(err, "temperature");
    return TW_OK;
}

size_t tw_vllm_token_prefix(const char *buf, size_t len, size_t max_tokens, size_t *ntokens)
{
    size_t i = 0, tokens = 0, cut = len;
    bool cut_set = false;
    while (i < len) {
        if (!cut_set && tokens == max_tokens) {
            cut = i;
            cut_set = true;
            if (!ntokens)
                break;
        }
        bool sp = tw_is_space((unsigned char)buf[i]);
        while (i < len && tw_is_space((unsigned char)buf[i]) == sp)
            i++;
        tokens++;
    }
    if (ntokens)
        *ntokens = tokens;
    return cut;
}

/* ===================== the two-pass assembly ===================== */

void tw_vllm_assembly_free(tw_vllm_assembly *a)
{
    tw_buf_free(&a->thinking_core);
    tw_buf_free(&a->response_prefix);
    tw_buf_free(&a->text2);
    tw_buf_free(&a->combined);
    tw_buf_free(&a->pre_tool_text);
    tw_result_free(&a->result);
    memset(a, 0, sizeof *a);
}

static tw_status put_trimmed(tw_buf *b, const char *p, size_t n)
{
    tw_trim(&p, &n);
    return tw_buf_append(b, p ? p : "", n);
}

static tw_status pass1_split(tw_vllm_assembly *a, const tw_vllm_params *p, const char *t, size_t n)
{
    size_t cut =
        p->max_thinking_tokens ? tw_vllm_token_prefix(t, n, p->max_thinking_tokens, NULL) : n;
    const char *c1 = tw_memmem(t, n, "</think>", 8);
    const char *c2 = tw_memmem(t, n, "</thinking>", 11);
    const char *close = c1;
    size_t clen = 8;
    if (c2 && (!c1 || c2 < c1)) {
        close = c2;
        clen = 11;
    }
    size_t core_end = cut, pre_from = cut;
    if (close && (size_t)(close - t) + clen <= cut) {
        core_end = (size_t)(close - t);
        pre_from = core_end + clen;
        a->pass1_stop = TW_VLLM_STOP_TAG;
    } else {
        a->pass1_stop = cut < n ? TW_VLLM_TOKEN_CAP : TW_VLLM_END;
    }
    /* a repeated opening tag at the very start is dropped (docs/formats/vllm-native.md, step 1) */
    const char *core = t;
    size_t cn = core_end;
    tw_trim(&core, &cn);
    if (cn >= 7 && memcmp(core, "<think>", 7) == 0) {
        core += 7;
        cn -= 7;
    } else if (cn >= 10 && memcmp(core, "<thinking>", 10) == 0) {
        core += 10;
        cn -= 10;
    }
    TRY(put_trimmed(&a->thinking_core, core, cn));
    TRY(put_trimmed(&a->response_prefix, t + pre_from, cut - pre_from));
    if (a->pass1_stop != TW_VLLM_STOP_TAG)
        TRY(tw_diag_add(&a->result.errors, TW_D_THINK_UNTERMINATED, -1,
                        a->pass1_stop == TW_VLLM_TOKEN_CAP
                            ? "pass 1 hit max_thinking_tokens; the think block was closed"
                            : "pass 1 ended without a closing tag; the think block was closed"));
    return TW_OK;
}

static tw_status pass2_cut(tw_vllm_assembly *a, const tw_vllm_params *p, const char *t, size_t n,
                           tw_finish *finish)
{
    size_t cut =
        p->max_response_tokens ? tw_vllm_token_prefix(t, n, p->max_response_tokens, NULL) : n;
    const char *stop = p->hermes ? tw_memmem(t, n, "</tool_call>", 12) : NULL;
    size_t keep;
    if (stop && (size_t)(stop - t) + 12 <= cut) {
        keep = (size_t)(stop - t); /* the stop sequence is consumed */
        a->pass2_stop = TW_VLLM_STOP_TAG;
        *finish = TW_FINISH_STOP_SEQUENCE;
    } else if (cut < n) {
        keep = cut;
        a->pass2_stop = TW_VLLM_TOKEN_CAP;
        *finish = TW_FINISH_LENGTH;
    } else {
        keep = n;
        a->pass2_stop = TW_VLLM_END;
        *finish = TW_FINISH_STOP;
    }
    return tw_buf_append(&a->text2, t, keep);
}

tw_status tw_vllm_assemble(const tw_vllm_params *p, const char *pass1, size_t len1,
                           const char *pass2, size_t len2, const tw_decode_opts *o,
                           tw_vllm_assembly *out)
{
    memset(out, 0, sizeof *out);
    tw_decode_opts dopt;
    if (o)
        dopt = *o;
    else
        memset(&dopt, 0, sizeof dopt);
    tw_limits L;
    tw_limits_resolve(&L, &dopt.limits);
    tw_result_init(&out->result, &L);
    tw_status st = TW_OK;
    if (len1 > L.max_input_bytes || len2 > L.max_input_bytes) {
        /* each pass is read up to the cap; the rest was never generated */
        len1 = len1 > L.max_input_bytes ? L.max_input_bytes : len1;
        len2 = len2 > L.max_input_bytes ? L.max_input_bytes : len2;
        st = tw_diag_add(&out->result.errors, TW_D_INPUT_TOO_LARGE, -1,
                         "a pass text exceeds max_input_bytes; the rest was not read");
    }
    if (p->two_pass)
        st = pass1_split(out, p, pass1 ? pass1 : "", len1);
    tw_finish fin = TW_FINISH_STOP;
    if (st == TW_OK)
        st = pass2_cut(out, p, pass2 ? pass2 : "", len2, &fin);
    if (st == TW_OK) {
        tw_buf joined = {0};
        st = tw_buf_append(&joined, out->response_prefix.data ? out->response_prefix.data : "",
                           out->response_prefix.len);
        if (st == TW_OK && out->response_prefix.len && out->text2.len)
            st = tw_buf_putc(&joined, ' ');
        if (st == TW_OK)
            st = tw_buf_append(&joined, out->text2.data ? out->text2.data : "", out->text2.len);
        if (st == TW_OK)
            st = put_trimmed(&out->combined, joined.data ? joined.data : "", joined.len);
        tw_buf_free(&joined);
    }
    tw_result dec;
    memset(&dec, 0, sizeof dec);
    if (st == TW_OK) {
        dopt.finish = fin;
        dopt.forced_open = false;
        dopt.bare_json = false;
        const char *cb = out->combined.data;
        size_t cl = out->combined.len;
        const tw_format_ops *pf = p->parser ? tw_format_find(p->parser) : NULL;
        st = pf               ? pf->decode(cb, cl, &dopt, &dec)
             : p->qwen3_coder ? tw_qwen3_coder_output_decode(cb, cl, &dopt, &dec)
             : p->hermes      ? tw_hermes_output_decode(cb, cl, &dopt, &dec)
                              : tw_think_output_decode(cb, cl, &dopt, &dec);
    }
    if (st == TW_OK) {
        tw_result *r = &out->result;
        st = tw_buf_append(&r->msg.thinking, out->thinking_core.data ? out->thinking_core.data : "",
                           out->thinking_core.len);
        /* a dialect's parser separates the reasoning of pass 2 itself */
        if (st == TW_OK && p->parser && dec.msg.thinking.len) {
            if (r->msg.thinking.len)
                st = tw_buf_putc(&r->msg.thinking, '\n');
            if (st == TW_OK)
                st = tw_buf_append(&r->msg.thinking, dec.msg.thinking.data, dec.msg.thinking.len);
        }
        /* the server numbers the calls itself: call_1, call_2, ... */
        for (size_t i = 0; st == TW_OK && i < dec.msg.ncalls; i++) {
            char id[32];
            snprintf(id, sizeof id, "call_%zu", i + 1);
            char *nid = tw_strdup(id);
            if (!nid) {
                st = TW_ERR_NOMEM;
                break;
            }
            tw_free(dec.msg.calls[i].id);
            dec.msg.calls[i].id = nid;
            st = tw_message_add_call(&r->msg, &dec.msg.calls[i]);
        }
        if (st == TW_OK && dec.msg.ncalls) {
            out->has_pre_tool_text = true;
            st =
                tw_buf_append(&out->pre_tool_text, dec.msg.content.data ? dec.msg.content.data : "",
                              dec.msg.content.len);
            if (st == TW_OK)
                st =
                    tw_buf_append(&r->msg.content, out->pre_tool_text.data, out->pre_tool_text.len);
        } else if (st == TW_OK && p->hermes &&
                   tw_diag_has(&dec.errors, TW_D_TOOL_CALL_UNTERMINATED)) {
            /* the contract: an incomplete call is not run and its markup is not
             * shown; the response says so instead */
            static const char msg[] = "[the tool call was incomplete and was not run]";
            st = tw_buf_append(&r->msg.content, dec.msg.content.data ? dec.msg.content.data : "",
                               dec.msg.content.len);
            if (st == TW_OK && dec.msg.content.len)
                st = tw_buf_append(&r->msg.content, "\n\n", 2);
            if (st == TW_OK)
                st = tw_buf_append(&r->msg.content, msg, sizeof msg - 1);
        } else if (st == TW_OK && p->parser) {
            /* a dialect's markup is never content: the parser's content is */
            st = tw_buf_append(&r->msg.content, dec.msg.content.data ? dec.msg.content.data : "",
                               dec.msg.content.len);
        } else if (st == TW_OK) {
            st = tw_buf_append(&r->msg.content, out->combined.data, out->combined.len);
        }
        for (size_t i = 0; st == TW_OK && i < dec.errors.len; i++)
            st = tw_diag_add(&r->errors, dec.errors.items[i].code, dec.errors.items[i].offset,
                             dec.errors.items[i].message);
        for (size_t i = 0; st == TW_OK && i < dec.warnings.len; i++)
            if (dec.warnings.items[i].code != TW_D_DUPLICATE_ID) /* ids are reassigned */
                st = tw_diag_add(&r->warnings, dec.warnings.items[i].code,
                                 dec.warnings.items[i].offset, dec.warnings.items[i].message);
        if (st == TW_OK) {
            const char *fr = r->msg.ncalls                          ? "tool_calls"
                             : out->pass2_stop == TW_VLLM_TOKEN_CAP ? "length"
                                                                    : "stop";
            r->finish_reason = tw_strdup(fr);
            if (!r->finish_reason)
                st = TW_ERR_NOMEM;
        }
    }
    /* calls moved out of dec are zeroed; the rest is freed here */
    tw_result_free(&dec);
    if (st != TW_OK)
        tw_vllm_assembly_free(out);
    return st;
}

/* ===================== AIMessage ===================== */

tw_status tw_vllm_aimessage_write(tw_buf *out, const tw_result *r, const char *think_tag, int flags)
{
    (void)flags;
    const char *tag = think_tag ? think_tag : "think";
    tw_buf content = {0};
    tw_status st = TW_OK;
    if (r->msg.thinking.len) {
        st = tw_buf_printf(&content, "<%s>", tag);
        if (st == TW_OK)
            st = tw_buf_append(&content, r->msg.thinking.data, r->msg.thinking.len);
        if (st == TW_OK)
            st = tw_buf_printf(&content, "</%s>\n", tag);
    }
    if (st == TW_OK)
        st = tw_buf_append(&content, r->msg.content.data ? r->msg.content.data : "",
                           r->msg.content.len);
    if (st == TW_OK)
        st = PUTS(out, "{\"content\":");
    if (st == TW_OK)
        st = put_str(out, content.data, content.len);
    tw_buf_free(&content);
    TRY(st);
    TRY(PUTS(out, ",\"tool_calls\":["));
    for (size_t i = 0; i < r->msg.ncalls; i++) {
        const tw_call *c = &r->msg.calls[i];
        TRY(tw_buf_puts(out, i ? ",{\"id\":" : "{\"id\":"));
        TRY(put_cstr(out, c->id));
        TRY(PUTS(out, ",\"name\":"));
        TRY(put_cstr(out, c->name));
        TRY(PUTS(out, ",\"args\":"));
        if (c->arguments)
            TRY(tw_json_write(out, c->arguments, TW_JSON_COMPACT));
        else
            TRY(PUTS(out, "{}"));
        TRY(tw_buf_putc(out, '}'));
    }
    TRY(PUTS(out, "],\"additional_kwargs\":{\"thinking\":"));
    TRY(put_str(out, r->msg.thinking.data, r->msg.thinking.len));
    return PUTS(out, "}}");
}

/* ===================== encoders ===================== */

static tw_status warn(const tw_encode_opts *o, const char *msg)
{
    return o && o->warnings ? tw_diag_add(o->warnings, TW_D_NOT_CARRIED, -1, msg) : TW_OK;
}

/* History calls ride in the content as Hermes <tool_call> text, the way the
 * Qwen3 template renders them. */
static tw_status write_message(tw_buf *b, const tw_message *m, size_t max_depth, tw_diag_list *w)
{
    TRY(PUTS(b, "{\"role\":"));
    TRY(put_cstr(b, tw_role_name(m->role)));
    TRY(PUTS(b, ",\"content\":"));
    if (!m->ncalls)
        TRY(put_str(b, m->content.data, m->content.len));
    else {
        tw_buf c = {0};
        tw_status st = tw_buf_append(&c, m->content.data ? m->content.data : "", m->content.len);
        for (size_t i = 0; st == TW_OK && i < m->ncalls; i++) {
            if (i || m->content.len)
                st = tw_buf_putc(&c, '\n');
            if (st == TW_OK)
                st = PUTS(&c, "<tool_call>\n{\"name\": ");
            if (st == TW_OK)
                st = tw_json_write_str(&c, m->calls[i].name ? m->calls[i].name : "",
                                       m->calls[i].name ? strlen(m->calls[i].name) : 0,
                                       TW_JSON_SPACED);
            if (st == TW_OK)
                st = PUTS(&c, ", \"arguments\": ");
            char where[160];
            snprintf(where, sizeof where, "vllm-generate-request: call %.64s arguments",
                     m->calls[i].name ? m->calls[i].name : "");
            if (st == TW_OK)
                st = m->calls[i].arguments
                         ? tw_json_write_py_warn(&c, m->calls[i].arguments, max_depth, w, where)
                         : PUTS(&c, "{}");
            if (st == TW_OK)
                st = PUTS(&c, "}\n</tool_call>");
        }
        if (st == TW_OK)
            st = put_str(b, c.data, c.len);
        tw_buf_free(&c);
        TRY(st);
    }
    return tw_buf_putc(b, '}');
}

static tw_status write_num_opt(tw_buf *b, const cJSON *opts, const char *key)
{
    const cJSON *v = tw_json_get(opts, key);
    if (!cJSON_IsNumber(v))
        return TW_OK;
    TRY(tw_buf_printf(b, ",\"%s\":", key));
    return tw_json_write_number(b, v);
}

/* Report what a GenerateRequest does not carry, besides history thinking,
 * tool_call_id and is_error (render_request). */
static tw_status warn_request_losses(const tw_request *r, const tw_encode_opts *o)
{
    static const char *const keys[] = {
        "temperature",         "two_pass",    "think_tag", "max_thinking_tokens",
        "max_response_tokens", "tool_parser", NULL};
    if (!o || !o->warnings)
        return TW_OK;
    if (r->model)
        TRY(warn(o, "vllm-generate-request: model not carried"));
    if (r->parallel_tool_calls >= 0)
        TRY(warn(o, "vllm-generate-request: parallel_tool_calls not carried"));
    for (const cJSON *c = r->options ? r->options->child : NULL; c; c = c->next) {
        const char *k = c->string ? c->string : "";
        bool known = false;
        for (size_t i = 0; keys[i] && !known; i++)
            known = strcmp(keys[i], k) == 0;
        if (!known)
            TRY(tw_diag_addf(o->warnings, TW_D_NOT_CARRIED, -1,
                             "vllm-generate-request: options.%s not carried", k));
    }
    bool ids = false, names = false, sig = false, redacted = false;
    for (size_t i = 0; i < r->nmessages; i++) {
        const tw_message *m = &r->messages[i];
        ids |= m->ncalls > 0;
        sig |= m->thinking_signature != NULL;
        redacted |= m->has_redacted_thinking || m->redacted_thinking != NULL;
        if (m->role == TW_ROLE_TOOL && m->name) {
            /* a reader names a result after the call it answers in order */
            size_t s = i;
            while (s > 0 && r->messages[s - 1].role == TW_ROLE_TOOL)
                s--;
            const tw_message *a =
                s > 0 && r->messages[s - 1].role == TW_ROLE_ASSISTANT ? &r->messages[s - 1] : NULL;
            const char *want = a && i - s < a->ncalls ? a->calls[i - s].name : NULL;
            names |= !want || strcmp(want, m->name) != 0;
        }
    }
    if (ids)
        TRY(warn(o, "vllm-generate-request: ids of history tool calls not carried"));
    if (names)
        TRY(warn(o, "vllm-generate-request: name of a tool result not carried (it is not the name "
                    "of the call it answers in order)"));
    if (sig)
        TRY(warn(o, "vllm-generate-request: thinking signatures not carried"));
    if (redacted)
        TRY(warn(o, "vllm-generate-request: redacted thinking not carried"));
    return TW_OK;
}

static tw_status render_request(tw_buf *b, const tw_request *r, const tw_encode_opts *o,
                                size_t max_depth)
{
    TRY(warn_request_losses(r, o));
    bool thinking_dropped = false, ids_dropped = false, errs_dropped = false;
    TRY(PUTS(b, "{\"messages\":["));
    for (size_t i = 0; i < r->nmessages; i++) {
        const tw_message *m = &r->messages[i];
        thinking_dropped |= m->thinking.len > 0;
        ids_dropped |= m->role == TW_ROLE_TOOL && m->tool_call_id;
        errs_dropped |= m->is_error;
        if (i)
            TRY(tw_buf_putc(b, ','));
        TRY(write_message(b, m, max_depth, o ? o->warnings : NULL));
    }
    TRY(tw_buf_putc(b, ']'));
    const cJSON *opts = r->options;
    TRY(write_num_opt(b, opts, "temperature"));
    const cJSON *v = tw_json_get(opts, "two_pass");
    if (cJSON_IsBool(v))
        TRY(tw_buf_puts(b, cJSON_IsTrue(v) ? ",\"two_pass\":true" : ",\"two_pass\":false"));
    if ((v = tw_json_get(opts, "think_tag")) && cJSON_IsString(v)) {
        TRY(PUTS(b, ",\"think_tag\":"));
        TRY(put_cstr(b, v->valuestring));
    }
    TRY(write_num_opt(b, opts, "max_thinking_tokens"));
    TRY(write_num_opt(b, opts, "max_response_tokens"));
    if (r->tools_present || r->ntools) {
        TRY(PUTS(b, ",\"tools\":["));
        for (size_t i = 0; i < r->ntools; i++) {
            if (i)
                TRY(tw_buf_putc(b, ','));
            TRY(tw_tool_write(b, &r->tools[i], TW_JSON_COMPACT));
        }
        TRY(tw_buf_putc(b, ']'));
    }
    switch (r->choice) {
    case TW_CHOICE_AUTO: TRY(PUTS(b, ",\"tool_choice\":\"auto\"")); break;
    case TW_CHOICE_NONE: TRY(PUTS(b, ",\"tool_choice\":\"none\"")); break;
    case TW_CHOICE_REQUIRED: TRY(PUTS(b, ",\"tool_choice\":\"required\"")); break;
    case TW_CHOICE_NAMED:
        TRY(PUTS(b, ",\"tool_choice\":{\"name\":"));
        TRY(put_cstr(b, r->choice_name));
        TRY(tw_buf_putc(b, '}'));
        break;
    default: break;
    }
    if ((v = tw_json_get(opts, "tool_parser")) && cJSON_IsString(v)) {
        TRY(PUTS(b, ",\"tool_parser\":"));
        TRY(put_cstr(b, v->valuestring));
    }
    if (thinking_dropped)
        TRY(warn(o, "vllm-generate-request: thinking of history messages not carried"));
    if (ids_dropped)
        TRY(warn(o, "vllm-generate-request: tool_call_id of tool results not carried"));
    if (errs_dropped)
        TRY(warn(o, "vllm-generate-request: is_error of tool results not carried"));
    return tw_buf_putc(b, '}');
}

tw_status tw_vllm_request_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!r || !out)
        return TW_ERR_INVALID;
    tw_vllm_params p;
    TRY(tw_vllm_params_read(r->options, &p, NULL));
    return tw_encode_capped(r, o, out, render_request);
}

static tw_status render_response(tw_buf *b, const tw_result *r)
{
    TRY(PUTS(b, "{\"thinking\":"));
    TRY(put_str(b, r->msg.thinking.data, r->msg.thinking.len));
    TRY(PUTS(b, ",\"response\":"));
    TRY(put_str(b, r->msg.content.data, r->msg.content.len));
    TRY(PUTS(b, ",\"tool_calls\":["));
    for (size_t i = 0; i < r->msg.ncalls; i++) {
        const tw_call *c = &r->msg.calls[i];
        TRY(tw_buf_puts(b, i ? ",{\"id\":" : "{\"id\":"));
        TRY(put_cstr(b, c->id));
        TRY(PUTS(b, ",\"name\":"));
        TRY(put_cstr(b, c->name));
        TRY(PUTS(b, ",\"arguments\":"));
        if (c->arguments)
            TRY(tw_json_write(b, c->arguments, TW_JSON_COMPACT));
        else
            TRY(PUTS(b, "{}"));
        TRY(tw_buf_putc(b, '}'));
    }
    TRY(PUTS(b, "],\"pre_tool_text\":"));
    if (r->msg.ncalls)
        TRY(put_str(b, r->msg.content.data, r->msg.content.len));
    else
        TRY(PUTS(b, "null"));
    return tw_buf_putc(b, '}');
}

tw_status tw_vllm_response_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!r || !out)
        return TW_ERR_INVALID;
    tw_limits L;
    tw_limits_resolve(&L, o ? &o->limits : NULL);
    tw_buf b = {0};
    b.max = L.max_output_bytes;
    tw_status st = render_response(&b, r);
    if (st == TW_OK)
        st = tw_buf_append(out, b.data ? b.data : "", b.len);
    tw_buf_free(&b);
    if (st == TW_OK) {
        const char *fr = r->finish_reason ? r->finish_reason : "";
        const char *derived = r->msg.ncalls ? "tool_calls" : "stop";
        if (fr[0] && strcmp(fr, derived) != 0)
            st = warn(o, "vllm-generate-response: finish_reason not carried");
        if (st == TW_OK && r->msg.thinking_signature)
            st = warn(o, "vllm-generate-response: thinking signature not carried");
        if (st == TW_OK && (r->errors.len || r->warnings.len))
            st = warn(o, "vllm-generate-response: diagnostics not carried");
    }
    return st;
}

/* ===================== decoder ===================== */

static const char *const TOP_KEYS[4] = {"thinking", "response", "tool_calls", "pre_tool_text"};

/* Where the top-level member TOP_KEYS[k]'s value lies, located only when a
 * diagnostic names it; -1 when U+0000 was removed from the tree (it no
 * longer matches the text) or the member is not there. */
static int64_t top_off(const char *buf, size_t len, bool nul, int k)
{
    if (nul)
        return -1;
    tw_wire_step p[1] = {{TOP_KEYS[k], 0}};
    return tw_wire_locate(buf, len, p, 1);
}

/* Optional string member: "" when absent or null; shape error otherwise. */
static tw_status text_member(tw_result *res, const cJSON *root, int k, const char *buf, size_t len,
                             bool nul, const char **out)
{
    const cJSON *v = tw_json_get(root, TOP_KEYS[k]);
    *out = NULL;
    if (!v || cJSON_IsNull(v))
        return TW_OK;
    if (cJSON_IsString(v)) {
        *out = v->valuestring;
        return TW_OK;
    }
    return tw_diag_addf(&res->errors, TW_D_RESPONSE_SHAPE, top_off(buf, len, nul, k),
                        "'%s' is not a string; ignored", TOP_KEYS[k]);
}

static tw_status decode_body(const char *buf, size_t len, const tw_decode_opts *o,
                             const tw_limits *L, tw_result *res)
{
    cJSON *root = NULL;
    tw_error e;
    tw_json_lint lint;
    tw_buf marks = {0}; /* where the calls begin, when the one-pass parse read the body */
    tw_status ps =
        tw_json_parse_lint_marked(buf, len, L->max_depth, &root, &e, &lint, &marks, NULL);
    if (ps != TW_OK)
        tw_buf_free(&marks);
    if (ps == TW_ERR_NOMEM)
        return ps;
    if (ps != TW_OK)
        return tw_diag_add(&res->errors,
                           e.code == TW_D_JSON_TOO_DEEP ? TW_D_JSON_TOO_DEEP : TW_D_RESPONSE_JSON,
                           e.offset >= 0 ? e.offset : 0, e.message[0] ? e.message : NULL);
    tw_status st = TW_OK;
    if (lint.nonstd_offset >= 0)
        st = tw_diag_addf(&res->warnings, TW_D_JSON_NOT_RFC8259, lint.nonstd_offset,
                          "JSON is not RFC 8259: %s", lint.nonstd_what);
    if (st == TW_OK && lint.nul)
        st = tw_diag_add(&res->errors, TW_D_JSON_NUL, lint.nul_offset,
                         "a string or key holds U+0000; the value it belongs to was refused");
    if (st != TW_OK) {
        cJSON_Delete(root);
        tw_buf_free(&marks);
        return st;
    }
    if (!cJSON_IsObject(root)) {
        size_t i = 0;
        while (i < len && tw_is_space((unsigned char)buf[i]))
            i++;
        st = tw_diag_add(&res->errors, TW_D_RESPONSE_SHAPE, (int64_t)i,
                         "a GenerateResponse is a JSON object");
        cJSON_Delete(root);
        tw_buf_free(&marks);
        return st;
    }
    bool nul = lint.nul; /* values removed for U+0000: the tree no longer matches the text */
    cJSON *calls = tw_json_get(root, "tool_calls");
    const char *dk = tw_json_duplicate_key(root);
    if (dk)
        st = tw_diag_addf(&res->warnings, TW_D_DUPLICATE_KEY, -1,
                          "key '%.60s' appears twice; the first was used", dk);
    const char *thinking = NULL, *response = NULL, *pre = NULL;
    if (st == TW_OK)
        st = text_member(res, root, 0, buf, len, nul, &thinking);
    if (st == TW_OK)
        st = text_member(res, root, 1, buf, len, nul, &response);
    if (st == TW_OK)
        st = text_member(res, root, 3, buf, len, nul, &pre);
    if (st == TW_OK && calls && !cJSON_IsNull(calls) && !cJSON_IsArray(calls))
        st = tw_diag_add(&res->errors, TW_D_RESPONSE_SHAPE, top_off(buf, len, nul, 2),
                         "'tool_calls' is not an array; ignored");
    tw_wire_sink k = {res, o, L, NULL, NULL, NULL};
    if (cJSON_IsArray(calls)) {
        /* each call's offset from the parse's marks, or one walk over the
         * array; each call object lies in the body's tree, read with
         * max_depth from len bytes, so its arguments are not walked again */
        tw_wire_step path[1] = {{"tool_calls", 0}};
        tw_wire_elems el;
        tw_wire_elems_open(&el, &marks, calls, buf, len, path, 1);
        for (cJSON *c = calls->child, *nx; st == TW_OK && c; c = nx) {
            nx = c->next;
            int64_t off = nul ? -1 : tw_wire_elems_next(&el, c);
            st = tw_call_take_parsed(&k, c, off, len);
        }
    }
    tw_buf_free(&marks);
    if (st == TW_OK && thinking)
        st = tw_buf_puts(&res->msg.thinking, thinking);
    if (st == TW_OK) {
        const char *content = response && response[0] ? response : pre;
        if (response && response[0] && pre && pre[0] && strcmp(response, pre) != 0)
            st = tw_diag_add(&res->errors, TW_D_RESPONSE_SHAPE, top_off(buf, len, nul, 3),
                             "'pre_tool_text' differs from 'response'; 'response' was kept");
        if (st == TW_OK && content)
            st = tw_buf_puts(&res->msg.content, content);
    }
    cJSON_Delete(root);
    return st;
}

static void fire(tw_vllm_dec *d, tw_event_kind k, const char *t, size_t n, const tw_call *c,
                 const tw_diag *g)
{
    tw_event ev = {k, t, n, c, g};
    tw_event_deliver(d->fn, d->user, &d->stop, &ev);
}

static tw_status vllm_init(tw_vllm_dec *d, const tw_decode_opts *o, tw_event_fn fn, void *user)
{
    TW_DECODER_SETUP(d, o, fn, user);
    d->body.max = d->L.max_input_bytes;
    return TW_OK;
}

tw_status tw_vllm_dec_feed(tw_vllm_dec *d, const char *buf, size_t len)
{
    if (d->finished)
        return TW_ERR_STATE;
    len = tw_input_clip(&d->L, d->body.len, len, &d->too_large);
    return len ? tw_buf_append(&d->body, buf, len) : TW_OK;
}

tw_status tw_vllm_dec_finish(tw_vllm_dec *d, tw_result *out)
{
    if (d->finished) {
        tw_result_init(out, &d->L); /* *out is empty on every failure */
        return TW_ERR_STATE;
    }
    d->finished = true;
    tw_result res;
    tw_result_init(&res, &d->L);
    tw_status st = TW_OK;
    if (d->too_large)
        /* a cut JSON document cannot be read: nothing is decoded */
        st = tw_diag_add(&res.errors, TW_D_INPUT_TOO_LARGE, (int64_t)d->L.max_input_bytes, NULL);
    else
        st = decode_body(d->body.data ? d->body.data : "", d->body.len, &d->o, &d->L, &res);
    if (st == TW_OK) {
        tw_wire_sort_diags(&res);
        res.finish_reason = tw_strdup(res.msg.ncalls ? "tool_calls" : "stop");
        if (!res.finish_reason)
            st = TW_ERR_NOMEM;
        if (st == TW_OK)
            st = tw_wire_finish_result(&res);
    }
    if (st == TW_OK) {
        if (res.msg.thinking.len)
            fire(d, TW_EV_THINKING, res.msg.thinking.data, res.msg.thinking.len, NULL, NULL);
        if (res.msg.content.len)
            fire(d, TW_EV_CONTENT, res.msg.content.data, res.msg.content.len, NULL, NULL);
        for (size_t i = 0; i < res.msg.ncalls; i++)
            fire(d, TW_EV_TOOL_CALL, NULL, 0, &res.msg.calls[i], NULL);
        for (size_t i = 0; i < res.errors.len; i++)
            fire(d, TW_EV_ERROR, NULL, 0, NULL, &res.errors.items[i]);
        for (size_t i = 0; i < res.warnings.len; i++)
            fire(d, TW_EV_WARNING, NULL, 0, NULL, &res.warnings.items[i]);
        st = d->stop; /* a callback stopped the decode */
    }
    if (st == TW_OK) {
        *out = res;
    } else {
        tw_result_free(&res);
        tw_result_init(out, &d->L);
    }
    return st;
}

static void vllm_release(tw_vllm_dec *d)
{
    tw_buf_free(&d->body);
}

/* ===================== the opaque decoder ===================== */

tw_vllm_dec *tw_vllm_dec_new(const tw_decode_opts *o, tw_event_fn fn, void *user)
{
    tw_vllm_dec *d = tw_malloc(sizeof *d);
    if (d && vllm_init(d, o, fn, user) != TW_OK) {
        tw_vllm_dec_free(d);
        d = NULL;
    }
    return d;
}

tw_status tw_vllm_dec_reset(tw_vllm_dec *d, const tw_decode_opts *o, tw_event_fn fn, void *user)
{
    tw_buf *const b[] = {&d->body}; /* kept: the allocation of the body buffer */
    tw_buf keep[1];
    tw_bufs_detach(b, keep, 1);
    vllm_release(d);
    tw_status st = vllm_init(d, o, fn, user);
    tw_bufs_attach(b, keep, 1);
    return st;
}

void tw_vllm_dec_free(tw_vllm_dec *d)
{
    if (!d)
        return;
    vllm_release(d);
    tw_free(d);
}

TW_DECODER_OPS(g, tw_vllm_dec, tw_vllm_dec)

static void g_release(void *d)
{
    vllm_release(d);
}

tw_status tw_vllm_response_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                  tw_result *out)
{
    tw_vllm_dec d;
    return tw_decode_batch_capped(o, &d, vllm_init(&d, o, NULL, NULL), g_feed, g_finish, g_release,
                                  buf, len, out);
}

/* ===================== registry glue ===================== */

const tw_format_ops tw_format_vllm_generate = {
    "vllm-generate",
    "vLLM-native /generate GenerateResponse JSON (two-pass contract)",
    tw_vllm_response_decode,
    g_new,
    g_feed,
    g_finish,
    g_reset,
    g_free,
    tw_format_recycle_free};
const tw_encoder_ops tw_encoder_vllm_generate_request = {
    "vllm-generate-request", "neutral request -> vLLM-native GenerateRequest JSON", TW_ENC_REQUEST,
    tw_vllm_request_encode, tw_unsupported_encode_result};
const tw_encoder_ops tw_encoder_vllm_generate_response = {
    "vllm-generate-response", "neutral result -> vLLM-native GenerateResponse JSON", TW_ENC_RESULT,
    tw_unsupported_encode_request, tw_vllm_response_encode};
