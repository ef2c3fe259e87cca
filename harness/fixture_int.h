/*
 * Internal to fixture validation (fixture.c, fixture_expect.c): the
 * validation context and the helpers both files use.
 */
#ifndef TOOLWIRE_HARNESS_FIXTURE_INT_H
#define TOOLWIRE_HARNESS_FIXTURE_INT_H

#include "fixture.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "decode_opts.h"
#include "toolwire/decode.h"

enum { TW_JP = 512 }; /* room for one JSON path */

typedef struct vctx {
    const char *src;
    size_t len;
    const char *file;
    tw_error *err;
    tw_limits lim;
} vctx;

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
tw_status tw_fix_fail_at(vctx *c, const char *jpath, bool at_key, const char *fmt, ...);
const char *tw_fix_kind_of(const cJSON *v);
void tw_fix_sub_key(char *out, size_t n, const char *path, const char *key);
void tw_fix_sub_idx(char *out, size_t n, const char *path, size_t i);
tw_status tw_fix_only_keys(vctx *c, const cJSON *obj, const char *path, const char *const *allowed);
tw_status tw_fix_want_object(vctx *c, const cJSON *v, const char *path);
tw_status tw_fix_get_str(vctx *c, const cJSON *obj, const char *path, const char *key,
                         bool required, bool nonempty, const char **out);
tw_status tw_fix_get_int(vctx *c, const cJSON *obj, const char *path, const char *key, long lo,
                         long hi, bool required, long *out, bool *present);
tw_status tw_fix_walk_placeholders(vctx *c, const cJSON *v, char *path, size_t k, size_t *count,
                                   size_t depth);
tw_status tw_fix_read_expect(vctx *c, const cJSON *j, const char *path, tw_fx_exchange *x);
tw_status tw_fix_read_faults(vctx *c, const cJSON *j, const char *path, tw_fx_exchange *x);

#endif
