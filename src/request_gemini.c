/*
 * Request decoder for the Gemini generateContent request body (the inverse
 * of the gemini-request encoder). Rules: docs/formats/gemini.md
 * ("Reading requests").
 */
#include "alloc.h"
#include "toolwire/request_gemini.h"

#include "gemini_schema.h"
#include "request_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolwire/json.h"
#include "tw_macros.h"

/* generationConfig fields kept as request options, and their neutral keys. */
static const char *option_key(const char *g)
{
    static const char *const map[][2] = {
        {"temperature", "temperature"},
        {"topP", "top_p"},
        {"topK", "top_k"},
        {"maxOutputTokens", "max_tokens"},
        {"seed", "seed"},
        {"presencePenalty", "presence_penalty"},
        {"frequencyPenalty", "frequency_penalty"},
        {"candidateCount", "n"},
        {"stopSequences", "stop"},
        {"thinkingConfig", "thinkingConfig"},
        {"top_p", "top_p"},
        {"top_k", "top_k"},
        {"max_output_tokens", "max_tokens"},
        {"presence_penalty", "presence_penalty"},
        {"frequency_penalty", "frequency_penalty"},
        {"candidate_count", "n"},
        {"stop_sequences", "stop"},
        {"thinking_config", "thinkingConfig"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(map[i][0], g) == 0)
            return map[i][1];
    return NULL;
}

/* Part keys that say what a part holds, in their JSON (lowerCamelCase) and
 * proto field (snake_case) spellings, which Gemini both accepts; the rest
 * (thought, thoughtSignature, partMetadata) qualify a part. */
static const char *const data_keys[][2] = {
    {"text", "text"},
    {"functionCall", "function_call"},
    {"functionResponse", "function_response"},
    {"inlineData", "inline_data"},
    {"fileData", "file_data"},
    {"executableCode", "executable_code"},
    {"codeExecutionResult", "code_execution_result"},
    {"videoMetadata", "video_metadata"},
};

/* obj[camel], else obj[snake]. */
static const cJSON *get2(const cJSON *obj, const char *camel, const char *snake)
{
    const cJSON *v = tw_json_get(obj, camel);
    return v ? v : tw_json_get(obj, snake);
}

static bool is_key(const char *k, const char *camel, const char *snake)
{
    return strcmp(k, camel) == 0 || strcmp(k, snake) == 0;
}

typedef struct gem_rd {
    tw_rq *d;
    size_t last_model;   /* index of the latest model message + 1; 0: none */
    unsigned char *used; /* which calls of that message a response answered */
    size_t cap_used;
} gem_rd;

/* Part p at path pp must be an object holding at most one data key; *kind
 * gets that key (NULL: none known). */
static tw_status part_kind(tw_rq *d, const cJSON *p, const char *pp, const char **kind)
{
    *kind = NULL;
    if (!cJSON_IsObject(p))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, pp, "must be an object");
    size_t count = 0;
    for (size_t i = 0; i < sizeof data_keys / sizeof data_keys[0]; i++)
        if (get2(p, data_keys[i][0], data_keys[i][1])) {
            if (!*kind)
                *kind = data_keys[i][0];
            count++;
        }
    if (count > 1)
        return tw_rq_fail(d, TW_ERR_INVALID, -1, pp,
                          "a part holds one of text, functionCall, "
                          "…; this one holds %zu",
                          count);
    return TW_OK;
}

static tw_status warn_part(gem_rd *g, const cJSON *p, const char *path)
{
    const char *first = p->child && p->child->string ? p->child->string : "?";
    return tw_rq_warn(g->d, TW_D_UNKNOWN_PART, "%s: part with key '%s' not carried", path, first);
}

static tw_status check_text(tw_rq *d, const cJSON *t, const char *path)
{
    if (!cJSON_IsString(t))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, path, "must be a string");
    return TW_OK;
}

