/*
 * The format-module contract (docs/architecture.md): one registry of
 * decoders, encoders and request readers with their families; on every
 * failure `*out` is valid and empty; statuses are not diagnostics; an
 * allocation failure while parsing JSON reads as TW_ERR_NOMEM, not as bad
 * JSON.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/format_table.h"
#include "toolwire/json.h"
#include "toolwire/registry.h"
#include "cases.h"
#include "twtest.h"

/* ---- a cJSON allocator that fails from the n-th allocation on ---- */

static long fail_from = -1; /* -1: never */
static long nallocs;

static void *failing_malloc(size_t n)
{
    if (fail_from >= 0 && nallocs++ >= fail_from)
        return NULL;
    return malloc(n);
}

static void fail_cjson_from(long n)
{
    fail_from = n;
    nallocs = 0;
    cJSON_Hooks h = {failing_malloc, free};
    cJSON_InitHooks(&h);
}

static void cjson_normal(void)
{
    fail_from = -1;
    cJSON_InitHooks(NULL);
}

/* ---- the registry ---- */

Test(contract, registry_lists_every_module_once)
{
    size_t n = 0;
    const tw_module *m = tw_modules(&n);
    size_t ndec = 0, nenc = 0, nread = 0;
    for (size_t i = 0; i < n; i++) {
        cr_assert_not_null(m[i].name);
        switch (m[i].kind) {
        case TW_MODULE_DECODER:
            cr_assert_not_null(m[i].decoder, "%s", m[i].name);
            cr_assert_null(m[i].encoder);
            cr_assert_null(m[i].reader);
            cr_assert_str_eq(m[i].decoder->name, m[i].name);
            cr_assert_eq(m[i].takes, TW_VALUE_BYTES);
            cr_assert_eq(m[i].yields, TW_VALUE_RESULT);
            cr_assert_eq(tw_formats()[ndec], m[i].decoder, "%s: tw_formats order", m[i].name);
            cr_assert_eq(tw_format_find(m[i].name), m[i].decoder);
            ndec++;
            break;
        case TW_MODULE_ENCODER:
            cr_assert_not_null(m[i].encoder, "%s", m[i].name);
            cr_assert_null(m[i].decoder);
            cr_assert_null(m[i].reader);
            cr_assert_str_eq(m[i].encoder->name, m[i].name);
            cr_assert_eq(m[i].takes,
                         m[i].encoder->input == TW_ENC_REQUEST ? TW_VALUE_REQUEST : TW_VALUE_RESULT,
                         "%s", m[i].name);
            cr_assert_eq(m[i].yields, TW_VALUE_BYTES);
            cr_assert_eq(tw_encoders()[nenc], m[i].encoder, "%s: tw_encoders order", m[i].name);
            cr_assert_eq(tw_encoder_find(m[i].name), m[i].encoder);
            nenc++;
            break;
        case TW_MODULE_REQUEST_READER:
            cr_assert_not_null(m[i].reader, "%s", m[i].name);
            cr_assert_null(m[i].decoder);
            cr_assert_null(m[i].encoder);
            cr_assert_str_eq(m[i].reader->name, m[i].name);
            cr_assert_not_null(m[i].reader->decode);
            cr_assert_eq(m[i].takes, TW_VALUE_BYTES);
            cr_assert_eq(m[i].yields, TW_VALUE_REQUEST);
            cr_assert_eq(tw_request_reader_find(m[i].name), m[i].reader);
            nread++;
            break;
        default: cr_assert_fail("module %s has kind %d", m[i].name, (int)m[i].kind);
        }
        cr_assert(m[i].family == TW_FAMILY_TEXT || m[i].family == TW_FAMILY_JSON ||
                      m[i].family == TW_FAMILY_SSE,
                  "%s", m[i].name);
        for (size_t j = 0; j < i; j++)
            cr_assert(m[j].kind != m[i].kind || strcmp(m[j].name, m[i].name) != 0,
                      "%s listed twice", m[i].name);
    }
    cr_assert_null(tw_formats()[ndec]);
    cr_assert_null(tw_encoders()[nenc]);
    /* as many of each kind as the table of formats has rows */
#define COUNT_D(sym, nm, fam, fuzz) +1
#define COUNT_E(sym, nm, fam, in) +1
#define COUNT_R(sym, nm, fam) +1
#define NONE3(a, b, c)
#define NONE4(a, b, c, d)
    cr_assert_eq(ndec, 0 TW_FORMAT_TABLE(COUNT_D, NONE4, NONE3));
    cr_assert_eq(nenc, 0 TW_FORMAT_TABLE(NONE4, COUNT_E, NONE3));
    cr_assert_eq(nread, 0 TW_FORMAT_TABLE(NONE4, NONE4, COUNT_R));
    cr_assert_null(tw_module_find(TW_MODULE_DECODER, "no-such-format"));
    cr_assert_null(tw_module_find(TW_MODULE_DECODER, NULL));
    cr_assert_null(tw_request_reader_find("openai-response"));
}

