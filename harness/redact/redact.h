/*
 * Secret redaction. Two layers:
 *
 * - tw_redactor, for recorded traffic (import, record): headers that carry
 *   credentials or account identity are dropped, fields and query
 *   parameters named like credentials are blanked, and every secret value
 *   found anywhere in the input is scrubbed wherever it appears.
 * - the process-wide secret set (tw_secret_*), which every byte the
 *   program writes passes through (out.h): files, standard output and
 *   standard error. It is seeded with the API keys the program sends and
 *   every value a tw_redactor with `publish` set discovers.
 */
#ifndef TOOLWIRE_REDACT_H
#define TOOLWIRE_REDACT_H

#include <stdbool.h>
#include <stddef.h>

#include "toolwire/core.h"
#include "toolwire/json.h"

/* What a scrubbed secret becomes. */
#define TW_REDACTED "[REDACTED]"

/*
 * The redactor: extra header names to drop (beyond the built-in list) and
 * the secret values seen in dropped headers, which are scrubbed wherever
 * they appear again. Zero-initialise; free with tw_redactor_free.
 */
typedef struct tw_redactor {
    char **names;
    size_t nnames;
    char **fields; /* extra JSON field / query parameter names */
    size_t nfields;
    char **values;
    size_t nvalues;
    size_t scrubbed; /* how many replacements were made so far */
    bool publish;    /* also add every value to the process-wide set */
} tw_redactor;

/* Drop headers named `name` too (case-insensitive). */
tw_status tw_redactor_add_name(tw_redactor *r, const char *name);
/* Blank JSON fields and query parameters named `name` too (case-insensitive). */
tw_status tw_redactor_add_field(tw_redactor *r, const char *name);
/*
 * Remember a secret value (and, for "Bearer X" / "Basic X", the token X) so
 * later scrubbing replaces it. Values shorter than 6 bytes are not kept:
 * they would scrub ordinary text.
 */
tw_status tw_redactor_add_value(tw_redactor *r, const char *value);
void tw_redactor_free(tw_redactor *r);

/*
 * The one table of credential names (redact.c's name_rules), which every
 * writer consults: is `name` (n bytes) a credential name for `where`
 * (TW_NAME_HEADER: the header is dropped; TW_NAME_FIELD: a JSON member's
 * value is blanked; TW_NAME_PARAM: a URL query parameter's value is
 * blanked)? Names are compared case-insensitively with '-', ' ', '.' and
 * camelCase read as '_'.
 *
 * Fields and parameters: token, secret, password, passwd, pwd, api_key,
 * apikey, x_api_key, authorization, auth, cookie, credential(s),
 * private_key, secret_key, access_key, client_secret, refresh_token,
 * access_token (so also secretKey, accessKey, privateKey, clientSecret,
 * refreshToken), and any name ending in _token, _secret, _password,
 * _passwd, _pwd, _api_key, _apikey, _private_key, _secret_key or
 * _access_key; parameters also key. Then r's fields (r may be NULL).
 *
 * Headers: authorization, proxy-authorization, api-key, x-api-key,
 * x-goog-api-key, cookie, set-cookie, openai-organization, openai-project,
 * anthropic-organization-id, and any name holding (separators aside)
 * "organization", "project", "token", "secret", "password", "passwd",
 * "session", "auth", "key" or "cookie", rate-limit headers such as
 * x-ratelimit-remaining-tokens excepted. Then r's names (r may be NULL).
 */
#define TW_NAME_HEADER 1u
#define TW_NAME_FIELD 2u
#define TW_NAME_PARAM 4u
bool tw_redact_name(const tw_redactor *r, const char *name, size_t n, unsigned where);
/* tw_redact_name for a NUL-terminated name: a header, a field, a parameter. */
bool tw_redact_header_dropped(const tw_redactor *r, const char *name);
bool tw_redact_field_secret(const tw_redactor *r, const char *name);
bool tw_redact_param_secret(const tw_redactor *r, const char *name);

