/*
 * Conformance fixtures: load, validate, give typed views (fixture.h).
 *
 * Validation follows fixtures/fixture.schema.json rule for rule. A fixture
 * that breaks a rule is reported as "FILE:LINE:COL: PATH: what was
 * expected", where LINE:COL is the offending value (or key) in the source
 * text. The parsed tree does not remember positions, so the position is
 * found again from the JSON path with a small locator that walks the source
 * bytes (the tree came from those bytes, so they are valid JSON).
 */
#include "fixture_int.h"
#include "names.h"
#include "toolwire/registry.h"

/* ===================== locating a JSON path in the source ===================== */

static size_t skip_ws(const char *s, size_t len, size_t i)
{
    while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    return i;
}

/* s[*i] is '"'; on success *i is one past the closing quote. */
static bool skip_string(const char *s, size_t len, size_t *i)
{
    size_t p = *i + 1;
    while (p < len) {
        if (s[p] == '\\')
            p += 2;
        else if (s[p] == '"') {
            *i = p + 1;
            return true;
        } else
            p++;
    }
    return false;
}

static bool skip_value(const char *s, size_t len, size_t *i)
{
    size_t p = *i;
    if (p >= len)
        return false;
    if (s[p] == '"')
        return skip_string(s, len, i);
    if (s[p] == '{' || s[p] == '[') {
        tw_jscan sc;
        memset(&sc, 0, sizeof sc);
        sc.max_depth = TW_DEPTH_HARD_MAX;
        size_t used = 0;
        if (tw_jscan_feed(&sc, s + p, len - p, &used) != TW_JSCAN_DONE)
            return false;
        *i = p + used;
        return true;
    }
    while (p < len && s[p] != ',' && s[p] != '}' && s[p] != ']' && s[p] != ' ' && s[p] != '\t' &&
           s[p] != '\n' && s[p] != '\r')
        p++;
    *i = p;
    return true;
}

/* Does the raw key literal s[a, b) (quotes included) spell `key`? */
static bool key_equals(const char *s, size_t a, size_t b, const char *key, size_t klen)
{
    if (b - a < 2)
        return false;
    const char *raw = s + a + 1;
    size_t rlen = b - a - 2;
    if (!memchr(raw, '\\', rlen))
        return rlen == klen && memcmp(raw, key, klen) == 0;
    cJSON *v = cJSON_ParseWithLength(s + a, b - a);
    bool eq = cJSON_IsString(v) && strlen(v->valuestring) == klen &&
              memcmp(v->valuestring, key, klen) == 0;
    cJSON_Delete(v);
    return eq;
}

/*
 * Byte offset of the value at `jpath` ("exchanges[0].request.path", "" for
 * the root). With at_key the offset of the last member's key is given
 * instead. When the path cannot be followed to its end, the offset of the
 * deepest value reached is given: a position is always returned.
 */
static size_t locate(const char *s, size_t len, const char *jpath, bool at_key)
{
    size_t i = skip_ws(s, len, 0);
    size_t best = i;
    const char *p = jpath;
    while (*p) {
        if (*p == '.')
            p++;
        if (*p == '[') {
            char *end = NULL;
            unsigned long want = strtoul(p + 1, &end, 10);
            if (!end || *end != ']' || i >= len || s[i] != '[')
                return best;
            p = end + 1;
            i = skip_ws(s, len, i + 1);
            unsigned long k = 0;
            for (;;) {
                if (i >= len || s[i] == ']')
                    return best;
                if (k == want)
                    break;
                if (!skip_value(s, len, &i))
                    return best;
                i = skip_ws(s, len, i);
                if (i < len && s[i] == ',')
                    i = skip_ws(s, len, i + 1);
                k++;
            }
            best = i;
            continue;
        }
        size_t klen = strcspn(p, ".[");
        if (i >= len || s[i] != '{')
            return best;
        i = skip_ws(s, len, i + 1);
        bool found = false;
        while (i < len && s[i] == '"') {
            size_t ka = i;
            if (!skip_string(s, len, &i))
                return best;
            size_t kb = i;
            i = skip_ws(s, len, i);
            if (i >= len || s[i] != ':')
                return best;
            i = skip_ws(s, len, i + 1);
            if (key_equals(s, ka, kb, p, klen)) {
                found = true;
                p += klen;
                best = (at_key && !*p) ? ka : i;
                break;
            }
            if (!skip_value(s, len, &i))
                return best;
            i = skip_ws(s, len, i);
            if (i < len && s[i] == ',')
                i = skip_ws(s, len, i + 1);
        }
        if (!found)
            return best;
    }
    return best;
}

