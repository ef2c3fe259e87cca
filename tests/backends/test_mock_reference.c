/* The reference-server profiles of the mock backend (hermes, anthropic,
 * vllm-native) on loopback, driven through the libcurl client: what each
 * answers for a model text, streamed and not, decoded with the reference
 * decoders and judged with the backend checks. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "client.h"
#include "mock.h"
#include "twtest.h"

#define SCHEMA_W                                                                                   \
    "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"},\"unit\":{\"type\":"      \
    "\"string\",\"enum\":[\"c\",\"f\"]}},\"required\":[\"city\"],\"additionalProperties\":false}"
#define SCHEMA_T                                                                                   \
    "{\"type\":\"object\",\"properties\":{\"tz\":{\"type\":\"string\"}},\"required\":[\"tz\"]}"
#define OAI_TOOLS                                                                                  \
    "[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"parameters\":" SCHEMA_W      \
    "}},"                                                                                          \
    "{\"type\":\"function\",\"function\":{\"name\":\"get_time\",\"parameters\":" SCHEMA_T "}}]"
#define ANT_TOOLS                                                                                  \
    "[{\"name\":\"get_weather\",\"input_schema\":" SCHEMA_W "},"                                   \
    "{\"name\":\"get_time\",\"input_schema\":" SCHEMA_T "}]"
#define GEN_TOOLS                                                                                  \
    "[{\"name\":\"get_weather\",\"parameters\":" SCHEMA_W "},"                                     \
    "{\"name\":\"get_time\",\"parameters\":" SCHEMA_T "}]"

#define CALL_W                                                                                     \
    "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"
#define CALL_T                                                                                     \
    "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"tz\": "                               \
    "\"Europe/Paris\"}}\n</tool_call>"

/* Request bodies: each asks its own question so that body matching picks
 * its exchange (no X-Toolwire-Exchange header is sent). */
#define OAI_BODY(q)                                                                                \
    "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"" q                           \
    "\"}],\"tools\":" OAI_TOOLS ",\"parallel_tool_calls\":true}"
#define ANT_BODY(q)                                                                                \
    "{\"model\":\"claude-test\",\"max_tokens\":1024,\"tools\":" ANT_TOOLS                          \
    ",\"messages\":[{\"role\":\"user\",\"content\":\"" q "\"}]}"
#define GEN_BODY(q, extra)                                                                         \
    "{\"messages\":[{\"role\":\"user\",\"content\":\"" q "\"}],\"two_pass\":true,"                 \
    "\"think_tag\":\"think\",\"tools\":" GEN_TOOLS ",\"tool_choice\":\"auto\","                    \
    "\"tool_parser\":\"hermes\"" extra "}"

typedef struct spec {
    const char *name;
    const char *backend;
    const char *path;
    const char *body;
    const char *model_text; /* or the two passes */
    const char *pass1;
    const char *pass2;
} spec;

