/*
 * Gemma 4 prompts: the reader of the Gemma 4 chat template (gemma-4-prompt):
 * a rendered prompt back to a neutral request, which the encoder
 * (gemma_prompt.c) writes again as the same bytes. Also the reading of a
 * tool declaration back into a schema, which the encoder uses to tell what
 * a declaration does not carry. Rules: docs/formats/gemma4.md, "The prompt".
 */
#include "alloc.h"
#include "toolwire/gemma.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "gemma_text.h"
#include "request_read.h"
#include "tw_macros.h"
#include "toolwire/json.h"

/* ===================== the schema, read back ===================== */

/* A type as the declaration wrote it (upper case) back to JSON Schema: a
 * word in lower case, Python's repr of a list (['STRING', 'NULL']) as the
 * list; the empty text (no type) removes the member. */
static tw_status type_back(cJSON *parent, cJSON *t)
{
    if (cJSON_IsArray(t)) {
        for (cJSON *c = t->child; c; c = c->next)
            if (cJSON_IsString(c))
                for (char *q = c->valuestring; *q; q++)
                    if (*q >= 'A' && *q <= 'Z')
                        *q = (char)(*q + 32);
        return TW_OK;
    }
    if (!cJSON_IsString(t))
        return TW_OK;
    char *s = t->valuestring;
    size_t n = strlen(s);
    if (n == 0) {
        cJSON_DeleteItemFromObjectCaseSensitive(parent, "type");
        return TW_OK;
    }
    for (char *q = s; *q; q++)
        if (*q >= 'A' && *q <= 'Z')
            *q = (char)(*q + 32);
    if (!(s[0] == '[' && s[n - 1] == ']'))
        return TW_OK;
    cJSON *arr = cJSON_CreateArray();
    if (!arr)
        return TW_ERR_NOMEM;
    size_t i = 1;
    while (i < n - 1) {
        const char *close = s[i] == '\'' ? memchr(s + i + 1, '\'', n - i - 1) : NULL;
        if (!close) {
            cJSON_Delete(arr);
            return TW_OK; /* not a list's repr: the text as it is */
        }
        size_t a = i + 1, e = (size_t)(close - s);
        char *w = tw_strndup(s + a, e - a);
        cJSON *it = w ? cJSON_CreateString(w) : NULL;
        tw_free(w);
        if (!it || !cJSON_AddItemToArray(arr, it)) {
            cJSON_Delete(it);
            cJSON_Delete(arr);
            return TW_ERR_NOMEM;
        }
        i = e + 1;
        if (i + 2 <= n - 1 && s[i] == ',' && s[i + 1] == ' ')
            i += 2;
    }
    return cJSON_ReplaceItemInObjectCaseSensitive(parent, "type", arr) ? TW_OK : TW_ERR_NOMEM;
}

static tw_status props_back(cJSON *props, size_t depth, size_t max_depth);

/* The members of an array's items schema. */
static tw_status items_back(cJSON *it, size_t depth, size_t max_depth)
{
    if (!cJSON_IsObject(it) || depth > max_depth)
        return TW_OK;
    cJSON *next;
    for (cJSON *c = it->child; c; c = next) {
        next = c->next;
        if (strcmp(c->string, "properties") == 0)
            TRY(props_back(c, depth + 1, max_depth));
        else if (strcmp(c->string, "type") == 0)
            TRY(type_back(it, c));
    }
    return TW_OK;
}

/* One property's schema. */
static tw_status prop_back(cJSON *v, size_t depth, size_t max_depth)
{
    if (!cJSON_IsObject(v) || depth > max_depth)
        return TW_OK;
    cJSON *next;
    for (cJSON *c = v->child; c; c = next) {
        next = c->next;
        if (strcmp(c->string, "type") == 0)
            TRY(type_back(v, c));
        else if (strcmp(c->string, "properties") == 0)
            TRY(props_back(c, depth + 1, max_depth));
        else if (strcmp(c->string, "items") == 0)
            TRY(items_back(c, depth + 1, max_depth));
    }
    return TW_OK;
}

static tw_status props_back(cJSON *props, size_t depth, size_t max_depth)
{
    if (!cJSON_IsObject(props) || depth > max_depth)
        return TW_OK;
    for (cJSON *c = props->child; c; c = c->next)
        TRY(prop_back(c, depth + 1, max_depth));
    return TW_OK;
}

