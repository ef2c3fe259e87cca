/*
 * SSE framing: every line ending, CRLF split across feeds, fields, caps
 * and the same events for every split of the input.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolwire/sse.h"
#include "twtest.h"

/* Events and diagnostics rendered as one text, to compare runs. */
typedef struct rec {
    tw_buf log;
    size_t events, diags;
} rec;

static tw_status on_ev(void *u, const tw_sse_event *ev)
{
    rec *r = u;
    r->events++;
    tw_buf_printf(&r->log, "[%.*s|%.*s|%.*s@%llu%s]", (int)ev->type_len, ev->type,
                  (int)ev->data_len, ev->data, (int)ev->id_len, ev->id,
                  (unsigned long long)ev->offset, ev->terminated ? "" : " unterminated");
    return TW_OK;
}

static tw_status on_diag(void *u, tw_status code, uint64_t off)
{
    rec *r = u;
    r->diags++;
    tw_buf_printf(&r->log, "{%s@%llu}", tw_code_name(code), (unsigned long long)off);
    return TW_OK;
}

/* Feed `s` in pieces of `chunk` bytes (0: whole), each an exact-size copy. */
static char *run(const char *s, size_t len, size_t chunk, const tw_limits *L, bool flush,
                 long long *retry)
{
    rec r = {0};
    tw_sse p;
    cr_assert_eq(tw_sse_init(&p, L, flush, on_ev, on_diag, &r), TW_OK);
    if (chunk == 0)
        chunk = len ? len : 1;
    for (size_t off = 0; off < len; off += chunk) {
        size_t n = len - off < chunk ? len - off : chunk;
        char *piece = tw_test_exact(s + off, n);
        cr_assert_eq(tw_sse_feed(&p, piece, n), TW_OK);
        free(piece);
    }
    cr_assert_eq(p.fed, len);
    if (retry)
        *retry = p.retry_ms;
    cr_assert_eq(tw_sse_finish(&p), TW_OK);
    tw_sse_release(&p);
    tw_buf_puts(&r.log, "");
    return r.log.data;
}

static void expect(const char *input, const char *want)
{
    size_t len = strlen(input);
    for (size_t chunk = 0; chunk <= len; chunk++) {
        char *got = run(input, len, chunk, NULL, false, NULL);
        cr_assert_str_eq(got, want, "chunk %zu of %s", chunk, input);
        free(got);
    }
}

Test(sse, line_endings)
{
    expect("data: a\n\ndata: b\n\n", "[message|a|@0][message|b|@9]");
    expect("data: a\r\n\r\ndata: b\r\n\r\n", "[message|a|@0][message|b|@11]");
    expect("data: a\r\rdata: b\r\r", "[message|a|@0][message|b|@9]");
    /* mixed endings in one stream */
    expect("data: a\r\ndata: b\rdata: c\n\r\n", "[message|a\nb\nc|@0]");
}

Test(sse, crlf_split_across_feeds)
{
    /* "\r" ends one feed, "\n" starts the next: one line end, not two */
    const char *s = "data: x\r\ndata: y\r\n\r\n";
    size_t len = strlen(s);
    for (size_t cut = 1; cut < len; cut++) {
        rec r = {0};
        tw_sse p;
        tw_sse_init(&p, NULL, false, on_ev, on_diag, &r);
        char *a = tw_test_exact(s, cut), *b = tw_test_exact(s + cut, len - cut);
        tw_sse_feed(&p, a, cut);
        tw_sse_feed(&p, b, len - cut);
        tw_sse_finish(&p);
        free(a);
        free(b);
        cr_assert_eq(r.events, 1, "cut %zu: %zu events", cut, r.events);
        cr_assert_str_eq(r.log.data, "[message|x\ny|@0]", "cut %zu", cut);
        tw_buf_free(&r.log);
    }
}

