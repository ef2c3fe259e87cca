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