/*
 * One declaration b[at, n): "<|tool>declaration:NAME{…}<tool|>" into *tool
 * ({"name", "description", "parameters"}, the caller deletes it) and *end
 * past it. A declaration that does not read leaves *tool NULL, *why a
 * static reason and *where its byte; TW_OK. TW_ERR_NOMEM.
 */
tw_status tw_gemma_decl_read(const char *b, size_t at, size_t n, size_t max_depth, cJSON **tool,
                             size_t *end, const char **why, size_t *where)
{
    *tool = NULL;
    *why = NULL;
    *where = at;
    if (!starts_with(b + at, n - at, LIT(DECL_HEAD))) {
        *why = "expected <|tool>declaration:NAME{";
        return TW_OK;
    }
    size_t ns = at + MLEN(DECL_HEAD);
    const char *te = tw_memmem(b + ns, n - ns, LIT(G_TOOL_END));
    const char *br = te ? memchr(b + ns, '{', (size_t)(te - b) - ns) : NULL;
    if (!br || br == b + ns) {
        *why = "a declaration names no tool before its '{' or is not ended by <tool|>";
        return TW_OK;
    }
    size_t bs = (size_t)(br - b), be = (size_t)(te - b);
    tw_buf j = {0};
    size_t p = bs;
    const char *what;
    tw_status code;
    tw_status st = tw_gemma_brace_json(b, be, &p, max_depth, true, &j, &what, &code);
    if (st == TW_OK && (what || p != be) && be - bs >= 2 && b[be - 1] == '}') {
        /* parameters without a type: the template leaves them unclosed */
        tw_buf t = {0};
        st = tw_buf_append(&t, b + bs, be - bs);
        if (st == TW_OK)
            st = tw_buf_putc(&t, '}');
        size_t q = 0;
        j.len = 0;
        if (st == TW_OK)
            st = tw_gemma_brace_json(t.data, t.len, &q, max_depth, true, &j, &what, &code);
        if (st == TW_OK && !what && q != t.len)
            what = "text after the declaration's '}'";
        p = bs + (q < t.len ? q : be - bs);
        tw_buf_free(&t);
    } else if (st == TW_OK && !what && p != be) {
        what = "text after the declaration's '}'";
    }
    cJSON *d = NULL;
    tw_error je;
    if (st == TW_OK && !what) {
        tw_status ps = tw_json_parse(j.data, j.len, max_depth, &d, &je);
        if (ps == TW_ERR_NOMEM)
            st = ps;
        else if (ps != TW_OK || !cJSON_IsObject(d))
            what = "a declaration that is not an object";
    }
    tw_buf_free(&j);
    if (st != TW_OK || what) {
        cJSON_Delete(d);
        *why = what;
        *where = p;
        return st;
    }
    cJSON *t = cJSON_CreateObject();
    char *name = tw_strndup(b + ns, bs - ns);
    if (!t || !name || !cJSON_AddStringToObject(t, "name", name)) {
        tw_free(name);
        cJSON_Delete(t);
        cJSON_Delete(d);
        return TW_ERR_NOMEM;
    }
    tw_free(name);
    cJSON *desc = cJSON_DetachItemFromObjectCaseSensitive(d, "description");
    if (cJSON_IsString(desc) && desc->valuestring[0])
        cJSON_AddItemToObjectCS(t, "description", desc); /* a static key: no allocation */
    else
        cJSON_Delete(desc);
    cJSON *params = cJSON_DetachItemFromObjectCaseSensitive(d, "parameters");
    cJSON_Delete(d);
    if (params) {
        cJSON_AddItemToObjectCS(t, "parameters", params);
        if (cJSON_IsObject(params)) {
            cJSON *ty = cJSON_GetObjectItemCaseSensitive(params, "type");
            st = ty ? type_back(params, ty) : TW_OK;
            if (st == TW_OK)
                st = props_back(cJSON_GetObjectItemCaseSensitive(params, "properties"), 1,
                                max_depth);
        }
    }
    if (st != TW_OK) {
        cJSON_Delete(t);
        return st;
    }
    *tool = t;
    *end = be + MLEN(G_TOOL_END);
    return TW_OK;
}

/* The call of calls[0, n) a result named `name` at place k of its run is
 * read back as answering: the k-th when it has that name, else the first
 * of that name; n when none. */