static const spec specs[] = {
    /* hermes over an OpenAI-compatible endpoint */
    {"t/h_call", "hermes", "/v1/chat/completions", OAI_BODY("h call"), "I'll check.\n" CALL_W, NULL,
     NULL},
    {"t/h_think_two", "hermes", "/v1/chat/completions", OAI_BODY("h think"),
     "<think>\nBoth are needed.\n</think>\nChecking both.\n" CALL_W "\n" CALL_T, NULL, NULL},
    {"t/h_unterminated", "hermes", "/v1/chat/completions", OAI_BODY("h unterminated"),
     "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Par",
     NULL, NULL},
    {"t/h_unknown", "hermes", "/v1/chat/completions", OAI_BODY("h unknown"),
     "<tool_call>\n{\"name\": \"get_stock\", \"arguments\": {}}\n</tool_call>", NULL, NULL},
    /* Anthropic Messages */
    {"t/a_think_call", "anthropic", "/v1/messages", ANT_BODY("a think"),
     "<think>\nget_weather fits.\n</think>\nLet me look.\n" CALL_W, NULL, NULL},
    {"t/a_parallel", "anthropic", "/v1/messages", ANT_BODY("a parallel"),
     "<tool_call>\n[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}, "
     "{\"name\": \"get_time\", \"arguments\": {\"tz\": \"Europe/Paris\"}}]\n</tool_call>",
     NULL, NULL},
    {"t/a_hidden_call", "anthropic", "/v1/messages", ANT_BODY("a hidden"),
     "<think>\nMaybe " CALL_W " later.\n</think>\nParis is mild.", NULL, NULL},
    /* vLLM-native /generate, two passes */
    {"t/g_budgets", "vllm-native", "/generate",
     GEN_BODY("g budgets", ",\"max_thinking_tokens\":8,\"max_response_tokens\":64"), NULL,
     "The user asks about Paris and I need the weather tool for it.</think>",
     "Checking.\n" CALL_W "\nnever generated"},
    {"t/g_response_cap", "vllm-native", "/generate",
     GEN_BODY("g cap",
              ",\"generation_config\":{\"max_thinking_tokens\":64,\"max_response_tokens\":6}"),
     NULL, "No tool needed.</think>", "Paris in spring is usually mild, take a jacket."},
    {"t/g_array_unterminated_think", "vllm-native", "/generate", GEN_BODY("g array", ""), NULL,
     "Both tools are needed",
     "Both.\n<tool_call>\n[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}, "
     "{\"name\": \"get_time\", \"arguments\": {\"tz\": \"Europe/Paris\"}}]\n</tool_call>"},
    {"t/g_bad_param", "vllm-native", "/generate",
     GEN_BODY("g bad", ",\"max_thinking_tokens\":\"many\""), NULL, "x</think>", "y"},
};
#define NSPECS (sizeof specs / sizeof specs[0])

static tw_fixture fx[NSPECS];
static size_t nfx;
static tw_mock *mock;

static void load_all(void)
{
    for (size_t i = 0; i < NSPECS; i++) {
        const spec *s = &specs[i];
        cJSON *root = cJSON_CreateObject();
        cJSON_AddNumberToObject(root, "fixture_version", 1);
        cJSON_AddStringToObject(root, "name", s->name);
        cJSON_AddStringToObject(root, "description", "reference server test");
        cJSON_AddStringToObject(root, "backend", s->backend);
        cJSON *prov = cJSON_AddObjectToObject(root, "provenance");
        cJSON_AddStringToObject(prov, "source", "hand-made");
        cJSON *xs = cJSON_AddArrayToObject(root, "exchanges");
        cJSON *x = cJSON_CreateObject();
        cJSON_AddItemToArray(xs, x);
        cJSON *rq = cJSON_AddObjectToObject(x, "request");
        cJSON_AddStringToObject(rq, "method", "POST");
        cJSON_AddStringToObject(rq, "path", s->path);
        cJSON *body = cJSON_Parse(s->body);
        cr_assert_not_null(body, "%s: request body", s->name);
        cJSON_AddItemToObject(rq, "body", body);
        if (s->model_text) {
            cJSON_AddStringToObject(x, "model_text", s->model_text);
        } else {
            cJSON *mp = cJSON_AddObjectToObject(x, "model_passes");
            cJSON_AddStringToObject(mp, "pass1", s->pass1);
            cJSON_AddStringToObject(mp, "pass2", s->pass2);
        }
        char *text = cJSON_PrintUnformatted(root);
        cJSON_Delete(root);
        tw_error why = {.offset = -1};
        tw_status st = tw_fixture_parse(text, strlen(text), s->name, NULL, &fx[nfx], &why);
        free(text);
        cr_assert_eq(st, TW_OK, "%s", why.message);
        nfx++;
    }
}

static void start(const char *profile)
{
    load_all();
    tw_mock_opts o;
    memset(&o, 0, sizeof o);
    o.profile = profile;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_mock_start(fx, nfx, &o, &mock, &why), TW_OK, "%s", why.message);
    cr_assert(strncmp(tw_mock_url(mock), "http://127.0.0.1:", 17) == 0);
}