/* ===================== validation context ===================== */

/* Append ", name" (or "name" first) to list[0, cap) at *used. When it does
 * not fit, end the list with ", ..." so that a cut list says so; returns
 * false then. */
static bool list_add(char *list, size_t cap, size_t *used, const char *name)
{
    static const char more[] = ", ...";
    int w = snprintf(list + *used, cap - *used, "%s%s", *used ? ", " : "", name);
    if (w >= 0 && (size_t)w < cap - *used - (sizeof more - 1)) {
        *used += (size_t)w;
        return true;
    }
    snprintf(list + *used, cap - *used, "%s", more);
    *used += strlen(list + *used);
    return false;
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
tw_status tw_fix_fail_at(vctx *c, const char *jpath, bool at_key, const char *fmt, ...)
{
    if (!c->err)
        return TW_ERR_INVALID;
    size_t off = locate(c->src, c->len, jpath, at_key);
    size_t line, col;
    tw_line_col(c->src, c->len, off, &line, &col);
    char msg[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (*jpath)
        tw_error_file(c->err, TW_ERR_INVALID, (int64_t)off, jpath, "%s:%zu:%zu: %s: %s", c->file, line,
                      col, jpath, msg);
    else
        tw_error_file(c->err, TW_ERR_INVALID, (int64_t)off, "", "%s:%zu:%zu: %s", c->file, line, col,
                      msg);
    return TW_ERR_INVALID;
}

const char *tw_fix_kind_of(const cJSON *v)
{
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsBool(v))
        return "a boolean";
    if (cJSON_IsNull(v))
        return "null";
    if (cJSON_IsArray(v))
        return "an array";
    return "an object";
}

/* path + "." + key (or "[i]") into a fixed buffer. */
void tw_fix_sub_key(char *out, size_t n, const char *path, const char *key)
{
    int w = snprintf(out, n, "%s%s%s", path, *path ? "." : "", key);
    if (w < 0 && n)
        out[0] = '\0';
}

void tw_fix_sub_idx(char *out, size_t n, const char *path, size_t i)
{
    int w = snprintf(out, n, "%s[%zu]", path, i);
    if (w < 0 && n)
        out[0] = '\0';
}

/* Refuse members not in `allowed` (NULL-terminated). Keys starting with
 * "x-" are extensions and always allowed. */
tw_status tw_fix_only_keys(vctx *c, const cJSON *obj, const char *path, const char *const *allowed)
{
    for (const cJSON *m = obj->child; m; m = m->next) {
        if (strncmp(m->string, "x-", 2) == 0)
            continue;
        bool ok = false;
        for (const char *const *a = allowed; *a && !ok; a++)
            ok = strcmp(*a, m->string) == 0;
        if (!ok) {
            char list[1024] = "";
            size_t used = 0;
            for (const char *const *a = allowed; *a; a++)
                if (!list_add(list, sizeof list, &used, *a))
                    break;
            char kp[TW_JP];
            tw_fix_sub_key(kp, sizeof kp, path, m->string);
            return tw_fix_fail_at(c, kp, true, "unknown key (expected one of: %s)", list);
        }
    }
    const char *dup = tw_json_duplicate_key(obj);
    if (dup) {
        char kp[TW_JP];
        tw_fix_sub_key(kp, sizeof kp, path, dup);
        return tw_fix_fail_at(c, kp, true, "duplicate key");
    }
    return TW_OK;
}

tw_status tw_fix_want_object(vctx *c, const cJSON *v, const char *path)
{
    if (!cJSON_IsObject(v))
        return tw_fix_fail_at(c, path, false, "expected an object, got %s", tw_fix_kind_of(v));
    return TW_OK;
}

/* A string member. required: missing is an error; nonempty: "" is an error. */
tw_status tw_fix_get_str(vctx *c, const cJSON *obj, const char *path, const char *key,
                         bool required, bool nonempty, const char **out)
{
    *out = NULL;
    const cJSON *v = tw_json_get(obj, key);
    if (!v) {
        if (required)
            return tw_fix_fail_at(c, path, false, "missing required key '%s'", key);
        return TW_OK;
    }
    char kp[TW_JP];
    tw_fix_sub_key(kp, sizeof kp, path, key);
    if (!cJSON_IsString(v))
        return tw_fix_fail_at(c, kp, false, "expected a string, got %s", tw_fix_kind_of(v));
    if (nonempty && !v->valuestring[0])
        return tw_fix_fail_at(c, kp, false, "expected a non-empty string");
    *out = v->valuestring;
    return TW_OK;
}

tw_status tw_fix_get_int(vctx *c, const cJSON *obj, const char *path, const char *key, long lo,
                         long hi, bool required, long *out, bool *present)
{
    const cJSON *v = tw_json_get(obj, key);
    if (present)
        *present = v != NULL;
    if (!v) {
        if (required)
            return tw_fix_fail_at(c, path, false, "missing required key '%s'", key);
        return TW_OK;
    }
    char kp[TW_JP];
    tw_fix_sub_key(kp, sizeof kp, path, key);
    if (!cJSON_IsNumber(v))
        return tw_fix_fail_at(c, kp, false, "expected an integer from %ld to %ld, got %s", lo, hi,
                       tw_fix_kind_of(v));
    double d = v->valuedouble;
    bool integral = d > -9e15 && d < 9e15 && d == (double)(long long)d;
    if (!integral)
        return tw_fix_fail_at(c, kp, false, "expected an integer from %ld to %ld, got a fraction or a huge number",
                       lo, hi);
    if (d < (double)lo || d > (double)hi)
        return tw_fix_fail_at(c, kp, false, "expected an integer from %ld to %ld, got %lld", lo, hi,
                       (long long)d);
    *out = (long)v->valuedouble;
    return TW_OK;
}

/* ===================== the fixture parts ===================== */

static const char *const backends[] = {"openai", "anthropic", "hermes", "vllm-native", "proxy",
                                       "gemini", "qwen3-coder", NULL};
static const char *const sources[] = {"hand-made", "recorded", "imported", NULL};

static bool in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return true;
    return false;
}

