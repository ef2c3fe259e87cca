/* Proxies judged end to end: the upstream reference server, the translation
 * checks XLT-01..XLT-10 and the reference proxy. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loopback.h"
#include "refproxy.h"
#include "run.h"
#include "script.h"
#include "toolwire/request.h"
#include "twtest.h"
#include "upstream.h"
#include "xlt.h"

#define TOOLS_A                                                                                    \
    "[{\"name\":\"get_weather\",\"description\":\"Weather\",\"input_schema\":{\"type\":"           \
    "\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}}]"
#define TOOLS_O                                                                                    \
    "[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"description\":\"Weather\","  \
    "\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},"         \
    "\"required\":[\"city\"]}}}]"
#define DIRECTIVE(n)                                                                               \
    "Weather in Paris? toolwire-script {\\\"nonce\\\": \\\"" n                                     \
    "\\\", \\\"steps\\\": [{\\\"reasoning\\\": \\\"Look it up.\\\", \\\"text\\\": "                \
    "\\\"Checking.\\\", \\\"calls\\\": [{\\\"name\\\": \\\"get_weather\\\", \\\"arguments\\\": "   \
    "{\\\"city\\\": \\\"Paris\\\"}}]}]}"
#define ANT_REQ(n, extra)                                                                          \
    "{\"model\":\"m\",\"max_tokens\":4096,\"tools\":" TOOLS_A extra                                \
    ",\"messages\":[{\"role\":\"user\",\"content\":\"" DIRECTIVE(n) "\"}]}"

static tw_request decode_a(const char *body)
{
    tw_request r;
    cr_assert_eq(tw_anthropic_request_decode(body, strlen(body), NULL, &r, NULL), TW_OK, "%s",
                 body);
    return r;
}

/* The upstream's record of an OpenAI body (answered by the script). */
static void upstream_o(const char *body, tw_upstream_record *rec, tw_buf *out)
{
    const char *ct = NULL;
    tw_upstream_answer("openai", "/v1/chat/completions", body, strlen(body), NULL, rec, &ct, out);
}

static const tw_check_result *get(const tw_check_set *s, tw_check_id id)
{
    const tw_check_result *c = tw_check_set_get(s, id);
    cr_assert(c, "%s has a verdict", tw_check_name(id));
    return c;
}

Test(xlt, upstream_answers_from_the_script_and_keeps_the_nonce)
{
    tw_upstream_record rec;
    tw_buf out = {0};
    upstream_o("{\"model\":\"m\",\"tools\":" TOOLS_O
               ",\"messages\":[{\"role\":\"user\",\"content\":\"" DIRECTIVE("n-1") "\"}]}",
               &rec, &out);
    cr_assert_eq(rec.status, 200, "%s", rec.why);
    cr_assert(rec.decoded);
    cr_assert_str_eq(rec.nonce, "n-1");
    cr_assert_eq(rec.step, 0);
    cr_assert(strstr(rec.model_text, "<tool_call>"), "%s", rec.model_text);
    cr_assert(strstr(out.data, "\"get_weather\""), "%s", out.data);
    cr_assert_eq(get(&rec.checks, TW_CHK_CLI_03)->verdict, TW_V_PASS);
    tw_upstream_record_free(&rec);
    tw_buf_free(&out);
    /* another format's path: 404 in the upstream's envelope */
    const char *ct;
    tw_upstream_answer("openai", "/v1/messages", "{}", 2, NULL, &rec, &ct, &out);
    cr_assert_eq(rec.status, 404);
    cr_assert(strstr(out.data, "\"error\""));
    tw_upstream_record_free(&rec);
    tw_buf_free(&out);
}

Test(xlt, upstream_spec_parse)
{
    char f[16];
    tw_error why = {.offset = -1};
    unsigned short port;
    cr_assert(tw_upstream_spec_parse("openai@8080", f, sizeof f, &port, &why));
    cr_assert_str_eq(f, "openai");
    cr_assert_eq(port, 8080);
    cr_assert_not(tw_upstream_spec_parse("openai@0", f, sizeof f, &port, &why));
    cr_assert_not(tw_upstream_spec_parse("gopher@80", f, sizeof f, &port, &why));
    cr_assert_not(tw_upstream_spec_parse("openai", f, sizeof f, &port, &why));
}

/* Translate with the reference proxy, answer upstream, judge the request half. */
static void judge_request(const char *sent_body, const char *arrived_body, tw_check_set *out)
{
    tw_request sent = decode_a(sent_body);
    cJSON *sj = cJSON_Parse(sent_body);
    tw_upstream_record rec;
    tw_buf ob = {0};
    upstream_o(arrived_body, &rec, &ob);
    char *nonce = tw_script_nonce(&sent);
    tw_xlt_request(&sent, sj, 'a', &rec, 1, nonce, out);
    free(nonce);
    tw_upstream_record_free(&rec);
    tw_buf_free(&ob);
    cJSON_Delete(sj);
    tw_request_free(&sent);
}

