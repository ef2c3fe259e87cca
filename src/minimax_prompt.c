/*
 * MiniMax-M2 prompts: the encoder and reader of the MiniMax-M2 chat
 * template (minimax-m2-prompt), byte for byte what transformers' Jinja
 * renders. Rules: docs/formats/minimax-m2.md, "The prompt".
 *
 *   ]~!b[]~b]system\nSYSTEM[\n\n# Tools\n…<tools>\n<tool>{fn}</tool>\n…</tools>\n\n…]
 *   [e~[\n
 *   ]~b]user\nCONTENT[e~[\n
 *   ]~b]ai\n[<think>\nR\n</think>\n\n]CONTENT[\n<minimax:tool_call>\n
 *     <invoke name="N">\n<parameter name="K">V</parameter>\n…</invoke>\n…
 *     </minimax:tool_call>][e~[\n
 *   ]~b]tool\n<response>R</response>\n<response>…</response>[e~[\n
 *   []~b]ai\n<think>\n]
 */
#include "alloc.h"
#include "toolwire/minimax.h"

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
#define FMT "minimax-m2-prompt"

#define HEAD "]~!b[]~b]system\n"
#define DEFAULT_IDENTITY "You are a helpful assistant."
#define TOOLS_HEAD                                                                                 \
    "\n\n# Tools\nYou may call one or more tools to assist with the user query.\nHere are the "    \
    "tools available in JSONSchema format:\n\n<tools>\n"
#define TOOLS_TAIL                                                                                 \
    "</tools>\n\nWhen making tool calls, use XML format to invoke tools and pass "                 \
    "parameters:\n\n<minimax:tool_call>\n<invoke name=\"tool-name-1\">\n<parameter "               \
    "name=\"param-key-1\">param-value-1</parameter>\n<parameter "                                  \
    "name=\"param-key-2\">param-value-2</parameter>\n...\n</invoke>\n</minimax:tool_call>"
#define EOT "[e~["
#define EOT_NL "[e~[\n"
#define USER "]~b]user\n"
#define AI "]~b]ai\n"
#define TOOL "]~b]tool"
#define RESPONSE "\n<response>"
#define RESPONSE_END "</response>"
#define SECTION "\n<minimax:tool_call>\n"
#define SECTION_END "</minimax:tool_call>"
#define INVOKE "<invoke name=\""
#define INVOKE_END "</invoke>\n"
#define PARAM "<parameter name=\""
#define PARAM_END "</parameter>\n"
#define GEN_PROMPT AI "<think>\n"
#define NO_CALL_MSG                                                                                \
    "Message has tool role, but there was no previous assistant message with a tool call!"

/* ===================== the encoder ===================== */

/* The template's reasoning and content of an assistant message: its
 * reasoning when it has some, else what content.split('</think>') gives
 * (both strip('\n')). */
static void split_think(const tw_message *m, span *content, span *reasoning)
{
    *content = buf_span(&m->content);
    reasoning->p = "";
    reasoning->n = 0;
    if (m->thinking.len) {
        *reasoning = buf_span(&m->thinking);
        return;
    }
    const char *close = tw_memmem(content->p, content->n, LIT("</think>"));
    if (!close)
        return;
    span before = {content->p, (size_t)(close - content->p)};
    before = lstrip_nl(rstrip_nl(before));
    const char *open = span_rfind(before, "<think>");
    if (open) {
        before.n -= (size_t)(open + 7 - before.p);
        before.p = open + 7;
    }
    *reasoning = lstrip_nl(rstrip_nl(before));
    const char *last = span_rfind(*content, "</think>");
    span after = {last + 8, content->n - (size_t)(last + 8 - content->p)};
    *content = lstrip_nl(rstrip_nl(after));
}

static tw_status refuse(const tw_encode_opts *o, const char *why)
{
    tw_not_carried(o, FMT ": refused: %s", why);
    return TW_ERR_INVALID;
}

/* One tool as `tool.function | tojson`: {"name", "description", "parameters"}. */
static tw_status put_tool(tw_buf *b, const tw_tool *t, size_t max_depth, const tw_encode_opts *o)
{
    static const char wrap[] = "{\"type\": \"function\", \"function\": ";
    tw_buf t1 = {0};
    t1.max = b->max;
    tw_status st = tw_py_tool_json_write(&t1, t, max_depth, o->warnings, FMT);
    if (st == TW_OK && (t1.len < sizeof wrap || memcmp(t1.data, wrap, sizeof wrap - 1) != 0))
        st = TW_ERR_INVALID;
    if (st == TW_OK)
        st = tw_buf_append(b, t1.data + sizeof wrap - 1, t1.len - sizeof wrap);
    tw_buf_free(&t1);
    return st;
}

