/*
 * Call acceptance (see calls.h): the rules every decoder applies to a call
 * it read, in one order, with the warnings a call holds back until it is
 * accepted.
 */
#include "calls.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "toolwire/schema.h"

static bool pending_kind(tw_status code)
{
#define TW_PENDING_IS(c) code == (c) ||
    return TW_PENDING_CODES(TW_PENDING_IS) false;
#undef TW_PENDING_IS
}

bool tw_pending_add(tw_pending *warns, size_t *nwarn, tw_status code, const char *fmt, ...)
{
    if (!pending_kind(code))
        return false;
    for (size_t i = 0; i < *nwarn; i++)
        if (warns[i].code == code)
            return false;
    /* one slot per kind: a call never holds more than TW_PENDING_MAX */
    if (*nwarn >= TW_PENDING_MAX)
        return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(warns[*nwarn].msg, sizeof warns[0].msg, fmt, ap);
    va_end(ap);
    warns[(*nwarn)++].code = code;
    return true;
}

/* The keys of a call object that may not repeat: which one counts is ambiguous. */
static const char *const CALL_KEYS[] = {"name", "arguments", "parameters", "id",
                                        "type", "function",  "input",      NULL};

/*
 * Refusals every decoder shares for a parsed call object: a string or key
 * in it held U+0000 (removed by tw_json_parse_lint), or it repeats one of
 * CALL_KEYS. True with the refusal in err, or false (err untouched).
 */
bool tw_call_object_check(const cJSON *obj, tw_error *err)
{
    if (tw_json_tainted(obj)) {
        tw_error_set(err, TW_D_JSON_NUL, -1, NULL,
                     "tool call holds U+0000 in a string or key; cut strings are refused");
        return true;
    }
    const char *k = tw_json_repeated_member(obj, CALL_KEYS);
    if (k) {
        tw_error_set(err, TW_D_CALL_DUPLICATE_KEY, -1, NULL, "tool call repeats the key '%.120s'",
                     k);
        return true;
    }
    return false;
}

/*
 * Repeated keys inside accepted arguments: later members removed, the first
 * value of each key kept, one warning held that names the path.
 */
tw_status tw_args_dedupe(cJSON *args, tw_pending *warns, size_t *nwarn)
{
    char path[200];
    size_t removed = 0;
    tw_status st = tw_json_dedupe(args, path, sizeof path, &removed);
    if (st == TW_OK && removed)
        tw_pending_add(warns, nwarn, TW_D_DUPLICATE_KEY,
                       "arguments repeat the key at '%.160s' (%zu repeated member%s removed); "
                       "the first value of each key was kept",
                       path, removed, removed == 1 ? "" : "s");
    return st;
}

/* Written bytes per source byte a parsed tree's size bound can reach: a
 * number of one byte is bounded by 32 + 1 (tw_json_size_within). */
#define TW_SIZE_PER_SOURCE_BYTE 33

/* tw_call_check; src_len, when not 0, is the length of the text the
 * arguments were parsed from, which bounds their written size. */
static bool call_check(const tw_decode_opts *o, const tw_limits *L, tw_result *res,
                       const char *name, const cJSON *args, size_t src_len, tw_error *err,
                       tw_pending *warns, size_t *nwarn)
{
    bool small = src_len && src_len <= L->max_args_bytes / TW_SIZE_PER_SOURCE_BYTE;
    if (!small && !tw_json_size_within(args, L->max_args_bytes)) {
        tw_error_set(err, TW_D_ARGS_TOO_LARGE, -1, NULL, "arguments exceed max_args_bytes (%zu)",
                     L->max_args_bytes);
        return true;
    }
    const tw_tool *t = tw_result_find_tool(res, o->tools, o->ntools, name);
    tw_error se;
    if (t && t->parameters && !tw_schema_validate(t->parameters, args, L->max_depth, &se)) {
        const char *sw = se.message;
        if (o->schema_warn) {
            tw_pending_add(warns, nwarn, TW_D_ARGS_SCHEMA, "%s", sw);
        } else {
            tw_error_set(err, TW_D_ARGS_SCHEMA, -1, NULL, "%s", sw);
            return true;
        }
    }
    if (res->msg.ncalls >= L->max_calls) {
        tw_error_set(err, TW_D_TOO_MANY_CALLS, -1, NULL, "more than max_calls (%zu) tool calls",
                     L->max_calls);
        return true;
    }
    return false;
}

