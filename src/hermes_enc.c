/*
 * Hermes/Qwen prompt encoders: the Qwen3 ChatML prompt (hermes-prompt) and
 * the two-pass server's system message (hermes-system), with a Python-json.dumps
 * style writer. Rules: docs/formats/hermes.md.
 */
#include "toolwire/hermes_encode.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enc_common.h"
#include "formats.h"
#include "py_text.h"
#include "qwen_text.h"
#include "tw_macros.h"

/* ===================== Python-style JSON ===================== */

/* Python's repr(float): shortest round-trip digits, fixed notation when the
 * decimal exponent is in [-4, 16), else d.ddde+XX. Not finite: as json.dumps
 * spells it (NaN, Infinity), or with `str_form` as str() does (nan, inf). */
static tw_status write_py_float(tw_buf *out, double d, bool str_form)
{
    if (isnan(d))
        return PUTS(out, str_form ? "nan" : "NaN");
    if (isinf(d)) {
        if (str_form)
            return d < 0 ? PUTS(out, "-inf") : PUTS(out, "inf");
        return d < 0 ? PUTS(out, "-Infinity") : PUTS(out, "Infinity");
    }
    char tmp[64];
    for (int prec = 1; prec <= 17; prec++) {
        /* our own output read back: strtod and snprintf share the locale */
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, d);
        if (prec == 17 || strtod(tmp, NULL) == d)
            break;
    }
    const char *p = tmp;
    bool neg = false;
    if (*p == '-') {
        neg = true;
        p++;
    }
    char digits[24];
    size_t nd = 0;
    digits[nd++] = *p++;
    while (*p && *p != 'e' && *p != 'E') {
        if (*p >= '0' && *p <= '9' && nd < sizeof digits - 1)
            digits[nd++] = *p;
        p++; /* the decimal point, whatever the locale spells it as */
    }
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    long ex = 0;
    bool eneg = false;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '-' || *p == '+')
            eneg = *p++ == '-';
        while (*p >= '0' && *p <= '9')
            ex = ex * 10 + (*p++ - '0');
    }
    if (eneg)
        ex = -ex;
    long decpt = ex + 1;
    if (neg)
        TRY(tw_buf_putc(out, '-'));
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) {
            TRY(PUTS(out, "0."));
            for (long i = 0; i < -decpt; i++)
                TRY(tw_buf_putc(out, '0'));
            return tw_buf_append(out, digits, nd);
        }
        if ((size_t)decpt >= nd) {
            TRY(tw_buf_append(out, digits, nd));
            for (size_t i = nd; i < (size_t)decpt; i++)
                TRY(tw_buf_putc(out, '0'));
            return PUTS(out, ".0");
        }
        TRY(tw_buf_append(out, digits, (size_t)decpt));
        TRY(tw_buf_putc(out, '.'));
        return tw_buf_append(out, digits + decpt, nd - (size_t)decpt);
    }
    TRY(tw_buf_putc(out, digits[0]));
    if (nd > 1) {
        TRY(tw_buf_putc(out, '.'));
        TRY(tw_buf_append(out, digits + 1, nd - 1));
    }
    long ax = ex < 0 ? -ex : ex;
    return tw_buf_printf(out, "e%c%02ld", ex < 0 ? '-' : '+', ax);
}

/* Python's json refuses integer texts longer than this (sys.int_info's
 * default max_str_digits). */
#define PY_INT_MAX_DIGITS 4300

typedef struct py_ctx {
    tw_diag_list *warnings; /* number_inexact warnings, or NULL */
    const char *where;      /* what is being written, for the message */
    bool str_form;          /* str() rather than json.dumps */
} py_ctx;

static void py_warn(const py_ctx *cx, const char *spelled, const char *why, const char *as,
                    size_t as_len)
{
    if (!cx || !cx->warnings)
        return;
    tw_diag_addf(cx->warnings, TW_D_NUMBER_INEXACT, -1, "%s: number %.40s%s %s %.*s",
                 cx->where ? cx->where : "json", spelled, strlen(spelled) > 40 ? "..." : "", why,
                 (int)(as_len > 40 ? 40 : as_len), as);
}