static char *translated(const char *body)
{
    tw_buf out = {0};
    bool stream;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_refproxy_translate_request("anthropic", "openai", body, strlen(body), NULL,
                                               &out, &stream, &why),
                 0, "%s", why.message);
    return tw_buf_take(&out, NULL);
}

Test(xlt, reference_translation_passes_every_request_check)
{
    const char *b = ANT_REQ("n-2", ",\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":1024},"
                                   "\"tool_choice\":{\"type\":\"tool\",\"name\":\"get_weather\"}");
    char *t = translated(b);
    cr_assert(strstr(t, "\"reasoning_effort\""), "%s", t);
    tw_check_set s = {0};
    judge_request(b, t, &s);
    for (tw_check_id id = TW_CHK_XLT_01; id <= TW_CHK_XLT_06; id++) {
        const tw_check_result *c = get(&s, id);
        cr_assert_neq(c->verdict, TW_V_FAIL, "%s: %s", c->id, c->evidence);
        cr_assert(strncmp(c->evidence, "upstream request:", 17) == 0, "%s", c->evidence);
    }
    cr_assert_eq(get(&s, TW_CHK_XLT_05)->verdict, TW_V_PASS);
    cr_assert_eq(get(&s, TW_CHK_XLT_06)->verdict, TW_V_PASS);
    tw_check_set_free(&s);
    free(t);
}

/* Each loss a proxy can make is the failure of a named check. */
Test(xlt, request_losses_fail_their_checks)
{
    const char *b = ANT_REQ("n-3", ",\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":1024},"
                                   "\"tool_choice\":{\"type\":\"any\"}");
    const char *msg = ",\"messages\":[{\"role\":\"user\",\"content\":\"" DIRECTIVE("n-3") "\"}]}";
    struct {
        const char *arrived;
        tw_check_id id;
        const char *needle;
    } cases[] = {
        {"{\"model\":\"m\",\"tools\":[],\"tool_choice\":\"required\",\"reasoning_effort\":\"low\""
         "%s",
         TW_CHK_XLT_02, "not forwarded"},
        {"{\"model\":\"m\",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_"
         "weather\",\"description\":\"Weather\",\"parameters\":{\"type\":\"object\",\"properties\":"
         "{\"city\":{\"type\":\"integer\"}},\"required\":[\"city\"]}}}],\"tool_choice\":"
         "\"required\",\"reasoning_effort\":\"low\"%s",
         TW_CHK_XLT_02, "/properties/city/type"},
        {"{\"model\":\"m\",\"tools\":" TOOLS_O
         ",\"tool_choice\":\"auto\",\"reasoning_effort\":\"low\"%s",
         TW_CHK_XLT_05, "sent required, arrived auto"},
        {"{\"model\":\"m\",\"tools\":" TOOLS_O ",\"tool_choice\":\"required\"%s", TW_CHK_XLT_06,
         "enabled in the sent request, not enabled upstream"},
        {"{\"model\":\"m\",\"tools\":" TOOLS_O
         ",\"tool_choice\":\"required\",\"reasoning_effort\":\"low\",\"messages\":[{\"role\":"
         "\"system\",\"content\":\"You are a "
         "router.\"},{\"role\":\"user\",\"content\":\"" DIRECTIVE("n-3") "\"}]}",
         TW_CHK_XLT_03, "arrived role system"},
        {"{\"model\":\"m\",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_"
         "weather\",\"description\":\"Forecast\",\"parameters\":{\"type\":\"object\","
         "\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}}}],"
         "\"tool_choice\":\"required\",\"reasoning_effort\":\"low\"%s",
         TW_CHK_XLT_02, "description sent"},
        {"{\"model\":\"m\",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_"
         "weather\",\"description\":\"Weather\",\"parameters\":{\"type\":\"object\","
         "\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}}},{"
         "\"type\":\"function\",\"function\":{\"name\":\"web_search\",\"parameters\":{"
         "\"type\":\"object\"}}}],\"tool_choice\":\"required\",\"reasoning_effort\":\"low\"%s",
         TW_CHK_XLT_02, "web_search added"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char arrived[4096];
        snprintf(arrived, sizeof arrived, cases[i].arrived, msg);
        tw_check_set s = {0};
        judge_request(b, arrived, &s);
        const tw_check_result *c = get(&s, cases[i].id);
        cr_assert_eq(c->verdict, TW_V_FAIL, "case %zu %s: %s", i, c->id, c->evidence);
        cr_assert(strstr(c->evidence, cases[i].needle), "case %zu: %s", i, c->evidence);
        tw_check_set_free(&s);
    }
}

