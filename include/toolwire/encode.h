/*
 * The encoder registry: every encoder behind one interface. A request
 * encoder reads a neutral request; a result encoder reads a neutral result
 * (a model's answer) and writes what a backend would send.
 */
#ifndef TOOLWIRE_ENCODE_H
#define TOOLWIRE_ENCODE_H

#include "toolwire/neutral.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tw_encode_opts {
    tw_limits limits;          /* max_output_bytes caps the output */
    const char *model;         /* model name to write where the format needs one */
    const char *id;            /* response id ("chatcmpl-…", "msg_…"); NULL: a fixed default */
    long long created;         /* OpenAI "created"; 0: a fixed default */
    size_t args_fragment;      /* streams: split arguments into pieces of this many bytes (0: whole) */
    size_t text_fragment;      /* streams: split content/thinking into pieces (0: whole) */
    bool include_usage;        /* streams: a usage chunk at the end */
    bool omit_done;            /* OpenAI streams: leave out data: [DONE] (fault injection) */
    int parallel_tool_calls;   /* requests: -1 default policy, 0 false, 1 true */
    /* warnings about what the target format cannot carry (not_carried) */
    tw_diag_list *warnings;
} tw_encode_opts;

typedef enum tw_encode_input { TW_ENC_REQUEST = 0, TW_ENC_RESULT } tw_encode_input;

typedef struct tw_encoder_ops {
    const char *name;          /* "openai-request", "anthropic-stream", … */
    const char *summary;
    tw_encode_input input;
    tw_status (*encode_request)(const tw_request *r, const tw_encode_opts *o, tw_buf *out);
    tw_status (*encode_result)(const tw_result *r, const tw_encode_opts *o, tw_buf *out);
} tw_encoder_ops;

const tw_encoder_ops *tw_encoder_find(const char *name);
const tw_encoder_ops *const *tw_encoders(void);

#ifdef __cplusplus
}
#endif
#endif
