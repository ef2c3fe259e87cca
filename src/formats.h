/* Internal: the one list of format modules (include/toolwire/registry.h).
 * Decoders and encoders define their tw_format_* / tw_encoder_* objects in
 * their own modules (text.c, openai.c, openai_enc.c, anthropic.c,
 * anthropic_enc.c, hermes_enc.c, vllm.c, proxy.c); the request readers'
 * objects are in registry.c. One line per module, its name the object's own
 * (tests/test_registry.c checks):
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
    D(tw_format_openai_response, "openai-response", JSON)                      \
    D(tw_format_openai_stream, "openai-stream", SSE)                           \
    D(tw_format_anthropic_response, "anthropic-response", JSON)                \
    D(tw_format_anthropic_stream, "anthropic-stream", SSE)                     \
    D(tw_format_vllm_generate, "vllm-generate", JSON)                          \
    D(tw_format_proxy, "proxy", TEXT)                                          \
    E(tw_encoder_openai_request, "openai-request", JSON, REQUEST)              \
    E(tw_encoder_openai_response, "openai-response", JSON, RESULT)             \
    E(tw_encoder_openai_stream, "openai-stream", SSE, RESULT)                  \
    E(tw_encoder_anthropic_request, "anthropic-request", JSON, REQUEST)        \
    E(tw_encoder_anthropic_response, "anthropic-response", JSON, RESULT)       \
    E(tw_encoder_anthropic_stream, "anthropic-stream", SSE, RESULT)            \
    E(tw_encoder_hermes_prompt, "hermes-prompt", TEXT, REQUEST)                \
    E(tw_encoder_hermes_system, "hermes-system", TEXT, REQUEST)                \
    E(tw_encoder_vllm_generate_request, "vllm-generate-request", JSON, REQUEST)\
    E(tw_encoder_vllm_generate_response, "vllm-generate-response", JSON, RESULT)\
    E(tw_encoder_proxy_prompt, "proxy-prompt", TEXT, REQUEST)                  \
    R(tw_reader_openai_request, "openai-request", JSON)                        \
    R(tw_reader_anthropic_request, "anthropic-request", JSON)                  \
    R(tw_reader_vllm_generate_request, "vllm-generate-request", JSON)          \
    R(tw_reader_hermes_prompt, "hermes-prompt", TEXT)

#define TW_X_DECLARE_FORMAT(sym, nm, fam) extern const tw_format_ops sym;
#define TW_X_DECLARE_ENCODER(sym, nm, fam, in) extern const tw_encoder_ops sym;
#define TW_X_DECLARE_READER(sym, nm, fam) extern const tw_request_reader_ops sym;
TW_MODULE_LIST(TW_X_DECLARE_FORMAT, TW_X_DECLARE_ENCODER, TW_X_DECLARE_READER)
#undef TW_X_DECLARE_FORMAT
#undef TW_X_DECLARE_ENCODER
#undef TW_X_DECLARE_READER

/* A decoder not built yet: every entry point answers TW_ERR_UNSUPPORTED. */
tw_status tw_unsupported_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                tw_result *out);
tw_status tw_unsupported_init(void *s, const tw_decode_opts *o, tw_event_fn fn, void *u);
tw_status tw_unsupported_feed(void *s, const char *b, size_t n);
tw_status tw_unsupported_finish(void *s, tw_result *out);
void tw_unsupported_release(void *s);
tw_status tw_unsupported_encode_request(const tw_request *r, const tw_encode_opts *o, tw_buf *out);
tw_status tw_unsupported_encode_result(const tw_result *r, const tw_encode_opts *o, tw_buf *out);

#define TW_UNSUPPORTED_FORMAT(sym, nm)                                         \
    const tw_format_ops sym = {nm, "(not implemented yet)", tw_unsupported_decode, 1,       \
                               tw_unsupported_init, tw_unsupported_feed,       \
                               tw_unsupported_finish, tw_unsupported_release}
#define TW_UNSUPPORTED_ENCODER(sym, nm, kind)                                  \
    const tw_encoder_ops sym = {nm, "(not implemented yet)", kind,             \
                                tw_unsupported_encode_request,                 \
                                tw_unsupported_encode_result}

#endif