static tw_status read_call(gem_rd *g, tw_message *m, const cJSON *fc, const char *path)
{
    tw_rq *d = g->d;
    char p[256];
    if (!cJSON_IsObject(fc))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, path, "must be an object");
    if (m->ncalls >= d->l.max_calls)
        return tw_rq_refuse(d, TW_ERR_LIMIT, TW_D_TOO_MANY_CALLS, -1, path,
                            "more than max_calls (%zu) calls in one turn", d->l.max_calls);
    const char *name = tw_json_get_str(fc, "name");
    snprintf(p, sizeof p, "%s.name", path);
    if (!name || !name[0])
        return tw_rq_fail(d, TW_ERR_INVALID, -1, p, "missing; a non-empty string is required");
    const cJSON *id = tw_json_get(fc, "id");
    snprintf(p, sizeof p, "%s.id", path);
    if (id && !cJSON_IsNull(id) && !cJSON_IsString(id))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, p, "must be a string");
    const cJSON *a = tw_json_get(fc, "args");
    snprintf(p, sizeof p, "%s.args", path);
    if (a && !cJSON_IsNull(a) && !cJSON_IsObject(a))
        return tw_rq_refuse(d, TW_ERR_INVALID, TW_D_ARGUMENTS_NOT_OBJECT, -1, p,
                            "must be an object");
    if (a && cJSON_IsObject(a) && !tw_json_size_within(a, d->l.max_args_bytes))
        return tw_rq_refuse(d, TW_ERR_LIMIT, TW_D_ARGS_TOO_LARGE, -1, p,
                            "more than max_args_bytes (%zu)", d->l.max_args_bytes);
    if (tw_json_get(fc, "partialArgs") || tw_json_get(fc, "willContinue"))
        TRY(tw_rq_warn(d, TW_D_NOT_CARRIED,
                       "%s: partialArgs and willContinue belong to streamed answers; not carried",
                       path));
    tw_call c;
    memset(&c, 0, sizeof c);
    c.offset = -1;
    char gen[32];
    if (!cJSON_IsString(id))
        snprintf(gen, sizeof gen, "call_%zu", ++d->next_id);
    c.id = tw_strdup(cJSON_IsString(id) ? id->valuestring : gen);
    c.name = tw_strdup(name);
    c.arguments = a && cJSON_IsObject(a) ? cJSON_Duplicate(a, 1) : cJSON_CreateObject();
    tw_status st = c.id && c.name && c.arguments ? tw_message_add_call(m, &c) : TW_ERR_NOMEM;
    if (st != TW_OK)
        tw_call_free(&c);
    return st;
}

static tw_status keep_signature(tw_rq *d, tw_message *m, const cJSON *p, const char *path)
{
    const cJSON *sig = get2(p, "thoughtSignature", "thought_signature");
    if (!sig || cJSON_IsNull(sig))
        return TW_OK;
    if (!cJSON_IsString(sig)) {
        char sp[200];
        snprintf(sp, sizeof sp, "%s.thoughtSignature", path);
        return tw_rq_fail(d, TW_ERR_INVALID, -1, sp, "must be a string");
    }
    if (m->thinking_signature)
        return tw_rq_warn(d, TW_D_NOT_CARRIED,
                          "%s.thoughtSignature: only the first signature of a turn is kept", path);
    return (m->thinking_signature = tw_strdup(sig->valuestring)) ? TW_OK : TW_ERR_NOMEM;
}

static tw_status model_turn(gem_rd *g, const cJSON *parts, const char *path)
{
    tw_rq *d = g->d;
    tw_message *m;
    TRY(tw_rq_push(d, path, &m));
    m->role = TW_ROLE_ASSISTANT;
    size_t k = 0;
    for (const cJSON *p = parts->child; p; p = p->next, k++) {
        char pp[160], fp[200];
        snprintf(pp, sizeof pp, "%s.parts[%zu]", path, k);
        const char *kind;
        TRY(part_kind(d, p, pp, &kind));
        TRY(keep_signature(d, m, p, pp));
        if (kind && strcmp(kind, "text") == 0) {
            const cJSON *t = tw_json_get(p, "text");
            snprintf(fp, sizeof fp, "%s.text", pp);
            TRY(check_text(d, t, fp));
            const cJSON *th = tw_json_get(p, "thought");
            if (th && !cJSON_IsBool(th) && !cJSON_IsNull(th)) {
                snprintf(fp, sizeof fp, "%s.thought", pp);
                return tw_rq_fail(d, TW_ERR_INVALID, -1, fp, "must be a boolean");
            }
            TRY(tw_buf_puts(cJSON_IsTrue(th) ? &m->thinking : &m->content, t->valuestring));
        } else if (kind && strcmp(kind, "functionCall") == 0) {
            snprintf(fp, sizeof fp, "%s.functionCall", pp);
            TRY(read_call(g, m, get2(p, "functionCall", "function_call"), fp));
        } else if (kind && strcmp(kind, "functionResponse") == 0) {
            return tw_rq_fail(d, TW_ERR_INVALID, -1, pp,
                              "a functionResponse belongs to a user turn, not a model turn");
        } else if (kind || !get2(p, "thoughtSignature", "thought_signature")) {
            TRY(warn_part(g, p, pp));
        }
    }
    g->last_model = d->req->nmessages;
    if (m->ncalls > g->cap_used) {
        unsigned char *u = tw_realloc(g->used, m->ncalls);
        if (!u)
            return TW_ERR_NOMEM;
        g->used = u;
        g->cap_used = m->ncalls;
    }
    if (m->ncalls)
        memset(g->used, 0, m->ncalls);
    return TW_OK;
}

