/* The scripted reference model (script.h). */
#include "script.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolwire/schema.h"

#define WORD_LEN (sizeof TW_SCRIPT_WORD - 1)

static void say(tw_error *err, tw_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say(tw_error *err, tw_status code, const char *fmt, ...)
{
    if (!err)
        return;
    char msg[sizeof err->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tw_error_set(err, code, -1, NULL, "%s", msg);
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* ---- finding the directive ---- */

/* Where the JSON object of the last directive of a text starts (its '{'),
 * or SIZE_MAX. An occurrence of the word not followed by whitespace and
 * '{' is a mention, not a directive. */
static size_t directive_start(const char *s, size_t n)
{
    size_t found = SIZE_MAX;
    const char *p = s, *end = s + n;
    while (p < end) {
        const char *w = memmem(p, (size_t)(end - p), TW_SCRIPT_WORD, WORD_LEN);
        if (!w)
            break;
        const char *q = w + WORD_LEN;
        if (q < end && is_space(*q)) {
            while (q < end && is_space(*q))
                q++;
            if (q < end && *q == '{')
                found = (size_t)(q - s);
        }
        p = w + WORD_LEN;
    }
    return found;
}

/* The directive of the latest user or system message holding one: *obj
 * (owned) and *msg its message index; TW_OK with *obj NULL when none. */
static tw_status find_directive(const tw_request *req, const tw_limits *L, cJSON **obj, size_t *msg,
                                tw_error *err)
{
    *obj = NULL;
    for (size_t i = req->nmessages; i-- > 0;) {
        const tw_message *m = &req->messages[i];
        if ((m->role != TW_ROLE_USER && m->role != TW_ROLE_SYSTEM) || !m->content.data)
            continue;
        size_t at = directive_start(m->content.data, m->content.len);
        if (at == SIZE_MAX)
            continue;
        *msg = i;
        const char *p = m->content.data + at;
        size_t left = m->content.len - at;
        size_t cap = left < L->max_input_bytes ? left : L->max_input_bytes;
        tw_jscan sc;
        memset(&sc, 0, sizeof sc);
        sc.max_depth = L->max_depth;
        size_t used = 0;
        tw_jscan_result r = tw_jscan_feed(&sc, p, cap, &used);
        if (r == TW_JSCAN_TOO_DEEP) {
            say(err, TW_ERR_INVALID,
                "messages[%zu]: the " TW_SCRIPT_WORD " directive at byte %zu nests "
                "deeper than max_depth (%zu)",
                i, at, L->max_depth);
            return TW_ERR_LIMIT;
        }
        if (r == TW_JSCAN_MORE && cap < left) {
            say(err, TW_ERR_INVALID,
                "messages[%zu]: the " TW_SCRIPT_WORD " directive at byte %zu is "
                "longer than max_input_bytes (%zu)",
                i, at, L->max_input_bytes);
            return TW_ERR_LIMIT;
        }
        if (r != TW_JSCAN_DONE) {
            say(err, TW_ERR_INVALID,
                "messages[%zu]: the " TW_SCRIPT_WORD " directive at byte %zu is not "
                "one JSON object (%s at byte %zu)",
                i, at, r == TW_JSCAN_MORE ? "the text ends inside it" : "unexpected character",
                at + used);
            return TW_ERR_PARSE;
        }
        tw_error je;
        memset(&je, 0, sizeof je);
        tw_status st = tw_json_parse(p, used, L->max_depth, obj, &je);
        if (st == TW_ERR_NOMEM)
            return st;
        if (st != TW_OK) {
            say(err, TW_ERR_INVALID,
                "messages[%zu]: the " TW_SCRIPT_WORD " directive at byte %zu is not "
                "valid JSON: %s",
                i, at, je.message[0] ? je.message : tw_code_message(st));
            return st == TW_ERR_LIMIT ? TW_ERR_LIMIT : TW_ERR_PARSE;
        }
        return TW_OK;
    }
    return TW_OK;
}

/* ---- the wire path of the directive ---- */

/* Does a wire value hold a directive: a string, or the text, content or
 * parts of an element (nested at most three levels, as the request bodies
 * write them)? */
static bool holds_directive(const cJSON *v, int depth)
{
    if (cJSON_IsString(v))
        return directive_start(v->valuestring, strlen(v->valuestring)) != SIZE_MAX;
    if (depth > 3)
        return false;
    if (cJSON_IsArray(v)) {
        for (const cJSON *c = v->child; c; c = c->next)
            if (holds_directive(c, depth + 1))
                return true;
        return false;
    }
    static const char *const keys[] = {"text", "content", "parts"};
    for (size_t i = 0; cJSON_IsObject(v) && i < sizeof keys / sizeof *keys; i++)
        if (holds_directive(tw_json_get(v, keys[i]), depth + 1))
            return true;
    return false;
}

/* A turn a directive is read from: a user, system or developer message (a
 * Gemini content without a role is the user's); not a call, a result or
 * any other typed item. */
static bool user_turn(const cJSON *e)
{
    const char *type = tw_json_get_str(e, "type");
    const char *role = tw_json_get_str(e, "role");
    if (type && strcmp(type, "message") != 0)
        return false;
    return !role || strcmp(role, "user") == 0 || strcmp(role, "system") == 0 ||
           strcmp(role, "developer") == 0;
}

void tw_script_wire_path(const cJSON *body, const char *list, const char *sys, char *msg,
                         size_t cap)
{
    static const char pre[] = "messages[";
    if (!msg || strncmp(msg, pre, sizeof pre - 1) != 0)
        return;
    const char *close = strchr(msg + sizeof pre - 1, ']');
    if (!close)
        return;
    char path[96] = "";
    const cJSON *l = tw_json_get(body, list);
    if (cJSON_IsString(l) && holds_directive(l, 0)) {
        snprintf(path, sizeof path, "%s", list);
    } else if (cJSON_IsArray(l)) {
        size_t n = (size_t)cJSON_GetArraySize(l), i = n;
        for (const cJSON *e = l->child ? l->child->prev : NULL; e && i > 0; i--) {
            if (user_turn(e) && holds_directive(e, 0)) {
                snprintf(path, sizeof path, "%s[%zu]", list, i - 1);
                break;
            }
            e = e == l->child ? NULL : e->prev;
        }
    }
    if (!path[0] && sys && holds_directive(tw_json_get(body, sys), 0))
        snprintf(path, sizeof path, "%s", sys);
    if (!path[0])
        return;
    size_t plen = strlen(path), rest = strlen(close + 1);
    if (plen + rest + 1 > cap)
        return;
    memmove(msg + plen, close + 1, rest + 1);
    memcpy(msg, path, plen);
}

static bool nonce_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > TW_SCRIPT_NONCE_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == ':' || c == '-'))
            return false;
    }
    return true;
}

