/*
 * OpenAI Responses encoders ("openai-responses-request", "openai-responses",
 * "openai-responses-stream") and the "openai-responses-request" reader
 * (docs/formats/openai-responses-encode.md): the real recordings' request
 * bodies read and written back; requests of the other readers written and
 * read back to the same neutral value; the response object and the event
 * stream field by field; what is not carried; caps; convert.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cassette.h"
#include "cli.h"
#include "decode_fixtures.h"
#include "files.h"
#include "toolwire/openai_responses_encode.h"
#include "toolwire/registry.h"
#include "toolwire/request_responses.h"
#include "toolwire/transcode.h"
#include "twtest.h"

/* ===================== helpers ===================== */

static tw_encode_opts enc_opts(tw_diag_list *warn)
{
    tw_encode_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.parallel_tool_calls = -1; /* the request's own setting */
    eo.warnings = warn;
    return eo;
}

/* The neutral request without its warnings, printed compactly. */
static char *request_json(const tw_request *r)
{
    tw_request v = *r;
    memset(&v.warnings, 0, sizeof v.warnings);
    tw_buf b = {0};
    cr_assert_eq(tw_request_write(&b, &v, 0), TW_OK);
    return b.data;
}

static char *encode_request(const tw_request *r, tw_diag_list *warn)
{
    tw_encode_opts eo = enc_opts(warn);
    tw_buf out = {0};
    cr_assert_eq(tw_responses_request_encode(r, &eo, &out), TW_OK);
    return out.data;
}

static char *encode_result(const char *enc, const tw_result *r, const tw_encode_opts *eo)
{
    tw_buf out = {0};
    cr_assert_eq(tw_encoder_find(enc)->encode_result(r, eo, &out), TW_OK, "%s", enc);
    return out.data;
}

static cJSON *parse(const char *s)
{
    cJSON *j = NULL;
    cr_assert_eq(tw_json_parse(s, strlen(s), 64, &j, NULL), TW_OK, "%s", s);
    return j;
}

static tw_status read_req(const char *s, const tw_limits *l, tw_request *q, tw_error *e)
{
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    if (l)
        o.limits = *l;
    return tw_responses_request_decode(s, strlen(s), &o, q, e);
}

/* A request with no warning encodes with none and reads back equal. */
static bool request_round_trip(const tw_request *r, const char *what)
{
    tw_diag_list warn = {0};
    char *wire = encode_request(r, &warn);
    bool lossless = warn.len == 0;
    if (lossless) {
        tw_request back;
        tw_error e;
        cr_assert_eq(read_req(wire, NULL, &back, &e), TW_OK, "%s: %s\n%s", what, e.message, wire);
        cr_assert_eq(back.warnings.len, 0, "%s: reads back with %s\n%s", what,
                     back.warnings.len ? back.warnings.items[0].message : "", wire);
        char *a = request_json(r), *b = request_json(&back);
        cr_assert_str_eq(b, a, "%s: round trip\n%s", what, wire);
        free(a);
        free(b);
        tw_request_free(&back);
    }
    free(wire);
    tw_diag_list_free(&warn);
    return lossless;
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

static void add_call(tw_message *m, const char *id, const char *name, const char *args)
{
    tw_call c;
    memset(&c, 0, sizeof c);
    c.id = id ? strdup(id) : NULL;
    c.name = strdup(name);
    c.offset = -1;
    cr_assert_eq(tw_json_parse(args, strlen(args), 64, &c.arguments, NULL), TW_OK);
    cr_assert_eq(tw_message_add_call(m, &c), TW_OK);
}

static const char *str_at(const cJSON *j, const char *k)
{
    const char *s = tw_json_get_str(j, k);
    cr_assert_not_null(s, "missing string %s", k);
    return s;
}

static cJSON *item_at(const cJSON *arr, int i)
{
    cJSON *it = cJSON_GetArrayItem(arr, i);
    cr_assert_not_null(it, "item %d", i);
    return it;
}

/* ===================== the real recordings' requests ===================== */

/* Null members mean absent: the reader keeps none, the encoder writes none. */
static void drop_nulls(cJSON *j)
{
    for (cJSON *c = j ? j->child : NULL; c;) {
        cJSON *next = c->next;
        if (cJSON_IsNull(c) && c->string)
            cJSON_Delete(cJSON_DetachItemViaPointer(j, c));
        else
            drop_nulls(c);
        c = next;
    }
}

static void recorded_requests(const char *name, size_t want)
{
    const char *path = tw_test_shared(name);
    if (!path)
        cr_skip("../shared/real-traffic is absent");
    tw_cassette c;
    tw_error why;
    cr_assert_eq(tw_cassette_load(path, NULL, &c, &why), TW_OK, "%s", why.message);
    cr_assert_eq(c.ninteractions, want);
    for (size_t i = 0; i < c.ninteractions; i++) {
        const cJSON *body = c.interactions[i].request.body.json;
        cr_assert_not_null(body, "%s: request %zu has a parsed body", name, i);
        tw_request q;
        tw_error e;
        cr_assert_eq(tw_responses_request_from_json(body, NULL, &q, &e), TW_OK, "%s", e.message);
        /* the one thing the neutral request cannot hold: "strict" */
        cr_assert_eq(q.warnings.len, 1, "%s[%zu]: %s", name, i,
                     q.warnings.len ? q.warnings.items[0].message : "no warning");
        cr_assert_eq(q.warnings.items[0].code, TW_D_NOT_CARRIED);
        cr_assert(strstr(q.warnings.items[0].message, "tools[0].strict"));
        cr_assert_eq(q.ntools, 1);
        cr_assert_str_eq(q.tools[0].name, "get_capital");
        cr_assert_eq(q.choice, TW_CHOICE_AUTO);
        tw_diag_list warn = {0};
        char *wire = encode_request(&q, &warn);
        cr_assert_eq(warn.len, 0, "%s", warn.len ? warn.items[0].message : "");
        /* expected: the recorded body without its null members and without
         * "strict" */
        cJSON *want_body = cJSON_Duplicate(body, 1);
        drop_nulls(want_body);
        cJSON_DeleteItemFromObjectCaseSensitive(
            cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(want_body, "tools"), 0), "strict");
        cJSON *got = parse(wire);
        char *ws = cJSON_PrintUnformatted(want_body);
        cr_assert(cJSON_Compare(want_body, got, 1), "%s[%zu]:\nwant %s\ngot  %s", name, i, ws,
                  wire);
        free(ws);
        cJSON_Delete(want_body);
        cJSON_Delete(got);
        free(wire);
        tw_diag_list_free(&warn);
        tw_request_free(&q);
    }
    tw_cassette_free(&c);
}

