/*
 * Text formats: think-tag splitting and tool-call blocks, as one push
 * decoder in two layers. The think layer reads raw bytes and passes public
 * text on; the call layer reads public text and produces content and calls.
 * Batch decoding is the same machine fed once, so both give one result.
 * The rules are in docs/text-formats.md.
 */
#include "alloc.h"
#include "toolwire/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "hash.h"
#include "text_int.h"
#include "utf8.h"
#include "wire_common.h"
#include "work.h"
#include "toolwire/decode.h"

#define NPOS ((size_t)-1)

static const char OPEN_THINK[] = "<think>";
static const char OPEN_THINKING[] = "<thinking>";
static const char CLOSE_THINK[] = "</think>";
static const char CLOSE_THINKING[] = "</thinking>";
static const char HERMES_OPEN[] = "<tool_call>";
static const char HERMES_CLOSE[] = "</tool_call>";
static const char FENCED_OPEN[] = "```tool_call";
static const char FENCED_CLOSE[] = "```";

#define SLEN(s) (sizeof(s) - 1)

enum { JP_PRE = 0, JP_JSON, JP_POST, JP_DONE, JP_FAILED };

/* ===================== small helpers ===================== */

static void fire(tw_text_dec *d, tw_event_kind k, const char *t, size_t n, const tw_call *c,
                 const tw_diag *g)
{
    tw_event ev = {k, t, n, c, g};
    tw_event_deliver(d->fn, d->user, &d->stop, &ev);
}

static tw_status add_diag(tw_text_dec *d, bool error, tw_status code, int64_t off, const char *msg)
{
    tw_diag_list *l = error ? &d->res.errors : &d->res.warnings;
    size_t before = l->len;
    tw_status st = tw_diag_add(l, code, off, msg);
    if (st == TW_OK && l->len > before)
        fire(d, error ? TW_EV_ERROR : TW_EV_WARNING, NULL, 0, NULL, &l->items[l->len - 1]);
    return st;
}

static const char *opener(const tw_text_dec *d, size_t *n)
{
    if (d->kind == TW_TEXT_FENCED) {
        *n = SLEN(FENCED_OPEN);
        return FENCED_OPEN;
    }
    *n = SLEN(HERMES_OPEN);
    return HERMES_OPEN;
}

static const char *closer(const tw_text_dec *d, size_t *n)
{
    if (d->kind == TW_TEXT_FENCED) {
        *n = SLEN(FENCED_CLOSE);
        return FENCED_CLOSE;
    }
    *n = SLEN(HERMES_CLOSE);
    return HERMES_CLOSE;
}

static bool ident_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
}

/*
 * The first lit[0, n) in h[0, len), or NULL (n >= 1). The tags searched for
 * in text start with a byte that is rare in it ('<', '`'), so each candidate
 * is found with memchr and compared in place: a pass over text without
 * that byte runs at memchr's rate, and every byte is still read a bounded
 * number of times (at most n compares at each candidate). *any is set when
 * lit[0] occurs in the bytes searched (all of h[0, len) when NULL is
 * returned) and left as it is otherwise.
 */
static const char *find_tag_any(const char *h, size_t len, const char *lit, size_t n, bool *any)
{
    const char *p = h, *end = h + len;
    while ((size_t)(end - p) >= n) {
        const char *f = memchr(p, lit[0], (size_t)(end - p) - n + 1);
        if (!f)
            break;
        *any = true;
        if (memcmp(f + 1, lit + 1, n - 1) == 0) {
            TW_WORK((size_t)(f - h) + n);
            return f;
        }
        p = f + 1;
    }
    /* the last n - 1 bytes may still hold lit[0] */
    if (len && memchr(len >= n ? end - n + 1 : h, lit[0], len >= n ? n - 1 : len))
        *any = true;
    TW_WORK(len);
    return NULL;
}

static const char *find_tag(const char *h, size_t len, const char *lit, size_t n)
{
    bool any = false;
    return find_tag_any(h, len, lit, n, &any);
}

/* ===================== content and thinking emission ===================== */

/*
 * Append to a result buffer: one copy, in pieces of at most 256 KiB, so
 * that a long text is not copied with the cache-bypassing stores a single
 * large memcpy uses (slower into a buffer already in the cache, as a
 * recycled one is).
 */
static tw_status out_append(tw_buf *b, const char *p, size_t n)
{
    enum { PIECE = 256 * 1024 };
    if (n <= PIECE)
        return tw_buf_append(b, p, n);
    tw_status st = tw_buf_reserve(b, n);
    if (st != TW_OK)
        return st;
    for (size_t off = 0; off < n; off += PIECE)
        memcpy(b->data + b->len + off, p + off, n - off < PIECE ? n - off : PIECE);
    b->len += n;
    b->data[b->len] = '\0';
    return TW_OK;
}

static tw_status content_out(tw_text_dec *d, const char *p, size_t n)
{
    tw_status st = out_append(&d->res.msg.content, p, n);
    if (st == TW_OK)
        fire(d, TW_EV_CONTENT, p, n, NULL, NULL);
    return st;
}

/* Content is trimmed lazily: leading whitespace is dropped, trailing
 * whitespace is held until something else follows it. */
static tw_status emit_content(tw_text_dec *d, const char *p, size_t n, uint64_t off)
{
    tw_status st = TW_OK;
    if (d->c_bare_hold) {
        for (size_t i = 0; !d->c_bare_nonws && i < n; i++)
            if (!tw_is_space((unsigned char)p[i])) {
                d->c_bare_off = off + i;
                d->c_bare_nonws = true;
            }
        return tw_buf_append(&d->c_bare, p, n);
    }
    while (n && st == TW_OK) {
        if (!d->c_any) {
            while (n && tw_is_space((unsigned char)*p)) {
                p++;
                n--;
            }
            if (!n)
                break;
        }
        size_t end = n;
        while (end && tw_is_space((unsigned char)p[end - 1]))
            end--;
        if (end == 0) {
            st = tw_buf_append(&d->c_ws, p, n);
            break;
        }
        if (d->c_ws.len) {
            st = content_out(d, d->c_ws.data, d->c_ws.len);
            tw_buf_reset(&d->c_ws);
        }
        if (st == TW_OK)
            st = content_out(d, p, end);
        d->c_any = true;
        if (st == TW_OK && end < n)
            st = tw_buf_append(&d->c_ws, p + end, n - end);
        break;
    }
    return st;
}

static tw_status thinking_out(tw_text_dec *d, const char *p, size_t n)
{
    tw_status st = out_append(&d->res.msg.thinking, p, n);
    if (st == TW_OK)
        fire(d, TW_EV_THINKING, p, n, NULL, NULL);
    return st;
}

/* Per block: leading whitespace dropped, trailing held; non-empty blocks
 * are joined with "\n". `closes`: p ends the block, so its trailing
 * whitespace is skipped, never held. */
static tw_status emit_thinking(tw_text_dec *d, const char *p, size_t n, bool closes)
{
    tw_status st = TW_OK;
    if (!d->th_block) {
        while (n && tw_is_space((unsigned char)*p)) {
            p++;
            n--;
        }
        if (!n)
            return TW_OK;
    }
    size_t end = n;
    while (end && tw_is_space((unsigned char)p[end - 1]))
        end--;
    if (end == 0)
        return closes ? TW_OK : tw_buf_append(&d->th_ws, p, n);
    if (!d->th_block) {
        if (d->th_any)
            st = thinking_out(d, "\n", 1);
        d->th_block = true;
        d->th_any = true;
    } else if (d->th_ws.len) {
        st = thinking_out(d, d->th_ws.data, d->th_ws.len);
    }
    tw_buf_reset(&d->th_ws);
    if (st == TW_OK)
        st = thinking_out(d, p, end);
    if (st == TW_OK && end < n && !closes)
        st = tw_buf_append(&d->th_ws, p + end, n - end);
    return st;
}

static void end_thinking_block(tw_text_dec *d)
{
    d->th_block = false;
    tw_buf_reset(&d->th_ws);
}

/* ===================== calls ===================== */

/* One parsed call object, accepted or refused by the rules every decoder
 * shares (calls.h); its arguments are moved out of it, never copied. The
 * payload was parsed with d->L.max_depth from at most src_len bytes. */
static tw_status take_call(tw_text_dec *d, cJSON *obj, int64_t off, size_t src_len)
{
    tw_wire_sink k = {&d->res, &d->o, &d->L, d->fn, d->user, &d->stop};
    return tw_call_take_parsed(&k, obj, off, src_len);
}

/* A parsed payload (read from at most src_len bytes): an object is one
 * call, an array several. */
static tw_status take_payload(tw_text_dec *d, cJSON *v, int64_t off, const tw_json_lint *lint,
                              size_t src_len)
{
    if (lint->nonstd_offset >= 0) {
        char m[160];
        snprintf(m, sizeof m, "tool call payload is not RFC 8259 JSON: %s at its byte %lld",
                 lint->nonstd_what, (long long)lint->nonstd_offset);
        tw_status st = add_diag(d, false, TW_D_JSON_NOT_RFC8259, off, m);
        if (st != TW_OK)
            return st;
    }
    if (cJSON_IsArray(v) && tw_json_tainted(v)) {
        /* an element that was a string with U+0000 was removed */
        tw_status st = add_diag(d, true, TW_D_JSON_NUL, off,
                                "tool call payload array held a string with U+0000; it was refused");
        if (st != TW_OK)
            return st;
    }
    if (cJSON_IsObject(v))
        return take_call(d, v, off, src_len);
    if (cJSON_IsArray(v)) {
        tw_status st = TW_OK;
        for (cJSON *e = v->child; st == TW_OK && e; e = e->next)
            st = take_call(d, e, off, src_len);
        return st;
    }
    return add_diag(d, true, TW_D_TOOL_CALL_JSON, off,
                    "tool call payload is not a JSON object or array");
}

/* Strip whitespace and, for Hermes, one code fence around a payload. */
static void strip_payload(const tw_text_dec *d, const char **p, size_t *n)
{
    tw_trim(p, n);
    if (d->kind == TW_TEXT_FENCED)
        return;
    const char *s = *p;
    size_t len = *n;
    if (len >= 3 && memcmp(s, "```", 3) == 0) {
        s += 3;
        len -= 3;
        if (len >= 4 && memcmp(s, "json", 4) == 0) {
            s += 4;
            len -= 4;
        }
        if (len >= 3 && memcmp(s + len - 3, "```", 3) == 0)
            len -= 3;
        tw_trim(&s, &len);
        *p = s;
        *n = len;
    }
}

/*
 * Parse a payload by rule 2: stripped, then the first balanced value.
 * Returns the value or NULL; *deep tells whether depth was the reason.
 */
static uint64_t blk_input_off(const tw_text_dec *d, size_t idx);

/*
 * Control bytes around a payload's value (cJSON skips them as whitespace) lie
 * outside the JSON: drop them before the value is parsed and judged, so a
 * payload gets the same diagnostics whichever path decided its block (the
 * scanner's value range, or the literal closing tag).
 */
static void trim_ctl(const char **p, size_t *n)
{
    while (*n && (unsigned char)(*p)[0] >= 1 && (unsigned char)(*p)[0] <= 0x20) {
        (*p)++;
        (*n)--;
    }
    while (*n && (unsigned char)(*p)[*n - 1] >= 1 && (unsigned char)(*p)[*n - 1] <= 0x20)
        (*n)--;
}

/*
 * Parse a block's payload (the first-balanced retry when retry is set).
 * TW_OK with *out the value, or *out NULL and the rejection in why (code
 * json_too_deep or tool_call_json, message the parser's reason and where);
 * TW_ERR_NOMEM is the only failure.
 */
static tw_status parse_payload(const tw_text_dec *d, const char *p, size_t n, bool retry,
                               cJSON **out, tw_error *why, tw_json_lint *lint)
{
    tw_error e;
    cJSON *v = NULL;
    *out = NULL;
    strip_payload(d, &p, &n);
    trim_ctl(&p, &n);
    tw_status st = tw_json_parse_lint(p, n, d->L.max_depth, &v, &e, lint);
    if (st == TW_OK) {
        *out = v;
        return TW_OK;
    }
    if (st == TW_ERR_NOMEM)
        return TW_ERR_NOMEM;
    bool deep = e.code == TW_D_JSON_TOO_DEEP;
    tw_status code = deep ? TW_D_JSON_TOO_DEEP : TW_D_TOOL_CALL_JSON;
    size_t eo = e.offset >= 0 ? (size_t)e.offset : 0;
    /* the parser counts inside the payload: say so, and where that is in the
     * input when the payload lies in the block buffer */
    char where[48] = "";
    if (d->c_blk.data && p >= d->c_blk.data && p <= d->c_blk.data + d->c_blk.len)
        snprintf(where, sizeof where, " (byte %llu of the input)",
                 (unsigned long long)blk_input_off(d, (size_t)(p - d->c_blk.data) + eo));
    static const char pre[] = "invalid JSON at byte ";
    const char *rest = strncmp(e.message, pre, sizeof pre - 1) == 0 ? strstr(e.message, ": ") : NULL;
    if (rest)
        tw_error_set(why, code, (int64_t)eo, NULL, "invalid JSON at byte %zu of the payload%s: %s",
                     eo, where, rest + 2);
    else
        tw_error_set(why, code, (int64_t)eo, NULL, "%.127s, at byte %zu of the payload%s",
                     e.message, eo, where);
    if (!retry || deep)
        return TW_OK;
    size_t a, b;
    if (tw_json_first_balanced(p, n, d->L.max_depth, &a, &b)) {
        st = tw_json_parse_lint(p + a, b - a, d->L.max_depth, &v, &e, lint);
        if (st == TW_OK) {
            *out = v;
            return TW_OK;
        }
        if (st == TW_ERR_NOMEM)
            return TW_ERR_NOMEM;
        if (e.code == TW_D_JSON_TOO_DEEP)
            why->code = TW_D_JSON_TOO_DEEP;
    }
    return TW_OK;
}

