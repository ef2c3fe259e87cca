/* The unit-test steps every model dialect's suite shares (dialect_tests.h). */
#include "dialect_tests.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "twtest.h"

/* The library's work counter (src/work.h, internal: declared here so the
 * support library needs no internal include path). */
uint64_t tw_work_count(void);
void tw_work_reset(void);

const tw_format_ops *tw_dlt_format(const char *format)
{
    const tw_format_ops *f = tw_format_find(format);
    cr_assert_not_null(f, "no decoder %s", format);
    return f;
}

void tw_dlt_split(const char *format, const tw_decode_opts *o, const char *s, size_t n,
                  tw_dlt_check check, size_t from, size_t step_a, size_t step_b)
{
    const tw_format_ops *f = tw_dlt_format(format);
    void *d = f->new_dec(o, NULL, NULL);
    cr_assert_not_null(d);
    for (size_t cut = 0; cut <= n; cut++) {
        cr_assert_eq(f->reset(d, o, NULL, NULL), TW_OK);
        cr_assert_eq(f->feed(d, s, cut), TW_OK, "cut %zu", cut);
        cr_assert_eq(f->feed(d, s + cut, n - cut), TW_OK, "cut %zu", cut);
        tw_result r;
        cr_assert_eq(f->finish(d, &r), TW_OK, "cut %zu", cut);
        check(&r);
        f->recycle(d, &r);
    }
    for (size_t a = from; step_a && a < n; a += step_a)
        for (size_t b = a; b <= n; b += step_b) {
            cr_assert_eq(f->reset(d, o, NULL, NULL), TW_OK);
            cr_assert_eq(f->feed(d, s, a), TW_OK);
            cr_assert_eq(f->feed(d, s + a, b - a), TW_OK);
            cr_assert_eq(f->feed(d, s + b, n - b), TW_OK);
            tw_result r;
            cr_assert_eq(f->finish(d, &r), TW_OK, "cuts %zu %zu", a, b);
            check(&r);
            tw_result_free(&r);
        }
    f->free_dec(d);
}

/* The neutral text of a decode of s fed in the pieces cut at cuts[0, k). */
static char *decode_cut(const tw_format_ops *f, const tw_decode_opts *o, const char *s, size_t n,
                        const size_t *cuts, size_t k)
{
    void *d = f->new_dec(o, NULL, NULL);
    cr_assert_not_null(d);
    size_t at = 0;
    for (size_t i = 0; i <= k; i++) {
        size_t to = i < k ? cuts[i] : n;
        char *piece = tw_test_exact(s + at, to - at);
        cr_assert_eq(f->feed(d, piece, to - at), TW_OK, "piece at %zu", at);
        free(piece);
        at = to;
    }
    tw_result r;
    cr_assert_eq(f->finish(d, &r), TW_OK);
    f->free_dec(d);
    char *out = tw_test_neutral(&r);
    tw_result_free(&r);
    return out;
}

void tw_dlt_split_same(const char *format, const tw_decode_opts *o, const char *s, size_t n)
{
    const tw_format_ops *f = tw_dlt_format(format);
    tw_result whole;
    cr_assert_eq(f->decode(s, n, o, &whole), TW_OK);
    char *want = tw_test_neutral(&whole);
    tw_result_free(&whole);
    for (size_t k = 0; k <= n; k++) {
        char *got = decode_cut(f, o, s, n, &k, 1);
        cr_assert_str_eq(got, want, "cut at byte %zu", k);
        free(got);
    }
    /* one byte a feed */
    size_t *cuts = malloc((n + 1) * sizeof *cuts);
    cr_assert_not_null(cuts);
    for (size_t k = 1; k < n; k++)
        cuts[k - 1] = k;
    char *got = decode_cut(f, o, s, n, cuts, n ? n - 1 : 0);
    cr_assert_str_eq(got, want, "one byte a feed");
    free(got);
    free(cuts);
    free(want);
}

