/*
 * Gemini encoders ("gemini", "gemini-stream", "gemini-request",
 * docs/formats/gemini.md "Encoding"): encode then decode gives the same
 * neutral result over the decode fixtures and the real recordings; the
 * bytes of a body, a stream and a request; the id and finish-reason rules;
 * what is not carried; the output cap.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cassette.h"
#include "cli.h"
#include "decode_fixtures.h"
#include "decode_opts.h"
#include "decoding.h"
#include "files.h"
#include "toolwire/decode.h"
#include "toolwire/gemini.h"
#include "toolwire/gemini_encode.h"
#include "toolwire/request.h"
#include "toolwire/request_gemini.h"
#include "twtest.h"

/* ===================== helpers ===================== */

/* The neutral value without diagnostics and offsets, printed compactly. */
static char *value_json(const tw_result *r)
{
    tw_result v = *r;
    memset(&v.errors, 0, sizeof v.errors);
    memset(&v.warnings, 0, sizeof v.warnings);
    tw_buf b = {0};
    cr_assert_eq(tw_result_write(&b, &v, 0), TW_OK);
    return b.data;
}

/* Encode r with enc (no warning allowed), decode with dec: the same value. */
static void round_trip(const tw_result *r, const char *enc, const char *dec,
                       const tw_decode_opts *o, size_t text_fragment, const char *what)
{
    const tw_encoder_ops *e = tw_encoder_find(enc);
    const tw_format_ops *f = tw_format_find(dec);
    cr_assert_not_null(e);
    cr_assert_not_null(f);
    tw_diag_list warn = {0};
    tw_encode_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.warnings = &warn;
    eo.text_fragment = text_fragment;
    tw_buf wire = {0};
    cr_assert_eq(e->encode_result(r, &eo, &wire), TW_OK, "%s: encode %s", what, enc);
    cr_assert_eq(warn.len, 0, "%s: %s warns %s", what, enc, warn.len ? warn.items[0].message : "");
    tw_result r2;
    char *copy = tw_test_exact(wire.data, wire.len);
    cr_assert_eq(f->decode(copy, wire.len, o, &r2), TW_OK);
    cr_assert_eq(r2.errors.len, 0, "%s: %s output decodes with %s\n%s", what, enc,
                 r2.errors.len ? r2.errors.items[0].message : "", wire.data);
    cr_assert_eq(r2.warnings.len, r->warnings.len == 0 ? 0 : r2.warnings.len,
                 "%s: %s output warns: %s\n%s", what, enc,
                 r2.warnings.len ? r2.warnings.items[0].message : "", wire.data);
    char *a = value_json(r), *b = value_json(&r2);
    cr_assert_str_eq(b, a, "%s: %s round trip\n%s", what, enc, wire.data);
    free(a);
    free(b);
    free(copy);
    tw_result_free(&r2);
    tw_buf_free(&wire);
    tw_diag_list_free(&warn);
}

/* Decode wire through the push decoder fed in two pieces split at `at`. */
static void decode_split(const tw_format_ops *f, const char *wire, size_t len, size_t at,
                         const tw_decode_opts *o, tw_result *out)
{
    void *d = f->new_dec(o, NULL, NULL);
    cr_assert_not_null(d);
    cr_assert_eq(f->feed(d, wire, at), TW_OK);
    cr_assert_eq(f->feed(d, wire + at, len - at), TW_OK);
    cr_assert_eq(f->finish(d, out), TW_OK);
    f->free_dec(d);
}

/*
 * The gemini-stream encoder with partialArgs, strings split in pieces of
 * several sizes, decodes back to the same value; with split_all, also when
 * the stream is fed in two pieces split at every byte.
 */
