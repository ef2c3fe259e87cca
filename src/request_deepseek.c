/*
 * The DeepSeek V3.1 prompt read back into a request (deepseek-v3.1-prompt):
 * the inverse of the prompt encoder (deepseek_enc.c). Rules:
 * docs/formats/deepseek-v3.1.md.
 */
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "deepseek_text.h"
#include "formats.h"
#include "request_read.h"
#include "toolwire/deepseek.h"
#include "toolwire/json.h"
#include "tw_macros.h"

#define LIT(s) (s), DS_LEN(s)

typedef struct dp {
    tw_rq d;
    const char *b;
    size_t n;
} dp;

static const char *find(const dp *p, size_t from, const char *lit, size_t k)
{
    return from <= p->n ? tw_memmem(p->b + from, p->n - from, lit, k) : NULL;
}

/* The first of the turn openers (or the end of sentence) at or after from:
 * its offset, p->n when none. */
static size_t next_turn(const dp *p, size_t from, bool eos)
{
    static const struct {
        const char *s;
        size_t k;
    } marks[] = {{LIT(T_USER)}, {LIT(T_ASSISTANT)}, {LIT(T_OUT_BEGIN)}, {LIT(T_EOS)}};
    size_t best = p->n;
    for (size_t i = 0; i < (eos ? 4u : 3u); i++) {
        const char *h = find(p, from, marks[i].s, marks[i].k);
        if (h && (size_t)(h - p->b) < best)
            best = (size_t)(h - p->b);
    }
    return best;
}

static bool at(const dp *p, size_t i, const char *lit, size_t k)
{
    return i <= p->n && starts_with(p->b + i, p->n - i, lit, k);
}

static tw_status push(dp *p, size_t off, tw_role role, const char *c, size_t cn, const char *path,
                      tw_message **out)
{
    p->d.msg_at = (int64_t)off;
    TRY(tw_rq_push(&p->d, path, out));
    (*out)->role = role;
    return cn ? tw_buf_append(&(*out)->content, c, cn) : TW_OK;
}

/* One history call [s, e): NAME<｜tool▁sep｜>JSON (the opener and closer off). */
static tw_status read_call(dp *p, tw_message *m, size_t s, size_t e, const char *path)
{
    const char *sep = tw_memmem(p->b + s, e - s, LIT(T_SEP));
    if (!sep)
        return tw_rq_fail(&p->d, TW_ERR_INVALID, (int64_t)s, path, "a tool call without " T_SEP);
    size_t a = (size_t)(sep - p->b) + DS_LEN(T_SEP);
    TRY(tw_rq_no_nul(&p->d, p->b + s, (size_t)(sep - p->b) - s, s, path, "a call's name"));
    if (e - a > p->d.l.max_args_bytes)
        return tw_rq_refuse(&p->d, TW_ERR_LIMIT, TW_D_ARGS_TOO_LARGE, (int64_t)a, path,
                            "call arguments of %zu bytes, more than max_args_bytes (%zu)", e - a,
                            p->d.l.max_args_bytes);
    if (m->ncalls >= p->d.l.max_calls)
        return tw_rq_fail(&p->d, TW_ERR_LIMIT, (int64_t)s, path,
                          "more than max_calls (%zu) tool calls", p->d.l.max_calls);
    cJSON *j = NULL;
    TRY(tw_rq_prompt_json(&p->d, p->b + a, e - a, a, path, "call arguments", &j));
    tw_status st;
    if (!cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return tw_rq_refuse(&p->d, TW_ERR_INVALID, TW_D_ARGUMENTS_NOT_OBJECT, (int64_t)a, path,
                            "call arguments are not a JSON object");
    }
    /* a string value that spells <｜tool▁call▁end｜> or <｜end▁of▁sentence｜>
     * through escapes would end the call or the turn when written back as the
     * template writes it (raw) */
    tw_buf w = {0};
    st = tw_json_write_py(&w, j, p->d.l.max_depth);
    bool ends = st == TW_OK && (tw_memmem(w.data, w.len, LIT(T_CALL_END)) != NULL ||
                                tw_memmem(w.data, w.len, LIT(T_EOS)) != NULL);
    tw_buf_free(&w);
    if (st != TW_OK || ends) {
        cJSON_Delete(j);
        return st == TW_ERR_NOMEM ? st
                                  : tw_rq_fail(&p->d, TW_ERR_INVALID, (int64_t)a, path,
                                               "call arguments that the template would write "
                                               "with " T_CALL_END " or " T_EOS " inside");
    }
    tw_call c;
    memset(&c, 0, sizeof c);
    c.offset = (int64_t)s;
    c.arguments = j;
    c.name = tw_strndup(p->b + s, (size_t)(sep - p->b) - s);
    char id[32];
    snprintf(id, sizeof id, "call_%zu", ++p->d.next_id);
    c.id = tw_strdup(id);
    if (!c.name || !c.id) {
        tw_call_free(&c);
        return TW_ERR_NOMEM;
    }
    st = tw_message_add_call(m, &c);
    if (st != TW_OK)
        tw_call_free(&c);
    return st;
}