bool tw_call_check(const tw_decode_opts *o, const tw_limits *L, tw_result *res, const char *name,
                   const cJSON *args, tw_error *err, tw_pending *warns, size_t *nwarn)
{
    return call_check(o, L, res, name, args, 0, err, warns, nwarn);
}

tw_status tw_wire_diag(tw_wire_sink *k, bool error, tw_status code, int64_t off, const char *msg)
{
    tw_diag_list *l = error ? &k->res->errors : &k->res->warnings;
    size_t before = l->len;
    tw_status st = tw_diag_add(l, code, off, msg);
    if (st == TW_OK && l->len > before && k->fn) {
        tw_event ev = {error ? TW_EV_ERROR : TW_EV_WARNING, NULL, 0, NULL, &l->items[l->len - 1]};
        tw_event_deliver(k->fn, k->user, k->stop, &ev);
    }
    return st;
}

/* Trim whitespace and one ``` or ```json fence around argument text. */
static void strip_fence(const char **p, size_t *n)
{
    tw_trim(p, n);
    const char *s = *p;
    size_t len = *n;
    if (len >= 3 && memcmp(s, "```", 3) == 0) {
        s += 3;
        len -= 3;
        if (len >= 4 && (memcmp(s, "json", 4) == 0 || memcmp(s, "JSON", 4) == 0)) {
            s += 4;
            len -= 4;
        }
        if (len >= 3 && memcmp(s + len - 3, "```", 3) == 0)
            len -= 3;
        tw_trim(&s, &len);
        *p = s;
        *n = len;
    }
}

/* Nesting of a parsed tree (an object or array counts one level), stopping
 * once past cap. */
static size_t tree_depth(const cJSON *v, size_t level, size_t cap)
{
    if (!cJSON_IsObject(v) && !cJSON_IsArray(v))
        return level - 1;
    if (level > cap)
        return level;
    size_t best = level;
    for (const cJSON *c = v->child; c && best <= cap; c = c->next) {
        size_t d = tree_depth(c, level + 1, cap);
        if (d > best)
            best = d;
    }
    return best;
}

/*
 * Arguments given as text: the wire's own form (wire_text, an OpenAI
 * arguments string, cut at tw_args_text_cap when oversize) or a JSON string
 * where the format holds an object (arguments_as_string). Sets *args, or
 * the refusal in why (why->code a diagnostic, *args NULL); TW_ERR_NOMEM is the
 * only failure.
 */
static tw_status parse_args(const tw_limits *L, const char *p, size_t n, bool wire_text,
                            bool oversize, cJSON **args, tw_error *why, tw_pending *warns,
                            size_t *nwarn)
{
    const char *what = wire_text ? "text" : "string";
    tw_error e;
    tw_json_lint lint;
    tw_status ps =
        oversize ? TW_ERR_LIMIT : tw_json_parse_lint(p, n, L->max_depth, args, &e, &lint);
    bool deep = !oversize && ps != TW_OK && e.code == TW_D_JSON_TOO_DEEP;
    if (ps == TW_OK && lint.nul) {
        tw_error_set(why, TW_D_JSON_NUL, -1, NULL,
                     "arguments %s holds U+0000 at its byte %lld; cut strings are refused", what,
                     (long long)lint.nul_offset);
    } else if (wire_text && ps == TW_ERR_LIMIT && !deep) {
        tw_error_set(why, TW_D_ARGS_TOO_LARGE, -1, NULL,
                     "argument text exceeds 2 * max_args_bytes + 4096");
    } else if (ps == TW_ERR_NOMEM) {
        return TW_ERR_NOMEM;
    } else if (deep) {
        tw_error_set(why, TW_D_JSON_TOO_DEEP, -1, NULL, "arguments nested deeper than %zu",
                     L->max_depth);
    } else if (wire_text && ps != TW_OK) {
        tw_error_set(why, TW_D_TOOL_CALL_JSON, -1, NULL, "arguments string is not JSON: %s",
                     e.message);
    } else if (ps != TW_OK || !cJSON_IsObject(*args)) {
        tw_error_set(why, TW_D_ARGUMENTS_NOT_OBJECT, -1, NULL,
                     "arguments string does not hold a JSON object");
    } else {
        if (!wire_text)
            tw_pending_add(warns, nwarn, TW_D_ARGUMENTS_AS_STRING, "arguments were a JSON string");
        if (lint.nonstd_offset >= 0)
            tw_pending_add(warns, nwarn, TW_D_JSON_NOT_RFC8259,
                           "arguments %s is not RFC 8259 JSON: %s at its byte %lld", what,
                           lint.nonstd_what, (long long)lint.nonstd_offset);
    }
    if (why->code != TW_OK) {
        cJSON_Delete(*args);
        *args = NULL;
    }
    return TW_OK;
}

