/*
 * The conformance checks (docs/checks.md). Structural checks read
 * the received bytes directly (JSON bodies, SSE events, chunk by chunk) so
 * that they can say where a rule broke; result-level comparisons use the
 * reference decoders when they are available.
 */
#include "checks_int.h"

/* ================================================================ catalog */

static const tw_check_def catalog[] = {
#define TW_CHECK_DEF_(name, id, sev, fam, rule)                                                    \
    {TW_CHK_##name, id, TW_SEV_##sev, TW_CHF_##fam,                                                \
     TW_CHF_##fam == TW_CHF_CLIENT || TW_CHF_##fam == TW_CHF_CLIENT_LIB, rule},
    TW_CHECK_CATALOG(TW_CHECK_DEF_)
    TW_CHECK_CATALOG_GEMINI(TW_CHECK_DEF_)
    TW_CHECK_CATALOG_QWEN(TW_CHECK_DEF_)
    TW_CHECK_CATALOG_SIGN(TW_CHECK_DEF_)
#undef TW_CHECK_DEF_
};
#define NCHECKS (sizeof catalog / sizeof catalog[0])
_Static_assert(NCHECKS == TW_CHK_COUNT, "one catalog entry per check id");

const tw_check_def *tw_checks_catalog(size_t *n)
{
    *n = NCHECKS;
    return catalog;
}

const tw_check_def *tw_check_def_of(tw_check_id c)
{
    return (size_t)c < NCHECKS ? &catalog[c] : NULL;
}

const char *tw_check_name(tw_check_id c)
{
    return (size_t)c < NCHECKS ? catalog[c].id : "";
}

int tw_check_index(const char *id)
{
    for (size_t i = 0; id && i < NCHECKS; i++)
        if (strcmp(catalog[i].id, id) == 0)
            return (int)i;
    return -1;
}

bool tw_check_from_name(const char *id, tw_check_id *out)
{
    int i = tw_check_index(id);
    if (i < 0)
        return false;
    *out = (tw_check_id)i;
    return true;
}

const tw_check_def *tw_check_find(const char *id)
{
    int i = tw_check_index(id);
    return i < 0 ? NULL : &catalog[i];
}

const char *tw_severity_name(tw_severity s)
{
    return s == TW_SEV_ERROR ? "error" : s == TW_SEV_WARN ? "warn" : "info";
}

const char *tw_verdict_name(tw_verdict v)
{
    return v == TW_V_PASS ? "pass" : v == TW_V_FAIL ? "fail" : "skip";
}

bool tw_verdict_from_name(const char *s, tw_verdict *out)
{
    if (!s)
        return false;
    if (strcmp(s, "pass") == 0)
        *out = TW_V_PASS;
    else if (strcmp(s, "fail") == 0)
        *out = TW_V_FAIL;
    else if (strcmp(s, "skip") == 0)
        *out = TW_V_SKIP;
    else
        return false;
    return true;
}

/* ================================================================ check sets */

/* The verdict with its evidence (owned unless `borrowed`) into the set. */
static void set_store(tw_check_set *s, const tw_check_def *d, tw_verdict v, int64_t offset, char *ev,
                      bool borrowed)
{
    for (size_t i = 0; i < s->len; i++) {
        if (s->items[i].check == d->chk) {
            if (!s->items[i].borrowed)
                free(s->items[i].evidence);
            s->items[i].verdict = v;
            s->items[i].offset = offset;
            s->items[i].evidence = ev;
            s->items[i].borrowed = borrowed;
            return;
        }
    }
    if (s->len == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 16;
        tw_check_result *ni = realloc(s->items, nc * sizeof *ni);
        if (!ni) {
            if (!borrowed)
                free(ev);
            return;
        }
        s->items = ni;
        s->cap = nc;
    }
    s->items[s->len++] = (tw_check_result){d->id, d->chk, v, offset, ev, borrowed};
}

/* Evidence longer than this is scrubbed and cut (tw_check_set_put). */
#define EVIDENCE_CAP 511

void tw_check_set_put_static(tw_check_set *s, tw_check_id id, tw_verdict v, int64_t offset,
                             const char *text)
{
    const tw_check_def *d = tw_check_def_of(id);
    if (!d)
        return;
    if (!text)
        text = "";
    /* a literal the secret set leaves as it is needs no copy of its own */
    if (strnlen(text, EVIDENCE_CAP + 1) <= EVIDENCE_CAP && tw_secret_static_clean(text)) {
        set_store(s, d, v, offset, (char *)text, true);
        return;
    }
    tw_check_set_put(s, id, v, offset, "%s", text);
}

void tw_check_set_put(tw_check_set *s, tw_check_id id, tw_verdict v, int64_t offset,
                      const char *fmt, ...)
{
    const tw_check_def *d = tw_check_def_of(id);
    if (!d)
        return;
    /* a format without conversions is its own text: a literal */
    if (fmt && !strchr(fmt, '%') && strnlen(fmt, EVIDENCE_CAP + 1) <= EVIDENCE_CAP &&
        tw_secret_static_clean(fmt)) {
        set_store(s, d, v, offset, (char *)fmt, true);
        return;
    }
    /* formatted whole, scrubbed, then cut to the evidence cap */
    char small[512] = "";
    char *ev = small;
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        int need = vsnprintf(small, sizeof small, fmt, ap);
        va_end(ap);
        if (need >= (int)sizeof small && (ev = malloc((size_t)need + 1)) != NULL) {
            va_start(ap, fmt);
            vsnprintf(ev, (size_t)need + 1, fmt, ap);
            va_end(ap);
        } else if (need >= (int)sizeof small) {
            ev = small;
        }
    }
    tw_buf clean = {0};
    tw_status sst = tw_secret_scrub(ev, strlen(ev), &clean, NULL);
    if (ev != small)
        free(ev);
    if (sst != TW_OK) {
        tw_buf_free(&clean);
        return;
    }
    if (clean.len > sizeof small - 1)
        clean.len = tw_excerpt_end(clean.data, clean.len, sizeof small - 1);
    /* the scrubbed buffer becomes the evidence (the scrubber leaves room for the NUL) */
    if (clean.data)
        clean.data[clean.len] = '\0';
    char *copy = tw_buf_take(&clean, NULL);
    if (!copy)
        return;
    set_store(s, d, v, offset, copy, false);
}

