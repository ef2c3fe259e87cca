/* vLLM-native /generate: decode fixtures, encoder outputs, round trips,
 * the token rule, the two-pass assembly and the AIMessage mapping. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cases.h"
#include "decode_fixtures.h"
#include "toolwire/json.h"
#include "toolwire/vllm.h"
#include "twtest.h"

static cJSON *load(const char *path)
{
    size_t len;
    cJSON *j;
    char *copy = tw_test_load_exact(path, &len, &j);
    cr_assert_eq(tw_json_keep_spellings(copy, len, j, 256), TW_OK);
    free(copy);
    return j;
}

Test(vllm, decode_fixtures)
{
    char **files = NULL;
    long n = tw_list_files(tw_test_src("tests/data/decode/vllm-generate"), ".json", &files);
    cr_assert_geq(n, 12, "found %ld fixtures", n);
    long failed = tw_test_check_fixtures(files, n);
    tw_free_list(files, n);
    cr_expect_eq(failed, 0, "%ld of %ld fixtures failed", failed, n);
}

static void check_outputs(const char *dir, const char *enc_name, bool result)
{
    char **files = NULL;
    long n = tw_list_files(tw_test_src(dir), ".json", &files);
    cr_assert_geq(n, 3);
    const tw_encoder_ops *enc = tw_encoder_find(enc_name);
    cr_assert_not_null(enc);
    for (long i = 0; i < n; i++) {
        cJSON *fx = load(files[i]);
        tw_error why_e = {0};
        tw_buf out = {0};
        tw_status st;
        if (result) {
            tw_result r;
            cr_assert_eq(tw_result_read(tw_json_get(fx, "result"), NULL, &r, &why_e), TW_OK,
                         "%s: %s", files[i], why_e.message);
            st = enc->encode_result(&r, NULL, &out);
            tw_result_free(&r);
        } else {
            tw_request r;
            cr_assert_eq(tw_request_read(tw_json_get(fx, "request"), NULL, &r, &why_e), TW_OK,
                         "%s: %s", files[i], why_e.message);
            st = enc->encode_request(&r, NULL, &out);
            tw_request_free(&r);
        }
        cr_expect_eq(st, TW_OK, "%s", files[i]);
        cr_expect_str_eq(out.data ? out.data : "", tw_json_get_str(fx, "expected"), "%s", files[i]);
        tw_buf_free(&out);
        cJSON_Delete(fx);
    }
    tw_free_list(files, n);
}

Test(vllm, request_encoder_outputs)
{
    check_outputs("tests/data/vllm/request", "vllm-generate-request", false);
}
Test(vllm, response_encoder_outputs)
{
    check_outputs("tests/data/vllm/response", "vllm-generate-response", true);
}

/* encode (vllm-generate-response) then decode (vllm-generate): same neutral result */
static void round_trip(const tw_result *r, const char *what)
{
    tw_buf wire = {0};
    cr_assert_eq(tw_vllm_response_encode(r, NULL, &wire), TW_OK);
    char *copy = tw_test_exact(wire.data, wire.len);
    tw_result back;
    cr_assert_eq(tw_vllm_response_decode(copy, wire.len, NULL, &back), TW_OK);
    free(copy);
    tw_buf a = {0}, b = {0};
    tw_result_write(&a, r, 0);
    tw_result_write(&b, &back, 0);
    cr_expect_str_eq(b.data, a.data, "%s: round trip differs (wire %s)", what, wire.data);
    tw_buf_free(&a);
    tw_buf_free(&b);
    tw_buf_free(&wire);
    tw_result_free(&back);
}

Test(vllm, round_trip_response_fixtures)
{
    char **files = NULL;
    long n = tw_list_files(tw_test_src("tests/data/vllm/response"), ".json", &files);
    cr_assert_geq(n, 3);
    for (long i = 0; i < n; i++) {
        cJSON *fx = load(files[i]);
        tw_result r;
        cr_assert_eq(tw_result_read(tw_json_get(fx, "result"), NULL, &r, NULL), TW_OK);
        round_trip(&r, files[i]);
        tw_result_free(&r);
        cJSON_Delete(fx);
    }
    tw_free_list(files, n);
}

