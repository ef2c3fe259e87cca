/* The request readers qwen3-coder-prompt and qwen3.5-prompt (request_chatml.h):
 * every rendering of tests/data/qwen3-coder and tests/data/qwen3.5 read back
 * and encoded again byte for byte, the request read back against the source
 * conversation, refusals with their code, path and offset, limits, and
 * `toolwire convert`. */
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
#include "toolwire/text.h"
#include "toolwire/transcode.h"
#include "twtest.h"

typedef tw_request_decode_fn req_decoder;

/* ---- helpers ---- */

/* Decode from an exact-size copy (no terminator to lean on). */
static tw_status dec(req_decoder f, const char *s, size_t n, const tw_limits *l, tw_request *r,
                     tw_error *e)
{
    tw_status st = tw_test_read_request(f, s, n, l, r, NULL, e);
    if (st != TW_OK) {
        cr_expect_eq(r->nmessages, 0);
        cr_expect_null(r->messages);
    }
    return st;
}

/* The first warning with code, or NULL. */
static const tw_diag *warning_of(const tw_diag_list *w, tw_status code)
{
    for (size_t i = 0; i < w->len; i++)
        if (w->items[i].code == code)
            return &w->items[i];
    return NULL;
}

/* A request declaring one tool "f" (t) with the messages m[0, nm), which the
 * caller fills and frees. */
static void one_tool_request(tw_request *q, tw_tool *t, tw_message *m, size_t nm)
{
    memset(q, 0, sizeof *q);
    q->parallel_tool_calls = -1;
    memset(t, 0, sizeof *t);
    t->name = (char *)"f";
    q->tools = t;
    q->ntools = 1;
    q->tools_present = true;
    memset(m, 0, nm * sizeof *m);
    q->messages = m;
    q->nmessages = nm;
}

