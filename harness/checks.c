/*
 * The conformance checks (docs/checks.md). Structural checks read
 * the received bytes directly (JSON bodies, SSE events, chunk by chunk) so
 * that they can say where a rule broke; result-level comparisons use the
 * reference decoders when they are available.
 */
#include "checks.h"

#include <stdarg.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "decode_opts.h"
#include "redact.h"
#include "xlt.h"
#include "toolwire/decode.h"
#include "toolwire/schema.h"
#include "toolwire/text.h"
#include "toolwire/vllm.h"

/* ================================================================ catalog */

static const tw_check_def catalog[] = {
    {"OAI-R01", TW_SEV_ERROR, false,
     "non-streaming body is a chat.completion with at least one choice and an assistant message"},
    {"OAI-R02", TW_SEV_ERROR, false,
     "every tool call has a non-empty id, unique in the message, type \"function\", a non-empty name"},
    {"OAI-R03", TW_SEV_ERROR, false, "the name is one of the request's tools"},
    {"OAI-R04", TW_SEV_ERROR, false,
     "function.arguments is a string holding one JSON object (not an object, not double-encoded)"},
    {"OAI-R05", TW_SEV_ERROR, false, "arguments satisfy the tool's JSON Schema"},
    {"OAI-R06", TW_SEV_ERROR, false,
     "finish_reason is tool_calls when calls are present, and not when none are"},
    {"OAI-R07", TW_SEV_ERROR, false,
     "no tool-call or think markup (<tool_call>, <think>) is left in content"},
    {"OAI-R08", TW_SEV_INFO, false, "the reasoning field's name (reasoning_content / reasoning)"},
    {"OAI-S01", TW_SEV_ERROR, false,
     "Content-Type: text/event-stream, every event's data is JSON or [DONE], the stream ends with [DONE]"},
    {"OAI-S02", TW_SEV_WARN, false, "the first chunk's delta carries role: \"assistant\""},
    {"OAI-S03", TW_SEV_ERROR, false,
     "every tool-call delta has an index; the first fragment of an index carries id, type and name; "
     "later fragments never change them"},
    {"OAI-S04", TW_SEV_ERROR, false,
     "per index, the concatenated argument fragments parse as one JSON object"},
    {"OAI-S05", TW_SEV_ERROR, false, "parallel calls use distinct indexes"},
    {"OAI-S06", TW_SEV_ERROR, false,
     "exactly one choice chunk carries a finish_reason; only a usage chunk may follow it"},
    {"OAI-S07", TW_SEV_ERROR, false,
     "the streamed result equals the non-streamed result of the same request (compared as JSON values)"},
    {"OAI-S08", TW_SEV_ERROR, false, "no error arrives inside a 200 stream"},
    {"OAI-E01", TW_SEV_ERROR, false,
     "an error response uses the OpenAI error envelope {error: {message, type, param, code}}"},
    {"ANT-R01", TW_SEV_ERROR, false, "tool_use blocks have an id, a name and an object input"},
    {"ANT-R02", TW_SEV_ERROR, false, "stop_reason is tool_use exactly when tool_use blocks are present"},
    {"ANT-S01", TW_SEV_ERROR, false,
     "event order: message_start, blocks (content_block_start, deltas, content_block_stop), "
     "message_delta, message_stop; ping anywhere"},
    {"ANT-S02", TW_SEV_ERROR, false, "per block, concatenated partial_json parses as one JSON object"},
    {"ANT-S03", TW_SEV_WARN, false, "every thinking block carries a signature"},
    {"HER-01", TW_SEV_ERROR, false, "every <tool_call> block is closed and its payload parses"},
    {"HER-02", TW_SEV_ERROR, false, "no tool call was emitted from inside a closed think block"},
    {"HER-03", TW_SEV_WARN, false, "every think block is closed"},
    {"VLN-01", TW_SEV_ERROR, false,
     "/generate responses carry thinking, response, tool_calls and, with calls, pre_tool_text"},
    {"VLN-02", TW_SEV_ERROR, false,
     "thinking respects max_thinking_tokens, the response max_response_tokens"},
    {"NUM-01", TW_SEV_WARN, false,
     "streamed and non-streamed tool-call arguments spell every number the same way"},
    {"NUM-02", TW_SEV_ERROR, false,
     "numbers in the response's tool-call arguments have exactly the values the model wrote "
     "(compared as decimal text, not as doubles: no integer precision lost)"},
    {"SES-01", TW_SEV_ERROR, false,
     "a continuation with role: tool results for every pending call returns a final answer"},
    {"SES-02", TW_SEV_ERROR, false,
     "a continuation with a missing or unknown tool_call_id is refused with 400 in the error envelope"},
    {"SES-03", TW_SEV_ERROR, false, "a strict-mode request without the session header is refused with 400"},
    {"RSP-01", TW_SEV_ERROR, false,
     "an HTTP response with a success status arrives where the fixture expects one (no error status, "
     "no transport error)"},
    {"LIV-01", TW_SEV_ERROR, false, "live: the expected tools were called, and no other"},
    {"LIV-02", TW_SEV_ERROR, false, "live: the number of tool calls is within the expected bounds"},
    {"LIV-03", TW_SEV_ERROR, false, "live: every call's arguments satisfy the declared tool's JSON Schema"},
    {"LIV-04", TW_SEV_ERROR, false, "live: the answer carries text, or none, as expected"},
    {"LIV-05", TW_SEV_ERROR, false, "live: the answer carries reasoning, or none, as expected"},
    {"LIV-06", TW_SEV_ERROR, false,
     "live: the same tool calls (names and argument values) as another exchange of the fixture"},
    {"LIV-07", TW_SEV_ERROR, false,
     "live: every call-id placeholder of the request names a call the server made earlier"},
    {"CLI-01", TW_SEV_ERROR, true,
     "every role: tool message answers a tool call of the previous assistant message, by id"},
    {"CLI-02", TW_SEV_ERROR, true, "every tool call is answered before the next user turn"},
    {"CLI-03", TW_SEV_ERROR, true,
     "tool definitions are well formed: type \"function\", name matching ^[a-zA-Z0-9_-]{1,64}$, "
     "parameters an object schema"},
    {"CLI-04", TW_SEV_ERROR, true, "assistant tool calls in history carry arguments as a JSON string"},
    {"CLI-05", TW_SEV_ERROR, true,
     "Anthropic: tool results sit in one user message, tool_result blocks first"},
    {"CLI-06", TW_SEV_INFO, true, "parallel_tool_calls is set explicitly when tools are present"},
    {"CLI-07", TW_SEV_WARN, true, "a client retried after 429/503 honours Retry-After"},
    {"XLT-01", TW_SEV_ERROR, false,
     "proxied: the request reached the upstream, paired by the directive's nonce, and decodes there"},
    {"XLT-02", TW_SEV_ERROR, false,
     "proxied: every tool arrives upstream with its name, description and parameters schema"},
    {"XLT-03", TW_SEV_ERROR, false, "proxied: the messages arrive upstream in order, with their roles and text"},
    {"XLT-04", TW_SEV_ERROR, false,
     "proxied: history tool calls (names, arguments) and tool results (text, error flag) arrive, "
     "each result paired with its call by id"},
    {"XLT-05", TW_SEV_ERROR, false, "proxied: tool_choice and parallel tool calls arrive unchanged"},
    {"XLT-06", TW_SEV_WARN, false, "proxied: reasoning is enabled upstream exactly when the client enabled it"},
    {"XLT-07", TW_SEV_ERROR, false,
     "proxied: the answer carries the calls the model wrote (count, names, arguments)"},
    {"XLT-08", TW_SEV_ERROR, false, "proxied: the answer carries the text the model wrote"},
    {"XLT-09", TW_SEV_ERROR, false, "proxied: the answer carries the reasoning the model wrote"},
    {"XLT-10", TW_SEV_ERROR, false, "proxied: the answer's finish reason maps the model's"},
    /* client libraries, judged on what they hand to their caller (toolwire clients) */
    {"CLT-01", TW_SEV_ERROR, true, "a client library surfaces every tool call with its id, name and exact arguments"},
    {"CLT-02", TW_SEV_ERROR, true, "a client library hands on the answer's text unchanged"},
    {"CLT-03", TW_SEV_WARN, true, "a client library keeps the reasoning the server sent"},
    {"CLT-04", TW_SEV_ERROR, true,
     "a client library raises on a truncated or malformed answer instead of handing on partial calls"},
    {"CLT-05", TW_SEV_ERROR, true, "a client library raises on an error event inside a 200 stream"},
    {"CLT-06", TW_SEV_WARN, true, "a client library retrying after 429/503 honours Retry-After"},
    {"CLT-07", TW_SEV_ERROR, true, "a client library sends tool results back with the ids of their calls"},
};
#define NCHECKS (sizeof catalog / sizeof catalog[0])

const tw_check_def *tw_checks_catalog(size_t *n)
{
    *n = NCHECKS;
    return catalog;
}

int tw_check_index(const char *id)
{
    for (size_t i = 0; id && i < NCHECKS; i++)
        if (strcmp(catalog[i].id, id) == 0)
            return (int)i;
    return -1;
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

void tw_check_set_put(tw_check_set *s, const char *id, tw_verdict v, int64_t offset,
                      const char *fmt, ...)
{
    const tw_check_def *d = tw_check_find(id);
    if (!d)
        return;
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
        clean.len = tw_redacted_cut(clean.data, sizeof small - 1);
    char *copy = tw_strndup(clean.data ? clean.data : "", clean.len);
    tw_buf_free(&clean);
    if (!copy)
        return;
    for (size_t i = 0; i < s->len; i++) {
        if (s->items[i].id == d->id) {
            free(s->items[i].evidence);
            s->items[i].verdict = v;
            s->items[i].offset = offset;
            s->items[i].evidence = copy;
            return;
        }
    }
    if (s->len == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 16;
        tw_check_result *ni = realloc(s->items, nc * sizeof *ni);
        if (!ni) {
            free(copy);
            return;
        }
        s->items = ni;
        s->cap = nc;
    }
    s->items[s->len++] = (tw_check_result){d->id, v, offset, copy};
}

const tw_check_result *tw_check_set_get(const tw_check_set *s, const char *id)
{
    for (size_t i = 0; i < s->len; i++)
        if (strcmp(s->items[i].id, id) == 0)
            return &s->items[i];
    return NULL;
}

void tw_check_set_merge(tw_check_set *dst, const tw_check_set *src)
{
    for (size_t i = 0; i < src->len; i++)
        tw_check_set_put(dst, src->items[i].id, src->items[i].verdict, src->items[i].offset, "%s",
                         src->items[i].evidence);
}

void tw_check_set_fill(tw_check_set *s, bool client, const char *why)
{
    for (size_t i = 0; i < NCHECKS; i++)
        if (catalog[i].client == client && strncmp(catalog[i].id, "CLT-", 4) != 0 &&
            !tw_check_set_get(s, catalog[i].id))
            tw_check_set_put(s, catalog[i].id, TW_V_SKIP, -1, "%s", why ? why : "");
}

static int cmp_result(const void *a, const void *b)
{
    int ia = tw_check_index(((const tw_check_result *)a)->id);
    int ib = tw_check_index(((const tw_check_result *)b)->id);
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
        free(s->items[i].evidence);
    free(s->items);
    memset(s, 0, sizeof *s);
}

#define PUT tw_check_set_put

/* ================================================================ helpers */

char tw_path_kind(const char *path)
{
    if (!path)
        return 0;
    size_t n = strlen(path);
    const char *q = memchr(path, '?', n);
    if (q)
        n = (size_t)(q - path);
    if (n >= 16 && memcmp(path + n - 16, "chat/completions", 16) == 0)
        return 'o';
    if (n >= 8 && memcmp(path + n - 8, "messages", 8) == 0)
        return 'a';
    if (n >= 8 && memcmp(path + n - 8, "generate", 8) == 0)
        return 'g';
    return 0;
}

static cJSON *parse_json(const char *p, size_t n, size_t depth)
{
    cJSON *v = NULL;
    if (tw_json_parse(p, n, depth, &v, NULL) != TW_OK)
        return NULL;
    return v;
}

/* A short printable excerpt of a value for evidence: scrubbed of every
 * known secret first, cut after (never inside a [REDACTED] marker). */
static void excerpt(char *dst, size_t dn, const char *p0, size_t n0)
{
    tw_buf clean = {0};
    if (tw_secret_scrub(p0, n0, &clean, NULL) != TW_OK) {
        tw_buf_free(&clean);
        snprintf(dst, dn, "%s", TW_REDACTED);
        return;
    }
    const char *p = clean.data ? clean.data : "";
    size_t n = clean.len;
    size_t o = 0;
    for (size_t i = 0; i < n && o + 5 < dn; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '\n') {
            dst[o++] = '\\';
            dst[o++] = 'n';
        } else if (c < 0x20 || c == 0x7f) {
            dst[o++] = '?';
        } else {
            dst[o++] = (char)c;
        }
        if (i + 1 < n && o + 5 >= dn) {
            o = tw_redacted_cut(dst, o);
            memcpy(dst + o, "...", 3);
            o += 3;
            break;
        }
    }
    dst[o] = 0;
    tw_buf_free(&clean);
}

/* s scrubbed of every known secret, then cut to max bytes ("..." after a
 * cut), into buf (max + 4 bytes or more). */
static const char *clip(char *buf, size_t bn, const char *s, size_t max)
{
    char *c = tw_secret_clip(s ? s : "", max);
    snprintf(buf, bn, "%s", c ? c : TW_REDACTED);
    free(c);
    return buf;
}

static void excerpt_json(char *dst, size_t dn, const cJSON *v)
{
    char *s = v ? tw_json_print(v, NULL) : NULL;
    if (s) {
        excerpt(dst, dn, s, strlen(s));
        free(s);
    } else {
        snprintf(dst, dn, "%s", v ? "?" : "(absent)");
    }
}

static int64_t find_off(const tw_judge_input *in, const char *needle)
{
    if (!needle || !*needle || !in->body)
        return -1;
    const char *p = tw_memmem(in->body, in->body_len, needle, strlen(needle));
    return p ? (int64_t)(p - in->body) : -1;
}

static const char *header(const tw_kv *kv, size_t n, const char *name)
{
    return kv ? tw_kv_get(kv, n, name) : NULL;
}

static bool ctype_is(const tw_judge_input *in, const char *want)
{
    const char *ct = header(in->resp_headers, in->nresp_headers, "Content-Type");
    return ct && strncasecmp(ct, want, strlen(want)) == 0;
}

static bool str_nonempty(const cJSON *v) { return cJSON_IsString(v) && v->valuestring[0]; }

/* ---- id index: one sorted build, then binary searches ---- */

/*
 * Pairing results to calls (and finding a repeated id) looks ids up in an
 * index built once per list rather than comparing every pair, so a request
 * with n calls and n results costs O(n log n), whatever the ids are.
 */
