/*
 * convert losses: every pair of a source (decoder or request reader) and a
 * target encoder among the Responses, Gemini and Qwen3-Coder formats and
 * every other format. What the target cannot carry is a not_carried
 * warning, never dropped silently: the output read back with the target's
 * own reader must give the same neutral value unless the encoder reported
 * a loss (the sweep), and the table below pins which losses each lossy
 * pair names and that a lossless pair reports none.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "toolwire/decode.h"
#include "toolwire/encode.h"
#include "toolwire/registry.h"
#include "toolwire/request.h"
#include "toolwire/transcode.h"
#include "twtest.h"

/* ---- samples: one rich input per source ---- */

typedef struct sample {
    const char *fmt, *input;
} sample;

static const sample samples[] = {
    /* results */
    {"openai-responses",
     "{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"completed\",\"model\":\"m\","
     "\"output\":["
     "{\"type\":\"reasoning\",\"id\":\"rs_1\",\"summary\":[{\"type\":\"summary_text\",\"text\":"
     "\"Think.\"}],"
     "\"encrypted_content\":\"ENC\"},"
     "{\"type\":\"message\",\"id\":\"msg_1\",\"role\":\"assistant\",\"status\":\"completed\","
     "\"content\":"
     "[{\"type\":\"output_text\",\"text\":\"Checking.\",\"annotations\":[]}]},"
     "{\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":\"call_abc\",\"name\":\"get_"
     "weather\","
     "\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\",\"status\":\"completed\"}]}"},
    {"openai-responses", "{\"id\":\"resp_2\",\"object\":\"response\",\"status\":\"completed\","
                         "\"model\":\"m\",\"output\":["
                         "{\"type\":\"web_search_call\",\"id\":\"ws_1\",\"status\":\"completed\"},"
                         "{\"type\":\"message\",\"id\":\"msg_1\",\"role\":\"assistant\",\"status\":"
                         "\"completed\",\"content\":"
                         "[{\"type\":\"refusal\",\"refusal\":\"I cannot.\"}]}]}"},
    {"gemini",
     "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Think.\","
     "\"thought\":true},"
     "{\"text\":\"Checking.\"},{\"functionCall\":{\"name\":\"get_weather\",\"args\":{\"city\":"
     "\"Paris\"},"
     "\"id\":\"g1\"},\"thoughtSignature\":\"c2ln\"}]},\"finishReason\":\"STOP\",\"index\":0}]}"},
    {"gemini", "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"cut\"},"
               "{\"inlineData\":{\"mimeType\":\"image/"
               "png\",\"data\":\"AAAA\"}}]},\"finishReason\":\"MAX_TOKENS\","
               "\"index\":0}]}"},
    {"qwen3-coder",
     "Checking.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
     "</function>\n</tool_call>"},
    {"openai-response",
     "{\"id\":\"c\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
     "\"assistant\",\"content\":\"Checking.\",\"reasoning_content\":\"Think.\",\"tool_calls\":[{"
     "\"id\":"
     "\"call_1x\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":"
     "\"{\\\"city\\\":\\\"Paris\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}]}"},
    {"anthropic-response",
     "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"c\",\"content\":["
     "{\"type\":\"thinking\",\"thinking\":\"Think.\",\"signature\":\"SIG\"},"
     "{\"type\":\"redacted_thinking\",\"data\":\"RED\"},"
     "{\"type\":\"text\",\"text\":\"Checking.\"},{\"type\":\"tool_use\",\"id\":\"toolu_1\","
     "\"name\":"
     "\"get_weather\",\"input\":{\"city\":\"Paris\"}}],\"stop_reason\":\"tool_use\"}"},
    {"openai-response",
     "{\"id\":\"c\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
     "\"assistant\",\"content\":\"cut\"},\"finish_reason\":\"length\"}]}"},
    {"neutral-result", "{\"content\":\"paused\",\"finish_reason\":\"pause_turn\"}"},
    /* requests */
    {"gemini-request",
     "{\"systemInstruction\":{\"parts\":[{\"text\":\"Be brief.\"}]},\"contents\":["
     "{\"role\":\"user\",\"parts\":[{\"text\":\"Weather?\"}]},"
     "{\"role\":\"model\",\"parts\":[{\"text\":\"Think.\",\"thought\":true},{\"functionCall\":{"
     "\"name\":"
     "\"get_weather\",\"args\":{\"city\":\"Paris\"},\"id\":\"g1\"},\"thoughtSignature\":\"c2ln\"}]}"
     ","
     "{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"name\":\"get_weather\",\"id\":\"g1\","
     "\"response\":{\"output\":\"18 C\"}}}]}],"
     "\"tools\":[{\"functionDeclarations\":[{\"name\":\"get_weather\",\"parameters\":{\"type\":"
     "\"object\","
     "\"properties\":{\"city\":{\"type\":\"string\"}}}}]},{\"googleSearch\":{}}],"
     "\"toolConfig\":{\"functionCallingConfig\":{\"mode\":\"ANY\",\"streamFunctionCallArguments\":"
     "true}},"
     "\"generationConfig\":{\"temperature\":0.5,\"responseModalities\":[\"TEXT\"]}}"},
    {"openai-responses-request",
     "{\"model\":\"m\",\"instructions\":\"Be brief.\",\"store\":false,\"include\":"
     "[\"reasoning.encrypted_content\"],\"input\":["
     "{\"role\":\"user\",\"content\":\"Weather?\"},"
     "{\"type\":\"reasoning\",\"id\":\"rs_1\",\"summary\":[{\"type\":\"summary_text\",\"text\":"
     "\"Think.\"}],"
     "\"encrypted_content\":\"ENC\"},"
     "{\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":\"call_abc\",\"name\":\"get_"
     "weather\","
     "\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"},"
     "{\"type\":\"function_call_output\",\"call_id\":\"call_abc\",\"output\":\"18 C\"}],"
     "\"tools\":[{\"type\":\"function\",\"name\":\"get_weather\",\"parameters\":{\"type\":"
     "\"object\","
     "\"properties\":{\"city\":{\"type\":\"string\"}}}},{\"type\":\"web_search\"}],"
     "\"tool_choice\":\"required\",\"temperature\":0.5}"},
    {"openai-request",
     "{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},"
     "{\"role\":\"user\",\"content\":\"Weather?\"},{\"role\":\"assistant\",\"content\":null,"
     "\"tool_calls\":[{\"id\":\"call_abc\",\"type\":\"function\",\"function\":{\"name\":\"get_"
     "weather\","
     "\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}}]},{\"role\":\"tool\",\"tool_call_id\":"
     "\"call_abc\","
     "\"content\":\"18 "
     "C\"}],\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
     "\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}}}],"
     "\"tool_choice\":\"auto\",\"temperature\":0.5}"},
    {"anthropic-request",
     "{\"model\":\"c\",\"max_tokens\":64,\"system\":\"Be brief.\",\"messages\":["
     "{\"role\":\"user\",\"content\":\"Weather?\"},{\"role\":\"assistant\",\"content\":["
     "{\"type\":\"thinking\",\"thinking\":\"Think.\",\"signature\":\"SIG\"},{\"type\":\"tool_use\","
     "\"id\":\"toolu_1\",\"name\":\"get_weather\",\"input\":{\"city\":\"Paris\"}}]},"
     "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_1\","
     "\"content\":\"18 C\"}]}],\"tools\":[{\"name\":\"get_weather\",\"input_schema\":{\"type\":"
     "\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}}]}"},
};