Test(contract, registry_families)
{
    static const struct {
        tw_module_kind kind;
        const char *name;
        tw_family family;
    } want[] = {
        {TW_MODULE_DECODER, "think", TW_FAMILY_TEXT},
        {TW_MODULE_DECODER, "hermes", TW_FAMILY_TEXT},
        {TW_MODULE_DECODER, "fenced", TW_FAMILY_TEXT},
        {TW_MODULE_DECODER, "qwen3-coder", TW_FAMILY_TEXT},
        {TW_MODULE_DECODER, "proxy", TW_FAMILY_TEXT},
        {TW_MODULE_DECODER, "openai-response", TW_FAMILY_JSON},
        {TW_MODULE_DECODER, "anthropic-response", TW_FAMILY_JSON},
        {TW_MODULE_DECODER, "vllm-generate", TW_FAMILY_JSON},
        {TW_MODULE_DECODER, "openai-stream", TW_FAMILY_SSE},
        {TW_MODULE_DECODER, "anthropic-stream", TW_FAMILY_SSE},
        {TW_MODULE_DECODER, "gemini", TW_FAMILY_JSON},
        {TW_MODULE_DECODER, "gemini-stream", TW_FAMILY_SSE},
        {TW_MODULE_ENCODER, "openai-stream", TW_FAMILY_SSE},
        {TW_MODULE_ENCODER, "hermes-prompt", TW_FAMILY_TEXT},
        {TW_MODULE_ENCODER, "vllm-generate-request", TW_FAMILY_JSON},
        {TW_MODULE_REQUEST_READER, "hermes-prompt", TW_FAMILY_TEXT},
        {TW_MODULE_REQUEST_READER, "qwen3-coder-prompt", TW_FAMILY_TEXT},
        {TW_MODULE_REQUEST_READER, "qwen3.5-prompt", TW_FAMILY_TEXT},
        {TW_MODULE_REQUEST_READER, "anthropic-request", TW_FAMILY_JSON},
        {TW_MODULE_ENCODER, "openai-responses-stream", TW_FAMILY_SSE},
        {TW_MODULE_REQUEST_READER, "openai-responses-request", TW_FAMILY_JSON},
        {TW_MODULE_REQUEST_READER, "gemini-request", TW_FAMILY_JSON},
        {TW_MODULE_DECODER, "openai-responses", TW_FAMILY_JSON},
        {TW_MODULE_DECODER, "openai-responses-stream", TW_FAMILY_SSE},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const tw_module *m = tw_module_find(want[i].kind, want[i].name);
        cr_assert_not_null(m, "%s", want[i].name);
        cr_assert_eq(m->family, want[i].family, "%s is %s", want[i].name,
                     tw_family_name(m->family));
        if (want[i].kind == TW_MODULE_DECODER)
            cr_assert_eq(tw_decoder_is_text(want[i].name), want[i].family == TW_FAMILY_TEXT);
    }
    cr_assert_not(tw_decoder_is_text(NULL));
    cr_assert_not(tw_decoder_is_text("hermes-prompt")); /* an encoder, not a decoder */
    cr_assert_str_eq(tw_family_name(TW_FAMILY_SSE), "sse");
    cr_assert_str_eq(tw_family_name((tw_family)99), "unknown");
}

/* ---- *out valid and empty on failure ---- */

static void assert_result_empty(tw_result *r, const char *what, tw_status st)
{
    cr_assert_eq(r->msg.content.len, 0, "%s (%s): content kept", what, tw_code_name(st));
    cr_assert_eq(r->msg.thinking.len, 0, "%s (%s): thinking kept", what, tw_code_name(st));
    cr_assert_eq(r->msg.ncalls, 0, "%s (%s): calls kept", what, tw_code_name(st));
    cr_assert_null(r->msg.calls, "%s (%s)", what, tw_code_name(st));
    cr_assert_null(r->msg.thinking_signature, "%s (%s)", what, tw_code_name(st));
    cr_assert_null(r->msg.redacted_thinking, "%s (%s)", what, tw_code_name(st));
    cr_assert_null(r->finish_reason, "%s (%s)", what, tw_code_name(st));
    cr_assert_eq(r->errors.len, 0, "%s (%s)", what, tw_code_name(st));
    cr_assert_eq(r->warnings.len, 0, "%s (%s)", what, tw_code_name(st));
    cr_assert_null(r->ids, "%s (%s)", what, tw_code_name(st));
    tw_result_free(r); /* and freeable: the sanitizers see a bad pointer */
}