/* A named tool_choice arrives naming the same tool, or XLT-05 fails. */
Test(xlt, named_choice_changed)
{
#define TOOLS2_A                                                                                   \
    "[{\"name\":\"get_weather\",\"input_schema\":{\"type\":\"object\"}},{\"name\":\"get_"          \
    "time\",\"input_schema\":{\"type\":\"object\"}}]"
#define TOOLS2_O                                                                                   \
    "[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"parameters\":{\"type\":"     \
    "\"object\"}}},{\"type\":\"function\",\"function\":{\"name\":\"get_time\",\"parameters\":{"    \
    "\"type\":\"object\"}}}]"
    static const char sent[] =
        "{\"model\":\"m\",\"max_tokens\":100,\"tools\":" TOOLS2_A
        ",\"tool_choice\":{\"type\":\"tool\",\"name\":\"get_weather\"},\"messages\":[{\"role\":"
        "\"user\",\"content\":\"" DIRECTIVE("n-8") "\"}]}";
    static const char *const arrived[] = {
        "{\"model\":\"m\",\"tools\":" TOOLS2_O ",\"tool_choice\":{\"type\":\"function\","
        "\"function\":{\"name\":\"get_weather\"}},\"messages\":[{\"role\":\"user\",\"content\":"
        "\"" DIRECTIVE("n-8") "\"}]}",
        "{\"model\":\"m\",\"tools\":" TOOLS2_O ",\"tool_choice\":{\"type\":\"function\","
        "\"function\":{\"name\":\"get_time\"}},\"messages\":[{\"role\":\"user\",\"content\":"
        "\"" DIRECTIVE("n-8") "\"}]}"};
#undef TOOLS2_A
#undef TOOLS2_O
    for (size_t i = 0; i < 2; i++) {
        tw_check_set s = {0};
        judge_request(sent, arrived[i], &s);
        const tw_check_result *c = get(&s, TW_CHK_XLT_05);
        cr_expect_eq(c->verdict, i ? TW_V_FAIL : TW_V_PASS, "case %zu: %s", i, c->evidence);
        if (i)
            cr_expect(strstr(c->evidence, "arrived named get_time"), "%s", c->evidence);
        tw_check_set_free(&s);
    }
}

Test(xlt, tool_result_pairing_lost)
{
    const char *hist = ",\"messages\":[{\"role\":\"user\",\"content\":\"" DIRECTIVE(
        "n-4") "\"},"
               "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_1\","
               "\"name\":\"get_weather\",\"input\":{\"city\":\"Paris\"}}]},"
               "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_"
               "1\",\"content\":\"18 C\"}]}]}";
    char sent[4096];
    snprintf(sent, sizeof sent, "{\"model\":\"m\",\"max_tokens\":100,\"tools\":" TOOLS_A "%s",
             hist);
    char *good = translated(sent);
    tw_check_set s = {0};
    judge_request(sent, good, &s);
    cr_assert_eq(get(&s, TW_CHK_XLT_04)->verdict, TW_V_PASS, "%s",
                 get(&s, TW_CHK_XLT_04)->evidence);
    tw_check_set_free(&s);
    free(good);
    /* the result arrives with another id than its call's */
    const char *bad =
        "{\"model\":\"m\",\"tools\":" TOOLS_O
        ",\"messages\":[{\"role\":\"user\",\"content\":\"" DIRECTIVE(
            "n-4") "\"},"
                   "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_1\","
                   "\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{"
                   "\\\"city\\\":\\\"Paris\\\"}\"}}]},"
                   "{\"role\":\"tool\",\"tool_call_id\":\"call_2\",\"content\":\"18 C\"}]}";
    judge_request(sent, bad, &s);
    const tw_check_result *c = get(&s, TW_CHK_XLT_04);
    cr_assert_eq(c->verdict, TW_V_FAIL);
    cr_assert(strstr(c->evidence, "no tool result carries its id"), "%s", c->evidence);
    tw_check_set_free(&s);
}

/* A history call's arguments and its result's content arrive as they were
 * sent, or XLT-04 fails and says what differs. */