static tw_status put_calls(tw_buf *b, const tw_message *m, const tw_encode_opts *o,
                           size_t max_depth)
{
    TRY(PUTS(b, SECTION));
    for (size_t j = 0; j < m->ncalls; j++) {
        const tw_call *c = &m->calls[j];
        const char *name = c->name ? c->name : "";
        TRY(PUTS(b, INVOKE));
        TRY(tw_buf_puts(b, name));
        TRY(PUTS(b, "\">\n"));
        if (c->arguments && !cJSON_IsObject(c->arguments))
            return refuse(o, "call arguments are not an object");
        char where[160];
        snprintf(where, sizeof where, FMT ": call %.64s arguments", name);
        for (const cJSON *a = c->arguments ? c->arguments->child : NULL; a; a = a->next) {
            TRY(PUTS(b, PARAM));
            TRY(tw_buf_puts(b, a->string ? a->string : ""));
            TRY(PUTS(b, "\">"));
            if (cJSON_IsString(a)) {
                const char *s = a->valuestring ? a->valuestring : "";
                if (tw_memmem(s, strlen(s), LIT("</parameter>")))
                    TRY(tw_not_carried(o, FMT ": the value of '%.64s' holds </parameter>",
                                       a->string ? a->string : ""));
                TRY(tw_buf_puts(b, s));
            } else {
                TRY(tw_json_write_py_warn(b, a, max_depth, o->warnings, where));
            }
            TRY(PUTS(b, PARAM_END));
        }
        TRY(PUTS(b, INVOKE_END));
    }
    return PUTS(b, SECTION_END);
}

static tw_status render(tw_buf *b, const tw_request *r, const tw_encode_opts *o, size_t max_depth)
{
    size_t first = r->messages[0].role == TW_ROLE_SYSTEM ? 1 : 0;
    size_t last_user = 0;
    bool any_user = false;
    for (size_t i = first; i < r->nmessages; i++)
        if (r->messages[i].role == TW_ROLE_USER) {
            last_user = i;
            any_user = true;
        }
    static const char *const carried[] = {"add_generation_prompt", "model_identity"};
    TRY(tw_py_prompt_losses(r, o, FMT, any_user ? last_user : 0, true, carried, 2));
    for (size_t i = first; i < r->nmessages; i++)
        if (r->messages[i].role == TW_ROLE_SYSTEM)
            TRY(tw_not_carried(o,
                               FMT ": system message %zu not carried (the template writes only "
                                   "the first)",
                               i));
    TRY(PUTS(b, HEAD));
    const cJSON *ident = tw_json_get(r->options, "model_identity");
    if (first && r->messages[0].content.len)
        TRY(put_span(b, buf_span(&r->messages[0].content)));
    else if (cJSON_IsString(ident))
        TRY(tw_buf_puts(b, ident->valuestring));
    else
        TRY(PUTS(b, DEFAULT_IDENTITY));
    if (r->ntools) {
        TRY(PUTS(b, TOOLS_HEAD));
        for (size_t i = 0; i < r->ntools; i++) {
            TRY(PUTS(b, "<tool>"));
            TRY(put_tool(b, &r->tools[i], max_depth, o));
            TRY(PUTS(b, "</tool>\n"));
        }
        TRY(PUTS(b, TOOLS_TAIL));
    }
    TRY(PUTS(b, EOT_NL));
    bool have_call = false;
    for (size_t i = first; i < r->nmessages; i++) {
        const tw_message *m = &r->messages[i];
        if (m->role == TW_ROLE_ASSISTANT) {
            TRY(PUTS(b, AI));
            span content, reasoning;
            split_think(m, &content, &reasoning);
            if (reasoning.n && (!any_user || i > last_user)) {
                TRY(PUTS(b, "<think>\n"));
                TRY(put_span(b, reasoning));
                TRY(PUTS(b, "\n</think>\n\n"));
            }
            TRY(put_span(b, content));
            if (m->ncalls)
                TRY(put_calls(b, m, o, max_depth));
            have_call = m->ncalls > 0;
            TRY(PUTS(b, EOT_NL));
        } else if (m->role == TW_ROLE_TOOL) {
            if (!have_call)
                return refuse(o, NO_CALL_MSG);
            if (i == first || r->messages[i - 1].role != TW_ROLE_TOOL)
                TRY(PUTS(b, TOOL));
            TRY(PUTS(b, RESPONSE));
            TRY(put_span(b, buf_span(&m->content)));
            TRY(PUTS(b, RESPONSE_END));
            if (i + 1 == r->nmessages || r->messages[i + 1].role != TW_ROLE_TOOL)
                TRY(PUTS(b, EOT_NL));
        } else if (m->role == TW_ROLE_USER) {
            TRY(PUTS(b, USER));
            TRY(put_span(b, buf_span(&m->content)));
            TRY(PUTS(b, EOT_NL));
        }
    }
    if (truthy(tw_json_get(r->options, "add_generation_prompt")))
        TRY(PUTS(b, GEN_PROMPT));
    return TW_OK;
}

