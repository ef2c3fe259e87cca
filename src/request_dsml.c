/*
 * The DeepSeek V3.2 prompt read back into a request (deepseek-v3.2-prompt):
 * the inverse of the prompt encoder (dsml_enc.c). Rules: docs/formats/dsml.md,
 * "The prompt".
 *
 *   <｜begin▁of▁sentence｜>[SYSTEM][\n\n]## Tools … <functions>\nFN-JSON\n…</functions>\n
 *   <｜User｜>USER
 *   <｜Assistant｜></think>CONTENT[\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name="N">\n
 *     <｜DSML｜parameter name="K" string="true|false">V</｜DSML｜parameter>\n…
 *     </｜DSML｜invoke>\n…</｜DSML｜function_calls>]<｜end▁of▁sentence｜>
 *   \n\n<function_results>\n<result>R</result>…\n</function_results>
 *   \n\n</think>CONTENT…<｜end▁of▁sentence｜>          (an answer after results)
 *   [<｜Assistant｜>|\n\n]<think>[</think>]          (the generation prompt)
 *
 * A turn after the last user turn opens with <think>REASONING</think> when
 * thinking is on. An assistant turn with no user turn or results before it
 * opens with nothing.
 */
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "dsml_text.h"
#include "formats.h"
#include "request_read.h"
#include "toolwire/dsml.h"
#include "toolwire/json.h"
#include "tw_macros.h"

#define LIT(s) (s), DSML_LEN(s)
#define FMT "deepseek-v3.2-prompt"
#define CALLS_AT "\n\n" D_CALLS_OPEN "\n"

/* where the reader stands between turns: what the template wrote last */
enum { BARE, AFTER_USER, AFTER_RESULTS };

typedef struct rp {
    tw_rq d;
    const char *b;
    size_t n;
    /* the assistant turns since the last user turn: where the first opened
     * with <think>…</think> (thinking on) and with </think> alone (off), -1 none */
    int64_t on_at, off_at;
} rp;

static bool at(const rp *p, size_t i, const char *lit, size_t k)
{
    return i <= p->n && starts_with(p->b + i, p->n - i, lit, k);
}

static const char *find(const rp *p, size_t from, size_t to, const char *lit, size_t k)
{
    return from <= to ? tw_memmem(p->b + from, to - from, lit, k) : NULL;
}

/* The first <｜User｜>, <｜Assistant｜> or (with eos) <｜end▁of▁sentence｜> at or
 * after from: its offset, p->n when none. */
static size_t next_mark(const rp *p, size_t from, bool eos)
{
    for (size_t i = from; i < p->n; i++) {
        const char *q = memchr(p->b + i, '<', p->n - i);
        if (!q)
            break;
        i = (size_t)(q - p->b);
        if (at(p, i, LIT(D_USER)) || at(p, i, LIT(D_ASSISTANT)) || (eos && at(p, i, LIT(D_EOS))))
            return i;
    }
    return p->n;
}

static tw_status set_text(tw_buf *t, const char *s, size_t n)
{
    return n ? tw_buf_append(t, s, n) : TW_OK;
}

static tw_status push(rp *p, size_t off, tw_role role, size_t s, size_t e, const char *path,
                      tw_message **out)
{
    p->d.msg_at = (int64_t)off;
    TRY(tw_rq_push(&p->d, path, out));
    (*out)->role = role;
    return set_text(&(*out)->content, p->b + s, e - s);
}

static tw_status set_option(tw_request *r, const char *key)
{
    if (!r->options && !(r->options = cJSON_CreateObject()))
        return TW_ERR_NOMEM;
    return cJSON_AddBoolToObject(r->options, key, true) ? TW_OK : TW_ERR_NOMEM;
}

/* ===================== the tools ===================== */

/* The functions, one JSON object a line, from s up to the </functions>
 * line; *end gets the offset after it. */