Test(xlt, history_call_arguments_and_result_rewritten)
{
    const char *sent =
        "{\"model\":\"m\",\"max_tokens\":100,\"tools\":" TOOLS_A
        ",\"messages\":[{\"role\":\"user\",\"content\":\"" DIRECTIVE(
            "n-7") "\"},"
                   "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_1\","
                   "\"name\":\"get_weather\",\"input\":{\"city\":\"Paris\"}}]},"
                   "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":"
                   "\"toolu_1\",\"content\":\"18 C\"}]}]}";
#define O_HIST(city, result)                                                                       \
    "{\"model\":\"m\",\"tools\":" TOOLS_O                                                          \
    ",\"messages\":[{\"role\":\"user\",\"content\":\"" DIRECTIVE(                                  \
        "n-7") "\"},"                                                                              \
               "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"toolu_1\","     \
               "\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{"    \
               "\\\"city\\\":\\\"" city "\\\"}\"}}]},"                                             \
               "{\"role\":\"tool\",\"tool_call_id\":\"toolu_1\",\"content\":\"" result "\"}]}"
    static const char *const arrived[] = {O_HIST("Paris", "18 C"), O_HIST("Lyon", "18 C"),
                                          O_HIST("Paris", "20 C")};
    static const char *const says[] = {NULL, "arguments differ at /city",
                                       "sent \"18 C\", arrived \"20 C\""};
#undef O_HIST
    for (size_t i = 0; i < 3; i++) {
        tw_check_set s = {0};
        judge_request(sent, arrived[i], &s);
        const tw_check_result *c = get(&s, TW_CHK_XLT_04);
        cr_expect_eq(c->verdict, i ? TW_V_FAIL : TW_V_PASS, "case %zu: %s", i, c->evidence);
        if (says[i])
            cr_expect(strstr(c->evidence, says[i]), "case %zu: %s", i, c->evidence);
        tw_check_set_free(&s);
    }
}

/* A tool result's error flag is part of the result: an Anthropic-to-Anthropic
 * proxy that drops is_error fails XLT-04, one that keeps it passes. */
Test(xlt, tool_result_error_flag_lost)
{
#define ERR_HIST(flag)                                                                             \
    "{\"model\":\"m\",\"max_tokens\":100,\"tools\":" TOOLS_A                                       \
    ",\"messages\":[{\"role\":\"user\",\"content\":\"" DIRECTIVE(                                  \
        "n-9") "\"},"                                                                              \
               "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_1\","   \
               "\"name\":\"get_weather\",\"input\":{\"city\":\"Paris\"}}]},"                       \
               "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":"        \
               "\"toolu_1\"" flag ",\"content\":\"no such city\"}]}]}"
    static const char sent[] = ERR_HIST(",\"is_error\":true");
    static const char *const arrived[] = {ERR_HIST(",\"is_error\":true"), ERR_HIST("")};
#undef ERR_HIST
    tw_request s = decode_a(sent);
    cJSON *sj = cJSON_Parse(sent);
    for (size_t i = 0; i < 2; i++) {
        tw_upstream_record rec;
        tw_buf ob = {0};
        const char *ct = NULL;
        tw_upstream_answer("anthropic", "/v1/messages", arrived[i], strlen(arrived[i]), NULL, &rec,
                           &ct, &ob);
        cr_assert(rec.decoded, "%s", rec.why);
        char *nonce = tw_script_nonce(&s);
        tw_check_set out = {0};
        tw_xlt_request(&s, sj, 'a', &rec, 1, nonce, &out);
        const tw_check_result *c = get(&out, TW_CHK_XLT_04);
        if (i == 0) {
            cr_expect_eq(c->verdict, TW_V_PASS, "%s", c->evidence);
        } else {
            cr_expect_eq(c->verdict, TW_V_FAIL, "the lost flag passes: %s", c->evidence);
            cr_expect(strstr(c->evidence, "error flag sent true, arrived false"), "%s",
                      c->evidence);
        }
        tw_check_set_free(&out);
        free(nonce);
        tw_upstream_record_free(&rec);
        tw_buf_free(&ob);
    }
    cJSON_Delete(sj);
    tw_request_free(&s);
}

