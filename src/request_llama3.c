/*
 * The Llama 3.1 and 3.3 prompts read back into a neutral request (the
 * inverse of llama-3.1-prompt and llama-3.3-prompt; docs/formats/llama3.md).
 */
#include "alloc.h"
#include "toolwire/llama3.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "request_read.h"
#include "tw_macros.h"
#include "toolwire/json.h"

#define LIT(s) (s), (sizeof(s) - 1)

static const char BOT[] = "<|begin_of_text|>";
static const char SH[] = "<|start_header_id|>";
static const char EH[] = "<|end_header_id|>\n\n";
static const char EOT[] = "<|eot_id|>";
static const char EOM[] = "<|eom_id|>";
static const char TAG[] = "<|python_tag|>";
static const char FORMAT_LINE[] =
    "Respond in the format {\"name\": function name, \"parameters\": dictionary of argument "
    "name and its value}.Do not use variables.\n\n";
static const char SYS_TOOLS[] = "You have access to the following functions. To call a function, "
                                "please respond with JSON for a function call.";
static const char USER_TOOLS[] =
    "Given the following functions, please respond with a JSON for a function call with its "
    "proper arguments that best answers the given prompt.\n\n";

typedef struct lr {
    tw_rq d;
    const char *b;
    size_t n;
    size_t pos;
    bool builtin; /* options.builtin_tools given: calls end with <|eom_id|> */
    const char *fmt;
} lr;

static tw_status fail(lr *h, size_t at, const char *why)
{
    return tw_rq_fail(&h->d, TW_ERR_INVALID, (int64_t)at, "", "%s: %s", h->fmt, why);
}

static bool eat(lr *h, const char *lit, size_t k)
{
    if (h->n - h->pos >= k && memcmp(h->b + h->pos, lit, k) == 0) {
        h->pos += k;
        return true;
    }
    return false;
}

static tw_status opt(lr *h, const char *key, cJSON *v)
{
    if (!v)
        return TW_ERR_NOMEM;
    tw_status st = tw_rq_put_option(&h->d, key, v);
    cJSON_Delete(v);
    return st;
}

/* The end of the JSON value that starts at p[0] ('{'), or 0. */
static size_t json_end(const char *p, size_t n)
{
    size_t depth = 0;
    bool str = false, esc = false;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (str) {
            if (esc)
                esc = false;
            else if (c == '\\')
                esc = true;
            else if (c == '"')
                str = false;
        } else if (c == '"') {
            str = true;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if ((c == '}' || c == ']') && --depth == 0) {
            return i + 1;
        }
    }
    return 0;
}

/* The tools, each an indented JSON object followed by a blank line. */
static tw_status read_tools(lr *h)
{
    tw_request *r = h->d.req;
    r->tools_present = true;
    while (h->pos < h->n && h->b[h->pos] == '{') {
        size_t e = json_end(h->b + h->pos, h->n - h->pos);
        if (!e)
            return fail(h, h->pos, "a tool's JSON is not closed");
        if (r->ntools >= h->d.l.max_tools)
            return tw_rq_fail(&h->d, TW_ERR_LIMIT, (int64_t)h->pos, "tools",
                              "more than max_tools (%zu) tools", h->d.l.max_tools);
        tw_tool *nt = tw_realloc(r->tools, (r->ntools + 1) * sizeof *nt);
        if (!nt)
            return TW_ERR_NOMEM;
        r->tools = nt;
        memset(&r->tools[r->ntools], 0, sizeof *nt);
        cJSON *j = NULL;
        TRY(tw_rq_prompt_json(&h->d, h->b + h->pos, e, h->pos, "tools", "a tool's JSON", &j));
        tw_error te;
        tw_error_clear(&te);
        tw_status st = tw_tool_read(j, &r->tools[r->ntools], &te);
        cJSON_Delete(j);
        if (st == TW_ERR_NOMEM)
            return st;
        if (st != TW_OK)
            return tw_rq_fail(&h->d, st, (int64_t)h->pos, "tools", "%s", te.message);
        r->ntools++;
        h->pos += e;
        if (!eat(h, LIT("\n\n")))
            return fail(h, h->pos, "a tool is not followed by a blank line");
    }
    return TW_OK;
}

