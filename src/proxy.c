/*
 * The prompt-only proxy (docs/formats/proxy.md): the Tool-Use Protocol prompt encoder
 * and the model-output decoder. The decoder is a thin layer in front of the
 * Hermes decoder (text.c) that cuts <tool_result> blocks out of the input;
 * everything else follows docs/text-formats.md. Rules: docs/formats/proxy.md.
 */
#include "alloc.h"
#include "toolwire/proxy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "text_int.h"
#include "wire_common.h"
#include "tw_macros.h"

typedef struct tw_proxy_cut {
    uint64_t fed_pos; /* bytes given to the Hermes decoder before the cut */
    uint64_t removed; /* bytes removed up to and including this cut */
} tw_proxy_cut;

/*
 * The streaming state (opaque in toolwire/proxy.h): a layer that removes
 * <tool_result> blocks, in front of the Hermes decoder (tw_text_dec).
 * Memory: the Hermes decoder's bounds, one opening tag (TW_PROXY_TAG_MAX)
 * and 16 bytes per removed block.
 */
struct tw_proxy_dec {
    tw_text_dec text;
    tw_limits L;
    tw_event_fn fn;
    void *user;
    uint64_t in;  /* raw bytes accepted: the offset of the next byte */
    uint64_t fed; /* bytes given to the Hermes decoder */
    int state;    /* outside, in an opening tag, inside a block */
    char tag[TW_PROXY_TAG_MAX];
    size_t tag_len;
    uint64_t tag_off;   /* offset of tag[0] */
    size_t close_match; /* bytes of </tool_result> matched inside a block */
    uint64_t block_off; /* offset of the open block's '<' */
    char id[128];       /* the open block's id attribute (cut to fit) */
    tw_proxy_cut *cuts;
    size_t ncuts, cap_cuts;
    uint64_t removed;
    tw_diag_list errors; /* tool_result_in_output, merged at finish */
    bool too_large;
    bool finished;
    tw_status stop; /* a callback's status that stopped the decode; TW_OK while none */
};

static const char RES_OPEN[] = "<tool_result";    /* 12 bytes */
static const char RES_CLOSE[] = "</tool_result>"; /* 14 bytes */
#define RES_OPEN_LEN (sizeof RES_OPEN - 1)
#define RES_CLOSE_LEN (sizeof RES_CLOSE - 1)

enum { P_OUT = 0, P_TAG, P_IN };
enum { V_MORE = 0, V_NOT, V_TAG };

/* ===================== decoder: offset mapping and events ===================== */

static int64_t map_off(const tw_proxy_dec *d, int64_t x)
{
    if (x < 0 || d->ncuts == 0)
        return x;
    size_t lo = 0, hi = d->ncuts; /* first cut with fed_pos > x */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->cuts[mid].fed_pos <= (uint64_t)x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? x + (int64_t)d->cuts[lo - 1].removed : x;
}

static void fire(tw_proxy_dec *d, const tw_event *ev)
{
    tw_event_deliver(d->fn, d->user, &d->stop, ev);
}

/* Events of the Hermes decoder, with offsets into the raw input; a stop
 * stops both layers. */
static tw_status relay(void *user, const tw_event *ev)
{
    tw_proxy_dec *d = user;
    tw_event e = *ev;
    tw_diag g;
    tw_call c;
    if (ev->diag) {
        g = *ev->diag;
        g.offset = map_off(d, g.offset);
        e.diag = &g;
    }
    if (ev->call) {
        c = *ev->call;
        c.offset = map_off(d, c.offset);
        e.call = &c;
    }
    fire(d, &e);
    return d->stop;
}

static tw_status text_out(tw_proxy_dec *d, const char *p, size_t n)
{
    if (!n)
        return TW_OK;
    d->fed += n;
    return tw_text_feed(&d->text, p, n);
}

static tw_status add_error(tw_proxy_dec *d, int64_t off, const char *msg)
{
    size_t before = d->errors.len;
    TRY(tw_diag_add(&d->errors, TW_D_TOOL_RESULT_IN_OUTPUT, off, msg));
    if (d->errors.len > before) {
        tw_event ev = {TW_EV_ERROR, NULL, 0, NULL, &d->errors.items[d->errors.len - 1]};
        fire(d, &ev);
    }
    return TW_OK;
}

