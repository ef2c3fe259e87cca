/*
 * Model text among imported traffic (docs/fixtures.md, "Importing recorded
 * traffic"): a chat completion or /generate answer whose text holds a call
 * the server left unparsed in a text dialect is made an exchange of that
 * dialect: Qwen3-Coder XML (<tool_call> then <function=), or the markup of a
 * model dialect (the decoder of a dialect profile of the table of formats:
 * Harmony, DeepSeek, Kimi K2, Mistral, Llama 3.x, …, tried in table order).
 */
#ifndef TOOLWIRE_IMPORT_TEXT_H
#define TOOLWIRE_IMPORT_TEXT_H

#include <stdbool.h>

#include "fixture_write.h"

/*
 * Look at the recorded answer of x (chat completion body or stream, or a
 * /generate body). When its text holds a Qwen3-Coder XML call, or the
 * decoder of a model dialect reads from it a call, a refused call section
 * or (outside a <think> block) reasoning, set x->model_text (the reasoning
 * the server sent, written as the dialect writes it — a think block for
 * Qwen3-Coder, the dialect's own output encoder for the others — then the
 * text), x->decode_format the decoder's name and x->decode_options {"tools":
 * the request's tools}, all allocated in a, and set *format to the decoder's
 * name (static; NULL when none). Text past L->max_input_bytes is not looked
 * at. Returns TW_OK or TW_ERR_NOMEM.
 */
tw_status tw_import_detect_text(tw_fx_arena *a, const tw_limits *L, tw_fx_exchange *x,
                                const char **format);

#endif
