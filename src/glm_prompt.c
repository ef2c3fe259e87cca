/*
 * GLM prompts: the encoders and readers of the GLM-4.6 and GLM-4.7 chat
 * templates (glm-4.6-prompt, glm-4.7-prompt), byte for byte what
 * transformers' Jinja renders. Rules: docs/formats/glm.md, "The prompt".
 *
 *   [gMASK]<sop>[<|system|>\n# Tools … <tools>\nTOOL-JSON\n…</tools>\n\nFor each …</tool_call>]
 *   <|system|>\nSYSTEM   <|user|>\nUSER[/nothink]
 *   <|assistant|>\n<think>R</think>[\nCONTENT]
 *     [\n<tool_call>NAME\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>\n…</tool_call>]…
 *   <|observation|>\n<tool_response>\nRESULT\n</tool_response>…
 *   [<|assistant|>[\n<think></think>]]
 *
 * GLM-4.7 writes no line breaks after the role tokens or between the call's
 * elements, `</think>` alone for a turn without reasoning, and ends the
 * generation prompt with <think> (or </think> with thinking off).
 */
#include "alloc.h"
#include "toolwire/glm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enc_common.h"
#include "formats.h"
#include "py_text.h"
#include "request_read.h"
#include "tw_macros.h"
#include "typed_args.h"
#include "toolwire/json.h"

#define LIT(s) (s), (sizeof(s) - 1)

#define PREFIX "[gMASK]<sop>"
#define SYSTEM "<|system|>"
#define USER "<|user|>"
#define ASSISTANT "<|assistant|>"
#define OBSERVATION "<|observation|>"
#define TOOLS_HEAD                                                                                 \
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are "     \
    "provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
#define TOOLS_TAIL_46                                                                              \
    "</tools>\n\nFor each function call, output the function name and arguments within the "       \
    "following XML format:\n<tool_call>{function-name}\n<arg_key>{arg-key-1}</arg_key>\n"          \
    "<arg_value>{arg-value-1}</arg_value>\n<arg_key>{arg-key-2}</arg_key>\n<arg_value>{arg-"       \
    "value-2}</arg_value>\n...\n</tool_call>"
#define TOOLS_TAIL_47                                                                              \
    "</tools>\n\nFor each function call, output the function name and arguments within the "       \
    "following XML format:\n<tool_call>{function-name}<arg_key>{arg-key-1}</arg_key><arg_value>"   \
    "{arg-value-1}</arg_value><arg_key>{arg-key-2}</arg_key><arg_value>{arg-value-2}</"            \
    "arg_value>...</tool_call>"
#define NOTHINK "/nothink"

typedef struct gp_kind {
    const char *fmt;
    bool v47;
    const char *nl; /* after a role token: "\n" (4.6) or "" (4.7) */
    const char *tools_tail;
} gp_kind;

static const gp_kind K46 = {"glm-4.6-prompt", false, "\n", TOOLS_TAIL_46};
static const gp_kind K47 = {"glm-4.7-prompt", true, "", TOOLS_TAIL_47};

/* ===================== Python's str.strip() ===================== */

/* The code point at p[0, n) and its length; a byte that does not begin a
 * valid sequence is itself, length 1. */
static unsigned long cp_at(const unsigned char *p, size_t n, size_t *len)
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
    return p[0] | 0x100000ul; /* not a space */
}

/* str.isspace() of one code point. */
static bool py_space(unsigned long c)
{
    return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
           c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
           c == 0x202F || c == 0x205F || c == 0x3000;
}

static span py_strip(span s)
{
    const unsigned char *p = (const unsigned char *)s.p;
    size_t a = 0, e = 0, len;
    bool lead = true;
    for (size_t i = 0; i < s.n; i += len) {
        bool sp = py_space(cp_at(p + i, s.n - i, &len));
        if (lead && sp) {
            a = i + len;
            continue;
        }
        lead = false;
        if (!sp)
            e = i + len;
    }
    if (e < a)
        e = a;
    span out = {s.p + a, e - a};
    return out;
}

