/* Request decoders, transcoding with not_carried warnings, round trips
 * (encode then decode gives the same neutral value) and the encode/convert
 * command lines. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "toolwire/decode.h"
#include "toolwire/encode.h"
#include "toolwire/registry.h"
#include "toolwire/request.h"
#include "toolwire/transcode.h"
#include "requests.h"
#include "twtest.h"

/* ---- helpers ---- */

static char *neutral_request_json(const tw_request *r)
{
    tw_buf b = {0};
    cr_assert_eq(tw_request_write(&b, r, TW_JSON_COMPACT), TW_OK);
    return tw_buf_take(&b, NULL);
}

static void read_neutral_request(const char *js, tw_request *r)
{
    cJSON *j = cJSON_Parse(js);
    cr_assert_not_null(j, "test JSON: %s", js);
    tw_error why_e = {0};
    cr_assert_eq(tw_request_read(j, NULL, r, &why_e), TW_OK, "%s", why_e.message);
    cJSON_Delete(j);
}

/* Decode from an exact-size copy with limits l (NULL: defaults); the
 * request's warnings are also copied to w (when not NULL). */
static tw_status decode_with(tw_request_decode_fn fn, const char *js, const tw_limits *l,
                             tw_request *r, tw_diag_list *w, tw_error *e)
{
    return tw_test_read_request(fn, js, strlen(js), l, r, w, e);
}

static tw_status decode_openai(const char *js, const tw_limits *l, tw_request *r, tw_diag_list *w,
                               tw_error *e)
{
    return decode_with(tw_openai_request_decode, js, l, r, w, e);
}

static tw_status decode_anthropic(const char *js, const tw_limits *l, tw_request *r,
                                  tw_diag_list *w, tw_error *e)
{
    return decode_with(tw_anthropic_request_decode, js, l, r, w, e);
}

/* ---- request decoders ---- */