size_t tw_gemma_pick_call(const tw_call *calls, size_t n, size_t k, const char *name)
{
    if (k < n && strcmp(str_or(calls[k].name), name) == 0)
        return k;
    for (size_t j = 0; j < n; j++)
        if (strcmp(str_or(calls[j].name), name) == 0)
            return j;
    return n;
}

/* ===================== the reader ===================== */

/* The literals the reader searches for, each with the last search's answer
 * kept: the first occurrence at or after any p between where that search
 * started and what it found is what it found, so every search goes on
 * where the previous one stopped (linear however many turns ask). */
enum { F_EOT, F_RESP, F_VALUE, F_TAIL, F_THOUGHT_CLOSE, F_TURN, F_BRACE, NF };
static const char *const f_lit[NF] = {EOT_NL,        G_RESP, RESP_VALUE, RESP_TAIL,
                                      THOUGHT_CLOSE, G_TURN, "{"};

typedef struct gfind {
    bool set;
    size_t from, at; /* a search from `from` found the literal at `at` (n: nowhere) */
} gfind;

typedef struct gr {
    tw_rq d;
    const char *b;
    size_t n;
    size_t ncalls; /* calls read so far: their ids call_<n> */
    gfind f[NF];
} gr;

/* The first literal `which` at or after p, or n. */
static size_t find_c(gr *h, int which, size_t p)
{
    gfind *f = &h->f[which];
    if (f->set && p >= f->from && p <= f->at)
        return f->at;
    const char *lit = f_lit[which];
    const char *hit = p <= h->n ? tw_memmem(h->b + p, h->n - p, lit, strlen(lit)) : NULL;
    f->set = true;
    f->from = p;
    f->at = hit ? (size_t)(hit - h->b) : h->n;
    return f->at;
}

static tw_status set_text(tw_buf *t, const char *p, size_t n)
{
    return n ? tw_buf_append(t, p, n) : TW_OK;
}

static bool at_lit(const gr *h, size_t p, const char *lit, size_t k)
{
    return p <= h->n && starts_with(h->b + p, h->n - p, lit, k);
}

/* The tools of the system turn, declarations [at, end). A declaration that
 * does not read is left out with a warning; one holding a NUL byte (no
 * name or schema keeps it) refuses the prompt. */
static tw_status read_tools(gr *h, size_t at, size_t end)
{
    if (memchr(h->b + at, '\0', end - at))
        return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)at, "tools",
                          "a NUL byte in the tool declarations at byte %zu", at);
    cJSON *arr = cJSON_CreateArray();
    if (!arr)
        return TW_ERR_NOMEM;
    tw_status st = TW_OK;
    size_t p = at;
    while (st == TW_OK && p < end) {
        cJSON *t;
        size_t next = end, where;
        const char *why;
        st = tw_gemma_decl_read(h->b, p, end, h->d.l.max_depth, &t, &next, &why, &where);
        if (st == TW_OK && !t) {
            const char *te = tw_memmem(h->b + p, end - p, LIT(G_TOOL_END));
            if (!starts_with(h->b + p, end - p, LIT(G_TOOL)) || !te)
                st = tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)where, "tools", "%s at byte %zu",
                                why, where);
            else
                st = tw_rq_warn_at(&h->d, TW_D_NOT_CARRIED, (int64_t)where,
                                   "a tool declaration left out: %s at byte %zu", why, where);
            next = te ? (size_t)(te - h->b) + MLEN(G_TOOL_END) : end;
        } else if (st == TW_OK && cJSON_GetArraySize(arr) >= (int)h->d.l.max_tools) {
            st = tw_rq_fail(&h->d, TW_ERR_LIMIT, (int64_t)p, "tools",
                            "more than max_tools (%zu) tools", h->d.l.max_tools);
        } else if (st == TW_OK && !cJSON_AddItemToArray(arr, t)) {
            st = TW_ERR_NOMEM;
        } else {
            t = NULL; /* the array owns it */
        }
        cJSON_Delete(t);
        p = next;
    }
    size_t cnt = 0;
    if (st == TW_OK && cJSON_GetArraySize(arr) > 0)
        st = tw_rq_tools_begin(&h->d, arr, &cnt);
    for (size_t i = 0; i < cnt && st == TW_OK; i++) {
        char path[40];
        snprintf(path, sizeof path, "tools[%zu]", i);
        st = tw_rq_read_tool(&h->d, cJSON_GetArrayItem(arr, (int)i), path);
    }
    cJSON_Delete(arr);
    return st;
}

