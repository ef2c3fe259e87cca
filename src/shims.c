/*
 * Reliability shims (docs/formats/encoding.md, Shims): defensive argument parsing, id
 * normalisation, schema normalisation, tool-output truncation and the unwrapping of the
 * pseudo-tool `parallel`.
 */
#include "alloc.h"
#include "toolwire/shims.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "shims_int.h"

/* ===================== UTF-8 ===================== */

/* Length of the UTF-8 sequence a lead byte announces (1 for anything else). */
static size_t seq_len(unsigned char c)
{
    if (c >= 0xC2 && c <= 0xDF)
        return 2;
    if (c >= 0xE0 && c <= 0xEF)
        return 3;
    if (c >= 0xF0 && c <= 0xF4)
        return 4;
    return 1;
}

size_t tw_utf8_cut(const char *s, size_t n, size_t max)
{
    if (n <= max)
        return n;
    const unsigned char *u = (const unsigned char *)s;
    /* walk back over at most 3 continuation bytes to the lead byte */
    size_t i = max;
    size_t back = 0;
    while (i > 0 && back < 3 && (u[i] & 0xC0) == 0x80) {
        i--;
        back++;
    }
    if ((u[i] & 0xC0) == 0x80)
        return max; /* not UTF-8 here: any cut is as good */
    size_t k = seq_len(u[i]);
    if (k > 1 && i + k > max) {
        /* the sequence at i would straddle the cut: check it is a real one */
        size_t j = 1;
        while (j < k && i + j < n && (u[i + j] & 0xC0) == 0x80)
            j++;
        if (j == k)
            return i;
    }
    return max;
}

/* ===================== arguments ===================== */

/* Refuse with the status st; err->code is the diagnostic code. */
static tw_status refuse(tw_status st, tw_status code, tw_error *err, const char *msg)
{
    tw_error_set(err, code, -1, NULL, "%s", msg);
    return st;
}

tw_status tw_shim_parse_args(const char *buf, size_t len, const tw_limits *limits, cJSON **out,
                             bool *fenced, tw_error *err)
{
    tw_limits l;
    tw_limits_resolve(&l, limits);
    *out = NULL;
    if (fenced)
        *fenced = false;
    if (len > l.max_args_bytes) {
        tw_error_set(err, TW_D_ARGS_TOO_LARGE, -1, NULL,
                     "arguments are %zu bytes, more than max_args_bytes (%zu)", len,
                     l.max_args_bytes);
        return TW_ERR_LIMIT;
    }
    const char *p = buf;
    size_t n = len;
    tw_trim(&p, &n);
    if (n >= 6 && memcmp(p, "```", 3) == 0 && memcmp(p + n - 3, "```", 3) == 0) {
        const char *nl = memchr(p, '\n', n - 3);
        if (nl) {
            /* the info string may only be a language tag such as json */
            bool tag_ok = true;
            for (const char *q = p + 3; q < nl; q++)
                if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == ' ' ||
                      *q == '\r'))
                    tag_ok = false;
            if (tag_ok) {
                n = (size_t)(p + n - 3 - (nl + 1));
                p = nl + 1;
                tw_trim(&p, &n);
                if (fenced)
                    *fenced = true;
            }
        }
    }
    if (n == 0) {
        *out = cJSON_CreateObject();
        return *out ? TW_OK : TW_ERR_NOMEM;
    }
    tw_error e;
    tw_status st = tw_json_parse(p, n, l.max_depth, out, &e);
    if (st != TW_OK && e.code == TW_D_JSON_TOO_DEEP)
        return refuse(TW_ERR_LIMIT, TW_D_JSON_TOO_DEEP, err, e.message);
    if (st == TW_ERR_NOMEM)
        return refuse(st, st, err, e.message);
    if (st != TW_OK)
        return refuse(TW_ERR_PARSE, TW_D_TOOL_CALL_JSON, err, e.message);
    if (!cJSON_IsObject(*out)) {
        cJSON_Delete(*out);
        *out = NULL;
        return refuse(TW_ERR_INVALID, TW_D_ARGUMENTS_NOT_OBJECT, err,
                      "arguments are not a JSON object");
    }
    return TW_OK;
}