static tw_status write_py_number(tw_buf *out, const cJSON *v, const py_ctx *cx)
{
    const char *s = tw_json_spelling(v);
    if (s) {
        size_t n = strlen(s);
        if (tw_json_spelled_integer(s)) {
            /* a Python int: printed exactly as written; -0 is 0 */
            if (n - (s[0] == '-') > PY_INT_MAX_DIGITS)
                py_warn(cx, s, "has more digits than Python's json reads (4300); written", "as is",
                        5);
            if (strcmp(s, "-0") == 0)
                return tw_buf_putc(out, '0');
            return tw_buf_append(out, s, n);
        }
        /* a Python float: the double cJSON read, in repr */
        size_t at = out->len;
        TRY(write_py_float(out, v->valuedouble, cx && cx->str_form));
        const char *w = out->data + at;
        size_t wn = out->len - at;
        if (!tw_json_number_valid(w, wn) || !tw_json_same_number(s, n, w, wn))
            py_warn(cx, s, "becomes the Python float", w, wn);
        return TW_OK;
    }
    double d = v->valuedouble;
    if (isfinite(d) && d == floor(d) && fabs(d) < 9007199254740992.0)
        return tw_buf_printf(out, "%lld", (long long)d);
    return write_py_float(out, d, cx && cx->str_form);
}

static tw_status write_py(tw_buf *out, const cJSON *v, size_t depth, size_t max_depth,
                          const py_ctx *cx)
{
    switch (v->type & 0xFF) {
    case cJSON_NULL: return PUTS(out, "null");
    case cJSON_True: return PUTS(out, "true");
    case cJSON_False: return PUTS(out, "false");
    case cJSON_Number: return write_py_number(out, v, cx);
    case cJSON_String:
        return tw_json_write_str(out, v->valuestring ? v->valuestring : "",
                                 v->valuestring ? strlen(v->valuestring) : 0, TW_JSON_SPACED);
    case cJSON_Raw: return tw_buf_puts(out, v->valuestring ? v->valuestring : "null");
    case cJSON_Array:
    case cJSON_Object: {
        if (depth >= max_depth)
            return TW_ERR_LIMIT;
        bool obj = (v->type & 0xFF) == cJSON_Object;
        TRY(tw_buf_putc(out, obj ? '{' : '['));
        for (const cJSON *c = v->child; c; c = c->next) {
            if (c != v->child)
                TRY(PUTS(out, ", "));
            if (obj) {
                const char *k = c->string ? c->string : "";
                TRY(tw_json_write_str(out, k, strlen(k), TW_JSON_SPACED));
                TRY(PUTS(out, ": "));
            }
            TRY(write_py(out, c, depth + 1, max_depth, cx));
        }
        return tw_buf_putc(out, obj ? '}' : ']');
    }
    default: return PUTS(out, "null");
    }
}

tw_status tw_json_write_py_warn(tw_buf *out, const cJSON *v, size_t max_depth,
                                tw_diag_list *warnings, const char *where)
{
    if (!v)
        return PUTS(out, "null");
    if (max_depth == 0 || max_depth > TW_DEPTH_HARD_MAX)
        max_depth = TW_DEPTH_HARD_MAX;
    py_ctx cx = {warnings, where, false};
    return write_py(out, v, 0, max_depth, &cx);
}

tw_status tw_py_str_number(tw_buf *out, const cJSON *v, tw_diag_list *warnings, const char *where)
{
    py_ctx cx = {warnings, where, true};
    return write_py_number(out, v, &cx);
}

tw_status tw_json_write_py(tw_buf *out, const cJSON *v, size_t max_depth)
{
    return tw_json_write_py_warn(out, v, max_depth, NULL, NULL);
}

/* ===================== text positions of a parsed tree ===================== */

typedef struct walker {
    const char *b;
    size_t n;
    size_t i;
    size_t max_depth;
    tw_json_pos_fn fn;
    void *user;
} walker;

static void w_ws(walker *w)
{
    while (w->i < w->n &&
           (w->b[w->i] == ' ' || w->b[w->i] == '\t' || w->b[w->i] == '\n' || w->b[w->i] == '\r'))
        w->i++;
}

static bool w_expect(walker *w, char c)
{
    w_ws(w);
    if (w->i < w->n && w->b[w->i] == c) {
        w->i++;
        return true;
    }
    return false;
}

