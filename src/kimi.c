/*
 * Kimi K2: the model-output dialect on the push engine (dialect.h) and its
 * output encoder. Grammar and rules: docs/formats/kimi-k2.md.
 *
 *   [<think>REASONING</think>] CONTENT
 *   <|tool_calls_section_begin|>
 *     <|tool_call_begin|>functions.NAME:INDEX<|tool_call_argument_begin|>{json}<|tool_call_end|>
 *     …
 *   <|tool_calls_section_end|> [CONTENT] [<|im_end|>]
 */
#include "toolwire/kimi.h"

#include <stdio.h>
#include <string.h>

#include "dialect.h"
#include "enc_common.h"
#include "formats.h"
#include "tw_macros.h"

/* ===================== the markers ===================== */

#define K_THINK "<think>"
#define K_THINK_END "</think>"
#define K_SECTION "<|tool_calls_section_begin|>"
#define K_SECTION_END "<|tool_calls_section_end|>"
#define K_CALL "<|tool_call_begin|>"
#define K_ARGS "<|tool_call_argument_begin|>"
#define K_CALL_END "<|tool_call_end|>"
#define K_IM_END "<|im_end|>"
#define K_PREFIX "functions."

/* The longest call id read (functions.NAME:INDEX with a 64-byte name and
 * room to spare); a longer one is refused without waiting for its end. */
#define K_ID_CAP 256

enum {
    S_TEXT = 0, /* content */
    S_THINK,    /* inside <think> */
    S_SECTION,  /* inside the call section, between calls */
    S_ID,       /* after <|tool_call_begin|>: the call id */
    S_ARGS,     /* after <|tool_call_argument_begin|>: the arguments */
    S_SKIP,     /* a refused call's rest, up to its end */
    S_DONE      /* after <|im_end|> */
};

typedef struct kimi_dec {
    tw_dl dl;
    int st;
    tw_dl_think think; /* the <think> block */
    bool section_open; /* a section is open (explicitly or by a bare call) */
    bool after_warned; /* text after <|im_end|> was reported */
    uint64_t section_at;
    uint64_t call_at; /* offset of the open call's <|tool_call_begin|> */
    uint64_t id_from, id_to, args_from;
    uint64_t resume; /* the resumed search of S_ID / S_ARGS / S_SKIP */
} kimi_dec;

static const tw_dl_mark text_marks[] = {TW_DL_MARK(K_THINK), TW_DL_MARK(K_SECTION),
                                        TW_DL_MARK(K_CALL), TW_DL_MARK(K_IM_END)};
enum { T_THINK, T_SECTION, T_CALL, T_IM_END };

static const tw_dl_mark think_open = TW_DL_MARK(K_THINK);
static const tw_dl_mark think_marks[] = {TW_DL_MARK(K_THINK_END), TW_DL_MARK(K_SECTION),
                                         TW_DL_MARK(K_CALL), TW_DL_MARK(K_IM_END)};
enum { H_END, H_SECTION, H_CALL, H_IM_END, H_N };

/* what ends a call or a section's gap */
static const tw_dl_mark call_marks[] = {TW_DL_MARK(K_ARGS), TW_DL_MARK(K_CALL_END),
                                        TW_DL_MARK(K_CALL), TW_DL_MARK(K_SECTION_END),
                                        TW_DL_MARK(K_IM_END)};
enum { C_ARGS, C_CALL_END, C_CALL, C_SECTION_END, C_IM_END };

#define MLEN(lit) (sizeof(lit) - 1)

/* ===================== one call ===================== */

static bool name_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
}

static tw_status refuse(kimi_dec *k, tw_status code, const char *fmt, const char *id, size_t n)
{
    char msg[200];
    snprintf(msg, sizeof msg, fmt, (int)(n > 64 ? 64 : n), id);
    return tw_dl_diag(&k->dl, true, code, (int64_t)k->call_at, msg);
}

/* The call [call_at, end): its id [id_from, id_to), its arguments
 * [args_from, args_to). */
