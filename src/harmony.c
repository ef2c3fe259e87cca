/*
 * Harmony, the output dialect of OpenAI gpt-oss (docs/formats/harmony.md):
 * messages `[<|start|>ROLE][ to=R]<|channel|>CH[ to=R][ [<|constrain|>]CT]
 * <|message|>BODY` ended by <|end|>, <|call|> or <|return|>. A dialect
 * module over the push engine (dialect.h): the scan walks the messages, one
 * state a time, and keeps every position as an offset.
 */
#include "toolwire/harmony.h"

#include <string.h>

#include "dialect.h"
#include "formats.h"
#include "toolwire/json.h"

/* the special tokens */
enum {
    M_START,
    M_END,
    M_CALL,
    M_RETURN,
    M_CHANNEL,
    M_MESSAGE,
    M_CONSTRAIN,
};
static const tw_dl_mark MARKS[] = {
    TW_DL_MARK("<|start|>"),     TW_DL_MARK("<|end|>"),     TW_DL_MARK("<|call|>"),
    TW_DL_MARK("<|return|>"),    TW_DL_MARK("<|channel|>"), TW_DL_MARK("<|message|>"),
    TW_DL_MARK("<|constrain|>"),
};
#define NMARKS (sizeof MARKS / sizeof MARKS[0])
/* what ends a header: <|message|>, or a token that cannot stand in one */
static const tw_dl_mark HEAD_END[] = {
    TW_DL_MARK("<|message|>"), TW_DL_MARK("<|start|>"),  TW_DL_MARK("<|end|>"),
    TW_DL_MARK("<|call|>"),    TW_DL_MARK("<|return|>"),
};
/* what ends a call's body (its JSON is read whole) */
static const tw_dl_mark CALL_END[] = {
    TW_DL_MARK("<|call|>"),  TW_DL_MARK("<|end|>"),     TW_DL_MARK("<|return|>"),
    TW_DL_MARK("<|start|>"), TW_DL_MARK("<|channel|>"),
};

typedef enum hm_state {
    S_MSG = 0, /* between messages */
    S_BARE,    /* text outside any message (a header-less output): content */
    S_HEAD,    /* inside a header, waiting for <|message|> */
    S_BODY,    /* inside a message's body */
} hm_state;

typedef enum hm_kind {
    K_CONTENT = 0, /* final, or commentary without a recipient */
    K_THINK,       /* analysis */
    K_CALL,        /* to=functions.NAME */
    K_DROP,        /* a body the result has no place for (warned) */
} hm_kind;

typedef struct hm_dec {
    tw_dl dl; /* first: the engine's */
    hm_state st;
    hm_kind kind;
    bool role;         /* the header opened with <|start|>: a role comes first */
    uint64_t ms;       /* the message's start, its <|start|> included: diagnostics' offset */
    uint64_t hs;       /* its header's start (after <|start|>) */
    uint64_t bs;       /* the body's start */
    uint64_t name_off; /* K_CALL: the function's name */
    size_t name_len;
    uint64_t resume; /* the running search's resume point (0: none) */
} hm_dec;

/* ---- the header ---- */

typedef struct hm_head {
    const char *role;
    size_t role_len;
    const char *chan;
    size_t chan_len;
    const char *to;
    size_t to_len;
    bool junk; /* a word the grammar has no place for */
} hm_head;

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The word at p[i..n): up to white space or '<' (the next token). */
static size_t word_end(const char *p, size_t i, size_t n)
{
    while (i < n && !is_space(p[i]) && p[i] != '<')
        i++;
    return i;
}

static bool at_mark(const char *p, size_t i, size_t n, int m)
{
    return n - i >= MARKS[m].n && memcmp(p + i, MARKS[m].s, MARKS[m].n) == 0;
}

/* Read the header p[0, n): role (when it opened with <|start|>), recipient,
 * channel; a content type (`json`, `<|constrain|>json`) is read and not
 * kept: every call body is read as JSON. */
