/*
 * Gemma 4 prompts: the encoder of the Gemma 4 chat template
 * (gemma-4-prompt), byte for byte what transformers' Jinja renders; its
 * reader is request_gemma.c. Rules: docs/formats/gemma4.md, "The prompt".
 *
 *   <bos>[<|turn>system\n[<|think|>\n]SYSTEM[<|tool>declaration:NAME{…}<tool|>…]<turn|>\n]
 *   <|turn>user\nTEXT<turn|>\n
 *   <|turn>model\n[<|channel>thought\nR\n<channel|>]<|tool_call>call:NAME{k:V,…}<tool_call|>…
 *     <|tool_response>response:NAME{value:<|"|>R<|"|>}<tool_response|>…CONTENT<turn|>\n
 *   [<|turn>model\n[<|channel>thought\n<channel|>]]
 *
 * Values, declarations included, are in the brace syntax of gemma_text.h:
 * one writer (tw_gemma_put_value) and one reader (tw_gemma_brace_json) with
 * the output dialect.
 */
#include "alloc.h"
#include "toolwire/gemma.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enc_common.h"
#include "formats.h"
#include "gemma_text.h"
#include "py_text.h"
#include "request_read.h"
#include "tw_macros.h"
#include "toolwire/json.h"

/* the template's messages when it fails */
#define NO_MESSAGES "list object has no element 0"
#define NO_NAME "can only concatenate str (not \"NoneType\") to str"

/* Every special token of the prompt: text holding one is read back
 * otherwise. */
static const char *const p_tokens[] = {G_CH,   G_CH_END, G_CALL, G_CALL_END, G_Q,        G_EOT,
                                       G_TURN, G_RESP,   G_TOOL, G_TOOL_END, G_RESP_END, G_THINK};

static bool has_prompt_token(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof p_tokens / sizeof p_tokens[0]; i++)
        if (tw_memmem(s, n, p_tokens[i], strlen(p_tokens[i])))
            return true;
    return false;
}

/* ===================== the encoder ===================== */

typedef struct ge {
    tw_buf *b;
    const tw_request *r;
    const tw_encode_opts *o;
    size_t max_depth;
    const char *tool; /* the tool being declared, in warnings */
} ge;

static tw_status refuse(const tw_encode_opts *o, const char *fmt, const char *a, const char *why)
{
    char m[400];
    snprintf(m, sizeof m, fmt, a);
    tw_status st = tw_not_carried(o, FMT ": refused: %s: %s", m, why);
    return st == TW_ERR_NOMEM ? st : TW_ERR_INVALID;
}

/* Text the prompt writes raw (`what` names it) holding one of its special
 * tokens: the tokenizer takes it as the token and no reader can take the
 * prompt back, so it is refused. A name also must not hold '{' (it ends
 * the name). */
static tw_status plain_text(const ge *g, const char *s, size_t n, bool name, const char *what)
{
    if (!has_prompt_token(s, n) && !(name && memchr(s, '{', n)))
        return TW_OK;
    return refuse(g->o, "%s", what,
                  name ? "it holds '{' or a special token of the prompt (no reader can take "
                         "the prompt back)"
                       : "it holds a special token of the prompt (the tokenizer reads it as "
                         "the token; no reader can take the prompt back)");
}

static bool truthy_key(const cJSON *v, const char *k)
{
    return cJSON_IsObject(v) && truthy(cJSON_GetObjectItemCaseSensitive(v, k));
}

static const cJSON *member(const cJSON *v, const char *k)
{
    return cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, k) : NULL;
}

/* Is the schema type t (a string) `word` in any case (Jinja's t | upper ==
 * WORD)? */
static bool type_is(const cJSON *t, const char *word)
{
    if (!cJSON_IsString(t))
        return false;
    const char *s = t->valuestring;
    size_t i = 0;
    for (; s[i] && word[i]; i++) {
        char c = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] + 32) : s[i];
        if (c != word[i])
            return false;
    }
    return !s[i] && !word[i];
}