static tw_status take_call(kimi_dec *k, uint64_t args_to)
{
    tw_dl *d = &k->dl;
    const char *id = tw_dl_at(d, k->id_from);
    size_t n = (size_t)(k->id_to - k->id_from);
    tw_trim(&id, &n);
    size_t from = 0;
    if (n >= MLEN(K_PREFIX) && memcmp(id, K_PREFIX, MLEN(K_PREFIX)) == 0)
        from = MLEN(K_PREFIX);
    size_t colon = n;
    while (colon > from && id[colon - 1] != ':')
        colon--;
    if (colon == from) /* no ':' after the name */
        return refuse(k, TW_D_MISSING_NAME, "call id '%.*s' is not functions.NAME:INDEX", id, n);
    colon--; /* at the ':' */
    bool digits = colon + 1 < n;
    for (size_t i = colon + 1; i < n; i++)
        digits = digits && id[i] >= '0' && id[i] <= '9';
    if (!digits)
        return refuse(k, TW_D_MISSING_NAME, "call id '%.*s' has no :INDEX", id, n);
    if (colon == from)
        return refuse(k, TW_D_MISSING_NAME, "call id '%.*s' names no function", id, n);
    for (size_t i = from; i < colon; i++)
        if (!name_char((unsigned char)id[i]))
            return refuse(k, TW_D_MISSING_NAME,
                          "call id '%.*s': the name holds a character outside [A-Za-z0-9_.-]", id,
                          n);
    const char *a = tw_dl_at(d, k->args_from);
    size_t an = (size_t)(args_to - k->args_from);
    tw_trim(&a, &an);
    return tw_dl_call(d, id + from, colon - from, id, n, a, an, (int64_t)k->call_at);
}

/* ===================== the scan ===================== */

/* An open call ends without its <|tool_call_end|>. */
static tw_status call_unterminated(kimi_dec *k, const char *why)
{
    return tw_dl_diag(&k->dl, true, TW_D_TOOL_CALL_UNTERMINATED, (int64_t)k->call_at, why);
}

static void open_call(kimi_dec *k, uint64_t at)
{
    k->call_at = at;
    k->id_from = at + MLEN(K_CALL);
    k->resume = 0;
    k->st = S_ID;
    k->dl.pos = k->id_from;
}

static void open_section(kimi_dec *k, uint64_t at)
{
    tw_dl_gap(&k->dl, TW_DL_CONTENT);
    k->section_open = true;
    k->section_at = at;
    k->st = S_SECTION;
}

static tw_status im_end(kimi_dec *k, uint64_t at)
{
    k->st = S_DONE;
    k->dl.pos = at + MLEN(K_IM_END);
    return TW_OK;
}

/* After a call's end marker or inside the section: a marker of call_marks
 * at `at` (not C_ARGS) moves on. */
static tw_status section_mark(kimi_dec *k, size_t which, uint64_t at)
{
    switch (which) {
    case C_CALL: open_call(k, at); return TW_OK;
    case C_SECTION_END:
        k->section_open = false;
        k->st = S_TEXT;
        k->dl.pos = at + MLEN(K_SECTION_END);
        return TW_OK;
    case C_IM_END: {
        tw_status st =
            tw_dl_diag(&k->dl, false, TW_D_TOOL_CALL_UNTERMINATED, (int64_t)k->section_at,
                       "the tool-call section ended at <|im_end|> without "
                       "<|tool_calls_section_end|>");
        k->section_open = false;
        return st == TW_OK ? im_end(k, at) : st;
    }
    default: /* a stray <|tool_call_end|> or <|tool_call_argument_begin|>: dropped */
        k->st = S_SECTION;
        k->dl.pos = at + call_marks[which].n;
        return TW_OK;
    }
}

static tw_status scan_text(kimi_dec *k, bool final)
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
        tw_dl_think_open(d, &k->think, at, MLEN(K_THINK));
        return TW_OK;
    case T_SECTION:
        open_section(k, at);
        d->pos = at + MLEN(K_SECTION);
        return TW_OK;
    case T_CALL:
        open_section(k, at);
        open_call(k, at);
        return TW_OK;
    default: return im_end(k, at);
    }
}

static tw_status scan_think(kimi_dec *k, bool final)
{
    tw_dl *d = &k->dl;
    uint64_t at;
    size_t which;
    TRY(tw_dl_think_scan(d, &k->think, &think_open, think_marks, H_N, final, &at, &which));
    switch (which) {
    case H_N: return TW_OK; /* the block goes on */
    case H_END: k->st = S_TEXT; return TW_OK;
    case H_IM_END:
        TRY(tw_dl_think_unterminated(d, &k->think, "<think> not closed before <|im_end|>"));
        return im_end(k, at);
    default:
        TRY(tw_dl_think_implicit(d, at, "the reasoning ended at a tool call without </think>"));
        open_section(k, at);
        if (which == H_CALL)
            open_call(k, at);
        else
            d->pos = at + MLEN(K_SECTION);
        return TW_OK;
    }
}

static tw_status scan_section(kimi_dec *k, bool final)
{
    tw_dl *d = &k->dl;
    uint64_t at;
    size_t which = 0;
    /* text between calls is content (the model's prose; white space drops) */
    TRY(tw_dl_content(d, NULL, call_marks, 5, final, &at, &which));
    if (which == 5)
        return TW_OK;
    return section_mark(k, which, at);
}

