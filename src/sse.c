/*
 * SSE framing: a line layer (LF, CRLF or CR, held across feeds up to
 * max_line bytes) under an event layer (fields accumulated until a blank
 * line dispatches). Lines that arrive whole inside one feed are parsed in
 * place; only a line split across feeds is copied. docs/formats/sse.md.
 */
#include "toolwire/sse.h"

#include <string.h>

static const char BOM[] = "\xEF\xBB\xBF";

tw_status tw_sse_init(tw_sse *s, const tw_limits *limits, bool flush_at_end,
                      tw_sse_event_fn on_event, tw_sse_diag_fn on_diag, void *user)
{
    tw_limits L;
    tw_limits_resolve(&L, limits);
    memset(s, 0, sizeof *s);
    s->max_line = L.max_line_bytes;
    s->max_event = L.max_event_bytes;
    s->on_event = on_event;
    s->on_diag = on_diag;
    s->user = user;
    s->flush_at_end = flush_at_end;
    s->retry_ms = -1;
    s->first_line = true;
    return TW_OK;
}

void tw_sse_release(tw_sse *s)
{
    tw_buf_free(&s->line);
    tw_buf_free(&s->data);
    tw_buf_free(&s->type);
    tw_buf_free(&s->id);
}

bool tw_sse_pending(const tw_sse *s)
{
    return s->line_held || s->ev_open;
}

static tw_status diag(tw_sse *s, tw_status code, uint64_t off)
{
    return s->on_diag ? s->on_diag(s->user, code, off) : TW_OK;
}

static void reset_event(tw_sse *s)
{
    tw_buf_reset(&s->data);
    tw_buf_reset(&s->type);
    s->ev_open = false;
    s->ev_skip = false;
    s->has_data = false;
}

static tw_status dispatch(tw_sse *s, bool terminated)
{
    tw_status st = TW_OK;
    if (!s->ev_skip && s->data.len > 0) {
        tw_sse_event ev;
        ev.type = s->type.len ? s->type.data : "message";
        ev.type_len = s->type.len ? s->type.len : 7;
        ev.data = s->data.data;
        ev.data_len = s->data.len - 1; /* the last line's "\n" */
        ev.id = s->id.data ? s->id.data : "";
        ev.id_len = s->id.len;
        ev.offset = s->ev_off;
        ev.terminated = terminated;
        s->nevents++;
        if (s->on_event)
            st = s->on_event(s->user, &ev);
    }
    reset_event(s);
    return st;
}

static bool all_digits(const char *p, size_t n)
{
    if (n == 0 || n > 15)
        return false;
    for (size_t i = 0; i < n; i++)
        if (p[i] < '0' || p[i] > '9')
            return false;
    return true;
}

/* One complete line (terminator excluded) that starts at byte `off`. */
static tw_status process_line(tw_sse *s, const char *p, size_t n, uint64_t off)
{
    if (s->first_line) {
        s->first_line = false;
        if (n >= 3 && memcmp(p, BOM, 3) == 0) {
            p += 3;
            n -= 3;
            off += 3;
        }
    }
    if (n == 0)
        return dispatch(s, true);
    if (p[0] == ':')
        return TW_OK; /* comment */
    if (!s->ev_open) {
        s->ev_open = true;
        s->ev_off = off;
    }
    if (s->ev_skip)
        return TW_OK;
    const char *colon = memchr(p, ':', n);
    size_t flen = colon ? (size_t)(colon - p) : n;
    const char *v = colon ? colon + 1 : p + n;
    size_t vlen = colon ? n - flen - 1 : 0;
    if (vlen && v[0] == ' ') {
        v++;
        vlen--;
    }
    tw_status st = TW_OK;
    bool is_data = flen == 4 && memcmp(p, "data", 4) == 0;
    if (!is_data) {
        /* A NUL outside a data value: the line is not a field the stream
         * knows (or, in `id`, is ignored), so what it carried is lost. */
        const char *nul = memchr(p, '\0', n);
        if (nul && (st = diag(s, TW_D_SSE_NUL, off + (uint64_t)(nul - p))) != TW_OK)
            return st;
    }
    if (is_data) {
        if (s->data.len + vlen > s->max_event) {
            reset_event(s);
            s->ev_open = true;
            s->ev_skip = true;
            return diag(s, TW_D_SSE_EVENT_TOO_LARGE, s->ev_off);
        }
        st = tw_buf_append(&s->data, v, vlen);
        if (st == TW_OK)
            st = tw_buf_putc(&s->data, '\n');
        s->has_data = true;
    } else if (flen == 5 && memcmp(p, "event", 5) == 0) {
        tw_buf_reset(&s->type);
        st = tw_buf_append(&s->type, v, vlen);
    } else if (flen == 2 && memcmp(p, "id", 2) == 0) {
        if (!memchr(v, '\0', vlen)) {
            tw_buf_reset(&s->id);
            st = tw_buf_append(&s->id, v, vlen);
        }
    } else if (flen == 5 && memcmp(p, "retry", 5) == 0) {
        if (all_digits(v, vlen)) {
            long long ms = 0;
            for (size_t i = 0; i < vlen; i++)
                ms = ms * 10 + (v[i] - '0');
            s->retry_ms = ms;
        }
    }
    return st;
}

