/* Numbers pass through exactly: a table of number forms through every
 * decoder (batch and streamed), every encoder, convert, and the
 * Python-style writer of the prompt encoders with its number_inexact
 * warnings. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "toolwire/decode.h"
#include "toolwire/encode.h"
#include "toolwire/json.h"
#include "toolwire/request.h"
#include "toolwire/transcode.h"
#include "twtest.h"

/* A number as spelled in JSON text, as Python's json.dumps(json.loads())
 * prints it, and whether that print changes the value. */
typedef struct form {
    const char *spelled;
    const char *py;
    bool inexact;
} form;

#define BIG300 "123456789012345678901234567890123456789012345678901234567890"
#define BIG300X5 BIG300 BIG300 BIG300 BIG300 BIG300

static const form FORMS[] = {
    {"9007199254740992", "9007199254740992", false},
    {"9007199254740993", "9007199254740993", false},
    {"-9007199254740993", "-9007199254740993", false},
    {"18446744073709551615", "18446744073709551615", false},
    {"18446744073709551616", "18446744073709551616", false},
    {"12345678901234567890", "12345678901234567890", false},
    {"0", "0", false},
    {"-0", "0", false},
    {"-0.0", "-0.0", false},
    {"0.0", "0.0", false},
    {"1E5", "100000.0", false},
    {"1e-5", "1e-05", false},
    {"1e+5", "100000.0", false},
    {"1.5e3", "1500.0", false},
    {"100.0", "100.0", false},
    {"1.0", "1.0", false},
    {"2.50", "2.5", false},
    {"0.1", "0.1", false},
    {"5e-324", "5e-324", false},
    {"1.7976931348623157e308", "1.7976931348623157e+308", false},
    {"1e400", "Infinity", true},
    {"-1e400", "-Infinity", true},
    {"1e-400", "0.0", true},
    {"1E-400", "0.0", true},
    {"0.10000000000000000001", "0.1", true},
    {BIG300X5, BIG300X5, false},
    {"-" BIG300X5, "-" BIG300X5, false},
};
#define NFORMS (sizeof FORMS / sizeof FORMS[0])

/* {"n0":F0,"n1":F1,…} compactly (exactly what tw_json_write prints), or with
 * Python's separators and spellings. */
static char *args_json_sep(bool python, bool spaced, bool finite_only);

static char *args_json(bool python, bool finite_only)
{
    return args_json_sep(python, python, finite_only);
}

static char *args_json_sep(bool python, bool spaced, bool finite_only)
{
    tw_buf b = {0};
    tw_buf_putc(&b, '{');
    bool first = true;
    for (size_t i = 0; i < NFORMS; i++) {
        if (finite_only && strcmp(FORMS[i].py + (FORMS[i].py[0] == '-'), "Infinity") == 0)
            continue;
        tw_buf_printf(&b, "%s\"n%zu\"%s", first ? "" : (spaced ? ", " : ","), i,
                      spaced ? ": " : ":");
        tw_buf_puts(&b, python ? FORMS[i].py : FORMS[i].spelled);
        first = false;
    }
    tw_buf_putc(&b, '}');
    return tw_buf_take(&b, NULL);
}

static size_t n_inexact(void)
{
    size_t n = 0;
    for (size_t i = 0; i < NFORMS; i++)
        n += FORMS[i].inexact;
    return n;
}

static char *json_string(const char *s)
{
    tw_buf b = {0};
    cr_assert_eq(tw_json_write_str(&b, s, strlen(s), 0), TW_OK);
    return tw_buf_take(&b, NULL);
}

static char *compact(const cJSON *v)
{
    tw_buf b = {0};
    cr_assert_eq(tw_json_write(&b, v, TW_JSON_COMPACT), TW_OK);
    return tw_buf_take(&b, NULL);
}

/* ---- the table itself ---- */