static tw_status read_tools(rp *p, size_t s, size_t *end)
{
    cJSON *arr = cJSON_CreateArray();
    if (!arr)
        return TW_ERR_NOMEM;
    tw_status st = TW_OK;
    size_t i = s;
    for (;;) {
        const char *nl = memchr(p->b + i, '\n', p->n - i);
        if (!nl) {
            st = tw_rq_fail(&p->d, TW_ERR_INVALID, (int64_t)i, "tools",
                            "the tool list is not closed by a </functions> line");
            break;
        }
        size_t le = (size_t)(nl - p->b);
        if (le - i == DSML_LEN(D_TOOLS_TAIL) - 1 && at(p, i, LIT(D_TOOLS_TAIL))) {
            *end = le + 1;
            break;
        }
        cJSON *j = NULL;
        st = tw_rq_prompt_json(&p->d, p->b + i, le - i, i, "tools", "a tool's JSON", &j);
        if (st == TW_OK && !cJSON_AddItemToArray(arr, j)) {
            cJSON_Delete(j);
            st = TW_ERR_NOMEM;
        }
        if (st != TW_OK)
            break;
        i = le + 1;
    }
    size_t cnt = 0;
    if (st == TW_OK)
        st = tw_rq_tools_begin(&p->d, arr, &cnt);
    for (size_t k = 0; k < cnt && st == TW_OK; k++) {
        char path[40];
        snprintf(path, sizeof path, "tools[%zu]", k);
        st = tw_rq_read_tool(&p->d, cJSON_GetArrayItem(arr, (int)k), path);
    }
    cJSON_Delete(arr);
    return st;
}

/* ===================== an assistant turn ===================== */

/* A parameter's value [s, e): the string itself (string="true") or JSON. */
static tw_status read_value(rp *p, size_t s, size_t e, bool str, const char *path, cJSON **out)
{
    *out = NULL;
    if (str) {
        TRY(tw_rq_no_nul(&p->d, p->b + s, e - s, s, path, "an argument"));
        char *v = tw_strndup(p->b + s, e - s);
        *out = v ? cJSON_CreateString(v) : NULL;
        tw_free(v);
        return *out ? TW_OK : TW_ERR_NOMEM;
    }
    TRY(tw_rq_prompt_json(&p->d, p->b + s, e - s, s, path, "an argument", out));
    tw_status st;
    /* written back as the template writes it (a string as it is, any other
     * value by tojson, both unescaped), escapes that spell the value's closer
     * or the end of the turn would cut it there */
    tw_buf w = {0};
    if (cJSON_IsString(*out))
        st = tw_buf_puts(&w, (*out)->valuestring ? (*out)->valuestring : "");
    else
        st = tw_json_write_py(&w, *out, p->d.l.max_depth);
    bool cuts =
        st == TW_OK && w.len &&
        (tw_memmem(w.data, w.len, LIT(D_PARAM_CLOSE "\n")) || tw_memmem(w.data, w.len, LIT(D_EOS)));
    tw_buf_free(&w);
    if (st == TW_OK && !cuts)
        return TW_OK;
    cJSON_Delete(*out);
    *out = NULL;
    return st != TW_OK ? st
                       : tw_rq_fail(&p->d, TW_ERR_INVALID, (int64_t)s, path,
                                    "a value that the template would write with " D_PARAM_CLOSE
                                    " or " D_EOS " inside");
}