/* ===================== the encoders ===================== */

static bool opt_off(const tw_request *r, const char *key)
{
    const cJSON *v = tw_json_get(r->options, key);
    return v && !truthy(v); /* defined and not truthy */
}

/* The index of the last user message, or -1. */
static long last_user(const tw_request *r)
{
    long last = -1;
    for (size_t i = 0; i < r->nmessages; i++)
        if (r->messages[i].role == TW_ROLE_USER)
            last = (long)i;
    return last;
}

/* Is the reasoning of message i written? */
static bool keeps_reasoning(const tw_request *r, size_t i, const gp_kind *k)
{
    if ((long)i > last_user(r))
        return true;
    return k->v47 && opt_off(r, "clear_thinking");
}

static tw_status losses(const tw_request *r, const tw_encode_opts *o, const gp_kind *k)
{
    if (!o->warnings)
        return TW_OK;
    const char *fmt = k->fmt;
    if (r->model)
        TRY(tw_not_carried(o, "%s: model not carried", fmt));
    if (r->parallel_tool_calls >= 0)
        TRY(tw_not_carried(o, "%s: parallel_tool_calls not carried", fmt));
    if (r->choice == TW_CHOICE_NONE || r->choice == TW_CHOICE_REQUIRED ||
        r->choice == TW_CHOICE_NAMED)
        TRY(tw_not_carried(o, "%s: tool_choice not carried (the template has no place for it)",
                           fmt));
    for (const cJSON *c = r->options ? r->options->child : NULL; c; c = c->next) {
        const char *key = c->string ? c->string : "";
        if (strcmp(key, "add_generation_prompt") != 0 && strcmp(key, "enable_thinking") != 0 &&
            !(k->v47 && strcmp(key, "clear_thinking") == 0))
            TRY(tw_not_carried(o, "%s: options.%.64s not carried", fmt, key));
    }
    bool thinking = false, ids = false, names = false, err = false, sig = false, redacted = false;
    size_t ncall = 0;
    for (size_t i = 0; i < r->nmessages; i++) {
        const tw_message *m = &r->messages[i];
        thinking |= m->role == TW_ROLE_ASSISTANT && m->thinking.len && !keeps_reasoning(r, i, k);
        for (size_t j = 0; j < m->ncalls; j++) {
            char gen[32];
            snprintf(gen, sizeof gen, "call_%zu", ++ncall);
            ids |= m->calls[j].id && strcmp(m->calls[j].id, gen) != 0;
        }
        names |= m->role == TW_ROLE_TOOL && m->name;
        err |= m->role == TW_ROLE_TOOL && m->is_error;
        sig |= m->thinking_signature != NULL;
        redacted |= m->has_redacted_thinking || m->redacted_thinking != NULL;
    }
    if (thinking)
        TRY(tw_not_carried(o,
                           "%s: thinking of assistant messages before the last user message not "
                           "carried (the template drops it)",
                           fmt));
    if (ids)
        TRY(tw_not_carried(o,
                           "%s: call ids not carried (the template writes none: results answer "
                           "the calls in order)",
                           fmt));
    if (names)
        TRY(tw_not_carried(o, "%s: name of a tool result not carried", fmt));
    if (err)
        TRY(tw_not_carried(o, "%s: is_error of a tool result not carried", fmt));
    if (sig)
        TRY(tw_not_carried(o, "%s: thinking signature not carried", fmt));
    if (redacted)
        TRY(tw_not_carried(o, "%s: redacted thinking not carried", fmt));
    return TW_OK;
}

/* The arguments of one call: a string value as it is, any other as tojson
 * writes it (4.6 puts each element on its own line). */