static tw_status read_headers(vctx *c, const cJSON *obj, const char *path, tw_kv **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    const cJSON *h = tw_json_get(obj, "headers");
    if (!h)
        return TW_OK;
    char hp[TW_JP];
    tw_fix_sub_key(hp, sizeof hp, path, "headers");
    if (tw_fix_want_object(c, h, hp) != TW_OK)
        return TW_ERR_INVALID;
    size_t cnt = (size_t)cJSON_GetArraySize(h);
    if (cnt > 1024)
        return tw_fix_fail_at(c, hp, false, "at most 1024 headers, got %zu", cnt);
    if (cnt == 0)
        return TW_OK;
    tw_kv *kv = calloc(cnt, sizeof *kv);
    if (!kv)
        return tw_fix_fail_at(c, hp, false, "out of memory");
    size_t i = 0;
    for (const cJSON *m = h->child; m; m = m->next, i++) {
        char kp[TW_JP];
        tw_fix_sub_key(kp, sizeof kp, hp, m->string);
        if (!m->string[0] || strpbrk(m->string, " \t\r\n:")) {
            free(kv);
            return tw_fix_fail_at(c, kp, true, "a header name must be a non-empty token");
        }
        if (!cJSON_IsString(m)) {
            free(kv);
            return tw_fix_fail_at(c, kp, false, "expected a string, got %s", tw_fix_kind_of(m));
        }
        if (strpbrk(m->valuestring, "\r\n")) {
            free(kv);
            return tw_fix_fail_at(c, kp, false, "a header value must not hold CR or LF");
        }
        kv[i].name = m->string;
        kv[i].value = m->valuestring;
    }
    *out = kv;
    *n = cnt;
    return TW_OK;
}

static tw_status read_request(vctx *c, const cJSON *j, const char *path, tw_fx_request *r)
{
    static const char *const keys[] = {"method", "path", "headers", "body", NULL};
    if (tw_fix_want_object(c, j, path) != TW_OK || tw_fix_only_keys(c, j, path, keys) != TW_OK)
        return TW_ERR_INVALID;
    if (tw_fix_get_str(c, j, path, "method", true, true, &r->method) != TW_OK)
        return TW_ERR_INVALID;
    for (const char *m = r->method; *m; m++)
        if (*m < 'A' || *m > 'Z') {
            char kp[TW_JP];
            tw_fix_sub_key(kp, sizeof kp, path, "method");
            return tw_fix_fail_at(c, kp, false, "expected an upper-case HTTP method, got \"%s\"",
                           r->method);
        }
    if (tw_fix_get_str(c, j, path, "path", true, true, &r->path) != TW_OK)
        return TW_ERR_INVALID;
    if (r->path[0] != '/') {
        char kp[TW_JP];
        tw_fix_sub_key(kp, sizeof kp, path, "path");
        return tw_fix_fail_at(c, kp, false, "expected a path starting with '/', got \"%s\"", r->path);
    }
    if (read_headers(c, j, path, &r->headers, &r->nheaders) != TW_OK)
        return TW_ERR_INVALID;
    r->body = tw_json_get(j, "body");
    return TW_OK;
}