/* The formats whose pairs are judged: every pair with one of them on
 * either side. */
static const char *const judged[] = {
    "openai-responses", "openai-responses-stream",  "gemini",     "gemini-stream",
    "gemini-request",   "openai-responses-request", "qwen3-coder"};

static bool is_judged(const char *n)
{
    for (size_t i = 0; i < sizeof judged / sizeof *judged; i++)
        if (strcmp(judged[i], n) == 0)
            return true;
    return false;
}

/* ---- helpers ---- */

static char *neutral_json(const tw_neutral_value *v)
{
    tw_buf b = {0};
    if (v->kind == TW_NEUTRAL_REQUEST) {
        cr_assert_eq(tw_request_write(&b, &v->req, TW_JSON_COMPACT), TW_OK);
    } else {
        tw_result r = v->res;
        memset(&r.errors, 0, sizeof r.errors);
        memset(&r.warnings, 0, sizeof r.warnings);
        cr_assert_eq(tw_result_write(&b, &r, 0), TW_OK);
    }
    return tw_buf_take(&b, NULL);
}

/* The reader of what an encoder writes, NULL when there is none (prompts
 * that only a model reads). */
static const char *reader_of(const char *enc)
{
    if (strcmp(enc, "vllm-generate-response") == 0)
        return "vllm-generate";
    if (strcmp(enc, "hermes-prompt") == 0 || tw_format_find(enc) || tw_request_reader_find(enc))
        return enc;
    return NULL;
}

/* Losses the encoder reported (its own not_carried, not the decode
 * diagnostics transcode carries over). */
static size_t encoder_losses(const tw_diag_list *w, tw_buf *text)
{
    size_t n = 0;
    for (size_t i = 0; i < w->len; i++) {
        const char *m = w->items[i].message ? w->items[i].message : "";
        if (strncmp(m, "decode ", 7) == 0)
            continue;
        n++;
        tw_buf_printf(text, "  %s: %s\n", tw_code_name(w->items[i].code), m);
    }
    return n;
}