static tw_status put_args(tw_buf *b, const tw_call *c, const tw_encode_opts *o, size_t max_depth,
                          const gp_kind *k)
{
    const char *name = c->name ? c->name : "";
    if (c->arguments && !cJSON_IsObject(c->arguments)) {
        /* the template's own refusal (4.6 raises it; 4.7 fails on .items()) */
        tw_buf t = {0};
        if (cJSON_IsString(c->arguments))
            (void)tw_buf_puts(&t, c->arguments->valuestring ? c->arguments->valuestring : "");
        else
            (void)tw_json_write_py(&t, c->arguments, max_depth);
        tw_not_carried(o, "%s: refused: Invalid tool call arguments passed: %.200s", k->fmt,
                       t.data ? t.data : "");
        tw_buf_free(&t);
        return TW_ERR_INVALID;
    }
    char where[160];
    snprintf(where, sizeof where, "%s: call %.64s arguments", k->fmt, name);
    for (const cJSON *v = c->arguments ? c->arguments->child : NULL; v; v = v->next) {
        TRY(PUTS(b, "<arg_key>"));
        TRY(tw_buf_puts(b, v->string ? v->string : ""));
        TRY(PUTS(b, "</arg_key>"));
        TRY(tw_buf_puts(b, k->nl));
        TRY(PUTS(b, "<arg_value>"));
        if (cJSON_IsString(v))
            TRY(tw_buf_puts(b, v->valuestring ? v->valuestring : ""));
        else
            TRY(tw_json_write_py_warn(b, v, max_depth, o->warnings, where));
        TRY(PUTS(b, "</arg_value>"));
        TRY(tw_buf_puts(b, k->nl));
    }
    return TW_OK;
}

static tw_status put_assistant(tw_buf *b, const tw_request *r, size_t i, const tw_encode_opts *o,
                               size_t max_depth, const gp_kind *k)
{
    const tw_message *m = &r->messages[i];
    span content = buf_span(&m->content);
    span reasoning = buf_span(&m->thinking);
    bool split = false;
    if (!reasoning.n) {
        /* no reasoning of its own: the template splits a </think> in the content */
        const char *close = tw_memmem(content.p, content.n, LIT("</think>"));
        if (close) {
            span head = {content.p, (size_t)(close - content.p)};
            head = rstrip_nl(head);
            const char *open = span_rfind(head, "<think>");
            if (open) {
                head.n -= (size_t)(open + 7 - head.p);
                head.p = open + 7;
            }
            reasoning = lstrip_nl(head);
            const char *last = span_rfind(content, "</think>");
            span tail = {last + 8, (size_t)(content.p + content.n - (last + 8))};
            content = lstrip_nl(tail);
            split = true;
        }
    }
    (void)split;
    TRY(PUTS(b, ASSISTANT));
    span rs = py_strip(reasoning);
    if (keeps_reasoning(r, i, k) && reasoning.n) {
        TRY(tw_buf_puts(b, k->v47 ? "<think>" : "\n<think>"));
        TRY(put_span(b, rs));
        TRY(PUTS(b, "</think>"));
    } else {
        TRY(tw_buf_puts(b, k->v47 ? "</think>" : "\n<think></think>"));
    }
    span cs = py_strip(content);
    if (cs.n) {
        TRY(tw_buf_puts(b, k->nl));
        TRY(put_span(b, cs));
    }
    for (size_t j = 0; j < m->ncalls; j++) {
        const tw_call *c = &m->calls[j];
        TRY(tw_buf_puts(b, k->v47 ? "<tool_call>" : "\n<tool_call>"));
        TRY(tw_buf_puts(b, c->name ? c->name : ""));
        TRY(tw_buf_puts(b, k->nl));
        TRY(put_args(b, c, o, max_depth, k));
        TRY(PUTS(b, "</tool_call>"));
    }
    return TW_OK;
}

