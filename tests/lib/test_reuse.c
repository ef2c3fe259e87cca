/*
 * Decoders reused through reset and recycle (decode.h, the modules'
 * tw_<x>_reset, tw_format_ops.recycle): for every push decoder of the
 * registry, one decoder decodes every decode fixture in turn, each twice,
 * and once after a reset in the middle of an input, every result handed
 * back to it with recycle once read, and every result equals the batch
 * decode by a fresh decoder; the text decoder's buffers, and the content
 * and thinking buffers of recycled results, keep their allocations across a
 * reset, so a second decode of the same input does not grow them.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolwire/decode.h"
#include "toolwire/json.h"
#include "toolwire/text.h"
#include "../../src/text_int.h" /* the state, for its buffers */
#include "cases.h"
#include "twtest.h"

/* The text of a result's buffer ends at its length (a recycled buffer may
 * hold older bytes past it). */
static void assert_terminated(const tw_buf *b, const char *what, const char *name)
{
    if (b->data)
        cr_assert_eq(b->data[b->len], '\0', "%s: %s not terminated at its length", name, what);
}

/* Feed s whole or in `chunk`-byte exact-size pieces, then finish; the
 * result's neutral JSON (malloc'd). The result is handed back to the
 * decoder with recycle. */
static char *decode_on(const tw_format_ops *f, void *d, const char *s, size_t n, size_t chunk)
{
    if (chunk == 0)
        chunk = n ? n : 1;
    for (size_t off = 0; off < n; off += chunk) {
        size_t k = n - off < chunk ? n - off : chunk;
        char *piece = tw_test_exact(s + off, k);
        cr_assert_eq(f->feed(d, piece, k), TW_OK, "%s", f->name);
        free(piece);
    }
    tw_result r;
    cr_assert_eq(f->finish(d, &r), TW_OK, "%s", f->name);
    assert_terminated(&r.msg.content, "content", f->name);
    assert_terminated(&r.msg.thinking, "thinking", f->name);
    char *j = tw_test_neutral(&r);
    f->recycle(d, &r);
    cr_assert_null(r.msg.content.data, "%s: recycle leaves the result empty", f->name);
    cr_assert_eq(r.msg.ncalls, 0);
    cr_assert_eq(r.errors.len + r.warnings.len, 0);
    return j;
}

Test(reuse, one_decoder_per_format_for_every_fixture)
{
    size_t nf = 0;
    for (const tw_format_ops *const *fp = tw_formats(); *fp; fp++, nf++) {
        const tw_format_ops *f = *fp;
        tw_test_input *in;
        size_t nin = tw_test_fixture_inputs(f->name, 0, false, &in);
        cr_assert_gt(nin, 0, "%s", f->name);
        void *d = f->new_dec(NULL, NULL, NULL);
        cr_assert_not_null(d);
        bool first = true;
        for (size_t i = 0; i < nin; i++) {
            tw_result want;
            size_t n = in[i].len;
            char *copy = tw_test_exact(in[i].data, n);
            cr_assert_eq(f->decode(copy, n, NULL, &want), TW_OK, "%s", f->name);
            free(copy);
            char *jw = tw_test_neutral(&want);
            tw_result_free(&want);
            for (int round = 0; round < 2; round++) {
                if (!first)
                    cr_assert_eq(f->reset(d, NULL, NULL, NULL), TW_OK);
                first = false;
                char *jg = decode_on(f, d, in[i].data, n, round ? 5 : 0);
                cr_assert_str_eq(jg, jw, "%s: fixture %zu, round %d", f->name, i, round);
                free(jg);
            }
            /* a reset in the middle of an input drops what the decoder held */
            cr_assert_eq(f->reset(d, NULL, NULL, NULL), TW_OK);
            cr_assert_eq(f->feed(d, in[i].data, n / 2), TW_OK);
            cr_assert_eq(f->reset(d, NULL, NULL, NULL), TW_OK);
            char *jg = decode_on(f, d, in[i].data, n, 0);
            cr_assert_str_eq(jg, jw, "%s: fixture %zu, after a reset mid-input", f->name, i);
            free(jg);
            free(jw);
        }
        f->free_dec(d);
        tw_test_inputs_free(in, nin);
    }
    cr_assert_geq(nf, 9);
}

