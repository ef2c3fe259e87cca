/*
 * The conformance checks (docs/checks.md) over the catalog of check ids
 * (check_catalog.h, written once in check_ids.h). Backend checks judge the
 * bytes a backend sent back to the harness; client checks judge the
 * requests a client sent to the mock backend. Each check gives a verdict
 * per exchange (pass, fail, skip) with evidence: a byte offset (or -1) and
 * the offending value.
 */
#ifndef TOOLWIRE_CHECKS_H
#define TOOLWIRE_CHECKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "apis.h"
#include "check_catalog.h"
#include "fixture.h"
#include "toolwire/neutral.h"

/* One verdict. `id` points at the catalog's static string of `check`. */
typedef struct tw_check_result {
    const char *id;
    tw_check_id check;
    tw_verdict verdict;
    int64_t offset; /* byte offset into the judged bytes, -1 when none */
    char *evidence; /* NUL-terminated; "" when none */
    bool borrowed;  /* evidence is a text of static storage, not owned */
} tw_check_result;

/* Verdicts of one exchange, at most one per check id (a later set replaces). */
typedef struct tw_check_set {
    tw_check_result *items;
    size_t len;
    size_t cap;
} tw_check_set;

/* Record a verdict (evidence printf-style, capped at 512 bytes). */
void tw_check_set_put(tw_check_set *s, tw_check_id id, tw_verdict v, int64_t offset,
                      const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* Record a verdict whose evidence is `text`, a text of static storage (a
 * string literal): kept by reference when the secret set leaves it as it is
 * and it fits the evidence cap, else copied as tw_check_set_put does. */
void tw_check_set_put_static(tw_check_set *s, tw_check_id id, tw_verdict v, int64_t offset,
                             const char *text);
/* NULL when the set has no verdict of the check. */
const tw_check_result *tw_check_set_get(const tw_check_set *s, tw_check_id id);
/* Copy every verdict of src into dst (replacing the same ids). */
void tw_check_set_merge(tw_check_set *dst, const tw_check_set *src);
/* Give every catalog check of the kind (client or backend) without a verdict a skip
 * (the client-library checks CLT-* are given by toolwire clients only). */
void tw_check_set_fill(tw_check_set *s, bool client, const char *why);
/* Give every check of the family without a verdict a skip with why as its evidence. */
void tw_check_set_skip_family(tw_check_set *s, tw_check_family family, const char *why);
/* Sort by catalog order. */
void tw_check_set_sort(tw_check_set *s);
void tw_check_set_free(tw_check_set *s);

/* What the harness sent and what came back, for the backend checks. */
typedef struct tw_judge_input {
    const tw_fx_exchange *ex; /* the fixture exchange (model text, options), or NULL */
    const char *path;         /* request path */
    const cJSON *req_body;    /* request JSON, or NULL */
    const tw_kv *req_headers;
    size_t nreq_headers;
    int status; /* 0: no response */
    const tw_kv *resp_headers;
    size_t nresp_headers;
    const char *body; /* response bytes as received */
    size_t body_len;
    const char *transport_error; /* the transfer broke, or NULL */
    /* the non-streamed response to the same request (OAI-S07), or NULL */
    const char *pair_body;
    size_t pair_len;
    const tw_limits *limits; /* NULL: defaults */
    /* strict sessions: 1 an earlier exchange of this session paused with
     * tool calls, -1 none did (SES-01/02 then skip), 0 unknown (judged
     * from the request alone) */
    int session_pending;
} tw_judge_input;

/* Apply every backend check; each gets a verdict (skip when it does not fit). */
void tw_checks_backend(const tw_judge_input *in, tw_check_set *out);

/*
 * Client checks CLI-01..CLI-06 over one request (path selects the OpenAI or
 * the Anthropic rules). CLI-07 needs the timing of the exchange and is
 * judged by the two functions below.
 */
void tw_checks_client(const char *path, const cJSON *body, tw_check_set *out);

/*
 * CLI-09 on a Responses request that the mock matched to exchange xi of
 * fixture f: the call_ids of the function_call and function_call_output
 * items of its input are call_ids that the recorded answers of exchanges
 * [0, xi) issued (skipped on a first turn, or when those made no call).
 */
void tw_checks_client_history(const cJSON *body, const tw_fixture *f, size_t xi,
                              const tw_limits *limits, tw_check_set *out);

/*
 * GEM-C02 on a Gemini request: every thoughtSignature the model gave on a
 * call in the recorded answers of exchanges [0, xi) of fixture f is sent
 * back in the request's model turns (skipped when those answers gave none,
 * as an older model's do). model_signs: the earlier answers came from a
 * reference server, which signs every call turn, so every call turn sent
 * back must carry a signature on its first functionCall part.
 */
void tw_checks_client_gemini(const cJSON *body, const tw_fixture *f, size_t xi, bool model_signs,
                             const tw_limits *limits, tw_check_set *out);

/*
 * CLI-10 on an Anthropic request: every thinking block of the assistant
 * messages sent back carries its signature unchanged (redacted_thinking its
 * data). model_signs: the answers came from a reference server, whose
 * signature is tw_chk_ref_signature of the block's text; else each must be
 * one that the recorded answers of exchanges [0, xi) of fixture f gave
 * (skipped when those gave none).
 */
void tw_checks_client_anthropic(const cJSON *body, const tw_fixture *f, size_t xi, bool model_signs,
                                const tw_limits *limits, tw_check_set *out);

/* The client checks that need the exchange a request answers (CLI-09,
 * GEM-C02, CLI-10), by the API of path. */
void tw_checks_client_context(const char *path, const cJSON *body, const tw_fixture *f, size_t xi,
                              bool model_signs, const tw_limits *limits, tw_check_set *out);

/* The reference Anthropic server's signature of a thinking text (FNV-1a over
 * its bytes, "toolwire-sig-" and 16 hex digits): it authenticates nothing;
 * a client only has to carry it back unchanged. */
#define TW_REF_SIG_MAX 40
void tw_chk_ref_signature(const char *s, size_t n, char out[TW_REF_SIG_MAX]);

/*
 * CLI-07 on a request the mock backend answered. due_ms: when a retry of the
 * exchange is due (a 429/503 asked to wait until then), 0 when no
 * Retry-After is pending; asked_ms: the wait asked; now_ms: when the request
 * arrived, on the clock of due_ms. Early by more than a small slack: fail.
 */
void tw_checks_client_retry(long due_ms, long asked_ms, long now_ms, tw_check_set *out);

/*
 * CLI-07 from the harness's own retry log against a live backend: asked_ms
 * the Retry-After of the last 429/503 retried after (-1: none), waited_ms the
 * wait before the retry.
 */
void tw_checks_client_retry_waited(long asked_ms, long waited_ms, tw_check_set *out);

/* tw_path_kind, the API style of a path: apis.h (the table of formats). */

/*
 * Decode a response with the reference decoder that fits it (openai-response,
 * openai-stream, anthropic-response, anthropic-stream, vllm-generate). Returns
 * TW_ERR_UNSUPPORTED when no decoder fits or it is not available.
 */
tw_status tw_decode_response(const char *path, bool stream, const char *body, size_t len,
                             const tw_decode_opts *o, tw_result *out);

#endif