static tw_status new_call(rp *p, tw_message *m, size_t s, size_t e, const char *path, tw_call **out)
{
    TRY(tw_rq_no_nul(&p->d, p->b + s, e - s, s, path, "a call's name"));
    if (m->ncalls >= p->d.l.max_calls)
        return tw_rq_fail(&p->d, TW_ERR_LIMIT, (int64_t)s, path,
                          "more than max_calls (%zu) tool calls", p->d.l.max_calls);
    tw_call c;
    memset(&c, 0, sizeof c);
    c.offset = (int64_t)s;
    char id[32];
    snprintf(id, sizeof id, "call_%zu", ++p->d.next_id);
    c.name = tw_strndup(p->b + s, e - s);
    c.id = tw_strdup(id);
    c.arguments = cJSON_CreateObject();
    tw_status st = c.name && c.id && c.arguments ? tw_message_add_call(m, &c) : TW_ERR_NOMEM;
    if (st != TW_OK) {
        tw_call_free(&c);
        return st;
    }
    *out = &m->calls[m->ncalls - 1];
    return TW_OK;
}

/* The parameters of one invoke from i up to its </｜DSML｜invoke>\n, inside the
 * block's invokes [., end); *next gets the offset after the invoke. */
static tw_status read_params(rp *p, tw_call *c, size_t i, size_t end, const char *path,
                             size_t *next)
{
    size_t bytes = 0;
    for (;;) {
        if (at(p, i, LIT(D_INVOKE_CLOSE "\n")) && i + DSML_LEN(D_INVOKE_CLOSE "\n") <= end) {
            *next = i + DSML_LEN(D_INVOKE_CLOSE "\n");
            return TW_OK;
        }
        if (!at(p, i, LIT(D_PARAM_OPEN " name=\"")))
            return tw_rq_fail(
                &p->d, TW_ERR_INVALID, (int64_t)i, path,
                "expected " D_PARAM_OPEN " name=\"…\" or " D_INVOKE_CLOSE " at byte %zu", i);
        size_t ks = i + DSML_LEN(D_PARAM_OPEN " name=\"");
        const char *kq = find(p, ks, end, LIT("\" string=\""));
        if (!kq)
            return tw_rq_fail(&p->d, TW_ERR_INVALID, (int64_t)ks, path,
                              "a parameter name not followed by string=\"true|false\"");
        size_t ke = (size_t)(kq - p->b), t = ke + DSML_LEN("\" string=\""), vs;
        bool str = at(p, t, LIT("true\">"));
        if (str)
            vs = t + DSML_LEN("true\">");
        else if (at(p, t, LIT("false\">")))
            vs = t + DSML_LEN("false\">");
        else
            return tw_rq_fail(&p->d, TW_ERR_INVALID, (int64_t)t, path,
                              "string=\"true\" or string=\"false\" expected at byte %zu", t);
        const char *vq = find(p, vs, end, LIT(D_PARAM_CLOSE "\n"));
        if (!vq)
            return tw_rq_fail(&p->d, TW_ERR_INVALID, (int64_t)vs, path,
                              "a parameter value not closed by " D_PARAM_CLOSE);
        size_t ve = (size_t)(vq - p->b);
        bytes += ve - vs;
        if (bytes > p->d.l.max_args_bytes)
            return tw_rq_refuse(&p->d, TW_ERR_LIMIT, TW_D_ARGS_TOO_LARGE, (int64_t)vs, path,
                                "call arguments of more than max_args_bytes (%zu) bytes",
                                p->d.l.max_args_bytes);
        TRY(tw_rq_no_nul(&p->d, p->b + ks, ke - ks, ks, path, "a parameter's name"));
        char *key = tw_strndup(p->b + ks, ke - ks);
        if (!key)
            return TW_ERR_NOMEM;
        cJSON *v = NULL;
        tw_status st = read_value(p, vs, ve, str, path, &v);
        if (st == TW_OK && !cJSON_AddItemToObject(c->arguments, key, v)) {
            cJSON_Delete(v);
            st = TW_ERR_NOMEM;
        }
        tw_free(key);
        TRY(st);
        i = ve + DSML_LEN(D_PARAM_CLOSE "\n");
    }
}