/* An event's data given as a JSON object or array is replaced in the tree by
 * its compact serialisation, so every event's data is a string. */
static tw_status read_events(vctx *c, cJSON *arr, const char *path, tw_fx_response *r)
{
    static const char *const keys[] = {"event", "data", "id", "delay_ms", NULL};
    if (!cJSON_IsArray(arr))
        return tw_fix_fail_at(c, path, false, "expected an array, got %s", tw_fix_kind_of(arr));
    size_t n = (size_t)cJSON_GetArraySize(arr);
    if (n == 0)
        return tw_fix_fail_at(c, path, false, "expected at least one event");
    r->events = calloc(n, sizeof *r->events);
    if (!r->events)
        return tw_fix_fail_at(c, path, false, "out of memory");
    r->nevents = n;
    size_t i = 0;
    for (cJSON *e = arr->child; e; e = e->next, i++) {
        char ep[TW_JP];
        tw_fix_sub_idx(ep, sizeof ep, path, i);
        if (tw_fix_want_object(c, e, ep) != TW_OK || tw_fix_only_keys(c, e, ep, keys) != TW_OK)
            return TW_ERR_INVALID;
        tw_fx_sse *ev = &r->events[i];
        if (tw_fix_get_str(c, e, ep, "event", false, true, &ev->event) != TW_OK ||
            tw_fix_get_str(c, e, ep, "id", false, false, &ev->id) != TW_OK)
            return TW_ERR_INVALID;
        if (ev->event && strpbrk(ev->event, "\r\n")) {
            char kp[TW_JP];
            tw_fix_sub_key(kp, sizeof kp, ep, "event");
            return tw_fix_fail_at(c, kp, false, "an event name must not hold CR or LF");
        }
        cJSON *d = cJSON_GetObjectItemCaseSensitive(e, "data");
        if (!d)
            return tw_fix_fail_at(c, ep, false, "missing required key 'data'");
        if (cJSON_IsObject(d) || cJSON_IsArray(d)) {
            char *s = tw_json_print(d, NULL);
            cJSON *str = s ? cJSON_CreateString(s) : NULL;
            free(s);
            if (!str)
                return tw_fix_fail_at(c, ep, false, "out of memory");
            cJSON_ReplaceItemViaPointer(e, d, str);
            d = str;
        } else if (!cJSON_IsString(d)) {
            char kp[TW_JP];
            tw_fix_sub_key(kp, sizeof kp, ep, "data");
            return tw_fix_fail_at(c, kp, false, "expected a string, an object or an array, got %s",
                           tw_fix_kind_of(d));
        }
        ev->data = d->valuestring;
        if (tw_fix_get_int(c, e, ep, "delay_ms", 0, 600000, false, &ev->delay_ms, NULL) != TW_OK)
            return TW_ERR_INVALID;
    }
    return TW_OK;
}

static tw_status read_response(vctx *c, cJSON *j, const char *path, tw_fx_response *r)
{
    static const char *const keys[] = {"status", "headers", "body", "body_text", "events", NULL};
    if (tw_fix_want_object(c, j, path) != TW_OK || tw_fix_only_keys(c, j, path, keys) != TW_OK)
        return TW_ERR_INVALID;
    long status = 0;
    if (tw_fix_get_int(c, j, path, "status", 100, 599, true, &status, NULL) != TW_OK)
        return TW_ERR_INVALID;
    r->status = (int)status;
    if (read_headers(c, j, path, &r->headers, &r->nheaders) != TW_OK)
        return TW_ERR_INVALID;
    r->body = tw_json_get(j, "body");
    if (tw_fix_get_str(c, j, path, "body_text", false, false, &r->body_text) != TW_OK)
        return TW_ERR_INVALID;
    cJSON *ev = cJSON_GetObjectItemCaseSensitive(j, "events");
    int kinds = (r->body != NULL) + (r->body_text != NULL) + (ev != NULL);
    if (kinds > 1) {
        const char *second = ev ? "events" : "body_text";
        char kp[TW_JP];
        tw_fix_sub_key(kp, sizeof kp, path, second);
        return tw_fix_fail_at(c, kp, true, "a response has at most one of 'body', 'body_text' and 'events'");
    }
    if (ev) {
        char kp[TW_JP];
        tw_fix_sub_key(kp, sizeof kp, path, "events");
        if (read_events(c, ev, kp, r) != TW_OK)
            return TW_ERR_INVALID;
        r->stream = true;
    }
    return TW_OK;
}