static tw_status render(tw_buf *b, const tw_request *r, const tw_encode_opts *o, size_t max_depth,
                        const gp_kind *k)
{
    TRY(losses(r, o, k));
    TRY(PUTS(b, PREFIX));
    if (r->ntools) {
        TRY(PUTS(b, SYSTEM "\n" TOOLS_HEAD));
        for (size_t i = 0; i < r->ntools; i++) {
            TRY(tw_py_tool_json_write(b, &r->tools[i], max_depth, o->warnings, k->fmt));
            TRY(tw_buf_putc(b, '\n'));
        }
        TRY(tw_buf_puts(b, k->tools_tail));
    }
    bool nothink = !k->v47 && opt_off(r, "enable_thinking");
    for (size_t i = 0; i < r->nmessages; i++) {
        const tw_message *m = &r->messages[i];
        span c = buf_span(&m->content);
        switch (m->role) {
        case TW_ROLE_USER:
            TRY(PUTS(b, USER));
            TRY(tw_buf_puts(b, k->nl));
            TRY(put_span(b, c));
            if (nothink && !span_ends(c, NOTHINK))
                TRY(PUTS(b, NOTHINK));
            break;
        case TW_ROLE_ASSISTANT: TRY(put_assistant(b, r, i, o, max_depth, k)); break;
        case TW_ROLE_SYSTEM:
            TRY(PUTS(b, SYSTEM));
            TRY(tw_buf_puts(b, k->nl));
            TRY(put_span(b, c));
            break;
        default:
            if (i == 0 || r->messages[i - 1].role != TW_ROLE_TOOL)
                TRY(PUTS(b, OBSERVATION));
            TRY(tw_buf_puts(b, k->v47 ? "<tool_response>" : "\n<tool_response>\n"));
            TRY(put_span(b, c));
            TRY(tw_buf_puts(b, k->v47 ? "</tool_response>" : "\n</tool_response>"));
            break;
        }
    }
    if (truthy(tw_json_get(r->options, "add_generation_prompt"))) {
        TRY(PUTS(b, ASSISTANT));
        if (k->v47)
            TRY(opt_off(r, "enable_thinking") ? PUTS(b, "</think>") : PUTS(b, "<think>"));
        else if (opt_off(r, "enable_thinking"))
            TRY(PUTS(b, "\n<think></think>"));
    }
    return TW_OK;
}

static tw_status render46(tw_buf *b, const tw_request *r, const tw_encode_opts *o, size_t max_depth)
{
    return render(b, r, o, max_depth, &K46);
}

static tw_status render47(tw_buf *b, const tw_request *r, const tw_encode_opts *o, size_t max_depth)
{
    return render(b, r, o, max_depth, &K47);
}

tw_status tw_glm46_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!r || !out)
        return TW_ERR_INVALID;
    return tw_encode_capped(r, o ? o : &tw_enc_default_opts, out, render46);
}

tw_status tw_glm47_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!r || !out)
        return TW_ERR_INVALID;
    return tw_encode_capped(r, o ? o : &tw_enc_default_opts, out, render47);
}

const tw_encoder_ops tw_encoder_glm46_prompt = {
    "glm-4.6-prompt",
    "neutral request -> the GLM-4.6 prompt (<arg_key>/<arg_value> history calls, byte-exact "
    "template)",
    TW_ENC_REQUEST, tw_glm46_prompt_encode, tw_unsupported_encode_result};
const tw_encoder_ops tw_encoder_glm47_prompt = {
    "glm-4.7-prompt",
    "neutral request -> the GLM-4.7 prompt (no line breaks, <think> generation prompt, "
    "byte-exact template)",
    TW_ENC_REQUEST, tw_glm47_prompt_encode, tw_unsupported_encode_result};

/* ===================== the readers ===================== */

typedef struct gp {
    tw_rq d;
    const char *b;
    size_t n;
    const gp_kind *k;
} gp;

static const char *find(const char *p, size_t n, const char *lit, size_t k)
{
    return tw_memmem(p, n, lit, k);
}

static tw_status set_opt(gp *h, const char *key, bool v)
{
    tw_request *r = h->d.req;
    if (!r->options && !(r->options = cJSON_CreateObject()))
        return TW_ERR_NOMEM;
    cJSON_DeleteItemFromObject(r->options, key);
    return cJSON_AddBoolToObject(r->options, key, v) ? TW_OK : TW_ERR_NOMEM;
}