static tw_status put_upper(tw_buf *b, const char *s)
{
    for (; *s; s++)
        TRY(tw_buf_putc(b, *s >= 'a' && *s <= 'z' ? (char)(*s - 32) : *s));
    return TW_OK;
}

/* A word Python's upper() and repr() write as this encoder does. */
static bool plain_word(const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c >= 0x7f || c == '\'' || c == '"' || c == '\\')
            return false;
    }
    return true;
}

/* {{ t | upper }}: nothing for no type, NONE for null, a word in upper
 * case, Python's repr of a list of words. */
static tw_status put_type_text(ge *g, const cJSON *t)
{
    if (!t)
        return TW_OK;
    if (cJSON_IsNull(t))
        return PUTS(g->b, "NONE");
    if (cJSON_IsString(t)) {
        if (!plain_word(t->valuestring))
            return refuse(g->o, "tool %.64s", g->tool,
                          "a schema type holds a letter Python's upper() writes otherwise");
        return put_upper(g->b, t->valuestring);
    }
    if (cJSON_IsArray(t)) {
        TRY(tw_buf_putc(g->b, '['));
        for (const cJSON *c = t->child; c; c = c->next) {
            if (!cJSON_IsString(c) || !plain_word(c->valuestring))
                return refuse(g->o, "tool %.64s", g->tool,
                              "a schema type list holds something other than plain words");
            if (c != t->child)
                TRY(PUTS(g->b, ", "));
            TRY(tw_buf_putc(g->b, '\''));
            TRY(put_upper(g->b, c->valuestring));
            TRY(tw_buf_putc(g->b, '\''));
        }
        return tw_buf_putc(g->b, ']');
    }
    return refuse(g->o, "tool %.64s", g->tool,
                  "a schema type that is no string or list of strings");
}

static tw_status put_q(tw_buf *b, const char *s)
{
    TRY(PUTS(b, G_Q));
    TRY(tw_buf_puts(b, s));
    return PUTS(b, G_Q);
}

/* [<|"|>a<|"|>,…] of a required list. */
static tw_status put_required(ge *g, const cJSON *rq)
{
    if (!cJSON_IsArray(rq))
        return refuse(g->o, "tool %.64s", g->tool, "a required that is not a list");
    TRY(tw_buf_putc(g->b, '['));
    for (const cJSON *c = rq->child; c; c = c->next) {
        if (!cJSON_IsString(c))
            return refuse(g->o, "tool %.64s", g->tool, "a required list holds a non-string");
        if (c != rq->child)
            TRY(tw_buf_putc(g->b, ','));
        TRY(put_q(g->b, c->valuestring));
    }
    return tw_buf_putc(g->b, ']');
}

static tw_status put_arg(ge *g, const cJSON *v, size_t depth)
{
    tw_gemma_vw w = {g->o, FMT, g->tool, g->max_depth, TW_GV_PY | TW_GV_QKEYS};
    return tw_gemma_put_value(g->b, v, &w, depth);
}

static tw_status comma(ge *g, bool *add)
{
    if (*add)
        return tw_buf_putc(g->b, ',');
    *add = true;
    return TW_OK;
}

static tw_status fmt_params(ge *g, const cJSON *props, size_t depth);

