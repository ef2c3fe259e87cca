/* Internal: what the Qwen prompt encoders (hermes_enc.c, qwen_xml_enc.c)
 * share to render a chat template as Python's Jinja does: byte ranges and
 * their newline strips, Python truthiness, str() of a number, a tool as the
 * template's tojson prints it, and the warnings about what a prompt does
 * not carry. The Python-style JSON writer itself is public (toolwire/json.h,
 * tw_json_write_py_warn). */
#ifndef TOOLWIRE_PY_TEXT_H
#define TOOLWIRE_PY_TEXT_H

#include <string.h>

#include "toolwire/encode.h"
#include "toolwire/json.h"

/* ===================== byte ranges ===================== */

typedef struct span {
    const char *p;
    size_t n;
} span;

static inline span buf_span(const tw_buf *b)
{
    span s = {b->data ? b->data : "", b->len};
    return s;
}

static inline bool span_starts(span s, const char *lit)
{
    size_t k = strlen(lit);
    return s.n >= k && memcmp(s.p, lit, k) == 0;
}

static inline bool span_ends(span s, const char *lit)
{
    size_t k = strlen(lit);
    return s.n >= k && memcmp(s.p + s.n - k, lit, k) == 0;
}

/* Python's s.lstrip('\n') and s.rstrip('\n'). */
static inline span lstrip_nl(span s)
{
    while (s.n && s.p[0] == '\n') {
        s.p++;
        s.n--;
    }
    return s;
}

static inline span rstrip_nl(span s)
{
    while (s.n && s.p[s.n - 1] == '\n')
        s.n--;
    return s;
}

/* Last occurrence of lit in s, or NULL (linear: each memmem starts past
 * the previous hit). */
static inline const char *span_rfind(span s, const char *lit)
{
    size_t k = strlen(lit);
    const char *found = NULL;
    const char *p = s.p;
    size_t n = s.n;
    const char *hit;
    while ((hit = tw_memmem(p, n, lit, k)) != NULL) {
        found = hit;
        n -= (size_t)(hit - p) + 1;
        p = hit + 1;
    }
    return found;
}

static inline tw_status put_span(tw_buf *b, span s)
{
    return tw_buf_append(b, s.p, s.n);
}

/* Python truthiness of a JSON value (NULL is false). */
static inline bool truthy(const cJSON *v)
{
    if (!v || cJSON_IsNull(v) || cJSON_IsFalse(v))
        return false;
    if (cJSON_IsTrue(v))
        return true;
    if (cJSON_IsNumber(v))
        return v->valuedouble != 0;
    if (cJSON_IsString(v))
        return v->valuestring && v->valuestring[0];
    return v->child != NULL;
}

/* str.isspace() of one code point. */
static inline bool tw_py_space(unsigned long c)
{
    return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
           c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
           c == 0x202F || c == 0x205F || c == 0x3000;
}

/* The code point ending at p[n) (n > 0) and its length; a byte that is not
 * the end of a valid sequence of up to three bytes is itself, length 1
 * (Python's white space is all below U+10000). */
static inline unsigned long tw_py_cp_before(const unsigned char *p, size_t n, size_t *len)
{
    *len = 1;
    unsigned char c = p[n - 1];
    if (c < 0x80 || (c & 0xC0) != 0x80 || n < 2)
        return c;
    if ((p[n - 2] & 0xE0) == 0xC0) {
        *len = 2;
        return ((p[n - 2] & 0x1Ful) << 6) | (c & 0x3F);
    }
    if (n >= 3 && (p[n - 2] & 0xC0) == 0x80 && (p[n - 3] & 0xF0) == 0xE0) {
        *len = 3;
        return ((p[n - 3] & 0x0Ful) << 12) | ((p[n - 2] & 0x3Ful) << 6) | (c & 0x3F);
    }
    return 0x110000ul; /* not a space */
}

/* The code point starting p[0, n) (n > 0) and its length, as above. */
static inline unsigned long tw_py_cp_at(const unsigned char *p, size_t n, size_t *len)
{
    *len = 1;
    if (p[0] < 0x80 || n < 2)
        return p[0];
    if ((p[0] & 0xE0) == 0xC0 && (p[1] & 0xC0) == 0x80) {
        *len = 2;
        return ((p[0] & 0x1Ful) << 6) | (p[1] & 0x3F);
    }
    if ((p[0] & 0xF0) == 0xE0 && n >= 3 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80) {
        *len = 3;
        return ((p[0] & 0x0Ful) << 12) | ((p[1] & 0x3Ful) << 6) | (p[2] & 0x3F);
    }
    return 0x110000ul;
}

/* Python's s.strip() (Jinja's | trim): Unicode white space off both ends. */
static inline span tw_py_strip(span s)
{
    const unsigned char *p = (const unsigned char *)s.p;
    size_t len;
    while (s.n && tw_py_space(tw_py_cp_at(p, s.n, &len))) {
        p += len;
        s.n -= len;
    }
    s.p = (const char *)p;
    while (s.n && tw_py_space(tw_py_cp_before(p, s.n, &len)))
        s.n -= len;
    return s;
}

/* ===================== Python spellings (hermes_enc.c) ===================== */

/*
 * Python's str() of the number v as json.loads reads its spelling: an
 * integer token as written (-0 as 0), any other token as the float repr
 * (1.0, 1e+20, 1e-05; inf, -inf past the doubles). A number that prints as
 * a different value adds a number_inexact warning to `warnings` (may be
 * NULL) naming `where`.
 */
tw_status tw_py_str_number(tw_buf *out, const cJSON *v, tw_diag_list *warnings, const char *where);

/*
 * One tool as `tool | tojson` prints it in the Qwen templates: the OpenAI
 * form {"type": "function", "function": {"name", "description",
 * "parameters"}}. `fmt` names the encoder in warnings.
 */
tw_status tw_py_tool_json_write(tw_buf *b, const tw_tool *t, size_t max_depth, tw_diag_list *w,
                                const char *fmt);

/*
 * not_carried warnings for what a Qwen prompt leaves out: model,
 * parallel_tool_calls, tool_choice, options other than the `nopts` names
 * in `carried_opts`, call ids, result names and is_error, redacted
 * thinking and signatures, and the thinking of assistant messages at or
 * before index `last_query` (with `think_in_content`, also content holding
 * </think>, which the template splits and drops the same way).
 */
tw_status tw_py_prompt_losses(const tw_request *r, const tw_encode_opts *o, const char *fmt,
                              size_t last_query, bool think_in_content,
                              const char *const *carried_opts, size_t nopts);

#endif