/* The content of a function response: {"output": S} or {"error": S} give
 * S (the second an error), any other object its compact JSON text. */
static tw_status response_content(tw_rq *d, tw_message *m, const cJSON *r, const char *path)
{
    if (!r || cJSON_IsNull(r))
        return TW_OK;
    if (!cJSON_IsObject(r))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, path, "must be an object");
    const cJSON *only = r->child && !r->child->next ? r->child : NULL;
    if (only && cJSON_IsString(only) &&
        (strcmp(only->string, "output") == 0 || strcmp(only->string, "error") == 0)) {
        m->is_error = strcmp(only->string, "error") == 0;
        return tw_buf_puts(&m->content, only->valuestring);
    }
    return tw_json_write(&m->content, r, 0);
}

/* The call a response without an id answers: the first unanswered one of
 * that name in the latest model turn. */
static const tw_call *answered_call(gem_rd *g, const char *name, const char *id)
{
    if (!g->last_model)
        return NULL;
    const tw_message *a = &g->d->req->messages[g->last_model - 1];
    for (size_t k = 0; k < a->ncalls; k++) {
        bool hit = id ? strcmp(a->calls[k].id, id) == 0
                      : !g->used[k] && strcmp(a->calls[k].name, name) == 0;
        if (hit) {
            g->used[k] = 1;
            return &a->calls[k];
        }
    }
    return NULL;
}

static tw_status function_response(gem_rd *g, const cJSON *fr, const char *path)
{
    tw_rq *d = g->d;
    char p[256];
    if (!cJSON_IsObject(fr))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, path, "must be an object");
    const char *name = tw_json_get_str(fr, "name");
    snprintf(p, sizeof p, "%s.name", path);
    if (!name || !name[0])
        return tw_rq_fail(d, TW_ERR_INVALID, -1, p, "missing; a non-empty string is required");
    const cJSON *id = tw_json_get(fr, "id");
    snprintf(p, sizeof p, "%s.id", path);
    if (id && !cJSON_IsNull(id) && !cJSON_IsString(id))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, p, "must be a string");
    tw_message *m;
    TRY(tw_rq_push(d, path, &m));
    m->role = TW_ROLE_TOOL;
    if (!(m->name = tw_strdup(name)))
        return TW_ERR_NOMEM;
    const tw_call *c = answered_call(g, name, cJSON_IsString(id) ? id->valuestring : NULL);
    const char *tid = cJSON_IsString(id) ? id->valuestring : c ? c->id : NULL;
    if (tid && !(m->tool_call_id = tw_strdup(tid)))
        return TW_ERR_NOMEM;
    snprintf(p, sizeof p, "%s.response", path);
    return response_content(d, m, tw_json_get(fr, "response"), p);
}