/* Where the turn starting at pos ends: the next role token, or n. */
static size_t turn_end(const char *b, size_t pos, size_t n)
{
    static const char *const toks[] = {SYSTEM, USER, ASSISTANT, OBSERVATION};
    for (size_t p = pos; p + 1 < n; p++) {
        const char *q = memchr(b + p, '<', n - p);
        if (!q)
            return n;
        p = (size_t)(q - b);
        if (p + 1 < n && b[p + 1] == '|')
            for (size_t i = 0; i < 4; i++)
                if (starts_with(b + p, n - p, toks[i], strlen(toks[i])))
                    return p;
    }
    return n;
}

/* The tools, one JSON object a line, in [at, at + n). */
static tw_status read_tools(gp *h, size_t at, size_t n)
{
    cJSON *arr = cJSON_CreateArray();
    if (!arr)
        return TW_ERR_NOMEM;
    size_t p = at, end = at + n;
    tw_status st = TW_OK;
    while (p < end && st == TW_OK) {
        const char *nl = memchr(h->b + p, '\n', end - p);
        size_t le = nl ? (size_t)(nl - h->b) : end;
        cJSON *j = NULL;
        st = tw_rq_prompt_json(&h->d, h->b + p, le - p, p, "tools", "a tool line", &j);
        if (st == TW_OK && !cJSON_AddItemToArray(arr, j)) {
            cJSON_Delete(j);
            st = TW_ERR_NOMEM;
        }
        p = le + 1;
    }
    size_t cnt = 0;
    if (st == TW_OK)
        st = tw_rq_tools_begin(&h->d, arr, &cnt);
    for (size_t i = 0; i < cnt && st == TW_OK; i++) {
        char path[40];
        snprintf(path, sizeof path, "tools[%zu]", i);
        st = tw_rq_read_tool(&h->d, cJSON_GetArrayItem(arr, (int)i), path);
    }
    cJSON_Delete(arr);
    return st;
}

static const tw_tool *tool_named(const tw_request *r, const char *name)
{
    for (size_t i = 0; i < r->ntools; i++)
        if (r->tools[i].name && strcmp(r->tools[i].name, name) == 0)
            return &r->tools[i];
    return NULL;
}

