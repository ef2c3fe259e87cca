/* The request decoders of request_chatml.h and request_vllm.h: the Hermes/Qwen3 ChatML prompt and
 * the vLLM-native GenerateRequest. Round trips over every Qwen3 fixture
 * (encode, decode, encode gives the same bytes; decode gives the request back
 * up to what the format cannot carry), refusals with their path, limits,
 * the encoders' not_carried warnings and `toolwire convert`. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "decode_fixtures.h"
#include "requests.h"
#include "toolwire/json.h"
#include "toolwire/registry.h"
#include "toolwire/request_chatml.h"
#include "toolwire/request_vllm.h"
#include "toolwire/transcode.h"
#include "toolwire/vllm.h"
#include "twtest.h"

typedef tw_request_decode_fn req_decoder;

/* ---- helpers ---- */

static void read_req(const cJSON *j, tw_request *r, const char *what)
{
    tw_error why_e = {0};
    cr_assert_eq(tw_request_read(j, NULL, r, &why_e), TW_OK, "%s: %s", what, why_e.message);
}

static void read_req_text(const char *js, tw_request *r)
{
    size_t n = strlen(js);
    cJSON *j = NULL;
    tw_error e;
    cr_assert_eq(tw_json_parse(js, n, 64, &j, &e), TW_OK, "%s", e.message);
    cr_assert_eq(tw_json_keep_spellings(js, n, j, 64), TW_OK);
    read_req(j, r, js);
    cJSON_Delete(j);
}

static char *neutral(const tw_request *r)
{
    tw_buf b = {0};
    cr_assert_eq(tw_request_write(&b, r, TW_JSON_COMPACT), TW_OK);
    return tw_buf_take(&b, NULL);
}

static void put_span(tw_buf *b, const char *p, size_t n)
{
    cr_assert_eq(tw_json_write_str(b, p ? p : "", n, TW_JSON_COMPACT), TW_OK);
}

/* role, thinking, content and calls (name + arguments) of one message */
static void put_message(tw_buf *b, tw_role role, const char *th, size_t thn, const char *c,
                        size_t cn, const tw_message *m)
{
    tw_buf_printf(b, "%s|", tw_role_name(role));
    put_span(b, th, thn);
    tw_buf_putc(b, '|');
    put_span(b, c, cn);
    for (size_t k = 0; m && k < m->ncalls; k++) {
        tw_buf_printf(b, "|%s:", m->calls[k].name);
        tw_json_write_py(b, m->calls[k].arguments, 64);
    }
    tw_buf_putc(b, '\n');
}

static void put_tools(tw_buf *b, const tw_request *r)
{
    for (size_t i = 0; i < r->ntools; i++) {
        /* parameters as Python's json reads and prints them: a prompt
         * carries 1E5 as 100000.0 */
        tw_tool t = r->tools[i];
        t.parameters = NULL;
        tw_tool_write(b, &t, TW_JSON_COMPACT);
        tw_json_write_py(b, r->tools[i].parameters, 64);
        tw_buf_putc(b, '\n');
    }
}

/* ---- Hermes / Qwen3 ChatML ---- */

static size_t lstrip(const char **p, size_t n)
{
    while (n && **p == '\n') {
        (*p)++;
        n--;
    }
    return n;
}

static size_t rstrip(const char *p, size_t n)
{
    while (n && p[n - 1] == '\n')
        n--;
    return n;
}

static const char *rfind(const char *p, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    const char *hit = NULL;
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(p + i, lit, k) == 0)
            hit = p + i;
    return hit;
}

static bool wrapped_response(const tw_message *m, const char **in, size_t *inn)
{
    static const char O[] = "<tool_response>\n", C[] = "\n</tool_response>";
    const char *c = m->content.data ? m->content.data : "";
    size_t n = m->content.len;
    if (m->role != TW_ROLE_USER || n < strlen(O) + strlen(C) || memcmp(c, O, strlen(O)) != 0 ||
        memcmp(c + n - strlen(C), C, strlen(C)) != 0)
        return false;
    *in = c + strlen(O);
    *inn = n - strlen(O) - strlen(C);
    return true;
}

/* What a ChatML reader can get back from the original request: the
 * template's own rules applied to every message (docs/formats/hermes.md). */