typedef struct idx_ent {
    const char *id; /* not owned */
    size_t pos;     /* order of addition */
} idx_ent;

typedef struct id_index {
    idx_ent *v;
    size_t n, cap;
    bool nomem;
} id_index;

static void idx_add(id_index *x, const char *id)
{
    if (!id || x->nomem)
        return;
    if (x->n == x->cap) {
        size_t nc = x->cap ? x->cap * 2 : 16;
        idx_ent *nv = realloc(x->v, nc * sizeof *nv);
        if (!nv) {
            x->nomem = true;
            return;
        }
        x->v = nv;
        x->cap = nc;
    }
    x->v[x->n].id = id;
    x->v[x->n].pos = x->n;
    x->n++;
}

static int idx_cmp(const void *a, const void *b)
{
    const idx_ent *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* Sort the index: ids in order, equal ids by order of addition. */
static void idx_seal(id_index *x)
{
    if (x->n > 1)
        qsort(x->v, x->n, sizeof *x->v, idx_cmp);
}

static bool idx_has(const id_index *x, const char *id)
{
    size_t lo = 0, hi = x->n;
    while (id && lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(x->v[mid].id, id);
        if (c == 0)
            return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

static void idx_free(id_index *x)
{
    free(x->v);
    memset(x, 0, sizeof *x);
}

/* The string member idkey of each element of list, sealed. */
static void idx_of_list(id_index *x, const cJSON *list, const char *idkey)
{
    for (const cJSON *c = cJSON_IsArray(list) || cJSON_IsObject(list) ? list->child : NULL; c;
         c = c->next)
        idx_add(x, tw_json_get_str(c, idkey));
    idx_seal(x);
}

/* ---- SSE framing (WHATWG: LF, CRLF or CR; data: joined with \n; comments) ---- */

typedef struct sse_ev {
    char *type;     /* NULL when no event: field */
    char *data;
    size_t data_len;
    size_t off;
    bool has_data;
    bool terminated;
} sse_ev;

typedef struct sse_list {
    sse_ev *v;
    size_t n, cap;
    bool capped;
} sse_list;

#define SSE_MAX_EVENTS 200000u

static void sse_free(sse_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].type);
        free(l->v[i].data);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}

static void sse_parse(const char *b, size_t n, size_t max_event, sse_list *out)
{
    memset(out, 0, sizeof *out);
    tw_buf data = {0}, type = {0};
    data.max = max_event;
    bool open = false, has_data = false, has_type = false;
    size_t ev_off = 0, i = 0;
    if (n >= 3 && memcmp(b, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i <= n) {
        size_t ls = i;
        while (i < n && b[i] != '\n' && b[i] != '\r')
            i++;
        bool at_end = i >= n;
        size_t le = i;
        if (!at_end) {
            if (b[i] == '\r' && i + 1 < n && b[i + 1] == '\n')
                i += 2;
            else
                i++;
        }
        if (le == ls && !at_end) {
            /* blank line: dispatch */
            if (open && out->n < SSE_MAX_EVENTS) {
                if (out->n == out->cap) {
                    size_t nc = out->cap ? out->cap * 2 : 32;
                    sse_ev *nv = realloc(out->v, nc * sizeof *nv);
                    if (!nv)
                        break;
                    out->v = nv;
                    out->cap = nc;
                }
                sse_ev *e = &out->v[out->n++];
                e->type = has_type ? tw_strndup(type.data ? type.data : "", type.len) : NULL;
                e->data = tw_strndup(data.data ? data.data : "", data.len);
                e->data_len = data.len;
                e->off = ev_off;
                e->has_data = has_data;
                e->terminated = true;
            } else if (open) {
                out->capped = true;
            }
            tw_buf_reset(&data);
            tw_buf_reset(&type);
            open = has_data = has_type = false;
            continue;
        }
        if (at_end && le == ls)
            break;
        if (b[ls] == ':') {
            if (at_end)
                break;
            continue;
        }
        if (!open) {
            open = true;
            ev_off = ls;
        }
        size_t colon = ls;
        while (colon < le && b[colon] != ':')
            colon++;
        size_t fl = colon - ls;
        size_t vs = colon < le ? colon + 1 : le;
        if (vs < le && b[vs] == ' ')
            vs++;
        if (fl == 4 && memcmp(b + ls, "data", 4) == 0) {
            if (has_data)
                tw_buf_putc(&data, '\n');
            tw_buf_append(&data, b + vs, le - vs);
            has_data = true;
        } else if (fl == 5 && memcmp(b + ls, "event", 5) == 0) {
            tw_buf_reset(&type);
            tw_buf_append(&type, b + vs, le - vs);
            has_type = true;
        }
        if (at_end)
            break;
    }
    if (open && out->n < SSE_MAX_EVENTS) {
        /* an event the stream never ended with a blank line */
        sse_ev *nv = out->n == out->cap ? realloc(out->v, (out->cap + 1) * sizeof *nv) : out->v;
        if (nv) {
            if (out->n == out->cap)
                out->cap++;
            out->v = nv;
            sse_ev *e = &out->v[out->n++];
            e->type = has_type ? tw_strndup(type.data ? type.data : "", type.len) : NULL;
            e->data = tw_strndup(data.data ? data.data : "", data.len);
            e->data_len = data.len;
            e->off = ev_off;
            e->has_data = has_data;
            e->terminated = false;
        }
    }
    tw_buf_free(&data);
    tw_buf_free(&type);
}

/* ---- a light view of one response: what the checks compare ---- */

typedef struct vcall {
    char *id;
    char *name;
    cJSON *args;     /* parsed object, or NULL */
    size_t off;
} vcall;

typedef struct rview {
    bool ok;          /* the response could be read */
    tw_buf content;
    vcall *calls;
    size_t ncalls;
    size_t cap_calls;
    char *finish;
} rview;

static void rview_free(rview *v)
{
    tw_buf_free(&v->content);
    for (size_t i = 0; i < v->ncalls; i++) {
        free(v->calls[i].id);
        free(v->calls[i].name);
        cJSON_Delete(v->calls[i].args);
    }
    free(v->calls);
    free(v->finish);
    memset(v, 0, sizeof *v);
}

static void rview_add(rview *v, const char *id, const char *name, cJSON *args, size_t off)
{
    vcall *nc = v->calls;
    if (v->ncalls == v->cap_calls) {
        size_t cap = v->cap_calls ? v->cap_calls * 2 : 8;
        nc = realloc(v->calls, cap * sizeof *nc);
        if (!nc) {
            cJSON_Delete(args);
            return;
        }
        v->calls = nc;
        v->cap_calls = cap;
    }
    nc[v->ncalls++] = (vcall){tw_strdup(id ? id : ""), tw_strdup(name ? name : ""), args, off};
}

/* Arguments given as a JSON string or an object: parsed object or NULL. */
static cJSON *args_value(const cJSON *a, size_t depth)
{
    if (cJSON_IsObject(a))
        return cJSON_Duplicate(a, 1);
    if (cJSON_IsString(a)) {
        cJSON *v = parse_json(a->valuestring, strlen(a->valuestring), depth);
        if (cJSON_IsObject(v))
            return v;
        cJSON_Delete(v);
    }
    return NULL;
}

static void content_text(const cJSON *c, tw_buf *out)
{
    if (cJSON_IsString(c)) {
        tw_buf_puts(out, c->valuestring);
    } else if (cJSON_IsArray(c)) {
        for (const cJSON *p = c->child; p; p = p->next) {
            const char *t = tw_json_get_str(p, "text");
            if (t)
                tw_buf_puts(out, t);
        }
    }
}

/* ---- the OpenAI non-streaming body ---- */

static const cJSON *oai_message(const cJSON *body)
{
    const cJSON *ch = tw_json_get(body, "choices");
    if (!cJSON_IsArray(ch) || !ch->child)
        return NULL;
    const cJSON *m = tw_json_get(ch->child, "message");
    return cJSON_IsObject(m) ? m : NULL;
}

static void view_openai(const cJSON *body, size_t depth, rview *v)
{
    const cJSON *m = oai_message(body);
    if (!m)
        return;
    v->ok = true;
    content_text(tw_json_get(m, "content"), &v->content);
    const cJSON *tc = tw_json_get(m, "tool_calls");
    if (tc && (cJSON_IsArray(tc) || cJSON_IsObject(tc)))
        for (const cJSON *c = tc->child; c; c = c->next) {
            const cJSON *fn = tw_json_get(c, "function");
            rview_add(v, tw_json_get_str(c, "id"), tw_json_get_str(fn, "name"),
                      args_value(tw_json_get(fn, "arguments"), depth), 0);
        }
    const char *fr = tw_json_get_str(tw_json_get(body, "choices")->child, "finish_reason");
    v->finish = fr ? tw_strdup(fr) : NULL;
}

static void view_anthropic(const cJSON *body, rview *v)
{
    const cJSON *content = tw_json_get(body, "content");
    if (!cJSON_IsArray(content))
        return;
    v->ok = true;
    for (const cJSON *b = content->child; b; b = b->next) {
        const char *t = tw_json_get_str(b, "type");
        if (t && strcmp(t, "text") == 0 && tw_json_get_str(b, "text"))
            tw_buf_puts(&v->content, tw_json_get_str(b, "text"));
        else if (t && strcmp(t, "tool_use") == 0) {
            const cJSON *in = tw_json_get(b, "input");
            rview_add(v, tw_json_get_str(b, "id"), tw_json_get_str(b, "name"),
                      cJSON_IsObject(in) ? cJSON_Duplicate(in, 1) : NULL, 0);
        }
    }
    const char *sr = tw_json_get_str(body, "stop_reason");
    v->finish = sr ? tw_strdup(sr) : NULL;
}

static void view_generate(const cJSON *body, size_t depth, rview *v)
{
    if (!cJSON_IsObject(body))
        return;
    v->ok = true;
    const char *r = tw_json_get_str(body, "response");
    if (r)
        tw_buf_puts(&v->content, r);
    const cJSON *tc = tw_json_get(body, "tool_calls");
    if (cJSON_IsArray(tc))
        for (const cJSON *c = tc->child; c; c = c->next)
            rview_add(v, tw_json_get_str(c, "id"), tw_json_get_str(c, "name"),
                      args_value(tw_json_get(c, "arguments"), depth), 0);
}

/* ================================================================ OpenAI */

typedef struct sidx {
    long index;
    char *id;
    char *type;
    char *name;
    tw_buf args;
    size_t off;       /* offset of the first fragment's event */
} sidx;

typedef struct ostream {
    sidx *v;
    size_t n;
    size_t cap;
    size_t *slot;  /* hash of index -> 1 + position of its latest call (0: empty) */
    size_t nslot;  /* a power of two, at least twice n */
    tw_buf content;
    char *finish;
    bool role_first;
    bool any_chunk;
    size_t n_split;
    const char *reasoning_field;
} ostream;

static void ostream_free(ostream *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].id);
        free(s->v[i].type);
        free(s->v[i].name);
        tw_buf_free(&s->v[i].args);
    }
    free(s->v);
    free(s->slot);
    tw_buf_free(&s->content);
    free(s->finish);
    memset(s, 0, sizeof *s);
}

/* Slot of a stream index: a seeded mix, so chosen indexes cannot pile up in one chain. */
static size_t ostream_hash(const ostream *s, long index)
{
    static const char seed_anchor = 0;
    uint64_t x = (uint64_t)index ^ (uint64_t)(uintptr_t)&seed_anchor;
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9u;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebu;
    x ^= x >> 31;
    return (size_t)x & (s->nslot - 1);
}

/* Point the index's slot at position pos (its latest call). */
static void ostream_link(ostream *s, size_t pos)
{
    size_t h = ostream_hash(s, s->v[pos].index);
    while (s->slot[h] && s->v[s->slot[h] - 1].index != s->v[pos].index)
        h = (h + 1) & (s->nslot - 1);
    s->slot[h] = pos + 1;
}

static sidx *ostream_new(ostream *s, long index, size_t off)
{
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 8;
        sidx *nv = realloc(s->v, nc * sizeof *nv);
        if (!nv)
            return NULL;
        s->v = nv;
        s->cap = nc;
    }
    if (2 * (s->n + 1) > s->nslot) {
        size_t ns = s->nslot ? s->nslot * 2 : 16;
        size_t *nt = calloc(ns, sizeof *nt);
        if (!nt)
            return NULL;
        free(s->slot);
        s->slot = nt;
        s->nslot = ns;
        for (size_t i = 0; i < s->n; i++)
            ostream_link(s, i);
    }
    sidx *x = &s->v[s->n];
    memset(x, 0, sizeof *x);
    x->index = index;
    x->off = off;
    ostream_link(s, s->n++);
    return x;
}

/* The latest call with this stream index, or a new one (*fresh). */
static sidx *ostream_idx(ostream *s, long index, size_t off, bool *fresh)
{
    if (s->nslot) {
        size_t h = ostream_hash(s, index);
        for (; s->slot[h]; h = (h + 1) & (s->nslot - 1))
            if (s->v[s->slot[h] - 1].index == index) {
                *fresh = false;
                return &s->v[s->slot[h] - 1];
            }
    }
    *fresh = true;
    return ostream_new(s, index, off);
}

/* The per-call checks shared by the streamed and the non-streamed forms:
 * R02 (ids, names), R03 (declared names), R04 (string arguments), R05
 * (schema), R06 (finish_reason), R07 (markup), R08 (reasoning field). */
typedef struct ocall {
    const char *id;
    const char *type;      /* NULL when absent */
    const char *name;
    const cJSON *args;     /* as sent: a string, or something else */
    size_t off;
} ocall;

/* The set being written by the running check function (set per call, never shared). */
typedef struct judge {
    const tw_judge_input *in;
    tw_check_set *out;
    tw_limits L;
} judge;