/* One call block [at, at + n) after its <tool_call>, up to its </tool_call>. */
static tw_status read_call(gp *h, tw_message *m, size_t at, size_t n, const char *path)
{
    const char *b = h->b;
    const char *nl = h->k->nl;
    size_t nll = strlen(nl), end = at + n;
    size_t ke = (size_t)(find(b + at, n, LIT("<arg_key>")) ? find(b + at, n, LIT("<arg_key>")) - b
                                                           : (const char *)b + end - b);
    size_t ne = ke - nll; /* the name ends before the line break */
    if (ke < at + nll || memcmp(b + ne, nl, nll) != 0)
        return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)at, path,
                          "a call's name is not followed by %s", nll ? "a line break" : "its end");
    if (m->ncalls >= h->d.l.max_calls)
        return tw_rq_fail(&h->d, TW_ERR_LIMIT, (int64_t)at, path, "more than max_calls (%zu) calls",
                          h->d.l.max_calls);
    if (m->ncalls == m->cap_calls) {
        size_t cap = m->cap_calls ? 2 * m->cap_calls : 4;
        tw_call *nc = tw_realloc(m->calls, cap * sizeof *nc);
        if (!nc)
            return TW_ERR_NOMEM;
        m->calls = nc;
        m->cap_calls = cap;
    }
    tw_call *c = &m->calls[m->ncalls++];
    memset(c, 0, sizeof *c);
    c->offset = (int64_t)at;
    char gen[32];
    snprintf(gen, sizeof gen, "call_%zu", ++h->d.next_id);
    TRY(tw_rq_no_nul(&h->d, b + at, ne - at, at, path, "a call's name"));
    c->name = tw_strndup(b + at, ne - at);
    c->id = tw_strdup(gen);
    c->arguments = cJSON_CreateObject();
    if (!c->name || !c->id || !c->arguments)
        return TW_ERR_NOMEM;
    const tw_tool *tool = tool_named(h->d.req, c->name);
    size_t p = ke;
    while (p < end) {
        if (!starts_with(b + p, end - p, LIT("<arg_key>")))
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)p, path, "expected <arg_key>");
        size_t ks = p + 9;
        const char *kc = find(b + ks, end - ks, LIT("</arg_key>"));
        if (!kc)
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)p, path, "<arg_key> not closed");
        size_t kend = (size_t)(kc - b), vs = kend + 10 + nll + 11;
        if (vs > end || memcmp(b + kend + 10, nl, nll) != 0 ||
            !starts_with(b + kend + 10 + nll, end - kend - 10 - nll, LIT("<arg_value>")))
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)kend, path, "expected <arg_value>");
        /* the value ends at the </arg_value> the next element or the end follows */
        size_t q = vs, ve = end;
        for (;;) {
            const char *vc = find(b + q, end - q, LIT("</arg_value>"));
            if (!vc)
                return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)vs, path,
                                  "<arg_value> not closed");
            size_t after = (size_t)(vc - b) + 12;
            if (after + nll <= end && memcmp(b + after, nl, nll) == 0 &&
                (after + nll == end ||
                 starts_with(b + after + nll, end - after - nll, LIT("<arg_key>")))) {
                ve = (size_t)(vc - b);
                p = after + nll;
                break;
            }
            q = (size_t)(vc - b) + 1;
        }
        if (ve - vs > h->d.l.max_args_bytes)
            return tw_rq_fail(&h->d, TW_ERR_LIMIT, (int64_t)vs, path,
                              "arguments over max_args_bytes (%zu)", h->d.l.max_args_bytes);
        TRY(tw_rq_no_nul(&h->d, b + ks, kend - ks, ks, path, "an argument's key"));
        char *key = tw_strndup(b + ks, kend - ks);
        if (!key)
            return TW_ERR_NOMEM;
        cJSON *v = NULL;
        tw_status st =
            tw_rq_markup_value(&h->d, tw_targs_types(tw_targs_prop(tool, key, strlen(key))), b + vs,
                               ve - vs, vs, path, &v);
        if (st == TW_OK && !cJSON_AddItemToObject(c->arguments, key, v)) {
            cJSON_Delete(v);
            st = TW_ERR_NOMEM;
        }
        tw_free(key);
        TRY(st);
    }
    return TW_OK;
}

static tw_status set_text(tw_buf *t, const char *p, size_t n)
{
    return n ? tw_buf_append(t, p, n) : TW_OK;
}

static tw_status assistant_turn(gp *h, tw_message *m, size_t at, size_t n, const char *path)
{
    const char *b = h->b;
    const gp_kind *k = h->k;
    size_t end = at + n, p = at;
    const char *open = k->v47 ? "<think>" : "\n<think>";
    size_t ol = strlen(open);
    if (starts_with(b + p, end - p, open, ol)) {
        const char *close = find(b + p + ol, end - p - ol, LIT("</think>"));
        if (!close)
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)p, path, "<think> not closed");
        TRY(set_text(&m->thinking, b + p + ol, (size_t)(close - b) - (p + ol)));
        p = (size_t)(close - b) + 8;
    } else if (k->v47 && starts_with(b + p, end - p, LIT("</think>"))) {
        p += 8;
    } else {
        return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)p, path,
                          "an assistant turn starts with %s", k->v47 ? "</think>" : "\\n<think>");
    }
    const char *call = k->v47 ? "<tool_call>" : "\n<tool_call>";
    size_t cl = strlen(call);
    const char *first = find(b + p, end - p, call, cl);
    size_t ce = first ? (size_t)(first - b) : end;
    size_t nll = strlen(k->nl);
    if (ce > p) {
        if (nll && b[p] != '\n')
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)p, path,
                              "the content is not on a line of its own");
        TRY(set_text(&m->content, b + p + nll, ce - p - nll));
    }
    p = ce;
    while (p < end) {
        if (!starts_with(b + p, end - p, call, cl))
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)p, path, "expected <tool_call>");
        size_t s = p + cl;
        const char *e = find(b + s, end - s, LIT("</tool_call>"));
        if (!e)
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)p, path, "<tool_call> not closed");
        TRY(read_call(h, m, s, (size_t)(e - b) - s, path));
        p = (size_t)(e - b) + 12;
    }
    return TW_OK;
}