tw_status tw_minimax_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!r || !out || r->nmessages == 0)
        return TW_ERR_INVALID;
    return tw_encode_capped(r, o ? o : &tw_enc_default_opts, out, render);
}

const tw_encoder_ops tw_encoder_minimax_m2_prompt = {
    FMT,
    "neutral request -> the MiniMax-M2 prompt (<invoke>/<parameter> history calls, byte-exact "
    "template)",
    TW_ENC_REQUEST, tw_minimax_prompt_encode, tw_unsupported_encode_result};

/* ===================== the reader ===================== */

typedef struct mp {
    tw_rq d;
    const char *b;
    size_t n;
    size_t ncalls;     /* calls read so far: their ids call_<n> */
    size_t answered;   /* results read for the last assistant's calls */
    size_t last_calls; /* 1 + the index of the last assistant message with calls; 0 none */
} mp;

static const char *find(const char *p, size_t n, const char *lit, size_t k)
{
    return tw_memmem(p, n, lit, k);
}

static tw_status set_text(tw_buf *t, const char *p, size_t n)
{
    return n ? tw_buf_append(t, p, n) : TW_OK;
}

/* The tools block [at, at + n): <tool>{fn}</tool>\n for each tool. */
static tw_status read_tools(mp *h, size_t at, size_t n)
{
    const char *b = h->b;
    cJSON *arr = cJSON_CreateArray();
    if (!arr)
        return TW_ERR_NOMEM;
    tw_status st = TW_OK;
    size_t p = at, end = at + n;
    while (st == TW_OK && p < end) {
        const char *e = find(b + p, end - p, LIT("</tool>\n"));
        if (!starts_with(b + p, end - p, LIT("<tool>")) || !e) {
            st = tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)p, "tools",
                            "expected <tool>…</tool> at byte %zu", p);
            break;
        }
        cJSON *j = NULL;
        st = tw_rq_prompt_json(&h->d, b + p + 6, (size_t)(e - b) - p - 6, p + 6, "tools", "a tool",
                               &j);
        if (st == TW_OK && !cJSON_AddItemToArray(arr, j)) {
            cJSON_Delete(j);
            st = TW_ERR_NOMEM;
        }
        p = (size_t)(e - b) + 8;
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

/* The types the schema of c's tool gives its parameter k (0: none known). */
static unsigned arg_types(const mp *h, const tw_call *c, const char *k)
{
    for (size_t i = 0; i < h->d.req->ntools; i++)
        if (h->d.req->tools[i].name && strcmp(h->d.req->tools[i].name, c->name) == 0)
            return tw_targs_types(tw_targs_prop(&h->d.req->tools[i], k, strlen(k)));
    return 0;
}