/* Every accepting decode fixture (no diagnostics) survives encode -> decode. */
Test(vllm, round_trip_decode_fixtures)
{
    char **files = NULL;
    long n = tw_list_files(tw_test_src("tests/data/decode/vllm-generate"), ".json", &files);
    long done = 0;
    for (long i = 0; i < n; i++) {
        cJSON *fx = load(files[i]);
        const char *in = tw_json_get_str(fx, "input");
        tw_result r;
        if (!tw_json_get(fx, "options") &&
            tw_vllm_response_decode(in, strlen(in), NULL, &r) == TW_OK) {
            if (r.errors.len == 0 && r.warnings.len == 0) {
                round_trip(&r, files[i]);
                done++;
            }
            tw_result_free(&r);
        }
        cJSON_Delete(fx);
    }
    tw_free_list(files, n);
    cr_expect_geq(done, 5, "only %ld round trips", done);
}

Test(vllm, token_rule)
{
    size_t nt = 0;
    const char *s = "Hello  world\n<think>x";
    cr_expect_eq(tw_vllm_token_prefix(s, strlen(s), 0, &nt), 0);
    cr_expect_eq(nt, 5, "Hello | '  ' | world | \\n | <think>x");
    cr_expect_eq(tw_vllm_token_prefix(s, strlen(s), 1, NULL), 5);
    cr_expect_eq(tw_vllm_token_prefix(s, strlen(s), 2, NULL), 7);
    cr_expect_eq(tw_vllm_token_prefix(s, strlen(s), 3, NULL), 12);
    cr_expect_eq(tw_vllm_token_prefix(s, strlen(s), 5, NULL), strlen(s));
    cr_expect_eq(tw_vllm_token_prefix(s, strlen(s), 99, NULL), strlen(s));
    cr_expect_eq(tw_vllm_token_prefix("", 0, 3, &nt), 0);
    cr_expect_eq(nt, 0);
    cr_expect_eq(tw_vllm_token_prefix(" \t a", 4, 1, &nt), 3);
    cr_expect_eq(nt, 2);
}

typedef struct acase {
    const char *what;
    const char *options; /* request options JSON */
    const char *pass1, *pass2;
    const char *thinking_core, *prefix, *combined, *content;
    size_t ncalls;
    const char *finish;
    tw_vllm_stop stop1, stop2;
    size_t nerrors;
} acase;

static const acase cases[] = {
    {"tag closes pass 1, call in pass 2 (stop sequence consumed)", "{}",
     "Need the weather.</think>",
     "Checking.\n<tool_call>\n{\"name\": \"w\", \"arguments\": {\"c\": 1}}\n</tool_call> trailing",
     "Need the weather.", "",
     "Checking.\n<tool_call>\n{\"name\": \"w\", \"arguments\": {\"c\": 1}}", "Checking.", 1,
     "tool_calls", TW_VLLM_STOP_TAG, TW_VLLM_STOP_TAG, 0},
    {"response prefix after the closing tag joins pass 2 with one space", "{}",
     "<think>plan</thinking>  I'll ", "answer now.  ", "plan", "I'll", "I'll answer now.",
     "I'll answer now.", 0, "stop", TW_VLLM_STOP_TAG, TW_VLLM_END, 0},
    {"max_thinking_tokens cuts pass 1 before the tag: synthesized close, error",
     "{\"max_thinking_tokens\": 3}", "one two three four</think>", "Done.", "one two", "", "Done.",
     "Done.", 0, "stop", TW_VLLM_TOKEN_CAP, TW_VLLM_END, 1},
    {"a tag ending inside the last allowed token still stops", "{\"max_thinking_tokens\": 3}",
     "a b</think>rest", "x", "a b", "rest", "rest x", "rest x", 0, "stop", TW_VLLM_STOP_TAG,
     TW_VLLM_END, 0},
    {"max_response_tokens cuts pass 2: finish length", "{\"max_response_tokens\": 3}", "t</think>",
     "alpha beta gamma", "t", "", "alpha beta", "alpha beta", 0, "length", TW_VLLM_STOP_TAG,
     TW_VLLM_TOKEN_CAP, 0},
    {"cut inside a complete JSON payload: finish length accepts it", "{\"max_response_tokens\": 2}",
     "t</think>", "<tool_call>{\"name\":\"f\",\"arguments\":{}} more", "t", "",
     "<tool_call>{\"name\":\"f\",\"arguments\":{}}", "", 1, "tool_calls", TW_VLLM_STOP_TAG,
     TW_VLLM_TOKEN_CAP, 0},
    {"tool_parser openai: no extraction, no stop at </tool_call>", "{\"tool_parser\": \"openai\"}",
     "t</think>", "<tool_call>{\"name\":\"f\"}</tool_call>", "t", "",
     "<tool_call>{\"name\":\"f\"}</tool_call>", "<tool_call>{\"name\":\"f\"}</tool_call>", 0,
     "stop", TW_VLLM_STOP_TAG, TW_VLLM_END, 0},
    {"model ids are replaced by call_1, call_2", "{}", "t</think>",
     "<tool_call>[{\"id\":\"x\",\"name\":\"f\"},{\"id\":\"x\",\"name\":\"g\"}]</tool_call>", "t",
     "", "<tool_call>[{\"id\":\"x\",\"name\":\"f\"},{\"id\":\"x\",\"name\":\"g\"}]", "", 2,
     "tool_calls", TW_VLLM_STOP_TAG, TW_VLLM_STOP_TAG, 0},
    {"two_pass false: pass 1 ignored", "{\"two_pass\": false}", "ignored</think>", "Hi.", "", "",
     "Hi.", "Hi.", 0, "stop", TW_VLLM_END, TW_VLLM_END, 0},
    {"unterminated call without the stop: no call, a safe message, error", "{}", "t</think>",
     "Sure <tool_call>{\"name\":", "t", "",
     "Sure <tool_call>{\"name\":", "Sure\n\n[the tool call was incomplete and was not run]", 0,
     "stop", TW_VLLM_STOP_TAG, TW_VLLM_END, 1},
};