static tw_status read_decode(vctx *c, const cJSON *j, const char *path, tw_fx_exchange *x)
{
    static const char *const keys[] = {"format", "options", NULL};
    if (tw_fix_want_object(c, j, path) != TW_OK || tw_fix_only_keys(c, j, path, keys) != TW_OK)
        return TW_ERR_INVALID;
    if (tw_fix_get_str(c, j, path, "format", true, true, &x->decode_format) != TW_OK)
        return TW_ERR_INVALID;
    if (!tw_format_find(x->decode_format)) {
        char list[1024] = "";
        size_t used = 0;
        const char *names[128];
        size_t n = 0;
        for (const tw_format_ops *const *f = tw_formats(); *f; f++) {
            if (n < sizeof names / sizeof names[0])
                names[n++] = (*f)->name;
            if (!list_add(list, sizeof list, &used, (*f)->name))
                break;
        }
        const char *near = tw_nearest_name(x->decode_format, names, n);
        char kp[TW_JP];
        tw_fix_sub_key(kp, sizeof kp, path, "format");
        return tw_fix_fail_at(c, kp, false, "unknown format \"%s\" (expected one of: %s%s%s%s)",
                       x->decode_format, list, near ? "; did you mean \"" : "", near ? near : "",
                       near ? "\"?" : "");
    }
    const cJSON *opts = tw_json_get(j, "options");
    if (!opts)
        return TW_OK;
    char op[TW_JP];
    tw_fix_sub_key(op, sizeof op, path, "options");
    if (tw_fix_want_object(c, opts, op) != TW_OK)
        return TW_ERR_INVALID;
    /* One option at a time, so the message can point at the bad one. */
    for (cJSON *m = opts->child; m; m = m->next) {
        cJSON *one = cJSON_CreateObject();
        if (!one || !cJSON_AddItemReferenceToObject(one, m->string, m)) {
            cJSON_Delete(one);
            return tw_fix_fail_at(c, op, false, "out of memory");
        }
        tw_opts_holder h;
        tw_opts_holder_init(&h);
        tw_error ie = {.offset = -1};
        bool ok = tw_opts_from_json(&h, one, &ie);
        const char *inner = ie.message;
        tw_opts_holder_free(&h);
        cJSON_Delete(one);
        if (!ok) {
            char kp[TW_JP];
            tw_fix_sub_key(kp, sizeof kp, op, m->string);
            return tw_fix_fail_at(c, kp, strncmp(inner, "unknown", 7) == 0, "%s", inner);
        }
    }
    x->decode_options = opts;
    return TW_OK;
}

static tw_status read_exchange(vctx *c, cJSON *j, const char *path, tw_fx_exchange *x)
{
    static const char *const keys[] = {"request", "response", "model_text", "model_passes",
                                       "decode", "expect", "faults", NULL};
    if (tw_fix_want_object(c, j, path) != TW_OK || tw_fix_only_keys(c, j, path, keys) != TW_OK)
        return TW_ERR_INVALID;
    char sp[TW_JP];
    const cJSON *req = tw_json_get(j, "request");
    if (!req)
        return tw_fix_fail_at(c, path, false, "missing required key 'request'");
    tw_fix_sub_key(sp, sizeof sp, path, "request");
    if (read_request(c, req, sp, &x->req) != TW_OK)
        return TW_ERR_INVALID;
    cJSON *resp = cJSON_GetObjectItemCaseSensitive(j, "response");
    if (resp) {
        tw_fix_sub_key(sp, sizeof sp, path, "response");
        if (read_response(c, resp, sp, &x->resp) != TW_OK)
            return TW_ERR_INVALID;
        x->has_response = true;
    }
    if (tw_fix_get_str(c, j, path, "model_text", false, false, &x->model_text) != TW_OK)
        return TW_ERR_INVALID;
    const cJSON *mp = tw_json_get(j, "model_passes");
    if (mp) {
        tw_fix_sub_key(sp, sizeof sp, path, "model_passes");
        if (x->model_text)
            return tw_fix_fail_at(c, sp, true, "an exchange has 'model_text' or 'model_passes', not both");
        static const char *const pkeys[] = {"pass1", "pass2", NULL};
        if (tw_fix_want_object(c, mp, sp) != TW_OK || tw_fix_only_keys(c, mp, sp, pkeys) != TW_OK ||
            tw_fix_get_str(c, mp, sp, "pass1", true, false, &x->model_pass1) != TW_OK ||
            tw_fix_get_str(c, mp, sp, "pass2", true, false, &x->model_pass2) != TW_OK)
            return TW_ERR_INVALID;
    }
    /* neither: a live exchange, answered by the server under test */
    const cJSON *d = tw_json_get(j, "decode");
    if (d) {
        tw_fix_sub_key(sp, sizeof sp, path, "decode");
        if (read_decode(c, d, sp, x) != TW_OK)
            return TW_ERR_INVALID;
    }
    const cJSON *e = tw_json_get(j, "expect");
    if (e) {
        tw_fix_sub_key(sp, sizeof sp, path, "expect");
        if (tw_fix_read_expect(c, e, sp, x) != TW_OK)
            return TW_ERR_INVALID;
        if (x->expect_result && !x->decode_format) {
            tw_fix_sub_key(sp, sizeof sp, path, "expect.result");
            return tw_fix_fail_at(c, sp, true, "an expected result needs 'decode' (which decoder judges it)");
        }
    }
    const cJSON *f = tw_json_get(j, "faults");
    if (f) {
        tw_fix_sub_key(sp, sizeof sp, path, "faults");
        if (tw_fix_read_faults(c, f, sp, x) != TW_OK)
            return TW_ERR_INVALID;
    }
    return TW_OK;
}

