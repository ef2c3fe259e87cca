/*
 * The event callback's status (tw_event_fn, neutral.h), for every push
 * decoder of the registry over its decode fixtures: a callback that returns
 * TW_OK changes nothing (the result equals the batch decode), and one that
 * returns any other status on its k-th event stops the decode there: no
 * event after it, the feed or finish returns that status as is, every later
 * call returns it too, and *out is valid and empty.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolwire/decode.h"
#include "toolwire/json.h"
#include "cases.h"
#include "twtest.h"

typedef struct stopper {
    size_t stop_at; /* 1-based event that returns ret; 0: never */
    size_t seen;    /* events delivered */
    tw_status ret;
} stopper;

static tw_status on_event(void *user, const tw_event *ev)
{
    stopper *s = user;
    cr_assert(ev->kind <= TW_EV_WARNING);
    s->seen++;
    return s->seen == s->stop_at ? s->ret : TW_OK;
}

static void assert_empty(const tw_result *r, const char *what)
{
    cr_assert_null(r->msg.content.data, "%s: content", what);
    cr_assert_null(r->msg.thinking.data, "%s: thinking", what);
    cr_assert_eq(r->msg.ncalls, 0, "%s: calls", what);
    cr_assert_eq(r->errors.len, 0, "%s: errors", what);
    cr_assert_eq(r->warnings.len, 0, "%s: warnings", what);
    cr_assert_null(r->finish_reason, "%s: finish_reason", what);
}

/* Push buf[0, n) through a tw_stream in `chunk`-byte exact-size pieces (0:
 * one piece); the status of the first failing feed, else of finish. After a
 * failed feed, one more feed and the finish must answer the same status. */
static tw_status push(const tw_format_ops *f, const char *buf, size_t n, size_t chunk, stopper *s,
                      tw_result *out)
{
    tw_stream *t = tw_stream_new(f, NULL, on_event, s);
    cr_assert_not_null(t);
    if (chunk == 0)
        chunk = n ? n : 1;
    tw_status st = TW_OK;
    for (size_t off = 0; st == TW_OK && off < n; off += chunk) {
        size_t k = n - off < chunk ? n - off : chunk;
        char *piece = tw_test_exact(buf + off, k);
        st = tw_stream_feed(t, piece, k);
        free(piece);
    }
    if (st != TW_OK) {
        cr_assert_eq(tw_stream_feed(t, "x", 1), st, "%s: feed after the stop", f->name);
        memset(out, 0xA5, sizeof *out);
        cr_assert_eq(tw_stream_finish(t, out), st, "%s: finish after the stop", f->name);
    } else {
        memset(out, 0xA5, sizeof *out);
        st = tw_stream_finish(t, out);
    }
    tw_stream_free(t);
    return st;
}

static char *neutral(const tw_result *r)
{
    tw_buf b = {0};
    cr_assert_eq(tw_result_write(&b, r, TW_JSON_COMPACT), TW_OK);
    return b.data;
}

static void run_format(const tw_format_ops *f)
{
    tw_test_input *in;
    size_t nin = tw_test_fixture_inputs(f->name, 0, false, &in);
    size_t with_events = 0;
    static const tw_status rets[] = {TW_ERR_STATE, TW_ERR_IO, TW_ERR_LIMIT};
    for (size_t i = 0; i < nin; i++) {
        const char *text = in[i].data;
        size_t n = in[i].len;
        /* a callback that always returns TW_OK: the batch result, all events */
        tw_result want, got;
        char *copy = tw_test_exact(text, n);
        cr_assert_eq(f->decode(copy, n, NULL, &want), TW_OK, "%s", f->name);
        free(copy);
        stopper s = {0, 0, TW_OK};
        cr_assert_eq(push(f, text, n, 0, &s, &got), TW_OK, "%s", f->name);
        char *jw = neutral(&want), *jg = neutral(&got);
        cr_assert_str_eq(jg, jw, "%s: fixture %zu", f->name, i);
        free(jg);
        tw_result_free(&want);
        tw_result_free(&got);
        if (s.seen) {
            /* a stopped decoder, reset, decodes again from the start */
            stopper t = {1, 0, TW_ERR_STATE}, u = {0, 0, TW_OK};
            tw_stream *ts = tw_stream_new(f, NULL, on_event, &t);
            cr_assert_not_null(ts);
            tw_status st = tw_stream_feed(ts, text, n);
            if (st == TW_OK)
                st = tw_stream_finish(ts, &got);
            else
                cr_assert_eq(tw_stream_finish(ts, &got), st);
            cr_assert_eq(st, TW_ERR_STATE, "%s: fixture %zu", f->name, i);
            tw_result_free(&got);
            cr_assert_eq(tw_stream_reset(ts, NULL, on_event, &u), TW_OK);
            cr_assert_eq(tw_stream_feed(ts, text, n), TW_OK);
            cr_assert_eq(tw_stream_finish(ts, &got), TW_OK);
            cr_assert_eq(u.seen, s.seen, "%s: fixture %zu, events after the reset", f->name, i);
            jg = neutral(&got);
            cr_assert_str_eq(jg, jw, "%s: fixture %zu, after a stop and a reset", f->name, i);
            free(jg);
            tw_result_free(&got);
            tw_stream_free(ts);
        }
        free(jw);
        size_t nev = s.seen;
        if (nev == 0)
            continue;
        with_events++;
        /* a stop on the first, the second and the last event, whole and in pieces */
        size_t at[3] = {1, nev > 1 ? 2 : 1, nev};
        for (size_t a = 0; a < 3; a++)
            for (size_t chunk = 0; chunk <= 7; chunk += 7) {
                tw_status ret = rets[(a + chunk) % 3];
                stopper t = {at[a], 0, ret};
                tw_result r;
                tw_status st = push(f, text, n, chunk, &t, &r);
                char what[160];
                snprintf(what, sizeof what, "%s: fixture %zu, stop at event %zu of %zu, chunk %zu",
                         f->name, i, at[a], nev, chunk);
                cr_assert_eq(st, ret, "%s: %s", what, tw_code_name(st));
                cr_assert_eq(t.seen, at[a], "%s: events after the stop", what);
                assert_empty(&r, what);
                tw_result_free(&r);
            }
    }
    cr_assert_gt(with_events, 0, "%s: no fixture gives an event", f->name);
    tw_test_inputs_free(in, nin);
}

Test(events, every_push_decoder_stops_on_a_callback_status)
{
    size_t nf = 0;
    for (const tw_format_ops *const *f = tw_formats(); *f; f++, nf++)
        run_format(*f);
    cr_assert_geq(nf, 9);
}
