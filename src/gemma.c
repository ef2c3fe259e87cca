/*
 * Gemma 4 (Google): the model-output dialect on the push engine
 * (dialect.h) and its output encoder. Grammar and rules:
 * docs/formats/gemma4.md.
 *
 *   [<|channel>thought\nREASONING<channel|>] CONTENT
 *   <|tool_call>call:NAME{key:VALUE,…}<tool_call|> …
 *   [<|tool_response> | <turn|>]
 *
 * A VALUE is <|"|>a string<|"|>, a bare number, boolean or null, or an
 * object {key:VALUE,…} or a list [VALUE,…] in the same syntax. A bare
 * top-level value is typed by the tool's schema (typed_args.h); a quoted
 * one is a string; an object or list is JSON.
 */
#include "toolwire/gemma.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "dialect.h"
#include "enc_common.h"
#include "formats.h"
#include "gemma_text.h"
#include "py_text.h"
#include "toolwire/json.h"
#include "typed_args.h"
#include "tw_macros.h"

enum {
    S_TEXT = 0, /* content */
    S_THINK,    /* inside the thought channel */
    S_CALL,     /* after <|tool_call>: the block up to <tool_call|> */
    S_DONE      /* after an end-of-turn token */
};

typedef struct gemma_dec {
    tw_dl dl;
    int st;
    tw_dl_think think; /* the thought channel */
    bool chname;       /* right after <|channel>: its name (thought) is dropped */
    bool in_str;       /* the call search is inside a <|"|> string */
    bool after_warned; /* text after the end of the turn was reported */
    uint64_t call_at;  /* offset of the open call's <|tool_call> */
    uint64_t scan;     /* where the call search goes on */
} gemma_dec;

static const tw_dl_mark text_marks[] = {TW_DL_MARK(G_CH),   TW_DL_MARK(G_CALL),
                                        TW_DL_MARK(G_EOT),  TW_DL_MARK(G_TURN),
                                        TW_DL_MARK(G_RESP), TW_DL_MARK(G_CH_END)};
enum { T_CH, T_CALL, T_EOT, T_TURN, T_RESP, T_CH_END };

static const tw_dl_mark think_open = TW_DL_MARK(G_CH);
static const tw_dl_mark think_marks[] = {TW_DL_MARK(G_CH_END), TW_DL_MARK(G_CALL),
                                         TW_DL_MARK(G_EOT),    TW_DL_MARK(G_TURN),
                                         TW_DL_MARK(G_RESP),   TW_DL_MARK(G_CH)};
enum { H_END, H_CALL, H_EOT, H_TURN, H_RESP, H_CH, H_N };

/* what ends a call block outside a string: its end, a string's opener, or
 * (unterminated) a next call or the end of the turn */
static const tw_dl_mark call_marks[] = {TW_DL_MARK(G_CALL_END), TW_DL_MARK(G_Q),
                                        TW_DL_MARK(G_CALL),     TW_DL_MARK(G_EOT),
                                        TW_DL_MARK(G_TURN),     TW_DL_MARK(G_RESP)};
/* inside a string: its end, or the end of the turn (a special token the
 * model writes only to end it) */
static const tw_dl_mark str_marks[] = {TW_DL_MARK(G_Q), TW_DL_MARK(G_EOT), TW_DL_MARK(G_TURN),
                                       TW_DL_MARK(G_RESP)};
enum { C_END, C_Q, C_CALL, C_EOT };

static bool starts(const char *p, size_t n, const char *lit, size_t k)
{
    return n >= k && memcmp(p, lit, k) == 0;
}

/* The first occurrence of lit in p[0, n), or n. */
static size_t find(const char *p, size_t n, const char *lit, size_t k)
{
    const char *h = tw_memmem(p, n, lit, k);
    return h ? (size_t)(h - p) : n;
}

bool tw_gemma_name_ok(const char *p, size_t n)
{
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c < 0x20 || c == 0x7f || c == ' ' || c == '<' || c == '>' || c == '{' || c == '}' ||
            c == '[' || c == ']' || c == ',' || c == ':' || c == '"' || c == '\'')
            return false;
    }
    return true;
}