typedef struct converted {
    tw_status st;
    tw_diag_list warn; /* reader's and encoder's */
    tw_buf out;
    tw_neutral_value v;
} converted;

static void convert(const sample *s, const char *to, converted *c)
{
    memset(c, 0, sizeof *c);
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    o.parallel_tool_calls = -1;
    o.warnings = &c->warn;
    tw_error e = {.offset = -1};
    c->st = tw_transcode_read(s->fmt, s->input, strlen(s->input), NULL, &c->v, &c->warn, &e);
    cr_assert_eq(c->st, TW_OK, "%s: %s", s->fmt, e.message);
    c->st = tw_transcode_write(&c->v, to, &o, &c->out, &e);
}

static void converted_free(converted *c)
{
    tw_diag_list_free(&c->warn);
    tw_buf_free(&c->out);
    tw_neutral_value_free(&c->v);
}

/* ---- the sweep ---- */

/* Convert one source to every target of the judged pairs; read each
 * output back with the target's reader: a changed value needs a loss
 * reported by the encoder. */
static void sweep(const sample *s, size_t *pairs, size_t *read_back)
{
    for (const tw_encoder_ops *const *e = tw_encoders(); *e; e++) {
        const char *to = (*e)->name;
        if (!is_judged(s->fmt) && !is_judged(to))
            continue;
        converted c;
        convert(s, to, &c);
        bool req = c.v.kind == TW_NEUTRAL_REQUEST;
        if (req != ((*e)->input == TW_ENC_REQUEST)) {
            cr_expect_eq(c.st, TW_ERR_INVALID, "%s -> %s: the other kind", s->fmt, to);
            converted_free(&c);
            continue;
        }
        ++*pairs;
        cr_assert_eq(c.st, TW_OK, "%s -> %s: %s", s->fmt, to, tw_code_name(c.st));
        const char *back = reader_of(to);
        if (!back) {
            converted_free(&c);
            continue;
        }
        tw_neutral_value v2;
        tw_error e2 = {.offset = -1};
        tw_diag_list w2 = {0};
        cr_assert_eq(tw_transcode_read(back, c.out.data, c.out.len, NULL, &v2, &w2, &e2), TW_OK,
                     "%s -> %s: read back: %s", s->fmt, to, e2.message);
        ++*read_back;
        char *a = neutral_json(&c.v), *b = neutral_json(&v2);
        tw_buf lost = {0};
        size_t n = encoder_losses(&c.warn, &lost);
        if (strcmp(a, b) != 0)
            cr_expect_gt(n, 0,
                         "%s -> %s: the value changed and no loss was reported\n  before %s\n"
                         "  after  %s",
                         s->fmt, to, a, b);
        free(a);
        free(b);
        tw_buf_free(&lost);
        tw_diag_list_free(&w2);
        tw_neutral_value_free(&v2);
        converted_free(&c);
    }
}

Test(convert_losses, nothing_lost_silently)
{
    size_t pairs = 0, read_back = 0;
    for (size_t i = 0; i < sizeof samples / sizeof *samples; i++)
        sweep(&samples[i], &pairs, &read_back);
    cr_expect_gt(pairs, 60);
    cr_expect_gt(read_back, 40);
}

/* The streams as sources: decode fixtures of their rich cases. */
Test(convert_losses, streams_lose_nothing_silently)
{
    static const char *const files[] = {
        "tests/data/decode/openai-responses-stream/builtin_tool_items.json",
        "tests/data/decode/openai-responses-stream/reasoning_summary_then_call.json",
        "tests/data/decode/openai-responses-stream/refusal.json",
        "tests/data/decode/openai-responses-stream/parallel_calls.json",
        "tests/data/decode/openai-responses-stream/incomplete_content_filter.json",
        "tests/data/decode/gemini-stream/partial_args_nested.json",
        "tests/data/decode/gemini-stream/thought_signature_call.json",
        "tests/data/decode/gemini-stream/thought_deltas.json",
    };
    size_t pairs = 0, read_back = 0;
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        size_t len = 0;
        tw_error why = {.offset = -1};
        char *text = tw_read_file(tw_test_src(files[i]), 1 << 20, &len, &why);
        cr_assert_not_null(text, "%s: %s", files[i], why.message);
        cJSON *fx = NULL;
        cr_assert_eq(tw_json_parse(text, len, 64, &fx, NULL), TW_OK, "%s", files[i]);
        sample s = {tw_json_get_str(fx, "format"), tw_json_get_str(fx, "input")};
        cr_assert(s.fmt && s.input, "%s", files[i]);
        sweep(&s, &pairs, &read_back);
        cJSON_Delete(fx);
        free(text);
    }
    cr_expect_gt(pairs, 40);
}