static tw_status decide_payload(tw_text_dec *d, const char *p, size_t n, bool retry,
                                tw_status fail_code)
{
    tw_error why;
    tw_json_lint lint;
    cJSON *v;
    tw_status st = parse_payload(d, p, n, retry, &v, &why, &lint);
    if (st != TW_OK)
        return st;
    if (!v) {
        if (why.code == TW_D_JSON_TOO_DEEP)
            return add_diag(d, true, TW_D_JSON_TOO_DEEP, d->c_block_off,
                            "tool call payload nested deeper than max_depth");
        char m[400];
        snprintf(m, sizeof m, "%s: %.223s", tw_code_message(fail_code), why.message);
        return add_diag(d, true, fail_code, d->c_block_off, m);
    }
    st = take_payload(d, v, d->c_block_off, &lint, n);
    cJSON_Delete(v);
    return st;
}

/* ===================== qwen3-coder XML blocks ===================== */

/*
 * The XML reader of one <tool_call> block (TW_TEXT_QWEN_XML): it reads
 * c_blk forward from q_pos, resuming where it stopped, and records the
 * elements it finds in q_ev. It never reads a byte twice except the bytes
 * of a JSON-aware value that falls back to the XML rule (read once more).
 */
static const char Q_FN_OPEN[] = "<function=";
static const char Q_FN_CLOSE[] = "</function>";
static const char Q_P_OPEN[] = "<parameter=";
static const char Q_P_CLOSE[] = "</parameter>";

enum { Q_OUT = 0, Q_NAME, Q_VPRE, Q_VJSON, Q_VJPOST, Q_VAL, Q_DONE };
enum { QE_FUNC = 1, QE_FEND, QE_PARAM, QE_STRAY };

typedef struct q_elem {
    int kind;
    bool unclosed;  /* QE_PARAM: the value has no </parameter> */
    size_t a, b;    /* name (QE_FUNC, QE_PARAM), or the stray byte (QE_STRAY: a) */
    size_t va, vb;  /* QE_PARAM: the value as written, between '>' and </parameter> */
} q_elem;

/* 1: p starts with lit; 0: it does not; -1: the n bytes are a proper prefix of lit. */
static int q_match(const char *p, size_t n, const char *lit, size_t ln)
{
    if (n >= ln)
        return memcmp(p, lit, ln) == 0;
    return memcmp(p, lit, n) == 0 ? -1 : 0;
}

static tw_status q_note(tw_text_dec *d, int kind, size_t a, size_t b, size_t va, size_t vb,
                        bool unclosed)
{
    if (!d->q_record)
        return TW_OK;
    q_elem e = {kind, unclosed, a, b, va, vb};
    return tw_buf_append(&d->q_ev, &e, sizeof e);
}

static tw_status q_flush_stray(tw_text_dec *d)
{
    if (d->q_stray == NPOS)
        return TW_OK;
    size_t at = d->q_stray;
    d->q_stray = NPOS;
    return q_note(d, QE_STRAY, at, at, 0, 0, false);
}

/* The declared tool named c_blk[a, b) (trimmed), or NULL. */
static const tw_tool *q_find_tool(const tw_text_dec *d, size_t a, size_t b)
{
    const char *p = d->c_blk.data + a;
    size_t n = b - a;
    tw_trim(&p, &n);
    for (size_t i = 0; i < d->o.ntools; i++) {
        const char *nm = d->o.tools[i].name;
        if (nm && strlen(nm) == n && memcmp(nm, p, n) == 0)
            return &d->o.tools[i];
    }
    return NULL;
}

/* The schema of parameter `key` of tool t, or NULL when it declares none. */
static const cJSON *q_prop(const tw_tool *t, const char *key, size_t n)
{
    if (!t || !t->parameters)
        return NULL;
    const cJSON *props = tw_json_get(t->parameters, "properties");
    if (!cJSON_IsObject(props))
        return NULL;
    for (const cJSON *c = props->child; c; c = c->next)
        if (c->string && strlen(c->string) == n && memcmp(c->string, key, n) == 0)
            return c;
    return NULL;
}

enum { QT_STRING = 1, QT_INTEGER = 2, QT_NUMBER = 4, QT_BOOLEAN = 8, QT_OBJECT = 16,
       QT_ARRAY = 32, QT_NULL = 64 };

static unsigned q_type_bit(const cJSON *t)
{
    static const struct { const char *n; unsigned b; } names[] = {
        {"string", QT_STRING}, {"integer", QT_INTEGER}, {"number", QT_NUMBER},
        {"boolean", QT_BOOLEAN}, {"object", QT_OBJECT}, {"array", QT_ARRAY}, {"null", QT_NULL}};
    if (!cJSON_IsString(t))
        return 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(t->valuestring, names[i].n) == 0)
            return names[i].b;
    return 0;
}

/* The types a parameter's schema allows: its "type" (a name or an array of
 * names) and the "type" of each member of its "anyOf"/"oneOf". 0: none. */
static unsigned q_types(const cJSON *s)
{
    unsigned m = 0;
    if (!cJSON_IsObject(s))
        return 0;
    const cJSON *t = tw_json_get(s, "type");
    if (cJSON_IsArray(t)) {
        for (const cJSON *e = t->child; e; e = e->next)
            m |= q_type_bit(e);
    } else {
        m |= q_type_bit(t);
    }
    static const char *const unions[] = {"anyOf", "oneOf"};
    for (size_t u = 0; u < 2; u++) {
        const cJSON *a = tw_json_get(s, unions[u]);
        if (!cJSON_IsArray(a))
            continue;
        for (const cJSON *e = a->child; e; e = e->next) {
            const cJSON *et = cJSON_IsObject(e) ? tw_json_get(e, "type") : NULL;
            if (cJSON_IsArray(et)) {
                for (const cJSON *x = et->child; x; x = x->next)
                    m |= q_type_bit(x);
            } else {
                m |= q_type_bit(et);
            }
        }
    }
    return m;
}

/* A whitespace run: how far from i it goes in c_blk. */
static size_t q_skip_ws(const char *b, size_t i, size_t len)
{
    while (i < len && tw_is_space((unsigned char)b[i]))
        i++;
    return i;
}

/* What follows a </parameter> (from its end, whitespace skipped): 1 closes the
 * value, 0 does not, -1 undecided. `final`: nothing more will come. */
static int q_follower(const char *b, size_t k, size_t len, bool final)
{
    if (k == len)
        return final ? 1 : -1;
    const char *lits[] = {Q_P_OPEN, Q_FN_CLOSE, HERMES_CLOSE, Q_FN_OPEN};
    const size_t lens[] = {SLEN(Q_P_OPEN), SLEN(Q_FN_CLOSE), SLEN(HERMES_CLOSE), SLEN(Q_FN_OPEN)};
    bool wait = false;
    for (size_t i = 0; i < 4; i++) {
        int r = q_match(b + k, len - k, lits[i], lens[i]);
        if (r == 1)
            return 1;
        if (r < 0)
            wait = true;
    }
    return wait && !final ? -1 : 0;
}

/* A value starts at q_vstart: JSON-aware when the schema says object or array. */
static void q_value_begin(tw_text_dec *d)
{
    const cJSON *prop = q_prop(d->q_tool, d->c_blk.data + d->q_pa, d->q_pb - d->q_pa);
    unsigned m = q_types(prop);
    d->q_pos = d->q_vstart;
    d->q_scan = d->q_vstart;
    d->q_cand = NPOS;
    d->q_st = (m & (QT_OBJECT | QT_ARRAY)) ? Q_VPRE : Q_VAL;
}

/* The XML rule for the open value, from q_vstart (also the JSON-aware fallback). */
static void q_value_xml(tw_text_dec *d)
{
    d->q_st = Q_VAL;
    d->q_scan = d->q_vstart;
    d->q_cand = NPOS;
}

/*
 * Read c_blk on from q_pos. Stops in Q_DONE (q_end set) or when it needs more
 * bytes; `final` resolves what waits for bytes that will not come.
 * TW_ERR_NOMEM is the only failure.
 */
static tw_status q_advance(tw_text_dec *d, bool final)
{
    const char *b = d->c_blk.data;
    size_t len = d->c_blk.len;
    tw_status st = TW_OK;
    if (!b)
        return TW_OK;
    while (st == TW_OK && d->q_st != Q_DONE) {
        size_t i = d->q_pos;
        switch (d->q_st) {
        case Q_OUT: {
            const char *lt = i < len ? memchr(b + i, '<', len - i) : NULL;
            size_t stop = lt ? (size_t)(lt - b) : len;
            TW_WORK(stop - i);
            if (d->q_stray == NPOS)
                for (size_t k = i; k < stop; k++)
                    if (!tw_is_space((unsigned char)b[k])) {
                        d->q_stray = k;
                        break;
                    }
            d->q_pos = stop;
            if (!lt)
                return TW_OK;
            int rc = q_match(lt, len - stop, HERMES_CLOSE, SLEN(HERMES_CLOSE));
            int rf = q_match(lt, len - stop, Q_FN_OPEN, SLEN(Q_FN_OPEN));
            int re = q_match(lt, len - stop, Q_FN_CLOSE, SLEN(Q_FN_CLOSE));
            int rp = q_match(lt, len - stop, Q_P_OPEN, SLEN(Q_P_OPEN));
            if (!final && (rc < 0 || rf < 0 || re < 0 || rp < 0))
                return TW_OK; /* wait at the '<' */
            if (rc == 1) {
                st = q_flush_stray(d);
                d->q_end = stop + SLEN(HERMES_CLOSE);
                d->q_st = Q_DONE;
            } else if (rf == 1 || rp == 1) {
                st = q_flush_stray(d);
                d->q_fn = rf == 1;
                d->q_name = stop + (rf == 1 ? SLEN(Q_FN_OPEN) : SLEN(Q_P_OPEN));
                d->q_scan = d->q_name;
                d->q_pos = d->q_name;
                d->q_st = Q_NAME;
            } else if (re == 1) {
                st = q_flush_stray(d);
                if (st == TW_OK)
                    st = q_note(d, QE_FEND, stop, stop, 0, 0, false);
                d->q_tool = NULL;
                d->q_pos = stop + SLEN(Q_FN_CLOSE);
            } else {
                if (d->q_stray == NPOS)
                    d->q_stray = stop;
                d->q_pos = stop + 1;
            }
            break;
        }
        case Q_NAME: {
            const char *gt = d->q_scan < len ? memchr(b + d->q_scan, '>', len - d->q_scan) : NULL;
            if (!gt) {
                TW_WORK(len - d->q_scan);
                d->q_scan = len;
                return TW_OK; /* at the end of the input the block is unterminated */
            }
            size_t g = (size_t)(gt - b);
            TW_WORK(g - d->q_scan);
            if (d->q_fn) {
                d->q_nfunc++;
                d->q_tool = q_find_tool(d, d->q_name, g);
                st = q_note(d, QE_FUNC, d->q_name, g, 0, 0, false);
                d->q_pos = g + 1;
                d->q_st = Q_OUT;
            } else {
                d->q_pa = d->q_name;
                d->q_pb = g;
                d->q_vstart = g + 1;
                q_value_begin(d);
            }
            break;
        }
        case Q_VPRE: {
            size_t k = q_skip_ws(b, i, len);
            TW_WORK(k - i);
            d->q_pos = k;
            if (k == len) {
                if (!final)
                    return TW_OK;
                q_value_xml(d);
                break;
            }
            if (b[k] != '{' && b[k] != '[') {
                q_value_xml(d);
                break;
            }
            memset(&d->c_jscan, 0, sizeof d->c_jscan);
            d->c_jscan.max_depth = d->L.max_depth;
            d->q_jpos = k;
            d->q_st = Q_VJSON;
            break;
        }
        case Q_VJSON: {
            size_t used = 0;
            tw_jscan_result r = tw_jscan_feed(&d->c_jscan, b + d->q_jpos, len - d->q_jpos, &used);
            TW_WORK(used);
            d->q_jpos += used;
            if (r == TW_JSCAN_MORE) {
                if (!final)
                    return TW_OK;
                q_value_xml(d);
            } else if (r == TW_JSCAN_DONE) {
                d->q_jend = d->q_jpos;
                d->q_post = 0;
                d->q_st = Q_VJPOST;
            } else {
                q_value_xml(d);
            }
            break;
        }
        case Q_VJPOST: {
            size_t k = d->q_jpos;
            while (k < len && d->q_post == 0 && tw_is_space((unsigned char)b[k]))
                k++;
            while (k < len && d->q_post < SLEN(Q_P_CLOSE) && b[k] == Q_P_CLOSE[d->q_post]) {
                k++;
                d->q_post++;
            }
            TW_WORK(k - d->q_jpos);
            d->q_jpos = k;
            if (d->q_post == SLEN(Q_P_CLOSE)) {
                st = q_note(d, QE_PARAM, d->q_pa, d->q_pb, d->q_vstart, k - SLEN(Q_P_CLOSE), false);
                d->q_pos = k;
                d->q_st = Q_OUT;
            } else if (k == len && !final) {
                return TW_OK;
            } else {
                q_value_xml(d); /* something else follows the JSON value */
            }
            break;
        }
        case Q_VAL: {
            if (d->q_cand == NPOS) {
                size_t from = d->q_scan;
                const char *f = from < len ? tw_memmem(b + from, len - from, Q_P_CLOSE,
                                                       SLEN(Q_P_CLOSE))
                                           : NULL;
                if (!f) {
                    size_t keep = SLEN(Q_P_CLOSE) - 1;
                    size_t next = len > keep ? len - keep : 0;
                    TW_WORK(len - from);
                    d->q_scan = next > from ? next : from;
                    return TW_OK; /* at the end of the input the value is unclosed */
                }
                d->q_cand = (size_t)(f - b);
                TW_WORK(d->q_cand - from);
                d->q_ws = d->q_cand + SLEN(Q_P_CLOSE);
            }
            size_t k = q_skip_ws(b, d->q_ws, len);
            TW_WORK(k - d->q_ws);
            d->q_ws = k;
            int r = q_follower(b, k, len, final);
            if (r < 0)
                return TW_OK;
            if (r == 1) {
                st = q_note(d, QE_PARAM, d->q_pa, d->q_pb, d->q_vstart, d->q_cand, false);
                d->q_pos = d->q_cand + SLEN(Q_P_CLOSE);
                d->q_cand = NPOS;
                d->q_st = Q_OUT;
            } else {
                d->q_scan = d->q_cand + 1;
                d->q_cand = NPOS;
            }
            break;
        }
        default:
            return TW_OK;
        }
    }
    return st;
}