Test(numbers, parse_write_keeps_every_spelling)
{
    for (size_t i = 0; i < NFORMS; i++) {
        const char *s = FORMS[i].spelled;
        cr_assert(tw_json_number_valid(s, strlen(s)), "%s", s);
        cJSON *v = NULL;
        cr_assert_eq(tw_json_parse(s, strlen(s), 8, &v, NULL), TW_OK, "%s", s);
        cr_assert_str_eq(tw_json_spelling(v), s);
        char *w = compact(v);
        cr_assert_str_eq(w, s);
        cr_assert_eq(tw_json_size(v, 1u << 20), strlen(s), "%s", s);
        cJSON *d = cJSON_Duplicate(v, 1);
        char *w2 = compact(d);
        cr_assert_str_eq(w2, s, "a duplicate keeps the spelling");
        cr_assert(tw_json_equal(v, d));
        free(w);
        free(w2);
        cJSON_Delete(d);
        cJSON_Delete(v);
    }
    char *a = args_json(false, false);
    cJSON *v = NULL;
    cr_assert_eq(tw_json_parse(a, strlen(a), 8, &v, NULL), TW_OK);
    char *w = compact(v);
    cr_assert_str_eq(w, a);
    free(w);
    cJSON_Delete(v);
    free(a);
}

Test(numbers, rfc8259_spellings_only)
{
    static const char *const bad[] = {"01", "-01", "1.", "1.e5", ".5",      "+1",
                                      "1e", "1e+", "-",  "0x10", "1.5e3.0", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_not(tw_json_number_valid(bad[i], strlen(bad[i])), "%s", bad[i]);
    /* cJSON reads "01" as 1; the writer then prints the value, not the spelling */
    cJSON *v = NULL;
    if (tw_json_parse("[01]", 4, 8, &v, NULL) == TW_OK) {
        char *w = compact(v);
        cr_assert_str_eq(w, "[1]");
        free(w);
        cJSON_Delete(v);
    }
}

Test(numbers, exact_decimal_comparison)
{
    static const char *const same[][2] = {{"1.5e3", "1500"},
                                          {"1500.0", "1.5E+3"},
                                          {"100", "100.000"},
                                          {"-0", "0.0"},
                                          {"0", "0e99"},
                                          {"0.001", "1e-3"},
                                          {"12345678901234567890", "1.234567890123456789e19"},
                                          {"1e400", "10e399"}};
    static const char *const differ[][2] = {{"9007199254740993", "9007199254740992"},
                                            {"1e400", "1e401"},
                                            {"1e-400", "0"},
                                            {"0.1", "0.10000000000000000001"},
                                            {"-1", "1"},
                                            {"12", "1.2"},
                                            {BIG300X5, BIG300X5 "0"}};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
        cr_assert(
            tw_json_same_number(same[i][0], strlen(same[i][0]), same[i][1], strlen(same[i][1])),
            "%s == %s", same[i][0], same[i][1]);
    for (size_t i = 0; i < sizeof differ / sizeof differ[0]; i++)
        cr_assert_not(tw_json_same_number(differ[i][0], strlen(differ[i][0]), differ[i][1],
                                          strlen(differ[i][1])),
                      "%s != %s", differ[i][0], differ[i][1]);
    /* exponents too long to read exactly never compare equal by accident */
    cr_assert_not(tw_json_same_number("1e9999999999999999999", 21, "1e9999999999999999998", 21));
    cr_assert(tw_json_same_number("1e9999999999999999999", 21, "1e9999999999999999999", 21));
    cr_assert(tw_json_same_number("0e9999999999999999999", 21, "-0", 2));
    cr_assert(tw_json_number_is_integer("1.5e3", 5));
    cr_assert(tw_json_number_is_integer("1e400", 5));
    cr_assert_not(tw_json_number_is_integer("1.5", 3));
    cr_assert_not(tw_json_number_is_integer("1.0000000000000000001", 21));
    /* tw_json_equal by exact value: equal doubles, different numbers */
    cJSON *a = NULL, *b = NULL;
    cr_assert_eq(tw_json_parse("{\"id\":9007199254740993}", 23, 8, &a, NULL), TW_OK);
    cr_assert_eq(tw_json_parse("{\"id\":9007199254740992}", 23, 8, &b, NULL), TW_OK);
    cr_assert_not(tw_json_equal(a, b));
    cJSON_Delete(b);
    cr_assert_eq(tw_json_parse("{\"id\":9.007199254740993e15}", 27, 8, &b, NULL), TW_OK);
    cr_assert(tw_json_equal(a, b));
    cJSON_Delete(a);
    cJSON_Delete(b);
    /* a number made in code compares by its double's shortest spelling */
    a = cJSON_CreateNumber(0.1);
    cr_assert_eq(tw_json_parse("0.1", 3, 8, &b, NULL), TW_OK);
    cr_assert(tw_json_equal(a, b));
    cJSON_Delete(a);
    cJSON_Delete(b);
}

/* Spelling retention is one pass over the text: a large array of numbers
 * is parsed and kept well within the test's time. */
Test(numbers, spellings_linear)
{
    size_t n = 400000;
    tw_buf b = {0};
    b.max = 64u << 20;
    tw_buf_putc(&b, '[');
    for (size_t i = 0; i < n; i++)
        tw_buf_printf(&b, "%s%zu.50", i ? "," : "", i);
    tw_buf_putc(&b, ']');
    cJSON *v = NULL;
    cr_assert_eq(tw_json_parse(b.data, b.len, 8, &v, NULL), TW_OK);
    cr_assert_str_eq(tw_json_spelling(cJSON_GetArrayItem(v, 0)), "0.50");
    char *w = compact(v);
    cr_assert_str_eq(w, b.data);
    free(w);
    cJSON_Delete(v);
    tw_buf_free(&b);
}

/* ---- decoders ---- */

static void check_result_args(const tw_result *r, const char *want, const char *what)
{
    cr_assert_eq(r->msg.ncalls, 1, "%s: %zu calls (errors %zu)", what, r->msg.ncalls,
                 r->errors.len);
    char *got = compact(r->msg.calls[0].arguments);
    cr_assert_str_eq(got, want, "%s", what);
    free(got);
}

static void decode_all_ways(const char *fmt, const char *input, const char *want)
{
    const tw_format_ops *f = tw_format_find(fmt);
    cr_assert_not_null(f, "%s", fmt);
    static const size_t chunks[] = {0, 1, 3, 7, 64};
    for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
        tw_decode_opts o = {0};
        o.allow_unknown_tool = true;
        size_t n = strlen(input);
        char *copy = tw_test_exact(input, n);
        tw_result r;
        tw_status st = chunks[k] ? tw_decode_chunked(f, copy, n, chunks[k], &o, &r)
                                 : f->decode(copy, n, &o, &r);
        free(copy);
        cr_assert_eq(st, TW_OK, "%s chunk %zu", fmt, chunks[k]);
        char what[64];
        snprintf(what, sizeof what, "%s chunk %zu", fmt, chunks[k]);
        check_result_args(&r, want, what);
        tw_result_free(&r);
    }
}