/* The template's items:{…} of an array property. */
static tw_status fmt_items(ge *g, const cJSON *it, size_t depth)
{
    const cJSON **m;
    size_t n;
    TRY(tw_gemma_dictsort(it, &m, &n));
    tw_status st = TW_OK;
    bool first = true;
    for (size_t i = 0; i < n && st == TW_OK; i++) {
        const cJSON *v = m[i];
        const char *k = str_or(v->string);
        if (cJSON_IsNull(v))
            continue;
        if (!first)
            st = tw_buf_putc(g->b, ',');
        first = false;
        if (st != TW_OK)
            break;
        if (strcmp(k, "properties") == 0) {
            st = PUTS(g->b, "properties:{");
            if (st == TW_OK && cJSON_IsObject(v))
                st = fmt_params(g, v, depth + 1);
            if (st == TW_OK)
                st = tw_buf_putc(g->b, '}');
        } else if (strcmp(k, "required") == 0) {
            st = PUTS(g->b, "required:");
            if (st == TW_OK)
                st = put_required(g, v);
        } else if (strcmp(k, "type") == 0) {
            st = PUTS(g->b, "type:");
            if (st == TW_OK && cJSON_IsString(v)) {
                st = PUTS(g->b, G_Q);
                if (st == TW_OK)
                    st = put_type_text(g, v);
                if (st == TW_OK)
                    st = PUTS(g->b, G_Q);
            } else if (st == TW_OK && cJSON_IsArray(v)) {
                st = tw_buf_putc(g->b, '[');
                for (const cJSON *c = v->child; c && st == TW_OK; c = c->next) {
                    if (!cJSON_IsString(c) || !plain_word(c->valuestring)) {
                        st = refuse(g->o, "tool %.64s", g->tool,
                                    "an items type list holds something other than plain words");
                        break;
                    }
                    if (c != v->child)
                        st = tw_buf_putc(g->b, ',');
                    if (st == TW_OK)
                        st = PUTS(g->b, G_Q);
                    if (st == TW_OK)
                        st = put_upper(g->b, c->valuestring);
                    if (st == TW_OK)
                        st = PUTS(g->b, G_Q);
                }
                if (st == TW_OK)
                    st = tw_buf_putc(g->b, ']');
            } else if (st == TW_OK) {
                st = refuse(g->o, "tool %.64s", g->tool,
                            "an items type that is no string or list of strings");
            }
        } else {
            st = tw_buf_puts(g->b, k);
            if (st == TW_OK)
                st = tw_buf_putc(g->b, ':');
            if (st == TW_OK)
                st = put_arg(g, v, depth + 1);
        }
    }
    tw_free((void *)m);
    return st;
}

/* One property KEY:{…} (the body of format_parameters' loop). */
static tw_status fmt_prop(ge *g, const char *key, const cJSON *v, size_t depth)
{
    tw_buf *b = g->b;
    TRY(tw_buf_puts(b, key));
    TRY(PUTS(b, ":{"));
    bool add = false;
    const cJSON *d = member(v, "description");
    if (truthy(d)) {
        if (!cJSON_IsString(d))
            return refuse(g->o, "tool %.64s", g->tool, "a property's description is no string");
        TRY(PUTS(b, "description:"));
        TRY(put_q(b, d->valuestring));
        add = true;
    }
    const cJSON *t = member(v, "type");
    if (type_is(t, "string")) {
        const cJSON *e = member(v, "enum");
        if (truthy(e)) {
            TRY(comma(g, &add));
            TRY(PUTS(b, "enum:"));
            TRY(put_arg(g, e, depth + 1));
        }
    } else if (type_is(t, "array")) {
        const cJSON *it = member(v, "items");
        if (cJSON_IsObject(it) && it->child) {
            TRY(comma(g, &add));
            TRY(PUTS(b, "items:{"));
            TRY(fmt_items(g, it, depth + 1));
            TRY(tw_buf_putc(b, '}'));
        }
    }
    if (truthy_key(v, "nullable")) {
        TRY(comma(g, &add));
        TRY(PUTS(b, "nullable:true"));
    }
    if (type_is(t, "object")) {
        const cJSON *p = member(v, "properties");
        TRY(comma(g, &add));
        TRY(PUTS(b, "properties:{"));
        /* without properties the template lists the schema's own members */
        TRY(fmt_params(g, cJSON_IsObject(p) ? p : v, depth + 1));
        TRY(tw_buf_putc(b, '}'));
        const cJSON *rq = member(v, "required");
        if (truthy(rq)) {
            TRY(comma(g, &add));
            TRY(PUTS(b, "required:"));
            TRY(put_required(g, rq));
        }
    }
    TRY(comma(g, &add));
    TRY(PUTS(b, "type:" G_Q));
    TRY(put_type_text(g, t));
    return PUTS(b, G_Q "}");
}

