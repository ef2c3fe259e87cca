/*
 * The fixture target: harness/fixture/fixture.h's loader over arbitrary bytes.
 * Header as for the decoder targets (invariants.h: the limits); the rest is
 * the fixture file. When the fixture names a reference decoder and raw model
 * text, that text is decoded too and the result checked.
 */
#include <stdlib.h>
#include <string.h>

#include "decode_opts.h"
#include "fixture.h"
#include "invariants.h"
#include "toolwire/decode.h"

static void touch(const char *s, const char *what)
{
    TW_FZ_CHECK(s != NULL, "fixture: %s is NULL", what);
    (void)strlen(s); /* a dangling view is caught by ASan here */
}

static void check_kv(const tw_kv *kv, size_t n, const char *what)
{
    TW_FZ_CHECK(n == 0 || kv != NULL, "fixture: %zu %s but no array", n, what);
    for (size_t i = 0; i < n; i++) {
        touch(kv[i].name, what);
        touch(kv[i].value, what);
    }
}

static void check_fixture(const tw_fixture *fx, const tw_fz_setup *s)
{
    touch(fx->path, "path");
    TW_FZ_CHECK(fx->root != NULL, "fixture: loaded without a tree");
    TW_FZ_CHECK(fx->ntags == 0 || fx->tags, "fixture: tags count without tags");
    for (size_t i = 0; i < fx->ntags; i++)
        touch(fx->tags[i], "tag");
    TW_FZ_CHECK(fx->nexchanges == 0 || fx->exchanges, "fixture: exchanges count without array");
    for (size_t i = 0; i < fx->nexchanges; i++) {
        const tw_fx_exchange *x = &fx->exchanges[i];
        check_kv(x->req.headers, x->req.nheaders, "request headers");
        check_kv(x->resp.headers, x->resp.nheaders, "response headers");
        TW_FZ_CHECK(x->resp.nevents == 0 || x->resp.events, "fixture: events count without array");
        for (size_t k = 0; k < x->resp.nevents; k++)
            touch(x->resp.events[k].data, "event data");
        for (size_t k = 0; k < x->nexpect_fail; k++)
            touch(x->expect_fail[k].check, "expect_fail check");
        /* the exchange's own decoder over its raw model text */
        const tw_format_ops *f = x->decode_format ? tw_format_find(x->decode_format) : NULL;
        if (f && x->model_text) {
            tw_opts_holder h;
            tw_opts_holder_init(&h);
            tw_error why = {.offset = -1};
            if (tw_opts_from_json(&h, x->decode_options, &why)) {
                h.o.limits = s->o.limits;
                tw_result r;
                memset(&r, 0, sizeof r);
                size_t n = strlen(x->model_text);
                char *in = tw_fz_copy(x->model_text, n);
                if (f->decode(in, n, &h.o, &r) == TW_OK) {
                    tw_limits L;
                    tw_limits_resolve(&L, &h.o.limits);
                    TW_FZ_CHECK(r.msg.ncalls <= L.max_calls, "fixture: decode over max_calls");
                    for (size_t c = 0; c < r.msg.ncalls; c++)
                        TW_FZ_CHECK(r.msg.calls[c].id && r.msg.calls[c].id[0] &&
                                        r.msg.calls[c].name && r.msg.calls[c].name[0],
                                    "fixture: decoded call %zu without id or name", c);
                }
                free(in);
                tw_result_free(&r);
            }
            tw_opts_holder_free(&h);
        }
    }
}

int tw_fz_fixture(const uint8_t *data, size_t size)
{
    tw_fz_setup s;
    tw_fz_read_header(data, size, &s);
    bool mem = tw_fz_mem_enabled();
    int64_t base = tw_fz_mem_live();
    char *in = tw_fz_copy(s.body, s.len);
    tw_error why1 = {.offset = -1}, why2 = {.offset = -1};
    tw_fixture a, b;
    tw_fz_mem_mark();
    tw_status st1 = tw_fixture_parse(in, s.len, "fuzz.json", &s.o.limits, &a, &why1);
    int64_t peak = tw_fz_mem_peak() - base - (int64_t)s.len;
    int64_t bound = tw_fz_mem_bound(s.len, &s.L);
    TW_FZ_CHECK(!mem || peak <= bound, "fixture: peak memory %lld over the bound %lld",
                (long long)peak, (long long)bound);
    tw_status st2 = tw_fixture_parse(in, s.len, "fuzz.json", &s.o.limits, &b, &why2);
    TW_FZ_CHECK(st1 == st2, "fixture: the same bytes load as %s, then %s", tw_code_name(st1),
                tw_code_name(st2));
    if (st1 == TW_OK) {
        check_fixture(&a, &s);
        TW_FZ_CHECK(a.nexchanges == b.nexchanges && a.ntags == b.ntags,
                    "fixture: the same bytes give two different fixtures");
    } else {
        TW_FZ_CHECK(memchr(why1.message, 0, sizeof why1.message) && why1.message[0],
                    "fixture: refused (%s) without saying why", tw_code_name(st1));
        tw_fz_check_text(why1.message, "fixture: why");
        TW_FZ_CHECK(strcmp(why1.message, why2.message) == 0,
                    "fixture: two reasons for one refusal: '%s' / '%s'", why1.message,
                    why2.message);
        TW_FZ_CHECK(a.root == NULL && a.exchanges == NULL && a.path == NULL,
                    "fixture: refused, but the output still holds memory");
    }
    tw_fixture_free(&a);
    tw_fixture_free(&b);
    free(in);
    TW_FZ_CHECK(!mem || tw_fz_mem_live() == base, "fixture: %lld bytes leaked",
                (long long)(tw_fz_mem_live() - base));
    return 0;
}
