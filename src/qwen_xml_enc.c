/*
 * Qwen XML prompt encoders: the ChatML prompts of the Qwen3-Coder and
 * Qwen3.5 chat templates (qwen3-coder-prompt, qwen3.5-prompt), byte for byte
 * what Python's Jinja renders. Rules: docs/formats/qwen-xml.md.
 */
#include "toolwire/qwen_encode.h"

#include <stdio.h>
#include <string.h>

#include "enc_common.h"
#include "formats.h"
#include "py_text.h"
#include "qwen_text.h"
#include "tw_macros.h"

/* ===================== Python's str.strip() and str() ===================== */

/* The code point at p[0, n) and its length; a byte that does not begin a
 * valid sequence is itself, length 1. */
static unsigned long utf8_at(const unsigned char *p, size_t n, size_t *len)
{
    unsigned long c = p[0];
    size_t k = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (k <= 1 || k > n) {
        *len = 1;
        return c;
    }
    c &= 0x7Fu >> k;
    for (size_t i = 1; i < k; i++) {
        if ((p[i] & 0xC0) != 0x80) {
            *len = 1;
            return p[0];
        }
        c = (c << 6) | (p[i] & 0x3F);
    }
    *len = k;
    return c;
}

/* str.isspace() of one code point. */
static bool py_space(unsigned long c)
{
    return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
           c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
           c == 0x202F || c == 0x205F || c == 0x3000;
}

/* Python's s.strip() (Jinja's | trim): Unicode whitespace off both ends. */
static span py_strip(span s)
{
    const unsigned char *p = (const unsigned char *)s.p;
    size_t len;
    while (s.n && py_space(utf8_at(p, s.n, &len))) {
        p += len;
        s.n -= len;
    }
    s.p = (const char *)p;
    while (s.n) {
        size_t at = s.n - 1; /* the start of the last code point */
        while (at > 0 && s.n - at < 4 && (p[at] & 0xC0) == 0x80)
            at--;
        unsigned long c = utf8_at(p + at, s.n - at, &len);
        if (at + len != s.n) { /* not one sequence: the last byte alone */
            at = s.n - 1;
            c = p[at];
        }
        if (!py_space(c))
            break;
        s.n = at;
    }
    return s;
}

/* Not str.isprintable(): the controls, the separators but the space, the
 * format characters, surrogates and private use, and the noncharacters of
 * the Basic Multilingual Plane. Other unassigned code points are printed
 * as they are. */
static bool py_unprintable(unsigned long c)
{
    if (c < 0x20 || (c >= 0x7F && c <= 0xA0))
        return true;
    if (c < 0x300)
        return c == 0xAD;
    return c == 0x061C || c == 0x06DD || c == 0x070F || c == 0x1680 || c == 0x180E ||
           (c >= 0x2000 && c <= 0x200F) || (c >= 0x2028 && c <= 0x202F) ||
           (c >= 0x205F && c <= 0x206F) || c == 0x3000 || (c >= 0xD800 && c <= 0xF8FF) ||
           c == 0xFEFF || (c >= 0xFFF9 && c <= 0xFFFB) || c == 0xFFFE || c == 0xFFFF ||
           c == 0x110BD || (c >= 0x1D173 && c <= 0x1D17A) || c == 0xE0001 ||
           (c >= 0xE0020 && c <= 0xE007F) || c >= 0xF0000;
}

/* Python's repr() of a string. */
static tw_status py_repr_str(tw_buf *b, const char *s, size_t n)
{
    char q = memchr(s, '\'', n) && !memchr(s, '"', n) ? '"' : '\'';
    TRY(tw_buf_putc(b, q));
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        size_t k;
        unsigned long c = utf8_at(p + i, n - i, &k);
        if (c == (unsigned char)q || c == '\\') {
            TRY(tw_buf_putc(b, '\\'));
            TRY(tw_buf_putc(b, (char)c));
        } else if (c == '\n') {
            TRY(PUTS(b, "\\n"));
        } else if (c == '\r') {
            TRY(PUTS(b, "\\r"));
        } else if (c == '\t') {
            TRY(PUTS(b, "\\t"));
        } else if (py_unprintable(c)) {
            TRY(tw_buf_printf(b,
                              c <= 0xFF     ? "\\x%02lx"
                              : c <= 0xFFFF ? "\\u%04lx"
                                            : "\\U%08lx",
                              c));
        } else {
            TRY(tw_buf_append(b, p + i, k));
        }
        i += k;
    }
    return tw_buf_putc(b, q);
}

