/*
 * Out of memory: every decoder (batch and push), every request reader,
 * every encoder of the registry, and transcoding between formats, run again
 * and again with the 1st, 2nd, 3rd … allocation failing (tw_set_allocator),
 * until a run goes through with no allocation failed. A run whose allocation
 * failed returns TW_ERR_NOMEM, or, where the library can do without the
 * memory, exactly what the run without failure returned; it leaves no block
 * behind (the allocator counts the live blocks; under ASan the leak check
 * counts too) and does not crash.
 *
 * Inputs: every decode fixture of each decoder (tests/data/decode), every
 * encode fixture's neutral request or result (tests/data/encode), and each
 * request format's own rendering of two of those requests. Set
 * TW_OOM_TRACE="K CASE" to print where allocation K of CASE was made.
 */
#include <criterion/criterion.h>
#include <execinfo.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "cli.h"
#include "decode_fixtures.h"
#include "toolwire/registry.h"
#include "toolwire/transcode.h"
#include "twtest.h"

/* ---- the failing allocator ---- */

static bool g_armed;   /* count (and fail) allocations */
static long g_count;   /* allocations counted since armed */
static long g_fail_at; /* the counted allocation that fails (1-based); 0: none */
static bool g_failed;  /* an allocation was failed */
static long g_live;    /* blocks of this allocator not freed */
/* TW_OOM_TRACE="K WHAT": print the stack of the failed allocation K of the case WHAT */
static bool g_trace;

static bool fail_now(void)
{
    if (!g_armed || ++g_count != g_fail_at)
        return false;
    g_failed = true;
    if (g_trace) { /* where the failed allocation was made: addr2line */
        void *frames[12];
        backtrace_symbols_fd(frames, backtrace(frames, 12), 2);
    }
    return true;
}

static void *oom_malloc(void *ctx, size_t n)
{
    (void)ctx;
    if (fail_now())
        return NULL;
    void *p = malloc(n ? n : 1);
    g_live += p != NULL;
    return p;
}

static void *oom_realloc(void *ctx, void *p, size_t n)
{
    (void)ctx;
    if (fail_now())
        return NULL;
    void *q = realloc(p, n ? n : 1);
    g_live += q && !p;
    return q;
}

static void oom_free(void *ctx, void *p)
{
    (void)ctx;
    g_live -= p != NULL;
    free(p);
}

static void arm(void)
{
    g_armed = true;
}
static void disarm(void)
{
    g_armed = false;
}

static void setup(void)
{
    static const tw_allocator a = {oom_malloc, oom_realloc, oom_free, NULL};
    tw_set_allocator(&a);
}

static void teardown(void)
{
    tw_set_allocator(NULL);
}

TestSuite(oom, .init = setup, .fini = teardown, .timeout = 120);

/* ---- the walk ---- */

/* One operation: runs the library call between arm() and disarm(), writes
 * what it produced (when it succeeded) into *outcome, frees the rest. */
typedef struct oom_case {
    const char *what; /* for messages */
    tw_status (*run)(const struct oom_case *c, tw_buf *outcome);
    const char *fmt, *to; /* module names */
    const char *in;       /* input bytes (exact-size copy) */
    size_t len;
    const tw_neutral_value *value; /* encoders' input */
    bool split;                    /* decoders: the push API over two pieces */
} oom_case;

static long g_walks, g_runs;
static bool g_left_result; /* a failed decode left calls or text in its result */