/* Is the reader inside a parameter value? */
static bool q_in_value(const tw_text_dec *d)
{
    return d->q_st == Q_VPRE || d->q_st == Q_VJSON || d->q_st == Q_VJPOST || d->q_st == Q_VAL;
}

/* One value with one leading and one trailing line break removed (the
 * templates write the value on its own lines): "\n", or "\r\n" when the
 * output uses CRLF. A lone "\r" is not a line break and stays. */
static void q_strip_nl(const char **p, size_t *n)
{
    if (*n >= 2 && (*p)[0] == '\r' && (*p)[1] == '\n') {
        *p += 2;
        *n -= 2;
    } else if (*n && (*p)[0] == '\n') {
        (*p)++;
        (*n)--;
    }
    if (*n && (*p)[*n - 1] == '\n')
        *n -= *n >= 2 && (*p)[*n - 2] == '\r' ? 2 : 1;
}

static bool q_is(const char *p, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(p, lit, n) == 0;
}

/*
 * Append one value, typed by the parameter's schema types m (0: none). Sets
 * *untyped when no type was declared, *mistyped when the text did not read as
 * any declared type but string; both keep the value as a JSON string.
 * *as_str says whether the value was written as a JSON string (where an
 * invalid UTF-8 byte becomes U+FFFD).
 */
static tw_status q_put_value(tw_buf *out, unsigned m, const char *p, size_t n, size_t max_depth,
                             bool *untyped, bool *mistyped, bool *as_str)
{
    *as_str = false;
    if (!m) {
        *untyped = *as_str = true;
        return tw_json_write_str(out, p, n, 0);
    }
    const char *t = p;
    size_t tn = n;
    tw_trim(&t, &tn);
    if ((m & QT_NULL) && (q_is(t, tn, "null") || q_is(t, tn, "None")))
        return tw_buf_puts(out, "null");
    if (m & QT_BOOLEAN) {
        if (q_is(t, tn, "true") || q_is(t, tn, "True"))
            return tw_buf_puts(out, "true");
        if (q_is(t, tn, "false") || q_is(t, tn, "False"))
            return tw_buf_puts(out, "false");
    }
    if ((m & (QT_INTEGER | QT_NUMBER)) && tw_json_number_valid(t, tn) &&
        ((m & QT_NUMBER) || tw_json_number_is_integer(t, tn)))
        return tw_buf_append(out, t, tn);
    if ((m & (QT_OBJECT | QT_ARRAY)) && tn && (t[0] == '{' || t[0] == '[')) {
        cJSON *v = NULL;
        tw_error e;
        tw_error_clear(&e);
        tw_status ps = tw_json_parse(t, tn, max_depth, &v, &e);
        if (ps == TW_ERR_NOMEM)
            return ps;
        bool ok = ps == TW_OK && (((m & QT_OBJECT) && cJSON_IsObject(v)) ||
                                  ((m & QT_ARRAY) && cJSON_IsArray(v)));
        cJSON_Delete(v);
        /* too deep, or a string holding U+0000: the text goes as is, so the
         * call is refused json_too_deep or json_nul as every decoder's is
         * (rule 8), not args_schema */
        if (ok || ps == TW_ERR_LIMIT || e.code == TW_D_JSON_NUL)
            return tw_buf_append(out, t, tn);
    }
    if (!(m & QT_STRING))
        *mistyped = true;
    *as_str = true;
    return tw_json_write_str(out, p, n, 0);
}

/* The elements of one function, [from, to) of q_ev, as one call. */
typedef struct q_call {
    size_t fa, fb;        /* the name */
    bool closed;          /* </function> read */
    bool stray;           /* text between its elements */
} q_call;

static bool q_name_ok(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c <= 0x20 || c == '<' || c == '>' || c == '"' || c == 0x7f)
            return false;
    }
    return true;
}

/* The parameter names of one call as written into its arguments (start and
 * end offsets in the text), for telling a repeated name: the decode keeps
 * the first value of a repeated key (duplicate_key), so a repeat's bytes
 * count in no warning of the call. Open addressing, seeded (hash.h). */
typedef struct q_names {
    size_t *slot; /* 2 per entry: start + 1 (0: empty) and end */
    size_t mask;
} q_names;

/* Is [a, e) of buf a name seen before? Adds it when not. */
static bool q_names_repeat(q_names *t, const char *buf, size_t a, size_t e)
{
    if (!t->slot)
        return false; /* no table (one name or none) */
    size_t i = (size_t)tw_hash_mem(buf + a, e - a) & t->mask;
    for (;; i = (i + 1) & t->mask) {
        size_t *s = t->slot + 2 * i;
        if (!s[0]) {
            s[0] = a + 1;
            s[1] = e;
            return false;
        }
        if (s[1] - (s[0] - 1) == e - a && memcmp(buf + s[0] - 1, buf + a, e - a) == 0)
            return true;
    }
}

static tw_status q_take_call(tw_text_dec *d, const q_call *qc, const q_elem *ev, size_t n)
{
    const char *b = d->c_blk.data;
    const char *np = b + qc->fa;
    size_t nn = qc->fb - qc->fa;
    tw_trim(&np, &nn);
    tw_status st = TW_OK;
    tw_buf args = {0};
    char *name = NULL;
    tw_status refuse = TW_OK;
    char why[200] = "";
    bool untyped = false, mistyped = false;
    size_t nuntyped = 0, nmistyped = 0;
    const char *first_untyped = NULL, *first_mistyped = NULL;
    size_t fu_len = 0, fm_len = 0;
    /* invalid UTF-8 in a key or a string value: written as U+FFFD */
    size_t nbad = 0, bad_at = 0, fb_len = 0;
    const char *first_bad = NULL;
    const tw_tool *tool = NULL;
    if (nn) {
        name = tw_strndup(np, nn);
        if (!name)
            return TW_ERR_NOMEM;
        if (!q_name_ok(np, nn) || memchr(np, 0, nn)) {
            refuse = TW_D_XML_BAD_NAME;
            snprintf(why, sizeof why, "function name holds a space, '<', '>', '\"' or a control byte");
        }
        tool = q_find_tool(d, qc->fa, qc->fb);
    }
    st = tw_buf_putc(&args, '{');
    size_t np_count = 0;
    q_names names = {NULL, 0};
    size_t nparams = 0;
    for (size_t i = 0; i < n; i++)
        nparams += ev[i].kind == QE_PARAM;
    if (nparams > 1) {
        size_t cap = 4;
        while (cap < 2 * nparams)
            cap *= 2;
        names.slot = tw_calloc(2 * cap, sizeof *names.slot);
        names.mask = cap - 1;
        if (!names.slot && st == TW_OK)
            st = TW_ERR_NOMEM;
    }
    for (size_t i = 0; st == TW_OK && i < n; i++) {
        if (ev[i].kind != QE_PARAM)
            continue;
        const char *kp = b + ev[i].a;
        size_t kn = ev[i].b - ev[i].a;
        tw_trim(&kp, &kn);
        if (refuse == TW_OK && ev[i].unclosed) {
            refuse = TW_D_XML_PARAM_UNCLOSED;
            snprintf(why, sizeof why, "parameter '%.*s' has no </parameter>", (int)(kn > 64 ? 64 : kn),
                     kp);
        }
        if (refuse == TW_OK && (!kn || !q_name_ok(kp, kn) || memchr(kp, 0, kn))) {
            refuse = TW_D_XML_BAD_NAME;
            snprintf(why, sizeof why, "parameter %zu has an empty or invalid name", np_count + 1);
        }
        const char *vp = b + ev[i].va;
        size_t vn = ev[i].vb - ev[i].va;
        q_strip_nl(&vp, &vn);
        if (refuse == TW_OK && memchr(vp, 0, vn)) {
            refuse = TW_D_JSON_NUL;
            snprintf(why, sizeof why, "parameter '%.*s' holds U+0000", (int)(kn > 64 ? 64 : kn), kp);
        }
        if (np_count++)
            st = tw_buf_putc(&args, ',');
        size_t key_at = args.len;
        if (st == TW_OK)
            st = tw_json_write_str(&args, kp, kn, 0);
        /* a repeated name's value is dropped (the first is kept): it counts
         * in none of the warnings below */
        bool repeat = st == TW_OK && q_names_repeat(&names, args.data, key_at, args.len);
        if (st == TW_OK)
            st = tw_buf_putc(&args, ':');
        bool u = false, mt = false, as_str = false;
        if (st == TW_OK)
            st = q_put_value(&args, q_types(q_prop(tool, kp, kn)), vp, vn, d->L.max_depth, &u, &mt,
                             &as_str);
        if (repeat)
            continue;
        size_t f = 0, kb = tw_utf8_invalid(kp, kn, &f);
        if (kb && !nbad)
            bad_at = (size_t)(kp - b) + f;
        size_t vb = as_str ? tw_utf8_invalid(vp, vn, &f) : 0;
        if (vb && !nbad && !kb)
            bad_at = (size_t)(vp - b) + f;
        if ((kb || vb) && !nbad) {
            first_bad = kp;
            fb_len = kn;
        }
        nbad += kb + vb;
        if (u && !nuntyped++) {
            first_untyped = kp;
            fu_len = kn;
        }
        if (mt && !nmistyped++) {
            first_mistyped = kp;
            fm_len = kn;
        }
        untyped |= u;
        mistyped |= mt;
    }
    tw_free(names.slot);
    if (st == TW_OK)
        st = tw_buf_putc(&args, '}');
    if (st != TW_OK) {
        tw_free(name);
        tw_buf_free(&args);
        return st == TW_ERR_LIMIT ? TW_ERR_NOMEM : st;
    }
    tw_wire_sink k = {&d->res, &d->o, &d->L, d->fn, d->user, &d->stop};
    tw_wire_call c;
    memset(&c, 0, sizeof c);
    c.name = name;
    c.offset = d->c_block_off;
    c.has_args_str = true;
    c.args_str = args.data;
    c.args_len = args.len;
    if (c.args_len > tw_args_text_cap(&d->L)) {
        c.args_len = tw_args_text_cap(&d->L);
        c.args_oversize = true;
    }
    c.refuse = refuse;
    c.refuse_why = refuse != TW_OK ? why : NULL;
    size_t before = d->res.msg.ncalls;
    st = tw_wire_take_call(&k, &c);
    bool accepted = d->res.msg.ncalls > before;
    tw_free(name);
    tw_buf_free(&args);
    /* the reader's warnings belong to an accepted call only */
    char m[240];
    if (st == TW_OK && accepted && !qc->closed)
        st = add_diag(d, false, TW_D_XML_FUNCTION_UNCLOSED, d->c_block_off, NULL);
    if (st == TW_OK && accepted && qc->stray)
        st = add_diag(d, false, TW_D_XML_STRAY_TEXT, d->c_block_off,
                      "text between the elements of a function was dropped");
    if (st == TW_OK && accepted && untyped) {
        snprintf(m, sizeof m,
                 "%zu parameter value(s) kept as strings: no schema type declares them (first '%.*s')",
                 nuntyped, (int)(fu_len > 64 ? 64 : fu_len), first_untyped);
        st = add_diag(d, false, TW_D_XML_UNTYPED, d->c_block_off, m);
    }
    if (st == TW_OK && accepted && mistyped) {
        snprintf(m, sizeof m,
                 "%zu parameter value(s) do not read as their schema type and were kept as strings "
                 "(first '%.*s')",
                 nmistyped, (int)(fm_len > 64 ? 64 : fm_len), first_mistyped);
        st = add_diag(d, false, TW_D_XML_VALUE_TYPE, d->c_block_off, m);
    }
    if (st == TW_OK && accepted && nbad) {
        snprintf(m, sizeof m,
                 "%zu invalid UTF-8 byte(s) in parameter names or string values were written as "
                 "U+FFFD (the first in parameter '%.*s', at this offset)",
                 nbad, (int)(fb_len > 64 ? 64 : fb_len), first_bad);
        st = add_diag(d, false, TW_D_JSON_NOT_RFC8259, (int64_t)blk_input_off(d, bad_at), m);
    }
    return st;
}

