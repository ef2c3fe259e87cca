/*
 * GLM-4.5/4.6/4.7 (Z.ai): the model-output dialect on the push engine
 * (dialect.h) and its output encoder. Grammar and rules: docs/formats/glm.md.
 *
 *   [<think>REASONING</think>] CONTENT
 *   <tool_call>NAME
 *   <arg_key>KEY</arg_key>
 *   <arg_value>VALUE</arg_value>
 *   …
 *   </tool_call> … [<|user|> | <|observation|> | <|endoftext|>]
 *
 * (GLM-4.5/4.6 write the line breaks, GLM-4.7 none.) A value is typed by
 * the tool's schema (typed_args.h): the template writes strings as they are
 * and every other value as JSON.
 */
#include "toolwire/glm.h"

#include <stdio.h>
#include <string.h>

#include "dialect.h"
#include "enc_common.h"
#include "formats.h"
#include "typed_args.h"
#include "tw_macros.h"

/* ===================== the markers ===================== */

#define G_THINK "<think>"
#define G_THINK_END "</think>"
#define G_CALL "<tool_call>"
#define G_CALL_END "</tool_call>"
#define G_KEY "<arg_key>"
#define G_KEY_END "</arg_key>"
#define G_VALUE "<arg_value>"
#define G_VALUE_END "</arg_value>"
#define G_USER "<|user|>"
#define G_OBSERVATION "<|observation|>"
#define G_EOT "<|endoftext|>"

#define MLEN(lit) (sizeof(lit) - 1)

enum {
    S_TEXT = 0, /* content */
    S_THINK,    /* inside <think> */
    S_CALL,     /* after <tool_call>: the block up to </tool_call> */
    S_DONE      /* after an end-of-turn token */
};

typedef struct glm_dec {
    tw_dl dl;
    int st;
    tw_dl_think think; /* the <think> block */
    bool after_warned; /* text after the end of the turn was reported */
    uint64_t call_at;  /* offset of the open call's <tool_call> */
    uint64_t resume;   /* the resumed search of S_CALL */
} glm_dec;

static const tw_dl_mark text_marks[] = {TW_DL_MARK(G_THINK), TW_DL_MARK(G_CALL), TW_DL_MARK(G_USER),
                                        TW_DL_MARK(G_OBSERVATION), TW_DL_MARK(G_EOT)};
enum { T_THINK, T_CALL, T_USER, T_OBSERVATION, T_EOT };

static const tw_dl_mark think_open = TW_DL_MARK(G_THINK);
static const tw_dl_mark think_marks[] = {TW_DL_MARK(G_THINK_END), TW_DL_MARK(G_CALL),
                                         TW_DL_MARK(G_USER), TW_DL_MARK(G_OBSERVATION),
                                         TW_DL_MARK(G_EOT)};
enum { H_END, H_CALL, H_N = 5 };

/* what ends a call block: its end, or (unterminated) a next call or the
 * end of the turn */
static const tw_dl_mark call_marks[] = {TW_DL_MARK(G_CALL_END), TW_DL_MARK(G_CALL),
                                        TW_DL_MARK(G_USER), TW_DL_MARK(G_OBSERVATION),
                                        TW_DL_MARK(G_EOT)};
enum { C_END, C_CALL };

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

/* A call name the decoder takes: no white space, no markup, no JSON. */
static bool name_ok(const char *p, size_t n)
{
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c < 0x20 || c == 0x7f || c == ' ' || c == '<' || c == '>' || c == '{' || c == '}' ||
            c == '"' || c == '\'')
            return false;
    }
    return true;
}

/* ===================== one call ===================== */

/*
 * Where the value starting at v (after <arg_value>) ends, in body[v, e):
 * the first </arg_value> followed (after white space) by <arg_key> or by
 * the end of the block; when none is, the first </arg_value>; e when there
 * is none. Each byte is looked at a bounded number of times.
 */
static size_t value_end(const char *b, size_t v, size_t e)
{
    size_t first = e;
    size_t p = v;
    for (;;) {
        size_t at = p + find(b + p, e - p, G_VALUE_END, MLEN(G_VALUE_END));
        if (at >= e)
            return first;
        if (first == e)
            first = at;
        size_t q = at + MLEN(G_VALUE_END);
        while (q < e && tw_dl_space(b[q]))
            q++;
        if (q == e || starts(b + q, e - q, G_KEY, MLEN(G_KEY)))
            return at;
        p = at + 1;
    }
}