static void ocall_checks(judge *j, const ocall *c, size_t n, const char *finish, int64_t fin_off,
                         const char *content, size_t clen, int64_t content_off,
                         const char *reasoning, bool streamed, size_t legacy_calls,
                         const char *shape_error)
{
    const tw_judge_input *in = j->in;
    tw_check_set *out = j->out;
    char why[400] = "";
    char ex[200];
    /* R02 */
    int64_t bad = -1;
    /* the first call whose id an earlier call already has, from one sorted index */
    size_t first_repeat = SIZE_MAX;
    id_index ids = {0};
    for (size_t i = 0; i < n; i++)
        idx_add(&ids, c[i].id && c[i].id[0] ? c[i].id : "");
    idx_seal(&ids);
    for (size_t i = 1; i < ids.n; i++)
        if (ids.v[i].id[0] && strcmp(ids.v[i].id, ids.v[i - 1].id) == 0 &&
            ids.v[i].pos < first_repeat)
            first_repeat = ids.v[i].pos;
    bool ids_nomem = ids.nomem;
    idx_free(&ids);
    for (size_t i = 0; i < n && bad < 0; i++) {
        if (!c[i].id || !c[i].id[0])
            snprintf(why, sizeof why, "tool_calls[%zu] has no id", i), bad = (int64_t)c[i].off;
        else if (!c[i].type || strcmp(c[i].type, "function") != 0)
            snprintf(why, sizeof why, "tool_calls[%zu].type is %.80s", i,
                     c[i].type ? c[i].type : "(absent)"),
                bad = (int64_t)c[i].off;
        else if (!c[i].name || !c[i].name[0])
            snprintf(why, sizeof why, "tool_calls[%zu] has no name", i), bad = (int64_t)c[i].off;
        else if (i == first_repeat) {
            char cb[112];
            snprintf(why, sizeof why, "id %s repeated at tool_calls[%zu]", clip(cb, sizeof cb, c[i].id, 100), i);
            bad = (int64_t)c[i].off;
        }
    }
    if (shape_error)
        PUT(out, "OAI-R02", TW_V_FAIL, find_off(in, "\"tool_calls\""), "%s", shape_error);
    else if (ids_nomem)
        PUT(out, "OAI-R02", TW_V_SKIP, -1, "out of memory while indexing ids");
    else if (n == 0)
        PUT(out, "OAI-R02", TW_V_SKIP, -1, "no tool calls");
    else if (bad >= 0 || why[0])
        PUT(out, "OAI-R02", TW_V_FAIL, bad, "%s", why);
    else
        PUT(out, "OAI-R02", TW_V_PASS, -1, "%zu call(s)", n);

    /* R03: names among the request's tools */
    const cJSON *tools = tw_json_get(in->req_body, "tools");
    const cJSON *choice = tw_json_get(in->req_body, "tool_choice");
    const char *only = tw_json_get_str(tw_json_get(choice, "function"), "name");
    if (!only)
        only = tw_json_get_str(choice, "name");
    if (n == 0)
        PUT(out, "OAI-R03", TW_V_SKIP, -1, "no tool calls");
    else if (cJSON_IsString(choice) && strcmp(choice->valuestring, "none") == 0)
        PUT(out, "OAI-R03", TW_V_FAIL, (int64_t)c[0].off, "tool_choice is none, yet %zu call(s) (%.64s)", n,
            c[0].name ? c[0].name : "");
    else if (only && c[0].name && strcmp(only, c[0].name) != 0)
        PUT(out, "OAI-R03", TW_V_FAIL, (int64_t)c[0].off, "tool_choice names %.64s, the call is %.64s", only,
            c[0].name);
    else if (!cJSON_IsArray(tools))
        PUT(out, "OAI-R03", TW_V_SKIP, -1, "the request declares no tools");
    else {
        bool ok = true;
        for (size_t i = 0; i < n && ok; i++) {
            bool found = false;
            for (const cJSON *t = tools->child; t && !found; t = t->next) {
                const char *tn = tw_json_get_str(tw_json_get(t, "function"), "name");
                if (!tn)
                    tn = tw_json_get_str(t, "name");
                found = tn && c[i].name && strcmp(tn, c[i].name) == 0;
            }
            if (!found) {
                ok = false;
                char cb[112];
                PUT(out, "OAI-R03", TW_V_FAIL, (int64_t)c[i].off, "tool_calls[%zu].name %s is not declared",
                    i, clip(cb, sizeof cb, c[i].name ? c[i].name : "(absent)", 100));
            }
        }
        if (ok)
            PUT(out, "OAI-R03", TW_V_PASS, -1, "every name declared");
    }

    /* R04 + R05 */
    bool r04 = true, r05_any = false, r05 = true;
    for (size_t i = 0; i < n; i++) {
        const cJSON *a = c[i].args;
        if (!cJSON_IsString(a)) {
            excerpt_json(ex, sizeof ex, a);
            if (r04 && !streamed)
                PUT(out, "OAI-R04", TW_V_FAIL, (int64_t)c[i].off,
                    "tool_calls[%zu].arguments is not a string: %s", i, ex);
            r04 = false;
            continue;
        }
        cJSON *v = parse_json(a->valuestring, strlen(a->valuestring), j->L.max_depth);
        if (!cJSON_IsObject(v)) {
            excerpt(ex, sizeof ex, a->valuestring, strlen(a->valuestring));
            if (r04 && !streamed)
                PUT(out, "OAI-R04", TW_V_FAIL, (int64_t)c[i].off, "tool_calls[%zu].arguments %s: %s", i,
                    !v                 ? "is not JSON"
                    : cJSON_IsString(v) ? "is double-encoded"
                                        : "is not an object",
                    ex);
            r04 = false;
            cJSON_Delete(v);
            continue;
        }
        /* schema */
        if (cJSON_IsArray(tools))
            for (const cJSON *t = tools->child; t; t = t->next) {
                const cJSON *fn = tw_json_get(t, "function");
                const char *tn = tw_json_get_str(fn ? fn : t, "name");
                const cJSON *schema = tw_json_get(fn ? fn : t, "parameters");
                if (!schema)
                    schema = tw_json_get(t, "input_schema");
                if (!tn || !c[i].name || strcmp(tn, c[i].name) != 0 || !cJSON_IsObject(schema))
                    continue;
                r05_any = true;
                char sw[256] = "";
                if (r05 && !tw_schema_validate(schema, v, j->L.max_depth, sw, sizeof sw)) {
                    PUT(out, "OAI-R05", TW_V_FAIL, (int64_t)c[i].off, "tool_calls[%zu] (%.64s): %s", i,
                        c[i].name, sw);
                    r05 = false;
                }
                break;
            }
        cJSON_Delete(v);
    }
    if (streamed && n > 0)
        PUT(out, "OAI-R04", TW_V_SKIP, -1, "streamed: the argument fragments are judged by OAI-S04");
    if (n == 0) {
        PUT(out, "OAI-R04", TW_V_SKIP, -1, "no tool calls");
        PUT(out, "OAI-R05", TW_V_SKIP, -1, "no tool calls");
    } else {
        if (r04 && !streamed)
            PUT(out, "OAI-R04", TW_V_PASS, -1, "every arguments value is a JSON object string");
        if (r05 && r05_any)
            PUT(out, "OAI-R05", TW_V_PASS, -1, "arguments satisfy the declared schemas");
        else if (r05)
            PUT(out, "OAI-R05", TW_V_SKIP, -1, "no schema to check against");
    }

    /* R06 (a legacy function_call is a call too) */
    n += legacy_calls;
    if (n > 0 && (!finish || strcmp(finish, "tool_calls") != 0))
        PUT(out, "OAI-R06", TW_V_FAIL, fin_off, "%zu call(s) but finish_reason %.64s", n,
            finish ? finish : "(absent)");
    else if (n == 0 && finish && strcmp(finish, "tool_calls") == 0)
        PUT(out, "OAI-R06", TW_V_FAIL, fin_off, "finish_reason tool_calls without calls");
    else
        PUT(out, "OAI-R06", TW_V_PASS, -1, "finish_reason %.64s", finish ? finish : "(absent)");

    /* R07 */
    static const char *const marks[] = {"<tool_call>", "</tool_call>", "<think>", "</think>",
                                        "<thinking>", "</thinking>"};
    const char *hit = NULL;
    size_t hit_at = 0;
    for (size_t k = 0; k < sizeof marks / sizeof marks[0]; k++) {
        const char *p = content ? tw_memmem(content, clen, marks[k], strlen(marks[k])) : NULL;
        if (p && (!hit || (size_t)(p - content) < hit_at)) {
            hit = marks[k];
            hit_at = (size_t)(p - content);
        }
    }
    if (hit) {
        excerpt(ex, sizeof ex, content + hit_at, clen - hit_at < 80 ? clen - hit_at : 80);
        int64_t off = content_off >= 0 ? content_off : find_off(in, hit);
        PUT(out, "OAI-R07", TW_V_FAIL, off, "%s at content offset %zu: %s", hit, hit_at, ex);
    } else {
        PUT(out, "OAI-R07", TW_V_PASS, -1, "no markup in %zu bytes of content", clen);
    }

    /* R08 */
    if (reasoning)
        PUT(out, "OAI-R08", TW_V_PASS, find_off(in, reasoning), "reasoning field: %s", reasoning);
    else
        PUT(out, "OAI-R08", TW_V_SKIP, -1, "no reasoning field");
}

static void oai_response(judge *j, const cJSON *body)
{
    tw_check_set *out = j->out;
    const cJSON *m = oai_message(body);
    const char *obj = tw_json_get_str(body, "object");
    if (!cJSON_IsObject(body))
        PUT(out, "OAI-R01", TW_V_FAIL, 0, "the body is not a JSON object");
    else if (!obj || strcmp(obj, "chat.completion") != 0)
        PUT(out, "OAI-R01", TW_V_FAIL, find_off(j->in, "\"object\""), "object is %.80s",
            obj ? obj : "(absent)");
    else if (!m)
        PUT(out, "OAI-R01", TW_V_FAIL, find_off(j->in, "\"choices\""), "no choice with a message");
    else if (!tw_json_get_str(m, "role") || strcmp(tw_json_get_str(m, "role"), "assistant") != 0)
        PUT(out, "OAI-R01", TW_V_FAIL, find_off(j->in, "\"role\""), "message role is %.40s",
            tw_json_get_str(m, "role") ? tw_json_get_str(m, "role") : "(absent)");
    else
        PUT(out, "OAI-R01", TW_V_PASS, -1, "chat.completion with an assistant message");
    if (!m) {
        static const char *const ids[] = {"OAI-R02", "OAI-R03", "OAI-R04", "OAI-R05",
                                          "OAI-R06", "OAI-R07", "OAI-R08"};
        for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
            PUT(out, ids[i], TW_V_SKIP, -1, "no message to judge");
        return;
    }
    const cJSON *tc = tw_json_get(m, "tool_calls");
    size_t n = 0;
    ocall calls[256] = {{0}};
    if (tc && (cJSON_IsArray(tc) || cJSON_IsObject(tc)))
        for (const cJSON *c = tc->child; c && n < 256; c = c->next, n++) {
            const cJSON *fn = tw_json_get(c, "function");
            calls[n] = (ocall){tw_json_get_str(c, "id"), tw_json_get_str(c, "type"),
                               tw_json_get_str(fn, "name"), tw_json_get(fn, "arguments"), 0};
            int64_t o = calls[n].id ? find_off(j->in, calls[n].id) : -1;
            calls[n].off = o < 0 ? 0 : (size_t)o;
        }
    tw_buf content = {0};
    content_text(tw_json_get(m, "content"), &content);
    const char *reasoning = tw_json_get(m, "reasoning_content") ? "reasoning_content"
                            : tw_json_get(m, "reasoning")       ? "reasoning"
                                                                : NULL;
    const char *fr = tw_json_get_str(tw_json_get(body, "choices")->child, "finish_reason");
    const cJSON *legacy = tw_json_get(m, "function_call");
    ocall_checks(j, calls, n, fr, find_off(j->in, "\"finish_reason\""), content.data, content.len,
                 -1, reasoning, false, cJSON_IsObject(legacy) ? 1 : 0,
                 tc && !cJSON_IsArray(tc) && !cJSON_IsNull(tc) ? "tool_calls is not an array" : NULL);
    tw_buf_free(&content);
}

static void skip_ids(tw_check_set *out, const char *const *ids, size_t n, const char *why)
{
    for (size_t i = 0; i < n; i++)
        if (!tw_check_set_get(out, ids[i]))
            PUT(out, ids[i], TW_V_SKIP, -1, "%s", why);
}

static const char *const OAI_S_IDS[] = {"OAI-S01", "OAI-S02", "OAI-S03", "OAI-S04",
                                        "OAI-S05", "OAI-S06", "OAI-S07", "OAI-S08"};
static const char *const OAI_R_IDS[] = {"OAI-R01", "OAI-R02", "OAI-R03", "OAI-R04",
                                        "OAI-R05", "OAI-R06", "OAI-R07", "OAI-R08"};

