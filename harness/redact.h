/*
 * Secret redaction for everything written from recorded traffic (import,
 * record): headers that carry credentials or account identity are dropped,
 * and credential-looking strings are scrubbed from header values, bodies,
 * stream data and URLs. Nothing here reads a global.
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
    char **values;
    size_t nvalues;
    size_t scrubbed;  /* how many replacements were made so far */
} tw_redactor;

/* Drop headers named `name` too (case-insensitive). */
tw_status tw_redactor_add_name(tw_redactor *r, const char *name);
/*
 * Remember a secret value (and, for "Bearer X" / "Basic X", the token X) so
 * later scrubbing replaces it. Values shorter than 6 bytes are not kept:
 * they would scrub ordinary text.
 */
tw_status tw_redactor_add_value(tw_redactor *r, const char *value);
void tw_redactor_free(tw_redactor *r);

/*
 * Is a header of this name dropped? The built-in list: authorization,
 * proxy-authorization, api-key, x-api-key, cookie, set-cookie,
 * openai-organization, openai-project, anthropic-organization-id, and any
 * name containing "organization", "project", "api-key", "api_key",
 * "apikey", "secret", "cookie", "session-token" or "auth"; then r's names.
 */
bool tw_redact_header_dropped(const tw_redactor *r, const char *name);

/*
 * Scrub n bytes of text into out: every remembered secret value, every
 * "Bearer <token>" (the token), every "sk-…" / "sk-ant-…" style key, and in
 * URL query strings the values of key, api_key, api-key, apikey,
 * access_token, token, secret. Returns TW_OK or TW_ERR_NOMEM / TW_ERR_LIMIT
 * (out's cap). out is appended to.
 */
tw_status tw_redact_text(tw_redactor *r, const char *s, size_t n, tw_buf *out);

/* Scrub a NUL-terminated string into a new malloc'd string (NULL: no memory). */
char *tw_redact_str(tw_redactor *r, const char *s);

/*
 * Scrub every string in a JSON tree in place (object keys too), and drop
 * object members whose key names a secret (api_key, apiKey, password,
 * authorization, …) by replacing their value with TW_REDACTED. Depth is
 * capped at max_depth. Returns TW_OK or TW_ERR_NOMEM.
 */
tw_status tw_redact_json(tw_redactor *r, cJSON *v, size_t max_depth);

#endif