static bool w_string(walker *w)
{
    w_ws(w);
    if (w->i >= w->n || w->b[w->i] != '"')
        return false;
    for (w->i++; w->i < w->n; w->i++) {
        if (w->b[w->i] == '\\')
            w->i++;
        else if (w->b[w->i] == '"') {
            w->i++;
            return true;
        }
    }
    return false;
}

static tw_status w_value(walker *w, cJSON *node, size_t depth)
{
    w_ws(w);
    size_t start = w->i;
    if (start >= w->n)
        return TW_ERR_PARSE;
    switch (node->type & 0xFF) {
    case cJSON_Object:
    case cJSON_Array: {
        bool obj = (node->type & 0xFF) == cJSON_Object;
        if (depth >= w->max_depth)
            return TW_ERR_LIMIT;
        if (!w_expect(w, obj ? '{' : '['))
            return TW_ERR_PARSE;
        for (cJSON *c = node->child; c; c = c->next) {
            if (c != node->child && !w_expect(w, ','))
                return TW_ERR_PARSE;
            if (obj && (!w_string(w) || !w_expect(w, ':')))
                return TW_ERR_PARSE;
            TRY(w_value(w, c, depth + 1));
        }
        if (!w_expect(w, obj ? '}' : ']'))
            return TW_ERR_PARSE;
        break;
    }
    case cJSON_String:
        if (!w_string(w))
            return TW_ERR_PARSE;
        break;
    case cJSON_Number:
        while (w->i < w->n &&
               ((w->b[w->i] >= '0' && w->b[w->i] <= '9') || w->b[w->i] == '-' ||
                w->b[w->i] == '+' || w->b[w->i] == '.' || w->b[w->i] == 'e' || w->b[w->i] == 'E'))
            w->i++;
        if (w->i == start)
            return TW_ERR_PARSE;
        break;
    default: {
        const char *lit = (node->type & 0xFF) == cJSON_True    ? "true"
                          : (node->type & 0xFF) == cJSON_False ? "false"
                                                               : "null";
        size_t ln = strlen(lit);
        if (w->n - w->i < ln || memcmp(w->b + w->i, lit, ln) != 0)
            return TW_ERR_PARSE;
        w->i += ln;
        break;
    }
    }
    return w->fn ? w->fn(w->user, node, start, w->i) : TW_OK;
}

tw_status tw_json_positions(const char *buf, size_t len, cJSON *tree, size_t max_depth,
                            tw_json_pos_fn fn, void *user)
{
    if (!tree)
        return TW_ERR_INVALID;
    if (max_depth == 0 || max_depth > TW_DEPTH_HARD_MAX)
        max_depth = TW_DEPTH_HARD_MAX;
    walker w = {buf, len, 0, max_depth + 1, fn, user};
    return w_value(&w, tree, 0);
}

static tw_status keep_spelling(void *user, cJSON *node, size_t start, size_t end)
{
    const char *buf = user;
    if (!cJSON_IsNumber(node) || node->valuestring)
        return TW_OK;
    char *s = cJSON_malloc(end - start + 1);
    if (!s)
        return TW_ERR_NOMEM;
    memcpy(s, buf + start, end - start);
    s[end - start] = '\0';
    node->valuestring = s;
    return TW_OK;
}

tw_status tw_json_keep_spellings(const char *buf, size_t len, cJSON *tree, size_t max_depth)
{
    return tw_json_positions(buf, len, tree, max_depth, keep_spelling, (void *)buf);
}

/* ===================== shared preamble ===================== */

/* One tool as the template's tojson prints it: the OpenAI form. */
tw_status tw_py_tool_json_write(tw_buf *b, const tw_tool *t, size_t max_depth, tw_diag_list *w,
                                const char *fmt)
{
    TRY(PUTS(b, "{\"type\": \"function\", \"function\": {\"name\": "));
    TRY(tw_json_write_str(b, t->name ? t->name : "", t->name ? strlen(t->name) : 0,
                          TW_JSON_SPACED));
    if (t->description) {
        TRY(PUTS(b, ", \"description\": "));
        TRY(tw_json_write_str(b, t->description, strlen(t->description), TW_JSON_SPACED));
    }
    if (t->parameters) {
        TRY(PUTS(b, ", \"parameters\": "));
        char where[160];
        snprintf(where, sizeof where, "%s: tool %.64s parameters", fmt, t->name ? t->name : "");
        TRY(tw_json_write_py_warn(b, t->parameters, max_depth, w, where));
    }
    return PUTS(b, "}}");
}

