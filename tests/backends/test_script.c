/* The scripted reference model (harness/backends/script.c), the reference answers
 * built from it (harness/backends/mock_ref.c) and the mock backend's script profile. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "client.h"
#include "mock.h"
#include "mock_ref.h"
#include "run.h"
#include "script.h"
#include "toolwire/request.h"
#include "toolwire/schema.h"

#define SCHEMA_W                                                                                   \
    "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"},\"unit\":{\"type\":"      \
    "\"string\",\"enum\":[\"c\",\"f\"]}},\"required\":[\"city\",\"unit\"],"                        \
    "\"additionalProperties\":false}"
#define SCHEMA_T                                                                                   \
    "{\"type\":\"object\",\"properties\":{\"tz\":{\"type\":\"string\",\"minLength\":3}},"          \
    "\"required\":[\"tz\"]}"
#define OAI_TOOLS                                                                                  \
    "[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"parameters\":" SCHEMA_W      \
    "}},"                                                                                          \
    "{\"type\":\"function\",\"function\":{\"name\":\"get_time\",\"parameters\":" SCHEMA_T "}}]"
#define ANT_TOOLS                                                                                  \
    "[{\"name\":\"get_weather\",\"input_schema\":" SCHEMA_W "},"                                   \
    "{\"name\":\"get_time\",\"input_schema\":" SCHEMA_T "}]"
#define RSP_TOOLS                                                                                  \
    "[{\"type\":\"function\",\"name\":\"get_weather\",\"parameters\":" SCHEMA_W "},"               \
    "{\"type\":\"function\",\"name\":\"get_time\",\"parameters\":" SCHEMA_T "}]"
#define GEN_TOOLS                                                                                  \
    "[{\"name\":\"get_weather\",\"parameters\":" SCHEMA_W "},"                                     \
    "{\"name\":\"get_time\",\"parameters\":" SCHEMA_T "}]"

/* A directive as it sits in a JSON string (quotes escaped). */
#define DIR_CALL                                                                                   \
    "toolwire-script {\\\"nonce\\\":\\\"t-call-1\\\",\\\"steps\\\":[{\\\"reasoning\\\":\\\"Need "  \
    "the weather.\\\",\\\"text\\\":\\\"Checking.\\\",\\\"calls\\\":[{\\\"name\\\":"                \
    "\\\"get_weather\\\",\\\"arguments\\\":{\\\"city\\\":\\\"Paris\\\",\\\"unit\\\":\\\"c\\\"}}]}" \
    ","                                                                                            \
    "{\\\"text\\\":\\\"It is 18 C in Paris.\\\"}]}"

