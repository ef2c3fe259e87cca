/*
 * MiniMax-M2: the model-output dialect on the push engine (dialect.h) and
 * its output encoder. Grammar and rules: docs/formats/minimax-m2.md.
 *
 *   [<think>]REASONING</think> CONTENT
 *   <minimax:tool_call>
 *   <invoke name="NAME">
 *   <parameter name="KEY">VALUE</parameter>
 *   …
 *   </invoke>
 *   …
 *   </minimax:tool_call> [CONTENT] [[e~[]
 *
 * Values are markup, typed by the tool's schema (typed_args.h). The scan
 * only finds where an invoke ends; the invoke's bytes are held and read
 * once more, by the same marker rules, when it has ended.
 */
#include "toolwire/minimax.h"

#include <stdio.h>
#include <string.h>

#include "dialect.h"
#include "enc_common.h"
#include "formats.h"
#include "tw_macros.h"
#include "typed_args.h"

/* ===================== the markers ===================== */

#define M_THINK "<think>"
#define M_THINK_END "</think>"
#define M_SECTION "<minimax:tool_call>"
#define M_SECTION_END "</minimax:tool_call>"
#define M_INVOKE "<invoke name="
#define M_INVOKE_END "</invoke>"
#define M_PARAM "<parameter name="
#define M_PARAM_END "</parameter>"
#define M_EOT "[e~["

#define MLEN(lit) (sizeof(lit) - 1)

enum {
    S_TEXT = 0, /* content */
    S_THINK,    /* inside <think> */
    S_SECTION,  /* inside <minimax:tool_call>, between invokes */
    S_BODY,     /* inside an invoke, between parameters */
    S_VALUE,    /* inside a parameter, up to </parameter> */
    S_DONE      /* after [e~[ */
};

typedef struct minimax_dec {
    tw_dl dl;
    int st;
    tw_dl_think think;   /* the <think> block */
    bool after_warned;   /* text after [e~[ was reported */
    bool stray_warned;   /* stray text in this section was reported */
    bool outside_warned; /* a parameter outside an invoke in this section was reported */
    uint64_t section_at; /* offset of the open <minimax:tool_call> */
    uint64_t call_at;    /* offset of the open invoke's "<invoke name=" */
    uint64_t cur;        /* where the scan of the open invoke goes on */
    uint64_t resume;     /* the resumed search from cur */
    size_t nparams;      /* "<parameter name=" seen in the open invoke */
} minimax_dec;

static const tw_dl_mark text_marks[] = {TW_DL_MARK(M_THINK), TW_DL_MARK(M_THINK_END),
                                        TW_DL_MARK(M_SECTION), TW_DL_MARK(M_EOT)};
enum { T_THINK, T_THINK_END, T_SECTION, T_EOT };

static const tw_dl_mark think_open = TW_DL_MARK(M_THINK);
static const tw_dl_mark think_marks[] = {TW_DL_MARK(M_THINK_END), TW_DL_MARK(M_SECTION),
                                         TW_DL_MARK(M_EOT)};
enum { H_END, H_SECTION, H_EOT, H_N };

static const tw_dl_mark section_marks[] = {TW_DL_MARK(M_INVOKE),     TW_DL_MARK(M_SECTION_END),
                                           TW_DL_MARK(M_EOT),        TW_DL_MARK(M_PARAM),
                                           TW_DL_MARK(M_INVOKE_END), TW_DL_MARK(M_PARAM_END)};
enum { X_INVOKE, X_SECTION_END, X_EOT, X_PARAM, X_INVOKE_END, X_PARAM_END };

static const tw_dl_mark body_marks[] = {TW_DL_MARK(M_PARAM), TW_DL_MARK(M_INVOKE_END),
                                        TW_DL_MARK(M_INVOKE), TW_DL_MARK(M_SECTION_END),
                                        TW_DL_MARK(M_EOT)};
enum { B_PARAM, B_INVOKE_END, B_INVOKE, B_SECTION_END, B_EOT };

