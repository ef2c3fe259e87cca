/*
 * Throughput of the text decoders on generated model outputs, batch and
 * streaming (several chunk sizes), with memchr and cJSON on the same bytes
 * for scale. Prints MB/s; asserts nothing.
 *
 * usage: bench_text [MiB per input (default 8)] [repetitions (default 3)]
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "toolwire/decode.h"
#include "toolwire/encode.h"
#include "toolwire/text.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct gen {
    char *p;
    size_t len;
    const char *name;
    size_t turn; /* bytes of one generated turn (mixed input) */
} gen;

static void append(char **p, size_t *len, size_t *cap, const char *s)
{
    size_t n = strlen(s);
    while (*len + n + 1 > *cap) {
        *cap = *cap ? *cap * 2 : 4096;
        *p = realloc(*p, *cap);
        if (!*p) {
            perror("realloc");
            exit(1);
        }
    }
    memcpy(*p + *len, s, n);
    *len += n;
}

/* A chat turn: reasoning, prose, then a tool call; repeated to size. */
static gen make_mixed(size_t target)
{
    gen g = {NULL, 0, "mixed, 10 turns per message", 0};
    size_t cap = 0;
    char tmp[512];
    for (unsigned i = 0; g.len < target; i++) {
        append(&g.p, &g.len, &cap,
               "<think>The user wants the weather; I should call the tool with the city "
               "name and the unit they prefer, then summarise.</think>\n");
        append(&g.p, &g.len, &cap,
               "Let me check that for you. Paris is usually mild in spring, but a < b and "
               "tags like <b>bold</b> appear in prose too.\n");
        snprintf(tmp, sizeof tmp,
                 "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris "
                 "%u\", \"unit\": \"celsius\", \"days\": [1, 2, 3], \"note\": \"</tool_call> "
                 "inside a string\"}}\n</tool_call>\n",
                 i % 10);
        append(&g.p, &g.len, &cap, tmp);
        if (i == 0)
            g.turn = g.len;
    }
    return g;
}

/* Mostly prose: the common case of a long answer with no markup. */
static gen make_prose(size_t target)
{
    gen g = {NULL, 0, "prose (no markup)", 0};
    size_t cap = 0;
    while (g.len < target)
        append(&g.p, &g.len, &cap,
               "The quick brown fox jumps over the lazy dog while the model explains, at "
               "length and with care, why the answer is forty-two and not forty-three.\n");
    return g;
}

/* One huge tool call argument (a file write). */
static gen make_big_call(size_t target)
{
    gen g = {NULL, 0, "one large tool call", 0};
    size_t cap = 0;
    append(&g.p, &g.len, &cap,
           "<tool_call>{\"name\": \"write_file\", \"arguments\": {\"text\": \"");
    while (g.len < target)
        append(&g.p, &g.len, &cap, "line of file content with \\\"quotes\\\" and \\\\n escapes ");
    append(&g.p, &g.len, &cap, "\"}}</tool_call>");
    return g;
}

/* Decode the input as a sequence of messages of msg_len bytes each (the
 * realistic shape: many short answers), or whole when msg_len is 0. */
static double run_messages(const tw_format_ops *f, const gen *g, size_t msg_len, size_t chunk,
                           const tw_decode_opts *o, size_t *calls)
{
    double t0 = now();
    *calls = 0;
    for (size_t off = 0; off < g->len; off += msg_len) {
        size_t n = g->len - off < msg_len ? g->len - off : msg_len;
        tw_result r;
        tw_status st = chunk ? tw_decode_chunked(f, g->p + off, n, chunk, o, &r)
                             : f->decode(g->p + off, n, o, &r);
        if (st != TW_OK) {
            fprintf(stderr, "decode failed: %s\n", tw_code_message(st));
            exit(1);
        }
        *calls += r.msg.ncalls;
        tw_result_free(&r);
    }
    return now() - t0;
}

