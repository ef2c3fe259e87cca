/*
 * Kimi K2 prompts: the encoders and readers of the Kimi K2 Instruct and
 * K2 Thinking chat templates (kimi-k2-prompt, kimi-k2-thinking-prompt),
 * byte for byte what transformers' Jinja renders. Rules:
 * docs/formats/kimi-k2.md, "The prompt".
 *
 *   [<|im_system|>tool_declare<|im_middle|>TOOLS-JSON<|im_end|>]
 *   [<|im_system|>system<|im_middle|>You are Kimi, …<|im_end|>[\n]]   (no system message)
 *   <|im_user|>user<|im_middle|>…<|im_end|>
 *   <|im_assistant|>assistant<|im_middle|>[<think>R</think>]CONTENT
 *     [<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:N
 *      <|tool_call_argument_begin|>ARGS<|tool_call_end|>…<|tool_calls_section_end|>]<|im_end|>
 *   <|im_system|>tool<|im_middle|>## Return of functions.NAME:N\nCONTENT<|im_end|>
 *   [<|im_assistant|>assistant<|im_middle|>]
 */
#include "alloc.h"
#include "toolwire/kimi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enc_common.h"
#include "formats.h"
#include "py_text.h"
#include "request_read.h"
#include "tw_macros.h"
#include "toolwire/json.h"

#define LIT(s) (s), (sizeof(s) - 1)

#define DEFAULT_SYSTEM                                                                             \
    "<|im_system|>system<|im_middle|>You are Kimi, an AI assistant created by Moonshot "           \
    "AI.<|im_end|>"
#define TOOL_DECLARE "<|im_system|>tool_declare<|im_middle|>"
#define IM_USER "<|im_user|>"
#define IM_ASSISTANT "<|im_assistant|>"
#define IM_SYSTEM "<|im_system|>"
#define IM_MIDDLE "<|im_middle|>"
#define IM_END "<|im_end|>"
#define SECTION "<|tool_calls_section_begin|>"
#define SECTION_END "<|tool_calls_section_end|>"
#define CALL "<|tool_call_begin|>"
#define ARGS "<|tool_call_argument_begin|>"
#define CALL_END "<|tool_call_end|>"
#define RETURN_OF "## Return of "
#define GEN_PROMPT IM_ASSISTANT "assistant" IM_MIDDLE

typedef struct kp_kind {
    const char *fmt;
    bool thinking; /* the K2 Thinking template: <think>…</think> on assistant turns */
} kp_kind;

static const kp_kind K_INSTRUCT = {"kimi-k2-prompt", false};
static const kp_kind K_THINKING = {"kimi-k2-thinking-prompt", true};

/* ===================== the encoders ===================== */

/* The index after the last assistant message without calls (0: none): the
 * Thinking template keeps reasoning only from there on. */
static size_t suffix_start(const tw_request *r)
{
    for (size_t i = r->nmessages; i-- > 0;)
        if (r->messages[i].role == TW_ROLE_ASSISTANT && r->messages[i].ncalls == 0)
            return i + 1;
    return 0;
}