/* The call block body [from, to) of the call at call_at. */
static tw_status take_call(glm_dec *g, uint64_t from, uint64_t to)
{
    tw_dl *d = &g->dl;
    const char *b = tw_dl_at(d, from);
    size_t e = (size_t)(to - from);
    size_t k0 = find(b, e, G_KEY, MLEN(G_KEY));
    const char *name = b;
    size_t nn = k0;
    tw_trim(&name, &nn);
    size_t nparams = 0; /* the <arg_key> openers */
    for (size_t p = k0; p < e;) {
        nparams++;
        p += MLEN(G_KEY);
        p += find(b + p, e - p, G_KEY, MLEN(G_KEY));
    }
    const tw_tool *tool = name_ok(name, nn) ? tw_targs_tool(&d->o, name, nn) : NULL;
    tw_targs a;
    tw_status st = tw_targs_begin(&a, tool, nparams, d->L.max_depth);
    if (st != TW_OK) {
        tw_targs_free(&a);
        return st;
    }
    if (!nn)
        tw_targs_refuse(&a, TW_D_XML_BAD_NAME, "<tool_call> names no function");
    else if (!name_ok(name, nn))
        tw_targs_refuse(&a, TW_D_XML_BAD_NAME,
                        "<tool_call> '%.*s' is not a function name followed by <arg_key> elements",
                        (int)(nn > 64 ? 64 : nn), name);
    bool stray = false;
    size_t p = k0;
    while (st == TW_OK && p < e && a.refuse == TW_OK) {
        /* at an <arg_key> */
        size_t ks = p + MLEN(G_KEY);
        size_t ke = ks + find(b + ks, e - ks, G_KEY_END, MLEN(G_KEY_END));
        const char *key = b + ks;
        size_t kn = ke - ks;
        if (ke >= e || find(key, kn, "<arg_", 5) < kn) {
            tw_targs_refuse(&a, TW_D_XML_PARAM_UNCLOSED, "<arg_key> %zu has no </arg_key>",
                            a.count + 1);
            break;
        }
        tw_trim(&key, &kn);
        if (!kn) {
            tw_targs_refuse(&a, TW_D_XML_BAD_NAME, "parameter %zu has an empty name", a.count + 1);
            break;
        }
        size_t q = ke + MLEN(G_KEY_END);
        while (q < e && tw_dl_space(b[q]))
            q++;
        if (!starts(b + q, e - q, G_VALUE, MLEN(G_VALUE))) {
            tw_targs_refuse(&a, TW_D_XML_PARAM_UNCLOSED,
                            "parameter '%.*s' has no <arg_value> after its </arg_key>",
                            (int)(kn > 64 ? 64 : kn), key);
            break;
        }
        size_t vs = q + MLEN(G_VALUE);
        size_t ve = value_end(b, vs, e);
        if (ve >= e) {
            tw_targs_refuse(&a, TW_D_XML_PARAM_UNCLOSED, "parameter '%.*s' has no </arg_value>",
                            (int)(kn > 64 ? 64 : kn), key);
            break;
        }
        st = tw_targs_add(&a, key, kn, b + vs, ve - vs, TW_TARGS_TYPED, from + (uint64_t)(key - b),
                          from + vs);
        /* to the next <arg_key>: text between elements is dropped */
        size_t r = ve + MLEN(G_VALUE_END);
        size_t nk = r + find(b + r, e - r, G_KEY, MLEN(G_KEY));
        for (size_t i = r; i < nk && !stray; i++)
            stray = !tw_dl_space(b[i]);
        p = nk;
    }
    bool accepted = false;
    tw_wire_sink k = {&d->res, &d->o, &d->L, d->fn, d->user, &d->stop};
    if (st == TW_OK)
        st = tw_targs_take(&a, &k, name, nn, NULL, (int64_t)g->call_at, NULL, NULL, &accepted);
    tw_targs_free(&a);
    if (st == TW_OK && accepted && stray)
        st = tw_dl_diag(d, false, TW_D_XML_STRAY_TEXT, (int64_t)g->call_at,
                        "text between the <arg_key>/<arg_value> elements of a call was dropped");
    return st;
}

/* ===================== the scan ===================== */

static tw_status done(glm_dec *g, uint64_t at, size_t which)
{
    g->st = S_DONE;
    g->dl.pos = at + text_marks[which].n;
    return TW_OK;
}

static void open_call(glm_dec *g, uint64_t at)
{
    tw_dl_gap(&g->dl, TW_DL_CONTENT);
    g->call_at = at;
    g->resume = 0;
    g->st = S_CALL;
    g->dl.pos = at;
}