static tw_status read_provenance(vctx *c, const cJSON *j)
{
    static const char *const keys[] = {"source", "from", "recorded_at", "license", NULL};
    if (tw_fix_want_object(c, j, "provenance") != TW_OK || tw_fix_only_keys(c, j, "provenance", keys) != TW_OK)
        return TW_ERR_INVALID;
    const char *src = NULL, *s = NULL;
    if (tw_fix_get_str(c, j, "provenance", "source", true, true, &src) != TW_OK)
        return TW_ERR_INVALID;
    if (!in_list(src, sources))
        return tw_fix_fail_at(c, "provenance.source", false,
                       "expected \"hand-made\", \"recorded\" or \"imported\", got \"%s\"", src);
    if (tw_fix_get_str(c, j, "provenance", "from", false, true, &s) != TW_OK ||
        tw_fix_get_str(c, j, "provenance", "recorded_at", false, true, &s) != TW_OK ||
        tw_fix_get_str(c, j, "provenance", "license", false, true, &s) != TW_OK)
        return TW_ERR_INVALID;
    if (strcmp(src, "hand-made") != 0 && !tw_json_get(j, "from"))
        return tw_fix_fail_at(c, "provenance", false,
                       "missing key 'from' (a fixture of source \"%s\" names its origin)", src);
    return TW_OK;
}

