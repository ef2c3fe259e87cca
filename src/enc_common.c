/* Plumbing shared by the encoders (see enc_common.h). */
#include "enc_common.h"
#include "formats.h"
#include "work.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "toolwire/shims.h"

/* ===================== a small compact JSON writer ===================== */

void tw_jw_put(tw_jw *w, const char *s, size_t n)
{
    if (w->st == TW_OK)
        w->st = tw_buf_append(w->b, s, n);
}

void tw_jw_lit(tw_jw *w, const char *s)
{
    tw_jw_put(w, s, strlen(s));
}

void tw_jw_key(tw_jw *w, const char *k)
{
    if (w->depth) {
        if (!w->first[w->depth])
            tw_jw_put(w, ",", 1);
        w->first[w->depth] = false;
    }
    if (k) {
        if (w->st == TW_OK)
            w->st = tw_json_write_str(w->b, k, strlen(k), TW_JSON_COMPACT);
        tw_jw_put(w, ":", 1);
    }
}

void tw_jw_open(tw_jw *w, const char *k, char c)
{
    tw_jw_key(w, k);
    tw_jw_put(w, &c, 1);
    if (w->depth >= TW_JW_MAX_DEPTH) {
        if (w->st == TW_OK)
            w->st = TW_ERR_LIMIT;
        return;
    }
    w->first[++w->depth] = true;
}

void tw_jw_close(tw_jw *w, char c)
{
    tw_jw_put(w, &c, 1);
    if (w->depth)
        w->depth--;
}

void tw_jw_strn(tw_jw *w, const char *k, const char *s, size_t n)
{
    tw_jw_key(w, k);
    if (w->st == TW_OK)
        w->st = tw_json_write_str(w->b, s ? s : "", s ? n : 0, TW_JSON_COMPACT);
}

void tw_jw_str(tw_jw *w, const char *k, const char *s)
{
    tw_jw_strn(w, k, s, s ? strlen(s) : 0);
}

void tw_jw_raw(tw_jw *w, const char *k, const char *lit)
{
    tw_jw_key(w, k);
    tw_jw_lit(w, lit);
}

void tw_jw_int(tw_jw *w, const char *k, long long v)
{
    tw_jw_key(w, k);
    if (w->st == TW_OK)
        w->st = tw_buf_printf(w->b, "%lld", v);
}

void tw_jw_json(tw_jw *w, const char *k, const cJSON *v)
{
    tw_jw_key(w, k);
    if (w->st == TW_OK)
        w->st = tw_json_write(w->b, v, TW_JSON_COMPACT);
}

/* ===================== shared helpers ===================== */

const tw_encode_opts tw_enc_default_opts = {.parallel_tool_calls = -1};

/* Narrow out->max so that at most max_output_bytes are added. */
void tw_cap_begin(tw_buf *out, const tw_encode_opts *o, tw_capsave *s)
{
    tw_limits l;
    tw_limits_resolve(&l, &o->limits);
    s->len = out->len;
    s->max = out->max;
    size_t lim =
        out->len + l.max_output_bytes < out->len ? SIZE_MAX : out->len + l.max_output_bytes;
    if (out->max == 0 || out->max > lim)
        out->max = lim;
}

tw_status tw_cap_end(tw_buf *out, const tw_capsave *s, tw_status st)
{
    out->max = s->max;
    if (st != TW_OK) {
        out->len = s->len;
        if (out->data)
            out->data[out->len] = '\0';
    }
    return st;
}