const tw_check_result *tw_check_set_get(const tw_check_set *s, tw_check_id id)
{
    for (size_t i = 0; i < s->len; i++)
        if (s->items[i].check == id)
            return &s->items[i];
    return NULL;
}

void tw_check_set_merge(tw_check_set *dst, const tw_check_set *src)
{
    for (size_t i = 0; i < src->len; i++)
        tw_check_set_put(dst, src->items[i].check, src->items[i].verdict, src->items[i].offset, "%s",
                         src->items[i].evidence);
}

void tw_check_set_fill(tw_check_set *s, bool client, const char *why)
{
    /* which checks have a verdict, read once */
    bool has[NCHECKS];
    memset(has, 0, sizeof has);
    for (size_t i = 0; i < s->len; i++)
        if ((size_t)s->items[i].check < NCHECKS)
            has[s->items[i].check] = true;
    for (size_t i = 0; i < NCHECKS; i++) {
        if (catalog[i].client != client || catalog[i].family == TW_CHF_CLIENT_LIB || has[i])
            continue;
        if (why && why[0])
            tw_check_set_put(s, catalog[i].chk, TW_V_SKIP, -1, "%s", why);
        else
            tw_check_set_put_static(s, catalog[i].chk, TW_V_SKIP, -1, "");
    }
}

static int cmp_result(const void *a, const void *b)
{
    tw_check_id ia = ((const tw_check_result *)a)->check;
    tw_check_id ib = ((const tw_check_result *)b)->check;
    return (ia > ib) - (ia < ib);
}

