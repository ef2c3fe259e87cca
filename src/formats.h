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

/* The side an encoder does not write (a request encoder asked for a result,
 * or the other way round): TW_ERR_UNSUPPORTED, *out untouched. */
tw_status tw_unsupported_encode_request(const tw_request *r, const tw_encode_opts *o, tw_buf *out);
tw_status tw_unsupported_encode_result(const tw_result *r, const tw_encode_opts *o, tw_buf *out);

#endif