static tw_status validate(vctx *c, tw_fixture *f)
{
    static const char *const keys[] = {"fixture_version", "name", "description", "backend", "tags",
                                       "provenance", "exchanges", NULL};
    cJSON *root = f->root;
    if (tw_fix_want_object(c, root, "") != TW_OK || tw_fix_only_keys(c, root, "", keys) != TW_OK)
        return TW_ERR_INVALID;
    long ver = 0;
    if (tw_fix_get_int(c, root, "", "fixture_version", 1, 1000, true, &ver, NULL) != TW_OK)
        return TW_ERR_INVALID;
    if (ver != TW_FIXTURE_VERSION)
        return tw_fix_fail_at(c, "fixture_version", false, "expected %d, got %ld (unsupported version)",
                       TW_FIXTURE_VERSION, ver);
    if (tw_fix_get_str(c, root, "", "name", true, true, &f->name) != TW_OK ||
        tw_fix_get_str(c, root, "", "description", true, true, &f->description) != TW_OK ||
        tw_fix_get_str(c, root, "", "backend", true, true, &f->backend) != TW_OK)
        return TW_ERR_INVALID;
    if (!in_list(f->backend, backends))
        return tw_fix_fail_at(c, "backend", false,
                       "expected one of \"openai\", \"anthropic\", \"hermes\", \"vllm-native\", "
                       "\"proxy\", \"gemini\", \"qwen3-coder\", got \"%s\"",
                       f->backend);
    const cJSON *tags = tw_json_get(root, "tags");
    if (tags) {
        if (!cJSON_IsArray(tags))
            return tw_fix_fail_at(c, "tags", false, "expected an array of strings, got %s", tw_fix_kind_of(tags));
        size_t n = (size_t)cJSON_GetArraySize(tags);
        if (n > TW_FIXTURE_MAX_TAGS)
            return tw_fix_fail_at(c, "tags", false, "at most %d tags, got %zu", TW_FIXTURE_MAX_TAGS, n);
        if (n) {
            f->tags = calloc(n, sizeof *f->tags);
            if (!f->tags)
                return tw_fix_fail_at(c, "tags", false, "out of memory");
        }
        size_t i = 0;
        for (const cJSON *t = tags->child; t; t = t->next, i++) {
            char tp[TW_JP];
            tw_fix_sub_idx(tp, sizeof tp, "tags", i);
            if (!cJSON_IsString(t))
                return tw_fix_fail_at(c, tp, false, "expected a tag string, got %s", tw_fix_kind_of(t));
            if (!tw_tag_valid(t->valuestring))
                return tw_fix_fail_at(c, tp, false,
                               "expected a tag of 1 to %d characters from [a-z0-9-], got \"%.80s\"",
                               TW_FIXTURE_MAX_TAG_LEN, t->valuestring);
            for (size_t k = 0; k < i; k++)
                if (strcmp(f->tags[k], t->valuestring) == 0)
                    return tw_fix_fail_at(c, tp, false, "tag \"%s\" is listed twice (first at tags[%zu])",
                                   t->valuestring, k);
            f->tags[i] = t->valuestring;
            f->ntags = i + 1;
        }
    }
    f->provenance = tw_json_get(root, "provenance");
    if (!f->provenance)
        return tw_fix_fail_at(c, "", false, "missing required key 'provenance'");
    if (read_provenance(c, f->provenance) != TW_OK)
        return TW_ERR_INVALID;
    cJSON *ex = cJSON_GetObjectItemCaseSensitive(root, "exchanges");
    if (!ex)
        return tw_fix_fail_at(c, "", false, "missing required key 'exchanges'");
    if (!cJSON_IsArray(ex))
        return tw_fix_fail_at(c, "exchanges", false, "expected an array, got %s", tw_fix_kind_of(ex));
    size_t n = (size_t)cJSON_GetArraySize(ex);
    if (n == 0)
        return tw_fix_fail_at(c, "exchanges", false, "expected at least one exchange");
    if (n > c->lim.max_messages)
        return tw_fix_fail_at(c, "exchanges", false, "at most %zu exchanges (max_messages), got %zu",
                       c->lim.max_messages, n);
    f->exchanges = calloc(n, sizeof *f->exchanges);
    if (!f->exchanges)
        return tw_fix_fail_at(c, "exchanges", false, "out of memory");
    f->nexchanges = n;
    size_t i = 0;
    for (cJSON *x = ex->child; x; x = x->next, i++) {
        char xp[TW_JP];
        tw_fix_sub_idx(xp, sizeof xp, "exchanges", i);
        if (read_exchange(c, x, xp, &f->exchanges[i]) != TW_OK)
            return TW_ERR_INVALID;
    }
    /* what refers to other exchanges: agreement and call-id placeholders */
    for (size_t k = 0; k < n; k++) {
        tw_fx_exchange *x = &f->exchanges[k];
        if (x->decode_format && tw_decoder_is_text(x->decode_format))
            x->model_format = x->decode_format;
        else if (strcmp(f->backend, "qwen3-coder") == 0)
            x->model_format = "qwen3-coder";
        char jp[TW_JP];
        long aw = x->live.json ? x->live.agrees_with : -1;
        if (aw >= 0 && ((size_t)aw >= n || (size_t)aw == k)) {
            snprintf(jp, sizeof jp, "exchanges[%zu].expect.live.agrees_with", k);
            if (n == 1)
                return tw_fix_fail_at(c, jp, false, "expected the index of another exchange, but the fixture "
                                             "has only this one");
            return tw_fix_fail_at(c, jp, false, "expected the index of another exchange of this fixture "
                                         "(0 to %zu, not %zu), got %ld", n - 1, k, aw);
        }
        if (x->req.body) {
            snprintf(jp, sizeof jp, "exchanges[%zu].request.body", k);
            if (tw_fix_walk_placeholders(c, x->req.body, jp, k, &x->nplaceholders, 0) != TW_OK)
                return TW_ERR_INVALID;
        }
    }
    return TW_OK;
}

/* ===================== public entry points ===================== */

tw_status tw_fixture_parse(const char *buf, size_t len, const char *path, const tw_limits *limits,
                           tw_fixture *out, tw_error *err)
{
    memset(out, 0, sizeof *out);
    tw_error_clear(err);
    vctx c = {buf, len, path ? path : "<fixture>", err, {0}};
    tw_limits_resolve(&c.lim, limits);
    if (len > c.lim.max_input_bytes) {
        tw_error_file(err, TW_ERR_LIMIT, -1, c.file, "%s: larger than %zu bytes (max_input_bytes)",
                      c.file, c.lim.max_input_bytes);
        return TW_ERR_LIMIT;
    }
    out->path = tw_strdup(c.file);
    if (!out->path)
        return TW_ERR_NOMEM;
    tw_error e;
    if (tw_json_parse(buf, len, c.lim.max_depth, &out->root, &e) != TW_OK) {
        size_t line, col;
        tw_line_col(buf, len, e.offset >= 0 ? (size_t)e.offset : 0, &line, &col);
        tw_error_file(err, TW_ERR_PARSE, e.offset, c.file, "%s:%zu:%zu: %s", c.file, line, col, e.message);
        tw_fixture_free(out);
        return TW_ERR_PARSE;
    }
    tw_status st = validate(&c, out);
    if (st != TW_OK)
        tw_fixture_free(out);
    return st;
}