static char *hermes_view(const tw_request *r, bool template_rules)
{
    tw_buf b = {0};
    size_t n = r->nmessages, last_query = n - 1;
    for (size_t k = n; template_rules && k-- > 0;) {
        const char *x;
        size_t xn;
        if (r->messages[k].role == TW_ROLE_USER && !wrapped_response(&r->messages[k], &x, &xn)) {
            last_query = k;
            break;
        }
    }
    for (size_t i = 0; i < n; i++) {
        const tw_message *m = &r->messages[i];
        const char *c = m->content.data ? m->content.data : "";
        size_t cn = m->content.len;
        const char *x;
        size_t xn;
        if (template_rules && wrapped_response(m, &x, &xn)) {
            put_message(&b, TW_ROLE_TOOL, "", 0, x, xn, NULL);
            continue;
        }
        if (!template_rules || m->role != TW_ROLE_ASSISTANT) {
            put_message(&b, m->role, m->thinking.data, m->thinking.len, c, cn, m);
            continue;
        }
        const char *th = m->thinking.data ? m->thinking.data : "";
        size_t thn = m->thinking.len;
        if (!thn && memmem(c, cn, "</think>", 8)) {
            const char *first = memmem(c, cn, "</think>", 8), *last = rfind(c, cn, "</think>");
            size_t before = rstrip(c, (size_t)(first - c));
            const char *open = rfind(c, before, "<think>");
            th = open ? open + 7 : c;
            thn = lstrip(&th, before - (size_t)(th - c));
            const char *after = last + 8;
            cn = lstrip(&after, cn - (size_t)(after - c));
            c = after;
        }
        if (i > last_query && (i == n - 1 || thn)) {
            thn = rstrip(th, lstrip(&th, thn));
            cn = lstrip(&c, cn);
        } else {
            thn = 0;
        }
        put_message(&b, m->role, th, thn, c, cn, m);
    }
    put_tools(&b, r);
    return tw_buf_take(&b, NULL);
}

static void check_links(const tw_request *r, const char *what)
{
    size_t ids = 0;
    for (size_t i = 0; i < r->nmessages; i++) {
        const tw_message *m = &r->messages[i];
        for (size_t k = 0; k < m->ncalls; k++) {
            char want[32];
            snprintf(want, sizeof want, "call_%zu", ++ids);
            cr_expect_str_eq(m->calls[k].id, want, "%s: ids are numbered across the request", what);
        }
        if (m->role != TW_ROLE_TOOL)
            continue;
        size_t s = i;
        while (r->messages[s - 1].role == TW_ROLE_TOOL)
            s--;
        const tw_message *a = &r->messages[s - 1];
        cr_assert_eq(a->role, TW_ROLE_ASSISTANT, "%s", what);
        cr_assert_lt(i - s, a->ncalls, "%s", what);
        cr_expect_str_eq(m->tool_call_id, a->calls[i - s].id, "%s: result %zu", what, i);
        cr_expect_str_eq(m->name, a->calls[i - s].name, "%s: result %zu", what, i);
    }
}

Test(hermes_prompt_reader, qwen3_round_trips)
{
    char **files = NULL;
    long n = tw_list_files(tw_test_src("tests/data/qwen3"), ".json", &files);
    cr_assert_geq(n, 24);
    long same_bytes = 0;
    for (long f = 0; f < n; f++) {
        const char *name = strrchr(files[f], '/') + 1;
        if (strstr(name, "number_beyond_double"))
            continue; /* its prompt holds Infinity, which is not JSON: not readable back */
        cJSON *fx = tw_test_load_json(files[f]);
        tw_request orig, back, again;
        read_req(tw_json_get(fx, "request"), &orig, name);
        size_t len1 = 0, len2 = 0, len3 = 0;
        char *p1 = tw_test_encode_request("hermes-prompt", &orig, NULL, &len1);
        cr_assert_str_eq(p1, tw_json_get_str(fx, "expected"), "%s", name);
        tw_diag_list w = {0};
        tw_error e;
        cr_assert_eq(tw_test_read_request(tw_hermes_prompt_decode, p1, len1, NULL, &back, &w, &e),
                     TW_OK, "%s: %s", name, e.message);
        char *p2 = tw_test_encode_request("hermes-prompt", &back, NULL, &len2);
        bool split = strstr(name, "inline_think_with_thinking_field") != NULL;
        if (!split) {
            cr_expect(len1 == len2 && memcmp(p1, p2, len1) == 0,
                      "%s: encode, decode, encode differs:\n%s\n---\n%s", name, p1, p2);
            same_bytes++;
        } else {
            /* the template dropped a thinking whose presence kept the
             * content's </think> whole: the decoder says so */
            cr_expect(len1 != len2 || memcmp(p1, p2, len1) != 0, "%s", name);
            cr_expect(tw_test_has_warning(&w, TW_D_NOT_CARRIED, "</think>"), "%s", name);
        }
        /* the neutral value is a fixed point of encode-then-decode (after
         * the split above, for the one fixture that has it) */
        tw_diag_list w2 = {0};
        cr_assert_eq(tw_test_read_request(tw_hermes_prompt_decode, p2, len2, NULL, &again, &w2, &e),
                     TW_OK, "%s", name);
        char *nb = neutral(&back), *na = neutral(&again);
        if (!split)
            cr_expect_str_eq(na, nb, "%s", name);
        char *p3 = tw_test_encode_request("hermes-prompt", &again, NULL, &len3);
        cr_expect(len3 == len2 && memcmp(p2, p3, len2) == 0, "%s", name);
        /* everything ChatML carries comes back */
        char *want = hermes_view(&orig, true), *got = hermes_view(&back, false);
        if (!split)
            cr_expect_str_eq(got, want, "%s", name);
        cr_expect_eq(back.choice, TW_CHOICE_UNSET, "%s", name);
        cr_expect_eq(back.ntools, orig.ntools, "%s", name);
        const cJSON *agp = tw_json_get(orig.options, "add_generation_prompt");
        cr_expect_eq(cJSON_IsTrue(tw_json_get(back.options, "add_generation_prompt")),
                     cJSON_IsTrue(agp), "%s", name);
        cr_expect_eq(cJSON_IsFalse(tw_json_get(back.options, "enable_thinking")),
                     cJSON_IsTrue(agp) &&
                         cJSON_IsFalse(tw_json_get(orig.options, "enable_thinking")),
                     "%s", name);
        check_links(&back, name);
        free(want), free(got), free(nb), free(na), free(p1), free(p2), free(p3);
        tw_diag_list_free(&w), tw_diag_list_free(&w2);
        tw_request_free(&orig), tw_request_free(&back), tw_request_free(&again);
        cJSON_Delete(fx);
    }
    cr_expect_geq(same_bytes, 23);
    tw_free_list(files, n);
}

