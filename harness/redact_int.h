/* Internal to redaction (redact.c, redact_scrub.c): the helpers both files use. */
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

#endif
