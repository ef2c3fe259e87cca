/*
 * Request decoder for the Hermes/Qwen3 ChatML prompt (the inverse of the
 * hermes-prompt encoder), plus the helpers the vLLM-native request decoder
 * shares with it. Rules: docs/formats/hermes.md.
 */
#include "request_read.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolwire/hermes_encode.h"
#include "qwen_text.h"
#include "tw_macros.h"

#define LIT(s) (s), (sizeof(s) - 1)

/* ===================== shared helpers ===================== */

void tw_rq_begin(tw_rq *d, const tw_limits *limits, tw_request *out, tw_diag_list *warnings,
                 tw_request_error *err)
{
    memset(d, 0, sizeof *d);
    memset(out, 0, sizeof *out);
    out->parallel_tool_calls = -1;
    if (err)
        memset(err, 0, sizeof *err);
    tw_limits_resolve(&d->l, limits);
    d->warnings = warnings;
    d->err = err;
    d->req = out;
}

tw_status tw_rq_fail(tw_rq *d, tw_status code, int64_t offset, const char *path,
                     const char *fmt, ...)
{
    if (d->err) {
        char reason[192];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(reason, sizeof reason, fmt, ap);
        va_end(ap);
        d->err->code = code;
        d->err->offset = offset > 0 ? (size_t)offset : 0;
        snprintf(d->err->path, sizeof d->err->path, "%s", path);
        snprintf(d->err->message, sizeof d->err->message, "%s: %s", path[0] ? path : "(root)",
                 reason);
    }
    return code;
}

tw_status tw_rq_warn(tw_rq *d, tw_status code, const char *fmt, ...)
{
    if (!d->warnings)
        return TW_OK;
    char tmp[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    return tw_diag_add(d->warnings, code, -1, tmp);
}

tw_status tw_rq_choice_word(tw_rq *d, const char *s)
{
    tw_request *r = d->req;
    if (strcmp(s, "auto") == 0)
        r->choice = TW_CHOICE_AUTO;
    else if (strcmp(s, "none") == 0)
        r->choice = TW_CHOICE_NONE;
    else if (strcmp(s, "required") == 0)
        r->choice = TW_CHOICE_REQUIRED;
    else
        return tw_rq_fail(d, TW_ERR_INVALID, -1, "tool_choice", "unknown value '%s'", s);
    return TW_OK;
}

tw_status tw_rq_put_option(tw_rq *d, const char *key, const cJSON *v)
{
    tw_request *r = d->req;
    if (!r->options && !(r->options = cJSON_CreateObject()))
        return TW_ERR_NOMEM;
    cJSON *c = cJSON_Duplicate(v, 1);
    if (!c)
        return TW_ERR_NOMEM;
    cJSON_DeleteItemFromObjectCaseSensitive(r->options, key);
    if (!cJSON_AddItemToObject(r->options, key, c)) {
        cJSON_Delete(c);
        return TW_ERR_NOMEM;
    }
    return TW_OK;
}

tw_status tw_rq_tools_begin(tw_rq *d, const cJSON *arr, size_t *cnt)
{
    tw_request *r = d->req;
    r->tools_present = true;
    *cnt = 0;
    if (!cJSON_IsArray(arr))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, "tools", "must be an array");
    *cnt = (size_t)cJSON_GetArraySize(arr);
    if (*cnt > d->l.max_tools)
        return tw_rq_fail(d, TW_ERR_LIMIT, -1, "tools", "more than max_tools (%zu) tools",
                          d->l.max_tools);
    if (*cnt && !(r->tools = calloc(*cnt, sizeof *r->tools)))
        return TW_ERR_NOMEM;
    return TW_OK;
}

tw_status tw_rq_read_tool(tw_rq *d, const cJSON *t, const char *path)
{
    tw_request *r = d->req;
    char why[200] = "";
    tw_status st = tw_tool_read(t, &r->tools[r->ntools], why, sizeof why);
    if (st == TW_ERR_NOMEM)
        return st;
    if (st != TW_OK)
        return tw_rq_fail(d, st, -1, path, "%s", why);
    r->ntools++;
    return TW_OK;
}

tw_status tw_rq_message_head(tw_rq *d, const cJSON *j, size_t i, char *path, size_t pathlen,
                             char *p, size_t plen, const char **role)
{
    snprintf(path, pathlen, "messages[%zu]", i);
    if (!cJSON_IsObject(j))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, path, "must be an object");
    *role = tw_json_get_str(j, "role");
    snprintf(p, plen, "%s.role", path);
    if (!*role)
        return tw_rq_fail(d, TW_ERR_INVALID, -1, p, "missing; a string is required");
    return TW_OK;
}

