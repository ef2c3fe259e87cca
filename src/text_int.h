/*
 * Internal: the state of the text decoders (include/toolwire/text.h keeps
 * the type opaque). Memory it holds is bounded by the limits: at most
 * max_input_bytes of held text and 2 * max_args_bytes + 4096 bytes of one
 * tool-call block. proxy.c embeds one in front of its own layer.
 */
#ifndef TOOLWIRE_TEXT_INT_H
#define TOOLWIRE_TEXT_INT_H

#include "toolwire/json.h"
#include "toolwire/text.h"

struct tw_text_dec {
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
    size_t t_nolt;         /* the last closing-tag search saw no '<' from here to the end, or SIZE_MAX */
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
    tw_buf c_spare;        /* the bytes after a block, replayed from here */
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
    /* qwen3-coder: the XML reader of one block (docs/text-formats.md) */
    int q_st;              /* between elements, in a name, before/in a value, done */
    size_t q_pos;          /* c_blk bytes read so far */
    size_t q_scan;         /* the current search resumes here */
    size_t q_name;         /* the open element's name starts here */
    bool q_fn;             /* the open name is a function's (else a parameter's) */
    size_t q_stray;        /* first non-space byte between elements, or SIZE_MAX */
    const tw_tool *q_tool; /* the declared tool of the open function, or NULL */
    size_t q_pa, q_pb;     /* the open parameter's name */
    size_t q_vstart;       /* the open value's first byte (after '>') */
    size_t q_jpos;         /* JSON-aware value: scanned up to here */
    size_t q_jend;         /* JSON-aware value: the JSON value ends here */
    size_t q_post;         /* bytes of </parameter> matched after a JSON value */
    size_t q_cand;         /* a </parameter> whose follower is undecided, or SIZE_MAX */
    size_t q_ws;           /* ... whitespace after it skipped up to here */
    size_t q_end;          /* the block's end once read */
    size_t q_nfunc;        /* <function= elements read */
    bool q_record;         /* keep the elements (not when only testing validity) */
    tw_buf q_ev;           /* the elements read, in order */
    tw_status stop;       /* a callback's status that stopped the decode; TW_OK while none */
};

/*
 * The typed steps behind the public tw_text_dec_* functions, on a state the
 * caller holds (a stack state for the batch calls, the proxy's embedded one):
 * init overwrites *d (nothing freed) and prepares it for `kind`; feed and
 * finish as tw_text_dec_feed and tw_text_dec_finish, except that finish
 * keeps the buffers (release, or a reset, takes them); release frees
 * everything *d holds and is safe after finish and after a failure.
 */
tw_status tw_text_init(tw_text_dec *d, tw_text_kind kind, const tw_decode_opts *o,
                       tw_event_fn fn, void *user);
tw_status tw_text_feed(tw_text_dec *d, const char *buf, size_t len);
tw_status tw_text_finish(tw_text_dec *d, tw_result *out);
void tw_text_release(tw_text_dec *d);
/* The buffers of *d a reset keeps (the result's are handed to the caller):
 * b[0, TEXT_NBUFS) point into d. */
#define TEXT_NBUFS 9
void tw_text_bufs(tw_text_dec *d, tw_buf *b[TEXT_NBUFS]);
/* Start a new decode on *d, keeping the allocations of its buffers (and of
 * the content and thinking buffers a recycled result gave it). */
tw_status tw_text_reset(tw_text_dec *d, const tw_decode_opts *o, tw_event_fn fn, void *user);
/* tw_text_dec_recycle on a state the caller holds. */
void tw_text_recycle(tw_text_dec *d, tw_result *r);

#endif