/* Turn the elements of a read block into calls. */
static tw_status q_decode(tw_text_dec *d)
{
    const q_elem *ev = (const q_elem *)(const void *)d->q_ev.data;
    size_t n = d->q_ev.len / sizeof(q_elem);
    tw_status st = TW_OK;
    bool open = false, outside = false, stray = false, any = false;
    q_call qc = {0, 0, false, false};
    size_t from = 0;
    for (size_t i = 0; st == TW_OK && i <= n; i++) {
        int kind = i < n ? ev[i].kind : 0;
        if (open && (i == n || kind == QE_FUNC || kind == QE_FEND)) {
            qc.closed = kind == QE_FEND;
            st = q_take_call(d, &qc, ev + from, i - from);
            open = false;
            if (kind == QE_FEND)
                continue;
        }
        if (i == n || st != TW_OK)
            break;
        if (kind == QE_FUNC) {
            open = any = true;
            qc.fa = ev[i].a;
            qc.fb = ev[i].b;
            qc.stray = false;
            from = i + 1;
        } else if (kind == QE_STRAY || kind == QE_FEND) {
            if (open)
                qc.stray = true;
            else
                stray = true;
        } else if (kind == QE_PARAM && !open) {
            outside = true;
        }
    }
    if (st == TW_OK && !any)
        st = add_diag(d, true, TW_D_TOOL_CALL_JSON, d->c_block_off,
                      "tool call block holds no <function=NAME> element");
    if (st == TW_OK && outside)
        st = add_diag(d, true, TW_D_XML_PARAM_OUTSIDE, d->c_block_off, NULL);
    if (st == TW_OK && stray && any)
        st = add_diag(d, false, TW_D_XML_STRAY_TEXT, d->c_block_off,
                      "text inside the tool call block, outside its functions, was dropped");
    return st;
}

/* Record the open value as unclosed, ending at `end`. */
static tw_status q_note_unclosed(tw_text_dec *d, size_t end)
{
    if (d->q_st == Q_NAME || !q_in_value(d))
        return TW_OK;
    return q_note(d, QE_PARAM, d->q_pa, d->q_pb, d->q_vstart, end, true);
}

/* ===================== the call layer ===================== */

static tw_status calls_feed(tw_text_dec *d, const char *p, size_t n, uint64_t off);

static void block_reset(tw_text_dec *d)
{
    d->c_state = 0;
    tw_buf_reset(&d->c_blk);
    tw_buf_reset(&d->c_seg);
    d->c_oversize = false;
    d->c_lit = NPOS;
    d->c_lit_scan = 0;
    d->c_tail_len = 0;
    d->c_jphase = JP_PRE;
    d->c_jpos = 0;
    d->c_vstart = d->c_vend = 0;
    d->c_post = 0;
    d->c_too_deep = false;
    memset(&d->c_jscan, 0, sizeof d->c_jscan);    d->q_st = Q_OUT;
    d->q_pos = d->q_scan = 0;
    d->q_stray = d->q_cand = NPOS;
    d->q_nfunc = 0;
    d->q_tool = NULL;
    d->q_record = true;
    tw_buf_reset(&d->q_ev);
}

static tw_jscan *jscan_of(tw_text_dec *d) { return &d->c_jscan; }

/* Block bytes may come from public text with think blocks cut out of it, so
 * c_blk keeps where each contiguous run starts in the input. */
typedef struct blk_seg {
    size_t idx;
    uint64_t off;
} blk_seg;

/* Note that the next bytes appended to c_blk start at input offset off. */
static tw_status seg_note(tw_text_dec *d, uint64_t off)
{
    size_t n = d->c_seg.len / sizeof(blk_seg);
    if (n) {
        blk_seg last;
        memcpy(&last, d->c_seg.data + (n - 1) * sizeof last, sizeof last);
        if (last.off + (d->c_blk.len - last.idx) == off)
            return TW_OK;
    }
    blk_seg sg = {d->c_blk.len, off};
    return tw_buf_append(&d->c_seg, &sg, sizeof sg);
}

/* The input offset of c_blk[idx]. */
static uint64_t blk_input_off(const tw_text_dec *d, size_t idx)
{
    size_t n = d->c_seg.len / sizeof(blk_seg);
    blk_seg sg = {0, d->c_block_off};
    for (size_t k = 0; k < n; k++) {
        blk_seg x;
        memcpy(&x, d->c_seg.data + k * sizeof x, sizeof x);
        if (x.idx > idx)
            break;
        sg = x;
    }
    return sg.off + (idx - sg.idx);
}

/*
 * Advance the JSON-aware path over c_blk[c_jpos, len). It ends in JP_DONE
 * (value followed by the close tag) or JP_FAILED, or waits for more bytes.
 */
static void jpath_advance(tw_text_dec *d)
{
    const char *b = d->c_blk.data;
    size_t len = d->c_blk.len;
    size_t clen;
    const char *close = closer(d, &clen);
    while (d->c_jpos < len && d->c_jphase < JP_DONE) {
        size_t i = d->c_jpos;
        if (d->c_jphase == JP_PRE) {
            while (i < len && tw_is_space((unsigned char)b[i]))
                i++;
            if (i == len) {
                d->c_jpos = i;
                return;
            }
            if (b[i] == '`' && d->kind != TW_TEXT_FENCED) {
                /* optional opener fence: ``` or ```json, then whitespace */
                size_t need = 3;
                if (len - i < need) {
                    if (memcmp(b + i, "```", len - i) != 0)
                        d->c_jphase = JP_FAILED;
                    d->c_jpos = i;
                    return;
                }
                if (memcmp(b + i, "```", 3) != 0) {
                    d->c_jphase = JP_FAILED;
                    return;
                }
                size_t j = i + 3;
                if (len - j < 4) {
                    if (memcmp(b + j, "json", len - j) == 0) {
                        d->c_jpos = i; /* undecided */
                        return;
                    }
                } else if (memcmp(b + j, "json", 4) == 0) {
                    j += 4;
                }
                d->c_jpos = j;
                d->c_jphase = JP_JSON;
                memset(&d->c_jscan, 0, sizeof d->c_jscan);
                jscan_of(d)->max_depth = d->L.max_depth;
                continue;
            }
            d->c_jpos = i;
            d->c_jphase = JP_JSON;
            memset(&d->c_jscan, 0, sizeof d->c_jscan);
            jscan_of(d)->max_depth = d->L.max_depth;
            continue;
        }
        if (d->c_jphase == JP_JSON) {
            size_t used = 0;
            tw_jscan *s = jscan_of(d);
            size_t before = s->consumed;
            if (before == 0) {
                /* the value starts at the first non-space byte */
                size_t k = i;
                while (k < len && tw_is_space((unsigned char)b[k]))
                    k++;
                d->c_vstart = k;
            }
            tw_jscan_result r = tw_jscan_feed(s, b + i, len - i, &used);
            d->c_jpos = i + used;
            if (r == TW_JSCAN_MORE)
                return;
            if (r == TW_JSCAN_DONE) {
                d->c_vend = d->c_jpos;
                d->c_jphase = JP_POST;
                d->c_post = 0;
                continue;
            }
            if (r == TW_JSCAN_TOO_DEEP)
                d->c_too_deep = true;
            d->c_jphase = JP_FAILED;
            return;
        }
        if (d->c_jphase == JP_POST) {
            /* whitespace, an optional ``` (Hermes), whitespace, the close tag.
             * c_post counts close-tag bytes matched; fences are skipped. */
            while (i < len) {
                unsigned char c = (unsigned char)b[i];
                if (d->c_post == 0 && tw_is_space(c)) {
                    i++;
                    continue;
                }
                if (d->c_post == 0 && c == '`' && d->kind != TW_TEXT_FENCED) {
                    if (len - i < 3) {
                        if (memcmp(b + i, "```", len - i) != 0)
                            d->c_jphase = JP_FAILED;
                        d->c_jpos = i;
                        return;
                    }
                    if (memcmp(b + i, "```", 3) != 0) {
                        d->c_jphase = JP_FAILED;
                        return;
                    }
                    i += 3;
                    continue;
                }
                if (c != (unsigned char)close[d->c_post]) {
                    d->c_jphase = JP_FAILED;
                    d->c_jpos = i;
                    return;
                }
                d->c_post++;
                i++;
                if (d->c_post == clen) {
                    d->c_jphase = JP_DONE;
                    d->c_jpos = i;
                    return;
                }
            }
            d->c_jpos = i;
            return;
        }
    }
}

/* Search the first literal close tag in c_blk from c_lit_scan. */
static void lit_advance(tw_text_dec *d)
{
    if (d->c_lit != NPOS)
        return;
    size_t clen;
    const char *close = closer(d, &clen);
    size_t from = d->c_lit_scan;
    if (!d->c_blk.data)
        return;
    const char *f = tw_memmem(d->c_blk.data + from, d->c_blk.len - from, close, clen);
    if (f) {
        d->c_lit = (size_t)(f - d->c_blk.data);
    } else {
        d->c_lit_scan = d->c_blk.len >= clen - 1 ? d->c_blk.len - (clen - 1) : 0;
        if (d->c_lit_scan < from)
            d->c_lit_scan = from;
    }
}

/* The block is decided: emit its outcome, replay bytes after its end. */
static tw_status block_done(tw_text_dec *d, size_t end, bool via_json)
{
    tw_status st;
    size_t clen;
    closer(d, &clen);
    if (d->kind == TW_TEXT_QWEN_XML) {
        /* read by the XML reader, or cut at the block cap */
        if (via_json) {
            st = q_decode(d);
        } else {
            char m[128];
            snprintf(m, sizeof m, "tool call block exceeds %zu bytes", d->c_cap);
            st = add_diag(d, true, TW_D_ARGS_TOO_LARGE, d->c_block_off, m);
        }
    } else if (via_json) {
        tw_error e;
        tw_json_lint lint;
        cJSON *v = NULL;
        const char *vp = d->c_blk.data + d->c_vstart;
        size_t vn = d->c_vend - d->c_vstart;
        trim_ctl(&vp, &vn);
        tw_status ps = tw_json_parse_lint(vp, vn, d->L.max_depth, &v, &e, &lint);
        if (ps == TW_ERR_NOMEM)
            return ps;
        if (ps != TW_OK) {
            /* the scanner accepted what the parser refuses: fall back */
            lit_advance(d);
            if (d->c_lit == NPOS || d->c_lit > end)
                return TW_ERR_STATE; /* cannot happen: the close tag is literal */
            return block_done(d, d->c_lit + clen, false);
        }
        st = take_payload(d, v, d->c_block_off, &lint, vn);
        cJSON_Delete(v);
    } else {
        st = decide_payload(d, d->c_blk.data, d->c_lit, true, TW_D_TOOL_CALL_JSON);
    }
    d->c_blocks++;
    /* bytes after the block's end go back through the layer, run by run,
     * each with its own offset; copied first (c_blk takes them and the
     * blocks they open) into the spare buffer the decoder keeps, taken out
     * while in use, as a block among them replays its own bytes in turn */
    size_t rest = d->c_blk.len - end;
    tw_buf held = {0};
    blk_seg seg_local[8], *segs = seg_local;
    size_t nseg = d->c_seg.len / sizeof(blk_seg);
    if (st == TW_OK && rest) {
        held = d->c_spare;
        memset(&d->c_spare, 0, sizeof d->c_spare);
        tw_buf_reset(&held);
        st = tw_buf_append(&held, d->c_blk.data + end, rest);
        if (st == TW_OK && nseg > sizeof seg_local / sizeof seg_local[0]) {
            segs = tw_malloc(nseg * sizeof *segs);
            if (!segs) {
                segs = seg_local;
                st = TW_ERR_NOMEM;
            }
        }
        if (st == TW_OK)
            memcpy(segs, d->c_seg.data, nseg * sizeof *segs);
    }
    size_t total = d->c_blk.len;
    block_reset(d);
    for (size_t k = 0; st == TW_OK && rest && k < nseg; k++) {
        size_t a = segs[k].idx, b = k + 1 < nseg ? segs[k + 1].idx : total;
        if (b <= end)
            continue;
        if (a < end)
            a = end;
        st = calls_feed(d, held.data + (a - end), b - a, segs[k].off + (a - segs[k].idx));
    }
    if (segs != seg_local)
        tw_free(segs);
    if (held.data && !d->c_spare.data) {
        tw_buf_reset(&held);
        d->c_spare = held;
    } else {
        tw_buf_free(&held);
    }
    return st;
}

/* Try to decide the open block with what is buffered. */
static tw_status block_step(tw_text_dec *d)
{
    size_t clen;
    closer(d, &clen);
    if (d->kind == TW_TEXT_QWEN_XML) {
        tw_status st = q_advance(d, false);
        if (st == TW_OK && d->q_st == Q_DONE)
            st = block_done(d, d->q_end, true);
        return st;
    }
    jpath_advance(d);
    if (d->c_jphase == JP_DONE)
        return block_done(d, d->c_jpos, true);
    if (d->c_jphase < JP_DONE && d->c_blk.len >= d->c_cap) {
        d->c_jphase = JP_FAILED; /* too large to be a call by the JSON-aware rule */
    }
    if (d->c_jphase == JP_FAILED) {
        lit_advance(d);
        if (d->c_lit != NPOS && !(d->c_oversize))
            return block_done(d, d->c_lit + clen, false);
    }
    return TW_OK;
}