static const tw_dl_mark value_marks[] = {TW_DL_MARK(M_PARAM_END), TW_DL_MARK(M_INVOKE_END),
                                         TW_DL_MARK(M_SECTION_END), TW_DL_MARK(M_EOT)};
enum { V_PARAM_END, V_INVOKE_END, V_SECTION_END, V_EOT };

static bool all_space(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!tw_dl_space(p[i]))
            return false;
    return true;
}

/* ===================== one invoke ===================== */

/* A name attribute's value as written between "name=" and '>': white space
 * around it dropped, then one pair of matching quotes. False when it is
 * empty or holds a quote, '<', '>' or a control character. */
static bool read_name(const char **p, size_t *n)
{
    const char *s = *p;
    size_t k = *n;
    tw_trim(&s, &k);
    if (k >= 2 && (s[0] == '"' || s[0] == '\'') && s[k - 1] == s[0]) {
        s++;
        k -= 2;
    }
    *p = s;
    *n = k;
    if (!k)
        return false;
    for (size_t i = 0; i < k; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == '"' || c == '\'' || c == '<' || c == '>')
            return false;
    }
    return true;
}

static const char *find_in(const char *p, const char *e, const char *lit, size_t n)
{
    return p < e ? tw_memmem(p, (size_t)(e - p), lit, n) : NULL;
}

static const char *find_gt(const char *p, const char *e)
{
    return p < e ? memchr(p, '>', (size_t)(e - p)) : NULL;
}

/*
 * The invoke that starts at call_at ("<invoke name=") and whose bytes end
 * at `to` (its </invoke>, or what ended it without one: closed false).
 * Read by the scan's rules: between parameters the next "<parameter name=",
 * in a value the first </parameter>.
 */
static tw_status take_invoke(minimax_dec *k, uint64_t to, bool closed)
{
    tw_dl *d = &k->dl;
    const char *b = tw_dl_at(d, k->call_at);
    const char *p = b + MLEN(M_INVOKE);
    const char *e = tw_dl_at(d, to);
    uint64_t base = k->call_at;

    const char *q = find_in(p, e, M_PARAM, MLEN(M_PARAM));
    const char *hend = q ? q : e;
    const char *gt = find_gt(p, hend);
    const char *name = p;
    size_t nlen = gt ? (size_t)(gt - p) : (size_t)(hend - p);
    bool name_ok = gt && read_name(&name, &nlen);
    if (!name_ok && nlen > 64)
        nlen = 64;

    tw_targs a;
    tw_status st = tw_targs_begin(&a, name_ok ? tw_targs_tool(&d->o, name, nlen) : NULL, k->nparams,
                                  d->L.max_depth);
    if (!name_ok)
        tw_targs_refuse(&a, TW_D_XML_BAD_NAME, "invoke has an empty or invalid name");
    size_t stray = gt && !all_space(gt + 1, (size_t)(hend - gt - 1));
    p = hend;
    while (st == TW_OK && q) {
        const char *hs = q + MLEN(M_PARAM);
        const char *close = find_in(hs, e, M_PARAM_END, MLEN(M_PARAM_END));
        const char *vend = close ? close : e;
        const char *pg = find_gt(hs, vend);
        if (!close) {
            tw_targs_refuse(&a, TW_D_XML_PARAM_UNCLOSED, "parameter %zu has no </parameter>",
                            a.count + 1);
            break;
        }
        const char *kn = hs;
        size_t kl = pg ? (size_t)(pg - hs) : 0;
        if (!pg || !read_name(&kn, &kl)) {
            tw_targs_refuse(&a, TW_D_XML_BAD_NAME, "parameter %zu has an empty or invalid name",
                            a.count + 1);
            pg = hs - 1; /* no value read */
            kl = 0;
        }
        if (kl)
            st = tw_targs_add(&a, kn, kl, pg + 1, (size_t)(vend - pg - 1), TW_TARGS_TYPED,
                              base + (uint64_t)(kn - b), base + (uint64_t)(pg + 1 - b));
        p = close + MLEN(M_PARAM_END);
        q = find_in(p, e, M_PARAM, MLEN(M_PARAM));
        const char *se = q ? q : e;
        if (!all_space(p, (size_t)(se - p)))
            stray++;
        p = se;
    }
    bool accepted = false;
    if (st == TW_OK) {
        tw_wire_sink sink = {&d->res, &d->o, &d->L, d->fn, d->user, &d->stop};
        st = tw_targs_take(&a, &sink, name, nlen, NULL, (int64_t)k->call_at, NULL, NULL, &accepted);
    }
    tw_targs_free(&a);
    if (st == TW_OK && accepted && !closed)
        st = tw_dl_diag(d, false, TW_D_XML_FUNCTION_UNCLOSED, (int64_t)k->call_at,
                        "invoke not closed by </invoke> (ended by the next invoke or the section's "
                        "end); the call is kept");
    if (st == TW_OK && accepted && stray)
        st = tw_dl_diag(d, false, TW_D_XML_STRAY_TEXT, (int64_t)k->call_at,
                        "text between the parameters of an invoke was dropped");
    return st;
}