Test(numbers, every_decoder_batch_and_streamed)
{
    char *a = args_json(false, false);
    char *as = json_string(a);
    tw_buf in = {0};

    tw_buf_printf(&in, "%s", "<tool_call>\n{\"name\": \"f\", \"arguments\": ");
    tw_buf_puts(&in, a);
    tw_buf_puts(&in, "}\n</tool_call>");
    decode_all_ways("hermes", in.data, a);
    decode_all_ways("proxy", in.data, a);
    tw_buf_reset(&in);

    tw_buf_puts(&in, "```tool_call\n{\"name\": \"f\", \"arguments\": ");
    tw_buf_puts(&in, a);
    tw_buf_puts(&in, "}\n```");
    decode_all_ways("fenced", in.data, a);
    tw_buf_reset(&in);

    tw_buf_puts(
        &in, "{\"id\":\"x\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":"
             "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\",\"type\":"
             "\"function\",\"function\":{\"name\":\"f\",\"arguments\":");
    tw_buf_puts(&in, as);
    tw_buf_puts(&in, "}}]},\"finish_reason\":\"tool_calls\"}]}");
    decode_all_ways("openai-response", in.data, a);
    tw_buf_reset(&in);

    /* the arguments streamed in 5-byte fragments, numbers cut anywhere */
    tw_buf_puts(
        &in, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
             "\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"c1\","
             "\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"\"}}]},"
             "\"finish_reason\":null}]}\n\n");
    for (size_t i = 0, n = strlen(a); i < n; i += 5) {
        char frag[6] = {0};
        memcpy(frag, a + i, n - i < 5 ? n - i : 5);
        char *fs = json_string(frag);
        tw_buf_printf(
            &in,
            "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
            "\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":%s}}]},"
            "\"finish_reason\":null}]}\n\n",
            fs);
        free(fs);
    }
    tw_buf_puts(
        &in, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
             "\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n");
    decode_all_ways("openai-stream", in.data, a);
    tw_buf_reset(&in);

    tw_buf_puts(&in,
                "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\","
                "\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"f\",\"input\":");
    tw_buf_puts(&in, a);
    tw_buf_puts(&in, "}],\"stop_reason\":\"tool_use\"}");
    decode_all_ways("anthropic-response", in.data, a);
    tw_buf_reset(&in);

    tw_buf_puts(
        &in,
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\","
        "\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],"
        "\"stop_reason\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n"
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
        "\"content_block\":{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"f\",\"input\":{}}}\n\n");
    for (size_t i = 0, n = strlen(a); i < n; i += 4) {
        char frag[5] = {0};
        memcpy(frag, a + i, n - i < 4 ? n - i : 4);
        char *fs = json_string(frag);
        tw_buf_printf(
            &in,
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
            "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":%s}}\n\n",
            fs);
        free(fs);
    }
    tw_buf_puts(
        &in, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
             "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
             "\"tool_use\"},\"usage\":{\"output_tokens\":1}}\n\n"
             "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    decode_all_ways("anthropic-stream", in.data, a);
    tw_buf_reset(&in);

    tw_buf_puts(&in, "{\"thinking\":\"\",\"response\":\"\",\"pre_tool_text\":\"\",\"tool_calls\":"
                     "[{\"id\":\"a\",\"name\":\"f\",\"arguments\":");
    tw_buf_puts(&in, as);
    tw_buf_puts(&in, "}]}");
    decode_all_ways("vllm-generate", in.data, a);

    tw_buf_free(&in);
    free(as);
    free(a);
}

