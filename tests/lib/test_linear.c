/*
 * Linear time: the decoders and the client checks on inputs with many tool
 * calls. Two kinds of test:
 *
 * - work: the library's work counter (src/work.h) stays under
 *   WORK_PER_BYTE units per input byte at two sizes, for every wire format
 *   and text format with calls. A helper that rescans the input per call
 *   makes the count grow with calls x bytes and fails here at once.
 * - large: one input per path so large that a quadratic cost could not
 *   finish inside the ctest timeout (200,000 calls for the JSON bodies,
 *   100,000 call/result pairs for the client checks), with its result
 *   checked in full; and the backend checks on a response and a stream of
 *   50,000 calls.
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "many_calls.h"
#include "toolwire/decode.h"
#include "toolwire/encode.h"
#include "toolwire/request.h"
#include "work.h"
#include "twtest.h"

/* Units of work allowed per input byte: a handful of passes over the body
 * (parse, locate the message, walk the calls) and the per-call checks. */
#define WORK_PER_BYTE 8

typedef tw_status (*gen_fn)(tw_buf *b, size_t n);

static tw_status gen_openai_response(tw_buf *b, size_t n)
{
    return many_openai_response(b, n, 0);
}

/* Decode n generated calls with format `name`, max_calls raised to n when
 * `accept_all`; returns the work counted and checks the result. */
static uint64_t decode_work(const char *name, gen_fn gen, size_t n, bool accept_all, size_t *len)
{
    tw_buf b = {0};
    cr_assert_eq(gen(&b, n), TW_OK);
    char *in = tw_test_exact(b.data, b.len);
    *len = b.len;
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits.max_input_bytes = b.len + 1;
    if (accept_all)
        o.limits.max_calls = n;
    const tw_format_ops *f = tw_format_find(name);
    cr_assert(f, "%s", name);
    tw_result r;
    tw_work_reset();
    cr_assert_eq(f->decode(in, b.len, &o, &r), TW_OK, "%s", name);
    uint64_t work = tw_work_count();
    size_t want = accept_all ? n : 64;
    cr_assert_eq(r.msg.ncalls, want, "%s: %zu calls of %zu", name, r.msg.ncalls, want);
    for (size_t i = 1; i < r.msg.ncalls; i++)
        cr_assert_gt(r.msg.calls[i].offset, r.msg.calls[i - 1].offset, "%s: call %zu offset", name,
                     i);
    if (accept_all)
        cr_assert_eq(r.errors.len, 0, "%s: %s", name,
                     r.errors.len ? r.errors.items[0].message : "");
    else
        cr_assert(r.errors.len > 0 && r.errors.items[0].code == TW_D_TOO_MANY_CALLS, "%s", name);
    tw_result_free(&r);
    free(in);
    tw_buf_free(&b);
    return work;
}

static void assert_linear(const char *name, gen_fn gen, size_t n)
{
    for (int accept_all = 0; accept_all < 2; accept_all++) {
        for (size_t k = n; k <= 4 * n; k *= 4) {
            size_t len;
            uint64_t work = decode_work(name, gen, k, accept_all, &len);
            cr_assert_leq(work, (uint64_t)WORK_PER_BYTE * len,
                          "%s, %zu calls%s: %llu units of work for %zu bytes", name, k,
                          accept_all ? " (all accepted)" : "", (unsigned long long)work, len);
        }
    }
}

Test(linear_work, openai_response)
{
    assert_linear("openai-response", gen_openai_response, 2000);
}

Test(linear_work, anthropic_response)
{
    assert_linear("anthropic-response", many_anthropic_response, 2000);
}

/* OpenAI Responses: n function_call items in one response; n calls streamed. */
static tw_status gen_responses(tw_buf *b, size_t n)
{
    tw_status st = tw_buf_puts(b, "{\"status\":\"completed\",\"output\":[");
    for (size_t i = 0; st == TW_OK && i < n; i++)
        st = tw_buf_printf(b,
                           "%s{\"type\":\"function_call\",\"call_id\":\"c%zu\",\"name\":\"f\","
                           "\"arguments\":\"{\\\"i\\\":%zu}\"}",
                           i ? "," : "", i, i);
    return st == TW_OK ? tw_buf_puts(b, "]}") : st;
}