/* ===================== the scan ===================== */

static tw_status eot(minimax_dec *k, uint64_t at)
{
    k->st = S_DONE;
    k->dl.pos = at + MLEN(M_EOT);
    return TW_OK;
}

static void open_section(minimax_dec *k, uint64_t at)
{
    tw_dl_gap(&k->dl, TW_DL_CONTENT);
    k->section_at = at;
    k->stray_warned = k->outside_warned = false;
    k->st = S_SECTION;
    k->dl.pos = at + MLEN(M_SECTION);
}

static void open_invoke(minimax_dec *k, uint64_t at)
{
    k->call_at = at;
    k->cur = at + MLEN(M_INVOKE);
    k->resume = 0;
    k->nparams = 0;
    k->st = S_BODY;
    k->dl.pos = at; /* the invoke's bytes are held until it ends */
}

static tw_status section_unterminated(minimax_dec *k, const char *why)
{
    return tw_dl_diag(&k->dl, false, TW_D_TOOL_CALL_UNTERMINATED, (int64_t)k->section_at, why);
}

static tw_status invoke_unterminated(minimax_dec *k, const char *why)
{
    return tw_dl_diag(&k->dl, true, TW_D_TOOL_CALL_UNTERMINATED, (int64_t)k->call_at, why);
}

static tw_status scan_text(minimax_dec *k, bool final)
{
    tw_dl *d = &k->dl;
    uint64_t at;
    size_t which = 0;
    TRY(tw_dl_content(d, NULL, text_marks, 4, final, &at, &which));
    if (which == 4)
        return TW_OK;
    switch (which) {
    case T_THINK:
        k->st = S_THINK;
        tw_dl_think_open(d, &k->think, at, MLEN(M_THINK));
        return TW_OK;
    case T_THINK_END:
        tw_dl_gap(d, TW_DL_CONTENT);
        d->pos = at + MLEN(M_THINK_END);
        return tw_dl_think_implicit(d, at,
                                    "</think> without <think> was dropped (the prompt opened the "
                                    "reasoning: decode with forced_open)");
    case T_SECTION: open_section(k, at); return TW_OK;
    default: return eot(k, at);
    }
}

static tw_status scan_think(minimax_dec *k, bool final)
{
    tw_dl *d = &k->dl;
    uint64_t at;
    size_t which;
    TRY(tw_dl_think_scan(d, &k->think, &think_open, think_marks, H_N, final, &at, &which));
    switch (which) {
    case H_N: return TW_OK; /* the block goes on */
    case H_END: k->st = S_TEXT; return TW_OK;
    case H_EOT:
        TRY(tw_dl_think_unterminated(d, &k->think, "<think> not closed before [e~["));
        return eot(k, at);
    default:
        TRY(tw_dl_think_implicit(d, at,
                                 "the reasoning ended at <minimax:tool_call> without </think>"));
        open_section(k, at);
        return TW_OK;
    }
}