tw_status tw_wire_take_call(tw_wire_sink *k, const tw_wire_call *c)
{
    const tw_decode_opts *o = k->o;
    const tw_limits *L = k->L;
    tw_error why; /* the refusal: why.code a diagnostic, TW_OK while the call stands */
    tw_error_clear(&why);
    /* alias, as-string or as-object, schema, legacy, duplicate id, duplicate key, not
     * RFC 8259: one slot for each kind there is */
    tw_pending warns[TW_PENDING_MAX];
    size_t nwarn = 0;
    cJSON *args = NULL;
    size_t src_len = 0; /* the text args were parsed from, when known */
    const char *name = c->name;

    if (c->params_alias)
        tw_pending_add(warns, &nwarn, TW_D_PARAMETERS_ALIAS, "'parameters' used for 'arguments'");
    if (c->refuse) {
        tw_error_set(&why, c->refuse, -1, NULL, "%s",
                     c->refuse_why ? c->refuse_why : tw_code_message(c->refuse));
    } else if (!name || !name[0]) {
        tw_error_set(&why, TW_D_MISSING_NAME, -1, NULL, "tool call has no non-empty name");
    } else if ((o->tools_declared || o->ntools) && !o->allow_unknown_tool &&
               !tw_result_find_tool(k->res, o->tools, o->ntools, name)) {
        tw_error_set(&why, TW_D_UNKNOWN_TOOL, -1, NULL, "tool '%.120s' was not declared", name);
    }
    cJSON *tree = c->args_tree; /* the call's: taken below or freed here */
    if (why.code != TW_OK || !c->has_args_str || c->args_oversize) {
        cJSON_Delete(tree);
        tree = NULL;
    }
    if (why.code == TW_OK && c->has_args_str) {
        const char *p = c->args_str ? c->args_str : "";
        size_t n = c->args_len;
        strip_fence(&p, &n);
        if (tree) /* what parse_args reads from the text, found clean */
            args = tree;
        else if (parse_args(L, p, n, true, c->args_oversize, &args, &why, warns, &nwarn) != TW_OK)
            return TW_ERR_NOMEM;
        src_len = n;
    } else if (why.code == TW_OK && c->args_native && cJSON_IsString(c->args_value)) {
        /* a format whose arguments are an object gave a string: parse it */
        const char *p = c->args_value->valuestring;
        src_len = strlen(p);
        if (parse_args(L, p, src_len, false, false, &args, &why, warns, &nwarn) != TW_OK)
            return TW_ERR_NOMEM;
    } else if (why.code == TW_OK && c->args_value && !cJSON_IsNull(c->args_value)) {
        if (!cJSON_IsObject(c->args_value)) {
            tw_error_set(&why, TW_D_ARGUMENTS_NOT_OBJECT, -1, NULL,
                         "arguments are not a JSON object");
        } else if (!c->args_src_len && tree_depth(c->args_value, 1, L->max_depth) > L->max_depth) {
            /* (a tree parsed with max_depth holds nothing deeper) */
            tw_error_set(&why, TW_D_JSON_TOO_DEEP, -1, NULL, "arguments nested deeper than %zu",
                         L->max_depth);
        } else {
            args = c->args_owner ? cJSON_DetachItemViaPointer(c->args_owner, (cJSON *)c->args_value)
                                 : cJSON_Duplicate(c->args_value, 1);
            if (!args)
                return TW_ERR_NOMEM;
            src_len = c->args_src_len;
            if (!c->args_native)
                tw_pending_add(warns, &nwarn, TW_D_ARGUMENTS_AS_OBJECT,
                               "arguments were an object, not a JSON string");
        }
    } else if (why.code == TW_OK) {
        args = cJSON_CreateObject();
        if (!args)
            return TW_ERR_NOMEM;
    }
    if (why.code == TW_OK && tw_args_dedupe(args, warns, &nwarn) != TW_OK) {
        cJSON_Delete(args);
        return TW_ERR_NOMEM;
    }
    if (why.code == TW_OK)
        call_check(o, L, k->res, name, args, src_len, &why, warns, &nwarn);
    if (why.code != TW_OK) {
        cJSON_Delete(args);
        return tw_wire_diag(k, true, why.code, c->offset, why.message);
    }

    tw_call call;
    memset(&call, 0, sizeof call);
    call.offset = c->offset;
    call.arguments = args;
    call.name = tw_strdup(name);
    /* the text's own buffer becomes raw_args once the call is in (no copy) */
    bool take = c->has_args_str && c->args_buf && c->args_str && c->args_str == c->args_buf->data;
    if (c->has_args_str && c->args_str && !take) {
        call.raw_args = tw_strndup(c->args_str, c->args_len);
        call.raw_args_len = c->args_len;
    }
    const char *jid = c->id;
    char gen[32];
    if (!jid || !jid[0]) {
        snprintf(gen, sizeof gen, "call_%zu", k->res->msg.ncalls + 1);
        jid = gen;
    }
    bool rewritten = false;
    call.id = tw_result_unique_call_id(k->res, jid, &rewritten);
    if (!call.name || !call.id || (c->has_args_str && c->args_str && !take && !call.raw_args)) {
        tw_call_free(&call);
        return TW_ERR_NOMEM;
    }
    if (c->legacy)
        tw_pending_add(warns, &nwarn, TW_D_LEGACY_FUNCTION_CALL,
                       "legacy function_call converted to tool call '%.80s'", call.id);
    if (rewritten)
        tw_pending_add(warns, &nwarn, TW_D_DUPLICATE_ID,
                       "duplicate id '%.80s' rewritten as '%.80s'", jid, call.id);
    tw_status st = TW_OK;
    for (size_t i = 0; st == TW_OK && i < nwarn; i++)
        st = tw_wire_diag(k, false, warns[i].code, c->offset, warns[i].msg);
    if (st == TW_OK && take) {
        call.raw_args = c->args_buf->data;
        call.raw_args_len = c->args_len;
    }
    if (st == TW_OK)
        st = tw_message_add_call(&k->res->msg, &call);
    if (st != TW_OK) {
        if (take)
            call.raw_args = NULL; /* still the buffer's */
        tw_call_free(&call);
        return st;
    }
    if (take) {
        size_t max = c->args_buf->max;
        memset(c->args_buf, 0, sizeof *c->args_buf);
        c->args_buf->max = max;
    }
    if (k->fn) {
        tw_event ev = {TW_EV_TOOL_CALL, NULL, 0, &k->res->msg.calls[k->res->msg.ncalls - 1], NULL};
        tw_event_deliver(k->fn, k->user, k->stop, &ev);
    }
    return TW_OK;
}