/* Assemble an OpenAI stream and judge S01..S06, S08 and the call checks. */
static void oai_stream(judge *j, ostream *st)
{
    const tw_judge_input *in = j->in;
    tw_check_set *out = j->out;
    sse_list ev;
    sse_parse(in->body, in->body_len, j->L.max_event_bytes, &ev);
    /* S01 */
    bool s01 = true;
    if (!ctype_is(in, "text/event-stream")) {
        const char *ct = header(in->resp_headers, in->nresp_headers, "Content-Type");
        PUT(out, "OAI-S01", TW_V_FAIL, -1, "Content-Type is %.80s", ct ? ct : "(absent)");
        s01 = false;
    }
    bool done = false;
    size_t done_at = 0;
    bool s02_decided = false, s03 = true, s05 = true, s06 = true, s08 = true;
    size_t finish_chunks = 0;
    size_t after_finish_bad = 0;
    bool after_finish = false;
    char ex[200];
    for (size_t i = 0; i < ev.n; i++) {
        sse_ev *e = &ev.v[i];
        if (e->type && strcmp(e->type, "error") == 0 && s08) {
            excerpt(ex, sizeof ex, e->data, e->data_len);
            PUT(out, "OAI-S08", TW_V_FAIL, (int64_t)e->off, "error event: %s", ex);
            s08 = false;
        }
        if (!e->has_data)
            continue;
        if (e->data_len == 6 && memcmp(e->data, "[DONE]", 6) == 0) {
            if (!done)
                done_at = i;
            done = true;
            continue;
        }
        if (done && s01) {
            PUT(out, "OAI-S01", TW_V_FAIL, (int64_t)e->off, "data after [DONE]");
            s01 = false;
        }
        cJSON *c = parse_json(e->data, e->data_len, j->L.max_depth);
        if (!c) {
            if (s01) {
                excerpt(ex, sizeof ex, e->data, e->data_len);
                PUT(out, "OAI-S01", TW_V_FAIL, (int64_t)e->off, "event data is not JSON: %s", ex);
                s01 = false;
            }
            continue;
        }
        if (tw_json_get(c, "error") && s08) {
            excerpt_json(ex, sizeof ex, tw_json_get(c, "error"));
            PUT(out, "OAI-S08", TW_V_FAIL, (int64_t)e->off, "error object in the stream: %s", ex);
            s08 = false;
        }
        const cJSON *choices = tw_json_get(c, "choices");
        const cJSON *ch0 = cJSON_IsArray(choices) ? choices->child : NULL;
        if (after_finish && ch0) {
            if (!after_finish_bad++ && s06)
                PUT(out, "OAI-S06", TW_V_FAIL, (int64_t)e->off, "a choice chunk follows the finish_reason chunk");
            s06 = false;
        }
        for (const cJSON *ch = ch0; ch; ch = ch->next) {
            const cJSON *delta = tw_json_get(ch, "delta");
            if (!s02_decided && cJSON_IsObject(delta)) {
                s02_decided = true;
                const char *role = tw_json_get_str(delta, "role");
                st->role_first = role && strcmp(role, "assistant") == 0;
                if (st->role_first)
                    PUT(out, "OAI-S02", TW_V_PASS, -1, "first delta carries role assistant");
                else
                    PUT(out, "OAI-S02", TW_V_FAIL, (int64_t)e->off, "first delta role is %.40s",
                        role ? role : "(absent)");
            }
            if (cJSON_IsObject(delta)) {
                content_text(tw_json_get(delta, "content"), &st->content);
                if (!st->reasoning_field) {
                    if (tw_json_get(delta, "reasoning_content"))
                        st->reasoning_field = "reasoning_content";
                    else if (tw_json_get(delta, "reasoning"))
                        st->reasoning_field = "reasoning";
                }
                const cJSON *tcs = tw_json_get(delta, "tool_calls");
                if (cJSON_IsArray(tcs))
                    for (const cJSON *tc = tcs->child; tc; tc = tc->next) {
                        const cJSON *idx = tw_json_get(tc, "index");
                        const cJSON *fn = tw_json_get(tc, "function");
                        const char *id = tw_json_get_str(tc, "id");
                        const char *type = tw_json_get_str(tc, "type");
                        const char *name = tw_json_get_str(fn, "name");
                        const cJSON *args = tw_json_get(fn, "arguments");
                        if (!cJSON_IsNumber(idx)) {
                            if (s03)
                                PUT(out, "OAI-S03", TW_V_FAIL, (int64_t)e->off, "tool-call delta without index");
                            s03 = false;
                        }
                        long ix = (long)tw_json_int(idx, -1, LONG_MAX, 0);
                        bool fresh = false;
                        sidx *x = ostream_idx(st, ix, e->off, &fresh);
                        if (x && !fresh && id && id[0] && x->id[0] && strcmp(id, x->id) != 0) {
                            /* a different call reusing the index: kept apart (split by id) */
                            if (s05)
                                PUT(out, "OAI-S05", TW_V_FAIL, (int64_t)e->off,
                                    "index %ld reused by id %.64s after %.64s", ix, id, x->id);
                            s05 = false;
                            if (s03)
                                PUT(out, "OAI-S03", TW_V_FAIL, (int64_t)e->off,
                                    "index %ld changes id from %.64s to %.64s", ix, x->id, id);
                            s03 = false;
                            st->n_split++;
                            x = ostream_new(st, ix, e->off);
                            if (x) {
                                x->id = tw_strdup(id);
                                x->type = tw_strdup(type ? type : "function");
                                x->name = tw_strdup(name ? name : "");
                                if (cJSON_IsString(args))
                                    tw_buf_puts(&x->args, args->valuestring);
                            }
                            continue;
                        }
                        if (!x)
                            continue;
                        if (fresh) {
                            if (s03 && (!id || !id[0] || !type || strcmp(type, "function") != 0 ||
                                        !name || !name[0])) {
                                PUT(out, "OAI-S03", TW_V_FAIL, (int64_t)e->off,
                                    "first fragment of index %ld lacks %s", x->index,
                                    !id || !id[0] ? "id" : !type || strcmp(type, "function") ? "type function" : "name");
                                s03 = false;
                            }
                            x->id = tw_strdup(id ? id : "");
                            x->type = tw_strdup(type ? type : "");
                            x->name = tw_strdup(name ? name : "");
                        } else {
                            if (id && strcmp(id, x->id) != 0 && s03) {
                                PUT(out, "OAI-S03", TW_V_FAIL, (int64_t)e->off,
                                    "index %ld changes id from \"%.64s\" to \"%.64s\"", x->index, x->id, id);
                                s03 = false;
                            } else if (name && strcmp(name, x->name) != 0 && s03) {
                                PUT(out, "OAI-S03", TW_V_FAIL, (int64_t)e->off,
                                    "index %ld changes name from \"%.64s\" to \"%.64s\"", x->index, x->name, name);
                                s03 = false;
                            } else if (type && strcmp(type, "function") != 0 && s03) {
                                PUT(out, "OAI-S03", TW_V_FAIL, (int64_t)e->off,
                                    "index %ld changes type to %.64s", x->index, type);
                                s03 = false;
                            }
                            if (id && id[0] && !x->id[0]) {
                                free(x->id);
                                x->id = tw_strdup(id);
                            }
                            if (name && name[0] && !x->name[0]) {
                                free(x->name);
                                x->name = tw_strdup(name);
                            }
                        }
                        if (cJSON_IsString(args))
                            tw_buf_puts(&x->args, args->valuestring);
                    }
            }
            const cJSON *fr = tw_json_get(ch, "finish_reason");
            if (cJSON_IsString(fr)) {
                finish_chunks++;
                if (finish_chunks == 1) {
                    free(st->finish);
                    st->finish = tw_strdup(fr->valuestring);
                } else if (s06) {
                    PUT(out, "OAI-S06", TW_V_FAIL, (int64_t)e->off, "a second finish_reason: %.40s",
                        fr->valuestring);
                    s06 = false;
                }
                after_finish = true;
            }
        }
        st->any_chunk = true;
        cJSON_Delete(c);
    }
    (void)done_at;
    if (s01 && !done) {
        int64_t off = (int64_t)in->body_len;
        PUT(out, "OAI-S01", TW_V_FAIL, off, "the stream ends without data: [DONE]%s%s",
            in->transport_error ? " (" : "", in->transport_error ? in->transport_error : "");
        s01 = false;
    }
    if (s01)
        PUT(out, "OAI-S01", TW_V_PASS, -1, "%zu events, ends with [DONE]", ev.n);
    if (!s02_decided)
        PUT(out, "OAI-S02", TW_V_SKIP, -1, "no choice delta");
    if (s03)
        PUT(out, "OAI-S03", st->n ? TW_V_PASS : TW_V_SKIP, -1, "%zu tool-call index(es)", st->n);
    /* S04 */
    bool s04 = true;
    for (size_t i = 0; i < st->n && s04; i++) {
        cJSON *v = parse_json(st->v[i].args.data ? st->v[i].args.data : "", st->v[i].args.len,
                              j->L.max_depth);
        if (!cJSON_IsObject(v)) {
            excerpt(ex, sizeof ex, st->v[i].args.data ? st->v[i].args.data : "", st->v[i].args.len);
            PUT(out, "OAI-S04", TW_V_FAIL, (int64_t)st->v[i].off,
                "index %ld arguments are not one JSON object: %s", st->v[i].index, ex);
            s04 = false;
        }
        cJSON_Delete(v);
    }
    if (s04)
        PUT(out, "OAI-S04", st->n ? TW_V_PASS : TW_V_SKIP, -1, "%zu argument string(s)", st->n);
    if (s05)
        PUT(out, "OAI-S05", st->n > 1 ? TW_V_PASS : TW_V_SKIP, -1, "%zu call(s) on distinct indexes",
            st->n);
    bool cut = !done || in->transport_error;
    if (s06 && finish_chunks == 0 && (!s08 || cut)) {
        PUT(out, "OAI-S06", TW_V_SKIP, -1, "%s", !s08 ? "the stream carried an error (see OAI-S08)"
                                                    : "the stream was cut before its end (see OAI-S01)");
    } else if (s06) {
        if (finish_chunks == 0)
            PUT(out, "OAI-S06", TW_V_FAIL, (int64_t)in->body_len, "no chunk carries a finish_reason");
        else
            PUT(out, "OAI-S06", TW_V_PASS, -1, "one finish_reason: %.40s", st->finish);
    }
    if (s08)
        PUT(out, "OAI-S08", TW_V_PASS, -1, "no error in the stream");
    /* the call-level checks over the assembled message */
    ocall calls[256] = {{0}};
    size_t n = 0;
    cJSON *argstr[256];
    for (size_t i = 0; i < st->n && n < 256; i++, n++) {
        argstr[n] = cJSON_CreateString(st->v[i].args.data ? st->v[i].args.data : "");
        calls[n] = (ocall){st->v[i].id, st->v[i].type, st->v[i].name, argstr[n], st->v[i].off};
    }
    PUT(out, "OAI-R01", TW_V_SKIP, -1, "streamed response (see OAI-S01)");
    ocall_checks(j, calls, n, st->finish, -1, st->content.data, st->content.len, -1,
                 st->reasoning_field, true, 0, NULL);
    for (size_t i = 0; i < n; i++)
        cJSON_Delete(argstr[i]);
    sse_free(&ev);
}

/* OAI-S07: the streamed result against the non-streamed one. */
static bool calls_equal_view(const rview *a, const rview *b, char *why, size_t wn)
{
    if (a->ncalls != b->ncalls) {
        snprintf(why, wn, "%zu call(s) streamed, %zu not streamed", a->ncalls, b->ncalls);
        return false;
    }
    for (size_t i = 0; i < a->ncalls; i++) {
        if (strcmp(a->calls[i].name, b->calls[i].name) != 0) {
            snprintf(why, wn, "call %zu name %.64s vs %.64s", i, a->calls[i].name, b->calls[i].name);
            return false;
        }
        if (strcmp(a->calls[i].id, b->calls[i].id) != 0) {
            snprintf(why, wn, "call %zu id %.64s vs %.64s", i, a->calls[i].id, b->calls[i].id);
            return false;
        }
        if (!a->calls[i].args || !b->calls[i].args ||
            !tw_json_equal(a->calls[i].args, b->calls[i].args)) {
            snprintf(why, wn, "call %zu (%.64s) arguments differ", i, a->calls[i].name);
            return false;
        }
    }
    return true;
}

static bool results_equal(const tw_result *a, const tw_result *b, char *why, size_t wn)
{
    if (a->msg.content.len != b->msg.content.len ||
        (a->msg.content.len && memcmp(a->msg.content.data, b->msg.content.data, a->msg.content.len))) {
        snprintf(why, wn, "content differs (%zu vs %zu bytes)", a->msg.content.len, b->msg.content.len);
        return false;
    }
    if (a->msg.thinking.len != b->msg.thinking.len ||
        (a->msg.thinking.len &&
         memcmp(a->msg.thinking.data, b->msg.thinking.data, a->msg.thinking.len))) {
        snprintf(why, wn, "thinking differs");
        return false;
    }
    if (a->msg.ncalls != b->msg.ncalls) {
        snprintf(why, wn, "%zu call(s) streamed, %zu not streamed", a->msg.ncalls, b->msg.ncalls);
        return false;
    }
    for (size_t i = 0; i < a->msg.ncalls; i++) {
        const tw_call *x = &a->msg.calls[i], *y = &b->msg.calls[i];
        if (strcmp(x->name ? x->name : "", y->name ? y->name : "") != 0 ||
            strcmp(x->id ? x->id : "", y->id ? y->id : "") != 0 ||
            !tw_json_equal(x->arguments, y->arguments)) {
            snprintf(why, wn, "call %zu (%.64s) differs", i, x->name ? x->name : "");
            return false;
        }
    }
    const char *fa = a->finish_reason ? a->finish_reason : "", *fb = b->finish_reason ? b->finish_reason : "";
    if (strcmp(fa, fb) != 0) {
        snprintf(why, wn, "finish_reason %.40s vs %.40s", fa, fb);
        return false;
    }
    return true;
}

static void oai_s07(judge *j, const ostream *st)
{
    const tw_judge_input *in = j->in;
    if (!in->pair_body) {
        PUT(j->out, "OAI-S07", TW_V_SKIP, -1, "the fixture gives no non-streamed counterpart");
        return;
    }
    char why[300] = "";
    tw_decode_opts o = {0};
    o.limits = j->L;
    o.allow_unknown_tool = true;
    tw_result a, b;
    tw_status sa = tw_decode_response(in->path, true, in->body, in->body_len, &o, &a);
    tw_status sb = sa == TW_OK ? tw_decode_response(in->path, false, in->pair_body, in->pair_len, &o, &b)
                               : TW_ERR_UNSUPPORTED;
    if (sa == TW_OK && sb == TW_OK) {
        bool eq = results_equal(&a, &b, why, sizeof why);
        PUT(j->out, "OAI-S07", eq ? TW_V_PASS : TW_V_FAIL, -1, "%s",
            eq ? "reference decoders give equal results" : why);
        tw_result_free(&a);
        tw_result_free(&b);
        return;
    }
    if (sa == TW_OK)
        tw_result_free(&a);
    /* the reference decoders are not available: compare the light views */
    rview s = {0}, p = {0};
    s.ok = true;
    tw_buf_append(&s.content, st->content.data ? st->content.data : "", st->content.len);
    for (size_t i = 0; i < st->n; i++)
        rview_add(&s, st->v[i].id, st->v[i].name,
                  parse_json(st->v[i].args.data ? st->v[i].args.data : "", st->v[i].args.len,
                             j->L.max_depth),
                  st->v[i].off);
    s.finish = st->finish ? tw_strdup(st->finish) : NULL;
    cJSON *pb = parse_json(in->pair_body, in->pair_len, j->L.max_depth);
    view_openai(pb, j->L.max_depth, &p);
    cJSON_Delete(pb);
    if (!p.ok) {
        PUT(j->out, "OAI-S07", TW_V_SKIP, -1, "the non-streamed counterpart has no message");
    } else {
        bool eq = true;
        if (s.content.len != p.content.len ||
            (s.content.len && memcmp(s.content.data, p.content.data, s.content.len))) {
            snprintf(why, sizeof why, "content differs (%zu vs %zu bytes)", s.content.len, p.content.len);
            eq = false;
        } else if (!calls_equal_view(&s, &p, why, sizeof why)) {
            eq = false;
        } else if (strcmp(s.finish ? s.finish : "", p.finish ? p.finish : "") != 0) {
            snprintf(why, sizeof why, "finish_reason %.40s vs %.40s", s.finish ? s.finish : "",
                     p.finish ? p.finish : "");
            eq = false;
        }
        PUT(j->out, "OAI-S07", eq ? TW_V_PASS : TW_V_FAIL, -1, "%s", eq ? "streamed equals non-streamed" : why);
    }
    rview_free(&s);
    rview_free(&p);
}

/* OAI-E01: the error envelope. */
static void oai_error(judge *j, const cJSON *body)
{
    const cJSON *e = tw_json_get(body, "error");
    char ex[200];
    if (!cJSON_IsObject(e)) {
        excerpt(ex, sizeof ex, j->in->body ? j->in->body : "", j->in->body_len);
        PUT(j->out, "OAI-E01", TW_V_FAIL, 0, "HTTP %d without an error object: %s", j->in->status, ex);
        return;
    }
    if (!cJSON_IsString(tw_json_get(e, "message"))) {
        PUT(j->out, "OAI-E01", TW_V_FAIL, find_off(j->in, "\"error\""), "error.message is not a string");
        return;
    }
    static const char *const keys[] = {"type", "param", "code"};
    for (size_t i = 0; i < 3; i++)
        if (!tw_json_get(e, keys[i])) {
            PUT(j->out, "OAI-E01", TW_V_FAIL, find_off(j->in, "\"error\""), "error.%s is absent", keys[i]);
            return;
        }
    char cb[132];
    PUT(j->out, "OAI-E01", TW_V_PASS, -1, "HTTP %d, error envelope: %s", j->in->status,
        clip(cb, sizeof cb, tw_json_get_str(e, "message"), 120));
}