/* The answer half: the proxy's answer against the script's text. */
Test(xlt, answer_checks)
{
    tw_upstream_record rec;
    tw_buf up = {0};
    upstream_o("{\"model\":\"m\",\"reasoning_effort\":\"low\",\"tools\":" TOOLS_O
               ",\"messages\":[{\"role\":\"user\",\"content\":\"" DIRECTIVE("n-5") "\"}]}",
               &rec, &up);
    cr_assert_eq(rec.status, 200, "%s", rec.why);
    const char *good = "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":"
                       "\"m\",\"content\":["
                       "{\"type\":\"thinking\",\"thinking\":\"Look it "
                       "up.\",\"signature\":\"s\"},{\"type\":\"text\",\"text\":\"Checking.\"},"
                       "{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"get_weather\","
                       "\"input\":{\"city\":\"Paris\"}}],"
                       "\"stop_reason\":\"tool_use\",\"stop_sequence\":null,\"usage\":{\"input_"
                       "tokens\":1,\"output_tokens\":1}}";
    tw_check_set s = {0};
    tw_xlt_answer(&rec, "/v1/messages", false, 200, good, strlen(good), NULL, &s);
    for (tw_check_id id = TW_CHK_XLT_07; id <= TW_CHK_XLT_10; id++) {
        cr_assert_eq(get(&s, id)->verdict, TW_V_PASS, "%s: %s", tw_check_name(id),
                     get(&s, id)->evidence);
        cr_assert(strncmp(get(&s, id)->evidence, "answer to the client:", 21) == 0);
    }
    tw_check_set_free(&s);
    /* arguments changed, reasoning lost, text lost, finish reason wrong */
    const char *bad = "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":"
                      "\"m\",\"content\":["
                      "{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"get_weather\","
                      "\"input\":{\"city\":\"Lyon\"}}],"
                      "\"stop_reason\":\"end_turn\",\"stop_sequence\":null,\"usage\":{\"input_"
                      "tokens\":1,\"output_tokens\":1}}";
    tw_xlt_answer(&rec, "/v1/messages", false, 200, bad, strlen(bad), NULL, &s);
    cr_assert(strstr(get(&s, TW_CHK_XLT_07)->evidence, "/city"), "%s",
              get(&s, TW_CHK_XLT_07)->evidence);
    cr_assert_eq(get(&s, TW_CHK_XLT_07)->verdict, TW_V_FAIL);
    cr_assert_eq(get(&s, TW_CHK_XLT_08)->verdict, TW_V_FAIL);
    cr_assert_eq(get(&s, TW_CHK_XLT_09)->verdict, TW_V_FAIL);
    cr_assert_eq(get(&s, TW_CHK_XLT_10)->verdict, TW_V_FAIL);
    tw_check_set_free(&s);
    /* an error status where the upstream answered */
    tw_xlt_answer(&rec, "/v1/messages", false, 502, "{}", 2, NULL, &s);
    cr_assert_eq(get(&s, TW_CHK_XLT_07)->verdict, TW_V_FAIL);
    tw_check_set_free(&s);
    tw_upstream_record_free(&rec);
    tw_buf_free(&up);
}

/* Nothing arrived upstream: XLT-01 fails, naming the nonce. */
Test(xlt, nothing_arrived)
{
    tw_request sent = decode_a(ANT_REQ("n-6", ""));
    tw_check_set s = {0};
    tw_xlt_request(&sent, NULL, 'a', NULL, 2, "n-6", &s);
    cr_assert_eq(get(&s, TW_CHK_XLT_01)->verdict, TW_V_FAIL);
    cr_assert(strstr(get(&s, TW_CHK_XLT_01)->evidence, "n-6"));
    cr_assert_eq(get(&s, TW_CHK_XLT_02)->verdict, TW_V_SKIP);
    tw_check_set_free(&s);
    tw_request_free(&sent);
}