Test(encode_responses, real_nonstream_requests_read_and_written_back)
{
    recorded_requests("real-traffic/openai_responses__nonstream__function_call.yaml", 2);
}

Test(encode_responses, real_stream_requests_read_and_written_back)
{
    recorded_requests("real-traffic/openai_responses__stream__function_call_arguments_delta.yaml",
                      2);
}

Test(encode_responses, real_second_turn_neutral_value)
{
    const char *path =
        tw_test_shared("real-traffic/openai_responses__nonstream__function_call.yaml");
    if (!path)
        cr_skip("../shared/real-traffic is absent");
    tw_cassette c;
    tw_error why;
    cr_assert_eq(tw_cassette_load(path, NULL, &c, &why), TW_OK, "%s", why.message);
    tw_request q;
    cr_assert_eq(
        tw_responses_request_from_json(c.interactions[1].request.body.json, NULL, &q, NULL), TW_OK);
    cr_assert_eq(q.nmessages, 3);
    cr_assert_eq(q.messages[0].role, TW_ROLE_USER);
    cr_assert_eq(q.messages[1].role, TW_ROLE_ASSISTANT);
    cr_assert_eq(q.messages[1].ncalls, 1);
    cr_assert_str_eq(q.messages[1].calls[0].id, "call_YfwRsW8sUxDKipwyhWTzOXCA");
    cr_assert_str_eq(tw_json_get_str(q.messages[1].calls[0].arguments, "country"), "PotatoLand");
    cr_assert_eq(q.messages[2].role, TW_ROLE_TOOL);
    cr_assert_str_eq(q.messages[2].tool_call_id, "call_YfwRsW8sUxDKipwyhWTzOXCA");
    cr_assert_str_eq(q.messages[2].name, "get_capital");
    cr_assert_eq(q.messages[2].content.len, strlen("Potato City"));
    cr_assert(cJSON_IsFalse(tw_json_get(q.options, "stream")));
    tw_request_free(&q);
    tw_cassette_free(&c);
}

/* ===================== other readers' requests ===================== */

static long fixtures_round_trip(const char *dir, const char *reader)
{
    char **files = NULL;
    long n = tw_list_files(tw_test_src(dir), ".json", &files);
    cr_assert_gt(n, 4, "fixtures under %s", dir);
    long lossless = 0;
    for (long i = 0; i < n; i++) {
        tw_error why;
        cJSON *fx = tw_load_json_file(files[i], 1 << 26, 256, &why);
        cr_assert_not_null(fx, "%s", why.message);
        tw_request q;
        tw_error e;
        if (tw_request_read(tw_json_get(fx, "input"), NULL, &q, &e) == TW_OK) {
            lossless += request_round_trip(&q, files[i]);
            tw_request_free(&q);
        }
        cJSON_Delete(fx);
        /* the wire body the other encoder wrote, through its reader */
        size_t len = strlen(files[i]);
        char out[1024];
        snprintf(out, sizeof out, "%.*s.out", (int)(len - 5), files[i]);
        size_t blen = 0;
        char *body = tw_read_file(out, 1 << 26, &blen, &why);
        if (!body)
            continue;
        const tw_request_reader_ops *rd = tw_request_reader_find(reader);
        if (rd->decode(body, blen, NULL, &q, &e) == TW_OK) {
            lossless += request_round_trip(&q, out);
            tw_request_free(&q);
        }
        free(body);
    }
    tw_free_list(files, n);
    return lossless;
}