typedef struct py_out {
    tw_diag_list *warnings;
    const char *where; /* what is being written, for number_inexact */
    size_t max_depth;
} py_out;

/* Python's str() of a JSON value as json.loads reads it: a string as it
 * is (with `repr`, quoted as repr() does inside a container), numbers as
 * tw_py_str_number, True/False/None, lists and dicts as their repr. */
static tw_status py_str(tw_buf *b, const cJSON *v, bool repr, size_t depth, const py_out *po)
{
    switch (v->type & 0xFF) {
    case cJSON_NULL: return PUTS(b, "None");
    case cJSON_True: return PUTS(b, "True");
    case cJSON_False: return PUTS(b, "False");
    case cJSON_Number: return tw_py_str_number(b, v, po->warnings, po->where);
    case cJSON_String: {
        const char *s = v->valuestring ? v->valuestring : "";
        return repr ? py_repr_str(b, s, strlen(s)) : tw_buf_puts(b, s);
    }
    case cJSON_Array:
    case cJSON_Object: {
        if (depth >= po->max_depth)
            return TW_ERR_LIMIT;
        bool obj = (v->type & 0xFF) == cJSON_Object;
        TRY(tw_buf_putc(b, obj ? '{' : '['));
        for (const cJSON *c = v->child; c; c = c->next) {
            if (c != v->child)
                TRY(PUTS(b, ", "));
            if (obj) {
                const char *k = c->string ? c->string : "";
                TRY(py_repr_str(b, k, strlen(k)));
                TRY(PUTS(b, ": "));
            }
            TRY(py_str(b, c, true, depth + 1, po));
        }
        return tw_buf_putc(b, obj ? '}' : ']');
    }
    default: return PUTS(b, "None");
    }
}

static bool is_container(const cJSON *v)
{
    return cJSON_IsObject(v) || cJSON_IsArray(v);
}

/* `value | tojson` for a mapping or a list, `value | string` otherwise. */
static tw_status put_value(tw_buf *b, const cJSON *v, const py_out *po)
{
    if (is_container(v))
        return tw_json_write_py_warn(b, v, po->max_depth, po->warnings, po->where);
    return py_str(b, v, false, 0, po);
}

/* `value | trim`: str() of the value, stripped. */
static tw_status put_trimmed(tw_buf *b, const cJSON *v, const py_out *po)
{
    if (cJSON_IsString(v)) {
        span s = {v->valuestring ? v->valuestring : "",
                  v->valuestring ? strlen(v->valuestring) : 0};
        return put_span(b, py_strip(s));
    }
    tw_buf t = {0};
    t.max = b->max;
    tw_status st = py_str(&t, v, false, 0, po);
    if (st == TW_OK)
        st = put_span(b, py_strip(buf_span(&t)));
    tw_buf_free(&t);
    return st;
}

/* ===================== what both templates share ===================== */

/* The parameters of one call:
 * <parameter=KEY>\nVALUE\n</parameter>\n for each argument. */
static tw_status put_arguments(tw_buf *b, const tw_call *c, const tw_encode_opts *o,
                               size_t max_depth, const char *fmt)
{
    if (!c->arguments)
        return TW_OK;
    if (!cJSON_IsObject(c->arguments)) {
        tw_not_carried(o, "%s: refused: arguments of call %.64s are not an object", fmt,
                       c->name ? c->name : "");
        return TW_ERR_INVALID;
    }
    char where[160];
    snprintf(where, sizeof where, "%s: call %.64s arguments", fmt, c->name ? c->name : "");
    py_out po = {o->warnings, where, max_depth};
    for (const cJSON *a = c->arguments->child; a; a = a->next) {
        TRY(PUTS(b, "<parameter="));
        TRY(tw_buf_puts(b, a->string ? a->string : ""));
        TRY(PUTS(b, ">\n"));
        TRY(put_value(b, a, &po));
        TRY(PUTS(b, "\n</parameter>\n"));
    }
    return TW_OK;
}

/* <tool_call>\n<function=NAME>\n, the parameters, </function>\n</tool_call>
 * (the caller writes what comes before). */