/* ================================================================ Anthropic */

typedef struct ablock {
    long index;
    char type[24];
    bool open;
    bool tool;
    char *id;
    char *name;
    tw_buf json;
    bool has_json;
    const cJSON *start_input;
    cJSON *start_input_own;
    bool thinking;
    bool signed_;
    size_t off;
} ablock;

static void ant_common(judge *j, size_t ntool, const char *bad_tool, int64_t bad_off,
                       const char *stop, int64_t stop_off, size_t nthink, size_t unsigned_think,
                       int64_t think_off)
{
    tw_check_set *out = j->out;
    if (bad_tool)
        PUT(out, "ANT-R01", TW_V_FAIL, bad_off, "%s", bad_tool);
    else
        PUT(out, "ANT-R01", ntool ? TW_V_PASS : TW_V_SKIP, -1, "%zu tool_use block(s)", ntool);
    bool want = ntool > 0, is = stop && strcmp(stop, "tool_use") == 0;
    if (want != is)
        PUT(out, "ANT-R02", TW_V_FAIL, stop_off, "%zu tool_use block(s), stop_reason %.40s", ntool,
            stop ? stop : "(absent)");
    else
        PUT(out, "ANT-R02", TW_V_PASS, -1, "stop_reason %.40s", stop ? stop : "(absent)");
    if (unsigned_think)
        PUT(out, "ANT-S03", TW_V_FAIL, think_off, "%zu of %zu thinking block(s) without a signature",
            unsigned_think, nthink);
    else
        PUT(out, "ANT-S03", nthink ? TW_V_PASS : TW_V_SKIP, -1, "%zu thinking block(s)", nthink);
}

static void ant_response(judge *j, const cJSON *body)
{
    const cJSON *content = tw_json_get(body, "content");
    if (!cJSON_IsArray(content)) {
        PUT(j->out, "ANT-R01", TW_V_FAIL, 0, "the body has no content array");
        PUT(j->out, "ANT-R02", TW_V_SKIP, -1, "no content");
        PUT(j->out, "ANT-S03", TW_V_SKIP, -1, "no content");
        return;
    }
    size_t ntool = 0, nthink = 0, unsig = 0;
    char bad[300] = "";
    int64_t bad_off = -1, think_off = -1;
    size_t i = 0;
    for (const cJSON *b = content->child; b; b = b->next, i++) {
        const char *t = tw_json_get_str(b, "type");
        if (t && strcmp(t, "tool_use") == 0) {
            ntool++;
            if (!bad[0]) {
                const char *id = tw_json_get_str(b, "id");
                if (!str_nonempty(tw_json_get(b, "id")))
                    snprintf(bad, sizeof bad, "content[%zu] tool_use has no id", i);
                else if (!str_nonempty(tw_json_get(b, "name")))
                    snprintf(bad, sizeof bad, "content[%zu] tool_use has no name", i);
                else if (!cJSON_IsObject(tw_json_get(b, "input"))) {
                    char ex[120];
                    excerpt_json(ex, sizeof ex, tw_json_get(b, "input"));
                    snprintf(bad, sizeof bad, "content[%zu] tool_use input is not an object: %s", i, ex);
                }
                if (bad[0])
                    bad_off = id ? find_off(j->in, id) : -1;
            }
        } else if (t && strcmp(t, "thinking") == 0) {
            nthink++;
            if (!str_nonempty(tw_json_get(b, "signature"))) {
                if (!unsig)
                    think_off = find_off(j->in, "\"thinking\"");
                unsig++;
            }
        }
    }
    ant_common(j, ntool, bad[0] ? bad : NULL, bad_off, tw_json_get_str(body, "stop_reason"),
               find_off(j->in, "\"stop_reason\""), nthink, unsig, think_off);
}

static void ant_stream(judge *j)
{
    const tw_judge_input *in = j->in;
    sse_list ev;
    sse_parse(in->body, in->body_len, j->L.max_event_bytes, &ev);
    ablock blocks[256];
    size_t nb = 0;
    int phase = 0; /* 0 before message_start, 1 in message, 2 after message_delta, 3 stopped */
    long open_idx = -1;
    char s01[300] = "";
    int64_t s01_off = -1;
    char s02[300] = "";
    int64_t s02_off = -1;
    char *stop = NULL;
    int64_t stop_off = -1;
#define S01_FAIL(off, ...)                                                                         \
    do {                                                                                           \
        if (!s01[0]) {                                                                             \
            snprintf(s01, sizeof s01, __VA_ARGS__);                                                \
            s01_off = (int64_t)(off);                                                              \
        }                                                                                          \
    } while (0)
    for (size_t i = 0; i < ev.n; i++) {
        sse_ev *e = &ev.v[i];
        if (!e->has_data)
            continue;
        cJSON *d = parse_json(e->data, e->data_len, j->L.max_depth);
        const char *t = tw_json_get_str(d, "type");
        if (!t)
            t = e->type;
        if (!d) {
            char ex[100];
            excerpt(ex, sizeof ex, e->data, e->data_len);
            S01_FAIL(e->off, "event data is not JSON: %s", ex);
            continue;
        }
        if (!t) {
            cJSON_Delete(d);
            continue;
        }
        if (strcmp(t, "ping") == 0) {
        } else if (strcmp(t, "error") == 0) {
            char ex[120];
            excerpt_json(ex, sizeof ex, tw_json_get(d, "error"));
            S01_FAIL(e->off, "error event: %s", ex);
        } else if (strcmp(t, "message_start") == 0) {
            if (phase != 0)
                S01_FAIL(e->off, "a second message_start");
            phase = 1;
        } else if (strcmp(t, "content_block_start") == 0) {
            const cJSON *cb = tw_json_get(d, "content_block");
            const cJSON *ix = tw_json_get(d, "index");
            if (phase != 1)
                S01_FAIL(e->off, "content_block_start outside the message");
            else if (open_idx >= 0)
                S01_FAIL(e->off, "content_block_start while block %ld is open", open_idx);
            open_idx = (long)tw_json_int(ix, -1, LONG_MAX, -1);
            if (open_idx < 0)
                S01_FAIL(e->off, "content_block_start without index");
            if (nb < 256) {
                ablock *b = &blocks[nb++];
                memset(b, 0, sizeof *b);
                b->index = open_idx;
                b->open = true;
                b->off = e->off;
                snprintf(b->type, sizeof b->type, "%s", tw_json_get_str(cb, "type") ? tw_json_get_str(cb, "type") : "");
                b->tool = strcmp(b->type, "tool_use") == 0;
                b->thinking = strcmp(b->type, "thinking") == 0;
                b->id = tw_strdup(tw_json_get_str(cb, "id") ? tw_json_get_str(cb, "id") : "");
                b->name = tw_strdup(tw_json_get_str(cb, "name") ? tw_json_get_str(cb, "name") : "");
                const cJSON *inp = tw_json_get(cb, "input");
                b->start_input_own = inp ? cJSON_Duplicate(inp, 1) : NULL;
                b->signed_ = str_nonempty(tw_json_get(cb, "signature"));
            }
        } else if (strcmp(t, "content_block_delta") == 0) {
            const cJSON *ix = tw_json_get(d, "index");
            long idx = (long)tw_json_int(ix, -1, LONG_MAX, -1);
            if (phase != 1 || idx != open_idx || open_idx < 0)
                S01_FAIL(e->off, "content_block_delta for index %ld while %ld is open", idx, open_idx);
            ablock *b = NULL;
            for (size_t k = nb; k-- > 0;)
                if (blocks[k].index == idx) {
                    b = &blocks[k];
                    break;
                }
            const cJSON *delta = tw_json_get(d, "delta");
            const char *dt = tw_json_get_str(delta, "type");
            if (b && dt && strcmp(dt, "input_json_delta") == 0) {
                const char *pj = tw_json_get_str(delta, "partial_json");
                if (pj)
                    tw_buf_puts(&b->json, pj);
                b->has_json = true;
            } else if (b && dt && strcmp(dt, "signature_delta") == 0) {
                if (str_nonempty(tw_json_get(delta, "signature")))
                    b->signed_ = true;
            }
        } else if (strcmp(t, "content_block_stop") == 0) {
            const cJSON *ix = tw_json_get(d, "index");
            long idx = (long)tw_json_int(ix, -1, LONG_MAX, -1);
            if (idx != open_idx || open_idx < 0)
                S01_FAIL(e->off, "content_block_stop for index %ld while %ld is open", idx, open_idx);
            for (size_t k = nb; k-- > 0;)
                if (blocks[k].index == idx) {
                    blocks[k].open = false;
                    break;
                }
            open_idx = -1;
        } else if (strcmp(t, "message_delta") == 0) {
            if (phase != 1 && phase != 2)
                S01_FAIL(e->off, "message_delta outside the message");
            if (open_idx >= 0)
                S01_FAIL(e->off, "message_delta while block %ld is open", open_idx);
            phase = 2;
            const char *sr = tw_json_get_str(tw_json_get(d, "delta"), "stop_reason");
            if (sr) {
                free(stop);
                stop = tw_strdup(sr);
                stop_off = (int64_t)e->off;
            }
        } else if (strcmp(t, "message_stop") == 0) {
            if (phase != 2)
                S01_FAIL(e->off, "message_stop before message_delta");
            phase = 3;
        }
        cJSON_Delete(d);
    }
    if (phase != 3) {
        char cb[112];
        S01_FAIL(in->body_len, "the stream ends without message_stop%s%s",
                 in->transport_error ? ": " : "", clip(cb, sizeof cb, in->transport_error, 100));
    }
    if (s01[0])
        PUT(j->out, "ANT-S01", TW_V_FAIL, s01_off, "%s", s01);
    else
        PUT(j->out, "ANT-S01", TW_V_PASS, -1, "%zu events in order", ev.n);
    size_t ntool = 0, nthink = 0, unsig = 0, njson = 0;
    char bad[300] = "";
    int64_t bad_off = -1, think_off = -1;
    for (size_t k = 0; k < nb; k++) {
        ablock *b = &blocks[k];
        cJSON *input = NULL;
        /* the stream of a call without parameters sends partial_json "": the
         * start block's input stands, as the anthropic-stream decoder reads it */
        bool from_start = !b->has_json || b->json.len == 0;
        if (b->has_json)
            njson++;
        if (!from_start) {
            input = parse_json(b->json.data ? b->json.data : "", b->json.len, j->L.max_depth);
            if (!cJSON_IsObject(input) && !s02[0]) {
                char ex[120];
                excerpt(ex, sizeof ex, b->json.data ? b->json.data : "", b->json.len);
                snprintf(s02, sizeof s02, "block %ld partial_json is not one JSON object: %s", b->index, ex);
                s02_off = (int64_t)b->off;
            }
        }
        if (b->tool) {
            ntool++;
            const cJSON *inp = from_start ? b->start_input_own : input;
            if (!bad[0]) {
                if (!b->id[0])
                    snprintf(bad, sizeof bad, "tool_use block %ld has no id", b->index);
                else if (!b->name[0])
                    snprintf(bad, sizeof bad, "tool_use block %ld has no name", b->index);
                else if (from_start && !cJSON_IsObject(inp))
                    snprintf(bad, sizeof bad, "tool_use block %ld input is not an object", b->index);
                if (bad[0])
                    bad_off = (int64_t)b->off;
            }
        }
        if (b->thinking) {
            nthink++;
            if (!b->signed_) {
                if (!unsig)
                    think_off = (int64_t)b->off;
                unsig++;
            }
        }
        cJSON_Delete(input);
        cJSON_Delete(b->start_input_own);
        free(b->id);
        free(b->name);
        tw_buf_free(&b->json);
    }
    if (s02[0])
        PUT(j->out, "ANT-S02", TW_V_FAIL, s02_off, "%s", s02);
    else
        PUT(j->out, "ANT-S02", njson ? TW_V_PASS : TW_V_SKIP, -1, "%zu block(s) with partial_json", njson);
    ant_common(j, ntool, bad[0] ? bad : NULL, bad_off, stop, stop_off, nthink, unsig, think_off);
    free(stop);
    sse_free(&ev);
#undef S01_FAIL
}

/* ================================================================ Hermes text */

/* The response's calls as a light view (for HER-02). */
static void response_view(judge *j, char kind, bool stream, rview *v)
{
    const tw_judge_input *in = j->in;
    if (!in->body)
        return;
    if (!stream) {
        cJSON *b = parse_json(in->body, in->body_len, j->L.max_depth);
        if (kind == 'o')
            view_openai(b, j->L.max_depth, v);
        else if (kind == 'a')
            view_anthropic(b, v);
        else if (kind == 'g')
            view_generate(b, j->L.max_depth, v);
        cJSON_Delete(b);
        return;
    }
    tw_decode_opts o = {0};
    o.limits = j->L;
    o.allow_unknown_tool = true;
    tw_result r;
    if (tw_decode_response(in->path, true, in->body, in->body_len, &o, &r) == TW_OK) {
        v->ok = true;
        for (size_t i = 0; i < r.msg.ncalls; i++)
            rview_add(v, r.msg.calls[i].id, r.msg.calls[i].name,
                      r.msg.calls[i].arguments ? cJSON_Duplicate(r.msg.calls[i].arguments, 1) : NULL, 0);
        tw_result_free(&r);
        return;
    }
    /* streams without a reference decoder: assemble OpenAI tool-call deltas */
    if (kind != 'o')
        return;
    sse_list ev;
    sse_parse(in->body, in->body_len, j->L.max_event_bytes, &ev);
    ostream st = {0};
    for (size_t i = 0; i < ev.n; i++) {
        cJSON *c = parse_json(ev.v[i].data, ev.v[i].data_len, j->L.max_depth);
        const cJSON *ch = tw_json_get(c, "choices");
        for (const cJSON *x = cJSON_IsArray(ch) ? ch->child : NULL; x; x = x->next) {
            const cJSON *tcs = tw_json_get(tw_json_get(x, "delta"), "tool_calls");
            for (const cJSON *tc = cJSON_IsArray(tcs) ? tcs->child : NULL; tc; tc = tc->next) {
                const cJSON *idx = tw_json_get(tc, "index");
                bool fresh;
                sidx *s = ostream_idx(&st, (long)tw_json_int(idx, -1, LONG_MAX, 0), 0, &fresh);
                if (!s)
                    continue;
                const cJSON *fn = tw_json_get(tc, "function");
                if (fresh) {
                    s->id = tw_strdup(tw_json_get_str(tc, "id") ? tw_json_get_str(tc, "id") : "");
                    s->name = tw_strdup(tw_json_get_str(fn, "name") ? tw_json_get_str(fn, "name") : "");
                }
                const char *a = tw_json_get_str(fn, "arguments");
                if (a)
                    tw_buf_puts(&s->args, a);
            }
        }
        cJSON_Delete(c);
    }
    v->ok = true;
    for (size_t i = 0; i < st.n; i++)
        rview_add(v, st.v[i].id, st.v[i].name,
                  parse_json(st.v[i].args.data ? st.v[i].args.data : "", st.v[i].args.len, j->L.max_depth), 0);
    ostream_free(&st);
    sse_free(&ev);
}

