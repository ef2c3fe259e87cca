/*
 * Internal: the push machinery the model-output dialects share (Harmony,
 * DeepSeek V3.1 and V3.2, Kimi K2, Mistral, Llama 3.x, GLM, MiniMax-M2,
 * Gemma 4; docs/formats/<dialect>.md). A
 * dialect module keeps its own grammar in a state struct that starts with a
 * tw_dl and gives a tw_dialect: a scan step that reads the held input from
 * d->pos as far as the bytes already there decide, and an end step for
 * what is still open when the input ends. The engine holds the input,
 * finds special tokens (split at any byte: a marker's prefix at the end of
 * the held bytes is waited for, never taken as text), sends content and
 * reasoning out trimmed (leading white space dropped, trailing held until
 * more text comes), takes every call through the one call acceptance
 * (calls.h) and closes the result as every text decoder does.
 *
 * Split invariance is the scan's part of the contract: a scan with final
 * false decides nothing that a later byte could change. Batch is one feed
 * and a finish, so batch and push give one result.
 *
 * Offsets are absolute (bytes of the input before it); the engine drops the
 * bytes before d->pos once they are more than half of what it holds, so a
 * dialect keeps no pointer into the input across scans, only offsets, and
 * holds back d->pos to the first byte it still needs.
 */
#ifndef TOOLWIRE_DIALECT_H
#define TOOLWIRE_DIALECT_H

#include "calls.h"
#include "wire_common.h"
#include "toolwire/decode.h"

typedef struct tw_dl tw_dl;

typedef struct tw_dialect {
    const char *name;
    size_t size; /* sizeof the module's state, whose first member is its tw_dl */
    /* after the setup (state zeroed, options copied): the dialect's start,
     * e.g. inside the reasoning under forced_open; may be NULL */
    void (*start)(tw_dl *d);
    /* read from d->pos as far as the held bytes decide (final: no more come);
     * advance d->pos past what is read */
    tw_status (*scan)(tw_dl *d, bool final);
    /* at finish, after the final scan: what is still open (an unterminated
     * section's diagnostic); may be NULL */
    tw_status (*end)(tw_dl *d);
} tw_dialect;

typedef enum tw_dl_chan { TW_DL_CONTENT = 0, TW_DL_THINKING = 1 } tw_dl_chan;

/* One output channel: its trimmed emission. */
typedef struct tw_dl_out {
    bool any;  /* non-white text was sent */
    bool gap;  /* a block ended: the next text is joined with "\n" */
    tw_buf ws; /* white space held after the last text */
} tw_dl_out;

struct tw_dl {
    const tw_dialect *dia;
    tw_decode_opts o;
    tw_limits L;
    tw_event_fn fn;
    void *user;
    tw_result res;
    tw_buf in;     /* held input; in.data[0] is the byte at offset base */
    uint64_t base; /* offset of in.data[0] */
    uint64_t pos;  /* bytes before it are read (and may be dropped) */
    uint64_t fed;  /* bytes accepted: the offset of the next byte */
    bool too_large;
    bool finished;
    tw_status stop; /* a callback's status that stopped the decode; TW_OK while none */
    tw_dl_out out[2];
};

/* ---- the held input ---- */

/* The held byte at offset off (base <= off <= end). */
static inline const char *tw_dl_at(const tw_dl *d, uint64_t off)
{
    return (d->in.data ? d->in.data : "") + (size_t)(off - d->base);
}
/* The offset one past the last held byte. */
static inline uint64_t tw_dl_end(const tw_dl *d)
{
    return d->base + d->in.len;
}

/* ASCII white space as tw_is_space says, inline: the dialects test it byte by
 * byte in their scans. */
static inline bool tw_dl_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* A special token or keyword the scan looks for. */
typedef struct tw_dl_mark {
    const char *s;
    size_t n;
} tw_dl_mark;
#define TW_DL_MARK(lit)                                                                            \
    {                                                                                              \
        (lit), sizeof(lit) - 1                                                                     \
    }