tw_status tw_fixture_load(const char *path, const tw_limits *limits, tw_fixture *out, tw_error *err)
{
    memset(out, 0, sizeof *out);
    tw_limits l;
    tw_limits_resolve(&l, limits);
    size_t len = 0;
    char *buf = tw_read_file(path, l.max_input_bytes, &len, err);
    if (!buf)
        return TW_ERR_IO;
    tw_status st = tw_fixture_parse(buf, len, path, &l, out, err);
    free(buf);
    return st;
}

void tw_fixture_free(tw_fixture *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->nexchanges; i++) {
        tw_fx_exchange *x = &f->exchanges[i];
        free(x->req.headers);
        free(x->resp.headers);
        free(x->resp.events);
        free(x->expect_fail);
        free(x->live.tool_called);
    }
    free(f->exchanges);
    free(f->tags);
    free(f->path);
    cJSON_Delete(f->root);
    memset(f, 0, sizeof *f);
}

bool tw_fixture_has_tag(const tw_fixture *f, const char *tag)
{
    for (size_t i = 0; i < f->ntags; i++)
        if (strcmp(f->tags[i], tag) == 0)
            return true;
    return false;
}

bool tw_tag_valid(const char *tag)
{
    size_t n = strlen(tag);
    if (n < 1 || n > TW_FIXTURE_MAX_TAG_LEN)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((tag[i] >= 'a' && tag[i] <= 'z') || (tag[i] >= '0' && tag[i] <= '9') || tag[i] == '-'))
            return false;
    return true;
}

/* "[N]" at s: N (at most 6 digits) and the position after ']'. */
static const char *bracket_index(const char *s, size_t *out)
{
    if (*s != '[')
        return NULL;
    size_t v = 0, d = 0;
    for (s++; *s >= '0' && *s <= '9'; s++, d++) {
        if (d == 6)
            return NULL;
        v = v * 10 + (size_t)(*s - '0');
    }
    if (!d || *s != ']')
        return NULL;
    *out = v;
    return s + 1;
}

bool tw_call_id_placeholder(const char *s, size_t *exchange, size_t *call)
{
    size_t pl = strlen(TW_CALL_ID_PLACEHOLDER) - 1; /* "$call_id" */
    if (!s || strncmp(s, TW_CALL_ID_PLACEHOLDER, pl + 1) != 0)
        return false;
    const char *p = bracket_index(s + pl, exchange);
    if (!p)
        return false;
    *call = 0;
    if (*p == '[')
        p = bracket_index(p, call);
    return p && !*p;
}

const char *tw_kv_get(const tw_kv *kv, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (kv[i].name && strcasecmp(kv[i].name, name) == 0)
            return kv[i].value;
    return NULL;
}

tw_status tw_fixture_check_faults(const char *text, size_t len, const char *name, cJSON **out,
                                  tw_error *err)
{
    *out = NULL;
    tw_error_clear(err);
    vctx c = {text, len, name ? name : "faults", err, {0}};
    tw_limits_resolve(&c.lim, NULL);
    tw_error e;
    cJSON *j = NULL;
    if (tw_json_parse(text, len, 8, &j, &e) != TW_OK) {
        size_t line, col;
        tw_line_col(text, len, e.offset >= 0 ? (size_t)e.offset : 0, &line, &col);
        tw_error_file(err, TW_ERR_PARSE, e.offset, c.file, "%s:%zu:%zu: %s", c.file, line, col, e.message);
        return TW_ERR_PARSE;
    }
    tw_fx_exchange x;
    memset(&x, 0, sizeof x);
    if (tw_fix_read_faults(&c, j, "", &x) != TW_OK) {
        cJSON_Delete(j);
        return TW_ERR_INVALID;
    }
    *out = j;
    return TW_OK;
}

tw_status tw_json_locate(const char *buf, size_t len, const char *jpath, bool at_key,
                         size_t *line, size_t *col)
{
    size_t off = locate(buf, len, jpath ? jpath : "", at_key);
    tw_line_col(buf, len, off, line, col);
    return TW_OK;
}
