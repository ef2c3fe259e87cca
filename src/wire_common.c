/* Plumbing shared by the decoders (see wire_common.h). */
#include "alloc.h"
#include "wire_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_marks.h"
#include "work.h"

int tw_diag_cmp(const tw_diag *x, const tw_diag *y)
{
    if (x->code == TW_D_INPUT_TOO_LARGE || y->code == TW_D_INPUT_TOO_LARGE)
        return (x->code == TW_D_INPUT_TOO_LARGE) - (y->code == TW_D_INPUT_TOO_LARGE);
    if (x->offset != y->offset)
        return x->offset < y->offset ? -1 : 1;
    return 0;
}

/* A stable sort by offset: insertion sort (lists are short and capped). */
void tw_diag_sort(tw_diag_list *l)
{
    for (size_t i = 1; i < l->len; i++) {
        tw_diag t = l->items[i];
        size_t j = i;
        while (j > 0 && tw_diag_cmp(&l->items[j - 1], &t) > 0) {
            l->items[j] = l->items[j - 1];
            j--;
        }
        l->items[j] = t;
    }
}

tw_status tw_wire_sse_feed(tw_sse *sse, const tw_limits *L, uint64_t *fed, bool *too_large,
                           tw_buf *head, bool *head_off, const char *buf, size_t len)
{
    if (*too_large || len == 0)
        return TW_OK;
    len = tw_input_clip(L, *fed, len, too_large);
    /* only a body whose first byte past whitespace is '{' can be an error
     * envelope (tw_wire_error_body): one whose first byte is neither needs
     * no head */
    if (!*head_off && *fed == 0 && len && buf[0] != '{' && !tw_is_space((unsigned char)buf[0]))
        *head_off = true;
    *fed += len;
    tw_status hs = *head_off ? TW_OK : tw_buf_append(head, buf, len);
    if (hs == TW_ERR_NOMEM)
        return hs;
    if (hs != TW_OK) {
        *head_off = true;
        tw_buf_free(head);
    }
    tw_status st = tw_sse_feed(sse, buf, len);
    if (sse->nevents && !*head_off) {
        *head_off = true;
        tw_buf_free(head);
    }
    return st;
}

tw_status tw_decode_batch(void *s, tw_status st, tw_status (*feed)(void *, const char *, size_t),
                          tw_status (*finish)(void *, tw_result *), void (*release)(void *),
                          const char *buf, size_t len, tw_result *out)
{
    if (st == TW_OK)
        st = feed(s, buf, len);
    if (st == TW_OK)
        st = finish(s, out);
    else
        tw_result_init(out, NULL); /* *out is empty on every failure */
    release(s);
    return st;
}

tw_status tw_decode_batch_capped(const tw_decode_opts *o, void *s, tw_status st,
                                 tw_status (*feed)(void *, const char *, size_t),
                                 tw_status (*finish)(void *, tw_result *), void (*release)(void *),
                                 const char *buf, size_t len, tw_result *out)
{
    st = tw_decode_batch(s, st, feed, finish, release, buf, len, out);
    if (st != TW_OK)
        tw_result_init(out, o ? &o->limits : NULL); /* empty: nothing to free */
    return st;
}

tw_status tw_wire_close(tw_wire_sink *k, bool too_large)
{
    tw_status st = TW_OK;
    if (too_large)
        st = tw_wire_diag(k, true, TW_D_INPUT_TOO_LARGE, (int64_t)k->L->max_input_bytes, NULL);
    if (st == TW_OK) {
        tw_wire_sort_diags(k->res);
        st = tw_wire_finish_result(k->res);
    }
    return st;
}

/* ===================== body-buffering decoder ===================== */

static void body_setup(tw_body_dec *d, const tw_decode_opts *o, tw_event_fn fn, void *u)
{
    TW_DECODER_SETUP(d, o, fn, u);
}

void *tw_body_new(const tw_decode_opts *o, tw_event_fn fn, void *u)
{
    tw_body_dec *d = tw_malloc(sizeof *d);
    if (d)
        body_setup(d, o, fn, u);
    return d;
}

tw_status tw_body_feed(void *s, const char *b, size_t n)
{
    tw_body_dec *d = s;
    if (d->finished)
        return TW_ERR_STATE;
    n = tw_input_clip(&d->L, d->in.len, n, &d->too_large);
    return n ? tw_buf_append(&d->in, b, n) : TW_OK;
}

