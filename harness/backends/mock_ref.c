/* The reference servers' answers (mock_ref.h). */
#include "mock_ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "checks.h"
#include "redact.h"
#include "decode_opts.h"
#include "script.h"
#include "toolwire/decode.h"
#include "toolwire/registry.h"
#include "toolwire/encode.h"
#include "toolwire/request_chatml.h"
#include "toolwire/request_gemini.h"
#include "toolwire/request_responses.h"
#include "toolwire/request_vllm.h"
#include "toolwire/text.h"
#include "toolwire/vllm.h"

/* A request reader over a parsed body (gemini-request, openai-responses-request). */
typedef tw_status (*ref_reader_fn)(const cJSON *j, const tw_decode_opts *o, tw_request *out,
                                   tw_error *err);

/* The tools of a request as its reader reads them (Gemini's function
 * declarations, the Responses API's flat function tools), as neutral tools. */
static tw_status reader_tools(ref_reader_fn read, const cJSON *body, const tw_limits *L,
                              tw_opts_holder *h)
{
    tw_request q;
    tw_decode_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.limits = *L;
    if (read(body, &ro, &q, NULL) != TW_OK)
        return TW_ERR_INVALID;
    if (q.tools_present)
        tw_opts_set_tools(h, q.tools, q.ntools);
    else
        free(q.tools);
    q.tools = NULL;
    q.ntools = 0;
    tw_request_free(&q);
    return TW_OK;
}

static tw_status tools_from_request(const cJSON *body, const tw_limits *L, tw_opts_holder *h,
                                    bool gemini, bool responses)
{
    if (gemini)
        return reader_tools(tw_gemini_request_from_json, body, L, h);
    if (responses)
        return reader_tools(tw_responses_request_from_json, body, L, h);
    const cJSON *tools = tw_json_get(body, "tools");
    if (!cJSON_IsArray(tools))
        return TW_OK;
    tw_tool *t = NULL;
    size_t n = 0;
    if (tw_tools_read(tools, L, &t, &n, NULL) != TW_OK)
        return TW_ERR_INVALID;
    tw_opts_set_tools(h, t, n);
    return TW_OK;
}

/* The generation parameters of a GenerateRequest: each key from the top
 * level, else from its "options" object, else from "generation_config" (the
 * places VLN-02 reads the budgets from). */
static tw_status vllm_params(const cJSON *body, tw_vllm_params *p, tw_error *err)
{
    static const char *const keys[] = {
        "two_pass",    "think_tag",  "max_thinking_tokens", "max_response_tokens",
        "tool_parser", "temperature"};
    static const char *const nests[] = {"options", "generation_config"};
    cJSON *m = cJSON_CreateObject();
    if (!m) {
        tw_error_set(err, TW_ERR_NOMEM, -1, NULL, "out of memory");
        return TW_ERR_NOMEM;
    }
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        const cJSON *v = tw_json_get(body, keys[k]);
        for (size_t n = 0; n < 2 && (!v || cJSON_IsNull(v)); n++)
            v = tw_json_get(tw_json_get(body, nests[n]), keys[k]);
        if (!v || cJSON_IsNull(v))
            continue;
        cJSON *c = cJSON_Duplicate(v, 1);
        if (!c || !cJSON_AddItemToObject(m, keys[k], c)) {
            cJSON_Delete(c);
            cJSON_Delete(m);
            tw_error_set(err, TW_ERR_NOMEM, -1, NULL, "out of memory");
            return TW_ERR_NOMEM;
        }
    }
    tw_error pe;
    tw_status st = tw_vllm_params_read(m, p, &pe);
    cJSON_Delete(m);
    if (st != TW_OK && err)
        *err = pe;
    return st;
}

void tw_ref_answer_free(tw_ref_answer *a)
{
    if (a)
        tw_buf_free(&a->body);
}

/* The reference Anthropic server signs every thinking block, as Anthropic's
 * own API does (ANT-S03): tw_chk_ref_signature of the thinking text, which
 * CLI-10 expects back unchanged. NULL when out of memory (the block then
 * goes unsigned). */