Test(encode_responses, other_readers_requests_round_trip)
{
    long a = fixtures_round_trip("tests/data/encode/openai", "openai-request");
    long b = fixtures_round_trip("tests/data/encode/anthropic", "anthropic-request");
    cr_assert_gt(a, 8, "lossless openai requests: %ld", a);
    cr_assert_gt(b, 8, "lossless anthropic requests: %ld", b);
}

Test(encode_responses, request_bytes)
{
    const char *in =
        "{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"be brief\"},"
        "{\"role\":\"user\",\"content\":\"hi\"},"
        "{\"role\":\"assistant\",\"content\":\"let me see\",\"thinking\":\"t\","
        "\"thinking_signature\":\"enc\",\"tool_calls\":[{\"id\":\"c1\",\"name\":\"get\","
        "\"arguments\":{\"a\":1}}]},"
        "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"name\":\"get\",\"content\":\"ok\"},"
        "{\"role\":\"system\",\"content\":\"later\"}],"
        "\"tools\":[{\"name\":\"get\",\"parameters\":{\"type\":\"object\"}}],"
        "\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"get\"}},"
        "\"parallel_tool_calls\":false,"
        "\"options\":{\"max_tokens\":9,\"reasoning_effort\":\"low\",\"stream\":true}}";
    cJSON *j = parse(in);
    tw_request q;
    tw_error e;
    cr_assert_eq(tw_request_read(j, NULL, &q, &e), TW_OK, "%s", e.message);
    char *s = encode_request(&q, NULL);
    cr_assert_str_eq(
        s, "{\"model\":\"m\",\"instructions\":\"be brief\",\"input\":["
           "{\"role\":\"user\",\"content\":\"hi\"},"
           "{\"type\":\"reasoning\",\"summary\":[{\"type\":\"summary_text\",\"text\":\"t\"}],"
           "\"encrypted_content\":\"enc\"},"
           "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\","
           "\"text\":\"let me see\"}]},"
           "{\"type\":\"function_call\",\"call_id\":\"c1\",\"name\":\"get\",\"arguments\":"
           "\"{\\\"a\\\":1}\"},"
           "{\"type\":\"function_call_output\",\"call_id\":\"c1\",\"output\":\"ok\"},"
           "{\"role\":\"system\",\"content\":\"later\"}],"
           "\"tools\":[{\"type\":\"function\",\"name\":\"get\",\"parameters\":{\"type\":"
           "\"object\"}}],"
           "\"tool_choice\":{\"type\":\"function\",\"name\":\"get\"},"
           "\"parallel_tool_calls\":false,\"max_output_tokens\":9,"
           "\"reasoning\":{\"effort\":\"low\"},\"stream\":true}");
    /* read back: the same messages; reasoning_effort comes back as reasoning */
    tw_request back;
    cr_assert_eq(read_req(s, NULL, &back, &e), TW_OK, "%s", e.message);
    cr_assert_eq(back.nmessages, q.nmessages);
    cr_assert_str_eq(back.messages[2].thinking_signature, "enc");
    cr_assert_eq(back.choice, TW_CHOICE_NAMED);
    cr_assert_str_eq(back.choice_name, "get");
    cr_assert_eq(back.parallel_tool_calls, 0);
    cr_assert_str_eq(tw_json_get_str(tw_json_get(back.options, "reasoning"), "effort"), "low");
    cr_assert_eq(tw_json_get(back.options, "max_tokens")->valueint, 9);
    tw_request_free(&back);
    free(s);
    tw_request_free(&q);
    cJSON_Delete(j);
}

/* ===================== what a request cannot carry ===================== */

static void request_warns(const char *neutral, const char *needle)
{
    cJSON *j = parse(neutral);
    tw_request q;
    tw_error e;
    cr_assert_eq(tw_request_read(j, NULL, &q, &e), TW_OK, "%s", e.message);
    tw_diag_list warn = {0};
    char *s = encode_request(&q, &warn);
    cr_assert_geq(warn.len, 1, "%s: warned", needle);
    cr_assert_eq(warn.items[0].code, TW_D_NOT_CARRIED);
    cr_assert(strstr(warn.items[0].message, needle), "%s", warn.items[0].message);
    free(s);
    tw_diag_list_free(&warn);
    tw_request_free(&q);
    cJSON_Delete(j);
}

Test(encode_responses, request_not_carried)
{
    request_warns("{\"messages\":[{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"id\":"
                  "\"c\",\"name\":\"f\",\"arguments\":{}}]},{\"role\":\"tool\",\"tool_call_id\":"
                  "\"c\",\"content\":\"x\",\"is_error\":true}]}",
                  "is_error");
    request_warns("{\"messages\":[{\"role\":\"tool\",\"tool_call_id\":\"c\",\"name\":\"f\","
                  "\"content\":\"x\"}]}",
                  "messages[0].name");
    request_warns("{\"messages\":[{\"role\":\"assistant\",\"content\":\"a\"},{\"role\":"
                  "\"assistant\",\"content\":\"\",\"tool_calls\":[{\"id\":\"c\",\"name\":\"f\","
                  "\"arguments\":{}}]}]}",
                  "read back as one message");
    request_warns("{\"messages\":[],\"options\":{\"top_k\":3}}", "options.top_k");
    request_warns("{\"messages\":[],\"options\":{\"max_tokens\":3,\"max_completion_tokens\":4}}",
                  "options.max_completion_tokens");
    request_warns("{\"messages\":[{\"role\":\"user\",\"content\":\"a\",\"thinking\":\"t\"}]}",
                  "only assistant messages");
}

