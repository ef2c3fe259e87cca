/*
 * The project's benchmark: every decoder on generated inputs, batch and
 * streamed in 1-, 4-, 16- and 4096-byte pieces through one decoder reset and
 * reused (its results recycled), and through the one-call decode (fresh:
 * new state, new result), beside memchr and cJSON on the
 * same bytes in the same process (CPU time of the thread, rounds
 * interleaved, medians kept, so a busy machine moves both sides alike); peak
 * memory; then, when wrk is on
 * the PATH, `toolwire serve` replaying a fixture beside bench_bare_mhd (a
 * bare libmicrohttpd server, same threading mode) under the same wrk load.
 * Prints a table and writes OUT/DATE.json and OUT/DATE.md (DATE-http with
 * --http-only, DATE-NAME with --name NAME; never over a report already
 * there: the next free -2, -3, ... is added). Asserts nothing.
 *
 * usage: bench_all [--out DIR] [--name NAME] [--rounds N] [--http-seconds S]
 *                  [--threads N] [--fixtures DIR] [--no-http] [--http-only]
 *                  [--soak REQUESTS] [--run-exchanges N] [--tool-calls] [--text]
 *        bench_all --dump-inputs DIR [--format NAME]
 * (--tool-calls: only the decoder inputs set against cJSON, with or without
 * the string-held arguments; --text: only
 * those set against memchr; --dump-inputs: write the inputs of one text
 * decoder, --format NAME (hermes, or a model dialect: the decoders with an
 * output encoder of their name, whose inputs that encoder writes), to
 * DIR/NAME-N.txt, listed with their names in DIR/inputs.tsv, and measure
 * nothing: scripts/bench-llama.sh feeds them to llama.cpp's parser)
 */
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../tests/support/replay_suite.h"

#include "toolwire/decode.h"
#include "toolwire/encode.h"
#include "toolwire/registry.h"

/* CPU time of this thread: on a shared machine, time spent waiting for a
 * core is not counted against either side of a comparison. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "bench_all: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void put(tw_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char tmp[8192];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp || tw_buf_append(b, tmp, (size_t)n) != TW_OK)
        die("out of memory");
}

/* ===================== inputs ===================== */

/* REF_CJSON_ARGS: cJSON on the body, then on each string-held "arguments"
 * value, which is what a cJSON client does to read the calls of a format
 * that sends arguments as JSON text inside a string. */
enum { REF_MEMCHR, REF_CJSON, REF_CJSON_ARGS };
enum { SPAN_TEXT, SPAN_FENCED, SPAN_BODY, SPAN_SSE };

typedef struct span {
    const char *p;
    size_t n;
} span;

typedef struct work {
    const char *name;
    const char *format;
    tw_buf in;
    int ref;
    span *spans; /* the JSON documents cJSON parses for the reference */
    size_t nspans;
} work;

/* Arguments of about `size` bytes: strings, integers, decimals, a list. */
static void args_json(tw_buf *b, size_t size, unsigned seed)
{
    put(b, "{\"path\": \"src/file_%u.c\", \"mode\": 420, \"ratio\": 0.75, \"lines\": [", seed);
    for (unsigned i = 0; i < 12; i++)
        put(b, "%s%u", i ? ", " : "", seed * 7 + i * 13);
    put(b, "], \"text\": \"");
    size_t start = b->len;
    while (b->len - start + 40 < size)
        put(b, "int x%u = %u; /* \\\"q\\\" */\\n", seed, (unsigned)(b->len % 1000));
    put(b, "\"}");
}

static void text_call(tw_buf *b, size_t args, unsigned k, bool fenced)
{
    put(b, fenced ? "```tool_call\n" : "<tool_call>\n");
    put(b, "{\"name\": \"%s\", \"arguments\": ", k % 2 ? "read_file" : "write_file");
    args_json(b, args, k);
    put(b, "}\n%s\n", fenced ? "```" : "</tool_call>");
}

static void prose(tw_buf *b, size_t size)
{
    static const char line[] = "The quick brown fox jumps over the lazy dog while the model "
                               "explains, at length, why the answer is 42 and not 43.\n";
    size_t end = b->len + size;
    while (b->len + sizeof line - 1 <= end)
        if (tw_buf_append(b, line, sizeof line - 1) != TW_OK)
            die("out of memory");
}

static void find_spans(work *w, int kind)
{
    const char *p = w->in.data, *end = w->in.data + w->in.len;
    size_t cap = 0;
    for (;;) {
        const char *a = NULL, *z = NULL;
        if (kind == SPAN_BODY) {
            if (w->nspans)
                break;
            a = p, z = end;
        } else if (kind == SPAN_SSE) {
            const char *d = tw_memmem(p, (size_t)(end - p), "data: ", 6);
            if (!d)
                break;
            a = d + 6;
            z = memchr(a, '\n', (size_t)(end - a));
            if (!z)
                z = end;
            if ((size_t)(z - a) == 6 && memcmp(a, "[DONE]", 6) == 0) {
                p = z;
                continue;
            }
        } else {
            const char *open = kind == SPAN_FENCED ? "```tool_call\n" : "<tool_call>\n";
            const char *close = kind == SPAN_FENCED ? "\n```" : "\n</tool_call>";
            const char *o = tw_memmem(p, (size_t)(end - p), open, strlen(open));
            if (!o)
                break;
            a = o + strlen(open);
            z = tw_memmem(a, (size_t)(end - a), close, strlen(close));
            if (!z)
                break;
        }
        if (w->nspans == cap) {
            cap = cap ? cap * 2 : 16;
            w->spans = realloc(w->spans, cap * sizeof *w->spans);
            if (!w->spans)
                die("out of memory");
        }
        w->spans[w->nspans++] = (span){a, (size_t)(z - a)};
        p = z;
    }
}

/* A result with `thinking` bytes of reasoning, `content` bytes of text and
 * calls of `args` bytes, encoded by a result encoder (a wire format's, or a
 * model dialect's output encoder). */
static void result_input(work *w, const char *encoder, size_t ncalls, size_t args, size_t content,
                         size_t thinking)
{
    tw_result r;
    tw_result_init(&r, NULL);
    prose(&r.msg.thinking, thinking);
    prose(&r.msg.content, content);
    for (size_t i = 0; i < ncalls; i++) {
        tw_buf a = {0};
        args_json(&a, args, (unsigned)i);
        tw_call c;
        memset(&c, 0, sizeof c);
        char id[32];
        snprintf(id, sizeof id, "call_%zu", i + 1);
        c.id = strdup(id);
        c.name = strdup(i % 2 ? "read_file" : "write_file");
        c.arguments = cJSON_ParseWithLength(a.data, a.len);
        tw_buf_free(&a);
        if (!c.id || !c.name || !c.arguments || tw_message_add_call(&r.msg, &c) != TW_OK)
            die("cannot build a call");
    }
    r.finish_reason = strdup(ncalls ? "tool_calls" : "stop");
    tw_encode_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.limits.max_output_bytes = 64u << 20;
    eo.text_fragment = 24;
    eo.args_fragment = 64;
    eo.parallel_tool_calls = -1;
    const tw_encoder_ops *enc = tw_encoder_find(encoder);
    if (!enc || enc->encode_result(&r, &eo, &w->in) != TW_OK)
        die("%s: cannot encode", encoder);
    tw_result_free(&r);
}

