/*
 * The reference servers' answers (the mock profiles hermes, anthropic,
 * vllm-native and script): raw model text decoded with the reference
 * decoders, the result written with the endpoint's reference encoder.
 * No I/O: the mock backend sends what these build.
 */
#ifndef TOOLWIRE_MOCK_REF_H
#define TOOLWIRE_MOCK_REF_H

#include <stdbool.h>

#include "apis.h"
#include "toolwire/neutral.h"

/* What the model wrote for one request. */
typedef struct tw_ref_text {
    const char *model_text;      /* single pass; NULL: "" */
    const char *pass1;           /* vLLM-native two-pass: pass 1 (NULL: one pass) and pass 2 */
    const char *pass2;           /* NULL: model_text */
    const char *decode_format;   /* a text decoder (hermes, think, fenced, qwen3-coder); NULL:
                                    the profile's (qwen3-coder for "qwen3-coder", else hermes) */
    const cJSON *decode_options; /* the decoder options of a fixture, or NULL */
    bool stream;                 /* the URL asks for a stream (Gemini :streamGenerateContent) */
    const char *model;           /* the model the URL names (Gemini), or NULL */
} tw_ref_text;

/* An answer: status 200 with the encoded body, or an error status with why. */
typedef struct tw_ref_answer {
    int status;  /* 200; 400 bad request, 500/501 the reference code failed */
    bool stream; /* body is an SSE stream */
    tw_buf body;
    char why[240]; /* what went wrong (status other than 200) */
} tw_ref_answer;

/*
 * Answer a request body (parsed JSON) as the reference server of `profile`
 * (hermes: OpenAI chat completions over Hermes text; qwen3-coder: the same over
 * Qwen3-Coder XML text; anthropic; vllm-native:
 * the two-pass assembly; gemini: generateContent, streamed when t->stream;
 * openai-responses: the Responses API, streamed when the body's "stream" is
 * true) from the model text t. Tools are the request's.
 * Bounded by L. *out is always filled; free with tw_ref_answer_free.
 */
void tw_ref_answer_text(const char *profile, const tw_ref_text *t, const cJSON *body,
                        const tw_limits *L, tw_ref_answer *out);

/*
 * Answer with the scripted reference model (script.h): kind is the
 * endpoint (TW_API_OPENAI chat completions, TW_API_ANTHROPIC messages,
 * TW_API_GENERATE /generate, TW_API_RESPONSES the Responses API, as
 * tw_path_kind says; any other kind, or a method other than POST passed as
 * TW_API_NONE, is a 404); body NULL means the request was not JSON. The request
 * is read with that endpoint's request decoder (a /generate body with a
 * "prompt" string instead of "messages" is read as a ChatML prompt, else as
 * one user message); what the decoder or the script refuses is a 400 that
 * says why.
 */
void tw_ref_answer_script(tw_api_kind kind, const cJSON *body, const tw_limits *L,
                          tw_ref_answer *out);

/*
 * The same for any endpoint, stream saying whether the URL asks for a stream
 * (TW_API_GEMINI: …:streamGenerateContent; the other endpoints take it from
 * the body). A Gemini request is read with gemini-request and answered with
 * the gemini or gemini-stream encoder; the model comes from the URL (model,
 * may be NULL). A Responses request is read with openai-responses-request
 * and answered with the openai-responses or openai-responses-stream encoder.
 */
void tw_ref_answer_script_at(tw_api_kind kind, bool stream, const char *model, const cJSON *body,
                             const tw_limits *L, tw_ref_answer *out);

void tw_ref_answer_free(tw_ref_answer *a);

#endif