static tw_status put_call(tw_buf *b, const tw_call *c, const tw_encode_opts *o, size_t max_depth,
                          const char *fmt)
{
    TRY(PUTS(b, "<tool_call>\n<function="));
    TRY(tw_buf_puts(b, c->name ? c->name : ""));
    TRY(PUTS(b, ">\n"));
    TRY(put_arguments(b, c, o, max_depth, fmt));
    return PUTS(b, "</function>\n</tool_call>");
}

/* A tool result: header when the message before is not a result, the
 * <tool_response> block, <|im_end|> after the last of a run. `first` is
 * the index the template's loop starts at. */
static tw_status put_tool_result(tw_buf *b, const tw_request *r, size_t i, size_t first,
                                 span content, const char *header, const char *open,
                                 const char *close)
{
    const tw_message *ms = r->messages;
    if (i > first && ms[i - 1].role != TW_ROLE_TOOL)
        TRY(tw_buf_puts(b, header));
    TRY(tw_buf_puts(b, open));
    TRY(put_span(b, content));
    TRY(tw_buf_puts(b, close));
    if (i + 1 == r->nmessages || ms[i + 1].role != TW_ROLE_TOOL)
        TRY(PUTS(b, "<|im_end|>\n"));
    return TW_OK;
}

static tw_status put_turn(tw_buf *b, tw_role role, span content)
{
    TRY(PUTS(b, "<|im_start|>"));
    TRY(tw_buf_puts(b, tw_role_name(role)));
    TRY(tw_buf_putc(b, '\n'));
    TRY(put_span(b, content));
    return PUTS(b, "<|im_end|>\n");
}

static bool add_generation_prompt(const tw_request *r)
{
    return truthy(tw_json_get(r->options, "add_generation_prompt"));
}

/* ===================== qwen3-coder-prompt ===================== */

#define CODER "qwen3-coder-prompt"

/* render_extra_keys: \n<KEY>VALUE</KEY> for each key of a mapping not in
 * `handled`. */
static tw_status put_extra_keys(tw_buf *b, const cJSON *dict, const char *const *handled,
                                size_t nhandled, const py_out *po)
{
    if (!cJSON_IsObject(dict))
        return TW_OK;
    for (const cJSON *c = dict->child; c; c = c->next) {
        const char *k = c->string ? c->string : "";
        bool skip = false;
        for (size_t j = 0; j < nhandled; j++)
            skip |= strcmp(k, handled[j]) == 0;
        if (skip)
            continue;
        TRY(PUTS(b, "\n<"));
        TRY(tw_buf_puts(b, k));
        TRY(tw_buf_putc(b, '>'));
        TRY(put_value(b, c, po));
        TRY(PUTS(b, "</"));
        TRY(tw_buf_puts(b, k));
        TRY(tw_buf_putc(b, '>'));
    }
    return TW_OK;
}

static tw_status coder_tool(tw_buf *b, const tw_tool *t, const tw_encode_opts *o, size_t max_depth)
{
    static const char *const param_keys[] = {"name", "type", "description"};
    static const char *const schema_keys[] = {"type", "properties"};
    char where[160];
    snprintf(where, sizeof where, CODER ": tool %.64s parameters", t->name ? t->name : "");
    py_out po = {o->warnings, where, max_depth};
    TRY(PUTS(b, "\n<function>\n<name>"));
    TRY(tw_buf_puts(b, t->name ? t->name : ""));
    TRY(PUTS(b, "</name>"));
    if (t->description) {
        span d = {t->description, strlen(t->description)};
        TRY(PUTS(b, "\n<description>"));
        TRY(put_span(b, py_strip(d)));
        TRY(PUTS(b, "</description>"));
    }
    TRY(PUTS(b, "\n<parameters>"));
    const cJSON *props =
        cJSON_IsObject(t->parameters) ? tw_json_get(t->parameters, "properties") : NULL;
    for (const cJSON *p = cJSON_IsObject(props) ? props->child : NULL; p; p = p->next) {
        TRY(PUTS(b, "\n<parameter>\n<name>"));
        TRY(tw_buf_puts(b, p->string ? p->string : ""));
        TRY(PUTS(b, "</name>"));
        const cJSON *type = cJSON_IsObject(p) ? tw_json_get(p, "type") : NULL;
        const cJSON *desc = cJSON_IsObject(p) ? tw_json_get(p, "description") : NULL;
        if (type) {
            TRY(PUTS(b, "\n<type>"));
            TRY(py_str(b, type, false, 0, &po));
            TRY(PUTS(b, "</type>"));
        }
        if (desc) {
            TRY(PUTS(b, "\n<description>"));
            TRY(put_trimmed(b, desc, &po));
            TRY(PUTS(b, "</description>"));
        }
        TRY(put_extra_keys(b, p, param_keys, 3, &po));
        TRY(PUTS(b, "\n</parameter>"));
    }
    TRY(put_extra_keys(b, t->parameters, schema_keys, 2, &po));
    return PUTS(b, "\n</parameters>\n</function>");
}