static tw_status scan_id(kimi_dec *k, bool final)
{
    tw_dl *d = &k->dl;
    uint64_t at;
    size_t which = 0;
    tw_dl_hit h = tw_dl_find(d, k->id_from, &k->resume, call_marks, 5, final, &at, &which);
    if (at - k->id_from > K_ID_CAP) { /* decided whether the marker is there yet or not */
        TRY(tw_dl_diag(d, true, TW_D_MISSING_NAME, (int64_t)k->call_at,
                       "call id longer than 256 bytes"));
        k->st = S_SKIP;
        d->pos = at;
        return TW_OK;
    }
    if (h == TW_DL_NONE)
        return TW_OK;
    if (which == C_ARGS) {
        k->id_to = at;
        k->args_from = at + MLEN(K_ARGS);
        k->resume = 0;
        k->st = S_ARGS;
        return TW_OK;
    }
    TRY(call_unterminated(k, "tool call without <|tool_call_argument_begin|>"));
    d->pos = at;
    return section_mark(k, which, at);
}

static tw_status scan_args(kimi_dec *k, bool final)
{
    tw_dl *d = &k->dl;
    uint64_t at;
    size_t which = 0;
    /* from C_CALL_END on: a second <|tool_call_argument_begin|> is argument text */
    tw_dl_hit h = tw_dl_find(d, k->args_from, &k->resume, call_marks + 1, 4, final, &at, &which);
    if (h == TW_DL_NONE)
        return TW_OK;
    which++;
    if (which == C_CALL_END) {
        TRY(take_call(k, at));
        k->st = S_SECTION;
        d->pos = at + MLEN(K_CALL_END);
        return TW_OK;
    }
    TRY(call_unterminated(k, "tool call not ended by <|tool_call_end|>"));
    d->pos = at;
    return section_mark(k, which, at);
}

static tw_status scan_skip(kimi_dec *k, bool final)
{
    tw_dl *d = &k->dl;
    uint64_t at;
    size_t which = 0;
    tw_dl_hit h = tw_dl_find(d, d->pos, NULL, call_marks + 1, 4, final, &at, &which);
    d->pos = at;
    if (h == TW_DL_NONE)
        return TW_OK;
    which++;
    if (which == C_CALL_END) {
        k->st = S_SECTION;
        d->pos = at + MLEN(K_CALL_END);
        return TW_OK;
    }
    return section_mark(k, which, at);
}

static tw_status kimi_scan(tw_dl *d, bool final)
{
    kimi_dec *k = (kimi_dec *)d;
    for (;;) {
        uint64_t pos = d->pos;
        int st = k->st;
        tw_status s;
        switch (k->st) {
        case S_TEXT: s = scan_text(k, final); break;
        case S_THINK: s = scan_think(k, final); break;
        case S_SECTION: s = scan_section(k, final); break;
        case S_ID: s = scan_id(k, final); break;
        case S_ARGS: s = scan_args(k, final); break;
        case S_SKIP: s = scan_skip(k, final); break;
        default:
            return tw_dl_after_end(d, &k->after_warned,
                                   "text after <|im_end|> (a next turn) was dropped");
        }
        if (s != TW_OK)
            return s;
        /* S_ID and S_ARGS may stay put while their search goes on */
        if (k->st == st && d->pos == pos)
            return TW_OK;
    }
}

static void kimi_start(tw_dl *d)
{
    kimi_dec *k = (kimi_dec *)d;
    if (tw_dl_think_forced(d, &k->think))
        k->st = S_THINK;
}

static tw_status kimi_end(tw_dl *d)
{
    kimi_dec *k = (kimi_dec *)d;
    switch (k->st) {
    case S_THINK:
        return tw_dl_think_unterminated(d, &k->think,
                                        "<think> not closed at the end of the output");
    case S_ID:
    case S_ARGS: return call_unterminated(k, "tool call not ended by <|tool_call_end|>");
    case S_SECTION:
    case S_SKIP:
        return tw_dl_diag(d, false, TW_D_TOOL_CALL_UNTERMINATED, (int64_t)k->section_at,
                          "the tool-call section is not ended by <|tool_calls_section_end|>");
    default: return TW_OK;
    }
}

static const tw_dialect kimi_dialect = {"kimi-k2", sizeof(kimi_dec), kimi_start, kimi_scan,
                                        kimi_end};

TW_DIALECT_MODULE(kimi, kimi_dialect, tw_format_kimi_k2, "kimi-k2",
                  "Kimi K2 model output: <think>, <|tool_calls_section_begin|> calls "
                  "functions.NAME:INDEX")

