/*
 * Text formats (docs/text-formats.md): think-tag
 * splitting, Hermes <tool_call> blocks and fenced ```tool_call blocks.
 *
 * One push decoder serves all three; the batch functions feed the whole
 * input at once through it, so batch and streaming give one result.
 */
#ifndef TOOLWIRE_TEXT_H
#define TOOLWIRE_TEXT_H

#include "toolwire/neutral.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tw_text_kind {
    TW_TEXT_THINK = 0,  /* split reasoning only */
    TW_TEXT_HERMES,     /* think blocks, then <tool_call> blocks */
    TW_TEXT_FENCED      /* think blocks, then ```tool_call blocks */
} tw_text_kind;

/*
 * Caller-owned streaming state. Zero-initialise, then tw_text_init. Memory
 * it holds is bounded by the limits: at most max_input_bytes of held text
 * and 2 * max_args_bytes + 4096 bytes of one tool-call block.
 */
typedef struct tw_text_dec {
    /* configuration */
    tw_text_kind kind;
    tw_decode_opts o;
    tw_limits L;
    tw_event_fn fn;
    void *user;
    tw_result res;
    uint64_t fed;          /* bytes accepted so far: the offset of the next byte */
    bool too_large;
    bool finished;
    bool in_replay;
    /* think layer */
    int t_state;           /* 0 outside, 1 inside a block */
    int t_tag;             /* open block: 1 think, 2 thinking, 3 forced (either) */
    bool t_forced_start;   /* forced-open: the opening of the input is undecided */
    tw_buf t_hold;         /* raw bytes not yet passed on, from t_cur */
    size_t t_cur;          /* consumed prefix of t_hold, dropped at the next feed */
    const char *t_ext;     /* during a feed with nothing held: the caller's bytes, read in place */
    size_t t_ext_len;
    uint64_t t_hold_off;   /* offset of t_hold.data[0] */
    size_t t_text_start;   /* inside: index in t_hold where block text starts */
    size_t t_raw_start;    /* inside: index in t_hold where the block's raw bytes start */
    size_t t_scan;         /* inside: closing tags searched up to here */
    uint64_t t_clear_lo, t_clear_hi; /* offsets where no "</think" starts: [lo, hi) */
    size_t t_call_at;      /* inside: first tool-call opener in t_hold, or SIZE_MAX */
    int64_t t_open_off;    /* offset of the open block's opening tag */
    bool th_any;           /* a non-empty thinking block was emitted */
    bool th_block;         /* this block has emitted non-whitespace */
    tw_buf th_ws;          /* held whitespace inside the current block */
    /* call layer */
    int c_state;           /* 0 outside, 1 inside a block */
    tw_buf c_hold;         /* partial opener held back */
    uint64_t c_hold_offs[16]; /* offset of each held byte (think blocks may sit between them) */
    int64_t c_block_off;   /* offset of the open block */
    tw_buf c_blk;          /* block bytes after the opener */
    tw_buf c_seg;          /* where runs of c_blk start in the input: {index, offset} pairs */
    bool c_oversize;
    size_t c_cap;          /* block byte cap */
    size_t c_lit;          /* first literal close in c_blk, or SIZE_MAX */
    size_t c_lit_scan;     /* literal close searched up to here */
    char c_tail[16];       /* last bytes when oversize, for the literal search */
    size_t c_tail_len;
    int c_jphase;          /* JSON-aware path: pre, json, post, done, failed */
    size_t c_jpos;         /* bytes of c_blk the JSON-aware path has consumed */
    size_t c_vstart, c_vend;
    size_t c_post;         /* bytes of the close tag matched so far */
    bool c_too_deep;
    tw_jscan c_jscan;
    size_t c_blocks;       /* blocks seen (any outcome) */
    size_t c_accepted_total;
    bool c_any;            /* content has emitted non-whitespace */
    tw_buf c_ws;           /* held trailing whitespace of content */
    bool c_bare_hold;      /* --bare-json: content held while it may be one JSON object */
    tw_buf c_bare;
    uint64_t c_bare_off;   /* offset of the first non-whitespace held byte */
    bool c_bare_nonws;     /* c_bare_off is set */
    tw_status stop;       /* a callback's status that stopped the decode; TW_OK while none */
} tw_text_dec;

/*
 * Prepare *d (any previous content is overwritten, not freed) for `kind`.
 * `o` may be NULL (defaults) and is copied; the tools it points at must
 * stay valid until finish. `fn` may be NULL (no events); `user` is passed
 * to it as is.
 */
tw_status tw_text_init(tw_text_dec *d, tw_text_kind kind, const tw_decode_opts *o,
                       tw_event_fn fn, void *user);
/* Push bytes; events fire from inside. Input past max_input_bytes is ignored
 * (error input_too_large at finish). */
tw_status tw_text_feed(tw_text_dec *d, const char *buf, size_t len);
/* End of input: resolves held text, moves the result to *out (the caller
 * frees it with tw_result_free) and releases the decoder's memory. On
 * failure (TW_ERR_NOMEM; TW_ERR_STATE for a second finish) *out is valid
 * and empty. */
tw_status tw_text_finish(tw_text_dec *d, tw_result *out);
/* Release without finishing (safe after finish too). */
void tw_text_release(tw_text_dec *d);

/* Batch: init, feed everything, finish (the contract of decode.h: buf[0,
 * len) is not kept, `o` may be NULL, *out need not be initialised and is
 * valid and empty on every failure). */
tw_status tw_think_output_decode(const char *buf, size_t len, const tw_decode_opts *o, tw_result *out);
tw_status tw_hermes_output_decode(const char *buf, size_t len, const tw_decode_opts *o,
                           tw_result *out);
tw_status tw_fenced_output_decode(const char *buf, size_t len, const tw_decode_opts *o,
                           tw_result *out);

#ifdef __cplusplus
}
#endif
#endif