/* What the template has no place for. */
static tw_status losses(const tw_request *r, const tw_encode_opts *o, const kp_kind *k)
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
    for (const cJSON *c = r->options ? r->options->child : NULL; c; c = c->next)
        if (strcmp(c->string ? c->string : "", "add_generation_prompt") != 0)
            TRY(tw_not_carried(o, "%s: options.%.64s not carried", fmt,
                               c->string ? c->string : ""));
    size_t keep = k->thinking ? suffix_start(r) : r->nmessages;
    bool thinking = false, names = false, err = false, sig = false, redacted = false;
    for (size_t i = 0; i < r->nmessages; i++) {
        const tw_message *m = &r->messages[i];
        thinking |= m->role == TW_ROLE_ASSISTANT && m->thinking.len && i < keep;
        names |= m->role == TW_ROLE_TOOL && m->name;
        err |= m->role == TW_ROLE_TOOL && m->is_error;
        sig |= m->thinking_signature != NULL;
        redacted |= m->has_redacted_thinking || m->redacted_thinking != NULL;
    }
    if (thinking)
        TRY(tw_not_carried(o,
                           k->thinking ? "%s: thinking of assistant messages up to the last one "
                                         "without calls not carried (the template drops it)"
                                       : "%s: thinking of assistant messages not carried",
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

/* JSON the prompt writes raw (json.dumps escapes no '<') may spell a token
 * that a string escaped (\u003c|im_end|>): the template would write a prompt
 * whose turn or call ends inside it. Refused: no reader could take it back. */
static tw_status unreadable(const tw_buf *b, size_t from, const tw_encode_opts *o, const char *fmt,
                            const char *what)
{
    const char *p = b->data + from;
    size_t n = b->len - from;
    if (!tw_memmem(p, n, LIT(IM_END)) && !tw_memmem(p, n, LIT(CALL_END)))
        return TW_OK;
    tw_not_carried(
        o, "%s: refused: %s hold " IM_END " or " CALL_END ", which would end the turn or the call",
        fmt, what);
    return TW_ERR_INVALID;
}

/* The template's id of call number `count`: functions.NAME:count. */
static tw_status put_id(tw_buf *b, const char *name, size_t count)
{
    return tw_buf_printf(b, "functions.%s:%zu", name, count);
}

/* The ids the template gives the calls, queued for the results. */
typedef struct idq {
    tw_buf ids;   /* NUL-separated */
    size_t head;  /* the next id to pop */
    size_t count; /* calls written so far */
} idq;

static tw_status put_calls(tw_buf *b, const tw_message *m, idq *q, const tw_encode_opts *o,
                           size_t max_depth, const char *fmt)
{
    TRY(PUTS(b, SECTION));
    for (size_t j = 0; j < m->ncalls; j++) {
        const tw_call *c = &m->calls[j];
        const char *name = c->name ? c->name : "";
        size_t at = b->len;
        TRY(PUTS(b, CALL));
        TRY(put_id(b, name, q->count));
        size_t idn = b->len - at - (sizeof CALL - 1);
        const char *id = b->data + at + sizeof CALL - 1;
        if (!c->id || strlen(c->id) != idn || memcmp(c->id, id, idn) != 0)
            TRY(tw_not_carried(o,
                               "%s: call id '%.64s' written as '%.*s' (the template numbers "
                               "the calls)",
                               fmt, c->id ? c->id : "", (int)(idn > 128 ? 128 : idn), id));
        TRY(tw_buf_append(&q->ids, id, idn));
        TRY(tw_buf_putc(&q->ids, '\0'));
        q->count++;
        TRY(PUTS(b, ARGS));
        char where[160];
        snprintf(where, sizeof where, "%s: call %.64s arguments", fmt, name);
        size_t as = b->len;
        if (c->arguments)
            TRY(tw_json_write_py_warn(b, c->arguments, max_depth, o->warnings, where));
        else
            TRY(PUTS(b, "{}"));
        TRY(unreadable(b, as, o, fmt, "call arguments"));
        TRY(PUTS(b, CALL_END));
    }
    return PUTS(b, SECTION_END);
}

static tw_status put_result(tw_buf *b, const tw_message *m, idq *q, const tw_encode_opts *o,
                            const char *fmt)
{
    TRY(PUTS(b, RETURN_OF));
    size_t at = b->len;
    if (q->head < q->ids.len) {
        const char *id = q->ids.data + q->head;
        size_t n = strlen(id);
        TRY(tw_buf_append(b, id, n));
        q->head += n + 1;
    } else {
        TRY(put_id(b, "unknown", q->count));
    }
    size_t n = b->len - at;
    const char *id = b->data + at;
    if (!m->tool_call_id || strlen(m->tool_call_id) != n || memcmp(m->tool_call_id, id, n) != 0)
        TRY(tw_not_carried(o,
                           "%s: tool_call_id '%.64s' written as '%.*s' (results answer the "
                           "calls in order)",
                           fmt, m->tool_call_id ? m->tool_call_id : "", (int)(n > 128 ? 128 : n),
                           id));
    TRY(tw_buf_putc(b, '\n'));
    return put_span(b, buf_span(&m->content));
}

static tw_status render(tw_buf *b, const tw_request *r, const tw_encode_opts *o, size_t max_depth,
                        const kp_kind *k)
{
    TRY(losses(r, o, k));
    if (r->ntools) {
        TRY(PUTS(b, TOOL_DECLARE "["));
        size_t tools_at = b->len;
        for (size_t i = 0; i < r->ntools; i++) {
            if (i)
                TRY(PUTS(b, ", "));
            TRY(tw_py_tool_json_write(b, &r->tools[i], max_depth, o->warnings, k->fmt));
        }
        TRY(unreadable(b, tools_at, o, k->fmt, "the tools"));
        TRY(PUTS(b, "]" IM_END));
    }
    if (r->messages[0].role != TW_ROLE_SYSTEM)
        TRY(k->thinking ? PUTS(b, DEFAULT_SYSTEM) : PUTS(b, DEFAULT_SYSTEM "\n"));
    size_t keep = k->thinking ? suffix_start(r) : r->nmessages;
    idq q = {{0}, 0, 0};
    tw_status st = TW_OK;
    for (size_t i = 0; i < r->nmessages && st == TW_OK; i++) {
        const tw_message *m = &r->messages[i];
        switch (m->role) {
        case TW_ROLE_USER: st = PUTS(b, IM_USER "user" IM_MIDDLE); break;
        case TW_ROLE_ASSISTANT: st = PUTS(b, GEN_PROMPT); break;
        case TW_ROLE_SYSTEM: st = PUTS(b, IM_SYSTEM "system" IM_MIDDLE); break;
        default: st = PUTS(b, IM_SYSTEM "tool" IM_MIDDLE); break;
        }
        if (st != TW_OK)
            break;
        if (m->role == TW_ROLE_ASSISTANT) {
            if (k->thinking) {
                st = PUTS(b, "<think>");
                if (st == TW_OK && i >= keep)
                    st = put_span(b, buf_span(&m->thinking));
                if (st == TW_OK)
                    st = PUTS(b, "</think>");
            }
            if (st == TW_OK)
                st = put_span(b, buf_span(&m->content));
            if (st == TW_OK && m->ncalls)
                st = put_calls(b, m, &q, o, max_depth, k->fmt);
        } else if (m->role == TW_ROLE_TOOL) {
            st = put_result(b, m, &q, o, k->fmt);
        } else {
            st = put_span(b, buf_span(&m->content));
        }
        if (st == TW_OK)
            st = PUTS(b, IM_END);
    }
    tw_buf_free(&q.ids);
    TRY(st);
    if (truthy(tw_json_get(r->options, "add_generation_prompt")))
        TRY(PUTS(b, GEN_PROMPT));
    return TW_OK;
}

static tw_status render_instruct(tw_buf *b, const tw_request *r, const tw_encode_opts *o,
                                 size_t max_depth)
{
    return render(b, r, o, max_depth, &K_INSTRUCT);
}

static tw_status render_thinking(tw_buf *b, const tw_request *r, const tw_encode_opts *o,
                                 size_t max_depth)
{
    return render(b, r, o, max_depth, &K_THINKING);
}

tw_status tw_kimi_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!r || !out || r->nmessages == 0)
        return TW_ERR_INVALID;
    return tw_encode_capped(r, o ? o : &tw_enc_default_opts, out, render_instruct);
}