/* ===================== the output encoder ===================== */

static const char *const k_tokens[] = {K_THINK, K_THINK_END, K_SECTION,  K_SECTION_END,
                                       K_CALL,  K_ARGS,      K_CALL_END, K_IM_END};

/* Would the decoder read text back as it is? No special token in it and no
 * white space at its ends. */
static bool text_carried(const char *s, size_t n)
{
    if (n && (tw_dl_space(s[0]) || tw_dl_space(s[n - 1])))
        return false;
    for (size_t i = 0; i < sizeof k_tokens / sizeof k_tokens[0]; i++)
        if (tw_memmem(s, n, k_tokens[i], strlen(k_tokens[i])))
            return false;
    return true;
}

/* Is id functions.NAME:INDEX for this name (what the decoder reads back)? */
static bool id_fits(const char *id, const char *name)
{
    size_t nl = strlen(name);
    if (strncmp(id, K_PREFIX, MLEN(K_PREFIX)) != 0)
        return false;
    id += MLEN(K_PREFIX);
    if (strncmp(id, name, nl) != 0 || id[nl] != ':' || !id[nl + 1])
        return false;
    for (const char *p = id + nl + 1; *p; p++)
        if (*p < '0' || *p > '9')
            return false;
    return true;
}

static tw_status put_call(tw_buf *b, const tw_call *c, size_t i, const tw_encode_opts *o,
                          const tw_limits *L)
{
    const char *name = c->name ? c->name : "";
    TRY(PUTS(b, K_CALL));
    if (c->id && id_fits(c->id, name)) {
        TRY(tw_buf_puts(b, c->id));
    } else {
        TRY(tw_buf_printf(b, K_PREFIX "%s:%zu", name, i));
        TRY(tw_not_carried(o, "kimi-k2: call %zu's id '%.64s' is written as " K_PREFIX "%.64s:%zu",
                           i, c->id ? c->id : "", name, i));
    }
    for (const char *p = name; *p; p++)
        if (!name_char((unsigned char)*p)) {
            TRY(tw_not_carried(o, "kimi-k2: call name '%.64s' cannot be read back from its id",
                               name));
            break;
        }
    TRY(PUTS(b, K_ARGS));
    tw_buf t = {0};
    tw_status st = tw_args_text(c, L, &t);
    if (st == TW_OK)
        st = tw_buf_append(b, t.data ? t.data : "", t.len);
    tw_buf_free(&t);
    TRY(st);
    return PUTS(b, K_CALL_END);
}

static tw_status put_text(tw_buf *b, const tw_buf *s, const char *what, const tw_encode_opts *o)
{
    if (!s->len)
        return TW_OK;
    if (!text_carried(s->data, s->len))
        TRY(tw_not_carried(o,
                           "kimi-k2: the %s holds a special token or white space at its ends, "
                           "read back otherwise",
                           what));
    return tw_buf_append(b, s->data, s->len);
}

static tw_status render_output(const tw_result *r, const tw_encode_opts *o, tw_buf *b)
{
    tw_limits L;
    tw_limits_resolve(&L, &o->limits);
    const tw_message *m = &r->msg;
    /* the text has no finish reason: the decoder reads tool_calls when there
     * are calls, else what its options say (stop by default) */
    const char *fr = r->finish_reason ? r->finish_reason : "";
    if (fr[0] && strcmp(fr, m->ncalls ? "tool_calls" : "stop") != 0)
        TRY(tw_not_carried(o,
                           "kimi-k2: finish_reason '%.32s' not carried (the model text says "
                           "only whether it called tools)",
                           fr));
    /* the reasoning block is always written: under forced_open the decoder
     * reads a <think> at the start as the same opener */
    TRY(PUTS(b, K_THINK));
    TRY(put_text(b, &m->thinking, "reasoning", o));
    TRY(PUTS(b, K_THINK_END));
    TRY(put_text(b, &m->content, "content", o));
    if (m->ncalls) {
        TRY(PUTS(b, K_SECTION));
        for (size_t i = 0; i < m->ncalls; i++)
            TRY(put_call(b, &m->calls[i], i, o, &L));
        TRY(PUTS(b, K_SECTION_END));
    }
    return TW_OK;
}

tw_status tw_kimi_output_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out)
{
    return tw_encode_result_capped(r, o, out, render_output);
}

const tw_encoder_ops tw_encoder_kimi_k2_output = {
    "kimi-k2", "neutral result -> Kimi K2 model output (<think>, the tool-call section)",
    TW_ENC_RESULT, tw_unsupported_encode_request, tw_kimi_output_encode};