/* format_parameters: the properties in dictsort's order, the names of the
 * schema's own keywords skipped. */
static tw_status fmt_params(ge *g, const cJSON *props, size_t depth)
{
    static const char *const std_keys[] = {"description", "type", "properties", "required",
                                           "nullable"};
    if (depth > g->max_depth)
        return TW_ERR_LIMIT;
    const cJSON **m;
    size_t n;
    TRY(tw_gemma_dictsort(props, &m, &n));
    tw_status st = TW_OK;
    bool first = true;
    for (size_t i = 0; i < n && st == TW_OK; i++) {
        const char *k = str_or(m[i]->string);
        bool skip = false;
        for (size_t s = 0; s < sizeof std_keys / sizeof std_keys[0]; s++)
            skip |= strcmp(k, std_keys[s]) == 0;
        if (skip)
            continue;
        if (!first)
            st = tw_buf_putc(g->b, ',');
        first = false;
        if (st == TW_OK)
            st = fmt_prop(g, k, m[i], depth);
    }
    tw_free((void *)m);
    return st;
}

/* format_function_declaration */
static tw_status put_decl(ge *g, const tw_tool *t)
{
    tw_buf *b = g->b;
    TRY(PUTS(b, "declaration:"));
    TRY(tw_buf_puts(b, str_or(t->name)));
    TRY(PUTS(b, "{description:"));
    TRY(put_q(b, str_or(t->description)));
    const cJSON *params = t->parameters;
    if (truthy(params)) {
        if (!cJSON_IsObject(params))
            return refuse(g->o, "tool %.64s", g->tool, "parameters that are not an object");
        TRY(PUTS(b, ",parameters:{"));
        const cJSON *p = member(params, "properties");
        if (truthy(p)) {
            if (!cJSON_IsObject(p))
                return refuse(g->o, "tool %.64s", g->tool, "properties that are not an object");
            TRY(PUTS(b, "properties:{"));
            TRY(fmt_params(g, p, 1));
            TRY(PUTS(b, "},"));
        }
        const cJSON *rq = member(params, "required");
        if (truthy(rq)) {
            TRY(PUTS(b, "required:"));
            TRY(put_required(g, rq));
            TRY(tw_buf_putc(b, ','));
        }
        const cJSON *ty = member(params, "type");
        if (truthy(ty)) {
            TRY(PUTS(b, "type:" G_Q));
            TRY(put_type_text(g, ty));
            TRY(PUTS(b, G_Q "}"));
        }
    }
    return tw_buf_putc(b, '}');
}

static int key_cmp(const void *a, const void *b)
{
    return strcmp(str_or((*(const cJSON *const *)a)->string),
                  str_or((*(const cJSON *const *)b)->string));
}

/* The members of object v sorted by key (bytes); *out to tw_free. */
static tw_status by_key(const cJSON *v, const cJSON ***out, size_t *n)
{
    *n = 0;
    for (const cJSON *c = v->child; c; c = c->next)
        ++*n;
    *out = *n ? tw_malloc(*n * sizeof **out) : NULL;
    if (*n && !*out)
        return TW_ERR_NOMEM;
    size_t i = 0;
    for (const cJSON *c = v->child; c; c = c->next)
        (*out)[i++] = c;
    if (*n > 1)
        qsort((void *)*out, *n, sizeof **out, key_cmp);
    return TW_OK;
}

static tw_status schema_diff(ge *g, const cJSON *orig, const cJSON *back, char *path, size_t at,
                             size_t cap, size_t depth);

/* The members of two objects side by side (each sorted by key, walked
 * once). */