tw_status tw_dlt_on_event(void *user, const tw_event *ev)
{
    tw_dlt_events *l = user;
    char c = ev->kind == TW_EV_CONTENT     ? 'c'
             : ev->kind == TW_EV_THINKING  ? 't'
             : ev->kind == TW_EV_TOOL_CALL ? 'T'
             : ev->kind == TW_EV_ERROR     ? 'E'
             : ev->kind == TW_EV_WARNING   ? 'W'
                                           : '?';
    if ((ev->kind == TW_EV_CONTENT || ev->kind == TW_EV_THINKING) && ev->len == 0)
        return TW_OK;
    if (l->n == 0 || l->kinds[l->n - 1] != c)
        if (l->n + 1 < sizeof l->kinds)
            l->kinds[l->n++] = c;
    l->kinds[l->n] = '\0';
    if (ev->kind == TW_EV_THINKING)
        cr_assert_eq(tw_buf_append(&l->thinking, ev->text, ev->len), TW_OK);
    if (ev->kind == TW_EV_CONTENT)
        cr_assert_eq(tw_buf_append(&l->content, ev->text, ev->len), TW_OK);
    if (ev->kind == TW_EV_TOOL_CALL && ev->call) {
        size_t k = strlen(l->calls);
        snprintf(l->calls + k, sizeof l->calls - k, "[%s %s]", ev->call->id ? ev->call->id : "",
                 ev->call->name ? ev->call->name : "");
    }
    return TW_OK;
}

void tw_dlt_events_free(tw_dlt_events *ev)
{
    tw_buf_free(&ev->thinking);
    tw_buf_free(&ev->content);
}

void tw_dlt_decode(const char *format, const tw_decode_opts *o, const char *s, size_t n,
                   size_t piece, tw_dlt_events *ev, tw_result *r)
{
    const tw_format_ops *f = tw_dlt_format(format);
    if (ev)
        memset(ev, 0, sizeof *ev);
    void *d = f->new_dec(o, ev ? tw_dlt_on_event : NULL, ev);
    cr_assert_not_null(d);
    if (piece == 0)
        piece = n ? n : 1;
    for (size_t i = 0; i < n; i += piece)
        cr_assert_eq(f->feed(d, s + i, n - i < piece ? n - i : piece), TW_OK, "byte %zu", i);
    cr_assert_eq(f->finish(d, r), TW_OK);
    f->free_dec(d);
}

void tw_dlt_reset_reuse(const char *format, const char *half, const char *forced,
                        const char *thinking, const char *content, const tw_decode_opts *so,
                        const char *s, tw_dlt_check check)
{
    const tw_format_ops *f = tw_dlt_format(format);
    void *d = f->new_dec(NULL, NULL, NULL);
    cr_assert_not_null(d);
    cr_assert_eq(f->feed(d, half, strlen(half)), TW_OK);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.forced_open = true;
    cr_assert_eq(f->reset(d, &o, NULL, NULL), TW_OK);
    cr_assert_eq(f->feed(d, forced, strlen(forced)), TW_OK);
    tw_result r;
    cr_assert_eq(f->finish(d, &r), TW_OK);
    cr_assert_str_eq(r.msg.thinking.data ? r.msg.thinking.data : "", thinking);
    cr_assert_str_eq(r.msg.content.data ? r.msg.content.data : "", content);
    cr_assert_eq(r.errors.len, 0);
    f->recycle(d, &r);
    /* a second finish is refused, the result empty */
    cr_assert_eq(f->finish(d, &r), TW_ERR_STATE);
    cr_assert_eq(r.msg.ncalls, 0);
    tw_result_free(&r);
    cr_assert_eq(f->reset(d, so, NULL, NULL), TW_OK);
    cr_assert_eq(f->feed(d, s, strlen(s)), TW_OK);
    cr_assert_eq(f->finish(d, &r), TW_OK);
    check(&r);
    tw_result_free(&r);
    f->free_dec(d);
}