/* ===================== ids ===================== */

/* A small open-addressing set of borrowed strings. */
typedef struct idset {
    const char **slots;
    size_t cap; /* power of two */
    size_t len;
} idset;

static bool idset_has(const idset *s, const char *id)
{
    if (!s->cap)
        return false;
    for (size_t i = (size_t)tw_hash_str(id) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (!s->slots[i])
            return false;
        if (strcmp(s->slots[i], id) == 0)
            return true;
    }
}

static tw_status idset_add(idset *s, const char *id)
{
    if ((s->len + 1) * 2 > s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 16;
        const char **n = tw_calloc(ncap, sizeof *n);
        if (!n)
            return TW_ERR_NOMEM;
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->slots[i])
                continue;
            size_t j = (size_t)tw_hash_str(s->slots[i]) & (ncap - 1);
            while (n[j])
                j = (j + 1) & (ncap - 1);
            n[j] = s->slots[i];
        }
        tw_free(s->slots);
        s->slots = n;
        s->cap = ncap;
    }
    size_t i = (size_t)tw_hash_str(id) & (s->cap - 1);
    while (s->slots[i])
        i = (i + 1) & (s->cap - 1);
    s->slots[i] = id;
    s->len++;
    return TW_OK;
}

/*
 * Give calls[0, n) unique, non-blank ids against `seen` (which then holds
 * them). *counter numbers the generated "tc_N" ids. When `pairs` is given,
 * pairs[i] receives the call's old id (owned, NULL when blank) if it was
 * rewritten.
 */
static tw_status normalize_calls(tw_call *calls, size_t n, idset *seen, size_t *counter,
                                 char **old_ids, tw_diag_list *warnings)
{
    for (size_t i = 0; i < n; i++) {
        tw_call *c = &calls[i];
        char *nid = NULL;
        if (!c->id || !c->id[0]) {
            char tmp[32];
            do
                snprintf(tmp, sizeof tmp, "tc_%zu", ++*counter);
            while (idset_has(seen, tmp));
            if (!(nid = tw_strdup(tmp)))
                return TW_ERR_NOMEM;
        } else if (idset_has(seen, c->id)) {
            size_t k = strlen(c->id);
            if (!(nid = tw_malloc(k + 24)))
                return TW_ERR_NOMEM;
            for (unsigned long s = 2;; s++) {
                snprintf(nid, k + 24, "%s__%lu", c->id, s);
                if (!idset_has(seen, nid))
                    break;
            }
            tw_status st =
                warnings ? tw_diag_addf(warnings, TW_D_DUPLICATE_ID, c->offset,
                                        "duplicate tool call id '%s' rewritten as '%s'", c->id, nid)
                         : TW_OK;
            if (st != TW_OK) {
                tw_free(nid);
                return st;
            }
        }
        if (nid) {
            if (old_ids) {
                old_ids[i] = c->id; /* may be NULL: a blank id */
                if (!old_ids[i] && !(old_ids[i] = tw_strdup(""))) {
                    tw_free(nid);
                    return TW_ERR_NOMEM;
                }
            } else {
                tw_free(c->id);
            }
            c->id = nid;
        }
        tw_status st = idset_add(seen, c->id);
        if (st != TW_OK)
            return st;
    }
    return TW_OK;
}

tw_status tw_shim_normalize_ids(tw_message *m, tw_diag_list *warnings)
{
    idset seen = {0};
    size_t counter = 0;
    /* generated ids must not take a value a later call already has */
    tw_status st = TW_OK;
    idset given = {0};
    for (size_t i = 0; st == TW_OK && i < m->ncalls; i++)
        if (m->calls[i].id && m->calls[i].id[0] && !idset_has(&given, m->calls[i].id))
            st = idset_add(&given, m->calls[i].id);
    for (size_t i = 0; st == TW_OK && i < m->ncalls; i++) {
        tw_call *c = &m->calls[i];
        if (!c->id || !c->id[0]) {
            char tmp[32];
            counter = i;
            do
                snprintf(tmp, sizeof tmp, "tc_%zu", ++counter);
            while (idset_has(&seen, tmp) || idset_has(&given, tmp));
            char *nid = tw_strdup(tmp);
            if (!nid) {
                st = TW_ERR_NOMEM;
                break;
            }
            tw_free(c->id);
            c->id = nid;
        }
        size_t one_counter = 0;
        st = normalize_calls(c, 1, &seen, &one_counter, NULL, warnings);
    }
    tw_free(seen.slots);
    tw_free(given.slots);
    return st;
}

