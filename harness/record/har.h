/*
 * HAR 1.2 files (log.entries[]: request, response) loaded into plain
 * structs for the importer. Bodies are given as bytes: request.postData.text
 * and response.content.text, base64-decoded when their "encoding" says so.
 * Everything a tw_har holds is owned by it: free with tw_har_free.
 */
#ifndef TOOLWIRE_HAR_H
#define TOOLWIRE_HAR_H

#include <stdbool.h>
#include <stddef.h>

#include "toolwire/json.h"

typedef struct tw_har_header {
    char *name;
    char *value;
} tw_har_header;

typedef struct tw_har_message {
    tw_har_header *headers;
    size_t nheaders;
    tw_har_header *cookies; /* request.cookies[] / response.cookies[]: name, value */
    size_t ncookies;
    bool has_body;
    char *body; /* NUL-terminated; len is authoritative (may hold NULs) */
    size_t body_len;
    char *mime_type; /* postData.mimeType / content.mimeType, NULL when absent */
} tw_har_message;

typedef struct tw_har_entry {
    char *method;
    char *url;
    char *started; /* startedDateTime, NULL when absent */
    int status;    /* response.status */
    tw_har_message request;
    tw_har_message response;
    size_t line, col; /* where the entry starts in the file */
} tw_har_entry;

typedef struct tw_har {
    char *name;
    tw_har_entry *entries;
    size_t nentries;
} tw_har;

/*
 * Parse a HAR document. limits (may be NULL): max_input_bytes caps the file,
 * max_depth its nesting, max_messages the number of entries. On failure
 * returns TW_ERR_IO, TW_ERR_PARSE, TW_ERR_INVALID, TW_ERR_LIMIT or
 * TW_ERR_NOMEM, *out is empty, and why holds "FILE:LINE:COL: what was
 * expected".
 */
tw_status tw_har_parse(const char *buf, size_t len, const char *name, const tw_limits *limits,
                       tw_har *out, tw_error *err);
tw_status tw_har_load(const char *path, const tw_limits *limits, tw_har *out, tw_error *err);
void tw_har_free(tw_har *h);

/* Decode standard or URL-safe base64 (padding optional, whitespace skipped)
 * into a new malloc'd buffer of *outlen bytes plus a NUL. NULL on bad input. */
char *tw_base64_decode(const char *s, size_t n, size_t *outlen);

#endif