/* ===================== the brace syntax ===================== */

/* A strict JSON number, true, false or null. */
static bool json_scalar(const char *p, size_t n)
{
    return (n == 4 && !memcmp(p, "true", 4)) || (n == 5 && !memcmp(p, "false", 5)) ||
           (n == 4 && !memcmp(p, "null", 4)) || tw_json_number_valid(p, n);
}

/* One reading of a call's brace syntax: b[0, e), a refusal's reason. */
typedef struct brace {
    const char *b;
    size_t e;
    size_t p;
    size_t max_depth;
    bool py;          /* a bare None is null (the chat template's spelling) */
    tw_status code;   /* TW_OK while readable */
    const char *what; /* why not, at byte `at` */
    size_t at;
} brace;

static void bad(brace *r, tw_status code, const char *what)
{
    if (r->code == TW_OK) {
        r->code = code;
        r->what = what;
        r->at = r->p;
    }
}

static bool json_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* A bare word [s, s + n) of a prompt (py) holding a form feed or a vertical
 * tab: trimmed, it would vanish. */
static bool py_spaced(brace *r, const char *s, size_t n)
{
    if (!r->py || (!memchr(s, '\f', n) && !memchr(s, '\v', n)))
        return false;
    bad(r, TW_D_TOOL_CALL_JSON, "a form feed or vertical tab by a bare word");
    return true;
}

static void ws(brace *r)
{
    /* a prompt (py) is read back with JSON's white space only: a form feed
     * or a vertical tab between its tokens would vanish from it */
    while (r->p < r->e && (r->py ? json_space(r->b[r->p]) : tw_dl_space(r->b[r->p])))
        r->p++;
}

/* A quoted string after its opener: [*s, *s + *n); p past its closer. */
static bool quoted(brace *r, const char **s, size_t *n)
{
    size_t q = r->p + find(r->b + r->p, r->e - r->p, G_Q, MLEN(G_Q));
    if (q >= r->e) {
        bad(r, TW_D_TOOL_CALL_JSON, "a <|\"|> string is not closed");
        return false;
    }
    *s = r->b + r->p;
    *n = q - r->p;
    r->p = q + MLEN(G_Q);
    return true;
}

/* A bare token up to , } ] (trimmed); NULL-free. */
static bool bare(brace *r, const char **s, size_t *n)
{
    size_t a = r->p;
    while (r->p < r->e) {
        char c = r->b[r->p];
        if (c == ',' || c == '}' || c == ']')
            break;
        if (c == '{' || c == '[' || c == ':' || starts(r->b + r->p, r->e - r->p, "<|", 2)) {
            bad(r, TW_D_TOOL_CALL_JSON, "a bare value holds markup");
            return false;
        }
        r->p++;
    }
    *s = r->b + a;
    *n = r->p - a;
    if (py_spaced(r, *s, *n))
        return false;
    tw_trim(s, n);
    if (!*n) {
        bad(r, TW_D_TOOL_CALL_JSON, "a value is missing");
        return false;
    }
    return true;
}

/* A key (bare or quoted) and its colon. */
static bool key(brace *r, const char **k, size_t *kn)
{
    ws(r);
    if (starts(r->b + r->p, r->e - r->p, G_Q, MLEN(G_Q))) {
        r->p += MLEN(G_Q);
        if (!quoted(r, k, kn))
            return false;
    } else {
        size_t a = r->p;
        while (r->p < r->e && r->b[r->p] != ':' && r->b[r->p] != ',' && r->b[r->p] != '}')
            r->p++;
        *k = r->b + a;
        *kn = r->p - a;
        if (py_spaced(r, *k, *kn))
            return false;
        tw_trim(k, kn);
        if (!tw_gemma_name_ok(*k, *kn)) {
            bad(r, TW_D_TOOL_CALL_JSON, "a key is empty or not a bare name");
            return false;
        }
    }
    ws(r);
    if (r->p >= r->e || r->b[r->p] != ':') {
        bad(r, TW_D_TOOL_CALL_JSON, "a key has no ':'");
        return false;
    }
    r->p++;
    ws(r);
    return true;
}