/* The whole path in-process: run -> reference proxy -> upstream, both halves in the report. */
Test(xlt, run_through_the_reference_proxy)
{
    char dir[] = "/tmp/tw-xlt-XXXXXX";
    cr_assert(mkdtemp(dir));
    char path[300];
    snprintf(path, sizeof path, "%s/fx.json", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fprintf(
        f,
        "{\"fixture_version\":1,\"name\":\"xlt/"
        "one\",\"description\":\"d\",\"backend\":\"anthropic\","
        "\"tags\":[\"live\",\"anthropic\",\"stream\"],\"provenance\":{\"source\":\"hand-made\","
        "\"license\":\"MIT\"},"
        "\"exchanges\":[{\"request\":{\"method\":\"POST\",\"path\":\"/v1/messages\",\"body\":%s}},"
        "{\"request\":{\"method\":\"POST\",\"path\":\"/v1/messages\",\"body\":%s}}]}",
        ANT_REQ("n-7",
                ",\"stream\":true,\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":1024}"),
        ANT_REQ("n-8", ""));
    fclose(f);
    tw_fixture_set fs;
    tw_error why = {.offset = -1};
    char *paths[] = {dir};
    cr_assert(tw_fixture_set_load(&fs, paths, 1, NULL, &why), "%s", why.message);
    cr_assert_eq(fs.n, 1, "%s", fs.nbad ? fs.bad_why[0] : "");
    tw_backend_spec b = {.name = "ref-proxy"};
    tw_backend_upstream up = {"ref-proxy", "openai", 0, "anthropic:openai"};
    tw_run_opts o;
    memset(&o, 0, sizeof o);
    o.upstreams = &up;
    o.nupstreams = 1;
    tw_report rep;
    cr_assert_eq(tw_run_backend(&fs, &b, &o, &rep, &why), TW_OK, "%s", why.message);
    cr_assert_eq(rep.nfx, 1);
    cr_assert_eq(rep.fx[0].nex, 2);
    for (size_t k = 0; k < 2; k++) {
        const tw_rep_exchange *e = &rep.fx[0].ex[k];
        cr_assert_eq(e->status, 200);
        size_t xlt_pass = 0, cli_upstream = 0;
        for (size_t c = 0; c < e->nchecks; c++) {
            cr_assert(e->checks[c].match, "%s %s: %s", e->checks[c].id,
                      tw_verdict_name(e->checks[c].verdict), e->checks[c].evidence);
            xlt_pass +=
                strncmp(e->checks[c].id, "XLT-", 4) == 0 && e->checks[c].verdict == TW_V_PASS;
            cli_upstream += strncmp(e->checks[c].id, "CLI-", 4) == 0 &&
                            strncmp(e->checks[c].evidence, "upstream request:", 17) == 0;
        }
        cr_assert_geq(xlt_pass, 8, "exchange %zu: %zu XLT passes", k, xlt_pass);
        cr_assert_eq(cli_upstream, 10); /* CLI-01..CLI-10 */
    }
    cr_assert(rep.ok);
    tw_report_free(&rep);
    tw_fixture_set_free(&fs);
    unlink(path);
    rmdir(dir);
}

/* Hostile senders at the upstream: bodies past max_input_bytes get 413, and the
 * records waiting to be taken are capped (the oldest go, counted). */
Test(xlt, upstream_bounds)
{
    tw_upstream_opts uo;
    memset(&uo, 0, sizeof uo);
    uo.format = "openai";
    uo.limits.max_input_bytes = 4096;
    uo.max_records = 2;
    tw_upstream *u = NULL;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_upstream_start(&uo, &u, &why), TW_OK, "%s", why.message);
    tw_client_opts co;
    memset(&co, 0, sizeof co);
    co.base_url = tw_upstream_url(u);
    co.max_retries = 0;
    tw_client *cl = tw_client_new(&co);
    const char *small = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    for (int i = 0; i < 3; i++) {
        tw_http_response r;
        cr_assert_eq(
            tw_client_send(cl, "POST", "/v1/chat/completions", NULL, 0, small, strlen(small), &r),
            TW_OK);
        cr_assert_eq(r.status, 200, "%s", r.body.data);
        tw_http_response_free(&r);
    }
    char *big = malloc(8192);
    memset(big, ' ', 8192);
    big[0] = '{';
    big[8191] = '}';
    tw_http_response r;
    cr_assert_eq(tw_client_send(cl, "POST", "/v1/chat/completions", NULL, 0, big, 8192, &r), TW_OK);
    cr_assert_eq(r.status, 413);
    tw_http_response_free(&r);
    free(big);
    tw_client_free(cl);
    tw_upstream_record *recs;
    size_t n;
    cr_assert_eq(tw_upstream_take(u, 0, &recs, &n), TW_OK);
    cr_assert_eq(n, 2);
    cr_assert_eq(tw_upstream_dropped(u), 1);
    cr_assert_eq(recs[1].seq, 3);
    tw_upstream_records_free(recs, n);
    tw_upstream_stop(u);
}

static void garbage(void *user, const char *method, const char *url, const char *header,
                    const char *body, size_t len, tw_loop_reply *reply)
{
    (void)user, (void)method, (void)url, (void)header, (void)body, (void)len;
    reply->status = 200;
    tw_buf_puts(&reply->body, "{\"choices\": [{\"message\": ");
}

/* The reference proxy never passes on what it cannot read: an upstream answer that
 * does not decode is a 502 in the client's envelope; a refused upstream too. */
Test(xlt, reference_proxy_answers_502_for_a_broken_upstream)
{
    tw_loop_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.fn = garbage;
    tw_loop *l = NULL;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_loop_start(&lo, &l, &why), TW_OK, "%s", why.message);
    tw_refproxy_opts po;
    memset(&po, 0, sizeof po);
    po.from = "anthropic";
    po.to = "openai";
    po.upstream = tw_loop_url(l);
    tw_refproxy *p = NULL;
    cr_assert_eq(tw_refproxy_start(&po, &p, &why), TW_OK, "%s", why.message);
    tw_client_opts co;
    memset(&co, 0, sizeof co);
    co.base_url = tw_refproxy_url(p);
    co.max_retries = 0;
    tw_client *cl = tw_client_new(&co);
    const char *b = ANT_REQ("n-9", "");
    tw_http_response r;
    cr_assert_eq(tw_client_send(cl, "POST", "/v1/messages", NULL, 0, b, strlen(b), &r), TW_OK);
    cr_assert_eq(r.status, 502, "%d %s", r.status, r.body.data);
    cr_assert(strstr(r.body.data, "\"type\":\"error\""), "%s", r.body.data);
    tw_http_response_free(&r);
    tw_refproxy_stop(p);
    /* nothing listens there any more */
    po.upstream = "http://127.0.0.1:9";
    cr_assert_eq(tw_refproxy_start(&po, &p, &why), TW_OK, "%s", why.message);
    tw_client_free(cl);
    co.base_url = tw_refproxy_url(p);
    cl = tw_client_new(&co);
    cr_assert_eq(tw_client_send(cl, "POST", "/v1/messages", NULL, 0, b, strlen(b), &r), TW_OK);
    cr_assert_eq(r.status, 502, "%d", r.status);
    tw_http_response_free(&r);
    /* a path it does not serve */
    cr_assert_eq(tw_client_send(cl, "POST", "/v1/chat/completions", NULL, 0, b, strlen(b), &r),
                 TW_OK);
    cr_assert_eq(r.status, 404);
    tw_http_response_free(&r);
    tw_client_free(cl);
    tw_refproxy_stop(p);
    tw_loop_stop(l);
}