#define CALL_PARIS                                                                                 \
    "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": "                                     \
    "{\"city\":\"Paris\",\"unit\":\"c\"}}\n"                                                       \
    "</tool_call>"

static void decode_o(const char *body, tw_request *req)
{
    tw_error err;
    memset(&err, 0, sizeof err);
    tw_status st = tw_openai_request_decode(body, strlen(body), NULL, req, &err);
    cr_assert_eq(st, TW_OK, "request: %s", err.message);
}

static void decode_a(const char *body, tw_request *req)
{
    tw_error err;
    memset(&err, 0, sizeof err);
    tw_status st = tw_anthropic_request_decode(body, strlen(body), NULL, req, &err);
    cr_assert_eq(st, TW_OK, "request: %s", err.message);
}

/* The answer to an OpenAI request body; st is what the script must return. */
static void answer_o(const char *body, tw_status want, tw_script_answer *a, tw_error *err)
{
    tw_request req;
    decode_o(body, &req);
    tw_status st = tw_script_answer_for(&req, NULL, a, err);
    tw_request_free(&req);
    cr_assert_eq(st, want, "got %s: %s", tw_code_name(st), err->message);
}

static const char *text_of(const tw_script_answer *a)
{
    return a->model_text.data ? a->model_text.data : "";
}

/* ---- directive parsing ---- */

Test(script_directive, in_user_text_step_0)
{
    tw_error why = {.offset = -1};
    tw_script_answer a;
    answer_o("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"What is the weather "
             "in Paris? " DIR_CALL " Thanks.\"}],\"tools\":" OAI_TOOLS "}",
             TW_OK, &a, &why);
    cr_assert_eq(a.step, 0);
    cr_assert_str_eq(a.nonce, "t-call-1");
    cr_assert(a.reasoning);
    cr_assert_str_eq(text_of(&a), "<think>Need the weather.</think>Checking.\n" CALL_PARIS);
    tw_script_answer_free(&a);
}

Test(script_directive, in_system_text_parts)
{
    tw_error why = {.offset = -1};
    tw_script_answer a;
    answer_o("{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":[{\"type\":\"text\","
             "\"text\":\"You are helpful.\"},{\"type\":\"text\",\"text\":\"" DIR_CALL "\"}]},"
             "{\"role\":\"user\",\"content\":\"Weather?\"}],\"tools\":" OAI_TOOLS "}",
             TW_OK, &a, &why);
    cr_assert_eq(a.step, 0);
    cr_assert_str_eq(a.nonce, "t-call-1");
    tw_script_answer_free(&a);
}

Test(script_directive, anthropic_system_blocks)
{
    tw_request req;
    decode_a(
        "{\"model\":\"c\",\"max_tokens\":10,\"system\":[{\"type\":\"text\",\"text\":\"" DIR_CALL
        "\"}],\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Hi\"}]}],"
        "\"tools\":" ANT_TOOLS "}",
        &req);
    char *n = tw_script_nonce(&req);
    cr_assert_str_eq(n, "t-call-1");
    free(n);
    tw_script_answer a;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_script_answer_for(&req, NULL, &a, &why), TW_OK, "%s", why.message);
    cr_assert_eq(a.step, 0);
    tw_request_free(&req);
    tw_script_answer_free(&a);
}

/* The latest message holding a directive counts; older ones are ignored. */
Test(script_directive, latest_message_counts)
{
    tw_error why = {.offset = -1};
    tw_script_answer a;
    answer_o(
        "{\"model\":\"m\",\"messages\":["
        "{\"role\":\"user\",\"content\":\"toolwire-script {\\\"nonce\\\":\\\"old\\\",\\\"text\\\":"
        "\\\"old answer\\\"}\"},"
        "{\"role\":\"assistant\",\"content\":\"old answer\"},"
        "{\"role\":\"user\",\"content\":\"again toolwire-script\\n{\\\"nonce\\\":\\\"new\\\","
        "\\\"text\\\":\\\"new answer\\\"}\"}]}",
        TW_OK, &a, &why);
    cr_assert_str_eq(a.nonce, "new");
    cr_assert_eq(a.step, 0);
    cr_assert_str_eq(text_of(&a), "new answer");
    tw_script_answer_free(&a);
}

/* Within one message the last directive counts (a correction written after
 * a first attempt); a mention of the word without an object is no directive. */
Test(script_directive, last_directive_of_a_message_counts)
{
    tw_error why = {.offset = -1};
    tw_script_answer a;
    answer_o("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"toolwire-script "
             "{\\\"nonce\\\":\\\"first\\\",\\\"text\\\":\\\"first answer\\\"} no, rather "
             "toolwire-script {\\\"nonce\\\":\\\"second\\\",\\\"text\\\":\\\"second "
             "answer\\\"} (toolwire-script is the word)\"}]}",
             TW_OK, &a, &why);
    cr_assert_str_eq(a.nonce, "second");
    cr_assert_str_eq(text_of(&a), "second answer");
    tw_script_answer_free(&a);
}

/* A nonce is 1 to TW_SCRIPT_NONCE_MAX characters: one more is refused. */
Test(script_directive, nonce_length_bounded)
{
    for (int extra = 0; extra < 2; extra++) {
        size_t n = TW_SCRIPT_NONCE_MAX + (size_t)extra;
        char *nonce = malloc(n + 1);
        cr_assert_not_null(nonce);
        memset(nonce, 'k', n);
        nonce[n] = '\0';
        tw_buf body = {0};
        cr_assert_eq(tw_buf_printf(&body,
                                   "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":"
                                   "\"toolwire-script {\\\"nonce\\\":\\\"%s\\\",\\\"text\\\":"
                                   "\\\"ok\\\"}\"}]}",
                                   nonce),
                     TW_OK);
        tw_request req;
        decode_o(body.data, &req);
        char *got = tw_script_nonce(&req);
        tw_script_answer a;
        tw_error why = {.offset = -1};
        tw_status st = tw_script_answer_for(&req, NULL, &a, &why);
        if (extra) {
            cr_expect_null(got, "a nonce of %zu characters was taken", n);
            cr_expect_eq(st, TW_ERR_INVALID, "%s", why.message);
            cr_expect(strstr(why.message, ".nonce: must be a string of 1 to"), "%s", why.message);
        } else {
            cr_expect(got && strcmp(got, nonce) == 0, "a nonce of %zu characters", n);
            cr_expect_eq(st, TW_OK, "%s", why.message);
        }
        if (st == TW_OK)
            tw_script_answer_free(&a);
        free(got);
        tw_request_free(&req);
        tw_buf_free(&body);
        free(nonce);
    }
}

/* The step is the number of assistant messages after the directive. */
Test(script_directive, steps_by_turn)
{
    const char *head = "{\"model\":\"m\",\"tools\":" OAI_TOOLS ",\"messages\":["
                       "{\"role\":\"user\",\"content\":\"" DIR_CALL "\"}";
    const char *turn1 =
        ",{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\","
        "\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":"
        "\"{\\\"city\\\":\\\"Paris\\\",\\\"unit\\\":\\\"c\\\"}\"}}]},"
        "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"18 C\"}";
    const char *turn2 = ",{\"role\":\"assistant\",\"content\":\"It is 18 C in Paris.\"},"
                        "{\"role\":\"user\",\"content\":\"And tomorrow?\"}";
    char body[4096];
    tw_error why = {.offset = -1};
    tw_script_answer a;
    snprintf(body, sizeof body, "%s%s]}", head, turn1);
    answer_o(body, TW_OK, &a, &why);
    cr_assert_eq(a.step, 1);
    cr_assert_not(a.reasoning);
    cr_assert_str_eq(text_of(&a), "It is 18 C in Paris.");
    tw_script_answer_free(&a);
    /* past the last step: the default policy, the nonce still known */
    snprintf(body, sizeof body, "%s%s%s]}", head, turn1, turn2);
    answer_o(body, TW_OK, &a, &why);
    cr_assert_eq(a.step, -1);
    cr_assert_str_eq(a.nonce, "t-call-1");
    cr_assert_str_eq(text_of(&a), TW_SCRIPT_DEFAULT_TEXT);
    tw_script_answer_free(&a);
}

Test(script_directive, model_text_step_verbatim)
{
    tw_error why = {.offset = -1};
    tw_script_answer a;
    answer_o(
        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"toolwire-script "
        "{\\\"steps\\\":[{\\\"model_text\\\":\\\"<tool_call>\\\\n{\\\\\\\"name\\\\\\\": "
        "\\\\\\\"get_time\\\\\\\", \\\\\\\"arguments\\\\\\\": {\\\\\\\"tz\\\\\\\": \\\"}]}\"}]}",
        TW_OK, &a, &why);
    cr_assert_eq(a.step, 0);
    cr_assert_null(a.nonce);
    cr_assert_str_eq(text_of(&a), "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"tz\": ");
    tw_script_answer_free(&a);
}

/* A string as arguments is written as is: a malformed payload can be scripted. */
Test(script_directive, string_arguments_as_is)
{
    tw_error why = {.offset = -1};
    tw_script_answer a;
    answer_o(
        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"toolwire-script "
        "{\\\"calls\\\":[{\\\"name\\\":\\\"get_time\\\",\\\"arguments\\\":\\\"{tz: 1,}\\\"}]}\"}]}",
        TW_OK, &a, &why);
    cr_assert_str_eq(
        text_of(&a),
        "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {tz: 1,}}\n</tool_call>");
    tw_script_answer_free(&a);
}

/* The word without whitespace and an object after it is a mention. */
Test(script_directive, mention_is_not_a_directive)
{
    tw_error why = {.offset = -1};
    tw_script_answer a;
    answer_o("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"What is "
             "toolwire-script? And toolwire-script{\\\"text\\\":\\\"x\\\"}\"}]}",
             TW_OK, &a, &why);
    cr_assert_eq(a.step, -1);
    cr_assert_null(a.nonce);
    cr_assert_str_eq(text_of(&a), TW_SCRIPT_DEFAULT_TEXT);
    tw_script_answer_free(&a);
}

typedef struct bad_case {
    const char *content; /* JSON string contents of the user message */
    tw_status st;
    const char *says; /* part of why */
} bad_case;

Test(script_directive, malformed_is_a_clear_error)
{
    static const bad_case cases[] = {
        {"toolwire-script {\\\"text\\\": \\\"x\\\"", TW_ERR_PARSE, "the text ends inside it"},
        {"toolwire-script {\\\"text\\\" \\\"x\\\"}", TW_ERR_PARSE, "not one JSON object"},
        {"toolwire-script {\\\"step\\\": []}", TW_ERR_INVALID, "unknown key 'step'"},
        {"toolwire-script {\\\"steps\\\": [{\\\"calls\\\": [{\\\"name\\\": \\\"f\\\", "
         "\\\"arguments\\\": 3}]}]}",
         TW_ERR_INVALID, "steps[0].calls[0].arguments: must be an object"},
        {"toolwire-script {\\\"steps\\\": [{\\\"text\\\": \\\"a\\\", \\\"model_text\\\": "
         "\\\"b\\\"}]}",
         TW_ERR_INVALID, "model_text stands alone"},
        {"toolwire-script {\\\"nonce\\\": \\\"has space\\\"}", TW_ERR_INVALID, "nonce"},
        {"toolwire-script {\\\"calls\\\": [{\\\"arguments\\\": {}}]}", TW_ERR_INVALID,
         "calls[0].name: a non-empty string is required"},
        {"toolwire-script {\\\"steps\\\": [], \\\"text\\\": \\\"x\\\"}", TW_ERR_INVALID,
         "not both"},
        {"toolwire-script {\\\"text\\\": 5}", TW_ERR_INVALID, ".text: must be a string"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char body[1024];
        snprintf(body, sizeof body,
                 "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},"
                 "{\"role\":\"assistant\",\"content\":\"hello\"},"
                 "{\"role\":\"user\",\"content\":\"%s\"}]}",
                 cases[i].content);
        tw_error why = {.offset = -1};
        tw_script_answer a;
        answer_o(body, cases[i].st, &a, &why);
        cr_expect(strstr(why.message, "messages[2]") != NULL, "case %zu: %s", i, why.message);
        cr_expect(strstr(why.message, cases[i].says) != NULL, "case %zu: want '%s' in: %s", i,
                  cases[i].says, why.message);
        cr_assert_eq(a.model_text.len, 0);
        cr_assert_null(a.nonce);
    }
}

/* Directive size, steps, calls, argument bytes and depth come from tw_limits. */
Test(script_directive, bounded_by_limits)
{
    tw_request req;
    decode_o("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"toolwire-script "
             "{\\\"steps\\\":[{\\\"calls\\\":[{\\\"name\\\":\\\"a\\\",\\\"arguments\\\":{\\\"x\\\":"
             "[[[1]]]}},{\\\"name\\\":\\\"b\\\"},{\\\"name\\\":\\\"c\\\"}]},{},{}]}\"}]}",
             &req);
    struct {
        tw_limits L;
        const char *says;
    } cases[4];
    memset(cases, 0, sizeof cases);
    cases[0].L.max_calls = 2;
    cases[0].says = "more than max_calls (2)";
    cases[1].L.max_messages = 2;
    cases[1].says = "more than max_messages (2) steps";
    cases[2].L.max_args_bytes = 8;
    cases[2].says = "longer than max_args_bytes (8)";
    cases[3].L.max_depth = 4;
    cases[3].says = "deeper than max_depth (4)";
    for (size_t i = 0; i < 4; i++) {
        tw_error why = {.offset = -1};
        tw_script_answer a;
        tw_status st = tw_script_answer_for(&req, &cases[i].L, &a, &why);
        cr_expect_eq(st, TW_ERR_LIMIT, "case %zu: %s", i, why.message);
        cr_expect(strstr(why.message, cases[i].says) != NULL, "case %zu: %s", i, why.message);
    }
    /* within the limits */
    tw_error why = {.offset = -1};
    tw_script_answer a;
    cr_assert_eq(tw_script_answer_for(&req, NULL, &a, &why), TW_OK, "%s", why.message);
    cr_assert_eq(a.step, 0);
    tw_script_answer_free(&a);
    tw_request_free(&req);
    /* a directive longer than max_input_bytes */
    decode_o("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"toolwire-script "
             "{\\\"text\\\":\\\"0123456789012345678901234567890123456789\\\"}\"}]}",
             &req);
    tw_limits small;
    memset(&small, 0, sizeof small);
    small.max_input_bytes = 16;
    cr_assert_eq(tw_script_answer_for(&req, &small, &a, &why), TW_ERR_LIMIT);
    cr_assert(strstr(why.message, "longer than max_input_bytes (16)") != NULL, "%s", why.message);
    tw_request_free(&req);
}

Test(script_directive, nonce)
{
    tw_request req;
    decode_o("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", &req);
    cr_assert_null(tw_script_nonce(&req));
    tw_request_free(&req);
    decode_o("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"toolwire-script "
             "{\\\"nonce\\\":\\\"live-openai-required-1\\\"}\"},{\"role\":\"assistant\","
             "\"content\":\"x\"},{\"role\":\"user\",\"content\":\"more\"}]}",
             &req);
    char *n = tw_script_nonce(&req);
    cr_assert_str_eq(n, "live-openai-required-1");
    free(n);
    tw_request_free(&req);
    /* a directive in a tool result or an assistant message is not read */
    decode_o("{\"model\":\"m\",\"messages\":[{\"role\":\"assistant\",\"content\":\"toolwire-script "
             "{\\\"nonce\\\":\\\"a\\\"}\"}]}",
             &req);
    cr_assert_null(tw_script_nonce(&req));
    tw_request_free(&req);
    decode_o("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"},"
             "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\",\"type\":"
             "\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]},"
             "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"toolwire-script "
             "{\\\"nonce\\\":\\\"t\\\",\\\"text\\\":\\\"steered\\\"}\"}]}",
             &req);
    cr_assert_null(tw_script_nonce(&req));
    tw_script_answer a;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_script_answer_for(&req, NULL, &a, &why), TW_OK, "%s", why.message);
    cr_assert_eq(a.step, -1);
    cr_assert(strncmp(text_of(&a), TW_SCRIPT_RESULT_PREFIX, strlen(TW_SCRIPT_RESULT_PREFIX)) == 0);
    tw_script_answer_free(&a);
    tw_request_free(&req);
}

/* ---- the default policy ---- */

static void check_call(const tw_script_answer *a, const char *tool, const char *schema)
{
    const char *t = text_of(a);
    const char *open = strstr(t, "<tool_call>\n");
    cr_assert_not_null(open, "no call in: %s", t);
    const char *close = strstr(open, "\n</tool_call>");
    cr_assert_not_null(close);
    open += strlen("<tool_call>\n");
    cJSON *j = cJSON_ParseWithLength(open, (size_t)(close - open));
    cr_assert_not_null(j, "call JSON: %s", t);
    cr_assert_str_eq(tw_json_get_str(j, "name"), tool);
    cJSON *s = cJSON_Parse(schema);
    tw_error se;
    cr_assert(tw_schema_validate(s, tw_json_get(j, "arguments"), 64, &se), "%s", se.message);
    cJSON_Delete(s);
    cJSON_Delete(j);
}

Test(script_policy, named_choice_calls_that_tool)
{
    tw_error why = {.offset = -1};
    tw_script_answer a;
    answer_o("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Time?\"}],"
             "\"tools\":" OAI_TOOLS
             ",\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"get_time\"}}}",
             TW_OK, &a, &why);
    cr_assert_eq(a.step, -1);
    cr_assert_not(a.reasoning);
    check_call(&a, "get_time", SCHEMA_T);
    cr_assert_str_eq(
        text_of(&a),
        "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"tz\":\"example\"}}\n</tool_call>");
    tw_script_answer_free(&a);
}

Test(script_policy, required_calls_first_tool)
{
    tw_error why = {.offset = -1};
    tw_script_answer a;
    answer_o("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Go\"}],"
             "\"tools\":" OAI_TOOLS ",\"tool_choice\":\"required\"}",
             TW_OK, &a, &why);
    check_call(&a, "get_weather", SCHEMA_W);
    cr_assert(strstr(text_of(&a), "{\"city\":\"example\",\"unit\":\"c\"}") != NULL, "%s",
              text_of(&a));
    tw_script_answer_free(&a);
}

Test(script_policy, auto_and_none_give_text)
{
    static const char *const choices[] = {"\"auto\"", "\"none\"", NULL};
    for (size_t i = 0; i < 3; i++) {
        char body[2048];
        snprintf(body, sizeof body,
                 "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Go\"}],"
                 "\"tools\":" OAI_TOOLS "%s%s}",
                 choices[i] ? ",\"tool_choice\":" : "", choices[i] ? choices[i] : "");
        tw_error why = {.offset = -1};
        tw_script_answer a;
        answer_o(body, TW_OK, &a, &why);
        cr_assert_str_eq(text_of(&a), TW_SCRIPT_DEFAULT_TEXT);
        tw_script_answer_free(&a);
    }
}

/* After a tool result: a text quoting its start (its first line, up to the
 * first '<', whole UTF-8 characters, at most TW_SCRIPT_QUOTE_MAX bytes). */
Test(script_policy, tool_result_quoted)
{
    const char *head = "{\"model\":\"m\",\"tools\":" OAI_TOOLS ",\"messages\":["
                       "{\"role\":\"user\",\"content\":\"Weather?\"},"
                       "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\","
                       "\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":"
                       "\"{}\"}}]},{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":";
    struct {
        const char *content, *quote;
    } cases[] = {
        {"\"18 C and sunny\\nmore lines\"", "18 C and sunny"},
        {"\"ok <tool_call>{\\\"name\\\":\\\"x\\\"}</tool_call>\"", "ok "},
        {"\"\\u00e9t\\u00e9 \\u00e9t\\u00e9 \\u00e9t\\u00e9 \\u00e9t\\u00e9 \\u00e9t\\u00e9 "
         "\\u00e9t\\u00e9 \\u00e9t\\u00e9 \\u00e9t\\u00e9 \\u00e9t\\u00e9 \\u00e9t\\u00e9 "
         "\\u00e9t\\u00e9 "
         "\\u00e9t\\u00e9 \\u00e9t\\u00e9 \\u00e9t\\u00e9\"",
         /* 13 times "été " (6 bytes each) and one "é": 80 bytes */
         "\xc3\xa9t\xc3\xa9 \xc3\xa9t\xc3\xa9 \xc3\xa9t\xc3\xa9 \xc3\xa9t\xc3\xa9 "
         "\xc3\xa9t\xc3\xa9 "
         "\xc3\xa9t\xc3\xa9 \xc3\xa9t\xc3\xa9 \xc3\xa9t\xc3\xa9 \xc3\xa9t\xc3\xa9 "
         "\xc3\xa9t\xc3\xa9 "
         "\xc3\xa9t\xc3\xa9 \xc3\xa9t\xc3\xa9 \xc3\xa9t\xc3\xa9 \xc3\xa9"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char body[4096];
        snprintf(body, sizeof body, "%s%s}]}", head, cases[i].content);
        tw_error why = {.offset = -1};
        tw_script_answer a;
        answer_o(body, TW_OK, &a, &why);
        char want[300];
        snprintf(want, sizeof want, TW_SCRIPT_RESULT_PREFIX "\"%s\"", cases[i].quote);
        cr_assert_str_eq(text_of(&a), want, "case %zu", i);
        cr_assert_leq(strlen(cases[i].quote), TW_SCRIPT_QUOTE_MAX);
        if (i == 2)
            cr_assert_eq(strlen(cases[i].quote), TW_SCRIPT_QUOTE_MAX);
        tw_script_answer_free(&a);
    }
}

Test(script_policy, refusals)
{
    tw_error why = {.offset = -1};
    tw_script_answer a;
    answer_o("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Go\"}],"
             "\"tool_choice\":\"required\"}",
             TW_ERR_INVALID, &a, &why);
    cr_assert(strstr(why.message, "declares no tools") != NULL, "%s", why.message);
    /* a schema no value satisfies */
    answer_o(
        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Go\"}],\"tools\":[{"
        "\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":{\"type\":\"object\","
        "\"properties\":{\"n\":{\"type\":\"integer\",\"minimum\":10,\"maximum\":5}},"
        "\"required\":[\"n\"]}}}],\"tool_choice\":\"required\"}",
        TW_ERR_INVALID, &a, &why);
    cr_assert(strstr(why.message, "tools['f'].parameters") != NULL, "%s", why.message);
    cr_assert(strstr(why.message, "/n: no integer satisfies the bounds") != NULL, "%s",
              why.message);
}

/* A named choice of an undeclared tool (the decoder may accept it). */
Test(script_policy, named_tool_not_declared)
{
    tw_request req;
    memset(&req, 0, sizeof req);
    req.parallel_tool_calls = -1;
    req.choice = TW_CHOICE_NAMED;
    req.choice_name = strdup("missing");
    tw_error why = {.offset = -1};
    tw_script_answer a;
    cr_assert_eq(tw_script_answer_for(&req, NULL, &a, &why), TW_ERR_INVALID);
    cr_assert(strstr(why.message, "'missing', which is not a declared tool") != NULL, "%s",
              why.message);
    tw_request_free(&req);
}

Test(script_policy, reasoning_from_options)
{
    static const struct {
        const char *extra;
        bool on;
    } cases[] = {
        {"", false},
        {",\"reasoning_effort\":\"high\"", true},
        {",\"reasoning_effort\":\"low\"", true},
        {",\"reasoning_effort\":\"none\"", false},
        {",\"reasoning_effort\":\"minimal\"", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char body[512];
        snprintf(body, sizeof body,
                 "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]%s}",
                 cases[i].extra);
        tw_error why = {.offset = -1};
        tw_script_answer a;
        answer_o(body, TW_OK, &a, &why);
        cr_assert_eq(a.reasoning, cases[i].on, "case %zu", i);
        cr_assert_eq(strncmp(text_of(&a), "<think>" TW_SCRIPT_DEFAULT_REASONING "</think>", 7) == 0,
                     cases[i].on, "case %zu: %s", i, text_of(&a));
        tw_script_answer_free(&a);
    }
}

Test(script_policy, deterministic)
{
    const char *body = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Go\"}],"
                       "\"tools\":" OAI_TOOLS ",\"tool_choice\":\"required\","
                       "\"reasoning_effort\":\"high\"}";
    tw_error why = {.offset = -1};
    tw_script_answer a, b;
    answer_o(body, TW_OK, &a, &why);
    answer_o(body, TW_OK, &b, &why);
    cr_assert_eq(a.model_text.len, b.model_text.len);
    cr_assert(memcmp(a.model_text.data, b.model_text.data, a.model_text.len) == 0);
    tw_script_answer_free(&a);
    tw_script_answer_free(&b);
    /* and the encoded answers */
    tw_limits L;
    tw_limits_resolve(&L, NULL);
    cJSON *j = cJSON_Parse(body);
    tw_ref_answer r1, r2;
    tw_ref_answer_script('o', j, &L, &r1);
    tw_ref_answer_script('o', j, &L, &r2);
    cr_assert_eq(r1.status, 200, "%s", r1.why);
    cr_assert_eq(r1.body.len, r2.body.len);
    cr_assert(memcmp(r1.body.data, r2.body.data, r1.body.len) == 0);
    tw_ref_answer_free(&r1);
    tw_ref_answer_free(&r2);
    cJSON_Delete(j);
}

/* ---- arguments generated from JSON Schemas ---- */

static cJSON *gen_ok(const char *schema)
{
    cJSON *s = cJSON_Parse(schema);
    cr_assert_not_null(s, "schema: %s", schema);
    cJSON *v = NULL;
    tw_error why = {.offset = -1};
    tw_status st = tw_script_schema_args(s, NULL, &v, &why);
    cr_assert_eq(st, TW_OK, "%s: %s", schema, why.message);
    tw_error ve;
    cr_assert(tw_schema_validate(s, v, 64, &ve), "%s: %s", schema, ve.message);
    cJSON_Delete(s);
    return v;
}

static double num_at(const cJSON *v, const char *key)
{
    const cJSON *n = tw_json_get(v, key);
    cr_assert(cJSON_IsNumber(n), "%s is not a number", key);
    return n->valuedouble;
}

Test(script_schema, enum_const_and_required)
{
    cJSON *v = gen_ok("{\"type\":\"object\",\"properties\":{\"u\":{\"type\":\"string\",\"enum\":"
                      "[\"kelvin\",\"c\"]},\"k\":{\"const\":42},\"opt\":{\"type\":\"string\"}},"
                      "\"required\":[\"u\",\"k\",\"u\"],\"additionalProperties\":false}");
    /* each required property once, in the order "required" lists them */
    cr_assert_eq(cJSON_GetArraySize(v), 2);
    cr_assert_str_eq(v->child->string, "u");
    cr_assert_str_eq(v->child->next->string, "k");
    cr_assert_str_eq(tw_json_get_str(v, "u"), "kelvin");
    cr_assert_eq(num_at(v, "k"), 42);
    cr_assert_null(tw_json_get(v, "opt"), "only required properties");
    cJSON_Delete(v);
}

Test(script_schema, nested_object_and_array)
{
    cJSON *v =
        gen_ok("{\"type\":\"object\",\"required\":[\"who\",\"tags\"],\"properties\":{"
               "\"who\":{\"type\":\"object\",\"required\":[\"name\",\"age\"],\"properties\":{"
               "\"name\":{\"type\":\"string\"},\"age\":{\"type\":\"integer\"}},"
               "\"additionalProperties\":false},"
               "\"tags\":{\"type\":\"array\",\"minItems\":3,\"items\":{\"type\":\"object\","
               "\"required\":[\"id\"],\"properties\":{\"id\":{\"type\":[\"null\",\"integer\"],"
               "\"minimum\":7}}}}}}");
    const cJSON *who = tw_json_get(v, "who");
    cr_assert(cJSON_IsObject(who));
    cr_assert(cJSON_IsString(tw_json_get(who, "name")));
    cr_assert_eq(num_at(who, "age"), 0);
    const cJSON *tags = tw_json_get(v, "tags");
    cr_assert_eq(cJSON_GetArraySize(tags), 3);
    cr_assert_eq(num_at(cJSON_GetArrayItem(tags, 2), "id"), 7);
    cJSON_Delete(v);
}

Test(script_schema, integer_and_number_bounds)
{
    cJSON *v = gen_ok("{\"type\":\"object\",\"required\":[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\","
                      "\"g\"],\"properties\":{"
                      "\"a\":{\"type\":\"integer\",\"minimum\":5,\"maximum\":10},"
                      "\"b\":{\"type\":\"integer\",\"exclusiveMinimum\":5},"
                      "\"c\":{\"type\":\"integer\",\"minimum\":10,\"maximum\":30,\"multipleOf\":7},"
                      "\"d\":{\"type\":\"integer\",\"maximum\":-3},"
                      "\"e\":{\"type\":\"number\",\"exclusiveMinimum\":0,\"exclusiveMaximum\":1},"
                      "\"f\":{\"type\":\"integer\",\"minimum\":2,\"exclusiveMinimum\":true},"
                      "\"g\":{\"type\":\"number\",\"minimum\":-2.5}}}");
    cr_assert_eq(num_at(v, "a"), 5);
    cr_assert_eq(num_at(v, "b"), 6);
    cr_assert_eq(num_at(v, "c"), 14);
    cr_assert_eq(num_at(v, "d"), -3);
    double e = num_at(v, "e");
    cr_assert(e > 0 && e < 1, "e = %g", e);
    cr_assert_eq(num_at(v, "f"), 3);
    cr_assert_eq(num_at(v, "g"), 0);
    cJSON_Delete(v);
}

Test(script_schema, strings_and_alternatives)
{
    cJSON *v = gen_ok("{\"type\":\"object\",\"required\":[\"s\",\"t\",\"d\",\"any\",\"b\",\"n\"],"
                      "\"properties\":{\"s\":{\"type\":\"string\",\"minLength\":12},"
                      "\"t\":{\"type\":\"string\",\"maxLength\":2},"
                      "\"d\":{\"type\":\"string\",\"format\":\"date\"},"
                      "\"any\":{\"anyOf\":[{\"type\":\"boolean\"},{\"type\":\"string\"}]},"
                      "\"b\":{\"type\":\"boolean\"},\"n\":{\"type\":\"null\"}}}");
    cr_assert_str_eq(tw_json_get_str(v, "s"), "examplexxxxx");
    cr_assert_str_eq(tw_json_get_str(v, "t"), "ex");
    cr_assert_str_eq(tw_json_get_str(v, "d"), "2024-01-01");
    cr_assert(cJSON_IsTrue(tw_json_get(v, "any")));
    cr_assert(cJSON_IsNull(tw_json_get(v, "n")));
    cJSON_Delete(v);
    /* a required name that only additionalProperties describes */
    v = gen_ok("{\"type\":\"object\",\"required\":[\"extra\"],\"properties\":{},"
               "\"additionalProperties\":{\"type\":\"integer\",\"minimum\":4}}");
    cr_assert_eq(num_at(v, "extra"), 4);
    cJSON_Delete(v);
}

Test(script_schema, bounded)
{
    tw_error why = {.offset = -1};
    cJSON *v = NULL;
    /* a string longer than max_args_bytes */
    cJSON *s = cJSON_Parse("{\"type\":\"object\",\"required\":[\"s\"],\"properties\":{\"s\":"
                           "{\"type\":\"string\",\"minLength\":1000000000}}}");
    cr_assert_eq(tw_script_schema_args(s, NULL, &v, &why), TW_ERR_LIMIT);
    cr_assert(strstr(why.message, "/s: minLength") != NULL, "%s", why.message);
    cJSON_Delete(s);
    /* items multiplying past max_args_bytes: refused before they are made */
    s = cJSON_Parse("{\"type\":\"object\",\"required\":[\"a\"],\"properties\":{\"a\":{\"type\":"
                    "\"array\",\"minItems\":1000,\"items\":{\"type\":\"array\",\"minItems\":1000,"
                    "\"items\":{\"type\":\"array\",\"minItems\":1000}}}}}");
    cr_assert_eq(tw_script_schema_args(s, NULL, &v, &why), TW_ERR_LIMIT);
    cr_assert(strstr(why.message, "max_args_bytes") != NULL, "%s", why.message);
    cJSON_Delete(s);
    /* nesting deeper than max_depth */
    tw_buf deep = {0};
    for (int i = 0; i < 20; i++)
        tw_buf_puts(&deep, "{\"type\":\"object\",\"required\":[\"x\"],\"properties\":{\"x\":");
    tw_buf_puts(&deep, "{}");
    for (int i = 0; i < 20; i++)
        tw_buf_puts(&deep, "}}");
    s = cJSON_Parse(deep.data);
    tw_buf_free(&deep);
    tw_limits L;
    memset(&L, 0, sizeof L);
    L.max_depth = 8;
    cr_assert_eq(tw_script_schema_args(s, &L, &v, &why), TW_ERR_LIMIT);
    cr_assert(strstr(why.message, "deeper than max_depth") != NULL, "%s", why.message);
    L.max_depth = 64;
    cr_assert_eq(tw_script_schema_args(s, &L, &v, &why), TW_OK, "%s", why.message);
    cJSON_Delete(v);
    cJSON_Delete(s);
}

/* ---- answers per endpoint (mock_ref.c) ---- */

typedef struct ep_answer {
    tw_ref_answer r;
    tw_result res;
} ep_answer;

static void ep_ask(char kind, const char *path, const char *body, ep_answer *out)
{
    tw_limits L;
    tw_limits_resolve(&L, NULL);
    cJSON *j = cJSON_Parse(body);
    cr_assert_not_null(j, "body: %s", body);
    tw_ref_answer_script(kind, j, &L, &out->r);
    cr_assert_eq(out->r.status, 200, "%s", out->r.why);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    tw_status st =
        tw_decode_response(path, out->r.stream, out->r.body.data, out->r.body.len, &o, &out->res);
    cr_assert_eq(st, TW_OK);
    cJSON_Delete(j);
}

static void ep_free(ep_answer *a)
{
    tw_ref_answer_free(&a->r);
    tw_result_free(&a->res);
}

Test(script_endpoints, reasoning_on_and_off)
{
    static const struct {
        char kind;
        const char *path, *body;
        bool on;
    } cases[] = {
        {'o', "/v1/chat/completions",
         "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}", false},
        {'o', "/v1/chat/completions",
         "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],"
         "\"reasoning_effort\":\"medium\"}",
         true},
        {'o', "/v1/chat/completions",
         "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],"
         "\"reasoning\":{\"effort\":\"high\"}}",
         true},
        {'o', "/v1/chat/completions",
         "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],"
         "\"chat_template_kwargs\":{\"enable_thinking\":true},\"stream\":true}",
         true},
        {'o', "/v1/chat/completions",
         "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],"
         "\"chat_template_kwargs\":{\"enable_thinking\":false}}",
         false},
        {'a', "/v1/messages",
         "{\"model\":\"c\",\"max_tokens\":100,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]"
         "}",
         false},
        {'a', "/v1/messages",
         "{\"model\":\"c\",\"max_tokens\":2000,\"thinking\":{\"type\":\"enabled\",\"budget_"
         "tokens\":"
         "1024},\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"stream\":true}",
         true},
        {'r', "/v1/responses", "{\"model\":\"m\",\"input\":\"Hi\"}", false},
        {'r', "/v1/responses",
         "{\"model\":\"m\",\"input\":\"Hi\",\"reasoning\":{\"effort\":\"low\",\"summary\":\"auto\"}"
         "}",
         true},
        {'r', "/v1/responses",
         "{\"model\":\"m\",\"input\":\"Hi\",\"stream\":true,\"reasoning\":{\"effort\":\"high\"}}",
         true},
        {'r', "/v1/responses",
         "{\"model\":\"m\",\"input\":\"Hi\",\"reasoning\":{\"effort\":\"minimal\"}}", false},
        {'g', "/generate", "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}", true},
        {'g', "/generate",
         "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"two_pass\":false}", false},
        {'g', "/generate",
         "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"options\":{\"two_pass\":false}}",
         false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ep_answer a;
        ep_ask(cases[i].kind, cases[i].path, cases[i].body, &a);
        if (cases[i].on)
            cr_expect_str_eq(a.res.msg.thinking.data ? a.res.msg.thinking.data : "",
                             TW_SCRIPT_DEFAULT_REASONING, "case %zu", i);
        else
            cr_expect_eq(a.res.msg.thinking.len, 0, "case %zu", i);
        cr_expect_str_eq(a.res.msg.content.data ? a.res.msg.content.data : "",
                         TW_SCRIPT_DEFAULT_TEXT, "case %zu", i);
        ep_free(&a);
    }
}

/* A directive's call comes back as a call with the scripted arguments on every endpoint. */
Test(script_endpoints, directive_call_everywhere)
{
    static const struct {
        char kind;
        const char *path, *body;
    } cases[] = {
        {'o', "/v1/chat/completions",
         "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"" DIR_CALL "\"}],"
         "\"tools\":" OAI_TOOLS "}"},
        {'o', "/v1/chat/completions",
         "{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"" DIR_CALL
         "\"}],\"tools\":" OAI_TOOLS "}"},
        {'a', "/v1/messages",
         "{\"model\":\"c\",\"max_tokens\":100,\"messages\":[{\"role\":\"user\",\"content\":"
         "\"" DIR_CALL "\"}],\"tools\":" ANT_TOOLS "}"},
        {'a', "/v1/messages",
         "{\"model\":\"c\",\"max_tokens\":100,\"stream\":true,\"messages\":[{\"role\":\"user\","
         "\"content\":\"" DIR_CALL "\"}],\"tools\":" ANT_TOOLS "}"},
        {'g', "/generate",
         "{\"messages\":[{\"role\":\"user\",\"content\":\"" DIR_CALL "\"}],\"tools\":" GEN_TOOLS
         "}"},
        {'g', "/generate", "{\"prompt\":\"" DIR_CALL "\",\"tools\":" GEN_TOOLS "}"},
        {'r', "/v1/responses",
         "{\"model\":\"m\",\"input\":[{\"role\":\"user\",\"content\":\"" DIR_CALL "\"}],"
         "\"tools\":" RSP_TOOLS "}"},
        {'r', "/v1/responses",
         "{\"model\":\"m\",\"stream\":true,\"input\":[{\"role\":\"user\",\"content\":[{\"type\":"
         "\"input_text\",\"text\":\"" DIR_CALL "\"}]}],\"tools\":" RSP_TOOLS "}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ep_answer a;
        ep_ask(cases[i].kind, cases[i].path, cases[i].body, &a);
        cr_assert_eq(a.res.msg.ncalls, 1, "case %zu: %.*s", i, (int)a.r.body.len, a.r.body.data);
        cr_expect_str_eq(a.res.msg.calls[0].name, "get_weather", "case %zu", i);
        cJSON *want = cJSON_Parse("{\"city\":\"Paris\",\"unit\":\"c\"}");
        cr_expect(tw_json_equal(a.res.msg.calls[0].arguments, want), "case %zu", i);
        cJSON_Delete(want);
        cr_expect_str_eq(a.res.msg.thinking.data ? a.res.msg.thinking.data : "",
                         "Need the weather.", "case %zu", i);
        cr_expect_str_eq(a.res.msg.content.data ? a.res.msg.content.data : "", "Checking.",
                         "case %zu", i);
        ep_free(&a);
    }
}

static bool body_has(const tw_ref_answer *r, const char *needle)
{
    return r->body.data && memmem(r->body.data, r->body.len, needle, strlen(needle)) != NULL;
}

/* The Responses API: tool_choice, the function_call_output turn, the
 * scripted round trip, and the typed event stream. */
Test(script_endpoints, responses_policy_and_round_trip)
{
    ep_answer a;
    /* named: that tool, arguments from its schema; required: the first tool */
    ep_ask('r', "/v1/responses",
           "{\"model\":\"m\",\"input\":\"Time?\",\"tools\":" RSP_TOOLS ",\"tool_choice\":"
           "{\"type\":\"function\",\"name\":\"get_time\"}}",
           &a);
    cr_assert_eq(a.res.msg.ncalls, 1, "%.*s", (int)a.r.body.len, a.r.body.data);
    cr_expect_str_eq(a.res.msg.calls[0].name, "get_time");
    cJSON *want = cJSON_Parse("{\"tz\":\"example\"}");
    cr_expect(tw_json_equal(a.res.msg.calls[0].arguments, want));
    cJSON_Delete(want);
    cr_expect(body_has(&a.r, "\"type\":\"function_call\""), "%.*s", (int)a.r.body.len,
              a.r.body.data);
    ep_free(&a);
    ep_ask('r', "/v1/responses",
           "{\"model\":\"m\",\"stream\":true,\"input\":\"Go\",\"tools\":" RSP_TOOLS
           ",\"tool_choice\":\"required\"}",
           &a);
    cr_assert_eq(a.res.msg.ncalls, 1);
    cr_expect_str_eq(a.res.msg.calls[0].name, "get_weather");
    cr_expect(a.r.stream);
    cr_expect(body_has(&a.r, "event: response.output_item.added\n"), "%.*s", (int)a.r.body.len,
              a.r.body.data);
    cr_expect(body_has(&a.r, "event: response.completed\n"));
    ep_free(&a);
    /* reasoning.encrypted_content included: the reasoning item carries it, and
     * it reads back as the thinking's signature; without it, none */
    ep_ask('r', "/v1/responses",
           "{\"model\":\"m\",\"input\":\"Go\",\"reasoning\":{\"effort\":\"low\"},\"include\":"
           "[\"reasoning.encrypted_content\"]}",
           &a);
    cr_expect_str_eq(a.res.msg.thinking.data ? a.res.msg.thinking.data : "",
                     TW_SCRIPT_DEFAULT_REASONING);
    cr_assert_not_null(a.res.msg.thinking_signature, "%.*s", (int)a.r.body.len, a.r.body.data);
    cr_expect(strncmp(a.res.msg.thinking_signature, "toolwire-sig-", 13) == 0);
    cr_expect(body_has(&a.r, "\"encrypted_content\":\"toolwire-sig-"));
    ep_free(&a);
    ep_ask('r', "/v1/responses",
           "{\"model\":\"m\",\"input\":\"Go\",\"reasoning\":{\"effort\":\"low\"}}", &a);
    cr_expect_gt(a.res.msg.thinking.len, 0);
    cr_expect_null(a.res.msg.thinking_signature);
    cr_expect_not(body_has(&a.r, "encrypted_content"));
    ep_free(&a);
    /* none: text, no call */
    ep_ask('r', "/v1/responses",
           "{\"model\":\"m\",\"input\":\"Go\",\"tools\":" RSP_TOOLS ",\"tool_choice\":\"none\"}",
           &a);
    cr_expect_eq(a.res.msg.ncalls, 0);
    cr_expect_str_eq(a.res.msg.content.data ? a.res.msg.content.data : "", TW_SCRIPT_DEFAULT_TEXT);
    ep_free(&a);
    /* a function_call_output turn: text quoting the output (instructions and
     * string outputs as the reader reads them) */
    ep_ask(
        'r', "/v1/responses",
        "{\"model\":\"m\",\"instructions\":\"Be brief.\",\"input\":[{\"role\":\"user\",\"content\":"
        "\"Weather?\"},{\"type\":\"function_call\",\"call_id\":\"call_7\",\"name\":\"get_weather\","
        "\"arguments\":\"{\\\"city\\\":\\\"Paris\\\",\\\"unit\\\":\\\"c\\\"}\"},{\"type\":"
        "\"function_call_output\",\"call_id\":\"call_7\",\"output\":\"18 C, clear\\nwind 5 "
        "km/h\"}],"
        "\"tools\":" RSP_TOOLS "}",
        &a);
    cr_expect_eq(a.res.msg.ncalls, 0);
    cr_expect_str_eq(a.res.msg.content.data ? a.res.msg.content.data : "",
                     TW_SCRIPT_RESULT_PREFIX "\"18 C, clear\"");
    ep_free(&a);
    /* the directive's step 1 after the call and its output */
    ep_ask(
        'r', "/v1/responses",
        "{\"model\":\"m\",\"input\":[{\"role\":\"user\",\"content\":\"" DIR_CALL "\"},"
        "{\"type\":\"function_call\",\"call_id\":\"call_1\",\"name\":\"get_weather\",\"arguments\":"
        "\"{}\"},{\"type\":\"function_call_output\",\"call_id\":\"call_1\",\"output\":\"18\"}],"
        "\"tools\":" RSP_TOOLS ",\"stream\":true}",
        &a);
    cr_expect_eq(a.res.msg.ncalls, 0);
    cr_expect_str_eq(a.res.msg.content.data ? a.res.msg.content.data : "", "It is 18 C in Paris.");
    ep_free(&a);
}

Test(script_endpoints, usage_chunk_when_asked)
{
    ep_answer a;
    ep_ask('o', "/v1/chat/completions",
           "{\"model\":\"m\",\"stream\":true,\"stream_options\":{\"include_usage\":true},"
           "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
           &a);
    cr_assert_eq(a.r.status, 200);
    cr_expect(memmem(a.r.body.data, a.r.body.len, "\"usage\":{", 9), "%.*s", (int)a.r.body.len,
              a.r.body.data);
    ep_free(&a);
    ep_ask(
        'o', "/v1/chat/completions",
        "{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
        &a);
    cr_assert_eq(a.r.status, 200);
    cr_expect(!memmem(a.r.body.data, a.r.body.len, "\"usage\"", 7), "no usage chunk unless asked");
    ep_free(&a);
}

Test(script_endpoints, bad_requests_say_why)
{
    tw_limits L;
    tw_limits_resolve(&L, NULL);
    tw_ref_answer r;
    tw_ref_answer_script('o', NULL, &L, &r);
    cr_assert_eq(r.status, 400);
    cr_assert(strstr(r.why, "not a JSON object") != NULL, "%s", r.why);
    tw_ref_answer_free(&r);
    cJSON *j = cJSON_Parse("{\"model\":\"c\",\"max_tokens\":5}");
    tw_ref_answer_script('a', j, &L, &r);
    cr_assert_eq(r.status, 400);
    cr_assert(strstr(r.why, "messages") != NULL, "%s", r.why);
    tw_ref_answer_free(&r);
    cJSON_Delete(j);
    /* a Responses request the reader refuses: no input, a tool_choice word it does not know */
    j = cJSON_Parse("{\"model\":\"m\"}");
    tw_ref_answer_script('r', j, &L, &r);
    cr_assert_eq(r.status, 400);
    cr_assert(strstr(r.why, "input") != NULL, "%s", r.why);
    tw_ref_answer_free(&r);
    cJSON_Delete(j);
    j = cJSON_Parse("{\"model\":\"m\",\"input\":\"x\",\"tool_choice\":\"sometimes\"}");
    tw_ref_answer_script('r', j, &L, &r);
    cr_assert_eq(r.status, 400);
    cr_assert(strstr(r.why, "tool_choice") != NULL, "%s", r.why);
    tw_ref_answer_free(&r);
    cJSON_Delete(j);
    /* an item_reference: the script profile stores no responses to look it up in */
    j = cJSON_Parse("{\"model\":\"m\",\"input\":[{\"role\":\"user\",\"content\":\"x\"},"
                    "{\"type\":\"item_reference\",\"id\":\"fc_2\"}]}");
    tw_ref_answer_script('r', j, &L, &r);
    cr_assert_eq(r.status, 400);
    cr_assert(strstr(r.why, "input[1]: item_reference 'fc_2' names a stored item") != NULL, "%s",
              r.why);
    tw_ref_answer_free(&r);
    cJSON_Delete(j);
    /* previous_response_id: the same, it would be answered out of context */
    j = cJSON_Parse("{\"model\":\"m\",\"input\":\"x\",\"previous_response_id\":\"resp_1\"}");
    tw_ref_answer_script('r', j, &L, &r);
    cr_assert_eq(r.status, 400);
    cr_assert(strstr(r.why, "previous_response_id 'resp_1' names a stored response") != NULL, "%s",
              r.why);
    tw_ref_answer_free(&r);
    cJSON_Delete(j);
    /* a named tool the request does not declare: the script's 400 */
    j = cJSON_Parse("{\"model\":\"m\",\"input\":\"x\",\"tool_choice\":{\"type\":\"function\","
                    "\"name\":\"nope\"}}");
    tw_ref_answer_script('r', j, &L, &r);
    cr_assert_eq(r.status, 400);
    cr_assert(strstr(r.why, "nope") != NULL, "%s", r.why);
    tw_ref_answer_free(&r);
    cJSON_Delete(j);
    j = cJSON_Parse("{\"messages\":[{\"role\":\"user\",\"content\":\"toolwire-script {\"}]}");
    tw_ref_answer_script('g', j, &L, &r);
    cr_assert_eq(r.status, 400);
    cr_assert(strstr(r.why, "toolwire-script directive") != NULL, "%s", r.why);
    tw_ref_answer_free(&r);
    cJSON_Delete(j);
}

/* ---- the mock backend's script profile ---- */

Test(script_profile, fits_request_only_exchanges)
{
    cr_assert(tw_mock_profile_known("script"));
    bool listed = false;
    for (const char *const *p = tw_mock_profiles(); *p; p++)
        listed = listed || strcmp(*p, "script") == 0;
    cr_assert(listed);
    /* a request-only exchange fits; one with an answer of its own does not */
    tw_fx_exchange x;
    memset(&x, 0, sizeof x);
    x.req.method = "POST";
    x.req.path = "/v1/chat/completions";
    tw_fixture f;
    memset(&f, 0, sizeof f);
    f.name = "t/live";
    f.exchanges = &x;
    f.nexchanges = 1;
    cr_assert(tw_mock_profile_fits("script", &f));
    cr_assert_not(tw_mock_profile_fits("hermes", &f));
    cr_assert_not(tw_mock_profile_fits("replay", &f));
    x.model_text = "hi";
    cr_assert_not(tw_mock_profile_fits("script", &f));
    x.model_text = NULL;
    x.model_pass1 = "a</think>";
    cr_assert_not(tw_mock_profile_fits("script", &f));
    x.model_pass1 = NULL;
    x.has_response = true;
    cr_assert_not(tw_mock_profile_fits("script", &f));
}

static tw_mock *start_script(void)
{
    tw_mock_opts o;
    memset(&o, 0, sizeof o);
    o.profile = "script";
    tw_mock *m = NULL;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_mock_start(NULL, 0, &o, &m, &why), TW_OK, "%s", why.message);
    return m;
}

static void send_to(tw_mock *m, const char *path, const char *body, tw_http_response *r)
{
    tw_client_opts co;
    memset(&co, 0, sizeof co);
    co.base_url = tw_mock_url(m);
    co.max_retries = 0;
    co.total_timeout_ms = 10000;
    tw_client *c = tw_client_new(&co);
    cr_assert_not_null(c);
    static const tw_kv hdr[] = {{"content-type", "application/json"},
                                {"X-Toolwire-Exchange", "some/fixture#0"}};
    tw_status st = tw_client_send(c, "POST", path, hdr, 2, body, strlen(body), r);
    tw_client_free(c);
    cr_assert_eq(st, TW_OK, "%s", r->transport_error);
}

Test(script_profile, answers_without_fixtures)
{
    tw_mock *m = start_script();
    tw_http_response r;
    memset(&r, 0, sizeof r);
    send_to(
        m, "/v1/chat/completions",
        "{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"" DIR_CALL
        "\"}],\"tools\":" OAI_TOOLS "}",
        &r);
    cr_assert_eq(r.status, 200, "%s", r.body.data);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    tw_result res;
    cr_assert_eq(
        tw_decode_response("/v1/chat/completions", true, r.body.data, r.body.len, &o, &res), TW_OK);
    cr_assert_eq(res.msg.ncalls, 1);
    cr_assert_str_eq(res.msg.calls[0].name, "get_weather");
    tw_result_free(&res);
    tw_http_response_free(&r);
    /* a bad request: 400 in the endpoint's envelope, saying why */
    memset(&r, 0, sizeof r);
    send_to(m, "/v1/messages",
            "{\"model\":\"c\",\"max_tokens\":9,\"messages\":[{\"role\":\"user\",\"content\":"
            "\"toolwire-script {\\\"calls\\\": 1}\"}]}",
            &r);
    cr_assert_eq(r.status, 400);
    cJSON *j = cJSON_Parse(r.body.data);
    cr_assert_str_eq(tw_json_get_str(j, "type"), "error");
    const char *msg = tw_json_get_str(tw_json_get(j, "error"), "message");
    cr_assert(msg && strstr(msg, "toolwire-script.calls: must be an array"), "%s", r.body.data);
    cJSON_Delete(j);
    tw_http_response_free(&r);
    /* a body that is not JSON: the 400 says where and what was expected */
    static const char *const paths[] = {"/v1/responses", "/v1beta/models/g:generateContent",
                                        "/v1/chat/completions"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        memset(&r, 0, sizeof r);
        send_to(m, paths[i], "{\"model\":\"m\",\"input\":[1,}", &r);
        cr_assert_eq(r.status, 400, "%s", paths[i]);
        cr_assert(strstr(r.body.data, "the request body is not JSON: invalid JSON at byte 24"),
                  "%s: %s", paths[i], r.body.data);
        tw_http_response_free(&r);
    }
    /* the records name the script's exchange */
    tw_mock_record *recs = NULL;
    size_t n = 0;
    cr_assert_eq(tw_mock_records(m, 0, &recs, &n), TW_OK);
    cr_assert_eq(n, 5);
    cr_assert_str_eq(recs[0].fixture, "script");
    cr_assert_eq(recs[0].status, 200);
    cr_assert_eq(recs[1].status, 400);
    tw_mock_records_free(recs, n);
    tw_mock_stop(m);
}

/* run --backend NAME=mock:script sends a request-only exchange and gets the script's answer. */
Test(script_profile, run_backend_mock_script)
{
    cJSON *body = cJSON_Parse("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":"
                              "\"Time?\"}],\"tools\":" OAI_TOOLS ",\"tool_choice\":{\"type\":"
                              "\"function\",\"function\":{\"name\":\"get_time\"}}}");
    cr_assert_not_null(body);
    tw_fx_exchange x;
    memset(&x, 0, sizeof x);
    x.req.method = "POST";
    x.req.path = "/v1/chat/completions";
    x.req.body = body;
    tw_fixture f;
    memset(&f, 0, sizeof f);
    f.name = "t/live-named";
    f.backend = "openai";
    f.exchanges = &x;
    f.nexchanges = 1;
    tw_fixture_set fs;
    memset(&fs, 0, sizeof fs);
    fs.fx = &f;
    fs.n = 1;
    tw_backend_spec b = {.name = "ref", .url = NULL, .profile = "script"};
    tw_run_opts o;
    memset(&o, 0, sizeof o);
    o.client.max_retries = 0;
    o.client.total_timeout_ms = 10000;
    tw_report rep;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_run_backend(&fs, &b, &o, &rep, &why), TW_OK, "%s", why.message);
    cr_assert_eq(rep.nfx, 1);
    cr_assert_not(rep.fx[0].skipped, "%s", rep.fx[0].note ? rep.fx[0].note : "");
    cr_assert_eq(rep.fx[0].nex, 1);
    cr_assert_eq(rep.fx[0].ex[0].status, 200);
    cr_assert_null(rep.fx[0].ex[0].error);
    tw_report_free(&rep);
    cJSON_Delete(body);
}

/* The Responses API over HTTP: the typed stream, and a refused request in
 * OpenAI's error envelope; run --backend NAME=mock:script with a Responses
 * exchange. */
Test(script_profile, answers_responses)
{
    tw_mock *m = start_script();
    tw_http_response r;
    memset(&r, 0, sizeof r);
    send_to(m, "/v1/responses",
            "{\"model\":\"m\",\"stream\":true,\"input\":[{\"role\":\"user\",\"content\":\"" DIR_CALL
            "\"}],\"tools\":" RSP_TOOLS "}",
            &r);
    cr_assert_eq(r.status, 200, "%s", r.body.data);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    tw_result res;
    cr_assert_eq(tw_decode_response("/v1/responses", true, r.body.data, r.body.len, &o, &res),
                 TW_OK);
    cr_assert_eq(res.errors.len, 0);
    cr_assert_eq(res.msg.ncalls, 1);
    cr_assert_str_eq(res.msg.calls[0].name, "get_weather");
    cr_assert(strstr(r.body.data, "event: response.function_call_arguments.done\n") != NULL);
    tw_result_free(&res);
    tw_http_response_free(&r);
    memset(&r, 0, sizeof r);
    send_to(m, "/v1/responses", "{\"model\":\"m\",\"input\":42}", &r);
    cr_assert_eq(r.status, 400);
    cJSON *j = cJSON_Parse(r.body.data);
    const cJSON *e = tw_json_get(j, "error");
    cr_assert_str_eq(tw_json_get_str(e, "type"), "invalid_request_error", "%s", r.body.data);
    const char *msg = tw_json_get_str(e, "message");
    cr_assert(msg && strstr(msg, "input"), "%s", r.body.data);
    cJSON_Delete(j);
    tw_http_response_free(&r);
    tw_mock_stop(m);

    cJSON *body = cJSON_Parse("{\"model\":\"m\",\"input\":\"Time?\",\"tools\":" RSP_TOOLS
                              ",\"tool_choice\":\"required\"}");
    cr_assert_not_null(body);
    tw_fx_exchange x;
    memset(&x, 0, sizeof x);
    x.req.method = "POST";
    x.req.path = "/v1/responses";
    x.req.body = body;
    tw_fixture f;
    memset(&f, 0, sizeof f);
    f.name = "t/live-responses";
    f.backend = "openai";
    f.exchanges = &x;
    f.nexchanges = 1;
    tw_fixture_set fs;
    memset(&fs, 0, sizeof fs);
    fs.fx = &f;
    fs.n = 1;
    tw_backend_spec b = {.name = "ref", .url = NULL, .profile = "script"};
    tw_run_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.client.max_retries = 0;
    ro.client.total_timeout_ms = 10000;
    tw_report rep;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_run_backend(&fs, &b, &ro, &rep, &why), TW_OK, "%s", why.message);
    cr_assert_eq(rep.nfx, 1);
    cr_assert_not(rep.fx[0].skipped, "%s", rep.fx[0].note ? rep.fx[0].note : "");
    cr_assert_eq(rep.fx[0].nex, 1);
    cr_assert_eq(rep.fx[0].ex[0].status, 200);
    cr_assert_null(rep.fx[0].ex[0].error);
    tw_report_free(&rep);
    cJSON_Delete(body);
}

/* --fault applies to the script's answers as to an exchange without faults. */
Test(script_profile, server_faults_apply)
{
    cJSON *faults = cJSON_Parse("{\"status\":503,\"retry_after\":0}");
    tw_mock_opts o;
    memset(&o, 0, sizeof o);
    o.profile = "script";
    o.faults = faults;
    tw_mock *m = NULL;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_mock_start(NULL, 0, &o, &m, &why), TW_OK, "%s", why.message);
    const char *body = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
    tw_http_response r;
    memset(&r, 0, sizeof r);
    send_to(m, "/v1/chat/completions", body, &r);
    cr_assert_eq(r.status, 503);
    tw_http_response_free(&r);
    memset(&r, 0, sizeof r);
    send_to(m, "/v1/chat/completions", body, &r);
    cr_assert_eq(r.status, 200);
    cr_assert(strstr(r.body.data, TW_SCRIPT_DEFAULT_TEXT) != NULL, "%s", r.body.data);
    tw_http_response_free(&r);
    tw_mock_stop(m);
    cJSON_Delete(faults);
}

/* A Gemini stream request asking for streamed arguments
 * (toolConfig.functionCallingConfig.streamFunctionCallArguments) gets each
 * call as partialArgs pieces; the same request without it gets whole args;
 * both decode to the same call. */
Test(script_endpoints, gemini_streamed_arguments_when_asked)
{
    static const char *const tc[] = {
        "",
        ",\"toolConfig\":{\"functionCallingConfig\":{\"mode\":\"AUTO\","
        "\"streamFunctionCallArguments\":true}}",
    };
    for (size_t i = 0; i < 2; i++) {
        char body[2048];
        snprintf(body, sizeof body,
                 "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"" DIR_CALL "\"}]}],"
                 "\"tools\":[{\"functionDeclarations\":[{\"name\":\"get_weather\","
                 "\"parameters\":" SCHEMA_W "}]}]%s}",
                 tc[i]);
        tw_limits L;
        tw_limits_resolve(&L, NULL);
        cJSON *j = cJSON_Parse(body);
        cr_assert_not_null(j, "%s", body);
        tw_ref_answer r;
        tw_ref_answer_script_at('m', true, "gemini-3", j, &L, &r);
        cJSON_Delete(j);
        cr_assert_eq(r.status, 200, "%s", r.why);
        const char *b = r.body.data;
        bool pieces =
            strstr(b, "\"partialArgs\":[{\"jsonPath\":\"$.city\",\"stringValue\":\"Paris\","
                      "\"willContinue\":true}]") != NULL;
        cr_expect_eq(pieces, i == 1, "case %zu: %s", i, b);
        cr_expect_eq(strstr(b, "\"args\":") == NULL, i == 1, "case %zu: %s", i, b);
        tw_result res;
        cr_assert_eq(tw_decode_response("/v1beta/models/gemini-3:streamGenerateContent", true, b,
                                        r.body.len, NULL, &res),
                     TW_OK);
        cr_expect_eq(res.errors.len, 0, "case %zu: %s", i, b);
        cr_assert_eq(res.msg.ncalls, 1, "case %zu: %s", i, b);
        cJSON *want = cJSON_Parse("{\"city\":\"Paris\",\"unit\":\"c\"}");
        cr_expect(tw_json_equal(res.msg.calls[0].arguments, want), "case %zu", i);
        cJSON_Delete(want);
        tw_result_free(&res);
        tw_ref_answer_free(&r);
    }
}

/* A directive error names the element of the request that was sent, not
 * the neutral message it became (a system field shifts the neutral
 * numbering; Gemini and Responses name their turns contents and input). */
Test(script_endpoints, directive_errors_name_the_wire_path)
{
    static const struct {
        char kind;
        const char *body, *want;
    } cases[] = {
        {'m',
         "{\"systemInstruction\":{\"parts\":[{\"text\":\"Be brief.\"}]},\"contents\":["
         "{\"role\":\"user\",\"parts\":[{\"text\":\"toolwire-script {\\\"text\\\": \"}]}]}",
         "contents[0]: the toolwire-script directive"},
        {'m',
         "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]},{\"role\":\"model\","
         "\"parts\":[{\"text\":\"yes\"}]},{\"parts\":[{\"text\":\"a\"},{\"text\":\"toolwire-script "
         "{\\\"steps\\\": 3}\"}]}]}",
         "contents[2]: toolwire-script"},
        {'m',
         "{\"systemInstruction\":{\"parts\":[{\"text\":\"toolwire-script {]\"}]},\"contents\":["
         "{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]}]}",
         "systemInstruction: the toolwire-script directive"},
        {'r',
         "{\"model\":\"m\",\"instructions\":\"Be "
         "brief.\",\"input\":[{\"role\":\"user\",\"content\":"
         "\"hi\"},{\"type\":\"function_call\",\"call_id\":\"c1\",\"name\":\"f\",\"arguments\":\"{}"
         "\"},"
         "{\"type\":\"function_call_output\",\"call_id\":\"c1\",\"output\":\"x\"},{\"role\":"
         "\"user\","
         "\"content\":[{\"type\":\"input_text\",\"text\":\"toolwire-script {\\\"text\\\": 1\"}]}]}",
         "input[3]: the toolwire-script directive"},
        {'r',
         "{\"model\":\"m\",\"instructions\":\"Be brief.\",\"input\":\"toolwire-script "
         "{\\\"x\\\"\"}",
         "input: the toolwire-script directive"},
        {'a',
         "{\"model\":\"c\",\"max_tokens\":5,\"system\":\"Be "
         "brief.\",\"messages\":[{\"role\":\"user\","
         "\"content\":\"toolwire-script {\\\"text\\\": \"}]}",
         "messages[0]: the toolwire-script directive"},
    };
    tw_limits L;
    tw_limits_resolve(&L, NULL);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cJSON *j = cJSON_Parse(cases[i].body);
        cr_assert_not_null(j, "case %zu", i);
        tw_ref_answer r;
        tw_ref_answer_script(cases[i].kind, j, &L, &r);
        cr_expect_eq(r.status, 400, "case %zu", i);
        cr_expect(strncmp(r.why, cases[i].want, strlen(cases[i].want)) == 0,
                  "case %zu: want '%s…', got '%s'", i, cases[i].want, r.why);
        tw_ref_answer_free(&r);
        cJSON_Delete(j);
    }
    /* the rewrite leaves other messages and paths it cannot find alone */
    char m[96] = "messages[4]: the toolwire-script directive is not valid";
    cJSON *none = cJSON_Parse("{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]}]}");
    tw_script_wire_path(none, "contents", "systemInstruction", m, sizeof m);
    cr_expect_str_eq(m, "messages[4]: the toolwire-script directive is not valid");
    cJSON_Delete(none);
    char other[64] = "tool_choice names 'x'";
    tw_script_wire_path(NULL, "contents", NULL, other, sizeof other);
    cr_expect_str_eq(other, "tool_choice names 'x'");
}