/* The invokes of a function_calls block [i, end) (its closer at end). */
static tw_status read_calls(rp *p, tw_message *m, size_t i, size_t end, const char *path)
{
    while (i < end) {
        if (!at(p, i, LIT(D_INVOKE_OPEN " name=\"")))
            return tw_rq_fail(&p->d, TW_ERR_INVALID, (int64_t)i, path,
                              "expected " D_INVOKE_OPEN " name=\"…\"> at byte %zu", i);
        size_t ns = i + DSML_LEN(D_INVOKE_OPEN " name=\"");
        const char *nq = find(p, ns, end, LIT("\">\n"));
        if (!nq)
            return tw_rq_fail(&p->d, TW_ERR_INVALID, (int64_t)ns, path,
                              "an invoke's name not closed by \">");
        tw_call *c = NULL;
        TRY(new_call(p, m, ns, (size_t)(nq - p->b), path, &c));
        TRY(read_params(p, c, (size_t)(nq - p->b) + 3, end, path, &i));
    }
    if (m->ncalls == 0)
        return tw_rq_fail(&p->d, TW_ERR_INVALID, (int64_t)end, path,
                          "a function_calls block without an invoke");
    return TW_OK;
}

/* An assistant turn's body [s, e) (its end of sentence at e): the content,
 * then the calls block when there is one. */
static tw_status read_body(rp *p, tw_message *m, size_t s, size_t e, const char *path)
{
    const char *blk = find(p, s, e, LIT(CALLS_AT));
    size_t ce = blk ? (size_t)(blk - p->b) : e;
    TRY(set_text(&m->content, p->b + s, ce - s));
    if (!blk)
        return TW_OK;
    size_t i = ce + DSML_LEN(CALLS_AT);
    if (e < i + DSML_LEN(D_CALLS_CLOSE) || !at(p, e - DSML_LEN(D_CALLS_CLOSE), LIT(D_CALLS_CLOSE)))
        return tw_rq_fail(&p->d, TW_ERR_INVALID, (int64_t)ce, path,
                          "the function_calls block does not end with " D_CALLS_CLOSE
                          " before " D_EOS);
    return read_calls(p, m, i, e - DSML_LEN(D_CALLS_CLOSE), path);
}

/* The opening of a marked assistant turn at s: <think>REASONING</think>
 * (thinking on) or </think>; *body gets where its content starts. */
static tw_status read_open(rp *p, tw_message *m, size_t s, size_t *body, const char *path)
{
    if (at(p, s, LIT(D_THINK_CLOSE))) {
        if (p->off_at < 0)
            p->off_at = (int64_t)s;
        *body = s + DSML_LEN(D_THINK_CLOSE);
        return TW_OK;
    }
    if (!at(p, s, LIT(D_THINK_OPEN)))
        return tw_rq_fail(&p->d, TW_ERR_INVALID, (int64_t)s, path,
                          "an assistant turn that does not open with <think> or </think>");
    size_t rs = s + DSML_LEN(D_THINK_OPEN);
    const char *close = find(p, rs, p->n, LIT(D_THINK_CLOSE));
    if (!close)
        return tw_rq_fail(&p->d, TW_ERR_INVALID, (int64_t)s, path,
                          "the reasoning is not closed by </think>");
    if (p->on_at < 0)
        p->on_at = (int64_t)s;
    TRY(set_text(&m->thinking, p->b + rs, (size_t)(close - p->b) - rs));
    *body = (size_t)(close - p->b) + DSML_LEN(D_THINK_CLOSE);
    return TW_OK;
}

/* ===================== the results ===================== */

/* A results block at i after an assistant turn with cnt calls: a result a
 * call, closed after the last; fewer results leave it open (the template
 * closes it only at the count). *closed says which; *next is where it ends. */