static void parse_head(const char *p, size_t n, bool role, hm_head *h)
{
    memset(h, 0, sizeof *h);
    size_t i = 0;
    while (i < n && is_space(p[i]))
        i++;
    if (role && i < n && p[i] != '<' && !(n - i >= 3 && memcmp(p + i, "to=", 3) == 0)) {
        size_t e = word_end(p, i, n);
        h->role = p + i;
        h->role_len = e - i;
        i = e;
    }
    while (i < n) {
        if (is_space(p[i])) {
            i++;
        } else if (n - i >= 3 && memcmp(p + i, "to=", 3) == 0) {
            size_t e = word_end(p, i + 3, n);
            if (!h->to) {
                h->to = p + i + 3;
                h->to_len = e - i - 3;
            }
            i = e;
        } else if (at_mark(p, i, n, M_CHANNEL)) {
            i += MARKS[M_CHANNEL].n;
            size_t e = word_end(p, i, n);
            if (!h->chan) {
                h->chan = p + i;
                h->chan_len = e - i;
            }
            i = e;
        } else if (at_mark(p, i, n, M_CONSTRAIN)) {
            i = word_end(p, i + MARKS[M_CONSTRAIN].n, n);
        } else if (h->chan && p[i] != '<') {
            i = word_end(p, i, n); /* the content type (`commentary json`) */
        } else {
            h->junk = true;
            i = p[i] == '<' ? i + 1 : word_end(p, i, n);
        }
    }
}

static bool eq(const char *p, size_t n, const char *lit)
{
    return n == strlen(lit) && memcmp(p, lit, n) == 0;
}

static const char FN[] = "functions.";

/* What the message's body is, by its header [hs, he); warns for what the
 * result has no place for. */
static tw_status classify(hm_dec *h, uint64_t he)
{
    tw_dl *d = &h->dl;
    const char *p = tw_dl_at(d, h->hs);
    size_t n = (size_t)(he - h->hs);
    hm_head hd;
    parse_head(p, n, h->role, &hd);
    int64_t off = (int64_t)h->ms;
    h->kind = K_DROP;
    if (hd.role && !eq(hd.role, hd.role_len, "assistant")) {
        bool tool = hd.role_len > 10 && memcmp(hd.role, FN, 10) == 0;
        return tw_dl_diag(d, false, tool ? TW_D_TOOL_RESULT_IN_OUTPUT : TW_D_RESPONSE_SHAPE, off,
                          tool
                              ? "a tool's message (role functions.*) in the model's output; dropped"
                              : "a message of a role other than assistant; dropped");
    }
    if (hd.junk)
        return tw_dl_diag(d, false, TW_D_RESPONSE_SHAPE, off,
                          "a message header that does not read as Harmony's; its body dropped");
    if (hd.to) {
        if (hd.to_len >= 10 && memcmp(hd.to, FN, 10) == 0) {
            h->kind = K_CALL;
            h->name_off = h->hs + (uint64_t)(hd.to - p) + 10;
            h->name_len = hd.to_len - 10;
            return TW_OK;
        }
        return tw_dl_diag(d, false, TW_D_ITEM_NOT_CARRIED, off,
                          "a message to a built-in tool (not functions.*); dropped");
    }
    if (!hd.chan || eq(hd.chan, hd.chan_len, "final") || eq(hd.chan, hd.chan_len, "commentary")) {
        h->kind = K_CONTENT;
        return TW_OK;
    }
    if (eq(hd.chan, hd.chan_len, "analysis")) {
        h->kind = K_THINK;
        return TW_OK;
    }
    return tw_dl_diag(d, false, TW_D_RESPONSE_SHAPE, off,
                      "a message on a channel other than analysis, commentary or final; dropped");
}

/* ---- calls ---- */

static bool json_complete(const tw_dl *d, const char *p, size_t n)
{
    cJSON *v = NULL;
    tw_error e;
    bool ok = tw_json_parse(p, n, d->L.max_depth, &v, &e) == TW_OK;
    cJSON_Delete(v);
    return ok;
}

/* The call whose body is [bs, be): closed by <|call|> (closed), by another
 * token or the end of input (not closed). */
static tw_status take_call(hm_dec *h, uint64_t be, bool closed, bool at_end)
{
    tw_dl *d = &h->dl;
    const char *name = tw_dl_at(d, h->name_off);
    const char *a = tw_dl_at(d, h->bs);
    size_t n = (size_t)(be - h->bs);
    size_t i = 0;
    while (i < n && is_space(a[i]))
        i++;
    const char *args = i == n ? NULL : a; /* an empty body: no arguments */
    int64_t off = (int64_t)h->ms;
    if (!closed) {
        bool take = false;
        if (at_end && d->o.finish == TW_FINISH_STOP_SEQUENCE)
            take = true; /* the server stopped on <|call|> and consumed it */
        else if (!at_end || d->o.finish == TW_FINISH_LENGTH)
            take = !args || json_complete(d, a, n);
        if (!take)
            return tw_dl_diag(d, true, TW_D_TOOL_CALL_UNTERMINATED, off,
                              at_end ? "a call message cut by the end of input; refused"
                                     : "a call message not ended by <|call|>, its JSON "
                                       "incomplete; refused");
        if (!(at_end && d->o.finish == TW_FINISH_STOP_SEQUENCE)) {
            tw_status st = tw_dl_diag(d, false, TW_D_TOOL_CALL_UNTERMINATED, off,
                                      "a call message not ended by <|call|>; its complete "
                                      "JSON taken");
            if (st != TW_OK)
                return st;
        }
    }
    return tw_dl_call(d, name, h->name_len, NULL, 0, args, args ? n : 0, off);
}

