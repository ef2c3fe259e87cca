/*
 * The harmony-prompt encoder: a neutral request as the gpt-oss chat template
 * renders it with Python's Jinja, byte for byte (docs/formats/harmony.md,
 * "The prompt"): the system message (identity, date, reasoning effort,
 * built-in tools), the developer message (instructions, the functions as a
 * TypeScript namespace), the turns, and the generation prompt. The
 * template's refusals are refusals here (TW_ERR_INVALID, its message in a
 * not_carried warning); what it drops is warned not_carried.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "enc_common.h"
#include "formats.h"
#include "harmony_text.h"
#include "py_text.h"
#include "toolwire/json.h"
#include "tw_macros.h"

#define FMT "harmony-prompt"

/* The template's refusal: TW_ERR_INVALID, its message (whole: some are
 * longer than tw_not_carried keeps) in a not_carried warning. */
static tw_status refuse(const tw_encode_opts *o, const char *why)
{
    if (o->warnings) {
        char tmp[640];
        snprintf(tmp, sizeof tmp, FMT ": refused: %s", why);
        if (tw_diag_add(o->warnings, TW_D_NOT_CARRIED, -1, tmp) == TW_ERR_NOMEM)
            return TW_ERR_NOMEM;
    }
    return TW_ERR_INVALID;
}

