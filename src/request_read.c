/*
 * What the request readers share (request_read.h): the reader state, its
 * failure and warnings, tools, messages, and <tool_call> blocks taken off a
 * message's content as calls.
 */
#include "alloc.h"
#include "request_read.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolwire/json.h"
#include "toolwire/text.h"
#include "tw_macros.h"
#include "typed_args.h"

#define LIT(s) (s), (sizeof(s) - 1)

void tw_rq_begin(tw_rq *d, const tw_decode_opts *o, tw_request *out, tw_error *err)
{
    memset(d, 0, sizeof *d);
    memset(out, 0, sizeof *out);
    out->parallel_tool_calls = -1;
    tw_error_clear(err);
    tw_limits_resolve(&d->l, o ? &o->limits : NULL);
    out->warnings.max = d->l.max_diags;
    d->warnings = &out->warnings;
    d->err = err;
    d->req = out;
    d->msg_at = -1;
}

tw_status tw_rq_fail(tw_rq *d, tw_status code, int64_t offset, const char *path, const char *fmt,
                     ...)
{
    /* a reader returns a status, never a diagnostic code nor TW_OK: a code
     * that is not a failing status stays in err->code, the call fails INVALID */
    tw_status st = code != TW_OK && tw_code_is_status(code) ? code : TW_ERR_INVALID;
    if (d->err) {
        char reason[192];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(reason, sizeof reason, fmt, ap);
        va_end(ap);
        tw_error_set(d->err, code == TW_OK ? st : code, offset, path, "%s", reason);
    }
    return st;
}

tw_status tw_rq_refuse(tw_rq *d, tw_status st, tw_status code, int64_t offset, const char *path,
                       const char *fmt, ...)
{
    if (d->err) {
        char reason[192];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(reason, sizeof reason, fmt, ap);
        va_end(ap);
        tw_error_set(d->err, code == TW_OK ? st : code, offset, path, "%s", reason);
    }
    return st;
}

tw_status tw_rq_root(tw_rq *d, const cJSON *j)
{
    if (!cJSON_IsObject(j))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, "", "a request must be a JSON object");
    /* the readers walk the top-level members: a repeated one would be read
     * twice (or the second ignored), so it is refused */
    const char *dup = tw_json_duplicate_key(j);
    if (dup)
        return tw_rq_refuse(d, TW_ERR_INVALID, TW_D_DUPLICATE_KEY, -1, dup,
                            "the member is repeated; a request names each top-level member once");
    return TW_OK;
}

tw_status tw_rq_fail_json(tw_rq *d, tw_status st, const tw_error *je, int64_t base,
                          const char *path)
{
    int64_t off = je->offset >= 0 ? base + je->offset : -1;
    tw_error_set(d->err, je->code, off, path, "%s", je->message);
    return st;
}

/* ===================== the JSON and names of a prompt ===================== */

size_t tw_rq_json_stray(const char *p, size_t n)
{
    bool in_str = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (in_str) {
            if (c == '\\')
                i++; /* the escaped byte (a NUL there is still found: below) */
            else if (c == '"')
                in_str = false;
            if (i < n && p[i] == '\0')
                return i;
        } else if (c == '"') {
            in_str = true;
        } else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
            return i;
        }
    }
    return n;
}

tw_status tw_rq_prompt_json(tw_rq *d, const char *p, size_t n, size_t at, const char *path,
                            const char *what, cJSON **out)
{
    *out = NULL;
    size_t z = tw_rq_json_stray(p, n);
    if (z < n) {
        if (p[z] == '\0')
            return tw_rq_refuse(d, TW_ERR_INVALID, TW_D_JSON_NUL, (int64_t)(at + z), path,
                                "a NUL byte at byte %zu in %s (JSON holds none)", at + z, what);
        return tw_rq_refuse(d, TW_ERR_INVALID, TW_D_JSON_NOT_RFC8259, (int64_t)(at + z), path,
                            "a control byte (0x%02x) between the JSON tokens of %s at byte %zu",
                            (unsigned)(unsigned char)p[z], what, at + z);
    }
    tw_error je;
    tw_status st = tw_json_parse(p, n, d->l.max_depth, out, &je);
    if (st != TW_OK && st != TW_ERR_NOMEM)
        return tw_rq_fail_json(d, st, &je, (int64_t)at, path);
    return st;
}

tw_status tw_rq_no_nul(tw_rq *d, const char *p, size_t n, size_t at, const char *path,
                       const char *what)
{
    const char *z = n ? memchr(p, '\0', n) : NULL;
    if (!z)
        return TW_OK;
    size_t off = at + (size_t)(z - p);
    return tw_rq_refuse(d, TW_ERR_INVALID, TW_D_JSON_NUL, (int64_t)off, path,
                        "a NUL byte at byte %zu in %s (it holds none)", off, what);
}

