/*
 * Qwen3-Coder recordings among imported traffic (docs/fixtures.md,
 * "Importing recorded traffic"): a chat completion or /generate answer whose
 * text holds <tool_call> then <function= is made a qwen3-coder exchange.
 */
#ifndef TOOLWIRE_IMPORT_QWEN_H
#define TOOLWIRE_IMPORT_QWEN_H

#include <stdbool.h>

#include "fixture_write.h"

/*
 * Look at the recorded answer of x (chat completion body or stream, or a
 * /generate body). When its text holds a Qwen3-Coder XML call, set
 * x->model_text (the reasoning the server sent in a think block, then the
 * text), x->decode_format "qwen3-coder" and x->decode_options {"tools": the
 * request's tools}, all allocated in a, and set *found. Text past
 * L->max_input_bytes is not looked at. Returns TW_OK or TW_ERR_NOMEM.
 */
tw_status tw_import_detect_qwen(tw_fx_arena *a, const tw_limits *L, tw_fx_exchange *x, bool *found);

#endif