static tw_status scan_text(glm_dec *g, bool final)
{
    tw_dl *d = &g->dl;
    uint64_t at;
    size_t which = 0;
    TRY(tw_dl_content(d, NULL, text_marks, 5, final, &at, &which));
    if (which == 5)
        return TW_OK;
    switch (which) {
    case T_THINK:
        g->st = S_THINK;
        tw_dl_think_open(d, &g->think, at, MLEN(G_THINK));
        return TW_OK;
    case T_CALL: open_call(g, at); return TW_OK;
    default: return done(g, at, which);
    }
}

static tw_status scan_think(glm_dec *g, bool final)
{
    tw_dl *d = &g->dl;
    uint64_t at;
    size_t which;
    TRY(tw_dl_think_scan(d, &g->think, &think_open, think_marks, H_N, final, &at, &which));
    switch (which) {
    case H_N: return TW_OK; /* the block goes on */
    case H_END: g->st = S_TEXT; return TW_OK;
    case H_CALL:
        TRY(tw_dl_think_implicit(d, at, "the reasoning ended at <tool_call> without </think>"));
        open_call(g, at);
        return TW_OK;
    default:
        TRY(tw_dl_think_unterminated(d, &g->think,
                                     "<think> not closed before the end of the turn"));
        return done(g, at, which);
    }
}

static tw_status call_unterminated(glm_dec *g, const char *why)
{
    return tw_dl_diag(&g->dl, true, TW_D_TOOL_CALL_UNTERMINATED, (int64_t)g->call_at, why);
}

static tw_status scan_call(glm_dec *g, bool final)
{
    tw_dl *d = &g->dl;
    uint64_t from = g->call_at + MLEN(G_CALL);
    uint64_t at;
    size_t which = 0;
    tw_dl_hit h = tw_dl_find(d, from, &g->resume, call_marks, 5, final, &at, &which);
    if (h == TW_DL_NONE)
        return TW_OK;
    if (which == C_END) {
        TRY(take_call(g, from, at));
        g->st = S_TEXT;
        d->pos = at + MLEN(G_CALL_END);
        return TW_OK;
    }
    TRY(call_unterminated(g, which == C_CALL
                                 ? "<tool_call> not closed before the next <tool_call>"
                                 : "<tool_call> not closed before the end of the turn"));
    if (which == C_CALL) {
        open_call(g, at);
        return TW_OK;
    }
    return done(g, at, which);
}

static tw_status glm_scan(tw_dl *d, bool final)
{
    glm_dec *g = (glm_dec *)d;
    for (;;) {
        uint64_t pos = d->pos;
        int st = g->st;
        uint64_t call_at = g->call_at;
        tw_status s;
        switch (g->st) {
        case S_TEXT: s = scan_text(g, final); break;
        case S_THINK: s = scan_think(g, final); break;
        case S_CALL: s = scan_call(g, final); break;
        default:
            return tw_dl_after_end(d, &g->after_warned,
                                   "text after the end of the turn (a next turn) was dropped");
        }
        if (s != TW_OK)
            return s;
        /* S_CALL stays put while its search goes on */
        if (g->st == st && d->pos == pos && g->call_at == call_at)
            return TW_OK;
    }
}

static void glm_start(tw_dl *d)
{
    glm_dec *g = (glm_dec *)d;
    if (tw_dl_think_forced(d, &g->think))
        g->st = S_THINK;
}

static tw_status glm_end(tw_dl *d)
{
    glm_dec *g = (glm_dec *)d;
    switch (g->st) {
    case S_THINK:
        return tw_dl_think_unterminated(d, &g->think,
                                        "<think> not closed at the end of the output");
    case S_CALL: return call_unterminated(g, "<tool_call> not closed by </tool_call>");
    default: return TW_OK;
    }
}

static const tw_dialect glm_dialect = {"glm", sizeof(glm_dec), glm_start, glm_scan, glm_end};

TW_DIALECT_MODULE(glm, glm_dialect, tw_format_glm, "glm",
                  "GLM-4.5/4.6/4.7 model output: <think>, <tool_call>NAME with "
                  "<arg_key>/<arg_value> arguments typed by the schema")

/* ===================== the output encoder ===================== */

static const char *const g_tokens[] = {G_THINK, G_THINK_END,   G_CALL,  G_CALL_END,
                                       G_KEY,   G_KEY_END,     G_VALUE, G_VALUE_END,
                                       G_USER,  G_OBSERVATION, G_EOT};

static bool has_token(const char *s, size_t n)
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
    return !has_token(s, n);
}