typedef enum tw_dl_hit {
    TW_DL_NONE = 0, /* not in [from, end): every byte before *at is not a marker's start */
    TW_DL_FOUND,    /* marker *which starts at *at */
} tw_dl_hit;

/*
 * The first of the n markers in the held bytes from `from`: FOUND with its
 * offset and index, or NONE with *at the first byte where a marker could
 * still start once more bytes come (a prefix of one at the end, or the end;
 * at the end of the input, final, the end). *resume, when not NULL, is where
 * the previous search of the same markers from the same `from` stopped (0:
 * none): the search goes on from there, so waiting for a marker over many
 * feeds reads each byte once; it is updated.
 */
tw_dl_hit tw_dl_find(const tw_dl *d, uint64_t from, uint64_t *resume, const tw_dl_mark *marks,
                     size_t n, bool final, uint64_t *at, size_t *which);

/* Does the held input at off start with the marker? 1 yes, 0 no, -1 not
 * decided yet (the held bytes are a proper prefix of it and more may come). */
int tw_dl_starts(const tw_dl *d, uint64_t off, const char *s, size_t n, bool final);

/* ---- what a dialect sends out ---- */

/* Text [off, off + n) of the input to a channel: leading white space of the
 * channel (and of a block after a gap) dropped, trailing held until more text
 * comes, a gap's "\n" written before the next text. */
tw_status tw_dl_text(tw_dl *d, tw_dl_chan ch, uint64_t off, size_t n);
/* The same for bytes that are not the input's (a dialect's own text). */
tw_status tw_dl_text_bytes(tw_dl *d, tw_dl_chan ch, const char *p, size_t n);
/* Content from d->pos up to the first of marks[0, n) (resume as in
 * tw_dl_find), sent as content. *which is n while none is found (d->pos at
 * the first byte one could start at), else the index of the marker at *at,
 * with d->pos there for the dialect to read it. */
tw_status tw_dl_content(tw_dl *d, uint64_t *resume, const tw_dl_mark *marks, size_t n, bool final,
                        uint64_t *at, size_t *which);
/* A block of the channel ends: its trailing white space is dropped and the
 * next text, if any, is joined with "\n" (several reasoning blocks). */
void tw_dl_gap(tw_dl *d, tw_dl_chan ch);

/* A diagnostic (error or warning) at input offset off. */
tw_status tw_dl_diag(tw_dl *d, bool error, tw_status code, int64_t off, const char *msg);

/*
 * One call: name[0, nlen) (not NUL-terminated), id[0, idlen) (idlen 0: the
 * rules make call_<n>), the argument text args[0, alen) (NULL: no arguments,
 * an empty object), its offset. Through tw_wire_take_call: refused calls are
 * error diagnostics, argument text past tw_args_text_cap is refused unparsed.
 */
tw_status tw_dl_call(tw_dl *d, const char *name, size_t nlen, const char *id, size_t idlen,
                     const char *args, size_t alen, int64_t off);
/* tw_dl_call with a parsed JSON value as the arguments (kept in their native
 * form; the caller still owns v). src_len: the text it was parsed from. */
tw_status tw_dl_call_value(tw_dl *d, const char *name, size_t nlen, const char *id, size_t idlen,
                           const cJSON *v, size_t src_len, int64_t off);
/* tw_dl_call_value with v a member of owner: taken out of owner (detached,
 * not copied) when the call is accepted. */
tw_status tw_dl_call_member(tw_dl *d, const char *name, size_t nlen, const char *id, size_t idlen,
                            cJSON *owner, const cJSON *v, size_t src_len, int64_t off);

/* ---- reasoning blocks ---- */

/*
 * A reasoning block that a token opens (<think>, Gemma's <|channel>) and
 * another closes, read one way by every dialect that has one. Under
 * forced_open the prompt opened it: the output starts inside it, and an
 * opener there (after white space) is the same block, not text. Its text is
 * reasoning; the closer, or a marker that ends it without one (a call, the
 * end of the turn), ends it with a gap. A dialect embeds a tw_dl_think in its
 * state (zeroed with it) and reads its blocks through the functions below.
 */