static void walk(const oom_case *c)
{
    tw_buf base = {0};
    long live0 = g_live;
    g_fail_at = 0;
    g_count = 0;
    tw_status st0 = c->run(c, &base);
    cr_assert_eq(g_live - (long)(base.data != NULL), live0, "%s: leaks without a failure", c->what);
    long total = g_count;
    g_walks++;
    for (long k = 1;; k++) {
        cr_assert_leq(k, total + 1, "%s: a run allocates more than the one without failure",
                      c->what);
        tw_buf got = {0};
        long live = g_live;
        g_fail_at = k;
        g_count = 0;
        g_failed = false;
        const char *tr = getenv("TW_OOM_TRACE");
        char *rest;
        g_trace = tr && strtol(tr, &rest, 10) == k && strcmp(rest + (*rest == ' '), c->what) == 0;
        tw_status st = c->run(c, &got);
        g_trace = false;
        g_fail_at = 0;
        g_runs++;
        bool same = st == st0 && got.len == base.len &&
                    (got.len == 0 || memcmp(got.data, base.data, got.len) == 0);
        tw_buf_free(&got);
        bool ok = g_live == live && !g_left_result;
        cr_expect(g_live == live, "%s: allocation %ld failed: %ld blocks leaked", c->what, k,
                  g_live - live);
        cr_expect(!g_left_result, "%s: allocation %ld failed: the failed decode left a result",
                  c->what, k);
        g_left_result = false;
        if (!g_failed) {
            cr_expect(same, "%s: the run past the last allocation differs", c->what);
            break;
        }
        ok = ok && (st == TW_ERR_NOMEM || same);
        cr_expect(st == TW_ERR_NOMEM || same,
                  "%s: allocation %ld of %ld failed: status %s, not nomem nor the result "
                  "without failure",
                  c->what, k, total, tw_code_name(st));
        if (!ok)
            break; /* one report per case */
    }
    tw_buf_free(&base);
}

/* ---- the operations ---- */

static tw_status put_result(tw_status st, tw_result *r, tw_buf *outcome)
{
    if (st == TW_OK)
        cr_assert_eq(tw_result_write(outcome, r, 0), TW_OK);
    else if (r->msg.ncalls || r->msg.content.len || r->msg.thinking.len)
        g_left_result = true;
    tw_result_free(r);
    return st;
}

/* a decoder's batch function, or (split) its push API over two pieces */
static tw_status run_decode(const oom_case *c, tw_buf *outcome)
{
    const tw_format_ops *f = tw_format_find(c->fmt);
    tw_result r;
    memset(&r, 0, sizeof r);
    tw_status st = TW_ERR_NOMEM;
    arm();
    if (!c->split) {
        st = f->decode(c->in, c->len, NULL, &r);
    } else {
        void *d = f->new_dec(NULL, NULL, NULL);
        size_t half = c->len / 2;
        tw_status st1 = d ? f->feed(d, c->in, half) : TW_ERR_NOMEM;
        tw_status st2 = d ? f->feed(d, c->in + half, c->len - half) : TW_ERR_NOMEM;
        tw_status st3 = d ? f->finish(d, &r) : TW_ERR_NOMEM;
        st = st1 != TW_OK ? st1 : st2 != TW_OK ? st2 : st3;
        f->free_dec(d);
    }
    disarm();
    return put_result(st, &r, outcome);
}

static tw_status run_read(const oom_case *c, tw_buf *outcome)
{
    const tw_request_reader_ops *rd = tw_request_reader_find(c->fmt);
    tw_request q;
    memset(&q, 0, sizeof q);
    tw_error err = {.offset = -1};
    arm();
    tw_status st = rd->decode(c->in, c->len, NULL, &q, &err);
    disarm();
    if (st == TW_OK)
        cr_assert_eq(tw_request_write(outcome, &q, 0), TW_OK);
    tw_request_free(&q);
    return st;
}

/* what an encoder wrote and the warnings it gave */
static tw_status put_bytes(tw_status st, tw_buf *out, tw_diag_list *warns, tw_buf *outcome)
{
    if (st == TW_OK) {
        cr_assert_eq(tw_buf_append(outcome, out->data ? out->data : "", out->len), TW_OK);
        for (size_t i = 0; i < warns->len; i++)
            cr_assert_eq(tw_buf_printf(outcome, "\n%s %s", tw_code_name(warns->items[i].code),
                                       warns->items[i].message),
                         TW_OK);
    }
    tw_buf_free(out);
    tw_diag_list_free(warns);
    return st;
}

