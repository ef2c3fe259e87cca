/*
 * The harmony-prompt reader: a prompt the gpt-oss chat template rendered
 * (the inverse of harmony_prompt.c; docs/formats/harmony.md, "The prompt")
 * read back to a neutral request: the system message's options, the
 * developer message's instructions and tools (each TypeScript parameter
 * type back to a schema that renders it again), the turns, the generation
 * prompt.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "formats.h"
#include "harmony_text.h"
#include "request_read.h"
#include "toolwire/json.h"
#include "tw_macros.h"

#define FMT "harmony-prompt"
#define LIT(s) (s), (sizeof(s) - 1)

typedef struct hr {
    tw_rq d;
    const char *b;
    size_t n;
    size_t pos;
    bool oom; /* a cJSON allocation failed: the read fails with TW_ERR_NOMEM */
} hr;

/* x (a cJSON call's result), noting a failed allocation. */
#define OK_(h, x) ((x) ? true : ((h)->oom = true, false))

/* Put item under key in obj; an item not put (its key not copied) is freed. */
static void put_item(hr *h, cJSON *obj, const char *key, cJSON *item)
{
    if (!cJSON_AddItemToObject(obj, key, item)) {
        cJSON_Delete(item);
        h->oom = true;
    }
}

static tw_status fail(hr *h, size_t at, const char *what)
{
    if (h->oom)
        return TW_ERR_NOMEM;
    return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)at, "", FMT ": %s", what);
}

static bool at_lit(const hr *h, size_t at, const char *s, size_t k)
{
    return at <= h->n && h->n - at >= k && memcmp(h->b + at, s, k) == 0;
}

static bool take(hr *h, const char *s, size_t k)
{
    if (!at_lit(h, h->pos, s, k))
        return false;
    h->pos += k;
    return true;
}

/* The first s at or after from, before lim; lim when none. */
static size_t find(const hr *h, size_t from, size_t lim, const char *s, size_t k)
{
    const char *p = from <= lim ? tw_memmem(h->b + from, lim - from, s, k) : NULL;
    return p ? (size_t)(p - h->b) : lim;
}

/* The last s in [from, lim); lim when none. */
static size_t rfind_in(const hr *h, size_t from, size_t lim, const char *s, size_t k)
{
    const char *p = rfind(h->b + from, lim - from, s, k);
    return p ? (size_t)(p - h->b) : lim;
}

static tw_status put_str_option(hr *h, const char *key, const char *p, size_t n)
{
    TRY(tw_rq_no_nul(&h->d, p, n, (size_t)(p - h->b), "options", key));
    char *s = tw_strndup(p, n);
    cJSON *v = s ? cJSON_CreateString(s) : NULL;
    tw_free(s);
    if (!v)
        return TW_ERR_NOMEM;
    tw_status st = tw_rq_put_option(&h->d, key, v);
    cJSON_Delete(v);
    return st;
}

/* ===================== the system message ===================== */