static tw_status push_call(gr *h, tw_message *m, const char *name, size_t nlen, int64_t at,
                           cJSON *args)
{
    if (m->ncalls >= h->d.l.max_calls) {
        cJSON_Delete(args);
        return tw_rq_fail(&h->d, TW_ERR_LIMIT, at, "calls", "more than max_calls (%zu) calls",
                          h->d.l.max_calls);
    }
    if (m->ncalls == m->cap_calls) {
        size_t cap = m->cap_calls ? 2 * m->cap_calls : 4;
        tw_call *nc = tw_realloc(m->calls, cap * sizeof *nc);
        if (!nc) {
            cJSON_Delete(args);
            return TW_ERR_NOMEM;
        }
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
    c->arguments = args;
    return c->name && c->id && c->arguments ? TW_OK : TW_ERR_NOMEM;
}

/* <|tool_call>call:NAME{…}<tool_call|> at *p into message m. A call that
 * does not read leaves *ok false (a tool_call_json warning; the text stays
 * for the content); arguments past max_args_bytes or max_depth refuse. */
static tw_status read_call(gr *h, tw_message *m, size_t *p, const char *path, bool *ok)
{
    size_t at = *p, ns = at + MLEN(CALL_HEAD);
    size_t q = find_c(h, F_BRACE, ns);
    *ok = false;
    if (q >= h->n || q == ns || memchr(h->b + ns, '\0', q - ns))
        return tw_rq_warn_at(&h->d, TW_D_TOOL_CALL_JSON, (int64_t)at,
                             "a call at byte %zu names no function before its '{'; kept as text",
                             at);
    tw_buf j = {0};
    const char *what;
    tw_status code;
    TRY(tw_gemma_brace_json(h->b, h->n, &q, h->d.l.max_depth, true, &j, &what, &code));
    tw_status st = TW_OK;
    cJSON *args = NULL;
    if (what && code == TW_D_JSON_TOO_DEEP)
        st = tw_rq_refuse(&h->d, TW_ERR_LIMIT, TW_D_JSON_TOO_DEEP, (int64_t)q, path,
                          "arguments nested deeper than max_depth at byte %zu", q);
    else if (!what && at_lit(h, q, LIT(G_CALL_END)) && j.len > h->d.l.max_args_bytes)
        st = tw_rq_fail(&h->d, TW_ERR_LIMIT, (int64_t)at, path,
                        "arguments of %zu bytes, more than max_args_bytes (%zu)", j.len,
                        h->d.l.max_args_bytes);
    else if (!what && at_lit(h, q, LIT(G_CALL_END))) {
        tw_error je;
        tw_status ps = tw_json_parse(j.data, j.len, h->d.l.max_depth, &args, &je);
        if (ps == TW_ERR_NOMEM)
            st = ps;
        else if (ps != TW_OK) /* a NUL in a string: no argument holds one */
            what = "arguments that are no JSON object";
    } else if (!what) {
        what = "no " G_CALL_END " after the arguments";
    }
    tw_buf_free(&j);
    if (st == TW_OK && what)
        st = tw_rq_warn_at(&h->d, TW_D_TOOL_CALL_JSON, (int64_t)at,
                           "the call at byte %zu does not read (%s at byte %zu); kept as text", at,
                           what, q);
    if (st != TW_OK || what) {
        cJSON_Delete(args);
        return st;
    }
    size_t br = find_c(h, F_BRACE, ns);
    TRY(push_call(h, m, h->b + ns, br - ns, (int64_t)at, args));
    *p = q + MLEN(G_CALL_END);
    *ok = true;
    return TW_OK;
}

/* <|tool_response>response:NAME{value:<|"|>R<|"|>}<tool_response|> at *p,
 * the k-th result of assistant message ai's calls. A result that does not
 * read leaves *ok false (its text stays for the content). */
static tw_status read_result(gr *h, size_t ai, size_t k, size_t *p, const char *path, bool *ok)
{
    size_t at = *p, ns = at + MLEN(RESP_HEAD);
    size_t v = find_c(h, F_VALUE, ns), br = find_c(h, F_BRACE, ns);
    size_t e = v < h->n ? find_c(h, F_TAIL, v + MLEN(RESP_VALUE)) : h->n;
    *ok = false;
    if (e >= h->n || br != v || memchr(h->b + ns, '\0', v - ns))
        return tw_rq_warn_at(&h->d, TW_D_TOOL_CALL_JSON, (int64_t)at,
                             "a tool result at byte %zu does not read as response:NAME{value:"
                             "<|\"|>…<|\"|>}<tool_response|>; kept as text",
                             at);
    tw_message *m;
    TRY(tw_rq_push(&h->d, path, &m));
    m->role = TW_ROLE_TOOL;
    size_t cs = v + MLEN(RESP_VALUE);
    if (!(m->name = tw_strndup(h->b + ns, v - ns)))
        return TW_ERR_NOMEM;
    TRY(set_text(&m->content, h->b + cs, e - cs));
    const tw_message *a = &h->d.req->messages[ai];
    size_t c = tw_gemma_pick_call(a->calls, a->ncalls, k, m->name);
    if (c < a->ncalls) {
        if (!(m->tool_call_id = tw_strndup(a->calls[c].id, strlen(a->calls[c].id))))
            return TW_ERR_NOMEM;
    } else {
        TRY(tw_rq_warn_at(&h->d, TW_D_NOT_CARRIED, (int64_t)at,
                          "the result at byte %zu names %.64s, which no call of its turn is", at,
                          m->name));
    }
    *p = e + MLEN(RESP_TAIL);
    *ok = true;
    return TW_OK;
}

/* Content from pos up to the literal `which` (or, lenient, up to the next
 * <|turn> or the end when it is missing); *pos past it. */
static tw_status read_content(gr *h, tw_message *m, size_t *pos, int which, size_t k)
{
    size_t e = find_c(h, which, *pos), next = e + k;
    if (e >= h->n)
        e = next = find_c(h, F_TURN, *pos);
    TRY(set_text(&m->content, h->b + *pos, e - *pos));
    *pos = next;
    return TW_OK;
}

/* The messages of one model turn from *p (after <|turn>model\n): until the
 * next <|turn> or the end. What does not read as a thought channel, a call
 * or a result is content. */
static tw_status read_model(gr *h, size_t *p, size_t *turn)
{
    size_t pos = *p;
    for (;;) {
        char path[40];
        snprintf(path, sizeof path, "turns[%zu]", (*turn)++);
        h->d.msg_at = (int64_t)pos;
        tw_message *m;
        TRY(tw_rq_push(&h->d, path, &m));
        m->role = TW_ROLE_ASSISTANT;
        size_t ai = h->d.req->nmessages - 1;
        if (at_lit(h, pos, LIT(THOUGHT_OPEN))) {
            size_t ts = pos + MLEN(THOUGHT_OPEN), e = find_c(h, F_THOUGHT_CLOSE, ts);
            if (e < h->n) {
                TRY(set_text(&m->thinking, h->b + ts, e - ts));
                pos = e + MLEN(THOUGHT_CLOSE);
            } else {
                TRY(tw_rq_warn_at(&h->d, TW_D_THINK_UNTERMINATED, (int64_t)pos,
                                  "the thought channel at byte %zu is not closed; kept as text",
                                  pos));
            }
        }
        bool ok = true;
        while (ok && at_lit(h, pos, LIT(CALL_HEAD))) /* m moves as messages are pushed */
            TRY(read_call(h, &h->d.req->messages[ai], &pos, path, &ok));
        size_t ncalls = h->d.req->messages[ai].ncalls, nres = 0;
        ok = true;
        while (ok && ncalls && at_lit(h, pos, LIT(RESP_HEAD))) {
            TRY(read_result(h, ai, nres, &pos, path, &ok));
            nres += ok;
        }
        m = &h->d.req->messages[ai];
        if (ncalls && !nres)
            TRY(read_content(h, m, &pos, F_RESP, MLEN(G_RESP)));
        else if (!(nres && (pos == h->n || at_lit(h, pos, LIT(G_TURN)) ||
                            at_lit(h, pos, LIT(CALL_HEAD)) || at_lit(h, pos, LIT(THOUGHT_OPEN)))))
            TRY(read_content(h, m, &pos, F_EOT, MLEN(EOT_NL)));
        /* else no content: the turn goes on */
        if (pos >= h->n || at_lit(h, pos, LIT(G_TURN)))
            break;
    }
    *p = pos;
    return TW_OK;
}

static tw_status set_option(gr *h, const char *key)
{
    tw_request *r = h->d.req;
    if (!r->options && !(r->options = cJSON_CreateObject()))
        return TW_ERR_NOMEM;
    return cJSON_AddBoolToObject(r->options, key, true) ? TW_OK : TW_ERR_NOMEM;
}

/* A turn's text up to <turn|>\n into a new message of role `role`. */
static tw_status read_plain(gr *h, size_t *p, size_t head, tw_role role, const char *path)
{
    size_t s = *p + head, e = find_c(h, F_EOT, s);
    if (e >= h->n)
        return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)*p, path,
                          "the turn at byte %zu is not closed by " G_EOT, *p);
    tw_message *m;
    TRY(tw_rq_push(&h->d, path, &m));
    m->role = role;
    TRY(set_text(&m->content, h->b + s, e - s));
    *p = e + MLEN(EOT_NL);
    return TW_OK;
}