/* ===================== decoder: the <tool_result> layer ===================== */

static bool tag_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Verdict on the tag bytes held so far (the last byte is the new one). */
static int classify(const char *t, size_t n)
{
    if (n <= RES_OPEN_LEN)
        return t[n - 1] == RES_OPEN[n - 1] ? V_MORE : V_NOT;
    char c = t[n - 1];
    if (n == RES_OPEN_LEN + 1 && !tag_space(c) && c != '>' && c != '/')
        return V_NOT;
    if (c == '>')
        return V_TAG;
    return n >= TW_PROXY_TAG_MAX ? V_NOT : V_MORE;
}

/* The id="..." (or id='...') attribute of a complete opening tag. */
static void tag_id(const char *t, size_t n, char *id, size_t idlen)
{
    id[0] = '\0';
    for (size_t i = RES_OPEN_LEN; i + 4 <= n; i++) {
        if (!tag_space(t[i - 1]) || memcmp(t + i, "id=", 3) != 0 ||
            (t[i + 3] != '"' && t[i + 3] != '\''))
            continue;
        char q = t[i + 3];
        size_t k = 0;
        for (size_t j = i + 4; j < n && t[j] != q && k + 1 < idlen; j++)
            id[k++] = (unsigned char)t[j] < 0x20 ? '?' : t[j];
        id[k] = '\0';
        return;
    }
}

static tw_status push_cut(tw_proxy_dec *d)
{
    if (d->ncuts == d->cap_cuts) {
        size_t nc = d->cap_cuts ? d->cap_cuts * 2 : 8;
        tw_proxy_cut *n = tw_realloc(d->cuts, nc * sizeof *n);
        if (!n)
            return TW_ERR_NOMEM;
        d->cuts = n;
        d->cap_cuts = nc;
    }
    d->cuts[d->ncuts].fed_pos = d->fed;
    d->cuts[d->ncuts].removed = d->removed;
    d->ncuts++;
    return TW_OK;
}

/* A complete opening tag was read: the block starts (or, self-closing, ends). */
static tw_status block_open(tw_proxy_dec *d)
{
    d->block_off = d->tag_off;
    tag_id(d->tag, d->tag_len, d->id, sizeof d->id);
    d->removed += d->tag_len;
    TRY(push_cut(d));
    bool self_closing = d->tag_len >= 2 && d->tag[d->tag_len - 2] == '/';
    d->tag_len = 0;
    if (self_closing) {
        d->state = P_OUT;
        char m[200];
        snprintf(m, sizeof m, "model output held a <tool_result> block (id \"%.100s\"); dropped",
                 d->id);
        return add_error(d, (int64_t)d->block_off, m);
    }
    d->state = P_IN;
    d->close_match = 0;
    return TW_OK;
}

/*
 * The bytes of one feed, seen as a logical stream: bytes held from earlier
 * feeds (an undecided opening tag) followed by the new chunk. A refused tag
 * is re-read from its second byte, so the held bytes must stay readable.
 */
typedef struct source {
    const char *prev;
    size_t nprev;
    uint64_t prev_off;
    const char *chunk;
    size_t nchunk;
    uint64_t chunk_off;
} source;

static char src_at(const source *s, uint64_t off)
{
    return off < s->chunk_off ? s->prev[off - s->prev_off] : s->chunk[off - s->chunk_off];
}

static tw_status src_text(tw_proxy_dec *d, const source *s, uint64_t lo, uint64_t hi)
{
    if (lo < s->chunk_off) {
        uint64_t e = hi < s->chunk_off ? hi : s->chunk_off;
        TRY(text_out(d, s->prev + (lo - s->prev_off), (size_t)(e - lo)));
        lo = e;
    }
    if (lo < hi)
        TRY(text_out(d, s->chunk + (lo - s->chunk_off), (size_t)(hi - lo)));
    return TW_OK;
}