static tw_status put_text(tw_buf *b, const tw_buf *s, const char *what, const tw_encode_opts *o)
{
    if (!s->len)
        return TW_OK;
    if (!text_carried(s->data, s->len))
        TRY(tw_not_carried(o,
                           "glm: the %s holds a special token or white space at its ends, "
                           "read back otherwise",
                           what));
    return tw_buf_append(b, s->data, s->len);
}

/* One argument: <arg_key>K</arg_key>\n<arg_value>V</arg_value>\n, a string
 * as it is, any other value as JSON (the template's tojson). */
static tw_status put_arg(tw_buf *b, const cJSON *v, const char *call, const tw_encode_opts *o)
{
    const char *key = v->string ? v->string : "";
    size_t kn = strlen(key);
    if (!kn || !text_carried(key, kn) || find(key, kn, "<arg_", 5) < kn)
        TRY(tw_not_carried(o, "glm: call %.64s: parameter name '%.64s' is read back otherwise",
                           call, key));
    TRY(PUTS(b, G_KEY));
    TRY(tw_buf_append(b, key, kn));
    TRY(PUTS(b, G_KEY_END "\n" G_VALUE));
    if (cJSON_IsString(v)) {
        const char *s = v->valuestring ? v->valuestring : "";
        size_t n = strlen(s);
        if (has_token(s, n))
            TRY(tw_not_carried(o,
                               "glm: call %.64s: the value of '%.64s' holds a special token, "
                               "read back otherwise",
                               call, key));
        TRY(tw_buf_append(b, s, n));
    } else {
        /* written as the template's tojson: read back as this value only
         * where the tool's schema types the parameter so */
        TRY(tw_not_carried(o,
                           "glm: call %.64s: the value of '%.64s' is not a string: read back as "
                           "such only by the tool's schema",
                           call, key));
        TRY(tw_json_write(b, v, 0));
    }
    return PUTS(b, G_VALUE_END "\n");
}

static tw_status put_call(tw_buf *b, const tw_call *c, size_t i, const tw_encode_opts *o)
{
    const char *name = c->name ? c->name : "";
    if (!name_ok(name, strlen(name)) || has_token(name, strlen(name)))
        TRY(tw_not_carried(o, "glm: call name '%.64s' cannot be read back", name));
    char gen[32];
    snprintf(gen, sizeof gen, "call_%zu", i + 1);
    /* the dialect writes no id: the decoder numbers the calls call_1, … */
    if (c->id && c->id[0] && strcmp(c->id, gen) != 0)
        TRY(tw_not_carried(o, "glm: call %.64s: the dialect writes no call id ('%.64s')", name,
                           c->id));
    TRY(PUTS(b, G_CALL));
    TRY(tw_buf_puts(b, name));
    TRY(tw_buf_putc(b, '\n'));
    if (c->arguments && !cJSON_IsObject(c->arguments)) {
        TRY(tw_not_carried(o, "glm: call %.64s: arguments that are not an object", name));
    } else if (c->arguments) {
        for (const cJSON *v = c->arguments->child; v; v = v->next)
            TRY(put_arg(b, v, name, o));
    }
    return PUTS(b, G_CALL_END);
}

static tw_status render_output(const tw_result *r, const tw_encode_opts *o, tw_buf *b)
{
    const tw_message *m = &r->msg;
    const char *fin = r->finish_reason ? r->finish_reason : "";
    if (fin[0] && strcmp(fin, m->ncalls ? "tool_calls" : "stop") != 0)
        TRY(tw_not_carried(o, "glm: finish_reason '%.32s' not carried (the output ends as it ends)",
                           fin));
    if (m->thinking_signature || m->has_redacted_thinking || m->redacted_thinking)
        TRY(tw_not_carried(o, "glm: thinking signature or redacted thinking not carried"));
    /* the reasoning block is always written: under forced_open the decoder
     * reads a <think> at the start as the same opener */
    TRY(PUTS(b, G_THINK));
    TRY(put_text(b, &m->thinking, "reasoning", o));
    TRY(PUTS(b, G_THINK_END));
    if (m->content.len) {
        TRY(tw_buf_putc(b, '\n'));
        TRY(put_text(b, &m->content, "content", o));
    }
    for (size_t i = 0; i < m->ncalls; i++) {
        TRY(tw_buf_putc(b, '\n'));
        TRY(put_call(b, &m->calls[i], i, o));
    }
    return TW_OK;
}

tw_status tw_glm_output_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out)
{
    return tw_encode_result_capped(r, o, out, render_output);
}

const tw_encoder_ops tw_encoder_glm_output = {
    "glm", "neutral result -> GLM-4.5/4.6 model output (<think>, <tool_call> with arg elements)",
    TW_ENC_RESULT, tw_unsupported_encode_request, tw_glm_output_encode};