static tw_status prompt_body(gr *h)
{
    const char *b = h->b;
    size_t n = h->n;
    if (!at_lit(h, 0, LIT(BOS)))
        return tw_rq_fail(&h->d, TW_ERR_INVALID, 0, "", "the prompt does not start with " BOS);
    size_t pos = MLEN(BOS), turn = 0;
    bool think = false;
    if (at_lit(h, pos, LIT(SYS_TURN))) {
        size_t s = pos + MLEN(SYS_TURN);
        if (at_lit(h, s, LIT(THINK_NL))) {
            think = true;
            s += MLEN(THINK_NL);
            TRY(set_option(h, "enable_thinking"));
        }
        size_t end = find_c(h, F_EOT, s);
        if (end >= n)
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)pos, "system",
                              "the system turn is not closed by " G_EOT);
        const char *t = tw_memmem(b + s, end - s, LIT(G_TOOL));
        size_t se = t ? (size_t)(t - b) : end;
        if (se > s || (!think && !t)) {
            tw_message *m;
            h->d.msg_at = (int64_t)pos;
            TRY(tw_rq_push(&h->d, "system", &m));
            m->role = TW_ROLE_SYSTEM;
            TRY(set_text(&m->content, b + s, se - s));
        }
        if (t)
            TRY(read_tools(h, se, end));
        pos = end + MLEN(EOT_NL);
    }
    while (pos < n) {
        char path[40];
        snprintf(path, sizeof path, "turns[%zu]", turn);
        h->d.msg_at = (int64_t)pos;
        if (at_lit(h, pos, LIT(MODEL_TURN))) {
            size_t s = pos + MLEN(MODEL_TURN);
            bool empty = n - s == MLEN(EMPTY_THOUGHT) && at_lit(h, s, LIT(EMPTY_THOUGHT));
            if (s == n || empty) {  /* the generation prompt */
                if (empty == think) /* the template writes the empty channel iff thinking is off */
                    TRY(tw_rq_warn_at(&h->d, TW_D_NOT_CARRIED, (int64_t)pos,
                                      "the generation prompt %s the thought channel though "
                                      "thinking is %s",
                                      empty ? "closes" : "leaves open", think ? "on" : "off"));
                TRY(set_option(h, "add_generation_prompt"));
                break;
            }
            TRY(read_model(h, &s, &turn));
            pos = s;
        } else if (at_lit(h, pos, LIT(USER_TURN))) {
            TRY(read_plain(h, &pos, MLEN(USER_TURN), TW_ROLE_USER, path));
            turn++;
        } else if (at_lit(h, pos, LIT(SYS_TURN))) {
            TRY(read_plain(h, &pos, MLEN(SYS_TURN), TW_ROLE_SYSTEM, path));
            turn++;
        } else {
            return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)pos, path,
                              "expected <|turn>user, <|turn>model or <|turn>system at byte %zu",
                              pos);
        }
    }
    if (h->d.req->nmessages == 0)
        return tw_rq_fail(&h->d, TW_ERR_INVALID, 0, "", "the prompt has no turns");
    return TW_OK;
}

tw_status tw_gemma_prompt_read(const char *buf, size_t len, const tw_decode_opts *o,
                               tw_request *out, tw_error *err)
{
    gr h;
    memset(&h, 0, sizeof h);
    tw_rq_begin(&h.d, o, out, err);
    h.b = buf;
    h.n = len;
    tw_status st;
    if (!buf && len)
        st = tw_rq_fail(&h.d, TW_ERR_INVALID, -1, "", "no input");
    else if (len > h.d.l.max_input_bytes)
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

const tw_request_reader_ops tw_reader_gemma4_prompt = {
    FMT, "the Gemma 4 prompt (as the chat template renders it)", tw_gemma_prompt_read};