static tw_status run(tw_proxy_dec *d, const source *s)
{
    uint64_t pos = s->nprev ? s->prev_off : s->chunk_off;
    uint64_t end = s->chunk_off + s->nchunk;
    while (pos < end) {
        if (d->state == P_OUT) {
            /* pass text on up to the next '<' that may open a tag: one
             * followed by "tool_result", or one whose bytes up to the end
             * of the chunk begin it (any other '<' would be refused as a
             * tag and passed on as text, so the text layer gets it in one
             * piece with its neighbours) */
            uint64_t q = pos;
            if (q >= s->chunk_off) {
                const char *lt = s->chunk + (q - s->chunk_off), *ce = s->chunk + s->nchunk;
                while ((lt = memchr(lt, '<', (size_t)(ce - lt)))) {
                    size_t rest = (size_t)(ce - lt);
                    if (memcmp(lt, RES_OPEN, rest < RES_OPEN_LEN ? rest : RES_OPEN_LEN) == 0)
                        break;
                    lt++;
                }
                q = lt ? s->chunk_off + (uint64_t)(lt - s->chunk) : end;
            } else {
                while (q < end && src_at(s, q) != '<')
                    q++;
            }
            TRY(src_text(d, s, pos, q));
            pos = q;
            if (pos < end) {
                d->state = P_TAG;
                d->tag_len = 0;
                d->tag_off = pos;
            }
            continue;
        }
        if (d->state == P_TAG) {
            d->tag[d->tag_len++] = src_at(s, pos++);
            int v = classify(d->tag, d->tag_len);
            if (v == V_TAG) {
                TRY(block_open(d));
            } else if (v == V_NOT) {
                /* not a tag: its first byte is text; re-read from the second */
                TRY(src_text(d, s, d->tag_off, d->tag_off + 1));
                pos = d->tag_off + 1;
                d->tag_len = 0;
                d->state = P_OUT;
            }
            continue;
        }
        /* P_IN: drop bytes up to and including </tool_result> */
        char c = src_at(s, pos++);
        d->removed++;
        if (c == RES_CLOSE[d->close_match]) {
            if (++d->close_match == RES_CLOSE_LEN) {
                d->cuts[d->ncuts - 1].removed = d->removed;
                d->state = P_OUT;
                char m[200];
                snprintf(m, sizeof m,
                         "model output held a <tool_result> block (id \"%.100s\"); dropped", d->id);
                TRY(add_error(d, (int64_t)d->block_off, m));
            }
        } else {
            d->close_match = c == '<' ? 1 : 0;
        }
        if (d->state == P_IN)
            d->cuts[d->ncuts - 1].removed = d->removed;
    }
    return TW_OK;
}

static tw_status proxy_init(tw_proxy_dec *d, const tw_decode_opts *o, tw_event_fn fn, void *user)
{
    memset(d, 0, sizeof *d);
    tw_limits_resolve(&d->L, o ? &o->limits : NULL);
    d->fn = fn;
    d->user = user;
    d->errors.max = d->L.max_diags;
    return tw_text_init(&d->text, TW_TEXT_HERMES, o, fn ? relay : NULL, d);
}

tw_status tw_proxy_dec_feed(tw_proxy_dec *d, const char *buf, size_t len)
{
    if (d->finished)
        return TW_ERR_STATE;
    if (d->stop != TW_OK)
        return d->stop;
    len = tw_input_clip(&d->L, d->in, len, &d->too_large);
    if (len == 0)
        return TW_OK;
    char held[TW_PROXY_TAG_MAX];
    source s = {held, 0, 0, buf, len, d->in};
    if (d->state == P_TAG) {
        /* re-read the undecided tag together with the new bytes */
        memcpy(held, d->tag, d->tag_len);
        s.nprev = d->tag_len;
        s.prev_off = d->tag_off;
        d->tag_len = 0;
        d->state = P_OUT;
    }
    d->in += len;
    tw_status st = run(d, &s);
    if (st != TW_OK && d->stop == TW_OK)
        d->stop = st; /* a failure ends the decode: later feeds and finish fail too */
    return st == TW_OK ? d->stop : st;
}