/* ---- result encoders, then the matching decoder ---- */

static void read_result(const char *js, tw_result *r)
{
    cJSON *j = NULL;
    cr_assert_eq(tw_json_parse(js, strlen(js), 64, &j, NULL), TW_OK);
    tw_error why_e = {0};
    cr_assert_eq(tw_result_read(j, NULL, r, &why_e), TW_OK, "%s", why_e.message);
    cJSON_Delete(j);
}

Test(numbers, every_result_encoder_round_trips)
{
    char *a = args_json(false, false);
    tw_buf js = {0};
    tw_buf_printf(&js, "%s",
                  "{\"content\":\"\",\"tool_calls\":[{\"id\":\"c1\",\"name\":\"f\",\"arguments\":");
    tw_buf_puts(&js, a);
    tw_buf_puts(&js, "}],\"finish_reason\":\"tool_calls\"}");
    tw_result res;
    read_result(js.data, &res);
    /* neutral JSON out */
    tw_buf nb = {0};
    cr_assert_eq(tw_result_write(&nb, &res, TW_JSON_COMPACT), TW_OK);
    cr_assert_not_null(strstr(nb.data, a), "neutral: %s", nb.data);
    tw_buf_free(&nb);
    static const char *const pairs[][2] = {{"openai-response", "openai-response"},
                                           {"openai-stream", "openai-stream"},
                                           {"anthropic-response", "anthropic-response"},
                                           {"anthropic-stream", "anthropic-stream"},
                                           {"vllm-generate-response", "vllm-generate"},
                                           {"gemini", "gemini"},
                                           {"gemini-stream", "gemini-stream"},
                                           {"openai-responses", "openai-responses"},
                                           {"openai-responses-stream", "openai-responses-stream"}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        const tw_encoder_ops *e = tw_encoder_find(pairs[i][0]);
        cr_assert_not_null(e);
        tw_diag_list w = {0};
        tw_encode_opts o = {0};
        o.args_fragment = 3;
        o.warnings = &w;
        tw_buf out = {0};
        cr_assert_eq(e->encode_result(&res, &o, &out), TW_OK, "%s", pairs[i][0]);
        for (size_t k = 0; k < w.len; k++)
            cr_assert_neq(w.items[k].code, TW_D_NUMBER_INEXACT, "%s: %s", pairs[i][0],
                          w.items[k].message);
        decode_all_ways(pairs[i][1], out.data, a);
        tw_buf_free(&out);
        tw_diag_list_free(&w);
    }
    tw_result_free(&res);
    tw_buf_free(&js);
    free(a);
}

/* ---- request encoders ---- */

#define PARAMS                                                                                     \
    "{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"number\",\"minimum\":-1e400,"          \
    "\"maximum\":1.5e3,\"multipleOf\":0.10,\"default\":9007199254740993}}}"
#define PARAMS_PY                                                                                  \
    "{\"type\": \"object\", \"properties\": {\"x\": {\"type\": \"number\", \"minimum\": "          \
    "-Infinity, \"maximum\": 1500.0, \"multipleOf\": 0.1, \"default\": 9007199254740993}}}"