/* A text input that fills every kind of held buffer: a split think block,
 * tool-call blocks with whitespace around them, and trailing whitespace. */
static void text_input(tw_buf *b)
{
    for (int i = 0; i < 200; i++) {
        char unit[256];
        int k =
            snprintf(unit, sizeof unit,
                     "<think>step %d of the plan   </think>  text %d  "
                     "<tool_call>{\"name\": \"f%d\", \"arguments\": {\"n\": %d}}</tool_call>  \n",
                     i, i, i % 7, i);
        cr_assert_eq(tw_buf_append(b, unit, (size_t)k), TW_OK);
    }
}

Test(reuse, text_reset_keeps_the_buffers)
{
    tw_buf in = {0};
    text_input(&in);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.allow_unknown_tool = true;
    o.limits.max_calls = 1000;
    tw_text_dec *d = tw_text_dec_new(TW_TEXT_HERMES, &o, NULL, NULL);
    cr_assert_not_null(d);
    tw_buf *b[TEXT_NBUFS];
    tw_text_bufs(d, b);
    char *first = NULL;
    char *data[TEXT_NBUFS];
    size_t cap[TEXT_NBUFS], total = 0;
    for (int round = 0; round < 3; round++) {
        if (round)
            cr_assert_eq(tw_text_dec_reset(d, &o, NULL, NULL), TW_OK);
        for (size_t i = 0; round && i < TEXT_NBUFS; i++) {
            cr_assert_eq(b[i]->len, 0, "buffer %zu is emptied by the reset", i);
            cr_assert_eq(b[i]->cap, cap[i], "buffer %zu keeps its allocation", i);
        }
        /* in 3-byte pieces, so that partial tags are held across feeds */
        for (size_t off = 0; off < in.len; off += 3) {
            size_t k = in.len - off < 3 ? in.len - off : 3;
            cr_assert_eq(tw_text_dec_feed(d, in.data + off, k), TW_OK);
        }
        tw_result r;
        cr_assert_eq(tw_text_dec_finish(d, &r), TW_OK);
        cr_assert_eq(r.msg.ncalls, 200);
        char *j = tw_test_neutral(&r);
        tw_result_free(&r);
        if (round == 0) {
            first = j;
            for (size_t i = 0; i < TEXT_NBUFS; i++) {
                data[i] = b[i]->data;
                cap[i] = b[i]->cap;
                total += cap[i];
            }
            cr_assert_gt(total, 0, "the input holds bytes in the decoder's buffers");
            continue;
        }
        cr_assert_str_eq(j, first, "round %d", round);
        free(j);
        /* the same input again: no buffer grew, none was allocated anew */
        for (size_t i = 0; i < TEXT_NBUFS; i++) {
            cr_assert_eq(b[i]->cap, cap[i], "round %d: buffer %zu grew", round, i);
            if (cap[i])
                cr_assert_eq(b[i]->data, data[i], "round %d: buffer %zu moved", round, i);
        }
    }
    free(first);
    tw_text_dec_free(d);
    tw_text_dec_free(NULL);
    tw_buf_free(&in);
}

/* Inputs of different sizes and shapes, one after another: what a recycled
 * result's buffers held before must never show in the next result. */
