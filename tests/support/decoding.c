/* Helpers shared by the decoder suites: see decoding.h. */
#include "decoding.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "decode_fixtures.h"
#include "toolwire/json.h"
#include "twtest.h"

char *tw_test_result_json(const tw_result *r)
{
    tw_buf b = {0};
    cr_assert_eq(tw_result_write(&b, r, 0), TW_OK);
    return b.data;
}

void tw_test_decode_every_way(const char *fmt, const char *buf, size_t len, const tw_decode_opts *o,
                              tw_result *out)
{
    const tw_format_ops *f = tw_format_find(fmt);
    cr_assert_not_null(f, "format %s", fmt);
    cr_assert(buf || len == 0, "%s: no body", fmt);
    char *copy = tw_test_exact(buf, len);
    cr_assert_eq(f->decode(copy, len, o, out), TW_OK);
    char *want = tw_test_result_json(out);
    static const size_t chunks[] = {1, 7, 64};
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        tw_result r;
        cr_assert_eq(tw_decode_chunked(f, copy, len, chunks[i], o, &r), TW_OK);
        char *got = tw_test_result_json(&r);
        cr_assert_str_eq(got, want, "%s chunk %zu differs from batch", fmt, chunks[i]);
        free(got);
        tw_result_free(&r);
    }
    free(want);
    free(copy);
}

void tw_test_expect_call(const tw_result *r, size_t i, const char *id, const char *name,
                         const char *args_json)
{
    cr_assert_gt(r->msg.ncalls, i, "call %zu missing", i);
    const tw_call *c = &r->msg.calls[i];
    cr_assert_str_eq(c->id, id);
    cr_assert_str_eq(c->name, name);
    cJSON *want = cJSON_Parse(args_json);
    cr_assert_not_null(want);
    char *got = cJSON_PrintUnformatted(c->arguments);
    cr_assert(tw_json_equal(want, c->arguments), "call %zu arguments: %s", i, got);
    free(got);
    cJSON_Delete(want);
}

void tw_test_expect_text(const tw_buf *b, const char *want)
{
    cr_assert_eq(b->len, strlen(want), "expected \"%s\", got \"%.*s\"", want, (int)b->len,
                 b->data ? b->data : "");
    cr_assert(b->len == 0 || memcmp(b->data, want, b->len) == 0, "expected \"%s\"", want);
}

void tw_test_expect_clean(const tw_result *r)
{
    cr_assert_eq(r->errors.len, 0, "unexpected error %s: %s",
                 r->errors.len ? tw_code_name(r->errors.items[0].code) : "",
                 r->errors.len && r->errors.items[0].message ? r->errors.items[0].message : "");
    cr_assert_eq(r->warnings.len, 0, "unexpected warning %s",
                 r->warnings.len ? tw_code_name(r->warnings.items[0].code) : "");
}

bool tw_test_has_diag(const tw_diag_list *l, tw_status code)
{
    for (size_t i = 0; i < l->len; i++)
        if (l->items[i].code == code)
            return true;
    return false;
}

void tw_test_load_cassette(const char *name, tw_cassette *c)
{
    const char *path = tw_test_shared(name);
    if (!path)
        cr_skip("../shared/real-traffic is absent");
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_cassette_load(path, NULL, c, &why), TW_OK, "%s", why.message);
}

void tw_test_fixture_open(tw_test_fixture *t, const char *path)
{
    memset(t, 0, sizeof *t);
    tw_error why = {.offset = -1};
    t->json = tw_load_json_file(path, 1 << 26, 256, &why);
    cr_assert_not_null(t->json, "%s", why.message);
    tw_opts_holder_init(&t->h);
    cr_assert(tw_opts_from_json(&t->h, tw_json_get(t->json, "options"), &why), "%s", why.message);
    t->path = path;
    t->f = tw_format_find(tw_json_get_str(t->json, "format"));
    cr_assert_not_null(t->f, "%s: format", path);
    char *in = NULL;
    cr_assert(tw_decode_fixture_input(t->json, path, &in, &t->len, &why), "%s", why.message);
    t->in = tw_test_exact(in, t->len);
    free(in);
}