tw_status tw_kimi_thinking_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!r || !out || r->nmessages == 0)
        return TW_ERR_INVALID;
    return tw_encode_capped(r, o ? o : &tw_enc_default_opts, out, render_thinking);
}

const tw_encoder_ops tw_encoder_kimi_k2_prompt = {
    "kimi-k2-prompt",
    "neutral request -> the Kimi K2 Instruct prompt (functions.NAME:N call ids, byte-exact "
    "template)",
    TW_ENC_REQUEST, tw_kimi_prompt_encode, tw_unsupported_encode_result};
const tw_encoder_ops tw_encoder_kimi_k2_thinking_prompt = {
    "kimi-k2-thinking-prompt",
    "neutral request -> the Kimi K2 Thinking prompt (<think> on assistant turns, byte-exact "
    "template)",
    TW_ENC_REQUEST, tw_kimi_thinking_prompt_encode, tw_unsupported_encode_result};

/* ===================== the readers ===================== */

typedef struct kp {
    tw_rq d;
    const char *b;
    size_t n;
    const kp_kind *k;
} kp;

static const char *find(const char *p, size_t n, const char *lit, size_t k)
{
    return tw_memmem(p, n, lit, k);
}

/* The tools JSON array [at, at + n). */
static tw_status read_tools(kp *h, size_t at, size_t n)
{
    cJSON *j = NULL;
    TRY(tw_rq_prompt_json(&h->d, h->b + at, n, at, "tools", "the tool_declare turn", &j));
    size_t cnt = 0;
    tw_status st = tw_rq_tools_begin(&h->d, j, &cnt);
    for (size_t i = 0; i < cnt && st == TW_OK; i++) {
        char path[40];
        snprintf(path, sizeof path, "tools[%zu]", i);
        st = tw_rq_read_tool(&h->d, cJSON_GetArrayItem(j, (int)i), path);
    }
    cJSON_Delete(j);
    return st;
}