static void check_case(const acase *c)
{
    cJSON *opts = cJSON_Parse(c->options);
    tw_vllm_params p;
    cr_assert_eq(tw_vllm_params_read(opts, &p, NULL), TW_OK, "%s", c->what);
    cJSON_Delete(opts);
    char *a = tw_test_exact(c->pass1, strlen(c->pass1));
    char *b = tw_test_exact(c->pass2, strlen(c->pass2));
    tw_vllm_assembly as;
    cr_assert_eq(tw_vllm_assemble(&p, a, strlen(c->pass1), b, strlen(c->pass2), NULL, &as), TW_OK);
    free(a);
    free(b);
    cr_expect_str_eq(as.thinking_core.data ? as.thinking_core.data : "", c->thinking_core, "%s",
                     c->what);
    cr_expect_str_eq(as.response_prefix.data ? as.response_prefix.data : "", c->prefix, "%s",
                     c->what);
    cr_expect_str_eq(as.combined.data ? as.combined.data : "", c->combined, "%s", c->what);
    cr_expect_str_eq(as.result.msg.content.data ? as.result.msg.content.data : "", c->content, "%s",
                     c->what);
    cr_expect_str_eq(as.result.msg.thinking.data ? as.result.msg.thinking.data : "",
                     c->thinking_core, "%s", c->what);
    cr_expect_eq(as.result.msg.ncalls, c->ncalls, "%s", c->what);
    for (size_t i = 0; i < as.result.msg.ncalls; i++) {
        char id[32];
        snprintf(id, sizeof id, "call_%zu", i + 1);
        cr_expect_str_eq(as.result.msg.calls[i].id, id, "%s", c->what);
    }
    cr_expect_eq(as.has_pre_tool_text, c->ncalls > 0, "%s", c->what);
    cr_expect_str_eq(as.result.finish_reason, c->finish, "%s", c->what);
    cr_expect_eq(as.pass1_stop, c->stop1, "%s", c->what);
    cr_expect_eq(as.pass2_stop, c->stop2, "%s", c->what);
    cr_expect_eq(as.result.errors.len, c->nerrors, "%s", c->what);
    tw_vllm_assembly_free(&as);
}

Test(vllm, two_pass_assembly)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_case(&cases[i]);
}