static tw_status user_turn(gem_rd *g, const cJSON *parts, const char *path)
{
    tw_rq *d = g->d;
    tw_message *text = NULL; /* the user message collecting consecutive text */
    bool any = false;
    size_t k = 0;
    for (const cJSON *p = parts->child; p; p = p->next, k++) {
        char pp[160], fp[200];
        snprintf(pp, sizeof pp, "%s.parts[%zu]", path, k);
        const char *kind;
        TRY(part_kind(d, p, pp, &kind));
        if (get2(p, "thoughtSignature", "thought_signature") ||
            cJSON_IsTrue(tw_json_get(p, "thought")))
            TRY(tw_rq_warn(d, TW_D_NOT_CARRIED,
                           "%s: thoughts and signatures on a user turn are not carried", pp));
        if (kind && strcmp(kind, "text") == 0) {
            snprintf(fp, sizeof fp, "%s.text", pp);
            TRY(check_text(d, tw_json_get(p, "text"), fp));
            if (!text) {
                TRY(tw_rq_push(d, pp, &text));
                text->role = TW_ROLE_USER;
                any = true;
            }
            TRY(tw_buf_puts(&text->content, tw_json_get_str(p, "text")));
        } else if (kind && strcmp(kind, "functionResponse") == 0) {
            text = NULL;
            any = true;
            snprintf(fp, sizeof fp, "%s.functionResponse", pp);
            TRY(function_response(g, get2(p, "functionResponse", "function_response"), fp));
        } else if (kind && strcmp(kind, "functionCall") == 0) {
            return tw_rq_fail(d, TW_ERR_INVALID, -1, pp,
                              "a functionCall belongs to a model turn, not a user turn");
        } else {
            TRY(warn_part(g, p, pp));
        }
    }
    if (!any) {
        tw_message *m;
        TRY(tw_rq_push(d, path, &m));
        m->role = TW_ROLE_USER;
    }
    return TW_OK;
}

static tw_status read_contents(gem_rd *g, const cJSON *arr)
{
    tw_rq *d = g->d;
    if (!cJSON_IsArray(arr))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, "contents", "missing; an array is required");
    if ((size_t)cJSON_GetArraySize(arr) > d->l.max_messages)
        return tw_rq_fail(d, TW_ERR_LIMIT, -1, "contents", "more than max_messages (%zu) turns",
                          d->l.max_messages);
    size_t i = 0;
    for (const cJSON *c = arr->child; c; c = c->next, i++) {
        char path[48], p[64];
        snprintf(path, sizeof path, "contents[%zu]", i);
        if (!cJSON_IsObject(c))
            return tw_rq_fail(d, TW_ERR_INVALID, -1, path, "must be an object");
        const cJSON *role = tw_json_get(c, "role");
        snprintf(p, sizeof p, "%s.role", path);
        if (role && !cJSON_IsNull(role) && !cJSON_IsString(role))
            return tw_rq_fail(d, TW_ERR_INVALID, -1, p, "must be a string");
        const char *rs = cJSON_IsString(role) ? role->valuestring : "user";
        const cJSON *parts = tw_json_get(c, "parts");
        snprintf(p, sizeof p, "%s.parts", path);
        if (!cJSON_IsArray(parts))
            return tw_rq_fail(d, TW_ERR_INVALID, -1, p, "missing; an array is required");
        if (strcmp(rs, "model") == 0) {
            TRY(model_turn(g, parts, path));
        } else if (strcmp(rs, "user") == 0 || strcmp(rs, "function") == 0) {
            TRY(user_turn(g, parts, path));
        } else {
            snprintf(p, sizeof p, "%s.role", path);
            return tw_rq_fail(d, TW_ERR_INVALID, -1, p, "must be user or model, got '%s'", rs);
        }
    }
    return TW_OK;
}

/* systemInstruction: each text part one system message, before the rest. */
static tw_status read_system(tw_rq *d, const cJSON *s)
{
    if (!cJSON_IsObject(s))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, "systemInstruction", "must be an object");
    const cJSON *parts = tw_json_get(s, "parts");
    if (!cJSON_IsArray(parts))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, "systemInstruction.parts",
                          "missing; an array is required");
    size_t k = 0;
    for (const cJSON *p = parts->child; p; p = p->next, k++) {
        char pp[64];
        snprintf(pp, sizeof pp, "systemInstruction.parts[%zu]", k);
        const cJSON *t = tw_json_get(p, "text");
        if (!cJSON_IsString(t)) {
            TRY(tw_rq_warn(d, TW_D_UNKNOWN_PART, "%s: only text parts are carried", pp));
            continue;
        }
        tw_message *m;
        TRY(tw_rq_push(d, pp, &m));
        m->role = TW_ROLE_SYSTEM;
        TRY(tw_buf_puts(&m->content, t->valuestring));
    }
    return TW_OK;
}

/* Gemini's `parameters` is its OpenAPI-style Schema, whose types are the
 * enum names STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT, NULL (the SDKs
 * write them so); the neutral request holds JSON Schema, where they are
 * spelled in lower case. Each `type` of the schema and of its subschemas
 * (properties, items, anyOf, … and the JSON Schema keys holding subschemas:
 * gemini_schema.c; not data such as enum or default values) is rewritten;
 * any other spelling is left as written. */