tw_status tw_not_carried(const tw_encode_opts *o, const char *fmt, ...)
{
    if (!o->warnings)
        return TW_OK;
    char tmp[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    return tw_diag_add(o->warnings, TW_D_NOT_CARRIED, -1, tmp);
}

/* Compact JSON text of a call's arguments ({} when none). */
tw_status tw_args_text(const tw_call *c, const tw_limits *l, tw_buf *t)
{
    t->max = l->max_output_bytes;
    if (!c->arguments)
        return tw_buf_puts(t, "{}");
    return tw_json_write(t, c->arguments, TW_JSON_COMPACT);
}

/* Bytes of the next fragment of s[0, n): at most frag (0: all), never
 * splitting a UTF-8 sequence, at least one character. */
size_t tw_frag_len(const char *s, size_t n, size_t frag)
{
    if (frag == 0 || n <= frag)
        return n;
    size_t k = tw_utf8_cut(s, n, frag);
    if (k == 0) {
        k = 1;
        while (k < n && k < 4 && ((unsigned char)s[k] & 0xC0) == 0x80)
            k++;
    }
    return k;
}

/* Was a call with this id and name in an assistant message before index mi? */
bool tw_name_recoverable(tw_name_memo *memo, const tw_request *r, size_t mi, const char *id,
                         const char *name)
{
    if (mi < memo->upto)
        memset(memo, 0, sizeof *memo); /* called out of order: walk again */
    TW_WORK(mi - memo->upto);
    for (; memo->upto < mi; memo->upto++)
        if (r->messages[memo->upto].role == TW_ROLE_ASSISTANT)
            memo->asst = memo->upto + 1;
    if (!memo->asst || !id)
        return false;
    const tw_message *m = &r->messages[memo->asst - 1];
    TW_WORK(m->ncalls);
    for (size_t k = 0; k < m->ncalls; k++)
        if (m->calls[k].id && strcmp(m->calls[k].id, id) == 0)
            return m->calls[k].name && strcmp(m->calls[k].name, name) == 0;
    return false;
}

tw_status tw_encode_capped(const tw_request *r, const tw_encode_opts *o, tw_buf *out,
                           tw_render_fn fn)
{
    tw_limits L;
    tw_limits_resolve(&L, o ? &o->limits : NULL);
    if (!out->data && out->len == 0 && out->max == 0) {
        /* an empty, unallocated out: rendered in place, not copied; on
         * failure freed, which leaves it as it was */
        out->max = L.max_output_bytes;
        tw_status st = fn(out, r, o, L.max_depth);
        out->max = 0;
        if (st == TW_OK && !out->data)
            st = tw_buf_append(out, "", 0);
        if (st != TW_OK)
            tw_buf_free(out);
        return st;
    }
    tw_buf b = {0};
    b.max = L.max_output_bytes;
    tw_status st = fn(&b, r, o, L.max_depth);
    if (st == TW_OK)
        st = tw_buf_append(out, b.data ? b.data : "", b.len);
    tw_buf_free(&b);
    return st;
}

tw_status tw_unsupported_encode_request(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    (void)r, (void)o, (void)out;
    return TW_ERR_UNSUPPORTED;
}

tw_status tw_unsupported_encode_result(const tw_result *r, const tw_encode_opts *o, tw_buf *out)
{
    (void)r, (void)o, (void)out;
    return TW_ERR_UNSUPPORTED;
}

/* The UTC date of t as YYYY-MM-DD (days to the civil calendar, proleptic
 * Gregorian), with no time zone loaded: strftime and localtime allocate
 * one and keep it. */
void tw_enc_utc_date(time_t t, char *out, size_t n)
{
    long long z = (long long)t / 86400 - (t < 0 && t % 86400 ? 1 : 0) + 719468;
    long long era = (z >= 0 ? z : z - 146096) / 146097;
    long long doe = z - era * 146097;
    long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    long long mp = (5 * doy + 2) / 153;
    long long d = doy - (153 * mp + 2) / 5 + 1;
    long long m = mp < 10 ? mp + 3 : mp - 9;
    long long y = yoe + era * 400 + (m <= 2);
    snprintf(out, n, "%04lld-%02d-%02d", y, (int)m, (int)d);
}

tw_status tw_encode_result_capped(const tw_result *r, const tw_encode_opts *o, tw_buf *out,
                                  tw_result_render_fn fn)
{
    if (!r || !out)
        return TW_ERR_INVALID;
    if (!o)
        o = &tw_enc_default_opts;
    tw_capsave cs;
    tw_cap_begin(out, o, &cs);
    return tw_cap_end(out, &cs, fn(r, o, out));
}
