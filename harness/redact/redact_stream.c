/*
 * Redaction of bodies as they travel (redact.h): discovery over a whole body
 * (JSON, or an event stream), and tool-call arguments and text split across
 * stream events. Above redact.c (the redactor) and redact_scrub.c (the value
 * scrubber), which use nothing of it.
 */
#include "redact_int.h"

#include <stdarg.h>

typedef tw_red_span span;

/* ---- text a stream carries in pieces ---- */

/*
 * A stream's text comes in pieces spread over its events: content and
 * reasoning deltas, a call's argument fragments, a string value continued
 * across Gemini partialArgs. A secret can be cut across pieces, so that no
 * event holds it whole. Each channel (one text of one choice, block, item
 * or call) is joined, read for secrets and scrubbed as one text, and the
 * scrubbing mapped back onto its pieces.
 */

/* Distinct channels followed in one stream. */
#define STREAM_MAX_CHANNELS 4096u
#define CHANNEL_SLOTS (2 * STREAM_MAX_CHANNELS)
#define CHANNEL_KEY_MAX 96

typedef enum chan_kind {
    CHAN_TEXT, /* content or reasoning: model text */
    CHAN_ARGS, /* a call's arguments: JSON text */
    CHAN_VALUE /* one argument's string value (its name in `field`) */
} chan_kind;

typedef struct piece {
    cJSON *node; /* the string holding the piece */
    size_t ev;   /* its event */
    size_t off;  /* where it starts in the channel's text */
    size_t id;   /* its place among every piece of the stream (stream_text.all) */
} piece;

typedef struct channel {
    char key[CHANNEL_KEY_MAX];
    chan_kind kind;
    char field[64]; /* CHAN_VALUE: the argument's name */
    piece *p;
    size_t np, capp;
    tw_buf text; /* the pieces, decoded, end to end */
} channel;

typedef struct stream_text {
    cJSON **ev;
    bool *raw; /* the event's data is not a JSON object: ev[i] is one string, the data */
    size_t nev;
    channel *c;
    size_t nc, capc;
    uint32_t *slot; /* CHANNEL_SLOTS: channel index + 1 by the key's hash, 0 free */
    channel all;    /* every piece of every channel, in the order the stream carries them */
    bool by_path;   /* adding the pieces of no named channel: not in `all` */
    piece *reg;     /* every piece, by id */
    size_t nreg, capreg;
} stream_text;

static void stream_text_free(stream_text *t)
{
    for (size_t i = 0; i < t->nev; i++)
        cJSON_Delete(t->ev[i]);
    for (size_t i = 0; i < t->nc; i++) {
        free(t->c[i].p);
        tw_buf_free(&t->c[i].text);
    }
    free(t->ev);
    free(t->raw);
    free(t->c);
    free(t->slot);
    free(t->all.p);
    tw_buf_free(&t->all.text);
    free(t->reg);
    memset(t, 0, sizeof *t);
}

static uint32_t key_hash(const char *k)
{
    uint32_t h = 2166136261u;
    for (; *k; k++)
        h = (h ^ (unsigned char)*k) * 16777619u;
    return h;
}

/* The channel of that key, made when new (TW_ERR_LIMIT past the cap). */
static tw_status channel_get(stream_text *t, const char *key, chan_kind kind, channel **out)
{
    size_t h = key_hash(key) % CHANNEL_SLOTS;
    while (t->slot[h]) {
        channel *c = &t->c[t->slot[h] - 1];
        if (strcmp(c->key, key) == 0) {
            *out = c;
            return TW_OK;
        }
        h = (h + 1) % CHANNEL_SLOTS;
    }
    if (t->nc >= STREAM_MAX_CHANNELS)
        return TW_ERR_LIMIT;
    tw_status st = tw_red_room(&t->c, t->nc, &t->capc, sizeof *t->c);
    if (st != TW_OK)
        return st;
    channel *c = &t->c[t->nc++];
    memset(c, 0, sizeof *c);
    snprintf(c->key, sizeof c->key, "%s", key);
    c->kind = kind;
    t->slot[h] = (uint32_t)t->nc;
    *out = c;
    return TW_OK;
}