static size_t mixed_inputs(tw_buf *in, size_t max)
{
    size_t k = 0;
    cr_assert_geq(max, 9);
    /* 1: long reasoning, then content */
    cr_assert_eq(tw_buf_append(&in[k], "<think>", 7), TW_OK);
    for (int i = 0; i < 2000; i++)
        cr_assert_eq(tw_buf_printf(&in[k], "reasoning line %d  \n", i), TW_OK);
    cr_assert_eq(tw_buf_puts(&in[k++], "</think>\n\nThe answer is 42.  \n"), TW_OK);
    /* 2: empty */
    k++;
    /* 3: whitespace only */
    cr_assert_eq(tw_buf_puts(&in[k++], " \n\t "), TW_OK);
    /* 4: short content, no reasoning */
    cr_assert_eq(tw_buf_puts(&in[k++], "ok"), TW_OK);
    /* 5: two think blocks and a call */
    cr_assert_eq(tw_buf_puts(&in[k++],
                             "<think> a </think><thinking>\nb\n</thinking> text "
                             "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>"),
                 TW_OK);
    /* 6: long content with whitespace runs */
    for (int i = 0; i < 3000; i++)
        cr_assert_eq(tw_buf_printf(&in[k], "content %d \n\n", i), TW_OK);
    k++;
    /* 7: an unterminated think block */
    cr_assert_eq(tw_buf_puts(&in[k++], "<think>never closed   "), TW_OK);
    /* 8: short reasoning only */
    cr_assert_eq(tw_buf_puts(&in[k++], "<think>x</think>"), TW_OK);
    /* 9: the first input again */
    cr_assert_eq(tw_buf_append(&in[k], in[0].data, in[0].len), TW_OK);
    k++;
    return k;
}

Test(reuse, recycled_results_equal_fresh_decodes)
{
    tw_buf in[9];
    memset(in, 0, sizeof in);
    size_t nin = mixed_inputs(in, 9);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.allow_unknown_tool = true;
    size_t nf = 0;
    for (const tw_format_ops *const *fp = tw_formats(); *fp; fp++, nf++) {
        const tw_format_ops *f = *fp;
        cr_assert_not_null(f->recycle, "%s", f->name);
        tw_stream *s = tw_stream_new(f, &o, NULL, NULL);
        cr_assert_not_null(s);
        for (int pass = 0; pass < 2; pass++) {
            for (size_t i = 0; i < nin; i++) {
                const char *p = in[i].data ? in[i].data : "";
                tw_result want, got;
                char *copy = tw_test_exact(p, in[i].len);
                cr_assert_eq(f->decode(copy, in[i].len, &o, &want), TW_OK, "%s", f->name);
                free(copy);
                char *jw = tw_test_neutral(&want);
                tw_result_free(&want);
                if (pass || i)
                    cr_assert_eq(tw_stream_reset(s, &o, NULL, NULL), TW_OK);
                /* in 7-byte pieces on the second pass */
                size_t step = pass ? 7 : (in[i].len ? in[i].len : 1);
                for (size_t off = 0; off < in[i].len; off += step) {
                    size_t k = in[i].len - off < step ? in[i].len - off : step;
                    char *piece = tw_test_exact(p + off, k);
                    cr_assert_eq(tw_stream_feed(s, piece, k), TW_OK);
                    free(piece);
                }
                cr_assert_eq(tw_stream_finish(s, &got), TW_OK, "%s", f->name);
                assert_terminated(&got.msg.content, "content", f->name);
                assert_terminated(&got.msg.thinking, "thinking", f->name);
                char *jg = tw_test_neutral(&got);
                cr_assert_str_eq(jg, jw, "%s: input %zu, pass %d", f->name, i, pass);
                free(jg);
                free(jw);
                tw_stream_recycle(s, &got);
                cr_assert_null(got.msg.thinking.data);
            }
        }
        tw_stream_recycle(s, NULL);
        tw_stream_free(s);
    }
    cr_assert_geq(nf, 9);
    for (size_t i = 0; i < nin; i++)
        tw_buf_free(&in[i]);
}

/* A text decoder writes the next result's content and thinking into the
 * buffers of the result recycled before it: a second decode of the same
 * input allocates neither anew. */