static tw_status read_system(hr *h, bool *functions)
{
    if (!take(h, LIT(TW_HM_SYSTEM)))
        return fail(h, h->pos, "the prompt does not open with the system message");
    size_t at = find(h, h->pos, h->n, LIT(TW_HM_CUTOFF));
    if (at == h->n)
        return fail(h, h->pos, "no knowledge cutoff and date line in the system message");
    if (at - h->pos != sizeof TW_HM_IDENTITY - 1 || !at_lit(h, h->pos, LIT(TW_HM_IDENTITY)))
        TRY(put_str_option(h, "model_identity", h->b + h->pos, at - h->pos));
    h->pos = at + sizeof TW_HM_CUTOFF - 1;
    at = find(h, h->pos, h->n, LIT(TW_HM_REASONING));
    if (at == h->n)
        return fail(h, h->pos, "no reasoning line in the system message");
    TRY(put_str_option(h, "current_date", h->b + h->pos, at - h->pos));
    h->pos = at + sizeof TW_HM_REASONING - 1;
    at = find(h, h->pos, h->n, LIT("\n\n"));
    if (at == h->n)
        return fail(h, h->pos, "the reasoning line is not ended");
    if (!(at - h->pos == 6 && at_lit(h, h->pos, LIT("medium"))))
        TRY(put_str_option(h, "reasoning_effort", h->b + h->pos, at - h->pos));
    h->pos = at + 2;
    if (take(h, LIT(TW_HM_TOOLS_HEAD))) {
        cJSON *bt = cJSON_CreateArray();
        if (!bt)
            return TW_ERR_NOMEM;
        if (take(h, LIT(TW_HM_BROWSER)))
            OK_(h, cJSON_AddItemToArray(bt, cJSON_CreateString("browser")));
        if (take(h, LIT(TW_HM_PYTHON)))
            OK_(h, cJSON_AddItemToArray(bt, cJSON_CreateString("python")));
        tw_status st = cJSON_GetArraySize(bt) ? tw_rq_put_option(&h->d, "builtin_tools", bt)
                                              : fail(h, h->pos,
                                                     "a # Tools section with no "
                                                     "built-in tool it knows");
        cJSON_Delete(bt);
        TRY(st);
    }
    if (!take(h, LIT(TW_HM_CHANNELS)))
        return fail(h, h->pos, "no valid-channels line in the system message");
    *functions = take(h, LIT(TW_HM_FUNCTIONS_LINE));
    if (!take(h, LIT(TW_HM_END)))
        return fail(h, h->pos, "the system message does not end there");
    return TW_OK;
}

/* ===================== the tools ===================== */

static bool is(const char *p, size_t n, const char *lit)
{
    return n == strlen(lit) && memcmp(p, lit, n) == 0;
}

/* `"a" | "b"`: the enum's values into arr; false when it is not one. */
static bool read_enum(hr *h, const char *p, size_t n, cJSON *arr)
{
    size_t i = 0;
    for (;;) {
        if (i >= n || p[i] != '"')
            return false;
        const char *q = memchr(p + i + 1, '"', n - i - 1);
        if (!q)
            return false;
        char *s = tw_strndup(p + i + 1, (size_t)(q - p) - i - 1);
        cJSON *v = s ? cJSON_CreateString(s) : NULL;
        tw_free(s);
        if (!OK_(h, v))
            return false;
        OK_(h, cJSON_AddItemToArray(arr, v));
        i = (size_t)(q - p) + 1;
        if (i == n)
            return true;
        if (n - i < 4 || memcmp(p + i, " | ", 3) != 0)
            return false;
        i += 3;
    }
}

/* A schema that renders the TypeScript type p[0, n) again: the simple
 * types read back, any other kept as a one-element type list (which the
 * template writes as it is). */
static cJSON *type_schema(hr *h, const char *p, size_t n)
{
    cJSON *s = cJSON_CreateObject();
    if (!s)
        return NULL;
    static const char *const simple[] = {"string", "number", "boolean", "object"};
    for (size_t i = 0; i < 4; i++)
        if (is(p, n, simple[i])) {
            OK_(h, cJSON_AddStringToObject(s, "type", simple[i]));
            return s;
        }
    if (is(p, n, "any"))
        return s;
    if (is(p, n, "any[]")) {
        OK_(h, cJSON_AddStringToObject(s, "type", "array"));
        return s;
    }
    static const char *const arrays[] = {"string", "number", "boolean"};
    for (size_t i = 0; i < 3; i++)
        if (n == strlen(arrays[i]) + 2 && memcmp(p, arrays[i], n - 2) == 0 &&
            memcmp(p + n - 2, "[]", 2) == 0) {
            OK_(h, cJSON_AddStringToObject(s, "type", "array"));
            cJSON *it = cJSON_AddObjectToObject(s, "items");
            if (it)
                OK_(h, cJSON_AddStringToObject(it, "type", arrays[i]));
            return s;
        }
    cJSON *en = cJSON_CreateArray();
    if (OK_(h, en) && n && p[0] == '"' && read_enum(h, p, n, en)) {
        OK_(h, cJSON_AddStringToObject(s, "type", "string"));
        put_item(h, s, "enum", en);
        return s;
    }
    cJSON_Delete(en);
    char *t = tw_strndup(p, n);
    cJSON *list = cJSON_AddArrayToObject(s, "type");
    if (OK_(h, t) && OK_(h, list))
        OK_(h, cJSON_AddItemToArray(list, cJSON_CreateString(t)));
    tw_free(t);
    return s;
}