/* The results of an <|observation|> turn [at, at + n). */
static tw_status observation(gp *h, size_t at, size_t n, size_t *turn)
{
    const char *b = h->b;
    const char *open = h->k->v47 ? "<tool_response>" : "\n<tool_response>\n";
    const char *close = h->k->v47 ? "</tool_response>" : "\n</tool_response>";
    size_t ol = strlen(open), cl = strlen(close), p = at, end = at + n;
    if (p == end)
        return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)at, "", "an empty observation");
    while (p < end) {
        char path[40];
        snprintf(path, sizeof path, "turns[%zu]", *turn);
        if (!starts_with(b + p, end - p, open, ol))
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)p, path, "expected <tool_response>");
        size_t s = p + ol;
        const char *e = find(b + s, end - s, close, cl);
        if (!e)
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)p, path,
                              "<tool_response> not closed");
        h->d.msg_at = (int64_t)p;
        tw_message *m;
        TRY(tw_rq_push(&h->d, path, &m));
        m->role = TW_ROLE_TOOL;
        TRY(set_text(&m->content, b + s, (size_t)(e - b) - s));
        p = (size_t)(e - b) + cl;
        (*turn)++;
    }
    return TW_OK;
}

static tw_status prompt_body(gp *h)
{
    const char *b = h->b;
    const gp_kind *k = h->k;
    size_t n = h->n, turn = 0;
    size_t nll = strlen(k->nl);
    tw_request *r = h->d.req;
    if (!starts_with(b, n, LIT(PREFIX)))
        return tw_rq_fail(&h->d, TW_ERR_INVALID, 0, "", "the prompt does not start with " PREFIX);
    size_t pos = sizeof PREFIX - 1;
    if (starts_with(b + pos, n - pos, LIT(SYSTEM "\n" TOOLS_HEAD))) {
        size_t s = pos + sizeof(SYSTEM "\n" TOOLS_HEAD) - 1;
        const char *tail = find(b + s, n - s, k->tools_tail, strlen(k->tools_tail));
        if (!tail)
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)s, "tools",
                              "the tools are not followed by the template's instructions");
        TRY(read_tools(h, s, (size_t)(tail - b) - s));
        r->tools_present = true;
        pos = (size_t)(tail - b) + strlen(k->tools_tail);
    }
    bool nothink = false; /* every user turn ends in /nothink (4.6) */
    size_t users = 0;
    while (pos < n) {
        char path[40];
        snprintf(path, sizeof path, "turns[%zu]", turn);
        h->d.msg_at = (int64_t)pos;
        tw_role role;
        size_t hs;
        if (starts_with(b + pos, n - pos, LIT(USER))) {
            role = TW_ROLE_USER;
            hs = sizeof USER - 1 + nll;
        } else if (starts_with(b + pos, n - pos, LIT(ASSISTANT))) {
            role = TW_ROLE_ASSISTANT;
            hs = sizeof ASSISTANT - 1;
        } else if (starts_with(b + pos, n - pos, LIT(SYSTEM))) {
            role = TW_ROLE_SYSTEM;
            hs = sizeof SYSTEM - 1 + nll;
        } else if (starts_with(b + pos, n - pos, LIT(OBSERVATION))) {
            role = TW_ROLE_TOOL;
            hs = sizeof OBSERVATION - 1;
        } else {
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)pos, path,
                              "expected a turn (" USER ", " ASSISTANT ", " SYSTEM " or " OBSERVATION
                              ") at byte %zu",
                              pos);
        }
        if (pos + hs > n ||
            (nll && role != TW_ROLE_ASSISTANT && role != TW_ROLE_TOOL && b[pos + hs - 1] != '\n'))
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)pos, path,
                              "a role token is not followed by a line break");
        size_t bs = pos + hs, e = turn_end(b, bs, n);
        /* the generation prompt: the last turn, as the template ends it */
        if (role == TW_ROLE_ASSISTANT && e == n) {
            const char *rest = b + bs;
            size_t rn = n - bs;
            bool gen = false, off = false;
            if (k->v47) {
                gen = (rn == 7 && memcmp(rest, "<think>", 7) == 0) ||
                      (rn == 8 && memcmp(rest, "</think>", 8) == 0);
                off = rn == 8;
            } else {
                gen = rn == 0 || (rn == 15 && memcmp(rest, "\n<think></think>", 15) == 0);
                off = rn == 15;
            }
            if (gen) {
                TRY(set_opt(h, "add_generation_prompt", true));
                if (off)
                    TRY(set_opt(h, "enable_thinking", false));
                break;
            }
        }
        if (role == TW_ROLE_TOOL) {
            TRY(observation(h, bs, e - bs, &turn));
            pos = e;
            continue;
        }
        tw_message *m;
        TRY(tw_rq_push(&h->d, path, &m));
        m->role = role;
        if (role == TW_ROLE_ASSISTANT) {
            TRY(assistant_turn(h, m, bs, e - bs, path));
        } else {
            TRY(set_text(&m->content, b + bs, e - bs));
            if (role == TW_ROLE_USER) {
                users++;
                nothink = (users == 1 || nothink) && span_ends(buf_span(&m->content), NOTHINK);
            }
        }
        pos = e;
        turn++;
    }
    if (r->nmessages == 0)
        return tw_rq_fail(&h->d, TW_ERR_INVALID, 0, "", "the prompt has no turns");
    (void)nothink; /* the user turns keep their /nothink: written once again */
    /* reasoning shown before the last user turn: 4.7's clear_thinking off */
    long lu = last_user(r);
    for (long i = 0; k->v47 && i < lu; i++)
        if (r->messages[i].role == TW_ROLE_ASSISTANT && r->messages[i].thinking.len) {
            TRY(set_opt(h, "clear_thinking", false));
            break;
        }
    return tw_rq_link_results(&h->d, k->fmt);
}

