/*
 * The one registry of format modules: every decoder (batch and push), every
 * encoder and every request reader the library holds, each with the family
 * of its wire side and what it takes and yields. The CLI, the harness, the
 * tests and the fuzz targets find modules here; tw_formats() (decode.h) and
 * tw_encoders() (encode.h) are views of the same list.
 *
 * Everything this header returns is static: never free it, it lives as long
 * as the program.
 */
#ifndef TOOLWIRE_REGISTRY_H
#define TOOLWIRE_REGISTRY_H

#include "toolwire/decode.h"
#include "toolwire/encode.h"
#include "toolwire/request.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The shape of a module's wire side. Numbers are appended only. */
typedef enum tw_family {
    TW_FAMILY_TEXT = 0, /* raw model text (Hermes/Qwen, think, fenced, proxy, ChatML prompts) */
    TW_FAMILY_JSON = 1, /* one JSON body (chat.completion, messages, GenerateResponse, requests) */
    TW_FAMILY_SSE = 2   /* a server-sent event stream of JSON events */
} tw_family;

/* What a module is. Numbers are appended only. */
typedef enum tw_module_kind {
    TW_MODULE_DECODER = 0,       /* wire bytes -> tw_result (tw_format_ops) */
    TW_MODULE_ENCODER = 1,       /* tw_request or tw_result -> wire bytes (tw_encoder_ops) */
    TW_MODULE_REQUEST_READER = 2 /* request wire bytes -> tw_request (tw_request_reader_ops) */
} tw_module_kind;

/* What a module takes or yields. */
typedef enum tw_value_kind {
    TW_VALUE_BYTES = 0,   /* bytes in the module's wire format */
    TW_VALUE_REQUEST = 1, /* a neutral tw_request */
    TW_VALUE_RESULT = 2   /* a neutral tw_result (a model's answer) */
} tw_value_kind;

/*
 * A request reader: request wire bytes buf[0, len) (no terminator needed)
 * into the neutral request, with the contract of request.h. `o` may be NULL
 * (defaults; only o->limits is read). On TW_OK *out owns the request
 * (tw_request_free) and out->warnings holds what the neutral model cannot
 * carry. On failure *out is a valid, empty request (safe to free,
 * parallel_tool_calls -1, no warnings) and `err` (may be NULL) says where
 * and why.
 */
typedef tw_status (*tw_request_decode_fn)(const char *buf, size_t len, const tw_decode_opts *o,
                                          tw_request *out, tw_error *err);

typedef struct tw_request_reader_ops {
    const char *name;    /* "openai-request", "hermes-prompt", … */
    const char *summary; /* one line for --help */
    tw_request_decode_fn decode;
} tw_request_reader_ops;

/* One module. Exactly one of decoder, encoder, reader is set (by kind). */
typedef struct tw_module {
    const char *name;
    tw_module_kind kind;
    tw_family family;     /* of the wire side */
    tw_value_kind takes;  /* decoder, reader: BYTES; encoder: REQUEST or RESULT */
    tw_value_kind yields; /* decoder: RESULT; reader: REQUEST; encoder: BYTES */
    const tw_format_ops *decoder;
    const tw_encoder_ops *encoder;
    const tw_request_reader_ops *reader;
} tw_module;

/* Every module, decoders first, then encoders, then request readers; *n
 * (must not be NULL) receives the count. */
TW_API const tw_module *tw_modules(size_t *n);
/* The module of that kind and name; NULL when none (name may be NULL). */
TW_API const tw_module *tw_module_find(tw_module_kind kind, const char *name);
/* The request reader of that name; NULL when none. */
TW_API const tw_request_reader_ops *tw_request_reader_find(const char *name);

/* "text", "json", "sse"; "unknown" for a number outside the enum. */
TW_API const char *tw_family_name(tw_family f);
/* True when `name` (may be NULL) is a decoder of the text family: its input
 * is raw model text, as a text backend or a proxy returns it. */
TW_API bool tw_decoder_is_text(const char *name);

#ifdef __cplusplus
}
#endif
#endif