static const char *opt_str(const tw_request *r, const char *key)
{
    const cJSON *v = tw_json_get(r->options, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* json.dumps(s, ensure_ascii=False): the string quoted, raw past ASCII. */
static tw_status put_py_string(tw_buf *b, const char *s, size_t n)
{
    TRY(PUTS(b, "\""));
    size_t from = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        TRY(tw_buf_append(b, s + from, i - from));
        from = i + 1;
        char esc[8];
        switch (c) {
        case '"': TRY(PUTS(b, "\\\"")); break;
        case '\\': TRY(PUTS(b, "\\\\")); break;
        case '\n': TRY(PUTS(b, "\\n")); break;
        case '\r': TRY(PUTS(b, "\\r")); break;
        case '\t': TRY(PUTS(b, "\\t")); break;
        case '\b': TRY(PUTS(b, "\\b")); break;
        case '\f': TRY(PUTS(b, "\\f")); break;
        default: snprintf(esc, sizeof esc, "\\u%04x", c); TRY(tw_buf_puts(b, esc));
        }
    }
    TRY(tw_buf_append(b, s + from, n - from));
    return PUTS(b, "\"");
}

/* ===================== the tools as TypeScript ===================== */

static bool str_is(const cJSON *v, const char *s)
{
    return cJSON_IsString(v) && strcmp(v->valuestring, s) == 0;
}

/* Python's str() of a JSON scalar, as Jinja's join and `+` print it. */
static tw_status put_py_str(tw_buf *b, const cJSON *v, tw_diag_list *w)
{
    if (cJSON_IsString(v))
        return tw_buf_puts(b, v->valuestring);
    if (cJSON_IsNumber(v))
        return tw_py_str_number(b, v, w, FMT);
    if (cJSON_IsBool(v))
        return tw_buf_puts(b, cJSON_IsTrue(v) ? "True" : "False");
    if (cJSON_IsNull(v))
        return PUTS(b, "None");
    return tw_json_write_py(b, v, 0);
}

static tw_status ts_type(tw_buf *b, const cJSON *spec, tw_diag_list *w, int depth);

/* Python's len() of UTF-8 text: its code points (continuation bytes not counted). */
static size_t py_len(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += ((unsigned char)s[i] & 0xC0) != 0x80;
    return k;
}

/* render_typescript_type into a scratch buffer (the array branch measures it). */
static tw_status ts_type_text(tw_buf *t, const cJSON *spec, tw_diag_list *w, int depth)
{
    t->len = 0;
    return ts_type(t, spec, w, depth);
}

static tw_status ts_array(tw_buf *b, const cJSON *spec, tw_diag_list *w, int depth)
{
    const cJSON *items = tw_json_get(spec, "items");
    if (items && truthy(items)) {
        const cJSON *it = tw_json_get(items, "type");
        if (str_is(it, "string"))
            TRY(PUTS(b, "string[]"));
        else if (str_is(it, "number") || str_is(it, "integer"))
            TRY(PUTS(b, "number[]"));
        else if (str_is(it, "boolean"))
            TRY(PUTS(b, "boolean[]"));
        else {
            tw_buf t = {0};
            tw_status st = ts_type_text(&t, items, w, depth + 1);
            if (st == TW_OK) {
                bool any = (t.len == 15 && memcmp(t.data, "object | object", 15) == 0) ||
                           py_len(t.data, t.len) > 50;
                st = any ? PUTS(b, "any[]") : tw_buf_append(b, t.data, t.len);
                if (st == TW_OK && !any)
                    st = PUTS(b, "[]");
            }
            tw_buf_free(&t);
            TRY(st);
        }
    } else {
        TRY(PUTS(b, "any[]"));
    }
    if (truthy(tw_json_get(spec, "nullable")))
        TRY(PUTS(b, " | null"));
    return TW_OK;
}

static tw_status ts_object(tw_buf *b, const cJSON *spec, tw_diag_list *w, int depth)
{
    const cJSON *props = tw_json_get(spec, "properties");
    if (!props || !truthy(props) || !cJSON_IsObject(props))
        return PUTS(b, "object");
    const cJSON *req = tw_json_get(spec, "required");
    TRY(PUTS(b, "{\n"));
    for (const cJSON *p = props->child; p; p = p->next) {
        TRY(tw_buf_puts(b, p->string));
        bool required = false;
        for (const cJSON *x = cJSON_IsArray(req) ? req->child : NULL; x; x = x->next)
            required |= str_is(x, p->string);
        if (!required)
            TRY(PUTS(b, "?"));
        TRY(PUTS(b, ": \n                "));
        TRY(ts_type(b, p, w, depth + 1));
        if (p->next)
            TRY(PUTS(b, ", "));
    }
    return PUTS(b, "}");
}

/* The template's oneOf branch. Its test for object variants sets a
 * variable inside the loop, which Jinja's scoping drops: every variant is
 * written, a default after twenty spaces (the template's indentation before
 * a {{ }} that nothing strips). */
static tw_status ts_one_of(tw_buf *b, const cJSON *one, tw_diag_list *w, int depth)
{
    for (const cJSON *v = one->child; v; v = v->next) {
        TRY(ts_type(b, v, w, depth + 1));
        const cJSON *d = tw_json_get(v, "description");
        if (d && truthy(d)) {
            TRY(PUTS(b, "// "));
            TRY(put_py_str(b, d, w));
        }
        const cJSON *def = tw_json_get(v, "default");
        if (def) {
            TRY(PUTS(b, "                    // default: "));
            TRY(tw_json_write_py(b, def, 0));
        }
        if (v->next)
            TRY(PUTS(b, " | \n"));
    }
    return TW_OK;
}

static tw_status ts_type(tw_buf *b, const cJSON *spec, tw_diag_list *w, int depth)
{
    if (depth > 64)
        return TW_ERR_LIMIT;
    const cJSON *type = tw_json_get(spec, "type");
    if (str_is(type, "array"))
        return ts_array(b, spec, w, depth);
    if (cJSON_IsArray(type) && type->child) {
        for (const cJSON *t = type->child; t; t = t->next) {
            TRY(put_py_str(b, t, w));
            if (t->next)
                TRY(PUTS(b, " | "));
        }
        return TW_OK;
    }
    const cJSON *one = tw_json_get(spec, "oneOf");
    if (one && truthy(one) && cJSON_IsArray(one))
        return ts_one_of(b, one, w, depth);
    if (str_is(type, "string")) {
        const cJSON *en = tw_json_get(spec, "enum");
        if (en && truthy(en) && cJSON_IsArray(en)) {
            TRY(PUTS(b, "\""));
            for (const cJSON *e = en->child; e; e = e->next) {
                TRY(put_py_str(b, e, w));
                if (e->next)
                    TRY(PUTS(b, "\" | \""));
            }
            return PUTS(b, "\"");
        }
        TRY(PUTS(b, "string"));
        return truthy(tw_json_get(spec, "nullable")) ? PUTS(b, " | null") : TW_OK;
    }
    if (str_is(type, "number") || str_is(type, "integer"))
        return PUTS(b, "number");
    if (str_is(type, "boolean"))
        return PUTS(b, "boolean");
    if (str_is(type, "object"))
        return ts_object(b, spec, w, depth);
    return PUTS(b, "any");
}

static tw_status ts_tool(tw_buf *b, const tw_tool *t, const tw_encode_opts *o)
{
    if (!t->description) /* the template fails on it; written as an empty description */
        TRY(tw_not_carried(o, FMT ": tool %s has no description; written as an empty one",
                           t->name));
    TRY(PUTS(b, "// "));
    TRY(tw_buf_puts(b, t->description ? t->description : ""));
    TRY(PUTS(b, "\ntype "));
    TRY(tw_buf_puts(b, t->name));
    TRY(PUTS(b, " = "));
    const cJSON *props = t->parameters ? tw_json_get(t->parameters, "properties") : NULL;
    if (!props || !truthy(props) || !cJSON_IsObject(props))
        return PUTS(b, "() => any;\n\n");
    const cJSON *req = tw_json_get(t->parameters, "required");
    TRY(PUTS(b, "(_: {\n"));
    for (const cJSON *p = props->child; p; p = p->next) {
        const cJSON *d = tw_json_get(p, "description");
        if (d && truthy(d)) {
            TRY(PUTS(b, "// "));
            TRY(put_py_str(b, d, o->warnings));
            TRY(PUTS(b, "\n"));
        }
        TRY(tw_buf_puts(b, p->string));
        bool required = false;
        for (const cJSON *x = cJSON_IsArray(req) ? req->child : NULL; x; x = x->next)
            required |= str_is(x, p->string);
        if (!required)
            TRY(PUTS(b, "?"));
        TRY(PUTS(b, ": "));
        TRY(ts_type(b, p, o->warnings, 0));
        const cJSON *def = tw_json_get(p, "default");
        if (def) {
            const cJSON *en = tw_json_get(p, "enum"), *one = tw_json_get(p, "oneOf");
            bool raw = (en && truthy(en)) || (one && truthy(one));
            if (raw && !cJSON_IsString(def))
                return refuse(o, "a non-string default beside enum or oneOf (the template "
                                 "concatenates it)");
            TRY(raw && !(en && truthy(en)) ? PUTS(b, "// default: ") : PUTS(b, ", // default: "));
            TRY(raw ? tw_buf_puts(b, def->valuestring) : tw_json_write_py(b, def, 0));
        }
        TRY(PUTS(b, ",\n"));
    }
    return PUTS(b, "}) => any;\n\n");
}

/* ===================== the system and developer messages ===================== */

static tw_status put_system(tw_buf *b, const tw_request *r)
{
    TRY(PUTS(b, TW_HM_SYSTEM));
    const cJSON *id = tw_json_get(r->options, "model_identity");
    TRY(cJSON_IsString(id) ? tw_buf_puts(b, id->valuestring) : PUTS(b, TW_HM_IDENTITY));
    TRY(PUTS(b, TW_HM_CUTOFF));
    const char *date = opt_str(r, "current_date");
    if (date) {
        TRY(tw_buf_puts(b, date));
    } else { /* strftime_now("%Y-%m-%d"), as UTC: no time zone loaded (it allocates) */
        char now[64];
        tw_enc_utc_date(time(NULL), now, sizeof now);
        TRY(tw_buf_puts(b, now));
    }
    TRY(PUTS(b, TW_HM_REASONING));
    const char *effort = opt_str(r, "reasoning_effort");
    TRY(tw_buf_puts(b, effort ? effort : "medium"));
    TRY(PUTS(b, "\n\n"));
    const cJSON *bt = tw_json_get(r->options, "builtin_tools");
    if (bt && truthy(bt)) {
        bool browser = false, python = false;
        for (const cJSON *x = cJSON_IsArray(bt) ? bt->child : NULL; x; x = x->next) {
            browser |= str_is(x, "browser");
            python |= str_is(x, "python");
        }
        TRY(PUTS(b, TW_HM_TOOLS_HEAD));
        if (browser)
            TRY(PUTS(b, TW_HM_BROWSER));
        if (python)
            TRY(PUTS(b, TW_HM_PYTHON));
    }
    TRY(PUTS(b, TW_HM_CHANNELS));
    if (r->ntools)
        TRY(PUTS(b, TW_HM_FUNCTIONS_LINE));
    return PUTS(b, TW_HM_END);
}

static tw_status put_developer(tw_buf *b, const tw_request *r, const tw_message *dev,
                               const tw_encode_opts *o)
{
    bool instr = dev && dev->content.len;
    if (!instr && !r->ntools)
        return TW_OK;
    TRY(PUTS(b, TW_HM_DEVELOPER));
    if (instr) {
        TRY(PUTS(b, TW_HM_INSTRUCTIONS));
        TRY(tw_buf_append(b, dev->content.data, dev->content.len));
        TRY(PUTS(b, "\n\n"));
    }
    if (r->ntools) {
        TRY(PUTS(b, TW_HM_NAMESPACE));
        for (size_t i = 0; i < r->ntools; i++)
            TRY(ts_tool(b, &r->tools[i], o));
        TRY(PUTS(b, TW_HM_NAMESPACE_END));
    }
    return PUTS(b, TW_HM_END);
}

/* ===================== the turns ===================== */

static bool holds(const tw_buf *t, const char *lit)
{
    return t->len && tw_memmem(t->data, t->len, lit, strlen(lit)) != NULL;
}

/* The template's refusal of channel tags in a field (its own words). */
#define CHANNEL_TAGS(field)                                                                        \
    "You have passed a message containing <|channel|> tags in the " field                          \
    " field. Instead of doing this, you should pass analysis messages (the string between "        \
    "'<|message|>' and '<|end|>') in the 'thinking' field, and final messages (the string "        \
    "between '<|message|>' and '<|end|>') in the 'content' field."

static bool channel_tags(const tw_buf *t)
{
    return holds(t, "<|channel|>analysis<|message|>") || holds(t, "<|channel|>final<|message|>");
}

static tw_status put_text_msg(tw_buf *b, const char *head, const tw_buf *t, const char *end)
{
    TRY(tw_buf_puts(b, head));
    TRY(tw_buf_append(b, t->data, t->len));
    return tw_buf_puts(b, end);
}

/* What the request holds that the template has no place for. */
static tw_status losses(const tw_request *r, const tw_encode_opts *o)
{
    static const char *const OPTS[] = {"add_generation_prompt", "model_identity", "current_date",
                                       "reasoning_effort", "builtin_tools"};
    if (r->model)
        TRY(tw_not_carried(o, FMT ": model not carried"));
    if (r->parallel_tool_calls >= 0)
        TRY(tw_not_carried(o, FMT ": parallel_tool_calls not carried"));
    if (r->choice == TW_CHOICE_NONE || r->choice == TW_CHOICE_REQUIRED ||
        r->choice == TW_CHOICE_NAMED)
        TRY(tw_not_carried(o, FMT ": tool_choice not carried (the template has no place for it)"));
    for (const cJSON *c = r->options ? r->options->child : NULL; c; c = c->next) {
        const char *k = c->string ? c->string : "";
        bool carried = false;
        for (size_t j = 0; j < sizeof OPTS / sizeof OPTS[0]; j++)
            carried |= strcmp(k, OPTS[j]) == 0;
        if (!carried)
            TRY(tw_not_carried(o, FMT ": options.%.64s not carried", k));
    }
    return TW_OK;
}

static tw_status render(tw_buf *b, const tw_request *r, const tw_encode_opts *o, size_t max_depth)
{
    (void)max_depth;
    TRY(losses(r, o));
    const tw_message *ms = r->messages;
    size_t n = r->nmessages, first = 0;
    const tw_message *dev = NULL;
    if (n && ms[0].role == TW_ROLE_SYSTEM) {
        dev = &ms[0];
        first = 1;
    }
    bool gen = truthy(tw_json_get(r->options, "add_generation_prompt"));
    TRY(put_system(b, r));
    TRY(put_developer(b, r, dev, o));
    const char *last_call = NULL; /* the name results answer */
    static const char ANALYSIS[] = "<|start|>assistant<|channel|>analysis<|message|>";
    static const char FINAL[] = "<|start|>assistant<|channel|>final<|message|>";
    for (size_t i = first; i < n; i++) {
        const tw_message *m = &ms[i];
        if (m->role == TW_ROLE_ASSISTANT) {
            if (channel_tags(&m->content))
                return refuse(o, CHANNEL_TAGS("content"));
            if (channel_tags(&m->thinking))
                return refuse(o, CHANNEL_TAGS("thinking"));
            if (m->ncalls) {
                bool later_final = false;
                for (size_t k = i + 1; k < n; k++)
                    later_final |= ms[k].role == TW_ROLE_ASSISTANT && ms[k].ncalls == 0;
                if (m->content.len && m->thinking.len)
                    return refuse(o, "Cannot pass both content and thinking in an assistant "
                                     "message with tool calls! Put the analysis message in one or "
                                     "the other, but not both.");
                const tw_buf *a = m->content.len ? &m->content : &m->thinking;
                if (a->len && !later_final)
                    TRY(put_text_msg(b, ANALYSIS, a, "<|end|>"));
                else if (a->len)
                    TRY(tw_not_carried(o,
                                       FMT ": messages[%zu]: the reasoning of a call turn "
                                           "answered later is dropped",
                                       i));
                if (m->ncalls > 1)
                    TRY(tw_not_carried(o,
                                       FMT ": messages[%zu]: only the first of %zu calls is "
                                           "written",
                                       i, m->ncalls));
                const tw_call *c = &m->calls[0];
                TRY(PUTS(b, "<|start|>assistant to=functions."));
                TRY(tw_buf_puts(b, c->name ? c->name : ""));
                TRY(PUTS(b, "<|channel|>commentary json<|message|>"));
                if (c->arguments)
                    TRY(tw_json_write_py_warn(b, c->arguments, 0, o->warnings, FMT));
                else
                    TRY(PUTS(b, "{}"));
                TRY(PUTS(b, "<|call|>"));
                last_call = c->name ? c->name : "";
            } else if (i + 1 == n && !gen) {
                if (m->thinking.len)
                    TRY(put_text_msg(b, ANALYSIS, &m->thinking, "<|end|>"));
                TRY(put_text_msg(b, FINAL, &m->content, "<|return|>"));
            } else {
                if (m->thinking.len)
                    TRY(tw_not_carried(o,
                                       FMT ": messages[%zu]: the reasoning of an earlier "
                                           "turn is dropped",
                                       i));
                TRY(put_text_msg(b, FINAL, &m->content, "<|end|>"));
                last_call = NULL;
            }
        } else if (m->role == TW_ROLE_TOOL) {
            if (!last_call)
                return refuse(o, "Message has tool role, but there was no previous assistant "
                                 "message with a tool call!");
            TRY(PUTS(b, "<|start|>functions."));
            TRY(tw_buf_puts(b, last_call));
            TRY(PUTS(b, " to=assistant<|channel|>commentary<|message|>"));
            TRY(put_py_string(b, m->content.data ? m->content.data : "", m->content.len));
            TRY(PUTS(b, "<|end|>"));
        } else if (m->role == TW_ROLE_USER) {
            TRY(put_text_msg(b, "<|start|>user<|message|>", &m->content, "<|end|>"));
        } else {
            TRY(tw_not_carried(o,
                               FMT ": messages[%zu]: a system message after the first is "
                                   "dropped",
                               i));
        }
    }
    if (gen)
        TRY(PUTS(b, "<|start|>assistant"));
    return TW_OK;
}

static tw_status harmony_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!r || !out)
        return TW_ERR_INVALID;
    return tw_encode_capped(r, o ? o : &tw_enc_default_opts, out, render);
}

const tw_encoder_ops tw_encoder_harmony_prompt = {
    "harmony-prompt", "the OpenAI gpt-oss Harmony prompt, byte for byte as its chat template",
    TW_ENC_REQUEST, harmony_prompt_encode, tw_unsupported_encode_result};