char *tw_script_nonce(const tw_request *req)
{
    tw_limits L;
    tw_limits_resolve(&L, NULL);
    cJSON *obj = NULL;
    size_t msg = 0;
    if (!req || find_directive(req, &L, &obj, &msg, NULL) != TW_OK || !obj)
        return NULL;
    const char *n = tw_json_get_str(obj, "nonce");
    char *out = n && nonce_ok(n) ? tw_strdup(n) : NULL;
    cJSON_Delete(obj);
    return out;
}

/* ---- checking and rendering steps ---- */

static bool is_step_key(const char *k)
{
    return strcmp(k, "reasoning") == 0 || strcmp(k, "text") == 0 || strcmp(k, "calls") == 0 ||
           strcmp(k, "model_text") == 0;
}

static tw_status check_call(const cJSON *c, const char *where, const tw_limits *L, tw_error *err)
{
    if (!cJSON_IsObject(c)) {
        say(err, TW_ERR_INVALID, "%s: a call must be an object {\"name\": …, \"arguments\": …}",
            where);
        return TW_ERR_INVALID;
    }
    for (const cJSON *k = c->child; k; k = k->next)
        if (strcmp(k->string, "name") != 0 && strcmp(k->string, "arguments") != 0) {
            say(err, TW_ERR_INVALID, "%s: unknown key '%s' (name, arguments)", where, k->string);
            return TW_ERR_INVALID;
        }
    const char *name = tw_json_get_str(c, "name");
    if (!name || !name[0]) {
        say(err, TW_ERR_INVALID, "%s.name: a non-empty string is required", where);
        return TW_ERR_INVALID;
    }
    const cJSON *a = tw_json_get(c, "arguments");
    if (a && !cJSON_IsObject(a) && !cJSON_IsString(a)) {
        say(err, TW_ERR_INVALID, "%s.arguments: must be an object, or a string written as is",
            where);
        return TW_ERR_INVALID;
    }
    size_t size = cJSON_IsString(a) ? strlen(a->valuestring)
                  : a               ? tw_json_size(a, L->max_args_bytes + 1)
                                    : 2;
    if (size > L->max_args_bytes) {
        say(err, TW_ERR_LIMIT, "%s.arguments: longer than max_args_bytes (%zu)", where,
            L->max_args_bytes);
        return TW_ERR_LIMIT;
    }
    return TW_OK;
}