Test(vllm, params_refuse_bad_values)
{
    const char *bad[] = {"{\"two_pass\": 1}",
                         "{\"think_tag\": \"thought\"}",
                         "{\"max_thinking_tokens\": -1}",
                         "{\"max_response_tokens\": 1.5}",
                         "{\"tool_parser\": \"xml\"}",
                         "{\"temperature\": \"hot\"}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *o = cJSON_Parse(bad[i]);
        tw_vllm_params p;
        tw_error why_e = {0};
        cr_expect_eq(tw_vllm_params_read(o, &p, &why_e), TW_ERR_INVALID, "%s", bad[i]);
        cJSON_Delete(o);
    }
    tw_vllm_params p;
    cr_expect_eq(tw_vllm_params_read(NULL, &p, NULL), TW_OK);
    cr_expect(p.two_pass && p.hermes && !p.thinking_tag);
    cr_expect_eq(p.max_thinking_tokens, 0);
}

Test(vllm, aimessage_mapping)
{
    const char *in = "{\"thinking\": \"Memory is stale.\", \"response\": \"I'll update memory.\", "
                     "\"tool_calls\": [{\"id\": \"call_1\", \"name\": \"overwrite_memory\", "
                     "\"arguments\": {\"new_memory\": \"tea\"}}]}";
    tw_result r;
    cr_assert_eq(tw_vllm_response_decode(in, strlen(in), NULL, &r), TW_OK);
    tw_buf out = {0};
    cr_assert_eq(tw_vllm_aimessage_write(&out, &r, NULL, 0), TW_OK);
    cr_expect_str_eq(out.data,
                     "{\"content\":\"<think>Memory is stale.</think>\\nI'll update memory.\","
                     "\"tool_calls\":[{\"id\":\"call_1\",\"name\":\"overwrite_memory\","
                     "\"args\":{\"new_memory\":\"tea\"}}],"
                     "\"additional_kwargs\":{\"thinking\":\"Memory is stale.\"}}");
    tw_buf_reset(&out);
    tw_result_free(&r);
    const char *plain = "{\"thinking\": \"\", \"response\": \"Hi\"}";
    cr_assert_eq(tw_vllm_response_decode(plain, strlen(plain), NULL, &r), TW_OK);
    cr_assert_eq(tw_vllm_aimessage_write(&out, &r, "thinking", 0), TW_OK);
    cr_expect_str_eq(
        out.data,
        "{\"content\":\"Hi\",\"tool_calls\":[],\"additional_kwargs\":{\"thinking\":\"\"}}");
    tw_buf_free(&out);
    tw_result_free(&r);
}

Test(vllm, response_encoder_warns_what_it_drops)
{
    tw_result r;
    tw_result_init(&r, NULL);
    tw_buf_puts(&r.msg.content, "cut");
    r.finish_reason = tw_strdup("length");
    tw_diag_list w = {0};
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    o.warnings = &w;
    tw_buf out = {0};
    cr_expect_eq(tw_vllm_response_encode(&r, &o, &out), TW_OK);
    cr_expect(tw_diag_has(&w, TW_D_NOT_CARRIED));
    tw_buf_free(&out);
    tw_diag_list_free(&w);
    tw_result_free(&r);
}

Test(vllm, assembly_feeds_the_response_encoder)
{
    tw_vllm_params p;
    tw_vllm_params_read(NULL, &p, NULL);
    tw_vllm_assembly as;
    const char *p1 = "Use the tool.</think>";
    const char *p2 = "I'll update memory.\n<tool_call>\n{\"name\": \"overwrite_memory\", "
                     "\"arguments\": {\"new_memory\": \"tea\"}}\n</tool_call>";
    cr_assert_eq(tw_vllm_assemble(&p, p1, strlen(p1), p2, strlen(p2), NULL, &as), TW_OK);
    tw_buf out = {0};
    cr_assert_eq(tw_vllm_response_encode(&as.result, NULL, &out), TW_OK);
    cr_expect_str_eq(out.data,
                     "{\"thinking\":\"Use the tool.\",\"response\":\"I'll update memory.\","
                     "\"tool_calls\":[{\"id\":\"call_1\",\"name\":\"overwrite_memory\","
                     "\"arguments\":{\"new_memory\":\"tea\"}}],"
                     "\"pre_tool_text\":\"I'll update memory.\"}");
    tw_buf_free(&out);
    tw_vllm_assembly_free(&as);
}

/* tool_parser qwen3_coder: the Hermes block and its stop, with Qwen3-Coder
 * XML calls inside, typed by the declared tools; hermes would refuse them. */