static void stop(void)
{
    tw_mock_stop(mock);
    mock = NULL;
    for (size_t i = 0; i < nfx; i++)
        tw_fixture_free(&fx[i]);
    nfx = 0;
}

TestSuite(mock_reference, .fini = stop);

/* One answer, decoded and judged. */
typedef struct reply {
    tw_http_response http;
    bool stream;
    tw_result res;
    bool decoded;
    tw_check_set checks;
    cJSON *req;
} reply;

static const spec *spec_of(const char *name)
{
    for (size_t i = 0; i < NSPECS; i++)
        if (strcmp(specs[i].name, name) == 0)
            return &specs[i];
    cr_assert_fail("no spec %s", name);
    return NULL;
}

static const tw_fx_exchange *exchange_of(const char *name)
{
    for (size_t i = 0; i < nfx; i++)
        if (strcmp(fx[i].name, name) == 0)
            return &fx[i].exchanges[0];
    cr_assert_fail("no fixture %s", name);
    return NULL;
}

/* Send the spec's request (with "stream": true added when asked: an
 * ignored key for matching), decode the answer and judge it. */
static void ask(const char *name, bool stream, reply *out)
{
    const spec *s = spec_of(name);
    memset(out, 0, sizeof *out);
    out->stream = stream;
    size_t bl = strlen(s->body);
    char *body = malloc(bl + 32);
    cr_assert_not_null(body);
    if (stream)
        snprintf(body, bl + 32, "{\"stream\":true,%s", s->body + 1);
    else
        memcpy(body, s->body, bl + 1);
    tw_client_opts co;
    memset(&co, 0, sizeof co);
    co.base_url = tw_mock_url(mock);
    co.max_retries = 0;
    co.total_timeout_ms = 10000;
    tw_client *c = tw_client_new(&co);
    cr_assert_not_null(c);
    static const tw_kv hdr[] = {{"content-type", "application/json"},
                                {"anthropic-version", "2023-06-01"}};
    tw_status st = tw_client_send(c, "POST", s->path, hdr, 2, body, strlen(body), &out->http);
    tw_client_free(c);
    cr_assert_eq(st, TW_OK, "%s: %s", name, out->http.transport_error);
    out->req = cJSON_Parse(body);
    free(body);
    if (out->http.status == 200) {
        tw_decode_opts o;
        memset(&o, 0, sizeof o);
        out->decoded = tw_decode_response(s->path, stream, out->http.body.data, out->http.body.len,
                                          &o, &out->res) == TW_OK;
    }
    tw_judge_input in;
    memset(&in, 0, sizeof in);
    in.ex = exchange_of(name);
    in.path = s->path;
    in.req_body = out->req;
    in.status = out->http.status;
    in.resp_headers = out->http.headers;
    in.nresp_headers = out->http.nheaders;
    in.body = out->http.body.data ? out->http.body.data : "";
    in.body_len = out->http.body.len;
    tw_checks_backend(&in, &out->checks);
}

static void reply_free(reply *r)
{
    tw_http_response_free(&r->http);
    if (r->decoded)
        tw_result_free(&r->res);
    tw_check_set_free(&r->checks);
    cJSON_Delete(r->req);
}

static const char *body_of(const reply *r)
{
    return r->http.body.data ? r->http.body.data : "";
}

static const char *ctype(const reply *r)
{
    const char *ct = tw_kv_get(r->http.headers, r->http.nheaders, "content-type");
    return ct ? ct : "";
}

static tw_verdict verdict(const reply *r, tw_check_id id)
{
    const tw_check_result *c = tw_check_set_get(&r->checks, id);
    cr_assert_not_null(c, "no verdict for %s", tw_check_name(id));
    return c->verdict;
}

/* No check of the listed ones fails. */
static void none_fail(const reply *r, const tw_check_id *ids, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const tw_check_result *c = tw_check_set_get(&r->checks, ids[i]);
        cr_assert_not_null(c, "no verdict for %s", tw_check_name(ids[i]));
        cr_expect_neq(c->verdict, TW_V_FAIL, "%s failed: %s", c->id, c->evidence);
    }
}

