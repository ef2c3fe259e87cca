/*
 * Internal to the text decoders (text.c, text_think.c, text_calls.c,
 * text_payload.c, text_qwen.c): the tags, the small helpers every layer
 * uses, and the steps one layer calls in another. The state is text_int.h's.
 */
#ifndef TOOLWIRE_TEXT_LAYERS_H
#define TOOLWIRE_TEXT_LAYERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "calls.h"
#include "text_int.h"
#include "work.h"

#define NPOS ((size_t)-1)
#define SLEN(s) (sizeof(s) - 1)

static const char HERMES_OPEN[] = "<tool_call>";
static const char HERMES_CLOSE[] = "</tool_call>";
static const char FENCED_OPEN[] = "```tool_call";
static const char FENCED_CLOSE[] = "```";

/* ===================== small helpers ===================== */

static inline void tw_text_fire(tw_text_dec *d, tw_event_kind k, const char *t, size_t n,
                                const tw_call *c, const tw_diag *g)
{
    tw_event ev = {k, t, n, c, g};
    tw_event_deliver(d->fn, d->user, &d->stop, &ev);
}

static inline const char *tw_text_opener(const tw_text_dec *d, size_t *n)
{
    if (d->kind == TW_TEXT_FENCED) {
        *n = SLEN(FENCED_OPEN);
        return FENCED_OPEN;
    }
    *n = SLEN(HERMES_OPEN);
    return HERMES_OPEN;
}

static inline const char *tw_text_closer(const tw_text_dec *d, size_t *n)
{
    if (d->kind == TW_TEXT_FENCED) {
        *n = SLEN(FENCED_CLOSE);
        return FENCED_CLOSE;
    }
    *n = SLEN(HERMES_CLOSE);
    return HERMES_CLOSE;
}

static inline bool tw_text_ident_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

/*
 * The first lit[0, n) in h[0, len), or NULL (n >= 1). The tags searched for
 * in text start with a byte that is rare in it ('<', '`'), so each candidate
 * is found with memchr and compared in place: a pass over text without
 * that byte runs at memchr's rate, and every byte is still read a bounded
 * number of times (at most n compares at each candidate). *any is set when
 * lit[0] occurs in the bytes searched (all of h[0, len) when NULL is
 * returned) and left as it is otherwise.
 */
static inline const char *tw_text_find_tag_any(const char *h, size_t len, const char *lit, size_t n,
                                               bool *any)
{
    const char *p = h, *end = h + len;
    while ((size_t)(end - p) >= n) {
        const char *f = memchr(p, lit[0], (size_t)(end - p) - n + 1);
        if (!f)
            break;
        *any = true;
        if (memcmp(f + 1, lit + 1, n - 1) == 0) {
            TW_WORK((size_t)(f - h) + n);
            return f;
        }
        p = f + 1;
    }
    /* the last n - 1 bytes may still hold lit[0] */
    if (len && memchr(len >= n ? end - n + 1 : h, lit[0], len >= n ? n - 1 : len))
        *any = true;
    TW_WORK(len);
    return NULL;
}

static inline const char *tw_text_find_tag(const char *h, size_t len, const char *lit, size_t n)
{
    bool any = false;
    return tw_text_find_tag_any(h, len, lit, n, &any);
}

/* The live part of the held input starts at think.cur: in think.hold, or in the
 * caller's buffer (think.ext) while a feed that found nothing held is read in
 * place. */
static inline const char *tw_text_hdata(const tw_text_dec *d)
{
    if (d->think.ext)
        return d->think.ext + d->think.cur;
    return d->think.hold.data ? d->think.hold.data + d->think.cur : "";
}

static inline size_t tw_text_hlen(const tw_text_dec *d)
{
    return (d->think.ext ? d->think.ext_len : d->think.hold.len) - d->think.cur;
}

/* ---- content emission and diagnostics (text.c) ---- */
tw_status tw_text_add_diag(tw_text_dec *d, bool error, tw_status code, int64_t off,
                           const char *msg);
tw_status tw_text_out_append(tw_buf *b, const char *p, size_t n);
tw_status tw_text_emit_content(tw_text_dec *d, const char *p, size_t n, uint64_t off);

/* ---- the think layer (text_think.c) ---- */
bool tw_text_forced_start(tw_text_dec *d, bool final);
tw_status tw_text_think_feed(tw_text_dec *d, const char *p, size_t n);
void tw_text_hold_consume(tw_text_dec *d, size_t k);
tw_status tw_text_think_process(tw_text_dec *d, bool final);
tw_status tw_text_think_finish_block(tw_text_dec *d);

/* ---- the call layer (text_calls.c) ---- */
void tw_text_block_reset(tw_text_dec *d);
/* Block bytes may come from public text with think blocks cut out of it, so
 * calls.blk keeps where each contiguous run starts in the input (calls.seg);
 * tw_text_blk_input_off (text_emit.c, below every layer) maps calls.blk[idx]
 * back to the input offset. */
typedef struct blk_seg {
    size_t idx;
    uint64_t off;
} blk_seg;
uint64_t tw_text_blk_input_off(const tw_text_dec *d, size_t idx);
tw_status tw_text_block_done(tw_text_dec *d, size_t end, bool via_json);
tw_status tw_text_calls_feed(tw_text_dec *d, const char *p, size_t n, uint64_t off);
tw_status tw_text_calls_finish(tw_text_dec *d);

/* ---- the JSON payload of a block (text_payload.c) ---- */
tw_status tw_text_take_call(tw_text_dec *d, cJSON *obj, int64_t off, size_t src_len);
tw_status tw_text_take_payload(tw_text_dec *d, cJSON *v, int64_t off, const tw_json_lint *lint,
                               size_t src_len);
void tw_text_trim_ctl(const char **p, size_t *n);
tw_status tw_text_parse_payload(const tw_text_dec *d, const char *p, size_t n, bool retry,
                                cJSON **out, tw_error *why, tw_json_lint *lint);
tw_status tw_text_decide_payload(tw_text_dec *d, const char *p, size_t n, bool retry,
                                 tw_status fail_code);
void tw_text_jpath_advance(tw_text_dec *d);
void tw_text_lit_advance(tw_text_dec *d);
bool tw_text_payload_head_inert(const char *p, size_t n);
bool tw_text_block_valid_at(const tw_text_dec *d, const char *p, size_t n, const char *lit,
                            bool bracket, tw_status *st);

/* ---- the Qwen3-Coder XML reader (text_qwen.c) ---- */
tw_status tw_text_q_advance(tw_text_dec *d, bool final);
tw_status tw_text_q_decode(tw_text_dec *d);
tw_status tw_text_q_finish(tw_text_dec *d);

#endif