static char *request_json_p(const char *args, const char *params)
{
    tw_buf b = {0};
    tw_buf_puts(&b,
                "{\"messages\":[{\"role\":\"user\",\"content\":\"go\"},{\"role\":\"assistant\","
                "\"content\":\"\",\"tool_calls\":[{\"id\":\"c1\",\"name\":\"f\",\"arguments\":");
    tw_buf_puts(&b, args);
    tw_buf_puts(&b, "}]},{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"ok\"}],"
                    "\"tools\":[{\"name\":\"f\",\"parameters\":");
    tw_buf_puts(&b, params);
    tw_buf_puts(&b, "}]}");
    return tw_buf_take(&b, NULL);
}

static char *request_json(const char *args)
{
    return request_json_p(args, PARAMS);
}

static void read_request(const char *js, tw_request *r)
{
    cJSON *j = NULL;
    cr_assert_eq(tw_json_parse(js, strlen(js), 64, &j, NULL), TW_OK);
    tw_error why_e = {0};
    cr_assert_eq(tw_request_read(j, NULL, r, &why_e), TW_OK, "%s", why_e.message);
    cJSON_Delete(j);
}

static size_t count_code(const tw_diag_list *w, tw_status code)
{
    size_t n = 0;
    for (size_t i = 0; i < w->len; i++)
        n += w->items[i].code == code;
    return n;
}

static bool warned_about(const tw_diag_list *w, const char *spelled)
{
    char needle[64];
    snprintf(needle, sizeof needle, "number %s ", spelled);
    for (size_t i = 0; i < w->len; i++)
        if (w->items[i].code == TW_D_NUMBER_INEXACT && strstr(w->items[i].message, needle))
            return true;
    return false;
}

static char *encode_request(const char *enc, const tw_request *r, tw_diag_list *w)
{
    const tw_encoder_ops *e = tw_encoder_find(enc);
    cr_assert_not_null(e);
    tw_encode_opts o = {0};
    o.warnings = w;
    tw_buf out = {0};
    cr_assert_eq(e->encode_request(r, &o, &out), TW_OK, "%s", enc);
    return tw_buf_take(&out, NULL);
}

static void check_request_args(const tw_request *r, const char *want, const char *what)
{
    const tw_message *m = NULL;
    for (size_t i = 0; i < r->nmessages && !m; i++)
        if (r->messages[i].ncalls)
            m = &r->messages[i];
    cr_assert_not_null(m, "%s: no call", what);
    char *got = compact(m->calls[0].arguments);
    cr_assert_str_eq(got, want, "%s", what);
    free(got);
    cr_assert_eq(r->ntools, 1);
    got = compact(r->tools[0].parameters);
    cr_assert_str_eq(got, PARAMS, "%s parameters", what);
    free(got);
}

Test(numbers, json_request_encoders_round_trip)
{
    char *a = args_json(false, false);
    char *js = request_json(a);
    tw_request r;
    read_request(js, &r);
    /* neutral JSON out */
    tw_buf nb = {0};
    cr_assert_eq(tw_request_write(&nb, &r, TW_JSON_COMPACT), TW_OK);
    cr_assert_not_null(strstr(nb.data, a));
    cr_assert_not_null(strstr(nb.data, PARAMS));
    tw_buf_free(&nb);
    tw_diag_list w = {0};
    char *o = encode_request("openai-request", &r, &w);
    tw_request back;
    tw_error e;
    tw_diag_list w2 = {0};
    cr_assert_eq(tw_openai_request_decode(o, strlen(o), NULL, &back, &e), TW_OK, "%s", e.message);
    check_request_args(&back, a, "openai-request");
    tw_request_free(&back);
    free(o);
    o = encode_request("anthropic-request", &r, &w);
    cr_assert_eq(tw_anthropic_request_decode(o, strlen(o), NULL, &back, &e), TW_OK, "%s",
                 e.message);
    check_request_args(&back, a, "anthropic-request");
    tw_request_free(&back);
    free(o);
    o = encode_request("proxy-prompt", &r, &w);
    cr_assert_not_null(strstr(o, a), "proxy-prompt keeps the arguments");
    cr_assert_not_null(strstr(o, PARAMS), "proxy-prompt keeps the parameters");
    free(o);
    cr_assert_eq(count_code(&w, TW_D_NUMBER_INEXACT), 0, "JSON targets carry every number");
    tw_diag_list_free(&w);
    tw_diag_list_free(&w2);
    tw_request_free(&r);
    free(js);
    free(a);
}