void tw_dlt_linear(const char *format, void (*gen)(tw_buf *b, size_t n), size_t small, uint64_t cap,
                   uint64_t slack)
{
    const tw_format_ops *f = tw_dlt_format(format);
    uint64_t per_byte[2][2];
    for (int k = 0; k < 2; k++) {
        size_t n = k ? 4 * small : small;
        tw_buf b = {0};
        gen(&b, n);
        tw_decode_opts o;
        memset(&o, 0, sizeof o);
        o.limits.max_calls = n;
        for (int bytewise = 0; bytewise < 2; bytewise++) {
            void *d = f->new_dec(&o, NULL, NULL);
            cr_assert_not_null(d);
            tw_work_reset();
            if (bytewise)
                for (size_t i = 0; i < b.len; i++)
                    cr_assert_eq(f->feed(d, b.data + i, 1), TW_OK);
            else
                cr_assert_eq(f->feed(d, b.data, b.len), TW_OK);
            tw_result r;
            cr_assert_eq(f->finish(d, &r), TW_OK);
            uint64_t work = tw_work_count();
            cr_assert_eq(r.msg.ncalls, n);
            cr_assert_eq(r.errors.len, 0, "%s", r.errors.len ? r.errors.items[0].message : "");
            per_byte[k][bytewise] = work / b.len;
            cr_assert_leq(work, cap * (uint64_t)b.len, "%zu calls: %llu units for %zu bytes", n,
                          (unsigned long long)work, b.len);
            tw_result_free(&r);
            f->free_dec(d);
        }
        tw_buf_free(&b);
    }
    /* four times the calls: about the same work per byte */
    for (int bytewise = 0; bytewise < 2; bytewise++)
        cr_assert_leq(per_byte[1][bytewise], per_byte[0][bytewise] + slack);
}

uint64_t tw_dlt_work(const char *format, const char *p, size_t n, size_t calls, size_t piece)
{
    const tw_format_ops *f = tw_dlt_format(format);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits.max_calls = calls + 1;
    o.limits.max_input_bytes = n + 1;
    void *d = f->new_dec(&o, NULL, NULL);
    cr_assert_not_null(d);
    tw_work_reset();
    for (size_t i = 0; i < n; i += piece)
        cr_assert_eq(f->feed(d, p + i, n - i < piece ? n - i : piece), TW_OK);
    tw_result r;
    cr_assert_eq(f->finish(d, &r), TW_OK);
    uint64_t w = tw_work_count();
    cr_assert_eq(r.msg.ncalls, calls);
    cr_assert_eq(r.errors.len, 0, "%s", r.errors.len ? r.errors.items[0].message : "");
    tw_result_free(&r);
    f->free_dec(d);
    return w;
}

void tw_dlt_round_trip(const char *format, const tw_decode_opts *so, const tw_decode_opts *ro,
                       const char *s, tw_dlt_check check, size_t nwarn, tw_result *r, tw_buf *out,
                       tw_encode_opts *eo, tw_diag_list *w)
{
    const tw_format_ops *f = tw_dlt_format(format);
    cr_assert_eq(f->decode(s, strlen(s), so, r), TW_OK);
    memset(out, 0, sizeof *out);
    memset(w, 0, sizeof *w);
    memset(eo, 0, sizeof *eo);
    eo->warnings = w;
    const tw_encoder_ops *e = tw_encoder_find(format);
    cr_assert_not_null(e);
    cr_assert_eq(e->encode_result(r, eo, out), TW_OK);
    cr_assert_eq(w->len, nwarn, "%zu warnings: %s", w->len, w->len ? w->items[0].message : "");
    tw_decode_opts o[2];
    memset(o, 0, sizeof o);
    if (ro)
        o[0] = o[1] = *ro;
    o[1].forced_open = true; /* the same bytes read the same */
    for (int k = 0; k < 2; k++) {
        tw_result back;
        cr_assert_eq(f->decode(out->data, out->len, &o[k], &back), TW_OK);
        check(&back);
        tw_result_free(&back);
    }
}