static tw_status scan_section(minimax_dec *k, bool final)
{
    tw_dl *d = &k->dl;
    uint64_t at;
    size_t which = 0;
    tw_dl_hit h = tw_dl_find(d, d->pos, NULL, section_marks, 6, final, &at, &which);
    if (!k->stray_warned && !all_space(tw_dl_at(d, d->pos), (size_t)(at - d->pos))) {
        k->stray_warned = true;
        TRY(tw_dl_diag(d, false, TW_D_XML_STRAY_TEXT, (int64_t)k->section_at,
                       "text in <minimax:tool_call> outside its invokes was dropped"));
    }
    d->pos = at;
    if (h == TW_DL_NONE)
        return TW_OK;
    switch (which) {
    case X_INVOKE: open_invoke(k, at); return TW_OK;
    case X_SECTION_END:
        k->st = S_TEXT;
        d->pos = at + MLEN(M_SECTION_END);
        return TW_OK;
    case X_EOT:
        TRY(section_unterminated(k, "<minimax:tool_call> ended at [e~[ without "
                                    "</minimax:tool_call>"));
        return eot(k, at);
    case X_PARAM:
        if (!k->outside_warned) {
            k->outside_warned = true;
            TRY(tw_dl_diag(d, true, TW_D_XML_PARAM_OUTSIDE, (int64_t)at,
                           "a parameter outside any invoke was dropped"));
        }
        k->stray_warned = true; /* its value is not reported again as stray text */
        d->pos = at + MLEN(M_PARAM);
        return TW_OK;
    default: /* a stray </invoke> or </parameter>: dropped */
        d->pos = at + section_marks[which].n;
        return TW_OK;
    }
}

/* The open invoke ends at `at` by marker m of the scan (not </invoke>). */
static tw_status invoke_cut(minimax_dec *k, uint64_t at, int m)
{
    tw_dl *d = &k->dl;
    if (m == B_EOT) {
        TRY(invoke_unterminated(k, "invoke cut by [e~[ (the end of the turn)"));
        TRY(section_unterminated(k, "<minimax:tool_call> ended at [e~[ without "
                                    "</minimax:tool_call>"));
        return eot(k, at);
    }
    TRY(take_invoke(k, at, false));
    if (m == B_INVOKE) {
        k->st = S_SECTION;
        open_invoke(k, at);
        return TW_OK;
    }
    k->st = S_TEXT; /* B_SECTION_END */
    d->pos = at + MLEN(M_SECTION_END);
    return TW_OK;
}

static tw_status scan_body(minimax_dec *k, bool final)
{
    tw_dl *d = &k->dl;
    uint64_t at;
    size_t which = 0;
    tw_dl_hit h = tw_dl_find(d, k->cur, &k->resume, body_marks, 5, final, &at, &which);
    if (h == TW_DL_NONE)
        return TW_OK;
    k->resume = 0;
    switch (which) {
    case B_PARAM:
        k->nparams++;
        k->cur = at + MLEN(M_PARAM);
        k->st = S_VALUE;
        return TW_OK;
    case B_INVOKE_END:
        TRY(take_invoke(k, at, true));
        k->st = S_SECTION;
        d->pos = at + MLEN(M_INVOKE_END);
        return TW_OK;
    default: return invoke_cut(k, at, (int)which);
    }
}

static tw_status scan_value(minimax_dec *k, bool final)
{
    tw_dl *d = &k->dl;
    uint64_t at;
    size_t which = 0;
    tw_dl_hit h = tw_dl_find(d, k->cur, &k->resume, value_marks, 4, final, &at, &which);
    if (h == TW_DL_NONE)
        return TW_OK;
    k->resume = 0;
    switch (which) {
    case V_PARAM_END:
        k->cur = at + MLEN(M_PARAM_END);
        k->st = S_BODY;
        return TW_OK;
    case V_INVOKE_END: /* the parameter is unclosed: the call is refused */
        TRY(take_invoke(k, at, true));
        k->st = S_SECTION;
        d->pos = at + MLEN(M_INVOKE_END);
        return TW_OK;
    case V_SECTION_END: return invoke_cut(k, at, B_SECTION_END);
    default: return invoke_cut(k, at, B_EOT);
    }
}