static void assert_request_empty(tw_request *q, const char *what, tw_status st)
{
    cr_assert_null(q->model, "%s (%s)", what, tw_code_name(st));
    cr_assert_null(q->messages, "%s (%s)", what, tw_code_name(st));
    cr_assert_eq(q->nmessages, 0, "%s (%s)", what, tw_code_name(st));
    cr_assert_null(q->tools, "%s (%s)", what, tw_code_name(st));
    cr_assert_eq(q->ntools, 0, "%s (%s)", what, tw_code_name(st));
    cr_assert_null(q->choice_name, "%s (%s)", what, tw_code_name(st));
    cr_assert_null(q->options, "%s (%s)", what, tw_code_name(st));
    cr_assert_eq(q->parallel_tool_calls, -1, "%s (%s)", what, tw_code_name(st));
    cr_assert_eq(q->warnings.len, 0, "%s (%s): no warnings on failure", what, tw_code_name(st));
    cr_assert_null(q->warnings.items, "%s (%s)", what, tw_code_name(st));
    cr_assert_eq(q->warnings.dropped, 0, "%s (%s)", what, tw_code_name(st));
    tw_request_free(q);
}

enum { MAX_FAIL_POINTS = 400, INPUTS_PER_FORMAT = 3 };

/* The same diagnostics, in the same order, and the same calls and text. */
static void assert_same_result(const tw_result *a, const tw_result *b, const char *what, long k)
{
    cr_assert_eq(a->msg.content.len, b->msg.content.len, "%s: content, allocation %ld", what, k);
    cr_assert_eq(a->msg.thinking.len, b->msg.thinking.len, "%s: thinking, allocation %ld", what, k);
    cr_assert_eq(a->msg.ncalls, b->msg.ncalls, "%s: calls, allocation %ld", what, k);
    const tw_diag_list *la[2] = {&a->errors, &a->warnings}, *lb[2] = {&b->errors, &b->warnings};
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(la[i]->len, lb[i]->len, "%s: %s, allocation %ld (%s)", what,
                     i ? "warnings" : "errors", k,
                     la[i]->len ? tw_code_name(la[i]->items[0].code) : "none");
        for (size_t j = 0; j < la[i]->len; j++)
            cr_assert_eq(la[i]->items[j].code, lb[i]->items[j].code, "%s: %s vs %s", what,
                         tw_code_name(la[i]->items[j].code), tw_code_name(lb[i]->items[j].code));
    }
}

/* Decode `in` with cJSON allocations failing from the k-th on, for every k
 * until a decode succeeds; every failure is TW_ERR_NOMEM and leaves *out
 * valid and empty, and the first success equals the decode without failing
 * allocations (an allocation failure never reads as a diagnostic). Returns
 * the number of failed decodes. `chunk` 0: batch, else streamed in pieces of
 * that many bytes. */
static size_t drive_decoder(const tw_format_ops *f, const char *in, size_t len, size_t chunk)
{
    size_t failures = 0;
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.allow_unknown_tool = true;
    tw_result ref;
    tw_status st =
        chunk ? tw_decode_chunked(f, in, len, chunk, &o, &ref) : f->decode(in, len, &o, &ref);
    cr_assert_eq(st, TW_OK, "%s: %s", f->name, tw_code_name(st));
    for (long k = 0; k < MAX_FAIL_POINTS; k++) {
        tw_result r;
        memset(&r, 0xA5, sizeof r); /* the callee initialises *out */
        fail_cjson_from(k);
        st = chunk ? tw_decode_chunked(f, in, len, chunk, &o, &r) : f->decode(in, len, &o, &r);
        cjson_normal();
        if (st == TW_OK) {
            assert_same_result(&r, &ref, f->name, k);
            tw_result_free(&r);
            tw_result_free(&ref);
            return failures;
        }
        cr_assert(tw_code_is_status(st), "%s: returned the diagnostic code %s", f->name,
                  tw_code_name(st));
        cr_assert_eq(st, TW_ERR_NOMEM, "%s: %s with allocation %ld failing", f->name,
                     tw_code_name(st), k);
        assert_result_empty(&r, f->name, st);
        failures++;
    }
    tw_result_free(&ref);
    cr_assert_fail("%s: still failing after %d failed allocations", f->name, MAX_FAIL_POINTS);
    return failures;
}