static const char PROMPT[] =
    "<|im_start|>system\nBe brief.\n\n# Tools\n\nYou may call one or more functions to assist "
    "with the user query.\n\nYou are provided with function signatures within <tools></tools> "
    "XML tags:\n<tools>\n{\"type\": \"function\", \"function\": {\"name\": \"f\", \"parameters\": "
    "{\"type\": \"object\"}}}\n</tools>\n\nFor each function call, return a json object with "
    "function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
    "{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n"
    "<|im_start|>user\nGo<|im_end|>\n"
    "<|im_start|>assistant\n<think>\nplan\n</think>\n\nSure.\n<tool_call>\n{\"name\": \"f\", "
    "\"arguments\": {\"x\": 1.0}}\n</tool_call>\n<tool_call>\n{\"name\": \"f\", \"arguments\": "
    "{}}\n</tool_call><|im_end|>\n"
    "<|im_start|>user\n<tool_response>\none\n</tool_response>\n<tool_response>\ntwo\n"
    "</tool_response>\n<tool_response>\nthree\n</tool_response><|im_end|>\n"
    "<|im_start|>assistant\n<think>\n\n</think>\n\n<tool_call>\n{\"name\": \"f\"}\n"
    "</tool_call><|im_end|>\n"
    "<|im_start|>assistant\n<think>\n\n</think>\n\n";

Test(hermes_prompt_reader, decodes_every_part)
{
    tw_request r;
    tw_diag_list w = {0};
    tw_error e;
    cr_assert_eq(
        tw_test_read_request(tw_hermes_prompt_decode, PROMPT, strlen(PROMPT), NULL, &r, &w, &e),
        TW_OK, "%s", e.message);
    char *got = neutral(&r);
    cr_expect_str_eq(
        got,
        "{\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},"
        "{\"role\":\"user\",\"content\":\"Go\"},"
        "{\"role\":\"assistant\",\"content\":\"Sure.\",\"thinking\":\"plan\",\"tool_calls\":["
        "{\"id\":\"call_1\",\"name\":\"f\",\"arguments\":{\"x\":1.0}},"
        "{\"id\":\"call_2\",\"name\":\"f\",\"arguments\":{}}]},"
        "{\"role\":\"tool\",\"content\":\"one\",\"tool_call_id\":\"call_1\",\"name\":\"f\",\"is_"
        "error\":false},"
        "{\"role\":\"tool\",\"content\":\"two\",\"tool_call_id\":\"call_2\",\"name\":\"f\",\"is_"
        "error\":false},"
        "{\"role\":\"tool\",\"content\":\"three\",\"tool_call_id\":\"call_3\",\"is_error\":false},"
        "{\"role\":\"assistant\",\"content\":\"<tool_call>\\n{\\\"name\\\": "
        "\\\"f\\\"}\\n</tool_call>\"}],"
        "\"tools\":[{\"name\":\"f\",\"parameters\":{\"type\":\"object\"}}],"
        "\"options\":{\"add_generation_prompt\":true,\"enable_thinking\":false}}");
    /* the third result answers no call; the unreadable block stays text */
    cr_expect(tw_test_has_warning(&w, TW_D_NOT_CARRIED, "answers no call"));
    cr_expect(tw_test_has_warning(&w, TW_D_TOOL_CALL_JSON, "turns[4]"));
    /* 1.0 keeps its spelling: encoding again writes it as Python would */
    size_t len = 0;
    char *again = tw_test_encode_request("hermes-prompt", &r, NULL, &len);
    cr_expect(strstr(again, "{\"x\": 1.0}") != NULL, "%s", again);
    cr_expect_str_eq(again, PROMPT);
    free(again);
    free(got);
    tw_diag_list_free(&w);
    tw_request_free(&r);
}