/* XLT-05 of a request sent and the one that arrived: its verdict, and evidence holding want. */
static void xlt05(const char *sent, const char *arrived, tw_verdict v, const char *want)
{
    tw_check_set s = {0};
    judge_request(sent, arrived, &s);
    const tw_check_result *c = get(&s, TW_CHK_XLT_05);
    cr_assert_eq(c->verdict, v, "%s", c->evidence);
    cr_assert(strstr(c->evidence, want), "%s", c->evidence);
    tw_check_set_free(&s);
}

#define ANT_CHOICE(choice)                                                                         \
    "{\"model\":\"m\",\"max_tokens\":100,\"tools\":" TOOLS_A ",\"tool_choice\":" choice ","        \
    "\"messages\":[{\"role\":\"user\",\"content\":\"" DIRECTIVE("n-10") "\"}]}"
#define OAI_CHOICE(extra)                                                                          \
    "{\"model\":\"m\",\"tools\":" TOOLS_O extra                                                    \
    ",\"messages\":[{\"role\":\"user\",\"content\":\"" DIRECTIVE("n-10") "\"}]}"

/* The parallel-calls setting is compared, except under tool_choice none. */
Test(xlt, parallel_setting)
{
    xlt05(ANT_CHOICE("{\"type\":\"auto\",\"disable_parallel_tool_use\":true}"),
          OAI_CHOICE(",\"tool_choice\":\"auto\",\"parallel_tool_calls\":true"), TW_V_FAIL,
          "parallel tool calls sent disabled, arrived allowed");
    xlt05(ANT_CHOICE("{\"type\":\"none\",\"disable_parallel_tool_use\":true}"),
          OAI_CHOICE(",\"tool_choice\":\"none\""), TW_V_PASS, "tool_choice none");
}

/* XLT-05: an unset parallel_tool_calls is OpenAI's default, parallel calls allowed. */
Test(xlt, parallel_unset_reads_as_allowed)
{
    xlt05(ANT_CHOICE("{\"type\":\"auto\",\"disable_parallel_tool_use\":false}"),
          OAI_CHOICE(",\"tool_choice\":\"auto\""), TW_V_PASS, "tool_choice auto");
    /* sent unset (allowed), arrived disabled: a change */
    xlt05(ANT_CHOICE("{\"type\":\"auto\"}"),
          OAI_CHOICE(",\"tool_choice\":\"auto\",\"parallel_tool_calls\":false"), TW_V_FAIL,
          "sent unset (allowed), arrived disabled");
}

/* Each live suite through the reference proxy that reads its format: no translation loss,
 * every exchange paired, the run matches its expectations. */
static void live_suite_through(const char *suite, const char *proxy, const char *upstream)
{
    tw_fixture_set fs;
    tw_error why = {.offset = -1};
    char *paths[] = {(char *)tw_test_src(suite)};
    cr_assert(tw_fixture_set_load(&fs, paths, 1, NULL, &why), "%s", why.message);
    cr_assert_gt(fs.n, 5, "%s has its fixtures", suite);
    cr_assert_eq(fs.nbad, 0);
    tw_backend_spec b = {.name = "ref-proxy"};
    tw_backend_upstream up = {"ref-proxy", upstream, 0, proxy};
    tw_run_opts o;
    memset(&o, 0, sizeof o);
    o.upstreams = &up;
    o.nupstreams = 1;
    tw_report rep;
    cr_assert_eq(tw_run_backend(&fs, &b, &o, &rep, &why), TW_OK, "%s", why.message);
    size_t paired = 0, nex = 0;
    for (size_t f = 0; f < rep.nfx; f++)
        for (size_t k = 0; k < rep.fx[f].nex; k++) {
            const tw_rep_exchange *e = &rep.fx[f].ex[k];
            nex++;
            for (size_t c = 0; c < e->nchecks; c++) {
                if (strncmp(e->checks[c].id, "XLT-", 4) == 0)
                    cr_assert_neq(e->checks[c].verdict, TW_V_FAIL, "%s#%zu %s: %s", rep.fx[f].name,
                                  k, e->checks[c].id, e->checks[c].evidence);
                paired +=
                    strcmp(e->checks[c].id, "XLT-01") == 0 && e->checks[c].verdict == TW_V_PASS;
            }
        }
    cr_assert_eq(paired, nex);
    cr_assert(rep.ok, "%zu mismatches", rep.n_mismatch);
    tw_report_free(&rep);
    tw_fixture_set_free(&fs);
}