static tw_status minimax_scan(tw_dl *d, bool final)
{
    minimax_dec *k = (minimax_dec *)d;
    for (;;) {
        uint64_t pos = d->pos, cur = k->cur;
        int st = k->st;
        tw_status s;
        switch (k->st) {
        case S_TEXT: s = scan_text(k, final); break;
        case S_THINK: s = scan_think(k, final); break;
        case S_SECTION: s = scan_section(k, final); break;
        case S_BODY: s = scan_body(k, final); break;
        case S_VALUE: s = scan_value(k, final); break;
        default:
            return tw_dl_after_end(d, &k->after_warned,
                                   "text after [e~[ (a next turn) was dropped");
        }
        if (s != TW_OK)
            return s;
        if (k->st == st && d->pos == pos && k->cur == cur)
            return TW_OK;
    }
}

static void minimax_start(tw_dl *d)
{
    minimax_dec *k = (minimax_dec *)d;
    if (tw_dl_think_forced(d, &k->think))
        k->st = S_THINK;
}

static tw_status minimax_end(tw_dl *d)
{
    minimax_dec *k = (minimax_dec *)d;
    switch (k->st) {
    case S_THINK:
        return tw_dl_think_unterminated(d, &k->think,
                                        "<think> not closed at the end of the output");
    case S_BODY:
    case S_VALUE:
        TRY(invoke_unterminated(k, "invoke not closed by </invoke> at the end of the output"));
        return section_unterminated(k, "<minimax:tool_call> not closed by </minimax:tool_call>");
    case S_SECTION:
        return section_unterminated(k, "<minimax:tool_call> not closed by </minimax:tool_call>");
    default: return TW_OK;
    }
}

static const tw_dialect minimax_dialect = {"minimax-m2", sizeof(minimax_dec), minimax_start,
                                           minimax_scan, minimax_end};

TW_DIALECT_MODULE(minimax, minimax_dialect, tw_format_minimax_m2, "minimax-m2",
                  "MiniMax-M2 model output: <think>, <minimax:tool_call> with <invoke name=…> "
                  "and <parameter name=…> values typed by the schema")

/* ===================== the output encoder ===================== */

static const char *const m_tokens[] = {M_THINK,       M_THINK_END, M_SECTION,
                                       M_SECTION_END, M_INVOKE,    M_INVOKE_END,
                                       M_PARAM,       M_PARAM_END, M_EOT};

static bool holds_token(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof m_tokens / sizeof m_tokens[0]; i++)
        if (tw_memmem(s, n, m_tokens[i], strlen(m_tokens[i])))
            return true;
    return false;
}

/* Would the decoder read text back as it is? No marker in it and no white
 * space at its ends. */
static bool text_carried(const char *s, size_t n)
{
    if (n && (tw_dl_space(s[0]) || tw_dl_space(s[n - 1])))
        return false;
    return !holds_token(s, n);
}

static bool name_carried(const char *s)
{
    const char *p = s;
    size_t n = strlen(s);
    return read_name(&p, &n) && p == s && n == strlen(s);
}

static tw_status put_text(tw_buf *b, const tw_buf *s, const char *what, const tw_encode_opts *o)
{
    if (!s->len)
        return TW_OK;
    if (!text_carried(s->data, s->len))
        TRY(tw_not_carried(o,
                           "minimax-m2: the %s holds a marker or white space at its ends, read "
                           "back otherwise",
                           what));
    return tw_buf_append(b, s->data, s->len);
}