static tw_status members_diff(ge *g, const cJSON *orig, const cJSON *back, char *path, size_t at,
                              size_t cap, size_t depth)
{
    const cJSON **o = NULL, **k = NULL;
    size_t no = 0, nk = 0, i = 0, j = 0;
    tw_status st = by_key(orig, &o, &no);
    if (st == TW_OK)
        st = by_key(back, &k, &nk);
    while (st == TW_OK && (i < no || j < nk)) {
        int c = i == no ? 1 : j == nk ? -1 : key_cmp(&o[i], &k[j]);
        const cJSON *m = c <= 0 ? o[i] : k[j];
        int w = snprintf(path + at, cap - at, ".%s", str_or(m->string));
        size_t nat = w < 0 ? at : at + (size_t)w < cap ? at + (size_t)w : cap - 1;
        if (c < 0)
            st = tw_not_carried(g->o,
                                FMT ": tool %.64s: schema %.200s not carried (the declaration "
                                    "does not write it)",
                                g->tool, path);
        else if (c > 0)
            st = tw_not_carried(g->o,
                                FMT ": tool %.64s: schema %.200s is read back where the "
                                    "declaration has no such member (the template's spelling)",
                                g->tool, path);
        else
            st = schema_diff(g, o[i], k[j], path, nat, cap, depth + 1);
        path[at] = '\0';
        i += c <= 0;
        j += c >= 0;
    }
    tw_free((void *)o);
    tw_free((void *)k);
    return st;
}

/* What of `orig` the read-back schema `back` lacks or holds otherwise,
 * one not_carried warning each (path names the place). */
static tw_status schema_diff(ge *g, const cJSON *orig, const cJSON *back, char *path, size_t at,
                             size_t cap, size_t depth)
{
    if (depth > g->max_depth)
        return TW_OK;
    if (cJSON_IsObject(orig) && cJSON_IsObject(back))
        return members_diff(g, orig, back, path, at, cap, depth);
    if (!cJSON_Compare(orig, back, true))
        TRY(tw_not_carried(g->o, FMT ": tool %.64s: schema %.200s is read back otherwise", g->tool,
                           path[0] ? path : "(root)"));
    return TW_OK;
}

/* One tool: written, then read back as the reader reads it; what differs
 * warns. */
static tw_status put_tool(ge *g, const tw_tool *t)
{
    tw_buf *b = g->b;
    const char *name = str_or(t->name);
    g->tool = name;
    char what[100];
    snprintf(what, sizeof what, "tool name '%.64s'", name);
    TRY(plain_text(g, name, strlen(name), true, what));
    if (!tw_gemma_name_ok(name, strlen(name)))
        TRY(tw_not_carried(g->o, FMT ": tool name '%.64s' is not a bare name", name));
    size_t at = b->len;
    TRY(PUTS(b, G_TOOL));
    TRY(put_decl(g, t));
    TRY(PUTS(b, G_TOOL_END));
    if (!g->o->warnings)
        return TW_OK;
    cJSON *back;
    size_t end, where;
    const char *why;
    TRY(tw_gemma_decl_read(b->data, at, b->len, g->max_depth, &back, &end, &why, &where));
    if (!back)
        return tw_not_carried(g->o, FMT ": tool %.64s: the declaration does not read back (%s)",
                              name, why);
    const char *bd = str_or(tw_json_get_str(back, "description"));
    tw_status st = TW_OK;
    if (strcmp(bd, str_or(t->description)) != 0 || end != b->len)
        st = tw_not_carried(g->o,
                            FMT ": tool %.64s: the description does not read back as given "
                                "(a special token in it)",
                            name);
    char path[256] = "parameters";
    const cJSON *bp = cJSON_GetObjectItemCaseSensitive(back, "parameters");
    if (st == TW_OK && t->parameters &&
        !(cJSON_IsObject(t->parameters) && !t->parameters->child && !bp))
        st = bp ? schema_diff(g, t->parameters, bp, path, strlen(path), sizeof path, 0)
                : tw_not_carried(g->o, FMT ": tool %.64s: parameters not carried", name);
    cJSON_Delete(back);
    return st;
}

/* Text a turn writes trimmed: warnings for a special token and for white
 * space the template strips. */
static tw_status check_text(ge *g, span s, span t, const char *what, size_t i)
{
    if (t.n != s.n)
        TRY(tw_not_carried(g->o,
                           FMT ": white space at the ends of the %s of message %zu not carried "
                               "(the template strips it)",
                           what, i));
    char m[100];
    snprintf(m, sizeof m, "the %s of message %zu", what, i);
    return plain_text(g, t.p, t.n, false, m);
}