/* The body of a turn up to its end token: [*s, *e), the token eaten. */
static tw_status body(lr *h, size_t *s, size_t *e, bool *eom)
{
    const char *p = h->b + h->pos;
    size_t left = h->n - h->pos;
    const char *t = tw_memmem(p, left, LIT(EOT));
    const char *m = tw_memmem(p, left, LIT(EOM));
    if (m && (!t || m < t)) {
        t = m;
        *eom = true;
    } else {
        *eom = false;
    }
    if (!t)
        return fail(h, h->pos, "a turn is not closed by <|eot_id|>");
    *s = h->pos;
    *e = (size_t)(t - h->b);
    h->pos = *e + sizeof EOT - 1; /* both tokens are 10 bytes */
    return TW_OK;
}

static tw_status add_message(lr *h, tw_role role, const char *p, size_t n, tw_message **out)
{
    tw_message *m;
    TRY(tw_rq_push(&h->d, "messages", &m));
    m->role = role;
    if (out)
        *out = m;
    return n ? tw_buf_append(&m->content, p, n) : TW_OK;
}

static tw_status add_call(lr *h, tw_message *m, const char *name, size_t nlen, cJSON *args)
{
    if (!(m->calls = tw_calloc(1, sizeof *m->calls))) {
        cJSON_Delete(args);
        return TW_ERR_NOMEM;
    }
    m->cap_calls = m->ncalls = 1;
    char id[32];
    snprintf(id, sizeof id, "call_%zu", ++h->d.next_id);
    m->calls[0].offset = -1;
    m->calls[0].arguments = args;
    m->calls[0].id = tw_strdup(id);
    m->calls[0].name = tw_strndup(name, nlen);
    return m->calls[0].id && m->calls[0].name ? TW_OK : TW_ERR_NOMEM;
}

/* NAME.call(k="v", …) as the template writes a built-in call. */
static tw_status builtin_call(lr *h, tw_message *m, const char *p, size_t n, size_t at)
{
    const char *dot = tw_memmem(p, n, LIT(".call("));
    if (!dot || n == 0 || p[n - 1] != ')')
        return fail(h, at, "a <|python_tag|> turn is not NAME.call(...)");
    /* its name, keys and values become C strings */
    TRY(tw_rq_no_nul(&h->d, p, n, (size_t)(p - h->b), "", "a built-in call"));
    cJSON *args = cJSON_CreateObject();
    if (!args)
        return TW_ERR_NOMEM;
    size_t i = (size_t)(dot - p) + 6, end = n - 1;
    while (i < end) {
        const char *eq = tw_memmem(p + i, end - i, LIT("=\""));
        if (!eq) {
            cJSON_Delete(args);
            return fail(h, at, "a built-in call's argument is not key=\"value\"");
        }
        size_t k0 = i, k1 = (size_t)(eq - p), v0 = k1 + 2;
        /* the value ends at the '"' before ", " or the end */
        const char *q = tw_memmem(p + v0, end - v0, LIT("\", "));
        size_t v1 = q ? (size_t)(q - p) : end - 1;
        if (v1 < v0 || p[v1] != '"') {
            cJSON_Delete(args);
            return fail(h, at, "a built-in call's value is not quoted");
        }
        char *key = tw_strndup(p + k0, k1 - k0), *val = tw_strndup(p + v0, v1 - v0);
        bool ok = key && val && cJSON_AddStringToObject(args, key, val);
        tw_free(key);
        tw_free(val);
        if (!ok) {
            cJSON_Delete(args);
            return TW_ERR_NOMEM;
        }
        i = q ? v1 + 3 : end;
    }
    return add_call(h, m, p, (size_t)(dot - p), args);
}

/* {"name": "NAME", "parameters": {…}} as the template writes a call; false
 * when the text is not one (it is then content). */
static tw_status json_call(lr *h, tw_message *m, const char *p, size_t n, bool *is)
{
    *is = false;
    static const char head[] = "{\"name\": \"";
    static const char mid[] = "\", \"parameters\": ";
    if (n < sizeof head || memcmp(p, head, sizeof head - 1) != 0 || p[n - 1] != '}')
        return TW_OK;
    const char *q = tw_memmem(p, n, LIT(mid));
    if (!q)
        return TW_OK;
    size_t a0 = (size_t)(q - p) + sizeof mid - 1;
    /* a NUL in the name, or a byte a JSON reader drops from the arguments,
     * would vanish: such a text is no call, it stays content as it is */
    if (memchr(p, '\0', (size_t)(q - p)) || tw_rq_json_stray(p + a0, n - 1 - a0) < n - 1 - a0)
        return TW_OK;
    cJSON *args = NULL;
    tw_error je;
    tw_status st = tw_json_parse(p + a0, n - 1 - a0, h->d.l.max_depth, &args, &je);
    if (st == TW_ERR_NOMEM)
        return st;
    if (st != TW_OK || !cJSON_IsObject(args)) {
        cJSON_Delete(args);
        return TW_OK;
    }
    *is = true;
    m->content.len = 0;
    return add_call(h, m, p + sizeof head - 1, (size_t)(q - p) - (sizeof head - 1), args);
}