static tw_status put_call(tw_buf *b, const tw_call *c, size_t i, const tw_encode_opts *o,
                          bool *typed_warned)
{
    const char *name = c->name ? c->name : "";
    char gen[32];
    snprintf(gen, sizeof gen, "call_%zu", i + 1);
    if (c->id && strcmp(c->id, gen) != 0)
        TRY(tw_not_carried(o,
                           "minimax-m2: call %zu's id '%.64s' is not written (the model writes "
                           "none)",
                           i, c->id));
    if (!name_carried(name))
        TRY(tw_not_carried(o, "minimax-m2: call name '%.64s' cannot be read back", name));
    TRY(PUTS(b, M_INVOKE "\""));
    TRY(tw_buf_puts(b, name));
    TRY(PUTS(b, "\">\n"));
    if (c->arguments && !cJSON_IsObject(c->arguments))
        TRY(tw_not_carried(o, "minimax-m2: call %zu's arguments are not an object", i));
    for (const cJSON *a = cJSON_IsObject(c->arguments) ? c->arguments->child : NULL; a;
         a = a->next) {
        const char *key = a->string ? a->string : "";
        if (!name_carried(key))
            TRY(tw_not_carried(o, "minimax-m2: parameter name '%.64s' cannot be read back", key));
        TRY(PUTS(b, M_PARAM "\""));
        TRY(tw_buf_puts(b, key));
        TRY(PUTS(b, "\">"));
        if (cJSON_IsString(a)) {
            const char *s = a->valuestring ? a->valuestring : "";
            if (holds_token(s, strlen(s)))
                TRY(tw_not_carried(o, "minimax-m2: the value of '%.64s' holds a marker", key));
            TRY(tw_buf_puts(b, s));
        } else {
            /* markup has no types: the decoder reads it back as a string
             * unless the tool's schema types the parameter */
            if (!*typed_warned) {
                *typed_warned = true;
                TRY(tw_not_carried(o,
                                   "minimax-m2: value of '%.64s' is not a string: read back as "
                                   "its type only under the tool's schema",
                                   key));
            }
            TRY(tw_json_write(b, a, 0));
        }
        TRY(PUTS(b, M_PARAM_END "\n"));
    }
    return PUTS(b, M_INVOKE_END "\n");
}

/* What the model's text has no place for. */
static tw_status losses(const tw_result *r, const tw_encode_opts *o)
{
    const tw_message *m = &r->msg;
    const char *fr = r->finish_reason ? r->finish_reason : "";
    if (fr[0] && strcmp(fr, m->ncalls ? "tool_calls" : "stop") != 0)
        TRY(tw_not_carried(o, "minimax-m2: finish_reason '%.32s' not carried", fr));
    if (m->thinking_signature)
        TRY(tw_not_carried(o, "minimax-m2: thinking signature not carried"));
    if (m->has_redacted_thinking || m->redacted_thinking)
        TRY(tw_not_carried(o, "minimax-m2: redacted thinking not carried"));
    if (r->errors.len || r->warnings.len)
        TRY(tw_not_carried(o, "minimax-m2: diagnostics not carried"));
    return TW_OK;
}

static tw_status render_output(const tw_result *r, const tw_encode_opts *o, tw_buf *b)
{
    const tw_message *m = &r->msg;
    TRY(losses(r, o));
    /* the reasoning block is always written: under forced_open the decoder
     * reads a <think> at the start as the same opener */
    TRY(PUTS(b, M_THINK "\n"));
    TRY(put_text(b, &m->thinking, "reasoning", o));
    TRY(PUTS(b, "\n" M_THINK_END "\n\n"));
    TRY(put_text(b, &m->content, "content", o));
    if (m->ncalls) {
        TRY(PUTS(b, "\n" M_SECTION "\n"));
        bool typed_warned = false;
        for (size_t i = 0; i < m->ncalls; i++)
            TRY(put_call(b, &m->calls[i], i, o, &typed_warned));
        TRY(PUTS(b, M_SECTION_END));
    }
    return TW_OK;
}

tw_status tw_minimax_output_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out)
{
    return tw_encode_result_capped(r, o, out, render_output);
}

const tw_encoder_ops tw_encoder_minimax_m2_output = {
    "minimax-m2", "neutral result -> MiniMax-M2 model output (<think>, <minimax:tool_call>)",
    TW_ENC_RESULT, tw_unsupported_encode_request, tw_minimax_output_encode};