/* A text payload parsed while allocations fail: the decode fails with
 * TW_ERR_NOMEM, never keeps the block as a tool_call_json error. */
Test(contract, text_payload_nomem_fails_the_decode)
{
    static const char *const ins[] = {
        "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": [1, 2]}}\n</tool_call>",
        "hi <tool_call>{\"name\": \"f\", \"arguments\": {}} x</tool_call>",
        "<tool_call>{\"name\": \"f\", \"arguments\": {\"b\": true}}", /* no closing tag */
    };
    const tw_format_ops *f = tw_format_find("hermes");
    cr_assert_not_null(f);
    size_t failures = 0;
    for (size_t i = 0; i < sizeof ins / sizeof ins[0]; i++) {
        failures += drive_decoder(f, ins[i], strlen(ins[i]), 0);
        failures += drive_decoder(f, ins[i], strlen(ins[i]), 5);
    }
    cr_assert_gt(failures, 0, "the payloads were parsed with failing allocations");
}

Test(contract, decoders_leave_out_empty_on_failure)
{
    size_t failures = 0;
    for (const tw_format_ops *const *f = tw_formats(); *f; f++) {
        tw_test_input *ins;
        size_t n = tw_test_fixture_inputs((*f)->name, INPUTS_PER_FORMAT, true, &ins);
        cr_assert_gt(n, 0, "%s: no decode fixture", (*f)->name);
        for (size_t i = 0; i < n; i++) {
            failures += drive_decoder(*f, ins[i].data, ins[i].len, 0);
            failures += drive_decoder(*f, ins[i].data, ins[i].len, 7);
        }
        tw_test_inputs_free(ins, n);
    }
    /* the JSON and SSE decoders hold their calls in cJSON trees: their
     * allocation failures must have been seen */
    cr_assert_gt(failures, 0);
}

Test(contract, decoders_refuse_with_diagnostics_not_statuses)
{
    /* over a cap, a decoder succeeds and says so in its errors */
    for (const tw_format_ops *const *f = tw_formats(); *f; f++) {
        tw_test_input *ins;
        size_t n = tw_test_fixture_inputs((*f)->name, 1, true, &ins);
        cr_assert_eq(n, 1, "%s", (*f)->name);
        tw_decode_opts o;
        memset(&o, 0, sizeof o);
        o.limits.max_input_bytes = 4;
        tw_result r;
        tw_status st = (*f)->decode(ins[0].data, ins[0].len, &o, &r);
        cr_assert_eq(st, TW_OK, "%s: %s", (*f)->name, tw_code_name(st));
        cr_assert(tw_diag_has(&r.errors, TW_D_INPUT_TOO_LARGE), "%s", (*f)->name);
        for (size_t i = 0; i < r.errors.len; i++)
            cr_assert(tw_code_is_diag(r.errors.items[i].code), "%s", (*f)->name);
        tw_result_free(&r);
        tw_test_inputs_free(ins, n);
    }
}

Test(contract, sse_decoders_name_the_framing_they_expected)
{
    /* a JSON body or JSON lines given to an SSE stream decoder: the
     * stream_truncated error says what was expected and what came */
    static const char *const streams[] = {"openai-stream", "anthropic-stream", "gemini-stream",
                                          "openai-responses-stream"};
    static const char *const inputs[] = {"{\"candidates\":[]}\n{\"type\":\"x\"}\n", "  [1]",
                                         ": ping\n\n"};
    for (size_t i = 0; i < sizeof streams / sizeof streams[0]; i++)
        for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; k++) {
            const tw_format_ops *f = tw_format_find(streams[i]);
            cr_assert_not_null(f, "%s", streams[i]);
            tw_result r;
            cr_assert_eq(f->decode(inputs[k], strlen(inputs[k]), NULL, &r), TW_OK, "%s",
                         streams[i]);
            const tw_diag *d = NULL;
            for (size_t j = 0; j < r.errors.len; j++)
                if (r.errors.items[j].code == TW_D_STREAM_TRUNCATED)
                    d = &r.errors.items[j];
            cr_assert_not_null(d, "%s: no stream_truncated", streams[i]);
            cr_assert(strstr(d->message, "expected SSE lines (data: "), "%s: %s", streams[i],
                      d->message);
            bool json = k < 2;
            cr_assert_eq(strstr(d->message, "starts with JSON") != NULL, json, "%s: %s", streams[i],
                         d->message);
            tw_result_free(&r);
        }
}

