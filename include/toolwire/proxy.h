/*
 * The prompt-only proxy (docs/formats/proxy.md): a backend that
 * speaks plain text to its model, so tools travel in a "Tool-Use Protocol"
 * prompt and calls come back as <tool_call> blocks.
 *
 *   proxy-prompt  encoder: neutral request -> the proxy's prompt text
 *   proxy         decoder: model output -> neutral result (the Hermes rules
 *                 of docs/text-formats.md, plus <tool_result> blocks, which
 *                 a model must never write: they are cut out and reported)
 */
#ifndef TOOLWIRE_PROXY_H
#define TOOLWIRE_PROXY_H

#include "toolwire/encode.h"
#include "toolwire/text.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Longest <tool_result ...> opening tag recognised (bytes, with < and >). */
#define TW_PROXY_TAG_MAX 512

typedef struct tw_proxy_cut {
    uint64_t fed_pos;     /* bytes given to the Hermes decoder before the cut */
    uint64_t removed;     /* bytes removed up to and including this cut */
} tw_proxy_cut;

/*
 * Caller-owned streaming state: a layer that removes <tool_result> blocks,
 * in front of the Hermes decoder (tw_text_dec). Zero-initialise, then init.
 * Memory: the Hermes decoder's bounds, one opening tag (TW_PROXY_TAG_MAX)
 * and 16 bytes per removed block.
 */
typedef struct tw_proxy_dec {
    tw_text_dec text;
    tw_limits L;
    tw_event_fn fn;
    void *user;
    uint64_t in;          /* raw bytes accepted: the offset of the next byte */
    uint64_t fed;         /* bytes given to the Hermes decoder */
    int state;            /* outside, in an opening tag, inside a block */
    char tag[TW_PROXY_TAG_MAX];
    size_t tag_len;
    uint64_t tag_off;     /* offset of tag[0] */
    size_t close_match;   /* bytes of </tool_result> matched inside a block */
    uint64_t block_off;   /* offset of the open block's '<' */
    char id[128];         /* the open block's id attribute (cut to fit) */
    tw_proxy_cut *cuts;
    size_t ncuts, cap_cuts;
    uint64_t removed;
    tw_diag_list errors;  /* tool_result_in_output, merged at finish */
    bool too_large;
    bool finished;
    tw_status stop;       /* a callback's status that stopped the decode; TW_OK while none */
} tw_proxy_dec;

tw_status tw_proxy_init(tw_proxy_dec *d, const tw_decode_opts *o, tw_event_fn fn, void *user);
tw_status tw_proxy_feed(tw_proxy_dec *d, const char *buf, size_t len);
/* Moves the result to *out (free with tw_result_free) and releases d. */
tw_status tw_proxy_finish(tw_proxy_dec *d, tw_result *out);
void tw_proxy_release(tw_proxy_dec *d);
/* Batch: init, feed everything, finish. */
tw_status tw_proxy_output_decode(const char *buf, size_t len, const tw_decode_opts *o, tw_result *out);

/*
 * The proxy's prompt for `r` (see docs/formats/proxy.md for the exact
 * text). Appends to out; out unchanged on failure; TW_ERR_LIMIT past
 * max_output_bytes.
 */
tw_status tw_proxy_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out);

/* The tool_choice policy sentence of the prompt (unset reads as auto);
 * `name` is the named tool. Appends to out. */
tw_status tw_proxy_policy_write(tw_buf *out, tw_choice choice, const char *name);

#ifdef __cplusplus
}
#endif
#endif