Test(hermes_prompt_reader, refusals_name_the_turn)
{
    struct {
        const char *in, *path;
        tw_status code;
        int64_t offset;
    } cases[] = {
        {"", "", TW_ERR_INVALID, 0},
        {"hello", "turns[0]", TW_ERR_INVALID, 0},
        {"<|im_start|>user\nhi<|im_end|>\nxx", "turns[1]", TW_ERR_INVALID, 30},
        {"<|im_start|>tool\nhi<|im_end|>\n", "turns[0]", TW_ERR_INVALID, 12},
        {"<|im_start|>user", "turns[0]", TW_ERR_INVALID, 12},
        {"<|im_start|>user\nhi", "turns[0]", TW_ERR_INVALID, 0},
        {"<|im_start|>assistant\npartial", "turns[0]", TW_ERR_INVALID, 0},
        {"<|im_start|>user\nhi<|im_end|>", "turns[0]", TW_ERR_INVALID, 29},
        {"<|im_start|>system\n# Tools\n\nYou may call one or more functions to assist with the "
         "user query.\n\nYou are provided with function signatures within <tools></tools> XML "
         "tags:\n<tools>\n{\"type\": \"function\"}\n</tools>\n\nFor each function call, return a "
         "json object with function name and arguments within <tool_call></tool_call> XML "
         "tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": "
         "<args-json-object>}\n</tool_call><|im_end|>\n",
         "turns[0].tools[0]", TW_ERR_INVALID, 178},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tw_request r;
        tw_error e;
        tw_status st = tw_test_read_request(tw_hermes_prompt_decode, cases[i].in,
                                            strlen(cases[i].in), NULL, &r, NULL, &e);
        cr_expect_eq(st, cases[i].code, "case %zu: %s", i, tw_code_name(st));
        cr_expect_str_eq(e.path, cases[i].path, "case %zu: %s", i, e.message);
        cr_expect_eq(e.offset, cases[i].offset, "case %zu: %s", i, e.message);
        cr_expect_eq(r.nmessages, 0);
        cr_expect_null(r.messages);
    }
}

Test(hermes_prompt_reader, limits)
{
    tw_limits l;
    memset(&l, 0, sizeof l);
    tw_request r;
    tw_error e;
    l.max_input_bytes = strlen(PROMPT) - 1;
    cr_expect_eq(
        tw_test_read_request(tw_hermes_prompt_decode, PROMPT, strlen(PROMPT), &l, &r, NULL, &e),
        TW_ERR_LIMIT);
    memset(&l, 0, sizeof l);
    l.max_input_bytes = strlen(PROMPT); /* exactly the size: accepted */
    cr_expect_eq(
        tw_test_read_request(tw_hermes_prompt_decode, PROMPT, strlen(PROMPT), &l, &r, NULL, &e),
        TW_OK);
    tw_request_free(&r);
    memset(&l, 0, sizeof l);
    l.max_messages = 3;
    cr_expect_eq(
        tw_test_read_request(tw_hermes_prompt_decode, PROMPT, strlen(PROMPT), &l, &r, NULL, &e),
        TW_ERR_LIMIT);
    cr_expect(strstr(e.message, "max_messages") != NULL, "%s", e.message);
    memset(&l, 0, sizeof l);
    l.max_calls = 1;
    cr_expect_eq(
        tw_test_read_request(tw_hermes_prompt_decode, PROMPT, strlen(PROMPT), &l, &r, NULL, &e),
        TW_ERR_LIMIT);
    cr_expect_str_eq(e.path, "turns[2]");
    memset(&l, 0, sizeof l);
    l.max_args_bytes = 10;
    cr_expect_eq(
        tw_test_read_request(tw_hermes_prompt_decode, PROMPT, strlen(PROMPT), &l, &r, NULL, &e),
        TW_ERR_LIMIT);
    memset(&l, 0, sizeof l);
    l.max_tools = 0; /* default */
    l.max_depth = 1; /* the parameters object is at depth 3 */
    cr_expect_neq(
        tw_test_read_request(tw_hermes_prompt_decode, PROMPT, strlen(PROMPT), &l, &r, NULL, &e),
        TW_OK);
    cr_expect_str_eq(e.path, "turns[0].tools[0]", "%s", e.message);
}

