/*
 * Request decoders for the ChatML prompts: Hermes/Qwen3 (the inverse of the
 * hermes-prompt encoder, rules: docs/formats/hermes.md), Qwen3-Coder and
 * Qwen3.5 (the inverses of qwen3-coder-prompt and qwen3.5-prompt, rules:
 * docs/formats/qwen-xml.md). One turn loop; the turns that differ are read
 * per prompt.
 */
#include "alloc.h"
#include "toolwire/request_chatml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwen_text.h"
#include "request_read.h"
#include "tw_macros.h"
#include "toolwire/json.h"
#include "toolwire/text.h"

#define LIT(s) (s), (sizeof(s) - 1)

static const char IM_START[] = "<|im_start|>";
static const char IM_END[] = "<|im_end|>\n";
static const char EMPTY_THINK[] = "<think>\n\n</think>\n\n";

typedef enum hp_kind { HP_HERMES, HP_CODER, HP_Q35 } hp_kind;

typedef struct hp {
    tw_rq d;
    const char *buf;
    size_t len;
    hp_kind kind;
    const char *fmt; /* the reader's name, for messages */
} hp;

static tw_status set_content(tw_message *m, const char *p, size_t n)
{
    return n ? tw_buf_append(&m->content, p, n) : TW_OK;
}

static tw_status put_bool_option(tw_request *r, const char *key, bool v)
{
    if (!r->options && !(r->options = cJSON_CreateObject()))
        return TW_ERR_NOMEM;
    return cJSON_AddBoolToObject(r->options, key, v) ? TW_OK : TW_ERR_NOMEM;
}

/* The tool lines between TW_QWEN_TOOLS_HEAD and TW_QWEN_TOOLS_TAIL: "\n" + one JSON object
 * per tool. */
static tw_status read_tools(hp *h, const char *p, size_t n, size_t at, const char *path)
{
    tw_request *r = h->d.req;
    r->tools_present = true;
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += p[i] == '\n';
    if (n && p[0] != '\n')
        return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)at, path,
                          "the <tools> section must hold one tool per line");
    /* a JSON reader takes a NUL between tokens as white space: it would vanish */
    const char *nul = memchr(p, '\0', n);
    if (nul)
        return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)(at + (size_t)(nul - p)), path,
                          "a NUL byte at byte %zu in the <tools> section (a tool line is JSON, "
                          "which holds none)",
                          at + (size_t)(nul - p));
    if (count > h->d.l.max_tools)
        return tw_rq_fail(&h->d, TW_ERR_LIMIT, (int64_t)at, path, "more than max_tools (%zu) tools",
                          h->d.l.max_tools);
    if (!count)
        return TW_OK;
    if (!(r->tools = tw_calloc(count, sizeof *r->tools)))
        return TW_ERR_NOMEM;
    size_t i = 0;
    while (i < n) {
        size_t s = i + 1, e = s;
        while (e < n && p[e] != '\n')
            e++;
        char tp[64];
        snprintf(tp, sizeof tp, "%s.tools[%zu]", path, r->ntools);
        cJSON *j = NULL;
        TRY(tw_rq_prompt_json(&h->d, p + s, e - s, at + s, tp, "a tool line", &j));
        tw_error te;
        tw_error_clear(&te);
        tw_status st = tw_tool_read(j, &r->tools[r->ntools], &te);
        cJSON_Delete(j);
        if (st == TW_ERR_NOMEM)
            return st;
        if (st != TW_OK)
            return tw_rq_fail(&h->d, st, (int64_t)(at + s), tp, "%s",
                              te.message[0] ? te.message : tw_code_message(st));
        r->ntools++;
        i = e;
    }
    return TW_OK;
}

/* A system turn read as a plain message that still holds the title of the
 * templates' tools section, "# Tools" on a line of its own (the section
 * edited, or its tail not where the template puts it): no tool is read from
 * it, and the reader says so at the title's byte. */
static tw_status plain_system(hp *h, const char *b, size_t n, size_t at, const char *path)
{
    tw_message *m;
    TRY(tw_rq_push(&h->d, path, &m));
    m->role = TW_ROLE_SYSTEM;
    TRY(set_content(m, b, n));
    const char *q = tw_memmem(b, n, LIT("# Tools\n\n"));
    if (q && q > b && q[-1] != '\n')
        q = tw_memmem(q, n - (size_t)(q - b), LIT("\n# Tools\n\n"));
    if (!q)
        return TW_OK;
    if (*q == '\n')
        q++;
    return tw_rq_warn_at(&h->d, TW_D_NOT_CARRIED, (int64_t)(at + (size_t)(q - b)),
                         "%s: %s: a tools section not in the form the template writes is kept "
                         "as system text; no tool is read from it",
                         h->fmt, path);
}

/* The first system turn: BASE "\n\n" HEAD tools TAIL, or HEAD tools TAIL
 * (no system message), or a plain system message. */