static bool blank(char c)
{
    return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

/* content with ASCII white space off both ends */
static const char *strip(const tw_buf *b, size_t *n)
{
    const char *p = b->data ? b->data : "";
    size_t k = b->len;
    while (k && blank(*p))
        p++, k--;
    while (k && blank(p[k - 1]))
        k--;
    *n = k;
    return p;
}

static bool wrapped_response(const tw_message *m)
{
    size_t n;
    const char *c = strip(&m->content, &n);
    return m->role == TW_ROLE_USER && n >= 33 && memcmp(c, "<tool_response>", 15) == 0 &&
           memcmp(c + n - 16, "</tool_response>", 16) == 0;
}

/* The argument values of one call against the source's: same keys in the same
 * order; each value the same JSON value, or the text the encoder printed for
 * it when no schema type declares it (then an xml_untyped warning says so). */
static void check_args(const tw_call *want, const tw_call *got, const tw_diag_list *w,
                       const char *what)
{
    const cJSON *a = want->arguments ? want->arguments->child : NULL;
    const cJSON *b = got->arguments ? got->arguments->child : NULL;
    for (; a && b; a = a->next, b = b->next) {
        cr_expect_str_eq(b->string, a->string, "%s: argument keys", what);
        if (cJSON_IsString(b) && !cJSON_IsString(a))
            cr_expect(tw_test_has_warning(w, TW_D_XML_UNTYPED, "kept as strings"),
                      "%s: argument %s read as text with no warning", what, a->string);
        else
            cr_expect(tw_json_equal(a, b), "%s: argument %s differs", what, a->string);
    }
    cr_expect(!a && !b, "%s: as many arguments", what);
}

/* The request read back against the source on what the encoder carries:
 * roles (in a Qwen3.5 prompt a user message holding exactly a wrapped tool
 * response reads back as a tool message; a Qwen3-Coder prompt writes a tool
 * result with a line break after it, a user message without), contents up
 * to the white space the templates trim, calls (names and arguments) and
 * tool names. */
static void check_source(const tw_request *src, const tw_request *back, const tw_diag_list *w,
                         bool wraps, const char *what)
{
    size_t j = 0;
    for (size_t i = 0; i < src->nmessages; i++, j++) {
        const tw_message *m = &src->messages[i];
        cr_assert_lt(j, back->nmessages, "%s: message %zu missing", what, i);
        const tw_message *g = &back->messages[j];
        tw_role role = wraps && wrapped_response(m) ? TW_ROLE_TOOL : m->role;
        cr_expect_eq(g->role, role, "%s: message %zu role", what, i);
        size_t wn, gn;
        const char *wc = strip(&m->content, &wn), *gc = strip(&g->content, &gn);
        if (role == TW_ROLE_TOOL && m->role == TW_ROLE_USER) {
            wc += 15, wn -= 31; /* the wrapper */
            while (wn && blank(*wc))
                wc++, wn--;
            while (wn && blank(wc[wn - 1]))
                wn--;
        }
        if (!memmem(wc, wn, "</think>", 8))
            cr_expect(wn == gn && memcmp(wc, gc, wn) == 0, "%s: message %zu content: %.*s | %.*s",
                      what, i, (int)wn, wc, (int)gn, gc);
        cr_expect_eq(g->ncalls, m->ncalls, "%s: message %zu calls", what, i);
        for (size_t k = 0; k < m->ncalls && k < g->ncalls; k++) {
            cr_expect_str_eq(g->calls[k].name, m->calls[k].name, "%s: message %zu call %zu", what,
                             i, k);
            char cw[96];
            snprintf(cw, sizeof cw, "%s: message %zu call %zu", what, i, k);
            check_args(&m->calls[k], &g->calls[k], w, cw);
        }
    }
    cr_expect_eq(back->nmessages, j, "%s: as many messages", what);
    cr_expect_eq(back->ntools, src->ntools, "%s: tools", what);
    for (size_t i = 0; i < src->ntools && i < back->ntools; i++)
        cr_expect_str_eq(back->tools[i].name, src->tools[i].name, "%s: tool %zu", what, i);
}

/* Call ids call_1, call_2, ... across the request; each result the id of
 * the call it answers. */
static void check_ids(const tw_request *r, const char *what)
{
    size_t ids = 0;
    for (size_t i = 0; i < r->nmessages; i++) {
        const tw_message *m = &r->messages[i];
        for (size_t k = 0; k < m->ncalls; k++) {
            char want[32];
            snprintf(want, sizeof want, "call_%zu", ++ids);
            cr_expect_str_eq(m->calls[k].id, want, "%s", what);
        }
        if (m->role == TW_ROLE_TOOL)
            cr_expect_not_null(m->tool_call_id, "%s: result %zu", what, i);
    }
}

/* Every rendering of dir read back with f, encoded again with enc: the same
 * bytes, and the source's conversation. Returns how many were compared. */
static long round_trips(const char *dir, const char *name, req_decoder f)
{
    char **files = NULL;
    long n = tw_list_files(tw_test_src(dir), ".json", &files);
    cr_assert_eq(n, 20, "%s: %ld fixtures", dir, n);
    long done = 0;
    for (long i = 0; i < n; i++) {
        const char *base = strrchr(files[i], '/') + 1;
        cJSON *fx = tw_test_load_json(files[i]);
        const char *want = tw_json_get_str(fx, "expected");
        /* a refusal of the template has no rendering; a tool schema printed
         * as JSON with Infinity in it is not JSON, so not readable back */
        if (!want ||
            (strcmp(name, "qwen3.5-prompt") == 0 && strstr(base, "number_beyond_double"))) {
            cJSON_Delete(fx);
            continue;
        }
        tw_request src, back;
        tw_error e;
        cr_assert_eq(tw_request_read(tw_json_get(fx, "request"), NULL, &src, &e), TW_OK, "%s: %s",
                     base, e.message);
        cr_assert_eq(dec(f, want, strlen(want), NULL, &back, &e), TW_OK, "%s: %s at %lld (%s)",
                     base, e.message, (long long)e.offset, e.path);
        size_t len = 0;
        char *again = tw_test_encode_request(name, &back, NULL, &len);
        size_t d = 0;
        while (d < len && want[d] && again[d] == want[d])
            d++;
        cr_expect(len == strlen(want) && d == len, "%s: read, encode differs at byte %zu:\n%.80s",
                  base, d, again + (d > 40 ? d - 40 : 0));
        check_source(&src, &back, &back.warnings, strcmp(name, "qwen3.5-prompt") == 0, base);
        check_ids(&back, base);
        const cJSON *agp = tw_json_get(src.options, "add_generation_prompt");
        cr_expect_eq(cJSON_IsTrue(tw_json_get(back.options, "add_generation_prompt")),
                     cJSON_IsTrue(agp), "%s", base);
        free(again);
        tw_request_free(&src);
        tw_request_free(&back);
        cJSON_Delete(fx);
        done++;
    }
    tw_free_list(files, n);
    return done;
}

/* ---- round trips ---- */

Test(qwen_prompt_read, qwen3_coder_round_trips)
{
    cr_expect_eq(
        round_trips("tests/data/qwen3-coder", "qwen3-coder-prompt", tw_qwen3_coder_prompt_decode),
        20);
}

Test(qwen_prompt_read, qwen35_round_trips)
{
    /* 18 and 19 are refusals of the template, 13 prints Infinity */
    cr_expect_eq(round_trips("tests/data/qwen3.5", "qwen3.5-prompt", tw_qwen35_prompt_decode), 17);
}

/* ---- the parts of each prompt ---- */

static const char CODER[] =
    "<|im_start|>system\nBe brief.\n\n# Tools\n\nYou have access to the following tools:\n\n"
    "<tools>\n<function>\n<name>f</name>\n<description>Do it</description>\n<parameters>\n"
    "<parameter>\n<name>n</name>\n<type>integer</type>\n<description>count</description>\n"
    "<minimum>1</minimum>\n</parameter>\n<parameter>\n<name>on</name>\n<type>['boolean', "
    "'null']</type>\n</parameter>\n<parameter>\n<name>o</name>\n<type>object</type>\n"
    "</parameter>\n<required>[\"n\"]</required>\n</parameters>\n</function>\n</tools>"
    "\n\nIf you choose to call a tool ONLY reply in the following format with NO suffix:\n\n"
    "<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\n"
    "value_1\n</parameter>\n<parameter=example_parameter_2>\nvalue_2\n</parameter>\n"
    "</function>\n</tool_call>\n\n<IMPORTANT>\nReminder:\n"
    "- Function calls MUST follow the specified format: the tool calling block MUST begin with "
    "an opening <tool_call> tag and end with a closing </tool_call> tag.\n"
    "- Required parameters MUST be specified\n"
    "- You may provide optional reasoning for your function call in natural language BEFORE "
    "the function call, but NOT after\n"
    "- If there is no function call available, answer the question like normal with your "
    "current knowledge and do not tell the user about function calls\n"
    "</IMPORTANT><|im_end|>\n"
    "<|im_start|>user\nGo<|im_end|>\n"
    "<|im_start|>assistant\nSure.\n\n<tool_call>\n<function=f>\n<parameter=n>\n2\n</parameter>\n"
    "<parameter=on>\nTrue\n</parameter>\n<parameter=o>\n{\"a\": [1.0]}\n</parameter>\n"
    "<parameter=s>\n x \n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=f>\n"
    "</function>\n</tool_call><|im_end|>\n"
    "<|im_start|>user\n<tool_response>\none\n</tool_response>\n<tool_response>\ntwo\n"
    "</tool_response>\n<|im_end|>\n"
    "<|im_start|>assistant\n";

Test(qwen_prompt_read, coder_reads_every_part)
{
    tw_request r;
    tw_error e;
    cr_assert_eq(dec(tw_qwen3_coder_prompt_decode, CODER, strlen(CODER), NULL, &r, &e), TW_OK, "%s",
                 e.message);
    tw_buf b = {0};
    cr_assert_eq(tw_request_write(&b, &r, TW_JSON_COMPACT), TW_OK);
    cr_expect_str_eq(
        b.data,
        "{\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},"
        "{\"role\":\"user\",\"content\":\"Go\"},"
        "{\"role\":\"assistant\",\"content\":\"Sure.\",\"tool_calls\":["
        "{\"id\":\"call_1\",\"name\":\"f\",\"arguments\":{\"n\":2,\"on\":true,\"o\":{\"a\":[1.0]},"
        "\"s\":\" x \"}},{\"id\":\"call_2\",\"name\":\"f\",\"arguments\":{}}]},"
        "{\"role\":\"tool\",\"content\":\"one\",\"tool_call_id\":\"call_1\",\"name\":\"f\",\"is_"
        "error\":false},"
        "{\"role\":\"tool\",\"content\":\"two\",\"tool_call_id\":\"call_2\",\"name\":\"f\",\"is_"
        "error\":false}],"
        "\"tools\":[{\"name\":\"f\",\"description\":\"Do it\",\"parameters\":{\"type\":\"object\","
        "\"properties\":{\"n\":{\"type\":\"integer\",\"description\":\"count\",\"minimum\":1},"
        "\"on\":{\"type\":[\"boolean\",\"null\"]},\"o\":{\"type\":\"object\"}},\"required\":[\"n\"]"
        "}}],"
        "\"options\":{\"add_generation_prompt\":true}}");
    /* s is declared by no schema: a string, with the decoder's warning */
    cr_expect(tw_test_has_warning(&r.warnings, TW_D_XML_UNTYPED, "'s'"));
    cr_expect(tw_test_has_warning(&r.warnings, TW_D_NOT_CARRIED, "schema's own \"type\""));
    size_t len = 0;
    char *again = tw_test_encode_request("qwen3-coder-prompt", &r, NULL, &len);
    cr_expect_str_eq(again, CODER);
    free(again);
    tw_buf_free(&b);
    tw_request_free(&r);
}

static const char Q35[] =
    "<|im_start|>system\n# Tools\n\nYou have access to the following functions:\n\n<tools>\n"
    "{\"type\": \"function\", \"function\": {\"name\": \"f\", \"parameters\": {\"type\": "
    "\"object\", \"properties\": {\"n\": {\"type\": \"number\"}}}}}\n</tools>\n\n"
    "If you choose to call a function ONLY reply in the following format with NO suffix:\n\n"
    "<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\n"
    "value_1\n</parameter>\n<parameter=example_parameter_2>\n"
    "This is the value for the second parameter\nthat can span\nmultiple lines\n"
    "</parameter>\n</function>\n</tool_call>\n\n<IMPORTANT>\nReminder:\n"
    "- Function calls MUST follow the specified format: an inner <function=...></function> "
    "block must be nested within <tool_call></tool_call> XML tags\n"
    "- Required parameters MUST be specified\n"
    "- You may provide optional reasoning for your function call in natural language BEFORE "
    "the function call, but NOT after\n"
    "- If there is no function call available, answer the question like normal with your "
    "current knowledge and do not tell the user about function calls\n"
    "</IMPORTANT>\n\nBe brief.<|im_end|>\n"
    "<|im_start|>user\nGo<|im_end|>\n"
    "<|im_start|>assistant\n<think>\nplan\n</think>\n\nSure.\n\n<tool_call>\n<function=f>\n"
    "<parameter=n>\n1.5\n</parameter>\n</function>\n</tool_call><|im_end|>\n"
    "<|im_start|>user\n<tool_response>\none\n</tool_response><|im_end|>\n"
    "<|im_start|>assistant\n<think>\n\n</think>\n\n";

Test(qwen_prompt_read, qwen35_reads_every_part)
{
    tw_request r;
    tw_error e;
    cr_assert_eq(dec(tw_qwen35_prompt_decode, Q35, strlen(Q35), NULL, &r, &e), TW_OK, "%s",
                 e.message);
    tw_buf b = {0};
    cr_assert_eq(tw_request_write(&b, &r, TW_JSON_COMPACT), TW_OK);
    cr_expect_str_eq(
        b.data,
        "{\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},"
        "{\"role\":\"user\",\"content\":\"Go\"},"
        "{\"role\":\"assistant\",\"content\":\"Sure.\",\"thinking\":\"plan\",\"tool_calls\":["
        "{\"id\":\"call_1\",\"name\":\"f\",\"arguments\":{\"n\":1.5}}]},"
        "{\"role\":\"tool\",\"content\":\"one\",\"tool_call_id\":\"call_1\",\"name\":\"f\",\"is_"
        "error\":false}],"
        "\"tools\":[{\"name\":\"f\",\"parameters\":{\"type\":\"object\",\"properties\":{\"n\":"
        "{\"type\":\"number\"}}}}],"
        "\"options\":{\"add_generation_prompt\":true,\"enable_thinking\":false}}");
    cr_expect_eq(r.warnings.len, 0);
    size_t len = 0;
    char *again = tw_test_encode_request("qwen3.5-prompt", &r, NULL, &len);
    cr_expect_str_eq(again, Q35);
    free(again);
    tw_buf_free(&b);
    tw_request_free(&r);
}

/* A block the qwen3-coder decoder refuses stays in the content, with its code. */
Test(qwen_prompt_read, unreadable_block_stays_content)
{
    static const char P[] = "<|im_start|>user\nGo<|im_end|>\n<|im_start|>assistant\nok\n\n"
                            "<tool_call>\n<function=f>\n<parameter=>\nx\n</parameter>\n"
                            "</function>\n</tool_call><|im_end|>\n";
    tw_request r;
    tw_error e;
    cr_assert_eq(dec(tw_qwen35_prompt_decode, P, strlen(P), NULL, &r, &e), TW_OK, "%s", e.message);
    cr_assert_eq(r.nmessages, 2);
    cr_expect_eq(r.messages[1].ncalls, 0);
    cr_expect(strstr(r.messages[1].content.data, "<function=f>") != NULL);
    cr_expect(tw_test_has_warning(&r.warnings, TW_D_XML_BAD_NAME, "turns[1]"));
    tw_request_free(&r);
}

/* ---- refusals ---- */

/* The close of a Qwen3-Coder tools section, as the template writes it. */
static const char CODER_TAIL[] =
    "\n</tools>\n\nIf you choose to call a tool ONLY reply in the following format with NO "
    "suffix:\n\n<tool_call>\n<function=example_function_name>\n"
    "<parameter=example_parameter_1>\nvalue_1\n</parameter>\n"
    "<parameter=example_parameter_2>\nvalue_2\n</parameter>\n</function>\n</tool_call>\n\n"
    "<IMPORTANT>\nReminder:\n- Function calls MUST follow the specified format: the tool "
    "calling block MUST begin with an opening <tool_call> tag and end with a closing "
    "</tool_call> tag.\n- Required parameters MUST be specified\n- You may provide optional "
    "reasoning for your function call in natural language BEFORE the function call, but NOT "
    "after\n- If there is no function call available, answer the question like normal with "
    "your current knowledge and do not tell the user about function calls\n"
    "</IMPORTANT><|im_end|>\n";

Test(qwen_prompt_read, refusals_name_the_place)
{
    static const char CODER_HEAD[] =
        "<|im_start|>system\nS\n\n# Tools\n\nYou have access to the following tools:\n\n<tools>";
    const size_t h = sizeof CODER_HEAD - 1; /* where the tools start */
    struct {
        req_decoder f;
        const char *tools; /* NULL: `in` is the whole prompt */
        const char *in;
        const char *path;
        size_t offset;
        const char *says;
    } cases[] = {
        {tw_qwen3_coder_prompt_decode, NULL, "", "", 0, "no turns"},
        {tw_qwen3_coder_prompt_decode, NULL, "<|im_start|>user\nhi<|im_end|>\nxx", "turns[1]", 30,
         "expected <|im_start|>"},
        {tw_qwen35_prompt_decode, NULL, "<|im_start|>tool\nhi<|im_end|>\n", "turns[0]", 12,
         "unknown role"},
        /* the Coder generation prompt has no think block */
        {tw_qwen3_coder_prompt_decode, NULL,
         "<|im_start|>user\nhi<|im_end|>\n"
         "<|im_start|>assistant\n<think>\n",
         "turns[1]", 30, "not closed"},
        /* the Qwen3.5 one always has one */
        {tw_qwen35_prompt_decode, NULL, "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n",
         "turns[1]", 30, "not closed"},
        {tw_qwen35_prompt_decode, NULL,
         "<|im_start|>system\n# Tools\n\nYou have access to the following functions:\n\n"
         "<tools>\n{\"type\": \"function\"}\n</tools>\n\nIf you choose to call a function ONLY "
         "reply in the following format with NO suffix:\n\n<tool_call>\n"
         "<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n"
         "</parameter>\n<parameter=example_parameter_2>\nThis is the value for the second "
         "parameter\nthat can span\nmultiple lines\n</parameter>\n</function>\n</tool_call>\n\n"
         "<IMPORTANT>\nReminder:\n- Function calls MUST follow the specified format: an inner "
         "<function=...></function> block must be nested within <tool_call></tool_call> XML "
         "tags\n- Required parameters MUST be specified\n- You may provide optional reasoning "
         "for your function call in natural language BEFORE the function call, but NOT after\n"
         "- If there is no function call available, answer the question like normal with your "
         "current knowledge and do not tell the user about function calls\n</IMPORTANT>x"
         "<|im_end|>\n",
         "turns[0]", 927, "expected \"\\n\\n\""},
        {tw_qwen3_coder_prompt_decode,
         "\n<function>\n<name></name>\n<parameters>\n</parameters>"
         "\n</function>",
         NULL, "turns[0].tools[0]", h + 11, "expected a non-empty <name>"},
        {tw_qwen3_coder_prompt_decode, "\n<func>", NULL, "turns[0].tools[0]", h,
         "expected <function>"},
        {tw_qwen3_coder_prompt_decode, "\n<function>\n<name>f</name>\n</function>", NULL,
         "turns[0].tools[0]", h + 26, "expected <parameters>"},
        {tw_qwen3_coder_prompt_decode,
         "\n<function>\n<name>f</name>\n<parameters>\n<parameter>\n<type>string</type>\n"
         "</parameter>\n</parameters>\n</function>",
         NULL, "turns[0].tools[0]", h + 51, "expected <name>"},
        {tw_qwen3_coder_prompt_decode,
         "\n<function>\n<name>f</name>\n<parameters>\n<parameter>\n<name>x</name>\nloose\n"
         "</parameter>\n</parameters>\n</function>",
         NULL, "turns[0].tools[0]", h + 66, "expected an element or </parameter>"},
        {tw_qwen3_coder_prompt_decode,
         "\n<function>\n<name>f</name>\n<parameters>\n<parameter>\n<name>a</name>\n</parameter>"
         "\nstray\n</parameters>\n</function>",
         NULL, "turns[0].tools[0]", h + 79, "expected <parameter>, an element or </parameters>"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char in[4096];
        if (cases[i].tools)
            snprintf(in, sizeof in, "%s%s%s", CODER_HEAD, cases[i].tools, CODER_TAIL);
        else
            snprintf(in, sizeof in, "%s", cases[i].in);
        tw_request r;
        tw_error e;
        tw_status st = dec(cases[i].f, in, strlen(in), NULL, &r, &e);
        cr_expect_eq(st, TW_ERR_INVALID, "case %zu: %s", i, tw_code_name(st));
        cr_expect_eq(e.code, TW_ERR_INVALID, "case %zu", i);
        cr_expect_str_eq(e.path, cases[i].path, "case %zu: %s", i, e.message);
        cr_expect_eq(e.offset, (int64_t)cases[i].offset, "case %zu: %s", i, e.message);
        cr_expect(strstr(e.message, cases[i].says) != NULL, "case %zu: %s", i, e.message);
    }
}

/* A NUL in the Coder tools section is refused at its byte, not cut short. */
Test(qwen_prompt_read, coder_tools_nul_refused)
{
    static const char HEAD[] =
        "<|im_start|>system\nS\n\n# Tools\n\nYou have access to the following tools:\n\n<tools>"
        "\n<function>\n<name>f</name>\n<description>a";
    char in[2048];
    size_t n = sizeof HEAD - 1;
    memcpy(in, HEAD, n);
    in[n++] = '\0';
    static const char REST[] = "b</description>\n<parameters>\n</parameters>\n</function>";
    memcpy(in + n, REST, sizeof REST - 1);
    n += sizeof REST - 1;
    memcpy(in + n, CODER_TAIL, sizeof CODER_TAIL - 1);
    n += sizeof CODER_TAIL - 1;
    tw_request r;
    tw_error e;
    tw_status st = dec(tw_qwen3_coder_prompt_decode, in, n, NULL, &r, &e);
    cr_assert_eq(st, TW_ERR_INVALID, "%s", tw_code_name(st));
    cr_expect_eq(e.offset, (int64_t)(sizeof HEAD - 1), "%s", e.message);
    cr_expect(strstr(e.message, "NUL") != NULL, "%s", e.message);
}

Test(qwen_prompt_read, limits)
{
    tw_limits l;
    tw_request r;
    tw_error e;
    memset(&l, 0, sizeof l);
    l.max_input_bytes = strlen(CODER) - 1;
    cr_expect_eq(dec(tw_qwen3_coder_prompt_decode, CODER, strlen(CODER), &l, &r, &e), TW_ERR_LIMIT);
    memset(&l, 0, sizeof l);
    l.max_input_bytes = strlen(CODER); /* exactly the size: accepted */
    cr_expect_eq(dec(tw_qwen3_coder_prompt_decode, CODER, strlen(CODER), &l, &r, &e), TW_OK);
    tw_request_free(&r);
    memset(&l, 0, sizeof l);
    l.max_messages = 3;
    cr_expect_eq(dec(tw_qwen3_coder_prompt_decode, CODER, strlen(CODER), &l, &r, &e), TW_ERR_LIMIT);
    cr_expect(strstr(e.message, "max_messages") != NULL, "%s", e.message);
    /* at the byte of the message over the cap: the turn of the first tool
     * response, then the second response of that turn */
    const char *results = strstr(CODER, "<|im_start|>user\n<tool_response>");
    cr_expect_eq(e.offset, (int64_t)(results - CODER), "%s", e.message);
    l.max_messages = 4;
    cr_expect_eq(dec(tw_qwen3_coder_prompt_decode, CODER, strlen(CODER), &l, &r, &e), TW_ERR_LIMIT);
    cr_expect_eq(e.offset, (int64_t)(strstr(CODER, "<tool_response>\ntwo") - CODER), "%s",
                 e.message);
    l.max_messages = 1; /* the user turn after the system one */
    cr_expect_eq(dec(tw_qwen35_prompt_decode, Q35, strlen(Q35), &l, &r, &e), TW_ERR_LIMIT);
    cr_expect_eq(e.offset, (int64_t)(strstr(Q35, "<|im_start|>user") - Q35), "%s", e.message);
    memset(&l, 0, sizeof l);
    l.max_calls = 1;
    cr_expect_eq(dec(tw_qwen3_coder_prompt_decode, CODER, strlen(CODER), &l, &r, &e), TW_ERR_LIMIT);
    cr_expect_str_eq(e.path, "turns[2]");
    cr_expect(strstr(e.message, "max_calls") != NULL, "%s", e.message);
    memset(&l, 0, sizeof l);
    l.max_args_bytes = 40;
    cr_expect_eq(dec(tw_qwen3_coder_prompt_decode, CODER, strlen(CODER), &l, &r, &e), TW_ERR_LIMIT);
    cr_expect_eq(e.code, TW_D_ARGS_TOO_LARGE);
    memset(&l, 0, sizeof l);
    l.max_tools = 1;
    cr_expect_eq(dec(tw_qwen3_coder_prompt_decode, CODER, strlen(CODER), &l, &r, &e), TW_OK);
    tw_request_free(&r);
    cr_expect_eq(dec(tw_qwen35_prompt_decode, Q35, strlen(Q35), &l, &r, &e), TW_OK);
    tw_request_free(&r);
    /* a second tool past max_tools 1 */
    const char *two = strstr(CODER, "\n</tools>");
    char in[8192];
    snprintf(in, sizeof in,
             "%.*s\n<function>\n<name>g</name>\n<parameters>\n</parameters>\n"
             "</function>%s",
             (int)(two - CODER), CODER, two);
    cr_expect_eq(dec(tw_qwen3_coder_prompt_decode, in, strlen(in), &l, &r, &e), TW_ERR_LIMIT);
    cr_expect_str_eq(e.path, "turns[0].tools[1]");
    cr_expect(strstr(e.message, "max_tools") != NULL, "%s", e.message);
    memset(&l, 0, sizeof l);
    l.max_depth = 1; /* the Qwen3.5 tool line nests deeper */
    cr_expect_neq(dec(tw_qwen35_prompt_decode, Q35, strlen(Q35), &l, &r, &e), TW_OK);
    cr_expect_str_eq(e.path, "turns[0].tools[0]", "%s", e.message);
}

/* ---- the registry and the command line ---- */

Test(qwen_prompt_read, registered)
{
    cr_expect(tw_request_reader_find("qwen3-coder-prompt") != NULL);
    cr_expect(tw_request_reader_find("qwen3.5-prompt") != NULL);
    cr_expect(tw_transcode_is_source("qwen3-coder-prompt"));
    cr_expect(tw_transcode_is_source("qwen3.5-prompt"));
    static char out[16384];
    cr_expect_eq(tw_test_run_bin("convert --help", "", out, sizeof out, true), 0);
    const char *from = strstr(out, "--from");
    cr_assert_not_null(from, "%s", out);
    cr_expect(strstr(from, "qwen3-coder-prompt") && strstr(from, "qwen3.5-prompt"), "%s", out);
}

Test(qwen_prompt_read, convert_to_openai_request)
{
    cJSON *fx =
        tw_test_load_json(tw_test_src("tests/data/qwen3-coder/06_one_call_one_result.json"));
    const char *prompt = tw_json_get_str(fx, "expected");
    cr_assert_not_null(prompt);
    static char out[65536];
    cr_expect_eq(tw_test_run_bin("convert --from qwen3-coder-prompt --to openai-request", prompt,
                                 out, sizeof out, true),
                 0, "%s", out);
    /* the call with its generated id, the result answering it, the tools */
    cr_expect(strstr(out, "\"id\":\"call_1\"") != NULL, "%s", out);
    cr_expect(strstr(out, "\"tool_call_id\":\"call_1\"") != NULL, "%s", out);
    cr_expect(strstr(out, "\"tools\":[") != NULL, "%s", out);
    /* and what the prompt does not carry */
    cr_expect(strstr(out, "warning: not_carried: qwen3-coder-prompt: turns[0]: the <tools> "
                          "section does not carry") != NULL,
              "%s", out);
    cr_expect_eq(tw_test_run_bin("convert --from qwen3.5-prompt --to neutral",
                                 "<|im_start|>user\nhi", out, sizeof out, true),
                 1, "%s", out);
    cr_expect(strstr(out, "turns[0]") != NULL, "%s", out);
    cJSON_Delete(fx);
}

/* The Coder template writes no header before a tool result that is the
 * first message it renders: read as such, and written again so. */
Test(qwen_prompt_read, coder_first_result_without_header)
{
    static const char P[] = "<|im_start|>system\nS<|im_end|>\n<tool_response>\nx\n"
                            "</tool_response>\n<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n";
    tw_request r;
    tw_error e;
    cr_assert_eq(dec(tw_qwen3_coder_prompt_decode, P, strlen(P), NULL, &r, &e), TW_OK, "%s",
                 e.message);
    cr_assert_eq(r.nmessages, 3);
    cr_expect_eq(r.messages[1].role, TW_ROLE_TOOL);
    cr_expect_str_eq(r.messages[1].content.data, "x");
    cr_expect_eq(r.messages[2].role, TW_ROLE_USER);
    size_t len = 0;
    char *again = tw_test_encode_request("qwen3-coder-prompt", &r, NULL, &len);
    cr_expect_str_eq(again, P);
    free(again);
    tw_request_free(&r);
    /* not after another message */
    static const char Q[] = "<|im_start|>user\nhi<|im_end|>\n<tool_response>\nx\n"
                            "</tool_response>\n<|im_end|>\n";
    cr_expect_eq(dec(tw_qwen3_coder_prompt_decode, Q, strlen(Q), NULL, &r, &e), TW_ERR_INVALID);
    cr_expect_eq(e.offset, 30, "%s", e.message);
}

/* Qwen3.5 writes a first tool result with no header too, starting with the
 * line break a header would end with; the reader takes what the encoder writes. */
Test(qwen_prompt_read, qwen35_first_result_without_header)
{
    static const char P[] = "\n<tool_response>\nx\n</tool_response><|im_end|>\n"
                            "<|im_start|>user\nhi<|im_end|>\n";
    tw_request r;
    tw_error e;
    cr_assert_eq(dec(tw_qwen35_prompt_decode, P, strlen(P), NULL, &r, &e), TW_OK, "%s", e.message);
    cr_assert_eq(r.nmessages, 2);
    cr_expect_eq(r.messages[0].role, TW_ROLE_TOOL);
    cr_expect_str_eq(r.messages[0].content.data, "x");
    cr_expect_eq(r.messages[1].role, TW_ROLE_USER);
    size_t len = 0;
    char *again = tw_test_encode_request("qwen3.5-prompt", &r, NULL, &len);
    cr_expect_str_eq(again, P);
    free(again);
    tw_request_free(&r);
    /* after the tools alone, as the encoder writes it */
    tw_request q;
    tw_tool t;
    tw_message m[2];
    one_tool_request(&q, &t, m, 2);
    m[0].role = TW_ROLE_TOOL;
    m[0].tool_call_id = (char *)"c";
    cr_assert_eq(tw_buf_append(&m[0].content, "x", 1), TW_OK);
    m[1].role = TW_ROLE_USER;
    cr_assert_eq(tw_buf_append(&m[1].content, "hi", 2), TW_OK);
    char *with_tools = tw_test_encode_request("qwen3.5-prompt", &q, NULL, &len);
    tw_buf_free(&m[0].content);
    tw_buf_free(&m[1].content);
    cr_assert(strstr(with_tools, "<|im_end|>\n\n<tool_response>\nx\n") != NULL, "%s", with_tools);
    cr_assert_eq(dec(tw_qwen35_prompt_decode, with_tools, len, NULL, &r, &e), TW_OK, "%s",
                 e.message);
    cr_expect_eq(r.nmessages, 2);
    cr_expect_eq(r.ntools, 1);
    cr_expect_eq(r.messages[0].role, TW_ROLE_TOOL);
    char *again2 = tw_test_encode_request("qwen3.5-prompt", &r, NULL, &len);
    cr_expect_str_eq(again2, with_tools);
    free(again2);
    free(with_tools);
    tw_request_free(&r);
    /* not after another message */
    static const char Q[] = "<|im_start|>user\nhi<|im_end|>\n\n<tool_response>\nx\n"
                            "</tool_response><|im_end|>\n";
    cr_expect_eq(dec(tw_qwen35_prompt_decode, Q, strlen(Q), NULL, &r, &e), TW_ERR_INVALID);
    cr_expect_eq(e.offset, 30, "%s", e.message);
}

/* A value holding "</tool_call>" closes the block early: the block is kept as
 * content with a warning, not read as a call whose value lost its tail. */
Test(qwen_prompt_read, value_closing_the_block_stays_content)
{
    static const char P[] = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
                            "<tool_call>\n<function=f>\n<parameter=s>\n</parameter>\n</function>\n"
                            "</tool_call>\n</parameter>\n</function>\n</tool_call><|im_end|>\n";
    tw_request r;
    tw_error e;
    cr_assert_eq(dec(tw_qwen3_coder_prompt_decode, P, strlen(P), NULL, &r, &e), TW_OK, "%s",
                 e.message);
    cr_assert_eq(r.nmessages, 2);
    cr_expect_eq(r.messages[1].ncalls, 0);
    const char *want = strstr(P, "<tool_call>");
    cr_expect_eq(r.messages[1].content.len, strlen(want) - strlen("<|im_end|>\n"));
    cr_expect(tw_test_has_warning(&r.warnings, TW_D_TOOL_CALL_JSON, "text after the call"));
    tw_request_free(&r);
}

/* A block over max_args_bytes is refused at its byte in the prompt. */
Test(qwen_prompt_read, block_over_cap_names_its_byte)
{
    static const char P[] = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\nr\n"
                            "</think>\n\nok\n\n<tool_call>\n<function=f>\n<parameter=s>\nabcdef\n"
                            "</parameter>\n</function>\n</tool_call><|im_end|>\n";
    tw_limits l;
    memset(&l, 0, sizeof l); /* zero: the default */
    l.max_args_bytes = 16;
    tw_request r;
    tw_error e;
    cr_assert_eq(dec(tw_qwen35_prompt_decode, P, strlen(P), &l, &r, &e), TW_ERR_LIMIT);
    cr_expect_eq(e.offset, (int64_t)(strstr(P, "<tool_call>") - P), "%s", e.message);
}

/* A NUL between the tokens of a JSON tool line or <tool_call> payload would
 * vanish in a JSON reader (white space to it): the tools are refused at its
 * byte, the call block kept as content with json_nul. */
Test(qwen_prompt_read, nul_between_json_tokens)
{
    /* the tools as the encoder writes them, a NUL put after a line's first ':' */
    tw_request q;
    tw_tool t;
    tw_message m;
    one_tool_request(&q, &t, &m, 1);
    m.role = TW_ROLE_USER;
    cr_assert_eq(tw_buf_append(&m.content, "hi", 2), TW_OK);
    size_t len = 0;
    char *p = tw_test_encode_request("qwen3.5-prompt", &q, NULL, &len);
    tw_buf_free(&m.content);
    char *colon = strstr(p, "<tools>\n{\"type\":");
    cr_assert_not_null(colon, "%s", p);
    size_t at = (size_t)(colon - p) + strlen("<tools>\n{\"type\":");
    char in[8192];
    cr_assert_lt(len + 1, sizeof in);
    memcpy(in, p, at);
    in[at] = '\0';
    memcpy(in + at + 1, p + at, len - at);
    size_t n = len + 1;
    free(p);
    tw_request r;
    tw_error e;
    cr_expect_eq(dec(tw_qwen35_prompt_decode, in, n, NULL, &r, &e), TW_ERR_INVALID);
    cr_expect_eq(e.offset, (int64_t)at, "%s", e.message);
    cr_expect(strstr(e.message, "NUL") != NULL, "%s", e.message);
    /* hermes-prompt: a call payload holding one stays content, every byte kept */
    static const char A[] = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\nok\n"
                            "<tool_call>\n{\"name\":";
    n = sizeof A - 1;
    memcpy(in, A, n);
    in[n++] = '\0';
    static const char B[] = "\"f\", \"arguments\": {}}\n</tool_call><|im_end|>\n";
    memcpy(in + n, B, sizeof B - 1);
    n += sizeof B - 1;
    cr_assert_eq(dec(tw_hermes_prompt_decode, in, n, NULL, &r, &e), TW_OK, "%s", e.message);
    cr_assert_eq(r.nmessages, 2);
    cr_expect_eq(r.messages[1].ncalls, 0);
    cr_expect(memchr(r.messages[1].content.data, '\0', r.messages[1].content.len) != NULL);
    cr_expect(tw_test_has_warning(&r.warnings, TW_D_JSON_NUL, "NUL"));
    tw_request_free(&r);
}

/* "<think>\n</think>\n\n" shares one line break between the opener and the
 * close: no think block the template writes, so the turn is content (was: a
 * reasoning of length -1, refused as over a cap). */
Test(qwen_prompt_read, think_open_and_close_sharing_a_line_break)
{
    static const char P[] = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
                            "<think>\n</think>\n\nok<|im_end|>\n";
    tw_request r;
    tw_error e;
    cr_assert_eq(dec(tw_qwen35_prompt_decode, P, strlen(P), NULL, &r, &e), TW_OK, "%s", e.message);
    cr_assert_eq(r.nmessages, 2);
    cr_expect_eq(r.messages[1].thinking.len, 0);
    cr_expect_str_eq(r.messages[1].content.data, "<think>\n</think>\n\nok");
    tw_request_free(&r);
}

/* A <tool_call> block the template would not write, left as the last one of
 * a turn: the whole calls section stays content, every byte kept, with the
 * warning the qwen3-coder decoder gives for the same bytes at their byte in
 * the prompt (was: no warning). */
Test(qwen_prompt_read, malformed_last_block_warns_as_the_decoder)
{
    static const char HEAD[] = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n";
    static const struct {
        req_decoder f;
        const char *body; /* the assistant turn's text */
        const char *last; /* where the warning points in it */
        tw_status code;
    } cases[] = {
        /* a good block, then one without </function> */
        {tw_qwen3_coder_prompt_decode,
         "ok\n\n<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n"
         "</tool_call>\n<tool_call>\n<function=g>\n<parameter=a>\n1\n</parameter>\n</tool_call>",
         "<tool_call>\n<function=g>", TW_D_XML_FUNCTION_UNCLOSED},
        /* no </tool_call> */
        {tw_qwen35_prompt_decode,
         "ok\n\n<tool_call>\n<function=g>\n<parameter=a>\n1\n</parameter>\n</function>",
         "<tool_call>", TW_D_TOOL_CALL_UNTERMINATED},
        /* a Hermes payload in an XML prompt */
        {tw_qwen3_coder_prompt_decode,
         "<tool_call>\n{\"name\": \"g\", \"arguments\": {}}\n</tool_call>", "<tool_call>",
         TW_D_TOOL_CALL_JSON},
        /* text after the block */
        {tw_qwen35_prompt_decode, "ok\n\n<tool_call>\n<function=g>\n</function>\n</tool_call> tail",
         "<tool_call>", TW_D_TOOL_CALL_JSON},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char in[1024];
        snprintf(in, sizeof in, "%s%s<|im_end|>\n", HEAD, cases[i].body);
        tw_request r;
        tw_error e;
        cr_assert_eq(dec(cases[i].f, in, strlen(in), NULL, &r, &e), TW_OK, "case %zu: %s", i,
                     e.message);
        cr_assert_eq(r.nmessages, 2, "case %zu", i);
        cr_expect_eq(r.messages[1].ncalls, 0, "case %zu", i);
        cr_expect_str_eq(r.messages[1].content.data, cases[i].body, "case %zu", i);
        const tw_diag *w = warning_of(&r.warnings, cases[i].code);
        cr_expect_not_null(w, "case %zu: no %s", i, tw_code_name(cases[i].code));
        if (w) {
            size_t at =
                sizeof HEAD - 1 + (size_t)(strstr(cases[i].body, cases[i].last) - cases[i].body);
            cr_expect_eq(w->offset, (int64_t)at, "case %zu: %s", i, w->message);
            cr_expect(strstr(w->message, "turns[1]") && strstr(w->message, "kept as content"),
                      "case %zu: %s", i, w->message);
        }
        /* the code the decoder gives for these bytes */
        tw_result res;
        cr_assert_eq(tw_qwen3_coder_output_decode(cases[i].body, strlen(cases[i].body), NULL, &res),
                     TW_OK);
        cr_expect(warning_of(&res.errors, cases[i].code) ||
                      warning_of(&res.warnings, cases[i].code) ||
                      (cases[i].code == TW_D_TOOL_CALL_JSON && res.msg.content.len),
                  "case %zu: the decoder gives another code", i);
        tw_result_free(&res);
        tw_request_free(&r);
    }
}

/* A call naming a tool the <tools> section does not declare is kept, with
 * unknown_tool at its block (was: no warning); without a tools section,
 * none. */
Test(qwen_prompt_read, undeclared_tool_warns)
{
    static const char TURN[] = "<|im_start|>user\nGo<|im_end|>\n<|im_start|>assistant\n";
    const char *tools_end = strstr(Q35, "<|im_start|>user");
    static const char CALL[] =
        "<tool_call>\n<function=g>\n<parameter=n>\n1\n</parameter>\n</function>\n</tool_call>"
        "<|im_end|>\n";
    char in[8192];
    snprintf(in, sizeof in, "%.*s%s%s", (int)(tools_end - Q35), Q35, TURN, CALL);
    tw_request r;
    tw_error e;
    cr_assert_eq(dec(tw_qwen35_prompt_decode, in, strlen(in), NULL, &r, &e), TW_OK, "%s",
                 e.message);
    cr_assert_eq(r.nmessages, 3);
    cr_assert_eq(r.messages[2].ncalls, 1);
    cr_expect_str_eq(r.messages[2].calls[0].name, "g");
    const tw_diag *w = warning_of(&r.warnings, TW_D_UNKNOWN_TOOL);
    cr_assert_not_null(w);
    cr_expect(strstr(w->message, "\"g\"") != NULL, "%s", w->message);
    cr_expect_eq(w->offset, (int64_t)(strstr(in, "<tool_call>\n<function=g>") - in), "%s",
                 w->message);
    tw_request_free(&r);
    /* no tools section: nothing to declare it */
    snprintf(in, sizeof in, "%s%s", TURN, CALL);
    cr_assert_eq(dec(tw_qwen3_coder_prompt_decode, in, strlen(in), NULL, &r, &e), TW_OK, "%s",
                 e.message);
    cr_assert_eq(r.messages[1].ncalls, 1);
    cr_expect_null(warning_of(&r.warnings, TW_D_UNKNOWN_TOOL));
    tw_request_free(&r);
}

/* A CRLF prompt: the role's "\r" shows escaped in the refusal, never raw. */
Test(qwen_prompt_read, crlf_role_escaped)
{
    static const char P[] = "<|im_start|>system\r\nS<|im_end|>\r\n";
    req_decoder fs[] = {tw_qwen3_coder_prompt_decode, tw_qwen35_prompt_decode,
                        tw_hermes_prompt_decode};
    for (size_t i = 0; i < 3; i++) {
        tw_request r;
        tw_error e;
        cr_expect_eq(dec(fs[i], P, strlen(P), NULL, &r, &e), TW_ERR_INVALID);
        cr_expect(strstr(e.message, "unknown role \"system\\r\"") != NULL, "%s", e.message);
        cr_expect_null(memchr(e.message, '\r', strlen(e.message)), "%s", e.message);
        cr_expect_eq(e.offset, 12);
    }
}

/* hermes-prompt: a <tool_call> left in an assistant turn's content (not
 * closed, text after it, a close not at the end) is kept with the Hermes
 * decoder's code for those bytes (was: no warning); a turn that ends with
 * a good block after such text still yields that block as its call. */
Test(qwen_prompt_read, hermes_left_block_warns_as_the_decoder)
{
    static const char HEAD[] = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n";
    static const struct {
        const char *body;
        size_t ncalls;
        tw_status code;
    } cases[] = {
        {"ok\n<tool_call>\n{\"name\": \"a\", \"arguments\": {}}", 0, TW_D_TOOL_CALL_UNTERMINATED},
        {"ok\n<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call> tail", 0,
         TW_D_TOOL_CALL_JSON},
        {"x <tool_call>\n{\"name\": \"a\"\n<tool_call>\n{\"name\": \"b\", \"arguments\": {}}\n"
         "</tool_call>",
         1, TW_D_TOOL_CALL_UNTERMINATED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char in[1024];
        snprintf(in, sizeof in, "%s%s<|im_end|>\n", HEAD, cases[i].body);
        tw_request r;
        tw_error e;
        cr_assert_eq(dec(tw_hermes_prompt_decode, in, strlen(in), NULL, &r, &e), TW_OK,
                     "case %zu: %s", i, e.message);
        cr_assert_eq(r.nmessages, 2, "case %zu", i);
        cr_expect_eq(r.messages[1].ncalls, cases[i].ncalls, "case %zu", i);
        const tw_diag *w = warning_of(&r.warnings, cases[i].code);
        cr_expect_not_null(w, "case %zu: no %s", i, tw_code_name(cases[i].code));
        if (w) {
            cr_expect(strstr(w->message, "turns[1]") && strstr(w->message, "kept as content"),
                      "case %zu: %s", i, w->message);
            size_t at =
                sizeof HEAD - 1 + (size_t)(strstr(cases[i].body, "<tool_call>") - cases[i].body);
            cr_expect_eq(w->offset, (int64_t)at, "case %zu: %s", i, w->message);
        }
        if (!cases[i].ncalls)
            cr_expect_str_eq(r.messages[1].content.data, cases[i].body, "case %zu", i);
        tw_request_free(&r);
    }
    /* the template's own blocks: no warning */
    static const char GOOD[] = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\nok\n"
                               "<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>"
                               "<|im_end|>\n";
    tw_request r;
    tw_error e;
    cr_assert_eq(dec(tw_hermes_prompt_decode, GOOD, sizeof GOOD - 1, NULL, &r, &e), TW_OK, "%s",
                 e.message);
    cr_expect_eq(r.messages[1].ncalls, 1);
    cr_expect_eq(r.warnings.len, 0, "%s", r.warnings.len ? r.warnings.items[0].message : "");
    tw_request_free(&r);
    /* a call to a tool the tools section does not declare: kept, unknown_tool at its block */
    tw_request q;
    tw_tool t;
    tw_message m[2];
    one_tool_request(&q, &t, m, 2);
    m[0].role = TW_ROLE_USER;
    cr_assert_eq(tw_buf_append(&m[0].content, "hi", 2), TW_OK);
    tw_call c;
    memset(&c, 0, sizeof c);
    c.id = (char *)"call_1";
    c.name = (char *)"g";
    c.arguments = cJSON_CreateObject();
    m[1].role = TW_ROLE_ASSISTANT;
    m[1].calls = &c;
    m[1].ncalls = 1;
    size_t len = 0;
    char *p = tw_test_encode_request("hermes-prompt", &q, NULL, &len);
    cJSON_Delete(c.arguments);
    tw_buf_free(&m[0].content);
    cr_assert_eq(dec(tw_hermes_prompt_decode, p, len, NULL, &r, &e), TW_OK, "%s", e.message);
    cr_assert_eq(r.nmessages, 2); /* the tools' turn holds no system message */
    cr_assert_eq(r.messages[1].ncalls, 1);
    const tw_diag *w = warning_of(&r.warnings, TW_D_UNKNOWN_TOOL);
    cr_assert_not_null(w);
    cr_expect(strstr(w->message, "\"g\"") != NULL, "%s", w->message);
    const char *turn = strstr(p, "<|im_start|>assistant");
    cr_assert_not_null(turn);
    cr_expect_eq(w->offset, (int64_t)(strstr(turn, "<tool_call>") - p), "%s", w->message);
    tw_request_free(&r);
    free(p);
}

/* convert --max-messages sets the readers' cap; the refusal names its byte. */
Test(qwen_prompt_read, convert_max_messages)
{
    char in[512] = "";
    for (int i = 0; i < 5; i++)
        strcat(in, "<|im_start|>user\nhi<|im_end|>\n");
    char out[2048];
    cr_expect_eq(tw_test_run_bin("convert --from hermes-prompt --to neutral --max-messages 5", in,
                                 out, sizeof out, true),
                 0, "%s", out);
    cr_expect_eq(tw_test_run_bin("convert --from qwen3.5-prompt --to neutral --max-messages 3", in,
                                 out, sizeof out, true),
                 1, "%s", out);
    cr_expect(strstr(out, "more than max_messages (3)") && strstr(out, "(byte 90)"), "%s", out);
    cr_expect_eq(tw_test_run_bin("convert --from hermes-prompt --to neutral --max-messages 0", in,
                                 out, sizeof out, true),
                 2, "%s", out);
}

/* A tools section edited out of the template's form stays system text, with
 * a not_carried warning at its "# Tools" title (was: the tools vanished
 * without a word), in each of the three readers. */
Test(qwen_prompt_read, edited_tools_section_warns)
{
    static const struct {
        const char *enc;
        req_decoder f;
    } readers[] = {{"hermes-prompt", tw_hermes_prompt_decode},
                   {"qwen3-coder-prompt", tw_qwen3_coder_prompt_decode},
                   {"qwen3.5-prompt", tw_qwen35_prompt_decode}};
    for (size_t i = 0; i < sizeof readers / sizeof readers[0]; i++) {
        tw_request q;
        tw_tool t;
        tw_message m;
        one_tool_request(&q, &t, &m, 1);
        m.role = TW_ROLE_USER;
        cr_assert_eq(tw_buf_append(&m.content, "hi", 2), TW_OK);
        size_t len = 0;
        char *p = tw_test_encode_request(readers[i].enc, &q, NULL, &len);
        tw_buf_free(&m.content);
        tw_request r;
        tw_error e;
        cr_assert_eq(dec(readers[i].f, p, len, NULL, &r, &e), TW_OK, "%s: %s", readers[i].enc,
                     e.message);
        cr_expect_eq(r.ntools, 1, "%s", readers[i].enc);
        cr_expect_not(tw_test_has_warning(&r.warnings, TW_D_NOT_CARRIED, "tools section"), "%s",
                      readers[i].enc);
        tw_request_free(&r);
        /* the section's closing tag edited */
        char *close = strstr(p, "\n</tools>");
        cr_assert_not_null(close, "%s: %s", readers[i].enc, p);
        close[7] = 'z';
        cr_assert_eq(dec(readers[i].f, p, len, NULL, &r, &e), TW_OK, "%s: %s", readers[i].enc,
                     e.message);
        cr_expect_eq(r.ntools, 0, "%s", readers[i].enc);
        const tw_diag *w = NULL;
        for (size_t k = 0; k < r.warnings.len; k++)
            if (r.warnings.items[k].code == TW_D_NOT_CARRIED && r.warnings.items[k].message &&
                strstr(r.warnings.items[k].message, "tools section"))
                w = &r.warnings.items[k];
        cr_expect_not_null(w, "%s: no warning", readers[i].enc);
        if (w)
            cr_expect_eq(w->offset, (int64_t)(strstr(p, "# Tools\n\n") - p), "%s: %s",
                         readers[i].enc, w->message);
        tw_request_free(&r);
        free(p);
    }
}

/* The qwen3-coder decoder's warnings past max_diags (xml_stray_text here,
 * which drops text) are counted in the reader's list, never lost. */
Test(qwen_prompt_read, decoder_warnings_past_max_diags_counted)
{
    static const char P[] = "<|im_start|>assistant\n<tool_call>\n<function=e><parameter=c>"
                            "</parameter></function>X</function>\n</tool_call><|im_end|>\n";
    tw_limits l;
    memset(&l, 0, sizeof l);
    l.max_diags = 1;
    tw_request r;
    tw_error e;
    cr_assert_eq(dec(tw_qwen3_coder_prompt_decode, P, sizeof P - 1, &l, &r, &e), TW_OK, "%s",
                 e.message);
    cr_assert_eq(r.messages[0].ncalls, 1);
    cr_expect_eq(r.warnings.len, 1);
    cr_expect_geq(r.warnings.dropped, 1, "the decoder's second warning is not counted");
    tw_request_free(&r);
    cr_assert_eq(dec(tw_qwen3_coder_prompt_decode, P, sizeof P - 1, NULL, &r, &e), TW_OK, "%s",
                 e.message);
    cr_expect(warning_of(&r.warnings, TW_D_XML_STRAY_TEXT) != NULL);
    tw_request_free(&r);
}
