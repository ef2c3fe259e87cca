/*
 * Internal: plumbing shared by the JSON wire encoders (OpenAI, Anthropic)
 * and the capped text renderers (Hermes, vLLM).
 */
#ifndef TOOLWIRE_ENC_COMMON_H
#define TOOLWIRE_ENC_COMMON_H

#include <time.h>
#include "toolwire/encode.h"
#include "toolwire/json.h"
#include "toolwire/neutral.h"

/* ===================== a small compact JSON writer ===================== */

#define TW_JW_MAX_DEPTH 16

/* Sticky status: after the first failure every call is a no-op. */
typedef struct tw_jw {
    tw_buf *b;
    tw_status st;
    unsigned depth;
    bool first[TW_JW_MAX_DEPTH + 1];
} tw_jw;

void tw_jw_put(tw_jw *w, const char *s, size_t n);
void tw_jw_lit(tw_jw *w, const char *s);
/* The separator, then the key when k is not NULL (array items have none). */
void tw_jw_key(tw_jw *w, const char *k);
void tw_jw_open(tw_jw *w, const char *k, char c);
void tw_jw_close(tw_jw *w, char c);
void tw_jw_strn(tw_jw *w, const char *k, const char *s, size_t n);
void tw_jw_str(tw_jw *w, const char *k, const char *s);
void tw_jw_raw(tw_jw *w, const char *k, const char *lit);
void tw_jw_int(tw_jw *w, const char *k, long long v);
void tw_jw_json(tw_jw *w, const char *k, const cJSON *v);

/* ===================== shared helpers ===================== */

/* The options used when the caller gives none. */
extern const tw_encode_opts tw_enc_default_opts;

typedef struct tw_capsave {
    size_t len, max;
} tw_capsave;

/* Narrow out->max so that at most max_output_bytes are added. */
void tw_cap_begin(tw_buf *out, const tw_encode_opts *o, tw_capsave *s);
/* Restore out->max; on failure also cut out back to its length at begin. */
tw_status tw_cap_end(tw_buf *out, const tw_capsave *s, tw_status st);

/* Record a not_carried warning in o->warnings (when set). */
tw_status tw_not_carried(const tw_encode_opts *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Compact JSON text of a call's arguments ({} when none). */
tw_status tw_args_text(const tw_call *c, const tw_limits *l, tw_buf *t);
/* Bytes of the next fragment of s[0, n): at most frag (0: all), never
 * splitting a UTF-8 sequence, at least one character. */
size_t tw_frag_len(const char *s, size_t n, size_t frag);
/*
 * Does the latest assistant message before index mi have a call with this
 * id (the first such call), and is it named `name`? `memo` (zeroed before
 * the first call) carries the walk across calls made in increasing mi, so
 * the latest assistant message is found once for a run of tool messages,
 * not by walking back over them each time: linear in messages; each lookup
 * reads one message's calls, which max_calls caps.
 */
typedef struct tw_name_memo {
    size_t upto; /* messages [0, upto) walked */
    size_t asst; /* index + 1 of the latest assistant message among them, 0 none */
} tw_name_memo;
bool tw_name_recoverable(tw_name_memo *memo, const tw_request *r, size_t mi, const char *id,
                         const char *name);

/*
 * Render a request into a scratch buffer capped at max_output_bytes, then
 * append it to out (an empty, unallocated out is rendered into directly):
 * out is untouched on failure.
 */
typedef tw_status (*tw_render_fn)(tw_buf *b, const tw_request *r, const tw_encode_opts *o,
                                  size_t max_depth);
tw_status tw_encode_capped(const tw_request *r, const tw_encode_opts *o, tw_buf *out,
                           tw_render_fn fn);

/* A result encoder's entry: r and out required (TW_ERR_INVALID), o NULL
 * for the defaults, fn's output capped at max_output_bytes (tw_cap_begin,
 * tw_cap_end). */
typedef tw_status (*tw_result_render_fn)(const tw_result *r, const tw_encode_opts *o, tw_buf *b);
tw_status tw_encode_result_capped(const tw_result *r, const tw_encode_opts *o, tw_buf *out,
                                  tw_result_render_fn fn);

/* The UTC date of t as YYYY-MM-DD into out[0, n) (a date a chat template's
 * strftime_now writes), computed without loading a time zone. */
void tw_enc_utc_date(time_t t, char *out, size_t n);

#endif