Test(vllm, assembly_qwen3_coder_parser)
{
    cJSON *o = cJSON_Parse("{\"tool_parser\": \"qwen3_coder\"}");
    tw_vllm_params p;
    cr_assert_eq(tw_vllm_params_read(o, &p, NULL), TW_OK);
    cJSON_Delete(o);
    cr_expect(p.qwen3_coder && p.hermes);
    tw_vllm_params h;
    tw_vllm_params_read(NULL, &h, NULL);
    cr_expect_not(h.qwen3_coder);
    const char *tools =
        "[{\"name\":\"lookup_order\",\"parameters\":{\"type\":\"object\",\"properties\":"
        "{\"order_id\":{\"type\":\"string\"},\"limit\":{\"type\":\"integer\"}}}}]";
    cJSON *tj = cJSON_Parse(tools);
    tw_tool *t = NULL;
    size_t nt = 0;
    cr_assert_eq(tw_tools_read(tj, NULL, &t, &nt, NULL), TW_OK);
    cJSON_Delete(tj);
    tw_decode_opts d = {0};
    d.tools = t;
    d.ntools = nt;
    const char *p2 = "Looking.\n<tool_call>\n<function=lookup_order>\n<parameter=order_id>\n007\n"
                     "</parameter>\n<parameter=limit>\n5\n</parameter>\n</function>\n</tool_call>"
                     "ignored after the stop";
    tw_vllm_assembly as;
    cr_assert_eq(tw_vllm_assemble(&p, "", 0, p2, strlen(p2), &d, &as), TW_OK);
    cr_assert_eq(as.result.msg.ncalls, 1);
    char *args = tw_json_print(as.result.msg.calls[0].arguments, NULL);
    cr_expect_str_eq(args, "{\"order_id\":\"007\",\"limit\":5}");
    free(args);
    cr_expect_str_eq(as.pre_tool_text.data, "Looking.");
    tw_vllm_assembly_free(&as);
    /* the same text under the default hermes parser: no call */
    cr_assert_eq(tw_vllm_assemble(&h, "", 0, p2, strlen(p2), &d, &as), TW_OK);
    cr_expect_eq(as.result.msg.ncalls, 0);
    tw_vllm_assembly_free(&as);
    tw_tools_free(t, nt);
}

/* The same calls read as vLLM tool_calls and as Hermes blocks: one
 * acceptance, so the same calls and the same warnings, word for word (a
 * duplicate id longer than 60 bytes is named whole in both). */
Test(vllm, calls_accepted_as_in_the_text_formats)
{
    const char *id = "call_0123456789abcdef0123456789abcdef0123456789abcdef0123456789ab";
    cr_assert_gt(strlen(id), 60);
    char one[200], vbuf[600], hbuf[600];
    snprintf(one, sizeof one, "{\"name\":\"f\",\"id\":\"%s\",\"parameters\":{\"a\":1}}", id);
    snprintf(vbuf, sizeof vbuf, "{\"response\":\"\",\"tool_calls\":[%s,%s]}", one, one);
    snprintf(hbuf, sizeof hbuf, "<tool_call>%s</tool_call><tool_call>%s</tool_call>", one, one);
    tw_result v, h;
    cr_assert_eq(tw_vllm_response_decode(vbuf, strlen(vbuf), NULL, &v), TW_OK);
    cr_assert_eq(tw_format_find("hermes")->decode(hbuf, strlen(hbuf), NULL, &h), TW_OK);
    cr_assert_eq(v.msg.ncalls, 2);
    cr_assert_eq(h.msg.ncalls, 2);
    for (size_t i = 0; i < 2; i++)
        cr_expect_str_eq(v.msg.calls[i].id, h.msg.calls[i].id);
    cr_assert_eq(v.warnings.len, h.warnings.len);
    cr_assert_eq(v.errors.len, h.errors.len);
    size_t dup = 0;
    for (size_t i = 0; i < v.warnings.len; i++) {
        cr_expect_eq(v.warnings.items[i].code, h.warnings.items[i].code);
        cr_expect_str_eq(v.warnings.items[i].message, h.warnings.items[i].message);
        if (v.warnings.items[i].code == TW_D_DUPLICATE_ID) {
            dup++;
            char want[300];
            snprintf(want, sizeof want, "duplicate id '%s' rewritten as '%s__2'", id, id);
            cr_expect_str_eq(v.warnings.items[i].message, want);
        }
    }
    cr_expect_eq(dup, 1);
    tw_result_free(&v);
    tw_result_free(&h);
}