tw_status tw_body_reset(void *s, const tw_decode_opts *o, tw_event_fn fn, void *u)
{
    tw_body_dec *d = s;
    tw_buf *const bufs[] = {&d->in};
    tw_buf keep[1];
    tw_bufs_detach(bufs, keep, 1);
    body_setup(d, o, fn, u);
    tw_bufs_attach(bufs, keep, 1);
    return TW_OK;
}

void tw_body_free(void *s)
{
    tw_body_dec *d = s;
    if (!d)
        return;
    tw_buf_free(&d->in);
    tw_free(d);
}

/* The decode of a whole body (b, n: the bytes within the input cap). */
static tw_status body_run(tw_body_dec *d, const char *b, size_t n, tw_result *out,
                          tw_body_fn decode)
{
    tw_result_init(out, &d->L);
    if (d->finished)
        return TW_ERR_STATE;
    d->finished = true;
    tw_wire_sink k = {out, &d->o, &d->L, d->fn, d->user, &d->stop};
    tw_status st = decode(&k, n ? b : "", n);
    if (st == TW_OK)
        st = tw_wire_close(&k, d->too_large);
    if (st == TW_OK)
        st = d->stop; /* a callback stopped the decode */
    if (st != TW_OK) {
        tw_result_free(out);
        tw_result_init(out, &d->L);
    }
    return st;
}

tw_status tw_body_finish(tw_body_dec *d, tw_result *out, tw_body_fn decode)
{
    return body_run(d, d->in.data, d->in.len, out, decode);
}

tw_status tw_body_decode(const char *buf, size_t len, const tw_decode_opts *o, tw_result *out,
                         tw_body_fn decode)
{
    tw_body_dec d;
    body_setup(&d, o, NULL, NULL);
    /* the whole body is at hand: read in place, not copied (the input cap
     * as tw_body_feed applies it) */
    size_t n = tw_input_clip(&d.L, 0, len, &d.too_large);
    return body_run(&d, buf, n, out, decode);
}

/* ===================== JSON wire bodies ===================== */

tw_status tw_wire_lint_diags(tw_wire_sink *k, const tw_json_lint *lint, int64_t at, bool relative,
                             bool *warned)
{
    int64_t base = relative ? at : 0;
    tw_status st = TW_OK;
    if (lint->nonstd_offset >= 0 && !(warned && *warned)) {
        char m[160];
        snprintf(m, sizeof m, "JSON is not RFC 8259: %s", lint->nonstd_what);
        st = tw_wire_diag(k, false, TW_D_JSON_NOT_RFC8259,
                          relative ? base + lint->nonstd_offset : at, m);
        if (warned)
            *warned = true;
    }
    if (st == TW_OK && lint->nul)
        st = tw_wire_diag(k, true, TW_D_JSON_NUL, relative ? base + lint->nul_offset : at,
                          "a string or key holds U+0000; the value it belongs to was refused");
    return st;
}

void tw_wire_sort_diags(tw_result *r)
{
    tw_diag_sort(&r->errors);
    tw_diag_sort(&r->warnings);
}

tw_status tw_wire_text(tw_wire_sink *k, tw_event_kind kind, const char *s, size_t n)
{
    if (n == 0)
        return TW_OK;
    tw_buf *b = kind == TW_EV_CONTENT ? &k->res->msg.content : &k->res->msg.thinking;
    tw_status st = tw_buf_append(b, s, n);
    if (st == TW_OK && k->fn) {
        tw_event ev = {kind, b->data + b->len - n, n, NULL, NULL};
        tw_event_deliver(k->fn, k->user, k->stop, &ev);
    }
    return st;
}

tw_status tw_wire_keep_signature(tw_wire_sink *k, const char *sig, size_t n, bool *warned,
                                 int64_t off, const char *what)
{
    tw_message *m = &k->res->msg;
    if (n == 0)
        return TW_OK;
    if (!m->thinking_signature) {
        m->thinking_signature = tw_strndup(sig, n);
        return m->thinking_signature ? TW_OK : TW_ERR_NOMEM;
    }
    if (!warned || *warned ||
        (strlen(m->thinking_signature) == n && memcmp(m->thinking_signature, sig, n) == 0))
        return TW_OK;
    *warned = true;
    char msg[160];
    snprintf(msg, sizeof msg, "a further %.60s was not kept (the result holds the first)", what);
    return tw_wire_diag(k, false, TW_D_NOT_CARRIED, off, msg);
}

