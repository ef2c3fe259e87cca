/*
 * Base URLs of the servers toolwire sends to (run and record --backend,
 * serve --upstream, the reference proxy's upstream): the one join of a
 * request path to a base, the checks a base must pass, and the credentials
 * a base may carry.
 *
 * A base is "http[s]://[userinfo@]host[:port][/path][?query]". The userinfo
 * and the values of credential-named query parameters (tw_url_param_secret)
 * are credentials: they are sent (libcurl is given the real URL) but never
 * written; tw_url_learn_secrets adds them to the process-wide secret set
 * (redact.h) and tw_url_shown gives the form of the URL that may be written.
 */
#ifndef TOOLWIRE_URL_H
#define TOOLWIRE_URL_H

#include <stdbool.h>
#include <stddef.h>

#include "toolwire/core.h"

/*
 * Join a request path (which may carry its own "?query") to a base URL:
 * the path goes after the base's path and before its query, which is kept
 * ("http://h/json?key=X" + "/v1/chat/completions" ->
 * "http://h/json/v1/chat/completions?key=X"; with both, the path's query
 * first, then the base's, joined by '&'). Trailing '/' of the base's path
 * are dropped; a base path ending in "/v1" is not doubled by a path
 * starting "/v1/"; an empty path is "/"; a fragment ('#…', never sent) of
 * either is dropped. Returns a malloc'd string, NULL when out of memory.
 */
char *tw_url_join(const char *base, const char *path);

/* The longest base URL accepted (bytes). */
#define TW_URL_BASE_MAX 8192

/*
 * Can url serve as a base? http:// or https://, a host, no fragment, no
 * byte below 0x21 or 0x7F, at most TW_URL_BASE_MAX bytes. On false err says why, naming the URL
 * only in its written form (tw_url_shown); `what` names the option ("--backend").
 */
bool tw_url_base_ok(const char *url, const char *what, tw_error *err);

/*
 * Is a query parameter of this name (n bytes, percent-decoded) a
 * credential? The names tw_redact_field_secret knows, and key, sig,
 * signature, code and any name ending in _key or _signature ('-' read as
 * '_', case-insensitive); api-version is not one.
 */
bool tw_url_param_secret(const char *name, size_t n);

/*
 * Add the credentials of url to the process-wide secret set (tw_secret_add):
 * the userinfo whole, its user and its password, each as written and
 * percent-decoded, and the Base64 "user:password" a Basic Authorization
 * header carries; the value of every credential query parameter, as
 * written and percent-decoded. url may be any text holding a URL ("NAME=URL"
 * as given to --backend): the URL starts at the first "://", text before it
 * is kept as the scheme. Call it where the URL is read, before anything is
 * written. Returns TW_OK or TW_ERR_NOMEM.
 */
tw_status tw_url_learn_secrets(const char *url);

/*
 * The form of url that may be written: the userinfo and the value of every
 * credential query parameter replaced by TW_REDACTED, a fragment dropped,
 * the rest as given. url as for tw_url_learn_secrets. Returns a malloc'd
 * string, NULL when out of memory (or url is NULL).
 */
char *tw_url_shown(const char *url);

#endif