/* The name in a call id functions.NAME:N into *name: TW_OK, TW_ERR_INVALID
 * when the id is not one, TW_ERR_NOMEM. */
static tw_status id_name(const char *id, size_t n, char **name)
{
    *name = NULL;
    if (n < 10 || memcmp(id, "functions.", 10) != 0)
        return TW_ERR_INVALID;
    const char *colon = rfind(id, n, LIT(":"));
    if (!colon || colon < id + 10 || (size_t)(colon - id) + 1 == n)
        return TW_ERR_INVALID;
    for (const char *p = colon + 1; p < id + n; p++)
        if (*p < '0' || *p > '9')
            return TW_ERR_INVALID;
    *name = tw_strndup(id + 10, (size_t)(colon - id) - 10);
    return *name ? TW_OK : TW_ERR_NOMEM;
}

/* The call section [at, at + n) of an assistant turn. */
static tw_status read_calls(kp *h, tw_message *m, size_t at, size_t n, const char *path)
{
    const char *b = h->b;
    size_t p = at, end = at + n;
    if (!ends_with(b + at, n, LIT(SECTION_END)))
        return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)at, path,
                          "the call section is not ended by " SECTION_END);
    end -= sizeof SECTION_END - 1;
    while (p < end) {
        if (!starts_with(b + p, end - p, LIT(CALL)))
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)p, path,
                              "expected " CALL " at byte %zu", p);
        size_t ids = p + sizeof CALL - 1;
        const char *a = find(b + ids, end - ids, LIT(ARGS));
        const char *e = find(b + ids, end - ids, LIT(CALL_END));
        if (!a || !e || a > e)
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)p, path,
                              "a call is not functions.NAME:N" ARGS "ARGS" CALL_END);
        size_t idn = (size_t)(a - (b + ids));
        size_t as = (size_t)(a - b) + sizeof ARGS - 1, ae = (size_t)(e - b);
        TRY(tw_rq_no_nul(&h->d, b + ids, idn, ids, path, "a call id"));
        if (m->ncalls >= h->d.l.max_calls)
            return tw_rq_fail(&h->d, TW_ERR_LIMIT, (int64_t)p, path,
                              "more than max_calls (%zu) calls", h->d.l.max_calls);
        if (ae - as > h->d.l.max_args_bytes)
            return tw_rq_fail(&h->d, TW_ERR_LIMIT, (int64_t)as, path,
                              "arguments over max_args_bytes (%zu)", h->d.l.max_args_bytes);
        char *name;
        tw_status ns = id_name(b + ids, idn, &name);
        if (ns == TW_ERR_NOMEM)
            return ns;
        if (ns != TW_OK)
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)ids, path,
                              "a call id is not functions.NAME:N");
        cJSON *args = NULL;
        tw_status st = tw_rq_prompt_json(&h->d, b + as, ae - as, as, path, "call arguments", &args);
        if (st == TW_OK && !cJSON_IsObject(args)) {
            cJSON_Delete(args);
            tw_free(name);
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)as, path,
                              "call arguments are not a JSON object");
        }
        if (st != TW_OK) {
            tw_free(name);
            return st;
        }
        if (m->ncalls == m->cap_calls) {
            size_t cap = m->cap_calls ? 2 * m->cap_calls : 4;
            tw_call *nc = tw_realloc(m->calls, cap * sizeof *nc);
            if (!nc) {
                cJSON_Delete(args);
                tw_free(name);
                return TW_ERR_NOMEM;
            }
            m->calls = nc;
            m->cap_calls = cap;
        }
        tw_call *c = &m->calls[m->ncalls];
        memset(c, 0, sizeof *c);
        c->name = name;
        c->arguments = args;
        c->offset = (int64_t)p;
        c->id = tw_strndup(b + ids, idn);
        m->ncalls++;
        if (!c->id)
            return TW_ERR_NOMEM;
        p = ae + sizeof CALL_END - 1;
    }
    return TW_OK;
}