static tw_status gen_responses_stream(tw_buf *b, size_t n)
{
    tw_status st = TW_OK;
    for (size_t i = 0; st == TW_OK && i < n; i++)
        st = tw_buf_printf(
            b,
            "data: {\"type\":\"response.output_item.added\",\"output_index\":%zu,\"item\":"
            "{\"type\":\"function_call\",\"call_id\":\"c%zu\",\"name\":\"f\",\"arguments\":\"\"}}"
            "\n\n"
            "data: {\"type\":\"response.function_call_arguments.delta\",\"output_index\":%zu,"
            "\"delta\":\"{\\\"i\\\":%zu}\"}\n\n"
            "data: {\"type\":\"response.output_item.done\",\"output_index\":%zu,\"item\":"
            "{\"type\":\"function_call\",\"call_id\":\"c%zu\",\"name\":\"f\"}}\n\n",
            i, i, i, i, i, i);
    return st == TW_OK ? tw_buf_puts(b, "data: {\"type\":\"response.completed\",\"response\":"
                                        "{\"status\":\"completed\",\"output\":[]}}\n\n")
                       : st;
}

Test(linear_work, openai_responses)
{
    assert_linear("openai-responses", gen_responses, 2000);
}

Test(linear_work, openai_responses_stream)
{
    assert_linear("openai-responses-stream", gen_responses_stream, 2000);
}

Test(linear_work, openai_stream)
{
    assert_linear("openai-stream", many_openai_stream, 2000);
}

Test(linear_work, anthropic_stream)
{
    assert_linear("anthropic-stream", many_anthropic_stream, 2000);
}

Test(linear_work, hermes)
{
    assert_linear("hermes", many_hermes, 2000);
}

/* n Qwen3-Coder XML blocks, each value holding a '</parameter>' that is text. */
static tw_status many_qwen_xml(tw_buf *b, size_t n)
{
    tw_status st = TW_OK;
    for (size_t i = 0; st == TW_OK && i < n; i++)
        st = tw_buf_printf(b,
                           "<tool_call>\n<function=get_weather>\n<parameter=city>\nc%zu "
                           "</parameter> x\n</parameter>\n<parameter=days>\n%zu\n</parameter>\n"
                           "</function>\n</tool_call>\n",
                           i, i);
    return st;
}

Test(linear_work, qwen3_coder)
{
    assert_linear("qwen3-coder", many_qwen_xml, 2000);
}

/* One call with n parameters: the work grows with the bytes, not n x bytes. */
Test(linear_work, qwen3_coder_many_parameters)
{
    for (size_t n = 2000; n <= 8000; n *= 4) {
        tw_buf b = {0};
        cr_assert_eq(tw_buf_puts(&b, "<tool_call>\n<function=f>\n"), TW_OK);
        for (size_t i = 0; i < n; i++)
            cr_assert_eq(
                tw_buf_printf(&b, "<parameter=p%zu>\nv </parameter> %zu\n</parameter>\n", i, i),
                TW_OK);
        cr_assert_eq(tw_buf_puts(&b, "</function>\n</tool_call>"), TW_OK);
        char *in = tw_test_exact(b.data, b.len);
        tw_decode_opts o;
        memset(&o, 0, sizeof o);
        o.limits.max_input_bytes = b.len + 1;
        o.limits.max_args_bytes = b.len;
        tw_result r;
        tw_work_reset();
        cr_assert_eq(tw_format_find("qwen3-coder")->decode(in, b.len, &o, &r), TW_OK);
        uint64_t work = tw_work_count();
        cr_assert_eq(r.msg.ncalls, 1);
        cr_assert_eq((size_t)cJSON_GetArraySize(r.msg.calls[0].arguments), n);
        cr_assert_leq(work, (uint64_t)WORK_PER_BYTE * b.len,
                      "%zu parameters: %llu units for %zu bytes", n, (unsigned long long)work,
                      b.len);
        tw_result_free(&r);
        free(in);
        tw_buf_free(&b);
    }
}