Test(hermes_prompt_reader, encoder_reports_what_chatml_drops)
{
    tw_request r;
    read_req_text(
        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"a\"},"
        "{\"role\":\"assistant\",\"content\":\"\",\"thinking\":\"old\",\"tool_calls\":["
        "{\"id\":\"x9\",\"name\":\"f\",\"arguments\":{}}]},"
        "{\"role\":\"tool\",\"tool_call_id\":\"x9\",\"name\":\"g\",\"content\":\"r\",\"is_error\":"
        "true},"
        "{\"role\":\"user\",\"content\":\"b\"}],"
        "\"tools\":[{\"name\":\"f\"}],\"tool_choice\":\"required\",\"parallel_tool_calls\":false,"
        "\"options\":{\"temperature\":0.5,\"add_generation_prompt\":true}}",
        &r);
    tw_diag_list w = {0};
    size_t len;
    free(tw_test_encode_request("hermes-prompt", &r, &w, &len));
    const char *needles[] = {
        "model",         "parallel_tool_calls",   "tool_choice",           "options.temperature",
        "tool call ids", "name of a tool result", "thinking of assistant", "is_error"};
    for (size_t i = 0; i < sizeof needles / sizeof *needles; i++)
        cr_expect(tw_test_has_warning(&w, TW_D_NOT_CARRIED, needles[i]), "no warning about %s",
                  needles[i]);
    tw_diag_list_free(&w);
    /* and nothing for a request it carries whole */
    tw_request_free(&r);
    read_req_text("{\"messages\":[{\"role\":\"user\",\"content\":\"a\"}],\"tool_choice\":\"auto\","
                  "\"options\":{\"add_generation_prompt\":true,\"enable_thinking\":false}}",
                  &r);
    free(tw_test_encode_request("hermes-prompt", &r, &w, &len));
    cr_expect_eq(w.len, 0);
    tw_diag_list_free(&w);
    tw_request_free(&r);
}

/* ---- vLLM-native GenerateRequest ---- */

static char *vllm_view(const tw_request *r, bool original)
{
    tw_buf b = {0};
    for (size_t i = 0; i < r->nmessages; i++) {
        const tw_message *m = &r->messages[i];
        put_message(&b, m->role, "", 0, m->content.data, m->content.len, m);
    }
    put_tools(&b, r);
    tw_buf_printf(&b, "choice %d %s\n", (int)r->choice, r->choice_name ? r->choice_name : "");
    static const char *const keys[] = {
        "temperature",         "two_pass",    "think_tag", "max_thinking_tokens",
        "max_response_tokens", "tool_parser", NULL};
    for (size_t k = 0; keys[k]; k++) {
        const cJSON *v = tw_json_get(r->options, keys[k]);
        if (v) {
            tw_buf_printf(&b, "%s=", keys[k]);
            tw_json_write(&b, v, TW_JSON_COMPACT);
            tw_buf_putc(&b, '\n');
        }
    }
    (void)original;
    return tw_buf_take(&b, NULL);
}

static void vllm_round_trip_dir(const char *dir, long min)
{
    char **files = NULL;
    long n = tw_list_files(tw_test_src(dir), ".json", &files);
    cr_assert_geq(n, min, "%s", dir);
    for (long f = 0; f < n; f++) {
        const char *name = strrchr(files[f], '/') + 1;
        if (strstr(name, "number_beyond_double"))
            continue; /* history text holds Infinity, which is not JSON: not readable back */
        cJSON *fx = tw_test_load_json(files[f]);
        tw_request orig, back;
        read_req(tw_json_get(fx, "request"), &orig, name);
        size_t len1 = 0, len2 = 0;
        char *b1 = tw_test_encode_request("vllm-generate-request", &orig, NULL, &len1);
        tw_diag_list w = {0};
        tw_error e;
        cr_assert_eq(tw_test_read_request(tw_vllm_request_decode, b1, len1, NULL, &back, &w, &e),
                     TW_OK, "%s: %s", name, e.message);
        cr_expect_eq(w.len, 0, "%s: %s", name, w.len ? w.items[0].message : "");
        char *b2 = tw_test_encode_request("vllm-generate-request", &back, NULL, &len2);
        cr_expect(len1 == len2 && memcmp(b1, b2, len1) == 0, "%s:\n%s\n---\n%s", name, b1, b2);
        char *want = vllm_view(&orig, true), *got = vllm_view(&back, false);
        cr_expect_str_eq(got, want, "%s", name);
        check_links(&back, name);
        free(want), free(got), free(b1), free(b2);
        tw_diag_list_free(&w);
        tw_request_free(&orig), tw_request_free(&back);
        cJSON_Delete(fx);
    }
    tw_free_list(files, n);
}

Test(vllm_request_reader, round_trips)
{
    vllm_round_trip_dir("tests/data/vllm/request", 4);
    vllm_round_trip_dir("tests/data/qwen3", 24);
}