static tw_status write_tools_block(tw_buf *b, const tw_request *r, size_t max_depth,
                                   const tw_encode_opts *o, const char *fmt)
{
    TRY(PUTS(b, TW_QWEN_TOOLS_HEAD));
    for (size_t i = 0; i < r->ntools; i++) {
        TRY(tw_buf_putc(b, '\n'));
        TRY(tw_py_tool_json_write(b, &r->tools[i], max_depth, o ? o->warnings : NULL, fmt));
    }
    return PUTS(b, TW_QWEN_TOOLS_TAIL);
}

/* ===================== hermes-prompt (Qwen3 template) ===================== */

/* The name a ChatML reader gives tool message i: the name of the call it
 * answers in order (the k-th result of a run answers the k-th call of the
 * assistant message before the run), or NULL. */
static const char *answered_name(const tw_request *r, size_t i)
{
    size_t s = i;
    while (s > 0 && r->messages[s - 1].role == TW_ROLE_TOOL)
        s--;
    if (s == 0 || r->messages[s - 1].role != TW_ROLE_ASSISTANT)
        return NULL;
    const tw_message *a = &r->messages[s - 1];
    return i - s < a->ncalls ? a->calls[i - s].name : NULL;
}

tw_status tw_py_prompt_losses(const tw_request *r, const tw_encode_opts *o, const char *fmt,
                              size_t last_query, bool think_in_content,
                              const char *const *carried_opts, size_t nopts)
{
    if (!o || !o->warnings)
        return TW_OK;
    if (r->model)
        TRY(tw_not_carried(o, "%s: model not carried", fmt));
    if (r->parallel_tool_calls >= 0)
        TRY(tw_not_carried(o, "%s: parallel_tool_calls not carried", fmt));
    if (r->choice == TW_CHOICE_NONE || r->choice == TW_CHOICE_REQUIRED ||
        r->choice == TW_CHOICE_NAMED)
        TRY(tw_not_carried(o, "%s: tool_choice not carried (the template has no place for it)",
                           fmt));
    for (const cJSON *c = r->options ? r->options->child : NULL; c; c = c->next) {
        const char *k = c->string ? c->string : "";
        bool carried = false;
        for (size_t j = 0; j < nopts; j++)
            carried |= strcmp(k, carried_opts[j]) == 0;
        if (!carried)
            TRY(tw_not_carried(o, "%s: options.%.64s not carried", fmt, k));
    }
    bool ids = false, names = false, thinking = false, redacted = false, sig = false, err = false;
    for (size_t i = 0; i < r->nmessages; i++) {
        const tw_message *m = &r->messages[i];
        ids |= m->ncalls > 0 || m->role == TW_ROLE_TOOL;
        redacted |= m->has_redacted_thinking || m->redacted_thinking != NULL;
        sig |= m->thinking_signature != NULL;
        err |= m->role == TW_ROLE_TOOL && m->is_error;
        if (m->role == TW_ROLE_TOOL && m->name) {
            const char *want = answered_name(r, i);
            names |= !want || strcmp(want, m->name) != 0;
        }
        if (m->role == TW_ROLE_ASSISTANT && i <= last_query &&
            (m->thinking.len ||
             (think_in_content &&
              tw_memmem(m->content.data ? m->content.data : "", m->content.len, "</think>", 8))))
            thinking = true;
    }
    if (ids)
        TRY(tw_not_carried(o,
                           "%s: tool call ids and tool_call_id not carried (each result answers "
                           "the previous assistant's calls in order)",
                           fmt));
    if (names)
        TRY(tw_not_carried(o,
                           "%s: name of a tool result not carried (it is not the name of the call "
                           "it answers in order)",
                           fmt));
    if (err)
        TRY(tw_not_carried(o, "%s: is_error of a tool result not carried", fmt));
    if (thinking)
        TRY(tw_not_carried(o,
                           "%s: thinking of assistant messages before the last user query not "
                           "carried (the template drops it)",
                           fmt));
    if (sig)
        TRY(tw_not_carried(o, "%s: thinking signature not carried", fmt));
    if (redacted)
        TRY(tw_not_carried(o, "%s: redacted thinking not carried", fmt));
    return TW_OK;
}

