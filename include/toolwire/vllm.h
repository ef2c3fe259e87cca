/*
 * vLLM-native /generate, the two-pass contract
 * (docs/formats/vllm-native.md):
 *
 *   vllm-generate            decoder: GenerateResponse JSON -> neutral result
 *   vllm-generate-request    encoder: neutral request -> GenerateRequest
 *   vllm-generate-response   encoder: neutral result -> GenerateResponse
 *
 * plus the server side (two-pass assembly from raw model texts, with one
 * deterministic token rule) and the client's AIMessage mapping.
 */
#ifndef TOOLWIRE_VLLM_H
#define TOOLWIRE_VLLM_H

#include "toolwire/encode.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Batch decode of a GenerateResponse body (the registry's "vllm-generate")
 * (the contract of decode.h: buf[0, len) is
 * not kept, `o` may be NULL, *out need not be initialised and is valid and
 * empty on every failure; a bad body is a diagnostic, not a failure). */
TW_API tw_status tw_vllm_response_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                         tw_result *out);

/*
 * The streaming decoder: opaque, allocated by tw_vllm_dec_new and freed by
 * tw_vllm_dec_free. The body is buffered (up to max_input_bytes) and
 * decoded at finish; events fire from finish. After finish (or a failure)
 * tw_vllm_dec_reset starts the next decode on the same body buffer.
 * Every function but _free takes a decoder from _new (never NULL).
 */
typedef struct tw_vllm_dec tw_vllm_dec;

/* A decoder; `o` may be NULL (defaults) and is copied (the tools it points
 * at must stay valid until finish); `fn` may be NULL (no events), `user` is
 * passed to it (tw_event_fn: a status other than TW_OK stops the decode).
 * NULL when memory runs out. */
TW_API tw_vllm_dec *tw_vllm_dec_new(const tw_decode_opts *o, tw_event_fn fn, void *user);
/* Push bytes (not kept; any split). TW_OK, TW_ERR_NOMEM, TW_ERR_STATE
 * after finish, or the status a callback stopped the decode with; after a
 * failure the decode is over. */
TW_API tw_status tw_vllm_dec_feed(tw_vllm_dec *d, const char *buf, size_t len);
/* End of input: moves the result to *out (need not be initialised; free
 * with tw_result_free). On failure (TW_ERR_NOMEM; TW_ERR_STATE for a second
 * finish; a callback's status) *out is valid and empty. The decoder keeps
 * its buffers for a reset. */
TW_API tw_status tw_vllm_dec_finish(tw_vllm_dec *d, tw_result *out);
/* Start a new decode with `o`, `fn`, `user` (as for new), whatever state d
 * is in; the buffers' allocations are kept. Returns TW_OK. */
TW_API tw_status tw_vllm_dec_reset(tw_vllm_dec *d, const tw_decode_opts *o, tw_event_fn fn,
                                   void *user);
/* Free the decoder and everything it holds; NULL does nothing. */
TW_API void tw_vllm_dec_free(tw_vllm_dec *d);

/* Encoders (also in the registry). Both append to out; out is unchanged
 * on failure; TW_ERR_INVALID for a bad option value, TW_ERR_LIMIT past
 * max_output_bytes. */
TW_API tw_status tw_vllm_request_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out);
TW_API tw_status tw_vllm_response_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out);

/* ---- server side: the two-pass assembly ---- */

/* The generation parameters of a GenerateRequest. */
typedef struct tw_vllm_params {
    bool two_pass;              /* default true */
    bool thinking_tag;          /* think_tag "thinking" (default "think") */
    size_t max_thinking_tokens; /* 0: no cap */
    size_t max_response_tokens; /* 0: no cap */
    bool hermes;                /* tool_parser "hermes" (default) or "qwen3_coder" vs "openai" */
    bool qwen3_coder;           /* tool_parser "qwen3_coder": the calls inside the blocks are
                                   Qwen3-Coder XML (the qwen3-coder decoder); hermes is set too */
    const char *parser;         /* tool_parser naming another text decoder of the registry (a
                                   model dialect: "harmony", "kimi-k2", …): pass 2 is decoded
                                   with it, no Hermes stop; hermes and qwen3_coder are false.
                                   NULL: hermes, qwen3_coder or openai as above */
} tw_vllm_params;

/*
 * Read the parameters from a request's options (two_pass, think_tag,
 * max_thinking_tokens, max_response_tokens, tool_parser); absent keys take
 * the defaults above. options may be NULL (all defaults). On a bad value
 * returns TW_ERR_INVALID and err (may be NULL) names the option (code
 * TW_ERR_INVALID, offset -1, path "").
 */
TW_API tw_status tw_vllm_params_read(const cJSON *options, tw_vllm_params *out, tw_error *err);

/*
 * The token rule of the mock backend: a token is a maximal run of ASCII
 * whitespace bytes or a maximal run of other bytes. Returns the byte length
 * of the first `max_tokens` tokens of buf (len when it has no more).
 * *ntokens (optional) gets the number of tokens in buf[0, len).
 */
TW_API size_t tw_vllm_token_prefix(const char *buf, size_t len, size_t max_tokens, size_t *ntokens);

typedef enum tw_vllm_stop {
    TW_VLLM_END = 0,  /* the text ended by itself */
    TW_VLLM_STOP_TAG, /* a stop sequence (</think>, </tool_call>) was hit */
    TW_VLLM_TOKEN_CAP /* the token cap was hit first */
} tw_vllm_stop;

/* What the server computed; every buffer owned, free with tw_vllm_assembly_free. */
typedef struct tw_vllm_assembly {
    tw_buf thinking_core;   /* pass 1 before the closing tag, trimmed */
    tw_buf response_prefix; /* pass 1 after the closing tag, trimmed */
    tw_buf text2;           /* pass 2 after its cuts */
    tw_buf combined;        /* (prefix + " " + text2), trimmed */
    tw_vllm_stop pass1_stop;
    tw_vllm_stop pass2_stop;
    /* the GenerateResponse as a neutral result: thinking, content
     * (= response), calls with ids call_1.., finish_reason, diagnostics */
    tw_result result;
    tw_buf pre_tool_text; /* set when calls were extracted */
    bool has_pre_tool_text;
} tw_vllm_assembly;

/*
 * Two-pass assembly from the raw texts the model would produce for pass 1
 * (starting inside the think block) and pass 2 (after the closed block).
 * `o` supplies limits, declared tools and decoder options for the
 * extraction (its `finish` is replaced by what stopped pass 2). With
 * two_pass false, pass 1 is ignored and pass2 is the whole output.
 * On success *out is filled (free with tw_vllm_assembly_free).
 */
TW_API tw_status tw_vllm_assemble(const tw_vllm_params *p, const char *pass1, size_t len1,
                                  const char *pass2, size_t len2, const tw_decode_opts *o,
                                  tw_vllm_assembly *out);
TW_API void tw_vllm_assembly_free(tw_vllm_assembly *a);

/*
 * The client's AIMessage as JSON: {"content": C, "tool_calls": [{"id", "name",
 * "args"}], "additional_kwargs": {"thinking": T}} where C is the closed think
 * block "<tag>T</tag>" + "\n" + the result's content when T is non-empty,
 * else the content alone. `think_tag` NULL means "think". Appends to out.
 */
TW_API tw_status tw_vllm_aimessage_write(tw_buf *out, const tw_result *r, const char *think_tag,
                                         int flags);

#ifdef __cplusplus
}
#endif
#endif