/* A step is an object of reasoning, text, calls, or of model_text alone. */
static tw_status check_step(const cJSON *s, const char *where, bool top, const tw_limits *L,
                            tw_error *err)
{
    if (!cJSON_IsObject(s)) {
        say(err, TW_ERR_INVALID, "%s: a step must be an object", where);
        return TW_ERR_INVALID;
    }
    bool raw = false, structured = false;
    for (const cJSON *k = s->child; k; k = k->next) {
        if (top && strcmp(k->string, "nonce") == 0)
            continue; /* the directive is its one step */
        if (!is_step_key(k->string)) {
            say(err, TW_ERR_INVALID, "%s: unknown key '%s' (reasoning, text, calls, model_text)",
                where, k->string);
            return TW_ERR_INVALID;
        }
        if (strcmp(k->string, "calls") == 0) {
            structured = true;
            continue;
        }
        if (!cJSON_IsString(k)) {
            say(err, TW_ERR_INVALID, "%s.%s: must be a string", where, k->string);
            return TW_ERR_INVALID;
        }
        if (strcmp(k->string, "model_text") == 0)
            raw = true;
        else
            structured = true;
    }
    if (raw && structured) {
        say(err, TW_ERR_INVALID,
            "%s: model_text stands alone (no reasoning, text or calls beside it)", where);
        return TW_ERR_INVALID;
    }
    const cJSON *calls = tw_json_get(s, "calls");
    if (calls && !cJSON_IsArray(calls)) {
        say(err, TW_ERR_INVALID, "%s.calls: must be an array", where);
        return TW_ERR_INVALID;
    }
    size_t n = (size_t)cJSON_GetArraySize(calls);
    if (n > L->max_calls) {
        say(err, TW_ERR_LIMIT, "%s.calls: more than max_calls (%zu)", where, L->max_calls);
        return TW_ERR_LIMIT;
    }
    size_t i = 0;
    for (const cJSON *c = calls ? calls->child : NULL; c; c = c->next, i++) {
        char w[96];
        snprintf(w, sizeof w, "%s.calls[%zu]", where, i);
        tw_status st = check_call(c, w, L, err);
        if (st != TW_OK)
            return st;
    }
    return TW_OK;
}

/* The directive's steps: *steps is its "steps" array, or the directive
 * itself as one step (*one), or none. */