Test(linear_work, vllm_generate)
{
    assert_linear("vllm-generate", many_vllm, 2000);
}

/* Repeated ids are rewritten __2, __3, …: finding the next free suffix
 * must not rescan the calls for every candidate. */
static tw_status gen_same_ids(tw_buf *b, size_t n)
{
    tw_status st = tw_buf_puts(b, "{\"response\": \"\", \"tool_calls\": [");
    for (size_t i = 0; st == TW_OK && i < n; i++)
        st = tw_buf_printf(b, "%s{\"id\": \"x\", \"name\": \"f\", \"arguments\": {}}",
                           i ? ", " : "");
    return st == TW_OK ? tw_buf_puts(b, "]}") : st;
}

Test(linear_work, duplicate_ids)
{
    size_t len;
    uint64_t work = decode_work("vllm-generate", gen_same_ids, 4000, true, &len);
    cr_assert_leq(work, (uint64_t)WORK_PER_BYTE * len, "%llu units for %zu bytes",
                  (unsigned long long)work, len);
}

/* Many calls against many declared tools: each name is looked up in an
 * index of the tools, not compared with every tool. */
Test(linear_work, declared_tools)
{
    size_t ntools = 1000;
    tw_tool *tools = calloc(ntools, sizeof *tools);
    char name[32];
    for (size_t i = 0; i < ntools; i++) {
        snprintf(name, sizeof name, "tool_%zu", (i * 7919) % ntools);
        tools[i].name = strdup(name);
    }
    free(tools[500].name); /* a repeated name: the first declaration is the one used */
    tools[500].name = strdup("tool_0");
    tools[500].parameters = cJSON_Parse("{\"type\": \"object\", \"required\": [\"never\"]}");
    for (size_t n = 2000; n <= 8000; n *= 4) {
        tw_buf b = {0};
        cr_assert_eq(tw_buf_puts(&b, "{\"response\": \"\", \"tool_calls\": ["), TW_OK);
        for (size_t i = 0; i < n; i++)
            cr_assert_eq(tw_buf_printf(&b, "%s{\"name\": \"%s\", \"arguments\": {}}", i ? ", " : "",
                                       i % 3 == 0   ? "tool_999"
                                       : i % 3 == 1 ? "tool_0"
                                                    : "nope"),
                         TW_OK);
        cr_assert_eq(tw_buf_puts(&b, "]}"), TW_OK);
        tw_decode_opts o;
        memset(&o, 0, sizeof o);
        o.limits.max_calls = n;
        o.tools = tools;
        o.ntools = ntools;
        tw_result r;
        tw_work_reset();
        cr_assert_eq(tw_format_find("vllm-generate")->decode(b.data, b.len, &o, &r), TW_OK);
        uint64_t work = tw_work_count();
        cr_assert_leq(work, (uint64_t)WORK_PER_BYTE * b.len,
                      "%zu calls, %zu tools: %llu for %zu bytes", n, ntools,
                      (unsigned long long)work, b.len);
        /* tool_999 and tool_0 (its first, schema-free declaration) are taken; nope is refused */
        size_t want = (n + 2) / 3 + (n + 1) / 3;
        cr_assert_eq(r.msg.ncalls, want, "%zu calls of %zu", r.msg.ncalls, want);
        cr_assert(tw_diag_has(&r.errors, TW_D_UNKNOWN_TOOL));
        cr_assert(!tw_diag_has(&r.errors, TW_D_ARGS_SCHEMA));
        tw_result_free(&r);
        tw_buf_free(&b);
    }
    for (size_t i = 0; i < ntools; i++) {
        free(tools[i].name);
        cJSON_Delete(tools[i].parameters);
    }
    free(tools);
}

/* Think blocks resolved at the end of input, one after another: each
 * block's search for its closing tag must not cover the rest again. */