static tw_status lower_type_names(cJSON *s, size_t depth, size_t max_depth)
{
    static const char *const names[] = {"STRING", "NUMBER", "INTEGER", "BOOLEAN",
                                        "ARRAY",  "OBJECT", "NULL",    NULL};
    if (depth > max_depth || !cJSON_IsObject(s))
        return TW_OK; /* the reader's depth cap has refused deeper input */
    for (cJSON *m = s->child; m; m = m->next) {
        tw_schema_kind kind = TW_SK_DATA;
        if (m->string)
            (void)tw_gemini_schema_key(m->string, &kind);
        if (m->string && strcmp(m->string, "type") == 0 && cJSON_IsString(m)) {
            for (size_t i = 0; names[i]; i++)
                if (strcmp(m->valuestring, names[i]) == 0) {
                    for (char *c = m->valuestring; *c; c++)
                        *c = (char)(*c - 'A' + 'a');
                    break;
                }
        } else if (kind != TW_SK_DATA) {
            if (cJSON_IsObject(m) && kind == TW_SK_ONE) {
                TRY(lower_type_names(m, depth + 1, max_depth));
            } else if (cJSON_IsObject(m) || cJSON_IsArray(m)) {
                for (cJSON *x = m->child; x; x = x->next)
                    TRY(lower_type_names(x, depth + 1, max_depth));
            }
        }
    }
    return TW_OK;
}

static tw_status read_declaration(tw_rq *d, const cJSON *fd, const char *path)
{
    char p[120];
    if (!cJSON_IsObject(fd))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, path, "must be an object");
    const cJSON *params = tw_json_get(fd, "parameters");
    const cJSON *js = get2(fd, "parametersJsonSchema", "parameters_json_schema");
    if (params && js) {
        snprintf(p, sizeof p, "%s.parametersJsonSchema", path);
        return tw_rq_fail(d, TW_ERR_INVALID, -1, p, "given with 'parameters'; one is allowed");
    }
    const cJSON *schema = params ? params : js;
    snprintf(p, sizeof p, "%s.%s", path, params ? "parameters" : "parametersJsonSchema");
    if (schema && !cJSON_IsNull(schema) && !cJSON_IsObject(schema))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, p, "must be an object");
    tw_tool *t = &d->req->tools[d->req->ntools];
    memset(t, 0, sizeof *t);
    const char *name = tw_json_get_str(fd, "name");
    snprintf(p, sizeof p, "%s.name", path);
    if (!name || !name[0])
        return tw_rq_fail(d, TW_ERR_INVALID, -1, p, "missing; a non-empty string is required");
    const cJSON *desc = tw_json_get(fd, "description");
    snprintf(p, sizeof p, "%s.description", path);
    if (desc && !cJSON_IsNull(desc) && !cJSON_IsString(desc))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, p, "must be a string");
    d->req->ntools++;
    if (!(t->name = tw_strdup(name)))
        return TW_ERR_NOMEM;
    if (cJSON_IsString(desc) && !(t->description = tw_strdup(desc->valuestring)))
        return TW_ERR_NOMEM;
    if (cJSON_IsObject(schema) && !(t->parameters = cJSON_Duplicate(schema, 1)))
        return TW_ERR_NOMEM;
    if (params && cJSON_IsObject(t->parameters))
        TRY(lower_type_names(t->parameters, 0, d->l.max_depth));
    for (const cJSON *k = fd->child; k; k = k->next)
        if (k->string && strcmp(k->string, "name") != 0 && strcmp(k->string, "description") != 0 &&
            strcmp(k->string, "parameters") != 0 &&
            !is_key(k->string, "parametersJsonSchema", "parameters_json_schema"))
            TRY(tw_rq_warn(d, TW_D_NOT_CARRIED, "%s.%s: not carried by the neutral request", path,
                           k->string));
    return TW_OK;
}