static void partial_round_trip(const tw_result *r, const tw_decode_opts *o, bool split_all,
                               const char *what)
{
    const tw_format_ops *f = tw_format_find("gemini-stream");
    size_t frags[] = {0, 1, 2, 3, 7};
    char *want = value_json(r);
    for (size_t k = 0; k < sizeof frags / sizeof frags[0]; k++) {
        tw_diag_list warn = {0};
        tw_encode_opts eo;
        memset(&eo, 0, sizeof eo);
        eo.warnings = &warn;
        eo.partial_args = true;
        eo.args_fragment = frags[k];
        tw_buf wire = {0};
        cr_assert_eq(tw_gemini_stream_encode(r, &eo, &wire), TW_OK, "%s: encode", what);
        cr_assert_eq(warn.len, 0, "%s: warns %s", what, warn.len ? warn.items[0].message : "");
        char *copy = tw_test_exact(wire.data, wire.len);
        size_t last = split_all && k <= 1 ? wire.len : 0;
        for (size_t at = 0; at <= last; at++) {
            tw_result r2;
            if (at == 0)
                cr_assert_eq(f->decode(copy, wire.len, o, &r2), TW_OK);
            else
                decode_split(f, copy, wire.len, at, o, &r2);
            cr_assert_eq(r2.errors.len, 0, "%s: fragment %zu split %zu: %s\n%s", what, frags[k], at,
                         r2.errors.len ? r2.errors.items[0].message : "", wire.data);
            cr_assert_eq(r2.warnings.len, 0, "%s: fragment %zu split %zu warns: %s\n%s", what,
                         frags[k], at, r2.warnings.len ? r2.warnings.items[0].message : "",
                         wire.data);
            char *got = value_json(&r2);
            cr_assert_str_eq(got, want, "%s: fragment %zu split %zu\n%s", what, frags[k], at,
                             wire.data);
            free(got);
            tw_result_free(&r2);
        }
        free(copy);
        tw_buf_free(&wire);
        tw_diag_list_free(&warn);
    }
    free(want);
}

/* Every clean decode of a fixture directory goes through both encoders. */
static void fixtures_round_trip(const char *sub)
{
    char **files = NULL;
    long n = tw_list_files(tw_test_src(sub), ".json", &files);
    cr_assert_gt(n, 4, "fixtures under %s", sub);
    long clean = 0;
    for (long i = 0; i < n; i++) {
        tw_test_fixture t;
        tw_test_fixture_open(&t, files[i]);
        tw_result r;
        cr_assert_eq(t.f->decode(t.in, t.len, &t.h.o, &r), TW_OK);
        for (size_t k = 0; k < r.msg.ncalls; k++)
            r.msg.calls[k].offset = -1;
        if (r.errors.len == 0 && r.warnings.len == 0) {
            clean++;
            round_trip(&r, "gemini", "gemini", &t.h.o, 0, files[i]);
            round_trip(&r, "gemini-stream", "gemini-stream", &t.h.o, 0, files[i]);
            round_trip(&r, "gemini-stream", "gemini-stream", &t.h.o, 3, files[i]);
            partial_round_trip(&r, &t.h.o, false, files[i]);
        }
        tw_result_free(&r);
        tw_test_fixture_close(&t);
    }
    cr_assert_gt(clean, 3, "clean fixtures under %s", sub);
    tw_free_list(files, n);
}

static tw_result make_result(const char *content, const char *thinking, const char *sig,
                             const char *fr)
{
    tw_result r;
    tw_result_init(&r, NULL);
    if (content)
        cr_assert_eq(tw_buf_puts(&r.msg.content, content), TW_OK);
    if (thinking)
        cr_assert_eq(tw_buf_puts(&r.msg.thinking, thinking), TW_OK);
    r.msg.thinking_signature = sig ? strdup(sig) : NULL;
    r.finish_reason = fr ? strdup(fr) : NULL;
    return r;
}

static void add_call(tw_result *r, const char *id, const char *name, const char *args)
{
    cr_assert_lt(r->msg.ncalls, 4);
    if (!r->msg.calls) {
        r->msg.calls = calloc(4, sizeof *r->msg.calls);
        r->msg.cap_calls = 4;
    }
    tw_call *c = &r->msg.calls[r->msg.ncalls++];
    c->id = id ? strdup(id) : NULL;
    c->name = strdup(name);
    cr_assert_eq(tw_json_parse(args, strlen(args), 64, &c->arguments, NULL), TW_OK);
    c->offset = -1;
}

static char *encode(const char *enc, const tw_result *r, tw_diag_list *warn)
{
    tw_encode_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.warnings = warn;
    tw_buf out = {0};
    cr_assert_eq(tw_encoder_find(enc)->encode_result(r, &eo, &out), TW_OK);
    return out.data;
}

/* ===================== round trips ===================== */

Test(encode_gemini, fixtures_body_round_trip)
{
    fixtures_round_trip("tests/data/decode/gemini");
}
Test(encode_gemini, fixtures_stream_round_trip)
{
    fixtures_round_trip("tests/data/decode/gemini-stream");
}

static void cassette_round_trip(const char *name, const char *fmt)
{
    tw_cassette c;
    tw_test_load_cassette(name, &c);
    cr_assert_gt(c.ninteractions, 0);
    for (size_t i = 0; i < c.ninteractions; i++) {
        const tw_cassette_body *b = &c.interactions[i].response.body;
        tw_result r;
        cr_assert_eq(tw_format_find(fmt)->decode(b->data, b->len, NULL, &r), TW_OK);
        cr_assert_eq(r.errors.len, 0);
        for (size_t k = 0; k < r.msg.ncalls; k++)
            r.msg.calls[k].offset = -1;
        round_trip(&r, "gemini", "gemini", NULL, 0, name);
        round_trip(&r, "gemini-stream", "gemini-stream", NULL, 0, name);
        partial_round_trip(&r, NULL, false, name);
        tw_result_free(&r);
    }
    tw_cassette_free(&c);
}