/* After a member: ',' (true, more) or the closer c (false, done). */
static bool next(brace *r, char c, bool *more)
{
    ws(r);
    if (r->p < r->e && r->b[r->p] == ',') {
        r->p++;
        ws(r);
        /* a trailing comma before the closer is taken */
        *more = !(r->p < r->e && r->b[r->p] == c);
        if (!*more)
            r->p++;
        return true;
    }
    if (r->p < r->e && r->b[r->p] == c) {
        r->p++;
        *more = false;
        return true;
    }
    bad(r, TW_D_TOOL_CALL_JSON,
        c == '}' ? "an object is not closed by '}'" : "a list is not closed by ']'");
    return false;
}

/* One nested value as JSON into j. */
static tw_status value_json(brace *r, tw_buf *j, size_t depth)
{
    if (depth > r->max_depth) {
        bad(r, TW_D_JSON_TOO_DEEP, "arguments nested deeper than max_depth");
        return TW_OK;
    }
    ws(r);
    const char *s;
    size_t n;
    if (starts(r->b + r->p, r->e - r->p, G_Q, MLEN(G_Q))) {
        r->p += MLEN(G_Q);
        if (quoted(r, &s, &n))
            return tw_json_write_str(j, s, n, 0);
        return TW_OK;
    }
    if (r->p < r->e && (r->b[r->p] == '{' || r->b[r->p] == '[')) {
        char close = r->b[r->p] == '{' ? '}' : ']';
        TRY(tw_buf_putc(j, r->b[r->p]));
        r->p++;
        ws(r);
        bool more = true;
        if (r->p < r->e && r->b[r->p] == close) {
            r->p++;
            more = false;
        }
        for (bool first = true; more && r->code == TW_OK; first = false) {
            if (!first)
                TRY(tw_buf_putc(j, ','));
            if (close == '}') {
                if (!key(r, &s, &n))
                    break;
                TRY(tw_json_write_str(j, s, n, 0));
                TRY(tw_buf_putc(j, ':'));
            }
            TRY(value_json(r, j, depth + 1));
            if (r->code != TW_OK || !next(r, close, &more))
                break;
        }
        return tw_buf_putc(j, close);
    }
    if (!bare(r, &s, &n))
        return TW_OK;
    if (r->py && n == 4 && memcmp(s, "None", 4) == 0)
        return PUTS(j, "null");
    /* a bare word that is no JSON scalar is kept as a string */
    return json_scalar(s, n) ? tw_buf_append(j, s, n) : tw_json_write_str(j, s, n, 0);
}

tw_status tw_gemma_brace_json(const char *b, size_t e, size_t *p, size_t max_depth, bool py,
                              tw_buf *j, const char **what, tw_status *code)
{
    brace r = {b, e, *p, max_depth, py, TW_OK, NULL, 0};
    tw_status st = value_json(&r, j, 0);
    *what = r.what;
    *code = r.code;
    *p = r.code == TW_OK ? r.p : r.at;
    return st;
}

/* ===================== one call ===================== */