static tw_status check_directive(const cJSON *d, size_t msg, const tw_limits *L,
                                 const cJSON **steps, bool *one, tw_error *err)
{
    char where[64];
    snprintf(where, sizeof where, "messages[%zu]: " TW_SCRIPT_WORD, msg);
    *steps = NULL;
    *one = false;
    if (!cJSON_IsObject(d)) {
        say(err, TW_ERR_INVALID, "%s: the directive must be a JSON object", where);
        return TW_ERR_INVALID;
    }
    bool step_keys = false;
    for (const cJSON *k = d->child; k; k = k->next) {
        if (strcmp(k->string, "nonce") == 0 || strcmp(k->string, "steps") == 0)
            continue;
        if (!is_step_key(k->string)) {
            say(err, TW_ERR_INVALID,
                "%s: unknown key '%s' (nonce, steps, or one step's reasoning, "
                "text, calls, model_text)",
                where, k->string);
            return TW_ERR_INVALID;
        }
        step_keys = true;
    }
    const cJSON *nonce = tw_json_get(d, "nonce");
    if (nonce && !(cJSON_IsString(nonce) && nonce_ok(nonce->valuestring))) {
        say(err, TW_ERR_INVALID,
            "%s.nonce: must be a string of 1 to %d characters A-Z a-z 0-9 . _ : -", where,
            TW_SCRIPT_NONCE_MAX);
        return TW_ERR_INVALID;
    }
    const cJSON *st = tw_json_get(d, "steps");
    if (st && step_keys) {
        say(err, TW_ERR_INVALID, "%s: give either \"steps\" or one step's keys, not both", where);
        return TW_ERR_INVALID;
    }
    if (step_keys) {
        *one = true;
        return check_step(d, where, true, L, err);
    }
    if (!st)
        return TW_OK;
    if (!cJSON_IsArray(st)) {
        say(err, TW_ERR_INVALID, "%s.steps: must be an array of steps", where);
        return TW_ERR_INVALID;
    }
    size_t n = (size_t)cJSON_GetArraySize(st);
    if (n > L->max_messages) {
        say(err, TW_ERR_LIMIT, "%s.steps: more than max_messages (%zu) steps", where,
            L->max_messages);
        return TW_ERR_LIMIT;
    }
    size_t i = 0;
    for (const cJSON *s = st->child; s; s = s->next, i++) {
        char w[96];
        snprintf(w, sizeof w, "%s.steps[%zu]", where, i);
        tw_status r = check_step(s, w, false, L, err);
        if (r != TW_OK)
            return r;
    }
    *steps = st;
    return TW_OK;
}

static tw_status put_call(tw_buf *b, const char *name, const cJSON *args)
{
    tw_status st = tw_buf_puts(b, "<tool_call>\n{\"name\": ");
    if (st == TW_OK)
        st = tw_json_write_str(b, name, strlen(name), 0);
    if (st == TW_OK)
        st = tw_buf_puts(b, ", \"arguments\": ");
    if (st == TW_OK) {
        if (cJSON_IsString(args))
            st = tw_buf_puts(b, args->valuestring);
        else if (args)
            st = tw_json_write(b, args, TW_JSON_COMPACT);
        else
            st = tw_buf_puts(b, "{}");
    }
    if (st == TW_OK)
        st = tw_buf_puts(b, "}\n</tool_call>");
    return st;
}

static tw_status put_think(tw_buf *b, const char *r)
{
    tw_status st = tw_buf_puts(b, "<think>");
    if (st == TW_OK)
        st = tw_buf_puts(b, r);
    if (st == TW_OK)
        st = tw_buf_puts(b, "</think>");
    return st;
}

