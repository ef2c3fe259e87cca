/*
 * The format registry: every decoder behind one interface, so the CLI, the
 * tests and the fuzz targets can drive any format in batch or streaming.
 */
#ifndef TOOLWIRE_DECODE_H
#define TOOLWIRE_DECODE_H

#include "toolwire/neutral.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tw_format_ops {
    const char *name;        /* "hermes", "openai-stream", … */
    const char *summary;     /* one line for --help */
    /* Batch decode of a whole input into *out (initialised by the callee). */
    tw_status (*decode)(const char *buf, size_t len, const tw_decode_opts *o, tw_result *out);
    /* Streaming: state of state_size bytes, zeroed by the caller. */
    size_t state_size;
    tw_status (*init)(void *state, const tw_decode_opts *o, tw_event_fn fn, void *user);
    tw_status (*feed)(void *state, const char *buf, size_t len);
    /* Ends the input and moves the result into *out; init() again to reuse. */
    tw_status (*finish)(void *state, tw_result *out);
    void (*release)(void *state);
} tw_format_ops;

/* NULL when unknown. */
const tw_format_ops *tw_format_find(const char *name);
/* NULL-terminated list of every format. */
const tw_format_ops *const *tw_formats(void);

/* A heap-allocated stream over any format (convenience for callers). */
typedef struct tw_stream tw_stream;
tw_stream *tw_stream_new(const tw_format_ops *f, const tw_decode_opts *o, tw_event_fn fn,
                         void *user);
tw_status tw_stream_feed(tw_stream *s, const char *buf, size_t len);
tw_status tw_stream_finish(tw_stream *s, tw_result *out);
void tw_stream_free(tw_stream *s);

/*
 * Decode through the streaming decoder in `chunk`-byte pieces (chunk 0 =
 * one piece). Used by `parse --chunk` and by the equivalence tests.
 */
tw_status tw_decode_chunked(const tw_format_ops *f, const char *buf, size_t len, size_t chunk,
                            const tw_decode_opts *o, tw_result *out);

#ifdef __cplusplus
}
#endif
#endif