/* The call block body [from, to) of the call at call_at. */
static tw_status take_call(gemma_dec *g, uint64_t from, uint64_t to)
{
    tw_dl *d = &g->dl;
    brace r = {tw_dl_at(d, from), (size_t)(to - from), 0, d->L.max_depth, false, TW_OK, NULL, 0};
    const char *name = "";
    size_t nn = 0, nparams = 1;
    for (const char *q = r.b, *end = r.b + r.e; (q = memchr(q, ',', (size_t)(end - q))); q++)
        nparams++;
    ws(&r);
    size_t brace_at = r.e;
    if (!starts(r.b + r.p, r.e - r.p, G_CALL_KW, MLEN(G_CALL_KW))) {
        bad(&r, TW_D_XML_BAD_NAME, "<|tool_call> is not followed by call:NAME");
    } else {
        r.p += MLEN(G_CALL_KW);
        brace_at = r.p + find(r.b + r.p, r.e - r.p, "{", 1);
        name = r.b + r.p;
        nn = brace_at - r.p;
        tw_trim(&name, &nn);
        if (!tw_gemma_name_ok(name, nn))
            bad(&r, TW_D_XML_BAD_NAME, "call: names no function before its '{'");
        else if (brace_at >= r.e)
            bad(&r, TW_D_TOOL_CALL_JSON, "the call has no {…} arguments");
    }
    const tw_tool *tool = r.code == TW_OK ? tw_targs_tool(&d->o, name, nn) : NULL;
    tw_targs a;
    tw_buf j = {0};
    tw_status st = tw_targs_begin(&a, tool, nparams, d->L.max_depth);
    if (st == TW_OK && r.code == TW_OK) {
        r.p = brace_at + 1;
        ws(&r);
        bool more = true;
        if (r.p < r.e && r.b[r.p] == '}') {
            r.p++;
            more = false;
        }
        while (st == TW_OK && more && r.code == TW_OK && a.refuse == TW_OK) {
            const char *k, *v;
            size_t kn, vn;
            if (!key(&r, &k, &kn))
                break;
            uint64_t kpos = from + (uint64_t)(k - r.b);
            if (starts(r.b + r.p, r.e - r.p, G_Q, MLEN(G_Q))) {
                r.p += MLEN(G_Q);
                if (!quoted(&r, &v, &vn))
                    break;
                st = tw_targs_add(&a, k, kn, v, vn, TW_TARGS_STRING, kpos,
                                  from + (uint64_t)(v - r.b));
            } else if (r.p < r.e && (r.b[r.p] == '{' || r.b[r.p] == '[')) {
                uint64_t vpos = from + r.p;
                j.len = 0;
                st = value_json(&r, &j, 1);
                if (st == TW_OK && r.code == TW_OK)
                    st = tw_targs_add(&a, k, kn, j.data, j.len, TW_TARGS_JSON, kpos, vpos);
            } else {
                if (!bare(&r, &v, &vn))
                    break;
                st = tw_targs_add(&a, k, kn, v, vn, TW_TARGS_TYPED, kpos,
                                  from + (uint64_t)(v - r.b));
            }
            if (st != TW_OK || r.code != TW_OK || !next(&r, '}', &more))
                break;
        }
        if (st == TW_OK && r.code == TW_OK) {
            ws(&r);
            if (r.p < r.e)
                bad(&r, TW_D_TOOL_CALL_JSON, "text after the arguments' '}'");
        }
    }
    if (st == TW_OK && r.code != TW_OK)
        tw_targs_refuse(&a, r.code, "%s at byte %zu of the call", r.what, r.at);
    bool accepted = false;
    tw_wire_sink k = {&d->res, &d->o, &d->L, d->fn, d->user, &d->stop};
    if (st == TW_OK)
        st = tw_targs_take(&a, &k, name, nn, NULL, (int64_t)g->call_at, NULL, NULL, &accepted);
    tw_targs_free(&a);
    tw_buf_free(&j);
    return st;
}

/* ===================== the scan ===================== */

static tw_status done(gemma_dec *g, uint64_t at, size_t n)
{
    g->st = S_DONE;
    g->dl.pos = at + n;
    return TW_OK;
}

static void open_call(gemma_dec *g, uint64_t at)
{
    tw_dl_gap(&g->dl, TW_DL_CONTENT);
    g->call_at = at;
    g->scan = at + MLEN(G_CALL);
    g->in_str = false;
    g->st = S_CALL;
    g->dl.pos = at;
}

static void open_think(gemma_dec *g, uint64_t at)
{
    g->st = S_THINK;
    g->chname = true;
    tw_dl_think_open(&g->dl, &g->think, at, MLEN(G_CH));
}

