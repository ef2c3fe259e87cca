/* Internal to redaction (redact_scrub.c, lowest; redact.c; redact_stream.c,
 * highest): the helpers a file takes from one below it. */
#ifndef TOOLWIRE_HARNESS_REDACT_INT_H
#define TOOLWIRE_HARNESS_REDACT_INT_H

#include "redact.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int tw_red_hexval(unsigned char c);
tw_status tw_red_discover_json(tw_redactor *r, const cJSON *v, size_t depth, size_t max_depth);
tw_status tw_red_swap_string(cJSON *v, char *s);

/* Room for one more element in *arr (n used of *cap, elements of size
 * bytes): the array grows geometrically. TW_ERR_NOMEM leaves it as it was. */
tw_status tw_red_room(void *arr, size_t n, size_t *cap, size_t size);

/* A run s[a, b) of a text that scrubbing replaces with one TW_REDACTED. */
typedef struct tw_red_span {
    size_t a, b;
} tw_red_span;

/*
 * Append to *sp (*nsp used of *cap, grown as needed; the caller frees *sp)
 * the spans of s[0, n) that tw_scrub_values would replace for these values
 * (any form, cut prefixes too), unsorted and unmerged.
 */
tw_status tw_red_value_spans(char *const *values, size_t nvalues, const char *s, size_t n,
                             tw_red_span **sp, size_t *nsp, size_t *cap);
/* The same for the process-wide set (under its lock). */
tw_status tw_red_set_spans(const char *s, size_t n, tw_red_span **sp, size_t *nsp, size_t *cap);
/*
 * The same for the shapes tw_redact_text scrubs without knowing the value:
 * "sk-…" style keys, the token after "Bearer " / "Basic ", credential query
 * parameters' values.
 */
tw_status tw_red_pattern_spans(const tw_redactor *r, const char *s, size_t n, tw_red_span **sp,
                               size_t *nsp, size_t *cap);
/* Sort spans and merge the overlapping ones in place: the count left. */
size_t tw_red_merge_spans(tw_red_span *sp, size_t nsp);
/*
 * Model text (a message's content or reasoning) read by every text decoder
 * of the registry: the values of credential-named arguments of every call
 * it holds are remembered as by tw_red_discover_json.
 */
tw_status tw_red_discover_model_text(tw_redactor *r, const char *s, size_t n, size_t max_depth);

#endif