static tw_status read_tools(tw_rq *d, const cJSON *arr)
{
    tw_request *r = d->req;
    r->tools_present = true;
    if (!cJSON_IsArray(arr))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, "tools", "must be an array");
    size_t cnt = 0, i = 0;
    for (const cJSON *t = arr->child; t; t = t->next, i++) {
        char path[48];
        snprintf(path, sizeof path, "tools[%zu]", i);
        if (!cJSON_IsObject(t))
            return tw_rq_fail(d, TW_ERR_INVALID, -1, path, "must be an object");
        const cJSON *fds = get2(t, "functionDeclarations", "function_declarations");
        if (fds && !cJSON_IsArray(fds))
            return tw_rq_fail(d, TW_ERR_INVALID, -1, path, "functionDeclarations must be an array");
        cnt += fds ? (size_t)cJSON_GetArraySize(fds) : 0;
        if (cnt > d->l.max_tools)
            return tw_rq_fail(d, TW_ERR_LIMIT, -1, "tools", "more than max_tools (%zu) functions",
                              d->l.max_tools);
    }
    if (cnt && !(r->tools = tw_calloc(cnt, sizeof *r->tools)))
        return TW_ERR_NOMEM;
    i = 0;
    for (const cJSON *t = arr->child; t; t = t->next, i++) {
        for (const cJSON *k = t->child; k; k = k->next) {
            char path[96];
            if (!k->string || !is_key(k->string, "functionDeclarations", "function_declarations")) {
                TRY(tw_rq_warn(d, TW_D_BUILTIN_TOOL, "tools[%zu].%s: built-in tool not carried", i,
                               k->string ? k->string : "?"));
                continue;
            }
            size_t j = 0;
            for (const cJSON *fd = k->child; fd; fd = fd->next, j++) {
                snprintf(path, sizeof path, "tools[%zu].functionDeclarations[%zu]", i, j);
                TRY(read_declaration(d, fd, path));
            }
        }
    }
    return TW_OK;
}

/* True when names (an array) lists exactly the declared tools. */
static bool names_all_tools(const tw_request *r, const cJSON *names)
{
    size_t n = 0;
    for (const cJSON *x = names->child; x; x = x->next, n++) {
        if (!cJSON_IsString(x))
            return false;
        bool found = false;
        for (size_t t = 0; t < r->ntools && !found; t++)
            found = strcmp(r->tools[t].name, x->valuestring) == 0;
        if (!found)
            return false;
    }
    return n == r->ntools;
}

static tw_status read_tool_config(tw_rq *d, const cJSON *tc)
{
    tw_request *r = d->req;
    if (!cJSON_IsObject(tc))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, "toolConfig", "must be an object");
    for (const cJSON *k = tc->child; k; k = k->next)
        if (k->string && !is_key(k->string, "functionCallingConfig", "function_calling_config"))
            TRY(tw_rq_warn(d, TW_D_NOT_CARRIED, "toolConfig.%s: not carried", k->string));
    const cJSON *fcc = get2(tc, "functionCallingConfig", "function_calling_config");
    if (!fcc || cJSON_IsNull(fcc))
        return TW_OK;
    if (!cJSON_IsObject(fcc))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, "toolConfig.functionCallingConfig",
                          "must be an object");
    for (const cJSON *k = fcc->child; k; k = k->next)
        if (k->string && strcmp(k->string, "mode") != 0 &&
            !is_key(k->string, "allowedFunctionNames", "allowed_function_names"))
            TRY(tw_rq_warn(d, TW_D_NOT_CARRIED, "toolConfig.functionCallingConfig.%s: not carried",
                           k->string));
    const cJSON *mode = tw_json_get(fcc, "mode");
    const cJSON *names = get2(fcc, "allowedFunctionNames", "allowed_function_names");
    const char *mp = "toolConfig.functionCallingConfig.mode";
    const char *np = "toolConfig.functionCallingConfig.allowedFunctionNames";
    if (mode && !cJSON_IsNull(mode) && !cJSON_IsString(mode))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, mp, "must be a string");
    if (names && !cJSON_IsNull(names) && !cJSON_IsArray(names))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, np, "must be an array of strings");
    const char *m = cJSON_IsString(mode) ? mode->valuestring : "MODE_UNSPECIFIED";
    size_t nn = cJSON_IsArray(names) ? (size_t)cJSON_GetArraySize(names) : 0;
    if (strcmp(m, "AUTO") == 0 || strcmp(m, "MODE_UNSPECIFIED") == 0) {
        r->choice = strcmp(m, "AUTO") == 0 ? TW_CHOICE_AUTO : TW_CHOICE_UNSET;
    } else if (strcmp(m, "NONE") == 0) {
        r->choice = TW_CHOICE_NONE;
    } else if (strcmp(m, "VALIDATED") == 0) {
        r->choice = TW_CHOICE_AUTO;
        TRY(tw_rq_warn(d, TW_D_NOT_CARRIED,
                       "%s: VALIDATED (calls checked against their schema) read as auto", mp));
    } else if (strcmp(m, "ANY") == 0) {
        const cJSON *one = nn == 1 ? names->child : NULL;
        if (one && cJSON_IsString(one)) {
            r->choice = TW_CHOICE_NAMED;
            return (r->choice_name = tw_strdup(one->valuestring)) ? TW_OK : TW_ERR_NOMEM;
        }
        r->choice = TW_CHOICE_REQUIRED;
        if (nn && !names_all_tools(r, names))
            return tw_rq_warn(d, TW_D_NOT_CARRIED,
                              "%s: %zu allowed names are not carried; read as required", np, nn);
        return TW_OK;
    } else {
        return tw_rq_fail(d, TW_ERR_INVALID, -1, mp,
                          "unknown value '%s' (AUTO, ANY, NONE or VALIDATED)", m);
    }
    if (nn)
        TRY(tw_rq_warn(d, TW_D_NOT_CARRIED, "%s: only mode ANY uses allowed names", np));
    return TW_OK;
}