static tw_status system_turn(lr *h)
{
    if (!eat(h, LIT(BOT)) || !eat(h, LIT("<|start_header_id|>system")) || !eat(h, LIT(EH)))
        return fail(h, h->pos, "the prompt does not begin with the system header");
    bool env = eat(h, LIT("Environment: ipython\n"));
    if (eat(h, LIT("Tools: "))) {
        const char *e = tw_memmem(h->b + h->pos, h->n - h->pos, LIT("\n\n"));
        if (!e)
            return fail(h, h->pos, "the Tools line is not closed");
        TRY(tw_rq_no_nul(&h->d, h->b + h->pos, (size_t)(e - h->b) - h->pos, h->pos, "options",
                         "the Tools line"));
        cJSON *arr = cJSON_CreateArray();
        if (!arr)
            return TW_ERR_NOMEM;
        size_t i = h->pos, end = (size_t)(e - h->b);
        while (i < end) {
            const char *c = tw_memmem(h->b + i, end - i, LIT(", "));
            size_t ie = c ? (size_t)(c - h->b) : end;
            char *name = tw_strndup(h->b + i, ie - i);
            cJSON *s = name ? cJSON_CreateString(name) : NULL;
            tw_free(name);
            if (!s || !cJSON_AddItemToArray(arr, s)) {
                cJSON_Delete(s);
                cJSON_Delete(arr);
                return TW_ERR_NOMEM;
            }
            i = c ? ie + 2 : end;
        }
        TRY(opt(h, "builtin_tools", arr));
        h->builtin = true;
        h->pos = end + 2;
    }
    if (!eat(h, LIT("Cutting Knowledge Date: December 2023\nToday Date: ")))
        return fail(h, h->pos, "the dates of the system header are missing");
    const char *e = tw_memmem(h->b + h->pos, h->n - h->pos, LIT("\n\n"));
    if (!e)
        return fail(h, h->pos, "the date line is not closed");
    size_t dn = (size_t)(e - (h->b + h->pos));
    TRY(tw_rq_no_nul(&h->d, h->b + h->pos, dn, h->pos, "options", "the date line"));
    if (!(dn == 11 && memcmp(h->b + h->pos, "26 Jul 2024", 11) == 0)) {
        char *ds = tw_strndup(h->b + h->pos, dn);
        cJSON *v = ds ? cJSON_CreateString(ds) : NULL;
        tw_free(ds);
        TRY(opt(h, "date_string", v));
    }
    h->pos += dn + 2;
    if (eat(h, LIT(SYS_TOOLS))) {
        if (!eat(h, LIT(FORMAT_LINE)))
            return fail(h, h->pos, "the tools preamble is not the template's");
        TRY(opt(h, "tools_in_user_message", cJSON_CreateFalse()));
        TRY(read_tools(h));
    }
    (void)env; /* with tools in the first user turn, they are read there */
    size_t s, en;
    bool eom;
    TRY(body(h, &s, &en, &eom));
    if (en > s)
        TRY(add_message(h, TW_ROLE_SYSTEM, h->b + s, en - s, NULL));
    return TW_OK;
}