/* Merge two offset-sorted lists into *a (stable: a's entries first on ties). */
static tw_status merge(tw_diag_list *a, tw_diag_list *b)
{
    tw_diag_list m;
    memset(&m, 0, sizeof m);
    m.max = a->max;
    m.dropped = a->dropped + b->dropped;
    size_t i = 0, j = 0;
    tw_status st = TW_OK;
    while (st == TW_OK && (i < a->len || j < b->len)) {
        const tw_diag *x;
        if (j >= b->len || (i < a->len && tw_diag_cmp(&a->items[i], &b->items[j]) <= 0))
            x = &a->items[i++];
        else
            x = &b->items[j++];
        st = tw_diag_add(&m, x->code, x->offset, x->message);
    }
    if (st != TW_OK) {
        tw_diag_list_free(&m);
        return st;
    }
    tw_diag_list_free(a);
    *a = m;
    return TW_OK;
}

tw_status tw_proxy_dec_finish(tw_proxy_dec *d, tw_result *out)
{
    if (d->finished) {
        tw_result_init(out, &d->L); /* *out is empty on every failure */
        return TW_ERR_STATE;
    }
    d->finished = true;
    tw_status st = d->stop;               /* a callback stopped the decode */
    if (st == TW_OK && d->state == P_TAG) /* an undecided tag at the end is text */
        st = text_out(d, d->tag, d->tag_len);
    else if (st == TW_OK && d->state == P_IN) {
        char m[220];
        snprintf(m, sizeof m,
                 "unterminated <tool_result> block (id \"%.100s\"); the rest of the input was "
                 "dropped",
                 d->id);
        st = add_error(d, (int64_t)d->block_off, m);
    }
    d->state = P_OUT;
    tw_result res;
    memset(&res, 0, sizeof res);
    if (st == TW_OK)
        st = tw_text_finish(&d->text, &res);
    else
        tw_text_release(&d->text);
    if (st == TW_OK) {
        for (size_t i = 0; i < res.errors.len; i++)
            res.errors.items[i].offset = map_off(d, res.errors.items[i].offset);
        for (size_t i = 0; i < res.warnings.len; i++)
            res.warnings.items[i].offset = map_off(d, res.warnings.items[i].offset);
        for (size_t i = 0; i < res.msg.ncalls; i++)
            res.msg.calls[i].offset = map_off(d, res.msg.calls[i].offset);
        st = merge(&res.errors, &d->errors);
    }
    if (st == TW_OK && d->too_large) {
        st = tw_diag_add(&res.errors, TW_D_INPUT_TOO_LARGE, (int64_t)d->L.max_input_bytes, NULL);
        if (st == TW_OK && res.errors.len) {
            tw_event ev = {TW_EV_ERROR, NULL, 0, NULL, &res.errors.items[res.errors.len - 1]};
            fire(d, &ev);
        }
    }
    if (st == TW_OK)
        st = d->stop;
    if (st == TW_OK) {
        *out = res;
    } else {
        tw_result_free(&res);
        tw_result_init(out, &d->L);
    }
    return st;
}

static void proxy_release(tw_proxy_dec *d)
{
    tw_text_release(&d->text);
    tw_free(d->cuts);
    d->cuts = NULL;
    d->ncuts = d->cap_cuts = 0;
    tw_diag_list_free(&d->errors);
}

/* ===================== the opaque decoder ===================== */

tw_proxy_dec *tw_proxy_dec_new(const tw_decode_opts *o, tw_event_fn fn, void *user)
{
    tw_proxy_dec *d = tw_malloc(sizeof *d);
    if (d && proxy_init(d, o, fn, user) != TW_OK) {
        tw_proxy_dec_free(d);
        d = NULL;
    }
    return d;
}

tw_status tw_proxy_dec_reset(tw_proxy_dec *d, const tw_decode_opts *o, tw_event_fn fn, void *user)
{
    tw_buf *b[TEXT_NBUFS], keep[TEXT_NBUFS]; /* kept: the Hermes decoder's buffers */
    tw_text_bufs(&d->text, b);
    tw_bufs_detach(b, keep, TEXT_NBUFS);
    proxy_release(d);
    tw_status st = proxy_init(d, o, fn, user);
    tw_bufs_attach(b, keep, TEXT_NBUFS);
    return st;
}