/* Tool calls written inside closed think blocks of the model text. */
static size_t closed_think_calls(const char *t, size_t n, size_t depth, rview *out)
{
    size_t found = 0;
    static const char *const opens[] = {"<think>", "<thinking>"};
    static const char *const closes[] = {"</think>", "</thinking>"};
    size_t pos = 0;
    while (pos < n) {
        size_t best = n;
        int which = -1;
        for (int k = 0; k < 2; k++) {
            const char *p = tw_memmem(t + pos, n - pos, opens[k], strlen(opens[k]));
            if (p && (size_t)(p - t) < best) {
                best = (size_t)(p - t);
                which = k;
            }
        }
        if (which < 0)
            break;
        size_t in_start = best + strlen(opens[which]);
        const char *c = tw_memmem(t + in_start, n - in_start, closes[which], strlen(closes[which]));
        if (!c)
            break; /* unterminated: not a closed block */
        size_t in_end = (size_t)(c - t);
        size_t q = in_start;
        while (q < in_end) {
            const char *tc = tw_memmem(t + q, in_end - q, "<tool_call>", 11);
            if (!tc)
                break;
            size_t bs = (size_t)(tc - t) + 11;
            size_t s, e;
            if (tw_json_first_balanced(t + bs, in_end - bs, depth, &s, &e)) {
                cJSON *v = parse_json(t + bs + s, e - s, depth);
                const cJSON *one = cJSON_IsArray(v) ? v->child : v;
                for (; one; one = cJSON_IsArray(v) ? one->next : NULL) {
                    const char *name = tw_json_get_str(one, "name");
                    if (name) {
                        rview_add(out, NULL, name, args_value(tw_json_get(one, "arguments"), depth),
                                  (size_t)(tc - t));
                        found++;
                    }
                    if (!cJSON_IsArray(v))
                        break;
                }
                cJSON_Delete(v);
            }
            q = bs;
        }
        pos = in_end + strlen(closes[which]);
    }
    return found;
}

static void hermes_checks(judge *j, char kind, bool stream)
{
    const tw_fx_exchange *ex = j->in->ex;
    static const char *const ids[] = {"HER-01", "HER-02", "HER-03"};
    const char *text = ex ? ex->model_text : NULL;
    bool two_pass = false;
    if (!text && ex && ex->model_pass2) {
        text = ex->model_pass2;
        two_pass = true;
    }
    if (!text) {
        skip_ids(j->out, ids, 3, "no model text in the fixture");
        return;
    }
    size_t n = strlen(text);
    tw_opts_holder h;
    tw_opts_holder_init(&h);
    char why[256];
    if (ex->decode_options && !tw_opts_from_json(&h, ex->decode_options, why, sizeof why)) {
        tw_opts_holder_free(&h);
        tw_opts_holder_init(&h);
    }
    h.o.limits = j->L;
    h.o.allow_unknown_tool = true;
    if (two_pass)
        h.o.finish = TW_FINISH_STOP_SEQUENCE;
    tw_result r;
    if (tw_hermes_decode(text, n, &h.o, &r) != TW_OK) {
        skip_ids(j->out, ids, 3, "the hermes decoder refused the model text");
        tw_opts_holder_free(&h);
        return;
    }
    /* HER-01 */
    const tw_diag *bad = NULL;
    for (size_t i = 0; i < r.errors.len && !bad; i++)
        if (r.errors.items[i].code == TW_D_TOOL_CALL_JSON ||
            r.errors.items[i].code == TW_D_TOOL_CALL_UNTERMINATED)
            bad = &r.errors.items[i];
    size_t blocks = 0;
    for (const char *p = text; (p = tw_memmem(p, n - (size_t)(p - text), "<tool_call>", 11)); p += 11)
        blocks++;
    char cb[212];
    if (bad)
        PUT(j->out, "HER-01", TW_V_FAIL, bad->offset, "model text: %s: %s", tw_code_name(bad->code),
            clip(cb, sizeof cb, bad->message, 200));
    else
        PUT(j->out, "HER-01", blocks ? TW_V_PASS : TW_V_SKIP, -1, "%zu <tool_call> block(s) in the model text",
            blocks);
    /* HER-03 */
    if (two_pass)
        PUT(j->out, "HER-03", TW_V_SKIP, -1, "two-pass: the server closes the think block");
    else if (tw_diag_has(&r.errors, TW_D_THINK_UNTERMINATED) ||
             tw_diag_has(&r.warnings, TW_D_THINK_IMPLICIT_END) ||
             tw_diag_has(&r.errors, TW_D_THINK_IMPLICIT_END)) {
        int64_t off = -1;
        for (size_t i = 0; i < r.errors.len; i++)
            if (r.errors.items[i].code == TW_D_THINK_UNTERMINATED ||
                r.errors.items[i].code == TW_D_THINK_IMPLICIT_END)
                off = r.errors.items[i].offset;
        for (size_t i = 0; off < 0 && i < r.warnings.len; i++)
            if (r.warnings.items[i].code == TW_D_THINK_IMPLICIT_END)
                off = r.warnings.items[i].offset;
        PUT(j->out, "HER-03", TW_V_FAIL, off, "think block not closed in the model text%s",
            tw_diag_has(&r.errors, TW_D_THINK_UNTERMINATED) ? "" : " (a tool call ended it)");
    } else {
        bool any = tw_memmem(text, n, "<think", 6) != NULL;
        PUT(j->out, "HER-03", any ? TW_V_PASS : TW_V_SKIP, -1, "%s",
            any ? "every think block closed" : "no think block");
    }
    /* HER-02 */
    rview hidden = {0};
    size_t nh = closed_think_calls(text, n, j->L.max_depth, &hidden);
    if (nh == 0) {
        PUT(j->out, "HER-02", TW_V_PASS, -1, "no tool call inside a closed think block");
    } else if (j->in->status != 200) {
        PUT(j->out, "HER-02", TW_V_SKIP, -1, "no successful response to judge");
    } else {
        rview got = {0};
        response_view(j, kind, stream, &got);
        const vcall *leak = NULL;
        for (size_t i = 0; i < hidden.ncalls && !leak; i++) {
            bool public_call = false;
            for (size_t k = 0; k < r.msg.ncalls; k++)
                if (strcmp(r.msg.calls[k].name, hidden.calls[i].name) == 0 &&
                    (!hidden.calls[i].args || tw_json_equal(r.msg.calls[k].arguments, hidden.calls[i].args)))
                    public_call = true;
            if (public_call)
                continue;
            for (size_t k = 0; k < got.ncalls; k++)
                if (strcmp(got.calls[k].name, hidden.calls[i].name) == 0 &&
                    (!hidden.calls[i].args || !got.calls[k].args ||
                     tw_json_equal(got.calls[k].args, hidden.calls[i].args)))
                    leak = &hidden.calls[i];
        }
        if (!got.ok)
            PUT(j->out, "HER-02", TW_V_SKIP, -1, "the response's calls could not be read");
        else if (leak)
            PUT(j->out, "HER-02", TW_V_FAIL, (int64_t)leak->off,
                "call %.64s from inside a closed think block (model text offset %zu) was emitted",
                leak->name, leak->off);
        else
            PUT(j->out, "HER-02", TW_V_PASS, -1, "%zu call(s) inside closed think blocks, none emitted", nh);
        rview_free(&got);
    }
    rview_free(&hidden);
    tw_result_free(&r);
    tw_opts_holder_free(&h);
}

/* ================================================================ vLLM /generate */

/* The token rule of the mock backend (toolwire/vllm.h). */
static size_t count_tokens(const char *s)
{
    size_t n = 0;
    if (s)
        tw_vllm_token_prefix(s, strlen(s), 0, &n);
    return n;
}

static long req_long(const cJSON *req, const char *key)
{
    const cJSON *v = tw_json_get(req, key);
    if (!cJSON_IsNumber(v))
        v = tw_json_get(tw_json_get(req, "options"), key);
    if (!cJSON_IsNumber(v))
        v = tw_json_get(tw_json_get(req, "generation_config"), key);
    return (long)tw_json_int(v, -1, LONG_MAX, -1);
}

static void vln_checks(judge *j, const cJSON *body)
{
    tw_check_set *out = j->out;
    if (!cJSON_IsObject(body)) {
        PUT(out, "VLN-01", TW_V_FAIL, 0, "the body is not a JSON object");
        PUT(out, "VLN-02", TW_V_SKIP, -1, "no body");
        return;
    }
    const cJSON *th = tw_json_get(body, "thinking"), *rs = tw_json_get(body, "response"),
                *tc = tw_json_get(body, "tool_calls"), *pre = tw_json_get(body, "pre_tool_text");
    if (!cJSON_IsString(th))
        PUT(out, "VLN-01", TW_V_FAIL, find_off(j->in, "\"thinking\""), "thinking is not a string");
    else if (!cJSON_IsString(rs))
        PUT(out, "VLN-01", TW_V_FAIL, find_off(j->in, "\"response\""), "response is not a string");
    else if (!cJSON_IsArray(tc) && !cJSON_IsNull(tc))
        PUT(out, "VLN-01", TW_V_FAIL, find_off(j->in, "\"tool_calls\""), "tool_calls is %s",
            tc ? "not an array" : "absent");
    else if (cJSON_GetArraySize(tc) > 0 && !cJSON_IsString(pre))
        PUT(out, "VLN-01", TW_V_FAIL, find_off(j->in, "\"tool_calls\""),
            "%d call(s) without pre_tool_text", cJSON_GetArraySize(tc));
    else
        PUT(out, "VLN-01", TW_V_PASS, -1, "thinking, response, tool_calls%s present",
            cJSON_GetArraySize(tc) > 0 ? ", pre_tool_text" : "");
    /* the declared-name and schema rules hold for /generate calls as well */
    ocall calls[256] = {{0}};
    cJSON *argstr[256];
    size_t n = 0;
    for (const cJSON *c = cJSON_IsArray(tc) ? tc->child : NULL; c && n < 256; c = c->next, n++) {
        const cJSON *a = tw_json_get(c, "arguments");
        char *sa = a ? tw_json_print(a, NULL) : NULL;
        argstr[n] = cJSON_IsString(a) ? cJSON_CreateString(a->valuestring) : cJSON_CreateString(sa ? sa : "");
        free(sa);
        calls[n] = (ocall){tw_json_get_str(c, "id"), "function", tw_json_get_str(c, "name"), argstr[n], 0};
    }
    {
        tw_check_set tmp = {0};
        judge j2 = *j;
        j2.out = &tmp;
        ocall_checks(&j2, calls, n, NULL, -1, NULL, 0, -1, NULL, false, 0, NULL);
        const char *keep[] = {"OAI-R03", "OAI-R05"};
        for (size_t k = 0; k < 2; k++) {
            const tw_check_result *r = tw_check_set_get(&tmp, keep[k]);
            if (r)
                PUT(out, keep[k], r->verdict, r->offset, "/generate: %s", r->evidence);
        }
        tw_check_set_free(&tmp);
    }
    for (size_t k = 0; k < n; k++)
        cJSON_Delete(argstr[k]);
    long mt = req_long(j->in->req_body, "max_thinking_tokens");
    long mr = req_long(j->in->req_body, "max_response_tokens");
    if (mt < 0 && mr < 0) {
        PUT(out, "VLN-02", TW_V_SKIP, -1, "the request sets no token budget");
        return;
    }
    size_t nt = cJSON_IsString(th) ? count_tokens(th->valuestring) : 0;
    size_t nr = cJSON_IsString(rs) ? count_tokens(rs->valuestring) : 0;
    if (mt >= 0 && nt > (size_t)mt)
        PUT(out, "VLN-02", TW_V_FAIL, find_off(j->in, "\"thinking\""), "thinking has %zu tokens, max_thinking_tokens %ld",
            nt, mt);
    else if (mr >= 0 && nr > (size_t)mr)
        PUT(out, "VLN-02", TW_V_FAIL, find_off(j->in, "\"response\""), "response has %zu tokens, max_response_tokens %ld",
            nr, mr);
    else
        PUT(out, "VLN-02", TW_V_PASS, -1, "thinking %zu/%ld, response %zu/%ld tokens", nt, mt, nr, mr);
}

/* ================================================================ sessions */

/* Did a stream carry any content or a tool call? */
static bool stream_has_answer(const char *b, size_t n, size_t depth)
{
    sse_list ev;
    sse_parse(b, n, n + 1, &ev);
    bool any = false;
    for (size_t i = 0; i < ev.n && !any; i++) {
        cJSON *c = parse_json(ev.v[i].data, ev.v[i].data_len, depth);
        const cJSON *ch = tw_json_get(c, "choices");
        for (const cJSON *x = cJSON_IsArray(ch) ? ch->child : NULL; x; x = x->next) {
            const cJSON *d = tw_json_get(x, "delta");
            const char *t = tw_json_get_str(d, "content");
            if ((t && *t) || cJSON_GetArraySize(tw_json_get(d, "tool_calls")) > 0)
                any = true;
        }
        cJSON_Delete(c);
    }
    sse_free(&ev);
    return any;
}

static bool header_is(const tw_judge_input *in, const char *name, const char *value)
{
    const char *v = header(in->req_headers, in->nreq_headers, name);
    return v && strcasecmp(v, value) == 0;
}