static tw_status scan_text(gemma_dec *g, bool final)
{
    tw_dl *d = &g->dl;
    uint64_t at;
    size_t which = 0;
    TRY(tw_dl_content(d, NULL, text_marks, 6, final, &at, &which));
    if (which == 6)
        return TW_OK;
    switch (which) {
    case T_CH:
        tw_dl_gap(d, TW_DL_CONTENT);
        open_think(g, at);
        return TW_OK;
    case T_CALL: open_call(g, at); return TW_OK;
    case T_CH_END: /* a stray channel closer (the prompt's empty thought) is dropped */
        d->pos = at + MLEN(G_CH_END);
        return TW_OK;
    default: return done(g, at, text_marks[which].n);
    }
}

static tw_status scan_think(gemma_dec *g, bool final)
{
    tw_dl *d = &g->dl;
    if (g->think.lead) { /* a <|channel> at the start of a forced-open block */
        int s = tw_dl_think_lead(d, &g->think, &think_open, final);
        if (s < 0)
            return TW_OK;
        g->chname = s > 0;
    }
    if (g->chname) { /* the channel's name: thought */
        int s = tw_dl_starts(d, d->pos, G_THOUGHT, MLEN(G_THOUGHT), final);
        if (s < 0)
            return TW_OK;
        g->chname = false;
        if (s > 0)
            d->pos += MLEN(G_THOUGHT);
    }
    uint64_t at;
    size_t which;
    TRY(tw_dl_think_scan(d, &g->think, &think_open, think_marks, H_N, final, &at, &which));
    switch (which) {
    case H_N: return TW_OK; /* the channel goes on */
    case H_END: g->st = S_TEXT; return TW_OK;
    case H_CH: /* a second opener inside the channel: the same block */
        d->pos = at + MLEN(G_CH);
        g->chname = true;
        return TW_OK;
    case H_CALL:
        TRY(tw_dl_think_implicit(d, at,
                                 "the thought channel ended at <|tool_call> without <channel|>"));
        open_call(g, at);
        return TW_OK;
    default:
        TRY(tw_dl_think_unterminated(d, &g->think,
                                     "<|channel> not closed before the end of the turn"));
        return done(g, at, think_marks[which].n);
    }
}

static tw_status call_unterminated(gemma_dec *g, const char *why)
{
    return tw_dl_diag(&g->dl, true, TW_D_TOOL_CALL_UNTERMINATED, (int64_t)g->call_at, why);
}

static tw_status scan_call(gemma_dec *g, bool final)
{
    tw_dl *d = &g->dl;
    for (;;) {
        uint64_t at;
        size_t which = 0;
        tw_dl_hit h = g->in_str ? tw_dl_find(d, g->scan, NULL, str_marks, 4, final, &at, &which)
                                : tw_dl_find(d, g->scan, NULL, call_marks, 6, final, &at, &which);
        if (h == TW_DL_NONE) {
            g->scan = at;
            return TW_OK;
        }
        if (g->in_str) /* str_marks: the string's end, or the end of the turn */
            which = which == 0 ? C_Q : C_EOT + which - 1;
        if (which == C_Q) {
            g->in_str = !g->in_str;
            g->scan = at + MLEN(G_Q);
            continue;
        }
        if (which == C_END) {
            TRY(take_call(g, g->call_at + MLEN(G_CALL), at));
            g->st = S_TEXT;
            d->pos = at + MLEN(G_CALL_END);
            return TW_OK;
        }
        TRY(call_unterminated(g, which == C_CALL
                                     ? "<|tool_call> not closed before the next <|tool_call>"
                                     : "<|tool_call> not closed before the end of the turn"));
        if (which == C_CALL) {
            open_call(g, at);
            return TW_OK;
        }
        return done(g, at, call_marks[which].n);
    }
}

static tw_status gemma_scan(tw_dl *d, bool final)
{
    gemma_dec *g = (gemma_dec *)d;
    for (;;) {
        uint64_t pos = d->pos;
        int st = g->st;
        uint64_t call_at = g->call_at;
        bool lead = g->think.lead, chname = g->chname;
        tw_status s;
        switch (g->st) {
        case S_TEXT: s = scan_text(g, final); break;
        case S_THINK: s = scan_think(g, final); break;
        case S_CALL: s = scan_call(g, final); break;
        default:
            return tw_dl_after_end(d, &g->after_warned,
                                   "text after the end of the turn (a tool result or a next turn) "
                                   "was dropped");
        }
        if (s != TW_OK)
            return s;
        if (g->st == st && d->pos == pos && g->call_at == call_at && g->think.lead == lead &&
            g->chname == chname)
            return TW_OK;
    }
}