static void expect_call(const reply *r, size_t i, const char *id, const char *name,
                        const char *args)
{
    cr_assert(r->decoded, "the answer decodes");
    cr_assert_gt(r->res.msg.ncalls, i, "call %zu present", i);
    const tw_call *c = &r->res.msg.calls[i];
    if (id)
        cr_expect_str_eq(c->id, id);
    cr_expect_str_eq(c->name, name);
    cJSON *want = cJSON_Parse(args);
    cr_expect(tw_json_equal(want, c->arguments), "call %zu arguments", i);
    cJSON_Delete(want);
}

static void expect_text(const tw_buf *b, const char *want)
{
    size_t n = strlen(want);
    cr_expect(b->len == n && (n == 0 || memcmp(b->data, want, n) == 0),
              "expected \"%s\", got \"%.*s\"", want, (int)b->len, b->data ? b->data : "");
}

static const tw_check_id OAI_IDS[] = {
    TW_CHK_OAI_R01, TW_CHK_OAI_R02, TW_CHK_OAI_R03, TW_CHK_OAI_R04, TW_CHK_OAI_R05,
    TW_CHK_OAI_R06, TW_CHK_OAI_R07, TW_CHK_OAI_S01, TW_CHK_OAI_S02, TW_CHK_OAI_S03,
    TW_CHK_OAI_S04, TW_CHK_OAI_S05, TW_CHK_OAI_S06, TW_CHK_OAI_S08};
static const tw_check_id ANT_IDS[] = {TW_CHK_ANT_R01, TW_CHK_ANT_R02, TW_CHK_ANT_S01,
                                      TW_CHK_ANT_S02};
static const tw_check_id VLN_IDS[] = {TW_CHK_VLN_01, TW_CHK_VLN_02, TW_CHK_OAI_R03, TW_CHK_OAI_R05};
#define N(a) (sizeof a / sizeof a[0])

/* ---------------- hermes ---------------- */

Test(mock_reference, hermes_call_nonstream_and_stream)
{
    start("hermes");
    reply r;
    ask("t/h_call", false, &r);
    cr_assert_eq(r.http.status, 200, "%s", body_of(&r));
    cr_expect(strstr(ctype(&r), "application/json"));
    cr_expect(strstr(body_of(&r), "\"object\":\"chat.completion\""));
    expect_text(&r.res.msg.content, "I'll check.");
    cr_assert_eq(r.res.msg.ncalls, 1);
    expect_call(&r, 0, NULL, "get_weather", "{\"city\":\"Paris\"}");
    cr_expect_str_eq(r.res.finish_reason, "tool_calls");
    cr_expect_null(strstr(body_of(&r), "<tool_call>"), "no markup reaches the client");
    none_fail(&r, OAI_IDS, N(OAI_IDS));
    cr_expect_eq(verdict(&r, TW_CHK_HER_01), TW_V_PASS);
    char *id = strdup(r.res.msg.calls[0].id);
    reply_free(&r);

    ask("t/h_call", true, &r);
    cr_assert_eq(r.http.status, 200);
    cr_expect(strstr(ctype(&r), "text/event-stream"));
    const char *b = body_of(&r);
    cr_expect(r.http.body.len > 14 && strcmp(b + r.http.body.len - 14, "data: [DONE]\n\n") == 0,
              "%s", b);
    cr_expect(strstr(b, "\"role\":\"assistant\""));
    expect_text(&r.res.msg.content, "I'll check.");
    cr_assert_eq(r.res.msg.ncalls, 1);
    expect_call(&r, 0, id, "get_weather", "{\"city\":\"Paris\"}");
    cr_expect_str_eq(r.res.finish_reason, "tool_calls");
    none_fail(&r, OAI_IDS, N(OAI_IDS));
    cr_expect_eq(verdict(&r, TW_CHK_OAI_S01), TW_V_PASS);
    free(id);
    reply_free(&r);
}