static char *thinking_signature(const tw_buf *thinking)
{
    char sig[TW_REF_SIG_MAX];
    tw_chk_ref_signature(thinking->data ? thinking->data : "", thinking->len, sig);
    return tw_strdup(sig);
}

/* Does the array a hold the string s. */
static bool includes(const cJSON *a, const char *s)
{
    const cJSON *it;
    if (!cJSON_IsArray(a))
        return false;
    cJSON_ArrayForEach(it, a)
    {
        if (cJSON_IsString(it) && strcmp(it->valuestring, s) == 0)
            return true;
    }
    return false;
}

void tw_ref_answer_text(const char *profile, const tw_ref_text *t, const cJSON *body,
                        const tw_limits *L, tw_ref_answer *a)
{
    memset(a, 0, sizeof a[0]);
    bool gemini = strcmp(profile, "gemini") == 0;
    bool responses = strcmp(profile, "openai-responses") == 0;
    bool stream = gemini ? t->stream : cJSON_IsTrue(tw_json_get(body, "stream"));
    tw_opts_holder h;
    tw_opts_holder_init(&h);
    tw_error why = {.offset = -1};
    const char *fmt = t->decode_format;
    bool text_fmt = tw_decoder_is_text(fmt);
    if (text_fmt && t->decode_options && !tw_opts_from_json(&h, t->decode_options, &why))
        tw_opts_holder_init(&h);
    h.o.limits = *L;
    if (tools_from_request(body, L, &h, gemini, responses) != TW_OK) {
        a->status = 400;
        snprintf(a->why, sizeof a->why, "the request's tools cannot be read");
        tw_opts_holder_free(&h);
        return;
    }
    tw_result r;
    tw_status st;
    tw_vllm_assembly va;
    bool have_va = false;
    const char *enc_name;
    if (strcmp(profile, "vllm-native") == 0) {
        tw_vllm_params p;
        tw_status pst = vllm_params(body, &p, &why);
        if (pst != TW_OK) {
            a->status = pst == TW_ERR_NOMEM ? 500 : 400;
            tw_secret_clip_into(a->why, sizeof a->why, why.message);
            tw_opts_holder_free(&h);
            return;
        }
        /* model text the fixture reads as Qwen3-Coder XML or a model dialect: the
         * server's parser is that decoder unless the request names one */
        bool named = tw_json_get(body, "tool_parser") ||
                     tw_json_get(tw_json_get(body, "options"), "tool_parser") ||
                     tw_json_get(tw_json_get(body, "generation_config"), "tool_parser");
        if (text_fmt && !named && strcmp(fmt, "qwen3-coder") == 0)
            p.qwen3_coder = p.hermes = true;
        else if (text_fmt && !named && tw_profile_of_dialect(fmt) != TW_NPROFILES)
            p.parser = fmt, p.hermes = false;
        const char *p1 = t->pass1 ? t->pass1 : "";
        const char *p2 = t->pass2 ? t->pass2 : t->model_text ? t->model_text : "";
        if (!t->pass1)
            p.two_pass = false;
        st = tw_vllm_assemble(&p, p1, strlen(p1), p2, strlen(p2), &h.o, &va);
        have_va = st == TW_OK;
        enc_name = "vllm-generate-response";
        stream = false;
    } else {
        const char *mt = t->model_text ? t->model_text : "";
        /* a dialect's profile is the hermes server with the dialect's decoder */
        const char *dflt = tw_profile_decoder(tw_profile_of(profile));
        if (!dflt)
            dflt = "hermes";
        const tw_format_ops *f = tw_format_find(text_fmt ? fmt : dflt);
        st = f ? f->decode(mt, strlen(mt), &h.o, &r) : TW_ERR_UNSUPPORTED;
        if (strcmp(profile, "anthropic") == 0 || gemini) {
            enc_name = gemini   ? (stream ? "gemini-stream" : "gemini")
                       : stream ? "anthropic-stream"
                                : "anthropic-response";
            if (st == TW_OK && r.msg.thinking.len > 0 && !r.msg.thinking_signature)
                r.msg.thinking_signature = thinking_signature(&r.msg.thinking);
            /* Gemini signs a turn with calls even when it shows no thinking */
            if (st == TW_OK && gemini && r.msg.ncalls && !r.msg.thinking_signature)
                r.msg.thinking_signature = thinking_signature(&r.msg.content);
        } else if (responses) {
            enc_name = stream ? "openai-responses-stream" : "openai-responses";
            /* the reasoning item carries encrypted_content when the request includes it */
            if (st == TW_OK && r.msg.thinking.len > 0 && !r.msg.thinking_signature &&
                includes(tw_json_get(body, "include"), "reasoning.encrypted_content"))
                r.msg.thinking_signature = thinking_signature(&r.msg.thinking);
        } else
            enc_name = stream ? "openai-stream" : "openai-response";
    }
    tw_opts_holder_free(&h);
    if (st != TW_OK) {
        a->status = st == TW_ERR_UNSUPPORTED ? 501 : 500;
        snprintf(a->why, sizeof a->why, "the reference decoder failed: %s", tw_code_message(st));
        return;
    }
    const tw_result *res = have_va ? &va.result : &r;
    const tw_encoder_ops *e = tw_encoder_find(enc_name);
    tw_encode_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.limits = *L;
    eo.model = gemini ? t->model : tw_json_get_str(body, "model");
    eo.id = strcmp(profile, "anthropic") == 0 ? "msg_toolwire_mock"
            : gemini                          ? "toolwire-mock"
            : responses                       ? "resp_toolwire_mock"
                                              : "chatcmpl-toolwire-mock";
    eo.created = 1700000000;
    /* an OpenAI stream ends with a usage chunk when the request asks for one */
    eo.include_usage =
        cJSON_IsTrue(tw_json_get(tw_json_get(body, "stream_options"), "include_usage"));
    /* Gemini 3 streams call arguments in pieces when the request asks for it */
    const cJSON *tc = tw_json_get(body, "toolConfig");
    const cJSON *fcc =
        tw_json_get(tc ? tc : tw_json_get(body, "tool_config"), "functionCallingConfig");
    if (!fcc)
        fcc = tw_json_get(tc ? tc : tw_json_get(body, "tool_config"), "function_calling_config");
    const cJSON *sfa = tw_json_get(fcc, "streamFunctionCallArguments");
    eo.partial_args = gemini && stream &&
                      cJSON_IsTrue(sfa ? sfa : tw_json_get(fcc, "stream_function_call_arguments"));
    a->body.max = L->max_output_bytes;
    st = e ? e->encode_result(res, &eo, &a->body) : TW_ERR_UNSUPPORTED;
    if (have_va)
        tw_vllm_assembly_free(&va);
    else
        tw_result_free(&r);
    if (st != TW_OK) {
        tw_buf_free(&a->body);
        a->status = st == TW_ERR_UNSUPPORTED ? 501 : 500;
        snprintf(a->why, sizeof a->why, "the %s encoder failed: %s", enc_name, tw_code_message(st));
        return;
    }
    a->status = 200;
    a->stream = stream;
}

