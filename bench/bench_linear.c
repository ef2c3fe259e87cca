/*
 * Time against the number of tool calls: each decoder on an input with N
 * and 2N calls, and the client checks on a request with N and 2N
 * call/result pairs. Linear code shows a ratio near 2 on the doubled input;
 * a per-call rescan shows 4. Prints figures (and the work counter of
 * src/work.h per input byte); asserts nothing. Then the request log of
 * a long-running `toolwire serve`: the time of each successive batch of
 * 100,000 logged requests, which stays flat when logging is O(1).
 *
 * usage: bench_linear [N (default 50000)] [repetitions (default 3)]
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tests/support/many_calls.h"
#include "checks.h"
#include "mock_log.h"
#include "toolwire/decode.h"
#include "work.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef tw_status (*gen_fn)(tw_buf *b, size_t n);

static tw_status gen_oai_bare(tw_buf *b, size_t n)
{
    return many_openai_response(b, n, 1);
}
static tw_status gen_oai(tw_buf *b, size_t n)
{
    return many_openai_response(b, n, 0);
}
static tw_status gen_pairs_oai(tw_buf *b, size_t n)
{
    return many_pairs_request(b, n, 0);
}
static tw_status gen_pairs_ant(tw_buf *b, size_t n)
{
    return many_pairs_request(b, n, 1);
}

/* Gemini: n whole functionCall parts in one body; n calls streamed as
 * name, one partialArgs piece and the {} end, each its own event. */
static tw_status gen_gemini(tw_buf *b, size_t n)
{
    tw_status st = tw_buf_puts(b, "{\"candidates\":[{\"content\":{\"parts\":[");
    for (size_t i = 0; st == TW_OK && i < n; i++)
        st = tw_buf_printf(b, "%s{\"functionCall\":{\"name\":\"f\",\"args\":{\"i\":%zu}}}",
                           i ? "," : "", i);
    return st == TW_OK ? tw_buf_puts(b, "]},\"finishReason\":\"STOP\"}]}") : st;
}
static tw_status gen_gemini_stream(tw_buf *b, size_t n)
{
    tw_status st = TW_OK;
    for (size_t i = 0; st == TW_OK && i < n; i++)
        st = tw_buf_printf(
            b,
            "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\","
            "\"willContinue\":true}}]}}]}\n\n"
            "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"partialArgs\":"
            "[{\"jsonPath\":\"$.s\",\"stringValue\":\"v%zu\"}],\"willContinue\":true}}]}}]}\n\n"
            "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{}}]}}]}\n\n",
            i);
    return st == TW_OK ? tw_buf_puts(b, "data: {\"candidates\":[{\"content\":{\"parts\":[]},"
                                        "\"finishReason\":\"STOP\"}]}\n\n")
                       : st;
}

/* OpenAI Responses: n function_call items in one response; n calls streamed as
 * output_item.added, one arguments delta, .done and output_item.done. */
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
            "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\","
            "\"output_index\":%zu,\"item\":{\"type\":\"function_call\",\"id\":\"fc%zu\","
            "\"call_id\":\"c%zu\",\"name\":\"f\",\"arguments\":\"\"}}\n\n"
            "event: response.function_call_arguments.delta\ndata: {\"type\":"
            "\"response.function_call_arguments.delta\",\"output_index\":%zu,\"delta\":"
            "\"{\\\"i\\\":%zu}\"}\n\n"
            "event: response.function_call_arguments.done\ndata: {\"type\":"
            "\"response.function_call_arguments.done\",\"output_index\":%zu,\"arguments\":"
            "\"{\\\"i\\\":%zu}\"}\n\n"
            "event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\","
            "\"output_index\":%zu,\"item\":{\"type\":\"function_call\",\"id\":\"fc%zu\","
            "\"call_id\":\"c%zu\",\"name\":\"f\",\"arguments\":\"{\\\"i\\\":%zu}\"}}\n\n",
            i, i, i, i, i, i, i, i, i, i, i);
    return st == TW_OK ? tw_buf_puts(b, "event: response.completed\ndata: {\"type\":"
                                        "\"response.completed\",\"response\":{\"status\":"
                                        "\"completed\",\"output\":[]}}\n\n")
                       : st;
}

typedef struct job {
    const char *what;
    const char *format; /* a decoder, or NULL for the client checks */
    gen_fn gen;
    bool accept_all;  /* max_calls raised to N: every call is taken */
    const char *path; /* the client checks' endpoint */
} job;

