/* Reliability shims: argument parsing, id normalisation, schema
 * normalisation, tool-output truncation. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "toolwire/shims.h"
#include "twtest.h"

/* ---- UTF-8 cut ---- */

Test(shims, utf8_cut)
{
    const char *s = "ab\xC3\xA9"
                    "c\xE2\x9C\x93"
                    "d\xF0\x9F\x98\x80";
    size_t n = strlen(s); /* a b é(2) c ✓(3) d 😀(4) = 13 */
    cr_expect_eq(tw_utf8_cut(s, n, 100), n);
    cr_expect_eq(tw_utf8_cut(s, n, 2), 2);
    cr_expect_eq(tw_utf8_cut(s, n, 3), 2, "inside é");
    cr_expect_eq(tw_utf8_cut(s, n, 4), 4);
    cr_expect_eq(tw_utf8_cut(s, n, 6), 5, "inside ✓");
    cr_expect_eq(tw_utf8_cut(s, n, 7), 5, "inside ✓");
    cr_expect_eq(tw_utf8_cut(s, n, 8), 8);
    cr_expect_eq(tw_utf8_cut(s, n, 12), 9, "inside 😀");
    cr_expect_eq(tw_utf8_cut(s, n, 0), 0);
    /* invalid bytes count as single characters */
    const char *bad = "a\x80\x80\x80\x80z";
    cr_expect_eq(tw_utf8_cut(bad, 6, 3), 3);
    const char *trunc_seq = "a\xE2\x9C"; /* a lead byte whose sequence is cut short */
    cr_expect_eq(tw_utf8_cut(trunc_seq, 3, 2), 2);
}

/* ---- arguments ---- */

/* The refusal's code: TW_OK, or err->code after a failure, checked to come
 * with the status it belongs to. */
static tw_status parse(const char *text, const tw_limits *l, cJSON **out, bool *fenced)
{
    size_t n = strlen(text);
    char *copy = tw_test_exact(text, n);
    tw_error e;
    tw_error_clear(&e);
    tw_status st = tw_shim_parse_args(copy, n, l, out, fenced, &e);
    free(copy);
    if (st == TW_OK)
        return st;
    cr_expect(tw_code_is_status(st), "%s", tw_code_name(st));
    cr_expect_neq(e.message[0], '\0');
    cr_expect_eq(e.offset, -1);
    tw_status want = e.code == TW_D_ARGS_TOO_LARGE || e.code == TW_D_JSON_TOO_DEEP ? TW_ERR_LIMIT
                     : e.code == TW_D_TOOL_CALL_JSON                               ? TW_ERR_PARSE
                     : e.code == TW_D_ARGUMENTS_NOT_OBJECT                         ? TW_ERR_INVALID
                                                                                   : e.code;
    cr_expect_eq(st, want, "%s returned %s", tw_code_name(e.code), tw_code_name(st));
    return e.code;
}

Test(shims, parse_args_object_and_fences)
{
    cJSON *v = NULL;
    bool fenced = true;
    cr_assert_eq(parse("{\"a\": 1}", NULL, &v, &fenced), TW_OK);
    cr_expect_not(fenced);
    cr_expect_eq(tw_json_get(v, "a")->valuedouble, 1);
    cJSON_Delete(v);
    cr_assert_eq(parse("  ```json\n{\"a\": [1, 2]}\n```  ", NULL, &v, &fenced), TW_OK);
    cr_expect(fenced);
    cr_expect(cJSON_IsArray(tw_json_get(v, "a")));
    cJSON_Delete(v);
    cr_assert_eq(parse("```\n{}\n```", NULL, &v, &fenced), TW_OK);
    cr_expect(fenced);
    cJSON_Delete(v);
    cr_assert_eq(parse("", NULL, &v, NULL), TW_OK, "empty arguments are {}");
    cr_expect(cJSON_IsObject(v) && !v->child);
    cJSON_Delete(v);
    cr_assert_eq(parse(" \n ", NULL, &v, NULL), TW_OK);
    cJSON_Delete(v);
}