static work *make_works(size_t *n)
{
    static work ws[96];
    size_t k = 0;
    /* text decoders */
    ws[k] = (work){.name = "one call, 2 KB arguments", .format = "hermes", .ref = REF_CJSON};
    text_call(&ws[k].in, 2048, 1, false);
    find_spans(&ws[k++], SPAN_TEXT);
    ws[k] = (work){.name = "50 calls of ~100 B", .format = "hermes", .ref = REF_CJSON};
    for (unsigned i = 0; i < 50; i++)
        text_call(&ws[k].in, 40, i, false);
    find_spans(&ws[k++], SPAN_TEXT);
    ws[k] = (work){.name = "2 KB think + text + 2 calls", .format = "hermes", .ref = REF_MEMCHR};
    put(&ws[k].in, "<think>");
    prose(&ws[k].in, 2048);
    put(&ws[k].in, "</think>\n");
    prose(&ws[k].in, 100);
    text_call(&ws[k].in, 20, 1, false);
    text_call(&ws[k].in, 20, 2, false);
    k++;
    ws[k] = (work){.name = "1 MB inside one <think>", .format = "hermes", .ref = REF_MEMCHR};
    put(&ws[k].in, "<think>");
    prose(&ws[k].in, 1u << 20);
    put(&ws[k].in, "</think>\nDone.");
    k++;
    ws[k] = (work){.name = "8 MiB of plain content", .format = "hermes", .ref = REF_MEMCHR};
    prose(&ws[k].in, 8u << 20);
    k++;
    ws[k] = (work){.name = "1 MB inside one <think>", .format = "think", .ref = REF_MEMCHR};
    put(&ws[k].in, "<think>");
    prose(&ws[k].in, 1u << 20);
    put(&ws[k].in, "</think>\nDone.");
    k++;
    ws[k] = (work){.name = "one call, 2 KB arguments", .format = "fenced", .ref = REF_CJSON};
    text_call(&ws[k].in, 2048, 1, true);
    find_spans(&ws[k++], SPAN_FENCED);
    ws[k] = (work){.name = "50 calls of ~100 B", .format = "proxy", .ref = REF_CJSON};
    for (unsigned i = 0; i < 50; i++)
        text_call(&ws[k].in, 40, i, false);
    find_spans(&ws[k++], SPAN_TEXT);
    /* wire decoders */
    static const char *const wires[][2] = {{"openai-response", "openai-response"},
                                           {"openai-stream", "openai-stream"},
                                           {"anthropic-response", "anthropic-response"},
                                           {"anthropic-stream", "anthropic-stream"},
                                           {"vllm-generate-response", "vllm-generate"},
                                           {"gemini", "gemini"},
                                           {"gemini-stream", "gemini-stream"},
                                           {"openai-responses", "openai-responses"},
                                           {"openai-responses-stream", "openai-responses-stream"}};
    for (size_t i = 0; i < sizeof wires / sizeof wires[0]; i++) {
        bool sse = strstr(wires[i][1], "stream") != NULL;
        ws[k] = (work){.name = "one call, 2 KB arguments", .format = wires[i][1], .ref = REF_CJSON};
        result_input(&ws[k], wires[i][0], 1, 2048, 0, 0);
        find_spans(&ws[k++], sse ? SPAN_SSE : SPAN_BODY);
        ws[k] =
            (work){.name = "8 calls of 1 KB + 4 KB text", .format = wires[i][1], .ref = REF_CJSON};
        result_input(&ws[k], wires[i][0], 8, 1024, 4096, 0);
        find_spans(&ws[k++], sse ? SPAN_SSE : SPAN_BODY);
        if (strcmp(wires[i][1], "openai-response") != 0 &&
            strcmp(wires[i][1], "openai-responses") != 0)
            continue;
        /* arguments held as JSON text in a string: also set against cJSON
         * reading the body and then each argument string */
        for (size_t base = k - 2, j = 0; j < 2; j++) {
            ws[k] = ws[base + j];
            ws[k].ref = REF_CJSON_ARGS;
            ws[k].in = (tw_buf){0};
            ws[k].spans = NULL;
            ws[k].nspans = 0;
            if (tw_buf_append(&ws[k].in, ws[base + j].in.data, ws[base + j].in.len) != TW_OK)
                die("out of memory");
            find_spans(&ws[k++], SPAN_BODY);
        }
    }
    /* the model dialects: every text decoder with an output encoder of its
     * name (what the model writes, src/format_table.h), set against memchr */
    for (const tw_format_ops *const *f = tw_formats(); *f && k + 4 <= 96; f++) {
        const tw_encoder_ops *e = tw_encoder_find((*f)->name);
        if (!tw_decoder_is_text((*f)->name) || !e || e->input != TW_ENC_RESULT)
            continue;
        const char *nm = (*f)->name;
        ws[k] = (work){.name = "one call, 2 KB arguments", .format = nm, .ref = REF_MEMCHR};
        result_input(&ws[k++], nm, 1, 2048, 0, 0);
        ws[k] = (work){.name = "50 calls of ~100 B", .format = nm, .ref = REF_MEMCHR};
        result_input(&ws[k++], nm, 50, 40, 0, 0);
        ws[k] = (work){.name = "2 KB reasoning + text + 2 calls", .format = nm, .ref = REF_MEMCHR};
        result_input(&ws[k++], nm, 2, 20, 100, 2048);
        ws[k] = (work){.name = "1 MB of reasoning", .format = nm, .ref = REF_MEMCHR};
        result_input(&ws[k++], nm, 0, 0, 5, 1u << 20);
    }
    *n = k;
    return ws;
}

/* The inputs of one text decoder (hermes, or a model dialect), each in
 * DIR/FORMAT-N.txt, listed as "FILE\tBYTES\tNAME" lines in DIR/inputs.tsv. */