/* A line over max_line: reported once at its first byte; its event is
 * dropped, since a data line is missing from it. */
static tw_status line_too_long(tw_sse *s, uint64_t line_off)
{
    s->line_skip = true;
    s->first_line = false;
    if (!s->ev_open) {
        s->ev_open = true;
        s->ev_off = line_off;
    }
    s->ev_skip = true;
    tw_buf_reset(&s->data);
    return diag(s, TW_D_SSE_LINE_TOO_LONG, line_off);
}

/* Hold part of a line that is not finished in this feed. */
static tw_status hold(tw_sse *s, const char *p, size_t n, uint64_t off)
{
    if (!s->line_held) {
        s->line_held = true;
        s->line_off = off;
    }
    if (s->line_skip)
        return TW_OK;
    if (s->line.len + n > s->max_line) {
        tw_buf_free(&s->line);
        return line_too_long(s, s->line_off);
    }
    return tw_buf_append(&s->line, p, n);
}

/* A line ended here: the held part (if any) plus p[0, n). */
static tw_status end_line(tw_sse *s, const char *p, size_t n, uint64_t off)
{
    tw_status st = TW_OK;
    if (s->line_held) {
        st = hold(s, p, n, off);
        if (st == TW_OK && !s->line_skip)
            st = process_line(s, s->line.data ? s->line.data : "", s->line.len, s->line_off);
        s->line_held = false;
        s->line_skip = false;
        tw_buf_reset(&s->line);
        return st;
    }
    if (n > s->max_line) {
        st = line_too_long(s, off);
        s->line_skip = false;
        return st;
    }
    return process_line(s, p, n, off);
}

tw_status tw_sse_feed(tw_sse *s, const char *buf, size_t len)
{
    if (s->done)
        return TW_ERR_STATE;
    uint64_t base = s->fed;
    size_t pos = 0, lf_at = 0, cr_at = 0;
    bool lf_known = false, cr_known = false;
    tw_status st = TW_OK;
    while (st == TW_OK && pos < len) {
        if (s->cr_seen) {
            s->cr_seen = false;
            if (buf[pos] == '\n') {
                pos++;
                continue;
            }
        }
        /* next line end, each search resumed only when passed: linear */
        if (!lf_known || lf_at < pos) {
            const char *q = memchr(buf + pos, '\n', len - pos);
            lf_at = q ? (size_t)(q - buf) : len;
            lf_known = true;
        }
        if (!cr_known || cr_at < pos) {
            const char *q = memchr(buf + pos, '\r', len - pos);
            cr_at = q ? (size_t)(q - buf) : len;
            cr_known = true;
        }
        size_t e = lf_at < cr_at ? lf_at : cr_at;
        if (e == len) {
            st = hold(s, buf + pos, len - pos, base + pos);
            pos = len;
            break;
        }
        s->cr_seen = buf[e] == '\r';
        st = end_line(s, buf + pos, e - pos, base + pos);
        pos = e + 1;
    }
    s->fed = base + len;
    if (st != TW_OK)
        s->done = true;
    return st;
}

tw_status tw_sse_finish(tw_sse *s)
{
    if (s->done) {
        tw_sse_release(s);
        return TW_ERR_STATE;
    }
    tw_status st = TW_OK;
    s->done = true;
    if (s->flush_at_end) {
        if (s->line_held)
            st = end_line(s, "", 0, s->fed);
        if (st == TW_OK && s->ev_open)
            st = dispatch(s, false);
    }
    s->line_held = false;
    reset_event(s);
    tw_sse_release(s);
    return st;
}