/* The end of a parameter's type from `from`: a ", // default: " or ",\n"
 * outside braces and quotes; *dflt says which. */
static size_t type_end(const hr *h, size_t from, size_t lim, bool *dflt)
{
    int depth = 0;
    bool q = false;
    for (size_t i = from; i < lim; i++) {
        char c = h->b[i];
        if (c == '"')
            q = !q;
        else if (!q && (c == '{' || c == '('))
            depth++;
        else if (!q && (c == '}' || c == ')'))
            depth--;
        else if (!q && depth <= 0 && c == ',') {
            if (at_lit(h, i, LIT(", // default: "))) {
                *dflt = true;
                return i;
            }
            if (at_lit(h, i, LIT(",\n"))) {
                *dflt = false;
                return i;
            }
        }
    }
    return lim;
}

static tw_status read_param(hr *h, size_t lim, cJSON *props, cJSON *req)
{
    const char *desc = NULL;
    size_t dn = 0;
    if (take(h, LIT("// "))) {
        size_t e = find(h, h->pos, lim, LIT("\n"));
        desc = h->b + h->pos;
        dn = e - h->pos;
        h->pos = e + 1;
    }
    size_t colon = find(h, h->pos, lim, LIT(": "));
    if (colon == lim || colon == h->pos)
        return fail(h, h->pos, "a tool parameter without its name");
    bool optional = h->b[colon - 1] == '?';
    char *name = tw_strndup(h->b + h->pos, colon - h->pos - optional);
    if (!name)
        return TW_ERR_NOMEM;
    h->pos = colon + 2;
    bool dflt = false;
    size_t te = type_end(h, h->pos, lim, &dflt);
    if (te == lim) {
        tw_free(name);
        return fail(h, h->pos, "a tool parameter's type is not ended");
    }
    cJSON *s = type_schema(h, h->b + h->pos, te - h->pos);
    tw_status st = s ? TW_OK : TW_ERR_NOMEM;
    h->pos = te;
    if (st == TW_OK && dflt) {
        h->pos += sizeof ", // default: " - 1;
        size_t de = find(h, h->pos, lim, LIT(",\n"));
        cJSON *v = NULL;
        if (tw_json_get(s, "enum")) {
            char *raw = tw_strndup(h->b + h->pos, de - h->pos);
            v = raw ? cJSON_CreateString(raw) : NULL;
            tw_free(raw);
            st = v ? TW_OK : TW_ERR_NOMEM;
        } else {
            st = tw_rq_prompt_json(&h->d, h->b + h->pos, de - h->pos, h->pos, "tools",
                                   "a parameter's default", &v);
        }
        if (v)
            put_item(h, s, "default", v);
        h->pos = de;
    }
    if (st == TW_OK && desc) {
        char *d = tw_strndup(desc, dn);
        if (OK_(h, d))
            OK_(h, cJSON_AddStringToObject(s, "description", d));
        tw_free(d);
    }
    if (st == TW_OK && !take(h, LIT(",\n")))
        st = fail(h, h->pos, "a tool parameter is not ended by \",\\n\"");
    if (st == TW_OK && !optional)
        OK_(h, cJSON_AddItemToArray(req, cJSON_CreateString(name)));
    if (st == TW_OK)
        put_item(h, props, name, s);
    else
        cJSON_Delete(s);
    tw_free(name);
    return st;
}