Test(linear_work, unclosed_think_blocks)
{
    const char *formats[] = {"think", "hermes"};
    for (size_t f = 0; f < 2; f++) {
        for (size_t n = 500; n <= 2000; n *= 4) {
            tw_buf b = {0};
            cr_assert_eq(many_unclosed_thinks(&b, n), TW_OK);
            tw_decode_opts o;
            memset(&o, 0, sizeof o);
            o.limits.max_calls = n;
            tw_result r;
            tw_work_reset();
            cr_assert_eq(tw_format_find(formats[f])->decode(b.data, b.len, &o, &r), TW_OK);
            uint64_t work = tw_work_count();
            cr_assert_leq(work, (uint64_t)WORK_PER_BYTE * b.len,
                          "%s, %zu blocks: %llu for %zu bytes", formats[f], n,
                          (unsigned long long)work, b.len);
            cr_assert(tw_diag_has(&r.warnings, TW_D_THINK_IMPLICIT_END), "%s", formats[f]);
            cr_assert_eq(r.msg.ncalls, f == 1 ? n : 0, "%s: %zu calls", formats[f], r.msg.ncalls);
            tw_result_free(&r);
            tw_buf_free(&b);
        }
    }
}

/* An unterminated think block holding many tool-call openers, none of which
 * starts a valid block, then a long rest (with a closing tag at its end, or
 * none): the search for the implicit end (think rule 7) tries the openers in
 * one forward pass, not once per opener over the rest. */
Test(linear_work, think_openers_long_rest)
{
    const char *formats[] = {"think", "hermes", "fenced"};
    const char *openers[] = {"<tool_call>", "<tool_call>", "```tool_call"};
    const char *closers[] = {"</tool_call>", "</tool_call>", "```"};
    for (size_t f = 0; f < 3; f++) {
        for (int closed = 0; closed < 2; closed++) {
            for (size_t rest = 8000; rest <= 32000; rest *= 4) {
                tw_buf b = {0};
                cr_assert_eq(tw_buf_puts(&b, "<think>plan"), TW_OK);
                for (size_t i = 0; i < 200; i++)
                    cr_assert_eq(tw_buf_printf(&b, "%s x ", openers[f]), TW_OK);
                for (size_t i = 0; i < rest; i++)
                    cr_assert_eq(tw_buf_putc(&b, "reasoning-"[i % 10]), TW_OK);
                if (closed)
                    cr_assert_eq(tw_buf_puts(&b, closers[f]), TW_OK);
                tw_result r;
                tw_work_reset();
                cr_assert_eq(tw_format_find(formats[f])->decode(b.data, b.len, NULL, &r), TW_OK);
                uint64_t work = tw_work_count();
                cr_assert_leq(work, (uint64_t)WORK_PER_BYTE * b.len,
                              "%s, closed %d, rest %zu: %llu for %zu bytes", formats[f], closed,
                              rest, (unsigned long long)work, b.len);
                /* no opener starts a valid block: the block stays unterminated */
                cr_assert(tw_diag_has(&r.errors, TW_D_THINK_UNTERMINATED), "%s", formats[f]);
                cr_assert(!tw_diag_has(&r.warnings, TW_D_THINK_IMPLICIT_END), "%s", formats[f]);
                cr_assert_eq(r.msg.ncalls, 0);
                cr_assert_eq(r.msg.thinking.len, b.len - 7, "%s: %zu thinking bytes of %zu",
                             formats[f], r.msg.thinking.len, b.len - 7);
                tw_result_free(&r);
                tw_buf_free(&b);
            }
        }
    }
}

/* The same search still finds the first opener that starts a valid block
 * when it comes after many that do not, and after a long rest. */