Test(encode_responses, request_caps_and_refusals)
{
    tw_request q;
    memset(&q, 0, sizeof q);
    q.parallel_tool_calls = -1;
    q.nmessages = 3;
    q.messages = calloc(3, sizeof *q.messages);
    for (size_t i = 0; i < 3; i++)
        q.messages[i].role = TW_ROLE_USER;
    tw_encode_opts eo = enc_opts(NULL);
    eo.limits.max_messages = 2;
    tw_buf out = {0};
    cr_assert_eq(tw_responses_request_encode(&q, &eo, &out), TW_ERR_LIMIT);
    cr_assert_eq(out.len, 0);
    eo.limits.max_messages = 0;
    eo.limits.max_output_bytes = 10;
    cr_assert_eq(tw_responses_request_encode(&q, &eo, &out), TW_ERR_LIMIT);
    cr_assert_eq(out.len, 0, "out restored");
    q.messages[1].role = TW_ROLE_ASSISTANT;
    add_call(&q.messages[1], "c", "f", "{}");
    free(q.messages[1].calls[0].name);
    q.messages[1].calls[0].name = NULL;
    eo.limits.max_output_bytes = 0;
    cr_assert_eq(tw_responses_request_encode(&q, &eo, &out), TW_ERR_INVALID);
    tw_buf_free(&out);
    tw_request_free(&q);
}

/* ===================== the reader ===================== */

Test(encode_responses, reader_items_and_warnings)
{
    const char *in =
        "{\"model\":\"m\",\"instructions\":\"sys\",\"input\":["
        "{\"type\":\"message\",\"role\":\"developer\",\"content\":[{\"type\":\"input_text\","
        "\"text\":\"dev\"}]},"
        "{\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"a\"},"
        "{\"type\":\"input_image\",\"image_url\":\"x\"},{\"type\":\"input_text\",\"text\":\"b\"}]},"
        "{\"type\":\"item_reference\",\"id\":\"msg_9\"},"
        "{\"type\":\"reasoning\",\"id\":\"rs_1\",\"summary\":[{\"type\":\"summary_text\","
        "\"text\":\"why\"}],\"encrypted_content\":\"E\"},"
        "{\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":\"k1\",\"name\":\"f\","
        "\"arguments\":\"{\\\"q\\\":1}\"},"
        "{\"type\":\"function_call\",\"call_id\":\"k2\",\"name\":\"g\",\"arguments\":{\"r\":2}},"
        "{\"type\":\"function_call_output\",\"call_id\":\"k2\",\"output\":\"o2\"},"
        "{\"type\":\"function_call_output\",\"call_id\":\"k1\",\"output\":[{\"type\":"
        "\"input_text\",\"text\":\"o1\"}]}],"
        "\"tools\":[{\"type\":\"function\",\"name\":\"f\",\"parameters\":{}},{\"type\":"
        "\"web_search\"},{\"type\":\"function\",\"name\":\"g\"}],"
        "\"tool_choice\":\"required\",\"parallel_tool_calls\":true,\"max_output_tokens\":5,"
        "\"previous_response_id\":\"resp_1\",\"temperature\":0.5}";
    tw_request q;
    tw_error e;
    cr_assert_eq(read_req(in, NULL, &q, &e), TW_OK, "%s", e.message);
    cr_assert_eq(q.nmessages, 6);
    cr_assert_eq(q.messages[0].role, TW_ROLE_SYSTEM);
    cr_assert_eq(q.messages[1].role, TW_ROLE_SYSTEM); /* developer */
    cr_assert_eq(q.messages[2].role, TW_ROLE_USER);
    cr_assert_eq(q.messages[2].content.len, 2);
    cr_assert_eq(memcmp(q.messages[2].content.data, "ab", 2), 0);
    const tw_message *a = &q.messages[3];
    cr_assert_eq(a->role, TW_ROLE_ASSISTANT);
    cr_assert_eq(a->thinking.len, 3);
    cr_assert_str_eq(a->thinking_signature, "E");
    cr_assert_eq(a->ncalls, 2);
    cr_assert_str_eq(a->calls[1].name, "g");
    cr_assert_str_eq(q.messages[4].name, "g");
    cr_assert_str_eq(q.messages[5].name, "f");
    cr_assert_eq(q.messages[5].content.len, 2);
    cr_assert_eq(q.ntools, 2);
    cr_assert_str_eq(q.tools[1].name, "g");
    cr_assert_eq(q.choice, TW_CHOICE_REQUIRED);
    cr_assert_eq(q.parallel_tool_calls, 1);
    cr_assert_eq(tw_json_get(q.options, "max_tokens")->valueint, 5);
    cr_assert(tw_diag_has(&q.warnings, TW_D_ITEM_REFERENCE));
    cr_assert(tw_diag_has(&q.warnings, TW_D_BUILTIN_TOOL));
    cr_assert(tw_diag_has(&q.warnings, TW_D_ARGUMENTS_AS_OBJECT));
    /* developer role, input_image, rs_1 and fc_1 ids, previous_response_id */
    size_t nc = 0;
    for (size_t i = 0; i < q.warnings.len; i++)
        nc += q.warnings.items[i].code == TW_D_NOT_CARRIED;
    cr_assert_eq(nc, 5, "not_carried warnings: %zu", nc);
    tw_request_free(&q);
}