tw_status tw_call_take_object(tw_wire_sink *k, cJSON *obj, int64_t off)
{
    return tw_call_take_parsed(k, obj, off, 0);
}

/* The members a call object is read by, found in one walk (the first of
 * each key, as cJSON_GetObjectItemCaseSensitive finds it), each key
 * compared by its length first. */
typedef struct call_members {
    const cJSON *name, *id, *arguments, *parameters;
} call_members;

static void find_call_members(const cJSON *obj, call_members *m)
{
    memset(m, 0, sizeof *m);
    for (const cJSON *c = obj->child; c; c = c->next) {
        const char *s = c->string;
        if (!s)
            continue;
        const cJSON **slot = NULL;
        switch (strlen(s)) {
        case 2: slot = memcmp(s, "id", 2) == 0 ? &m->id : NULL; break;
        case 4: slot = memcmp(s, "name", 4) == 0 ? &m->name : NULL; break;
        case 9: slot = memcmp(s, "arguments", 9) == 0 ? &m->arguments : NULL; break;
        case 10: slot = memcmp(s, "parameters", 10) == 0 ? &m->parameters : NULL; break;
        default: break;
        }
        if (slot && !*slot)
            *slot = c;
    }
}

tw_status tw_call_take_parsed(tw_wire_sink *k, cJSON *obj, int64_t off, size_t src_len)
{
    if (!cJSON_IsObject(obj))
        return tw_wire_diag(k, true, TW_D_TOOL_CALL_JSON, off, "tool call is not a JSON object");
    tw_error why;
    tw_wire_call c;
    memset(&c, 0, sizeof c);
    c.offset = off;
    if (tw_call_object_check(obj, &why)) {
        c.refuse = why.code;
        c.refuse_why = why.message;
    }
    call_members m;
    find_call_members(obj, &m);
    c.name = cJSON_IsString(m.name) ? m.name->valuestring : NULL;
    c.id = cJSON_IsString(m.id) ? m.id->valuestring : NULL;
    const cJSON *ja = m.arguments;
    if (!ja) {
        ja = m.parameters;
        c.params_alias = ja != NULL;
    }
    c.args_value = ja;
    c.args_native = true;
    c.args_owner = obj;
    c.args_src_len = src_len;
    return tw_wire_take_call(k, &c);
}