static void ses_checks(judge *j, bool stream, const cJSON *body)
{
    const tw_judge_input *in = j->in;
    tw_check_set *out = j->out;
    static const char *const ids[] = {"SES-01", "SES-02", "SES-03"};
    bool strict = header_is(in, "X-Tool-Event-Format", "openai");
    const char *sid = header(in->req_headers, in->nreq_headers, "X-Session-Id");
    if (!strict && !sid) {
        skip_ids(out, ids, 3, "not a strict-mode session request");
        return;
    }
    bool envelope = cJSON_IsObject(tw_json_get(body, "error")) &&
                    cJSON_IsString(tw_json_get(tw_json_get(body, "error"), "message"));
    if (strict && (!sid || !sid[0])) {
        if (in->status == 400 && envelope)
            PUT(out, "SES-03", TW_V_PASS, -1, "refused with 400");
        else
            PUT(out, "SES-03", TW_V_FAIL, -1, "HTTP %d%s without X-Session-Id", in->status,
                in->status == 400 ? " (no error envelope)" : "");
    } else {
        PUT(out, "SES-03", TW_V_SKIP, -1, "the session header is present");
    }
    /* continuation: tool messages after the last assistant message with calls */
    const cJSON *msgs = tw_json_get(in->req_body, "messages");
    const cJSON *last_asst = NULL;
    for (const cJSON *m = cJSON_IsArray(msgs) ? msgs->child : NULL; m; m = m->next) {
        const char *role = tw_json_get_str(m, "role");
        if (role && strcmp(role, "assistant") == 0 && cJSON_GetArraySize(tw_json_get(m, "tool_calls")) > 0)
            last_asst = m;
    }
    size_t ntool = 0, unknown = 0, answered = 0, pending = 0;
    char ex[200] = "";
    id_index call_ids = {0};
    if (last_asst) {
        const cJSON *tcs = tw_json_get(last_asst, "tool_calls");
        pending = (size_t)cJSON_GetArraySize(tcs);
        idx_of_list(&call_ids, tcs, "id");
        for (const cJSON *m = last_asst->next; m; m = m->next) {
            const char *role = tw_json_get_str(m, "role");
            if (!role || strcmp(role, "tool") != 0)
                continue;
            ntool++;
            const char *id = tw_json_get_str(m, "tool_call_id");
            bool ok = idx_has(&call_ids, id);
            if (ok)
                answered++;
            else {
                if (!unknown)
                {
                    char cb[112];
                    snprintf(ex, sizeof ex, "tool_call_id %s", clip(cb, sizeof cb, id ? id : "(missing)", 100));
                }
                unknown++;
            }
        }
    }
    bool nomem = call_ids.nomem;
    idx_free(&call_ids);
    if (nomem) {
        PUT(out, "SES-01", TW_V_SKIP, -1, "out of memory while indexing ids");
        PUT(out, "SES-02", TW_V_SKIP, -1, "out of memory while indexing ids");
        return;
    }
    if (in->session_pending < 0 && last_asst && ntool) {
        PUT(out, "SES-01", TW_V_SKIP, -1, "no run of this session paused earlier");
        PUT(out, "SES-02", TW_V_SKIP, -1, "no run of this session paused earlier");
        return;
    }
    if (!last_asst || ntool == 0 || (strict && (!sid || !sid[0]))) {
        PUT(out, "SES-01", TW_V_SKIP, -1, "not a continuation");
        PUT(out, "SES-02", TW_V_SKIP, -1, "not a continuation");
        return;
    }
    bool complete = unknown == 0 && answered >= pending;
    if (complete) {
        PUT(out, "SES-02", TW_V_SKIP, -1, "every pending call answered");
        bool ok = in->status == 200;
        if (ok && !stream) {
            const cJSON *m = oai_message(body);
            tw_buf t = {0};
            if (m)
                content_text(tw_json_get(m, "content"), &t);
            ok = m && (t.len > 0 || cJSON_GetArraySize(tw_json_get(m, "tool_calls")) > 0);
            tw_buf_free(&t);
        } else if (ok && stream) {
            ok = in->body && tw_memmem(in->body, in->body_len, "[DONE]", 6) != NULL &&
                 !in->transport_error && stream_has_answer(in->body, in->body_len, 64);
        }
        if (ok)
            PUT(out, "SES-01", TW_V_PASS, -1, "%zu result(s) accepted, HTTP 200 with an answer", answered);
        else
            PUT(out, "SES-01", TW_V_FAIL, -1, "continuation with %zu result(s) got HTTP %d%s", answered,
                in->status, in->status == 200 ? " without a final answer (no content, no tool call)" : "");
    } else {
        PUT(out, "SES-01", TW_V_SKIP, -1, "a pending call is not answered");
        if (in->status == 400 && envelope)
            PUT(out, "SES-02", TW_V_PASS, -1, "refused with 400 (%s)", ex[0] ? ex : "missing result");
        else
            PUT(out, "SES-02", TW_V_FAIL, -1, "HTTP %d for a continuation with %s", in->status,
                ex[0] ? ex : "a missing result");
    }
}

/* ================================================================ entry points */

/* RSP-01: the status the fixture expects (its recorded response's, or a
 * success for exchanges the mock builds from model text) against the one
 * that arrived. */
static void http_status_check(const tw_judge_input *in, tw_check_set *out)
{
    if (!in->ex) {
        PUT(out, "RSP-01", TW_V_SKIP, -1, "no fixture expectation");
        return;
    }
    int want = in->ex->has_response ? in->ex->resp.status : 200;
    char cb[312];
    if (want >= 400) {
        PUT(out, "RSP-01", TW_V_SKIP, -1, "the fixture expects an error status (HTTP %d), got HTTP %d", want,
            in->status);
        return;
    }
    if (in->status == 0) {
        PUT(out, "RSP-01", TW_V_FAIL, -1, "no response: %s",
            clip(cb, sizeof cb, in->transport_error ? in->transport_error : "the transfer failed", 300));
        return;
    }
    if (in->status >= 400) {
        char ex[200];
        excerpt(ex, sizeof ex, in->body ? in->body : "", in->body_len);
        PUT(out, "RSP-01", TW_V_FAIL, 0, "HTTP %d where the fixture expects a success: %s", in->status, ex);
        return;
    }
    PUT(out, "RSP-01", TW_V_PASS, -1, "HTTP %d%s%s", in->status, in->transport_error ? ", transfer broke: " : "",
        clip(cb, sizeof cb, in->transport_error, 200));
}

static bool request_streams(const cJSON *req)
{
    return cJSON_IsTrue(tw_json_get(req, "stream"));
}

/* ================================================================ number fidelity */

/* The first number of `a` whose counterpart at the same place in `b` is a
 * number spelled differently (by_value: of a different decimal value).
 * Writes its path and both spellings into why; false when none. */
static bool number_differs(const cJSON *a, const cJSON *b, bool by_value, char *path, size_t plen,
                           size_t cap, char *why, size_t wn)
{
    if (cJSON_IsNumber(a)) {
        if (!cJSON_IsNumber(b))
            return false;
        const char *sa = tw_json_spelling(a), *sb = tw_json_spelling(b);
        bool same = by_value ? tw_json_number_equal(a, b) : (sa && sb && strcmp(sa, sb) == 0);
        if (same)
            return false;
        char ta[48], tb[48];
        if (!sa)
            snprintf(ta, sizeof ta, "%.17g", a->valuedouble);
        if (!sb)
            snprintf(tb, sizeof tb, "%.17g", b->valuedouble);
        snprintf(why, wn, "%s: %.60s vs %.60s", path[0] ? path : "/", sa ? sa : ta, sb ? sb : tb);
        return true;
    }
    bool obj = cJSON_IsObject(a);
    if (!(obj && cJSON_IsObject(b)) && !(cJSON_IsArray(a) && cJSON_IsArray(b)))
        return false;
    size_t i = 0;
    const cJSON *y = b->child;
    for (const cJSON *x = a->child; x; x = x->next, i++) {
        const cJSON *other = obj ? tw_json_get(b, x->string ? x->string : "") : y;
        if (!obj && y)
            y = y->next;
        if (!other)
            continue;
        if (obj)
            snprintf(path + plen, cap - plen, "/%s", x->string ? x->string : "");
        else
            snprintf(path + plen, cap - plen, "/%zu", i);
        bool d = number_differs(x, other, by_value, path, strlen(path), cap, why, wn);
        path[plen] = '\0';
        if (d)
            return true;
    }
    return false;
}

/* Compare calls pairwise (same position, same name); false with why filled
 * at the first differing number. *pairs counts the compared calls. */
static bool calls_numbers_equal(const tw_call *a, size_t na, const vcall *vb, const tw_call *b,
                                size_t nb, bool by_value, size_t *pairs, char *why, size_t wn)
{
    *pairs = 0;
    for (size_t i = 0; i < na && i < nb; i++) {
        const char *bn = vb ? vb[i].name : b[i].name;
        const cJSON *ba = vb ? vb[i].args : b[i].arguments;
        if (!a[i].arguments || !ba || strcmp(a[i].name ? a[i].name : "", bn ? bn : "") != 0)
            continue;
        (*pairs)++;
        char path[256] = "", d[300];
        if (number_differs(a[i].arguments, ba, by_value, path, 0, sizeof path, d, sizeof d)) {
            snprintf(why, wn, "call %zu (%.64s) %s", i, a[i].name ? a[i].name : "", d);
            return false;
        }
    }
    return true;
}

/* NUM-01: the streamed arguments against the non-streamed ones, spelling
 * by spelling (OAI-S07 compares them as values). */
static void num_stream_spelling(judge *j, bool stream)
{
    const tw_judge_input *in = j->in;
    if (!stream || !in->pair_body) {
        PUT(j->out, "NUM-01", TW_V_SKIP, -1, "no streamed and non-streamed pair to compare");
        return;
    }
    tw_decode_opts o = {0};
    o.limits = j->L;
    o.allow_unknown_tool = true;
    tw_result a, b;
    if (tw_decode_response(in->path, true, in->body, in->body_len, &o, &a) != TW_OK) {
        PUT(j->out, "NUM-01", TW_V_SKIP, -1, "no reference decoder for this stream");
        return;
    }
    if (tw_decode_response(in->path, false, in->pair_body, in->pair_len, &o, &b) != TW_OK) {
        tw_result_free(&a);
        PUT(j->out, "NUM-01", TW_V_SKIP, -1, "no reference decoder for the non-streamed body");
        return;
    }
    char why[400] = "";
    size_t pairs = 0;
    bool eq = calls_numbers_equal(a.msg.calls, a.msg.ncalls, NULL, b.msg.calls, b.msg.ncalls,
                                  false, &pairs, why, sizeof why);
    if (!eq)
        PUT(j->out, "NUM-01", TW_V_FAIL, -1, "streamed vs non-streamed: %s", why);
    else
        PUT(j->out, "NUM-01", pairs ? TW_V_PASS : TW_V_SKIP, -1, "%s",
            pairs ? "every number spelled the same" : "no call in both results");
    tw_result_free(&a);
    tw_result_free(&b);
}

/* NUM-02: the response's arguments against the model text's. */
static void num_model_values(judge *j, char kind, bool stream)
{
    const tw_fx_exchange *ex = j->in->ex;
    const char *text = ex ? ex->model_text : NULL;
    bool two_pass = false;
    if (!text && ex && ex->model_pass2) {
        text = ex->model_pass2;
        two_pass = true;
    }
    if (!text) {
        PUT(j->out, "NUM-02", TW_V_SKIP, -1, "no model text in the fixture");
        return;
    }
    if (j->in->status != 200) {
        PUT(j->out, "NUM-02", TW_V_SKIP, -1, "no successful response to judge");
        return;
    }
    tw_opts_holder h;
    tw_opts_holder_init(&h);
    char why[400] = "";
    if (ex->decode_options && !tw_opts_from_json(&h, ex->decode_options, why, sizeof why)) {
        tw_opts_holder_free(&h);
        tw_opts_holder_init(&h);
    }
    h.o.limits = j->L;
    h.o.allow_unknown_tool = true;
    if (two_pass)
        h.o.finish = TW_FINISH_STOP_SEQUENCE;
    tw_result r;
    if (tw_hermes_decode(text, strlen(text), &h.o, &r) != TW_OK) {
        PUT(j->out, "NUM-02", TW_V_SKIP, -1, "the hermes decoder refused the model text");
        tw_opts_holder_free(&h);
        return;
    }
    rview got = {0};
    response_view(j, kind, stream, &got);
    size_t pairs = 0;
    if (!got.ok) {
        PUT(j->out, "NUM-02", TW_V_SKIP, -1, "the response's calls could not be read");
    } else if (!calls_numbers_equal(r.msg.calls, r.msg.ncalls, got.calls, NULL, got.ncalls, true,
                                    &pairs, why, sizeof why)) {
        PUT(j->out, "NUM-02", TW_V_FAIL, -1, "model text vs response: %s", why);
    } else {
        PUT(j->out, "NUM-02", pairs ? TW_V_PASS : TW_V_SKIP, -1, "%s",
            pairs ? "every number carries the value the model wrote"
                  : "no call both in the model text and the response");
    }
    rview_free(&got);
    tw_result_free(&r);
    tw_opts_holder_free(&h);
}

void tw_checks_backend(const tw_judge_input *in, tw_check_set *out)
{
    judge j = {in, out, {0}};
    tw_limits_resolve(&j.L, in->limits);
    char kind = tw_path_kind(in->path);
    /* /generate has no streamed form: a "stream" key in its request changes
     * nothing, only an event-stream answer is judged as a stream */
    bool stream = (kind != 'g' && request_streams(in->req_body)) || ctype_is(in, "text/event-stream");
    http_status_check(in, out);
    if (in->status == 0) {
        tw_check_set_fill(out, false, in->transport_error ? in->transport_error : "no response");
        return;
    }
    cJSON *body = stream ? NULL : parse_json(in->body ? in->body : "", in->body_len, j.L.max_depth);
    if (kind == 'o') {
        if (in->status >= 400) {
            cJSON *eb = parse_json(in->body ? in->body : "", in->body_len, j.L.max_depth);
            oai_error(&j, eb);
            cJSON_Delete(eb);
            skip_ids(out, OAI_R_IDS, 8, "error response");
            skip_ids(out, OAI_S_IDS, 8, "error response");
        } else if (stream) {
            ostream st = {0};
            oai_stream(&j, &st);
            oai_s07(&j, &st);
            ostream_free(&st);
        } else {
            if (!body) {
                char cb[112];
                PUT(out, "OAI-R01", TW_V_FAIL, 0, "the body is not JSON%s%s",
                    in->transport_error ? ": " : "", clip(cb, sizeof cb, in->transport_error, 100));
            }
            oai_response(&j, body);
            skip_ids(out, OAI_S_IDS, 8, "not streamed");
        }
        if (in->status < 400)
            PUT(out, "OAI-E01", TW_V_SKIP, -1, "not an error response");
    }
    if (kind == 'a' && in->status < 400) {
        if (stream)
            ant_stream(&j);
        else
            ant_response(&j, body);
    }
    if (kind == 'g' && in->status < 400)
        vln_checks(&j, body);
    if (kind == 'o') {
        cJSON *eb = stream ? NULL : body;
        ses_checks(&j, stream, eb);
    }
    if (in->status < 400)
        hermes_checks(&j, kind, stream);
    if (in->status < 400 && kind) {
        num_stream_spelling(&j, stream);
        num_model_values(&j, kind, stream);
    }
    cJSON_Delete(body);
    if (in->status >= 400) {
        char why[64];
        snprintf(why, sizeof why, "HTTP %d: an error response", in->status);
        tw_check_set_fill(out, false, why);
    }
    tw_xlt_skip(out, "not judged through an upstream (run --upstream)");
    tw_check_set_fill(out, false, kind == 'o'   ? "does not apply to this exchange"
                                  : kind == 'a' ? "does not apply to an Anthropic exchange"
                                  : kind == 'g' ? "does not apply to a /generate exchange"
                                                : "unknown endpoint");
    tw_check_set_sort(out);
}