static tw_status run_encode(const oom_case *c, tw_buf *outcome)
{
    const tw_encoder_ops *e = tw_encoder_find(c->to);
    tw_diag_list warns = {0};
    tw_encode_opts o = {.parallel_tool_calls = -1, .warnings = &warns};
    tw_buf out = {0};
    arm();
    tw_status st = e->input == TW_ENC_REQUEST ? e->encode_request(&c->value->req, &o, &out)
                                              : e->encode_result(&c->value->res, &o, &out);
    disarm();
    return put_bytes(st, &out, &warns, outcome);
}

static tw_status run_transcode(const oom_case *c, tw_buf *outcome)
{
    tw_diag_list warns = {0};
    tw_encode_opts o = {.parallel_tool_calls = -1, .warnings = &warns};
    tw_buf out = {0};
    tw_error err = {.offset = -1};
    arm();
    tw_status st = tw_transcode(c->fmt, c->to, c->in, c->len, &o, &out, &err);
    disarm();
    return put_bytes(st, &out, &warns, outcome);
}

/* ---- inputs ---- */

/* The neutral value of an encode fixture's "input" (read without failures). */
static bool fixture_value(const char *rel, tw_neutral_value *v)
{
    size_t len;
    cJSON *j;
    char *text = tw_test_load_exact(tw_test_src(rel), &len, &j);
    free(text);
    char *in = cJSON_PrintUnformatted(tw_json_get(j, "input"));
    cJSON_Delete(j);
    cr_assert_not_null(in);
    memset(v, 0, sizeof *v);
    tw_status st = tw_transcode_read("neutral", in, strlen(in), NULL, v, NULL, NULL);
    cJSON_free(in);
    return st == TW_OK;
}

static const char *const g_requests[] = {"tests/data/encode/openai/req_conversation.json",
                                         "tests/data/encode/openai/req_options.json"};
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Decode fixtures per decoder (0: all of them; the walk over all takes a
 * few seconds under ASan). */
#define DECODE_INPUTS 0

static void walk_decoder(const char *name, bool split)
{
    tw_test_input *in = NULL;
    size_t n = tw_test_fixture_inputs(name, DECODE_INPUTS, false, &in);
    cr_assert_gt(n, 0, "%s: no decode fixtures", name);
    for (size_t i = 0; i < n; i++) {
        char what[160];
        snprintf(what, sizeof what, "%s %s, input %zu", name, split ? "push" : "decode", i);
        oom_case c = {what, run_decode, name, NULL, in[i].data, in[i].len, NULL, split};
        walk(&c);
    }
    tw_test_inputs_free(in, n);
}

Test(oom, decoders)
{
    size_t nm;
    const tw_module *m = tw_modules(&nm);
    size_t n = 0;
    for (size_t i = 0; i < nm; i++)
        if (m[i].kind == TW_MODULE_DECODER) {
            walk_decoder(m[i].name, false);
            walk_decoder(m[i].name, true);
            n++;
        }
    cr_assert_geq(n, 10, "the registry has its decoders");
    cr_log_info("decoders: %ld walks, %ld runs", g_walks, g_runs);
}