Test(encode_responses, reader_string_input_and_grouping)
{
    tw_request q;
    cr_assert_eq(read_req("{\"input\":\"hello\"}", NULL, &q, NULL), TW_OK);
    cr_assert_eq(q.nmessages, 1);
    cr_assert_eq(q.messages[0].role, TW_ROLE_USER);
    cr_assert_eq(q.warnings.len, 0);
    tw_request_free(&q);
    /* a reasoning item always opens an assistant turn; a message item
     * after a call opens one too */
    const char *in = "{\"input\":[{\"type\":\"reasoning\",\"summary\":[]},"
                     "{\"type\":\"reasoning\",\"summary\":[],\"encrypted_content\":\"x\"},"
                     "{\"type\":\"function_call\",\"call_id\":\"a\",\"name\":\"f\"},"
                     "{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"t\"}]}";
    cr_assert_eq(read_req(in, NULL, &q, NULL), TW_OK);
    cr_assert_eq(q.nmessages, 3);
    cr_assert_eq(q.messages[1].ncalls, 1);
    cr_assert_eq(q.messages[2].content.len, 1);
    tw_request_free(&q);
}

static void refused(const char *in, const tw_limits *l, tw_status st, tw_status code,
                    const char *path)
{
    tw_request q;
    tw_error e;
    cr_assert_eq(read_req(in, l, &q, &e), st, "%s", in);
    cr_assert_eq(e.code, code, "%s: %s", in, tw_code_name(e.code));
    cr_assert_str_eq(e.path, path, "%s", in);
    cr_assert_eq(q.nmessages, 0);
    cr_assert_eq(q.warnings.len, 0);
    cr_assert_eq(q.parallel_tool_calls, -1);
    tw_request_free(&q);
}

Test(encode_responses, reader_refusals_and_caps)
{
    refused("{}", NULL, TW_ERR_INVALID, TW_ERR_INVALID, "input");
    refused("{\"input\":[{\"type\":\"function_call\",\"name\":\"f\"}]}", NULL, TW_ERR_INVALID,
            TW_ERR_INVALID, "input[0].call_id");
    refused("{\"input\":[{\"role\":\"tool\",\"content\":\"x\"}]}", NULL, TW_ERR_INVALID,
            TW_ERR_INVALID, "input[0].role");
    refused("{\"input\":[],\"tool_choice\":\"sometimes\"}", NULL, TW_ERR_INVALID, TW_ERR_INVALID,
            "tool_choice");
    refused("{\"input\":[{\"type\":\"function_call\",\"call_id\":\"a\",\"name\":\"f\","
            "\"arguments\":\"[1]\"}]}",
            NULL, TW_ERR_INVALID, TW_D_ARGUMENTS_NOT_OBJECT, "input[0].arguments");
    tw_limits l;
    memset(&l, 0, sizeof l);
    l.max_calls = 1;
    refused("{\"input\":[{\"type\":\"function_call\",\"call_id\":\"a\",\"name\":\"f\"},"
            "{\"type\":\"function_call\",\"call_id\":\"b\",\"name\":\"f\"}]}",
            &l, TW_ERR_LIMIT, TW_ERR_LIMIT, "input[1]");
    memset(&l, 0, sizeof l);
    l.max_tools = 1;
    refused("{\"input\":[],\"tools\":[{\"type\":\"function\",\"name\":\"f\"},{\"type\":"
            "\"function\",\"name\":\"g\"}]}",
            &l, TW_ERR_LIMIT, TW_ERR_LIMIT, "tools");
    memset(&l, 0, sizeof l);
    l.max_args_bytes = 8;
    refused("{\"input\":[{\"type\":\"function_call\",\"call_id\":\"a\",\"name\":\"f\","
            "\"arguments\":\"{\\\"k\\\":\\\"0123456789\\\"}\"}]}",
            &l, TW_ERR_LIMIT, TW_D_ARGS_TOO_LARGE, "input[0].arguments");
    memset(&l, 0, sizeof l);
    l.max_depth = 3;
    refused("{\"input\":[[[[1]]]]}", &l, TW_ERR_LIMIT, TW_D_JSON_TOO_DEEP, "");
}

/* ===================== responses ===================== */

static tw_result full_result(const char *fr)
{
    tw_result r = make_result("Hi", "hmm", "sig", fr);
    add_call(&r.msg, "call_a", "get", "{\"x\":1}");
    add_call(&r.msg, "call_b", "put", "{}");
    return r;
}