Test(numbers, python_rendering_encoders_warn_by_name)
{
    char *a = args_json(false, false);
    char *py = args_json(true, false);
    char *js = request_json(a);
    tw_request r;
    read_request(js, &r);

    tw_diag_list w = {0};
    char *o = encode_request("hermes-prompt", &r, &w);
    cr_assert_not_null(strstr(o, py), "hermes-prompt renders Python's spellings:\n%s", o);
    cr_assert_not_null(strstr(o, PARAMS_PY));
    /* one warning per inexact argument, one for the parameters' -1e400 */
    cr_assert_eq(count_code(&w, TW_D_NUMBER_INEXACT), n_inexact() + 1);
    for (size_t i = 0; i < NFORMS; i++)
        cr_assert_eq(warned_about(&w, FORMS[i].spelled), FORMS[i].inexact, "%s", FORMS[i].spelled);
    cr_assert(warned_about(&w, "-1e400"));
    free(o);
    tw_diag_list_free(&w);

    o = encode_request("hermes-system", &r, &w);
    cr_assert_not_null(strstr(o, PARAMS_PY));
    cr_assert_eq(count_code(&w, TW_D_NUMBER_INEXACT), 1);
    free(o);
    tw_diag_list_free(&w);

    o = encode_request("vllm-generate-request", &r, &w);
    char *pys = json_string(py);
    /* the prompt history text carries the Python rendering, JSON-escaped */
    pys[strlen(pys) - 1] = '\0';
    cr_assert_not_null(strstr(o, pys + 1), "vllm-generate-request: %s", o);
    cr_assert_not_null(strstr(o, PARAMS), "tools stay JSON");
    cr_assert_eq(count_code(&w, TW_D_NUMBER_INEXACT), n_inexact());
    free(pys);
    free(o);
    tw_diag_list_free(&w);

    tw_request_free(&r);
    free(js);
    free(py);
    free(a);
}

Test(numbers, python_int_digit_limit_warns)
{
    tw_buf b = {0};
    b.max = 1u << 20;
    tw_buf_putc(&b, '[');
    for (int i = 0; i < 4301; i++)
        tw_buf_putc(&b, (char)('1' + i % 9));
    tw_buf_puts(&b, ",1]");
    cJSON *v = NULL;
    cr_assert_eq(tw_json_parse(b.data, b.len, 8, &v, NULL), TW_OK);
    tw_buf out = {0};
    tw_diag_list w = {0};
    cr_assert_eq(tw_json_write_py_warn(&out, v, 8, &w, "t"), TW_OK);
    cr_assert_eq(count_code(&w, TW_D_NUMBER_INEXACT), 1);
    cr_assert_not_null(strstr(w.items[0].message, "4300"));
    cr_assert_eq(out.len, b.len + 1, "written as spelled (plus Python's separator)");
    tw_buf_free(&out);
    tw_diag_list_free(&w);
    cJSON_Delete(v);
    tw_buf_free(&b);
}

/* ---- convert ---- */

static char *transcode(const char *from, const char *to, const char *in, tw_diag_list *w)
{
    tw_encode_opts o = {0};
    o.warnings = w;
    tw_buf out = {0};
    tw_error why_e = {0};
    cr_assert_eq(tw_transcode(from, to, in, strlen(in), &o, &out, &why_e), TW_OK, "%s -> %s: %s",
                 from, to, why_e.message);
    return tw_buf_take(&out, NULL);
}

