/*
 * Decoders reused through reset (decode.h, the modules' tw_<x>_reset): for
 * every push decoder of the registry, one decoder decodes every decode
 * fixture in turn, each twice, and once after a reset in the middle of an
 * input, and every result equals the batch decode; the text decoder's
 * buffers keep their allocations across a reset, so a second decode of the
 * same input does not grow them.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolwire/decode.h"
#include "toolwire/json.h"
#include "toolwire/text.h"
#include "../src/text_int.h" /* the state, for its buffers */
#include "cases.h"
#include "twtest.h"

/* Feed s whole or in `chunk`-byte exact-size pieces, then finish; the
 * result's neutral JSON (malloc'd). */
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
    char *j = tw_test_neutral(&r);
    tw_result_free(&r);
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
        int k = snprintf(unit, sizeof unit,
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