Test(vllm_request_reader, refusals_and_warnings)
{
    struct {
        const char *in, *path;
        tw_status code;
    } cases[] = {
        {"[]", "", TW_ERR_INVALID},
        {"{\"messages\":[", "", TW_ERR_PARSE},
        {"{}", "messages", TW_ERR_INVALID},
        {"{\"messages\":[{\"role\":\"developer\",\"content\":\"x\"}]}", "messages[0].role",
         TW_ERR_INVALID},
        {"{\"messages\":[{\"role\":\"user\",\"content\":[]}]}", "messages[0].content",
         TW_ERR_INVALID},
        {"{\"messages\":[],\"tool_choice\":\"any\"}", "tool_choice", TW_ERR_INVALID},
        {"{\"messages\":[],\"tool_choice\":{\"type\":\"tool\"}}", "tool_choice", TW_ERR_INVALID},
        {"{\"messages\":[],\"tools\":[{\"description\":\"x\"}]}", "tools[0]", TW_ERR_INVALID},
        {"{\"messages\":[],\"think_tag\":\"reasoning\"}", "", TW_ERR_INVALID},
        {"{\"messages\":[],\"max_thinking_tokens\":-1}", "", TW_ERR_INVALID},
        {"{\"messages\":[],\"temperature\":\"hot\"}", "", TW_ERR_INVALID},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tw_request r;
        tw_error e;
        tw_status st = tw_test_read_request(tw_vllm_request_decode, cases[i].in,
                                            strlen(cases[i].in), NULL, &r, NULL, &e);
        cr_expect_eq(st, cases[i].code, "case %zu: %s", i, tw_code_name(st));
        cr_expect_str_eq(e.path, cases[i].path, "case %zu: %s", i, e.message);
        cr_expect_null(r.messages);
    }
    const char *js =
        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"q\",\"name\":\"u\"},"
        "{\"role\":\"assistant\",\"content\":\"<tool_call>\\n{\\\"name\\\": \\\"f\\\", "
        "\\\"arguments\\\": {\\\"a\\\": [1, 2]}}\\n</tool_call>\"},"
        "{\"role\":\"tool\",\"content\":\"r\"}],\"stream\":false,\"tool_choice\":{\"name\":\"f\"}}";
    tw_request r;
    tw_diag_list w = {0};
    tw_error e;
    cr_assert_eq(tw_test_read_request(tw_vllm_request_decode, js, strlen(js), NULL, &r, &w, &e),
                 TW_OK, "%s", e.message);
    cr_expect(tw_test_has_warning(&w, TW_D_NOT_CARRIED, "model"));
    cr_expect(tw_test_has_warning(&w, TW_D_NOT_CARRIED, "stream"));
    cr_expect(tw_test_has_warning(&w, TW_D_NOT_CARRIED, "messages[0].name"));
    cr_expect_eq(r.choice, TW_CHOICE_NAMED);
    cr_expect_str_eq(r.choice_name, "f");
    cr_assert_eq(r.messages[1].ncalls, 1);
    cr_expect_eq(r.messages[1].content.len, 0);
    cr_expect_str_eq(r.messages[2].tool_call_id, "call_1");
    cr_expect_str_eq(r.messages[2].name, "f");
    tw_diag_list_free(&w);
    tw_request_free(&r);
    /* limits: exact size accepted, one byte less refused */
    tw_limits l;
    memset(&l, 0, sizeof l);
    l.max_input_bytes = strlen(js);
    cr_expect_eq(tw_test_read_request(tw_vllm_request_decode, js, strlen(js), &l, &r, NULL, &e),
                 TW_OK);
    tw_request_free(&r);
    l.max_input_bytes--;
    cr_expect_eq(tw_test_read_request(tw_vllm_request_decode, js, strlen(js), &l, &r, NULL, &e),
                 TW_ERR_LIMIT);
    memset(&l, 0, sizeof l);
    l.max_messages = 2;
    cr_expect_eq(tw_test_read_request(tw_vllm_request_decode, js, strlen(js), &l, &r, NULL, &e),
                 TW_ERR_LIMIT);
}