void tw_proxy_dec_free(tw_proxy_dec *d)
{
    if (!d)
        return;
    proxy_release(d);
    tw_free(d);
}

TW_DECODER_OPS(g, tw_proxy_dec, tw_proxy_dec)

static void g_release(void *d)
{
    proxy_release(d);
}

tw_status tw_proxy_output_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                 tw_result *out)
{
    tw_proxy_dec d;
    return tw_decode_batch_capped(o, &d, proxy_init(&d, o, NULL, NULL), g_feed, g_finish, g_release,
                                  buf, len, out);
}

/* ===================== encoder: the Tool-Use Protocol prompt ===================== */

static const char PROTOCOL_HEAD[] =
    "## Tool-Use Protocol\n"
    "\n"
    "You are talking to a client program that runs tools on your behalf. You never run a "
    "tool yourself: you write a request, the client runs the tool and sends you its result "
    "in a later message.\n"
    "\n"
    "To request a tool, write this block with nothing around the tags (no code fence):\n"
    "\n"
    "<tool_call>\n"
    "{\"name\": \"<tool-name>\", \"arguments\": {<arguments as a JSON object>}}\n"
    "</tool_call>\n"
    "\n"
    "Rules:\n"
    "- `arguments` must be a JSON object that satisfies the tool's parameter schema.\n"
    "- Write at most one tool call block per reply, then stop and wait for the result.\n"
    "- The block is the call: do not announce it in prose.\n"
    "- Results come back as <tool_result id=\"...\">...</tool_result> blocks; never write one "
    "yourself.\n"
    "- If no listed tool fits, answer in plain text; never invent a tool name.\n"
    "\n"
    "### Available tools";

tw_status tw_proxy_policy_write(tw_buf *out, tw_choice choice, const char *name)
{
    switch (choice) {
    case TW_CHOICE_NONE:
        return tw_buf_puts(out, "Do not call any tool in this turn; answer in plain text only.");
    case TW_CHOICE_REQUIRED:
        return tw_buf_puts(out, "You must call one of the listed tools in this turn; do not "
                                "answer without a tool call.");
    case TW_CHOICE_NAMED:
        TRY(tw_buf_puts(out, "You must call the tool named \""));
        TRY(tw_buf_puts(out, name ? name : ""));
        return tw_buf_puts(out, "\" in this turn, and no other tool.");
    default:
        return tw_buf_puts(out, "Call a tool only when one is relevant to the request; "
                                "otherwise answer directly.");
    }
}

static tw_status write_protocol(tw_buf *b, const tw_request *r)
{
    TRY(PUTS(b, "<system>\n"));
    TRY(PUTS(b, PROTOCOL_HEAD));
    for (size_t i = 0; i < r->ntools; i++) {
        const tw_tool *t = &r->tools[i];
        TRY(PUTS(b, "\n- **"));
        TRY(tw_buf_puts(b, t->name ? t->name : ""));
        TRY(PUTS(b, "**"));
        if (t->description && t->description[0]) {
            TRY(tw_buf_puts(b, " \xE2\x80\x94 ")); /* em dash */
            TRY(tw_buf_puts(b, t->description));
        }
        if (t->parameters) {
            TRY(PUTS(b, "\n  parameters: "));
            TRY(tw_json_write(b, t->parameters, TW_JSON_COMPACT));
        }
    }
    TRY(PUTS(b, "\n\n### Tool-choice policy for this turn\n"));
    TRY(tw_proxy_policy_write(b, r->choice, r->choice_name));
    return PUTS(b, "\n</system>");
}

/* An attribute value: & < > " escaped so the tag stays one tag. */
static tw_status put_attr(tw_buf *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': TRY(PUTS(b, "&amp;")); break;
        case '<': TRY(PUTS(b, "&lt;")); break;
        case '>': TRY(PUTS(b, "&gt;")); break;
        case '"': TRY(PUTS(b, "&quot;")); break;
        default: TRY(tw_buf_putc(b, *s)); break;
        }
    }
    return TW_OK;
}

