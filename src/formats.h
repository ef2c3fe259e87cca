/* Internal: the format modules' objects, declared from the one table of
 * formats (format_table.h, TW_FORMAT_TABLE). Decoders and encoders define
 * their tw_format_* / tw_encoder_* objects in their own modules (text.c,
 * openai.c, openai_enc.c, anthropic.c, anthropic_enc.c, hermes_enc.c,
 * gemini_enc.c, qwen_xml_enc.c, openai_responses_enc.c, vllm.c, gemini.c,
 * proxy.c, responses.c, harmony.c); the request readers' objects are in registry.c. */
#ifndef TOOLWIRE_FORMATS_H
#define TOOLWIRE_FORMATS_H

#include "format_table.h"
#include "toolwire/registry.h"

#define TW_X_DECLARE_FORMAT(sym, nm, fam, fuzz) extern const tw_format_ops sym;
#define TW_X_DECLARE_ENCODER(sym, nm, fam, in) extern const tw_encoder_ops sym;
#define TW_X_DECLARE_READER(sym, nm, fam) extern const tw_request_reader_ops sym;
TW_FORMAT_TABLE(TW_X_DECLARE_FORMAT, TW_X_DECLARE_ENCODER, TW_X_DECLARE_READER)
#undef TW_X_DECLARE_FORMAT
#undef TW_X_DECLARE_ENCODER
#undef TW_X_DECLARE_READER

/* The side an encoder does not write (a request encoder asked for a result,
 * or the other way round): TW_ERR_UNSUPPORTED, *out untouched. */
tw_status tw_unsupported_encode_request(const tw_request *r, const tw_encode_opts *o, tw_buf *out);
tw_status tw_unsupported_encode_result(const tw_result *r, const tw_encode_opts *o, tw_buf *out);

#endif