/* An assistant turn's body [s, e) (its end of sentence at e). */
static tw_status assistant(dp *p, size_t s, size_t e, bool after_tool, const char *path)
{
    tw_message *m;
    const char *sec = tw_memmem(p->b + s, e - s, LIT(T_CALLS_BEGIN));
    size_t ce = sec ? (size_t)(sec - p->b) : e;
    const char *cut = after_tool || sec ? NULL : tw_memmem(p->b + s, ce - s, LIT(T_THINK_CLOSE));
    TRY(push(p, s, TW_ROLE_ASSISTANT, "", 0, path, &m));
    if (cut) /* the template keeps what follows a first </think>: an empty part before it */
        TRY(tw_buf_append(&m->content, LIT(T_THINK_CLOSE)));
    if (ce > s)
        TRY(tw_buf_append(&m->content, p->b + s, ce - s));
    if (!sec)
        return TW_OK;
    size_t i = ce + DS_LEN(T_CALLS_BEGIN);
    if (!(e - i >= DS_LEN(T_CALLS_END) && at(p, e - DS_LEN(T_CALLS_END), LIT(T_CALLS_END))))
        return tw_rq_fail(&p->d, TW_ERR_INVALID, (int64_t)i, path,
                          "the tool calls section is not closed by " T_CALLS_END);
    size_t se = e - DS_LEN(T_CALLS_END);
    while (i < se) {
        if (!at(p, i, LIT(T_CALL_BEGIN)))
            return tw_rq_fail(&p->d, TW_ERR_INVALID, (int64_t)i, path,
                              "expected " T_CALL_BEGIN " at byte %zu", i);
        size_t cs = i + DS_LEN(T_CALL_BEGIN);
        const char *end = tw_memmem(p->b + cs, se - cs, LIT(T_CALL_END));
        if (!end)
            return tw_rq_fail(&p->d, TW_ERR_INVALID, (int64_t)i, path,
                              "a tool call not closed by " T_CALL_END);
        TRY(read_call(p, m, cs, (size_t)(end - p->b), path));
        i = (size_t)(end - p->b) + DS_LEN(T_CALL_END);
    }
    if (m->ncalls == 0)
        return tw_rq_fail(&p->d, TW_ERR_INVALID, (int64_t)ce, path,
                          "a tool calls section without calls");
    return TW_OK;
}

static tw_status option(tw_request *r, const char *key)
{
    if (!r->options && !(r->options = cJSON_CreateObject()))
        return TW_ERR_NOMEM;
    return cJSON_AddBoolToObject(r->options, key, true) ? TW_OK : TW_ERR_NOMEM;
}