/* A /generate body with a "prompt" string: the ChatML prompt it renders, or
 * the text as one user message; tools from "tools". */
static tw_status prompt_request(const cJSON *body, const tw_limits *L, tw_request *req,
                                tw_error *err)
{
    const char *prompt = tw_json_get_str(body, "prompt");
    memset(req, 0, sizeof *req);
    req->parallel_tool_calls = -1;
    tw_decode_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.limits = *L;
    if (tw_hermes_prompt_decode(prompt, strlen(prompt), &ro, req, err) == TW_OK && req->nmessages)
        return TW_OK;
    tw_request_free(req);
    memset(req, 0, sizeof *req);
    req->parallel_tool_calls = -1;
    tw_error_clear(err);
    if (strlen(prompt) > L->max_input_bytes) {
        tw_error_set(err, TW_ERR_LIMIT, -1, NULL, "prompt: longer than max_input_bytes (%zu)",
                     L->max_input_bytes);
        return TW_ERR_LIMIT;
    }
    req->messages = calloc(1, sizeof *req->messages);
    if (!req->messages)
        return TW_ERR_NOMEM;
    req->nmessages = 1;
    req->messages[0].role = TW_ROLE_USER;
    if (tw_buf_puts(&req->messages[0].content, prompt) != TW_OK)
        return TW_ERR_NOMEM;
    const cJSON *tools = tw_json_get(body, "tools");
    if (cJSON_IsArray(tools)) {
        tw_error te;
        tw_status st = tw_tools_read(tools, L, &req->tools, &req->ntools, &te);
        if (st != TW_OK) {
            tw_error_set(err, st, -1, NULL, "tools: %.200s", te.message);
            return st;
        }
        req->tools_present = true;
    }
    return TW_OK;
}

