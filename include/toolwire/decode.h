/*
 * Decoders: wire bytes in one format -> the neutral tw_result. Every decoder
 * offers the same two ways in, batch and push (streaming), behind
 * tw_format_ops; the list of decoders is the module registry
 * (toolwire/registry.h), of which tw_formats() is the decoders' view.
 *
 * The contract every decoder keeps:
 *   - Input: bytes buf[0, len) (not NULL), no terminator needed, never
 *     modified or kept.
 *   - Options: a tw_decode_opts (neutral.h), NULL meaning all defaults; its
 *     limits bound everything the decoder keeps. The options and the tools
 *     they point at are read during the call (batch) or until finish
 *     (push), never kept after.
 *   - A bad input is not a failure. What the decoder dropped, refused or
 *     found past a cap is reported in out->errors, what it repaired in
 *     out->warnings (diagnostic codes, core.h), and the call returns TW_OK.
 *   - A failure (st != TW_OK) is one of the statuses of core.h: NOMEM when
 *     an allocation failed, STATE for a call out of order; or, in a push
 *     decode, the status an event callback returned to stop it
 *     (tw_event_fn, neutral.h), passed back as is. On every
 *     failure *out is a valid, empty result (tw_result_init) that the
 *     caller may free with tw_result_free or drop: nothing partial.
 *   - On TW_OK *out owns everything it holds; free it with tw_result_free.
 *     *out need not be initialised before the call: the callee overwrites
 *     it without reading it.
 */
#ifndef TOOLWIRE_DECODE_H
#define TOOLWIRE_DECODE_H

#include "toolwire/neutral.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tw_format_ops {
    const char *name;    /* "hermes", "openai-stream", … (static) */
    const char *summary; /* one line for --help (static) */
    /* Batch: decode buf[0, len) whole into *out (see the contract above). */
    tw_status (*decode)(const char *buf, size_t len, const tw_decode_opts *o, tw_result *out);
    /*
     * Push: the same shape as every module's own push API
     * (tw_<type>_new, _feed, _finish, _reset, _free), over an opaque
     * decoder `d` of the module's type.
     *
     * new_dec: a decoder on the heap, NULL when memory runs out. It reads
     * `o` (may be NULL: defaults) and keeps a copy (the tools it points at
     * must stay valid until finish); `fn` (may be NULL) is called
     * synchronously from feed and finish with each event, `user` passed
     * through; a status other than TW_OK from fn stops the decode
     * (tw_event_fn, neutral.h).
     */
    void *(*new_dec)(const tw_decode_opts *o, tw_event_fn fn, void *user);
    /* Feed the next bytes (any split: the result does not depend on where
     * the input is cut). A failure ends the decode: later feeds and finish
     * fail too. */
    tw_status (*feed)(void *d, const char *buf, size_t len);
    /* End the input and move the result into *out. On every failure *out
     * is valid and empty; a second finish is TW_ERR_STATE. */
    tw_status (*finish)(void *d, tw_result *out);
    /* Start a new decode on d, whatever state it is in, with the options
     * and events of new_dec; the decoder keeps its buffers' allocations.
     * TW_OK (a failure would leave d failed, still safe to free). */
    tw_status (*reset)(void *d, const tw_decode_opts *o, tw_event_fn fn, void *user);
    /* Free d and everything it holds; NULL does nothing. */
    void (*free_dec)(void *d);
    /*
     * Give back a result the caller is done with (from d's finish or any
     * other; NULL does nothing): r is freed and left empty (zeroed), except
     * that a decoder which builds its result in buffers of its own keeps
     * the allocations of r's content and thinking buffers for the result of
     * its next decode (the text decoders: think, hermes, fenced,
     * qwen3-coder), so that a decoder reset and reused for inputs of
     * similar size writes them into memory already allocated and touched.
     * Every other decoder frees r (tw_format_recycle_free). The next
     * result is the same as from a fresh decoder; only its buffers'
     * capacity may be larger than their length.
     */
    void (*recycle)(void *d, tw_result *r);
} tw_format_ops;

/* The recycle step of a decoder that keeps nothing of a result:
 * tw_result_free(r) (r may be NULL). */
TW_API void tw_format_recycle_free(void *d, tw_result *r);

/* The decoder of that name, NULL when unknown (name must not be NULL). */
TW_API const tw_format_ops *tw_format_find(const char *name);
/* NULL-terminated list of every decoder, in registry order. */
TW_API const tw_format_ops *const *tw_formats(void);

/*
 * A push decode over any decoder of the registry, in the same shape as the
 * modules' own (convenience for callers that pick the decoder by name).
 * tw_stream_new returns NULL when memory runs out (`f` must not be NULL;
 * `o`, `fn`, `user` as for new_dec). feed and finish follow the ops'
 * contract; after finish the stream only answers TW_ERR_STATE, with *out
 * left empty, until tw_stream_reset starts a new decode on the same
 * decoder and buffers (TW_OK, or the failure of the decoder's reset);
 * tw_stream_recycle hands a finished result back for its buffers.
 * tw_stream_free(NULL) does nothing.
 */
typedef struct tw_stream tw_stream;
TW_API tw_stream *tw_stream_new(const tw_format_ops *f, const tw_decode_opts *o, tw_event_fn fn,
                                void *user);
TW_API tw_status tw_stream_feed(tw_stream *s, const char *buf, size_t len);
TW_API tw_status tw_stream_finish(tw_stream *s, tw_result *out);
TW_API tw_status tw_stream_reset(tw_stream *s, const tw_decode_opts *o, tw_event_fn fn, void *user);
/* The decoder's recycle step (tw_format_ops.recycle): r is freed and left
 * empty, its content and thinking allocations kept for the next decode by
 * the decoders that reuse them. Any time; r may be NULL. */
TW_API void tw_stream_recycle(tw_stream *s, tw_result *r);
TW_API void tw_stream_free(tw_stream *s);

/*
 * Decode through the push decoder in `chunk`-byte pieces (chunk 0 = one
 * piece), each piece an exact-size copy so that sanitizers catch a read
 * past it. Used by `parse --chunk` and by the equivalence tests. The same
 * contract as a batch decode: on failure *out is valid and empty.
 */
TW_API tw_status tw_decode_chunked(const tw_format_ops *f, const char *buf, size_t len,
                                   size_t chunk, const tw_decode_opts *o, tw_result *out);

#ifdef __cplusplus
}
#endif
#endif