/* strip_thinking(content) before its trim: the text outside
 * <|channel>…<channel|> (in tmp when the content holds either marker, then
 * *stripped), else the content itself. */
static tw_status strip_thinking(span c, tw_buf *tmp, span *out, bool *stripped)
{
    *out = c;
    if (!tw_memmem(c.p, c.n, LIT(G_CH)) && !tw_memmem(c.p, c.n, LIT(G_CH_END)))
        return TW_OK;
    *stripped = true;
    size_t p = 0;
    for (;;) {
        const char *e = tw_memmem(c.p + p, c.n - p, LIT(G_CH_END));
        size_t pe = e ? (size_t)(e - c.p) : c.n;
        const char *o = tw_memmem(c.p + p, pe - p, LIT(G_CH));
        size_t keep = o ? (size_t)(o - c.p) : pe;
        TRY(tw_buf_append(tmp, c.p + p, keep - p));
        if (!e)
            break;
        p = pe + MLEN(G_CH_END);
    }
    out->p = tmp->data ? tmp->data : "";
    out->n = tmp->len;
    return TW_OK;
}

static tw_status put_calls(ge *g, const tw_message *m, size_t *seq)
{
    tw_buf *b = g->b;
    for (size_t j = 0; j < m->ncalls; j++) {
        const tw_call *c = &m->calls[j];
        const char *name = str_or(c->name);
        char gen[32];
        snprintf(gen, sizeof gen, "call_%zu", ++*seq);
        if (strcmp(str_or(c->id), gen) != 0)
            TRY(tw_not_carried(g->o,
                               FMT ": call id '%.64s' not carried (the template writes none; read "
                                   "back as %s)",
                               str_or(c->id), gen));
        char what[100];
        snprintf(what, sizeof what, "call name '%.64s'", name);
        TRY(plain_text(g, name, strlen(name), true, what));
        if (!tw_gemma_name_ok(name, strlen(name)))
            TRY(tw_not_carried(g->o, FMT ": call name '%.64s' is not a bare name", name));
        TRY(PUTS(b, CALL_HEAD));
        TRY(tw_buf_puts(b, name));
        char label[80];
        snprintf(label, sizeof label, "call %.64s", name);
        g->tool = label;
        if (c->arguments && !cJSON_IsObject(c->arguments)) {
            TRY(tw_not_carried(g->o,
                               FMT ": call %.64s: arguments that are not an object not carried "
                                   "(the template writes {})",
                               name));
            TRY(PUTS(b, "{}"));
        } else if (!c->arguments) {
            TRY(PUTS(b, "{}"));
        } else {
            tw_gemma_vw w = {g->o, FMT, label, g->max_depth, TW_GV_PY};
            TRY(tw_gemma_put_value(b, c->arguments, &w, 0));
        }
        TRY(PUTS(b, G_CALL_END));
    }
    return TW_OK;
}

/* The results following assistant message i (the run of tool messages
 * after it). *n: how many. */