static tw_status read_tool(hr *h, size_t lim, cJSON *tools)
{
    if (!take(h, LIT("// ")))
        return fail(h, h->pos, "a tool without its description line");
    size_t e = find(h, h->pos, lim, LIT("\ntype "));
    if (e == lim)
        return fail(h, h->pos, "a tool without its type line");
    cJSON *t = cJSON_CreateObject();
    if (!t)
        return TW_ERR_NOMEM;
    OK_(h, cJSON_AddItemToArray(tools, t));
    char *desc = tw_strndup(h->b + h->pos, e - h->pos);
    if (OK_(h, desc))
        OK_(h, cJSON_AddStringToObject(t, "description", desc));
    tw_free(desc);
    h->pos = e + sizeof "\ntype " - 1;
    size_t eq = find(h, h->pos, lim, LIT(" = "));
    if (eq == lim)
        return fail(h, h->pos, "a tool's type line without \" = \"");
    char *name = tw_strndup(h->b + h->pos, eq - h->pos);
    if (!name)
        return TW_ERR_NOMEM;
    OK_(h, cJSON_AddStringToObject(t, "name", name));
    tw_free(name);
    h->pos = eq + 3;
    cJSON *params = cJSON_AddObjectToObject(t, "parameters");
    if (!params || !cJSON_AddStringToObject(params, "type", "object"))
        return TW_ERR_NOMEM;
    cJSON *props = cJSON_AddObjectToObject(params, "properties");
    if (!props)
        return TW_ERR_NOMEM;
    if (take(h, LIT("() => any;\n\n")))
        return TW_OK;
    if (!take(h, LIT("(_: {\n")))
        return fail(h, h->pos, "a tool's type is neither () nor (_: {…})");
    cJSON *req = cJSON_CreateArray();
    if (!req)
        return TW_ERR_NOMEM;
    tw_status st = TW_OK;
    while (st == TW_OK && !take(h, LIT("}) => any;\n\n"))) {
        if (h->pos >= lim)
            st = fail(h, h->pos, "a tool's parameters are not closed");
        else
            st = read_param(h, lim, props, req);
    }
    if (st == TW_OK && cJSON_GetArraySize(req))
        put_item(h, params, "required", req);
    else
        cJSON_Delete(req);
    return st;
}

static tw_status read_developer(hr *h, bool functions)
{
    if (!take(h, LIT(TW_HM_DEVELOPER))) {
        if (functions)
            return fail(h, h->pos, "the functions line without a developer message");
        return TW_OK;
    }
    static const char TAIL_TOOLS[] = TW_HM_NAMESPACE_END TW_HM_END;
    static const char TAIL_TEXT[] = "\n\n" TW_HM_END;
    size_t end =
        functions ? find(h, h->pos, h->n, LIT(TAIL_TOOLS)) : find(h, h->pos, h->n, LIT(TAIL_TEXT));
    if (end == h->n)
        return fail(h, h->pos, "the developer message is not ended");
    size_t tools_at = functions ? rfind_in(h, h->pos, end, LIT(TW_HM_NAMESPACE)) : end;
    if (functions && tools_at == end)
        return fail(h, h->pos, "no functions namespace in the developer message");
    if (take(h, LIT(TW_HM_INSTRUCTIONS))) {
        size_t te = functions ? tools_at : end + 2; /* the instructions end with "\n\n" */
        if (te < h->pos + 2 || !at_lit(h, te - 2, LIT("\n\n")))
            return fail(h, h->pos, "the instructions are not followed by a blank line");
        tw_message *m;
        TRY(tw_rq_push(&h->d, "messages[0]", &m));
        m->role = TW_ROLE_SYSTEM;
        TRY(tw_buf_append(&m->content, h->b + h->pos, te - 2 - h->pos));
        h->pos = functions ? te : end;
    } else if (h->pos != tools_at) {
        return fail(h, h->pos, "the developer message holds neither instructions nor tools");
    }
    if (functions) {
        /* names, descriptions and types become C strings */
        TRY(tw_rq_no_nul(&h->d, h->b + tools_at, end - tools_at, tools_at, "tools",
                         "the functions namespace"));
        h->pos = tools_at + sizeof TW_HM_NAMESPACE - 1;
        cJSON *tools = cJSON_CreateArray();
        if (!tools)
            return TW_ERR_NOMEM;
        tw_status st = TW_OK;
        while (st == TW_OK && h->pos < end)
            st = read_tool(h, end, tools);
        size_t cnt = 0;
        if (st == TW_OK)
            st = tw_rq_tools_begin(&h->d, tools, &cnt);
        size_t i = 0;
        for (const cJSON *t = tools->child; st == TW_OK && t; t = t->next, i++) {
            char path[48];
            snprintf(path, sizeof path, "tools[%zu]", i);
            st = tw_rq_read_tool(&h->d, t, path);
        }
        cJSON_Delete(tools);
        TRY(st);
        h->pos = end + sizeof TAIL_TOOLS - 1;
    } else {
        h->pos = end + sizeof TAIL_TEXT - 1;
    }
    return TW_OK;
}