tw_status tw_rq_markup_value(tw_rq *d, unsigned types, const char *p, size_t n, size_t at,
                             const char *path, cJSON **out)
{
    *out = NULL;
    TRY(tw_rq_no_nul(d, p, n, at, path, "an argument's value"));
    if (types != TW_TY_STRING && n) {
        cJSON *j = NULL;
        tw_error je;
        tw_status st = tw_json_parse(p, n, d->l.max_depth, &j, &je);
        if (st == TW_ERR_NOMEM)
            return st;
        if (st == TW_OK && !cJSON_IsString(j)) {
            tw_buf t = {0};
            st = tw_json_write_py(&t, j, d->l.max_depth);
            bool same = st == TW_OK && t.len == n && memcmp(t.data, p, n) == 0;
            tw_buf_free(&t);
            if (same) {
                *out = j;
                return TW_OK;
            }
        }
        cJSON_Delete(j);
        if (st == TW_ERR_NOMEM)
            return st;
    }
    char *s = tw_strndup(p, n);
    *out = s ? cJSON_CreateString(s) : NULL;
    tw_free(s);
    return *out ? TW_OK : TW_ERR_NOMEM;
}

static tw_status warn_v(tw_rq *d, tw_status code, int64_t offset, const char *fmt, va_list ap)
{
    if (!d->warnings)
        return TW_OK;
    char tmp[320];
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    return tw_diag_add(d->warnings, code, offset < 0 ? -1 : offset, tmp);
}

tw_status tw_rq_warn(tw_rq *d, tw_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tw_status st = warn_v(d, code, -1, fmt, ap);
    va_end(ap);
    return st;
}

tw_status tw_rq_warn_at(tw_rq *d, tw_status code, int64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tw_status st = warn_v(d, code, offset, fmt, ap);
    va_end(ap);
    return st;
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
    if (*cnt && !(r->tools = tw_calloc(*cnt, sizeof *r->tools)))
        return TW_ERR_NOMEM;
    return TW_OK;
}