void tw_check_set_sort(tw_check_set *s)
{
    if (s->len > 1)
        qsort(s->items, s->len, sizeof *s->items, cmp_result);
}

void tw_check_set_free(tw_check_set *s)
{
    for (size_t i = 0; i < s->len; i++)
        if (!s->items[i].borrowed)
            free(s->items[i].evidence);
    free(s->items);
    memset(s, 0, sizeof *s);
}

void tw_chk_skip_ids(tw_check_set *out, const tw_check_id *ids, size_t n, const char *why)
{
    for (size_t i = 0; i < n; i++)
        if (!tw_check_set_get(out, ids[i]))
            tw_check_set_put_static(out, ids[i], TW_V_SKIP, -1, why);
}

static const tw_check_id OAI_S_IDS[] = {TW_CHK_OAI_S01, TW_CHK_OAI_S02, TW_CHK_OAI_S03,
                                        TW_CHK_OAI_S04, TW_CHK_OAI_S05, TW_CHK_OAI_S06,
                                        TW_CHK_OAI_S07, TW_CHK_OAI_S08};
static const tw_check_id OAI_R_IDS[] = {TW_CHK_OAI_R01, TW_CHK_OAI_R02, TW_CHK_OAI_R03,
                                        TW_CHK_OAI_R04, TW_CHK_OAI_R05, TW_CHK_OAI_R06,
                                        TW_CHK_OAI_R07, TW_CHK_OAI_R08};

/* ================================================================ entry points */

/* RSP-01: the status the fixture expects (its recorded response's, or a
 * success for exchanges the mock builds from model text) against the one
 * that arrived. */
static void http_status_check(const tw_judge_input *in, tw_check_set *out)
{
    if (!in->ex) {
        PUT(out, TW_CHK_RSP_01, TW_V_SKIP, -1, "no fixture expectation");
        return;
    }
    int want = in->ex->has_response ? in->ex->resp.status : 200;
    char cb[312];
    if (want >= 400) {
        PUT(out, TW_CHK_RSP_01, TW_V_SKIP, -1, "the fixture expects an error status (HTTP %d), got HTTP %d", want,
            in->status);
        return;
    }
    if (in->status == 0) {
        PUT(out, TW_CHK_RSP_01, TW_V_FAIL, -1, "no response: %s",
            tw_chk_clip(cb, sizeof cb, in->transport_error ? in->transport_error : "the transfer failed", 300));
        return;
    }
    if (in->status >= 400) {
        char ex[200];
        tw_chk_excerpt(ex, sizeof ex, in->body ? in->body : "", in->body_len);
        PUT(out, TW_CHK_RSP_01, TW_V_FAIL, 0, "HTTP %d where the fixture expects a success: %s", in->status, ex);
        return;
    }
    PUT(out, TW_CHK_RSP_01, TW_V_PASS, -1, "HTTP %d%s%s", in->status, in->transport_error ? ", transfer broke: " : "",
        tw_chk_clip(cb, sizeof cb, in->transport_error, 200));
}

static bool request_streams(const cJSON *req)
{
    return cJSON_IsTrue(tw_json_get(req, "stream"));
}

