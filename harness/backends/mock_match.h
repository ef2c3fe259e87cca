/*
 * Matching requests to fixture exchanges for the mock backend (mock.h): the
 * normalised body comparison, what real SDKs add that is not compared, the
 * choice among several matching exchanges, and for a request that matches
 * nothing the nearest exchange and the first differences.
 */
#ifndef TOOLWIRE_MOCK_MATCH_H
#define TOOLWIRE_MOCK_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "apis.h"

#include "fixture.h"
#include "mock.h"

/* A fixture's request path matches a request's path when they are equal once
 * the fixture's query string ("?…") is set aside: the query is not matched.
 * A Gemini method path under /v1beta/, /v1alpha/ or /v1/ ("/v1beta/models/M:
 * generateContent") matches the same method under any of the three. */
bool tw_mock_path_matches(const char *fx_path, const char *url);

/* An exchange answered without an injected fault and with a 2xx status. */
bool tw_mock_exchange_succeeds(const tw_fx_exchange *x);

/*
 * A copy of a request body without what SDKs add that does not change its
 * meaning (docs/harness.md, Matching): "$schema" in a tool's schema at any
 * depth, "additionalProperties": false in a schema object that lists its
 * "properties", a function's "strict": false, "parallel_tool_calls": true,
 * and "tool_choice" "auto" ({"type": "auto"}) when tools are given.
 * NULL for NULL, or when out of memory (*nomem set). The copy shares every
 * top-level member but "tools" with body (references): keep body alive and
 * unchanged while the copy is used.
 */
cJSON *tw_mock_normalise(const cJSON *body, bool *nomem);

/* What a request is matched against. */
typedef struct tw_match_in {
    const tw_fixture *fx;
    size_t nfx;
    const bool *served;       /* per fixture: served at all */
    const cJSON *const *norm; /* per exchange (flat, fixture order): normalised body, or NULL */
    const size_t *ex_base;    /* index of each fixture's first exchange in norm */
    const char *method;
    const char *url;
    const cJSON *body;      /* the request body as sent (NULL when none or not JSON) */
    const cJSON *body_norm; /* tw_mock_normalise(body) */
    const char *hint;       /* X-Toolwire-Exchange, "" when absent */
    tw_match_mode mode;
    const char *const *ignore_keys;
    const struct tw_match_index *index; /* tw_match_index_build over the same fields, or NULL:
                                           every served exchange is compared */
} tw_match_in;

typedef struct tw_match_out {
    bool found;
    size_t fi, xi;       /* fixture and exchange that answer */
    size_t nbest;        /* exchanges matching as well as the chosen one */
    bool hint_elsewhere; /* the header named an exchange of another method or path */
    size_t compared;     /* exchanges looked at for this request */
} tw_match_out;

/*
 * Choose the exchange that answers the request: the one named by the hint
 * (X-Toolwire-Exchange), else among those whose method, path and body match
 * the best scored (the body as sent equal, then the same "stream"), ties to
 * the first clean answer, then the first success, then the first in load
 * order. With an index the same exchange is chosen, looking only at the
 * exchanges of the request's method, path and body (or at the named one).
 */
void tw_mock_match(const tw_match_in *in, tw_match_out *out);

/*
 * The choice tw_mock_match would make, had without hashing the body, when
 * the request matches exchange g (its flat index, as ex_base counts) and
 * the index (in->index) offers only g to a body that matches g's: no hint,
 * the body's top-level keys not repeated, g the only exchange of its
 * method, path and body hash, and no exchange compared with every request.
 * False when that cannot be told (tw_mock_match is then needed); *out is
 * set only when true. A guess, e.g. the exchange the previous request of
 * the connection chose, costs one body comparison.
 */
bool tw_mock_match_one(const tw_match_in *in, size_t g, tw_match_out *out);

/*
 * An index of the served exchanges of in (fx, nfx, served, norm, ex_base,
 * mode, ignore_keys; the request fields are not read) by method, path
 * without the query and a hash of the body as the mode compares it, and of
 * the fixtures by name. Building it is linear in the fixtures' size; it
 * borrows the fixtures and norm. TW_ERR_NOMEM when out of memory.
 */