static int dump_inputs(const char *dir, const char *format)
{
    size_t nw = 0;
    work *ws = make_works(&nw);
    mkdir(dir, 0755);
    char path[1200];
    snprintf(path, sizeof path, "%s/inputs.tsv", dir);
    FILE *list = fopen(path, "w");
    if (!list)
        die("cannot write %s: %s", path, strerror(errno));
    size_t k = 0;
    for (size_t i = 0; i < nw; i++) {
        if (strcmp(ws[i].format, format) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s-%zu.txt", dir, format, k);
        FILE *f = fopen(path, "w");
        if (!f || fwrite(ws[i].in.data, 1, ws[i].in.len, f) != ws[i].in.len || fclose(f) != 0)
            die("cannot write %s: %s", path, strerror(errno));
        fprintf(list, "%s-%zu.txt\t%zu\t%s\n", format, k++, ws[i].in.len, ws[i].name);
    }
    if (fclose(list) != 0)
        die("cannot write %s/inputs.tsv: %s", dir, strerror(errno));
    for (size_t i = 0; i < nw; i++) {
        tw_buf_free(&ws[i].in);
        free(ws[i].spans);
    }
    if (k == 0)
        die("no inputs of the format %s (a text decoder: hermes or a model dialect)", format);
    printf("wrote the %s inputs to %s (inputs.tsv)\n", format, dir);
    return 0;
}

/* ===================== timing ===================== */

/* The modes: the input in one piece (batch), in pieces of these sizes, and
 * the one-call decode (fresh). */
enum { MODE_BATCH = 0 };
#define MODE_FRESH SIZE_MAX

typedef struct job {
    const work *w;
    const tw_format_ops *f;
    const tw_decode_opts *o;
    size_t chunk; /* MODE_BATCH: one feed; MODE_FRESH: f->decode; else the piece size */
    size_t calls, errors;
    tw_status st;
    void *state; /* the decoder, allocated once and reset for each decode */
} job;

/* A client that decodes one input after another on one decoder: reset (it
 * keeps its buffers), the input fed in place in one piece or piece by
 * piece, finish, and the result handed back with recycle once read (the
 * text decoders write the next result's content and thinking into its
 * buffers). */
static tw_status reuse_decode(job *j, tw_result *out)
{
    const char *p = j->w->in.data;
    size_t len = j->w->in.len;
    size_t chunk = j->chunk == MODE_BATCH ? (len ? len : 1) : j->chunk;
    tw_status st = j->f->reset(j->state, j->o, NULL, NULL);
    for (size_t off = 0; st == TW_OK && off < len; off += chunk)
        st = j->f->feed(j->state, p + off, len - off < chunk ? len - off : chunk);
    if (st == TW_OK)
        st = j->f->finish(j->state, out);
    else
        tw_result_init(out, &j->o->limits);
    return st;
}

static void op_decode(void *ctx)
{
    job *j = ctx;
    tw_result r;
    bool fresh = j->chunk == MODE_FRESH;
    j->st = fresh ? j->f->decode(j->w->in.data, j->w->in.len, j->o, &r) : reuse_decode(j, &r);
    if (j->st != TW_OK)
        return;
    j->calls = r.msg.ncalls;
    j->errors = r.errors.len;
    if (fresh)
        tw_result_free(&r);
    else
        j->f->recycle(j->state, &r);
}

static volatile size_t sink;

static void op_memchr(void *ctx)
{
    const work *w = ctx;
    const char *p = w->in.data, *end = p + w->in.len;
    size_t hits = 0;
    while ((p = memchr(p, '<', (size_t)(end - p)))) {
        hits++;
        p++;
    }
    sink += hits;
}

static void op_cjson(void *ctx)
{
    const work *w = ctx;
    for (size_t i = 0; i < w->nspans; i++) {
        cJSON *v = cJSON_ParseWithLength(w->spans[i].p, w->spans[i].n);
        if (!v)
            die("%s: cJSON refused a reference payload", w->name);
        cJSON_Delete(v);
    }
}

/* cJSON_Parse of every string-held "arguments" member in v. */
static void cjson_args(const cJSON *v, const char *name)
{
    for (const cJSON *c = v ? v->child : NULL; c; c = c->next) {
        if (cJSON_IsString(c) && c->string && strcmp(c->string, "arguments") == 0) {
            cJSON *a = cJSON_Parse(c->valuestring);
            if (!a)
                die("%s: cJSON refused a reference argument string", name);
            cJSON_Delete(a);
        } else if (cJSON_IsObject(c) || cJSON_IsArray(c)) {
            cjson_args(c, name);
        }
    }
}

static void op_cjson_args(void *ctx)
{
    const work *w = ctx;
    for (size_t i = 0; i < w->nspans; i++) {
        cJSON *v = cJSON_ParseWithLength(w->spans[i].p, w->spans[i].n);
        if (!v)
            die("%s: cJSON refused a reference payload", w->name);
        cjson_args(v, w->name);
        cJSON_Delete(v);
    }
}

/* Seconds per run of fn: repeated until min_total has passed. */
static double time_op(void (*fn)(void *), void *ctx, double min_total)
{
    fn(ctx); /* warm */
    for (size_t n = 1;; n *= 2) {
        double t0 = now();
        for (size_t i = 0; i < n; i++)
            fn(ctx);
        double t = now() - t0;
        if (t >= min_total || n >= (1u << 24))
            return t / (double)n;
    }
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, dbl_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ===================== HTTP ===================== */

typedef struct server {
    pid_t pid;
    char url[1024];
} server;

/* Start argv with stdout on a pipe; the first line it prints is returned in line. */
static bool spawn(char *const argv[], server *s, char *line, size_t n)
{
    int fd[2];
    if (pipe(fd) != 0)
        return false;
    s->pid = fork();
    if (s->pid < 0)
        return false;
    if (s->pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        int dn = open("/dev/null", O_WRONLY);
        if (dn >= 0)
            dup2(dn, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    close(fd[1]);
    FILE *f = fdopen(fd[0], "r");
    bool ok = f && fgets(line, (int)n, f) != NULL;
    if (f)
        fclose(f);
    line[strcspn(line, "\n")] = '\0';
    return ok;
}

static void stop(server *s)
{
    if (s->pid > 0) {
        kill(s->pid, SIGTERM);
        waitpid(s->pid, NULL, 0);
        s->pid = 0;
    }
}

/* VmHWM and VmRSS of a process, in KiB. */
static void proc_mem(pid_t pid, long *hwm, long *rss)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    *hwm = *rss = -1;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "VmHWM:", 6) == 0)
            *hwm = atol(line + 6);
        else if (strncmp(line, "VmRSS:", 6) == 0)
            *rss = atol(line + 6);
    }
    fclose(f);
}

static double run_wrk_n(const char *script, const char *url, int secs, long *requests);

