/* The gemini-request reader (request_gemini.h): it reads back what the
 * gemini-request encoder writes (encode, read, encode gives the same bytes
 * over every Qwen3 request fixture), every part kind and config field it
 * knows, the warnings for what it does not carry, refusals with their path,
 * caps, and the requests of the real Gemini recordings in
 * ../shared/real-traffic. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cassette.h"
#include "decode_fixtures.h"
#include "files.h"
#include "toolwire/encode.h"
#include "toolwire/json.h"
#include "toolwire/request_gemini.h"
#include "twtest.h"

static char *enc(const tw_request *r, size_t *len)
{
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    o.parallel_tool_calls = -1;
    tw_diag_list w = {0};
    o.warnings = &w;
    tw_buf b = {0};
    tw_status st = tw_encoder_find("gemini-request")->encode_request(r, &o, &b);
    cr_assert_eq(st, TW_OK, "%s", tw_code_name(st));
    tw_diag_list_free(&w);
    return tw_buf_take(&b, len);
}

static tw_status rd(const char *s, const tw_limits *l, tw_request *r, tw_error *e)
{
    size_t n = strlen(s);
    char *copy = tw_test_exact(s, n);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    if (l)
        o.limits = *l;
    tw_status st = tw_gemini_request_decode(copy, n, &o, r, e);
    free(copy);
    return st;
}

static void rd_ok(const char *s, tw_request *r)
{
    tw_error e;
    cr_assert_eq(rd(s, NULL, r, &e), TW_OK, "%s", e.message);
}

static bool has_warning(const tw_request *r, tw_status code, const char *part)
{
    for (size_t i = 0; i < r->warnings.len; i++)
        if (r->warnings.items[i].code == code && strstr(r->warnings.items[i].message, part))
            return true;
    return false;
}

Test(gemini_request, round_trips_over_the_qwen3_requests)
{
    char **files = NULL;
    long n = tw_list_files(tw_test_src("tests/data/qwen3"), ".json", &files);
    cr_assert_geq(n, 20);
    long tried = 0;
    for (long f = 0; f < n; f++) {
        const char *name = strrchr(files[f], '/') + 1;
        size_t len = 0;
        tw_error e = {0};
        char *text = tw_read_file(files[f], (size_t)16 << 20, &len, &e);
        cr_assert_not_null(text, "%s", e.message);
        cJSON *fx = NULL;
        cr_assert_eq(tw_json_parse(text, len, 256, &fx, &e), TW_OK, "%s", name);
        free(text);
        tw_request orig;
        cJSON *rq = tw_json_get(fx, "request");
        cJSON_DeleteItemFromObjectCaseSensitive(rq, "options");
        cr_assert_eq(tw_request_read(rq, NULL, &orig, &e), TW_OK, "%s: %s", name, e.message);
        size_t len1 = 0, len2 = 0;
        char *b1 = enc(&orig, &len1);
        tw_request back;
        cr_assert_eq(rd(b1, NULL, &back, &e), TW_OK, "%s: %s", name, e.message);
        cr_expect_eq(back.warnings.len, 0, "%s: %s", name,
                     back.warnings.len ? back.warnings.items[0].message : "");
        char *b2 = enc(&back, &len2);
        cr_expect(len1 == len2 && memcmp(b1, b2, len1) == 0, "%s:\n%s\n---\n%s", name, b1, b2);
        cr_expect_eq(back.ntools, orig.ntools, "%s", name);
        cr_expect_eq(back.choice, orig.choice, "%s", name);
        tried++;
        free(b1), free(b2);
        tw_request_free(&orig), tw_request_free(&back);
        cJSON_Delete(fx);
    }
    tw_free_list(files, n);
    cr_assert_eq(tried, n);
}

Test(gemini_request, reads_every_part_and_config)
{
    tw_request r;
    rd_ok(
        "{\"systemInstruction\":{\"parts\":[{\"text\":\"be brief\"}]},"
        "\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"weather "
        "\"},{\"text\":\"Paris?\"}]},"
        "{\"role\":\"model\",\"parts\":[{\"text\":\"let me think\",\"thought\":true},"
        "{\"functionCall\":{\"name\":\"get_weather\",\"args\":{\"city\":\"Paris\"}},"
        "\"thoughtSignature\":\"c2lnMQ==\"},"
        "{\"functionCall\":{\"name\":\"get_time\",\"args\":{},\"id\":\"t1\"}}]},"
        "{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"name\":\"get_time\",\"id\":\"t1\","
        "\"response\":{\"output\":\"noon\"}}},{\"functionResponse\":{\"name\":\"get_weather\","
        "\"response\":{\"temp\":21,\"sky\":\"clear\"}}}]},"
        "{\"role\":\"model\",\"parts\":[{\"text\":\"Sunny, 21.\"}]}],"
        "\"tools\":[{\"functionDeclarations\":[{\"name\":\"get_weather\",\"description\":\"w\","
        "\"parameters\":{\"type\":\"OBJECT\",\"properties\":{\"city\":{\"type\":\"STRING\"}}}},"
        "{\"name\":\"get_time\",\"parametersJsonSchema\":{\"type\":\"object\"}}]}],"
        "\"toolConfig\":{\"functionCallingConfig\":{\"mode\":\"ANY\",\"allowedFunctionNames\":"
        "[\"get_weather\"]}},"
        "\"generationConfig\":{\"maxOutputTokens\":256,\"temperature\":0.5,"
        "\"thinkingConfig\":{\"thinkingBudget\":128}}}",
        &r);
    cr_assert_eq(r.nmessages, 6);
    cr_expect_eq(r.messages[0].role, TW_ROLE_SYSTEM);
    cr_expect_str_eq(r.messages[0].content.data, "be brief");
    cr_expect_eq(r.messages[1].role, TW_ROLE_USER);
    cr_expect_str_eq(r.messages[1].content.data, "weather Paris?");
    const tw_message *a = &r.messages[2];
    cr_assert_eq(a->role, TW_ROLE_ASSISTANT);
    cr_expect_str_eq(a->thinking.data, "let me think");
    cr_expect_str_eq(a->thinking_signature, "c2lnMQ==");
    cr_assert_eq(a->ncalls, 2);
    cr_expect_str_eq(a->calls[0].id, "call_1");
    cr_expect_str_eq(a->calls[0].name, "get_weather");
    cr_expect_str_eq(tw_json_get_str(a->calls[0].arguments, "city"), "Paris");
    cr_expect_str_eq(a->calls[1].id, "t1");
    /* results: by id, and without one by name */
    cr_expect_eq(r.messages[3].role, TW_ROLE_TOOL);
    cr_expect_str_eq(r.messages[3].tool_call_id, "t1");
    cr_expect_str_eq(r.messages[3].content.data, "noon");
    cr_expect_str_eq(r.messages[4].tool_call_id, "call_1");
    cr_expect_str_eq(r.messages[4].name, "get_weather");
    cr_expect_str_eq(r.messages[4].content.data, "{\"temp\":21,\"sky\":\"clear\"}");
    cr_expect_str_eq(r.messages[5].content.data, "Sunny, 21.");
    cr_assert_eq(r.ntools, 2);
    /* Gemini's OBJECT, STRING read as JSON Schema's object, string */
    cr_expect_str_eq(tw_json_get_str(r.tools[0].parameters, "type"), "object");
    cr_expect_str_eq(
        tw_json_get_str(tw_json_get(tw_json_get(r.tools[0].parameters, "properties"), "city"),
                        "type"),
        "string");
    cr_expect_str_eq(tw_json_get_str(r.tools[1].parameters, "type"), "object");
    cr_expect_eq(r.choice, TW_CHOICE_NAMED);
    cr_expect_str_eq(r.choice_name, "get_weather");
    cr_expect_eq(tw_json_get(r.options, "max_tokens")->valueint, 256);
    cr_expect_not_null(tw_json_get(r.options, "temperature"));
    cr_expect_not_null(tw_json_get(tw_json_get(r.options, "thinkingConfig"), "thinkingBudget"));
    cr_expect_null(r.model);
    cr_expect_eq(r.warnings.len, 0, "%s", r.warnings.len ? r.warnings.items[0].message : "");
    tw_request_free(&r);
}