Test(xlt, live_suites_through_the_reference_proxy)
{
    live_suite_through("fixtures/live/anthropic", "anthropic:openai", "openai");
    live_suite_through("fixtures/live/openai", "openai:anthropic", "anthropic");
}

/* XLT-06: enable_thinking or thinking.type enabled beside reasoning.enabled false is a
 * conflict, not "not enabled on both sides". */
Test(xlt, reasoning_settings_conflict)
{
    const char *sent = "{\"model\":\"m\",\"max_tokens\":100,\"tools\":" TOOLS_A ","
                       "\"messages\":[{\"role\":\"user\",\"content\":\"" DIRECTIVE("n-12") "\"}]}";
    const char *arrived[] = {
        "{\"model\":\"m\",\"tools\":" TOOLS_O
        ",\"chat_template_kwargs\":{\"enable_thinking\":true},\"reasoning\":{\"enabled\":false},"
        "\"messages\":[{\"role\":\"user\",\"content\":\"" DIRECTIVE("n-12") "\"}]}",
        "{\"model\":\"m\",\"tools\":" TOOLS_O
        ",\"thinking\":{\"type\":\"enabled\"},\"reasoning\":{\"enabled\":false},"
        "\"messages\":[{\"role\":\"user\",\"content\":\"" DIRECTIVE("n-12") "\"}]}"};
    const char *named[] = {"chat_template_kwargs.enable_thinking: true", "thinking.type: enabled"};
    for (size_t i = 0; i < 2; i++) {
        tw_check_set s = {0};
        judge_request(sent, arrived[i], &s);
        const tw_check_result *c = get(&s, TW_CHK_XLT_06);
        cr_assert_eq(c->verdict, TW_V_FAIL, "%s", c->evidence);
        cr_assert(strstr(c->evidence, "conflict upstream"), "%s", c->evidence);
        cr_assert(strstr(c->evidence, named[i]) && strstr(c->evidence, "reasoning.enabled: false"),
                  "%s", c->evidence);
        tw_check_set_free(&s);
    }
    /* one setting alone is read as it says */
    cJSON *off = cJSON_Parse("{\"reasoning\":{\"enabled\":false}}");
    cJSON *on = cJSON_Parse(
        "{\"reasoning_effort\":\"high\",\"chat_template_kwargs\":{\"enable_thinking\":true}}");
    cr_assert_eq(tw_xlt_reasoning_enabled('o', off, NULL, 0), 0);
    cr_assert_eq(tw_xlt_reasoning_enabled('o', on, NULL, 0), 1);
    cJSON_Delete(off);
    cJSON_Delete(on);
}

/* XLT-10 names the script's finish reason as the client's format spells it. */
Test(xlt, finish_reason_in_the_clients_format)
{
    tw_upstream_record rec;
    tw_buf up = {0};
    upstream_o("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi. "
               "toolwire-script {\\\"nonce\\\": \\\"n-13\\\", "
               "\\\"text\\\": \\\"Hello.\\\"}\"}]}",
               &rec, &up);
    cr_assert_eq(rec.status, 200, "%s", rec.why);
    const char *cut = "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":"
                      "\"m\",\"content\":["
                      "{\"type\":\"text\",\"text\":\"Hello.\"}],"
                      "\"stop_reason\":\"max_tokens\",\"stop_sequence\":null,\"usage\":{\"input_"
                      "tokens\":1,\"output_tokens\":1}}";
    tw_check_set s = {0};
    tw_xlt_answer(&rec, "/v1/messages", false, 200, cut, strlen(cut), NULL, &s);
    const tw_check_result *c = get(&s, TW_CHK_XLT_10);
    cr_assert_eq(c->verdict, TW_V_FAIL);
    cr_assert(
        strstr(c->evidence, "finish reason max_tokens, the script's answer ends with end_turn"),
        "%s", c->evidence);
    tw_check_set_free(&s);
    tw_upstream_record_free(&rec);
    tw_buf_free(&up);
}