static tw_status first_system(hp *h, const char *b, size_t n, size_t at, const char *path)
{
    const size_t kh = sizeof TW_QWEN_TOOLS_HEAD - 1, kt = sizeof TW_QWEN_TOOLS_TAIL - 1;
    const char *head = NULL;
    if (ends_with(b, n, TW_QWEN_TOOLS_TAIL, kt))
        head = rfind(b, n - kt, TW_QWEN_TOOLS_HEAD, kh);
    size_t hq = head ? (size_t)(head - b) : 0;
    if (head && (hq == 0 || (hq >= 2 && b[hq - 2] == '\n' && b[hq - 1] == '\n'))) {
        if (hq) {
            tw_message *m;
            TRY(tw_rq_push(&h->d, path, &m));
            m->role = TW_ROLE_SYSTEM;
            TRY(set_content(m, b, hq - 2));
        }
        return read_tools(h, b + hq + kh, n - kt - hq - kh, at + hq + kh, path);
    }
    return plain_system(h, b, n, at, path);
}

/* A user turn: either tool responses ("<tool_response>\n" X
 * "\n</tool_response>", then "\n<tool_response>\n" X "\n</tool_response>"
 * for each further one) or a user message. A user message holding exactly
 * that text renders the same bytes, so it is read as tool responses too. */
static tw_status user_turn(hp *h, const char *b, size_t n, const char *path)
{
    static const char OPEN[] = "\n<tool_response>\n", CLOSE[] = "\n</tool_response>";
    const size_t ko = sizeof OPEN - 1, kc = sizeof CLOSE - 1;
    tw_message *m;
    if (starts_with(b, n, OPEN + 1, ko - 1) && ends_with(b, n, CLOSE, kc) && n >= ko - 1 + kc) {
        /* split at every CLOSE followed by OPEN or by the end */
        size_t i = ko - 1;
        while (i < n) {
            size_t e = i;
            const char *hit;
            for (;;) {
                hit = tw_memmem(b + e, n - e, CLOSE, kc);
                if (!hit)
                    break;
                size_t after = (size_t)(hit - b) + kc;
                if (after == n || starts_with(b + after, n - after, OPEN, ko))
                    break;
                e = (size_t)(hit - b) + 1;
            }
            if (!hit)
                break; /* cannot happen: b ends with CLOSE */
            size_t ce = (size_t)(hit - b);
            if (i > ko - 1) /* a further response starts at its <tool_response> */
                h->d.msg_at = (int64_t)((size_t)(b - h->buf) + i - (ko - 1));
            TRY(tw_rq_push(&h->d, path, &m));
            m->role = TW_ROLE_TOOL;
            TRY(set_content(m, b + i, ce - i));
            i = ce + kc;
            if (i < n)
                i += ko;
        }
        return TW_OK;
    }
    TRY(tw_rq_push(&h->d, path, &m));
    m->role = TW_ROLE_USER;
    return set_content(m, b, n);
}

static void strip_nl(const char **p, size_t *n, bool left, bool right)
{
    while (left && *n && (*p)[0] == '\n') {
        (*p)++;
        (*n)--;
    }
    while (right && *n && (*p)[*n - 1] == '\n')
        (*n)--;
}

/* An assistant turn: [<think>R</think> + "\n"*] TEXT [<tool_call> blocks]. */
static tw_status assistant_turn(hp *h, const char *b, size_t n, const char *path)
{
    tw_message *m;
    TRY(tw_rq_push(&h->d, path, &m));
    m->role = TW_ROLE_ASSISTANT;
    const char *close = starts_with(b, n, LIT("<think>")) ? tw_memmem(b, n, LIT("</think>")) : NULL;
    int64_t content_at = (int64_t)(b - h->buf); /* the content's first byte in the prompt */
    if (close) {
        const char *t = b + 7;
        size_t tn = (size_t)(close - t);
        strip_nl(&t, &tn, true, true);
        if (tn)
            TRY(tw_buf_append(&m->thinking, t, tn));
        const char *c = close + 8;
        size_t cn = n - (size_t)(c - b);
        strip_nl(&c, &cn, true, false);
        content_at = (int64_t)(c - h->buf);
        TRY(set_content(m, c, cn));
    } else {
        TRY(set_content(m, b, n));
        /* The template splits a content holding </think> unless the message
         * has a thinking, which it then drops before the last query: the
         * turn came from a message whose thinking is lost. */
        if (tw_memmem(b, n, LIT("</think>")))
            TRY(tw_rq_warn(&h->d, TW_D_NOT_CARRIED,
                           "hermes-prompt: %s: the content holds </think>, so the message had "
                           "a thinking the prompt does not carry; encoding this request again "
                           "splits the content at </think>",
                           path));
    }
    return tw_rq_take_calls(&h->d, m, content_at, path);
}

/* ===================== the Qwen XML prompts ===================== */

/* A JSON value printed by the Qwen XML templates as `| string` (or `| tojson`
 * for a mapping or a list), read back: True, False and None, a JSON number or
 * container as JSON (number spellings kept), anything else as a string. The
 * printed form does not tell the string "5" from the number 5: the value is
 * read as what it prints. */