tw_status tw_shim_normalize_request_ids(tw_request *r, tw_diag_list *warnings)
{
    idset seen = {0};
    size_t counter = 0;
    tw_status st = TW_OK;
    /* the rewrites of the latest assistant message: old id -> call index */
    char **old_ids = NULL;
    bool *answered = NULL;
    const tw_message *last = NULL;
    for (size_t mi = 0; st == TW_OK && mi < r->nmessages; mi++) {
        tw_message *m = &r->messages[mi];
        if (m->role == TW_ROLE_ASSISTANT) {
            if (last)
                for (size_t i = 0; i < last->ncalls; i++)
                    tw_free(old_ids[i]);
            tw_free(old_ids);
            tw_free(answered);
            old_ids = NULL;
            answered = NULL;
            last = NULL;
            if (!m->ncalls)
                continue;
            old_ids = tw_calloc(m->ncalls, sizeof *old_ids);
            answered = tw_calloc(m->ncalls, sizeof *answered);
            if (!old_ids || !answered) {
                st = TW_ERR_NOMEM;
                break;
            }
            last = m;
            st = normalize_calls(m->calls, m->ncalls, &seen, &counter, old_ids, warnings);
        } else if (m->role == TW_ROLE_TOOL && last) {
            const char *tid = m->tool_call_id ? m->tool_call_id : "";
            for (size_t i = 0; i < last->ncalls; i++) {
                const char *was = old_ids[i] ? old_ids[i] : last->calls[i].id;
                if (answered[i] || strcmp(was, tid) != 0)
                    continue;
                answered[i] = true;
                if (old_ids[i]) {
                    char *nid = tw_strdup(last->calls[i].id);
                    if (!nid) {
                        st = TW_ERR_NOMEM;
                        break;
                    }
                    tw_free(m->tool_call_id);
                    m->tool_call_id = nid;
                }
                break;
            }
        }
    }
    if (last)
        for (size_t i = 0; i < last->ncalls; i++)
            tw_free(old_ids[i]);
    tw_free(old_ids);
    tw_free(answered);
    tw_free(seen.slots);
    return st;
}

/* ===================== schemas ===================== */

/* apply false: count what would be removed, changing nothing */
static size_t schema_walk(cJSON *s, size_t depth, size_t max_depth, bool apply);

static size_t walk_map(cJSON *obj, size_t depth, size_t max_depth, bool apply)
{
    size_t n = 0;
    if (cJSON_IsObject(obj))
        for (cJSON *c = obj->child; c; c = c->next)
            n += schema_walk(c, depth + 1, max_depth, apply);
    return n;
}

static size_t walk_list(cJSON *arr, size_t depth, size_t max_depth, bool apply)
{
    size_t n = 0;
    if (cJSON_IsArray(arr))
        for (cJSON *c = arr->child; c; c = c->next)
            n += schema_walk(c, depth + 1, max_depth, apply);
    return n;
}