static tw_status prompt_read(const gp_kind *k, const char *buf, size_t len, const tw_decode_opts *o,
                             tw_request *out, tw_error *err)
{
    gp h;
    tw_rq_begin(&h.d, o, out, err);
    h.b = buf;
    h.n = len;
    h.k = k;
    tw_status st;
    if (len > h.d.l.max_input_bytes)
        st = tw_rq_fail(&h.d, TW_ERR_LIMIT, -1, "",
                        "the prompt is %zu bytes, more than max_input_bytes (%zu)", len,
                        h.d.l.max_input_bytes);
    else
        st = prompt_body(&h);
    if (st != TW_OK && err && !err->message[0])
        tw_rq_fail(&h.d, st, -1, "", "%s: %s", k->fmt, tw_code_message(st));
    if (st != TW_OK) {
        tw_request_free(out);
        out->parallel_tool_calls = -1;
    }
    return st;
}

tw_status tw_glm46_prompt_read(const char *buf, size_t len, const tw_decode_opts *o,
                               tw_request *out, tw_error *err)
{
    return prompt_read(&K46, buf, len, o, out, err);
}

tw_status tw_glm47_prompt_read(const char *buf, size_t len, const tw_decode_opts *o,
                               tw_request *out, tw_error *err)
{
    return prompt_read(&K47, buf, len, o, out, err);
}

const tw_request_reader_ops tw_reader_glm46_prompt = {
    "glm-4.6-prompt", "the GLM-4.6 prompt (as the chat template renders it)", tw_glm46_prompt_read};
const tw_request_reader_ops tw_reader_glm47_prompt = {
    "glm-4.7-prompt", "the GLM-4.7 prompt (as the chat template renders it)", tw_glm47_prompt_read};