/* A checked step as model text. */
static tw_status render_step(const cJSON *s, tw_script_answer *a)
{
    const char *raw = tw_json_get_str(s, "model_text");
    if (raw) {
        a->reasoning = strstr(raw, "<think>") != NULL;
        return tw_buf_puts(&a->model_text, raw);
    }
    const char *r = tw_json_get_str(s, "reasoning");
    const char *t = tw_json_get_str(s, "text");
    tw_status st = TW_OK;
    if (r) {
        a->reasoning = true;
        st = put_think(&a->model_text, r);
    }
    if (st == TW_OK && t)
        st = tw_buf_puts(&a->model_text, t);
    const cJSON *calls = tw_json_get(s, "calls");
    for (const cJSON *c = calls ? calls->child : NULL; st == TW_OK && c; c = c->next) {
        if (a->model_text.len)
            st = tw_buf_putc(&a->model_text, '\n');
        if (st == TW_OK)
            st = put_call(&a->model_text, tw_json_get_str(c, "name"), tw_json_get(c, "arguments"));
    }
    return st;
}

/* ---- reasoning and the default policy ---- */

static bool effort_on(const cJSON *e)
{
    return cJSON_IsString(e) && strcmp(e->valuestring, "none") != 0 &&
           strcmp(e->valuestring, "minimal") != 0;
}

bool tw_script_options_reasoning(const cJSON *o)
{
    if (!cJSON_IsObject(o))
        return false;
    const cJSON *e = tw_json_get(o, "reasoning_effort");
    if (e && !cJSON_IsNull(e))
        return effort_on(e);
    const cJSON *r = tw_json_get(o, "reasoning");
    if (cJSON_IsObject(r)) {
        const cJSON *en = tw_json_get(r, "enabled");
        const cJSON *re = tw_json_get(r, "effort");
        if (cJSON_IsBool(en))
            return cJSON_IsTrue(en) && (!re || effort_on(re));
        return !re || effort_on(re);
    }
    if (cJSON_IsTrue(tw_json_get(tw_json_get(o, "chat_template_kwargs"), "enable_thinking")))
        return true;
    const char *tt = tw_json_get_str(tw_json_get(o, "thinking"), "type");
    if (tt && strcmp(tt, "enabled") == 0)
        return true;
    return cJSON_IsTrue(tw_json_get(o, "two_pass"));
}

/* The start of a tool result: its first line, up to the first '<' (no markup
 * reaches the model text), at most TW_SCRIPT_QUOTE_MAX bytes, whole UTF-8
 * characters only. */
static size_t quote_len(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        size_t k = c < 0x80             ? 1
                   : (c & 0xE0) == 0xC0 ? 2
                   : (c & 0xF0) == 0xE0 ? 3
                   : (c & 0xF8) == 0xF0 ? 4
                                        : 0;
        if (k == 0 || c < 0x20 || c == 0x7F || c == '<' || i + k > n || i + k > TW_SCRIPT_QUOTE_MAX)
            break;
        bool ok = true;
        for (size_t j = 1; j < k; j++)
            ok = ok && ((unsigned char)s[i + j] & 0xC0) == 0x80;
        if (!ok || (k == 2 && c < 0xC2))
            break;
        i += k;
    }
    return i;
}