static void gemma_start(tw_dl *d)
{
    gemma_dec *g = (gemma_dec *)d;
    if (tw_dl_think_forced(d, &g->think))
        g->st = S_THINK;
}

static tw_status gemma_end(tw_dl *d)
{
    gemma_dec *g = (gemma_dec *)d;
    switch (g->st) {
    case S_THINK:
        return tw_dl_think_unterminated(d, &g->think,
                                        "<|channel> not closed at the end of the output");
    case S_CALL: return call_unterminated(g, "<|tool_call> not closed by <tool_call|>");
    default: return TW_OK;
    }
}

static const tw_dialect gemma_dialect = {"gemma4", sizeof(gemma_dec), gemma_start, gemma_scan,
                                         gemma_end};

TW_DIALECT_MODULE(gemma, gemma_dialect, tw_format_gemma4, "gemma4",
                  "Gemma 4 model output: <|channel>thought reasoning, "
                  "<|tool_call>call:NAME{key:VALUE} calls in brace syntax typed by the schema")

/* ===================== the output encoder ===================== */

static const char *const g_tokens[] = {G_CH, G_CH_END, G_CALL, G_CALL_END,
                                       G_Q,  G_EOT,    G_TURN, G_RESP};

bool tw_gemma_has_token(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof g_tokens / sizeof g_tokens[0]; i++)
        if (tw_memmem(s, n, g_tokens[i], strlen(g_tokens[i])))
            return true;
    return false;
}

/* Would the decoder read text back as it is? No special token in it and no
 * white space at its ends. */
static bool text_carried(const char *s, size_t n)
{
    if (n && (tw_dl_space(s[0]) || tw_dl_space(s[n - 1])))
        return false;
    return !tw_gemma_has_token(s, n);
}

static tw_status put_text(tw_buf *b, const tw_buf *s, const char *what, const tw_encode_opts *o)
{
    if (!s->len)
        return TW_OK;
    if (!text_carried(s->data, s->len))
        TRY(tw_not_carried(o,
                           "gemma4: the %s holds a special token or white space at its ends, "
                           "read back otherwise",
                           what));
    return tw_buf_append(b, s->data, s->len);
}

/* Jinja's dictsort: keys compared with ASCII letters folded (Python's
 * lower() for ASCII), ties in their order. */
typedef struct gv_member {
    const cJSON *c;
    size_t i;
} gv_member;

static int gv_cmp(const void *pa, const void *pb)
{
    const gv_member *a = pa, *b = pb;
    const unsigned char *x = (const unsigned char *)(a->c->string ? a->c->string : "");
    const unsigned char *y = (const unsigned char *)(b->c->string ? b->c->string : "");
    for (;; x++, y++) {
        int cx = *x >= 'A' && *x <= 'Z' ? *x + 32 : *x;
        int cy = *y >= 'A' && *y <= 'Z' ? *y + 32 : *y;
        if (cx != cy)
            return cx < cy ? -1 : 1;
        if (!cx)
            break;
    }
    return a->i < b->i ? -1 : a->i > b->i;
}

static bool non_ascii(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s >= 0x80)
            return true;
    return false;
}

static tw_status put_key(tw_buf *b, const char *k, const tw_gemma_vw *w)
{
    size_t kn = strlen(k);
    if (w->flags & TW_GV_QKEYS) {
        if (tw_memmem(k, kn, G_Q, MLEN(G_Q)))
            TRY(tw_not_carried(w->o, "%s: %.64s: key '%.64s' holds <|\"|>, read back otherwise",
                               w->fmt, w->call, k));
        TRY(PUTS(b, G_Q));
        TRY(tw_buf_append(b, k, kn));
        TRY(PUTS(b, G_Q));
    } else {
        if (!tw_gemma_name_ok(k, kn) || tw_gemma_has_token(k, kn))
            TRY(tw_not_carried(w->o, "%s: %.64s: key '%.64s' is not a bare name", w->fmt, w->call,
                               k));
        TRY(tw_buf_append(b, k, kn));
    }
    return tw_buf_putc(b, ':');
}