void tw_wire_error_text(const cJSON *err, const tw_wire_error_shape *shape, char *msg, size_t n)
{
    const char *kind = NULL;
    for (size_t i = 0; i < 2 && !kind && shape->kind[i]; i++)
        kind = tw_json_get_str(err, shape->kind[i]);
    const char *m = tw_json_get_str(err, "message");
    if (!m && shape->string_message && cJSON_IsString(err))
        m = err->valuestring;
    /* the code as sent: a number is printed only when it is an exact
     * integer, never rounded or clamped into one */
    int64_t code = 0;
    char cs[24] = "";
    if (shape->code_prefix &&
        tw_json_exact_int(tw_json_get(err, "code"), INT64_MIN, INT64_MAX, &code))
        snprintf(cs, sizeof cs, "%lld ", (long long)code);
    snprintf(msg, n, "%s%.60s: %.200s", cs, kind ? kind : "error", m ? m : "(no message)");
}

tw_status tw_wire_error_body(tw_wire_sink *k, const char *buf, size_t len, bool *found)
{
    *found = false;
    const char *p = buf;
    size_t n = len;
    tw_trim(&p, &n);
    if (n == 0 || p[0] != '{')
        return TW_OK;
    cJSON *j = NULL;
    tw_status st = tw_json_parse(buf, len, k->L->max_depth + TW_WIRE_ENVELOPE_DEPTH, &j, NULL);
    if (st == TW_ERR_NOMEM)
        return st;
    const cJSON *err = tw_json_get(j, "error");
    st = TW_OK;
    if (err && !cJSON_IsNull(err)) {
        tw_wire_step path[] = {{"error", 0}};
        static const tw_wire_error_shape shape = {{"type", NULL}, true, false};
        char msg[300];
        tw_wire_error_text(err, &shape, msg, sizeof msg);
        *found = true;
        st = tw_wire_diag(k, true, TW_D_ERROR_RESPONSE, tw_wire_locate(buf, len, path, 1), msg);
    }
    cJSON_Delete(j);
    return st;
}

const char *tw_wire_no_event(const tw_buf *head)
{
    const char *p = head->data ? head->data : "";
    size_t n = head->data ? head->len : 0;
    tw_trim(&p, &n);
    if (n && (p[0] == '{' || p[0] == '['))
        return "no event in the stream: expected SSE lines (data: then the event's JSON, a blank "
               "line "
               "after each event); the input starts with JSON, a body or JSON lines without the "
               "data: framing";
    return "no event in the stream: expected SSE lines (data: then the event's JSON, a blank line "
           "after each event)";
}

tw_status tw_wire_set_finish(tw_result *r, tw_status st, const char *fr)
{
    tw_free(r->finish_reason);
    r->finish_reason = NULL;
    if (st == TW_OK && fr && !(r->finish_reason = tw_strdup(fr)))
        st = TW_ERR_NOMEM;
    return st;
}

tw_status tw_wire_finish_result(tw_result *r)
{
    tw_status st = TW_OK;
    if (!r->msg.content.data)
        st = tw_buf_append(&r->msg.content, "", 0);
    if (st == TW_OK && !r->msg.thinking.data)
        st = tw_buf_append(&r->msg.thinking, "", 0);
    return st;
}

/* ===================== JSON locator ===================== */

static size_t skip_ws(const char *b, size_t n, size_t i)
{
    while (i < n && tw_is_space((unsigned char)b[i]))
        i++;
    return i;
}

/* Does the 8-byte word at p hold '"' or a backslash? */
static inline bool word_has_quote_or_esc(const char *p)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    uint64_t w, q, e;
    memcpy(&w, p, sizeof w);
    q = w ^ (ones * '"');
    e = w ^ (ones * '\\');
    return (((q - ones) & ~q) | ((e - ones) & ~e)) & high;
}

/* b[i] is '"': index just past the closing quote (or n). Plain bytes are
 * stepped over eight at a time. */
static size_t skip_string(const char *b, size_t n, size_t i)
{
    for (i++; i < n; i++) {
        while (i + 8 <= n && !word_has_quote_or_esc(b + i))
            i += 8;
        if (i >= n)
            break;
        if (b[i] == '\\')
            i++;
        else if (b[i] == '"')
            return i + 1;
    }
    return n;
}

static size_t skip_value(const char *b, size_t n, size_t i)
{
    if (i >= n)
        return n;
    if (b[i] == '"')
        return skip_string(b, n, i);
    if (b[i] == '{' || b[i] == '[') {
        size_t depth = 0;
        while (i < n) {
            char c = b[i];
            if (c == '"') {
                i = skip_string(b, n, i);
                continue;
            }
            if (c == '{' || c == '[')
                depth++;
            else if (c == '}' || c == ']') {
                if (--depth == 0)
                    return i + 1;
            }
            i++;
        }
        return n;
    }
    while (i < n && !strchr(",}] \t\r\n", b[i]))
        i++;
    return i;
}