Test(encode_gemini, real_nonstream_round_trip)
{
    cassette_round_trip("real-traffic/gemini__nonstream__function_call_then_result.yaml", "gemini");
}

Test(encode_gemini, real_stream_signature_round_trip)
{
    cassette_round_trip("real-traffic/gemini__stream__function_call_thought_signature.yaml",
                        "gemini-stream");
}

/* ===================== bytes ===================== */

Test(encode_gemini, body_bytes)
{
    tw_result r = make_result("Hi", "hmm", "c2ln", "tool_calls");
    add_call(&r, "call_1", "get", "{\"x\":1.50}");
    add_call(&r, "abc", "put", "{}");
    char *s = encode("gemini", &r, NULL);
    cr_assert_str_eq(
        s,
        "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":["
        "{\"text\":\"hmm\",\"thought\":true},{\"text\":\"Hi\"},"
        "{\"functionCall\":{\"name\":\"get\",\"args\":{\"x\":1.50}},\"thoughtSignature\":\"c2ln\"},"
        "{\"functionCall\":{\"name\":\"put\",\"args\":{},\"id\":\"abc\"}}]},"
        "\"finishReason\":\"STOP\",\"index\":0}],\"modelVersion\":\"toolwire\"}");
    free(s);
    tw_result_free(&r);
}

Test(encode_gemini, stream_bytes)
{
    tw_result r = make_result("Hello", NULL, "c2ln", "length");
    tw_encode_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.text_fragment = 3;
    tw_buf out = {0};
    cr_assert_eq(tw_gemini_stream_encode(&r, &eo, &out), TW_OK);
    const char *head = "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[";
    const char *tail = "\"index\":0}],\"modelVersion\":\"toolwire\"}\r\n\r\n";
    char want[1024];
    snprintf(want, sizeof want,
             "%s{\"text\":\"Hel\",\"thoughtSignature\":\"c2ln\"}]},%s"
             "%s{\"text\":\"lo\"}]},%s"
             "%s{\"text\":\"\"}]},\"finishReason\":\"MAX_TOKENS\",%s",
             head, tail, head, tail, head, tail);
    cr_assert_str_eq(out.data, want);
    tw_buf_free(&out);
    tw_result_free(&r);
}

Test(encode_gemini, signature_alone_has_a_part)
{
    tw_result r = make_result(NULL, NULL, "c2ln", "stop");
    char *s = encode("gemini", &r, NULL);
    cr_assert(strstr(s, "\"parts\":[{\"text\":\"\",\"thoughtSignature\":\"c2ln\"}]"), "%s", s);
    free(s);
    round_trip(&r, "gemini", "gemini", NULL, 0, "signature alone");
    round_trip(&r, "gemini-stream", "gemini-stream", NULL, 0, "signature alone");
    tw_result_free(&r);
}

/* ===================== rules ===================== */

Test(encode_gemini, finish_reason_out)
{
    cr_assert_str_eq(tw_gemini_finish_reason_out("stop"), "STOP");
    cr_assert_str_eq(tw_gemini_finish_reason_out("tool_calls"), "STOP");
    cr_assert_str_eq(tw_gemini_finish_reason_out("length"), "MAX_TOKENS");
    cr_assert_str_eq(tw_gemini_finish_reason_out("content_filter"), "SAFETY");
    cr_assert_str_eq(tw_gemini_finish_reason_out(NULL), "STOP");
    cr_assert_str_eq(tw_gemini_finish_reason_out("OTHER"), "OTHER");
}

static void expect_one_warning(tw_result *r, const char *enc, const char *needle)
{
    tw_diag_list w = {0};
    char *s = encode(enc, r, &w);
    cr_assert_eq(w.len, 1, "%s: %zu warnings", enc, w.len);
    cr_assert_eq(w.items[0].code, TW_D_NOT_CARRIED);
    cr_assert(strstr(w.items[0].message, needle), "%s", w.items[0].message);
    free(s);
    tw_diag_list_free(&w);
}

Test(encode_gemini, not_carried)
{
    tw_result r = make_result("x", NULL, NULL, "stop");
    add_call(&r, NULL, "f", "{}");
    expect_one_warning(&r, "gemini", "finish_reason");
    expect_one_warning(&r, "gemini-stream", "finish_reason");
    tw_result_free(&r);

    r = make_result("x", NULL, NULL, "tool_calls");
    expect_one_warning(&r, "gemini", "\"tool_calls\" reads back as \"stop\"");
    tw_result_free(&r);

    r = make_result("x", NULL, NULL, "STOP");
    expect_one_warning(&r, "gemini", "finish_reason");
    tw_result_free(&r);

    r = make_result("x", NULL, NULL, NULL);
    r.msg.has_redacted_thinking = true;
    expect_one_warning(&r, "gemini", "redacted_thinking");
    tw_result_free(&r);

    r = make_result(NULL, NULL, NULL, NULL);
    cr_assert_eq(tw_buf_append(&r.msg.content, "a\0b", 3), TW_OK);
    expect_one_warning(&r, "gemini-stream", "U+0000");
    tw_result_free(&r);
}

Test(encode_gemini, call_without_name_is_invalid)
{
    tw_result r = make_result(NULL, NULL, NULL, NULL);
    add_call(&r, NULL, "f", "{}");
    r.msg.calls[0].name[0] = '\0';
    tw_buf out = {0};
    cr_assert_eq(tw_gemini_response_encode(&r, NULL, &out), TW_ERR_INVALID);
    cr_assert_eq(tw_gemini_stream_encode(&r, NULL, &out), TW_ERR_INVALID);
    cr_assert_eq(out.len, 0);
    tw_buf_free(&out);
    tw_result_free(&r);
}

Test(encode_gemini, output_cap_restores)
{
    tw_result r = make_result("a long enough text for the cap", NULL, NULL, "stop");
    tw_encode_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.limits.max_output_bytes = 40;
    tw_buf out = {0};
    cr_assert_eq(tw_buf_puts(&out, "keep"), TW_OK);
    cr_assert_eq(tw_gemini_response_encode(&r, &eo, &out), TW_ERR_LIMIT);
    cr_assert_str_eq(out.data, "keep");
    cr_assert_eq(tw_gemini_stream_encode(&r, &eo, &out), TW_ERR_LIMIT);
    cr_assert_str_eq(out.data, "keep");
    tw_buf_free(&out);
    tw_result_free(&r);
}

/* ===================== requests ===================== */

static const char REQ[] =
    "{\"model\":\"m\",\"temperature\":0.50,\"max_tokens\":100,\"stop\":\"END\",\"tool_choice\":"
    "{\"type\":\"function\",\"function\":{\"name\":\"get\"}},\"tools\":[{\"type\":\"function\","
    "\"function\":{\"name\":\"get\",\"description\":\"d\",\"parameters\":{\"type\":\"object\"}}}],"
    "\"messages\":[{\"role\":\"system\",\"content\":\"S\"},{\"role\":\"user\",\"content\":\"U\"},"
    "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\","
    "\"function\":{\"name\":\"get\",\"arguments\":\"{\\\"n\\\":1e3}\"}}]},"
    "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"42\"}]}";

static char *encode_request(const char *json, tw_encode_opts *eo, tw_status want)
{
    tw_request q;
    cr_assert_eq(tw_openai_request_decode(json, strlen(json), NULL, &q, NULL), TW_OK);
    tw_buf out = {0};
    cr_assert_eq(tw_gemini_request_encode(&q, eo, &out), want);
    tw_request_free(&q);
    return out.data;
}

Test(encode_gemini, request_bytes)
{
    tw_diag_list w = {0};
    tw_encode_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.parallel_tool_calls = -1;
    eo.warnings = &w;
    char *s = encode_request(REQ, &eo, TW_OK);
    cr_assert_str_eq(
        s,
        "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"U\"}]},"
        "{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"get\",\"args\":{\"n\":1e3},"
        "\"id\":\"c1\"}}]},"
        "{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"name\":\"get\",\"response\":"
        "{\"output\":\"42\"},\"id\":\"c1\"}}]}],"
        "\"systemInstruction\":{\"parts\":[{\"text\":\"S\"}]},"
        "\"tools\":[{\"functionDeclarations\":[{\"name\":\"get\",\"description\":\"d\","
        "\"parameters\":{\"type\":\"object\"}}]}],"
        "\"toolConfig\":{\"functionCallingConfig\":{\"mode\":\"ANY\",\"allowedFunctionNames\":"
        "[\"get\"]}},"
        "\"generationConfig\":{\"temperature\":0.50,\"maxOutputTokens\":100,"
        "\"stopSequences\":[\"END\"]}}");
    /* the model goes in the URL: said, not dropped */
    cr_assert_eq(w.len, 1);
    cr_assert_eq(w.items[0].code, TW_D_NOT_CARRIED);
    cr_assert(strstr(w.items[0].message, "model"));
    free(s);
    tw_diag_list_free(&w);
}

Test(encode_gemini, request_choice_modes_and_warnings)
{
    static const char *const choice[][2] = {
        {"\"auto\"", "\"mode\":\"AUTO\""},
        {"\"none\"", "\"mode\":\"NONE\""},
        {"\"required\"", "\"mode\":\"ANY\"}"},
    };
    for (size_t i = 0; i < 3; i++) {
        char json[512];
        snprintf(json, sizeof json,
                 "{\"tool_choice\":%s,\"parallel_tool_calls\":true,\"user\":\"u1\","
                 "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}],"
                 "\"messages\":[{\"role\":\"user\",\"content\":\"U\"}]}",
                 choice[i][0]);
        tw_diag_list w = {0};
        tw_encode_opts eo;
        memset(&eo, 0, sizeof eo);
        eo.parallel_tool_calls = -1;
        eo.warnings = &w;
        char *s = encode_request(json, &eo, TW_OK);
        cr_assert(strstr(s, choice[i][1]), "%s", s);
        cr_assert_eq(w.len, 2, "%zu warnings: %s", w.len, w.len ? w.items[0].message : "");
        cr_assert(strstr(w.items[0].message, "parallel_tool_calls"));
        cr_assert(strstr(w.items[1].message, "options.user"), "%s", w.items[1].message);
        free(s);
        tw_diag_list_free(&w);
    }
}

Test(encode_gemini, request_result_without_name_is_invalid)
{
    const char *json = "{\"messages\":[{\"role\":\"user\",\"content\":\"U\"},"
                       "{\"role\":\"tool\",\"tool_call_id\":\"zz\",\"content\":\"1\"}]}";
    tw_encode_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.parallel_tool_calls = -1;
    char *s = encode_request(json, &eo, TW_ERR_INVALID);
    cr_assert(s == NULL || s[0] == '\0');
    free(s);
}

Test(encode_gemini, request_thinking_and_signature_sent_back)
{
    tw_request q;
    memset(&q, 0, sizeof q);
    q.parallel_tool_calls = -1;
    q.nmessages = 1;
    q.messages = calloc(1, sizeof *q.messages);
    tw_message *m = &q.messages[0];
    m->role = TW_ROLE_ASSISTANT;
    cr_assert_eq(tw_buf_puts(&m->thinking, "t"), TW_OK);
    m->thinking_signature = strdup("c2ln");
    m->calls = calloc(1, sizeof *m->calls);
    m->ncalls = m->cap_calls = 1;
    m->calls[0].name = strdup("f");
    m->calls[0].id = strdup("call_1");
    tw_buf out = {0};
    cr_assert_eq(tw_gemini_request_encode(&q, NULL, &out), TW_OK);
    cr_assert_str_eq(
        out.data, "{\"contents\":[{\"role\":\"model\",\"parts\":[{\"text\":\"t\",\"thought\":true},"
                  "{\"functionCall\":{\"name\":\"f\",\"args\":{},\"id\":\"call_1\"},"
                  "\"thoughtSignature\":\"c2ln\"}]}]}");
    tw_buf_free(&out);
    tw_request_free(&q);
}

Test(encode_gemini, request_result_names_from_their_calls)
{
    const char *json =
        "{\"messages\":[{\"role\":\"user\",\"content\":\"U\"},{\"role\":\"assistant\","
        "\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"f\","
        "\"arguments\":\"{}\"}},{\"id\":\"c2\",\"type\":\"function\",\"function\":{\"name\":"
        "\"g\",\"arguments\":\"{}\"}}]},{\"role\":\"tool\",\"tool_call_id\":\"c2\",\"content\":"
        "\"2\"},{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"1\"}]}";
    tw_encode_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.parallel_tool_calls = -1;
    char *s = encode_request(json, &eo, TW_OK);
    cr_assert(strstr(s, "{\"role\":\"user\",\"parts\":["
                        "{\"functionResponse\":{\"name\":\"g\",\"response\":{\"output\":\"2\"},"
                        "\"id\":\"c2\"}},"
                        "{\"functionResponse\":{\"name\":\"f\",\"response\":{\"output\":\"1\"},"
                        "\"id\":\"c1\"}}]}"),
              "%s", s);
    free(s);
}

/* Schemas for the schema-key test: each tool's parameters, and the key its
 * declaration must be written under. */
static const char *const SCHEMAS[][2] = {
    /* a property named like an unknown key is a name, not a key */
    {"{\"type\":\"object\",\"properties\":{\"x-custom\":{\"type\":\"string\",\"enum\":[\"p\","
     "\"q\"]}},\"required\":[\"x-custom\"]}",
     "parameters"},
    {"{\"type\":\"object\",\"properties\":{\"u\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":"
     "\"null\"}],\"description\":\"d\"},\"l\":{\"type\":\"array\",\"items\":{\"type\":\"integer\","
     "\"minimum\":0}}},\"propertyOrdering\":[\"u\",\"l\"]}",
     "parameters"},
    {"{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}},"
     "\"additionalProperties\":false}",
     "parametersJsonSchema"},
    {"{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"type\":\"object\"}",
     "parametersJsonSchema"},
    {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"array\",\"items\":{\"type\":"
     "\"string\",\"x-custom\":1}}}}",
     "parametersJsonSchema"},
    {"{\"type\":\"object\",\"properties\":{\"v\":{\"type\":[\"string\",\"null\"]}}}",
     "parametersJsonSchema"},
    {"{\"type\":\"object\",\"properties\":{\"k\":{\"type\":\"integer\",\"enum\":[1,2]}}}",
     "parametersJsonSchema"},
    {"{\"type\":\"object\",\"properties\":{\"o\":{\"oneOf\":[{\"type\":\"string\"}]}}}",
     "parametersJsonSchema"},
};

static char *schema_request(void)
{
    size_t n = sizeof SCHEMAS / sizeof SCHEMAS[0];
    tw_buf b = {0};
    cr_assert_eq(
        tw_buf_puts(&b, "{\"messages\":[{\"role\":\"user\",\"content\":\"U\"}],\"tools\":["),
        TW_OK);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(tw_buf_printf(&b, "%s{\"name\":\"t%zu\",\"parameters\":%s}", i ? "," : "", i,
                                   SCHEMAS[i][0]),
                     TW_OK);
    cr_assert_eq(tw_buf_puts(&b, "]}"), TW_OK);
    return b.data;
}

/* A schema with only keys of Gemini's Schema goes in `parameters`; one with
 * any other key (at any depth), a type that is not one name or an enum that
 * is not all strings goes whole in `parametersJsonSchema`. No warning: nothing
 * is left out. The reader reads the same tools back. */
Test(encode_gemini, request_schema_parameters_or_json_schema)
{
    char *in = schema_request();
    cJSON *j = NULL;
    cr_assert_eq(tw_json_parse(in, strlen(in), 64, &j, NULL), TW_OK);
    free(in);
    tw_request q;
    tw_error e;
    cr_assert_eq(tw_request_read(j, NULL, &q, &e), TW_OK, "%s", e.message);
    cJSON_Delete(j);
    tw_diag_list w = {0};
    tw_encode_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.parallel_tool_calls = -1;
    eo.warnings = &w;
    tw_buf out = {0};
    cr_assert_eq(tw_gemini_request_encode(&q, &eo, &out), TW_OK);
    cr_expect_eq(w.len, 0, "%s", w.len ? w.items[0].message : "");
    cJSON *body = NULL;
    cr_assert_eq(tw_json_parse(out.data, out.len, 64, &body, NULL), TW_OK, "%s", out.data);
    const cJSON *fd = tw_json_get(tw_json_get(body, "tools")->child, "functionDeclarations")->child;
    size_t n = sizeof SCHEMAS / sizeof SCHEMAS[0];
    for (size_t i = 0; i < n; i++, fd = fd->next) {
        cr_assert_not_null(fd, "declaration %zu", i);
        const char *other =
            strcmp(SCHEMAS[i][1], "parameters") == 0 ? "parametersJsonSchema" : "parameters";
        cr_expect(tw_json_get(fd, other) == NULL, "t%zu: %s written", i, other);
        cr_expect(tw_json_equal(tw_json_get(fd, SCHEMAS[i][1]), q.tools[i].parameters),
                  "t%zu: the schema in %s, as given: %s", i, SCHEMAS[i][1], out.data);
    }
    cJSON_Delete(body);
    /* read back: the same tools */
    tw_request back;
    cr_assert_eq(tw_gemini_request_decode(out.data, out.len, NULL, &back, &e), TW_OK, "%s",
                 e.message);
    cr_expect_eq(back.warnings.len, 0, "%s",
                 back.warnings.len ? back.warnings.items[0].message : "");
    cr_assert_eq(back.ntools, n);
    for (size_t i = 0; i < n; i++)
        cr_expect(tw_json_equal(back.tools[i].parameters, q.tools[i].parameters),
                  "t%zu reads back different", i);
    tw_request_free(&back);
    /* past the depth cap: kept whole, as JSON Schema */
    tw_buf_free(&out);
    eo.limits.max_depth = 2;
    cr_assert_eq(tw_gemini_request_encode(&q, &eo, &out), TW_OK);
    cr_expect(strstr(out.data, "{\"name\":\"t1\",\"parametersJsonSchema\":{") != NULL, "%s",
              out.data);
    cr_expect_eq(w.len, 0);
    tw_buf_free(&out);
    tw_diag_list_free(&w);
    tw_request_free(&q);
}

/* ===================== streamed arguments (partialArgs) ===================== */

/* A few argument payloads: nested objects and arrays, numbers kept by
 * spelling, unicode, empty strings, keys that need a bracket step. */
static const char *const partial_payloads[] = {
    "{\"location\":\"Boston\"}",
    "{}",
    "{\"s\":\"\",\"t\":\"x\",\"n\":null,\"b\":true,\"f\":false}",
    "{\"n\":[1.50,-0,1e400,9007199254740993,0.1e-2]}",
    "{\"u\":\"h\\u00e9llo \\u4e16\\u754c \\ud83d\\ude00\",\"\\u00e9\":\"\\u00e9\"}",
    "{\"a\":{\"b\":{\"c\":[1,{\"d\":\"e\"},[2,[3]]]},\"z\":\"w\"},\"y\":[[\"p\",\"q\"],[\"r\"]]}",
    "{\"a.b\":1,\"c[0]\":\"x\",\"it's\":2,\"\":\"empty key\",\"q\\\"'\":3}",
};

static tw_result partial_result(const char *args, const char *sig)
{
    tw_result r = make_result(NULL, NULL, sig, "tool_calls");
    add_call(&r, "call_1", "f", args);
    return r;
}

Test(encode_gemini, partial_args_round_trip_every_split)
{
    for (size_t i = 0; i < sizeof partial_payloads / sizeof partial_payloads[0]; i++) {
        tw_result r = partial_result(partial_payloads[i], i % 2 ? "c2ln" : NULL);
        char what[64];
        snprintf(what, sizeof what, "payload %zu", i);
        partial_round_trip(&r, NULL, true, what);
        tw_result_free(&r);
    }
    /* several calls with ids, thinking and content before them */
    tw_result r = make_result("Hi", "hmm", "c2ln", "tool_calls");
    add_call(&r, "abc", "f", partial_payloads[5]);
    add_call(&r, "call_2", "g", partial_payloads[3]);
    add_call(&r, "call_3", "h", "{}");
    partial_round_trip(&r, NULL, true, "three calls");
    tw_result_free(&r);
}

/* Arguments the pieces cannot rebuild (an empty container below the root, a
 * key with both quotes, a repeated key) go whole, and still read back. */
Test(encode_gemini, partial_args_whole_when_pieces_cannot_rebuild)
{
    static const char *const whole[] = {"{\"a\":{}}", "{\"a\":[1,[]]}", "{\"'\\\"\":1}"};
    for (size_t i = 0; i < 3; i++) {
        tw_result r = partial_result(whole[i], NULL);
        tw_encode_opts eo;
        memset(&eo, 0, sizeof eo);
        eo.partial_args = true;
        tw_buf out = {0};
        cr_assert_eq(tw_gemini_stream_encode(&r, &eo, &out), TW_OK);
        cr_expect(strstr(out.data, "\"args\":") && !strstr(out.data, "partialArgs"), "%s",
                  out.data);
        tw_buf_free(&out);
        partial_round_trip(&r, NULL, false, whole[i]);
        tw_result_free(&r);
    }
    /* deeper than max_depth: whole (the decoder then judges the depth) */
    tw_result r = partial_result("{\"a\":{\"b\":{\"c\":1}}}", NULL);
    tw_encode_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.partial_args = true;
    eo.limits.max_depth = 2;
    tw_buf out = {0};
    cr_assert_eq(tw_gemini_stream_encode(&r, &eo, &out), TW_OK);
    cr_expect(!strstr(out.data, "partialArgs"), "%s", out.data);
    tw_buf_free(&out);
    tw_result_free(&r);
}

Test(encode_gemini, partial_args_bytes)
{
    tw_result r = partial_result("{\"city\":\"Bost\\u00f6n\",\"n\":2.0,\"l\":[true,null]}", "c2ln");
    tw_encode_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.partial_args = true;
    eo.args_fragment = 4;
    tw_buf out = {0};
    cr_assert_eq(tw_gemini_stream_encode(&r, &eo, &out), TW_OK);
    const char *head = "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[";
    const char *tail = "\"index\":0}],\"modelVersion\":\"toolwire\"}\r\n\r\n";
    const char *parts[] = {
        "{\"functionCall\":{\"name\":\"f\",\"willContinue\":true},\"thoughtSignature\":\"c2ln\"}]}"
        ",",
        "{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.city\",\"stringValue\":\"Bost\","
        "\"willContinue\":true}],\"willContinue\":true}}]},",
        "{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.city\",\"stringValue\":"
        "\"\xc3\xb6n\","
        "\"willContinue\":true}],\"willContinue\":true}}]},",
        "{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.city\",\"stringValue\":\"\"}],"
        "\"willContinue\":true}}]},",
        "{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.n\",\"numberValue\":2.0}],"
        "\"willContinue\":true}}]},",
        "{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.l[0]\",\"boolValue\":true}],"
        "\"willContinue\":true}}]},",
        "{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.l[1]\",\"nullValue\":\"NULL_VALUE\"}"
        "],"
        "\"willContinue\":true}}]},",
        "{\"functionCall\":{}}]},\"finishReason\":\"STOP\",",
    };
    tw_buf want = {0};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        cr_assert_eq(tw_buf_printf(&want, "%s%s%s", head, parts[i], tail), TW_OK);
    cr_assert_str_eq(out.data, want.data);
    tw_buf_free(&want);
    tw_buf_free(&out);
    tw_result_free(&r);
}

/* The real Gemini 3.1 recording: decoded, then encoded with partialArgs,
 * every event's parts and the last finishReason are the recording's. */
Test(encode_gemini, partial_args_match_the_real_recording)
{
    const char *path =
        tw_test_shared("real-traffic/gemini__stream__function_call_partial_args.chunks.jsonl");
    if (!path)
        cr_skip("../shared/real-traffic is absent");
    size_t len = 0;
    tw_error why = {.offset = -1};
    char *text = tw_read_file(path, 1 << 20, &len, &why);
    cr_assert_not_null(text, "%s", why.message);
    /* the recording as an SSE stream, and its events' parts */
    tw_buf sse = {0};
    cJSON *want = cJSON_CreateArray();
    for (char *line = text, *nl; line < text + len; line = nl + 1) {
        nl = memchr(line, '\n', (size_t)(text + len - line));
        if (!nl)
            nl = text + len;
        if (nl == line)
            continue;
        cr_assert_eq(tw_buf_printf(&sse, "data: %.*s\r\n\r\n", (int)(nl - line), line), TW_OK);
        cJSON *ev = NULL;
        cr_assert_eq(tw_json_parse(line, (size_t)(nl - line), 64, &ev, NULL), TW_OK);
        cJSON_AddItemToArray(want, ev);
    }
    tw_result r;
    cr_assert_eq(tw_gemini_stream_decode(sse.data, sse.len, NULL, &r), TW_OK);
    cr_assert_eq(r.errors.len, 0);
    cr_assert_eq(r.msg.ncalls, 2);
    tw_encode_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.partial_args = true;
    tw_buf out = {0};
    cr_assert_eq(tw_gemini_stream_encode(&r, &eo, &out), TW_OK);
    /* our events, parsed back */
    size_t n = 0;
    const cJSON *w = want->child;
    for (const char *p = out.data; (p = strstr(p, "data: ")) != NULL; n++, w = w ? w->next : NULL) {
        p += 6;
        const char *end = strstr(p, "\r\n\r\n");
        cr_assert_not_null(end);
        cJSON *ev = NULL;
        cr_assert_eq(tw_json_parse(p, (size_t)(end - p), 64, &ev, NULL), TW_OK);
        cr_assert_not_null(w, "more events than the recording's");
        const cJSON *c1 = tw_json_get(ev, "candidates")->child;
        const cJSON *c2 = tw_json_get(w, "candidates")->child;
        cr_expect(tw_json_equal(tw_json_get(tw_json_get(c1, "content"), "parts"),
                                tw_json_get(tw_json_get(c2, "content"), "parts")),
                  "event %zu differs from the recording's", n);
        const char *f1 = tw_json_get_str(c1, "finishReason"),
                   *f2 = tw_json_get_str(c2, "finishReason");
        cr_expect_str_eq(f1 ? f1 : "-", f2 ? f2 : "-", "event %zu finishReason", n);
        cJSON_Delete(ev);
        p = end;
    }
    cr_expect_eq(n, (size_t)cJSON_GetArraySize(want));
    tw_buf_free(&out);
    tw_result_free(&r);
    cJSON_Delete(want);
    tw_buf_free(&sse);
    free(text);
}