static tw_status read_py_value(hp *h, const char *p, size_t n, size_t at, const char *path,
                               cJSON **out)
{
    *out = NULL;
    static const char *const words[] = {"True", "False", "None"};
    for (size_t k = 0; k < 3; k++)
        if (strlen(words[k]) == n && memcmp(p, words[k], n) == 0) {
            *out = k == 0 ? cJSON_CreateTrue() : k == 1 ? cJSON_CreateFalse() : cJSON_CreateNull();
            return *out ? TW_OK : TW_ERR_NOMEM;
        }
    /* (a byte a JSON reader drops keeps it the string it is) */
    if (n && (p[0] == '[' || p[0] == '{' || tw_json_number_valid(p, n)) &&
        tw_rq_json_stray(p, n) == n) {
        tw_error je;
        tw_status st = tw_json_parse(p, n, h->d.l.max_depth, out, &je);
        if (st == TW_ERR_NOMEM)
            return st;
        if (st == TW_ERR_LIMIT)
            return tw_rq_fail_json(&h->d, st, &je, (int64_t)at, path);
        if (st == TW_OK)
            return TW_OK;
    }
    char *s = tw_strndup(p, n);
    if (!s)
        return TW_ERR_NOMEM;
    *out = cJSON_CreateString(s);
    tw_free(s);
    return *out ? TW_OK : TW_ERR_NOMEM;
}

/* A parameter's <type>: a name as a string; a list of names as Python's
 * repr prints it (['integer', 'null']) as a JSON array of them. Any other
 * repr (escapes, a mapping) stays the text it prints: *lost set. */
static tw_status read_py_type(const char *p, size_t n, cJSON **out, bool *lost)
{
    *out = NULL;
    if (n >= 2 && p[0] == '[' && p[n - 1] == ']') {
        cJSON *a = cJSON_CreateArray();
        if (!a)
            return TW_ERR_NOMEM;
        size_t i = 1;
        bool ok = true;
        while (ok && i < n - 1) {
            char q = p[i];
            const char *e = q == '\'' || q == '"' ? memchr(p + i + 1, q, n - 1 - (i + 1)) : NULL;
            ok = e && !memchr(p + i + 1, '\\', (size_t)(e - (p + i + 1)));
            if (!ok)
                break;
            char *s = tw_strndup(p + i + 1, (size_t)(e - (p + i + 1)));
            cJSON *it = s ? cJSON_CreateString(s) : NULL;
            tw_free(s);
            if (!it) {
                cJSON_Delete(a);
                return TW_ERR_NOMEM;
            }
            cJSON_AddItemToArray(a, it);
            i = (size_t)(e - p) + 1;
            if (i < n - 1) {
                ok = starts_with(p + i, n - 1 - i, LIT(", ")) && i + 2 < n - 1;
                i += 2;
            }
        }
        if (ok) {
            *out = a;
            return TW_OK;
        }
        cJSON_Delete(a);
    }
    *lost = n && (p[0] == '[' || p[0] == '{');
    char *s = tw_strndup(p, n);
    if (!s)
        return TW_ERR_NOMEM;
    *out = cJSON_CreateString(s);
    tw_free(s);
    return *out ? TW_OK : TW_ERR_NOMEM;
}

/* One element "\n<KEY>VALUE</KEY>" at b[i, n), the element followed by a
 * line break: the key at *k (*kn bytes), the value at *v (*vn), *next past
 * the element. False when there is none at i. KEY holds no '<', '>' or line
 * break, so no two candidate closings overlap: the scan is linear. */
static bool xml_elem(const char *b, size_t n, size_t i, const char **k, size_t *kn, const char **v,
                     size_t *vn, size_t *next)
{
    if (!starts_with(b + i, n - i, LIT("\n<")) || (i + 2 < n && b[i + 2] == '/'))
        return false;
    size_t ks = i + 2;
    const char *gt = memchr(b + ks, '>', n - ks);
    if (!gt || gt == b + ks || memchr(b + ks, '\n', (size_t)(gt - (b + ks))) ||
        memchr(b + ks, '<', (size_t)(gt - (b + ks))))
        return false;
    *k = b + ks;
    *kn = (size_t)(gt - *k);
    size_t vs = (size_t)(gt - b) + 1, at = vs;
    const char *hit;
    while ((hit = tw_memmem(b + at, n - at, LIT("</"))) != NULL) {
        size_t a = (size_t)(hit - b);
        if (n - a >= *kn + 4 && b[a + 2 + *kn] == '>' && b[a + 3 + *kn] == '\n' &&
            memcmp(b + a + 2, *k, *kn) == 0) {
            *v = b + vs;
            *vn = a - vs;
            *next = a + *kn + 3;
            return true;
        }
        at = a + 1;
    }
    return false;
}

static bool key_is(const char *k, size_t kn, const char *lit)
{
    return strlen(lit) == kn && memcmp(k, lit, kn) == 0;
}

/* Add value v under key k[0, kn) of obj (v is taken, freed on failure). */
static tw_status add_member(cJSON *obj, const char *k, size_t kn, cJSON *v)
{
    char *key = tw_strndup(k, kn);
    if (!key || !cJSON_AddItemToObject(obj, key, v)) {
        tw_free(key);
        cJSON_Delete(v);
        return TW_ERR_NOMEM;
    }
    tw_free(key);
    return TW_OK;
}

/* "\n<parameter>\n<name>N</name>" and its elements up to "\n</parameter>",
 * at b[*i, n), into props. */
