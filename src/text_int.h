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

/* Where the think layer is. */
typedef enum tw_think_state {
    TW_THINK_OUTSIDE = 0, /* passing public text on */
    TW_THINK_INSIDE,      /* inside a thinking block */
} tw_think_state;

/* Which closing tags end the open thinking block (bits: a forced-open block
 * is ended by either). */
typedef enum tw_think_tag {
    TW_THINK_TAG_NONE = 0,
    TW_THINK_TAG_THINK = 1,    /* <think> ... </think> */
    TW_THINK_TAG_THINKING = 2, /* <thinking> ... </thinking> */
    TW_THINK_TAG_EITHER = TW_THINK_TAG_THINK | TW_THINK_TAG_THINKING, /* forced open */
} tw_think_tag;

/* Where the call layer is. */
typedef enum tw_block_state {
    TW_BLOCK_OUTSIDE = 0, /* content */
    TW_BLOCK_INSIDE,      /* after a tool-call opener */
} tw_block_state;

/* The JSON-aware reading of one block: before the value, in it, after it
 * (the close tag), read to its close, or not a call by this rule. */
typedef enum tw_jpath_phase {
    TW_JP_PRE = 0,
    TW_JP_JSON,
    TW_JP_POST,
    TW_JP_DONE,
    TW_JP_FAILED,
} tw_jpath_phase;

/* The Qwen3-Coder XML reader: between elements, in a name, before a
 * JSON-aware value, in it, after it, in an XML-rule value, block read. */
typedef enum tw_qwen_state {
    TW_Q_OUT = 0,
    TW_Q_NAME,
    TW_Q_VPRE,
    TW_Q_VJSON,
    TW_Q_VJPOST,
    TW_Q_VAL,
    TW_Q_DONE,
} tw_qwen_state;

/* The think layer: reads raw bytes, passes public text on. */
typedef struct tw_text_think {
    tw_think_state state;
    tw_think_tag tag;  /* inside: the tags that close the block */
    bool forced_start; /* forced-open: the opening of the input is undecided */
    tw_buf hold;       /* raw bytes not yet passed on, from cur */
    size_t cur;        /* consumed prefix of hold, dropped at the next feed */
    const char *ext;   /* during a feed with nothing held: the caller's bytes, read in place */
    size_t ext_len;
    uint64_t hold_off;           /* offset of hold.data[0] */
    size_t text_start;           /* inside: index in hold where block text starts */
    size_t raw_start;            /* inside: index in hold where the block's raw bytes start */
    size_t scan;                 /* inside: closing tags searched up to here */
    uint64_t clear_lo, clear_hi; /* offsets where no "</think" starts: [lo, hi) */
    size_t call_at;              /* inside: first tool-call opener in hold, or SIZE_MAX */
    size_t nolt;                 /* the last closing-tag search saw no '<' from here to the end,
                                  * or SIZE_MAX */
    int64_t open_off;            /* offset of the open block's opening tag */
    bool any;                    /* a non-empty thinking block was emitted */
    bool block;                  /* this block has emitted non-whitespace */
    tw_buf ws;                   /* held whitespace inside the current block */
} tw_text_think;

/* The JSON-aware path through one <tool_call> block. */
typedef struct tw_text_jpath {
    tw_jpath_phase phase;
    size_t pos;          /* bytes of calls.blk consumed */
    size_t vstart, vend; /* the JSON value */
    size_t post;         /* bytes of the close tag matched so far */
    bool too_deep;
    tw_jscan scan;
} tw_text_jpath;

/* --bare-json: content held while it may be one JSON object. */
typedef struct tw_text_bare {
    bool hold;
    tw_buf buf;
    uint64_t off; /* offset of the first non-whitespace held byte */
    bool nonws;   /* off is set */
} tw_text_bare;

/* The call layer: reads public text, produces content and calls. */
typedef struct tw_text_calls {
    tw_block_state state;
    tw_buf hold;            /* partial opener held back */
    uint64_t hold_offs[16]; /* offset of each held byte (think blocks may sit between them) */
    int64_t block_off;      /* offset of the open block */
    tw_buf blk;             /* block bytes after the opener */
    tw_buf spare;           /* the bytes after a block, replayed from here */
    tw_buf seg;             /* where runs of blk start in the input: {index, offset} pairs */
    bool oversize;
    size_t cap;      /* block byte cap */
    size_t lit;      /* first literal close in blk, or SIZE_MAX */
    size_t lit_scan; /* literal close searched up to here */
    char tail[16];   /* last bytes when oversize, for the literal search */
    size_t tail_len;
    tw_text_jpath json;
    size_t blocks; /* blocks seen (any outcome) */
    bool any;      /* content has emitted non-whitespace */
    tw_buf ws;     /* held trailing whitespace of content */
    tw_text_bare bare;
} tw_text_calls;

/* Qwen3-Coder: the XML reader of one block (docs/text-formats.md). */
typedef struct tw_text_qwen {
    tw_qwen_state state;
    size_t pos;          /* calls.blk bytes read so far */
    size_t scan;         /* the current search resumes here */
    size_t name;         /* the open element's name starts here */
    bool fn;             /* the open name is a function's (else a parameter's) */
    size_t stray;        /* first non-space byte between elements, or SIZE_MAX */
    const tw_tool *tool; /* the declared tool of the open function, or NULL */
    size_t pa, pb;       /* the open parameter's name */
    size_t vstart;       /* the open value's first byte (after '>') */
    size_t jpos;         /* JSON-aware value: scanned up to here */
    size_t jend;         /* JSON-aware value: the JSON value ends here */
    size_t post;         /* bytes of </parameter> matched after a JSON value */
    size_t cand;         /* a </parameter> whose follower is undecided, or SIZE_MAX */
    size_t ws;           /* ... whitespace after it skipped up to here */
    size_t end;          /* the block's end once read */
    size_t nfunc;        /* <function= elements read */
    bool record;         /* keep the elements (not when only testing validity) */
    tw_buf ev;           /* the elements read, in order */
} tw_text_qwen;

struct tw_text_dec {
    /* configuration */
    tw_text_kind kind;
    tw_decode_opts o;
    tw_limits L;
    tw_event_fn fn;
    void *user;
    tw_result res;
    uint64_t fed; /* bytes accepted so far: the offset of the next byte */
    bool too_large;
    bool finished;
    bool in_replay;
    tw_text_think think;
    tw_text_calls calls;
    tw_text_qwen qwen;
    tw_status stop; /* a callback's status that stopped the decode; TW_OK while none */
};

/*
 * The typed steps behind the public tw_text_dec_* functions, on a state the
 * caller holds (a stack state for the batch calls, the proxy's embedded one):
 * init overwrites *d (nothing freed) and prepares it for `kind`; feed and
 * finish as tw_text_dec_feed and tw_text_dec_finish, except that finish
 * keeps the buffers (release, or a reset, takes them); release frees
 * everything *d holds and is safe after finish and after a failure.
 */
tw_status tw_text_init(tw_text_dec *d, tw_text_kind kind, const tw_decode_opts *o, tw_event_fn fn,
                       void *user);
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