static tw_status put_results(ge *g, size_t i, size_t *n)
{
    const tw_request *r = g->r;
    const tw_message *a = &r->messages[i];
    *n = 0;
    for (size_t k = i + 1; k < r->nmessages && r->messages[k].role == TW_ROLE_TOOL; k++) {
        const tw_message *t = &r->messages[k];
        const char *tcid = str_or(t->tool_call_id);
        size_t c = a->ncalls;
        for (size_t j = 0; j < a->ncalls; j++)
            if (strcmp(str_or(a->calls[j].id), tcid) == 0)
                c = j;
        if (c == a->ncalls) {
            char m[160];
            snprintf(m, sizeof m, "%.64s", tcid);
            return refuse(g->o,
                          "tool result %s answers no call of the assistant message before it "
                          "(the template names it None and fails)",
                          m, NO_NAME);
        }
        const char *name = str_or(a->calls[c].name);
        if (tw_gemma_pick_call(a->calls, a->ncalls, *n, name) != c)
            TRY(tw_not_carried(g->o,
                               FMT ": tool_call_id '%.64s' of message %zu not carried (read back "
                                   "as the id of another call of %.64s)",
                               tcid, k, name));
        if (t->name && strcmp(t->name, name) != 0)
            TRY(tw_not_carried(g->o,
                               FMT ": name '%.64s' of tool result %zu not carried (the template "
                                   "writes the name of the call it answers)",
                               t->name, k));
        span body = buf_span(&t->content);
        char what[100];
        snprintf(what, sizeof what, "the content of tool result %zu", k);
        TRY(plain_text(g, body.p, body.n, false, what));
        TRY(PUTS(g->b, RESP_HEAD));
        TRY(tw_buf_puts(g->b, name));
        TRY(PUTS(g->b, RESP_VALUE));
        TRY(put_span(g->b, body));
        TRY(PUTS(g->b, RESP_TAIL));
        ++*n;
    }
    return TW_OK;
}

static tw_status losses(const tw_request *r, const tw_encode_opts *o)
{
    if (r->model)
        TRY(tw_not_carried(o, FMT ": model not carried"));
    if (r->parallel_tool_calls >= 0)
        TRY(tw_not_carried(o, FMT ": parallel_tool_calls not carried"));
    if (r->choice == TW_CHOICE_NONE || r->choice == TW_CHOICE_REQUIRED ||
        r->choice == TW_CHOICE_NAMED)
        TRY(tw_not_carried(o, FMT ": tool_choice not carried (the template has no place for it)"));
    for (const cJSON *c = r->options ? r->options->child : NULL; c; c = c->next) {
        const char *k = str_or(c->string);
        bool known = strcmp(k, "add_generation_prompt") == 0 || strcmp(k, "enable_thinking") == 0;
        if (!known)
            TRY(tw_not_carried(o, FMT ": options.%.64s not carried", k));
        else if (!cJSON_IsBool(c))
            TRY(tw_not_carried(o, FMT ": options.%.64s read back as a boolean", k));
    }
    for (size_t i = 0; i < r->nmessages; i++) {
        const tw_message *m = &r->messages[i];
        if (m->thinking_signature || m->has_redacted_thinking || m->redacted_thinking)
            TRY(tw_not_carried(o,
                               FMT ": thinking signature or redacted thinking of message %zu "
                                   "not carried",
                               i));
        if (m->role == TW_ROLE_TOOL && m->is_error)
            TRY(tw_not_carried(o, FMT ": is_error of tool result %zu not carried", i));
    }
    return TW_OK;
}

enum { PREV_NONE, PREV_CALL, PREV_RESPONSE };

