/*
 * Encoders: a neutral value -> wire bytes. A request encoder reads a
 * neutral request and writes what a client would send; a result encoder
 * reads a neutral result (a model's answer) and writes what a backend
 * would send. Every encoder is listed in the module registry
 * (toolwire/registry.h); tw_encoders() is the encoders' view of it.
 *
 * The contract every encoder keeps:
 *   - The input value is read only, never kept.
 *   - Output is appended to `out` (a caller-owned tw_buf, possibly not
 *     empty); at most o->limits.max_output_bytes bytes are added. Output is
 *     deterministic: the same value and options give the same bytes.
 *   - `o` may be NULL (defaults). What the target format cannot carry is
 *     reported in o->warnings (not_carried, when the list is given), never
 *     dropped silently.
 *   - On failure (TW_ERR_LIMIT past max_output_bytes, TW_ERR_NOMEM,
 *     TW_ERR_INVALID for a value the format cannot express at all) `out`
 *     may hold a partial write after its previous length: callers that
 *     keep the buffer cut it back to its previous length.
 */
#ifndef TOOLWIRE_ENCODE_H
#define TOOLWIRE_ENCODE_H

#include "toolwire/neutral.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tw_encode_opts {
    tw_limits limits;     /* max_output_bytes caps the output */
    const char *model;    /* model name to write where the format needs one */
    const char *id;       /* response id ("chatcmpl-…", "msg_…"); NULL: a fixed default */
    long long created;    /* OpenAI "created"; 0: a fixed default */
    size_t args_fragment; /* streams: split arguments into pieces of this many bytes (0: whole) */
    size_t text_fragment; /* streams: split content/thinking into pieces (0: whole) */
    bool include_usage;   /* streams: a usage chunk at the end */
    bool omit_done;       /* OpenAI streams: leave out data: [DONE] (fault injection) */
    bool partial_args;    /* Gemini streams: call arguments as streamed partialArgs pieces */
    int parallel_tool_calls; /* requests: -1 default policy, 0 false, 1 true */
    /* warnings about what the target format cannot carry (not_carried) */
    tw_diag_list *warnings;
} tw_encode_opts;

typedef enum tw_encode_input { TW_ENC_REQUEST = 0, TW_ENC_RESULT } tw_encode_input;

typedef struct tw_encoder_ops {
    const char *name;      /* "openai-request", "anthropic-stream", … (static) */
    const char *summary;   /* one line for --help (static) */
    tw_encode_input input; /* which of the two functions below is the encoder */
    /* The encoder of a request (input TW_ENC_REQUEST); the other answers
     * TW_ERR_UNSUPPORTED. */
    tw_status (*encode_request)(const tw_request *r, const tw_encode_opts *o, tw_buf *out);
    tw_status (*encode_result)(const tw_result *r, const tw_encode_opts *o, tw_buf *out);
} tw_encoder_ops;

/* The encoder of that name, NULL when unknown (name must not be NULL). */
TW_API const tw_encoder_ops *tw_encoder_find(const char *name);
/* NULL-terminated list of every encoder, in registry order. */
TW_API const tw_encoder_ops *const *tw_encoders(void);

#ifdef __cplusplus
}
#endif
#endif