static tw_status coder_param(hp *h, const char *b, size_t n, size_t *i, size_t at, cJSON *props,
                             const char *tp, size_t *lost_types)
{
    const char *k, *v;
    size_t kn, vn, next, j = *i + sizeof "\n<parameter>" - 1;
    if (!xml_elem(b, n, j, &k, &kn, &v, &vn, &next) || !key_is(k, kn, "name"))
        return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)(at + j), tp,
                          "expected <name> at byte %zu", at + j);
    cJSON *prop = cJSON_CreateObject();
    if (!prop)
        return TW_ERR_NOMEM;
    TRY(add_member(props, v, vn, prop));
    j = next;
    while (!starts_with(b + j, n - j, LIT("\n</parameter>"))) {
        if (!xml_elem(b, n, j, &k, &kn, &v, &vn, &next))
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)(at + j), tp,
                              "expected an element or </parameter> at byte %zu", at + j);
        size_t va = at + (size_t)(v - b);
        cJSON *val;
        if (key_is(k, kn, "type")) {
            bool lost = false;
            TRY(read_py_type(v, vn, &val, &lost));
            *lost_types += lost;
        } else if (key_is(k, kn, "description")) {
            char *s = tw_strndup(v, vn);
            val = s ? cJSON_CreateString(s) : NULL;
            tw_free(s);
            if (!val)
                return TW_ERR_NOMEM;
        } else {
            TRY(read_py_value(h, v, vn, va, tp, &val));
        }
        TRY(add_member(prop, k, kn, val));
        j = next;
    }
    *i = j + sizeof "\n</parameter>" - 1;
    return TW_OK;
}

/* One "\n<function>" … "\n</function>" at b[*i, n) into t. */
static tw_status coder_tool(hp *h, const char *b, size_t n, size_t *i, size_t at, tw_tool *t,
                            const char *tp, size_t *lost_types)
{
    const char *k, *v;
    size_t kn, vn, next, j = *i;
    if (!starts_with(b + j, n - j, LIT("\n<function>")))
        return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)(at + j), tp,
                          "expected <function> at byte %zu", at + j);
    j += sizeof "\n<function>" - 1;
    if (!xml_elem(b, n, j, &k, &kn, &v, &vn, &next) || !key_is(k, kn, "name") || !vn)
        return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)(at + j), tp,
                          "expected a non-empty <name> at byte %zu", at + j);
    if (!(t->name = tw_strndup(v, vn)))
        return TW_ERR_NOMEM;
    j = next;
    if (starts_with(b + j, n - j, LIT("\n<description>")) &&
        xml_elem(b, n, j, &k, &kn, &v, &vn, &next)) {
        if (!(t->description = tw_strndup(v, vn)))
            return TW_ERR_NOMEM;
        j = next;
    }
    if (!starts_with(b + j, n - j, LIT("\n<parameters>")))
        return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)(at + j), tp,
                          "expected <parameters> at byte %zu", at + j);
    j += sizeof "\n<parameters>" - 1;
    /* the template prints neither the schema's "type" nor "properties" as
     * such: an object schema is what it prints */
    cJSON *props;
    if (!(t->parameters = cJSON_CreateObject()) ||
        !cJSON_AddStringToObject(t->parameters, "type", "object") ||
        !(props = cJSON_AddObjectToObject(t->parameters, "properties")))
        return TW_ERR_NOMEM;
    static const char END[] = "\n</parameters>\n</function>";
    while (!starts_with(b + j, n - j, END, sizeof END - 1)) {
        if (starts_with(b + j, n - j, LIT("\n<parameter>\n"))) {
            TRY(coder_param(h, b, n, &j, at, props, tp, lost_types));
            continue;
        }
        if (!xml_elem(b, n, j, &k, &kn, &v, &vn, &next))
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)(at + j), tp,
                              "expected <parameter>, an element or </parameters> at byte %zu",
                              at + j);
        cJSON *val;
        TRY(read_py_value(h, v, vn, at + (size_t)(v - b), tp, &val));
        TRY(add_member(t->parameters, k, kn, val));
        j = next;
    }
    *i = j + sizeof END - 1;
    return TW_OK;
}

/* The tools between TW_QWEN_CODER_TOOLS_HEAD and TW_QWEN_CODER_TOOLS_TAIL. */
static tw_status coder_tools(hp *h, const char *b, size_t n, size_t at, const char *path)
{
    tw_request *r = h->d.req;
    r->tools_present = true;
    size_t i = 0, cap = 0, lost_types = 0;
    /* names, descriptions and schema values become C strings: a NUL would cut one short */
    const char *nul = memchr(b, '\0', n);
    if (nul)
        return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)(at + (size_t)(nul - b)), path,
                          "a NUL byte at byte %zu in the <tools> section (a tool's name, "
                          "description or schema value cannot hold one)",
                          at + (size_t)(nul - b));
    while (i < n) {
        char tp[64];
        snprintf(tp, sizeof tp, "%s.tools[%zu]", path, r->ntools);
        if (r->ntools >= h->d.l.max_tools)
            return tw_rq_fail(&h->d, TW_ERR_LIMIT, (int64_t)(at + i), tp,
                              "more than max_tools (%zu) tools", h->d.l.max_tools);
        if (r->ntools == cap) {
            size_t ncap = cap ? cap * 2 : 4;
            if (ncap > h->d.l.max_tools)
                ncap = h->d.l.max_tools;
            tw_tool *nv = tw_realloc(r->tools, ncap * sizeof *nv);
            if (!nv)
                return TW_ERR_NOMEM;
            r->tools = nv;
            cap = ncap;
        }
        tw_tool *t = &r->tools[r->ntools++];
        memset(t, 0, sizeof *t);
        TRY(coder_tool(h, b, n, &i, at, t, tp, &lost_types));
    }
    TRY(tw_rq_warn(&h->d, TW_D_NOT_CARRIED,
                   "%s: %s: the <tools> section does not carry a schema's own \"type\" (read as "
                   "\"object\"), the white space around descriptions, nor whether a value printed "
                   "as True, None or a number was a string (read as the JSON value)",
                   h->fmt, path));
    if (lost_types)
        TRY(tw_rq_warn(&h->d, TW_D_NOT_CARRIED,
                       "%s: %s: %zu parameter type(s) printed as a Python repr that is not a "
                       "list of plain names were read back as text",
                       h->fmt, path, lost_types));
    return TW_OK;
}

