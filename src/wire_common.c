/* Plumbing shared by the decoders (see wire_common.h). */
#include "wire_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "toolwire/schema.h"

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
static const char *const CALL_KEYS[] = {"name",     "arguments", "parameters", "id",
                                        "type",     "function",  "input",      NULL};

/*
 * Refusals every decoder shares for a parsed call object: a string or key
 * in it held U+0000 (removed by tw_json_parse_lint), or it repeats one of
 * CALL_KEYS. Returns the refusal with its text in why, or TW_OK.
 */
tw_status tw_call_object_check(const cJSON *obj, char *why, size_t whylen)
{
    if (tw_json_tainted(obj)) {
        snprintf(why, whylen, "tool call holds U+0000 in a string or key; cut strings are refused");
        return TW_D_JSON_NUL;
    }
    const char *k = tw_json_repeated_member(obj, CALL_KEYS);
    if (k) {
        snprintf(why, whylen, "tool call repeats the key '%s'", k);
        return TW_D_CALL_DUPLICATE_KEY;
    }
    return TW_OK;
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

tw_status tw_call_check(const tw_decode_opts *o, const tw_limits *L, tw_result *res,
                        const char *name, const cJSON *args, char *why, size_t whylen,
                        tw_pending *warns, size_t *nwarn)
{
    if (!tw_json_size_within(args, L->max_args_bytes)) {
        snprintf(why, whylen, "arguments exceed max_args_bytes (%zu)", L->max_args_bytes);
        return TW_D_ARGS_TOO_LARGE;
    }
    const tw_tool *t = tw_result_find_tool(res, o->tools, o->ntools, name);
    char sw[200];
    if (t && t->parameters &&
        !tw_schema_validate(t->parameters, args, L->max_depth, sw, sizeof sw)) {
        if (o->schema_warn) {
            tw_pending_add(warns, nwarn, TW_D_ARGS_SCHEMA, "%s", sw);
        } else {
            snprintf(why, whylen, "%s", sw);
            return TW_D_ARGS_SCHEMA;
        }
    }
    if (res->msg.ncalls >= L->max_calls) {
        snprintf(why, whylen, "more than max_calls (%zu) tool calls", L->max_calls);
        return TW_D_TOO_MANY_CALLS;
    }
    return TW_OK;
}

tw_status tw_wire_sse_feed(tw_sse *sse, const tw_limits *L, uint64_t *fed, bool *too_large,
                           tw_buf *head, bool *head_off, const char *buf, size_t len)
{
    if (*too_large || len == 0)
        return TW_OK;
    len = tw_input_clip(L, *fed, len, too_large);
    *fed += len;
    if (!*head_off && tw_buf_append(head, buf, len) != TW_OK) {
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
        return finish(s, out);
    release(s);
    tw_result_init(out, NULL); /* *out is empty on every failure */
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

tw_status tw_body_init(void *s, const tw_decode_opts *o, tw_event_fn fn, void *u)
{
    tw_body_dec *d = s;
    TW_DECODER_SETUP(d, o, fn, u);
    return TW_OK;
}

tw_status tw_body_feed(void *s, const char *b, size_t n)
{
    tw_body_dec *d = s;
    n = tw_input_clip(&d->L, d->in.len, n, &d->too_large);
    return n ? tw_buf_append(&d->in, b, n) : TW_OK;
}

void tw_body_release(void *s)
{
    tw_body_dec *d = s;
    tw_buf_free(&d->in);
}

tw_status tw_body_finish(tw_body_dec *d, tw_result *out, tw_body_fn decode)
{
    tw_result_init(out, &d->L);
    tw_wire_sink k = {out, &d->o, &d->L, d->fn, d->user};
    tw_status st = decode(&k, d->in.data ? d->in.data : "", d->in.len);
    if (st == TW_OK)
        st = tw_wire_close(&k, d->too_large);
    if (st != TW_OK) {
        tw_result_free(out);
        tw_result_init(out, &d->L);
    }
    tw_body_release(d);
    return st;
}

tw_status tw_body_decode(const char *buf, size_t len, const tw_decode_opts *o, tw_result *out,
                         tw_body_fn decode)
{
    tw_body_dec d;
    tw_status st = tw_body_init(&d, o, NULL, NULL);
    if (st == TW_OK)
        st = tw_body_feed(&d, buf, len);
    if (st != TW_OK) {
        tw_body_release(&d);
        tw_result_init(out, o ? &o->limits : NULL);
        return st;
    }
    return tw_body_finish(&d, out, decode);
}