/* CPU time (user + system) a process has used, in seconds; -1 when unknown. */
static double proc_cpu(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the command name may hold spaces */
    unsigned long ut = 0, st = 0;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        return -1;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* One wrk run against a server: req/s, and the server's CPU microseconds per request. */
static double run_wrk_cpu(const char *script, const server *s, int secs, double *us_per_req)
{
    long n = 0;
    double c0 = proc_cpu(s->pid);
    double rps = run_wrk_n(script, s->url, secs, &n);
    double c1 = proc_cpu(s->pid);
    *us_per_req = rps > 0 && n > 0 && c0 >= 0 && c1 >= c0 ? (c1 - c0) * 1e6 / (double)n : -1;
    return rps;
}

static size_t curl_sink(char *p, size_t sz, size_t n, void *u)
{
    return tw_buf_append(u, p, sz * n) == TW_OK ? sz * n : 0;
}

/* One request: the answer body and its content type. */
static bool fetch(const char *url, const char *body, tw_buf *out, char *ctype, size_t clen)
{
    CURL *c = curl_easy_init();
    if (!c)
        return false;
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, curl_sink);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
    long code = 0;
    bool ok = curl_easy_perform(c) == CURLE_OK &&
              curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK && code == 200;
    char *ct = NULL;
    if (ok && curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ct) == CURLE_OK && ct)
        snprintf(ctype, clen, "%s", ct);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return ok;
}

/* wrk's Requests/sec for one run, or -1; *requests: the requests it completed. */
static double run_wrk_n(const char *script, const char *url, int secs, long *requests)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "wrk -t2 -c16 -d%ds -s '%s' '%s' 2>&1", secs, script, url);
    *requests = 0;
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    char line[512];
    double rps = -1;
    long errors = 0;
    while (fgets(line, sizeof line, p)) {
        if (strncmp(line, "Requests/sec:", 13) == 0)
            rps = atof(line + 13);
        if (strstr(line, " requests in "))
            *requests = atol(line);
        if (strstr(line, "Non-2xx") || strstr(line, "Socket errors"))
            errors++;
    }
    pclose(p);
    return errors ? -1 : rps;
}

typedef struct http_opts {
    const char *bindir, *fixtures;
    int rounds, secs, threads;
    long soak;     /* requests of the soak run (0: none) */
    tw_buf *after; /* markdown written after the HTTP table (the soak's) */
} http_opts;

/* The soak: one serve answering `total` requests in timed windows (5 s, then
 * as long as 100,000 requests took at the last window's rate, 1 to 60 s),
 * each window's throughput and the serve's RSS after it. */
static void soak(const http_opts *ho, const server *s_tw, const char *script, cJSON *o, tw_buf *md)
{
    cJSON *wins = cJSON_AddArrayToObject(o, "soak_windows");
    put(md,
        "\nSoak: %ld requests to one `toolwire serve` (the non-streaming case), timed windows "
        "(5 s, then as long as 100,000 requests took at the last window's rate):\n\n| window | "
        "requests so far | req/s | serve RSS KiB | serve peak RSS KiB |\n"
        "| --- | --- | --- | --- | --- |\n",
        ho->soak);
    printf("soak: %ld requests, in timed windows of about 100,000 requests each\n", ho->soak);
    long done = 0;
    int secs = 5, w = 0;
    double lo = -1, hi = -1;
    while (done < ho->soak && w < 200) {
        long n = 0;
        double rps = run_wrk_n(script, s_tw->url, secs, &n);
        if (rps <= 0 || n <= 0) {
            printf("soak: window %d failed\n", w + 1);
            cJSON_AddBoolToObject(o, "soak_failed", true);
            break;
        }
        done += n;
        w++;
        long hwm, rss;
        proc_mem(s_tw->pid, &hwm, &rss);
        printf("  window %3d  %9ld requests  %9.0f req/s  RSS %7ld KiB  peak %7ld KiB\n", w, done,
               rps, rss, hwm);
        put(md, "| %d | %ld | %.0f | %ld | %ld |\n", w, done, rps, rss, hwm);
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "requests_total", (double)done);
        cJSON_AddNumberToObject(j, "requests", (double)n);
        cJSON_AddNumberToObject(j, "rps", rps);
        cJSON_AddNumberToObject(j, "rss_kib", (double)rss);
        cJSON_AddNumberToObject(j, "peak_rss_kib", (double)hwm);
        cJSON_AddItemToArray(wins, j);
        lo = lo < 0 || rps < lo ? rps : lo;
        hi = rps > hi ? rps : hi;
        /* the next window about 100,000 requests long at this rate */
        secs = (int)(100000.0 / rps + 0.5);
        secs = secs < 1 ? 1 : secs > 60 ? 60 : secs;
    }
    long hwm, rss;
    proc_mem(s_tw->pid, &hwm, &rss);
    cJSON_AddNumberToObject(o, "soak_requests", (double)done);
    cJSON_AddNumberToObject(o, "soak_peak_rss_kib", (double)hwm);
    cJSON_AddNumberToObject(o, "soak_min_rps", lo);
    cJSON_AddNumberToObject(o, "soak_max_rps", hi);
    printf("soak: %ld requests, req/s from %.0f to %.0f per window, peak RSS %ld KiB\n", done, lo,
           hi, hwm);
    put(md, "\n%ld requests; req/s per window from %.0f to %.0f; serve peak RSS %ld KiB.\n", done,
        lo, hi, hwm);
}

/* A fixture file parsed, or NULL. */
static cJSON *read_doc(const char *path)
{
    FILE *f = fopen(path, "rb");
    tw_buf fx = {0};
    char tmp[4096];
    size_t got;
    while (f && (got = fread(tmp, 1, sizeof tmp, f)) > 0)
        tw_buf_append(&fx, tmp, got);
    if (f)
        fclose(f);
    cJSON *doc = fx.len ? cJSON_ParseWithLength(fx.data, fx.len) : NULL;
    tw_buf_free(&fx);
    return doc;
}

/* A fixture's first exchange, or NULL. */
static cJSON *first_exchange(const cJSON *doc)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "exchanges"), 0);
}

/*
 * Write to path a fixture of the first exchange of each doc[k], in turn, each
 * with doc[0]'s answer (so serve sends the bytes the bare server sends).
 */
static bool write_alternating(const char *path, cJSON *const *docs, size_t n)
{
    cJSON *fx = cJSON_CreateObject(), *xs = NULL;
    cJSON_AddNumberToObject(fx, "fixture_version", 1);
    cJSON_AddStringToObject(fx, "name", "bench-alternating");
    cJSON_AddStringToObject(fx, "description",
                            "generated: the first exchange of each fixture, one answer");
    cJSON_AddItemToObject(fx, "backend",
                          cJSON_Duplicate(cJSON_GetObjectItem(docs[0], "backend"), true));
    cJSON_AddStringToObject(cJSON_AddObjectToObject(fx, "provenance"), "source", "hand-made");
    xs = cJSON_AddArrayToObject(fx, "exchanges");
    const cJSON *resp = cJSON_GetObjectItem(first_exchange(docs[0]), "response");
    for (size_t k = 0; k < n; k++) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddItemToObject(
            x, "request",
            cJSON_Duplicate(cJSON_GetObjectItem(first_exchange(docs[k]), "request"), true));
        cJSON_AddItemToObject(x, "response", cJSON_Duplicate(resp, true));
        cJSON_AddItemToArray(xs, x);
    }
    char *js = cJSON_PrintUnformatted(fx);
    cJSON_Delete(fx);
    FILE *f = js ? fopen(path, "w") : NULL;
    bool ok = f && fputs(js, f) >= 0;
    ok = f && fclose(f) == 0 && ok;
    free(js);
    return ok;
}