/* A valid request of each reader's format, with two messages. */
static const char *request_sample(const char *reader)
{
    if (strcmp(reader, "openai-request") == 0 || strcmp(reader, "vllm-generate-request") == 0)
        return "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},"
               "{\"role\":\"assistant\",\"content\":\"ok\"}]}";
    if (strcmp(reader, "anthropic-request") == 0)
        return "{\"model\":\"m\",\"max_tokens\":8,\"messages\":[{\"role\":\"user\",\"content\":"
               "\"hi\"},{\"role\":\"assistant\",\"content\":\"ok\"}]}";
    if (strcmp(reader, "hermes-prompt") == 0 || strcmp(reader, "qwen3-coder-prompt") == 0 ||
        strcmp(reader, "qwen3.5-prompt") == 0)
        return "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\nok<|im_end|>\n";
    if (strcmp(reader, "kimi-k2-prompt") == 0)
        return "<|im_system|>system<|im_middle|>You are Kimi, an AI assistant created by Moonshot "
               "AI.<|im_end|>\n<|im_user|>user<|im_middle|>hi<|im_end|><|im_assistant|>assistant"
               "<|im_middle|>ok<|im_end|>";
    if (strcmp(reader, "kimi-k2-thinking-prompt") == 0)
        return "<|im_system|>system<|im_middle|>You are Kimi, an AI assistant created by Moonshot "
               "AI.<|im_end|><|im_user|>user<|im_middle|>hi<|im_end|><|im_assistant|>assistant"
               "<|im_middle|><think></think>ok<|im_end|>";
    if (strcmp(reader, "llama-3.1-prompt") == 0 || strcmp(reader, "llama-3.3-prompt") == 0)
        return "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge "
               "Date: December 2023\nToday Date: 26 Jul 2024\n\n<|eot_id|><|start_header_id|>"
               "user<|end_header_id|>\n\nhi<|eot_id|><|start_header_id|>assistant<|end_header_id|>"
               "\n\nok<|eot_id|>";
    if (strcmp(reader, "openai-responses-request") == 0)
        return "{\"model\":\"m\",\"input\":[{\"role\":\"user\",\"content\":\"hi\"},"
               "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":"
               "\"output_text\",\"text\":\"ok\"}]}]}";
    if (strcmp(reader, "harmony-prompt") == 0)
        return "<|start|>system<|message|>You are ChatGPT, a large language model trained by "
               "OpenAI.\nKnowledge cutoff: 2024-06\nCurrent date: 2024-07-26\n\nReasoning: "
               "medium\n\n# Valid channels: analysis, commentary, final. Channel must be "
               "included for every message.<|end|><|start|>user<|message|>hi<|end|><|start|>"
               "assistant<|channel|>final<|message|>ok<|return|>";
    if (strcmp(reader, "gemini-request") == 0)
        return "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]},"
               "{\"role\":\"model\",\"parts\":[{\"text\":\"ok\"}]}]}";
    if (strcmp(reader, "deepseek-v3.1-prompt") == 0)
        return "<\xef\xbd\x9c"
               "begin\xe2\x96\x81of\xe2\x96\x81sentence\xef\xbd\x9c><\xef\xbd\x9cUser"
               "\xef\xbd\x9c>hi<\xef\xbd\x9c"
               "Assistant\xef\xbd\x9c><think></think>ok, that is the answer<\xef\xbd\x9c"
               "end\xe2\x96\x81of\xe2\x96\x81sentence\xef\xbd\x9c>";
    if (strcmp(reader, "deepseek-v3.2-prompt") == 0)
        return "<\xef\xbd\x9c"
               "begin\xe2\x96\x81of\xe2\x96\x81sentence\xef\xbd\x9c><\xef\xbd\x9cUser"
               "\xef\xbd\x9c>hi<\xef\xbd\x9c"
               "Assistant\xef\xbd\x9c></think>ok, that is the answer to your greeting, friend"
               "<\xef\xbd\x9c"
               "end\xe2\x96\x81of\xe2\x96\x81sentence\xef\xbd\x9c>";
    if (strcmp(reader, "mistral-small-3.2-prompt") == 0 ||
        strcmp(reader, "devstral-small-prompt") == 0 ||
        strcmp(reader, "ministral-3-reasoning-prompt") == 0)
        return "<s>[INST]hi[/INST]ok</s>";
    if (strcmp(reader, "glm-4.6-prompt") == 0)
        return "[gMASK]<sop><|user|>\nhi<|assistant|>\n<think>the user says hi, answer it briefly "
               "and kindly</think>\nok";
    if (strcmp(reader, "glm-4.7-prompt") == 0)
        return "[gMASK]<sop><|user|>hi<|assistant|><think>the user says hi, answer it briefly and "
               "kindly</think>ok";
    if (strcmp(reader, "minimax-m2-prompt") == 0)
        return "]~!b[]~b]system\nYou are a helpful "
               "assistant.[e~[\n]~b]user\nhi[e~[\n]~b]ai\nok[e~[\n";
    if (strcmp(reader, "gemma-4-prompt") == 0)
        return "<bos><|turn>user\nhi<turn|>\n<|turn>model\nok<turn|>\n";
    return NULL;
}