/* One piece: node's string, of event ev, in the channel named by fmt. */
static tw_status add_piece(stream_text *t, chan_kind kind, size_t ev, cJSON *node, const char *fmt,
                           ...) __attribute__((format(printf, 5, 6)));
static tw_status add_piece(stream_text *t, chan_kind kind, size_t ev, cJSON *node, const char *fmt,
                           ...)
{
    if (!cJSON_IsString(node) || !node->valuestring || !node->valuestring[0])
        return TW_OK;
    char key[CHANNEL_KEY_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(key, sizeof key, fmt, ap);
    va_end(ap);
    channel *c;
    tw_status st = channel_get(t, key, kind, &c);
    if (st != TW_OK)
        return st;
    /* every piece is registered (its id), a named channel's piece joins
     * the stream's order-join too */
    if ((st = tw_red_room(&t->reg, t->nreg, &t->capreg, sizeof *t->reg)) != TW_OK)
        return st;
    size_t id = t->nreg;
    t->reg[t->nreg++] = (piece){node, ev, 0, id};
    channel *both[2] = {c, &t->all};
    for (size_t k = 0; k < (t->by_path ? 1u : 2u); k++) {
        c = both[k];
        if ((st = tw_red_room(&c->p, c->np, &c->capp, sizeof *c->p)) != TW_OK)
            return st;
        c->p[c->np] = (piece){node, ev, c->text.len, id};
        c->np++;
        if ((st = tw_buf_puts(&c->text, node->valuestring)) != TW_OK)
            return st;
    }
    return TW_OK;
}

static double num_or(const cJSON *v, double dflt)
{
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static cJSON *get(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* Anthropic: content_block_start's text or thinking, content_block_delta's
 * text_delta, thinking_delta and input_json_delta, by block index. */
static tw_status load_anthropic(stream_text *t, size_t i, const cJSON *e, const char *ty)
{
    double idx = num_or(get(e, "index"), 0);
    if (strcmp(ty, "content_block_start") == 0) {
        const cJSON *cb = get(e, "content_block");
        tw_status st = add_piece(t, CHAN_TEXT, i, get(cb, "text"), "a:%.17g:x", idx);
        return st == TW_OK ? add_piece(t, CHAN_TEXT, i, get(cb, "thinking"), "a:%.17g:r", idx) : st;
    }
    const cJSON *d = get(e, "delta");
    tw_status st = add_piece(t, CHAN_TEXT, i, get(d, "text"), "a:%.17g:x", idx);
    if (st == TW_OK)
        st = add_piece(t, CHAN_TEXT, i, get(d, "thinking"), "a:%.17g:r", idx);
    if (st == TW_OK)
        st = add_piece(t, CHAN_ARGS, i, get(d, "partial_json"), "a:%.17g:t", idx);
    return st;
}

/* OpenAI Responses: every "response.….delta" event's delta, by event type,
 * output item and content (or summary) part. */
static tw_status load_responses(stream_text *t, size_t i, const cJSON *e, const char *ty)
{
    size_t tl = strlen(ty);
    if (tl < 6 || strcmp(ty + tl - 6, ".delta") != 0)
        return TW_OK;
    const cJSON *part = get(e, "content_index");
    if (!part)
        part = get(e, "summary_index");
    chan_kind k = strstr(ty, "arguments") ? CHAN_ARGS : CHAN_TEXT;
    return add_piece(t, k, i, get(e, "delta"), "r:%.40s:%.17g:%.17g", ty,
                     num_or(get(e, "output_index"), 0), num_or(part, 0));
}

/* OpenAI chat completions: each choice's content, reasoning, legacy text and
 * each call's argument fragments. */
static tw_status load_openai(stream_text *t, size_t i, const cJSON *choices)
{
    tw_status st = TW_OK;
    double cpos = 0;
    for (cJSON *ch = choices->child; ch && st == TW_OK; ch = ch->next, cpos++) {
        double ci = num_or(get(ch, "index"), cpos), tpos = 0;
        cJSON *delta = get(ch, "delta");
        st = add_piece(t, CHAN_TEXT, i, get(delta, "content"), "o:%.17g:x", ci);
        if (st == TW_OK)
            st = add_piece(t, CHAN_TEXT, i, get(delta, "reasoning_content"), "o:%.17g:r", ci);
        if (st == TW_OK)
            st = add_piece(t, CHAN_TEXT, i, get(delta, "reasoning"), "o:%.17g:r", ci);
        if (st == TW_OK)
            st = add_piece(t, CHAN_TEXT, i, get(ch, "text"), "o:%.17g:l", ci);
        const cJSON *tcs = get(delta, "tool_calls");
        for (cJSON *tc = cJSON_IsArray(tcs) ? tcs->child : NULL; tc && st == TW_OK;
             tc = tc->next, tpos++)
            st = add_piece(t, CHAN_ARGS, i, get(get(tc, "function"), "arguments"),
                           "o:%.17g:t:%.17g", ci, num_or(get(tc, "index"), tpos));
    }
    return st;
}

/* Gemini: each candidate's text and thought parts, and the string values a
 * call's partialArgs continue, by path. */
static tw_status load_gemini(stream_text *t, size_t i, const cJSON *cands)
{
    tw_status st = TW_OK;
    double cpos = 0;
    for (cJSON *c = cands->child; c && st == TW_OK; c = c->next, cpos++) {
        double ci = num_or(get(c, "index"), cpos);
        const cJSON *parts = get(get(c, "content"), "parts");
        for (cJSON *pt = cJSON_IsArray(parts) ? parts->child : NULL; pt && st == TW_OK;
             pt = pt->next) {
            bool thought = cJSON_IsTrue(get(pt, "thought"));
            st = add_piece(t, CHAN_TEXT, i, get(pt, "text"), "g:%.17g:%c", ci, thought ? 'r' : 'x');
            const cJSON *fc = get(pt, "functionCall");
            const cJSON *pa = get(fc, "partialArgs");
            for (cJSON *pc = cJSON_IsArray(pa) ? pa->child : NULL; pc && st == TW_OK;
                 pc = pc->next) {
                const cJSON *path = get(pc, "jsonPath");
                if (!cJSON_IsString(path) || !path->valuestring)
                    continue;
                const char *jp = path->valuestring;
                size_t before = t->nc;
                st = add_piece(t, CHAN_VALUE, i, get(pc, "stringValue"), "g:%.17g:p:%.60s", ci, jp);
                if (st == TW_OK && t->nc > before) {
                    /* the argument's name: the path's last key */
                    const char *k = jp + strlen(jp);
                    while (k > jp && k[-1] != '.' && k[-1] != '[' && k[-1] != '\'' && k[-1] != '"')
                        k--;
                    size_t kl = strcspn(k, "'\"]");
                    snprintf(t->c[t->nc - 1].field, sizeof t->c[t->nc - 1].field, "%.*s",
                             (int)(kl < 63 ? kl : 63), k);
                }
            }
        }
    }
    return st;
}

/* Every string of an event that no named channel took, joined across
 * events by its path (keys, and positions in arrays): a field a server
 * streams in pieces that no format names (a refusal, a legacy
 * function_call, a tool's name, logprobs tokens, a citation, code, a
 * /generate text). The named pieces of the event are reg[named_from,
 * named_to). */
static tw_status load_paths(stream_text *t, size_t i, cJSON *v, char *path, size_t pl,
                            size_t named_from, size_t named_to)
{
    if (cJSON_IsString(v)) {
        for (size_t k = named_from; k < named_to; k++)
            if (t->reg[k].node == v)
                return TW_OK;
        t->by_path = true;
        tw_status st = add_piece(t, CHAN_TEXT, i, v, "p:%s", path);
        t->by_path = false;
        return st;
    }
    tw_status st = TW_OK;
    size_t idx = 0;
    for (cJSON *c = v->child; c && st == TW_OK; c = c->next, idx++) {
        int n = c->string ? snprintf(path + pl, CHANNEL_KEY_MAX - 2 - pl, "/%s", c->string)
                          : snprintf(path + pl, CHANNEL_KEY_MAX - 2 - pl, "/%zu", idx);
        size_t nl = n < 0 ? 0 : (size_t)n;
        if (pl + nl > CHANNEL_KEY_MAX - 3)
            nl = CHANNEL_KEY_MAX - 3 - pl; /* a long path is cut: channels may merge, never split */
        st = load_paths(t, i, c, path, pl + nl, named_from, named_to);
        path[pl] = '\0';
    }
    return st;
}

/* Every event's data parsed, and the pieces of every channel. */
static tw_status stream_text_load(stream_text *t, const char *const *data, const size_t *len,
                                  size_t n, size_t max_depth)
{
    memset(t, 0, sizeof *t);
    t->ev = calloc(n ? n : 1, sizeof *t->ev);
    t->raw = calloc(n ? n : 1, sizeof *t->raw);
    t->slot = calloc(CHANNEL_SLOTS, sizeof *t->slot);
    if (!t->ev || !t->raw || !t->slot)
        return TW_ERR_NOMEM;
    t->nev = n;
    tw_status st = TW_OK;
    for (size_t i = 0; i < n && st == TW_OK; i++) {
        const char *d = data[i];
        size_t dl = len[i];
        tw_trim(&d, &dl);
        if (!dl || tw_json_parse(d, dl, max_depth, &t->ev[i], NULL) != TW_OK) {
            /* not JSON: the data itself is a piece of the stream's text (a
             * server that streams plain text, "[DONE]") */
            cJSON_Delete(t->ev[i]);
            char *copy = tw_strndup(data[i], len[i]);
            t->ev[i] = copy ? cJSON_CreateString(copy) : NULL;
            free(copy);
            if (!t->ev[i])
                return TW_ERR_NOMEM;
            t->raw[i] = true;
            st = add_piece(t, CHAN_TEXT, i, t->ev[i], "raw");
            continue;
        }
        cJSON *e = t->ev[i];
        size_t named_from = t->nreg;
        const cJSON *ty = get(e, "type");
        const char *tys = cJSON_IsString(ty) && ty->valuestring ? ty->valuestring : "";
        const cJSON *choices = get(e, "choices"), *cands = get(e, "candidates");
        if (strncmp(tys, "content_block_", 14) == 0)
            st = load_anthropic(t, i, e, tys);
        else if (strncmp(tys, "response.", 9) == 0)
            st = load_responses(t, i, e, tys);
        else if (cJSON_IsArray(choices))
            st = load_openai(t, i, choices);
        else if (cJSON_IsArray(cands))
            st = load_gemini(t, i, cands);
        char path[CHANNEL_KEY_MAX] = "";
        if (st == TW_OK)
            st = load_paths(t, i, e, path, 0, named_from, t->nreg);
    }
    return st;
}

tw_status tw_redact_discover_stream(tw_redactor *r, const char *const *data, const size_t *len,
                                    size_t n, size_t max_depth)
{
    if (!max_depth)
        max_depth = 64;
    stream_text t;
    tw_status st = stream_text_load(&t, data, len, n, max_depth);
    for (size_t i = 0; i < t.nc && st == TW_OK; i++) {
        const channel *c = &t.c[i];
        const tw_buf *a = &c->text;
        if (!a->len)
            continue;
        if (c->kind == CHAN_ARGS) {
            cJSON *v = NULL;
            if (tw_json_parse(a->data, a->len, max_depth, &v, NULL) == TW_OK && v)
                st = tw_red_discover_json(r, v, 0, max_depth);
            cJSON_Delete(v);
        } else if (c->kind == CHAN_VALUE) {
            if (tw_redact_field_secret(r, c->field))
                st = tw_redactor_add_value(r, a->data);
        } else {
            st = tw_red_discover_model_text(r, a->data, a->len, max_depth);
        }
        if (st == TW_OK)
            st = tw_redact_discover_text(r, a->data, a->len);
    }
    /* and every piece in the order the stream carries them: a key cut
     * across two channels (content then reasoning, two choices, two blocks) */
    if (st == TW_OK && t.all.text.len)
        st = tw_redact_discover_text(r, t.all.text.data, t.all.text.len);
    stream_text_free(&t);
    return st;
}

/* The spans of a channel's text that scrubbing replaces: the redactor's
 * values, the process-wide set's, and the shapes of keys and tokens. */
static tw_status channel_spans(const tw_redactor *r, const tw_buf *a, span **sp, size_t *nsp)
{
    size_t cap = 0;
    *sp = NULL;
    *nsp = 0;
    tw_status st = tw_red_value_spans(r->values, r->nvalues, a->data, a->len, sp, nsp, &cap);
    if (st == TW_OK)
        st = tw_red_set_spans(a->data, a->len, sp, nsp, &cap);
    if (st == TW_OK)
        st = tw_red_pattern_spans(r, a->data, a->len, sp, nsp, &cap);
    if (st != TW_OK) {
        free(*sp);
        *sp = NULL;
        return st;
    }
    *nsp = tw_red_merge_spans(*sp, *nsp);
    return TW_OK;
}

/* What scrubbing takes out of one piece: bytes [a, b) of piece id, and
 * whether a span starts there (the marker goes there). */
typedef struct cut {
    size_t id, a, b;
    bool marker;
} cut;

static int cut_cmp(const void *x, const void *y)
{
    const cut *p = x, *q = y;
    return p->id != q->id ? (p->id < q->id ? -1 : 1) : p->a < q->a ? -1 : p->a > q->a;
}

/* The spans of a channel's text mapped onto its pieces, as cuts. */
static tw_status channel_cuts(const channel *c, const span *sp, size_t nsp, cut **cuts,
                              size_t *ncuts, size_t *cap)
{
    size_t k = 0;
    for (size_t f = 0; f < c->np; f++) {
        size_t a = c->p[f].off, b = f + 1 < c->np ? c->p[f + 1].off : c->text.len;
        while (k < nsp && sp[k].b <= a)
            k++;
        for (size_t q = k; q < nsp && sp[q].a < b; q++) {
            tw_status st = tw_red_room(cuts, *ncuts, cap, sizeof **cuts);
            if (st != TW_OK)
                return st;
            size_t la = sp[q].a > a ? sp[q].a : a, lb = sp[q].b < b ? sp[q].b : b;
            (*cuts)[(*ncuts)++] = (cut){c->p[f].id, la - a, lb - a, sp[q].a >= a};
        }
    }
    return TW_OK;
}

/* Every piece rebuilt once from the cuts of every channel (found on the
 * pieces as the stream carried them): its bytes outside every cut, and
 * TW_REDACTED where a span starts; the rest of a span is dropped from the
 * pieces it covers, so the pieces still join into the scrubbed text. */
static tw_status apply_cuts(tw_redactor *r, stream_text *t, cut *cuts, size_t ncuts, bool *changed)
{
    if (ncuts)
        qsort(cuts, ncuts, sizeof *cuts, cut_cmp);
    tw_status st = TW_OK;
    for (size_t i = 0; i < ncuts && st == TW_OK;) {
        const piece *pc = &t->reg[cuts[i].id];
        const char *s = pc->node->valuestring;
        size_t n = strlen(s), at = 0;
        tw_buf nb = {0};
        st = tw_buf_reserve(&nb, 1);
        if (st == TW_OK)
            nb.data[0] = '\0';
        size_t j = i;
        while (j < ncuts && cuts[j].id == cuts[i].id && st == TW_OK) {
            /* the union of the cuts that overlap or touch */
            size_t a = cuts[j].a, b = cuts[j].b;
            bool marker = cuts[j].marker;
            for (j++; j < ncuts && cuts[j].id == cuts[i].id && cuts[j].a <= b; j++) {
                b = cuts[j].b > b ? cuts[j].b : b;
                marker = marker || cuts[j].marker;
            }
            a = a < n ? a : n;
            b = b < n ? b : n;
            if (a > at)
                st = tw_buf_append(&nb, s + at, a - at);
            if (st == TW_OK && marker)
                st = tw_buf_puts(&nb, TW_REDACTED);
            at = b > at ? b : at;
        }
        if (st == TW_OK && at < n)
            st = tw_buf_append(&nb, s + at, n - at);
        char *ns = st == TW_OK ? tw_buf_take(&nb, NULL) : NULL;
        if (!ns) {
            tw_buf_free(&nb);
            return st == TW_OK ? TW_ERR_NOMEM : st;
        }
        if ((st = tw_red_swap_string(pc->node, ns)) != TW_OK)
            return st;
        changed[pc->ev] = true;
        r->scrubbed++;
        i = j;
    }
    return st;
}

tw_status tw_redact_stream(tw_redactor *r, const char *const *data, const size_t *len, size_t n,
                           size_t max_depth, char **out)
{
    if (!max_depth)
        max_depth = 64;
    for (size_t i = 0; i < n; i++)
        out[i] = NULL;
    stream_text t;
    tw_status st = stream_text_load(&t, data, len, n, max_depth);
    bool *changed = st == TW_OK ? calloc(n ? n : 1, sizeof *changed) : NULL;
    if (st == TW_OK && !changed)
        st = TW_ERR_NOMEM;
    /* each channel joined on its own (a secret cut across interleaved
     * events of one channel), then every piece in the order the stream
     * carries them (a secret cut across two channels: content then
     * reasoning, two choices, two blocks); the cuts of both are found on
     * the pieces as they came and applied together */
    cut *cuts = NULL;
    size_t ncuts = 0, capcuts = 0;
    for (size_t i = 0; i <= t.nc && st == TW_OK; i++) {
        channel *c = i < t.nc ? &t.c[i] : &t.all;
        span *sp = NULL;
        size_t nsp = 0;
        if (c->text.len && (st = channel_spans(r, &c->text, &sp, &nsp)) == TW_OK && nsp)
            st = channel_cuts(c, sp, nsp, &cuts, &ncuts, &capcuts);
        free(sp);
    }
    if (st == TW_OK)
        st = apply_cuts(r, &t, cuts, ncuts, changed);
    free(cuts);
    for (size_t i = 0; i < n && st == TW_OK; i++) {
        if (!changed[i])
            continue;
        out[i] = t.raw[i] ? tw_strdup(t.ev[i]->valuestring) : tw_json_print(t.ev[i], NULL);
        if (!out[i])
            st = TW_ERR_NOMEM;
    }
    if (st != TW_OK)
        for (size_t i = 0; i < n; i++) {
            free(out[i]);
            out[i] = NULL;
        }
    free(changed);
    stream_text_free(&t);
    return st;
}

tw_status tw_redact_discover_body(tw_redactor *r, const char *s, size_t n, size_t max_depth)
{
    if (!s || !n)
        return TW_OK;
    if (!max_depth)
        max_depth = 64;
    cJSON *v = NULL;
    tw_status st = TW_OK;
    if (tw_json_parse(s, n, max_depth, &v, NULL) == TW_OK && v) {
        st = tw_red_discover_json(r, v, 0, max_depth);
        cJSON_Delete(v);
        if (st != TW_OK)
            return st;
    } else {
        /* an event stream: each "data:" line that is JSON, and the
         * arguments of each call assembled from its fragments */
        size_t nl_count = 1;
        for (size_t i = 0; i < n; i++)
            nl_count += s[i] == '\n';
        const char **lines = malloc(nl_count * sizeof *lines);
        size_t *lens = malloc(nl_count * sizeof *lens), nlines = 0;
        if (!lines || !lens) {
            free(lines);
            free(lens);
            return TW_ERR_NOMEM;
        }
        for (size_t i = 0; i < n && st == TW_OK;) {
            const char *nl = memchr(s + i, '\n', n - i);
            size_t len = nl ? (size_t)(nl - (s + i)) : n - i;
            const char *l = s + i;
            size_t ll = len;
            if (ll >= 5 && memcmp(l, "data:", 5) == 0) {
                l += 5;
                ll -= 5;
            }
            tw_trim(&l, &ll);
            if (ll && *l == '{') {
                lines[nlines] = l;
                lens[nlines++] = ll;
            }
            if (ll && (*l == '{' || *l == '[')) {
                cJSON *e = NULL;
                if (tw_json_parse(l, ll, max_depth, &e, NULL) == TW_OK && e)
                    st = tw_red_discover_json(r, e, 0, max_depth);
                cJSON_Delete(e);
            }
            i += len + 1;
        }
        if (st == TW_OK)
            st = tw_redact_discover_stream(r, lines, lens, nlines, max_depth);
        free(lines);
        free(lens);
    }
    return st == TW_OK ? tw_redact_discover_text(r, s, n) : st;
}