enum { ALT_MAX = 8 };

/*
 * Replay fixtures[0] (or, with several, a fixture made of their first
 * exchanges: write_alternating) with serve and the bare server, rounds
 * interleaved.
 * varied: every request's body differs from the one before (a random "user"
 * member put first, a key the matcher ignores), so that serve reads, matches
 * and judges each body as new instead of reusing what it worked out for the
 * same bytes (docs/harness.md, the kept choices).
 * Several fixtures: each wrk connection sends the exchanges' requests in turn,
 * all of them pipelined in one write (a connection is not known to wrk's
 * request(), so this is how a connection's next request is made another
 * exchange than its last), so no request matches the exchange its
 * connection's last request matched; their bodies are varied.
 */
static void http_case(const http_opts *ho, const char *label, const char *const *fixtures,
                      bool varied, cJSON *arr, tw_buf *md)
{
    char path[1024], line[512], tw[1024], bare[1024], threads[16];
    char dir[] = "/tmp/bench_all_XXXXXX";
    cJSON *docs[ALT_MAX] = {NULL};
    char *bodies[ALT_MAX] = {NULL};
    size_t nx = 0;
    while (nx < ALT_MAX && fixtures[nx])
        nx++;
    varied = varied || nx > 1;
    snprintf(tw, sizeof tw, "%s/toolwire", ho->bindir);
    snprintf(bare, sizeof bare, "%s/bench_bare_mhd", ho->bindir);
    snprintf(threads, sizeof threads, "%d", ho->threads);
    const char *rpath = NULL;
    bool ok = nx > 0;
    for (size_t k = 0; k < nx && ok; k++) {
        snprintf(path, sizeof path, "%s/%s", ho->fixtures, fixtures[k]);
        docs[k] = read_doc(path);
        const cJSON *req = cJSON_GetObjectItem(first_exchange(docs[k]), "request");
        const char *p = cJSON_GetStringValue(cJSON_GetObjectItem(req, "path"));
        bodies[k] = cJSON_PrintUnformatted(cJSON_GetObjectItem(req, "body"));
        /* one URL for wrk: every exchange on the first one's path */
        ok = p && bodies[k] && (!rpath || strcmp(p, rpath) == 0) &&
             (!varied || (bodies[k][0] == '{' && bodies[k][1] != '}'));
        rpath = rpath ? rpath : p;
    }
    if (!ok) {
        printf("%s: %s has no request to replay; skipped\n", label, path);
        for (size_t k = 0; k < nx; k++) {
            cJSON_Delete(docs[k]);
            free(bodies[k]);
        }
        return;
    }
    const char *body = bodies[0];
    snprintf(path, sizeof path, "%s/%s", ho->fixtures, fixtures[0]);
    if (nx > 1) {
        if (!mkdtemp(dir))
            die("cannot make a temporary directory");
        snprintf(path, sizeof path, "%s/alternating.json", dir);
        if (!write_alternating(path, docs, nx))
            die("cannot write %s", path);
    }
    char script[] = "/tmp/bench_all_XXXXXX";
    int sfd = mkstemp(script);
    FILE *sf = sfd >= 0 ? fdopen(sfd, "w") : NULL;
    if (!sf)
        die("cannot write the wrk script");
    fprintf(sf,
            "wrk.method = \"POST\"\nwrk.headers[\"Content-Type\"] = \"application/json\"\n"
            "wrk.body = [==[%s]==]\n",
            body);
    if (varied) {
        fputs("local rest = {\n", sf);
        for (size_t k = 0; k < nx; k++)
            fprintf(sf, "  [==[%s]==],\n", bodies[k] + 1);
        fputs("}\n"
              "math.randomseed(os.time() + math.floor(os.clock() * 1e6))\n"
              "request = function()\n"
              "  local r = {}\n"
              "  for i, b in ipairs(rest) do\n"
              "    r[i] = wrk.format(nil, nil, nil, '{\"user\":\"r' .. math.random(1, 2000000000)"
              " .. '\",' .. b)\n"
              "  end\n"
              "  return table.concat(r)\nend\n",
              sf);
    }
    fclose(sf);
    server s_tw = {0}, s_bare = {0};
    char *targv[] = {tw, "serve", "--port", "0", "--quiet", "--threads", threads, path, NULL};
    const char *on = NULL;
    if (!spawn(targv, &s_tw, line, sizeof line) || !(on = strstr(line, " on "))) {
        printf("%s: toolwire serve did not start\n", label);
        goto out;
    }
    snprintf(s_tw.url, sizeof s_tw.url, "%s%s", on + 4, rpath);
    tw_buf answer = {0};
    char ctype[128] = "application/json";
    if (!fetch(s_tw.url, body, &answer, ctype, sizeof ctype)) {
        printf("%s: toolwire serve did not answer 200\n", label);
        tw_buf_free(&answer);
        goto out;
    }
    char bodyfile[] = "/tmp/bench_all_XXXXXX";
    int bfd = mkstemp(bodyfile);
    if (bfd < 0 || write(bfd, answer.data, answer.len) != (ssize_t)answer.len)
        die("cannot write the bare server's body");
    close(bfd);
    size_t answer_len = answer.len;
    tw_buf_free(&answer);
    char *bargv[] = {bare, threads, bodyfile, ctype, NULL};
    if (!spawn(bargv, &s_bare, line, sizeof line) || atoi(line) <= 0) {
        printf("%s: bench_bare_mhd did not start\n", label);
        unlink(bodyfile);
        goto out;
    }
    snprintf(s_bare.url, sizeof s_bare.url, "http://127.0.0.1:%d%s", atoi(line), rpath);
    double rt[16], rb[16], ct[16], cb[16];
    int n = ho->rounds < 16 ? ho->rounds : 16;
    cJSON *jt = cJSON_CreateArray(), *jb = cJSON_CreateArray();
    for (int r = 0; r < n; r++) {
        rt[r] = run_wrk_cpu(script, &s_tw, ho->secs, &ct[r]);
        rb[r] = run_wrk_cpu(script, &s_bare, ho->secs, &cb[r]);
        cJSON_AddItemToArray(jt, cJSON_CreateNumber(rt[r]));
        cJSON_AddItemToArray(jb, cJSON_CreateNumber(rb[r]));
    }
    double mct = median(ct, n), mcb = median(cb, n);
    long hwm, rss;
    proc_mem(s_tw.pid, &hwm, &rss);
    double mt = median(rt, n), mb = median(rb, n);
    printf("%-46s %10.0f %10.0f %7.2f %9ld %8.1f %8.1f %7.2f\n", label, mt, mb,
           mb > 0 ? mt / mb : 0, hwm, mct, mcb, mct > 0 ? mcb / mct : 0);
    put(md, "| %s | %zu | %.0f | %.0f | %.2f | %ld | %.1f | %.1f | %.2f |\n", label, answer_len, mt,
        mb, mb > 0 ? mt / mb : 0, hwm, mct, mcb, mct > 0 ? mcb / mct : 0);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "case", label);
    cJSON_AddStringToObject(o, "fixture", fixtures[0]);
    cJSON_AddBoolToObject(o, "bodies_varied", varied);
    if (nx > 1) {
        cJSON *fa = cJSON_AddArrayToObject(o, "exchanges_alternating");
        for (size_t k = 0; k < nx; k++)
            cJSON_AddItemToArray(fa, cJSON_CreateString(fixtures[k]));
    }
    cJSON_AddNumberToObject(o, "answer_bytes", (double)answer_len);
    cJSON_AddNumberToObject(o, "serve_rps_median", mt);
    cJSON_AddNumberToObject(o, "bare_rps_median", mb);
    cJSON_AddNumberToObject(o, "ratio", mb > 0 ? mt / mb : 0);
    cJSON_AddItemToObject(o, "serve_rps_rounds", jt);
    cJSON_AddItemToObject(o, "bare_rps_rounds", jb);
    cJSON_AddNumberToObject(o, "serve_peak_rss_kib", (double)hwm);
    cJSON_AddNumberToObject(o, "serve_rss_kib", (double)rss);
    cJSON_AddNumberToObject(o, "serve_cpu_us_per_request_median", mct);
    cJSON_AddNumberToObject(o, "bare_cpu_us_per_request_median", mcb);
    cJSON_AddNumberToObject(o, "cpu_ratio", mct > 0 ? mcb / mct : 0);
    cJSON_AddItemToArray(arr, o);
    if (ho->soak > 0 && !varied && strstr(label, "non-streaming"))
        soak(ho, &s_tw, script, o, ho->after);
    unlink(bodyfile);