/* A sample with a key the neutral request cannot carry (a warning), or
 * NULL for a reader whose input has no such place. */
static const char *request_sample_warn(const char *reader)
{
    if (strcmp(reader, "openai-request") == 0 || strcmp(reader, "vllm-generate-request") == 0)
        return "{\"model\":\"m\",\"x_unknown\":1,\"messages\":[{\"role\":\"user\",\"content\":"
               "\"hi\"}]}";
    if (strcmp(reader, "anthropic-request") == 0)
        return "{\"model\":\"m\",\"max_tokens\":8,\"x_unknown\":1,\"messages\":[{\"role\":"
               "\"user\",\"content\":\"hi\"}]}";
    if (strcmp(reader, "openai-responses-request") == 0)
        return "{\"model\":\"m\",\"x_unknown\":1,\"input\":\"hi\"}";
    if (strcmp(reader, "gemini-request") == 0)
        return "{\"x_unknown\":1,\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":"
               "\"hi\"}]}]}";
    return NULL;
}

/* A sample with two keys the neutral request cannot carry. */
static const char *request_sample_two(const char *reader)
{
    if (strcmp(reader, "anthropic-request") == 0)
        return "{\"model\":\"m\",\"max_tokens\":8,\"x_a\":1,\"x_b\":2,"
               "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    if (strcmp(reader, "openai-responses-request") == 0)
        return "{\"model\":\"m\",\"x_a\":1,\"x_b\":2,\"input\":\"hi\"}";
    if (strcmp(reader, "gemini-request") == 0)
        return "{\"x_a\":1,\"x_b\":2,\"contents\":[{\"role\":\"user\","
               "\"parts\":[{\"text\":\"hi\"}]}]}";
    return "{\"model\":\"m\",\"x_a\":1,\"x_b\":2,\"messages\":[{\"role\":"
           "\"user\",\"content\":\"hi\"}]}";
}

static tw_status read_request(const tw_request_reader_ops *rd, const char *in, size_t len,
                              const tw_limits *l, tw_request *q, tw_error *e)
{
    memset(q, 0xA5, sizeof *q); /* the callee initialises *out */
    memset(e, 0xA5, sizeof *e);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    if (l)
        o.limits = *l;
    tw_status st = rd->decode(in, len, &o, q, e);
    cr_assert(tw_code_is_status(st), "%s: returned %s", rd->name, tw_code_name(st));
    if (st == TW_OK) {
        cr_assert_eq(e->code, TW_OK, "%s: err cleared on success", rd->name);
        cr_assert_eq(e->offset, -1, "%s", rd->name);
    } else {
        cr_assert_neq(e->code, TW_OK, "%s: err filled on failure", rd->name);
        cr_assert(e->offset >= -1 && e->offset <= (int64_t)len, "%s: offset %lld", rd->name,
                  (long long)e->offset);
        cr_assert_lt(strlen(e->message), sizeof e->message, "%s", rd->name);
    }
    return st;
}