Test(mock_reference, hermes_thinking_and_two_calls)
{
    start("hermes");
    for (int s = 0; s < 2; s++) {
        reply r;
        ask("t/h_think_two", s == 1, &r);
        cr_assert_eq(r.http.status, 200);
        expect_text(&r.res.msg.thinking, "Both are needed.");
        expect_text(&r.res.msg.content, "Checking both.");
        cr_assert_eq(r.res.msg.ncalls, 2);
        expect_call(&r, 0, NULL, "get_weather", "{\"city\":\"Paris\"}");
        expect_call(&r, 1, NULL, "get_time", "{\"tz\":\"Europe/Paris\"}");
        cr_expect_str_neq(r.res.msg.calls[0].id, r.res.msg.calls[1].id);
        cr_expect_null(strstr(body_of(&r), "<think>"), "think markup stays out of the answer");
        none_fail(&r, OAI_IDS, N(OAI_IDS));
        cr_expect_eq(verdict(&r, TW_CHK_HER_03), TW_V_PASS);
        reply_free(&r);
    }
}

Test(mock_reference, hermes_unterminated_and_unknown_tool_give_no_call)
{
    start("hermes");
    reply r;
    ask("t/h_unterminated", true, &r);
    cr_assert_eq(r.http.status, 200);
    expect_text(&r.res.msg.content, "Let me check.");
    cr_expect_eq(r.res.msg.ncalls, 0);
    cr_expect_str_eq(r.res.finish_reason, "stop");
    cr_expect_null(strstr(body_of(&r), "<tool_call"), "no markup is sent");
    cr_expect_eq(verdict(&r, TW_CHK_HER_01), TW_V_FAIL, "the model text is judged");
    none_fail(&r, OAI_IDS, N(OAI_IDS));
    reply_free(&r);

    ask("t/h_unknown", false, &r);
    cr_assert_eq(r.http.status, 200);
    cr_expect_eq(r.res.msg.ncalls, 0, "a call to an undeclared tool is refused");
    cr_expect_null(strstr(body_of(&r), "get_stock"));
    none_fail(&r, OAI_IDS, N(OAI_IDS));
    reply_free(&r);
}

Test(mock_reference, hermes_serves_only_fitting_fixtures)
{
    start("hermes");
    reply r;
    ask("t/a_think_call", false, &r); /* an Anthropic exchange: not served by hermes */
    cr_expect_eq(r.http.status, 404);
    cr_expect(strstr(body_of(&r), "\"error\""));
    reply_free(&r);
    cr_expect(tw_mock_profile_fits("hermes", &fx[0]));
    cr_expect_not(tw_mock_profile_fits("anthropic", &fx[0]));
    cr_expect_not(tw_mock_profile_fits("replay", &fx[0]));
}

/* ---------------- anthropic ---------------- */

Test(mock_reference, anthropic_thinking_and_call_nonstream)
{
    start("anthropic");
    reply r;
    ask("t/a_think_call", false, &r);
    cr_assert_eq(r.http.status, 200, "%s", body_of(&r));
    cr_expect(strstr(ctype(&r), "application/json"));
    cJSON *b = cJSON_Parse(body_of(&r));
    cr_assert_not_null(b);
    cr_expect_str_eq(tw_json_get_str(b, "type"), "message");
    cr_expect_str_eq(tw_json_get_str(b, "role"), "assistant");
    cr_expect_str_eq(tw_json_get_str(b, "stop_reason"), "tool_use");
    const cJSON *content = tw_json_get(b, "content");
    cr_assert_eq(cJSON_GetArraySize(content), 3);
    cr_expect_str_eq(tw_json_get_str(cJSON_GetArrayItem(content, 0), "type"), "thinking");
    cr_expect_str_eq(tw_json_get_str(cJSON_GetArrayItem(content, 1), "type"), "text");
    const cJSON *tu = cJSON_GetArrayItem(content, 2);
    cr_expect_str_eq(tw_json_get_str(tu, "type"), "tool_use");
    cr_expect(cJSON_IsObject(tw_json_get(tu, "input")), "input is an object, not a string");
    cJSON_Delete(b);
    expect_text(&r.res.msg.thinking, "get_weather fits.");
    expect_text(&r.res.msg.content, "Let me look.");
    expect_call(&r, 0, NULL, "get_weather", "{\"city\":\"Paris\"}");
    cr_expect_str_eq(r.res.finish_reason, "tool_calls");
    none_fail(&r, ANT_IDS, N(ANT_IDS));
    /* the reference server signs the thinking it decoded from model text */
    cr_expect_eq(verdict(&r, TW_CHK_ANT_S03), TW_V_PASS);
    cr_expect(r.res.msg.thinking_signature && r.res.msg.thinking_signature[0]);
    cr_expect_eq(verdict(&r, TW_CHK_OAI_R01), TW_V_SKIP, "OpenAI checks do not apply");
    reply_free(&r);
}