static tw_status render_coder(tw_buf *b, const tw_request *r, const tw_encode_opts *o,
                              size_t max_depth)
{
    const tw_message *ms = r->messages;
    size_t n = r->nmessages;
    bool system = ms[0].role == TW_ROLE_SYSTEM;
    if (system) {
        TRY(PUTS(b, "<|im_start|>system\n"));
        TRY(put_span(b, buf_span(&ms[0].content)));
    } else if (r->ntools) {
        TRY(PUTS(b, "<|im_start|>system\n" TW_QWEN_CODER_DEFAULT_SYSTEM));
    }
    if (r->ntools) {
        TRY(PUTS(b, TW_QWEN_CODER_TOOLS_HEAD));
        for (size_t i = 0; i < r->ntools; i++)
            TRY(coder_tool(b, &r->tools[i], o, max_depth));
        TRY(PUTS(b, TW_QWEN_CODER_TOOLS_TAIL));
    }
    if (system || r->ntools)
        TRY(PUTS(b, "<|im_end|>\n"));
    static const char *const opts[] = {"add_generation_prompt"};
    TRY(tw_py_prompt_losses(r, o, CODER, n, false, opts, 1));
    size_t first = system ? 1 : 0;
    for (size_t i = first; i < n; i++) {
        const tw_message *m = &ms[i];
        span content = buf_span(&m->content);
        if (m->role == TW_ROLE_TOOL) {
            TRY(put_tool_result(b, r, i, first, content, "<|im_start|>user\n", "<tool_response>\n",
                                "\n</tool_response>\n"));
        } else if (m->role == TW_ROLE_ASSISTANT && m->ncalls) {
            TRY(PUTS(b, "<|im_start|>assistant"));
            span t = py_strip(content);
            if (t.n) {
                TRY(tw_buf_putc(b, '\n'));
                TRY(put_span(b, t));
                TRY(tw_buf_putc(b, '\n'));
            }
            for (size_t j = 0; j < m->ncalls; j++) {
                TRY(tw_buf_putc(b, '\n'));
                TRY(put_call(b, &m->calls[j], o, max_depth, CODER));
            }
            TRY(PUTS(b, "<|im_end|>\n"));
        } else {
            TRY(put_turn(b, m->role, content));
        }
    }
    if (add_generation_prompt(r))
        TRY(PUTS(b, "<|im_start|>assistant\n"));
    return TW_OK;
}

tw_status tw_qwen3_coder_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!r || !out || r->nmessages == 0)
        return TW_ERR_INVALID;
    return tw_encode_capped(r, o ? o : &tw_enc_default_opts, out, render_coder);
}

/* ===================== qwen3.5-prompt ===================== */

#define Q35 "qwen3.5-prompt"

/* The reasoning and the content of an assistant message as the template
 * makes them from content (already stripped) and reasoning_content. */
static void split_think(const tw_message *m, span *content, span *reasoning)
{
    reasoning->p = "";
    reasoning->n = 0;
    if (m->thinking.len) {
        *reasoning = buf_span(&m->thinking);
    } else if (tw_memmem(content->p, content->n, "</think>", 8)) {
        span all = *content;
        const char *first_close = tw_memmem(all.p, all.n, "</think>", 8);
        span before = rstrip_nl((span){all.p, (size_t)(first_close - all.p)});
        const char *open = span_rfind(before, "<think>");
        if (open) {
            before.n -= (size_t)(open + 7 - before.p);
            before.p = open + 7;
        }
        *reasoning = lstrip_nl(before);
        const char *last_close = span_rfind(all, "</think>");
        content->p = last_close + 8;
        content->n = all.n - (size_t)(content->p - all.p);
        *content = lstrip_nl(*content);
    }
    *reasoning = py_strip(*reasoning);
}

static tw_status refuse(const tw_encode_opts *o, const char *why)
{
    tw_not_carried(o, Q35 ": refused: %s", why);
    return TW_ERR_INVALID;
}

