/*
 * vcrpy cassettes (YAML: interactions: [{request, response}]) loaded into
 * plain structs. Bodies come in three recorded forms and are all given as
 * bytes: a raw string (`body: '...'` or `body: {string: ...}`), base64
 * `!!binary` (gunzipped when the headers say content-encoding: gzip), or
 * pydantic-ai's `parsed_body` (YAML turned into JSON; `data` then holds its
 * compact serialisation, which is not byte-exact to what was sent).
 *
 * Everything a tw_cassette holds is owned by it: free with tw_cassette_free.
 */
#ifndef TOOLWIRE_CASSETTE_H
#define TOOLWIRE_CASSETTE_H

#include <stdbool.h>
#include <stddef.h>

#include "toolwire/json.h"

typedef struct tw_cassette_header {
    char *name;  /* as recorded (case kept) */
    char *value; /* one value; a header recorded with n values gives n entries */
} tw_cassette_header;

typedef enum tw_cassette_body_kind {
    TW_CASSETTE_BODY_NONE = 0, /* absent or null */
    TW_CASSETTE_BODY_STRING,   /* raw text as recorded */
    TW_CASSETTE_BODY_BINARY,   /* !!binary, decoded (and gunzipped when gzip) */
    TW_CASSETTE_BODY_PARSED    /* parsed_body */
} tw_cassette_body_kind;

typedef struct tw_cassette_body {
    tw_cassette_body_kind kind;
    char *data; /* NUL-terminated; len is authoritative (may hold NULs) */
    size_t len;
    cJSON *json;    /* PARSED: the body as JSON; otherwise NULL */
    bool gunzipped; /* BINARY: it was gzip-compressed */
} tw_cassette_body;

typedef struct tw_cassette_request {
    char *method; /* NULL when absent */
    char *uri;
    tw_cassette_header *headers;
    size_t nheaders;
    tw_cassette_body body;
} tw_cassette_request;

typedef struct tw_cassette_response {
    int status;           /* status.code, 0 when absent */
    char *status_message; /* status.message, NULL when absent */
    tw_cassette_header *headers;
    size_t nheaders;
    tw_cassette_body body;
} tw_cassette_response;

typedef struct tw_cassette_interaction {
    tw_cassette_request request;
    tw_cassette_response response;
    size_t line; /* 1-based line of the interaction in the file */
} tw_cassette_interaction;

typedef struct tw_cassette {
    char *name; /* the path or name given to load/parse */
    tw_cassette_interaction *interactions;
    size_t ninteractions;
    long version; /* top-level version:, 0 when absent */
} tw_cassette;

/*
 * Read and load a cassette file. limits (may be NULL): max_input_bytes caps
 * the file and each decoded body, max_depth the nesting of parsed bodies,
 * max_messages the number of interactions. On failure returns
 * TW_ERR_IO, TW_ERR_PARSE, TW_ERR_INVALID, TW_ERR_LIMIT or TW_ERR_NOMEM, *out
 * is empty, and why holds "FILE:LINE:COL: what went wrong".
 */
tw_status tw_cassette_load(const char *path, const tw_limits *limits, tw_cassette *out,
                           tw_error *err);
/* The same from memory; `name` is used in messages. */
tw_status tw_cassette_parse(const char *buf, size_t len, const char *name, const tw_limits *limits,
                            tw_cassette *out, tw_error *err);
void tw_cassette_free(tw_cassette *c);

/* First header with this name, case-insensitive; NULL when absent. */
const char *tw_cassette_header_get(const tw_cassette_header *h, size_t n, const char *name);

#endif