static tw_status prompt_body(lr *h)
{
    TRY(system_turn(h));
    static const char user_hdr[] = "<|start_header_id|>user<|end_header_id|>\n\n";
    size_t save = h->pos;
    if (eat(h, LIT(user_hdr)) && eat(h, LIT(USER_TOOLS))) {
        if (!eat(h, LIT(FORMAT_LINE)))
            return fail(h, h->pos, "the tools preamble is not the template's");
        TRY(read_tools(h));
        if (!h->d.req->ntools)
            return fail(h, h->pos, "the user turn's tools preamble holds no tool");
        size_t s, e;
        bool eom;
        TRY(body(h, &s, &e, &eom));
        TRY(add_message(h, TW_ROLE_USER, h->b + s, e - s, NULL));
    } else {
        h->pos = save;
    }
    while (h->pos < h->n) {
        size_t at = h->pos;
        if (!eat(h, LIT(SH)))
            return fail(h, at, "expected <|start_header_id|>");
        const char *eh = tw_memmem(h->b + h->pos, h->n - h->pos, LIT(EH));
        if (!eh)
            return fail(h, at, "a header is not closed by <|end_header_id|>");
        size_t rs = h->pos, re = (size_t)(eh - h->b);
        h->pos = re + sizeof EH - 1;
        const char *role = h->b + rs;
        size_t rn = re - rs;
        bool asst = rn == 9 && memcmp(role, "assistant", 9) == 0;
        if (asst && h->pos == h->n) {
            TRY(opt(h, "add_generation_prompt", cJSON_CreateTrue()));
            break;
        }
        size_t s, e;
        bool eom;
        TRY(body(h, &s, &e, &eom));
        const char *p = h->b + s;
        size_t n = e - s;
        if (rn == 7 && memcmp(role, "ipython", 7) == 0) {
            cJSON *v = NULL;
            tw_status st = tw_rq_prompt_json(&h->d, p, n, s, "messages", "an ipython turn", &v);
            if (st != TW_OK)
                return st;
            if (!cJSON_IsString(v)) {
                cJSON_Delete(v);
                return fail(h, s, "an ipython turn is not a JSON string");
            }
            st = add_message(h, TW_ROLE_TOOL, v->valuestring, strlen(v->valuestring), NULL);
            cJSON_Delete(v);
            TRY(st);
            continue;
        }
        tw_role r;
        if (asst)
            r = TW_ROLE_ASSISTANT;
        else if (rn == 4 && memcmp(role, "user", 4) == 0)
            r = TW_ROLE_USER;
        else if (rn == 6 && memcmp(role, "system", 6) == 0)
            r = TW_ROLE_SYSTEM;
        else
            return fail(h, rs, "a turn's role is not system, user, assistant or ipython");
        tw_message *m;
        TRY(add_message(h, r, p, n, &m));
        if (!asst)
            continue;
        if (n >= sizeof TAG - 1 && memcmp(p, TAG, sizeof TAG - 1) == 0) {
            m->content.len = 0;
            TRY(builtin_call(h, m, p + sizeof TAG - 1, n - (sizeof TAG - 1), s));
        } else {
            bool is;
            TRY(json_call(h, m, p, n, &is));
        }
        if (eom && !m->ncalls)
            return fail(h, e, "<|eom_id|> ends a turn that is not a call");
    }
    return tw_rq_link_results(&h->d, h->fmt);
}

static tw_status decode(const char *fmt, const char *buf, size_t len, const tw_decode_opts *o,
                        tw_request *out, tw_error *err)
{
    lr h;
    memset(&h, 0, sizeof h);
    tw_rq_begin(&h.d, o, out, err);
    h.b = buf ? buf : "";
    h.n = buf ? len : 0;
    h.fmt = fmt;
    tw_status st;
    if (h.n > h.d.l.max_input_bytes)
        st = tw_rq_fail(&h.d, TW_ERR_LIMIT, -1, "",
                        "the prompt is %zu bytes, more than max_input_bytes (%zu)", h.n,
                        h.d.l.max_input_bytes);
    else
        st = prompt_body(&h);
    if (st == TW_ERR_NOMEM && err && !err->message[0])
        tw_rq_fail(&h.d, st, -1, "", "out of memory");
    if (st != TW_OK) {
        tw_request_free(out);
        out->parallel_tool_calls = -1;
    }
    return st;
}

tw_status tw_llama31_prompt_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                   tw_request *out, tw_error *err)
{
    return decode("llama-3.1-prompt", buf, len, o, out, err);
}

tw_status tw_llama33_prompt_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                   tw_request *out, tw_error *err)
{
    return decode("llama-3.3-prompt", buf, len, o, out, err);
}

const tw_request_reader_ops tw_reader_llama31_prompt = {
    "llama-3.1-prompt", "the Llama 3.1 prompt -> neutral request", tw_llama31_prompt_decode};
const tw_request_reader_ops tw_reader_llama33_prompt = {
    "llama-3.3-prompt", "the Llama 3.3 prompt -> neutral request", tw_llama33_prompt_decode};
