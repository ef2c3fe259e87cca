/*
 * The Gemma 4 prompt (gemma-4-prompt, docs/formats/gemma4.md "The prompt"):
 * what the renderings of tests/data/prompts/gemma-4 (test_dialect_prompts)
 * cannot say: the not_carried warnings and what they name, the refusals,
 * the reader's errors with their byte offsets, what the reader keeps as
 * text, how it links results to calls, its caps.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolwire/encode.h"
#include "toolwire/gemma.h"
#include "toolwire/json.h"
#include "twtest.h"

#define Q "<|\"|>"
/* the same inside a JSON string */
#define JQ "<|\\\"|>"

/* A neutral request from its JSON text. */
static void request_of(const char *json, tw_request *r)
{
    cJSON *j = NULL;
    tw_error e = {0};
    cr_assert_eq(tw_json_parse(json, strlen(json), 64, &j, &e), TW_OK, "%s", e.message);
    cr_assert_eq(tw_request_read(j, NULL, r, &e), TW_OK, "%s", e.message);
    cJSON_Delete(j);
}

/* Encode r; the status, the bytes (free()) and the warnings. */
static tw_status encode(const tw_request *r, char **out, size_t *len, tw_diag_list *w)
{
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    o.warnings = w;
    tw_buf b = {0};
    tw_status st = tw_gemma_prompt_encode(r, &o, &b);
    *out = tw_buf_take(&b, len);
    return st;
}

/* Is there a warning whose message holds every one of the (up to two)
 * pieces? */
static bool warned(const tw_diag_list *w, const char *a, const char *b)
{
    for (size_t i = 0; i < w->len; i++)
        if (strstr(w->items[i].message, a) && (!b || strstr(w->items[i].message, b)))
            return true;
    return false;
}

/* Read a prompt (an exact-size copy). */
static tw_status read_prompt(const char *s, tw_request *q, tw_error *e)
{
    char *in = tw_test_exact(s, strlen(s));
    tw_status st = tw_gemma_prompt_read(in, strlen(s), NULL, q, e);
    free(in);
    return st;
}

Test(gemma_prompt, schema_keywords_the_declaration_leaves_out_warn_by_path)
{
    tw_request r;
    request_of("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"tools\":[{\"name\":\"f\","
               "\"description\":\"d\",\"parameters\":{\"type\":\"object\",\"properties\":{"
               "\"n\":{\"type\":\"integer\",\"minimum\":1},\"type\":{\"type\":\"string\"},"
               "\"m\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}},"
               "\"k\":{\"type\":\"String\"}},\"additionalProperties\":false}}]}",
               &r);
    tw_diag_list w = {0};
    char *out;
    size_t n;
    cr_assert_eq(encode(&r, &out, &n, &w), TW_OK);
    cr_expect(warned(&w, "parameters.properties.n.minimum", "not carried"));
    cr_expect(warned(&w, "parameters.additionalProperties", "not carried"));
    /* a property named like a keyword: the template skips it */
    cr_expect(warned(&w, "parameters.properties.type", "not carried"));
    /* an object without properties: its members written as properties */
    cr_expect(warned(&w, "parameters.properties.m.properties", "read back where"));
    cr_expect(warned(&w, "parameters.properties.m.additionalProperties", "not carried"));
    /* a type not in lower case reads back in lower case */
    cr_expect(warned(&w, "parameters.properties.k.type", "read back otherwise"));
    cr_expect(strstr(out, "k:{type:" Q "STRING" Q "}") != NULL, "%s", out);
    cr_expect(strstr(out, "m:{properties:{additionalProperties:{type:" Q "STRING" Q "}},type:" Q
                          "OBJECT" Q "}") != NULL,
              "%s", out);
    free(out);
    tw_diag_list_free(&w);
    tw_request_free(&r);
}