void tw_test_fixture_close(tw_test_fixture *t)
{
    free(t->in);
    tw_opts_holder_free(&t->h);
    cJSON_Delete(t->json);
    memset(t, 0, sizeof *t);
}

tw_status tw_test_collect_event(void *user, const tw_event *ev)
{
    tw_test_events *c = user;
    switch (ev->kind) {
    case TW_EV_CONTENT: tw_buf_append(&c->content, ev->text, ev->len); break;
    case TW_EV_THINKING: tw_buf_append(&c->thinking, ev->text, ev->len); break;
    case TW_EV_TOOL_CALL:
        if (c->ncalls < TW_TEST_EVENT_IDS)
            snprintf(c->ids[c->ncalls], sizeof c->ids[0], "%s", ev->call->id);
        c->ncalls++;
        break;
    case TW_EV_ERROR: c->nerrors++; break;
    case TW_EV_WARNING: c->nwarnings++; break;
    }
    return TW_OK;
}

void tw_test_events_free(tw_test_events *e)
{
    tw_buf_free(&e->content);
    tw_buf_free(&e->thinking);
    memset(e, 0, sizeof *e);
}

size_t tw_test_rnd(uint64_t *state, size_t n)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return (size_t)(*state % n);
}

static void stream_random_pieces(const tw_format_ops *f, const tw_decode_opts *o, const char *in,
                                 size_t len, uint64_t *rng, size_t most, tw_result *r,
                                 tw_test_events *ev)
{
    memset(ev, 0, sizeof *ev);
    tw_stream *s = tw_stream_new(f, o, tw_test_collect_event, ev);
    cr_assert_not_null(s);
    for (size_t off = 0; off < len;) {
        size_t k = 1 + tw_test_rnd(rng, most);
        if (k > len - off)
            k = len - off;
        char *piece = tw_test_exact(in + off, k);
        cr_assert_eq(tw_stream_feed(s, piece, k), TW_OK);
        free(piece);
        off += k;
    }
    cr_assert_eq(tw_stream_finish(s, r), TW_OK);
    tw_stream_free(s);
}

static void expect_events_carry(const tw_test_events *ev, const tw_result *r, const char *what,
                                bool with_warnings)
{
    cr_assert_eq(ev->content.len, r->msg.content.len, "%s: content events", what);
    cr_assert(ev->content.len == 0 ||
                  memcmp(ev->content.data, r->msg.content.data, ev->content.len) == 0,
              "%s: content events differ", what);
    cr_assert_eq(ev->thinking.len, r->msg.thinking.len, "%s: thinking events", what);
    cr_assert(ev->thinking.len == 0 ||
                  memcmp(ev->thinking.data, r->msg.thinking.data, ev->thinking.len) == 0,
              "%s: thinking events differ", what);
    cr_assert_eq(ev->ncalls, r->msg.ncalls, "%s: call events", what);
    for (size_t k = 0; k < ev->ncalls && k < TW_TEST_EVENT_IDS; k++)
        cr_assert_str_eq(ev->ids[k], r->msg.calls[k].id, "%s: call %zu", what, k);
    cr_assert_eq(ev->nerrors, r->errors.len, "%s: error events", what);
    if (with_warnings)
        cr_assert_eq(ev->nwarnings, r->warnings.len, "%s: warning events", what);
}

void tw_test_random_splits(const tw_test_fixture *t, const tw_result *batch, uint64_t *rng,
                           int rounds, size_t small, size_t large, bool with_warnings)
{
    char *want = tw_test_result_json(batch);
    for (int round = 0; round < rounds; round++) {
        tw_test_events ev;
        tw_result r;
        stream_random_pieces(t->f, &t->h.o, t->in, t->len, rng, round < rounds / 2 ? small : large,
                             &r, &ev);
        char *got = tw_test_result_json(&r);
        if (strcmp(got, want) != 0)
            cr_log_error("batch:  %s\nstream: %s", want, got);
        cr_assert_str_eq(got, want, "%s: random split %d differs", t->path, round);
        free(got);
        expect_events_carry(&ev, &r, t->path, with_warnings);
        tw_test_events_free(&ev);
        tw_result_free(&r);
    }
    free(want);
}
