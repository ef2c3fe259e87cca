/*
 * Transcoding between wire formats through the neutral model: a request or
 * a result is read from one format and written in another. What the target
 * cannot carry is reported as a not_carried warning naming the field, never
 * dropped silently. Rules: docs/formats/encoding.md.
 */
#ifndef TOOLWIRE_TRANSCODE_H
#define TOOLWIRE_TRANSCODE_H

#include "toolwire/encode.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tw_neutral_kind {
    TW_NEUTRAL_NONE = 0,
    TW_NEUTRAL_REQUEST,
    TW_NEUTRAL_RESULT
} tw_neutral_kind;

/* A request or a result; zero-initialised is empty. */
typedef struct tw_neutral_value {
    tw_neutral_kind kind;
    tw_request req; /* kind REQUEST */
    tw_result res;  /* kind RESULT */
    /* Who made the thinking signatures it holds, as tw_transcode_read saw
     * the source: "Anthropic", "Gemini", "OpenAI Responses" (static), or
     * NULL when the source does not say (neutral JSON, formats without
     * signatures). */
    const char *signer;
} tw_neutral_value;

TW_API void tw_neutral_value_free(tw_neutral_value *v);

/*
 * Source formats: "openai-request", "anthropic-request", "vllm-generate-request",
 * "hermes-prompt", "qwen3-coder-prompt", "qwen3.5-prompt" (request_chatml.h),
 * any other request reader of the registry, "neutral-request",
 * "neutral-result", "neutral" (a request when the object has "messages",
 * else a result), or any decoder name of tw_format_find (decoded to a
 * result). Target formats: any encoder name of tw_encoder_find, or
 * "neutral" / "neutral-request" / "neutral-result" (neutral JSON).
 */
TW_API bool tw_transcode_is_source(const char *name);
TW_API bool tw_transcode_is_target(const char *name);

/*
 * Read buf[0, len) in format `from`. `dopts` (may be NULL) configures
 * decoders; its limits bound every reader. Warnings of the request readers
 * go to `warnings` (may be NULL); a decoder's own errors and warnings stay
 * in the result. On failure *out is empty and `err` (may be NULL) says what
 * went wrong (see tw_error: the code that names the cause, the offset and
 * the JSON path for request bodies). Returns TW_ERR_UNSUPPORTED when
 * the source decoder is not available, TW_ERR_INVALID for an unknown name.
 */
TW_API tw_status tw_transcode_read(const char *from, const char *buf, size_t len,
                                   const tw_decode_opts *dopts, tw_neutral_value *out,
                                   tw_diag_list *warnings, tw_error *err);

/*
 * Write `v` in format `to`, appending to `out`. A result's decode errors
 * and warnings cannot travel in a wire format: they are copied into
 * o->warnings (same codes) when the target is not neutral. A thinking
 * signature made by another vendor than the target's (v->signer) is not
 * written, since only its maker can verify it: not_carried in o->warnings. TW_ERR_INVALID
 * when the target takes the other kind of value, TW_ERR_LIMIT past
 * max_output_bytes (err, may be NULL, says why in each case),
 * TW_ERR_UNSUPPORTED when the encoder is not available.
 */
TW_API tw_status tw_transcode_write(const tw_neutral_value *v, const char *to,
                                    const tw_encode_opts *o, tw_buf *out, tw_error *err);

/* Read then write; warnings of both steps go to o->warnings. */
TW_API tw_status tw_transcode(const char *from, const char *to, const char *buf, size_t len,
                              const tw_encode_opts *o, tw_buf *out, tw_error *err);

#ifdef __cplusplus
}
#endif
#endif