Test(linear_work, think_opener_found_after_many)
{
    tw_buf b = {0};
    cr_assert_eq(tw_buf_puts(&b, "<think>plan"), TW_OK);
    for (size_t i = 0; i < 40; i++)
        cr_assert_eq(tw_buf_puts(&b, "<tool_call> x "), TW_OK);
    for (size_t i = 0; i < 20000; i++)
        cr_assert_eq(tw_buf_putc(&b, "reasoning-"[i % 10]), TW_OK);
    /* a bracket before the first closing tag: these payloads are parsed */
    cr_assert_eq(tw_buf_puts(&b, "<tool_call> [oops </tool_call>"), TW_OK);
    size_t at = b.len;
    cr_assert_eq(tw_buf_puts(&b, "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>"),
                 TW_OK);
    tw_result r;
    cr_assert_eq(tw_format_find("hermes")->decode(b.data, b.len, NULL, &r), TW_OK);
    cr_assert(!tw_diag_has(&r.errors, TW_D_THINK_UNTERMINATED));
    cr_assert(tw_diag_has(&r.warnings, TW_D_THINK_IMPLICIT_END));
    size_t w = 0;
    while (r.warnings.items[w].code != TW_D_THINK_IMPLICIT_END)
        w++;
    cr_assert_eq(r.warnings.items[w].offset, (int64_t)at);
    cr_assert_eq(r.msg.ncalls, 1);
    cr_assert_str_eq(r.msg.calls[0].name, "f");
    tw_result_free(&r);
    tw_buf_free(&b);
}

/* ---- large inputs: a quadratic cost would not finish inside the timeout ---- */

/* 200,000 empty {} calls, every one refused. */
Test(linear_large, openai_response_200k)
{
    size_t n = 200000;
    tw_buf b = {0};
    cr_assert_eq(many_openai_response(&b, n, 1), TW_OK);
    const tw_format_ops *f = tw_format_find("openai-response");
    tw_result r;
    cr_assert_eq(f->decode(b.data, b.len, NULL, &r), TW_OK);
    cr_assert_eq(r.msg.ncalls, 0);
    cr_assert_eq(r.errors.len + r.errors.dropped, n);
    /* the last kept refusal points at its own element */
    const tw_diag *last = &r.errors.items[r.errors.len - 1];
    cr_assert_eq(last->code, TW_D_MISSING_NAME);
    cr_assert_eq(memcmp(b.data + last->offset, "{}", 2), 0);
    size_t first = (size_t)(strstr(b.data, "[{}") - b.data) + 1;
    cr_assert_eq((size_t)last->offset, first + 3 * (r.errors.len - 1));
    tw_result_free(&r);
    tw_buf_free(&b);
}

Test(linear_large, anthropic_response_200k)
{
    size_t n = 200000;
    tw_buf b = {0};
    cr_assert_eq(many_anthropic_response(&b, n), TW_OK);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits.max_input_bytes = b.len;
    o.limits.max_calls = n;
    tw_result r;
    cr_assert_eq(tw_format_find("anthropic-response")->decode(b.data, b.len, &o, &r), TW_OK);
    cr_assert_eq(r.msg.ncalls, n);
    cr_assert_eq(r.errors.len, 0);
    const tw_call *c = &r.msg.calls[n - 1];
    cr_assert_str_eq(c->id, "toolu_199999");
    cr_assert_eq(memcmp(b.data + c->offset, "{\"type\":\"tool_use\",\"id\":\"toolu_199999\"", 38),
                 0);
    tw_result_free(&r);
    tw_buf_free(&b);
}

static void large_decode(const char *name, gen_fn gen, size_t n)
{
    tw_buf b = {0};
    cr_assert_eq(gen(&b, n), TW_OK);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits.max_input_bytes = b.len;
    o.limits.max_calls = n;
    tw_result r;
    cr_assert_eq(tw_format_find(name)->decode(b.data, b.len, &o, &r), TW_OK, "%s", name);
    cr_assert_eq(r.msg.ncalls, n, "%s: %zu calls", name, r.msg.ncalls);
    cr_assert_eq(r.errors.len, 0, "%s: %s", name, r.errors.len ? r.errors.items[0].message : "");
    cr_assert(cJSON_IsObject(r.msg.calls[n - 1].arguments), "%s", name);
    tw_result_free(&r);
    tw_buf_free(&b);
}

Test(linear_large, openai_stream_50k)
{
    large_decode("openai-stream", many_openai_stream, 50000);
}

Test(linear_large, anthropic_stream_50k)
{
    large_decode("anthropic-stream", many_anthropic_stream, 50000);
}