/* every encoder on every encode fixture's neutral value of its kind */
static void walk_encoders(const char *dir, size_t *walks)
{
    char **files = NULL;
    long nf = tw_list_files(tw_test_src(dir), ".json", &files);
    cr_assert_gt(nf, 0, "%s: no encode fixtures", dir);
    size_t nm;
    const tw_module *m = tw_modules(&nm);
    for (long f = 0; f < nf; f++) {
        tw_neutral_value v;
        const char *rel = files[f] + strlen(tw_test_src("")); /* under the source tree */
        if (!fixture_value(rel, &v))
            continue;
        tw_value_kind kind = v.kind == TW_NEUTRAL_REQUEST ? TW_VALUE_REQUEST : TW_VALUE_RESULT;
        for (size_t i = 0; i < nm; i++) {
            if (m[i].kind != TW_MODULE_ENCODER || m[i].takes != kind)
                continue;
            char what[200];
            snprintf(what, sizeof what, "%s encode of %s", m[i].name, rel);
            oom_case c = {what, run_encode, NULL, m[i].name, NULL, 0, &v, false};
            walk(&c);
            ++*walks;
        }
        tw_neutral_value_free(&v);
    }
    tw_free_list(files, nf);
}

Test(oom, encoders)
{
    size_t walks = 0;
    walk_encoders("tests/data/encode/openai", &walks);
    walk_encoders("tests/data/encode/anthropic", &walks);
    cr_assert_geq(walks, 500, "every encoder walked over the encode fixtures");
}

/* A request in `fmt` (a request encoder's name), rendered without failures. */
static char *render_request(const char *fmt, const char *file, size_t *len)
{
    tw_neutral_value v;
    cr_assert(fixture_value(file, &v), "%s", file);
    tw_encode_opts o = {.parallel_tool_calls = -1};
    tw_buf out = {0};
    cr_assert_eq(tw_transcode_write(&v, fmt, &o, &out, NULL), TW_OK, "%s of %s", fmt, file);
    tw_neutral_value_free(&v);
    char *exact = tw_test_exact(out.data, out.len);
    *len = out.len;
    tw_buf_free(&out);
    return exact;
}

Test(oom, request_readers_and_transcode)
{
    size_t nm;
    const tw_module *m = tw_modules(&nm);
    size_t n = 0;
    for (size_t i = 0; i < nm; i++) {
        if (m[i].kind != TW_MODULE_REQUEST_READER || !tw_encoder_find(m[i].name))
            continue;
        for (size_t k = 0; k < NELEM(g_requests); k++) {
            size_t len;
            char *in = render_request(m[i].name, g_requests[k], &len);
            char what[200];
            snprintf(what, sizeof what, "%s read of %s", m[i].name, g_requests[k]);
            oom_case c = {what, run_read, m[i].name, NULL, in, len, NULL, false};
            walk(&c);
            /* to every request format, each input to one target in turn */
            for (size_t t = 0; t < nm; t++) {
                if (m[t].kind != TW_MODULE_ENCODER || m[t].takes != TW_VALUE_REQUEST ||
                    (t + i) % NELEM(g_requests) != k)
                    continue;
                snprintf(what, sizeof what, "transcode %s -> %s of %s", m[i].name, m[t].name,
                         g_requests[k]);
                oom_case tc = {what, run_transcode, m[i].name, m[t].name, in, len, NULL, false};
                walk(&tc);
            }
            free(in);
        }
        n++;
    }
    cr_assert_geq(n, 5, "the registry has its request readers");
}

Test(oom, transcode_results)
{
    size_t nm;
    const tw_module *m = tw_modules(&nm);
    for (size_t i = 0; i < nm; i++) {
        if (m[i].kind != TW_MODULE_DECODER)
            continue;
        tw_test_input *in = NULL;
        size_t n = tw_test_fixture_inputs(m[i].name, 1, true, &in);
        cr_assert_gt(n, 0);
        for (size_t t = 0; t < nm; t++) {
            if (m[t].kind != TW_MODULE_ENCODER || m[t].takes != TW_VALUE_RESULT)
                continue;
            char what[200];
            snprintf(what, sizeof what, "transcode %s -> %s", m[i].name, m[t].name);
            oom_case c = {what,       run_transcode, m[i].name, m[t].name,
                          in[0].data, in[0].len,     NULL,      false};
            walk(&c);
        }
        tw_test_inputs_free(in, n);
    }
}