static tw_status render_assistant(tw_buf *b, const tw_message *m, bool after_query, bool last,
                                  tw_diag_list *w, size_t max_depth)
{
    span content = buf_span(&m->content);
    span reasoning = {"", 0};
    if (m->thinking.len) {
        reasoning = buf_span(&m->thinking);
    } else if (tw_memmem(content.p, content.n, "</think>", 8)) {
        span all = content;
        const char *last_close = span_rfind(all, "</think>");
        content.p = last_close + 8;
        content.n = all.n - (size_t)(content.p - all.p);
        content = lstrip_nl(content);
        const char *first_close = tw_memmem(all.p, all.n, "</think>", 8);
        span before = {all.p, (size_t)(first_close - all.p)};
        before = rstrip_nl(before);
        const char *open = span_rfind(before, "<think>");
        if (open) {
            before.n -= (size_t)(open + 7 - before.p);
            before.p = open + 7;
        }
        reasoning = lstrip_nl(before);
    }
    TRY(PUTS(b, "<|im_start|>assistant\n"));
    if (after_query && (last || reasoning.n)) {
        TRY(PUTS(b, "<think>\n"));
        TRY(put_span(b, rstrip_nl(lstrip_nl(reasoning))));
        TRY(PUTS(b, "\n</think>\n\n"));
        TRY(put_span(b, lstrip_nl(content)));
    } else {
        TRY(put_span(b, content));
    }
    for (size_t j = 0; j < m->ncalls; j++) {
        const tw_call *c = &m->calls[j];
        if (j > 0 || content.n)
            TRY(tw_buf_putc(b, '\n'));
        TRY(PUTS(b, "<tool_call>\n{\"name\": \""));
        TRY(tw_buf_puts(b, c->name ? c->name : ""));
        TRY(PUTS(b, "\", \"arguments\": "));
        char where[160];
        snprintf(where, sizeof where, "hermes-prompt: call %.64s arguments",
                 c->name ? c->name : "");
        if (c->arguments)
            TRY(tw_json_write_py_warn(b, c->arguments, max_depth, w, where));
        else
            TRY(PUTS(b, "{}"));
        TRY(PUTS(b, "}\n</tool_call>"));
    }
    return PUTS(b, "<|im_end|>\n");
}

static tw_status render_prompt(tw_buf *b, const tw_request *r, const tw_encode_opts *o,
                               size_t max_depth)
{
    const tw_message *ms = r->messages;
    size_t n = r->nmessages;
    bool first_system = ms[0].role == TW_ROLE_SYSTEM;
    if (r->ntools) {
        TRY(PUTS(b, "<|im_start|>system\n"));
        if (first_system) {
            TRY(put_span(b, buf_span(&ms[0].content)));
            TRY(PUTS(b, "\n\n"));
        }
        TRY(write_tools_block(b, r, max_depth, o, "hermes-prompt"));
        TRY(PUTS(b, "<|im_end|>\n"));
    } else if (first_system) {
        TRY(PUTS(b, "<|im_start|>system\n"));
        TRY(put_span(b, buf_span(&ms[0].content)));
        TRY(PUTS(b, "<|im_end|>\n"));
    }
    /* the last user turn that is not a wrapped tool response */
    size_t last_query = n - 1;
    for (size_t k = n; k-- > 0;) {
        span c = buf_span(&ms[k].content);
        if (ms[k].role == TW_ROLE_USER &&
            !(span_starts(c, "<tool_response>") && span_ends(c, "</tool_response>"))) {
            last_query = k;
            break;
        }
    }
    static const char *const opts[] = {"add_generation_prompt", "enable_thinking"};
    TRY(tw_py_prompt_losses(r, o, "hermes-prompt", last_query, true, opts, 2));
    for (size_t i = 0; i < n; i++) {
        const tw_message *m = &ms[i];
        switch (m->role) {
        case TW_ROLE_SYSTEM:
            if (i == 0)
                break;
            /* fall through */
        case TW_ROLE_USER:
            TRY(PUTS(b, "<|im_start|>"));
            TRY(tw_buf_puts(b, tw_role_name(m->role)));
            TRY(tw_buf_putc(b, '\n'));
            TRY(put_span(b, buf_span(&m->content)));
            TRY(PUTS(b, "<|im_end|>\n"));
            break;
        case TW_ROLE_ASSISTANT:
            TRY(render_assistant(b, m, i > last_query, i == n - 1, o ? o->warnings : NULL,
                                 max_depth));
            break;
        case TW_ROLE_TOOL:
            if (i == 0 || ms[i - 1].role != TW_ROLE_TOOL)
                TRY(PUTS(b, "<|im_start|>user"));
            TRY(PUTS(b, "\n<tool_response>\n"));
            TRY(put_span(b, buf_span(&m->content)));
            TRY(PUTS(b, "\n</tool_response>"));
            if (i == n - 1 || ms[i + 1].role != TW_ROLE_TOOL)
                TRY(PUTS(b, "<|im_end|>\n"));
            break;
        }
    }
    if (truthy(tw_json_get(r->options, "add_generation_prompt"))) {
        TRY(PUTS(b, "<|im_start|>assistant\n"));
        if (cJSON_IsFalse(tw_json_get(r->options, "enable_thinking")))
            TRY(PUTS(b, "<think>\n\n</think>\n\n"));
    }
    return TW_OK;
}