Test(request_decode, openai_body)
{
    const char *js =
        "{\"model\":\"gpt\",\"messages\":[{\"role\":\"developer\",\"content\":\"sys\"},"
        "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},"
        "{\"type\":\"image_url\",\"image_url\":{\"url\":\"x\"}},{\"type\":\"text\",\"text\":\"b\"}]"
        "},"
        "{\"role\":\"assistant\",\"content\":null,\"reasoning_content\":\"r\",\"tool_calls\":["
        "{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":"
        "\"```json\\n{\\\"x\\\":1}\\n```\"}},"
        "{\"id\":\"c2\",\"type\":\"function\",\"function\":{\"name\":\"g\",\"arguments\":{\"y\":2}}"
        "}]},"
        "{\"role\":\"tool\",\"tool_call_id\":\"c2\",\"content\":\"out\"}],"
        "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":{\"type\":"
        "\"object\"}}}],"
        "\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"f\"}},"
        "\"parallel_tool_calls\":true,\"max_completion_tokens\":9,\"temperature\":0.5,\"logprobs\":"
        "true}";
    tw_request r;
    tw_diag_list w = {0};
    tw_error e;
    cr_assert_eq(decode_openai(js, NULL, &r, &w, &e), TW_OK, "%s", e.message);
    char *got = neutral_request_json(&r);
    cr_expect_str_eq(
        got, "{\"model\":\"gpt\",\"messages\":[{\"role\":\"system\",\"content\":\"sys\"},"
             "{\"role\":\"user\",\"content\":\"ab\"},"
             "{\"role\":\"assistant\",\"content\":\"\",\"thinking\":\"r\",\"tool_calls\":["
             "{\"id\":\"c1\",\"name\":\"f\",\"arguments\":{\"x\":1}},{\"id\":\"c2\",\"name\":\"g\","
             "\"arguments\":{\"y\":2}}]},"
             "{\"role\":\"tool\",\"content\":\"out\",\"tool_call_id\":\"c2\",\"name\":\"g\",\"is_"
             "error\":false}],"
             "\"tools\":[{\"name\":\"f\",\"parameters\":{\"type\":\"object\"}}],\"tool_choice\":{"
             "\"name\":\"f\"},"
             "\"parallel_tool_calls\":true,\"options\":{\"max_tokens\":9,\"temperature\":0.5}}");
    free(got);
    cr_expect(tw_test_has_warning(&w, TW_D_NOT_CARRIED,
                                  "messages[1].content[1]: content part of type 'image_url'"));
    cr_expect(tw_test_has_warning(&w, TW_D_ARGUMENTS_AS_OBJECT,
                                  "messages[2].tool_calls[1].function.arguments"));
    cr_expect(tw_test_has_warning(&w, TW_D_NOT_CARRIED, "logprobs"));
    cr_expect_eq(w.len, 3);
    tw_diag_list_free(&w);
    tw_request_free(&r);
}

Test(request_decode, openai_errors_name_the_path)
{
    struct {
        const char *js;
        tw_status code;
        const char *path;
        tw_status ecode; /* err->code when a diagnostic names the cause, else TW_OK */
    } cases[] = {
        {"[]", TW_ERR_INVALID, "", TW_OK},
        {"{\"messages\":{}}", TW_ERR_INVALID, "messages", TW_OK},
        {"{\"messages\":[{\"role\":\"user\"},{\"content\":\"x\"}]}", TW_ERR_INVALID,
         "messages[1].role", TW_OK},
        {"{\"messages\":[{\"role\":\"robot\"}]}", TW_ERR_INVALID, "messages[0].role", TW_OK},
        {"{\"messages\":[{\"role\":\"tool\",\"content\":\"x\"}]}", TW_ERR_INVALID,
         "messages[0].tool_call_id", TW_OK},
        {"{\"messages\":[{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"a\",\"type\":"
         "\"function\","
         "\"function\":{\"name\":\"f\",\"arguments\":\"{nope\"}}]}]}",
         TW_ERR_PARSE, "messages[0].tool_calls[0].function.arguments", TW_D_TOOL_CALL_JSON},
        {"{\"messages\":[{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"a\",\"type\":"
         "\"function\","
         "\"function\":{\"name\":\"f\",\"arguments\":\"[1]\"}}]}]}",
         TW_ERR_INVALID, "messages[0].tool_calls[0].function.arguments", TW_D_ARGUMENTS_NOT_OBJECT},
        {"{\"messages\":[{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"a\",\"function\":{}}]}]"
         "}",
         TW_ERR_INVALID, "messages[0].tool_calls[0].function.name", TW_OK},
        {"{\"messages\":[],\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}},{"
         "\"type\":\"web\"}]}",
         TW_ERR_INVALID, "tools[1]", TW_OK},
        {"{\"messages\":[],\"tool_choice\":\"sometimes\"}", TW_ERR_INVALID, "tool_choice", TW_OK},
        {"{\"messages\":[],\"parallel_tool_calls\":\"yes\"}", TW_ERR_INVALID, "parallel_tool_calls",
         TW_OK},
        {"{\"messages\":[", TW_ERR_PARSE, "", TW_OK},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tw_request r;
        tw_error e;
        tw_status st = decode_openai(cases[i].js, NULL, &r, NULL, &e);
        cr_expect_eq(st, cases[i].code, "case %zu: %s -> %s (%s)", i, cases[i].js, tw_code_name(st),
                     e.message);
        cr_expect_str_eq(e.path, cases[i].path, "case %zu: %s", i, e.message);
        cr_expect_eq(e.code, cases[i].ecode ? cases[i].ecode : cases[i].code, "case %zu: %s", i,
                     tw_code_name(e.code));
        cr_expect_eq(r.nmessages, 0);
        cr_expect_null(r.messages);
    }
}

Test(request_decode, limits)
{
    tw_limits l;
    tw_limits_default(&l);
    l.max_messages = 2;
    l.max_tools = 1;
    l.max_calls = 1;
    tw_request r;
    tw_error e;
    cr_expect_eq(decode_openai(
                     "{\"messages\":[{\"role\":\"user\"},{\"role\":\"user\"},{\"role\":\"user\"}]}",
                     &l, &r, NULL, &e),
                 TW_ERR_LIMIT);
    cr_expect_str_eq(e.path, "messages");
    cr_expect_eq(
        decode_openai(
            "{\"messages\":[],\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"a\"}},"
            "{\"type\":\"function\",\"function\":{\"name\":\"b\"}}]}",
            &l, &r, NULL, &e),
        TW_ERR_LIMIT);
    cr_expect_eq(decode_openai("{\"messages\":[{\"role\":\"assistant\",\"tool_calls\":["
                               "{\"id\":\"a\",\"function\":{\"name\":\"f\"}},{\"id\":\"b\","
                               "\"function\":{\"name\":\"f\"}}]}]}",
                               &l, &r, NULL, &e),
                 TW_ERR_LIMIT);
    cr_expect_str_eq(e.path, "messages[0].tool_calls[1]");
    l.max_depth = 4;
    cr_expect_eq(decode_openai("{\"messages\":[{\"role\":\"user\",\"content\":[[[[[1]]]]]}]}", &l,
                               &r, NULL, &e),
                 TW_ERR_LIMIT);
    cr_expect_eq(e.code, TW_D_JSON_TOO_DEEP);
    l.max_depth = 0;
    /* an Anthropic user turn expands into several messages: still capped */
    cr_expect_eq(decode_anthropic("{\"messages\":[{\"role\":\"user\",\"content\":["
                                  "{\"type\":\"tool_result\",\"tool_use_id\":\"a\"},"
                                  "{\"type\":\"tool_result\",\"tool_use_id\":\"b\"},"
                                  "{\"type\":\"text\",\"text\":\"t\"}]}]}",
                                  &l, &r, NULL, &e),
                 TW_ERR_LIMIT);
    cr_expect_str_eq(e.path, "messages[0].content[2]");
    l.max_input_bytes = 5;
    cr_expect_eq(decode_anthropic("{\"messages\":[]}", &l, &r, NULL, &e), TW_ERR_LIMIT);
}

Test(request_decode, anthropic_body)
{
    const char *js =
        "{\"model\":\"claude\",\"max_tokens\":100,\"system\":[{\"type\":\"text\",\"text\":\"s1\"},"
        "{\"type\":\"text\",\"text\":\"s2\"}],\"messages\":["
        "{\"role\":\"user\",\"content\":\"hi\"},"
        "{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"t\","
        "\"signature\":\"S\"},"
        "{\"type\":\"redacted_thinking\",\"data\":\"R\"},{\"type\":\"text\",\"text\":\"ok\"},"
        "{\"type\":\"tool_use\",\"id\":\"tu1\",\"name\":\"f\",\"input\":{\"a\":1}}]},"
        "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"tu1\","
        "\"content\":[{\"type\":\"text\",\"text\":\"bad\"}],\"is_error\":true},"
        "{\"type\":\"image\",\"source\":{}},{\"type\":\"text\",\"text\":\"more\"}]}],"
        "\"tools\":[{\"name\":\"f\",\"input_schema\":{\"type\":\"object\"}}],"
        "\"tool_choice\":{\"type\":\"any\",\"disable_parallel_tool_use\":true},"
        "\"stop_sequences\":[\"X\"],\"top_k\":3,\"service_tier\":\"auto\"}";
    tw_request r;
    tw_diag_list w = {0};
    tw_error e;
    cr_assert_eq(decode_anthropic(js, NULL, &r, &w, &e), TW_OK, "%s", e.message);
    char *got = neutral_request_json(&r);
    cr_expect_str_eq(
        got, "{\"model\":\"claude\",\"messages\":[{\"role\":\"system\",\"content\":\"s1\\n\\ns2\"},"
             "{\"role\":\"user\",\"content\":\"hi\"},"
             "{\"role\":\"assistant\",\"content\":\"ok\",\"thinking\":\"t\",\"thinking_signature\":"
             "\"S\","
             "\"tool_calls\":[{\"id\":\"tu1\",\"name\":\"f\",\"arguments\":{\"a\":1}}]},"
             "{\"role\":\"tool\",\"content\":\"bad\",\"tool_call_id\":\"tu1\",\"name\":\"f\",\"is_"
             "error\":true},"
             "{\"role\":\"user\",\"content\":\"more\"}],"
             "\"tools\":[{\"name\":\"f\",\"parameters\":{\"type\":\"object\"}}],\"tool_choice\":"
             "\"required\","
             "\"parallel_tool_calls\":false,\"options\":{\"max_tokens\":100,\"stop\":[\"X\"],\"top_"
             "k\":3}}");
    free(got);
    cr_expect(r.messages[2].has_redacted_thinking);
    cr_expect_eq(cJSON_GetArraySize(r.messages[2].redacted_thinking), 1);
    cr_expect(
        tw_test_has_warning(&w, TW_D_NOT_CARRIED, "messages[2].content[1]: block of type 'image'"));
    cr_expect(tw_test_has_warning(&w, TW_D_NOT_CARRIED, "service_tier"));
    cr_expect_eq(w.len, 2);
    tw_diag_list_free(&w);
    tw_request_free(&r);
}

Test(request_decode, anthropic_errors_name_the_path)
{
    struct {
        const char *js;
        const char *path;
    } cases[] = {
        {"{\"messages\":[{\"role\":\"system\",\"content\":\"x\"}]}", "messages[0].role"},
        {"{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\"}]}]}",
         "messages[0].content[0].tool_use_id"},
        {"{\"messages\":[{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"a\","
         "\"name\":\"f\","
         "\"input\":[1]}]}]}",
         "messages[0].content[0].input"},
        {"{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":"
         "\"a\","
         "\"is_error\":1}]}]}",
         "messages[0].content[0].is_error"},
        {"{\"messages\":[],\"tool_choice\":{\"type\":\"tool\"}}", "tool_choice.name"},
        {"{\"messages\":[],\"system\":5}", "system"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tw_request r;
        tw_error e;
        cr_expect_eq(decode_anthropic(cases[i].js, NULL, &r, NULL, &e), TW_ERR_INVALID, "case %zu",
                     i);
        cr_expect_str_eq(e.path, cases[i].path, "case %zu: %s", i, e.message);
    }
}

/* ---- request round trips: encode, decode, same neutral value ---- */

static const char *conversation =
    "{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"Be helpful.\"},"
    "{\"role\":\"user\",\"content\":\"Weather and time?\"},"
    "{\"role\":\"assistant\",\"content\":\"Checking.\",\"tool_calls\":["
    "{\"id\":\"c1\",\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\",\"days\":[1,2.5]}},"
    "{\"id\":\"c2\",\"name\":\"get_time\",\"arguments\":{}}]},"
    "{\"role\":\"tool\",\"content\":\"18C\",\"tool_call_id\":\"c1\",\"name\":\"get_weather\",\"is_"
    "error\":false},"
    "{\"role\":\"tool\",\"content\":\"12:00\",\"tool_call_id\":\"c2\",\"name\":\"get_time\",\"is_"
    "error\":false},"
    "{\"role\":\"user\",\"content\":\"Thanks \\u00e9\\u2713\"},"
    "{\"role\":\"assistant\",\"content\":\"You're welcome.\"}],"
    "\"tools\":[{\"name\":\"get_weather\",\"description\":\"Weather\",\"parameters\":{\"type\":"
    "\"object\","
    "\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}},"
    "{\"name\":\"get_time\",\"parameters\":{\"type\":\"object\"}}],"
    "\"tool_choice\":{\"name\":\"get_time\"},\"parallel_tool_calls\":true,"
    "\"options\":{\"temperature\":0.25,\"max_tokens\":77}}";

static void request_round_trip(const char *enc_name, const char *neutral,
                               tw_status (*dec)(const char *, const tw_limits *, tw_request *,
                                                tw_diag_list *, tw_error *))
{
    tw_request r;
    read_neutral_request(neutral, &r);
    char *want = neutral_request_json(&r);
    tw_diag_list w = {0};
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    o.parallel_tool_calls = -1;
    o.warnings = &w;
    tw_buf wire = {0};
    cr_assert_eq(tw_encoder_find(enc_name)->encode_request(&r, &o, &wire), TW_OK);
    cr_expect_eq(w.len, 0, "%s: %s", enc_name, w.len ? w.items[0].message : "");
    tw_request back;
    tw_error e;
    tw_diag_list w2 = {0};
    cr_assert_eq(dec(wire.data, &(tw_limits){0}, &back, &w2, &e), TW_OK, "%s", e.message);
    cr_expect_eq(w2.len, 0, "%s decode: %s", enc_name, w2.len ? w2.items[0].message : "");
    char *got = neutral_request_json(&back);
    /* same value; object key order may differ (max_tokens leads in Anthropic) */
    cJSON *gj = cJSON_Parse(got), *wj = cJSON_Parse(want);
    cr_expect(tw_json_equal(gj, wj), "%s round trip\ngot:  %s\nwant: %s\nwire: %s", enc_name, got,
              want, wire.data);
    cJSON_Delete(gj);
    cJSON_Delete(wj);
    free(got);
    free(want);
    tw_buf_free(&wire);
    tw_diag_list_free(&w);
    tw_diag_list_free(&w2);
    tw_request_free(&r);
    tw_request_free(&back);
}

Test(round_trip, openai_request)
{
    request_round_trip("openai-request", conversation, decode_openai);
}

Test(round_trip, anthropic_request)
{
    request_round_trip("anthropic-request", conversation, decode_anthropic);
    /* Anthropic also carries thinking with its signature and is_error */
    request_round_trip(
        "anthropic-request",
        "{\"messages\":[{\"role\":\"user\",\"content\":\"q\"},"
        "{\"role\":\"assistant\",\"content\":\"\",\"thinking\":\"plan\",\"thinking_signature\":"
        "\"SIG\","
        "\"tool_calls\":[{\"id\":\"t1\",\"name\":\"f\",\"arguments\":{\"a\":\"b\"}}]},"
        "{\"role\":\"tool\",\"content\":\"boom\",\"tool_call_id\":\"t1\",\"name\":\"f\",\"is_"
        "error\":true},"
        "{\"role\":\"user\",\"content\":\"retry\"}],"
        "\"tools\":[{\"name\":\"f\",\"parameters\":{\"type\":\"object\"}}],\"tool_choice\":"
        "\"required\","
        "\"parallel_tool_calls\":false,\"options\":{\"max_tokens\":4096}}",
        decode_anthropic);
}

/* ---- result round trips through the registry decoders ---- */

static const char *results[] = {
    "{\"content\":\"Let me check \\u00e9\\u2713.\",\"thinking\":\"The user wants weather.\","
    "\"thinking_signature\":\"sig-r\",\"tool_calls\":[{\"id\":\"call_1\",\"name\":\"get_weather\","
    "\"arguments\":{\"city\":\"Paris\",\"n\":[1,{\"x\":null}]}},{\"id\":\"call_2\",\"name\":\"get_"
    "time\","
    "\"arguments\":{}}],\"finish_reason\":\"tool_calls\"}",
    "{\"content\":\"Hello there.\",\"finish_reason\":\"stop\"}",
    "{\"content\":\"cut\",\"thinking\":\"hmm\",\"finish_reason\":\"length\"}",
    "{\"content\":\"\",\"tool_calls\":[{\"id\":\"x\",\"name\":\"f\",\"arguments\":{\"q\":\"a\\nb\"}"
    "}],"
    "\"finish_reason\":\"tool_calls\"}",
};

static void check_same(const tw_result *want, const tw_result *got, bool signature,
                       const char *what)
{
    cr_expect_eq(got->errors.len, 0, "%s: %s", what,
                 got->errors.len ? got->errors.items[0].message : "");
    cr_expect_eq(got->msg.content.len, want->msg.content.len, "%s: content", what);
    cr_expect_eq(memcmp(got->msg.content.data ? got->msg.content.data : "",
                        want->msg.content.data ? want->msg.content.data : "",
                        want->msg.content.len),
                 0, "%s: content", what);
    cr_expect_eq(got->msg.thinking.len, want->msg.thinking.len, "%s: thinking", what);
    cr_expect_eq(memcmp(got->msg.thinking.data ? got->msg.thinking.data : "",
                        want->msg.thinking.data ? want->msg.thinking.data : "",
                        want->msg.thinking.len),
                 0, "%s: thinking", what);
    if (signature && want->msg.thinking_signature)
        cr_expect(got->msg.thinking_signature &&
                      strcmp(got->msg.thinking_signature, want->msg.thinking_signature) == 0,
                  "%s: signature", what);
    else
        cr_expect_null(got->msg.thinking_signature, "%s: no signature", what);
    cr_assert_eq(got->msg.ncalls, want->msg.ncalls, "%s: calls", what);
    for (size_t i = 0; i < want->msg.ncalls; i++) {
        cr_expect_str_eq(got->msg.calls[i].id, want->msg.calls[i].id, "%s: id", what);
        cr_expect_str_eq(got->msg.calls[i].name, want->msg.calls[i].name, "%s: name", what);
        cr_expect(tw_json_equal(got->msg.calls[i].arguments, want->msg.calls[i].arguments),
                  "%s: arguments of call %zu", what, i);
    }
    cr_expect_str_eq(got->finish_reason ? got->finish_reason : "", want->finish_reason,
                     "%s: finish", what);
}

static void result_round_trip_with(const char *fmt, bool signature, bool partial_args)
{
    const tw_encoder_ops *enc = tw_encoder_find(fmt);
    const tw_format_ops *dec = tw_format_find(fmt);
    cr_assert(enc && dec);
    for (size_t k = 0; k < sizeof results / sizeof *results; k++) {
        cJSON *j = cJSON_Parse(results[k]);
        tw_result want;
        tw_error why_e = {0};
        cr_assert_eq(tw_result_read(j, NULL, &want, &why_e), TW_OK, "%s", why_e.message);
        cJSON_Delete(j);
        size_t frags[][2] = {{0, 0}, {1, 1}, {3, 7}};
        for (size_t f = 0; f < 3; f++) {
            tw_encode_opts o;
            memset(&o, 0, sizeof o);
            o.text_fragment = frags[f][0];
            o.args_fragment = frags[f][1];
            o.include_usage = true;
            o.partial_args = partial_args;
            tw_buf wire = {0};
            cr_assert_eq(enc->encode_result(&want, &o, &wire), TW_OK);
            char *exact = tw_test_exact(wire.data, wire.len);
            size_t chunks[] = {0, 1, 5, 64};
            for (size_t c = 0; c < 4; c++) {
                tw_result got;
                tw_status st = c == 0
                                   ? dec->decode(exact, wire.len, NULL, &got)
                                   : tw_decode_chunked(dec, exact, wire.len, chunks[c], NULL, &got);
                cr_assert_eq(st, TW_OK, "%s: decoder answered %s", fmt, tw_code_name(st));
                char what[96];
                snprintf(what, sizeof what, "%s result %zu frag %zu chunk %zu", fmt, k, f,
                         chunks[c]);
                check_same(&want, &got, signature, what);
                tw_result_free(&got);
            }
            free(exact);
            tw_buf_free(&wire);
        }
        tw_result_free(&want);
    }
}

static void result_round_trip(const char *fmt, bool signature)
{
    result_round_trip_with(fmt, signature, false);
}

Test(round_trip, openai_response)
{
    result_round_trip("openai-response", false);
}
Test(round_trip, openai_stream)
{
    result_round_trip("openai-stream", false);
}
Test(round_trip, anthropic_response)
{
    result_round_trip("anthropic-response", true);
}
Test(round_trip, anthropic_stream)
{
    result_round_trip("anthropic-stream", true);
}

Test(round_trip, openai_stream_without_done_is_truncated)
{
    tw_result want;
    cJSON *j = cJSON_Parse(results[1]);
    tw_error why_e = {0};
    cr_assert_eq(tw_result_read(j, NULL, &want, &why_e), TW_OK);
    cJSON_Delete(j);
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    o.omit_done = true;
    tw_buf wire = {0};
    cr_assert_eq(tw_encoder_find("openai-stream")->encode_result(&want, &o, &wire), TW_OK);
    tw_result got;
    cr_assert_eq(tw_format_find("openai-stream")->decode(wire.data, wire.len, NULL, &got), TW_OK);
    cr_expect(tw_diag_has(&got.errors, TW_D_STREAM_TRUNCATED));
    cr_expect_str_eq(got.msg.content.data, "Hello there.");
    tw_result_free(&got);
    tw_buf_free(&wire);
    tw_result_free(&want);
}

/* ---- transcoding ---- */

Test(transcode, anthropic_to_openai_reports_what_is_not_carried)
{
    const char *js = "{\"model\":\"claude\",\"max_tokens\":64,\"messages\":[{\"role\":\"user\","
                     "\"content\":\"q\"},"
                     "{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"thinking\":"
                     "\"t\",\"signature\":\"S\"},"
                     "{\"type\":\"redacted_thinking\",\"data\":\"R\"},"
                     "{\"type\":\"tool_use\",\"id\":\"tu1\",\"name\":\"f\",\"input\":{\"a\":1}}]},"
                     "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":"
                     "\"tu1\",\"content\":\"x\","
                     "\"is_error\":true}]}],\"tools\":[{\"name\":\"f\",\"input_schema\":{\"type\":"
                     "\"object\",\"required\":[]}}],"
                     "\"top_k\":5}";
    tw_diag_list w = {0};
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    o.parallel_tool_calls = -1;
    o.warnings = &w;
    tw_buf out = {0};
    tw_error why_e = {0};
    cr_assert_eq(
        tw_transcode("anthropic-request", "openai-request", js, strlen(js), &o, &out, &why_e),
        TW_OK, "%s", why_e.message);
    cr_expect_str_eq(out.data,
                     "{\"model\":\"claude\",\"messages\":[{\"role\":\"user\",\"content\":\"q\"},"
                     "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"tu1\","
                     "\"type\":\"function\","
                     "\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":1}\"}}]},"
                     "{\"role\":\"tool\",\"tool_call_id\":\"tu1\",\"content\":\"x\"}],"
                     "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\","
                     "\"parameters\":{\"type\":\"object\"}}}],"
                     "\"parallel_tool_calls\":false,\"max_tokens\":64}");
    cr_expect(tw_test_has_warning(&w, TW_D_NOT_CARRIED, "messages[1].thinking:"));
    cr_expect(tw_test_has_warning(&w, TW_D_NOT_CARRIED, "messages[1].thinking_signature"));
    cr_expect(tw_test_has_warning(&w, TW_D_NOT_CARRIED, "messages[1].redacted_thinking"));
    cr_expect(tw_test_has_warning(&w, TW_D_NOT_CARRIED, "messages[2].is_error"));
    cr_expect(tw_test_has_warning(&w, TW_D_NOT_CARRIED, "options.top_k"));
    cr_expect_eq(w.len, 5);
    tw_diag_list_free(&w);
    tw_buf_free(&out);
}

Test(transcode, result_signature_into_openai_and_decode_diagnostics)
{
    const char *js =
        "{\"content\":\"hi\",\"thinking\":\"t\",\"thinking_signature\":\"S\","
        "\"finish_reason\":\"stop\",\"errors\":[{\"code\":\"tool_call_json\",\"offset\":4,"
        "\"message\":\"bad call\"}],\"warnings\":[]}";
    tw_diag_list w = {0};
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    o.warnings = &w;
    tw_buf out = {0};
    tw_error why_e = {0};
    cr_assert_eq(tw_transcode("neutral", "openai-response", js, strlen(js), &o, &out, &why_e),
                 TW_OK, "%s", why_e.message);
    cr_expect(tw_test_has_warning(&w, TW_D_NOT_CARRIED, "thinking_signature"));
    cr_expect(tw_test_has_warning(&w, TW_D_TOOL_CALL_JSON, "decode error: bad call"));
    cr_expect_eq(w.len, 2);
    tw_diag_list_free(&w);
    tw_buf_free(&out);
}

Test(transcode, neutral_and_kind_mismatch)
{
    const char *js = "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"tools\":[]}";
    tw_buf out = {0};
    tw_error why_e = {0};
    cr_assert_eq(tw_transcode("neutral-request", "neutral", js, strlen(js), NULL, &out, &why_e),
                 TW_OK, "%s", why_e.message);
    cr_expect_str_eq(out.data,
                     "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"tools\":[]}");
    tw_buf_reset(&out);
    cr_expect_eq(tw_transcode("neutral", "anthropic-stream", js, strlen(js), NULL, &out, &why_e),
                 TW_ERR_INVALID);
    cr_expect_str_eq(
        why_e.message,
        "anthropic-stream encodes a result (a model's answer), but the input is a request");
    cr_expect_eq(
        tw_transcode("neutral-request", "neutral-result", js, strlen(js), NULL, &out, &why_e),
        TW_ERR_INVALID);
    cr_expect_eq(tw_transcode("no-such", "neutral", js, strlen(js), NULL, &out, &why_e),
                 TW_ERR_INVALID);
    cr_expect_eq(out.len, 0);
    cr_expect(tw_transcode_is_source("openai-stream"));
    cr_expect(tw_transcode_is_source("anthropic-request"));
    cr_expect_not(tw_transcode_is_source("openai-stream-x"));
    cr_expect(tw_transcode_is_target("hermes-prompt"));
    cr_expect_not(tw_transcode_is_target("openai"));
    tw_buf_free(&out);
}

Test(transcode, stream_to_anthropic_response)
{
    /* a decoded OpenAI stream becomes an Anthropic message */
    tw_result r;
    cJSON *j = cJSON_Parse(results[0]);
    tw_error why_e = {0};
    cr_assert_eq(tw_result_read(j, NULL, &r, &why_e), TW_OK);
    cJSON_Delete(j);
    tw_buf wire = {0};
    cr_assert_eq(tw_encoder_find("openai-stream")->encode_result(&r, NULL, &wire), TW_OK);
    tw_result_free(&r);
    tw_diag_list w = {0};
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    o.warnings = &w;
    tw_buf out = {0};
    cr_assert_eq(
        tw_transcode("openai-stream", "anthropic-response", wire.data, wire.len, &o, &out, &why_e),
        TW_OK, "%s", why_e.message);
    cr_expect(strstr(out.data,
                     "{\"type\":\"thinking\",\"thinking\":\"The user wants weather.\"},"
                     "{\"type\":\"text\",\"text\":\"Let me check \xC3\xA9\xE2\x9C\x93.\"},"
                     "{\"type\":\"tool_use\",\"id\":\"call_1\"") != NULL,
              "%s", out.data);
    cr_expect(strstr(out.data, "\"stop_reason\":\"tool_use\"") != NULL);
    tw_diag_list_free(&w);
    tw_buf_free(&out);
    tw_buf_free(&wire);
}

/* ---- the command lines ---- */

static int run_cli(const char *args, const char *stdin_text, char *out, size_t outlen, char *err,
                   size_t errlen)
{
    const char *bin = getenv("TOOLWIRE_BIN");
    cr_assert_not_null(bin, "TOOLWIRE_BIN is set by ctest");
    char in_path[] = "/tmp/tw_convert_in_XXXXXX";
    char err_path[] = "/tmp/tw_convert_err_XXXXXX";
    int fd = mkstemp(in_path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "wb");
    fputs(stdin_text ? stdin_text : "", f);
    fclose(f);
    int efd = mkstemp(err_path);
    cr_assert_geq(efd, 0);
    close(efd);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s %s < %s 2> %s", bin, args, in_path, err_path);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t n = fread(out, 1, outlen - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    f = fopen(err_path, "rb");
    n = f ? fread(err, 1, errlen - 1, f) : 0;
    err[n] = '\0';
    if (f)
        fclose(f);
    remove(in_path);
    remove(err_path);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

Test(cli, encode_and_convert)
{
    static char out[65536], err[8192];
    cr_expect_eq(run_cli("encode --help", NULL, out, sizeof out, err, sizeof err), 0);
    cr_expect(strstr(out, "anthropic-stream") != NULL);
    cr_expect_eq(run_cli("convert --help", NULL, out, sizeof out, err, sizeof err), 0);
    cr_expect(strstr(out, "openai-request") != NULL);
    /* bad options: one line on stderr, exit 2 */
    const char *bad[] = {"encode --bogus",
                         "encode",
                         "encode --format nope",
                         "encode --format openai-request --parallel-tool-calls maybe",
                         "convert --from openai-request",
                         "convert --from x --to neutral",
                         "convert --from neutral --to y",
                         "encode --format openai-stream --args-fragment"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cr_expect_eq(run_cli(bad[i], "{}", out, sizeof out, err, sizeof err), 2, "%s", bad[i]);
        cr_expect_eq(count_lines(err), 1, "%s: %s", bad[i], err);
    }
    /* invalid input: exit 2 with where */
    cr_expect_eq(run_cli("encode --format openai-request", "{\"messages\": [", out, sizeof out, err,
                         sizeof err),
                 2);
    cr_expect(strstr(err, "-:1:") != NULL, "%s", err);
    /* warnings: one line each on stderr, bytes on stdout */
    const char *req =
        "{\"messages\":[{\"role\":\"assistant\",\"content\":\"a\",\"thinking\":\"t\"},"
        "{\"role\":\"tool\",\"tool_call_id\":\"c\",\"content\":\"x\",\"is_error\":true}],"
        "\"tools\":[{\"name\":\"f\"}]}";
    cr_expect_eq(run_cli("encode --format openai-request --parallel-tool-calls true --model M", req,
                         out, sizeof out, err, sizeof err),
                 0, "%s", err);
    cr_expect_str_eq(out,
                     "{\"model\":\"M\",\"messages\":[{\"role\":\"assistant\",\"content\":\"a\"},"
                     "{\"role\":\"tool\",\"tool_call_id\":\"c\",\"content\":\"x\"}],"
                     "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}],"
                     "\"parallel_tool_calls\":true}");
    cr_expect_str_eq(err,
                     "toolwire encode: warning: not_carried: messages[0].thinking: OpenAI requests "
                     "carry no reasoning\n"
                     "toolwire encode: warning: not_carried: messages[1].is_error: OpenAI tool "
                     "messages have no error flag\n");
    /* a request given to a result encoder fails with exit 1 */
    cr_expect_eq(run_cli("convert --from neutral --to openai-response", req, out, sizeof out, err,
                         sizeof err),
                 1);
    /* convert a request body to neutral */
    cr_expect_eq(run_cli("convert --from openai-request --to neutral",
                         "{\"model\":\"g\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
                         out, sizeof out, err, sizeof err),
                 0, "%s", err);
    cr_expect_str_eq(out,
                     "{\"model\":\"g\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}\n");
    /* output cap */
    cr_expect_eq(run_cli("encode --format openai-response --max-output-bytes 10",
                         "{\"content\":\"x\"}", out, sizeof out, err, sizeof err),
                 1);
    cr_expect_str_eq(out, "");
    /* argument and depth caps of the request readers */
    static const char deep[] =
        "{\"model\":\"m\",\"messages\":[{\"role\":\"assistant\",\"content\":\"\","
        "\"tool_calls\":[{\"id\":\"c\",\"type\":\"function\",\"function\":{\"name\":\"f\","
        "\"arguments\":\"{\\\"a\\\":[[[[1]]]]}\"}}]}]}";
    cr_expect_eq(run_cli("convert --from openai-request --to neutral --max-depth 8", deep, out,
                         sizeof out, err, sizeof err),
                 0, "%s", err);
    cr_expect_eq(run_cli("convert --from openai-request --to neutral --max-depth 3", deep, out,
                         sizeof out, err, sizeof err),
                 1);
    cr_expect(strstr(err, "nested deeper than 3") != NULL, "%s", err);
    cr_expect_eq(run_cli("convert --from openai-request --to neutral --max-args-bytes 4", deep, out,
                         sizeof out, err, sizeof err),
                 1);
    cr_expect(strstr(err, "max_args_bytes (4)") != NULL, "%s", err);
    cr_expect_eq(run_cli("convert --from openai-request --to neutral --max-args-bytes 0", deep, out,
                         sizeof out, err, sizeof err),
                 2);
    cr_expect(strstr(err, "'--max-args-bytes' needs a positive size, got '0'") != NULL, "%s", err);
    /* a cap of the request readers: not an encode option, refused as any unknown option is */
    static char err2[8192];
    int rc = run_cli("encode --format openai-request --bogus-option 4", "{}", out, sizeof out, err2,
                     sizeof err2);
    cr_expect_eq(run_cli("encode --format openai-request --max-args-bytes 4", "{}", out, sizeof out,
                         err, sizeof err),
                 rc);
    cr_expect_eq(rc, 2);
    cr_expect_str_eq(err, "toolwire encode: unknown option '--max-args-bytes' (see --help)\n");
    cr_expect(strstr(err2, "unknown option '--bogus-option' (see --help)") != NULL, "%s", err2);
    cr_expect_eq(run_cli("convert --from openai-request --to neutral --max-depth 1001", deep, out,
                         sizeof out, err, sizeof err),
                 2);
    cr_expect(strstr(err, "at most 1000") != NULL, "%s", err);
    /* a stream without [DONE] */
    cr_expect_eq(run_cli("encode --format openai-stream --omit-done", "{\"content\":\"x\"}", out,
                         sizeof out, err, sizeof err),
                 0);
    cr_expect(strstr(out, "[DONE]") == NULL);
    cr_expect(strstr(out, "\"finish_reason\":\"stop\"") != NULL);
}

/* gemini-request writes a schema with a key Gemini's Schema does not have as
 * parametersJsonSchema; convert --from gemini-request reads the same tools
 * back, nothing reported on the way. */
Test(cli, gemini_request_schema_round_trip)
{
    static char out[65536], err[8192], back[65536], want[65536];
    static const char req[] =
        "{\"messages\":[{\"role\":\"user\",\"content\":\"U\"}],\"tools\":["
        "{\"name\":\"plain\",\"parameters\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
        "\"string\",\"enum\":[\"x\"]}},\"required\":[\"a\"]}},"
        "{\"name\":\"strict\",\"parameters\":{\"$schema\":\"https://json-schema.org/draft/2020-12/"
        "schema\",\"type\":\"object\",\"properties\":{\"b\":{\"type\":\"integer\",\"x-custom\":"
        "true}},\"additionalProperties\":false}}]}";
    cr_assert_eq(run_cli("encode --format gemini-request", req, out, sizeof out, err, sizeof err),
                 0, "%s", err);
    cr_expect_str_eq(err, "");
    cr_expect(strstr(out, "{\"name\":\"plain\",\"parameters\":{\"type\":\"object\"") != NULL, "%s",
              out);
    cr_expect(strstr(out, "{\"name\":\"strict\",\"parametersJsonSchema\":{\"$schema\":") != NULL,
              "%s", out);
    cr_assert_eq(run_cli("convert --from gemini-request --to neutral", out, back, sizeof back, err,
                         sizeof err),
                 0, "%s", err);
    cr_expect_str_eq(err, "");
    cr_assert_eq(
        run_cli("convert --from neutral --to neutral", req, want, sizeof want, err, sizeof err), 0,
        "%s", err);
    cr_expect_str_eq(back, want);
}

/* Input of the wrong shape is refused with where and what was expected,
 * never encoded as an empty message. */
Test(cli, wrong_shape_refused)
{
    static char out[65536], err[8192];
    cr_expect_eq(
        run_cli("encode --format openai-response", "{\"foo\":1}", out, sizeof out, err, sizeof err),
        1);
    cr_expect_str_eq(out, "");
    cr_expect(strstr(err, "-:1:2: unknown key 'foo' in a neutral result") != NULL, "%s", err);
    cr_expect(strstr(err, "content, thinking") != NULL, "the expected keys are listed: %s", err);
    /* a fixture-style wrapper around the input */
    const char *wrapped =
        "{\n  \"format\": \"openai-request\",\n  \"input\": {\"messages\": []}\n}";
    cr_expect_eq(
        run_cli("encode --format openai-request", wrapped, out, sizeof out, err, sizeof err), 1);
    cr_expect_str_eq(out, "");
    cr_expect(strstr(err, "-:2:3: unknown key 'format' in a neutral request") != NULL, "%s", err);
    static const char *const conv[] = {"convert --from neutral --to neutral",
                                       "convert --from neutral-request --to neutral",
                                       "convert --from neutral-result --to openai-response"};
    for (size_t i = 0; i < sizeof conv / sizeof *conv; i++) {
        cr_expect_eq(run_cli(conv[i], wrapped, out, sizeof out, err, sizeof err), 1, "%s", conv[i]);
        cr_expect_str_eq(out, "", "%s", conv[i]);
        cr_expect(strstr(err, "-:2:3: unknown key 'format'") != NULL, "%s: %s", conv[i], err);
    }
    /* a key of the other kind is named as such */
    cr_expect_eq(run_cli("encode --format openai-response", "{\"messages\":[]}", out, sizeof out,
                         err, sizeof err),
                 1);
    cr_expect(strstr(err, "it is a key of a neutral request") != NULL, "%s", err);
    /* not an object */
    cr_expect_eq(
        run_cli("encode --format anthropic-response", "[1]", out, sizeof out, err, sizeof err), 1);
    cr_expect(strstr(err, "expected a neutral result, a JSON object, got an array") != NULL, "%s",
              err);
    /* a good result still encodes */
    cr_expect_eq(run_cli("encode --format openai-response",
                         "{\"content\":\"hi\",\"finish_reason\":\"stop\"}", out, sizeof out, err,
                         sizeof err),
                 0, "%s", err);
    cr_expect(strstr(out, "\"content\":\"hi\"") != NULL);
}
Test(round_trip, openai_responses)
{
    result_round_trip("openai-responses", true);
}
Test(round_trip, openai_responses_stream)
{
    result_round_trip("openai-responses-stream", true);
}
Test(round_trip, gemini_response)
{
    result_round_trip("gemini", true);
}
Test(round_trip, gemini_stream)
{
    result_round_trip("gemini-stream", true);
}
/* Gemini 3's streamed arguments: every call as partialArgs pieces */
Test(round_trip, gemini_stream_partial_args)
{
    result_round_trip_with("gemini-stream", true, true);
}

/* A decoder source whose decode reported errors (a stream cut before its
 * end, a body that is not JSON) fails with exit 1, whatever the target;
 * the output holds what was decoded. The same input whole exits 0. */
Test(cli, convert_fails_on_a_decode_with_errors)
{
    static char out[65536], err[8192];
    static const char whole[] =
        "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
        "\"delta\":{\"role\":\"assistant\",\"content\":\"hi\"},\"finish_reason\":null}]}\n\n"
        "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
        "\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
        "data: [DONE]\n\n";
    cr_expect_eq(run_cli("convert --from openai-stream --to anthropic-response", whole, out,
                         sizeof out, err, sizeof err),
                 0, "%s", err);
    cr_expect_str_eq(err, "");
    /* cut before [DONE]: stream_truncated */
    char cut[sizeof whole];
    memcpy(cut, whole, sizeof whole);
    *strstr(cut, "data: [DONE]") = '\0';
    static const char *const targets[] = {"anthropic-response", "openai-stream", "neutral"};
    for (size_t i = 0; i < sizeof targets / sizeof *targets; i++) {
        char args[128];
        snprintf(args, sizeof args, "convert --from openai-stream --to %s", targets[i]);
        cr_expect_eq(run_cli(args, cut, out, sizeof out, err, sizeof err), 1, "%s: %s", args, err);
        cr_expect(strstr(out, "hi") != NULL, "%s: the output holds what was decoded: %s", args,
                  out);
        cr_expect(strstr(err, "the openai-stream decoder reported 1 error(s)") != NULL, "%s: %s",
                  args, err);
        /* a wire target reports the decode error where it is: the end of the input */
        if (strcmp(targets[i], "neutral") != 0)
            cr_expect(strstr(err, "stream_truncated: -:5:1 (byte ") != NULL, "%s: %s", args, err);
    }
    cr_expect(strstr(out, "stream_truncated") != NULL, "the neutral output names it: %s", out);
    /* a response body that is not JSON */
    cr_expect_eq(run_cli("convert --from openai-response --to anthropic-response", "{\"id\":", out,
                         sizeof out, err, sizeof err),
                 1, "%s", err);
    cr_expect(strstr(err, "response_json") != NULL, "%s", err);
    /* a neutral result that holds errors is data, not a failed decode */
    cr_expect_eq(
        run_cli("convert --from neutral-result --to neutral",
                "{\"content\":\"x\",\"errors\":[{\"code\":\"stream_truncated\",\"offset\":0,"
                "\"message\":\"m\"}]}",
                out, sizeof out, err, sizeof err),
        0, "%s", err);
}

/* --tools types the parameters of a text decoder source, as for parse:
 * without it every Qwen3-Coder value is a string (xml_untyped). */
Test(cli, convert_tools_types_a_decoder_source)
{
    static char out[65536], err[8192];
    char tools_path[] = "/tmp/tw_convert_tools_XXXXXX";
    int fd = mkstemp(tools_path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "wb");
    cr_assert_not_null(f);
    fputs(
        "[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"parameters\":{\"type\":"
        "\"object\",\"properties\":{\"city\":{\"type\":\"string\"},\"days\":{\"type\":\"integer\"},"
        "\"metric\":{\"type\":\"boolean\"}}}}}]",
        f);
    fclose(f);
    static const char text[] = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n"
                               "</parameter>\n<parameter=days>\n3\n</parameter>\n<parameter=metric>"
                               "\nTrue\n</parameter>\n</function>\n</tool_call>";
    cr_expect_eq(
        run_cli("convert --from qwen3-coder --to neutral", text, out, sizeof out, err, sizeof err),
        0, "%s", err);
    cr_expect(strstr(out, "\"days\":\"3\"") != NULL, "%s", out);
    cr_expect(strstr(out, "xml_untyped") != NULL, "%s", out);
    char args[256];
    snprintf(args, sizeof args, "convert --from qwen3-coder --to openai-response --tools %s",
             tools_path);
    cr_expect_eq(run_cli(args, text, out, sizeof out, err, sizeof err), 0, "%s", err);
    cr_expect(strstr(out, "{\\\"city\\\":\\\"Paris\\\",\\\"days\\\":3,\\\"metric\\\":true}") !=
                  NULL,
              "%s", out);
    cr_expect_str_eq(err, "", "typed: nothing to report");
    /* a call to an undeclared tool is refused, as parse refuses it: exit 1 */
    static const char other[] = "<tool_call>\n<function=other>\n<parameter=a>\nx\n</parameter>\n"
                                "</function>\n</tool_call>";
    cr_expect_eq(run_cli(args, other, out, sizeof out, err, sizeof err), 1, "%s", err);
    cr_expect(strstr(err, "unknown_tool") != NULL, "%s", err);
    /* unless --allow-unknown-tool says to keep it, as for parse */
    char allow[300];
    snprintf(allow, sizeof allow, "%s --allow-unknown-tool", args);
    cr_expect_eq(run_cli(allow, other, out, sizeof out, err, sizeof err), 0, "%s", err);
    cr_expect(strstr(out, "\"name\":\"other\"") != NULL, "%s", out);
    /* a value failing the schema: refused, or kept with a warning under --schema-warn */
    static const char bad[] = "<tool_call>\n<function=get_weather>\n<parameter=days>\nmany\n"
                              "</parameter>\n</function>\n</tool_call>";
    cr_expect_eq(run_cli(args, bad, out, sizeof out, err, sizeof err), 1, "%s", err);
    snprintf(allow, sizeof allow, "%s --schema-warn", args);
    cr_expect_eq(run_cli(allow, bad, out, sizeof out, err, sizeof err), 0, "%s", err);
    cr_expect(strstr(out, "get_weather") != NULL, "%s", out);
    cr_expect(strstr(err, "decode warning") != NULL, "%s", err);
    /* the think options reach the decoder: the output starts inside a think block */
    cr_expect_eq(run_cli("convert --from hermes --to neutral --forced-open", "r</think>hi", out,
                         sizeof out, err, sizeof err),
                 0, "%s", err);
    cr_expect(strstr(out, "\"thinking\":\"r\"") != NULL, "%s", out);
    cr_expect_eq(run_cli("convert --from openai-request --to neutral --forced-open",
                         "{\"messages\":[]}", out, sizeof out, err, sizeof err),
                 2);
    cr_expect(strstr(err, "--forced-open applies to a decoder source") != NULL, "%s", err);
    /* the same option text as parse; a request source takes its tools from the request */
    cr_expect_eq(run_cli("convert --help", NULL, out, sizeof out, err, sizeof err), 0);
    cr_expect(strstr(out, "--tools FILE") != NULL);
    snprintf(args, sizeof args, "convert --from openai-request --to neutral --tools %s",
             tools_path);
    cr_expect_eq(run_cli(args, "{\"messages\":[]}", out, sizeof out, err, sizeof err), 2);
    cr_expect(strstr(err, "--tools applies to a decoder source") != NULL, "%s", err);
    cr_expect_eq(run_cli("convert --from qwen3-coder --to neutral --tools /nonexistent/tools.json",
                         text, out, sizeof out, err, sizeof err),
                 2);
    remove(tools_path);
}