Test(vllm_request_reader, encoder_reports_what_it_drops)
{
    tw_request r;
    read_req_text(
        "{\"model\":\"m\",\"messages\":[{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":["
        "{\"id\":\"x\",\"name\":\"f\",\"arguments\":{}}]},"
        "{\"role\":\"tool\",\"tool_call_id\":\"x\",\"name\":\"other\",\"content\":\"r\"}],"
        "\"parallel_tool_calls\":true,\"options\":{\"top_p\":0.9,\"two_pass\":true}}",
        &r);
    tw_diag_list w = {0};
    size_t len;
    free(tw_test_encode_request("vllm-generate-request", &r, &w, &len));
    const char *needles[] = {"model",          "parallel_tool_calls",   "options.top_p",
                             "ids of history", "name of a tool result", "tool_call_id"};
    for (size_t i = 0; i < sizeof needles / sizeof *needles; i++)
        cr_expect(tw_test_has_warning(&w, TW_D_NOT_CARRIED, needles[i]), "no warning about %s",
                  needles[i]);
    cr_expect(!tw_test_has_warning(&w, TW_D_NOT_CARRIED, "two_pass"));
    tw_diag_list_free(&w);
    tw_request_free(&r);
}

/* ---- through transcoding and the command line ---- */

Test(convert_prompt_sources, sources)
{
    cr_expect(tw_transcode_is_source("hermes-prompt"));
    cr_expect(tw_transcode_is_source("vllm-generate-request"));
    tw_diag_list w = {0};
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    o.parallel_tool_calls = -1;
    o.warnings = &w;
    tw_buf out = {0};
    tw_error why_e = {0};
    cr_assert_eq(
        tw_transcode("hermes-prompt", "openai-request", PROMPT, strlen(PROMPT), &o, &out, &why_e),
        TW_OK, "%s", why_e.message);
    cr_expect(strstr(out.data, "\"tool_call_id\":\"call_2\"") != NULL, "%s", out.data);
    tw_buf_reset(&out);
    const char *bad = "<|im_start|>user\nhi";
    cr_expect_eq(tw_transcode("hermes-prompt", "neutral", bad, strlen(bad), &o, &out, &why_e),
                 TW_ERR_INVALID);
    cr_expect(strstr(why_e.message, "turns[0]") != NULL, "%s", why_e.message);
    tw_buf_free(&out);
    tw_diag_list_free(&w);
}

Test(convert_prompt_sources, command_line)
{
    static char out[16384];
    cr_expect_eq(tw_test_run_bin("convert --help", "", out, sizeof out, false), 0);
    cr_expect(strstr(out, "hermes-prompt ") && strstr(out, "vllm-generate-request "));
    cr_expect_eq(tw_test_run_bin("convert --from hermes-prompt --to hermes-prompt", PROMPT, out,
                                 sizeof out, false),
                 0);
    cr_expect_str_eq(out, PROMPT);
    cr_expect_eq(tw_test_run_bin("convert --from hermes-prompt --to vllm-generate-request", PROMPT,
                                 out, sizeof out, false),
                 0);
    static char back[16384];
    cr_expect_eq(tw_test_run_bin("convert --from vllm-generate-request --to vllm-generate-request",
                                 out, back, sizeof back, false),
                 0);
    cr_expect_str_eq(back, out);
    cr_expect_eq(tw_test_run_bin("convert --from hermes-prompt --to neutral", "nope", out,
                                 sizeof out, false),
                 1);
    /* so does every prompt reader: a text not in its template's form is exit 1 (bad
     * input of the right kind), never the exit 2 of input that is not text at all */
    size_t nm = 0;
    const tw_module *mods = tw_modules(&nm);
    for (size_t i = 0; i < nm; i++) {
        if (mods[i].kind != TW_MODULE_REQUEST_READER)
            continue;
        const char *rn = mods[i].reader->name;
        size_t k = strlen(rn);
        if (k < 7 || strcmp(rn + k - 7, "-prompt") != 0)
            continue;
        char args[160];
        snprintf(args, sizeof args, "convert --from %s --to neutral -", rn);
        int rc = tw_test_run_bin(args, "\x01nope", out, sizeof out, false);
        cr_expect(rc == 1 || rc == 0, "%s: exit %d: %s", rn, rc, out);
    }
    /* JSON that ends early: bad input (exit 2), with the position, as encode says it */
    static const char *const readers[] = {"neutral", "openai-request", "anthropic-request",
                                          "gemini-request", "openai-responses-request"};
    for (size_t i = 0; i < sizeof readers / sizeof readers[0]; i++) {
        char args[128];
        snprintf(args, sizeof args, "convert --from %s --to openai-request -", readers[i]);
        cr_expect_eq(tw_test_run_bin(args, "{\"messages\": \"ab", out, sizeof out, true), 2, "%s",
                     readers[i]);
        cr_expect(strstr(out, "-:1:15: cannot read it as ") != NULL, "%s: %s", readers[i], out);
    }
}

/* ---- refusals: the status is returned, the diagnostic is in err->code ---- */

typedef struct {
    const char *reader; /* registry name, also tw_transcode's `from` */
    const char *body;
    size_t max_args;  /* 0: the default */
    size_t max_depth; /* 0: the default */
    tw_status st;     /* the status returned */
    tw_status code;   /* err->code */
} refusal_case;

#define BIG_ARGS "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
#define OAI_CALL(args)                                                                             \
    "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":"             \
    "\"assistant\",\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\",\"function\":{"            \
    "\"name\":\"f\",\"arguments\":\"" args "\"}}]}]}"
#define ANT_CALL(input)                                                                            \
    "{\"model\":\"m\",\"max_tokens\":8,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},"      \
    "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"c1\",\"name\":"          \
    "\"f\",\"input\":" input "}]}]}"
#define OAI_USER(content)                                                                          \
    "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":" content "}]}"
#define ANT_USER(content)                                                                          \
    "{\"model\":\"m\",\"max_tokens\":8,\"messages\":[{\"role\":\"user\",\"content\":" content "}]" \
    "}"