Test(encode_responses, response_fields)
{
    tw_result r = full_result("tool_calls");
    tw_encode_opts eo = enc_opts(NULL);
    eo.id = "resp_1";
    eo.model = "gpt-x";
    eo.created = 42;
    char *s = encode_result("openai-responses", &r, &eo);
    cJSON *j = parse(s);
    cr_assert_str_eq(j->child->string, "id");
    cr_assert_str_eq(str_at(j, "id"), "resp_1");
    cr_assert_str_eq(str_at(j, "object"), "response");
    cr_assert_eq(tw_json_get(j, "created_at")->valueint, 42);
    cr_assert_str_eq(str_at(j, "status"), "completed");
    cr_assert(cJSON_IsNull(tw_json_get(j, "incomplete_details")));
    cr_assert_str_eq(str_at(j, "model"), "gpt-x");
    cJSON *out = tw_json_get(j, "output");
    cr_assert_eq(cJSON_GetArraySize(out), 4);
    cJSON *rs = item_at(out, 0);
    cr_assert_str_eq(str_at(rs, "type"), "reasoning");
    cr_assert_str_eq(str_at(rs, "encrypted_content"), "sig");
    cr_assert_str_eq(str_at(item_at(tw_json_get(rs, "summary"), 0), "text"), "hmm");
    cJSON *msg = item_at(out, 1);
    cr_assert_str_eq(str_at(msg, "type"), "message");
    cr_assert_str_eq(str_at(msg, "role"), "assistant");
    cr_assert_str_eq(str_at(msg, "status"), "completed");
    cJSON *part = item_at(tw_json_get(msg, "content"), 0);
    cr_assert_str_eq(str_at(part, "type"), "output_text");
    cr_assert_str_eq(str_at(part, "text"), "Hi");
    cJSON *fc = item_at(out, 2);
    cr_assert_str_eq(str_at(fc, "type"), "function_call");
    cr_assert_str_eq(str_at(fc, "call_id"), "call_a");
    cr_assert_str_eq(str_at(fc, "name"), "get");
    cr_assert_str_eq(str_at(fc, "arguments"), "{\"x\":1}");
    cr_assert_str_eq(str_at(fc, "status"), "completed");
    cr_assert_str_eq(str_at(item_at(out, 3), "call_id"), "call_b");
    /* item ids are distinct */
    cr_assert_str_neq(str_at(fc, "id"), str_at(item_at(out, 3), "id"));
    cr_assert_not_null(tw_json_get(tw_json_get(j, "usage"), "total_tokens"));
    cJSON_Delete(j);
    free(s);
    tw_result_free(&r);
}

Test(encode_responses, response_incomplete_and_finish_reasons)
{
    tw_result r = make_result("cut", NULL, NULL, "length");
    tw_diag_list warn = {0};
    tw_encode_opts eo = enc_opts(&warn);
    char *s = encode_result("openai-responses", &r, &eo);
    cJSON *j = parse(s);
    cr_assert_str_eq(str_at(j, "status"), "incomplete");
    cr_assert_str_eq(str_at(tw_json_get(j, "incomplete_details"), "reason"), "max_output_tokens");
    cr_assert_eq(cJSON_GetArraySize(tw_json_get(j, "output")), 1);
    cr_assert_eq(warn.len, 0);
    cJSON_Delete(j);
    free(s);
    tw_result_free(&r);
    /* "stop" with calls reads back as "tool_calls": reported */
    r = full_result("stop");
    s = encode_result("openai-responses", &r, &eo);
    cr_assert_eq(warn.len, 1);
    cr_assert_eq(warn.items[0].code, TW_D_NOT_CARRIED);
    cr_assert(strstr(warn.items[0].message, "finish_reason"));
    free(s);
    tw_result_free(&r);
    /* redacted thinking has no place */
    r = make_result("x", NULL, NULL, NULL);
    r.msg.has_redacted_thinking = true;
    s = encode_result("openai-responses-stream", &r, &eo);
    cr_assert_eq(warn.len, 2);
    cr_assert(strstr(warn.items[1].message, "redacted_thinking"));
    free(s);
    tw_result_free(&r);
    tw_diag_list_free(&warn);
}

Test(encode_responses, response_refusals_and_cap)
{
    tw_result r = full_result(NULL);
    free(r.msg.calls[1].name);
    r.msg.calls[1].name = strdup("");
    tw_buf out = {0};
    cr_assert_eq(tw_responses_response_encode(&r, NULL, &out), TW_ERR_INVALID);
    cr_assert_eq(tw_responses_stream_encode(&r, NULL, &out), TW_ERR_INVALID);
    cr_assert_eq(out.len, 0);
    tw_result_free(&r);
    r = full_result(NULL);
    tw_encode_opts eo = enc_opts(NULL);
    eo.limits.max_output_bytes = 100;
    cr_assert_eq(tw_buf_puts(&out, "keep"), TW_OK);
    cr_assert_eq(tw_responses_stream_encode(&r, &eo, &out), TW_ERR_LIMIT);
    cr_assert_eq(tw_responses_response_encode(&r, &eo, &out), TW_ERR_LIMIT);
    cr_assert_eq(out.len, 4, "out cut back");
    cr_assert_str_eq(out.data, "keep");
    tw_buf_free(&out);
    tw_result_free(&r);
}