/* The first system turn of a Qwen3-Coder prompt: SYSTEM HEAD tools TAIL
 * (SYSTEM the default line when there was no system message), or a plain
 * system message. */
static tw_status coder_system(hp *h, const char *b, size_t n, size_t at, const char *path)
{
    const size_t kh = sizeof TW_QWEN_CODER_TOOLS_HEAD - 1, kt = sizeof TW_QWEN_CODER_TOOLS_TAIL - 1;
    const char *head = NULL;
    if (ends_with(b, n, TW_QWEN_CODER_TOOLS_TAIL, kt))
        head = rfind(b, n - kt, TW_QWEN_CODER_TOOLS_HEAD, kh);
    if (!head)
        return plain_system(h, b, n, at, path);
    size_t hq = (size_t)(head - b);
    if (!(hq == sizeof TW_QWEN_CODER_DEFAULT_SYSTEM - 1 &&
          memcmp(b, TW_QWEN_CODER_DEFAULT_SYSTEM, hq) == 0)) {
        tw_message *m;
        TRY(tw_rq_push(&h->d, path, &m));
        m->role = TW_ROLE_SYSTEM;
        TRY(set_content(m, b, hq));
    }
    return coder_tools(h, b + hq + kh, n - kt - hq - kh, at + hq + kh, path);
}

/* The first system turn of a Qwen3.5 prompt: HEAD tools TAIL ["\n\n"
 * SYSTEM], or a plain system message. */
static tw_status q35_system(hp *h, const char *b, size_t n, size_t at, const char *path)
{
    const size_t kh = sizeof TW_QWEN35_TOOLS_HEAD - 1, kt = sizeof TW_QWEN35_TOOLS_TAIL - 1;
    const char *tail = starts_with(b, n, TW_QWEN35_TOOLS_HEAD, kh)
                           ? tw_memmem(b + kh, n - kh, TW_QWEN35_TOOLS_TAIL, kt)
                           : NULL;
    tw_message *m;
    if (!tail)
        return plain_system(h, b, n, at, path);
    size_t tq = (size_t)(tail - b), rest = tq + kt;
    if (rest < n && !(starts_with(b + rest, n - rest, LIT("\n\n")) && n - rest > 2))
        return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)(at + rest), path,
                          "expected \"\\n\\n\" and the system message or <|im_end|> at byte %zu",
                          at + rest);
    if (rest < n) {
        TRY(tw_rq_push(&h->d, path, &m));
        m->role = TW_ROLE_SYSTEM;
        TRY(set_content(m, b + rest + 2, n - rest - 2));
    }
    return read_tools(h, b + kh, tq - kh, at + kh, path);
}

/* A <tool_call> block at prompt byte `at` that the qwen3-coder decoder read
 * into res but not as one call and nothing else: kept as content, with the
 * decoder's first error, else (one call and no text beside it: the block is
 * not closed as the template closes one) its first warning about the
 * block's form, else tool_call_json; at the block's byte in the prompt. */
static tw_status kept_block(hp *h, const tw_result *res, size_t at, const char *path)
{
    bool extra = res->msg.content.len || res->msg.thinking.len;
    const tw_diag *why = res->errors.len ? &res->errors.items[0] : NULL;
    for (size_t i = 0; !why && res->msg.ncalls == 1 && !extra && i < res->warnings.len; i++) {
        tw_status c = res->warnings.items[i].code;
        if (c != TW_D_XML_UNTYPED && c != TW_D_XML_VALUE_TYPE && c != TW_D_ARGS_SCHEMA &&
            c != TW_D_NUMBER_INEXACT) /* about values, not the block */
            why = &res->warnings.items[i];
    }
    const char *reason = why && why->message    ? why->message
                         : res->msg.ncalls != 1 ? "no call"
                         : extra                ? "text after the call's </tool_call>"
                                                : "not in the form the template writes";
    int64_t off = (int64_t)at + (why && why->offset > 0 ? why->offset : 0);
    return tw_rq_warn_at(&h->d, why ? why->code : TW_D_TOOL_CALL_JSON, off,
                         "%s: %s: a <tool_call> block that the qwen3-coder decoder does not read "
                         "as one call (%s) is kept as content",
                         h->fmt, path, reason);
}

