/*
 * Inputs with many tool calls for each wire format, and requests with many
 * call/result pairs for the client checks. Shared by the linearity tests
 * (tests/lib/test_linear.c) and the benchmark (bench/bench_linear.c); header
 * only, so the benchmark needs no test library.
 *
 * Every generator appends to a tw_buf and returns TW_OK or the buffer's
 * failure.
 */
#ifndef TW_MANY_CALLS_H
#define TW_MANY_CALLS_H

#include <stddef.h>
#include <string.h>

#include "toolwire/core.h"

/* A chat.completion body with n tool_calls; empty {} elements when bare. */
static inline tw_status many_openai_response(tw_buf *b, size_t n, int bare)
{
    tw_status st = tw_buf_puts(b, "{\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
                                  "\"message\":{\"role\":\"assistant\",\"content\":null,"
                                  "\"tool_calls\":[");
    for (size_t i = 0; st == TW_OK && i < n; i++) {
        if (i)
            st = tw_buf_putc(b, ',');
        if (st == TW_OK)
            st = bare ? tw_buf_puts(b, "{}")
                      : tw_buf_printf(b,
                                      "{\"id\":\"call_%zu\",\"type\":\"function\",\"function\":"
                                      "{\"name\":\"f\",\"arguments\":\"{\\\"i\\\":%zu}\"}}",
                                      i, i);
    }
    return st == TW_OK ? tw_buf_puts(b, "]},\"finish_reason\":\"tool_calls\"}]}") : st;
}

/* A messages response with n tool_use blocks (text blocks between them). */
static inline tw_status many_anthropic_response(tw_buf *b, size_t n)
{
    tw_status st = tw_buf_puts(b, "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[");
    for (size_t i = 0; st == TW_OK && i < n; i++)
        st = tw_buf_printf(b,
                           "%s{\"type\":\"text\",\"text\":\"t\"},{\"type\":\"tool_use\",\"id\":"
                           "\"toolu_%zu\",\"name\":\"f\",\"input\":{\"i\":%zu}}",
                           i ? "," : "", i, i);
    return st == TW_OK ? tw_buf_puts(b, "],\"stop_reason\":\"tool_use\"}") : st;
}

/* A chat.completion.chunk stream: each call opened by one delta and given
 * its arguments by a second, then the finish chunk and [DONE]. */
static inline tw_status many_openai_stream(tw_buf *b, size_t n)
{
    tw_status st = tw_buf_puts(b, "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":"
                                  "\"assistant\"}}]}\n\n");
    for (size_t i = 0; st == TW_OK && i < n; i++) {
        st = tw_buf_printf(b,
                           "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":"
                           "%zu,\"id\":\"call_%zu\",\"type\":\"function\",\"function\":{\"name\":"
                           "\"f\",\"arguments\":\"\"}}]}}]}\n\n",
                           i, i);
        if (st == TW_OK)
            st = tw_buf_printf(b,
                               "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{"
                               "\"index\":%zu,\"function\":{\"arguments\":\"{\\\"i\\\":%zu}\"}}]}}"
                               "]}\n\n",
                               i, i);
    }
    if (st == TW_OK)
        st = tw_buf_puts(b, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":"
                            "\"tool_calls\"}]}\n\ndata: [DONE]\n\n");
    return st;
}

/* A messages event stream with n tool_use blocks (start, one input delta, stop). */
static inline tw_status many_anthropic_stream(tw_buf *b, size_t n)
{
    tw_status st = tw_buf_puts(b, "event: message_start\ndata: {\"type\":\"message_start\","
                                  "\"message\":{\"role\":\"assistant\",\"content\":[]}}\n\n");
    for (size_t i = 0; st == TW_OK && i < n; i++)
        st = tw_buf_printf(b,
                           "event: content_block_start\ndata: {\"type\":\"content_block_start\","
                           "\"index\":%zu,\"content_block\":{\"type\":\"tool_use\",\"id\":"
                           "\"toolu_%zu\",\"name\":\"f\",\"input\":{}}}\n\n"
                           "event: content_block_delta\ndata: {\"type\":\"content_block_delta\","
                           "\"index\":%zu,\"delta\":{\"type\":\"input_json_delta\","
                           "\"partial_json\":\"{\\\"i\\\":%zu}\"}}\n\n"
                           "event: content_block_stop\ndata: {\"type\":\"content_block_stop\","
                           "\"index\":%zu}\n\n",
                           i, i, i, i, i);
    if (st == TW_OK)
        st = tw_buf_puts(b, "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":"
                            "{\"stop_reason\":\"tool_use\"}}\n\nevent: message_stop\ndata: "
                            "{\"type\":\"message_stop\"}\n\n");
    return st;
}

