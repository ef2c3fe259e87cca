/*
 * The scripted reference model (docs/script.md): what a reference server's
 * "model" writes for a request, decided by the request itself.
 *
 * A directive — the word `toolwire-script`, whitespace and one JSON object —
 * in the text of a user or system message scripts the answer step by step
 * (the step is the number of assistant messages after the message holding
 * the directive); without one, or past the last step, a deterministic
 * default policy answers: a named or required tool_choice gets a call with
 * arguments generated from the tool's JSON Schema, a tool result gets a
 * text that quotes its start, anything else a fixed text; reasoning when
 * the request enables it. The answer is Hermes/Qwen-style model text that
 * the reference decoders and encoders turn into an endpoint's response.
 *
 * Pure: no I/O, no globals; the same request gives the same bytes. Every
 * size, count and depth is bounded by tw_limits: the directive's bytes by
 * max_input_bytes, its steps by max_messages, a step's calls by max_calls,
 * one call's arguments by max_args_bytes, JSON and schema nesting by
 * max_depth.
 */
#ifndef TOOLWIRE_SCRIPT_H
#define TOOLWIRE_SCRIPT_H

#include <stdbool.h>

#include "toolwire/neutral.h"

/* The word that opens a directive. */
#define TW_SCRIPT_WORD "toolwire-script"
/* A nonce: 1 to TW_SCRIPT_NONCE_MAX bytes of [A-Za-z0-9._:-]. */
#define TW_SCRIPT_NONCE_MAX 128
/* The default policy's fixed texts. */
#define TW_SCRIPT_DEFAULT_TEXT "This is the toolwire reference model; nothing was asked of a tool."
#define TW_SCRIPT_DEFAULT_REASONING "The request needs an answer; the script decides it."
#define TW_SCRIPT_RESULT_PREFIX "The tool returned: "
/* Bytes of a tool result the default answer quotes at most. */
#define TW_SCRIPT_QUOTE_MAX 80

/* What the scripted reference model writes for one request. */
typedef struct tw_script_answer {
    tw_buf model_text; /* Hermes/Qwen-style text: "<think>R</think>" + text +
                          "<tool_call>{json}</tool_call>"… */
    char *nonce;       /* the directive's nonce, NULL without a directive */
    int step;          /* the directive step used, -1 for the default policy */
    bool reasoning;    /* the answer carries reasoning */
} tw_script_answer;

/*
 * Decide the answer from a decoded neutral request (any endpoint's request
 * decoder). Pure and deterministic: the same request gives the same bytes.
 * Bounded by limits (NULL: defaults). Reasoning for the default policy is
 * read from req->options (tw_script_options_reasoning). On failure *out is
 * empty and why says where and why: TW_ERR_PARSE for a directive that is not
 * JSON, TW_ERR_INVALID for a directive or request the model cannot answer
 * (a named tool that is not declared, a schema no value satisfies),
 * TW_ERR_LIMIT past a limit, TW_ERR_NOMEM.
 */
tw_status tw_script_answer_for(const tw_request *req, const tw_limits *lim, tw_script_answer *out,
                               tw_error *err);
/* The same with the default policy's reasoning given: 0 off, 1 on, -1 from
 * req->options. */
tw_status tw_script_answer_with(const tw_request *req, int reasoning, const tw_limits *lim,
                                tw_script_answer *out, tw_error *err);
void tw_script_answer_free(tw_script_answer *a);

/*
 * Name the request that was sent in a message of tw_script_answer_*: a
 * message that begins with the neutral path "messages[N]" gets, in its
 * place, the wire path of the element of `body` that holds the latest
 * directive: `list`[i] (the list of turns: "contents", "input",
 * "messages"), `list` itself when it is a string, or `sys` (the system
 * field: "systemInstruction", "instructions", "system"). The message is
 * rewritten in place (cap bytes); left as it is when no element holds a
 * directive.
 */
void tw_script_wire_path(const cJSON *body, const char *list, const char *sys, char *msg,
                         size_t cap);

/* Find a directive's nonce in a request (for pairing both ends of a proxy):
 * NULL when none (or when the directive is not JSON or its nonce is not
 * valid). malloc'd. */
char *tw_script_nonce(const tw_request *req);

/*
 * Does an object of request keys enable reasoning: "reasoning_effort" other
 * than none/minimal, a "reasoning" object (unless its effort is none or
 * minimal or it says "enabled": false), "chat_template_kwargs" with
 * "enable_thinking": true, "thinking" with "type": "enabled", or "two_pass":
 * true. Works on a request body and on tw_request.options alike.
 */
bool tw_script_options_reasoning(const cJSON *o);

/*
 * Arguments for a tool from its JSON Schema (NULL: {}): const, else the
 * first enum value, else by type — objects with their required properties
 * (in the order "required" lists them), arrays with max(minItems, 1) items
 * (at most maxItems), strings from "format" or "example" padded to
 * minLength and cut to maxLength, numbers within minimum/maximum (also
 * exclusive) on multipleOf, booleans true, null; anyOf/oneOf/allOf take
 * their first schema. The result is checked with tw_schema_validate.
 * Bounded: nesting by max_depth, generated size by max_args_bytes.
 */
tw_status tw_script_schema_args(const cJSON *schema, const tw_limits *lim, cJSON **out,
                                tw_error *err);

#endif
