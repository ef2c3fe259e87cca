/* Internal: the one list of format modules (include/toolwire/registry.h).
 * Decoders and encoders define their tw_format_* / tw_encoder_* objects in
 * their own modules (text.c, openai.c, openai_enc.c, anthropic.c,
 * anthropic_enc.c, hermes_enc.c, gemini_enc.c, qwen_xml_enc.c,
 * openai_responses_enc.c, vllm.c, gemini.c, proxy.c, responses.c); the request readers'
 * objects are in registry.c. One line per module, its name the object's own
 * (tests/lib/test_contract.c checks):
 *   D(symbol, name, family)        a decoder (tw_format_ops): bytes -> tw_result
 *   E(symbol, name, family, takes) an encoder (tw_encoder_ops): a neutral
 *                                  REQUEST or RESULT -> bytes
 *   R(symbol, name, family)        a request reader (tw_request_reader_ops):
 *                                  bytes -> tw_request
 * family is TEXT, JSON or SSE (tw_family, TW_FAMILY_ spelled out by the
 * users of the list).
 * The order is that of every listing (--help, tw_formats, tw_encoders). */
#ifndef TOOLWIRE_FORMATS_H
#define TOOLWIRE_FORMATS_H

#include "toolwire/registry.h"

#define TW_MODULE_LIST(D, E, R)                                                \
    D(tw_format_think, "think", TEXT)                                          \
    D(tw_format_hermes, "hermes", TEXT)                                        \
    D(tw_format_fenced, "fenced", TEXT)                                        \
    D(tw_format_qwen3_coder, "qwen3-coder", TEXT)                              \
    D(tw_format_openai_response, "openai-response", JSON)                      \
    D(tw_format_openai_stream, "openai-stream", SSE)                           \
    D(tw_format_anthropic_response, "anthropic-response", JSON)                \
    D(tw_format_anthropic_stream, "anthropic-stream", SSE)                     \
    D(tw_format_vllm_generate, "vllm-generate", JSON)                          \
    D(tw_format_gemini, "gemini", JSON)                                        \
    D(tw_format_gemini_stream, "gemini-stream", SSE)                           \
    D(tw_format_proxy, "proxy", TEXT)                                          \
    D(tw_format_openai_responses, "openai-responses", JSON)                    \
    D(tw_format_openai_responses_stream, "openai-responses-stream", SSE)       \
    E(tw_encoder_openai_request, "openai-request", JSON, REQUEST)              \
    E(tw_encoder_openai_response, "openai-response", JSON, RESULT)             \
    E(tw_encoder_openai_stream, "openai-stream", SSE, RESULT)                  \
    E(tw_encoder_anthropic_request, "anthropic-request", JSON, REQUEST)        \
    E(tw_encoder_anthropic_response, "anthropic-response", JSON, RESULT)       \
    E(tw_encoder_anthropic_stream, "anthropic-stream", SSE, RESULT)            \
    E(tw_encoder_hermes_prompt, "hermes-prompt", TEXT, REQUEST)                \
    E(tw_encoder_hermes_system, "hermes-system", TEXT, REQUEST)                \
    E(tw_encoder_qwen3_coder_prompt, "qwen3-coder-prompt", TEXT, REQUEST)      \
    E(tw_encoder_qwen35_prompt, "qwen3.5-prompt", TEXT, REQUEST)               \
    E(tw_encoder_vllm_generate_request, "vllm-generate-request", JSON, REQUEST)\
    E(tw_encoder_vllm_generate_response, "vllm-generate-response", JSON, RESULT)\
    E(tw_encoder_proxy_prompt, "proxy-prompt", TEXT, REQUEST)                  \
    E(tw_encoder_gemini_request, "gemini-request", JSON, REQUEST)              \
    E(tw_encoder_gemini_response, "gemini", JSON, RESULT)                      \
    E(tw_encoder_gemini_stream, "gemini-stream", SSE, RESULT)                  \
    E(tw_encoder_responses_request, "openai-responses-request", JSON, REQUEST) \
    E(tw_encoder_responses_response, "openai-responses", JSON, RESULT)         \
    E(tw_encoder_responses_stream, "openai-responses-stream", SSE, RESULT)     \
    R(tw_reader_openai_request, "openai-request", JSON)                        \
    R(tw_reader_anthropic_request, "anthropic-request", JSON)                  \
    R(tw_reader_vllm_generate_request, "vllm-generate-request", JSON)          \
    R(tw_reader_gemini_request, "gemini-request", JSON)                        \
    R(tw_reader_hermes_prompt, "hermes-prompt", TEXT)                          \
    R(tw_reader_responses_request, "openai-responses-request", JSON)           \
    R(tw_reader_qwen3_coder_prompt, "qwen3-coder-prompt", TEXT)                \
    R(tw_reader_qwen35_prompt, "qwen3.5-prompt", TEXT)

#define TW_X_DECLARE_FORMAT(sym, nm, fam) extern const tw_format_ops sym;
#define TW_X_DECLARE_ENCODER(sym, nm, fam, in) extern const tw_encoder_ops sym;
#define TW_X_DECLARE_READER(sym, nm, fam) extern const tw_request_reader_ops sym;
TW_MODULE_LIST(TW_X_DECLARE_FORMAT, TW_X_DECLARE_ENCODER, TW_X_DECLARE_READER)
#undef TW_X_DECLARE_FORMAT
#undef TW_X_DECLARE_ENCODER
#undef TW_X_DECLARE_READER

/* The side an encoder does not write (a request encoder asked for a result,
 * or the other way round): TW_ERR_UNSUPPORTED, *out untouched. */
tw_status tw_unsupported_encode_request(const tw_request *r, const tw_encode_opts *o, tw_buf *out);
tw_status tw_unsupported_encode_result(const tw_result *r, const tw_encode_opts *o, tw_buf *out);

#endif