Test(sse, fields)
{
    /* data with and without the one space; only one space is dropped */
    expect("data:a\ndata: b\ndata:  c\n\n", "[message|a\nb\n c|@0]");
    /* comments ignored, and the offset is the first field line */
    expect(": hello\n:\ndata: x\n\n", "[message|x|@10]");
    /* event: sets the type, for that event only */
    expect("event: add\ndata: 1\n\ndata: 2\n\n", "[add|1|@0][message|2|@20]");
    /* id persists to later events; a field name without colon has an empty value */
    expect("id: 7\ndata\n\ndata: z\n\n", "[message||7@0][message|z|7@12]");
    /* no data: nothing dispatched (the type is reset) */
    expect("event: ping\n\ndata: q\n\n", "[message|q|@13]");
    /* unknown fields ignored; the value keeps further colons */
    expect("foo: bar\ndata: a:b\n\n", "[message|a:b|@0]");
    /* a leading BOM is dropped */
    expect("\xEF\xBB\xBF"
           "data: b\n\n",
           "[message|b|@3]");
    long long retry = 0;
    char *g = run("retry: 1500\ndata: r\n\nretry: x\n\n", 29, 0, NULL, false, &retry);
    cr_assert_eq(retry, 1500);
    free(g);
}

Test(sse, unterminated_last_event)
{
    const char *s = "data: a\n\ndata: b";
    char *std = run(s, strlen(s), 0, NULL, false, NULL);
    cr_assert_str_eq(std, "[message|a|@0]");
    free(std);
    for (size_t chunk = 1; chunk <= 4; chunk++) {
        char *fl = run(s, strlen(s), chunk, NULL, true, NULL);
        cr_assert_str_eq(fl, "[message|a|@0][message|b|@9 unterminated]");
        free(fl);
    }
    /* a terminated line without the blank line */
    char *fl2 = run("data: c\n", 8, 0, NULL, true, NULL);
    cr_assert_str_eq(fl2, "[message|c|@0 unterminated]");
    free(fl2);
}

Test(sse, line_cap)
{
    tw_limits L = {0};
    L.max_line_bytes = 16;
    /* line 2 (offset 9) is 26 bytes: reported there, its event dropped */
    const char *s = "data: ok\ndata: 0123456789abcdefghij\ndata: more\n\ndata: next\n\n";
    size_t len = strlen(s);
    for (size_t chunk = 0; chunk <= len; chunk++) {
        char *got = run(s, len, chunk, &L, false, NULL);
        cr_assert_str_eq(got, "{sse_line_too_long@9}[message|next|@48]", "chunk %zu", chunk);
        free(got);
    }
    /* a line of exactly the cap is fine */
    const char *t = "data: 0123456789\n\n";
    char *got = run(t, strlen(t), 1, &L, false, NULL);
    cr_assert_str_eq(got, "[message|0123456789|@0]");
    free(got);
}

Test(sse, event_cap)
{
    tw_limits L = {0};
    L.max_event_bytes = 8;
    /* 4 + 1 + 4 = 9 bytes of data: over; reported at the event's first line */
    const char *s = ": c\ndata: 1234\ndata: 5678\ndata: x\n\ndata: 12345678\n\n";
    size_t len = strlen(s);
    for (size_t chunk = 0; chunk <= len; chunk++) {
        char *got = run(s, len, chunk, &L, false, NULL);
        cr_assert_str_eq(got, "{sse_event_too_large@4}[message|12345678|@35]", "chunk %zu", chunk);
        free(got);
    }
}

Test(sse, memory_stays_bounded)
{
    tw_limits L = {0};
    L.max_line_bytes = 1000;
    L.max_event_bytes = 4000;
    rec r = {0};
    tw_sse p;
    tw_sse_init(&p, &L, true, on_ev, on_diag, &r);
    char piece[4096];
    memset(piece, 'x', sizeof piece);
    tw_sse_feed(&p, "data: ", 6);
    for (int i = 0; i < 2048; i++) { /* 8 MiB in one line */
        tw_sse_feed(&p, piece, sizeof piece);
        cr_assert_leq(p.line.cap, 2 * L.max_line_bytes + 64);
    }
    tw_sse_feed(&p, "\n\n", 2);
    /* many short data lines in one event */
    for (int i = 0; i < 4096; i++) {
        tw_sse_feed(&p, "data: 0123456789\n", 17);
        cr_assert_leq(p.data.cap, 2 * L.max_event_bytes + 64);
    }
    tw_sse_feed(&p, "\n", 1);
    tw_sse_finish(&p);
    cr_assert_eq(r.events, 0);
    cr_assert_eq(r.diags, 2);
    cr_assert_str_eq(r.log.data, "{sse_line_too_long@0}{sse_event_too_large@8388616}");
    tw_buf_free(&r.log);
}