Test(shims, parse_args_refusals)
{
    cJSON *v = (cJSON *)1;
    cr_expect_eq(parse("[1, 2]", NULL, &v, NULL), TW_D_ARGUMENTS_NOT_OBJECT);
    cr_expect_null(v);
    cr_expect_eq(parse("\"{}\"", NULL, &v, NULL), TW_D_ARGUMENTS_NOT_OBJECT);
    cr_expect_eq(parse("{\"a\": }", NULL, &v, NULL), TW_D_TOOL_CALL_JSON);
    cr_expect_eq(parse("{\"a\": 1} trailing", NULL, &v, NULL), TW_D_TOOL_CALL_JSON);
    cr_expect_eq(parse("```json\n{\"a\": 1}", NULL, &v, NULL), TW_D_TOOL_CALL_JSON,
                 "an unclosed fence is not tolerated");
    tw_limits l;
    tw_limits_default(&l);
    l.max_args_bytes = 10;
    cr_expect_eq(parse("{\"a\": \"0123456789\"}", &l, &v, NULL), TW_D_ARGS_TOO_LARGE);
    cr_expect_eq(parse("{\"a\": 1}", &l, &v, NULL), TW_OK);
    cJSON_Delete(v);
    tw_limits_default(&l);
    l.max_depth = 2;
    cr_expect_eq(parse("{\"a\": {\"b\": {\"c\": 1}}}", &l, &v, NULL), TW_D_JSON_TOO_DEEP);
    cr_expect_null(v);
}

/* ---- ids ---- */

static void add_call(tw_message *m, const char *id, const char *name)
{
    tw_call c = {0};
    c.id = id ? strdup(id) : NULL;
    c.name = strdup(name);
    c.arguments = cJSON_CreateObject();
    c.offset = -1;
    cr_assert_eq(tw_message_add_call(m, &c), TW_OK);
}

Test(shims, normalize_ids_in_a_message)
{
    tw_message m = {0};
    m.role = TW_ROLE_ASSISTANT;
    add_call(&m, "", "f");
    add_call(&m, "a", "f");
    add_call(&m, "a", "f");
    add_call(&m, NULL, "f");
    add_call(&m, "tc_2", "f");
    add_call(&m, "a", "f");
    tw_diag_list w = {0};
    cr_assert_eq(tw_shim_normalize_ids(&m, &w), TW_OK);
    const char *want[] = {"tc_1", "a", "a__2", "tc_4", "tc_2", "a__3"};
    for (size_t i = 0; i < 6; i++)
        cr_expect_str_eq(m.calls[i].id, want[i], "call %zu", i);
    cr_expect_eq(w.len, 2);
    cr_expect_eq(w.items[0].code, TW_D_DUPLICATE_ID);
    cr_expect_str_eq(w.items[0].message, "duplicate tool call id 'a' rewritten as 'a__2'");
    tw_diag_list_free(&w);
    tw_message_free(&m);
}

static tw_message *push(tw_request *r, tw_role role, const char *tool_call_id)
{
    r->messages = realloc(r->messages, (r->nmessages + 1) * sizeof *r->messages);
    tw_message *m = &r->messages[r->nmessages++];
    memset(m, 0, sizeof *m);
    m->role = role;
    if (tool_call_id)
        m->tool_call_id = strdup(tool_call_id);
    return m;
}

Test(shims, normalize_ids_in_a_request_keeps_results_paired)
{
    tw_request r;
    memset(&r, 0, sizeof r);
    r.parallel_tool_calls = -1;
    push(&r, TW_ROLE_USER, NULL);
    tw_message *a = push(&r, TW_ROLE_ASSISTANT, NULL);
    add_call(a, "x", "f");
    add_call(a, "x", "g");
    add_call(a, "", "h");
    push(&r, TW_ROLE_TOOL, "x");
    push(&r, TW_ROLE_TOOL, "x");
    push(&r, TW_ROLE_TOOL, "");
    a = push(&r, TW_ROLE_ASSISTANT, NULL);
    add_call(a, "x", "f");
    add_call(a, NULL, "f");
    push(&r, TW_ROLE_TOOL, "x");
    push(&r, TW_ROLE_TOOL, "");
    tw_diag_list w = {0};
    cr_assert_eq(tw_shim_normalize_request_ids(&r, &w), TW_OK);
    cr_expect_str_eq(r.messages[1].calls[0].id, "x");
    cr_expect_str_eq(r.messages[1].calls[1].id, "x__2");
    cr_expect_str_eq(r.messages[1].calls[2].id, "tc_1");
    cr_expect_str_eq(r.messages[2].tool_call_id, "x");
    cr_expect_str_eq(r.messages[3].tool_call_id, "x__2");
    cr_expect_str_eq(r.messages[4].tool_call_id, "tc_1");
    cr_expect_str_eq(r.messages[5].calls[0].id, "x__3", "unique across the request");
    cr_expect_str_eq(r.messages[5].calls[1].id, "tc_2");
    cr_expect_str_eq(r.messages[6].tool_call_id, "x__3");
    cr_expect_str_eq(r.messages[7].tool_call_id, "tc_2");
    cr_expect_eq(w.len, 2);
    tw_diag_list_free(&w);
    tw_request_free(&r);
}