/* Oversize block: bytes are no longer kept; look for the literal close only. */
static tw_status oversize_feed(tw_text_dec *d, const char *p, size_t n, uint64_t off)
{
    size_t clen;
    const char *close = closer(d, &clen);
    /* the tail and the start of p may hold the close tag across the seam */
    char seam[32];
    size_t t = d->c_tail_len;
    size_t k = n < clen - 1 ? n : clen - 1;
    memcpy(seam, d->c_tail, t);
    memcpy(seam + t, p, k);
    const char *f = tw_memmem(seam, t + k, close, clen);
    size_t end_in_p = NPOS;
    if (f)
        end_in_p = (size_t)(f - seam) + clen - t;
    else {
        f = tw_memmem(p, n, close, clen);
        if (f)
            end_in_p = (size_t)(f - p) + clen;
    }
    if (end_in_p == NPOS) {
        /* keep the last clen-1 bytes */
        char nt[32];
        size_t total = t + n;
        size_t keep = total < clen - 1 ? total : clen - 1;
        for (size_t i = 0; i < keep; i++) {
            size_t src = total - keep + i;
            nt[i] = src < t ? d->c_tail[src] : p[src - t];
        }
        memcpy(d->c_tail, nt, keep);
        d->c_tail_len = keep;
        return TW_OK;
    }
    char m[128];
    snprintf(m, sizeof m, "tool call block exceeds %zu bytes", d->c_cap);
    tw_status st = add_diag(d, true, TW_D_ARGS_TOO_LARGE, d->c_block_off, m);
    d->c_blocks++;
    block_reset(d);
    if (st == TW_OK && end_in_p < n)
        st = calls_feed(d, p + end_in_p, n - end_in_p, off + end_in_p);
    return st;
}

static tw_status block_feed_piece(tw_text_dec *d, const char *p, size_t n, uint64_t off);

/*
 * Bytes of an open block. They are taken in pieces no larger than the block
 * so far (at least 256), so when the block ends inside a piece the bytes
 * replayed after it are bounded by the block's own size: linear overall.
 */
static tw_status block_feed(tw_text_dec *d, const char *p, size_t n, uint64_t off)
{
    while (n) {
        if (d->c_state != 1)
            return calls_feed(d, p, n, off);
        size_t piece = d->c_blk.len > 256 ? d->c_blk.len : 256;
        if (d->c_oversize || piece > n)
            piece = n;
        tw_status st = block_feed_piece(d, p, piece, off);
        if (st != TW_OK)
            return st;
        p += piece;
        n -= piece;
        off += piece;
    }
    return TW_OK;
}

static tw_status block_feed_piece(tw_text_dec *d, const char *p, size_t n, uint64_t off)
{
    if (d->c_oversize)
        return oversize_feed(d, p, n, off);
    if (d->c_blk.len + n > d->c_cap) {
        /* keep up to the cap, decide with that if possible, else go oversize */
        size_t room = d->c_cap - d->c_blk.len;
        tw_status st = seg_note(d, off);
        if (st == TW_OK)
            st = tw_buf_append(&d->c_blk, p, room);
        if (st != TW_OK)
            return st;
        st = block_step(d);
        if (st != TW_OK || d->c_state == 0) {
            /* decided: the rest of p follows the replayed bytes */
            if (st == TW_OK && room < n)
                st = calls_feed(d, p + room, n - room, off + room);
            return st;
        }
        /* not decided within the cap: the JSON-aware path has failed and no
         * literal close was seen; refuse once the close arrives */
        lit_advance(d);
        if (d->c_lit != NPOS) {
            size_t clen;
            closer(d, &clen);
            st = block_done(d, d->c_lit + clen, false);
            if (st == TW_OK && room < n)
                st = calls_feed(d, p + room, n - room, off + room);
            return st;
        }
        d->c_oversize = true;
        size_t clen;
        closer(d, &clen);
        size_t keep = d->c_blk.len < clen - 1 ? d->c_blk.len : clen - 1;
        memcpy(d->c_tail, d->c_blk.data + d->c_blk.len - keep, keep);
        d->c_tail_len = keep;
        tw_buf_reset(&d->c_blk);
        return oversize_feed(d, p + room, n - room, off + room);
    }
    tw_status st = seg_note(d, off);
    if (st == TW_OK)
        st = tw_buf_append(&d->c_blk, p, n);
    if (st != TW_OK)
        return st;
    return block_step(d);
}

/*
 * A block that opened at the start of p and ends within p, decided in one
 * pass over p itself: when p, past the whitespace the JSON-aware path
 * skips, starts an object or array that tw_json_parse_prefix reads (RFC
 * 8259 text within max_depth) and the close tag follows as that path
 * wants it, within the block cap, the block is the JSON-aware path's
 * decision (its scanner ends such a value at the same bracket and its
 * parser gives the same tree), without copying the block, scanning it and
 * parsing it again. *took is the bytes of p the block took, 0 when it is
 * left to the buffered path (any other payload, or the end not in p).
 */
static tw_status block_direct(tw_text_dec *d, const char *p, size_t n, size_t *took)
{
    *took = 0;
    if (d->kind == TW_TEXT_QWEN_XML || d->c_blk.len || d->c_oversize || d->c_jphase != JP_PRE)
        return TW_OK;
    size_t lim = n < d->c_cap ? n : d->c_cap, i = 0;
    while (i < lim && tw_is_space((unsigned char)p[i]))
        i++;
    if (i == lim || (p[i] != '{' && p[i] != '['))
        return TW_OK;
    cJSON *v;
    size_t used;
    if (!tw_json_parse_prefix(p + i, lim - i, d->L.max_depth, &v, &used))
        return TW_OK;
    /* what JP_POST takes: whitespace and ``` fences (Hermes), then the tag */
    size_t clen, j = i + used, post = 0;
    const char *close = closer(d, &clen);
    while (j < lim && post < clen) {
        unsigned char c = (unsigned char)p[j];
        if (post == 0 && tw_is_space(c)) {
            j++;
        } else if (post == 0 && c == '`' && d->kind != TW_TEXT_FENCED) {
            if (lim - j < 3 || memcmp(p + j, "```", 3) != 0)
                break;
            j += 3;
        } else if (c == (unsigned char)close[post]) {
            post++;
            j++;
        } else {
            break;
        }
    }
    if (post < clen) {
        cJSON_Delete(v);
        return TW_OK;
    }
    tw_json_lint lint = {0};
    lint.nul_offset = -1;
    lint.nonstd_offset = -1;
    tw_status st = take_payload(d, v, d->c_block_off, &lint, used);
    cJSON_Delete(v);
    d->c_blocks++;
    block_reset(d);
    *took = j;
    return st;
}

/* A block opened: --bare-json no longer applies; release held content. */
static tw_status bare_release(tw_text_dec *d)
{
    if (!d->c_bare_hold)
        return TW_OK;
    d->c_bare_hold = false;
    tw_status st = emit_content(d, d->c_bare.data ? d->c_bare.data : "", d->c_bare.len,
                                d->c_bare_off);
    tw_buf_free(&d->c_bare);
    return st;
}

/* Hold bytes of a possible opener, each with its own offset. */
static tw_status hold_bytes(tw_text_dec *d, const char *p, size_t n, uint64_t off)
{
    size_t h = d->c_hold.len;
    for (size_t i = 0; i < n && h + i < 16; i++)
        d->c_hold_offs[h + i] = off + i;
    return tw_buf_append(&d->c_hold, p, n);
}

/* An opener was recognised; the block starts after it. */
static tw_status open_block(tw_text_dec *d, int64_t at)
{
    d->c_block_off = at;
    block_reset(d);
    d->c_state = 1;
    return bare_release(d);
}

/* Public text into the call layer. `off` is the offset of p[0]. */
static tw_status calls_feed(tw_text_dec *d, const char *p, size_t n, uint64_t off)
{
    if (d->kind == TW_TEXT_THINK)
        return emit_content(d, p, n, off);
    /* more bytes of a block under way (one piece of block_feed's size; the
     * one-pass decision of block_direct applies to a block's first bytes
     * only): straight to the block, as the loop below would take them */
    if (d->c_state == 1 && (d->c_blk.len || d->c_oversize) &&
        n <= (d->c_blk.len > 256 ? d->c_blk.len : 256))
        return block_feed_piece(d, p, n, off);
    size_t olen;
    const char *open = opener(d, &olen);
    /* fenced openers need one byte after them (not a name character) */
    size_t need = olen + (d->kind == TW_TEXT_FENCED ? 1 : 0);
    tw_status st = TW_OK;
    while (n && st == TW_OK) {
        if (d->c_state == 1) {
            size_t took;
            st = block_direct(d, p, n, &took);
            if (st != TW_OK || !took)
                return st == TW_OK ? block_feed(d, p, n, off) : st;
            p += took;
            n -= took;
            off += took;
            continue;
        }
        if (d->c_hold.len) {
            /* a partial opener is held: extend it up to `need` bytes */
            size_t take = need - d->c_hold.len;
            if (take > n)
                take = n;
            st = hold_bytes(d, p, take, off);
            if (st != TW_OK)
                return st;
            size_t h = d->c_hold.len;
            size_t cmp = h < olen ? h : olen;
            bool prefix = memcmp(d->c_hold.data, open, cmp) == 0;
            if (prefix && h < need)
                return TW_OK; /* still undecided: all of p was taken */
            if (prefix &&
                (d->kind != TW_TEXT_FENCED || !ident_char((unsigned char)d->c_hold.data[olen]))) {
                char look[2];
                size_t extra = h - olen; /* fenced: the lookahead byte, part of the block */
                memcpy(look, d->c_hold.data + olen, extra);
                uint64_t look_off = extra ? d->c_hold_offs[olen] : 0;
                tw_buf_reset(&d->c_hold);
                st = open_block(d, (int64_t)d->c_hold_offs[0]);
                if (st == TW_OK && extra)
                    st = calls_feed(d, look, extra, look_off);
                p += take;
                n -= take;
                off += take;
                continue;
            }
            /* not an opener: the first held byte is text; the other held
             * bytes are read again, each at its own offset, then p */
            char tmp[24];
            uint64_t toffs[16];
            size_t hl = h - take; /* the bytes taken from p are re-read from p */
            memcpy(tmp, d->c_hold.data, hl);
            memcpy(toffs, d->c_hold_offs, hl * sizeof toffs[0]);
            tw_buf_reset(&d->c_hold);
            st = emit_content(d, tmp, 1, toffs[0]);
            for (size_t k = 1; st == TW_OK && k < hl; k++)
                st = calls_feed(d, tmp + k, 1, toffs[k]);
            continue; /* p unchanged */
        }
        const char *lt = memchr(p, open[0], n);
        if (!lt)
            return emit_content(d, p, n, off);
        size_t i = (size_t)(lt - p);
        if (i) {
            st = emit_content(d, p, i, off);
            if (st != TW_OK)
                return st;
        }
        size_t avail = n - i;
        size_t cmp = avail < olen ? avail : olen;
        if (memcmp(lt, open, cmp) != 0 ||
            (avail >= need && d->kind == TW_TEXT_FENCED && ident_char((unsigned char)lt[olen]))) {
            st = emit_content(d, lt, 1, off + i);
            p = lt + 1;
            n = avail - 1;
            off += i + 1;
            continue;
        }
        if (avail < need)
            return hold_bytes(d, lt, avail, off + i);
        st = open_block(d, (int64_t)(off + i));
        p = lt + olen;
        n = avail - olen;
        off += i + olen;
    }
    return st;
}

/*
 * qwen3-coder: the input ended inside a block. A value left open ends at the
 * first literal </tool_call> after its start, if any (its call is refused);
 * otherwise --finish decides, as for Hermes.
 */
static tw_status q_finish(tw_text_dec *d)
{
    tw_status st = q_advance(d, true);
    if (st != TW_OK)
        return st;
    if (d->q_st == Q_DONE)
        return block_done(d, d->q_end, true);
    size_t len = d->c_blk.len;
    if (q_in_value(d)) {
        const char *f = tw_memmem(d->c_blk.data + d->q_vstart, len - d->q_vstart, HERMES_CLOSE,
                                  SLEN(HERMES_CLOSE));
        if (f) {
            size_t at = (size_t)(f - d->c_blk.data);
            st = q_note_unclosed(d, at);
            return st == TW_OK ? block_done(d, at + SLEN(HERMES_CLOSE), true) : st;
        }
    }
    const q_elem *ev = (const q_elem *)(const void *)d->q_ev.data;
    size_t n = d->q_ev.len / sizeof(q_elem);
    bool complete = d->q_st == Q_OUT && n && ev[n - 1].kind == QE_FEND;
    if (d->o.finish == TW_FINISH_STOP_SEQUENCE || (d->o.finish == TW_FINISH_LENGTH && complete)) {
        if (d->q_st == Q_NAME && d->q_fn) /* a function name never closed by '>' */
            st = q_note(d, QE_FUNC, d->q_name, len, 0, 0, false);
        if (st == TW_OK && d->q_st == Q_NAME && !d->q_fn) {
            d->q_pa = d->q_name;
            d->q_pb = d->q_vstart = len;
            st = q_note(d, QE_PARAM, d->q_pa, d->q_pb, len, len, true);
        }
        if (st == TW_OK)
            st = q_note_unclosed(d, len);
        return st == TW_OK ? block_done(d, len, true) : st;
    }
    d->c_blocks++;
    st = add_diag(d, true, TW_D_TOOL_CALL_UNTERMINATED, d->c_block_off,
                  d->o.finish == TW_FINISH_LENGTH
                      ? "tool call cut by the token limit before its </function>"
                      : NULL);
    block_reset(d);
    return st;
}