static tw_status set_text(tw_buf *t, const char *p, size_t n)
{
    return n ? tw_buf_append(t, p, n) : TW_OK;
}

static tw_status assistant_turn(kp *h, tw_message *m, size_t at, size_t n, const char *path)
{
    const char *b = h->b;
    if (h->k->thinking) {
        const char *close = find(b + at, n, LIT("</think>"));
        if (!starts_with(b + at, n, LIT("<think>")) || !close)
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)at, path,
                              "an assistant turn starts with <think>…</think>");
        size_t rs = at + 7, re = (size_t)(close - b);
        TRY(set_text(&m->thinking, b + rs, re - rs));
        n -= re + 8 - at;
        at = re + 8;
    }
    const char *sec = find(b + at, n, LIT(SECTION));
    size_t cn = sec ? (size_t)(sec - (b + at)) : n;
    TRY(set_text(&m->content, b + at, cn));
    if (!sec)
        return TW_OK;
    size_t ss = at + cn + sizeof SECTION - 1;
    return read_calls(h, m, ss, at + n - ss, path);
}

static tw_status tool_turn(kp *h, tw_message *m, size_t at, size_t n, const char *path)
{
    const char *b = h->b;
    const char *nl = memchr(b + at, '\n', n);
    if (!starts_with(b + at, n, LIT(RETURN_OF)) || !nl)
        return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)at, path,
                          "a tool turn starts with \"" RETURN_OF "ID\\n\"");
    size_t is = at + sizeof RETURN_OF - 1, ie = (size_t)(nl - b);
    TRY(tw_rq_no_nul(&h->d, b + is, ie - is, is, path, "a tool result's id"));
    if (!(m->tool_call_id = tw_strndup(b + is, ie - is)))
        return TW_ERR_NOMEM;
    return set_text(&m->content, nl + 1, at + n - (ie + 1));
}