/* ---- the scan ---- */

static void to_msg(hm_dec *h, uint64_t pos)
{
    h->st = S_MSG;
    h->dl.pos = pos;
    h->resume = 0;
}

/* S_MSG: what starts here. 1 decided, 0 wait. */
static int scan_msg(hm_dec *h, bool final)
{
    tw_dl *d = &h->dl;
    uint64_t end = tw_dl_end(d);
    while (d->pos < end && is_space(*tw_dl_at(d, d->pos)))
        d->pos++;
    if (d->pos == end)
        return 0;
    int r = tw_dl_starts(d, d->pos, MARKS[M_START].s, MARKS[M_START].n, final);
    if (r < 0)
        return 0;
    h->ms = d->pos;
    if (r > 0) {
        d->pos += MARKS[M_START].n;
        h->st = S_HEAD;
        h->role = true;
        h->hs = d->pos;
        h->resume = 0;
        return 1;
    }
    static const int heads[] = {M_CHANNEL, M_MESSAGE, M_CONSTRAIN};
    bool wait = false;
    for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++) {
        int s = tw_dl_starts(d, d->pos, MARKS[heads[i]].s, MARKS[heads[i]].n, final);
        wait |= s < 0;
        if (s > 0) {
            h->st = S_HEAD;
            h->role = false;
            h->hs = d->pos;
            h->resume = 0;
            return 1;
        }
    }
    int to = tw_dl_starts(d, d->pos, "to=", 3, final);
    if (wait || to < 0)
        return 0;
    if (to > 0) {
        h->st = S_HEAD;
        h->role = false;
        h->hs = d->pos;
        h->resume = 0;
        return 1;
    }
    static const int stray[] = {M_END, M_CALL, M_RETURN};
    for (size_t i = 0; i < sizeof stray / sizeof stray[0]; i++) {
        int s = tw_dl_starts(d, d->pos, MARKS[stray[i]].s, MARKS[stray[i]].n, final);
        if (s < 0)
            return 0;
        if (s > 0) { /* a terminator with no message open: nothing to end */
            d->pos += MARKS[stray[i]].n;
            return 1;
        }
    }
    h->st = S_BARE;
    h->kind = K_CONTENT;
    h->resume = 0;
    return 1;
}

/* S_BARE and the bodies of text messages: text to its channel (none for
 * K_DROP) up to the next token; *go 1 when a token was read (the state
 * changed or a stray token was skipped), 0 when more bytes are needed. */
static tw_status scan_text(hm_dec *h, bool final, bool bare, int *go)
{
    tw_dl *d = &h->dl;
    uint64_t at;
    size_t which = 0;
    tw_dl_hit hit = tw_dl_find(d, d->pos, NULL, MARKS, NMARKS, final, &at, &which);
    tw_status st = TW_OK;
    if (bare || h->kind == K_CONTENT || h->kind == K_THINK)
        st = tw_dl_text(d, bare || h->kind == K_CONTENT ? TW_DL_CONTENT : TW_DL_THINKING, d->pos,
                        (size_t)(at - d->pos));
    d->pos = at;
    *go = 0;
    if (st != TW_OK || hit == TW_DL_NONE)
        return st;
    *go = 1;
    tw_dl_chan ch = bare || h->kind == K_CONTENT ? TW_DL_CONTENT : TW_DL_THINKING;
    switch (which) {
    case M_MESSAGE:
    case M_CONSTRAIN:
        if (bare) { /* a header with nothing before the token: read it as one */
            h->st = S_HEAD;
            h->role = false;
            h->hs = h->ms = at;
            h->resume = 0;
            return TW_OK;
        }
        d->pos = at + MARKS[which].n;
        return tw_dl_diag(d, false, TW_D_RESPONSE_SHAPE, (int64_t)at,
                          "a header token inside a message's body; dropped");
    case M_END:
    case M_CALL:
    case M_RETURN:
        if (h->kind != K_DROP)
            tw_dl_gap(d, ch);
        to_msg(h, at + MARKS[which].n);
        return TW_OK;
    default: /* <|start|>, <|channel|>: the next message, this one ended */
        if (h->kind != K_DROP)
            tw_dl_gap(d, ch);
        to_msg(h, at);
        return TW_OK;
    }
}