Test(sse, every_split_gives_the_same_events)
{
    const char *s = "\xEF\xBB\xBF: comment\r\nevent: a\r\nid: 1\r\ndata: {\"x\": 1}\r\n\r\n"
                    "data: two\rdata: lines\r\r"
                    "event: b\ndata:\n\n"
                    "retry: 10\ndata: [DONE]\n\n";
    size_t len = strlen(s);
    char *want = run(s, len, 0, NULL, true, NULL);
    cr_assert_str_eq(want,
                     "[a|{\"x\": 1}|1@14][message|two\nlines|1@49][b||1@72][message|[DONE]|1@88]");
    for (size_t cut = 0; cut <= len; cut++) {
        for (size_t cut2 = cut; cut2 <= len; cut2 += 3) {
            rec r = {0};
            tw_sse p;
            tw_sse_init(&p, NULL, true, on_ev, on_diag, &r);
            size_t cuts[4] = {0, cut, cut2, len};
            for (int i = 0; i < 3; i++) {
                size_t n = cuts[i + 1] - cuts[i];
                char *piece = tw_test_exact(s + cuts[i], n);
                tw_sse_feed(&p, piece, n);
                free(piece);
            }
            tw_sse_finish(&p);
            cr_assert_str_eq(r.log.data ? r.log.data : "", want, "cuts %zu %zu", cut, cut2);
            tw_buf_free(&r.log);
        }
    }
    free(want);
}

/* A callback's status stops the parser; afterwards feed and finish answer
 * TW_ERR_STATE and nothing leaks. */
static tw_status stop_at_second(void *u, const tw_sse_event *ev)
{
    (void)ev;
    size_t *n = u;
    return ++*n == 2 ? TW_ERR_INVALID : TW_OK;
}

Test(sse, callback_status_stops_the_parser)
{
    static const char in[] = "data: a\n\ndata: b\n\ndata: c\n\n";
    size_t n = 0;
    tw_sse p;
    cr_assert_eq(tw_sse_init(&p, NULL, false, stop_at_second, NULL, &n), TW_OK);
    cr_assert_eq(tw_sse_feed(&p, in, sizeof in - 1), TW_ERR_INVALID);
    cr_assert_eq(n, 2, "no event after the one that stopped the parser");
    cr_assert_eq(tw_sse_feed(&p, "data: d\n\n", 9), TW_ERR_STATE);
    cr_assert_eq(n, 2);
    cr_assert_eq(tw_sse_finish(&p), TW_ERR_STATE);
    tw_sse_release(&p);
}

Test(sse, nothing_after_finish)
{
    rec r = {0};
    tw_sse p;
    cr_assert_eq(tw_sse_init(&p, NULL, true, on_ev, on_diag, &r), TW_OK);
    cr_assert_eq(tw_sse_feed(&p, "data: a", 7), TW_OK);
    cr_assert_eq(tw_sse_finish(&p), TW_OK);
    cr_assert_eq(r.events, 1);
    cr_assert_eq(tw_sse_feed(&p, "\n\ndata: b\n\n", 11), TW_ERR_STATE);
    cr_assert_eq(tw_sse_finish(&p), TW_ERR_STATE);
    cr_assert_eq(r.events, 1);
    tw_sse_release(&p);
    tw_sse_release(&p);
    tw_buf_free(&r.log);
}

/* A NUL outside a data value makes its line a field no stream knows (or an
 * id that is ignored): the line is reported where the NUL is, never dropped
 * without a word. A NUL inside a data value is passed on. */
Test(sse, nul_outside_data_is_reported)
{
    static const char s[] = "data: a\n\n\0data: lost\n\ndata: b\nid: 7\0\nevent: x\0y\n\n"
                            ": comment \0 ignored\ndata: c\0d\n\n";
    size_t len = sizeof s - 1;
    for (size_t chunk = 0; chunk <= len; chunk++) {
        char *got = run(s, len, chunk, NULL, false, NULL);
        /* "x\0y" as the type prints up to its NUL; "c\0d" likewise */
        cr_assert_str_eq(got,
                         "[message|a|@0]{sse_nul@9}{sse_nul@35}{sse_nul@45}[x|b|@22]"
                         "[message|c|@69]",
                         "chunk %zu", chunk);
        free(got);
    }
}