/* End of public text: resolve a held opener and an open block. */
static tw_status calls_finish(tw_text_dec *d)
{
    tw_status st = TW_OK;
    if (d->kind == TW_TEXT_THINK)
        return TW_OK;
    if (d->c_hold.len) {
        char tmp[24];
        size_t hl = d->c_hold.len;
        memcpy(tmp, d->c_hold.data, hl);
        tw_buf_reset(&d->c_hold);
        if (d->kind == TW_TEXT_FENCED && hl >= SLEN(FENCED_OPEN) &&
            memcmp(tmp, FENCED_OPEN, SLEN(FENCED_OPEN)) == 0) {
            /* "```tool_call" at the very end: an opener with nothing after it */
            st = open_block(d, (int64_t)d->c_hold_offs[0]);
        } else {
            st = emit_content(d, tmp, hl, d->c_hold_offs[0]);
        }
    }
    if (st != TW_OK || d->c_state == 0)
        return st;
    size_t clen;
    closer(d, &clen);
    if (d->c_oversize) {
        d->c_blocks++;
        block_reset(d);
        if (d->o.finish == TW_FINISH_STOP)
            return add_diag(d, true, TW_D_TOOL_CALL_UNTERMINATED, d->c_block_off, NULL);
        return add_diag(d, true, TW_D_ARGS_TOO_LARGE, d->c_block_off,
                        "unterminated tool call block exceeds the block cap");
    }
    if (d->kind == TW_TEXT_QWEN_XML)
        return q_finish(d);
    lit_advance(d);
    if (d->c_lit != NPOS)
        return block_done(d, d->c_lit + clen, false);
    /* unterminated */
    const char *pl = d->c_blk.data ? d->c_blk.data : "";
    size_t pn = d->c_blk.len;
    if (d->c_jphase == JP_POST) {
        pl = d->c_blk.data + d->c_vstart;
        pn = d->c_vend - d->c_vstart;
    }
    d->c_blocks++;
    switch (d->o.finish) {
    case TW_FINISH_STOP_SEQUENCE:
        st = decide_payload(d, pl, pn, true, TW_D_TOOL_CALL_JSON);
        break;
    case TW_FINISH_LENGTH: {
        tw_error why;
        tw_json_lint lint;
        cJSON *v;
        st = parse_payload(d, pl, pn, false, &v, &why, &lint);
        if (st != TW_OK)
            break;
        bool deep = !v && why.code == TW_D_JSON_TOO_DEEP;
        if (v) {
            st = take_payload(d, v, d->c_block_off, &lint, pn);
            cJSON_Delete(v);
        } else {
            st = add_diag(d, true, deep ? TW_D_JSON_TOO_DEEP : TW_D_TOOL_CALL_UNTERMINATED,
                          d->c_block_off,
                          deep ? NULL : "tool call cut by the token limit before its JSON completed");
        }
        break;
    }
    default:
        st = add_diag(d, true, TW_D_TOOL_CALL_UNTERMINATED, d->c_block_off, NULL);
        break;
    }
    block_reset(d);
    return st;
}

/*
 * Can the bytes of a payload before its first bracket (p, n bytes; none of
 * them '{' or '[') not change whether the payload is a valid block? True
 * when they hold no '"' (checked by the caller) and the first of them
 * above 0x20 (cJSON skips the others, NUL included) starts no JSON value,
 * no fence and no UTF-8 byte order mark: then the scan and the parse of the
 * whole payload fail at that byte, the depth check sees only what follows the
 * bracket, and the answer is the first-balanced retry's from the bracket
 * to the closing tag, the same for every payload that shares both.
 */
static bool payload_head_inert(const char *p, size_t n)
{
    size_t i = 0;
    while (i < n && (unsigned char)p[i] <= 0x20) /* what cJSON skips, NUL included */
        i++;
    if (i == n)
        return false;
    unsigned char c = (unsigned char)p[i];
    if (c >= 0x80) /* but not the first byte of a UTF-8 byte order mark, which cJSON skips */
        return c != 0xEF;
    return !strchr("{[\"-0123456789tfn`", c);
}

/* ASCII punctuation that neither the scan nor cJSON takes outside a string,
 * whatever came before: no structural byte, quote, backslash, number byte
 * (cJSON reads "1.e5", which the scan refuses), letter or digit. */
static bool refused_outside_strings(unsigned char c)
{
    return c > 0x20 && c < 0x7F && strchr("!#$%&'()*;<=>?@^_`|~/", c);
}

/*
 * After the JSON-aware scan of a payload (p, pn bytes to its first closing
 * tag) failed: did it stop for good? True when the payload starts, after
 * whitespace, at a '{' or '[' where the scan started, and the scan refused a
 * byte of refused_outside_strings before the closing tag with no backslash
 * in the five bytes before it (so not in an escape, and outside any string,
 * where the scan takes every other byte). No JSON reader takes that byte
 * there: the parse of the whole payload fails, and the first-balanced retry
 * scans from the same bracket over the same bytes and stops at the same
 * byte. The payload then yields no value, so it is not parsed.
 */
static bool scan_stopped_for_good(const tw_text_dec *t, const char *p, size_t pn)
{
    size_t v = t->c_vstart, q = t->c_jpos;
    if (t->c_jphase != JP_FAILED || t->c_jscan.result != TW_JSCAN_INVALID || v >= q || q >= pn ||
        (p[v] != '{' && p[v] != '[') || !refused_outside_strings((unsigned char)p[q]))
        return false;
    for (size_t i = 0; i < v; i++)
        if (!tw_is_space((unsigned char)p[i]))
            return false;
    for (size_t i = q - v > 5 ? q - 5 : v; i < q; i++)
        if (p[i] == '\\')
            return false;
    return true;
}

/*
 * Does a payload yield an object or array by parse_payload's rule (the
 * whole payload, then its first balanced value unless the whole was nested
 * too deep)? The same answer as parse_payload's value, without the trees,
 * the lint and the rejection's message. TW_ERR_NOMEM is the only failure.
 */
static tw_status payload_yields(const tw_text_dec *d, const char *p, size_t n, bool *ok)
{
    *ok = false;
    strip_payload(d, &p, &n);
    trim_ctl(&p, &n);
    size_t a, b;
    if (payload_head_inert(p, n)) {
        /* no reader takes the first byte, so the whole payload does not
         * read; its depth, checked before it is read, then decides only
         * whether the retry runs: measured only when the retry yields */
        size_t md = d->L.max_depth == 0 || d->L.max_depth > TW_DEPTH_HARD_MAX
                        ? TW_DEPTH_HARD_MAX : d->L.max_depth;
        if (!tw_json_first_balanced(p, n, d->L.max_depth, &a, &b))
            return TW_OK;
        tw_status st = tw_json_reads_container(p + a, b - a, d->L.max_depth, ok);
        if (st == TW_ERR_NOMEM)
            return st;
        *ok = st == TW_OK && *ok && tw_json_depth(p, n, md) <= md;
        return TW_OK;
    }
    tw_status st = tw_json_reads_container(p, n, d->L.max_depth, ok);
    if (st != TW_ERR_PARSE)
        return st == TW_ERR_LIMIT ? TW_OK : st;
    if (!tw_json_first_balanced(p, n, d->L.max_depth, &a, &b))
        return TW_OK;
    st = tw_json_reads_container(p + a, b - a, d->L.max_depth, ok);
    return st == TW_ERR_NOMEM ? st : TW_OK;
}

/*
 * Is there a complete, valid block right after an opener at p (n bytes to the
 * end of the input)? (§1.7) lit is the first closing tag at or after the
 * payload's start. The literal path yields an object or array, directly or
 * by the first-balanced retry, only when the payload holds a '{' or '['
 * (bracket): without one it is not parsed at all.
 */
static bool block_valid_at(const tw_text_dec *d, const char *p, size_t n, const char *lit,
                           bool bracket, tw_status *st)
{
    *st = TW_OK;
    size_t olen;
    opener(d, &olen);
    p += olen;
    n -= olen;
    if (d->kind == TW_TEXT_QWEN_XML) {
        /* the XML reader, not recording, over at most the block cap */
        (void)lit;
        (void)bracket;
        tw_text_dec q;
        memset(&q, 0, sizeof q);
        q.kind = d->kind;
        q.L = d->L;
        q.o = d->o;
        q.c_blk.data = (char *)(uintptr_t)p; /* read-only view */
        q.c_blk.len = n < d->c_cap ? n : d->c_cap;
        q.q_stray = q.q_cand = NPOS;
        *st = q_advance(&q, false);
        return q.q_st == Q_DONE && q.q_nfunc > 0;
    }
    /* JSON-aware: scan the value and expect the close tag */
    tw_text_dec t;
    memset(&t, 0, sizeof t);
    t.kind = d->kind;
    t.L = d->L;
    t.c_blk.data = (char *)(uintptr_t)p; /* read-only view */
    t.c_blk.len = n;
    t.c_jphase = JP_PRE;
    jpath_advance(&t);
    cJSON *v = NULL;
    if (t.c_jphase == JP_DONE) {
        tw_error e;
        tw_status ps =
            tw_json_parse(p + t.c_vstart, t.c_vend - t.c_vstart, d->L.max_depth, &v, &e);
        if (ps == TW_OK) {
            bool ok = cJSON_IsObject(v) || cJSON_IsArray(v);
            cJSON_Delete(v);
            return ok;
        }
        if (ps == TW_ERR_NOMEM) {
            *st = TW_ERR_NOMEM;
            return false;
        }
    }
    if (!bracket || scan_stopped_for_good(&t, p, (size_t)(lit - p)))
        return false;
    size_t pn = (size_t)(lit - p);
    if (payload_head_inert(p, pn)) {
        /* no reader takes the payload's first byte: the whole payload does
         * not parse, and only the first-balanced retry can yield a value.
         * It scans from the first bracket as here: unless that scan ends a
         * value within max_depth, the retry yields none (a value nested too
         * deep is refused by the depth check of its parse) */
        const char *sp = p;
        size_t sn = pn, used = 0;
        strip_payload(d, &sp, &sn);
        trim_ctl(&sp, &sn);
        const char *o = memchr(sp, '{', sn), *a = memchr(sp, '[', sn);
        const char *f = o && a ? (o < a ? o : a) : (o ? o : a);
        if (!f)
            return false;
        tw_jscan sc;
        memset(&sc, 0, sizeof sc);
        sc.max_depth = d->L.max_depth;
        if (tw_jscan_feed(&sc, f, sn - (size_t)(f - sp), &used) != TW_JSCAN_DONE)
            return false;
    }
    TW_WORK(pn); /* the literal payload is read in full */
    bool ok;
    *st = payload_yields(d, p, pn, &ok);
    return *st == TW_OK && ok;
}

/* ===================== the think layer ===================== */

/* The live part of the held input starts at t_cur: in t_hold, or in the
 * caller's buffer (t_ext) while a feed that found nothing held is read in
 * place. */
static const char *hdata(const tw_text_dec *d)
{
    if (d->t_ext)
        return d->t_ext + d->t_cur;
    return d->t_hold.data ? d->t_hold.data + d->t_cur : "";
}
static size_t hlen(const tw_text_dec *d)
{
    return (d->t_ext ? d->t_ext_len : d->t_hold.len) - d->t_cur;
}

static bool tag_enabled(const tw_text_dec *d, int tag)
{
    unsigned m = d->o.think_tags ? d->o.think_tags : (TW_TAG_THINK | TW_TAG_THINKING);
    return (m & (unsigned)tag) != 0;
}

static tw_status think_open(tw_text_dec *d, int tag, size_t raw_at, size_t text_at)
{
    d->t_state = 1;
    d->t_tag = tag;
    d->t_raw_start = raw_at;
    d->t_text_start = text_at;
    d->t_scan = text_at;
    d->t_call_at = NPOS;
    d->t_open_off = (int64_t)(d->t_hold_off + raw_at);
    end_thinking_block(d);
    return TW_OK;
}

/* No closing tag starts in the held bytes [run, len - 6): note them as
 * searched. */
static void clear_note(tw_text_dec *d, size_t run, size_t len)
{
    uint64_t lo = d->t_hold_off + run, hi = d->t_hold_off + (len >= 6 ? len - 6 : 0);
    if (hi > lo && lo <= d->t_clear_hi && hi >= d->t_clear_lo) {
        /* overlapping or adjacent: one range */
        d->t_clear_lo = lo < d->t_clear_lo ? lo : d->t_clear_lo;
        d->t_clear_hi = hi > d->t_clear_hi ? hi : d->t_clear_hi;
    } else if (hi > lo) {
        d->t_clear_lo = lo;
        d->t_clear_hi = hi;
    }
}

/* Where the closing-tag search resumes: t_scan, past the bytes already
 * searched to no avail (when a block opens inside them after another was
 * resolved at the end of input), which are not searched again. */
static size_t close_from(const tw_text_dec *d)
{
    size_t from = d->t_scan;
    uint64_t abs = d->t_hold_off + from;
    if (abs >= d->t_clear_lo && abs < d->t_clear_hi)
        from = (size_t)(d->t_clear_hi - d->t_hold_off);
    return from;
}

/* Find the block's closing tag in t_hold from t_scan. Returns its index and
 * length, or NPOS. */