tw_status tw_rq_read_tool(tw_rq *d, const cJSON *t, const char *path)
{
    tw_request *r = d->req;
    tw_error te;
    tw_status st = tw_tool_read(t, &r->tools[r->ntools], &te);
    if (st == TW_ERR_NOMEM)
        return st;
    if (st != TW_OK)
        return tw_rq_refuse(d, st, te.code, -1, path, "%.180s", te.message);
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
        return tw_rq_fail(d, TW_ERR_LIMIT, d->msg_at, path, "more than max_messages (%zu) messages",
                          d->l.max_messages);
    if (r->nmessages == d->cap_messages) {
        size_t ncap = d->cap_messages ? d->cap_messages * 2 : 8;
        if (ncap > d->l.max_messages)
            ncap = d->l.max_messages;
        tw_message *n = tw_realloc(r->messages, ncap * sizeof *n);
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

/* Read one <tool_call> payload as {"name": N, "arguments": {…}} (those two
 * keys only). TW_OK with c filled; TW_ERR_PARSE (why set) when it is not
 * such an object; TW_ERR_NOMEM. */
static tw_status read_payload(const tw_limits *l, const char *p, size_t n, tw_call *c,
                              tw_status *code, const char **why)
{
    memset(c, 0, sizeof *c);
    c->offset = -1;
    *code = TW_D_TOOL_CALL_JSON;
    size_t z = tw_rq_json_stray(p, n); /* a byte a JSON reader would drop */
    if (z < n) {
        *code = p[z] ? TW_D_JSON_NOT_RFC8259 : TW_D_JSON_NUL;
        *why = p[z] ? "holds a control byte between JSON tokens" : "holds a NUL byte";
        return TW_ERR_PARSE;
    }
    cJSON *j = NULL;
    tw_error je;
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
    tw_free(v);
}

/*
 * A <tool_call> still in the first `end` bytes of s once the blocks that
 * end the content are taken (not closed, text after it, not on a line of
 * its own past the last taken block): kept as content, with the Hermes
 * decoder's first error for those bytes, else its first warning, else
 * tool_call_json, so that the reader never keeps one without a word.
 */
char *tw_rq_quoted(const char *p, size_t n)
{
    tw_buf b = {0};
    if (tw_json_write_str(&b, p, n > 120 ? 120 : n, TW_JSON_COMPACT) != TW_OK) {
        tw_buf_free(&b);
        return NULL;
    }
    return tw_buf_take(&b, NULL);
}

tw_status tw_rq_warn_undeclared(tw_rq *d, const char *name, int64_t at, const char *where)
{
    if (!d->req->tools_present || !name || tw_tools_find(d->req->tools, d->req->ntools, name))
        return TW_OK;
    char *qn = tw_rq_quoted(name, strlen(name));
    tw_status st = qn ? tw_rq_warn_at(d, TW_D_UNKNOWN_TOOL, at,
                                      "%s: tool %s was not declared in the tools section; the "
                                      "call is kept",
                                      where, qn)
                      : TW_ERR_NOMEM;
    tw_free(qn);
    return st;
}

/* The prompt offset of byte q of the content (content_at -1: not known). */
static int64_t at_of(int64_t content_at, size_t q)
{
    return content_at < 0 ? -1 : content_at + (int64_t)q;
}

static tw_status left_block(tw_rq *d, const char *s, size_t end, int64_t content_at,
                            const char *path)
{
    const char *left = rfind(s, end, "<tool_call>", sizeof "<tool_call>" - 1);
    if (!left)
        return TW_OK;
    size_t q = (size_t)(left - s), len = end - q;
    if (len > d->l.max_args_bytes)
        return tw_rq_warn_at(d, TW_D_TOOL_CALL_JSON, at_of(content_at, q),
                             "%s: a <tool_call> block of %zu bytes not closed as the template "
                             "closes one is kept as content",
                             path, len);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits = d->l;
    o.allow_unknown_tool = true;
    tw_result res;
    memset(&res, 0, sizeof res);
    tw_status st = tw_hermes_output_decode(s + q, len, &o, &res);
    if (st == TW_OK) {
        const tw_diag *why = res.errors.len     ? &res.errors.items[0]
                             : res.warnings.len ? &res.warnings.items[0]
                                                : NULL;
        const char *reason = why && why->message ? why->message
                             : res.msg.ncalls    ? "text after the call's </tool_call>"
                                                 : "no call";
        int64_t off = at_of(content_at, q);
        if (off >= 0 && why && why->offset > 0)
            off += why->offset;
        st = tw_rq_warn_at(d, why ? why->code : TW_D_TOOL_CALL_JSON, off,
                           "%s: a <tool_call> block that the hermes decoder does not read as the "
                           "template's last call (%s) is kept as content",
                           path, reason);
    } else if (st != TW_ERR_NOMEM) {
        st = tw_rq_fail(d, st, at_of(content_at, q), path,
                        "the hermes decoder refused a <tool_call> block of %zu bytes (%s)", len,
                        tw_code_message(st));
    }
    tw_result_free(&res);
    return st;
}

tw_status tw_rq_take_calls(tw_rq *d, tw_message *m, int64_t content_at, const char *path)
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
    bool warned = false; /* a block kept as content said so */
    while (ends_with(s, end, CLOSE, kc)) {
        const char *open = rfind(s, end - kc, OPEN, ko);
        if (!open)
            break;
        size_t q = (size_t)(open - s);
        if (q > 0 && s[q - 1] != '\n') {
            warned = true;
            st = tw_rq_warn_at(
                d, TW_D_TOOL_CALL_JSON, at_of(content_at, q),
                "%s: a <tool_call> block not on a line of its own is kept as content", path);
            break;
        }
        const char *payload = open + ko;
        size_t plen = end - kc - (q + ko);
        if (plen > d->l.max_args_bytes) {
            st = tw_rq_refuse(d, TW_ERR_LIMIT, TW_D_ARGS_TOO_LARGE, (int64_t)q, path,
                              "a <tool_call> payload of %zu bytes, more than max_args_bytes (%zu)",
                              plen, d->l.max_args_bytes);
            break;
        }
        tw_call c;
        tw_status code;
        const char *why = "";
        st = read_payload(&d->l, payload, plen, &c, &code, &why);
        if (st == TW_ERR_PARSE) {
            warned = true;
            st = tw_rq_warn_at(d, code, at_of(content_at, q),
                               "%s: a <tool_call> block that %s is kept as content", path, why);
            break;
        }
        if (st != TW_OK)
            break;
        st = tw_rq_warn_undeclared(d, c.name, at_of(content_at, q), path);
        if (st != TW_OK) {
            tw_call_free(&c);
            break;
        }
        if (nfound >= d->l.max_calls || m->ncalls + nfound >= d->l.max_calls) {
            tw_call_free(&c);
            st = tw_rq_fail(d, TW_ERR_LIMIT, (int64_t)q, path,
                            "more than max_calls (%zu) tool calls", d->l.max_calls);
            break;
        }
        if (nfound == cap) {
            size_t ncap = cap ? cap * 2 : 4;
            tw_call *nv = tw_realloc(found, ncap * sizeof *nv);
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
    if (st == TW_OK && !warned)
        st = left_block(d, s, end, content_at, path);
    if (st != TW_OK) {
        free_calls(found, nfound);
        return st;
    }
    return tw_rq_add_found_calls(d, m, found, nfound, end);
}

tw_status tw_rq_add_found_calls(tw_rq *d, tw_message *m, tw_call *found, size_t nfound, size_t end)
{
    tw_status st = TW_OK;
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
        const tw_message *a =
            i > 0 && r->messages[i - 1].role == TW_ROLE_ASSISTANT ? &r->messages[i - 1] : NULL;
        size_t k = 0;
        for (; i < r->nmessages && r->messages[i].role == TW_ROLE_TOOL; i++, k++) {
            tw_message *m = &r->messages[i];
            if (m->tool_call_id)
                continue;
            /* the k-th call, unless the result names another tool (its name
             * is kept, never replaced) */
            if (a && k < a->ncalls &&
                (!m->name || (a->calls[k].name && strcmp(m->name, a->calls[k].name) == 0))) {
                if (!(m->tool_call_id = tw_strdup(a->calls[k].id)))
                    return TW_ERR_NOMEM;
                if (!m->name && !(m->name = tw_strdup(a->calls[k].name)))
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