/* ===================== streams ===================== */

typedef struct events {
    cJSON *ev[128];
    size_t n;
} events;

/* Split the stream into events: each "event: T\ndata: {...}\n\n" with T the
 * data's type and sequence numbers 0, 1, 2, ... */
static void split_events(const char *s, events *out)
{
    out->n = 0;
    const char *p = s;
    while (*p) {
        cr_assert_lt(out->n, 128);
        cr_assert_eq(strncmp(p, "event: ", 7), 0, "at %.40s", p);
        const char *nl = strchr(p, '\n');
        cr_assert_not_null(nl);
        char type[96];
        size_t tl = (size_t)(nl - p - 7);
        cr_assert_lt(tl, sizeof type);
        memcpy(type, p + 7, tl);
        type[tl] = '\0';
        cr_assert_eq(strncmp(nl + 1, "data: ", 6), 0);
        const char *end = strstr(nl + 1, "\n\n");
        cr_assert_not_null(end);
        const char *d = nl + 7;
        cJSON *j = NULL;
        cr_assert_eq(tw_json_parse(d, (size_t)(end - d), 64, &j, NULL), TW_OK);
        cr_assert_str_eq(tw_json_get_str(j, "type"), type);
        cr_assert_str_eq(j->child->string, "type");
        cr_assert_eq(tw_json_get(j, "sequence_number")->valueint, (int)out->n,
                     "sequence_number of event %zu", out->n);
        out->ev[out->n++] = j;
        p = end + 2;
    }
}

static void free_events(events *e)
{
    for (size_t i = 0; i < e->n; i++)
        cJSON_Delete(e->ev[i]);
}

static const char *type_of(const events *e, size_t i)
{
    return tw_json_get_str(e->ev[i], "type");
}

Test(encode_responses, stream_event_order)
{
    tw_result r = full_result(NULL);
    free(r.msg.calls[1].name);
    r.msg.calls[1].name = strdup("put");
    tw_encode_opts eo = enc_opts(NULL);
    char *s = encode_result("openai-responses-stream", &r, &eo);
    events e;
    split_events(s, &e);
    static const char *const want[] = {
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.done",
        "response.reasoning_summary_part.done",
        "response.output_item.done",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
    };
    cr_assert_eq(e.n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < e.n; i++)
        cr_assert_str_eq(type_of(&e, i), want[i], "event %zu", i);
    cJSON *created = tw_json_get(e.ev[0], "response");
    cr_assert_str_eq(str_at(created, "status"), "in_progress");
    cr_assert_eq(cJSON_GetArraySize(tw_json_get(created, "output")), 0);
    /* the item events name their item and output index */
    cr_assert_eq(tw_json_get(e.ev[8], "output_index")->valueint, 1);
    cr_assert_str_eq(str_at(tw_json_get(e.ev[8], "item"), "status"), "in_progress");
    cr_assert_str_eq(str_at(e.ev[10], "item_id"), str_at(tw_json_get(e.ev[8], "item"), "id"));
    cr_assert_eq(tw_json_get(e.ev[10], "content_index")->valueint, 0);
    cr_assert_str_eq(str_at(e.ev[10], "delta"), "Hi");
    cJSON *added = tw_json_get(e.ev[14], "item");
    cr_assert_str_eq(str_at(added, "arguments"), "");
    cr_assert_str_eq(str_at(added, "call_id"), "call_a");
    cr_assert_str_eq(str_at(e.ev[16], "arguments"), "{\"x\":1}");
    cr_assert_null(tw_json_get(tw_json_get(e.ev[2], "item"), "encrypted_content"));
    cr_assert_str_eq(str_at(tw_json_get(e.ev[7], "item"), "encrypted_content"), "sig");
    /* the completed response is the body the response encoder writes */
    char *body = encode_result("openai-responses", &r, &eo);
    cJSON *b = parse(body);
    cr_assert(cJSON_Compare(tw_json_get(e.ev[e.n - 1], "response"), b, 1));
    cJSON_Delete(b);
    free(body);
    free_events(&e);
    free(s);
    tw_result_free(&r);
}