/* Split the model text for the two-pass assembly: pass 1 is the thinking
 * (the model starts inside the think block) closed by the request's tag,
 * pass 2 what follows the block. */
static tw_status two_pass_texts(const tw_script_answer *s, bool two_pass, bool thinking_tag,
                                tw_buf *p1, const char **p2)
{
    const char *mt = s->model_text.data ? s->model_text.data : "";
    const char *think = "", *end = NULL;
    size_t tlen = 0;
    if (strncmp(mt, "<think>", 7) == 0 && (end = strstr(mt + 7, "</think>")) != NULL) {
        think = mt + 7;
        tlen = (size_t)(end - think);
        mt = end + 8;
    }
    *p2 = mt;
    if (!two_pass)
        return TW_OK;
    tw_status st = tw_buf_append(p1, think, tlen);
    if (st == TW_OK)
        st = tw_buf_puts(p1, thinking_tag ? "</thinking>" : "</think>");
    return st;
}

/* A Responses request's first item_reference: the index in "input", -1 when
 * there is none. The script profile stores no responses, so an item a
 * client refers to by id cannot be looked up. */
static long responses_item_reference(const cJSON *body, const char **id)
{
    const cJSON *in = tw_json_get(body, "input");
    long i = 0;
    const cJSON *it;
    if (!cJSON_IsArray(in))
        return -1;
    cJSON_ArrayForEach(it, in)
    {
        const char *type = tw_json_get_str(it, "type");
        if (type && strcmp(type, "item_reference") == 0) {
            *id = tw_json_get_str(it, "id");
            return i;
        }
        i++;
    }
    return -1;
}

/* Thinking asked of a Gemini request: thinkingConfig.includeThoughts. */
static int gemini_reasoning(const cJSON *body)
{
    const cJSON *gc = tw_json_get(body, "generationConfig");
    const cJSON *tc = tw_json_get(gc, "thinkingConfig");
    return cJSON_IsTrue(tw_json_get(tc, "includeThoughts"));
}

void tw_ref_answer_script(tw_api_kind kind, const cJSON *body, const tw_limits *L, tw_ref_answer *a)
{
    tw_ref_answer_script_at(kind, false, NULL, body, L, a);
}