static size_t find_close(tw_text_dec *d, size_t *taglen)
{
    const char *h = hdata(d);
    size_t len = hlen(d);
    size_t from = close_from(d);
    size_t run = from; /* no closing tag of either kind starts in [run, from) */
    size_t from0 = from;
    bool any = false; /* a '<' in [from0, len) */
    d->t_nolt = NPOS;
    for (;;) {
        const char *f = find_tag_any(h + from, len - from, "</think", 7, &any);
        if (!f) {
            clear_note(d, run, len);
            if (!any)
                d->t_nolt = from0;
            break;
        }
        size_t at = (size_t)(f - h);
        size_t rest = len - at;
        bool is_think = rest >= SLEN(CLOSE_THINK) && memcmp(f, CLOSE_THINK, SLEN(CLOSE_THINK)) == 0;
        bool is_thinking =
            rest >= SLEN(CLOSE_THINKING) && memcmp(f, CLOSE_THINKING, SLEN(CLOSE_THINKING)) == 0;
        if ((d->t_tag & 1) && is_think) {
            *taglen = SLEN(CLOSE_THINK);
            return at;
        }
        if ((d->t_tag & 2) && is_thinking) {
            *taglen = SLEN(CLOSE_THINKING);
            return at;
        }
        if (rest < SLEN(CLOSE_THINKING)) {
            /* may still become a closing tag: rescan from here next time */
            d->t_scan = at;
            return NPOS;
        }
        if (is_think || is_thinking)
            run = at + 1; /* the other kind's closing tag */
        from = at + 1;
    }
    d->t_scan = len >= 6 ? len - 6 : 0; /* "</thin" may straddle the next feed */
    if (d->t_scan < d->t_text_start)
        d->t_scan = d->t_text_start;
    return NPOS;
}

/* Forced-open start: drop whitespace and one repeated opening tag. Returns
 * false while the start is undecided. */
static bool forced_start(tw_text_dec *d, bool final)
{
    const char *h = hdata(d);
    size_t len = hlen(d);
    size_t i = d->t_text_start;
    while (i < len && tw_is_space((unsigned char)h[i]))
        i++;
    if (i == len && !final)
        return false;
    size_t rest = len - i;
    const char *tags[2] = {OPEN_THINK, OPEN_THINKING};
    int bits[2] = {TW_TAG_THINK, TW_TAG_THINKING};
    for (int k = 0; k < 2; k++) {
        size_t tl = strlen(tags[k]);
        if (!tag_enabled(d, bits[k]))
            continue;
        if (rest >= tl && memcmp(h + i, tags[k], tl) == 0) {
            d->t_text_start = i + tl;
            d->t_scan = d->t_text_start;
            d->t_forced_start = false;
            return true;
        }
        if (rest < tl && memcmp(h + i, tags[k], rest) == 0 && !final)
            return false;
    }
    d->t_forced_start = false;
    return true;
}

static tw_status think_process(tw_text_dec *d, bool final);

/*
 * Public text in which the think layer found no '<': calls_feed, without its
 * second search when that search is for '<' too. Between blocks, with no
 * partial opener held, a Hermes or Qwen3-Coder opener cannot start in it,
 * so it is content as it stands (what calls_feed would find).
 */
static tw_status calls_feed_plain(tw_text_dec *d, const char *p, size_t n, uint64_t off)
{
    size_t olen;
    if (d->c_state == 0 && d->c_hold.len == 0 && opener(d, &olen)[0] == '<')
        return emit_content(d, p, n, off);
    return calls_feed(d, p, n, off);
}

static tw_status think_feed(tw_text_dec *d, const char *p, size_t n)
{
    /* drop consumed bytes once per feed: what stays held is short except
     * inside a held block, where nothing is consumed until it closes */
    if (d->t_cur) {
        tw_buf_consume(&d->t_hold, d->t_cur);
        d->t_cur = 0;
    }
    if (hlen(d) == 0) {
        /* nothing held and no '<' in p: no think tag starts or ends in it,
         * so it goes on as it stands, as think_process below would pass it
         * (a byte fed alone in plain text or thinking costs a few calls) */
        if (!memchr(p, '<', n)) {
            if (d->t_state == 0) {
                d->t_hold_off = d->fed + n;
                return calls_feed_plain(d, p, n, d->fed);
            }
            size_t olen;
            const char *open = opener(d, &olen);
            if (!d->t_forced_start && d->o.unterminated != TW_UNTERM_DIRECT &&
                d->t_call_at == NPOS && (open[0] == '<' || !memchr(p, open[0], n))) {
                /* inside a block: neither a closing tag nor an opener (nor
                 * a partial one) is in p, so all of it is thinking */
                d->t_hold_off = d->fed + n;
                d->t_text_start = d->t_raw_start = d->t_scan = 0;
                return emit_thinking(d, p, n, false);
            }
        }
        /* read the caller's bytes in place and keep only what stays
         * undecided (a partial tag, an open block), so text passes through
         * with one copy, into the result */
        d->t_hold_off = d->fed;
        d->t_ext = p;
        d->t_ext_len = n;
        tw_status st = think_process(d, false);
        size_t used = d->t_cur;
        d->t_ext = NULL;
        d->t_ext_len = 0;
        d->t_cur = 0;
        if (st == TW_OK && used < n)
            st = tw_buf_append(&d->t_hold, p + used, n - used);
        return st;
    }
    tw_status st = tw_buf_append(&d->t_hold, p, n);
    if (st != TW_OK)
        return st;
    if (d->t_state == 1 && !d->t_forced_start &&
        (d->t_call_at != NPOS || d->o.unterminated == TW_UNTERM_DIRECT)) {
        /* a block held whole (an opener in it, or direct): unless a '<' is
         * where the closing-tag search resumes or in p, no closing tag
         * ends in it, and nothing else is decided before the end; the
         * search's bookkeeping as think_process would leave it */
        size_t len = d->t_hold.len, from = close_from(d);
        if (!memchr(d->t_hold.data + from, '<', len - from)) {
            clear_note(d, from, len);
            d->t_scan = len >= 6 ? len - 6 : 0;
            if (d->t_scan < d->t_text_start)
                d->t_scan = d->t_text_start;
            return TW_OK;
        }
    }
    return think_process(d, false);
}

/* Drop t_hold[0, k) and shift the indexes. */
static void hold_consume(tw_text_dec *d, size_t k)
{
    if (k == 0)
        return;
    d->t_cur += k; /* no memmove here: think_feed compacts once per feed */
    d->t_hold_off += k;
    d->t_text_start = d->t_text_start > k ? d->t_text_start - k : 0;
    d->t_raw_start = d->t_raw_start > k ? d->t_raw_start - k : 0;
    d->t_scan = d->t_scan > k ? d->t_scan - k : 0;
    if (d->t_call_at != NPOS)
        d->t_call_at = d->t_call_at > k ? d->t_call_at - k : 0;
}

/*
 * Where, after h[0] (a '<' that opens no think block), the next think tag
 * may start: the next "<think", or a '<' near the end that may begin one,
 * else len. The bytes before it go to the call layer in one piece (a
 * tool-call block with them), as they would one '<' at a time.
 */
static size_t next_think_at(const char *h, size_t len)
{
    static const char pre[] = "<think"; /* begins <think> and <thinking> */
    const char *f = find_tag(h + 1, len - 1, pre, SLEN(pre));
    if (f)
        return (size_t)(f - h);
    for (size_t k = len > SLEN(pre) ? len - SLEN(pre) + 1 : 1; k < len; k++)
        if (memcmp(h + k, pre, len - k) == 0)
            return k;
    return len;
}

static tw_status think_process(tw_text_dec *d, bool final)
{
    tw_status st = TW_OK;
    size_t olen;
    const char *open = opener(d, &olen);
    while (st == TW_OK) {
        const char *h = hdata(d);
        size_t len = hlen(d);
        if (d->t_state == 0) {
            if (len == 0)
                return TW_OK;
            const char *lt = memchr(h, '<', len);
            if (!lt) {
                st = calls_feed_plain(d, h, len, d->t_hold_off);
                hold_consume(d, len);
                return st;
            }
            size_t i = (size_t)(lt - h);
            if (i) {
                st = calls_feed_plain(d, h, i, d->t_hold_off);
                if (st != TW_OK)
                    return st;
                hold_consume(d, i);
                continue;
            }
            /* h[0] == '<' */
            int tag = 0;
            size_t tl = 0;
            bool maybe = false;
            if (tag_enabled(d, TW_TAG_THINKING) && len >= SLEN(OPEN_THINKING) &&
                memcmp(h, OPEN_THINKING, SLEN(OPEN_THINKING)) == 0) {
                tag = 2;
                tl = SLEN(OPEN_THINKING);
            } else if (tag_enabled(d, TW_TAG_THINK) && len >= SLEN(OPEN_THINK) &&
                       memcmp(h, OPEN_THINK, SLEN(OPEN_THINK)) == 0) {
                tag = 1;
                tl = SLEN(OPEN_THINK);
            } else if (!final) {
                if (len < SLEN(OPEN_THINKING) && memcmp(h, OPEN_THINKING, len) == 0 &&
                    tag_enabled(d, TW_TAG_THINKING))
                    maybe = true;
                if (len < SLEN(OPEN_THINK) && memcmp(h, OPEN_THINK, len) == 0 &&
                    tag_enabled(d, TW_TAG_THINK))
                    maybe = true;
            }
            if (maybe)
                return TW_OK; /* partial tag held back */
            if (!tag) {
                size_t j = next_think_at(h, len);
                st = calls_feed(d, h, j, d->t_hold_off);
                hold_consume(d, j);
                continue;
            }
            think_open(d, tag, 0, tl);
            continue;
        }
        /* inside a block */
        if (d->t_forced_start && !forced_start(d, final))
            return TW_OK;
        size_t tagl = 0;
        size_t c = find_close(d, &tagl);
        if (c != NPOS) {
            st = emit_thinking(d, h + d->t_text_start, c - d->t_text_start, true);
            end_thinking_block(d);
            d->t_state = 0;
            hold_consume(d, c + tagl);
            continue;
        }
        if (final)
            return TW_OK; /* the unterminated block is resolved by the caller */
        /* no close yet: pass thinking on, holding what may still matter */
        if (d->o.unterminated == TW_UNTERM_DIRECT)
            return TW_OK; /* direct: the block may become content; hold it */
        if (d->t_call_at == NPOS) {
            size_t from = d->t_text_start;
            /* the closing-tag search just found no '<' from t_nolt on: when
             * that covers the text and the opener starts with '<', neither
             * an opener nor a partial tag can be there */
            bool none = d->t_nolt <= from && open[0] == '<';
            const char *f = none ? NULL : find_tag(h + from, len - from, open, olen);
            size_t upto;
            if (none) {
                upto = len;
            } else if (f) {
                d->t_call_at = (size_t)(f - h);
                upto = d->t_call_at;
            } else {
                /* keep a suffix that may start a closing tag or an opener */
                size_t keep = tw_partial_suffix(h + from, len - from, CLOSE_THINKING,
                                                SLEN(CLOSE_THINKING));
                size_t k2 = tw_partial_suffix(h + from, len - from, open, olen);
                if (k2 > keep)
                    keep = k2;
                upto = len - keep;
            }
            if (upto > d->t_text_start) {
                st = emit_thinking(d, h + d->t_text_start, upto - d->t_text_start, false);
                if (st != TW_OK)
                    return st;
                /* drop what was emitted, but keep the raw start for nothing:
                 * synthesize never needs the raw bytes back */
                size_t k = upto;
                d->t_raw_start = k;
                d->t_text_start = k;
                hold_consume(d, k);
            }
        }
        return TW_OK;
    }
    return st;
}

/* End of input inside a block: implicit end, synthesize or direct. */
static tw_status think_finish_block(tw_text_dec *d)
{
    size_t olen;
    const char *open = opener(d, &olen);
    const char *h = hdata(d);
    size_t len = hlen(d);
    tw_status st = TW_OK;
    /* §1.7: the first opener that starts a complete, valid block. One pass:
     * the closing tag and the bracket each opener needs are found by
     * searches that only move forward, and once no closing tag follows,
     * no later opener can start a block. */
    size_t clen;
    const char *close = closer(d, &clen);
    size_t from = d->t_text_start;
    /* lit: the first closing tag at or after the current payload; brace,
     * brack: the first '{' and '[' there (len when none). 0: not searched. */
    size_t lit = 0, brace = 0, brack = 0;
    /* quote: the first '"' there (len when none; 0: not searched); memo_br,
     * memo_lit: the bracket and closing tag of the last payload found
     * invalid whose bytes before the bracket are inert, so that a later
     * opener with the same bracket, closing tag and inert head is not
     * parsed again (payload_head_inert) */
    size_t quote = 0, memo_br = NPOS, memo_lit = NPOS;
    for (int tries = 0; tries < 64 && from < len; tries++) {
        const char *f = tw_memmem(h + from, len - from, open, olen);
        if (!f)
            break;
        size_t at = (size_t)(f - h), pay = at + olen;
        if (lit < pay) {
            const char *c = tw_memmem(h + pay, len - pay, close, clen);
            if (!c)
                break; /* no closing tag from here on */
            lit = (size_t)(c - h);
        }
        if (brace < pay) {
            const char *b = memchr(h + pay, '{', len - pay);
            brace = b ? (size_t)(b - h) : len;
        }
        if (brack < pay) {
            const char *b = memchr(h + pay, '[', len - pay);
            brack = b ? (size_t)(b - h) : len;
        }
        size_t br = brace < brack ? brace : brack;
        bool inert = false;
        if (d->kind != TW_TEXT_QWEN_XML && br < lit) {
            if (quote < pay) {
                const char *q = memchr(h + pay, '"', len - pay);
                quote = q ? (size_t)(q - h) : len;
            }
            inert = quote > br && payload_head_inert(h + pay, br - pay);
        }
        bool valid = false;
        if (!inert || br != memo_br || lit != memo_lit) {
            valid = block_valid_at(d, f, len - at, h + lit, br < lit, &st);
            if (st != TW_OK)
                return st;
            if (inert && !valid)
                memo_br = br, memo_lit = lit;
        }
        if (valid) {
            st = emit_thinking(d, h + d->t_text_start, at - d->t_text_start, true);
            end_thinking_block(d);
            if (st == TW_OK)
                st = add_diag(d, false, TW_D_THINK_IMPLICIT_END, (int64_t)(d->t_hold_off + at),
                              NULL);
            d->t_state = 0;
            hold_consume(d, at);
            if (st == TW_OK)
                st = think_process(d, true);
            if (st == TW_OK && d->t_state == 1)
                return think_finish_block(d);
            if (st == TW_OK && hlen(d)) {
                st = calls_feed(d, hdata(d), hlen(d), d->t_hold_off);
                hold_consume(d, hlen(d));
            }
            return st;
        }
        from = at + 1;
    }
    st = add_diag(d, true, TW_D_THINK_UNTERMINATED, d->t_open_off, NULL);
    if (st != TW_OK)
        return st;
    if (d->o.unterminated == TW_UNTERM_DIRECT) {
        /* the block's raw bytes, opening tag included, are public text */
        end_thinking_block(d);
        d->t_state = 0;
        st = calls_feed(d, h + d->t_raw_start, len - d->t_raw_start,
                        d->t_hold_off + d->t_raw_start);
    } else {
        st = emit_thinking(d, h + d->t_text_start, len - d->t_text_start, true);
        end_thinking_block(d);
        d->t_state = 0;
    }
    hold_consume(d, len);
    return st;
}