Test(gemini_request, tool_config_modes)
{
    static const struct {
        const char *cfg;
        tw_choice want;
        bool warns;
    } cases[] = {
        {"{\"mode\":\"AUTO\"}", TW_CHOICE_AUTO, false},
        {"{\"mode\":\"NONE\"}", TW_CHOICE_NONE, false},
        {"{\"mode\":\"ANY\"}", TW_CHOICE_REQUIRED, false},
        {"{\"mode\":\"ANY\",\"allowedFunctionNames\":[\"a\",\"b\",\"c\"]}", TW_CHOICE_REQUIRED,
         false},
        {"{\"mode\":\"ANY\",\"allowedFunctionNames\":[\"a\",\"c\"]}", TW_CHOICE_REQUIRED, true},
        {"{\"mode\":\"VALIDATED\"}", TW_CHOICE_AUTO, true},
        {"{}", TW_CHOICE_UNSET, false},
        {"{\"mode\":\"AUTO\",\"allowedFunctionNames\":[\"a\"]}", TW_CHOICE_AUTO, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char body[512];
        snprintf(body, sizeof body,
                 "{\"contents\":[{\"parts\":[{\"text\":\"x\"}]}],\"tools\":[{"
                 "\"functionDeclarations\":[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"c\"}]}],"
                 "\"toolConfig\":{\"functionCallingConfig\":%s}}",
                 cases[i].cfg);
        tw_request r;
        rd_ok(body, &r);
        cr_expect_eq(r.choice, cases[i].want, "%s", cases[i].cfg);
        cr_expect_eq(has_warning(&r, TW_D_NOT_CARRIED, "functionCallingConfig"), cases[i].warns,
                     "%s", cases[i].cfg);
        tw_request_free(&r);
    }
    tw_request r;
    tw_error e;
    cr_expect_eq(rd("{\"contents\":[],\"toolConfig\":{\"functionCallingConfig\":{\"mode\":"
                    "\"SOMETIMES\"}}}",
                    NULL, &r, &e),
                 TW_ERR_INVALID);
    cr_expect_str_eq(e.path, "toolConfig.functionCallingConfig.mode");
}

Test(gemini_request, unknown_parts_and_builtin_tools_are_warnings)
{
    tw_request r;
    rd_ok("{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"see\"},{\"inlineData\":{"
          "\"mimeType\":\"image/png\",\"data\":\"AA==\"}},{\"mystery\":1}]},"
          "{\"role\":\"model\",\"parts\":[{\"executableCode\":{\"code\":\"1\"}}]}],"
          "\"tools\":[{\"googleSearch\":{}},{\"codeExecution\":{}},{\"functionDeclarations\":"
          "[{\"name\":\"f\"}]}],\"safetySettings\":[]}",
          &r);
    cr_expect_eq(r.ntools, 1);
    cr_expect(r.tools_present);
    cr_expect(has_warning(&r, TW_D_UNKNOWN_PART, "contents[0].parts[1]"));
    cr_expect(has_warning(&r, TW_D_UNKNOWN_PART, "contents[0].parts[2]"));
    cr_expect(has_warning(&r, TW_D_UNKNOWN_PART, "contents[1].parts[0]"));
    cr_expect(has_warning(&r, TW_D_BUILTIN_TOOL, "googleSearch"));
    cr_expect(has_warning(&r, TW_D_BUILTIN_TOOL, "codeExecution"));
    cr_expect(has_warning(&r, TW_D_NOT_CARRIED, "safetySettings"));
    cr_expect_eq(r.warnings.len, 6);
    tw_request_free(&r);
}

/* A response without an id that names no tool the model turn called keeps
 * its name and gets an id of its own, with a warning; it was once linked to
 * the call in its position and its name replaced (and leaked). */
Test(gemini_request, response_naming_another_tool_keeps_its_name)
{
    tw_request r;
    rd_ok("{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"q\"}]},"
          "{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"get_weather\","
          "\"args\":{}}}]},"
          "{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"name\":\"get_time\","
          "\"response\":{\"output\":\"noon\"}}}]}]}",
          &r);
    cr_assert_eq(r.nmessages, 3);
    const tw_message *m = &r.messages[2];
    cr_assert_eq(m->role, TW_ROLE_TOOL);
    cr_expect_str_eq(m->name, "get_time");
    cr_assert_not_null(m->tool_call_id);
    cr_expect_str_neq(m->tool_call_id, r.messages[1].calls[0].id);
    cr_expect(has_warning(&r, TW_D_NOT_CARRIED, "answers no call"));
    tw_request_free(&r);
}

/* The upper-case type names of Gemini's schema become JSON Schema's at every
 * schema position; data (enum, default) and parametersJsonSchema are kept. */
Test(gemini_request, schema_type_names_read_as_json_schema)
{
    tw_request r;
    rd_ok("{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"q\"}]}],"
          "\"tools\":[{\"functionDeclarations\":[{\"name\":\"f\",\"parameters\":{"
          "\"type\":\"OBJECT\",\"properties\":{\"k\":{\"type\":\"STRING\",\"enum\":"
          "[\"OBJECT\"],\"default\":{\"type\":\"ARRAY\"}},\"n\":{\"type\":\"ARRAY\","
          "\"items\":{\"type\":\"INTEGER\"}},\"u\":{\"anyOf\":[{\"type\":\"NUMBER\"},"
          "{\"type\":\"Boolean\"}]}}}},{\"name\":\"g\",\"parametersJsonSchema\":{"
          "\"type\":\"OBJECT\"}}]}]}",
          &r);
    cr_assert_eq(r.ntools, 2);
    char *got = tw_json_print(r.tools[0].parameters, NULL);
    cr_expect_str_eq(got, "{\"type\":\"object\",\"properties\":{\"k\":{\"type\":\"string\","
                          "\"enum\":[\"OBJECT\"],\"default\":{\"type\":\"ARRAY\"}},\"n\":{"
                          "\"type\":\"array\",\"items\":{\"type\":\"integer\"}},\"u\":{"
                          "\"anyOf\":[{\"type\":\"number\"},{\"type\":\"Boolean\"}]}}}");
    free(got);
    cr_expect_str_eq(tw_json_get_str(r.tools[1].parameters, "type"), "OBJECT");
    tw_request_free(&r);
}

Test(gemini_request, refusals_name_their_path)
{
    static const struct {
        const char *body;
        tw_status st;
        const char *path;
    } cases[] = {
        {"[]", TW_ERR_INVALID, ""},
        {"{}", TW_ERR_INVALID, "contents"},
        {"{\"contents\":[{\"role\":\"bot\",\"parts\":[]}]}", TW_ERR_INVALID, "contents[0].role"},
        {"{\"contents\":[{\"role\":\"user\"}]}", TW_ERR_INVALID, "contents[0].parts"},
        {"{\"contents\":[{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"f\","
         "\"args\":[1]}}]}]}",
         TW_ERR_INVALID, "contents[0].parts[0].functionCall.args"},
        {"{\"contents\":[{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"args\":{}}}]}]}",
         TW_ERR_INVALID, "contents[0].parts[0].functionCall.name"},
        {"{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"a\",\"functionCall\":{}}]}]}",
         TW_ERR_INVALID, "contents[0].parts[0]"},
        {"{\"contents\":[{\"role\":\"user\",\"parts\":[{\"functionCall\":{\"name\":\"f\"}}]}]}",
         TW_ERR_INVALID, "contents[0].parts[0]"},
        {"{\"contents\":[{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"name\":\"f\","
         "\"response\":\"x\"}}]}]}",
         TW_ERR_INVALID, "contents[0].parts[0].functionResponse.response"},
        {"{\"contents\":[],\"tools\":[{\"functionDeclarations\":[{\"name\":\"f\",\"parameters\":{},"
         "\"parametersJsonSchema\":{}}]}]}",
         TW_ERR_INVALID, "tools[0].functionDeclarations[0].parametersJsonSchema"},
        {"{\"contents\":[{\"parts\":[{\"text\":1}]}]}", TW_ERR_INVALID,
         "contents[0].parts[0].text"},
        {"{\"contents\":[", TW_ERR_PARSE, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tw_request r;
        tw_error e;
        cr_expect_eq(rd(cases[i].body, NULL, &r, &e), cases[i].st, "%s: %s", cases[i].body,
                     e.message);
        cr_expect_str_eq(e.path, cases[i].path, "%s: %s", cases[i].body, e.message);
        cr_expect_eq(r.nmessages, 0);
        cr_expect_eq(r.ntools, 0);
        cr_expect_eq(r.warnings.len, 0);
        tw_request_free(&r);
    }
}

Test(gemini_request, caps_refuse)
{
    tw_limits l;
    memset(&l, 0, sizeof l);
    l.max_tools = 1;
    tw_request r;
    tw_error e;
    cr_expect_eq(rd("{\"contents\":[],\"tools\":[{\"functionDeclarations\":[{\"name\":\"a\"}]},"
                    "{\"functionDeclarations\":[{\"name\":\"b\"}]}]}",
                    &l, &r, &e),
                 TW_ERR_LIMIT);
    cr_expect_str_eq(e.path, "tools");
    memset(&l, 0, sizeof l);
    l.max_calls = 1;
    cr_expect_eq(rd("{\"contents\":[{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":"
                    "\"a\"}},{\"functionCall\":{\"name\":\"b\"}}]}]}",
                    &l, &r, &e),
                 TW_ERR_LIMIT);
    cr_expect_eq(e.code, TW_D_TOO_MANY_CALLS);
    memset(&l, 0, sizeof l);
    l.max_args_bytes = 8;
    cr_expect_eq(rd("{\"contents\":[{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":"
                    "\"a\",\"args\":{\"k\":\"a long value\"}}}]}]}",
                    &l, &r, &e),
                 TW_ERR_LIMIT);
    cr_expect_eq(e.code, TW_D_ARGS_TOO_LARGE);
    memset(&l, 0, sizeof l);
    l.max_messages = 2;
    cr_expect_eq(rd("{\"contents\":[{\"parts\":[{\"text\":\"a\"},{\"functionResponse\":{\"name\":"
                    "\"f\",\"response\":{}}},{\"text\":\"b\"}]}]}",
                    &l, &r, &e),
                 TW_ERR_LIMIT);
    tw_request_free(&r);
}

/* ---- the requests of the real recordings ---- */

static bool load(const char *name, tw_cassette *c)
{
    const char *path = tw_test_shared(name);
    if (!path)
        return false;
    tw_error why;
    cr_assert_eq(tw_cassette_load(path, NULL, c, &why), TW_OK, "%s", why.message);
    return true;
}

static void read_recorded(const tw_cassette_request *q, tw_request *r)
{
    tw_error e;
    tw_status st = q->body.json ? tw_gemini_request_from_json(q->body.json, NULL, r, &e)
                                : tw_gemini_request_decode(q->body.data, q->body.len, NULL, r, &e);
    cr_assert_eq(st, TW_OK, "%s", e.message);
}

Test(gemini_request, real_function_call_then_result)
{
    tw_cassette c;
    if (!load("real-traffic/gemini__nonstream__function_call_then_result.yaml", &c))
        cr_skip("../shared/real-traffic is absent");
    cr_assert_eq(c.ninteractions, 2);
    tw_request r;
    read_recorded(&c.interactions[0].request, &r);
    cr_expect_eq(r.nmessages, 1);
    cr_expect_eq(r.ntools, 2);
    cr_expect_eq(r.choice, TW_CHOICE_REQUIRED, "ANY over every declared tool");
    cr_expect_eq(r.warnings.len, 0, "%s", r.warnings.len ? r.warnings.items[0].message : "");
    tw_request_free(&r);
    read_recorded(&c.interactions[1].request, &r);
    cr_assert_eq(r.nmessages, 3);
    cr_expect_eq(r.messages[1].role, TW_ROLE_ASSISTANT);
    cr_assert_eq(r.messages[1].ncalls, 1);
    cr_expect_str_eq(r.messages[1].calls[0].name, "get_user_country");
    cr_expect_str_eq(r.messages[1].calls[0].id, "pyd_ai_3fa5644dae1d4aad997ae39c70006fbd");
    cr_expect_eq(r.messages[2].role, TW_ROLE_TOOL);
    cr_expect_str_eq(r.messages[2].tool_call_id, "pyd_ai_3fa5644dae1d4aad997ae39c70006fbd");
    cr_expect_str_eq(r.messages[2].name, "get_user_country");
    cr_expect_str_eq(r.messages[2].content.data, "{\"return_value\":\"Mexico\"}");
    cr_expect_eq(r.warnings.len, 0, "%s", r.warnings.len ? r.warnings.items[0].message : "");
    tw_request_free(&r);
    tw_cassette_free(&c);
}

Test(gemini_request, real_thought_signature_turns)
{
    tw_cassette c;
    if (!load("real-traffic/gemini__stream__function_call_thought_signature.yaml", &c))
        cr_skip("../shared/real-traffic is absent");
    cr_assert_geq(c.ninteractions, 1);
    size_t sigs = 0, calls = 0;
    for (size_t i = 0; i < c.ninteractions; i++) {
        tw_request r;
        read_recorded(&c.interactions[i].request, &r);
        cr_expect_geq(r.nmessages, 1);
        cr_expect_geq(r.ntools, 1);
        for (size_t m = 0; m < r.nmessages; m++) {
            sigs += r.messages[m].thinking_signature != NULL;
            calls += r.messages[m].ncalls;
            if (r.messages[m].role == TW_ROLE_TOOL)
                cr_expect_not_null(r.messages[m].tool_call_id);
        }
        tw_request_free(&r);
    }
    if (c.ninteractions > 1) {
        cr_expect_geq(calls, 1, "the second turn sends the call back");
        cr_expect_geq(sigs, 1, "with its thought signature");
    }
    tw_cassette_free(&c);
}