/* ---- schemas ---- */

Test(shims, schema_omits_empty_required_everywhere)
{
    cJSON *s = cJSON_Parse(
        "{\"type\":\"object\",\"required\":[],\"properties\":{"
        "\"a\":{\"type\":\"object\",\"required\":[],\"properties\":{}},"
        "\"required\":{\"type\":\"object\",\"required\":[\"x\"]},"
        "\"l\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"required\":[]}},"
        "\"u\":{\"anyOf\":[{\"type\":\"object\",\"required\":[]},{\"type\":\"null\"}]}},"
        "\"$defs\":{\"d\":{\"type\":\"object\",\"required\":[]}}}");
    cr_assert_not_null(s);
    cr_expect_eq(tw_shim_schema_normalize(s, 64), 5);
    char *out = tw_json_print(s, NULL);
    cr_expect_str_eq(out, "{\"type\":\"object\",\"properties\":{"
                          "\"a\":{\"type\":\"object\",\"properties\":{}},"
                          "\"required\":{\"type\":\"object\",\"required\":[\"x\"]},"
                          "\"l\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}},"
                          "\"u\":{\"anyOf\":[{\"type\":\"object\"},{\"type\":\"null\"}]}},"
                          "\"$defs\":{\"d\":{\"type\":\"object\"}}}");
    free(out);
    cr_expect_eq(tw_shim_schema_normalize(s, 64), 0, "idempotent");
    cJSON_Delete(s);
}

Test(shims, schema_walk_is_depth_capped)
{
    cJSON *s = cJSON_Parse("{\"properties\":{\"a\":{\"properties\":{\"b\":{\"required\":[]}}}}}");
    cr_expect_eq(tw_shim_schema_normalize(s, 2), 0, "b sits 4 levels down");
    cr_expect_eq(tw_shim_schema_normalize(s, 8), 1);
    cJSON_Delete(s);
}

/* ---- tool output ---- */

Test(shims, truncate_output)
{
    tw_buf b = {0};
    bool cut = true;
    cr_assert_eq(tw_shim_truncate("short", 5, 100, &b, &cut), TW_OK);
    cr_expect_not(cut);
    cr_expect_str_eq(b.data, "short");
    tw_buf_reset(&b);
    size_t ml = strlen(TW_TRUNCATED_MARKER);
    char big[64];
    memset(big, 'x', sizeof big);
    cr_assert_eq(tw_shim_truncate(big, sizeof big, 20, &b, &cut), TW_OK);
    cr_expect(cut);
    cr_expect_eq(b.len, 20);
    cr_expect_eq(memcmp(b.data + 20 - ml, TW_TRUNCATED_MARKER, ml), 0);
    /* never split a character: 'é' straddles the cut */
    tw_buf_reset(&b);
    const char *s = "abcd\xC3\xA9"
                    "efghijklmnopqrstuvwxyz";
    cr_assert_eq(tw_shim_truncate(s, strlen(s), 5 + ml, &b, &cut), TW_OK);
    cr_expect_eq(b.len, 4 + ml);
    cr_expect_eq(memcmp(b.data, "abcd\n[truncated]", 4 + ml), 0);
    tw_buf_reset(&b);
    cr_expect_eq(tw_shim_truncate(big, sizeof big, ml - 1, &b, &cut), TW_ERR_INVALID);
    tw_buf_free(&b);
}