out:
    stop(&s_tw);
    stop(&s_bare);
    unlink(script);
    if (nx > 1) {
        unlink(path);
        rmdir(dir);
    }
    for (size_t k = 0; k < nx; k++) {
        cJSON_Delete(docs[k]);
        free(bodies[k]);
    }
}

/* ===================== run against the embedded mock ===================== */

/* `toolwire run` of n generated exchanges (fixtures of 1,000) against the
 * embedded mock: wall time and the CPU time of the run process. */
static void run_timing(const http_opts *ho, long n, cJSON *rep, tw_buf *md)
{
    char dir[] = "/tmp/bench_run_XXXXXX";
    if (!mkdtemp(dir))
        die("cannot make a temporary directory");
    char fxdir[256], outdir[256], tw[1100];
    snprintf(fxdir, sizeof fxdir, "%s/fixtures", dir);
    snprintf(outdir, sizeof outdir, "%s/out", dir);
    snprintf(tw, sizeof tw, "%s/toolwire", ho->bindir);
    mkdir(fxdir, 0755);
    long per = 1000, nfx = (n + per - 1) / per;
    for (long fi = 0; fi < nfx; fi++) {
        char path[300];
        snprintf(path, sizeof path, "%s/gen-%05ld.json", fxdir, fi);
        FILE *f = fopen(path, "w");
        if (!f)
            die("cannot write %s", path);
        char name[32];
        snprintf(name, sizeof name, "gen-%05ld", fi);
        long first = fi * per;
        if (replay_suite_write(f, name, NULL, first, n - first < per ? n - first : per) != 0)
            die("cannot write %s", path);
    }
    char *argv[] = {tw,        "run", "--backend", "mock=mock:replay", "--out", outdir,
                    "--quiet", fxdir, NULL};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid == 0) {
        int dn = open("/dev/null", O_WRONLY);
        if (dn >= 0) {
            dup2(dn, 1);
            dup2(dn, 2);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    int st = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    if (pid < 0 || wait4(pid, &st, 0, &ru) != pid)
        die("cannot run %s", tw);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    printf("\ntoolwire run, %ld exchanges (%ld fixtures) against mock:replay: %.1f s wall, %.1f s "
           "CPU, "
           "exit %d, peak RSS %ld KiB\n",
           n, nfx, wall, cpu, code, ru.ru_maxrss);
    put(md,
        "\n## `toolwire run` against the embedded mock\n\n%ld generated exchanges in %ld fixtures, "
        "`--backend mock=mock:replay --quiet`, reports written: %.1f s wall, %.1f s CPU (user + "
        "system of the run process), exit status %d, peak RSS %ld KiB.\n",
        n, nfx, wall, cpu, code, ru.ru_maxrss);
    cJSON *o = cJSON_AddObjectToObject(rep, "run_embedded_mock");
    cJSON_AddNumberToObject(o, "exchanges", (double)n);
    cJSON_AddNumberToObject(o, "fixtures", (double)nfx);
    cJSON_AddNumberToObject(o, "wall_seconds", wall);
    cJSON_AddNumberToObject(o, "cpu_seconds", cpu);
    cJSON_AddNumberToObject(o, "exit_status", code);
    cJSON_AddNumberToObject(o, "peak_rss_kib", (double)ru.ru_maxrss);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("could not remove %s\n", dir);
}

/* ===================== main ===================== */

static const char *machine(char *buf, size_t n)
{
    char line[512], model[256] = "unknown CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            const char *c = strchr(line, ':');
            snprintf(model, sizeof model, "%.200s", c ? c + 2 : line);
            model[strcspn(model, "\n")] = '\0';
            break;
        }
    if (f)
        fclose(f);
    struct utsname u;
    uname(&u);
    double load[3] = {0, 0, 0};
    f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3)
            load[0] = -1;
        fclose(f);
    }
    snprintf(buf, n, "%s, %ld CPUs, %s %s, load average %.2f at start", model,
             sysconf(_SC_NPROCESSORS_ONLN), u.sysname, u.release, load[0]);
    return buf;
}