typedef struct tw_match_index tw_match_index;
tw_status tw_match_index_build(const tw_match_in *in, tw_match_index **out);
void tw_match_index_free(tw_match_index *ix);

/* The index's hash of n bytes from seed h (equal bytes, equal hashes). */
uint64_t tw_match_hash_bytes(const char *p, size_t n, uint64_t h);

/*
 * The choices already made, by the bytes of the request: a request without
 * X-Toolwire-Exchange whose method, URL and body bytes are those of an
 * earlier one that matched is answered by the exchange chosen then, with the
 * same count of equal matches, and its body is the tree parsed then. The
 * body's parse, its normalised copy and the choice are functions of those
 * bytes, so the tree is the one the parse would give again and the choice
 * the one tw_mock_match would make; a body that did not parse, or a copy cut
 * short by memory, is never kept. One entry per exchange (the first request
 * that chose it), max_bytes of request bytes and trees in all; lookups and
 * additions from any thread, without a lock. NULL when out of memory.
 */
typedef struct tw_match_memo tw_match_memo;
tw_match_memo *tw_match_memo_new(size_t nexchanges, size_t max_bytes);
void tw_match_memo_free(tw_match_memo *mm);
/* The hash of a request that tw_match_memo_put takes. */
uint64_t tw_match_memo_key(const char *method, const char *url, const char *body, size_t len);
/*
 * The choice kept for this request to *out and its body's tree (read only,
 * NULL for an empty body; it lives as long as the memo) to *tree, or false.
 * *last (NULL, or a slot of the caller's, e.g. its connection's, holding
 * NULL at first) is the entry the caller found last: a request of the same
 * bytes is found there without hashing them; it is set to the entry found.
 * Unless *last held the request, *key is set to its hash (for _put), or to
 * 0 when no entry has a body of its length (the bytes are then not hashed).
 */
bool tw_match_memo_get(const tw_match_memo *mm, const void **last, const char *method,
                       const char *url, const char *body, size_t len, uint64_t *key,
                       tw_match_out *out, const cJSON **tree);
/* True once per exchange (g its flat index): the caller then offers the entry with _put. */
bool tw_match_memo_claim(tw_match_memo *mm, size_t g);
/* Keep the choice *out (found) for this request with tree, the body parsed
 * outside any per-request block (owned from now on: freed with the memo, or
 * at once when the memo is full). key: _get's, or 0 to have it hashed here. */
void tw_match_memo_put(tw_match_memo *mm, uint64_t key, const char *method, const char *url,
                       const char *body, size_t len, const tw_match_out *out, cJSON *tree);

/* Differences listed in a 404 at most, and the bytes of each excerpt. */
#define TW_MOCK_NEAREST_DIFFS 3
#define TW_MOCK_EXCERPT_BYTES 80

/*
 * For a request that matched nothing: the served exchange of the same method
 * and path with the fewest differences from the request (the first in load
 * order of those), and its first differences. Writes the sentence for the
 * log and the error message to *msg ("no fixture exchange matches this
 * request; nearest: F#I, N difference(s): PATH: expected X, got Y; …") and,
 * when an exchange of that method and path exists, the JSON array
 * [{"path", "expected", "got"}…] to *diffs and its name to *nearest (empty
 * otherwise). Linear in the body size times the exchanges of that path.
 */
tw_status tw_mock_nearest(const tw_match_in *in, tw_buf *msg, tw_buf *nearest, tw_buf *diffs);

/* The 404 body in the endpoint's error envelope (kind as tw_path_kind:
 * TW_API_ANTHROPIC Anthropic's, TW_API_GEMINI Gemini's {"error": {"code": 404, "status":
 * "NOT_FOUND"}}, else OpenAI's), with "nearest" and "differences" beside the message when given. */
void tw_mock_not_found_body(tw_buf *b, tw_api_kind kind, const char *msg, const char *nearest,
                            const char *diffs);

#endif