/* Best time of `reps` runs on n calls; *bytes and *work of the input. */
static double run(const job *j, size_t n, int reps, size_t *bytes, double *work)
{
    tw_buf b = {0};
    if (j->gen(&b, n) != TW_OK) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    *bytes = b.len;
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        tw_work_reset();
        if (j->format) {
            tw_decode_opts o;
            memset(&o, 0, sizeof o);
            o.limits.max_input_bytes = b.len + 1;
            if (j->accept_all)
                o.limits.max_calls = n;
            tw_result res;
            if (tw_format_find(j->format)->decode(b.data, b.len, &o, &res) != TW_OK) {
                fprintf(stderr, "%s: decode failed\n", j->what);
                exit(1);
            }
            tw_result_free(&res);
        } else {
            cJSON *body = cJSON_ParseWithLength(b.data, b.len);
            tw_check_set s = {0};
            tw_checks_client(j->path, body, &s);
            tw_check_set_free(&s);
            cJSON_Delete(body);
        }
        double t = now() - t0;
        if (t < best)
            best = t;
        *work = (double)tw_work_count() / (double)b.len;
    }
    tw_buf_free(&b);
    return best;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 50000;
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    if (n == 0 || reps <= 0) {
        fprintf(stderr, "usage: bench_linear [N] [repetitions]\n");
        return 2;
    }
    const job jobs[] = {
        {"openai-response, {} calls (refused)", "openai-response", gen_oai_bare, false, NULL},
        {"openai-response, calls (all taken)", "openai-response", gen_oai, true, NULL},
        {"anthropic-response, tool_use blocks", "anthropic-response", many_anthropic_response, true,
         NULL},
        {"openai-stream, tool call deltas", "openai-stream", many_openai_stream, true, NULL},
        {"anthropic-stream, tool_use blocks", "anthropic-stream", many_anthropic_stream, true,
         NULL},
        {"hermes, <tool_call> blocks", "hermes", many_hermes, true, NULL},
        {"vllm-generate, tool_calls", "vllm-generate", many_vllm, true, NULL},
        {"gemini, functionCall parts", "gemini", gen_gemini, true, NULL},
        {"gemini-stream, streamed partialArgs calls", "gemini-stream", gen_gemini_stream, true,
         NULL},
        {"openai-responses, function_call items", "openai-responses", gen_responses, true, NULL},
        {"openai-responses-stream, streamed calls", "openai-responses-stream", gen_responses_stream,
         true, NULL},
        {"client checks, OpenAI call/result pairs", NULL, gen_pairs_oai, false,
         "/v1/chat/completions"},
        {"client checks, Anthropic call/result pairs", NULL, gen_pairs_ant, false, "/v1/messages"},
    };
    printf("%-42s %9s %10s %9s %10s %6s %10s\n", "input", "N", "bytes", "time N", "time 2N",
           "ratio", "work/byte");
    for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
        size_t b1, b2;
        double w1, w2;
        double t1 = run(&jobs[i], n, reps, &b1, &w1);
        double t2 = run(&jobs[i], 2 * n, reps, &b2, &w2);
        printf("%-42s %9zu %10zu %8.3fs %9.3fs %6.2f %10.2f\n", jobs[i].what, n, b1, t1, t2,
               t1 > 0 ? t2 / t1 : 0.0, w2);
        fflush(stdout);
    }

    /* a long-running serve: the request log (a ring of the newest 100,000
     * records, as the mock keeps) over 1,000,000 requests in batches */
    tw_mock_ring g;
    tw_mock_ring_init(&g, 100000);
    printf("\n%-42s %12s %12s %12s\n", "serve request log, 100,000 requests per batch",
           "logged before", "time", "requests/s");
    unsigned long seq = 0;
    for (int batch = 0; batch < 10; batch++) {
        double t0 = now();
        for (size_t i = 0; i < 100000; i++) {
            tw_mock_record rec;
            memset(&rec, 0, sizeof rec);
            rec.seq = ++seq;
            rec.exchange = -1;
            rec.status = 200;
            snprintf(rec.path, sizeof rec.path, "/v1/chat/completions");
            if (!tw_mock_ring_push(&g, &rec)) {
                fprintf(stderr, "out of memory\n");
                return 1;
            }
        }
        double t = now() - t0;
        if (batch == 0 || batch == 1 || batch == 4 || batch == 9)
            printf("%-42s %12lu %11.3fs %12.0f\n", "", seq - 100000, t, t > 0 ? 100000 / t : 0.0);
    }
    tw_mock_ring_free(&g);
    return 0;
}