static const refusal_case refusals[] = {
    /* arguments past max_args_bytes */
    {"openai-request", OAI_CALL("{\\\"a\\\":\\\"" BIG_ARGS "\\\"}"), 16, 0, TW_ERR_LIMIT,
     TW_D_ARGS_TOO_LARGE},
    {"anthropic-request", ANT_CALL("{\"a\":\"" BIG_ARGS "\"}"), 16, 0, TW_ERR_LIMIT,
     TW_D_ARGS_TOO_LARGE},
    {"hermes-prompt",
     "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<tool_call>\n{\"name\": \"f\", "
     "\"arguments\": {\"a\": \"" BIG_ARGS "\"}}\n</tool_call><|im_end|>\n",
     16, 0, TW_ERR_LIMIT, TW_D_ARGS_TOO_LARGE},
    /* the shims refuse the arguments string */
    {"openai-request", OAI_CALL("not json"), 0, 0, TW_ERR_PARSE, TW_D_TOOL_CALL_JSON},
    {"openai-request", OAI_CALL("[1, 2]"), 0, 0, TW_ERR_INVALID, TW_D_ARGUMENTS_NOT_OBJECT},
    {"openai-request", OAI_CALL("{\\\"a\\\":[[[[[[1]]]]]]}"), 0, 4, TW_ERR_LIMIT,
     TW_D_JSON_TOO_DEEP},
    /* the body as a whole: bad JSON, too deep, U+0000 */
    {"openai-request", "{\"model\":\"m\",\"messages\":[", 0, 0, TW_ERR_PARSE, TW_ERR_PARSE},
    {"anthropic-request", "{\"model\":\"m\",\"messages\":[", 0, 0, TW_ERR_PARSE, TW_ERR_PARSE},
    {"vllm-generate-request", "{\"messages\":[", 0, 0, TW_ERR_PARSE, TW_ERR_PARSE},
    {"openai-request", OAI_USER("[[[[[[[[\"x\"]]]]]]]]"), 0, 4, TW_ERR_LIMIT, TW_D_JSON_TOO_DEEP},
    {"anthropic-request", ANT_USER("[[[[[[[[\"x\"]]]]]]]]"), 0, 4, TW_ERR_LIMIT,
     TW_D_JSON_TOO_DEEP},
    {"vllm-generate-request", OAI_USER("[[[[[[[[\"x\"]]]]]]]]"), 0, 4, TW_ERR_LIMIT,
     TW_D_JSON_TOO_DEEP},
    {"openai-request", OAI_USER("\"a\\u0000b\""), 0, 0, TW_ERR_INVALID, TW_D_JSON_NUL},
    {"anthropic-request", ANT_USER("\"a\\u0000b\""), 0, 0, TW_ERR_INVALID, TW_D_JSON_NUL},
    {"vllm-generate-request", OAI_USER("\"a\\u0000b\""), 0, 0, TW_ERR_INVALID, TW_D_JSON_NUL},
};

Test(request_refusals, statuses_returned_diagnostics_in_err)
{
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
        const refusal_case *c = &refusals[i];
        const tw_request_reader_ops *rd = NULL;
        size_t n = 0;
        const tw_module *m = tw_modules(&n);
        for (size_t k = 0; k < n; k++)
            if (m[k].kind == TW_MODULE_REQUEST_READER && strcmp(m[k].name, c->reader) == 0)
                rd = m[k].reader;
        cr_assert_not_null(rd, "%s", c->reader);
        tw_decode_opts o;
        memset(&o, 0, sizeof o);
        o.limits.max_args_bytes = c->max_args;
        o.limits.max_depth = c->max_depth;
        size_t len = strlen(c->body);

        /* the reader itself */
        tw_request q;
        tw_error e;
        tw_status st = rd->decode(c->body, len, &o, &q, &e);
        cr_assert(tw_code_is_status(st), "case %zu %s: returned %s", i, c->reader,
                  tw_code_name(st));
        cr_assert_eq(st, c->st, "case %zu %s: %s, not %s (%s)", i, c->reader, tw_code_name(st),
                     tw_code_name(c->st), e.message);
        cr_assert_eq(e.code, c->code, "case %zu %s: err->code %s, not %s (%s)", i, c->reader,
                     tw_code_name(e.code), tw_code_name(c->code), e.message);
        cr_assert_eq(q.nmessages, 0, "case %zu: *out empty", i);
        tw_request_free(&q);

        /* read through tw_transcode_read */
        tw_neutral_value v;
        st = tw_transcode_read(c->reader, c->body, len, &o, &v, NULL, &e);
        cr_assert(tw_code_is_status(st), "case %zu %s: transcode returned %s", i, c->reader,
                  tw_code_name(st));
        cr_assert_eq(st, c->st, "case %zu %s: transcode %s", i, c->reader, tw_code_name(st));
        cr_assert_eq(e.code, c->code, "case %zu %s: transcode err->code %s", i, c->reader,
                     tw_code_name(e.code));
        tw_neutral_value_free(&v);

        /* and tw_transcode, when the default limits refuse it too */
        if (c->max_args || c->max_depth)
            continue;
        tw_buf out = {0};
        st = tw_transcode(c->reader, "neutral", c->body, len, NULL, &out, &e);
        cr_assert(tw_code_is_status(st), "case %zu %s: tw_transcode returned %s", i, c->reader,
                  tw_code_name(st));
        cr_assert_eq(st, c->st, "case %zu %s: tw_transcode %s", i, c->reader, tw_code_name(st));
        cr_assert_eq(e.code, c->code, "case %zu %s: tw_transcode err->code %s", i, c->reader,
                     tw_code_name(e.code));
        tw_buf_free(&out);
    }
}
