/* The one registry of format modules (include/toolwire/registry.h), built
 * from TW_FORMAT_TABLE in format_table.h. */
#include "toolwire/registry.h"

#include <string.h>

#include "formats.h"
#include "toolwire/mistral.h"
#include "toolwire/request_chatml.h"
#include "toolwire/request_gemini.h"
#include "toolwire/request_responses.h"
#include "toolwire/request_vllm.h"

/* ---- the request readers' objects ---- */

const tw_request_reader_ops tw_reader_openai_request = {
    "openai-request", "OpenAI chat completions request body", tw_openai_request_decode};
const tw_request_reader_ops tw_reader_anthropic_request = {
    "anthropic-request", "Anthropic messages request body", tw_anthropic_request_decode};
const tw_request_reader_ops tw_reader_vllm_generate_request = {
    "vllm-generate-request", "vLLM-native GenerateRequest JSON", tw_vllm_request_decode};
const tw_request_reader_ops tw_reader_gemini_request = {
    "gemini-request", "Gemini generateContent request body", tw_gemini_request_decode};
const tw_request_reader_ops tw_reader_hermes_prompt = {
    "hermes-prompt", "the Qwen3 ChatML prompt (as the chat template renders it)",
    tw_hermes_prompt_decode};
const tw_request_reader_ops tw_reader_qwen3_coder_prompt = {
    "qwen3-coder-prompt", "the Qwen3-Coder ChatML prompt (XML tools and tool calls)",
    tw_qwen3_coder_prompt_decode};
const tw_request_reader_ops tw_reader_qwen35_prompt = {
    "qwen3.5-prompt", "the Qwen3.5 ChatML prompt (<think>, XML tool calls)",
    tw_qwen35_prompt_decode};
const tw_request_reader_ops tw_reader_mistral_small_prompt = {
    "mistral-small-3.2-prompt", "the Mistral Small 3.2 prompt (as its chat template renders it)",
    tw_mistral_small_prompt_decode};
const tw_request_reader_ops tw_reader_responses_request = {
    "openai-responses-request", "OpenAI Responses API request body (POST /v1/responses)",
    tw_responses_request_decode};

/* ---- views by kind (NULL-terminated, the order of TW_FORMAT_TABLE) ---- */

#define TW_X_NONE2(sym, nm, fam)
#define TW_X_NONE3(sym, nm, fam, in)
#define TW_X_FORMAT(sym, nm, fam, fuzz) &sym,
#define TW_X_ENCODER(sym, nm, fam, in) &sym,

static const tw_format_ops *const all_formats[] = {
    TW_FORMAT_TABLE(TW_X_FORMAT, TW_X_NONE3, TW_X_NONE2) NULL};
static const tw_encoder_ops *const all_encoders[] = {
    TW_FORMAT_TABLE(TW_X_NONE3, TW_X_ENCODER, TW_X_NONE2) NULL};

#define TW_X_DEC(sym, nm, fam, fuzz)                                                               \
    {nm, TW_MODULE_DECODER, TW_FAMILY_##fam, TW_VALUE_BYTES, TW_VALUE_RESULT, &sym, NULL, NULL},
#define TW_X_ENC(sym, nm, fam, in)                                                                 \
    {nm, TW_MODULE_ENCODER, TW_FAMILY_##fam, TW_VALUE_##in, TW_VALUE_BYTES, NULL, &sym, NULL},
#define TW_X_READ(sym, nm, fam)                                                                    \
    {nm,  TW_MODULE_REQUEST_READER, TW_FAMILY_##fam, TW_VALUE_BYTES, TW_VALUE_REQUEST, NULL, NULL, \
     &sym},

static const tw_module all_modules[] = {TW_FORMAT_TABLE(TW_X_DEC, TW_X_ENC, TW_X_READ)};

#undef TW_X_DEC
#undef TW_X_ENC
#undef TW_X_READ
#undef TW_X_FORMAT
#undef TW_X_ENCODER
#undef TW_X_NONE2
#undef TW_X_NONE3

enum { NMODULES = sizeof all_modules / sizeof all_modules[0] };

const tw_module *tw_modules(size_t *n)
{
    *n = NMODULES;
    return all_modules;
}

const tw_module *tw_module_find(tw_module_kind kind, const char *name)
{
    if (!name)
        return NULL;
    const tw_module *m = all_modules;
    for (size_t i = 0; i < NMODULES; i++)
        if (m[i].kind == kind && strcmp(m[i].name, name) == 0)
            return &m[i];
    return NULL;
}

const tw_format_ops *const *tw_formats(void)
{
    return all_formats;
}

const tw_format_ops *tw_format_find(const char *name)
{
    const tw_module *m = tw_module_find(TW_MODULE_DECODER, name);
    return m ? m->decoder : NULL;
}

const tw_encoder_ops *const *tw_encoders(void)
{
    return all_encoders;
}

const tw_encoder_ops *tw_encoder_find(const char *name)
{
    const tw_module *m = tw_module_find(TW_MODULE_ENCODER, name);
    return m ? m->encoder : NULL;
}

const tw_request_reader_ops *tw_request_reader_find(const char *name)
{
    const tw_module *m = tw_module_find(TW_MODULE_REQUEST_READER, name);
    return m ? m->reader : NULL;
}

const char *tw_family_name(tw_family f)
{
    switch (f) {
    case TW_FAMILY_TEXT: return "text";
    case TW_FAMILY_JSON: return "json";
    case TW_FAMILY_SSE: return "sse";
    }
    return "unknown";
}

bool tw_decoder_is_text(const char *name)
{
    const tw_module *m = tw_module_find(TW_MODULE_DECODER, name);
    return m && m->family == TW_FAMILY_TEXT;
}