static tw_status prompt_body(kp *h)
{
    const char *b = h->b;
    size_t n = h->n, pos = 0, turn = 0;
    tw_request *r = h->d.req;
    if (starts_with(b, n, LIT(TOOL_DECLARE))) {
        size_t s = sizeof TOOL_DECLARE - 1;
        const char *e = find(b + s, n - s, LIT(IM_END));
        if (!e)
            return tw_rq_fail(&h->d, TW_ERR_INVALID, 0, "tools",
                              "the tool_declare turn is not closed by " IM_END);
        TRY(read_tools(h, s, (size_t)(e - b) - s));
        pos = (size_t)(e - b) + sizeof IM_END - 1;
    }
    bool defsys = false;
    if (starts_with(b + pos, n - pos, LIT(DEFAULT_SYSTEM))) {
        size_t after = pos + sizeof DEFAULT_SYSTEM - 1;
        if (!h->k->thinking && after < n && b[after] == '\n') {
            defsys = true;
            pos = after + 1;
        } else if (h->k->thinking) {
            defsys = true;
            pos = after;
        }
    }
    while (pos < n) {
        char path[40];
        snprintf(path, sizeof path, "turns[%zu]", turn);
        h->d.msg_at = (int64_t)pos;
        tw_role role;
        size_t hs;
        if (starts_with(b + pos, n - pos, LIT(IM_USER "user" IM_MIDDLE))) {
            role = TW_ROLE_USER;
            hs = sizeof(IM_USER "user" IM_MIDDLE) - 1;
        } else if (starts_with(b + pos, n - pos, LIT(GEN_PROMPT))) {
            role = TW_ROLE_ASSISTANT;
            hs = sizeof(GEN_PROMPT) - 1;
        } else if (starts_with(b + pos, n - pos, LIT(IM_SYSTEM "system" IM_MIDDLE))) {
            role = TW_ROLE_SYSTEM;
            hs = sizeof(IM_SYSTEM "system" IM_MIDDLE) - 1;
        } else if (starts_with(b + pos, n - pos, LIT(IM_SYSTEM "tool" IM_MIDDLE))) {
            role = TW_ROLE_TOOL;
            hs = sizeof(IM_SYSTEM "tool" IM_MIDDLE) - 1;
        } else {
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)pos, path,
                              "expected a turn (" IM_USER "user, " IM_ASSISTANT
                              "assistant, " IM_SYSTEM "system or " IM_SYSTEM "tool) at byte %zu",
                              pos);
        }
        size_t bs = pos + hs;
        if (role == TW_ROLE_ASSISTANT && bs == n) { /* the generation prompt */
            if (!r->options && !(r->options = cJSON_CreateObject()))
                return TW_ERR_NOMEM;
            if (!cJSON_AddBoolToObject(r->options, "add_generation_prompt", true))
                return TW_ERR_NOMEM;
            break;
        }
        const char *e = find(b + bs, n - bs, LIT(IM_END));
        if (!e)
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)pos, path,
                              "the turn is not closed by " IM_END);
        if (turn == 0 && role == TW_ROLE_SYSTEM && defsys)
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)pos, path,
                              "a system message after the template's default one");
        if (turn == 0 && role != TW_ROLE_SYSTEM && !defsys)
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)pos, path,
                              "no system turn before the first message");
        size_t bn = (size_t)(e - b) - bs;
        tw_message *m;
        TRY(tw_rq_push(&h->d, path, &m));
        m->role = role;
        if (role == TW_ROLE_ASSISTANT)
            TRY(assistant_turn(h, m, bs, bn, path));
        else if (role == TW_ROLE_TOOL)
            TRY(tool_turn(h, m, bs, bn, path));
        else
            TRY(set_text(&m->content, b + bs, bn));
        pos = (size_t)(e - b) + sizeof IM_END - 1;
        turn++;
    }
    if (r->nmessages == 0)
        return tw_rq_fail(&h->d, TW_ERR_INVALID, 0, "", "the prompt has no turns");
    return TW_OK;
}

static tw_status prompt_read(const kp_kind *k, const char *buf, size_t len, const tw_decode_opts *o,
                             tw_request *out, tw_error *err)
{
    kp h;
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

tw_status tw_kimi_prompt_read(const char *buf, size_t len, const tw_decode_opts *o, tw_request *out,
                              tw_error *err)
{
    return prompt_read(&K_INSTRUCT, buf, len, o, out, err);
}

tw_status tw_kimi_thinking_prompt_read(const char *buf, size_t len, const tw_decode_opts *o,
                                       tw_request *out, tw_error *err)
{
    return prompt_read(&K_THINKING, buf, len, o, out, err);
}

const tw_request_reader_ops tw_reader_kimi_k2_prompt = {
    "kimi-k2-prompt", "the Kimi K2 Instruct prompt (as the chat template renders it)",
    tw_kimi_prompt_read};
const tw_request_reader_ops tw_reader_kimi_k2_thinking_prompt = {
    "kimi-k2-thinking-prompt", "the Kimi K2 Thinking prompt (as the chat template renders it)",
    tw_kimi_thinking_prompt_read};
