/*
 * Conformance fixtures (docs/fixtures.md, fixtures/fixture.schema.json):
 * one JSON file is one scenario of one or more exchanges. The loader keeps
 * the parsed tree (root) and gives typed views into it; every string below
 * points into the tree or is owned by the fixture: free with tw_fixture_free.
 */
#ifndef TOOLWIRE_FIXTURE_H
#define TOOLWIRE_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>

#include "toolwire/neutral.h"

#define TW_FIXTURE_VERSION 1
/* At most this many tags per fixture, each at most TW_FIXTURE_MAX_TAG_LEN bytes of [a-z0-9-]. */
#define TW_FIXTURE_MAX_TAGS 32
#define TW_FIXTURE_MAX_TAG_LEN 64
/* A run-time placeholder for a call id the server produced: "$call_id[E]" or "$call_id[E][C]". */
#define TW_CALL_ID_PLACEHOLDER "$call_id["

typedef struct tw_kv {
    const char *name;          /* header names are kept as written */
    const char *value;
} tw_kv;

typedef struct tw_fx_sse {
    const char *event;         /* NULL: no event: line */
    const char *data;          /* the event's data (may hold newlines) */
    const char *id;            /* NULL when absent */
    long delay_ms;             /* delay before this event when replaying with timing; 0 */
} tw_fx_sse;

typedef struct tw_fx_request {
    const char *method;        /* "POST" */
    const char *path;          /* "/v1/chat/completions", "/v1/messages", "/generate" */
    tw_kv *headers;
    size_t nheaders;
    const cJSON *body;         /* JSON body, or NULL */
} tw_fx_request;

typedef struct tw_fx_response {
    int status;
    tw_kv *headers;
    size_t nheaders;
    const cJSON *body;         /* JSON body (non-streaming), or NULL */
    const char *body_text;     /* a raw non-JSON body, or NULL */
    tw_fx_sse *events;         /* SSE events (streaming), or NULL */
    size_t nevents;
    bool stream;               /* the response is an event stream */
} tw_fx_response;

typedef struct tw_fx_expect_fail {
    const char *check;         /* check id, "OAI-R04" */
    const char *reason;
} tw_fx_expect_fail;

/* Expectations that hold for any conforming server ("expect.live", checks LIV-*). */
typedef struct tw_fx_live {
    const cJSON *json;         /* the "live" object as written, or NULL: nothing is judged */
    const char **tool_called;  /* owned array, strings point into root; NULL when not judged */
    size_t ntool_called;
    long calls_min, calls_max; /* bounds on the number of calls, -1 when not given */
    bool arguments_valid;      /* every call's arguments satisfy the declared tool's schema */
    int text;                  /* -1 not judged, 1 non-empty text expected, 0 no text expected */
    int reasoning;             /* -1 not judged, 1 reasoning expected, 0 no reasoning expected */
    long agrees_with;          /* index of another exchange with the same calls, -1 when none */
} tw_fx_live;

typedef struct tw_fx_exchange {
    tw_fx_request req;
    bool has_response;         /* a recorded response to replay */
    tw_fx_response resp;
    /* text-protocol backends: the raw model output the reference server wraps */
    const char *model_text;    /* single pass, or NULL */
    const char *model_pass1;   /* vLLM-native two-pass: pass 1 and pass 2 text, or NULL */
    const char *model_pass2;
    const char *decode_format; /* which reference decoder judges this exchange, or NULL */
    /* the text format the model text is written in: decode_format when it
     * names a text decoder, else "qwen3-coder" for a fixture of that
     * backend, else NULL (Hermes); set by the loader */
    const char *model_format;
    const cJSON *decode_options; /* fixture "options" object for it, or NULL */
    const cJSON *expect_result;  /* the expected neutral result, or NULL */
    tw_fx_expect_fail *expect_fail; /* checks expected to fail, with reasons */
    size_t nexpect_fail;
    const cJSON *faults;       /* fault injection for the mock backend, or NULL */
    tw_fx_live live;           /* expect.live */
    const cJSON *expect_client; /* expect.client (what a client library must hand on), or NULL */
    size_t nplaceholders;      /* "$call_id[…]" strings in the request body */
} tw_fx_exchange;

typedef struct tw_fixture {
    char *path;                /* owned */
    const char *name;
    const char *description;
    const char *backend;       /* "openai", "anthropic", "hermes", "vllm-native", "proxy", "gemini",
                                  "qwen3-coder" */
    const char **tags;         /* owned array, strings point into root */
    size_t ntags;
    const cJSON *provenance;
    tw_fx_exchange *exchanges; /* owned array */
    size_t nexchanges;
    cJSON *root;               /* owned tree */
} tw_fixture;

/*
 * Load and validate one fixture file. On failure returns TW_ERR_PARSE or
 * TW_ERR_INVALID and writes "FILE:LINE:COL: what was expected" into why.
 */
tw_status tw_fixture_load(const char *path, const tw_limits *limits, tw_fixture *out, tw_error *err);
/* Same from memory; `path` names the source in messages. */
tw_status tw_fixture_parse(const char *buf, size_t len, const char *path, const tw_limits *limits,
                           tw_fixture *out, tw_error *err);
void tw_fixture_free(tw_fixture *f);

/*
 * Parse and validate a faults object (the "faults" of an exchange, or
 * `serve --fault`) by the fixture rules: only the known keys, each an integer
 * in its range (status 100-599). On success *out owns the tree; on failure
 * returns TW_ERR_PARSE or TW_ERR_INVALID and writes "NAME:LINE:COL: KEY:
 * what was expected" into why.
 */
tw_status tw_fixture_check_faults(const char *text, size_t len, const char *name, cJSON **out,
                                  tw_error *err);

/* Does the fixture carry the tag? */
bool tw_fixture_has_tag(const tw_fixture *f, const char *tag);
/* Is the string a valid tag ([a-z0-9-]+, at most TW_FIXTURE_MAX_TAG_LEN bytes)? */
bool tw_tag_valid(const char *tag);

/*
 * Read a call-id placeholder: "$call_id[E]" (the first call of exchange E) or
 * "$call_id[E][C]" (call C, from 0). False when s is not exactly one.
 */
bool tw_call_id_placeholder(const char *s, size_t *exchange, size_t *call);

/* Header lookup, case-insensitive; NULL when absent. */
const char *tw_kv_get(const tw_kv *kv, size_t n, const char *name);

/*
 * Line and column (1-based) of the value at a JSON path ("exchanges[0].request",
 * "" for the root) in the valid JSON text buf[0, len); with at_key, of the last
 * member's key. Where the path cannot be followed, the deepest value reached.
 */
tw_status tw_json_locate(const char *buf, size_t len, const char *jpath, bool at_key,
                         size_t *line, size_t *col);

#endif