static tw_status read_generation(tw_rq *d, const cJSON *gc)
{
    if (!cJSON_IsObject(gc))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, "generationConfig", "must be an object");
    for (const cJSON *c = gc->child; c; c = c->next) {
        const char *k = option_key(c->string ? c->string : "");
        if (k)
            TRY(tw_rq_put_option(d, k, c));
        else
            TRY(tw_rq_warn(d, TW_D_NOT_CARRIED, "generationConfig.%s: not carried",
                           c->string ? c->string : "?"));
    }
    return TW_OK;
}

static tw_status body(gem_rd *g, const cJSON *j)
{
    tw_rq *d = g->d;
    TRY(tw_rq_root(d, j));
    const cJSON *sys = get2(j, "systemInstruction", "system_instruction");
    if (sys && !cJSON_IsNull(sys))
        TRY(read_system(d, sys));
    /* tools first: allowedFunctionNames is judged against them */
    const cJSON *tools = tw_json_get(j, "tools");
    if (tools && !cJSON_IsNull(tools))
        TRY(read_tools(d, tools));
    TRY(read_contents(g, tw_json_get(j, "contents")));
    for (const cJSON *c = j->child; c; c = c->next) {
        const char *k = c->string ? c->string : "";
        if (strcmp(k, "contents") == 0 || is_key(k, "systemInstruction", "system_instruction") ||
            strcmp(k, "tools") == 0 || cJSON_IsNull(c))
            continue;
        if (is_key(k, "toolConfig", "tool_config"))
            TRY(read_tool_config(d, c));
        else if (is_key(k, "generationConfig", "generation_config"))
            TRY(read_generation(d, c));
        else
            TRY(tw_rq_warn(d, TW_D_NOT_CARRIED, "%s: not carried by the neutral request", k));
    }
    return tw_rq_link_results(d, "gemini-request");
}

static tw_status finish(tw_rq *d, gem_rd *g, tw_status st)
{
    tw_free(g->used);
    if (st == TW_ERR_NOMEM && d->err && !d->err->message[0])
        tw_rq_fail(d, st, -1, "", "out of memory");
    if (st != TW_OK) {
        tw_request_free(d->req);
        d->req->parallel_tool_calls = -1;
    }
    return st;
}

tw_status tw_gemini_request_from_json(const cJSON *j, const tw_decode_opts *o, tw_request *out,
                                      tw_error *err)
{
    tw_rq d;
    tw_rq_begin(&d, o, out, err);
    gem_rd g = {.d = &d};
    return finish(&d, &g, body(&g, j));
}

tw_status tw_gemini_request_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                   tw_request *out, tw_error *err)
{
    tw_rq d;
    tw_rq_begin(&d, o, out, err);
    if (len > d.l.max_input_bytes)
        return tw_rq_fail(&d, TW_ERR_LIMIT, -1, "",
                          "the body is %zu bytes, more than max_input_bytes (%zu)", len,
                          d.l.max_input_bytes);
    cJSON *j = NULL;
    tw_error je;
    tw_status st = tw_json_parse(buf, len, d.l.max_depth, &j, &je);
    if (st != TW_OK)
        return tw_rq_fail_json(&d, st, &je, 0, "");
    gem_rd g = {.d = &d};
    st = body(&g, j);
    cJSON_Delete(j);
    return finish(&d, &g, st);
}