void tw_ref_answer_script_at(tw_api_kind kind, bool stream, const char *model, const cJSON *body,
                             const tw_limits *L, tw_ref_answer *a)
{
    memset(a, 0, sizeof a[0]);
    if (kind != TW_API_OPENAI && kind != TW_API_ANTHROPIC && kind != TW_API_GENERATE &&
        kind != TW_API_GEMINI && kind != TW_API_RESPONSES) {
        a->status = 404;
        snprintf(a->why, sizeof a->why,
                 "the script profile answers POST …/chat/completions, …/messages, …/responses, "
                 "/generate, …:generateContent and …:streamGenerateContent");
        return;
    }
    a->status = 400;
    if (!cJSON_IsObject(body)) {
        snprintf(a->why, sizeof a->why, "the request body is not a JSON object");
        return;
    }
    tw_request req;
    memset(&req, 0, sizeof req);
    tw_error err;
    tw_error_clear(&err);
    tw_decode_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.limits = *L;
    tw_status st;
    tw_vllm_params vp;
    memset(&vp, 0, sizeof vp);
    int reasoning = 0;
    if (kind == TW_API_GENERATE) {
        tw_error why = {.offset = -1};
        st = vllm_params(body, &vp, &why);
        if (st != TW_OK) {
            a->status = st == TW_ERR_NOMEM ? 500 : 400;
            tw_secret_clip_into(a->why, sizeof a->why, why.message);
            return;
        }
        reasoning = vp.two_pass;
        st = cJSON_IsString(tw_json_get(body, "prompt")) && !tw_json_get(body, "messages")
                 ? prompt_request(body, L, &req, &err)
                 : tw_vllm_request_from_json(body, &ro, &req, &err);
    } else if (kind == TW_API_GEMINI) {
        reasoning = gemini_reasoning(body);
        st = tw_gemini_request_from_json(body, &ro, &req, &err);
    } else if (kind == TW_API_RESPONSES) {
        const char *ref = NULL;
        long at = responses_item_reference(body, &ref);
        const cJSON *prev = tw_json_get(body, "previous_response_id");
        if (prev && !cJSON_IsNull(prev)) {
            snprintf(a->why, sizeof a->why,
                     "previous_response_id '%.40s' names a stored response; the script profile "
                     "stores no responses (send the earlier items in input, as with store: false)",
                     cJSON_IsString(prev) ? prev->valuestring : "");
            return;
        }
        if (at >= 0) {
            snprintf(a->why, sizeof a->why,
                     "input[%ld]: item_reference '%.40s' names a stored item; the script profile "
                     "stores no responses (send the items themselves, as with store: false)",
                     at, ref ? ref : "");
            return;
        }
        reasoning = tw_script_options_reasoning(body);
        st = tw_responses_request_from_json(body, &ro, &req, &err);
    } else if (kind == TW_API_ANTHROPIC) {
        reasoning = tw_script_options_reasoning(body);
        st = tw_anthropic_request_from_json(body, &ro, &req, &err);
    } else {
        reasoning = tw_script_options_reasoning(body);
        st = tw_openai_request_from_json(body, &ro, &req, &err);
    }
    if (st != TW_OK) {
        a->status = st == TW_ERR_NOMEM ? 500 : 400;
        tw_secret_clip_into(a->why, sizeof a->why,
                            err.message[0] ? err.message : tw_code_message(st));
        tw_request_free(&req);
        return;
    }
    tw_script_answer s;
    tw_error why = {.offset = -1};
    st = tw_script_answer_with(&req, reasoning, L, &s, &why);
    tw_request_free(&req);
    if (st != TW_OK && (kind == TW_API_GEMINI || kind == TW_API_RESPONSES ||
                        kind == TW_API_ANTHROPIC)) /* the wire path, not the neutral one */
        tw_script_wire_path(body,
                            kind == TW_API_GEMINI      ? "contents"
                            : kind == TW_API_RESPONSES ? "input"
                                                       : "messages",
                            kind == TW_API_GEMINI      ? "systemInstruction"
                            : kind == TW_API_RESPONSES ? "instructions"
                                                       : "system",
                            why.message, sizeof why.message);
    if (st != TW_OK) {
        a->status = st == TW_ERR_NOMEM ? 500 : 400;
        tw_secret_clip_into(a->why, sizeof a->why,
                            why.message[0] ? why.message : tw_code_message(st));
        return;
    }
    tw_ref_text t;
    memset(&t, 0, sizeof t);
    tw_buf p1 = {0};
    const char *profile = kind == TW_API_ANTHROPIC   ? "anthropic"
                          : kind == TW_API_GENERATE  ? "vllm-native"
                          : kind == TW_API_GEMINI    ? "gemini"
                          : kind == TW_API_RESPONSES ? "openai-responses"
                                                     : "hermes";
    t.stream = stream;
    t.model = model;
    if (kind == TW_API_GENERATE) {
        st = two_pass_texts(&s, vp.two_pass, vp.thinking_tag, &p1, &t.pass2);
        t.pass1 = vp.two_pass ? (p1.data ? p1.data : "") : NULL;
    } else {
        t.model_text = s.model_text.data ? s.model_text.data : "";
    }
    if (st == TW_OK) {
        tw_ref_answer_text(profile, &t, body, L, a);
    } else {
        a->status = 500;
        snprintf(a->why, sizeof a->why, "out of memory");
    }
    tw_buf_free(&p1);
    tw_script_answer_free(&s);
}
