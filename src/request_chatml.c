/*
 * Request decoder for the Hermes/Qwen3 ChatML prompt (the inverse of the
 * hermes-prompt encoder). Rules: docs/formats/hermes.md.
 */
#include "toolwire/request_chatml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwen_text.h"
#include "request_read.h"
#include "tw_macros.h"
#include "toolwire/json.h"

#define LIT(s) (s), (sizeof(s) - 1)

static const char IM_START[] = "<|im_start|>";
static const char IM_END[] = "<|im_end|>\n";
static const char EMPTY_THINK[] = "<think>\n\n</think>\n\n";

typedef struct hp {
    tw_rq d;
    const char *buf;
    size_t len;
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
    if (count > h->d.l.max_tools)
        return tw_rq_fail(&h->d, TW_ERR_LIMIT, (int64_t)at, path,
                          "more than max_tools (%zu) tools", h->d.l.max_tools);
    if (!count)
        return TW_OK;
    if (!(r->tools = calloc(count, sizeof *r->tools)))
        return TW_ERR_NOMEM;
    size_t i = 0;
    while (i < n) {
        size_t s = i + 1, e = s;
        while (e < n && p[e] != '\n')
            e++;
        char tp[64];
        snprintf(tp, sizeof tp, "%s.tools[%zu]", path, r->ntools);
        cJSON *j = NULL;
        tw_error je;
        tw_status st = tw_json_parse(p + s, e - s, h->d.l.max_depth, &j, &je);
        if (st == TW_ERR_NOMEM)
            return st;
        if (st != TW_OK)
            return tw_rq_fail_json(&h->d, st, &je, (int64_t)(at + s), tp);
        tw_error te;
        tw_error_clear(&te);
        st = tw_tool_read(j, &r->tools[r->ntools], &te);
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
    tw_message *m;
    TRY(tw_rq_push(&h->d, path, &m));
    m->role = TW_ROLE_SYSTEM;
    return set_content(m, b, n);
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
    if (starts_with(b, n, OPEN + 1, ko - 1) && ends_with(b, n, CLOSE, kc) &&
        n >= ko - 1 + kc) {
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
    if (close) {
        const char *t = b + 7;
        size_t tn = (size_t)(close - t);
        strip_nl(&t, &tn, true, true);
        if (tn)
            TRY(tw_buf_append(&m->thinking, t, tn));
        const char *c = close + 8;
        size_t cn = n - (size_t)(c - b);
        strip_nl(&c, &cn, true, false);
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
    return tw_rq_take_calls(&h->d, m, path);
}

static tw_status prompt_body(hp *h)
{
    const char *b = h->buf;
    size_t n = h->len, pos = 0, turn = 0;
    const size_t ks = sizeof IM_START - 1, ke = sizeof IM_END - 1;
    tw_request *r = h->d.req;
    if (n == 0)
        return tw_rq_fail(&h->d, TW_ERR_INVALID, 0, "", "the prompt has no turns");
    while (pos < n) {
        char path[40];
        snprintf(path, sizeof path, "turns[%zu]", turn);
        if (!starts_with(b + pos, n - pos, IM_START, ks))
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)pos, path,
                              "expected <|im_start|> at byte %zu", pos);
        size_t rs = pos + ks, re = rs;
        while (re < n && re - rs < 16 && b[re] != '\n')
            re++;
        if (re >= n || b[re] != '\n')
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)rs, path,
                              "the role must be followed by a newline");
        size_t rl = re - rs, bs = re + 1;
        bool is_sys = rl == 6 && memcmp(b + rs, "system", 6) == 0;
        bool is_user = rl == 4 && memcmp(b + rs, "user", 4) == 0;
        bool is_asst = rl == 9 && memcmp(b + rs, "assistant", 9) == 0;
        if (!is_sys && !is_user && !is_asst)
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)rs, path,
                              "unknown role '%.*s' (system, user or assistant)", (int)rl, b + rs);
        const char *end = tw_memmem(b + bs, n - bs, IM_END, ke - 1);
        if (!end) {
            /* only the generation prompt may stay open */
            size_t rest = n - bs;
            bool empty_think = rest == sizeof EMPTY_THINK - 1 &&
                               memcmp(b + bs, EMPTY_THINK, rest) == 0;
            if (!is_asst || (rest && !empty_think))
                return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)pos, path,
                                  "the turn is not closed by <|im_end|>");
            TRY(put_bool_option(r, "add_generation_prompt", true));
            if (empty_think)
                TRY(put_bool_option(r, "enable_thinking", false));
            break;
        }
        size_t be = (size_t)(end - b);
        if (be + ke > n || b[be + ke - 1] != '\n')
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)(be + ke - 1), path,
                              "<|im_end|> must be followed by a newline");
        const char *body = b + bs;
        size_t bn = be - bs;
        if (is_sys && turn == 0)
            TRY(first_system(h, body, bn, bs, path));
        else if (is_sys) {
            tw_message *m;
            TRY(tw_rq_push(&h->d, path, &m));
            m->role = TW_ROLE_SYSTEM;
            TRY(set_content(m, body, bn));
        } else if (is_user)
            TRY(user_turn(h, body, bn, path));
        else
            TRY(assistant_turn(h, body, bn, path));
        pos = be + ke;
        turn++;
    }
    return tw_rq_link_results(&h->d, "hermes-prompt");
}

tw_status tw_hermes_prompt_decode(const char *buf, size_t len, const tw_limits *limits,
                                  tw_request *out, tw_diag_list *warnings,
                                  tw_error *err)
{
    hp h;
    tw_rq_begin(&h.d, limits, out, warnings, err);
    h.buf = buf;
    h.len = len;
    if (len > h.d.l.max_input_bytes)
        return tw_rq_fail(&h.d, TW_ERR_LIMIT, -1, "",
                          "the prompt is %zu bytes, more than max_input_bytes (%zu)", len,
                          h.d.l.max_input_bytes);
    tw_status st = prompt_body(&h);
    if (st == TW_ERR_NOMEM && err && !err->message[0])
        tw_rq_fail(&h.d, st, -1, "", "out of memory");
    if (st != TW_OK) {
        tw_request_free(out);
        out->parallel_tool_calls = -1;
    }
    return st;
}