Test(linear_large, hermes_100k)
{
    large_decode("hermes", many_hermes, 100000);
}

Test(linear_large, vllm_generate_100k)
{
    large_decode("vllm-generate", many_vllm, 100000);
}

/* The client checks of one request with n answered calls: all pass. */
static void client_pairs(size_t n, bool anthropic)
{
    tw_buf b = {0};
    cr_assert_eq(many_pairs_request(&b, n, anthropic), TW_OK);
    cJSON *body = cJSON_ParseWithLength(b.data, b.len);
    cr_assert(body);
    tw_check_set s = {0};
    tw_checks_client(anthropic ? "/v1/messages" : "/v1/chat/completions", body, &s);
    const tw_check_id ids[] = {TW_CHK_CLI_01, TW_CHK_CLI_02,
                               anthropic ? TW_CHK_CLI_05 : TW_CHK_CLI_04};
    for (size_t i = 0; i < 3; i++) {
        const tw_check_result *r = tw_check_set_get(&s, ids[i]);
        cr_assert(r, "%s", tw_check_name(ids[i]));
        cr_assert_eq(r->verdict, TW_V_PASS, "%s: %s", tw_check_name(ids[i]), r->evidence);
    }
    tw_check_set_free(&s);
    cJSON_Delete(body);
    tw_buf_free(&b);
}

Test(linear_large, client_checks_openai_100k_pairs)
{
    client_pairs(100000, false);
}

Test(linear_large, client_checks_anthropic_100k_pairs)
{
    client_pairs(100000, true);
}

/* One unanswered call among many is still found, at its message. */
Test(linear_large, client_checks_find_the_unanswered_call)
{
    tw_buf b = {0};
    cr_assert_eq(many_pairs_request(&b, 1000, 0), TW_OK);
    /* drop the result of call_500 (messages[501]) by renaming its id */
    char *p = strstr(b.data, "\"tool_call_id\":\"call_500\"");
    cr_assert(p);
    memcpy(p + strlen("\"tool_call_id\":\"call_"), "ABC", 3);
    cJSON *body = cJSON_ParseWithLength(b.data, b.len);
    tw_check_set s = {0};
    tw_checks_client("/v1/chat/completions", body, &s);
    const tw_check_result *r1 = tw_check_set_get(&s, TW_CHK_CLI_01);
    const tw_check_result *r2 = tw_check_set_get(&s, TW_CHK_CLI_02);
    cr_assert_eq(r1->verdict, TW_V_FAIL);
    cr_assert(strstr(r1->evidence, "messages[501] answers call_ABC") != NULL, "%s", r1->evidence);
    cr_assert_eq(r2->verdict, TW_V_FAIL);
    cr_assert(strstr(r2->evidence, "call_500 ") != NULL, "%s", r2->evidence);
    tw_check_set_free(&s);
    cJSON_Delete(body);
    tw_buf_free(&b);
}

/* The backend checks of `toolwire run` on a response and a stream with many
 * calls: ids indexed once (a repeat found at the last call), stream calls
 * found by their index. */
static const tw_check_result *judge_many(tw_check_set *s, const char *body, size_t len, bool sse,
                                         tw_check_id check)
{
    static tw_kv json_ct[] = {{"content-type", "application/json"}};
    static tw_kv sse_ct[] = {{"content-type", "text/event-stream"}};
    cJSON *rq = cJSON_Parse(sse ? "{\"model\":\"m\",\"stream\":true,\"messages\":[]}"
                                : "{\"model\":\"m\",\"messages\":[]}");
    tw_judge_input in;
    memset(&in, 0, sizeof in);
    in.path = "/v1/chat/completions";
    in.req_body = rq;
    in.status = 200;
    in.resp_headers = sse ? sse_ct : json_ct;
    in.nresp_headers = 1;
    in.body = body;
    in.body_len = len;
    tw_checks_backend(&in, s);
    cJSON_Delete(rq);
    const tw_check_result *r = tw_check_set_get(s, check);
    cr_assert(r, "%s", tw_check_name(check));
    return r;
}