static tw_status write_assistant(tw_buf *b, const tw_message *m)
{
    bool any = false;
    if (m->content.len) {
        TRY(PUTS(b, "<previous_response>\n"));
        TRY(tw_buf_append(b, m->content.data, m->content.len));
        TRY(PUTS(b, "\n</previous_response>"));
        any = true;
    }
    for (size_t i = 0; i < m->ncalls; i++) {
        const tw_call *c = &m->calls[i];
        if (any)
            TRY(tw_buf_putc(b, '\n'));
        any = true;
        TRY(PUTS(b, "<tool_call>\n{\"name\":"));
        TRY(tw_json_write_str(b, c->name ? c->name : "", c->name ? strlen(c->name) : 0,
                              TW_JSON_COMPACT));
        TRY(PUTS(b, ",\"arguments\":"));
        if (c->arguments)
            TRY(tw_json_write(b, c->arguments, TW_JSON_COMPACT));
        else
            TRY(PUTS(b, "{}"));
        if (c->id) {
            TRY(PUTS(b, ",\"id\":"));
            TRY(tw_json_write_str(b, c->id, strlen(c->id), TW_JSON_COMPACT));
        }
        TRY(PUTS(b, "}\n</tool_call>"));
    }
    return TW_OK;
}

static tw_status render_prompt(tw_buf *b, const tw_request *r, const tw_encode_opts *o)
{
    bool first = true, thinking_dropped = false;
#define PART()                                                                                     \
    do {                                                                                           \
        if (!first)                                                                                \
            TRY(PUTS(b, "\n\n"));                                                                  \
        first = false;                                                                             \
    } while (0)
    if (r->ntools) {
        PART();
        TRY(write_protocol(b, r));
    }
    for (size_t i = 0; i < r->nmessages; i++) {
        const tw_message *m = &r->messages[i];
        PART();
        switch (m->role) {
        case TW_ROLE_SYSTEM:
            TRY(PUTS(b, "<system>\n"));
            TRY(tw_buf_append(b, m->content.data ? m->content.data : "", m->content.len));
            TRY(PUTS(b, "\n</system>"));
            break;
        case TW_ROLE_USER:
            TRY(tw_buf_append(b, m->content.data ? m->content.data : "", m->content.len));
            break;
        case TW_ROLE_ASSISTANT:
            thinking_dropped |= m->thinking.len > 0;
            TRY(write_assistant(b, m));
            break;
        case TW_ROLE_TOOL:
            TRY(PUTS(b, "<tool_result id=\""));
            TRY(put_attr(b, m->tool_call_id));
            TRY(tw_buf_puts(b, m->is_error ? "\" is_error=\"true\">\n" : "\">\n"));
            TRY(tw_buf_append(b, m->content.data ? m->content.data : "", m->content.len));
            TRY(PUTS(b, "\n</tool_result>"));
            break;
        }
    }
#undef PART
    if (thinking_dropped && o && o->warnings)
        TRY(tw_diag_add(o->warnings, TW_D_NOT_CARRIED, -1,
                        "proxy-prompt: thinking of history messages not carried"));
    return TW_OK;
}

tw_status tw_proxy_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!r || !out)
        return TW_ERR_INVALID;
    tw_limits L;
    tw_limits_resolve(&L, o ? &o->limits : NULL);
    tw_buf b = {0};
    b.max = L.max_output_bytes;
    tw_status st = render_prompt(&b, r, o);
    if (st == TW_OK) {
        /* the whole prompt is trimmed */
        const char *p = b.data ? b.data : "";
        size_t n = b.len;
        tw_trim(&p, &n);
        st = tw_buf_append(out, p, n);
    }
    tw_buf_free(&b);
    return st;
}

/* ===================== registry glue ===================== */

const tw_format_ops tw_format_proxy = {
    "proxy",
    "prompt-only proxy output: <tool_call> blocks; <tool_result> blocks cut out",
    tw_proxy_output_decode,
    g_new,
    g_feed,
    g_finish,
    g_reset,
    g_free,
    tw_format_recycle_free};
const tw_encoder_ops tw_encoder_proxy_prompt = {
    "proxy-prompt", "neutral request -> the proxy's Tool-Use Protocol prompt", TW_ENC_REQUEST,
    tw_proxy_prompt_encode, tw_unsupported_encode_result};