tw_status tw_decode_response(const char *path, bool stream, const char *body, size_t len,
                             const tw_decode_opts *o, tw_result *out)
{
    char kind = tw_path_kind(path);
    const char *name = kind == 'o'   ? (stream ? "openai-stream" : "openai-response")
                       : kind == 'a' ? (stream ? "anthropic-stream" : "anthropic-response")
                       : kind == 'g' ? "vllm-generate"
                                     : NULL;
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

/* ================================================================ client checks */

static bool name_ok(const char *s)
{
    if (!s)
        return false;
    size_t n = strlen(s);
    if (n < 1 || n > 64)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
              c == '-'))
            return false;
    }
    return true;
}

static bool schema_object(const cJSON *p)
{
    const char *t = tw_json_get_str(p, "type");
    return cJSON_IsObject(p) && (!t || strcmp(t, "object") == 0);
}

static void cli_tools(char kind, const cJSON *body, tw_check_set *out)
{
    const cJSON *tools = tw_json_get(body, "tools");
    if (!cJSON_IsArray(tools) || !tools->child) {
        PUT(out, "CLI-03", TW_V_SKIP, -1, "no tools");
        PUT(out, "CLI-06", TW_V_SKIP, -1, "no tools");
        return;
    }
    size_t i = 0;
    for (const cJSON *t = tools->child; t; t = t->next, i++) {
        char ex[120];
        if (kind == 'g') {
            const cJSON *fn = tw_json_get(t, "function");
            const cJSON *def = fn ? fn : t;
            if (!name_ok(tw_json_get_str(def, "name"))) {
                excerpt_json(ex, sizeof ex, tw_json_get(def, "name"));
                PUT(out, "CLI-03", TW_V_FAIL, -1, "tools[%zu].name %s", i, ex);
                goto par;
            }
            const cJSON *p = tw_json_get(def, "parameters");
            if (p && !schema_object(p)) {
                PUT(out, "CLI-03", TW_V_FAIL, -1, "tools[%zu].parameters is not an object schema", i);
                goto par;
            }
        } else if (kind == 'a') {
            const char *ty = tw_json_get_str(t, "type");
            if (ty && strcmp(ty, "custom") != 0)
                continue; /* Anthropic server tools (web_search_…) have their own shape */
            if (!name_ok(tw_json_get_str(t, "name"))) {
                excerpt_json(ex, sizeof ex, tw_json_get(t, "name"));
                PUT(out, "CLI-03", TW_V_FAIL, -1, "tools[%zu].name %s", i, ex);
                goto par;
            }
            if (!schema_object(tw_json_get(t, "input_schema"))) {
                PUT(out, "CLI-03", TW_V_FAIL, -1, "tools[%zu].input_schema is not an object schema", i);
                goto par;
            }
        } else {
            const char *ty = tw_json_get_str(t, "type");
            const cJSON *fn = tw_json_get(t, "function");
            if (!ty || strcmp(ty, "function") != 0) {
                PUT(out, "CLI-03", TW_V_FAIL, -1, "tools[%zu].type is %.40s", i, ty ? ty : "(absent)");
                goto par;
            }
            if (!name_ok(tw_json_get_str(fn, "name"))) {
                excerpt_json(ex, sizeof ex, tw_json_get(fn, "name"));
                PUT(out, "CLI-03", TW_V_FAIL, -1, "tools[%zu].function.name %s", i, ex);
                goto par;
            }
            const cJSON *p = tw_json_get(fn, "parameters");
            if (p && !schema_object(p)) {
                PUT(out, "CLI-03", TW_V_FAIL, -1, "tools[%zu].function.parameters is not an object schema", i);
                goto par;
            }
        }
    }
    PUT(out, "CLI-03", TW_V_PASS, -1, "%zu tool definition(s)", i);
par:
    if (kind == 'a' || kind == 'g')
        PUT(out, "CLI-06", TW_V_SKIP, -1, "%s", kind == 'a' ? "Anthropic request" : "/generate request");
    else if (tw_json_get(body, "parallel_tool_calls"))
        PUT(out, "CLI-06", TW_V_PASS, -1, "parallel_tool_calls: %s",
            cJSON_IsTrue(tw_json_get(body, "parallel_tool_calls")) ? "true" : "false");
    else
        PUT(out, "CLI-06", TW_V_FAIL, -1, "tools present, parallel_tool_calls not set");
}

/* A client check that did not fail on the way: pass when it had something
 * to judge, skip when not. */
static void put_unfailed(tw_check_set *out, const char *id, bool unfailed, bool judged,
                         const char *pass_why, const char *skip_why)
{
    if (unfailed)
        PUT(out, id, judged ? TW_V_PASS : TW_V_SKIP, -1, "%s", judged ? pass_why : skip_why);
}

/* A client check that could not build its id index. */
static void put_nomem(tw_check_set *out, const char *id, bool *unfailed)
{
    if (*unfailed)
        PUT(out, id, TW_V_SKIP, -1, "out of memory while indexing ids");
    *unfailed = false;
}

static void cli_openai(const cJSON *msgs, tw_check_set *out)
{
    bool any_tool = false, any_calls = false, c01 = true, c02 = true, c04 = true;
    const cJSON *prev_asst = NULL; /* the assistant message the current tool run answers */
    id_index asst_ids = {0};       /* ids of prev_asst's calls */
    size_t i = 0;
    for (const cJSON *m = msgs->child; m; m = m->next, i++) {
        const char *role = tw_json_get_str(m, "role");
        if (!role)
            continue;
        if (strcmp(role, "assistant") == 0) {
            /* calls of the previous assistant message must be answered by now */
            prev_asst = m;
            const cJSON *tcs = tw_json_get(m, "tool_calls");
            idx_free(&asst_ids);
            idx_of_list(&asst_ids, tcs, "id");
            if (asst_ids.nomem)
                put_nomem(out, "CLI-01", &c01);
            /* the run of tool messages that follows, read once for all the calls */
            id_index run = {0};
            bool moved_on = false, any_after = m->next != NULL;
            if (cJSON_IsArray(tcs) && tcs->child) {
                for (const cJSON *n = m->next; n; n = n->next) {
                    const char *r = tw_json_get_str(n, "role");
                    if (!r || strcmp(r, "tool") != 0) {
                        moved_on = true;
                        break;
                    }
                    idx_add(&run, tw_json_get_str(n, "tool_call_id"));
                }
                idx_seal(&run);
                if (run.nomem)
                    put_nomem(out, "CLI-02", &c02);
            }
            size_t k = 0;
            for (const cJSON *c = cJSON_IsArray(tcs) ? tcs->child : NULL; c; c = c->next, k++) {
                any_calls = true;
                const cJSON *a = tw_json_get(tw_json_get(c, "function"), "arguments");
                cJSON *v = cJSON_IsString(a) ? parse_json(a->valuestring, strlen(a->valuestring), 64) : NULL;
                if (c04 && !cJSON_IsObject(v)) {
                    char ex[120];
                    excerpt_json(ex, sizeof ex, a);
                    PUT(out, "CLI-04", TW_V_FAIL, -1, "messages[%zu].tool_calls[%zu].function.arguments %s: %s", i,
                        k, cJSON_IsString(a) ? "is not a JSON object string" : "is not a string", ex);
                    c04 = false;
                }
                cJSON_Delete(v);
                /* CLI-02: answered by the tool messages that follow, before the next turn */
                const char *id = tw_json_get_str(c, "id");
                bool answered = idx_has(&run, id);
                if (!answered && any_after && c02) {
                    PUT(out, "CLI-02", TW_V_FAIL, -1, "tool call %.64s of messages[%zu] is not answered%s",
                        id ? id : "(no id)", i, moved_on ? " before the next turn" : "");
                    c02 = false;
                }
            }
            idx_free(&run);
        } else if (strcmp(role, "tool") == 0) {
            any_tool = true;
            const char *id = tw_json_get_str(m, "tool_call_id");
            if (c01 && (!prev_asst || !idx_has(&asst_ids, id))) {
                PUT(out, "CLI-01", TW_V_FAIL, -1, "messages[%zu] answers %.64s, not a call of the previous assistant message",
                    i, id ? id : "(no tool_call_id)");
                c01 = false;
            }
        } else if (strcmp(role, "user") == 0) {
            prev_asst = NULL;
            idx_free(&asst_ids);
        }
    }
    idx_free(&asst_ids);
    put_unfailed(out, "CLI-01", c01, any_tool, "every tool message answers a call", "no tool messages");
    put_unfailed(out, "CLI-02", c02, any_calls, "every call answered in time", "no tool calls in history");
    put_unfailed(out, "CLI-04", c04, any_calls, "arguments are JSON strings", "no tool calls in history");
    PUT(out, "CLI-05", TW_V_SKIP, -1, "OpenAI request");
}

static void cli_anthropic(const cJSON *msgs, tw_check_set *out)
{
    bool any_use = false, any_result = false, c01 = true, c02 = true, c05 = true;
    const cJSON *last_other = NULL; /* the last message before m whose role is not user */
    const cJSON *indexed = NULL;    /* the message prev_ids indexes */
    id_index prev_ids = {0};
    size_t i = 0;
    for (const cJSON *m = msgs->child; m; m = m->next, i++) {
        const char *role = tw_json_get_str(m, "role");
        const cJSON *content = tw_json_get(m, "content");
        const cJSON *prev = last_other;
        if (!role || strcmp(role, "user") != 0)
            last_other = m;
        if (!role || !cJSON_IsArray(content))
            continue;
        if (strcmp(role, "assistant") == 0) {
            const cJSON *next = m->next;
            /* results may sit in the user messages up to the next assistant turn:
             * their ids are read once for all of this message's tool_use blocks */
            id_index results = {0};
            bool indexed_results = false;
            for (const cJSON *b = content->child; b; b = b->next) {
                const char *t = tw_json_get_str(b, "type");
                if (!t || strcmp(t, "tool_use") != 0)
                    continue;
                any_use = true;
                if (!next)
                    continue; /* pending: the request asks for this turn */
                if (!indexed_results) {
                    indexed_results = true;
                    for (const cJSON *u = next; u; u = u->next) {
                        const char *ur = tw_json_get_str(u, "role");
                        if (!ur || strcmp(ur, "user") != 0)
                            break;
                        const cJSON *uc = tw_json_get(u, "content");
                        for (const cJSON *r = cJSON_IsArray(uc) ? uc->child : NULL; r; r = r->next)
                            if (tw_json_get_str(r, "type") && strcmp(tw_json_get_str(r, "type"), "tool_result") == 0)
                                idx_add(&results, tw_json_get_str(r, "tool_use_id"));
                    }
                    idx_seal(&results);
                    if (results.nomem)
                        put_nomem(out, "CLI-02", &c02);
                }
                const char *id = tw_json_get_str(b, "id");
                bool found = idx_has(&results, id);
                if (!found && c02) {
                    PUT(out, "CLI-02", TW_V_FAIL, -1, "tool_use %.64s of messages[%zu] is not answered before the next assistant turn",
                        id ? id : "(no id)", i);
                    c02 = false;
                }
            }
            idx_free(&results);
        } else if (strcmp(role, "user") == 0) {
            bool seen_other = false;
            size_t k = 0;
            const cJSON *pcontent = prev ? tw_json_get(prev, "content") : NULL;
            if (prev != indexed) {
                /* the ids of the assistant message these results answer, once */
                indexed = prev;
                idx_free(&prev_ids);
                idx_of_list(&prev_ids, pcontent, "id");
                if (prev_ids.nomem)
                    put_nomem(out, "CLI-01", &c01);
            }
            for (const cJSON *b = content->child; b; b = b->next, k++) {
                const char *t = tw_json_get_str(b, "type");
                bool is_res = t && strcmp(t, "tool_result") == 0;
                if (!is_res) {
                    seen_other = true;
                    continue;
                }
                any_result = true;
                if (seen_other && c05) {
                    PUT(out, "CLI-05", TW_V_FAIL, -1, "messages[%zu].content[%zu]: tool_result after other blocks", i, k);
                    c05 = false;
                }
                const char *id = tw_json_get_str(b, "tool_use_id");
                const char *prole = prev ? tw_json_get_str(prev, "role") : NULL;
                if (c01 && (!prole || strcmp(prole, "assistant") != 0 || !cJSON_IsArray(pcontent) ||
                            !idx_has(&prev_ids, id))) {
                    PUT(out, "CLI-01", TW_V_FAIL, -1, "messages[%zu].content[%zu] answers %.64s, not a tool_use of the previous assistant message",
                        i, k, id ? id : "(no tool_use_id)");
                    c01 = false;
                }
            }
        }
    }
    idx_free(&prev_ids);
    /* results split over several user messages */
    if (c05) {
        const cJSON *prev_user_with_results = NULL;
        for (const cJSON *m = msgs->child; m; m = m->next) {
            const char *role = tw_json_get_str(m, "role");
            bool has_res = false;
            const cJSON *content = tw_json_get(m, "content");
            for (const cJSON *b = cJSON_IsArray(content) ? content->child : NULL; b; b = b->next)
                if (tw_json_get_str(b, "type") && strcmp(tw_json_get_str(b, "type"), "tool_result") == 0)
                    has_res = true;
            if (role && strcmp(role, "user") == 0 && has_res) {
                if (prev_user_with_results && prev_user_with_results->next == m) {
                    PUT(out, "CLI-05", TW_V_FAIL, -1, "tool results split over consecutive user messages");
                    c05 = false;
                    break;
                }
                prev_user_with_results = m;
            }
        }
    }
    put_unfailed(out, "CLI-01", c01, any_result, "every tool_result answers a tool_use", "no tool results");
    put_unfailed(out, "CLI-02", c02, any_use, "every tool_use answered", "no tool_use in history");
    put_unfailed(out, "CLI-05", c05, any_result, "tool_result blocks first, one message", "no tool results");
    PUT(out, "CLI-04", TW_V_SKIP, -1, "Anthropic request (input is an object)");
}

void tw_checks_client(const char *path, const cJSON *body, tw_check_set *out)
{
    char kind = tw_path_kind(path);
    const cJSON *msgs = tw_json_get(body, "messages");
    if (!cJSON_IsObject(body) || (kind != 'o' && kind != 'a') || !cJSON_IsArray(msgs)) {
        static const char *const ids[] = {"CLI-01", "CLI-02", "CLI-03", "CLI-04", "CLI-05", "CLI-06"};
        cli_tools(kind == 'a' || kind == 'g' ? kind : 'o', body, out);
        skip_ids(out, ids, 6, kind == 'g' ? "/generate request" : "not a chat request");
        return;
    }
    cli_tools(kind, body, out);
    if (kind == 'a')
        cli_anthropic(msgs, out);
    else
        cli_openai(msgs, out);
}