/* Model text with n <tool_call> blocks (Hermes/Qwen), prose between them. */
static inline tw_status many_hermes(tw_buf *b, size_t n)
{
    tw_status st = TW_OK;
    for (size_t i = 0; st == TW_OK && i < n; i++)
        st = tw_buf_printf(b,
                           "Step %zu.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"i\": %zu}}"
                           "\n</tool_call>\n",
                           i, i);
    return st;
}

/*
 * Model text of n think blocks that never close ("</thinkX" is not a
 * closing tag), each followed by a complete call: at the end of input each
 * block ends at its call (think_implicit_end) and the next one opens.
 */
static inline tw_status many_unclosed_thinks(tw_buf *b, size_t n)
{
    tw_status st = TW_OK;
    for (size_t i = 0; st == TW_OK && i < n; i++)
        st = tw_buf_puts(b, "<think>a</thinkX <tool_call>\n{\"name\": \"f\", \"arguments\": "
                            "{}}\n</tool_call>\n");
    return st;
}

/* A /generate GenerateResponse with n tool_calls. */
static inline tw_status many_vllm(tw_buf *b, size_t n)
{
    tw_status st = tw_buf_puts(b, "{\"response\": \"\", \"tool_calls\": [");
    for (size_t i = 0; st == TW_OK && i < n; i++)
        st = tw_buf_printf(b, "%s{\"id\": \"c%zu\", \"name\": \"f\", \"arguments\": {\"i\": %zu}}",
                           i ? ", " : "", i, i);
    return st == TW_OK ? tw_buf_puts(b, "]}") : st;
}

/*
 * A request whose history holds n call/result pairs: for OpenAI (anthropic
 * = 0) one assistant message with n tool_calls and n tool messages in reverse
 * order; for Anthropic one assistant message with n tool_use blocks and one
 * user message with the n tool_result blocks in reverse order. Every call is
 * answered, so every client check passes.
 */
static inline tw_status many_pairs_request(tw_buf *b, size_t n, int anthropic)
{
    tw_status st = tw_buf_puts(b, "{\"model\":\"m\",\"max_tokens\":16,\"messages\":["
                                  "{\"role\":\"user\",\"content\":\"go\"},");
    if (st == TW_OK)
        st =
            tw_buf_puts(b, anthropic ? "{\"role\":\"assistant\",\"content\":["
                                     : "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[");
    for (size_t i = 0; st == TW_OK && i < n; i++)
        st = anthropic ? tw_buf_printf(b,
                                       "%s{\"type\":\"tool_use\",\"id\":\"toolu_%zu\",\"name\":"
                                       "\"f\",\"input\":{}}",
                                       i ? "," : "", i)
                       : tw_buf_printf(b,
                                       "%s{\"id\":\"call_%zu\",\"type\":\"function\",\"function\":"
                                       "{\"name\":\"f\",\"arguments\":\"{}\"}}",
                                       i ? "," : "", i);
    if (st == TW_OK)
        st = tw_buf_puts(b, anthropic ? "]},{\"role\":\"user\",\"content\":[" : "]}");
    for (size_t i = n; st == TW_OK && i-- > 0;)
        st = anthropic ? tw_buf_printf(b,
                                       "%s{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_%zu\","
                                       "\"content\":\"ok\"}",
                                       i + 1 < n ? "," : "", i)
                       : tw_buf_printf(b,
                                       ",{\"role\":\"tool\",\"tool_call_id\":\"call_%zu\","
                                       "\"content\":\"ok\"}",
                                       i);
    if (st == TW_OK)
        st = tw_buf_puts(b, anthropic ? "]}]}" : "]}");
    return st;
}

#endif