static double run_decode(const tw_format_ops *f, const gen *g, size_t chunk,
                         const tw_decode_opts *o, size_t *calls)
{
    double t0 = now();
    tw_result r;
    tw_status st =
        chunk ? tw_decode_chunked(f, g->p, g->len, chunk, o, &r) : f->decode(g->p, g->len, o, &r);
    double t = now() - t0;
    if (st != TW_OK) {
        fprintf(stderr, "decode failed: %s\n", tw_code_message(st));
        exit(1);
    }
    *calls = r.msg.ncalls;
    tw_result_free(&r);
    return t;
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 8;
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    if (mib == 0 || mib > 1024 || reps < 1) {
        fprintf(stderr, "usage: bench_text [MiB 1..1024] [repetitions]\n");
        return 2;
    }
    size_t target = mib << 20;
    gen gens[3] = {make_mixed(target), make_prose(target), make_big_call(target)};
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits.max_input_bytes = target * 2;
    o.limits.max_args_bytes = target * 2;
    /* default max_calls: a message holds at most 64 calls */
    o.limits.max_diags = 1u << 20;
    const tw_format_ops *hermes = tw_format_find("hermes");
    size_t chunks[] = {0, 4096, 64, 7};
    printf("%-32s %-10s %10s %8s\n", "input", "mode", "MB/s", "calls");
    for (int gi = 0; gi < 3; gi++) {
        gen *g = &gens[gi];
        /* reference points on the same bytes */
        double best = 1e9;
        for (int r = 0; r < reps; r++) {
            double t0 = now();
            size_t hits = 0;
            const char *p = g->p, *end = g->p + g->len;
            while ((p = memchr(p, '<', (size_t)(end - p)))) {
                hits++;
                p++;
            }
            double t = now() - t0;
            if (t < best)
                best = t;
            if (hits == (size_t)-1)
                puts("");
        }
        printf("%-32s %-10s %10.0f %8s\n", g->name, "memchr('<')", (double)g->len / best / 1e6,
               "-");
        for (size_t ci = 0; ci < sizeof chunks / sizeof chunks[0]; ci++) {
            best = 1e9;
            size_t calls = 0;
            for (int r = 0; r < reps; r++) {
                /* the mixed input is a stream of ~4 KiB answers (a turn is 395 bytes
                 * or so; ten turns per message) */
                double t = gi == 0 ? run_messages(hermes, g, 10 * g->turn, chunks[ci], &o, &calls)
                                   : run_decode(hermes, g, chunks[ci], &o, &calls);
                if (t < best)
                    best = t;
            }
            char mode[32];
            if (chunks[ci])
                snprintf(mode, sizeof mode, "stream/%zu", chunks[ci]);
            else
                snprintf(mode, sizeof mode, "batch");
            printf("%-32s %-10s %10.1f %8zu\n", g->name, mode, (double)g->len / best / 1e6, calls);
        }
    }
    /* wire streams: a long answer with reasoning and a large call, encoded by
     * the reference encoders in small fragments, then decoded */
    {
        const char *names[2][2] = {{"openai-stream", "openai-stream"},
                                   {"anthropic-stream", "anthropic-stream"}};
        for (int w = 0; w < 2; w++) {
            tw_result r;
            tw_result_init(&r, NULL);
            gen prose = make_prose(target / 2);
            tw_buf_append(&r.msg.content, prose.p, prose.len);
            tw_buf_append(&r.msg.thinking, prose.p, prose.len / 4);
            free(prose.p);
            tw_call c;
            memset(&c, 0, sizeof c);
            c.id = strdup("call_1");
            c.name = strdup("write_file");
            c.arguments = cJSON_CreateObject();
            gen big = make_prose(target / 4);
            big.p[big.len] = '\0';
            cJSON_AddStringToObject(c.arguments, "text", big.p);
            free(big.p);
            tw_message_add_call(&r.msg, &c);
            r.finish_reason = strdup("tool_calls");
            tw_encode_opts eo;
            memset(&eo, 0, sizeof eo);
            eo.limits.max_output_bytes = target * 8;
            eo.text_fragment = 24;
            eo.args_fragment = 64;
            eo.parallel_tool_calls = -1;
            tw_buf wire = {0};
            const tw_encoder_ops *enc = tw_encoder_find(names[w][0]);
            if (!enc || enc->encode_result(&r, &eo, &wire) != TW_OK) {
                fprintf(stderr, "%s: cannot encode\n", names[w][0]);
                return 1;
            }
            tw_result_free(&r);
            gen g = {wire.data, wire.len, names[w][1], 0};
            const tw_format_ops *dec = tw_format_find(names[w][1]);
            tw_decode_opts so = o;
            so.limits.max_input_bytes = wire.len + 1; /* fragments make the stream large */
            size_t sc[] = {0, 4096, 64};
            for (size_t ci = 0; ci < 3; ci++) {
                double best = 1e9;
                size_t calls = 0;
                for (int rep = 0; rep < reps; rep++) {
                    double t = run_decode(dec, &g, sc[ci], &so, &calls);
                    if (t < best)
                        best = t;
                }
                char mode[32];
                snprintf(mode, sizeof mode, sc[ci] ? "stream/%zu" : "batch", sc[ci]);
                printf("%-32s %-10s %10.1f %8zu\n", g.name, mode, (double)g.len / best / 1e6,
                       calls);
            }
            tw_buf_free(&wire);
        }
    }
    /* cJSON on a JSON document of the same size, for scale */
    {
        gen g = make_big_call(target);
        const char *s = strchr(g.p, '{');
        size_t n = (size_t)(strstr(g.p, "</tool_call>") - s);
        double best = 1e9;
        for (int r = 0; r < reps; r++) {
            double t0 = now();
            cJSON *v = cJSON_ParseWithLength(s, n);
            double t = now() - t0;
            cJSON_Delete(v);
            if (t < best)
                best = t;
        }
        printf("%-32s %-10s %10.1f %8s\n", "one large tool call", "cJSON", (double)n / best / 1e6,
               "-");
        free(g.p);
    }
    for (int gi = 0; gi < 3; gi++)
        free(gens[gi].p);
    return 0;
}