Test(shims, truncate_tool_outputs_of_a_request)
{
    tw_request r;
    memset(&r, 0, sizeof r);
    r.parallel_tool_calls = -1;
    tw_message *u = push(&r, TW_ROLE_USER, NULL);
    for (int i = 0; i < 100; i++)
        tw_buf_putc(&u->content, 'u');
    tw_message *t = push(&r, TW_ROLE_TOOL, "c1");
    for (int i = 0; i < 100; i++)
        tw_buf_putc(&t->content, 't');
    push(&r, TW_ROLE_TOOL, "c2");
    tw_buf_puts(&r.messages[2].content, "small");
    tw_diag_list w = {0};
    cr_assert_eq(tw_shim_truncate_tool_outputs(&r, 40, &w), TW_OK);
    cr_expect_eq(r.messages[0].content.len, 100, "user text is not a tool output");
    cr_expect_eq(r.messages[1].content.len, 40);
    cr_expect_str_eq(r.messages[2].content.data, "small");
    cr_assert_eq(w.len, 1);
    cr_expect_eq(w.items[0].code, TW_D_OUTPUT_TRUNCATED);
    cr_expect_str_eq(w.items[0].message, "messages[1].content: tool output of 100 bytes cut to 40");
    tw_diag_list_free(&w);
    tw_request_free(&r);
}

/* ---- the pseudo-tool `parallel` ---- */

static void add_wrapped(tw_message *m, const char *id, const char *name, const char *args)
{
    tw_call c;
    memset(&c, 0, sizeof c);
    c.id = tw_strdup(id);
    c.name = tw_strdup(name);
    c.arguments = cJSON_Parse(args);
    c.offset = 7;
    cr_assert_not_null(c.arguments);
    cr_assert_eq(tw_message_add_call(m, &c), TW_OK);
}

Test(shims, unwrap_parallel)
{
    tw_message m;
    memset(&m, 0, sizeof m);
    add_wrapped(&m, "c0", "get_time", "{}");
    add_wrapped(&m, "p", "parallel",
                "{\"tool_uses\":[{\"recipient_name\":\"functions.get_weather\",\"parameters\":"
                "{\"city\":\"Paris\"}},{\"recipient_name\":\"get_time\",\"parameters\":{}}]}");
    add_wrapped(&m, "p_2", "other", "{}"); /* takes the id the second unwrapped call would get */
    add_wrapped(&m, "q", "parallel",
                "{\"tool_uses\":[{\"recipient_name\":\"x\"}]}"); /* no parameters */
    tw_diag_list w = {0};
    cr_assert_eq(tw_shim_unwrap_parallel(&m, NULL, &w), TW_OK);
    cr_assert_eq(m.ncalls, 5);
    cr_assert_str_eq(m.calls[0].id, "c0");
    cr_assert_str_eq(m.calls[1].id, "p_1");
    cr_assert_str_eq(m.calls[1].name, "get_weather");
    cr_assert_str_eq(cJSON_GetObjectItem(m.calls[1].arguments, "city")->valuestring, "Paris");
    cr_assert_eq(m.calls[1].offset, 7);
    cr_assert_str_eq(m.calls[2].id, "p_2__2");
    cr_assert_str_eq(m.calls[2].name, "get_time");
    cr_assert_str_eq(m.calls[3].id, "p_2");
    cr_assert_str_eq(m.calls[4].name, "parallel", "a wrapper of another shape is left as it is");
    cr_assert_eq(w.len, 1);
    cr_assert_eq(w.items[0].code, TW_D_PARALLEL_WRAPPER);
    tw_diag_list_free(&w);

    /* past max_calls: nothing is unwrapped */
    tw_message_free(&m);
    memset(&m, 0, sizeof m);
    add_wrapped(&m, "p", "parallel",
                "{\"tool_uses\":[{\"recipient_name\":\"a\",\"parameters\":{}},"
                "{\"recipient_name\":\"b\",\"parameters\":{}}]}");
    tw_limits l;
    memset(&l, 0, sizeof l);
    l.max_calls = 1;
    cr_assert_eq(tw_shim_unwrap_parallel(&m, &l, NULL), TW_OK);
    cr_assert_eq(m.ncalls, 1);
    cr_assert_str_eq(m.calls[0].name, "parallel");
    tw_message_free(&m);
}
