/*
 * Internal: the push machinery the model-output dialects share (Harmony,
 * DeepSeek, Kimi K2, Mistral, Llama 3.x; docs/formats/<dialect>.md). A
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
tw_status tw_dl_call_member(tw_dl *d, const char *name, size_t nlen, const char *id,
                            size_t idlen, cJSON *owner, const cJSON *v, size_t src_len,
                            int64_t off);

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
