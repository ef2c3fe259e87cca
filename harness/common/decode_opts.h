/* Decoder options from the command line or from a fixture's "options". */
#ifndef TOOLWIRE_DECODE_OPTS_H
#define TOOLWIRE_DECODE_OPTS_H

#include "toolwire/neutral.h"

/* Owns the tools the options point at. */
typedef struct tw_opts_holder {
    tw_decode_opts o;
    tw_tool *tools;
    size_t ntools;
} tw_opts_holder;

void tw_opts_holder_init(tw_opts_holder *h);
void tw_opts_holder_free(tw_opts_holder *h);

/*
 * Apply a fixture "options" object: forced_open, unterminated, finish,
 * tools, max_args_bytes, max_calls, max_depth, max_input_bytes, bare_json,
 * allow_unknown_tool, schema_warn, think_tags. Unknown keys are refused.
 */
bool tw_opts_from_json(tw_opts_holder *h, const cJSON *j, tw_error *err);

/* Install tools (takes ownership). */
void tw_opts_set_tools(tw_opts_holder *h, tw_tool *tools, size_t n);

bool tw_parse_finish(const char *s, tw_finish *out);
bool tw_parse_unterminated(const char *s, tw_unterminated *out);
bool tw_parse_think_tags(const char *s, unsigned *out);

#endif