Test(reuse, text_recycle_keeps_the_result_buffers)
{
    tw_buf in = {0};
    cr_assert_eq(tw_buf_puts(&in, "<think>"), TW_OK);
    for (int i = 0; i < 5000; i++)
        cr_assert_eq(tw_buf_printf(&in, "step %d\n", i), TW_OK);
    cr_assert_eq(tw_buf_puts(&in, "</think>"), TW_OK);
    for (int i = 0; i < 5000; i++)
        cr_assert_eq(tw_buf_printf(&in, "word %d ", i), TW_OK);
    static const tw_text_kind kinds[] = {TW_TEXT_THINK, TW_TEXT_HERMES, TW_TEXT_FENCED,
                                         TW_TEXT_QWEN_XML};
    for (size_t kk = 0; kk < sizeof kinds / sizeof kinds[0]; kk++) {
        tw_text_dec *d = tw_text_dec_new(kinds[kk], NULL, NULL, NULL);
        cr_assert_not_null(d);
        const char *content = NULL, *thinking = NULL;
        size_t ccap = 0, tcap = 0;
        char *first = NULL;
        for (int round = 0; round < 3; round++) {
            if (round)
                cr_assert_eq(tw_text_dec_reset(d, NULL, NULL, NULL), TW_OK);
            cr_assert_eq(tw_text_dec_feed(d, in.data, in.len), TW_OK);
            tw_result r;
            cr_assert_eq(tw_text_dec_finish(d, &r), TW_OK);
            cr_assert_gt(r.msg.thinking.len, 5000 * 6);
            cr_assert_gt(r.msg.content.len, 5000 * 6);
            char *j = tw_test_neutral(&r);
            if (round == 0) {
                first = j;
                content = r.msg.content.data;
                thinking = r.msg.thinking.data;
                ccap = r.msg.content.cap;
                tcap = r.msg.thinking.cap;
            } else {
                cr_assert_str_eq(j, first, "kind %zu, round %d", kk, round);
                free(j);
                cr_assert_eq(r.msg.content.data, content, "kind %zu: content moved", kk);
                cr_assert_eq(r.msg.thinking.data, thinking, "kind %zu: thinking moved", kk);
                cr_assert_eq(r.msg.content.cap, ccap);
                cr_assert_eq(r.msg.thinking.cap, tcap);
            }
            tw_text_dec_recycle(d, &r);
            tw_result_free(&r); /* an emptied result is still safe to free */
        }
        /* a result recycled while a decode is under way is freed, and the
         * decode goes on in the decoder's own buffers */
        cr_assert_eq(tw_text_dec_reset(d, NULL, NULL, NULL), TW_OK);
        cr_assert_eq(tw_text_dec_feed(d, in.data, in.len / 2), TW_OK);
        tw_result other;
        cr_assert_eq(tw_hermes_output_decode(in.data, in.len, NULL, &other), TW_OK);
        tw_text_dec_recycle(d, &other);
        cr_assert_eq(tw_text_dec_feed(d, in.data + in.len / 2, in.len - in.len / 2), TW_OK);
        tw_result r;
        cr_assert_eq(tw_text_dec_finish(d, &r), TW_OK);
        char *j = tw_test_neutral(&r);
        cr_assert_str_eq(j, first, "kind %zu after a recycle mid-decode", kk);
        free(j);
        free(first);
        tw_result_free(&r);
        tw_text_dec_recycle(d, NULL);
        tw_text_dec_free(d);
    }
    tw_buf_free(&in);
}

/* tw_result_clear keeps the two text buffers' allocations and empties the rest. */
Test(reuse, result_clear_keeps_capacity)
{
    static const char text[] =
        "<think>why</think>so <tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>";
    tw_result r;
    cr_assert_eq(tw_hermes_output_decode(text, strlen(text), NULL, &r), TW_OK);
    cr_assert_eq(r.msg.ncalls, 1);
    char *c = r.msg.content.data, *t = r.msg.thinking.data;
    size_t ccap = r.msg.content.cap;
    tw_result_clear(&r, NULL);
    cr_assert_eq(r.msg.content.data, c);
    cr_assert_eq(r.msg.thinking.data, t);
    cr_assert_eq(r.msg.content.cap, ccap);
    cr_assert_eq(r.msg.content.len, 0);
    cr_assert_eq(r.msg.thinking.len, 0);
    cr_assert_str_eq(r.msg.content.data, "");
    cr_assert_str_eq(r.msg.thinking.data, "");
    cr_assert_eq(r.msg.ncalls, 0);
    cr_assert_null(r.finish_reason);
    cr_assert_eq(r.errors.len + r.warnings.len, 0);
    cr_assert_eq(r.msg.role, TW_ROLE_ASSISTANT);
    cr_assert_eq(tw_buf_puts(&r.msg.content, "again"), TW_OK);
    cr_assert_eq(r.msg.content.data, c, "the kept allocation is written into");
    tw_result_free(&r);
}