/* ===================== public API ===================== */

tw_status tw_text_init(tw_text_dec *d, tw_text_kind kind, const tw_decode_opts *o,
                       tw_event_fn fn, void *user)
{
    TW_DECODER_SETUP(d, o, fn, user);
    d->kind = kind;
    tw_result_init(&d->res, &d->L);
    d->c_cap = tw_args_text_cap(&d->L);
    d->c_lit = NPOS;
    d->t_call_at = NPOS;
    d->t_nolt = NPOS;
    d->c_bare_hold = d->o.bare_json && kind != TW_TEXT_THINK;
    if (d->o.forced_open) {
        d->t_state = 1;
        d->t_tag = 3;
        d->t_forced_start = true;
        d->t_open_off = 0;
    }
    return TW_OK;
}

tw_status tw_text_feed(tw_text_dec *d, const char *buf, size_t len)
{
    if (d->finished)
        return TW_ERR_STATE;
    if (d->stop != TW_OK)
        return d->stop;
    len = tw_input_clip(&d->L, d->fed, len, &d->too_large);
    if (len == 0)
        return TW_OK;
    tw_status st = think_feed(d, buf, len);
    d->fed += len;
    if (st != TW_OK && d->stop == TW_OK)
        d->stop = st; /* a failure ends the decode: later feeds and finish fail too */
    return st == TW_OK ? d->stop : st;
}

static tw_status bare_json_finish(tw_text_dec *d)
{
    /* content was held; decide whether it is one call */
    d->c_bare_hold = false;
    const char *p = d->c_bare.data ? d->c_bare.data : "";
    size_t n = d->c_bare.len;
    const char *t = p;
    size_t tn = n;
    tw_trim(&t, &tn);
    if (d->c_blocks == 0 && tn && t[0] == '{') {
        tw_error e;
        tw_json_lint lint;
        cJSON *v = NULL;
        tw_status ps = tw_json_parse_lint(t, tn, d->L.max_depth, &v, &e, &lint);
        if (ps == TW_ERR_NOMEM)
            return ps;
        if (ps == TW_OK && cJSON_IsObject(v) &&
            (cJSON_IsString(tw_json_get(v, "name")) || tw_json_tainted(v))) {
            /* offset: where the JSON starts in the input is not tracked
             * through the layers; the bare text's first byte is */
            int64_t off = (int64_t)d->c_bare_off;
            size_t before = d->res.msg.ncalls;
            tw_status st = TW_OK;
            if (lint.nonstd_offset >= 0) {
                char m[160];
                snprintf(m, sizeof m, "bare JSON is not RFC 8259: %s at its byte %lld",
                         lint.nonstd_what, (long long)lint.nonstd_offset);
                st = add_diag(d, false, TW_D_JSON_NOT_RFC8259, off, m);
            }
            if (st == TW_OK)
                st = take_call(d, v, off, tn);
            cJSON_Delete(v);
            if (st != TW_OK)
                return st;
            if (d->res.msg.ncalls > before)
                st = add_diag(d, false, TW_D_BARE_JSON, off, NULL);
            tw_buf_free(&d->c_bare);
            return st;
        }
        cJSON_Delete(v);
    }
    tw_status st = emit_content(d, p, n, d->c_bare_off);
    tw_buf_free(&d->c_bare);
    return st;
}

tw_status tw_text_finish(tw_text_dec *d, tw_result *out)
{
    tw_status st = TW_OK;
    if (d->finished) {
        tw_result_init(out, &d->L); /* *out is empty on every failure */
        return TW_ERR_STATE;
    }
    d->finished = true;
    st = d->stop; /* a callback stopped the decode */
    if (st == TW_OK && d->t_state == 1 && d->t_forced_start)
        forced_start(d, true);
    if (st == TW_OK)
        st = think_process(d, true);
    if (st == TW_OK && d->t_state == 1)
        st = think_finish_block(d);
    if (st == TW_OK && hlen(d)) {
        st = calls_feed(d, hdata(d), hlen(d), d->t_hold_off);
        hold_consume(d, hlen(d));
    }
    if (st == TW_OK)
        st = calls_finish(d);
    if (st == TW_OK && d->c_bare_hold)
        st = bare_json_finish(d);
    if (st == TW_OK && d->too_large)
        st = add_diag(d, true, TW_D_INPUT_TOO_LARGE, (int64_t)d->L.max_input_bytes, NULL);
    if (st == TW_OK) {
        tw_wire_sort_diags(&d->res);
        const char *fr = d->kind == TW_TEXT_THINK
                             ? (d->o.finish == TW_FINISH_LENGTH ? "length" : "stop")
                             : tw_text_finish_reason(d->res.msg.ncalls, d->o.finish);
        tw_free(d->res.finish_reason);
        d->res.finish_reason = tw_strdup(fr);
        if (!d->res.finish_reason)
            st = TW_ERR_NOMEM;
        if (!d->res.msg.content.data)
            st = st == TW_OK ? tw_buf_append(&d->res.msg.content, "", 0) : st;
        if (!d->res.msg.thinking.data)
            st = st == TW_OK ? tw_buf_append(&d->res.msg.thinking, "", 0) : st;
    }
    if (st == TW_OK)
        st = d->stop; /* a callback stopped the decode */
    if (st == TW_OK) {
        *out = d->res;
        memset(&d->res, 0, sizeof d->res);
    } else {
        tw_result_init(out, &d->L);
    }
    return st;
}

void tw_text_release(tw_text_dec *d)
{
    tw_result_free(&d->res);
    tw_buf_free(&d->t_hold);
    tw_buf_free(&d->th_ws);
    tw_buf_free(&d->c_hold);
    tw_buf_free(&d->c_blk);
    tw_buf_free(&d->c_spare);
    tw_buf_free(&d->c_seg);
    tw_buf_free(&d->c_ws);
    tw_buf_free(&d->c_bare);
    tw_buf_free(&d->q_ev);
}

void tw_text_bufs(tw_text_dec *d, tw_buf *b[TEXT_NBUFS])
{
    b[0] = &d->t_hold, b[1] = &d->th_ws, b[2] = &d->c_hold, b[3] = &d->c_blk;
    b[4] = &d->c_seg, b[5] = &d->c_ws, b[6] = &d->c_bare, b[7] = &d->q_ev;
    b[8] = &d->c_spare;
}

tw_status tw_text_reset(tw_text_dec *d, const tw_decode_opts *o, tw_event_fn fn, void *user)
{
    /* the decoder's own buffers, then the result's content and thinking
     * (allocations a recycled result gave back, or a decode cut short) */
    tw_buf *b[TEXT_NBUFS + 2], keep[TEXT_NBUFS + 2];
    tw_text_bufs(d, b);
    b[TEXT_NBUFS] = &d->res.msg.content;
    b[TEXT_NBUFS + 1] = &d->res.msg.thinking;
    tw_bufs_detach(b, keep, TEXT_NBUFS + 2);
    tw_text_release(d);
    tw_status st = tw_text_init(d, d->kind, o, fn, user);
    tw_bufs_attach(b, keep, TEXT_NBUFS + 2);
    return st;
}

void tw_text_recycle(tw_text_dec *d, tw_result *r)
{
    if (!r)
        return;
    tw_result_clear(r, &d->L);
    tw_buf *mine[2] = {&d->res.msg.content, &d->res.msg.thinking};
    tw_buf *theirs[2] = {&r->msg.content, &r->msg.thinking};
    for (size_t i = 0; i < 2; i++) {
        if (mine[i]->data || !theirs[i]->data)
            continue; /* the decoder has one already (a decode under way): r's is freed */
        mine[i]->data = theirs[i]->data;
        mine[i]->cap = theirs[i]->cap;
        mine[i]->len = 0;
        memset(theirs[i], 0, sizeof *theirs[i]);
    }
    tw_result_free(r);
}

TW_DECODER_ADAPTERS(gen, tw_text, tw_text_dec)

static tw_status batch(tw_text_kind k, const char *buf, size_t len, const tw_decode_opts *o,
                       tw_result *out)
{
    tw_text_dec d;
    return tw_decode_batch(&d, tw_text_init(&d, k, o, NULL, NULL), gen_feed, gen_finish,
                           gen_release, buf, len, out);
}

tw_status tw_think_output_decode(const char *buf, size_t len, const tw_decode_opts *o, tw_result *out)
{
    return batch(TW_TEXT_THINK, buf, len, o, out);
}

tw_status tw_hermes_output_decode(const char *buf, size_t len, const tw_decode_opts *o, tw_result *out)
{
    return batch(TW_TEXT_HERMES, buf, len, o, out);
}

tw_status tw_fenced_output_decode(const char *buf, size_t len, const tw_decode_opts *o, tw_result *out)
{
    return batch(TW_TEXT_FENCED, buf, len, o, out);
}

tw_status tw_qwen3_coder_output_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                       tw_result *out)
{
    return batch(TW_TEXT_QWEN_XML, buf, len, o, out);
}

/* ===================== the opaque decoder ===================== */

tw_text_dec *tw_text_dec_new(tw_text_kind kind, const tw_decode_opts *o, tw_event_fn fn,
                             void *user)
{
    tw_text_dec *d = tw_malloc(sizeof *d);
    if (d && tw_text_init(d, kind, o, fn, user) != TW_OK) {
        tw_text_dec_free(d);
        d = NULL;
    }
    return d;
}

tw_status tw_text_dec_feed(tw_text_dec *d, const char *buf, size_t len)
{
    return tw_text_feed(d, buf, len);
}

tw_status tw_text_dec_finish(tw_text_dec *d, tw_result *out)
{
    return tw_text_finish(d, out);
}

tw_status tw_text_dec_reset(tw_text_dec *d, const tw_decode_opts *o, tw_event_fn fn, void *user)
{
    return tw_text_reset(d, o, fn, user);
}

void tw_text_dec_recycle(tw_text_dec *d, tw_result *r)
{
    tw_text_recycle(d, r);
}

void tw_text_dec_free(tw_text_dec *d)
{
    if (!d)
        return;
    tw_text_release(d);
    tw_free(d);
}

/* ===================== registry glue ===================== */

static void *think_new(const tw_decode_opts *o, tw_event_fn fn, void *u)
{
    return tw_text_dec_new(TW_TEXT_THINK, o, fn, u);
}
static void *hermes_new(const tw_decode_opts *o, tw_event_fn fn, void *u)
{
    return tw_text_dec_new(TW_TEXT_HERMES, o, fn, u);
}
static void *fenced_new(const tw_decode_opts *o, tw_event_fn fn, void *u)
{
    return tw_text_dec_new(TW_TEXT_FENCED, o, fn, u);
}
static void *qwen3_coder_new(const tw_decode_opts *o, tw_event_fn fn, void *u)
{
    return tw_text_dec_new(TW_TEXT_QWEN_XML, o, fn, u);
}
static tw_status gen_reset(void *d, const tw_decode_opts *o, tw_event_fn fn, void *u)
{
    return tw_text_reset(d, o, fn, u);
}
static void gen_recycle(void *d, tw_result *r) { tw_text_recycle(d, r); }
static void gen_free(void *d) { tw_text_dec_free(d); }

const tw_format_ops tw_format_think = {"think", "raw model text: <think>/<thinking> blocks",
                                       tw_think_output_decode, think_new, gen_feed, gen_finish,
                                       gen_reset, gen_free, gen_recycle};
const tw_format_ops tw_format_hermes = {
    "hermes", "raw model text: think blocks, then <tool_call> blocks (Hermes/Qwen)",
    tw_hermes_output_decode, hermes_new, gen_feed, gen_finish, gen_reset, gen_free, gen_recycle};
const tw_format_ops tw_format_fenced = {
    "fenced", "raw model text: think blocks, then ```tool_call fenced blocks", tw_fenced_output_decode,
    fenced_new, gen_feed, gen_finish, gen_reset, gen_free, gen_recycle};
const tw_format_ops tw_format_qwen3_coder = {
    "qwen3-coder",
    "raw model text: think blocks, then <tool_call><function=NAME><parameter=KEY> XML blocks "
    "(Qwen3-Coder, Qwen3.5)",
    tw_qwen3_coder_output_decode, qwen3_coder_new, gen_feed, gen_finish, gen_reset, gen_free, gen_recycle};