tw_status tw_hermes_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!r || !out || r->nmessages == 0)
        return TW_ERR_INVALID;
    return tw_encode_capped(r, o, out, render_prompt);
}

/* ===================== hermes-system (docs/formats/hermes.md) ===================== */

static const char SINGLE_BLOCK[] =
    "Put every tool call of one reply in a single <tool_call></tool_call> block; for several "
    "calls, write a JSON array of such objects inside it.";

tw_status tw_hermes_policy_write(tw_buf *out, tw_choice choice, const char *name)
{
    switch (choice) {
    case TW_CHOICE_NONE: return tw_buf_puts(out, "Do not call any tools; reply normally.");
    case TW_CHOICE_REQUIRED:
        return tw_buf_puts(out, "You MUST call at least one tool; reply with a "
                                "<tool_call></tool_call> block, not with text alone.");
    case TW_CHOICE_NAMED:
        TRY(tw_buf_puts(out, "If you call a tool, it MUST be `"));
        TRY(tw_buf_puts(out, name ? name : ""));
        return tw_buf_puts(out, "`; otherwise reply normally.");
    default: return TW_OK;
    }
}

static tw_status render_system(tw_buf *b, const tw_request *r, const tw_encode_opts *o,
                               size_t max_depth)
{
    (void)o;
    bool base = r->nmessages && r->messages[0].role == TW_ROLE_SYSTEM;
    if (base)
        TRY(put_span(b, buf_span(&r->messages[0].content)));
    if (!r->ntools)
        return TW_OK;
    if (base)
        TRY(PUTS(b, "\n\n"));
    TRY(write_tools_block(b, r, max_depth, o, "hermes-system"));
    TRY(PUTS(b, "\n\n"));
    TRY(PUTS(b, SINGLE_BLOCK));
    if (r->choice == TW_CHOICE_NONE || r->choice == TW_CHOICE_REQUIRED ||
        r->choice == TW_CHOICE_NAMED) {
        TRY(PUTS(b, "\n\n"));
        TRY(tw_hermes_policy_write(b, r->choice, r->choice_name));
    }
    return TW_OK;
}

tw_status tw_hermes_system_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!r || !out)
        return TW_ERR_INVALID;
    return tw_encode_capped(r, o, out, render_system);
}

const tw_encoder_ops tw_encoder_hermes_prompt = {
    "hermes-prompt", "neutral request -> the Qwen3 ChatML prompt (byte-exact chat template)",
    TW_ENC_REQUEST, tw_hermes_prompt_encode, tw_unsupported_encode_result};
const tw_encoder_ops tw_encoder_hermes_system = {
    "hermes-system",
    "neutral request -> Hermes system message (tools preamble, tool_choice policy)", TW_ENC_REQUEST,
    tw_hermes_system_encode, tw_unsupported_encode_result};