static tw_status body(dp *p)
{
    size_t i = 0, turn = 0;
    if (at(p, 0, LIT(T_BOS)))
        i = DS_LEN(T_BOS);
    tw_message *m;
    /* the system prompt: every system message joined */
    size_t t = next_turn(p, i, true);
    if (t == p->n || !at(p, t, LIT(T_EOS))) {
        if (t > i)
            TRY(push(p, i, TW_ROLE_SYSTEM, p->b + i, t - i, "system", &m));
        i = t;
    }
    bool after_tool = false;
    while (i < p->n) {
        char path[40];
        snprintf(path, sizeof path, "turns[%zu]", turn++);
        if (at(p, i, LIT(T_USER))) {
            size_t s = i + DS_LEN(T_USER), e = next_turn(p, s, false);
            TRY(push(p, i, TW_ROLE_USER, p->b + s, e - s, path, &m));
            after_tool = false;
            i = e;
        } else if (at(p, i, LIT(T_OUT_BEGIN))) {
            size_t s = i + DS_LEN(T_OUT_BEGIN);
            const char *e = find(p, s, LIT(T_OUT_END));
            if (!e)
                return tw_rq_fail(&p->d, TW_ERR_INVALID, (int64_t)i, path,
                                  "a tool output not closed by " T_OUT_END);
            TRY(push(p, i, TW_ROLE_TOOL, p->b + s, (size_t)(e - p->b) - s, path, &m));
            after_tool = true;
            i = (size_t)(e - p->b) + DS_LEN(T_OUT_END);
        } else {
            size_t s = i;
            if (at(p, i, LIT(T_ASSISTANT))) {
                const tw_request *r = p->d.req;
                /* the template writes the marker only right after a user message:
                 * read elsewhere, the request would not be written back so */
                if (r->nmessages == 0 || r->messages[r->nmessages - 1].role != TW_ROLE_USER)
                    return tw_rq_fail(&p->d, TW_ERR_INVALID, (int64_t)i, path,
                                      T_ASSISTANT " not right after a user turn");
                s = i + DS_LEN(T_ASSISTANT);
                size_t rest = p->n - s;
                bool think = rest == DS_LEN(T_THINK_OPEN) && at(p, s, LIT(T_THINK_OPEN));
                if (think || (rest == DS_LEN(T_THINK_OPEN T_THINK_CLOSE) &&
                              at(p, s, LIT(T_THINK_OPEN T_THINK_CLOSE)))) {
                    /* the generation prompt */
                    TRY(option(p->d.req, "add_generation_prompt"));
                    if (think)
                        TRY(option(p->d.req, "thinking"));
                    break;
                }
                if (!at(p, s, LIT(T_THINK_OPEN T_THINK_CLOSE)))
                    return tw_rq_fail(&p->d, TW_ERR_INVALID, (int64_t)s, path,
                                      "an assistant turn that does not start with "
                                      "<think></think>");
                s += DS_LEN(T_THINK_OPEN T_THINK_CLOSE);
            }
            const char *e = find(p, s, LIT(T_EOS));
            if (!e)
                return tw_rq_fail(&p->d, TW_ERR_INVALID, (int64_t)i, path,
                                  "an assistant turn not closed by " T_EOS);
            TRY(assistant(p, s, (size_t)(e - p->b), after_tool, path));
            after_tool = false;
            i = (size_t)(e - p->b) + DS_LEN(T_EOS);
        }
    }
    if (p->d.req->nmessages == 0)
        return tw_rq_fail(&p->d, TW_ERR_INVALID, 0, "", "the prompt has no messages");
    return tw_rq_link_results(&p->d, "deepseek-v3.1-prompt");
}

tw_status tw_deepseek_prompt_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                    tw_request *out, tw_error *err)
{
    dp p;
    tw_rq_begin(&p.d, o, out, err);
    p.b = buf ? buf : "";
    p.n = len;
    tw_status st;
    if (len > p.d.l.max_input_bytes)
        st = tw_rq_fail(&p.d, TW_ERR_LIMIT, -1, "",
                        "the prompt is %zu bytes, more than max_input_bytes (%zu)", len,
                        p.d.l.max_input_bytes);
    else
        st = body(&p);
    if (st == TW_ERR_NOMEM && err && !err->message[0])
        tw_rq_fail(&p.d, st, -1, "", "out of memory");
    if (st != TW_OK) {
        tw_request_free(out);
        out->parallel_tool_calls = -1;
    }
    return st;
}

const tw_request_reader_ops tw_reader_deepseek_v31_prompt = {
    "deepseek-v3.1-prompt", "the DeepSeek V3.1 prompt (<｜User｜>, <｜Assistant｜>, tool calls)",
    tw_deepseek_prompt_decode};