Test(gemma_prompt, a_schema_it_cannot_spell_is_refused)
{
    static const char *const bad[] = {
        "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":{\"x\":1}}}}",
        "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"description\":5}}}",
        "{\"type\":\"object\",\"properties\":[1],\"required\":[\"a\"]}",
        "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"strïng\"}}}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char json[512];
        snprintf(json, sizeof json,
                 "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"tools\":[{\"name\":"
                 "\"f\",\"parameters\":%s}]}",
                 bad[i]);
        tw_request r;
        request_of(json, &r);
        tw_diag_list w = {0};
        char *out;
        size_t n;
        cr_expect_eq(encode(&r, &out, &n, &w), TW_ERR_INVALID, "%s", bad[i]);
        cr_expect_eq(n, 0, "%s", bad[i]);
        cr_expect(warned(&w, "refused", "tool f"), "%s", bad[i]);
        free(out);
        tw_diag_list_free(&w);
        tw_request_free(&r);
    }
}

Test(gemma_prompt, a_special_token_in_text_is_refused)
{
    static const char *const bad[] = {
        "{\"messages\":[{\"role\":\"user\",\"content\":\"a <turn|> b\"}]}",
        "{\"messages\":[{\"role\":\"system\",\"content\":\"x<|tool>y\"}]}",
        "{\"messages\":[{\"role\":\"user\",\"content\":\"q\"},{\"role\":\"assistant\","
        "\"content\":\"<|tool_call>call:f{}<tool_call|>\"}]}",
        "{\"messages\":[{\"role\":\"user\",\"content\":\"q\"},{\"role\":\"assistant\","
        "\"content\":\"\",\"tool_calls\":[{\"id\":\"call_1\",\"name\":\"f{g\",\"arguments\":{}}]"
        "}]}",
        "{\"messages\":[{\"role\":\"user\",\"content\":\"q\"},{\"role\":\"assistant\","
        "\"content\":\"\",\"tool_calls\":[{\"id\":\"call_1\",\"name\":\"f\",\"arguments\":{}}]},"
        "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"x" JQ
        "}<tool_response|>\"}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tw_request r;
        request_of(bad[i], &r);
        tw_diag_list w = {0};
        char *out;
        size_t n;
        cr_expect_eq(encode(&r, &out, &n, &w), TW_ERR_INVALID, "%s", bad[i]);
        cr_expect_eq(n, 0);
        cr_expect(warned(&w, "refused", "special token"), "%s", bad[i]);
        free(out);
        tw_diag_list_free(&w);
        tw_request_free(&r);
    }
}

Test(gemma_prompt, what_the_template_drops_warns)
{
    tw_request r;
    request_of("{\"model\":\"m\",\"tool_choice\":\"required\",\"options\":{\"temperature\":0.5,"
               "\"add_generation_prompt\":true},\"messages\":["
               "{\"role\":\"tool\",\"tool_call_id\":\"x\",\"content\":\"early\"},"
               "{\"role\":\"user\",\"content\":\" q \"},"
               "{\"role\":\"assistant\",\"content\":\"a\",\"thinking\":\"no calls\"},"
               "{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"id\":\"toolu_9\","
               "\"name\":\"f\",\"arguments\":{}}]},"
               "{\"role\":\"tool\",\"tool_call_id\":\"toolu_9\",\"name\":\"g\",\"is_error\":true,"
               "\"content\":\"r\"}]}",
               &r);
    tw_diag_list w = {0};
    char *out;
    size_t n;
    cr_assert_eq(encode(&r, &out, &n, &w), TW_OK);
    cr_expect(warned(&w, "model not carried", NULL));
    cr_expect(warned(&w, "tool_choice not carried", NULL));
    cr_expect(warned(&w, "options.temperature", NULL));
    cr_expect(warned(&w, "tool result 0 not carried", NULL));
    cr_expect(warned(&w, "white space at the ends of the content of message 1", NULL));
    cr_expect(warned(&w, "reasoning of message 2 not carried", NULL));
    cr_expect(warned(&w, "call id 'toolu_9' not carried", "call_1"));
    cr_expect(warned(&w, "name 'g' of tool result 4", NULL));
    cr_expect(warned(&w, "is_error of tool result 4", NULL));
    cr_expect(warned(&w, "add_generation_prompt not carried", NULL));
    cr_expect_str_eq(out, "<bos><|turn>user\nq<turn|>\n<|turn>model\na<turn|>\n"
                          "<|tool_call>call:f{}<tool_call|><|tool_response>response:f{value:" Q
                          "r" Q "}<tool_response|>");
    free(out);
    tw_diag_list_free(&w);
    tw_request_free(&r);
}

Test(gemma_prompt, results_link_to_the_calls_of_their_names_in_order)
{
    const char *p = "<bos><|turn>user\nq<turn|>\n<|turn>model\n"
                    "<|tool_call>call:a{}<tool_call|><|tool_call>call:b{}<tool_call|>"
                    "<|tool_call>call:a{x:1}<tool_call|>"
                    "<|tool_response>response:b{value:" Q "rb" Q "}<tool_response|>"
                    "<|tool_response>response:a{value:" Q "ra" Q "}<tool_response|>"
                    "<|tool_response>response:a{value:" Q "ra2" Q "}<tool_response|>"
                    "<|tool_response>response:zz{value:" Q "lost" Q "}<tool_response|>";
    tw_request q;
    tw_error e = {0};
    cr_assert_eq(read_prompt(p, &q, &e), TW_OK, "%s", e.message);
    cr_assert_eq(q.nmessages, 6);
    const tw_message *a = &q.messages[1];
    cr_assert_eq(a->ncalls, 3);
    cr_expect_str_eq(a->calls[2].id, "call_3");
    /* the k-th result answers the k-th call when the names agree, else the
     * first call of its name */
    cr_expect_str_eq(q.messages[2].tool_call_id, "call_2");
    cr_expect_str_eq(q.messages[3].tool_call_id, "call_1");
    cr_expect_str_eq(q.messages[4].tool_call_id, "call_3");
    cr_expect_str_eq(q.messages[4].name, "a");
    cr_expect_null(q.messages[5].tool_call_id);
    cr_expect(warned(&q.warnings, "names zz", NULL));
    tw_request_free(&q);
}

Test(gemma_prompt, the_reader_says_where_it_stops)
{
    static const struct {
        const char *in;
        long long at;
        const char *why;
    } bad[] = {
        {"<|turn>user\nq<turn|>\n", 0, "does not start with <bos>"},
        {"<bos><|turn>user\nq", 5, "not closed"},
        {"<bos><|turn>user\nq<turn|>\nhello", 26, "expected <|turn>user"},
        {"<bos><|turn>system\n<|tool>declaration:f{description:" Q "d" Q "}<turn|>\n", 19,
         "not ended by <tool|>"},
        {"<bos>", 0, "no turns"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tw_request q;
        tw_error e = {0};
        cr_expect_eq(read_prompt(bad[i].in, &q, &e), TW_ERR_INVALID, "%s", bad[i].in);
        cr_expect_eq(e.offset, bad[i].at, "%s: at %lld", bad[i].in, (long long)e.offset);
        cr_expect(strstr(e.message, bad[i].why) != NULL, "%s: %s", bad[i].in, e.message);
        cr_expect_eq(q.nmessages, 0);
        tw_request_free(&q);
    }
}

Test(gemma_prompt, what_does_not_read_as_a_call_is_kept_as_text)
{
    const char *p = "<bos><|turn>user\nq<turn|>\n<|turn>model\n"
                    "<|tool_call>call:f{a:" Q "open<turn|>\n";
    tw_request q;
    tw_error e = {0};
    cr_assert_eq(read_prompt(p, &q, &e), TW_OK, "%s", e.message);
    cr_assert_eq(q.nmessages, 2);
    cr_expect_eq(q.messages[1].ncalls, 0);
    const char *want = "<|tool_call>call:f{a:" Q "open";
    cr_expect(q.messages[1].content.len == strlen(want) &&
                  memcmp(q.messages[1].content.data, want, strlen(want)) == 0,
              "%.*s", (int)q.messages[1].content.len, q.messages[1].content.data);
    cr_expect(tw_diag_has(&q.warnings, TW_D_TOOL_CALL_JSON));
    tw_request_free(&q);
}

Test(gemma_prompt, the_reader_keeps_to_max_calls)
{
    char p[4096] = "<bos><|turn>user\nq<turn|>\n<|turn>model\n";
    for (int i = 0; i < 5; i++)
        strcat(p, "<|tool_call>call:f{}<tool_call|>");
    strcat(p, "<|tool_response>");
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits.max_calls = 4;
    tw_request q;
    tw_error e = {0};
    char *in = tw_test_exact(p, strlen(p));
    cr_expect_eq(tw_gemma_prompt_read(in, strlen(p), &o, &q, &e), TW_ERR_LIMIT);
    cr_expect(strstr(e.message, "max_calls") != NULL, "%s", e.message);
    cr_expect_eq(q.nmessages, 0);
    tw_request_free(&q);
    o.limits.max_calls = 5;
    cr_expect_eq(tw_gemma_prompt_read(in, strlen(p), &o, &q, &e), TW_OK, "%s", e.message);
    cr_expect_eq(q.messages[1].ncalls, 5);
    tw_request_free(&q);
    free(in);
}