static tw_status default_answer(const tw_request *req, bool reasoning, const tw_limits *L,
                                tw_script_answer *a, tw_error *err)
{
    a->step = -1;
    a->reasoning = reasoning;
    tw_buf *b = &a->model_text;
    tw_status st = reasoning ? put_think(b, TW_SCRIPT_DEFAULT_REASONING) : TW_OK;
    const tw_tool *tool = NULL;
    if (req->choice == TW_CHOICE_NAMED) {
        tool = tw_tools_find(req->tools, req->ntools, req->choice_name ? req->choice_name : "");
        if (!tool) {
            say(err, TW_ERR_INVALID, "tool_choice: names '%.100s', which is not a declared tool",
                req->choice_name ? req->choice_name : "");
            return TW_ERR_INVALID;
        }
    } else if (req->choice == TW_CHOICE_REQUIRED) {
        if (!req->ntools) {
            say(err, TW_ERR_INVALID,
                "tool_choice: a call is required but the request declares no tools");
            return TW_ERR_INVALID;
        }
        tool = &req->tools[0];
    }
    if (st != TW_OK)
        return st;
    if (tool) {
        cJSON *args = NULL;
        tw_error gw = {.offset = -1};
        st = tw_script_schema_args(tool->parameters, L, &args, &gw);
        if (st != TW_OK) {
            say(err, st, "tools['%.60s'].parameters: cannot generate arguments: %s", tool->name,
                gw.message);
            return st;
        }
        st = put_call(b, tool->name, args);
        cJSON_Delete(args);
        return st;
    }
    const tw_message *last = req->nmessages ? &req->messages[req->nmessages - 1] : NULL;
    if (last && last->role == TW_ROLE_TOOL) {
        const char *c = last->content.data ? last->content.data : "";
        st = tw_buf_puts(b, TW_SCRIPT_RESULT_PREFIX "\"");
        if (st == TW_OK)
            st = tw_buf_append(b, c, quote_len(c, last->content.len));
        if (st == TW_OK)
            st = tw_buf_putc(b, '"');
        return st;
    }
    return tw_buf_puts(b, TW_SCRIPT_DEFAULT_TEXT);
}

/* ---- the answer ---- */

void tw_script_answer_free(tw_script_answer *a)
{
    if (!a)
        return;
    tw_buf_free(&a->model_text);
    free(a->nonce);
    memset(a, 0, sizeof *a);
    a->step = -1;
}

tw_status tw_script_answer_with(const tw_request *req, int reasoning, const tw_limits *lim,
                                tw_script_answer *out, tw_error *err)
{
    memset(out, 0, sizeof *out);
    out->step = -1;
    tw_limits L;
    tw_limits_resolve(&L, lim);
    out->model_text.max = L.max_input_bytes;
    tw_error_clear(err);
    bool think = reasoning < 0 ? tw_script_options_reasoning(req->options) : reasoning > 0;
    cJSON *d = NULL;
    size_t msg = 0;
    tw_status st = find_directive(req, &L, &d, &msg, err);
    const cJSON *steps = NULL;
    bool one = false;
    if (st == TW_OK && d)
        st = check_directive(d, msg, &L, &steps, &one, err);
    if (st == TW_OK && d) {
        const char *n = tw_json_get_str(d, "nonce");
        if (n && !(out->nonce = tw_strdup(n)))
            st = TW_ERR_NOMEM;
    }
    if (st == TW_OK) {
        size_t turn = 0;
        for (size_t i = msg + 1; d && i < req->nmessages; i++)
            turn += req->messages[i].role == TW_ROLE_ASSISTANT;
        const cJSON *step = NULL;
        if (one && turn == 0)
            step = d;
        else if (steps && turn < (size_t)cJSON_GetArraySize(steps))
            step = cJSON_GetArrayItem(steps, (int)turn);
        if (step) {
            out->step = (int)turn;
            st = render_step(step, out);
            if (st == TW_ERR_LIMIT)
                say(err, TW_ERR_INVALID,
                    "messages[%zu]: " TW_SCRIPT_WORD ": step %zu's model text is "
                    "longer than max_input_bytes (%zu)",
                    msg, turn, L.max_input_bytes);
        } else {
            st = default_answer(req, think, &L, out, err);
            if (st == TW_ERR_LIMIT && err && !err->message[0])
                say(err, TW_ERR_LIMIT, "the answer is longer than max_input_bytes (%zu)",
                    L.max_input_bytes);
        }
    }
    cJSON_Delete(d);
    if (st == TW_ERR_NOMEM && err && !err->message[0])
        say(err, TW_ERR_NOMEM, "out of memory");
    if (st != TW_OK)
        tw_script_answer_free(out);
    return st;
}

tw_status tw_script_answer_for(const tw_request *req, const tw_limits *lim, tw_script_answer *out,
                               tw_error *err)
{
    return tw_script_answer_with(req, -1, lim, out, err);
}