Test(mock_reference, anthropic_parallel_calls_stream)
{
    start("anthropic");
    reply r;
    ask("t/a_parallel", true, &r);
    cr_assert_eq(r.http.status, 200);
    cr_expect(strstr(ctype(&r), "text/event-stream"));
    const char *b = body_of(&r);
    /* named events in protocol order */
    static const char *const order[] = {"event: message_start",       "event: content_block_start",
                                        "event: content_block_delta", "event: content_block_stop",
                                        "event: message_delta",       "event: message_stop"};
    const char *p = b;
    for (size_t i = 0; i < N(order); i++) {
        const char *q = strstr(p, order[i]);
        cr_assert_not_null(q, "%s after offset %td", order[i], p - b);
        p = q;
    }
    cr_expect(strstr(b, "\"input_json_delta\""));
    cr_expect(strstr(b, "\"stop_reason\":\"tool_use\""));
    cr_assert_eq(r.res.msg.ncalls, 2);
    expect_call(&r, 0, NULL, "get_weather", "{\"city\":\"Paris\"}");
    expect_call(&r, 1, NULL, "get_time", "{\"tz\":\"Europe/Paris\"}");
    none_fail(&r, ANT_IDS, N(ANT_IDS));
    cr_expect_eq(verdict(&r, TW_CHK_ANT_S01), TW_V_PASS);
    cr_expect_eq(verdict(&r, TW_CHK_ANT_S02), TW_V_PASS);
    cr_expect_eq(verdict(&r, TW_CHK_ANT_S03), TW_V_SKIP, "no thinking block");
    reply_free(&r);
    /* the same exchange, not streamed: the same calls */
    ask("t/a_parallel", false, &r);
    cr_assert_eq(r.res.msg.ncalls, 2);
    expect_call(&r, 1, NULL, "get_time", "{\"tz\":\"Europe/Paris\"}");
    reply_free(&r);
}

Test(mock_reference, anthropic_call_inside_closed_think_not_emitted)
{
    start("anthropic");
    reply r;
    ask("t/a_hidden_call", true, &r);
    cr_assert_eq(r.http.status, 200);
    cr_expect_null(strstr(body_of(&r), "\"tool_use\""));
    cr_expect_eq(r.res.msg.ncalls, 0);
    expect_text(&r.res.msg.content, "Paris is mild.");
    cr_expect(r.res.msg.thinking.len && strstr(r.res.msg.thinking.data, "<tool_call>"),
              "the call stays in the reasoning");
    cr_expect_eq(verdict(&r, TW_CHK_HER_02), TW_V_PASS);
    cr_expect_eq(verdict(&r, TW_CHK_ANT_R02), TW_V_PASS);
    none_fail(&r, ANT_IDS, N(ANT_IDS));
    reply_free(&r);
}

/* ---------------- vllm-native ---------------- */