static tw_status read_results(rp *p, size_t i, size_t cnt, size_t *turn, bool *closed, size_t *next)
{
    size_t q = i + DSML_LEN(D_RESULTS_OPEN), k = 0;
    *closed = false;
    while (k < cnt && at(p, q, LIT(D_RESULT_OPEN))) {
        char path[40];
        snprintf(path, sizeof path, "turns[%zu]", (*turn)++);
        size_t cs = q + DSML_LEN(D_RESULT_OPEN);
        const char *ce = find(p, cs, p->n, LIT(D_RESULT_CLOSE));
        if (!ce)
            return tw_rq_fail(&p->d, TW_ERR_INVALID, (int64_t)q, path,
                              "a result not closed by " D_RESULT_CLOSE);
        tw_message *m;
        TRY(push(p, q, TW_ROLE_TOOL, cs, (size_t)(ce - p->b), path, &m));
        q = (size_t)(ce - p->b) + DSML_LEN(D_RESULT_CLOSE);
        k++;
    }
    if (k == 0)
        return tw_rq_fail(&p->d, TW_ERR_INVALID, (int64_t)q, "",
                          "<function_results> not followed by <result>");
    if (k == cnt) {
        if (!at(p, q, LIT(D_RESULTS_CLOSE)))
            return tw_rq_fail(&p->d, TW_ERR_INVALID, (int64_t)q, "",
                              "%zu results for %zu calls not followed by </function_results>", k,
                              cnt);
        q += DSML_LEN(D_RESULTS_CLOSE);
        *closed = true;
    }
    *next = q;
    return TW_OK;
}

/* ===================== the prompt ===================== */

/* Where the turns start: after the system prompt and the tool list. */
static tw_status prefix(rp *p, size_t i, size_t *turns)
{
    size_t first = next_mark(p, i, true);
    const char *h = find(p, i, p->n, LIT(D_TOOLS_HEAD));
    tw_message *m;
    if (h && (size_t)(h - p->b) < first) {
        size_t hs = (size_t)(h - p->b);
        if (hs > i) {
            if (hs < i + 3 || p->b[hs - 1] != '\n' || p->b[hs - 2] != '\n')
                return tw_rq_fail(&p->d, TW_ERR_INVALID, (int64_t)hs, "system",
                                  "the tool list does not follow the system prompt after a "
                                  "blank line");
            TRY(push(p, i, TW_ROLE_SYSTEM, i, hs - 2, "system", &m));
        }
        p->d.req->tools_present = true;
        return read_tools(p, hs + DSML_LEN(D_TOOLS_HEAD), turns);
    }
    /* an end of sentence first: an assistant turn with no marker, no system prompt */
    if (first < p->n && at(p, first, LIT(D_EOS))) {
        *turns = i;
        return TW_OK;
    }
    if (first > i)
        TRY(push(p, i, TW_ROLE_SYSTEM, i, first, "system", &m));
    *turns = first;
    return TW_OK;
}

/* The turns before a user turn: an assistant turn there shows no reasoning. */
static tw_status user_seen(rp *p)
{
    if (p->on_at >= 0)
        return tw_rq_fail(&p->d, TW_ERR_INVALID, p->on_at, "",
                          "reasoning in an assistant turn before a user turn (the template "
                          "writes none there)");
    p->off_at = -1;
    return TW_OK;
}