/*
 * Take the XML <tool_call> blocks ending m's content off it as calls with
 * generated ids: TEXT "\n\n" BLOCK ("\n" BLOCK)*, or the blocks alone. Each
 * block is read by the qwen3-coder decoder with the prompt's tools (so its
 * values are typed from their schema, its warnings kept); a block it does
 * not read as one call stays in the content, and so does everything before
 * it (warning with the decoder's code, at the block's byte). A <tool_call>
 * left in the content without such a warning (the last block not closed as
 * the template closes one, or text after it) gets the warning the decoder
 * gives for it there. A call naming no tool of a <tools> section is kept,
 * with unknown_tool.
 */
static tw_status xml_take_calls(hp *h, tw_message *m, size_t base, const char *path)
{
    static const char OPEN[] = "<tool_call>\n<function=", CLOSE[] = "</function>\n</tool_call>";
    const size_t ko = sizeof OPEN - 1, kc = sizeof CLOSE - 1;
    tw_rq *d = &h->d;
    const char *s = m->content.data;
    size_t end = m->content.len;
    if (!s)
        return TW_OK;
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits = d->l;
    o.tools = d->req->tools;
    o.ntools = d->req->ntools;
    o.allow_unknown_tool = true;
    o.schema_warn = true;
    tw_call *found = NULL; /* last block first */
    size_t nfound = 0, cap = 0;
    tw_status st = TW_OK;
    bool warned = false; /* a block kept as content said so */
    while (st == TW_OK && ends_with(s, end, CLOSE, kc)) {
        const char *open = rfind(s, end - kc, OPEN, ko);
        if (!open)
            break;
        size_t q = (size_t)(open - s), plen = end - q;
        if (q > 0 && s[q - 1] != '\n') {
            st = tw_rq_warn_at(d, TW_D_TOOL_CALL_JSON, (int64_t)(base + q),
                               "%s: %s: a <tool_call> block not on a line of its own is kept as "
                               "content",
                               h->fmt, path);
            warned = true;
            break;
        }
        if (plen > d->l.max_args_bytes) {
            st = tw_rq_refuse(d, TW_ERR_LIMIT, TW_D_ARGS_TOO_LARGE, (int64_t)(base + q), path,
                              "a <tool_call> block of %zu bytes, more than max_args_bytes (%zu)",
                              plen, d->l.max_args_bytes);
            break;
        }
        if (nfound >= d->l.max_calls || m->ncalls + nfound >= d->l.max_calls) {
            st = tw_rq_fail(d, TW_ERR_LIMIT, (int64_t)(base + q), path,
                            "more than max_calls (%zu) tool calls", d->l.max_calls);
            break;
        }
        tw_result res;
        memset(&res, 0, sizeof res);
        st = tw_qwen3_coder_output_decode(s + q, plen, &o, &res);
        if (st != TW_OK) {
            tw_result_free(&res);
            if (st != TW_ERR_NOMEM)
                st = tw_rq_fail(d, st, (int64_t)(base + q), path,
                                "the qwen3-coder decoder refused a <tool_call> block of %zu "
                                "bytes (%s)",
                                plen, tw_code_message(st));
            break;
        }
        /* the block must read as one call and nothing else: text the decoder
         * leaves beside the call (a value holding "</tool_call>" closes the
         * block early) would be lost */
        bool extra = res.msg.content.len || res.msg.thinking.len;
        if (res.msg.ncalls != 1 || res.errors.len || extra) {
            st = kept_block(h, &res, base + q, path);
            warned = true;
            tw_result_free(&res);
            break;
        }
        for (size_t i = 0; st == TW_OK && i < res.warnings.len; i++)
            st = tw_rq_warn(d, res.warnings.items[i].code, "%s: %s: %s", h->fmt, path,
                            res.warnings.items[i].message ? res.warnings.items[i].message : "");
        /* the decoder's warnings past max_diags are counted as the reader's own */
        if (d->warnings)
            d->warnings->dropped += res.warnings.dropped;
        if (st == TW_OK) {
            char where[160];
            snprintf(where, sizeof where, "%s: %s", h->fmt, path);
            st = tw_rq_warn_undeclared(d, res.msg.calls[0].name, (int64_t)(base + q), where);
        }
        if (st == TW_OK && nfound == cap) {
            size_t ncap = cap ? cap * 2 : 4;
            tw_call *nv = tw_realloc(found, ncap * sizeof *nv);
            if (nv) {
                found = nv;
                cap = ncap;
            } else {
                st = TW_ERR_NOMEM;
            }
        }
        if (st == TW_OK) {
            tw_call c = res.msg.calls[0];
            res.msg.ncalls = 0; /* the call is ours */
            tw_free(c.id);
            tw_free(c.raw_args);
            c.id = c.raw_args = NULL;
            c.raw_args_len = 0;
            c.offset = -1;
            found[nfound++] = c;
        }
        tw_result_free(&res);
        end = q > 0 ? q - 1 : 0;
    }
    /* a <tool_call> still in the text, kept without a word: the decoder's */
    const char *left = st == TW_OK && !warned ? rfind(s, end, LIT("<tool_call>")) : NULL;
    if (left) {
        size_t q = (size_t)(left - s), plen = end - q;
        if (plen > d->l.max_args_bytes) {
            st = tw_rq_warn_at(d, TW_D_TOOL_CALL_JSON, (int64_t)(base + q),
                               "%s: %s: a <tool_call> block of %zu bytes not closed as the "
                               "template closes one is kept as content",
                               h->fmt, path, plen);
        } else {
            tw_result res;
            memset(&res, 0, sizeof res);
            st = tw_qwen3_coder_output_decode(s + q, plen, &o, &res);
            if (st == TW_OK)
                st = kept_block(h, &res, base + q, path);
            else if (st != TW_ERR_NOMEM)
                st = tw_rq_fail(d, st, (int64_t)(base + q), path,
                                "the qwen3-coder decoder refused a <tool_call> block of %zu "
                                "bytes (%s)",
                                plen, tw_code_message(st));
            tw_result_free(&res);
        }
    }
    if (st != TW_OK) {
        for (size_t i = 0; i < nfound; i++)
            tw_call_free(&found[i]);
        tw_free(found);
        return st;
    }
    if (nfound && end && s[end - 1] == '\n') /* the "\n\n" after the text */
        end--;
    return tw_rq_add_found_calls(d, m, found, nfound, end);
}