/*
 * Discovery: remember every secret value of a header (a dropped header's
 * value, its "Bearer X" token and the values of its cookie pairs; any
 * header's credential query parameters and bearer tokens), of a piece of
 * text (credential query parameters, "Bearer X" tokens) and of a body
 * (JSON or SSE "data:" lines: credential fields at any depth, also inside
 * strings that are themselves JSON). Run discovery over a whole input
 * before scrubbing any of it, so that an echo is caught wherever it is.
 */
tw_status tw_redact_discover_header(tw_redactor *r, const char *name, const char *value);
tw_status tw_redact_discover_text(tw_redactor *r, const char *s, size_t n);
tw_status tw_redact_discover_json(tw_redactor *r, const cJSON *v, size_t max_depth);
tw_status tw_redact_discover_body(tw_redactor *r, const char *s, size_t n, size_t max_depth);

/*
 * A stream's events (data[i], len[i] bytes each): the arguments of each
 * tool call assembled from their fragments (OpenAI
 * choices[].delta.tool_calls[].function.arguments, Anthropic
 * input_json_delta partial_json), and the credentials in them remembered
 * as by tw_redact_discover_json, so that a secret split across events is
 * known whole. tw_redact_discover_body does this for an event stream.
 * At most 4096 distinct calls (TW_ERR_LIMIT beyond).
 */
tw_status tw_redact_discover_stream(tw_redactor *r, const char *const *data, const size_t *len,
                                    size_t n, size_t max_depth);

/*
 * The same events with every remembered value removed from the assembled
 * arguments of each call: TW_REDACTED in the fragment where the value
 * starts, its bytes dropped from the fragments that follow, so the
 * fragments still join into the redacted arguments. out[i] (n entries)
 * receives the event's data re-printed (numbers keep their spelling) when
 * it changed, else NULL; the caller frees each.
 */
tw_status tw_redact_stream(tw_redactor *r, const char *const *data, const size_t *len, size_t n,
                           size_t max_depth, char **out);

/*
 * Scrub n bytes of text into out: every remembered secret value (as is,
 * JSON-escaped, percent-encoded or entity-escaped, see tw_scrub_values), every
 * "Bearer <token>" (the token), every "sk-…" / "sk-ant-…" style key, and in
 * URL query strings the values of the parameters the name table calls
 * credentials (tw_redact_name, TW_NAME_PARAM: key, api_key, access_token,
 * token, secret, …). Returns TW_OK or TW_ERR_NOMEM / TW_ERR_LIMIT
 * (out's cap). out is appended to.
 */
tw_status tw_redact_text(tw_redactor *r, const char *s, size_t n, tw_buf *out);

/* s[0, n) with every %XX decoded, into a new NUL-terminated string (n + 1
 * bytes at most); *outn its length. NULL when out of memory. */
char *tw_pct_decode(const char *s, size_t n, size_t *outn);

/* Scrub a NUL-terminated string into a new malloc'd string (NULL: no memory). */
char *tw_redact_str(tw_redactor *r, const char *s);

/*
 * Scrub every string in a JSON tree in place (object keys too), and blank
 * object members whose key names a secret (tw_redact_field_secret; a
 * "token" beside a "logprob" is a model token, not a credential) by
 * replacing their string or number value with TW_REDACTED. A string that
 * is itself a JSON object or array (a tool call's arguments) is scrubbed
 * the same way and written back compact when anything in it changed.
 * Depth is capped at max_depth. Returns TW_OK or TW_ERR_NOMEM.
 */
tw_status tw_redact_json(tw_redactor *r, cJSON *v, size_t max_depth);