tw_status tw_gemma_dictsort(const cJSON *v, const cJSON ***out, size_t *count)
{
    size_t n = 0;
    for (const cJSON *c = v ? v->child : NULL; c; c = c->next)
        n++;
    *out = NULL;
    *count = 0;
    if (!n)
        return TW_OK;
    gv_member *m = tw_malloc(n * sizeof *m);
    const cJSON **r = tw_malloc(n * sizeof *r);
    if (!m || !r) {
        tw_free(m);
        tw_free(r);
        return TW_ERR_NOMEM;
    }
    size_t i = 0;
    for (const cJSON *c = v->child; c; c = c->next, i++) {
        m[i].c = c;
        m[i].i = i;
    }
    qsort(m, n, sizeof *m, gv_cmp);
    for (i = 0; i < n; i++)
        r[i] = m[i].c;
    tw_free(m);
    *out = r;
    *count = n;
    return TW_OK;
}

/* The members of an object in dictsort's order. */
static tw_status put_sorted(tw_buf *b, const cJSON *v, const tw_gemma_vw *w, size_t depth)
{
    bool wide = false;
    for (const cJSON *c = v->child; c; c = c->next)
        wide |= c->string && non_ascii(c->string);
    if (wide && v->child && v->child->next)
        TRY(tw_not_carried(w->o,
                           "%s: %.64s: keys with non-ASCII letters are sorted with only ASCII "
                           "letters folded (Jinja's dictsort folds every letter)",
                           w->fmt, w->call));
    const cJSON **m;
    size_t n;
    TRY(tw_gemma_dictsort(v, &m, &n));
    tw_status st = TW_OK;
    for (size_t i = 0; i < n && st == TW_OK; i++) {
        if (i)
            st = tw_buf_putc(b, ',');
        if (st == TW_OK)
            st = put_key(b, m[i]->string ? m[i]->string : "", w);
        if (st == TW_OK)
            st = tw_gemma_put_value(b, m[i], w, depth + 1);
    }
    tw_free((void *)m);
    return st;
}

tw_status tw_gemma_put_value(tw_buf *b, const cJSON *v, const tw_gemma_vw *w, size_t depth)
{
    if (depth > w->max_depth)
        return TW_ERR_LIMIT;
    bool py = (w->flags & TW_GV_PY) != 0;
    if (cJSON_IsString(v)) {
        const char *s = v->valuestring ? v->valuestring : "";
        size_t n = strlen(s);
        if (tw_memmem(s, n, G_Q, MLEN(G_Q)))
            TRY(tw_not_carried(w->o, "%s: %.64s: a string holds <|\"|>, read back otherwise",
                               w->fmt, w->call));
        TRY(PUTS(b, G_Q));
        TRY(tw_buf_append(b, s, n));
        return PUTS(b, G_Q);
    }
    if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
        bool obj = cJSON_IsObject(v);
        TRY(tw_buf_putc(b, obj ? '{' : '['));
        if (obj && py) {
            TRY(put_sorted(b, v, w, depth));
        } else {
            for (const cJSON *c = v->child; c; c = c->next) {
                if (c != v->child)
                    TRY(tw_buf_putc(b, ','));
                if (obj)
                    TRY(put_key(b, c->string ? c->string : "", w));
                TRY(tw_gemma_put_value(b, c, w, depth + 1));
            }
        }
        return tw_buf_putc(b, obj ? '}' : ']');
    }
    if (py) {
        if (cJSON_IsNull(v))
            return PUTS(b, "None");
        if (cJSON_IsNumber(v)) {
            char where[160];
            snprintf(where, sizeof where, "%s: %.64s", w->fmt, w->call);
            return tw_py_str_number(b, v, w->o ? w->o->warnings : NULL, where);
        }
    } else if (depth == 0) {
        TRY(tw_not_carried(w->o,
                           "%s: %.64s: the bare value of '%.64s' is read back as such "
                           "only by the tool's schema",
                           w->fmt, w->call, v->string ? v->string : ""));
    }
    return tw_json_write(b, v, 0);
}