Test(contract, request_readers_leave_out_empty_on_failure)
{
    size_t n = 0;
    const tw_module *m = tw_modules(&n);
    size_t nreaders = 0;
    for (size_t i = 0; i < n; i++) {
        if (m[i].kind != TW_MODULE_REQUEST_READER)
            continue;
        nreaders++;
        const tw_request_reader_ops *rd = m[i].reader;
        const char *ok = request_sample(rd->name);
        cr_assert_not_null(ok, "%s: no sample request in this test", rd->name);
        tw_request q;
        tw_error e;
        tw_status st = read_request(rd, ok, strlen(ok), NULL, &q, &e);
        cr_assert_eq(st, TW_OK, "%s: %s", rd->name, e.message);
        cr_assert_eq(q.nmessages, 2, "%s", rd->name);
        /* (a GenerateRequest has no "model": the vLLM reader reports it) */
        if (strcmp(rd->name, "vllm-generate-request") != 0)
            cr_assert_eq(q.warnings.len, 0, "%s: no warnings for a plain request", rd->name);
        else
            cr_assert(tw_diag_has(&q.warnings, TW_D_NOT_CARRIED), "%s", rd->name);
        tw_request_free(&q);

        /* warnings are in the result, capped by max_diags */
        const char *warn = request_sample_warn(rd->name);
        if (warn) {
            st = read_request(rd, warn, strlen(warn), NULL, &q, &e);
            cr_assert_eq(st, TW_OK, "%s: %s", rd->name, e.message);
            cr_assert_geq(q.warnings.len, 1, "%s: the unknown key is reported", rd->name);
            cr_assert(tw_diag_has(&q.warnings, TW_D_NOT_CARRIED), "%s", rd->name);
            tw_request_free(&q);
            tw_limits wl;
            memset(&wl, 0, sizeof wl);
            wl.max_diags = 1;
            const char *two = request_sample_two(rd->name);
            st = read_request(rd, two, strlen(two), &wl, &q, &e);
            cr_assert_eq(st, TW_OK, "%s: %s", rd->name, e.message);
            cr_assert_eq(q.warnings.len, 1, "%s: max_diags 1", rd->name);
            cr_assert_geq(q.warnings.dropped, 1, "%s: the rest counted", rd->name);
            tw_request_free(&q);
            cr_assert_eq(q.warnings.len, 0, "%s: freed", rd->name);
        }

        /* over max_input_bytes */
        tw_limits l;
        memset(&l, 0, sizeof l);
        l.max_input_bytes = 8;
        st = read_request(rd, ok, strlen(ok), &l, &q, &e);
        cr_assert_eq(st, TW_ERR_LIMIT, "%s: %s", rd->name, tw_code_name(st));
        assert_request_empty(&q, rd->name, st);

        /* over max_messages */
        memset(&l, 0, sizeof l);
        l.max_messages = 1;
        st = read_request(rd, ok, strlen(ok), &l, &q, &e);
        cr_assert_neq(st, TW_OK, "%s: two messages past max_messages 1", rd->name);
        assert_request_empty(&q, rd->name, st);

        /* bad input: cut in the middle */
        st = read_request(rd, ok, strlen(ok) / 2, NULL, &q, &e);
        cr_assert_neq(st, TW_OK, "%s: half a request", rd->name);
        assert_request_empty(&q, rd->name, st);

        /* allocation failures inside cJSON */
        size_t failures = 0;
        for (long k = 0; k < MAX_FAIL_POINTS; k++) {
            fail_cjson_from(k);
            st = read_request(rd, ok, strlen(ok), NULL, &q, &e);
            cjson_normal();
            if (st == TW_OK) {
                tw_request_free(&q);
                break;
            }
            cr_assert_eq(st, TW_ERR_NOMEM, "%s: %s (%s) with allocation %ld failing", rd->name,
                         tw_code_name(st), e.message, k);
            assert_request_empty(&q, rd->name, st);
            failures++;
        }
        cr_assert_eq(st, TW_OK, "%s: still failing after %d failed allocations", rd->name,
                     MAX_FAIL_POINTS);
        if (m[i].family == TW_FAMILY_JSON)
            cr_assert_gt(failures, 0, "%s", rd->name);
    }
    cr_assert_eq(nreaders,
                 0 TW_FORMAT_TABLE(NONE4, NONE4, COUNT_R)); /* every reader of the table */
}

/* ---- json.c: an allocation failure is not bad JSON ---- */

Test(contract, json_parse_nomem_is_not_parse_error)
{
    static const char text[] =
        "\xEF\xBB\xBF {\"a\": [1, -2.5e3, {\"b\": \"x\\u00e9\\ud83d\\ude00\"}],"
        " \"c\": null, \"d\": true, \"e\": {}, \"f\": []} ";
    size_t len = sizeof text - 1;
    size_t nomem = 0;
    long k = 0;
    for (; k < MAX_FAIL_POINTS; k++) {
        cJSON *v = (cJSON *)1;
        tw_error e;
        memset(&e, 0, sizeof e);
        fail_cjson_from(k);
        tw_status st = tw_json_parse(text, len, 64, &v, &e);
        cjson_normal();
        if (st == TW_OK) {
            cr_assert_not_null(v);
            cJSON_Delete(v);
            break;
        }
        cr_assert_eq(st, TW_ERR_NOMEM, "allocation %ld failing: %s (%s)", k, tw_code_name(st),
                     e.message);
        cr_assert_eq(e.code, TW_ERR_NOMEM);
        cr_assert_null(v);
        nomem++;
    }
    cr_assert_lt(k, MAX_FAIL_POINTS);
    cr_assert_gt(nomem, 5);
}

