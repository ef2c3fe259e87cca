/*
 * Streaming properties of the text decoders over every decode fixture:
 * events are never retracted (their concatenation is the final content and
 * thinking, calls arrive in order), random splits equal batch, and memory
 * stays bounded by the limits whatever the input size.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
/* from the sanitizer runtime (gcc ships the function, not the header) */
size_t __sanitizer_get_current_allocated_bytes(void);
#define HEAP_IN_USE() __sanitizer_get_current_allocated_bytes()
#else
#include <malloc.h>
#define HEAP_IN_USE() (mallinfo2().uordblks)
#endif

#include "cli.h"
#include "decode_opts.h"
#include "decode_fixtures.h"
#include "decoding.h"
#include "toolwire/decode.h"
#include "toolwire/text.h"
#include "twtest.h"

/* the random splits: the same on every run */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static void run_dir(const char *sub)
{
    char **files = NULL;
    long n = tw_list_files(tw_test_src(sub), ".json", &files);
    cr_assert_gt(n, 0);
    for (long i = 0; i < n; i++) {
        tw_test_fixture t;
        tw_test_fixture_open(&t, files[i]);
        tw_result batch;
        cr_assert_eq(t.f->decode(t.in, t.len, &t.h.o, &batch), TW_OK);
        tw_test_random_splits(&t, &batch, &rng_state, 20, 5, 40, false);
        tw_result_free(&batch);
        tw_test_fixture_close(&t);
    }
    tw_free_list(files, n);
}

Test(text_stream, think_random_splits_and_events)
{
    run_dir("tests/data/decode/think");
}
Test(text_stream, hermes_random_splits_and_events)
{
    run_dir("tests/data/decode/hermes");
}
Test(text_stream, fenced_random_splits_and_events)
{
    run_dir("tests/data/decode/fenced");
}

/* Feed far more than the caps in small pieces; the heap must stay bounded. */
static void bounded_feed(const char *prefix, const char *unit, size_t total, tw_text_kind kind,
                         bool forced, tw_unterminated unterm)
{
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits.max_input_bytes = 1 << 20;
    o.limits.max_args_bytes = 4096;
    o.forced_open = forced;
    o.unterminated = unterm;
    size_t base = HEAP_IN_USE();
    size_t peak = 0;
    tw_text_dec *d = tw_text_dec_new(kind, &o, NULL, NULL);
    cr_assert_not_null(d);
    size_t ul = strlen(unit);
    cr_assert_eq(tw_text_dec_feed(d, prefix, strlen(prefix)), TW_OK);
    for (size_t fed = 0; fed < total; fed += ul) {
        cr_assert_eq(tw_text_dec_feed(d, unit, ul), TW_OK);
        size_t now = HEAP_IN_USE();
        if (now > base && now - base > peak)
            peak = now - base;
    }
    tw_result r;
    cr_assert_eq(tw_text_dec_finish(d, &r), TW_OK);
    cr_assert(tw_diag_has(&r.errors, TW_D_INPUT_TOO_LARGE));
    /* held text is bounded by max_input_bytes; content/thinking too */
    cr_assert_lt(peak, (size_t)8 << 20, "peak heap %zu bytes", peak);
    tw_result_free(&r);
    tw_text_dec_free(d);
}

Test(text_stream, memory_bounded_prose)
{
    bounded_feed("", "lorem ipsum dolor sit amet ", 32u << 20, TW_TEXT_HERMES, false,
                 TW_UNTERM_SYNTHESIZE);
}
Test(text_stream, memory_bounded_open_call)
{
    bounded_feed("<tool_call>{\"name\": \"f\", \"arguments\": {\"t\": \"",
                 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 32u << 20, TW_TEXT_HERMES, false,
                 TW_UNTERM_SYNTHESIZE);
}
Test(text_stream, memory_bounded_held_think)
{
    bounded_feed("<think>", "a <tool_call> inside reasoning ", 32u << 20, TW_TEXT_HERMES, false,
                 TW_UNTERM_SYNTHESIZE);
}
Test(text_stream, memory_bounded_direct)
{
    bounded_feed("", "<think>never closed ", 32u << 20, TW_TEXT_THINK, true, TW_UNTERM_DIRECT);
}

/* An endless tool-call block is never buffered past its cap (2 * max_args +
 * 4096), however much input the caps allow. */
Test(text_stream, open_block_not_buffered_past_cap)
{
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits.max_input_bytes = (size_t)64 << 20;
    o.limits.max_args_bytes = 4096;
    size_t base = HEAP_IN_USE(), peak = 0;
    tw_text_dec *d = tw_text_dec_new(TW_TEXT_HERMES, &o, NULL, NULL);
    cr_assert_not_null(d);
    const char *open = "<tool_call>{\"name\": \"f\", \"arguments\": {\"t\": \"";
    cr_assert_eq(tw_text_dec_feed(d, open, strlen(open)), TW_OK);
    char unit[4096];
    memset(unit, 'x', sizeof unit);
    for (int i = 0; i < 8192; i++) { /* 32 MiB */
        cr_assert_eq(tw_text_dec_feed(d, unit, sizeof unit), TW_OK);
        size_t now = HEAP_IN_USE();
        if (now > base && now - base > peak)
            peak = now - base;
    }
    const char *close = "\"}}</tool_call> done";
    cr_assert_eq(tw_text_dec_feed(d, close, strlen(close)), TW_OK);
    tw_result r;
    cr_assert_eq(tw_text_dec_finish(d, &r), TW_OK);
    cr_assert_eq(r.msg.ncalls, 0);
    cr_assert(tw_diag_has(&r.errors, TW_D_ARGS_TOO_LARGE));
    cr_assert_str_eq(r.msg.content.data, "done");
    cr_assert_lt(peak, (size_t)256 << 10, "peak heap %zu bytes", peak);
    tw_result_free(&r);
    tw_text_dec_free(d);
}