int main(int argc, char **argv)
{
    const char *out = "reports/bench", *name = NULL;
    tw_buf after = {0};
    http_opts ho = {NULL, "fixtures", 3, 3, 2, 0, &after};
    bool http = true, decoders = true;
    long run_n = 0;
    bool calls_only = false, text_only = false;
    const char *dump = NULL, *dump_format = "hermes";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--no-http") == 0)
            http = false;
        else if (strcmp(a, "--http-only") == 0)
            decoders = false;
        else if (strcmp(a, "--tool-calls") == 0)
            calls_only = true;
        else if (strcmp(a, "--text") == 0)
            text_only = true;
        else if (v && strcmp(a, "--soak") == 0 && atol(v) >= 1 && atol(v) <= 100000000)
            ho.soak = atol(v), i++;
        else if (v && strcmp(a, "--run-exchanges") == 0 && atol(v) >= 1 && atol(v) <= 1000000)
            run_n = atol(v), i++;
        else if (v && strcmp(a, "--out") == 0)
            out = v, i++;
        else if (v && strcmp(a, "--name") == 0 && v[0] && !strchr(v, '/'))
            name = v, i++;
        else if (v && strcmp(a, "--dump-inputs") == 0)
            dump = v, i++;
        else if (v && strcmp(a, "--format") == 0)
            dump_format = v, i++;
        else if (v && strcmp(a, "--fixtures") == 0)
            ho.fixtures = v, i++;
        else if (v && strcmp(a, "--rounds") == 0 && atoi(v) >= 1 && atoi(v) <= 15)
            ho.rounds = atoi(v), i++;
        else if (v && strcmp(a, "--http-seconds") == 0 && atoi(v) >= 1 && atoi(v) <= 600)
            ho.secs = atoi(v), i++;
        else if (v && strcmp(a, "--threads") == 0 && atoi(v) >= 1 && atoi(v) <= 256)
            ho.threads = atoi(v), i++;
        else {
            fprintf(
                stderr,
                "usage: bench_all [--out DIR] [--name NAME] [--rounds 1..15] [--http-seconds S] "
                "[--threads N] [--fixtures DIR] [--no-http] [--http-only] "
                "[--soak REQUESTS] [--run-exchanges N] [--tool-calls] [--text]\n"
                "       bench_all --dump-inputs DIR [--format NAME]\n");
            return 2;
        }
    }
    if (dump)
        return dump_inputs(dump, dump_format);
    char bindir[1024];
    snprintf(bindir, sizeof bindir, "%s", argv[0]);
    char *slash = strrchr(bindir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(bindir, sizeof bindir, ".");
    ho.bindir = bindir;

    char mach[768], date[32], stamp[64];
    machine(mach, sizeof mach);
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(date, sizeof date, "%Y-%m-%d", &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);

    size_t nw = 0;
    work *ws = decoders ? make_works(&nw) : NULL;
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits.max_input_bytes = 64u << 20;
    o.limits.max_args_bytes = 64u << 20;
    o.limits.max_diags = 1u << 20;

    cJSON *rep = cJSON_CreateObject();
    cJSON_AddStringToObject(rep, "date", stamp);
    cJSON_AddStringToObject(rep, "machine", mach);
    /* what was run: scripts/bench.sh says so in the environment, else argv[0] */
    char command[1024];
    const char *via = getenv("TOOLWIRE_BENCH_VIA");
    snprintf(command, sizeof command, "%s", via && via[0] ? via : argv[0]);
    for (int i = 1; i < argc; i++) {
        size_t l = strlen(command);
        bool plain =
            argv[i][0] && strspn(argv[i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789-_./=:,+") == strlen(argv[i]);
        int w = snprintf(command + l, sizeof command - l, plain ? " %s" : " '%s'", argv[i]);
        if (w < 0 || (size_t)w >= sizeof command - l) {
            command[l] = '\0';
            snprintf(command + l, sizeof command - l, " …");
            break;
        }
    }
    cJSON_AddStringToObject(rep, "command", command);
    cJSON_AddNumberToObject(rep, "rounds", ho.rounds);
    cJSON *rows = cJSON_AddArrayToObject(rep, "decoders");
    tw_buf md = {0};
    put(&md, "# Benchmark %s\n\nMachine: %s.\n\nCommand: `%s` (bench_all).\n", stamp, mach,
        command);
    if (decoders)
        put(&md,
            "\nDecoders: CPU time of the benchmark thread, medians of %d interleaved rounds. "
            "batch and stream/N: one decoder reset for each decode, the input fed in one piece "
            "or in N-byte pieces, the result recycled; fresh: the one-call decode (a new "
            "decoder state and result each time).\n\n"
            "## Decoders\n\n"
            "| decoder | input | bytes | mode | MB/s | reference | ref MB/s | time / ref | "
            "time / batch | calls |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- "
            "|\n",
            ho.rounds);
    if (decoders)
        printf("%s\n%-18s %-28s %-11s %9s %-10s %9s %7s %7s %5s\n", mach, "decoder", "input",
               "mode", "MB/s", "ref", "ref MB/s", "x ref", "x batch", "calls");
    else
        printf("%s\n", mach);
    static const size_t chunks[] = {MODE_BATCH, 4096, 16, 4, 1, MODE_FRESH};
    enum { NM = sizeof chunks / sizeof chunks[0] };
    for (size_t i = 0; i < nw; i++) {
        work *w = &ws[i];
        if (calls_only && w->ref == REF_MEMCHR)
            continue; /* --tool-calls: only the inputs set against cJSON */
        if (text_only && w->ref != REF_MEMCHR)
            continue; /* --text: only the inputs set against memchr */
        const tw_format_ops *f = tw_format_find(w->format);
        if (!f)
            die("no decoder %s", w->format);
        double ref[16], dec[NM][16];
        job jobs[NM];
        void *state = f->new_dec(&o, NULL, NULL);
        if (!state)
            die("out of memory");
        int rounds = ho.rounds;
        for (int r = 0; r < rounds; r++) {
            ref[r] = time_op(w->ref == REF_CJSON        ? op_cjson
                             : w->ref == REF_CJSON_ARGS ? op_cjson_args
                                                        : op_memchr,
                             w, 0.01);
            for (size_t m = 0; m < NM; m++) {
                jobs[m] = (job){w, f, &o, chunks[m], 0, 0, TW_OK, state};
                dec[m][r] = time_op(op_decode, &jobs[m], 0.01);
                if (jobs[m].st != TW_OK)
                    die("%s on %s: %s", w->format, w->name, tw_code_message(jobs[m].st));
            }
        }
        f->free_dec(state);
        double mref = median(ref, rounds), mb = 0;
        const char *rname = w->ref == REF_CJSON        ? "cJSON"
                            : w->ref == REF_CJSON_ARGS ? "cJSON+args"
                                                       : "memchr";
        for (size_t m = 0; m < NM; m++) {
            double md_t = median(dec[m], rounds);
            if (m == 0)
                mb = md_t;
            char mode[32];
            if (chunks[m] == MODE_FRESH)
                snprintf(mode, sizeof mode, "fresh");
            else
                snprintf(mode, sizeof mode, chunks[m] ? "stream/%zu" : "batch", chunks[m]);
            double mbs = (double)w->in.len / md_t / 1e6, rbs = (double)w->in.len / mref / 1e6;
            printf("%-18s %-28s %-11s %9.1f %-10s %9.1f %7.2f %7.2f %5zu\n", w->format, w->name,
                   mode, mbs, rname, rbs, md_t / mref, md_t / mb, jobs[m].calls);
            put(&md, "| %s | %s | %zu | %s | %.1f | %s | %.1f | %.2f | %.2f | %zu |\n", w->format,
                w->name, w->in.len, mode, mbs, rname, rbs, md_t / mref, md_t / mb, jobs[m].calls);
            cJSON *row = cJSON_CreateObject();
            cJSON_AddStringToObject(row, "decoder", w->format);
            cJSON_AddStringToObject(row, "input", w->name);
            cJSON_AddNumberToObject(row, "bytes", (double)w->in.len);
            cJSON_AddStringToObject(row, "mode", mode);
            cJSON_AddNumberToObject(row, "seconds", md_t);
            cJSON_AddNumberToObject(row, "mb_per_s", mbs);
            cJSON_AddStringToObject(row, "reference", rname);
            cJSON_AddNumberToObject(row, "reference_seconds", mref);
            cJSON_AddNumberToObject(row, "reference_mb_per_s", rbs);
            cJSON_AddNumberToObject(row, "time_over_reference", md_t / mref);
            cJSON_AddNumberToObject(row, "time_over_batch", md_t / mb);
            cJSON_AddNumberToObject(row, "calls", (double)jobs[m].calls);
            cJSON_AddNumberToObject(row, "error_diagnostics", (double)jobs[m].errors);
            cJSON_AddItemToArray(rows, row);
        }
    }
    if (decoders) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        printf("peak RSS of the decoder runs: %ld KiB\n", ru.ru_maxrss);
        put(&md, "\nPeak RSS of the decoder runs (the process, inputs included): %ld KiB.\n",
            ru.ru_maxrss);
        cJSON_AddNumberToObject(rep, "decoder_peak_rss_kib", (double)ru.ru_maxrss);
    }

    cJSON *harr = cJSON_AddArrayToObject(rep, "http");
    if (http && system("command -v wrk >/dev/null 2>&1") == 0) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
        put(&md,
            "\n## HTTP: `toolwire serve` beside a bare libmicrohttpd server\n\n"
            "wrk -t2 -c16, %d s per run, %d interleaved rounds, %d server threads each "
            "(epoll thread pool). CPU µs/request: the server process's user + system time over "
            "the requests wrk completed (counts no time spent waiting for a core); cpu ratio: "
            "bare's over serve's. Bodies varied: each request's body starts with a random "
            "`\"user\"` member (ignored by the matcher), so serve reads and matches every body "
            "as new instead of reusing its choice for bytes it has seen. Exchanges alternating: "
            "a fixture of four exchanges (the first exchange of each fixture in the row's "
            "`exchanges_alternating`, each with the first one's answer), every wrk connection "
            "sending the four requests in turn, pipelined in one write, their bodies varied: "
            "no request is for the exchange its connection's last request matched.\n\n| case | "
            "answer bytes | serve req/s | bare req/s | "
            "serve / bare | serve peak RSS KiB | serve CPU µs/req | bare CPU µs/req | cpu ratio |\n"
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
            ho.secs, ho.rounds, ho.threads);
        printf("\n%-46s %10s %10s %7s %9s %8s %8s %7s\n", "HTTP (wrk -t2 -c16)", "serve/s",
               "bare/s", "ratio", "RSS KiB", "us/req", "bare", "cpu");
        static const char *const ns[] = {"openai/nonstream_arguments_object.json", NULL};
        static const char *const st[] = {"openai/stream_single_call.json", NULL};
        /* the same tools, another question each: four exchanges of one route */
        static const char *const ns_alt[] = {
            "openai/nonstream_arguments_object.json", "openai/nonstream_text_only.json",
            "openai/nonstream_duplicate_ids.json", "openai/nonstream_parallel_calls.json", NULL};
        static const char *const st_alt[] = {
            "openai/stream_single_call.json", "openai/stream_text_only.json",
            "openai/stream_index_reuse.json", "openai/stream_parallel_usage_chunk.json", NULL};
        http_case(&ho, "replay, non-streaming (openai)", ns, false, harr, &md);
        http_case(&ho, "replay, streaming (openai SSE)", st, false, harr, &md);
        http_case(&ho, "replay, non-streaming, bodies varied", ns, true, harr, &md);
        http_case(&ho, "replay, streaming, bodies varied", st, true, harr, &md);
        http_case(&ho, "replay, non-streaming, exchanges alternating", ns_alt, true, harr, &md);
        http_case(&ho, "replay, streaming, exchanges alternating", st_alt, true, harr, &md);
        if (after.len)
            tw_buf_append(&md, after.data, after.len);
        tw_buf_free(&after);
        curl_global_cleanup();
    } else {
        const char *why = http ? "wrk is not on the PATH" : "--no-http";
        printf("\nHTTP: skipped (%s)\n", why);
        put(&md, "\nHTTP: skipped (%s).\n", why);
        cJSON_AddStringToObject(rep, "http_skipped", why);
    }
    if (run_n > 0)
        run_timing(&ho, run_n, rep, &md);

    mkdir(out, 0755);
    char path[1200];
    /* DATE.json, DATE-http.json with --http-only, DATE-NAME.json with --name */
    const char *suffix = name ? name : decoders ? "" : "http";
    const char *dash = suffix[0] ? "-" : "";
    /* a report already there (a committed one, or an earlier run of the day)
     * is never overwritten: the next free STEM-2, STEM-3, ... is used */
    char stem[1100];
    snprintf(stem, sizeof stem, "%s/%s%s%s", out, date, dash, suffix);
    for (int k = 2;; k++) {
        char md_path[1200];
        snprintf(path, sizeof path, "%s.json", stem);
        snprintf(md_path, sizeof md_path, "%s.md", stem);
        if (access(path, F_OK) != 0 && access(md_path, F_OK) != 0)
            break;
        if (k > 99)
            die("%s.json or .md exists, and so do -2 to -99: pass --name or --out", stem);
        printf("%s exists: not overwritten\n", access(path, F_OK) == 0 ? path : md_path);
        snprintf(stem, sizeof stem, "%s/%s%s%s-%d", out, date, dash, suffix, k);
    }
    snprintf(path, sizeof path, "%s.json", stem);
    char *js = cJSON_Print(rep);
    FILE *f = fopen(path, "w");
    if (!f || !js || fputs(js, f) < 0 || fputc('\n', f) < 0 || fclose(f) != 0)
        die("cannot write %s: %s", path, strerror(errno));
    printf("wrote %s\n", path);
    snprintf(path, sizeof path, "%s.md", stem);
    f = fopen(path, "w");
    if (!f || fwrite(md.data, 1, md.len, f) != md.len || fclose(f) != 0)
        die("cannot write %s: %s", path, strerror(errno));
    printf("wrote %s\n", path);
    free(js);
    tw_buf_free(&md);
    cJSON_Delete(rep);
    for (size_t i = 0; i < nw; i++) {
        tw_buf_free(&ws[i].in);
        free(ws[i].spans);
    }
    return 0;
}