Test(mock_reference, vllm_two_pass_budget_and_stop_sequence)
{
    start("vllm-native");
    reply r;
    ask("t/g_budgets", false, &r);
    cr_assert_eq(r.http.status, 200, "%s", body_of(&r));
    cr_expect(strstr(ctype(&r), "application/json"));
    cJSON *b = cJSON_Parse(body_of(&r));
    cr_assert_not_null(b);
    /* pass 1 cut at 8 tokens (the closing tag lies past the budget) */
    cr_expect_str_eq(tw_json_get_str(b, "thinking"), "The user asks about");
    cr_expect_str_eq(tw_json_get_str(b, "response"), "Checking.");
    cr_expect_str_eq(tw_json_get_str(b, "pre_tool_text"), "Checking.");
    cr_expect_null(strstr(body_of(&r), "never generated"), "pass 2 stopped on </tool_call>");
    cJSON_Delete(b);
    cr_assert_eq(r.res.msg.ncalls, 1);
    expect_call(&r, 0, "call_1", "get_weather", "{\"city\":\"Paris\"}");
    none_fail(&r, VLN_IDS, N(VLN_IDS));
    cr_expect_eq(verdict(&r, TW_CHK_VLN_02), TW_V_PASS);
    cr_expect_eq(verdict(&r, TW_CHK_HER_01), TW_V_PASS);
    reply_free(&r);
}

Test(mock_reference, vllm_budget_in_generation_config)
{
    start("vllm-native");
    reply r;
    ask("t/g_response_cap", false, &r);
    cr_assert_eq(r.http.status, 200, "%s", body_of(&r));
    cJSON *b = cJSON_Parse(body_of(&r));
    cr_assert_not_null(b);
    cr_expect_str_eq(tw_json_get_str(b, "thinking"), "No tool needed.");
    cr_expect_str_eq(tw_json_get_str(b, "response"), "Paris in spring");
    cr_expect(cJSON_IsArray(tw_json_get(b, "tool_calls")) && !tw_json_get(b, "tool_calls")->child);
    cJSON_Delete(b);
    cr_expect_eq(r.res.msg.ncalls, 0);
    /* the budget the check reads is the one the server applied */
    cr_expect_eq(verdict(&r, TW_CHK_VLN_02), TW_V_PASS);
    none_fail(&r, VLN_IDS, N(VLN_IDS));
    reply_free(&r);
}

Test(mock_reference, vllm_array_block_and_unterminated_pass1)
{
    start("vllm-native");
    reply r;
    ask("t/g_array_unterminated_think", true,
        &r); /* /generate answers JSON even when asked to stream */
    cr_assert_eq(r.http.status, 200);
    cr_expect(strstr(ctype(&r), "application/json"));
    expect_text(&r.res.msg.thinking, "Both tools are needed");
    expect_text(&r.res.msg.content, "Both.");
    cr_assert_eq(r.res.msg.ncalls, 2);
    expect_call(&r, 0, "call_1", "get_weather", "{\"city\":\"Paris\"}");
    expect_call(&r, 1, "call_2", "get_time", "{\"tz\":\"Europe/Paris\"}");
    cr_expect_eq(verdict(&r, TW_CHK_VLN_02), TW_V_SKIP, "no budget asked");
    none_fail(&r, VLN_IDS, N(VLN_IDS));
    reply_free(&r);
}

Test(mock_reference, vllm_bad_parameter_is_400)
{
    start("vllm-native");
    reply r;
    ask("t/g_bad_param", false, &r);
    cr_expect_eq(r.http.status, 400);
    cJSON *b = cJSON_Parse(body_of(&r));
    cr_assert_not_null(b);
    cr_expect(cJSON_IsString(tw_json_get(tw_json_get(b, "error"), "message")));
    cr_expect(strstr(tw_json_get_str(tw_json_get(b, "error"), "message"), "max_thinking_tokens"),
              "%s", body_of(&r));
    cJSON_Delete(b);
    reply_free(&r);
    tw_mock_record *rec;
    size_t n;
    cr_assert_eq(tw_mock_records(mock, 0, &rec, &n), TW_OK);
    cr_assert_eq(n, 1);
    cr_expect_str_eq(rec[0].fixture, "t/g_bad_param");
    cr_expect_eq(rec[0].status, 400);
    cr_expect_eq(tw_check_set_get(&rec[0].checks, TW_CHK_CLI_03)->verdict, TW_V_PASS);
    tw_mock_records_free(rec, n);
}
