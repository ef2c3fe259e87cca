/* Internal: the registered decoders and encoders (one line each). Each
 * module defines its own tw_format_* / tw_encoder_* objects. */
#ifndef TOOLWIRE_FORMATS_H
#define TOOLWIRE_FORMATS_H

#include "toolwire/decode.h"
#include "toolwire/encode.h"

#define TW_FORMAT_LIST(X)                                                      \
    X(tw_format_think)            /* text.c */                                 \
    X(tw_format_hermes)           /* text.c */                                 \
    X(tw_format_fenced)           /* text.c */                                 \
    X(tw_format_openai_response)  /* openai.c */                               \
    X(tw_format_openai_stream)    /* openai.c */                               \
    X(tw_format_anthropic_response) /* anthropic.c */                          \
    X(tw_format_anthropic_stream) /* anthropic.c */                            \
    X(tw_format_vllm_generate)    /* vllm.c */                                 \
    X(tw_format_proxy)            /* proxy.c */

#define TW_ENCODER_LIST(X)                                                     \
    X(tw_encoder_openai_request)      /* openai_enc.c */                       \
    X(tw_encoder_openai_response)     /* openai_enc.c */                       \
    X(tw_encoder_openai_stream)       /* openai_enc.c */                       \
    X(tw_encoder_anthropic_request)   /* anthropic_enc.c */                    \
    X(tw_encoder_anthropic_response)  /* anthropic_enc.c */                    \
    X(tw_encoder_anthropic_stream)    /* anthropic_enc.c */                    \
    X(tw_encoder_hermes_prompt)       /* hermes_enc.c */                       \
    X(tw_encoder_hermes_system)       /* hermes_enc.c */                       \
    X(tw_encoder_vllm_generate_request)  /* vllm.c */                          \
    X(tw_encoder_vllm_generate_response) /* vllm.c */                          \
    X(tw_encoder_proxy_prompt)        /* proxy.c */

#define TW_X_DECLARE_FORMAT(sym) extern const tw_format_ops sym;
TW_FORMAT_LIST(TW_X_DECLARE_FORMAT)
#undef TW_X_DECLARE_FORMAT
#define TW_X_DECLARE_ENCODER(sym) extern const tw_encoder_ops sym;
TW_ENCODER_LIST(TW_X_DECLARE_ENCODER)
#undef TW_X_DECLARE_ENCODER

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