static tw_status render(tw_buf *b, const tw_request *r, const tw_encode_opts *o, size_t max_depth)
{
    if (r->nmessages == 0)
        return refuse(o, "%s", "no messages", NO_MESSAGES);
    ge g = {b, r, o, max_depth, ""};
    TRY(losses(r, o));
    bool think = truthy(tw_json_get(r->options, "enable_thinking"));
    bool first_sys = r->messages[0].role == TW_ROLE_SYSTEM;
    size_t first = first_sys ? 1 : 0;
    TRY(PUTS(b, BOS));
    if (think || r->ntools || first_sys) {
        TRY(PUTS(b, SYS_TURN));
        if (think)
            TRY(PUTS(b, THINK_NL));
        if (first_sys) {
            span s = buf_span(&r->messages[0].content), t = tw_py_strip(s);
            TRY(check_text(&g, s, t, "content", 0));
            TRY(put_span(b, t));
        }
        for (size_t i = 0; i < r->ntools; i++)
            TRY(put_tool(&g, &r->tools[i]));
        TRY(PUTS(b, EOT_NL));
    }
    bool any_user = false;
    size_t last_user = 0;
    for (size_t i = first; i < r->nmessages; i++)
        if (r->messages[i].role == TW_ROLE_USER) {
            last_user = i;
            any_user = true;
        }
    int prev = PREV_NONE;
    size_t seq = 0;
    bool in_run = false; /* tool messages here answer the assistant's calls before them */
    tw_buf tmp = {0};
    tw_status st = TW_OK;
    for (size_t i = first; i < r->nmessages && st == TW_OK; i++) {
        const tw_message *m = &r->messages[i];
        if (m->role == TW_ROLE_TOOL) {
            if (!in_run)
                st = tw_not_carried(o,
                                    FMT ": tool result %zu not carried (no assistant message with "
                                        "calls right before it; the template drops it)",
                                    i);
            continue;
        }
        prev = PREV_NONE;
        in_run = false;
        bool model = m->role == TW_ROLE_ASSISTANT;
        bool cont = false;
        for (size_t j = i; model && j-- > first;)
            if (r->messages[j].role != TW_ROLE_TOOL) {
                cont = r->messages[j].role == TW_ROLE_ASSISTANT;
                break;
            }
        if (!cont)
            st = tw_buf_puts(b, model                       ? MODEL_TURN
                                : m->role == TW_ROLE_SYSTEM ? SYS_TURN
                                                            : USER_TURN);
        if (st != TW_OK)
            break;
        if (model && m->thinking.len) {
            if ((!any_user || i > last_user) && m->ncalls) {
                span th = buf_span(&m->thinking);
                char what[100];
                snprintf(what, sizeof what, "the reasoning of message %zu", i);
                st = plain_text(&g, th.p, th.n, false, what);
                if (st == TW_OK)
                    st = PUTS(b, THOUGHT_OPEN);
                if (st == TW_OK)
                    st = put_span(b, th);
                if (st == TW_OK)
                    st = PUTS(b, THOUGHT_CLOSE);
            } else {
                st = tw_not_carried(o,
                                    FMT ": reasoning of message %zu not carried (the template "
                                        "writes it only for calls after the last user turn)",
                                    i);
            }
        }
        size_t nres = 0;
        if (st == TW_OK && model && m->ncalls) {
            st = put_calls(&g, m, &seq);
            prev = PREV_CALL;
            if (st == TW_OK)
                st = put_results(&g, i, &nres);
            if (nres)
                prev = PREV_RESPONSE;
            in_run = true;
        }
        if (st != TW_OK)
            break;
        span s = buf_span(&m->content), pre = s, t;
        bool stripped = false;
        tmp.len = 0;
        if (model)
            st = strip_thinking(s, &tmp, &pre, &stripped);
        t = tw_py_strip(pre);
        if (st == TW_OK && stripped)
            st = tw_not_carried(o,
                                FMT ": thought channels in the content of message %zu not "
                                    "carried (the template strips them)",
                                i);
        if (st == TW_OK)
            st = check_text(&g, pre, t, "content", i);
        if (st == TW_OK)
            st = put_span(b, t);
        if (st != TW_OK)
            break;
        if (prev == PREV_CALL)
            st = PUTS(b, G_RESP);
        else if (!(nres && s.n == 0))
            st = PUTS(b, EOT_NL);
    }
    tw_buf_free(&tmp);
    TRY(st);
    if (truthy(tw_json_get(r->options, "add_generation_prompt"))) {
        if (prev != PREV_NONE)
            TRY(tw_not_carried(o,
                               FMT ": add_generation_prompt not carried (the last model turn goes "
                                   "on with its calls' results)"));
        else
            TRY(think ? PUTS(b, MODEL_TURN) : PUTS(b, MODEL_TURN EMPTY_THOUGHT));
    }
    return TW_OK;
}

tw_status tw_gemma_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!r || !out)
        return TW_ERR_INVALID;
    return tw_encode_capped(r, o ? o : &tw_enc_default_opts, out, render);
}

const tw_encoder_ops tw_encoder_gemma4_prompt = {
    FMT,
    "neutral request -> the Gemma 4 prompt (tool declarations, calls and results in the brace "
    "syntax, byte-exact template)",
    TW_ENC_REQUEST, tw_gemma_prompt_encode, tw_unsupported_encode_result};
