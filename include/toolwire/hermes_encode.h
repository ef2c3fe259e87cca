/*
 * Hermes/Qwen prompt encoders (docs/formats/hermes.md):
 *
 *   hermes-prompt  the full ChatML prompt, byte for byte what the Qwen3 chat
 *                  template renders for the same conversation;
 *   hermes-system  the two-pass server's system message: base prompt, "# Tools"
 *                  preamble, <tools> JSON, <tool_call> instruction and the
 *                  tool_choice policy sentence.
 *
 * Plus the JSON helpers they need: a writer that prints like Python's
 * json.dumps(ensure_ascii=False) and a way to keep the source spelling of
 * numbers (cJSON keeps only a double).
 */
#ifndef TOOLWIRE_HERMES_ENCODE_H
#define TOOLWIRE_HERMES_ENCODE_H

#include "toolwire/encode.h"

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
tw_status tw_hermes_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out);

/*
 * The augmented system message text (no ChatML markers). Without tools the
 * output is the base system prompt alone. Appends to `out`; out unchanged
 * on failure.
 */
tw_status tw_hermes_system_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out);

/*
 * The tool_choice policy sentence of hermes-system, or nothing for auto /
 * unset. Appends to `out`.
 */
tw_status tw_hermes_policy_write(tw_buf *out, tw_choice choice, const char *name);

/*
 * Serialise `v` as Python's json.dumps(json.loads(text)) does with
 * ensure_ascii=False and the default ", " / ": " separators. Numbers print
 * as Python would print the value the JSON text denotes: a number node that
 * carries its source spelling (every tree tw_json_parse returns) prints an
 * integer spelling as written (-0 as 0) and a fraction/exponent spelling as
 * Python's float repr (1.5e3 as 1500.0, 1e400 as Infinity); a node without
 * one prints integral values below 2^53 as integers and others as float
 * repr. Nesting past max_depth (0: TW_DEPTH_HARD_MAX) is TW_ERR_LIMIT.
 */
tw_status tw_json_write_py(tw_buf *out, const cJSON *v, size_t max_depth);

/*
 * tw_json_write_py, adding a number_inexact warning to `warnings` (when not
 * NULL) for each number whose Python value differs from the value its
 * spelling denotes (a fraction/exponent spelling that is not exactly the
 * printed float: 1e400, 1e-400, 0.10000000000000000001) and for each integer
 * longer than the 4300 digits Python's json reads. `where` starts the
 * message ("hermes-prompt: call f arguments").
 */
tw_status tw_json_write_py_warn(tw_buf *out, const cJSON *v, size_t max_depth,
                                tw_diag_list *warnings, const char *where);

/* Called for every node of a tree with the byte range [start, end) of its
 * text in the buffer it was parsed from. */
typedef tw_status (*tw_json_pos_fn)(void *user, cJSON *node, size_t start, size_t end);

/*
 * Walk buf[0, len) (the exact text `tree` was parsed from, e.g. by
 * tw_json_parse) alongside the tree, calling fn for each node in document
 * order, children before their parent. Returns TW_ERR_PARSE when text and
 * tree do not match, TW_ERR_LIMIT past max_depth, or fn's first failure.
 */
tw_status tw_json_positions(const char *buf, size_t len, cJSON *tree, size_t max_depth,
                            tw_json_pos_fn fn, void *user);

/*
 * Store in every number node of `tree` a copy of its spelling in buf (the
 * text it was parsed from), in the node's valuestring (see
 * tw_json_spelling). tw_json_parse already does this; this is for trees
 * parsed otherwise. Nodes that carry a spelling keep it.
 */
tw_status tw_json_keep_spellings(const char *buf, size_t len, cJSON *tree, size_t max_depth);

#ifdef __cplusplus
}
#endif
#endif