static tw_status push_call(mp *h, tw_message *m, const char *name, size_t nlen, int64_t at,
                           tw_call **out)
{
    if (m->ncalls >= h->d.l.max_calls)
        return tw_rq_fail(&h->d, TW_ERR_LIMIT, at, "calls", "more than max_calls (%zu) calls",
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
    c->offset = at;
    char id[32];
    snprintf(id, sizeof id, "call_%zu", ++h->ncalls);
    c->name = tw_strndup(name, nlen);
    c->id = tw_strndup(id, strlen(id));
    c->arguments = cJSON_CreateObject();
    *out = c;
    return c->name && c->id && c->arguments ? TW_OK : TW_ERR_NOMEM;
}

/* The invokes [at, end) of a call section. */
static tw_status read_calls(mp *h, tw_message *m, size_t at, size_t end, const char *path)
{
    const char *b = h->b;
    size_t p = at;
    while (p < end) {
        const char *q = b + p + sizeof INVOKE - 1;
        const char *nq = starts_with(b + p, end - p, LIT(INVOKE))
                             ? find(q, end - (size_t)(q - b), LIT("\">\n"))
                             : NULL;
        const char *ie = nq ? find(nq, end - (size_t)(nq - b), LIT("</invoke>\n")) : NULL;
        if (!ie)
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)p, path,
                              "expected <invoke name=\"NAME\">…</invoke> at byte %zu", p);
        tw_call *c = NULL;
        TRY(tw_rq_no_nul(&h->d, q, (size_t)(nq - q), (size_t)(q - b), path, "a call's name"));
        TRY(push_call(h, m, q, (size_t)(nq - q), (int64_t)p, &c));
        size_t r = (size_t)(nq - b) + 3, re = (size_t)(ie - b);
        while (r < re) {
            const char *ks = b + r + sizeof PARAM - 1;
            const char *kq = starts_with(b + r, re - r, LIT(PARAM))
                                 ? find(ks, re - (size_t)(ks - b), LIT("\">"))
                                 : NULL;
            const char *ve = kq ? find(kq, re - (size_t)(kq - b), LIT("</parameter>\n")) : NULL;
            if (!ve)
                return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)r, path,
                                  "expected <parameter name=\"KEY\">…</parameter> at byte %zu", r);
            size_t kat = (size_t)(ks - b), vat = (size_t)(kq - b) + 2;
            TRY(tw_rq_no_nul(&h->d, ks, (size_t)(kq - ks), kat, path, "a parameter's name"));
            char *k = tw_strndup(ks, (size_t)(kq - ks));
            cJSON *v = NULL;
            tw_status st = k ? tw_rq_markup_value(&h->d, arg_types(h, c, k), b + vat,
                                                  (size_t)(ve - b) - vat, vat, path, &v)
                             : TW_ERR_NOMEM;
            if (st == TW_OK && !cJSON_AddItemToObject(c->arguments, k, v)) {
                cJSON_Delete(v);
                st = TW_ERR_NOMEM;
            }
            tw_free(k);
            TRY(st);
            r = (size_t)(ve - b) + sizeof PARAM_END - 1;
        }
        p = re + sizeof INVOKE_END - 1;
    }
    return TW_OK;
}

static tw_status assistant_turn(mp *h, tw_message *m, size_t at, size_t n, const char *path)
{
    const char *b = h->b;
    if (starts_with(b + at, n, LIT("<think>\n"))) {
        const char *close = find(b + at, n, LIT("\n</think>\n\n"));
        if (close) {
            TRY(set_text(&m->thinking, b + at + 8, (size_t)(close - b) - at - 8));
            size_t after = (size_t)(close - b) + 11;
            n -= after - at;
            at = after;
        }
    }
    const char *sec = find(b + at, n, LIT(SECTION));
    size_t cn = sec ? (size_t)(sec - (b + at)) : n;
    TRY(set_text(&m->content, b + at, cn));
    h->last_calls = 0;
    if (!sec)
        return TW_OK;
    size_t ss = at + cn + sizeof SECTION - 1;
    if (!ends_with(b + ss, at + n - ss, LIT(SECTION_END)))
        return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)ss, path,
                          "the call section is not ended by " SECTION_END);
    TRY(read_calls(h, m, ss, at + n - (sizeof SECTION_END - 1), path));
    h->answered = 0;
    h->last_calls = (size_t)(m - h->d.req->messages) + 1;
    return TW_OK;
}

static tw_status result(mp *h, tw_message *m, const char *p, size_t n)
{
    const tw_message *a = h->last_calls ? &h->d.req->messages[h->last_calls - 1] : NULL;
    if (a && h->answered < a->ncalls) {
        const tw_call *c = &a->calls[h->answered++];
        if (!(m->tool_call_id = tw_strndup(c->id, strlen(c->id))))
            return TW_ERR_NOMEM;
    }
    return set_text(&m->content, p, n);
}