/* ---- the table: what each pair reports ---- */

typedef struct loss_case {
    size_t sample; /* index into samples */
    const char *to;
    const char *lost[6]; /* substrings of the warnings; none: the pair is lossless */
} loss_case;

static const loss_case cases[] = {
    /* Responses answers */
    {0, "openai-response", {"thinking_signature"}},
    {0, "vllm-generate-response", {"thinking signature"}},
    /* a signature only its maker verifies: not written for another vendor */
    {0,
     "anthropic-response",
     {"thinking_signature: a thinking signature made by OpenAI Responses "
      "is not written: Anthropic"}},
    {0, "gemini", {"made by OpenAI Responses is not written: Gemini"}},
    {0, "gemini-stream", {"made by OpenAI Responses"}},
    {0, "openai-responses-stream", {NULL}},
    {1, "gemini", {"web_search_call (ws_1)", "refused"}},
    {1, "openai-responses", {"web_search_call (ws_1)", "refused"}},
    /* Gemini answers */
    {2, "openai-stream", {"thinking_signature"}},
    {2, "anthropic-response", {"made by Gemini is not written: Anthropic"}},
    {2, "openai-responses", {"made by Gemini is not written: OpenAI Responses"}},
    {2, "openai-responses-stream", {"made by Gemini"}},
    {2, "gemini-stream", {NULL}},
    {3, "openai-responses", {"inlineData"}},
    {3, "anthropic-stream", {"inlineData"}},
    /* Qwen3-Coder model text */
    {4, "gemini", {"kept as strings"}},
    /* other answers into the Responses and Gemini encoders */
    {5, "gemini", {NULL}},
    {5, "openai-responses-stream", {NULL}},
    {6, "gemini-stream", {"redacted_thinking", "made by Anthropic"}},
    {6, "openai-responses", {"redacted_thinking", "made by Anthropic"}},
    {6, "anthropic-stream", {NULL}}, /* its own signature */
    {7, "gemini", {NULL}},
    {8, "gemini", {NULL}}, /* an unknown reason passes through and reads back */
    {8, "vllm-generate-response", {"finish_reason"}},
    /* Gemini requests */
    {9,
     "openai-request",
     {"googleSearch", "streamFunctionCallArguments", "responseModalities", "messages[2].thinking",
      "thinking_signature"}},
    {9,
     "anthropic-request",
     {"googleSearch", "streamFunctionCallArguments", "responseModalities",
      "messages[2].thinking_signature: a thinking signature made by Gemini"}},
    {9,
     "openai-responses-request",
     {"googleSearch", "streamFunctionCallArguments", "made by Gemini"}},
    /* Responses requests */
    {10,
     "gemini-request",
     {"input[1].id", "web_search", "model", "options.store", "options.include",
      "made by OpenAI Responses"}},
    {10,
     "openai-request",
     {"input[2].id", "messages[2].thinking", "thinking_signature", "options.store"}},
    {10, "qwen3-coder-prompt", {"tool_choice", "thinking signature"}},
    /* other requests into the Gemini and Responses encoders */
    {11, "gemini-request", {"model"}},
    {11, "openai-responses-request", {NULL}},
    {12,
     "openai-responses-request",
     {"messages[2].thinking_signature: a thinking signature made "
      "by Anthropic is not written"}},
    {12, "gemini-request", {"model", "made by Anthropic"}},
    {12, "anthropic-request", {NULL}},
};

Test(convert_losses, each_pair_reports_its_losses)
{
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const loss_case *lc = &cases[k];
        cr_assert_lt(lc->sample, sizeof samples / sizeof *samples);
        const sample *s = &samples[lc->sample];
        converted c;
        convert(s, lc->to, &c);
        cr_assert_eq(c.st, TW_OK, "%s -> %s", s->fmt, lc->to);
        tw_buf all = {0};
        for (size_t i = 0; i < c.warn.len; i++)
            tw_buf_printf(&all, "  %s: %s\n", tw_code_name(c.warn.items[i].code),
                          c.warn.items[i].message ? c.warn.items[i].message : "");
        if (!lc->lost[0]) {
            cr_expect_eq(c.warn.len, 0, "%s -> %s is lossless, yet reports:\n%s", s->fmt, lc->to,
                         all.data ? all.data : "");
        } else {
            for (size_t j = 0; j < 6 && lc->lost[j]; j++)
                cr_expect(all.data && strstr(all.data, lc->lost[j]),
                          "%s -> %s: no loss names '%s'; reported:\n%s", s->fmt, lc->to,
                          lc->lost[j], all.data ? all.data : "");
        }
        tw_buf_free(&all);
        converted_free(&c);
    }
}