Test(numbers, convert_paths)
{
    char *a = args_json(false, false);
    char *py = args_json(true, false);
    char *js = request_json(a);
    tw_diag_list w = {0};
    /* neutral -> openai-request -> every request target */
    char *oreq = transcode("neutral-request", "openai-request", js, &w);
    static const char *const json_targets[] = {"anthropic-request", "openai-request",
                                               "proxy-prompt", "neutral-request"};
    char *as = json_string(a); /* OpenAI carries arguments as a JSON string */
    for (size_t i = 0; i < sizeof json_targets / sizeof json_targets[0]; i++) {
        char *o = transcode("openai-request", json_targets[i], oreq, &w);
        cr_assert_not_null(strstr(o, i == 1 ? as : a), "openai-request -> %s", json_targets[i]);
        cr_assert_not_null(strstr(o, PARAMS), "openai-request -> %s", json_targets[i]);
        free(o);
    }
    free(as);
    cr_assert_eq(count_code(&w, TW_D_NUMBER_INEXACT), 0);
    char *o = transcode("openai-request", "hermes-prompt", oreq, &w);
    cr_assert_not_null(strstr(o, py), "openai-request -> hermes-prompt");
    cr_assert_eq(count_code(&w, TW_D_NUMBER_INEXACT), n_inexact() + 1);
    free(o);
    tw_diag_list_free(&w);
    /* hermes model text -> every result target and back to neutral */
    tw_buf ht = {0};
    tw_buf_puts(&ht, "<tool_call>\n{\"name\": \"f\", \"arguments\": ");
    tw_buf_puts(&ht, a);
    tw_buf_puts(&ht, "}\n</tool_call>");
    static const char *const result_targets[] = {
        "neutral-result", "openai-response",  "anthropic-response",
        "openai-stream",  "anthropic-stream", "gemini",
        "gemini-stream",  "openai-responses", "openai-responses-stream"};
    static const char *const *const result_back = result_targets;
    for (size_t i = 0; i < sizeof result_targets / sizeof result_targets[0]; i++) {
        o = transcode("hermes", result_targets[i], ht.data, &w);
        char *n = transcode(result_back[i], "neutral-result", o, &w);
        cr_assert_not_null(strstr(n, a), "hermes -> %s -> neutral: %s", result_targets[i], n);
        free(n);
        free(o);
    }
    cr_assert_eq(count_code(&w, TW_D_NUMBER_INEXACT), 0);
    tw_diag_list_free(&w);
    /* a Qwen3 prompt read back keeps the spellings Python printed */
    char *fin = args_json(false, true);
    char *finpy = args_json_sep(true, false, true);
    char *js2 = request_json_p(fin, "{\"type\":\"object\",\"default\":1.5e3}");
    char *prompt = transcode("neutral-request", "hermes-prompt", js2, &w);
    tw_diag_list_free(&w);
    o = transcode("hermes-prompt", "openai-request", prompt, &w);
    char *fs = json_string(finpy);
    cr_assert_not_null(strstr(o, fs), "hermes-prompt -> openai-request: %s", o);
    cr_assert_not_null(strstr(o, "{\"type\":\"object\",\"default\":1500.0}"), "%s", o);
    free(fs);
    free(o);
    tw_diag_list_free(&w);
    free(prompt);
    free(js2);
    free(finpy);
    free(fin);
    tw_buf_free(&ht);
    free(oreq);
    free(js);
    free(py);
    free(a);
}

/* ---- the command line, as a user runs it ---- */

Test(numbers, cli_parse_and_encode)
{
    static char out[1 << 16];
    cr_assert_eq(
        tw_test_run_bin("parse --format hermes",
                        "<tool_call>{\"name\":\"f\",\"arguments\":{\"id\":9007199254740993,"
                        "\"amount\":100.0,\"t\":0.1,\"x\":1e400}}</tool_call>",
                        out, sizeof out, true),
        0, "%s", out);
    cr_assert_not_null(
        strstr(out, "{\"id\":9007199254740993,\"amount\":100.0,\"t\":0.1,\"x\":1e400}"), "%s", out);
    cr_assert_eq(
        tw_test_run_bin(
            "encode --format hermes-prompt",
            "{\"messages\":[{\"role\":\"user\",\"content\":\"go\"},{\"role\":\"assistant\","
            "\"content\":\"\",\"tool_calls\":[{\"id\":\"a\",\"name\":\"f\",\"arguments\":"
            "{\"a\":1500.0,\"b\":100.0,\"c\":-0.0,\"d\":1.0,\"e\":12345678901234567890,"
            "\"g\":1e400}}]}]}",
            out, sizeof out, true),
        0, "%s", out);
    cr_assert_not_null(strstr(out, "{\"a\": 1500.0, \"b\": 100.0, \"c\": -0.0, \"d\": 1.0, "
                                   "\"e\": 12345678901234567890, \"g\": Infinity}"),
                       "%s", out);
    cr_assert_not_null(strstr(out,
                              "warning: number_inexact: hermes-prompt: call f arguments: number "
                              "1e400 becomes the Python float Infinity"),
                       "%s", out);
}