void tw_checks_backend(const tw_judge_input *in, tw_check_set *out)
{
    judge j = {in, out, {0}};
    tw_limits_resolve(&j.L, in->limits);
    tw_api_kind kind = tw_path_kind(in->path);
    /* /generate has no streamed form: a "stream" key in its request changes
     * nothing, only an event-stream answer is judged as a stream */
    bool stream = (kind != 'g' && kind != 'm' && request_streams(in->req_body)) ||
                  tw_chk_ctype_is(in, "text/event-stream") ||
                  (kind == 'm' && in->path && strstr(in->path, ":streamGenerateContent"));
    http_status_check(in, out);
    if (in->status == 0) {
        tw_check_set_fill(out, false, in->transport_error ? in->transport_error : "no response");
        return;
    }
    cJSON *body = stream ? NULL : tw_chk_parse_json(in->body ? in->body : "", in->body_len, j.L.max_depth);
    if (kind == 'o') {
        if (in->status >= 400) {
            cJSON *eb = tw_chk_parse_json(in->body ? in->body : "", in->body_len, j.L.max_depth);
            tw_chk_oai_error(&j, eb);
            cJSON_Delete(eb);
            tw_chk_skip_ids(out, OAI_R_IDS, 8, "error response");
            tw_chk_skip_ids(out, OAI_S_IDS, 8, "error response");
        } else if (stream) {
            ostream st = {0};
            tw_chk_oai_stream(&j, &st);
            tw_chk_oai_s07(&j, &st);
            tw_chk_ostream_free(&st);
        } else {
            if (!body) {
                char cb[112];
                PUT(out, TW_CHK_OAI_R01, TW_V_FAIL, 0, "the body is not JSON%s%s",
                    in->transport_error ? ": " : "", tw_chk_clip(cb, sizeof cb, in->transport_error, 100));
            }
            tw_chk_oai_response(&j, body);
            tw_chk_skip_ids(out, OAI_S_IDS, 8, "not streamed");
        }
        if (in->status < 400)
            PUT(out, TW_CHK_OAI_E01, TW_V_SKIP, -1, "not an error response");
    }
    if (kind == 'a' && in->status < 400) {
        if (stream)
            tw_chk_ant_stream(&j);
        else
            tw_chk_ant_response(&j, body);
    }
    if (kind == 'g' && in->status < 400)
        tw_chk_vln_checks(&j, body);
    if (kind == 'm' && in->status < 400)
        tw_chk_gem_checks(&j, body, stream);
    if (kind == 'r') {
        if (in->status >= 400) {
            cJSON *eb = tw_chk_parse_json(in->body ? in->body : "", in->body_len, j.L.max_depth);
            tw_chk_oai_error(&j, eb);
            cJSON_Delete(eb);
            tw_chk_ors_skip(out, "error response");
        } else {
            tw_chk_ors_checks(&j, stream, body);
            PUT(out, TW_CHK_OAI_E01, TW_V_SKIP, -1, "not an error response");
        }
    }
    if (kind == 'o') {
        cJSON *eb = stream ? NULL : body;
        tw_chk_ses_checks(&j, stream, eb);
    }
    if (in->status < 400) {
        tw_chk_hermes_checks(&j, kind, stream);
        if (kind == 'o' || kind == 'g')
            tw_chk_qwx_checks(&j, kind, stream);
    }
    if (in->status < 400 && kind && kind != 'r') {
        tw_chk_num_stream_spelling(&j, stream);
        tw_chk_num_model_values(&j, kind, stream);
    }
    cJSON_Delete(body);
    if (in->status >= 400) {
        tw_error why = {.offset = -1};
        tw_error_set(&why, TW_ERR_INVALID, -1, NULL, "HTTP %d: an error response", in->status);
        tw_check_set_fill(out, false, why.message);
    }
    tw_xlt_skip(out, "not judged through an upstream (run --upstream)");
    tw_check_set_fill(out, false, tw_api_scope(tw_path_kind(in->path)));
    tw_check_set_sort(out);
}

tw_status tw_decode_response(const char *path, bool stream, const char *body, size_t len,
                             const tw_decode_opts *o, tw_result *out)
{
    const char *name = tw_api_decoder(tw_path_kind(path), stream); /* the table of formats */
    const tw_format_ops *f = name ? tw_format_find(name) : NULL;
    if (!f)
        return TW_ERR_UNSUPPORTED;
    /* exact-size copy: decoders never rely on a terminator */
    char *copy = malloc(len ? len : 1);
    if (!copy)
        return TW_ERR_NOMEM;
    if (len)
        memcpy(copy, body, len);
    tw_status st = f->decode(copy, len, o, out);
    free(copy);
    return st;
}
