/*
 * Hermes/Qwen prompt encoders (docs/formats/hermes.md):
 *
 *   hermes-prompt  the full ChatML prompt, byte for byte what the Qwen3 chat
 *                  template renders for the same conversation;
 *   hermes-system  the two-pass server's system message: base prompt, "# Tools"
 *                  preamble, <tools> JSON, <tool_call> instruction and the
 *                  tool_choice policy sentence.
 *
 * The JSON helpers they use (the Python-style writer, number spellings,
 * byte positions) are in toolwire/json.h.
 */
#ifndef TOOLWIRE_HERMES_ENCODE_H
#define TOOLWIRE_HERMES_ENCODE_H

#include "toolwire/encode.h"
#include "toolwire/json.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Render the Qwen3 chat template for `r`. Options read from r->options:
 * add_generation_prompt (Python truthiness, default false) and
 * enable_thinking (only a JSON false changes the output). tool_choice is
 * not rendered (the template has no place for it). Appends to `out`;
 * TW_ERR_INVALID when the request has no messages, TW_ERR_LIMIT past
 * o->limits.max_output_bytes (out unchanged on any failure).
 */
TW_API tw_status tw_hermes_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out);

/*
 * The augmented system message text (no ChatML markers). Without tools the
 * output is the base system prompt alone. Appends to `out`; out unchanged
 * on failure.
 */
TW_API tw_status tw_hermes_system_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out);

/*
 * The tool_choice policy sentence of hermes-system, or nothing for auto /
 * unset. Appends to `out`.
 */
TW_API tw_status tw_hermes_policy_write(tw_buf *out, tw_choice choice, const char *name);

#ifdef __cplusplus
}
#endif
#endif