static size_t schema_walk(cJSON *s, size_t depth, size_t max_depth, bool apply)
{
    if (!cJSON_IsObject(s) || depth > max_depth)
        return 0;
    size_t n = 0;
    cJSON *req = tw_json_get(s, "required");
    if (cJSON_IsArray(req) && !req->child) {
        if (apply)
            cJSON_DeleteItemFromObjectCaseSensitive(s, "required");
        n++;
    }
    static const char *const maps[] = {"properties", "patternProperties", "$defs", "definitions"};
    static const char *const lists[] = {"anyOf", "oneOf", "allOf", "prefixItems"};
    static const char *const single[] = {
        "additionalProperties", "not", "if", "then", "else", "contains"};
    for (size_t i = 0; i < sizeof maps / sizeof *maps; i++)
        n += walk_map(tw_json_get(s, maps[i]), depth + 1, max_depth, apply);
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++)
        n += walk_list(tw_json_get(s, lists[i]), depth + 1, max_depth, apply);
    for (size_t i = 0; i < sizeof single / sizeof *single; i++)
        n += schema_walk(tw_json_get(s, single[i]), depth + 1, max_depth, apply);
    cJSON *items = tw_json_get(s, "items");
    n += cJSON_IsArray(items) ? walk_list(items, depth + 1, max_depth, apply)
                              : schema_walk(items, depth + 1, max_depth, apply);
    return n;
}

static size_t schema_depth(size_t max_depth)
{
    return max_depth == 0 || max_depth > TW_DEPTH_HARD_MAX ? TW_DEPTH_HARD_MAX : max_depth;
}

size_t tw_shim_schema_normalize(cJSON *schema, size_t max_depth)
{
    return schema_walk(schema, 0, schema_depth(max_depth), true);
}

size_t tw_shim_schema_removals(const cJSON *schema, size_t max_depth)
{
    /* the walk with apply false only reads */
    return schema_walk((cJSON *)schema, 0, schema_depth(max_depth), false);
}

/* ===================== tool output ===================== */

tw_status tw_shim_truncate(const char *s, size_t n, size_t max, tw_buf *out, bool *truncated)
{
    size_t mlen = sizeof TW_TRUNCATED_MARKER - 1;
    if (truncated)
        *truncated = false;
    if (n <= max)
        return tw_buf_append(out, s, n);
    if (max < mlen)
        return TW_ERR_INVALID;
    size_t keep = tw_utf8_cut(s, n, max - mlen);
    tw_status st = tw_buf_reserve(out, keep + mlen);
    if (st == TW_OK)
        st = tw_buf_append(out, s, keep);
    if (st == TW_OK)
        st = tw_buf_append(out, TW_TRUNCATED_MARKER, mlen);
    if (st == TW_OK && truncated)
        *truncated = true;
    return st;
}

tw_status tw_shim_truncate_tool_outputs(tw_request *r, size_t max, tw_diag_list *warnings)
{
    if (max == 0)
        max = TW_DEFAULT_MAX_TOOL_OUTPUT_BYTES;
    for (size_t i = 0; i < r->nmessages; i++) {
        tw_message *m = &r->messages[i];
        if (m->role != TW_ROLE_TOOL || m->content.len <= max)
            continue;
        tw_buf nb = {0};
        nb.max = m->content.max;
        bool cut = false;
        tw_status st = tw_shim_truncate(m->content.data, m->content.len, max, &nb, &cut);
        if (st != TW_OK) {
            tw_buf_free(&nb);
            return st;
        }
        size_t was = m->content.len;
        tw_buf_free(&m->content);
        m->content = nb;
        if (warnings) {
            st = tw_diag_addf(warnings, TW_D_OUTPUT_TRUNCATED, -1,
                              "messages[%zu].content: tool output of %zu bytes cut to %zu", i, was,
                              m->content.len);
            if (st != TW_OK)
                return st;
        }
    }
    return TW_OK;
}

/* ===================== the pseudo-tool `parallel` ===================== */

/* The elements of a wrapper's tool_uses when every one is {recipient_name, parameters{}}. */
static int wrapped_count(const tw_call *c)
{
    if (!c->name || strcmp(c->name, "parallel") != 0 || !cJSON_IsObject(c->arguments) ||
        cJSON_GetArraySize(c->arguments) != 1)
        return -1;
    const cJSON *uses = cJSON_GetObjectItemCaseSensitive(c->arguments, "tool_uses");
    if (!cJSON_IsArray(uses) || !uses->child)
        return -1;
    int n = 0;
    for (const cJSON *u = uses->child; u; u = u->next, n++) {
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(u, "recipient_name");
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(u, "parameters");
        if (!cJSON_IsString(r) || !cJSON_IsObject(p))
            return -1;
        const char *name = r->valuestring;
        if (strncmp(name, "functions.", 10) == 0)
            name += 10;
        if (!name[0])
            return -1;
    }
    return n;
}