static tw_status body(rp *p)
{
    size_t pos = at(p, 0, LIT(D_BOS)) ? DSML_LEN(D_BOS) : 0, turn = 0;
    TRY(prefix(p, pos, &pos));
    int state = BARE;
    tw_request *r = p->d.req;
    bool gen = false;
    while (pos < p->n) {
        char path[40];
        snprintf(path, sizeof path, "turns[%zu]", turn++);
        tw_message *m;
        if (at(p, pos, LIT(D_USER))) {
            TRY(user_seen(p));
            size_t s = pos + DSML_LEN(D_USER), e = next_mark(p, s, false);
            TRY(push(p, pos, TW_ROLE_USER, s, e, path, &m));
            state = AFTER_USER;
            pos = e;
            continue;
        }
        size_t s = pos;
        const tw_message *prev = r->nmessages ? &r->messages[r->nmessages - 1] : NULL;
        if (state == BARE && prev && prev->role == TW_ROLE_ASSISTANT && prev->ncalls &&
            at(p, pos, LIT(D_RESULTS_OPEN))) {
            bool closed;
            turn--;
            TRY(read_results(p, pos, prev->ncalls, &turn, &closed, &pos));
            state = closed ? AFTER_RESULTS : BARE;
            continue;
        }
        if (state != BARE) {
            if (state == AFTER_USER && at(p, pos, LIT(D_ASSISTANT)))
                s = pos + DSML_LEN(D_ASSISTANT);
            else if (state == AFTER_RESULTS && at(p, pos, LIT("\n\n")))
                s = pos + 2;
            else
                return tw_rq_fail(
                    &p->d, TW_ERR_INVALID, (int64_t)pos, path, "expected %s at byte %zu",
                    state == AFTER_USER ? D_ASSISTANT : "a blank line and <think> or </think>",
                    pos);
            size_t rest = p->n - s;
            bool on = rest == DSML_LEN(D_THINK_OPEN) && at(p, s, LIT(D_THINK_OPEN));
            if (on || (rest == DSML_LEN(D_THINK_OPEN D_THINK_CLOSE) &&
                       at(p, s, LIT(D_THINK_OPEN D_THINK_CLOSE)))) {
                /* the generation prompt */
                if (on && p->on_at < 0)
                    p->on_at = (int64_t)s;
                else if (!on && p->off_at < 0)
                    p->off_at = (int64_t)s;
                gen = true;
                break;
            }
        }
        TRY(push(p, pos, TW_ROLE_ASSISTANT, 0, 0, path, &m));
        if (state != BARE)
            TRY(read_open(p, m, s, &s, path));
        const char *e = find(p, s, p->n, LIT(D_EOS));
        if (!e)
            return tw_rq_fail(&p->d, TW_ERR_INVALID, (int64_t)pos, path,
                              "an assistant turn not closed by " D_EOS);
        TRY(read_body(p, m, s, (size_t)(e - p->b), path));
        pos = (size_t)(e - p->b) + DSML_LEN(D_EOS);
        state = BARE;
    }
    if (r->nmessages == 0)
        return tw_rq_fail(&p->d, TW_ERR_INVALID, 0, "", "the prompt has no messages");
    if (p->on_at >= 0 && p->off_at >= 0)
        return tw_rq_fail(&p->d, TW_ERR_INVALID, p->on_at > p->off_at ? p->on_at : p->off_at, "",
                          "the turns after the last user turn disagree on thinking (<think> "
                          "and </think> alone)");
    if (gen)
        TRY(set_option(r, "add_generation_prompt"));
    if (p->on_at >= 0)
        TRY(set_option(r, "thinking"));
    return tw_rq_link_results(&p->d, FMT);
}

tw_status tw_dsml_prompt_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                tw_request *out, tw_error *err)
{
    rp p;
    memset(&p, 0, sizeof p);
    tw_rq_begin(&p.d, o, out, err);
    p.b = buf ? buf : "";
    p.n = len;
    p.on_at = p.off_at = -1;
    tw_status st;
    if (len > p.d.l.max_input_bytes)
        st = tw_rq_fail(&p.d, TW_ERR_LIMIT, -1, "",
                        "the prompt is %zu bytes, more than max_input_bytes (%zu)", len,
                        p.d.l.max_input_bytes);
    else
        st = body(&p);
    if (st != TW_OK && err && !err->message[0])
        tw_rq_fail(&p.d, st, -1, "", FMT ": %s", tw_code_message(st));
    if (st != TW_OK) {
        tw_request_free(out);
        out->parallel_tool_calls = -1;
    }
    return st;
}

const tw_request_reader_ops tw_reader_deepseek_v32_prompt = {
    FMT, "the DeepSeek V3.2 prompt (DSML history calls, <function_results>)",
    tw_dsml_prompt_decode};