/* A header that never reached <|message|> (ended by another token at `at`,
 * or by the end of input): text that only looked like one (`to=…` with no
 * special token in it, no <|start|> before it) is content; a real header
 * is dropped with a warning (at the end of input: silently, the output was
 * cut there; a call's header is end()'s). */
static tw_status head_not_ended(hm_dec *h, uint64_t at)
{
    tw_dl *d = &h->dl;
    const char *p = tw_dl_at(d, h->hs);
    size_t n = (size_t)(at - h->hs);
    bool tokens = false;
    for (size_t i = 0; i + 1 < n && !tokens; i++)
        tokens = p[i] == '<' && p[i + 1] == '|';
    if (!h->role && !tokens) {
        tw_status st = tw_dl_text(d, TW_DL_CONTENT, h->hs, n);
        tw_dl_gap(d, TW_DL_CONTENT);
        return st;
    }
    if (at == tw_dl_end(d) && d->finished)
        return TW_OK;
    return tw_dl_diag(d, false, TW_D_RESPONSE_SHAPE, (int64_t)h->ms,
                      "a message header with no <|message|>; dropped");
}

static tw_status scan(tw_dl *dl, bool final)
{
    hm_dec *h = (hm_dec *)dl;
    for (;;) {
        int go = 0;
        uint64_t at;
        size_t which = 0;
        tw_status st = TW_OK;
        switch (h->st) {
        case S_MSG: go = scan_msg(h, final); break;
        case S_BARE: st = scan_text(h, final, true, &go); break;
        case S_HEAD:
            dl->pos = h->hs;
            if (tw_dl_find(dl, h->hs, &h->resume, HEAD_END, 5, final, &at, &which) == TW_DL_NONE)
                return TW_OK; /* the end, if final, is end()'s */
            if (which != 0) {
                st = head_not_ended(h, at);
                to_msg(h, at);
                go = 1;
                break;
            }
            st = classify(h, at);
            h->bs = at + HEAD_END[0].n;
            h->st = S_BODY;
            h->resume = 0;
            dl->pos = h->kind == K_CALL ? h->hs : h->bs;
            go = 1;
            break;
        case S_BODY:
            if (h->kind != K_CALL) {
                st = scan_text(h, final, false, &go);
                break;
            }
            if (tw_dl_find(dl, h->bs, &h->resume, CALL_END, 5, final, &at, &which) == TW_DL_NONE)
                return TW_OK; /* the end, if final, is end()'s */
            st = take_call(h, at, which == 0, false);
            to_msg(h, which <= 2 ? at + CALL_END[which].n : at);
            go = 1;
            break;
        }
        if (st != TW_OK)
            return st;
        if (!go)
            return TW_OK;
    }
}

static tw_status end(tw_dl *dl)
{
    hm_dec *h = (hm_dec *)dl;
    if (h->st == S_BODY && h->kind == K_CALL)
        return take_call(h, tw_dl_end(dl), false, true);
    if (h->st == S_BODY && h->kind == K_THINK)
        return tw_dl_diag(dl, true, TW_D_THINK_UNTERMINATED, (int64_t)h->ms,
                          "an analysis message cut by the end of input");
    if (h->st == S_HEAD) {
        hm_head hd;
        parse_head(tw_dl_at(dl, h->hs), (size_t)(tw_dl_end(dl) - h->hs), h->role, &hd);
        if (hd.to && hd.to_len >= 10 && memcmp(hd.to, FN, 10) == 0)
            return tw_dl_diag(dl, true, TW_D_TOOL_CALL_UNTERMINATED, (int64_t)h->ms,
                              "a call message's header cut by the end of input");
        return head_not_ended(h, tw_dl_end(dl));
    }
    return TW_OK;
}

static void start(tw_dl *dl)
{
    hm_dec *h = (hm_dec *)dl;
    if (dl->o.forced_open) { /* the prompt opened an analysis message */
        h->st = S_BODY;
        h->kind = K_THINK;
    }
}

static const tw_dialect HARMONY = {"harmony", sizeof(hm_dec), start, scan, end};

TW_DIALECT_MODULE(harmony, HARMONY, tw_format_harmony, "harmony",
                  "OpenAI gpt-oss Harmony output: analysis/commentary/final channels, "
                  "calls to functions.NAME ended by <|call|>")