tw_status tw_rq_push(tw_rq *d, const char *path, tw_message **out)
{
    tw_request *r = d->req;
    if (r->nmessages >= d->l.max_messages)
        return tw_rq_fail(d, TW_ERR_LIMIT, -1, path, "more than max_messages (%zu) messages",
                          d->l.max_messages);
    if (r->nmessages == d->cap_messages) {
        size_t ncap = d->cap_messages ? d->cap_messages * 2 : 8;
        if (ncap > d->l.max_messages)
            ncap = d->l.max_messages;
        tw_message *n = realloc(r->messages, ncap * sizeof *n);
        if (!n)
            return TW_ERR_NOMEM;
        r->messages = n;
        d->cap_messages = ncap;
    }
    tw_message *m = &r->messages[r->nmessages++];
    memset(m, 0, sizeof *m);
    *out = m;
    return TW_OK;
}

/* Last occurrence of lit[0, k) in p[0, n), or NULL. */
static const char *rfind(const char *p, size_t n, const char *lit, size_t k)
{
    if (n < k)
        return NULL;
    for (size_t i = n - k + 1; i-- > 0;)
        if (p[i] == lit[0] && memcmp(p + i, lit, k) == 0)
            return p + i;
    return NULL;
}

static bool ends_with(const char *p, size_t n, const char *lit, size_t k)
{
    return n >= k && memcmp(p + n - k, lit, k) == 0;
}

static bool starts_with(const char *p, size_t n, const char *lit, size_t k)
{
    return n >= k && memcmp(p, lit, k) == 0;
}

/* Read one <tool_call> payload as {"name": N, "arguments": {…}} (those two
 * keys only). TW_OK with c filled; TW_ERR_PARSE (why set) when it is not
 * such an object; TW_ERR_NOMEM. */
static tw_status read_payload(const tw_limits *l, const char *p, size_t n, tw_call *c,
                              tw_status *code, const char **why)
{
    memset(c, 0, sizeof *c);
    c->offset = -1;
    *code = TW_D_TOOL_CALL_JSON;
    cJSON *j = NULL;
    tw_json_error je;
    tw_status st = tw_json_parse(p, n, l->max_depth, &j, &je);
    if (st == TW_ERR_NOMEM)
        return st;
    if (st != TW_OK) {
        if (je.code == TW_D_JSON_TOO_DEEP)
            *code = TW_D_JSON_TOO_DEEP;
        *why = "is not valid JSON";
        return TW_ERR_PARSE;
    }
    /* number spellings kept by tw_json_parse */
    const char *name = tw_json_get_str(j, "name");
    cJSON *args = cJSON_GetObjectItemCaseSensitive(j, "arguments");
    if (!cJSON_IsObject(j) || cJSON_GetArraySize(j) != 2 || !name || !name[0] ||
        !cJSON_IsObject(args)) {
        cJSON_Delete(j);
        *why = "is not an object of exactly a non-empty \"name\" and an object \"arguments\"";
        return TW_ERR_PARSE;
    }
    c->name = tw_strdup(name);
    c->arguments = cJSON_DetachItemViaPointer(j, args);
    cJSON_Delete(j);
    if (!c->name || !c->arguments) {
        tw_call_free(c);
        return TW_ERR_NOMEM;
    }
    return TW_OK;
}

static void free_calls(tw_call *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tw_call_free(&v[i]);
    free(v);
}