static tw_status render_q35(tw_buf *b, const tw_request *r, const tw_encode_opts *o,
                            size_t max_depth)
{
    const tw_message *ms = r->messages;
    size_t n = r->nmessages;
    bool system = ms[0].role == TW_ROLE_SYSTEM;
    /* the last user turn that is not a wrapped tool response */
    size_t last_query = n;
    for (size_t k = n; k-- > 0 && last_query == n;) {
        span c = py_strip(buf_span(&ms[k].content));
        if (ms[k].role == TW_ROLE_USER &&
            !(span_starts(c, "<tool_response>") && span_ends(c, "</tool_response>")))
            last_query = k;
    }
    if (last_query == n)
        return refuse(o, "No user query found in messages.");
    for (size_t i = 1; i < n; i++)
        if (ms[i].role == TW_ROLE_SYSTEM)
            return refuse(o, "System message must be at the beginning.");
    if (r->ntools) {
        TRY(PUTS(b, "<|im_start|>system\n" TW_QWEN35_TOOLS_HEAD));
        for (size_t i = 0; i < r->ntools; i++) {
            TRY(tw_buf_putc(b, '\n'));
            TRY(tw_py_tool_json_write(b, &r->tools[i], max_depth, o->warnings, Q35));
        }
        TRY(PUTS(b, TW_QWEN35_TOOLS_TAIL));
        span c = system ? py_strip(buf_span(&ms[0].content)) : (span){"", 0};
        if (c.n) {
            TRY(PUTS(b, "\n\n"));
            TRY(put_span(b, c));
        }
        TRY(PUTS(b, "<|im_end|>\n"));
    } else if (system) {
        TRY(put_turn(b, TW_ROLE_SYSTEM, py_strip(buf_span(&ms[0].content))));
    }
    static const char *const opts[] = {"add_generation_prompt", "enable_thinking"};
    TRY(tw_py_prompt_losses(r, o, Q35, last_query, true, opts, 2));
    for (size_t i = 0; i < n; i++) {
        const tw_message *m = &ms[i];
        span content = py_strip(buf_span(&m->content));
        if (m->role == TW_ROLE_USER) {
            TRY(put_turn(b, m->role, content));
        } else if (m->role == TW_ROLE_TOOL) {
            TRY(put_tool_result(b, r, i, 0, content, "<|im_start|>user", "\n<tool_response>\n",
                                "\n</tool_response>"));
        } else if (m->role == TW_ROLE_ASSISTANT) {
            span reasoning;
            split_think(m, &content, &reasoning);
            TRY(PUTS(b, "<|im_start|>assistant\n"));
            if (i > last_query) {
                TRY(PUTS(b, "<think>\n"));
                TRY(put_span(b, reasoning));
                TRY(PUTS(b, "\n</think>\n\n"));
            }
            TRY(put_span(b, content));
            for (size_t j = 0; j < m->ncalls; j++) {
                if (j > 0)
                    TRY(tw_buf_putc(b, '\n'));
                else if (py_strip(content).n)
                    TRY(PUTS(b, "\n\n"));
                TRY(put_call(b, &m->calls[j], o, max_depth, Q35));
            }
            TRY(PUTS(b, "<|im_end|>\n"));
        }
    }
    if (add_generation_prompt(r)) {
        TRY(PUTS(b, "<|im_start|>assistant\n"));
        if (cJSON_IsFalse(tw_json_get(r->options, "enable_thinking")))
            TRY(PUTS(b, "<think>\n\n</think>\n\n"));
        else
            TRY(PUTS(b, "<think>\n"));
    }
    return TW_OK;
}

tw_status tw_qwen35_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!r || !out || r->nmessages == 0)
        return TW_ERR_INVALID;
    return tw_encode_capped(r, o ? o : &tw_enc_default_opts, out, render_q35);
}

const tw_encoder_ops tw_encoder_qwen3_coder_prompt = {
    CODER, "neutral request -> the Qwen3-Coder ChatML prompt (XML tool calls, byte-exact template)",
    TW_ENC_REQUEST, tw_qwen3_coder_prompt_encode, tw_unsupported_encode_result};
const tw_encoder_ops tw_encoder_qwen35_prompt = {
    Q35,
    "neutral request -> the Qwen3.5 ChatML prompt (XML tool calls, <think>, byte-exact template)",
    TW_ENC_REQUEST, tw_qwen35_prompt_encode, tw_unsupported_encode_result};