/* ===================== the turns ===================== */

static tw_status push(hr *h, tw_role role, tw_message **m)
{
    char path[48];
    snprintf(path, sizeof path, "messages[%zu]", h->d.req->nmessages);
    h->d.msg_at = (int64_t)h->pos;
    TRY(tw_rq_push(&h->d, path, m));
    (*m)->role = role;
    return TW_OK;
}

/* Text up to `end` (required) into *p, *n; the position after it. */
static bool until(hr *h, const char *end, size_t k, const char **p, size_t *n)
{
    size_t e = find(h, h->pos, h->n, end, k);
    if (e == h->n)
        return false;
    *p = h->b + h->pos;
    *n = e - h->pos;
    h->pos = e + k;
    return true;
}

static tw_status read_call(hr *h, const char *think, size_t tn)
{
    size_t at = h->pos;
    const char *name, *args;
    size_t nn, an;
    if (!until(h, LIT("<|channel|>commentary json<|message|>"), &name, &nn) ||
        !until(h, LIT("<|call|>"), &args, &an))
        return fail(h, at, "a call message is not whole");
    tw_message *m;
    TRY(push(h, TW_ROLE_ASSISTANT, &m));
    if (tn)
        TRY(tw_buf_append(&m->thinking, think, tn));
    tw_call *c = tw_calloc(1, sizeof *c);
    if (!c)
        return TW_ERR_NOMEM;
    tw_status st = tw_rq_no_nul(&h->d, name, nn, (size_t)(name - h->b), "calls", "a call's name");
    if (st == TW_OK)
        st = (c->name = tw_strndup(name, nn)) ? TW_OK : TW_ERR_NOMEM;
    if (st == TW_OK)
        st = tw_rq_prompt_json(&h->d, args, an, (size_t)(args - h->b), "calls",
                               "a call's arguments", &c->arguments);
    if (st == TW_OK && !cJSON_IsObject(c->arguments))
        st = fail(h, at, "a call's arguments are not a JSON object");
    if (st != TW_OK) {
        tw_free(c->name);
        cJSON_Delete(c->arguments);
        tw_free(c);
        return st;
    }
    char id[32];
    snprintf(id, sizeof id, "call_%zu", ++h->d.next_id);
    st = (c->id = tw_strdup(id)) ? tw_message_add_call(m, c) : TW_ERR_NOMEM;
    if (st != TW_OK) { /* not added: still ours */
        tw_free(c->id);
        tw_free(c->name);
        cJSON_Delete(c->arguments);
    }
    tw_free(c);
    return st;
}

static tw_status read_result(hr *h)
{
    size_t at = h->pos;
    const char *name, *val;
    size_t nn, vn;
    if (!until(h, LIT(" to=assistant<|channel|>commentary<|message|>"), &name, &nn) ||
        !until(h, LIT("<|end|>"), &val, &vn))
        return fail(h, at, "a tool result message is not whole");
    TRY(tw_rq_no_nul(&h->d, name, nn, (size_t)(name - h->b), "messages", "a tool result's name"));
    cJSON *v = NULL;
    TRY(tw_rq_prompt_json(&h->d, val, vn, (size_t)(val - h->b), "messages", "a tool result", &v));
    if (!cJSON_IsString(v)) {
        cJSON_Delete(v);
        return fail(h, at, "a tool result is not a JSON string");
    }
    tw_message *m;
    tw_status st = push(h, TW_ROLE_TOOL, &m);
    if (st == TW_OK)
        st = tw_buf_puts(&m->content, v->valuestring);
    if (st == TW_OK && !(m->name = tw_strndup(name, nn)))
        st = TW_ERR_NOMEM;
    cJSON_Delete(v);
    return st;
}