/* The walk of tw_wire_locate; *end is where it stopped (its work). */
static int64_t locate(const char *b, size_t n, const tw_wire_step *path, size_t npath, size_t *end)
{
    size_t i = skip_ws(b, n, 0);
    *end = n;
    for (size_t s = 0; s < npath; s++) {
        if (i >= n)
            return -1;
        if (path[s].key) {
            if (b[i] != '{')
                return -1;
            size_t klen = strlen(path[s].key);
            i = skip_ws(b, n, i + 1);
            for (;;) {
                if (i >= n || b[i] != '"')
                    return -1;
                size_t ks = i + 1, ke = skip_string(b, n, i);
                bool match = ke - 1 - ks == klen && memcmp(b + ks, path[s].key, klen) == 0;
                i = skip_ws(b, n, ke);
                if (i >= n || b[i] != ':')
                    return -1;
                i = skip_ws(b, n, i + 1);
                if (match)
                    break;
                i = skip_ws(b, n, skip_value(b, n, i));
                if (i >= n || b[i] != ',')
                    return -1;
                i = skip_ws(b, n, i + 1);
            }
        } else {
            if (b[i] != '[')
                return -1;
            i = skip_ws(b, n, i + 1);
            for (size_t k = 0; k < path[s].index; k++) {
                i = skip_ws(b, n, skip_value(b, n, i));
                if (i >= n || b[i] != ',')
                    return -1;
                i = skip_ws(b, n, i + 1);
            }
            if (i >= n || b[i] == ']')
                return -1;
        }
    }
    *end = i;
    return i < n ? (int64_t)i : -1;
}

int64_t tw_wire_locate(const char *b, size_t n, const tw_wire_step *path, size_t npath)
{
    size_t end;
    int64_t off = locate(b, n, path, npath, &end);
    TW_WORK(end);
    return off;
}

bool tw_wire_cursor_open(tw_wire_cursor *c, const char *b, size_t n, const tw_wire_step *path,
                         size_t npath)
{
    memset(c, 0, sizeof *c);
    int64_t at = tw_wire_locate(b, n, path, npath);
    if (at < 0 || (b[at] != '[' && b[at] != '{'))
        return false;
    c->b = b;
    c->n = n;
    c->object = b[at] == '{';
    c->i = skip_ws(b, n, (size_t)at + 1);
    c->open = true;
    return true;
}

int64_t tw_wire_cursor_next(tw_wire_cursor *c)
{
    if (!c->open)
        return -1;
    const char *b = c->b;
    size_t n = c->n, i = c->i, from = i;
    int64_t off = -1;
    if (c->started) {
        i = skip_ws(b, n, skip_value(b, n, i));
        if (i >= n || b[i] != ',')
            goto out;
        i = skip_ws(b, n, i + 1);
    }
    c->started = true;
    if (c->object) {
        if (i >= n || b[i] != '"')
            goto out;
        i = skip_ws(b, n, skip_string(b, n, i));
        if (i >= n || b[i] != ':')
            goto out;
        i = skip_ws(b, n, i + 1);
    } else if (i >= n || b[i] == ']') {
        goto out;
    }
    if (i < n)
        off = (int64_t)i;
out:
    TW_WORK(i - from);
    c->i = i;
    c->open = off >= 0;
    return off;
}

void tw_wire_elems_open(tw_wire_elems *e, const tw_buf *marks, const cJSON *container,
                        const char *b, size_t n, const tw_wire_step *path, size_t npath)
{
    memset(e, 0, sizeof *e);
    e->marks = marks;
    e->by_mark = marks && marks->len > 0;
    for (const cJSON *c = container ? container->child : NULL; e->by_mark && c; c = c->next)
        if (!cJSON_IsObject(c) && !cJSON_IsArray(c))
            e->by_mark = false;
    if (!e->by_mark)
        tw_wire_cursor_open(&e->cur, b, n, path, npath);
}

int64_t tw_wire_elems_next(tw_wire_elems *e, const cJSON *elem)
{
    if (!e->by_mark)
        return tw_wire_cursor_next(&e->cur);
    size_t nm, from = e->pos;
    const tw_json_mark *m = tw_json_marks(e->marks, &nm);
    size_t i = e->pos;
    while (i < nm && m[i].node != elem)
        i++;
    /* (not found cannot happen: every container was marked; the search
     * then stops at the end, so later ones cost nothing) */
    e->pos = i < nm ? i + 1 : nm;
    TW_WORK(e->pos - from);
    return i < nm ? (int64_t)m[i].off : -1;
}