/* A Qwen3-Coder user turn: tool responses ("<tool_response>\nX\n</tool_response>\n"
 * each: the Hermes shape and a line break) or a user message. */
static tw_status coder_user_turn(hp *h, const char *b, size_t n, const char *path)
{
    if (starts_with(b, n, LIT("<tool_response>\n")) && ends_with(b, n, LIT("\n</tool_response>\n")))
        return user_turn(h, b, n - 1, path);
    tw_message *m;
    TRY(tw_rq_push(&h->d, path, &m));
    m->role = TW_ROLE_USER;
    return set_content(m, b, n);
}

/* A Qwen3-Coder assistant turn: TEXT, or TEXT and XML calls. */
static tw_status coder_assistant_turn(hp *h, const char *b, size_t n, const char *path)
{
    tw_message *m;
    TRY(tw_rq_push(&h->d, path, &m));
    m->role = TW_ROLE_ASSISTANT;
    TRY(set_content(m, b, n));
    return xml_take_calls(h, m, (size_t)(b - h->buf), path);
}

/* A Qwen3.5 assistant turn: ["<think>\n" R "\n</think>\n\n"] TEXT [XML calls]. */
static tw_status q35_assistant_turn(hp *h, const char *b, size_t n, const char *path)
{
    static const char OPEN[] = "<think>\n", CLOSE[] = "\n</think>\n\n";
    const size_t ko = sizeof OPEN - 1, kc = sizeof CLOSE - 1;
    tw_message *m;
    TRY(tw_rq_push(&h->d, path, &m));
    m->role = TW_ROLE_ASSISTANT;
    const char *close = NULL;
    if (starts_with(b, n, OPEN, ko)) {
        const char *c = tw_memmem(b + ko - 1, n - (ko - 1), LIT("</think>"));
        /* the close's "\n" is its own, not the opener's: "<think>\n</think>" is no block */
        if (c && c - 1 >= b + ko && starts_with(c - 1, n - (size_t)(c - 1 - b), CLOSE, kc))
            close = c - 1;
    }
    const char *c = b; /* where the content starts */
    if (close) {
        size_t tn = (size_t)(close - (b + ko));
        if (tn)
            TRY(tw_buf_append(&m->thinking, b + ko, tn));
        c = close + kc;
    }
    TRY(set_content(m, c, n - (size_t)(c - b)));
    if (m->content.len && tw_memmem(m->content.data, m->content.len, LIT("</think>")))
        TRY(tw_rq_warn(&h->d, TW_D_NOT_CARRIED,
                       "%s: %s: the content holds </think>, so the message had a reasoning the "
                       "prompt does not carry; encoding this request again splits the content "
                       "at </think>",
                       h->fmt, path));
    return xml_take_calls(h, m, (size_t)(c - h->buf), path);
}

/* The open generation prompt after "<|im_start|>assistant\n": the rest of
 * the prompt is b[0, n). */
static tw_status generation_prompt(hp *h, const char *b, size_t n, size_t at, const char *path)
{
    tw_request *r = h->d.req;
    bool empty_think = n == sizeof EMPTY_THINK - 1 && memcmp(b, EMPTY_THINK, n) == 0;
    bool ok;
    switch (h->kind) {
    case HP_CODER: ok = n == 0; break;
    case HP_Q35: ok = empty_think || (n == 8 && memcmp(b, "<think>\n", 8) == 0); break;
    default: ok = n == 0 || empty_think; break;
    }
    if (!ok)
        return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)at, path,
                          "the turn is not closed by <|im_end|>");
    TRY(put_bool_option(r, "add_generation_prompt", true));
    if (empty_think)
        TRY(put_bool_option(r, "enable_thinking", false));
    return TW_OK;
}