static tw_status prompt_body(mp *h)
{
    const char *b = h->b;
    size_t n = h->n;
    tw_request *r = h->d.req;
    if (!starts_with(b, n, LIT(HEAD)))
        return tw_rq_fail(&h->d, TW_ERR_INVALID, 0, "", "the prompt does not start with " HEAD);
    size_t s = sizeof HEAD - 1;
    const char *se = find(b + s, n - s, LIT(EOT_NL));
    if (!se)
        return tw_rq_fail(&h->d, TW_ERR_INVALID, 0, "system", "the system turn is not closed");
    size_t send = (size_t)(se - b);
    const char *th = find(b + s, send - s, LIT(TOOLS_HEAD));
    size_t sysn = th ? (size_t)(th - b) - s : send - s;
    if (th) {
        size_t ts = (size_t)(th - b) + sizeof TOOLS_HEAD - 1;
        if (!ends_with(b + ts, send - ts, LIT(TOOLS_TAIL)))
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)ts, "tools",
                              "the tools block does not end as the template's");
        TRY(read_tools(h, ts, send - ts - (sizeof TOOLS_TAIL - 1)));
    }
    tw_message *m;
    if (!(sysn == sizeof DEFAULT_IDENTITY - 1 && memcmp(b + s, LIT(DEFAULT_IDENTITY)) == 0)) {
        TRY(tw_rq_push(&h->d, "system", &m));
        m->role = TW_ROLE_SYSTEM;
        TRY(set_text(&m->content, b + s, sysn));
    }
    size_t pos = send + sizeof EOT_NL - 1, turn = 0;
    while (pos < n) {
        char path[40];
        snprintf(path, sizeof path, "turns[%zu]", turn++);
        h->d.msg_at = (int64_t)pos;
        if (n - pos == sizeof GEN_PROMPT - 1 && starts_with(b + pos, n - pos, LIT(GEN_PROMPT))) {
            if (!r->options && !(r->options = cJSON_CreateObject()))
                return TW_ERR_NOMEM;
            if (!cJSON_AddBoolToObject(r->options, "add_generation_prompt", true))
                return TW_ERR_NOMEM;
            break;
        }
        const char *e = find(b + pos, n - pos, LIT(EOT_NL));
        if (!e)
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)pos, path,
                              "the turn is not closed by " EOT);
        size_t end = (size_t)(e - b);
        if (starts_with(b + pos, n - pos, LIT(USER))) {
            TRY(tw_rq_push(&h->d, path, &m));
            m->role = TW_ROLE_USER;
            TRY(set_text(&m->content, b + pos + sizeof USER - 1, end - pos - (sizeof USER - 1)));
        } else if (starts_with(b + pos, n - pos, LIT(AI))) {
            TRY(tw_rq_push(&h->d, path, &m));
            m->role = TW_ROLE_ASSISTANT;
            size_t bs = pos + sizeof AI - 1;
            TRY(assistant_turn(h, m, bs, end - bs, path));
        } else if (starts_with(b + pos, n - pos, LIT(TOOL))) {
            size_t p = pos + sizeof TOOL - 1;
            while (p < end) {
                const char *re = find(b + p, end - p, LIT(RESPONSE_END));
                if (!starts_with(b + p, end - p, LIT(RESPONSE)) || !re)
                    return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)p, path,
                                      "expected <response>…</response> at byte %zu", p);
                TRY(tw_rq_push(&h->d, path, &m));
                m->role = TW_ROLE_TOOL;
                size_t cs = p + sizeof RESPONSE - 1;
                TRY(result(h, m, b + cs, (size_t)(re - b) - cs));
                p = (size_t)(re - b) + sizeof RESPONSE_END - 1;
            }
        } else {
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)pos, path,
                              "expected a turn (]~b]user, ]~b]ai or ]~b]tool) at byte %zu", pos);
        }
        pos = end + sizeof EOT_NL - 1;
    }
    if (r->nmessages == 0)
        return tw_rq_fail(&h->d, TW_ERR_INVALID, 0, "", "the prompt has no turns");
    return TW_OK;
}

tw_status tw_minimax_prompt_read(const char *buf, size_t len, const tw_decode_opts *o,
                                 tw_request *out, tw_error *err)
{
    mp h;
    memset(&h, 0, sizeof h);
    tw_rq_begin(&h.d, o, out, err);
    h.b = buf;
    h.n = len;
    tw_status st;
    if (len > h.d.l.max_input_bytes)
        st = tw_rq_fail(&h.d, TW_ERR_LIMIT, -1, "",
                        "the prompt is %zu bytes, more than max_input_bytes (%zu)", len,
                        h.d.l.max_input_bytes);
    else
        st = prompt_body(&h);
    if (st != TW_OK && err && !err->message[0])
        tw_rq_fail(&h.d, st, -1, "", FMT ": %s", tw_code_message(st));
    if (st != TW_OK) {
        tw_request_free(out);
        out->parallel_tool_calls = -1;
    }
    return st;
}

const tw_request_reader_ops tw_reader_minimax_m2_prompt = {
    FMT, "the MiniMax-M2 prompt (as the chat template renders it)", tw_minimax_prompt_read};