static tw_status put_call(tw_buf *b, const tw_call *c, size_t i, const tw_encode_opts *o,
                          size_t max_depth)
{
    const char *name = c->name ? c->name : "";
    if (!tw_gemma_name_ok(name, strlen(name)) || tw_gemma_has_token(name, strlen(name)))
        TRY(tw_not_carried(o, "gemma4: call name '%.64s' cannot be read back", name));
    char gen[32];
    snprintf(gen, sizeof gen, "call_%zu", i + 1);
    if (c->id && c->id[0] && strcmp(c->id, gen) != 0)
        TRY(tw_not_carried(o, "gemma4: call %.64s: the dialect writes no call id ('%.64s')", name,
                           c->id));
    TRY(PUTS(b, G_CALL G_CALL_KW));
    TRY(tw_buf_puts(b, name));
    TRY(tw_buf_putc(b, '{'));
    if (c->arguments && !cJSON_IsObject(c->arguments)) {
        TRY(tw_not_carried(o, "gemma4: call %.64s: arguments that are not an object", name));
    } else if (c->arguments) {
        for (const cJSON *v = c->arguments->child; v; v = v->next) {
            const char *k = v->string ? v->string : "";
            if (v != c->arguments->child)
                TRY(tw_buf_putc(b, ','));
            if (!tw_gemma_name_ok(k, strlen(k)) || tw_gemma_has_token(k, strlen(k)))
                TRY(tw_not_carried(o, "gemma4: call %.64s: key '%.64s' is not a bare name", name,
                                   k));
            TRY(tw_buf_puts(b, k));
            TRY(tw_buf_putc(b, ':'));
            char label[80];
            snprintf(label, sizeof label, "call %.64s", name);
            tw_gemma_vw w = {o, "gemma4", label, max_depth, 0};
            TRY(tw_gemma_put_value(b, v, &w, 0));
        }
    }
    return PUTS(b, "}" G_CALL_END);
}

static tw_status render_output(const tw_result *r, const tw_encode_opts *o, tw_buf *b)
{
    tw_limits L;
    tw_limits_resolve(&L, &o->limits);
    const tw_message *m = &r->msg;
    const char *fin = r->finish_reason ? r->finish_reason : "";
    if (fin[0] && strcmp(fin, m->ncalls ? "tool_calls" : "stop") != 0)
        TRY(tw_not_carried(
            o, "gemma4: finish_reason '%.32s' not carried (the output ends as it ends)", fin));
    if (m->thinking_signature || m->has_redacted_thinking || m->redacted_thinking)
        TRY(tw_not_carried(o, "gemma4: thinking signature or redacted thinking not carried"));
    /* the thought channel is always written: under forced_open the decoder
     * reads a <|channel>thought at the start as the same opener, and an
     * empty channel reads back as no reasoning */
    TRY(PUTS(b, G_CH G_THOUGHT "\n"));
    TRY(put_text(b, &m->thinking, "reasoning", o));
    TRY(PUTS(b, G_CH_END));
    TRY(put_text(b, &m->content, "content", o));
    for (size_t i = 0; i < m->ncalls; i++)
        TRY(put_call(b, &m->calls[i], i, o, L.max_depth));
    return TW_OK;
}

tw_status tw_gemma_output_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out)
{
    return tw_encode_result_capped(r, o, out, render_output);
}

const tw_encoder_ops tw_encoder_gemma4_output = {
    "gemma4", "neutral result -> Gemma 4 model output (thought channel, <|tool_call>call:NAME{…})",
    TW_ENC_RESULT, tw_unsupported_encode_request, tw_gemma_output_encode};