Test(linear_large, backend_checks_many_calls)
{
    size_t n = 50000;
    tw_buf b = {0};
    cr_assert_eq(many_openai_response(&b, n, 0), TW_OK);
    tw_check_set s = {0};
    const tw_check_result *r = judge_many(&s, b.data, b.len, false, TW_CHK_OAI_R02);
    cr_assert_eq(r->verdict, TW_V_PASS, "%s", r->evidence);
    tw_check_set_free(&s);
    /* call 200 takes the first call's id (the checks read the first 256 calls) */
    char *c200 = strstr(b.data, "\"id\":\"call_200\"");
    cr_assert(c200);
    memcpy(c200 + 6, "call_0\"  ", 9);
    r = judge_many(&s, b.data, b.len, false, TW_CHK_OAI_R02);
    cr_assert_eq(r->verdict, TW_V_FAIL, "%s", r->evidence);
    cr_assert(strstr(r->evidence, "id call_0 repeated at tool_calls[200]"), "%s", r->evidence);
    tw_check_set_free(&s);
    tw_buf_free(&b);

    cr_assert_eq(many_openai_stream(&b, n), TW_OK);
    r = judge_many(&s, b.data, b.len, true, TW_CHK_OAI_S03);
    cr_assert_eq(r->verdict, TW_V_PASS, "%s", r->evidence);
    r = tw_check_set_get(&s, TW_CHK_OAI_S05);
    cr_assert_eq(r->verdict, TW_V_PASS, "%s", r->evidence);
    tw_check_set_free(&s);
    tw_buf_free(&b);
}

/* A run of tool results that each name their tool: the request encoders
 * look for the latest assistant message once for the run, not by walking
 * back over the results before each one (which was quadratic). */
static uint64_t encode_tool_results_work(const char *encoder, size_t n)
{
    tw_buf b = {0};
    cr_assert_eq(tw_buf_puts(&b, "{\"messages\": [{\"role\": \"user\", \"content\": \"q\"}, "
                                 "{\"role\": \"assistant\", \"content\": null, \"tool_calls\": "
                                 "[{\"id\": \"c1\", \"type\": \"function\", \"function\": "
                                 "{\"name\": \"f\", \"arguments\": \"{}\"}}]}"),
                 TW_OK);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(tw_buf_puts(&b, ", {\"role\": \"tool\", \"tool_call_id\": \"c1\", \"name\": "
                                     "\"f\", \"content\": \"r\"}"),
                     TW_OK);
    cr_assert_eq(tw_buf_puts(&b, "]}"), TW_OK);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits.max_messages = n + 2;
    o.limits.max_input_bytes = b.len + 1;
    tw_request r;
    tw_error err = {.offset = -1};
    cr_assert_eq(tw_openai_request_decode(b.data, b.len, &o, &r, &err), TW_OK, "%s", err.message);
    cr_assert_eq(r.nmessages, n + 2);
    const tw_encoder_ops *e = tw_encoder_find(encoder);
    cr_assert_not_null(e);
    tw_encode_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.parallel_tool_calls = -1;
    eo.limits.max_messages = n + 2;
    eo.limits.max_output_bytes = 64 * b.len + 4096;
    tw_buf out = {0};
    tw_work_reset();
    cr_assert_eq(e->encode_request(&r, &eo, &out), TW_OK, "%s", encoder);
    uint64_t work = tw_work_count();
    cr_assert_gt(out.len, n, "%s", encoder);
    tw_buf_free(&out);
    tw_request_free(&r);
    tw_buf_free(&b);
    return work;
}

Test(linear_work, request_encoders_tool_result_names)
{
    static const char *const encoders[] = {"openai-request", "anthropic-request"};
    for (size_t i = 0; i < 2; i++)
        for (size_t n = 1000; n <= 16000; n *= 4) {
            uint64_t work = encode_tool_results_work(encoders[i], n);
            /* a walk to the assistant message per result: n^2 / 2 units */
            cr_assert_leq(work, 4 * (uint64_t)n + 64, "%s, %zu tool results: %llu units",
                          encoders[i], n, (unsigned long long)work);
        }
}