static tw_status read_turns(hr *h, bool *gen)
{
    const char *think = NULL;
    size_t tn = 0;
    bool pending = false;
    *gen = false;
    while (h->pos < h->n) {
        size_t at = h->pos;
        const char *p;
        size_t n;
        if (h->n - h->pos == 18 && take(h, LIT("<|start|>assistant"))) {
            if (pending) /* its text would be dropped */
                return fail(h, at, "an analysis message followed by the generation prompt");
            *gen = true;
        } else if (take(h, LIT("<|start|>user<|message|>"))) {
            if (!until(h, LIT("<|end|>"), &p, &n))
                return fail(h, at, "a user message is not ended");
            tw_message *m;
            TRY(push(h, TW_ROLE_USER, &m));
            TRY(tw_buf_append(&m->content, p, n));
        } else if (take(h, LIT("<|start|>assistant<|channel|>analysis<|message|>"))) {
            if (pending || !until(h, LIT("<|end|>"), &think, &tn))
                return fail(h, at, "an analysis message not followed by its turn");
            pending = true;
            continue;
        } else if (take(h, LIT("<|start|>assistant to=functions."))) {
            TRY(read_call(h, pending ? think : NULL, pending ? tn : 0));
        } else if (take(h, LIT("<|start|>functions."))) {
            TRY(read_result(h));
        } else if (take(h, LIT("<|start|>assistant<|channel|>final<|message|>"))) {
            size_t e = find(h, h->pos, h->n, LIT("<|end|>"));
            size_t r = find(h, h->pos, h->n, LIT("<|return|>"));
            bool last = r < e;
            if (last && r + 10 != h->n)
                return fail(h, at, "a final message ended by <|return|> before the end");
            if (!last && e == h->n)
                return fail(h, at, "a final message is not ended");
            tw_message *m;
            TRY(push(h, TW_ROLE_ASSISTANT, &m));
            if (pending && !last)
                return fail(h, at, "an analysis message before an earlier turn's answer");
            if (pending)
                TRY(tw_buf_append(&m->thinking, think, tn));
            TRY(tw_buf_append(&m->content, h->b + h->pos, (last ? r : e) - h->pos));
            h->pos = (last ? r + 10 : e + 7);
        } else {
            return fail(h, at, "not a message the template writes");
        }
        pending = false;
    }
    if (pending)
        return fail(h, h->pos, "an analysis message not followed by its turn");
    return TW_OK;
}

static tw_status read_prompt(hr *h)
{
    bool functions = false, gen = false;
    TRY(read_system(h, &functions));
    TRY(read_developer(h, functions));
    TRY(read_turns(h, &gen));
    cJSON *g = cJSON_CreateBool(gen);
    if (!g)
        return TW_ERR_NOMEM;
    tw_status st = tw_rq_put_option(&h->d, "add_generation_prompt", g);
    cJSON_Delete(g);
    TRY(st);
    return tw_rq_link_results(&h->d, FMT);
}

static tw_status harmony_prompt_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                       tw_request *out, tw_error *err)
{
    hr h;
    tw_rq_begin(&h.d, o, out, err);
    h.b = buf ? buf : "";
    h.n = len;
    h.pos = 0;
    if (len > h.d.l.max_input_bytes)
        return tw_rq_fail(&h.d, TW_ERR_LIMIT, -1, "",
                          "the prompt is %zu bytes, more than max_input_bytes (%zu)", len,
                          h.d.l.max_input_bytes);
    h.oom = false;
    tw_status st = read_prompt(&h);
    if (h.oom && st != TW_ERR_NOMEM)
        st = TW_ERR_NOMEM;
    if (st == TW_ERR_NOMEM && err && !err->message[0])
        tw_rq_fail(&h.d, st, -1, "", "out of memory");
    else if (st != TW_OK && err && !err->message[0])
        tw_rq_fail(&h.d, st, -1, "", FMT ": the reader failed with %s", tw_code_name(st));
    if (st != TW_OK) {
        tw_request_free(out);
        out->parallel_tool_calls = -1;
    }
    return st;
}

const tw_request_reader_ops tw_reader_harmony_prompt = {
    "harmony-prompt", "the OpenAI gpt-oss Harmony prompt its chat template renders",
    harmony_prompt_decode};