Test(encode_responses, stream_fragments_join)
{
    tw_result r = make_result("héllo wörld", NULL, NULL, "content_filter");
    add_call(&r.msg, "c", "f", "{\"k\":\"0123456789\"}");
    tw_encode_opts eo = enc_opts(NULL);
    eo.text_fragment = 3;
    eo.args_fragment = 4;
    char *s = encode_result("openai-responses-stream", &r, &eo);
    events e;
    split_events(s, &e);
    tw_buf text = {0}, args = {0};
    size_t ntext = 0, nargs = 0;
    for (size_t i = 0; i < e.n; i++) {
        if (strcmp(type_of(&e, i), "response.output_text.delta") == 0) {
            cr_assert_eq(tw_buf_puts(&text, str_at(e.ev[i], "delta")), TW_OK);
            ntext++;
        } else if (strcmp(type_of(&e, i), "response.function_call_arguments.delta") == 0) {
            cr_assert_eq(tw_buf_puts(&args, str_at(e.ev[i], "delta")), TW_OK);
            nargs++;
        }
    }
    cr_assert_gt(ntext, 3);
    cr_assert_gt(nargs, 3);
    cr_assert_str_eq(text.data, "héllo wörld");
    cr_assert_str_eq(args.data, "{\"k\":\"0123456789\"}");
    cr_assert_str_eq(type_of(&e, e.n - 1), "response.incomplete");
    cr_assert_str_eq(
        str_at(tw_json_get(tw_json_get(e.ev[e.n - 1], "response"), "incomplete_details"), "reason"),
        "content_filter");
    tw_buf_free(&text);
    tw_buf_free(&args);
    free_events(&e);
    free(s);
    tw_result_free(&r);
}

/* ===================== convert ===================== */

Test(encode_responses, convert_requests_both_ways)
{
    const char *chat = "{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"s\"},"
                       "{\"role\":\"user\",\"content\":\"q\"},{\"role\":\"assistant\","
                       "\"content\":null,\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\","
                       "\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]},{\"role\":\"tool\","
                       "\"tool_call_id\":\"c1\",\"content\":\"r\"}],\"tools\":[{\"type\":"
                       "\"function\",\"function\":{\"name\":\"f\"}}],\"parallel_tool_calls\":true}";
    tw_diag_list warn = {0};
    tw_encode_opts eo = enc_opts(&warn);
    tw_buf rsp = {0}, back = {0};
    tw_error e;
    cr_assert_eq(tw_transcode("openai-request", "openai-responses-request", chat, strlen(chat), &eo,
                              &rsp, &e),
                 TW_OK, "%s", e.message);
    cr_assert_eq(warn.len, 0);
    cJSON *j = parse(rsp.data);
    cr_assert_str_eq(str_at(j, "instructions"), "s");
    cr_assert_eq(cJSON_GetArraySize(tw_json_get(j, "input")), 3);
    cJSON_Delete(j);
    cr_assert_eq(tw_transcode("openai-responses-request", "openai-request", rsp.data, rsp.len, &eo,
                              &back, &e),
                 TW_OK, "%s", e.message);
    cr_assert_eq(warn.len, 0);
    cJSON *a = parse(chat), *b = parse(back.data);
    cr_assert(cJSON_Compare(a, b, 1), "%s", back.data);
    cJSON_Delete(a);
    cJSON_Delete(b);
    /* a loss on the way is reported as every other pair reports it */
    const char *ant = "{\"model\":\"m\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\","
                      "\"content\":\"q\"}],\"top_k\":2}";
    tw_buf_free(&rsp);
    cr_assert_eq(tw_transcode("anthropic-request", "openai-responses-request", ant, strlen(ant),
                              &eo, &rsp, &e),
                 TW_OK, "%s", e.message);
    cr_assert_eq(warn.len, 1);
    cr_assert(strstr(warn.items[0].message, "options.top_k"));
    j = parse(rsp.data);
    cr_assert_eq(tw_json_get(j, "max_output_tokens")->valueint, 5);
    cJSON_Delete(j);
    tw_buf_free(&rsp);
    tw_buf_free(&back);
    tw_diag_list_free(&warn);
}

Test(encode_responses, convert_results)
{
    const char *chat = "{\"id\":\"x\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"m\","
                       "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
                       "\"hi\",\"tool_calls\":[{\"id\":\"c\",\"type\":\"function\",\"function\":{"
                       "\"name\":\"f\",\"arguments\":\"{\\\"a\\\":1}\"}}]},\"finish_reason\":"
                       "\"tool_calls\"}]}";
    tw_diag_list warn = {0};
    tw_encode_opts eo = enc_opts(&warn);
    tw_buf out = {0};
    tw_error e;
    cr_assert_eq(
        tw_transcode("openai-response", "openai-responses", chat, strlen(chat), &eo, &out, &e),
        TW_OK, "%s", e.message);
    cr_assert_eq(warn.len, 0);
    cJSON *j = parse(out.data);
    cJSON *o = tw_json_get(j, "output");
    cr_assert_eq(cJSON_GetArraySize(o), 2);
    cr_assert_str_eq(str_at(item_at(o, 1), "arguments"), "{\"a\":1}");
    cJSON_Delete(j);
    tw_buf_free(&out);
    cr_assert_eq(tw_transcode("openai-response", "openai-responses-stream", chat, strlen(chat), &eo,
                              &out, &e),
                 TW_OK, "%s", e.message);
    events ev;
    split_events(out.data, &ev);
    cr_assert_str_eq(type_of(&ev, ev.n - 1), "response.completed");
    free_events(&ev);
    tw_buf_free(&out);
    /* a result is not a request */
    cr_assert_eq(tw_transcode("openai-response", "openai-responses-request", chat, strlen(chat),
                              &eo, &out, &e),
                 TW_ERR_INVALID);
    tw_buf_free(&out);
    tw_diag_list_free(&warn);
}