/*
 * The value scrubber both layers share: every occurrence in s of one of
 * the nvalues values becomes TW_REDACTED, appended to out. A value is also
 * found JSON-escaped (\/, \", \uXXXX), percent-encoded (%XX) and as
 * HTML/XML character references (&amp; &lt; &gt; &quot; &apos; &#NN;
 * &#xHH;), in any mix, up to TW_SCRUB_DECODE_LEVELS levels deep (a value
 * percent-encoded three times, %2525XX, is three levels). A value's first
 * 8 bytes or more, wherever they stand (what a cut may have kept of a
 * secret), become TW_REDACTED too. Linear in n per value and level (memmem
 * over at most 1 + TW_SCRUB_DECODE_LEVELS views of the text, each decoded
 * from the one before in one pass). *count (may be NULL) is increased by
 * the number of replacements.
 *
 * With `hold` non-NULL the text is the start of a stream: *hold receives
 * how many bytes at the end were left unwritten because they may be the
 * start of a value (or of an escape) that the next bytes complete; feed
 * them again in front of the next bytes.
 */
#define TW_SCRUB_DECODE_LEVELS 4
tw_status tw_scrub_values(char *const *values, size_t nvalues, const char *s, size_t n, tw_buf *out,
                          size_t *count, size_t *hold);

/* ---- the process-wide secret set (thread-safe) ---- */

/*
 * Remember a secret for every output of the process: as tw_redactor_add_value
 * (6 bytes or more after trimming; "Bearer X" also adds X).
 */
tw_status tw_secret_add(const char *value);
/* How many values the set holds. */
size_t tw_secret_count(void);
/*
 * Where to cut scrubbed text s[0, n) that is about to be cut at n: n, or
 * less so that a TW_REDACTED marker is not left cut in two. Text for an
 * excerpt is scrubbed first and cut after, with this.
 */
size_t tw_redacted_cut(const char *s, size_t n);

/*
 * Excerpts. Every excerpt of text that may hold a secret is scrubbed whole
 * first and cut after, and its cuts are placed by these two: where scrubbed
 * text s[0, n) that is to be cut at `cut` may end (tw_excerpt_end: at or
 * before cut) or start (tw_excerpt_start: at or after cut). A cut never
 * falls inside a TW_REDACTED marker nor a UTF-8 sequence, and a
 * secret-shaped token it would cut (a run of [A-Za-z0-9-_+/.~] that is a
 * key of a known family: sk-, rk-, sess-, gsk_, xai-, AIza, xox?-, ghp_,
 * github_pat_; a JWT eyJ….….; the token after "Bearer " / "Basic "; 16
 * bytes or more after a name holding key, token, secret, password or auth)
 * is left out whole, so not even an unknown key is kept in part.
 */
size_t tw_excerpt_end(const char *s, size_t n, size_t cut);
size_t tw_excerpt_start(const char *s, size_t n, size_t cut);

/*
 * s scrubbed by the process set, then cut to at most max bytes
 * (tw_excerpt_end) with "..." after a cut: a new string, NULL when out of
 * memory. The head-excerpt helper for evidence and details.
 */
char *tw_secret_clip(const char *s, size_t max);
/*
 * tw_secret_clip into a caller's buffer of n bytes (n >= 4): s scrubbed
 * whole, then cut so that it fits with its "..." and a terminator; never a
 * part of a secret, whatever the buffer's size. Out of memory: a short
 * notice instead of the text.
 */
void tw_secret_clip_into(char *dst, size_t n, const char *s);
/*
 * Its counterpart for the end of a text (a log's tail): s[0, n) scrubbed
 * by the process set, then its last max bytes at most (tw_excerpt_start)
 * with "..." before a cut: a new string, NULL when out of memory.
 */
char *tw_secret_tail(const char *s, size_t n, size_t max);

/* tw_scrub_values over the set. */
tw_status tw_secret_scrub(const char *s, size_t n, tw_buf *out, size_t *hold);
/*
 * Whether the set leaves s (a text of static storage: a string literal) as
 * it is, i.e. tw_secret_scrub would give s back unchanged. The answer for
 * each text is kept until the set changes.
 */
bool tw_secret_static_clean(const char *s);
/* Forget every value (tests and fuzz targets). */
void tw_secret_reset(void);

#endif