/* An id not among calls[0, n) (the calls made so far) nor the message's own. */
static char *free_id(const tw_call *calls, size_t n, const tw_message *m, const char *base, int k)
{
    size_t len = strlen(base) + 48;
    char *id = tw_malloc(len);
    if (!id)
        return NULL;
    for (unsigned long s = 1;; s++) {
        if (s == 1)
            snprintf(id, len, "%s_%d", base, k);
        else
            snprintf(id, len, "%s_%d__%lu", base, k, s);
        bool taken = false;
        for (size_t i = 0; !taken && i < n; i++)
            taken = calls[i].id && strcmp(calls[i].id, id) == 0;
        for (size_t i = 0; !taken && i < m->ncalls; i++)
            taken = m->calls[i].id && strcmp(m->calls[i].id, id) == 0;
        if (!taken)
            return id;
    }
}

tw_status tw_shim_unwrap_parallel(tw_message *m, const tw_limits *limits, tw_diag_list *warnings)
{
    tw_limits l;
    tw_limits_resolve(&l, limits);
    size_t total = 0;
    bool any = false;
    for (size_t i = 0; i < m->ncalls; i++) {
        int k = wrapped_count(&m->calls[i]);
        any |= k > 0;
        total += k > 0 ? (size_t)k : 1;
    }
    if (!any || total > l.max_calls)
        return TW_OK;
    tw_call *out = tw_calloc(total, sizeof *out);
    if (!out)
        return TW_ERR_NOMEM;
    /* build the new list first (ids and names copied), so a failure changes nothing */
    size_t n = 0;
    tw_status st = TW_OK;
    for (size_t i = 0; st == TW_OK && i < m->ncalls; i++) {
        const tw_call *c = &m->calls[i];
        if (wrapped_count(c) <= 0) {
            n++; /* moved below, once nothing can fail */
            continue;
        }
        const cJSON *uses = cJSON_GetObjectItemCaseSensitive(c->arguments, "tool_uses");
        int k = 1;
        for (const cJSON *u = uses->child; st == TW_OK && u; u = u->next, k++) {
            const char *name = cJSON_GetObjectItemCaseSensitive(u, "recipient_name")->valuestring;
            if (strncmp(name, "functions.", 10) == 0)
                name += 10;
            tw_call *nc = &out[n];
            nc->offset = c->offset;
            nc->name = tw_strdup(name);
            nc->id = free_id(out, n, m, c->id ? c->id : "call", k);
            if (!nc->name || !nc->id)
                st = TW_ERR_NOMEM;
            n++;
        }
    }
    if (st != TW_OK) {
        for (size_t i = 0; i < n; i++) { /* only what was made here: the rest is zero */
            tw_free(out[i].name);
            tw_free(out[i].id);
        }
        tw_free(out);
        return st;
    }
    /* move: the parameters objects out of the wrappers, the other calls as they are */
    n = 0;
    for (size_t i = 0; i < m->ncalls; i++) {
        tw_call *c = &m->calls[i];
        int k = wrapped_count(c);
        if (k <= 0) {
            out[n++] = *c;
            memset(c, 0, sizeof *c);
            continue;
        }
        cJSON *uses = cJSON_GetObjectItemCaseSensitive(c->arguments, "tool_uses");
        for (cJSON *u = uses->child; u; u = u->next)
            out[n++].arguments = cJSON_DetachItemFromObjectCaseSensitive(u, "parameters");
        if (warnings && st == TW_OK)
            st = tw_diag_addf(warnings, TW_D_PARALLEL_WRAPPER, c->offset,
                              "call %.60s to 'parallel' unwrapped into %d calls",
                              c->id ? c->id : "", k);
        tw_call_free(c);
    }
    tw_free(m->calls);
    m->calls = out;
    m->ncalls = m->cap_calls = total;
    return st;
}