static tw_status prompt_body(hp *h)
{
    const char *b = h->buf;
    size_t n = h->len, pos = 0, turn = 0;
    const size_t ks = sizeof IM_START - 1, ke = sizeof IM_END - 1;
    bool sys0 = false; /* the first turn is a system turn */
    if (n == 0)
        return tw_rq_fail(&h->d, TW_ERR_INVALID, 0, "", "the prompt has no turns");
    while (pos < n) {
        char path[40];
        snprintf(path, sizeof path, "turns[%zu]", turn);
        /* the Qwen3-Coder template writes no header before a tool result that
         * is the first message after the system turn; Qwen3.5 none before a
         * tool result that is the first message of all (after the tools
         * alone, or nothing), and starts it with the line break a header
         * would end with */
        bool q35_headless = h->kind == HP_Q35 && h->d.req->nmessages == 0 &&
                            starts_with(b + pos, n - pos, LIT("\n<tool_response>\n"));
        bool headless =
            q35_headless || (h->kind == HP_CODER && (turn == 0 || (turn == 1 && sys0)) &&
                             starts_with(b + pos, n - pos, LIT("<tool_response>\n")));
        bool is_sys = false, is_user = headless, is_asst = false;
        size_t bs = pos + q35_headless;
        h->d.msg_at = (int64_t)pos; /* a message over max_messages is refused here */
        if (!headless) {
            if (!starts_with(b + pos, n - pos, IM_START, ks))
                return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)pos, path,
                                  "expected <|im_start|> at byte %zu", pos);
            size_t rs = pos + ks, re = rs;
            while (re < n && re - rs < 16 && b[re] != '\n')
                re++;
            if (re >= n || b[re] != '\n')
                return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)rs, path,
                                  "the role must be followed by a newline");
            size_t rl = re - rs;
            bs = re + 1;
            is_sys = rl == 6 && memcmp(b + rs, "system", 6) == 0;
            is_user = rl == 4 && memcmp(b + rs, "user", 4) == 0;
            is_asst = rl == 9 && memcmp(b + rs, "assistant", 9) == 0;
            if (!is_sys && !is_user && !is_asst) {
                char *q = tw_rq_quoted(b + rs, rl);
                if (!q)
                    return TW_ERR_NOMEM;
                tw_status st = tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)rs, path,
                                          "unknown role %s (system, user or assistant)", q);
                tw_free(q);
                return st;
            }
        }
        sys0 |= is_sys && turn == 0;
        const char *end = tw_memmem(b + bs, n - bs, IM_END, ke - 1);
        if (!end) {
            /* only the generation prompt may stay open */
            if (!is_asst)
                return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)pos, path,
                                  "the turn is not closed by <|im_end|>");
            TRY(generation_prompt(h, b + bs, n - bs, pos, path));
            break;
        }
        size_t be = (size_t)(end - b);
        if (be + ke > n || b[be + ke - 1] != '\n')
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)(be + ke - 1), path,
                              "<|im_end|> must be followed by a newline");
        const char *body = b + bs;
        size_t bn = be - bs;
        if (is_sys && turn == 0) {
            TRY(h->kind == HP_CODER ? coder_system(h, body, bn, bs, path)
                : h->kind == HP_Q35 ? q35_system(h, body, bn, bs, path)
                                    : first_system(h, body, bn, bs, path));
        } else if (is_sys) {
            tw_message *m;
            TRY(tw_rq_push(&h->d, path, &m));
            m->role = TW_ROLE_SYSTEM;
            TRY(set_content(m, body, bn));
        } else if (is_user) {
            TRY(h->kind == HP_CODER ? coder_user_turn(h, body, bn, path)
                                    : user_turn(h, body, bn, path));
        } else {
            TRY(h->kind == HP_CODER ? coder_assistant_turn(h, body, bn, path)
                : h->kind == HP_Q35 ? q35_assistant_turn(h, body, bn, path)
                                    : assistant_turn(h, body, bn, path));
        }
        pos = be + ke;
        turn++;
    }
    return tw_rq_link_results(&h->d, h->fmt);
}

static tw_status prompt_decode(hp_kind kind, const char *fmt, const char *buf, size_t len,
                               const tw_decode_opts *o, tw_request *out, tw_error *err)
{
    hp h;
    tw_rq_begin(&h.d, o, out, err);
    h.buf = buf;
    h.len = len;
    h.kind = kind;
    h.fmt = fmt;
    if (len > h.d.l.max_input_bytes)
        return tw_rq_fail(&h.d, TW_ERR_LIMIT, -1, "",
                          "the prompt is %zu bytes, more than max_input_bytes (%zu)", len,
                          h.d.l.max_input_bytes);
    tw_status st = prompt_body(&h);
    if (st == TW_ERR_NOMEM && err && !err->message[0])
        tw_rq_fail(&h.d, st, -1, "", "out of memory");
    else if (st != TW_OK && err && !err->message[0]) /* every failure path sets one */
        tw_rq_fail(&h.d, st, -1, "",
                   "%s: internal error: the reader failed with %s and gave no reason", fmt,
                   tw_code_name(st));
    if (st != TW_OK) {
        tw_request_free(out);
        out->parallel_tool_calls = -1;
    }
    return st;
}

tw_status tw_hermes_prompt_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                  tw_request *out, tw_error *err)
{
    return prompt_decode(HP_HERMES, "hermes-prompt", buf, len, o, out, err);
}

tw_status tw_qwen3_coder_prompt_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                       tw_request *out, tw_error *err)
{
    return prompt_decode(HP_CODER, "qwen3-coder-prompt", buf, len, o, out, err);
}

tw_status tw_qwen35_prompt_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                  tw_request *out, tw_error *err)
{
    return prompt_decode(HP_Q35, "qwen3.5-prompt", buf, len, o, out, err);
}