Test(contract, json_parse_bad_json_stays_parse_error)
{
    /* texts cJSON refuses: with allocations failing or not, they read as bad
     * JSON, never as an allocation failure */
    static const char *const bad[] = {
        "[1, x]",
        "{\"a\" 1}",
        "[1,]",
        "{\"a\":1,}",
        "\"\\ud800\"",        /* a lone high surrogate */
        "\"\\udc00\"",        /* a lone low surrogate */
        "\"\\ud800\\u0041\"", /* a high surrogate without its low half */
        "\"\\q\"",            /* not an escape */
        "[-]",
        "[1e]",
        "[1.2.3]",
        "tru",
        "{\"a\":",
        "[\"unterminated",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        for (long k = -1; k < 3; k++) {
            cJSON *v = NULL;
            tw_error e;
            if (k >= 0)
                fail_cjson_from(k);
            tw_status st = tw_json_parse(bad[i], strlen(bad[i]), 64, &v, &e);
            cjson_normal();
            cr_assert_eq(st, TW_ERR_PARSE, "%s (allocation %ld failing): %s", bad[i], k,
                         tw_code_name(st));
            cr_assert_null(v);
        }
    }
}

static bool warned(const tw_diag_list *w, const char *what)
{
    for (size_t i = 0; i < w->len; i++)
        if (w->items[i].code == TW_D_NOT_CARRIED && strstr(w->items[i].message, what))
            return true;
    return false;
}

/* Every prompt encoder (a model's chat template) says what of a request it
 * has no place for: the model's name, tool_choice other than auto,
 * parallel_tool_calls, an option it does not know. None drops them silently. */
Test(contract, prompt_encoders_warn_what_the_template_cannot_carry)
{
    static const char REQ[] =
        "{\"model\":\"m1\",\"tool_choice\":\"required\",\"parallel_tool_calls\":false,"
        "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
        "\"tools\":[{\"name\":\"f\",\"description\":\"d\",\"parameters\":{\"type\":\"object\","
        "\"properties\":{}}}],\"options\":{\"no_such_option\":1}}";
    cJSON *j = cJSON_Parse(REQ);
    cr_assert_not_null(j);
    tw_request r;
    tw_error e;
    cr_assert_eq(tw_request_read(j, NULL, &r, &e), TW_OK, "%s", e.message);
    cJSON_Delete(j);
    size_t n = 0, prompts = 0;
    const tw_module *m = tw_modules(&n);
    for (size_t i = 0; i < n; i++) {
        if (m[i].kind != TW_MODULE_ENCODER || m[i].encoder->input != TW_ENC_REQUEST)
            continue;
        const char *name = m[i].encoder->name;
        size_t len = strlen(name);
        if (len < 7 || strcmp(name + len - 7, "-prompt") != 0 || strcmp(name, "proxy-prompt") == 0)
            continue;
        prompts++;
        tw_diag_list w;
        memset(&w, 0, sizeof w);
        tw_encode_opts o;
        memset(&o, 0, sizeof o);
        o.parallel_tool_calls = -1;
        o.warnings = &w;
        tw_buf out = {0};
        tw_status st = m[i].encoder->encode_request(&r, &o, &out);
        cr_assert(st == TW_OK || st == TW_ERR_INVALID, "%s: %s", name, tw_code_name(st));
        cr_expect(warned(&w, "model"), "%s: the model dropped silently", name);
        cr_expect(warned(&w, "tool_choice"), "%s: tool_choice dropped silently", name);
        cr_expect(warned(&w, "parallel_tool_calls"), "%s: parallel_tool_calls dropped silently",
                  name);
        cr_expect(warned(&w, "no_such_option"), "%s: an unknown option dropped silently", name);
        tw_diag_list_free(&w);
        tw_buf_free(&out);
    }
    cr_assert_geq(prompts, 10, "only %zu prompt encoders found", prompts);
    tw_request_free(&r);
}