tw_status tw_rq_take_calls(tw_rq *d, tw_message *m, const char *path)
{
    static const char OPEN[] = "<tool_call>\n", CLOSE[] = "\n</tool_call>";
    const size_t ko = sizeof OPEN - 1, kc = sizeof CLOSE - 1;
    const char *s = m->content.data;
    size_t end = m->content.len;
    if (!s)
        return TW_OK;
    tw_call *found = NULL; /* last block first */
    size_t nfound = 0, cap = 0;
    tw_status st = TW_OK;
    while (ends_with(s, end, CLOSE, kc)) {
        const char *open = rfind(s, end - kc, OPEN, ko);
        if (!open)
            break;
        size_t q = (size_t)(open - s);
        if (q > 0 && s[q - 1] != '\n') {
            st = tw_rq_warn(d, TW_D_TOOL_CALL_JSON,
                            "%s: a <tool_call> block not on a line of its own is kept as content",
                            path);
            break;
        }
        const char *payload = open + ko;
        size_t plen = end - kc - (q + ko);
        if (plen > d->l.max_args_bytes) {
            st = tw_rq_fail(d, TW_ERR_LIMIT, (int64_t)q, path,
                            "a <tool_call> payload of %zu bytes, more than max_args_bytes (%zu)",
                            plen, d->l.max_args_bytes);
            break;
        }
        tw_call c;
        tw_status code;
        const char *why = "";
        st = read_payload(&d->l, payload, plen, &c, &code, &why);
        if (st == TW_ERR_PARSE) {
            st = tw_rq_warn(d, code, "%s: a <tool_call> block that %s is kept as content", path,
                            why);
            break;
        }
        if (st != TW_OK)
            break;
        if (nfound >= d->l.max_calls || m->ncalls + nfound >= d->l.max_calls) {
            tw_call_free(&c);
            st = tw_rq_fail(d, TW_ERR_LIMIT, (int64_t)q, path,
                            "more than max_calls (%zu) tool calls", d->l.max_calls);
            break;
        }
        if (nfound == cap) {
            size_t ncap = cap ? cap * 2 : 4;
            tw_call *nv = realloc(found, ncap * sizeof *nv);
            if (!nv) {
                tw_call_free(&c);
                st = TW_ERR_NOMEM;
                break;
            }
            found = nv;
            cap = ncap;
        }
        found[nfound++] = c;
        end = q > 0 ? q - 1 : 0;
    }
    if (st != TW_OK) {
        free_calls(found, nfound);
        return st;
    }
    if (nfound) {
        m->content.len = end;
        m->content.data[end] = '\0';
    }
    for (size_t i = nfound; st == TW_OK && i-- > 0;) {
        char id[32];
        snprintf(id, sizeof id, "call_%zu", ++d->next_id);
        if (!(found[i].id = tw_strdup(id)))
            st = TW_ERR_NOMEM;
        else
            st = tw_message_add_call(m, &found[i]);
    }
    free_calls(found, nfound); /* added calls were zeroed */
    return st;
}

tw_status tw_rq_link_results(tw_rq *d, const char *fmt)
{
    tw_request *r = d->req;
    for (size_t i = 0; i < r->nmessages; i++) {
        if (r->messages[i].role != TW_ROLE_TOOL)
            continue;
        const tw_message *a = i > 0 && r->messages[i - 1].role == TW_ROLE_ASSISTANT
                                  ? &r->messages[i - 1]
                                  : NULL;
        size_t k = 0;
        for (; i < r->nmessages && r->messages[i].role == TW_ROLE_TOOL; i++, k++) {
            tw_message *m = &r->messages[i];
            if (m->tool_call_id)
                continue;
            if (a && k < a->ncalls) {
                m->tool_call_id = tw_strdup(a->calls[k].id);
                m->name = tw_strdup(a->calls[k].name);
                if (!m->tool_call_id || !m->name)
                    return TW_ERR_NOMEM;
                continue;
            }
            char id[32];
            snprintf(id, sizeof id, "call_%zu", ++d->next_id);
            if (!(m->tool_call_id = tw_strdup(id)))
                return TW_ERR_NOMEM;
            TRY(tw_rq_warn(d, TW_D_NOT_CARRIED,
                           "%s: tool result %zu answers no call of the assistant message before "
                           "it; given the id %s",
                           fmt, i, id));
        }
        i--; /* the loop's i++ moves past the run */
    }
    return TW_OK;
}

/* ===================== the ChatML prompt ===================== */

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
        tw_json_error je;
        tw_status st = tw_json_parse(p + s, e - s, h->d.l.max_depth, &j, &je);
        if (st == TW_ERR_NOMEM)
            return st;
        if (st != TW_OK)
            return tw_rq_fail(&h->d, st, (int64_t)(at + s + je.offset), tp, "%s", je.message);
        char why[200] = "";
        st = tw_tool_read(j, &r->tools[r->ntools], why, sizeof why);
        cJSON_Delete(j);
        if (st == TW_ERR_NOMEM)
            return st;
        if (st != TW_OK)
            return tw_rq_fail(&h->d, st, (int64_t)(at + s), tp, "%s",
                              why[0] ? why : tw_code_message(st));
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
                                  tw_request_error *err)
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