typedef struct tw_dl_think {
    bool lead;         /* at the start of a forced-open block: an opener there is the same one */
    bool closed_known; /* unterminated=direct: the block's closer was found */
    bool hold;         /* a calls opener in the block waits for a closer to say what it is */
    uint64_t at;       /* offset of the open block's opener (0 under forced_open) */
    uint64_t until;    /* a calls opener before it is reasoning text (a closer follows) */
    uint64_t held;     /* offset of the calls opener on hold */
    uint64_t resume;   /* the resumed search inside the block (0: none) */
} tw_dl_think;

/* Under forced_open the output starts inside a block (true: the dialect
 * starts in its reasoning state, and an opener at the start is read by
 * tw_dl_think_lead). */
bool tw_dl_think_forced(tw_dl *d, tw_dl_think *t);

/* An opener of n bytes at `at` opens a block: d->pos past it. */
void tw_dl_think_open(tw_dl *d, tw_dl_think *t, uint64_t at, size_t n);

/* At the start of a forced-open block (t->lead): white space dropped (it
 * would be anyway), then an `open` there read as the same block. 1: it was
 * (d->pos past it), 0: it was not (d->pos at the first other byte), -1: not
 * decided until more bytes come. Clears t->lead once decided. */
int tw_dl_think_lead(tw_dl *d, tw_dl_think *t, const tw_dl_mark *open, bool final);

/*
 * Inside a block from d->pos: the opener at the start under t->lead
 * (tw_dl_think_lead), then the text up to the first of ends[0, n) sent as
 * reasoning; ends[0] is the closer. *which is n while the block goes on
 * (d->pos at the first byte a marker could start at); else the block ended
 * at ends[*which] at *at, with a gap: d->pos past the closer, or at the other
 * marker for the dialect to read.
 */
tw_status tw_dl_think_scan(tw_dl *d, tw_dl_think *t, const tw_dl_mark *open, const tw_dl_mark *ends,
                           size_t n, bool final, uint64_t *at, size_t *which);

/* The block is not closed (the output or the turn ended in it): the error
 * at its opener, msg NULL for the code's own text. */
tw_status tw_dl_think_unterminated(tw_dl *d, const tw_dl_think *t, const char *msg);

/* The block ended at `at` without its closer (a call there): a warning. */
tw_status tw_dl_think_implicit(tw_dl *d, uint64_t at, const char *msg);

/*
 * DeepSeek's dialects (deepseek-v3.1, dsml) read the reasoning only at the
 * start of the output, with a calls section that may stand inside it: such
 * a section is reasoning text when a closer follows, else the reasoning's
 * end (the model forgot the closer, implicit_msg); under unterminated=direct
 * nothing of the block is sent until its closer is found, and a block never
 * closed is the answer.
 */
typedef struct tw_dl_think_spec {
    tw_dl_mark open, close;
    tw_dl_mark calls;         /* a calls section's opener */
    tw_dl_mark eos;           /* the end of sentence: dropped inside the reasoning */
    const char *implicit_msg; /* the warning when a calls section ends the reasoning */
} tw_dl_think_spec;

/* The start of the output from d->pos: white space dropped, then an opener
 * (1: a block from past it), an empty block's closer without forced_open (0:
 * content from past it), or nothing (forced_open: 1, a block from d->pos;
 * else 0, content). -1: not decided until more bytes come. */
int tw_dl_think_start(tw_dl *d, tw_dl_think *t, const tw_dl_think_spec *sp, bool final);

typedef enum tw_dl_think_end {
    TW_DL_THINK_WAIT = 0, /* the block goes on; more bytes are wanted */
    TW_DL_THINK_ON,       /* the block goes on: step again */
    TW_DL_THINK_CONTENT,  /* the block ended: content from d->pos */
    TW_DL_THINK_CALLS,    /* it ended at a calls opener at *at (warned): the calls from past it */
} tw_dl_think_end;

/* One step inside a block of a tw_dl_think_spec from d->pos. */
tw_status tw_dl_think_step(tw_dl *d, tw_dl_think *t, const tw_dl_think_spec *sp, bool final,
                           tw_dl_think_end *end, uint64_t *at);

/* ---- the end of the turn ---- */

/* After the end of the turn: the held bytes are read and dropped; the first
 * that is not white space is a warning (msg) once (*warned). */
tw_status tw_dl_after_end(tw_dl *d, bool *warned, const char *msg);

/* ---- the decoder ---- */

void *tw_dl_new(const tw_dialect *dia, const tw_decode_opts *o, tw_event_fn fn, void *user);
tw_status tw_dl_feed(void *d, const char *buf, size_t len);
tw_status tw_dl_finish(void *d, tw_result *out);
tw_status tw_dl_reset(void *d, const tw_decode_opts *o, tw_event_fn fn, void *user);
void tw_dl_free(void *d);
void tw_dl_recycle(void *d, tw_result *r);
tw_status tw_dl_decode(const tw_dialect *dia, const char *buf, size_t len, const tw_decode_opts *o,
                       tw_result *out);

/*
 * A dialect module's public functions (include/toolwire/<dialect>.h):
 * tw_<pub>_dec_new, _feed, _finish, _reset, _recycle, _free and the batch
 * tw_<pub>_output_decode over the dialect `dia`, on the opaque type
 * tw_<pub>_dec, and its tw_format_ops `ops` named `nm` with `summary`.
 */
#define TW_DIALECT_MODULE(pub, dia, ops, nm, summary)                                              \
    tw_##pub##_dec *tw_##pub##_dec_new(const tw_decode_opts *o, tw_event_fn fn, void *user)        \
    {                                                                                              \
        return tw_dl_new(&(dia), o, fn, user);                                                     \
    }                                                                                              \
    tw_status tw_##pub##_dec_feed(tw_##pub##_dec *d, const char *buf, size_t len)                  \
    {                                                                                              \
        return tw_dl_feed(d, buf, len);                                                            \
    }                                                                                              \
    tw_status tw_##pub##_dec_finish(tw_##pub##_dec *d, tw_result *out)                             \
    {                                                                                              \
        return tw_dl_finish(d, out);                                                               \
    }                                                                                              \
    tw_status tw_##pub##_dec_reset(tw_##pub##_dec *d, const tw_decode_opts *o, tw_event_fn fn,     \
                                   void *user)                                                     \
    {                                                                                              \
        return tw_dl_reset(d, o, fn, user);                                                        \
    }                                                                                              \
    void tw_##pub##_dec_recycle(tw_##pub##_dec *d, tw_result *r)                                   \
    {                                                                                              \
        tw_dl_recycle(d, r);                                                                       \
    }                                                                                              \
    void tw_##pub##_dec_free(tw_##pub##_dec *d)                                                    \
    {                                                                                              \
        tw_dl_free(d);                                                                             \
    }                                                                                              \
    tw_status tw_##pub##_output_decode(const char *buf, size_t len, const tw_decode_opts *o,       \
                                       tw_result *out)                                             \
    {                                                                                              \
        return tw_dl_decode(&(dia), buf, len, o, out);                                             \
    }                                                                                              \
    static void *pub##_ops_new(const tw_decode_opts *o, tw_event_fn fn, void *u)                   \
    {                                                                                              \
        return tw_dl_new(&(dia), o, fn, u);                                                        \
    }                                                                                              \
    const tw_format_ops ops = {nm,                                                                 \
                               summary,                                                            \
                               tw_##pub##_output_decode,                                           \
                               pub##_ops_new,                                                      \
                               tw_dl_feed,                                                         \
                               tw_dl_finish,                                                       \
                               tw_dl_reset,                                                        \
                               tw_dl_free,                                                         \
                               tw_dl_recycle};

#endif
