/*
 * DeepSeek V3.1 model output (deepseek-v3.1): reasoning closed by </think>
 * (the prompt opens it when thinking is on), content, and tool calls in
 * <｜tool▁calls▁begin｜> sections of
 * <｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{json}<｜tool▁call▁end｜>. Built on
 * the dialect engine (dialect.h). Rules: docs/formats/deepseek-v3.1.md.
 */
#include "toolwire/deepseek.h"

#include <string.h>

#include "deepseek_text.h"
#include "dialect.h"
#include "formats.h"
#include "tw_macros.h"
#include "toolwire/json.h"

#define LEN(lit) (sizeof(lit) - 1)

typedef enum ds_state {
    DS_START = 0, /* nothing read yet but white space */
    DS_THINK,     /* inside the reasoning (the engine's tw_dl_think_step) */
    DS_CONTENT,   /* content, outside a calls section */
    DS_SECTION,   /* inside a calls section, between calls */
    DS_NAME,      /* after <｜tool▁call▁begin｜>: the name */
    DS_ARGS,      /* after <｜tool▁sep｜>: the arguments */
} ds_state;

typedef struct ds_dec {
    tw_dl dl; /* first member: the engine's */
    ds_state state;
    tw_dl_think think; /* the reasoning */
    uint64_t resume;   /* where the current search stopped (0: none) */
    uint64_t sec_off;  /* where the open section began */
    uint64_t call_off; /* where the open call began */
    uint64_t name_off; /* its name's first byte */
    uint64_t name_end; /* one past its name (at <｜tool▁sep｜>) */
    uint64_t args_off; /* its arguments' first byte */
    size_t sec_calls;  /* calls begun in the open section */
} ds_dec;

static const tw_dl_think_spec think_spec = {
    TW_DL_MARK(T_THINK_OPEN), TW_DL_MARK(T_THINK_CLOSE), TW_DL_MARK(T_CALLS_BEGIN),
    TW_DL_MARK(T_EOS), "the reasoning ended at a tool calls section without </think>"};
static const tw_dl_mark content_marks[] = {TW_DL_MARK(T_CALLS_BEGIN), TW_DL_MARK(T_CALL_BEGIN),
                                           TW_DL_MARK(T_EOS)};
enum { CM_CALLS, CM_CALL, CM_EOS };
static const tw_dl_mark section_marks[] = {TW_DL_MARK(T_CALL_BEGIN), TW_DL_MARK(T_CALLS_END),
                                           TW_DL_MARK(T_EOS)};
enum { SM_CALL, SM_END, SM_EOS };
static const tw_dl_mark name_marks[] = {TW_DL_MARK(T_SEP), TW_DL_MARK(T_CALL_END),
                                        TW_DL_MARK(T_CALL_BEGIN), TW_DL_MARK(T_CALLS_END),
                                        TW_DL_MARK(T_EOS)};
enum { NM_SEP, NM_END, NM_CALL, NM_CALLS_END, NM_EOS };
static const tw_dl_mark args_marks[] = {TW_DL_MARK(T_CALL_END), TW_DL_MARK(T_CALL_BEGIN),
                                        TW_DL_MARK(T_CALLS_END), TW_DL_MARK(T_EOS)};
enum { AM_END, AM_CALL, AM_CALLS_END, AM_EOS };

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void go(ds_dec *s, ds_state st, uint64_t pos)
{
    s->state = st;
    s->dl.pos = pos;
    s->resume = 0;
}

static void ds_start(tw_dl *d)
{
    ((ds_dec *)d)->state = DS_START;
}

/* ---- one call ---- */

/* The DeepSeek V3 spelling of a call's text after <｜tool▁sep｜> when its
 * name is "function": NAME\n```json\nJSON\n``` (white space around the
 * fence). True with the name and the JSON text when it is that shape. */
static bool v3_spelling(const char *a, size_t an, const char **name, size_t *nlen, const char **js,
                        size_t *jlen)
{
    const char *nl = memchr(a, '\n', an);
    if (!nl)
        return false;
    const char *nm = a;
    size_t nn = (size_t)(nl - a);
    tw_trim(&nm, &nn);
    if (nn == 0)
        return false;
    const char *r = nl + 1;
    size_t rn = an - (size_t)(r - a);
    tw_trim(&r, &rn);
    if (rn < 10 || memcmp(r, "```json", 7) != 0 || memcmp(r + rn - 3, "```", 3) != 0)
        return false;
    *name = nm;
    *nlen = nn;
    *js = r + 7;
    *jlen = rn - 10;
    return true;
}

/* The call [call_off, at): its name and arguments are known. */
static tw_status take_call(ds_dec *s, uint64_t at)
{
    tw_dl *d = &s->dl;
    const char *nm = tw_dl_at(d, s->name_off);
    size_t nn = (size_t)(s->name_end - s->name_off);
    const char *a = tw_dl_at(d, s->args_off);
    size_t an = (size_t)(at - s->args_off);
    tw_trim(&nm, &nn);
    const char *n3, *j3;
    size_t n3len, j3len;
    if (nn == 8 && memcmp(nm, "function", 8) == 0 && v3_spelling(a, an, &n3, &n3len, &j3, &j3len))
        return tw_dl_call(d, n3, n3len, NULL, 0, j3, j3len, (int64_t)s->call_off);
    return tw_dl_call(d, nm, nn, NULL, 0, a, an, (int64_t)s->call_off);
}

/* A call cut off (by another marker or the end of the input). With
 * finish=length a call whose arguments are already one whole JSON value is
 * taken (the token limit stopped the model right before
 * <｜tool▁call▁end｜>). */
static tw_status cut_call(ds_dec *s, uint64_t at, bool at_end)
{
    tw_dl *d = &s->dl;
    if (s->state == DS_ARGS && at_end && d->o.finish == TW_FINISH_LENGTH) {
        const char *a = tw_dl_at(d, s->args_off);
        size_t an = (size_t)(at - s->args_off);
        cJSON *v = NULL;
        if (an <= tw_args_text_cap(&d->L) &&
            tw_json_parse(a, an, d->L.max_depth, &v, NULL) == TW_OK && v) {
            cJSON_Delete(v);
            return take_call(s, at);
        }
        cJSON_Delete(v);
    }
    return tw_dl_diag(d, true, TW_D_TOOL_CALL_UNTERMINATED, (int64_t)s->call_off,
                      s->state == DS_NAME ? "tool call has no " T_SEP " before its end"
                                          : "tool call not closed by " T_CALL_END);
}

/* ---- the states ---- */

static tw_status scan_start(ds_dec *s, bool final)
{
    int r = tw_dl_think_start(&s->dl, &s->think, &think_spec, final);
    if (r >= 0)
        go(s, r ? DS_THINK : DS_CONTENT, s->dl.pos);
    return TW_OK;
}

static tw_status scan_think(ds_dec *s, bool final, bool *more)
{
    tw_dl_think_end e;
    uint64_t at;
    TRY(tw_dl_think_step(&s->dl, &s->think, &think_spec, final, &e, &at));
    *more = e != TW_DL_THINK_WAIT;
    if (e == TW_DL_THINK_CONTENT) {
        go(s, DS_CONTENT, s->dl.pos);
    } else if (e == TW_DL_THINK_CALLS) { /* the model forgot </think> */
        s->sec_off = at;
        s->sec_calls = 0;
        go(s, DS_SECTION, at + LEN(T_CALLS_BEGIN));
    }
    return TW_OK;
}

static tw_status scan_content(ds_dec *s, bool final, bool *more)
{
    tw_dl *d = &s->dl;
    uint64_t at;
    size_t w;
    TRY(tw_dl_content(d, &s->resume, content_marks, N(content_marks), final, &at, &w));
    if (w == N(content_marks))
        return TW_OK;
    *more = true;
    if (w == CM_EOS) {
        s->resume = 0;
        d->pos = at + LEN(T_EOS);
        return TW_OK;
    }
    tw_dl_gap(d, TW_DL_CONTENT);
    s->sec_off = at;
    s->sec_calls = 0;
    if (w == CM_CALLS) {
        go(s, DS_SECTION, at + LEN(T_CALLS_BEGIN));
    } else { /* a call without its section's opener: the section is implied */
        s->call_off = at;
        s->name_off = at + LEN(T_CALL_BEGIN);
        s->sec_calls = 1;
        go(s, DS_NAME, s->name_off);
    }
    return TW_OK;
}

static tw_status scan_section(ds_dec *s, bool final, bool *more)
{
    tw_dl *d = &s->dl;
    uint64_t at;
    size_t w;
    /* text between calls: content, never dropped */
    TRY(tw_dl_content(d, &s->resume, section_marks, N(section_marks), final, &at, &w));
    if (w == N(section_marks))
        return TW_OK;
    *more = true;
    if (w == SM_EOS) {
        s->resume = 0;
        d->pos = at + LEN(T_EOS);
        return TW_OK;
    }
    if (w == SM_END) {
        go(s, DS_CONTENT, at + LEN(T_CALLS_END));
        return TW_OK;
    }
    s->call_off = at;
    s->name_off = at + LEN(T_CALL_BEGIN);
    s->sec_calls++;
    go(s, DS_NAME, s->name_off);
    return TW_OK;
}

/* After a call cut off by marker w at `at`: the marker read as in the
 * section (a call begins, the section ends, the end of sentence). */
static void after_cut(ds_dec *s, uint64_t at, bool call, bool calls_end, size_t eos_len)
{
    if (call) {
        s->call_off = at;
        s->name_off = at + LEN(T_CALL_BEGIN);
        s->sec_calls++;
        go(s, DS_NAME, s->name_off);
    } else if (calls_end) {
        go(s, DS_CONTENT, at + LEN(T_CALLS_END));
    } else {
        go(s, DS_SECTION, at + eos_len);
    }
}

static tw_status scan_name(ds_dec *s, bool final, bool *more)
{
    tw_dl *d = &s->dl;
    uint64_t at;
    size_t w;
    tw_dl_hit h = tw_dl_find(d, s->name_off, &s->resume, name_marks, N(name_marks), final, &at, &w);
    if (h == TW_DL_NONE)
        return TW_OK;
    *more = true;
    if (w == NM_SEP) {
        s->name_end = at;
        s->args_off = at + LEN(T_SEP);
        go(s, DS_ARGS, s->name_off); /* the name is read at the call's end */
        return TW_OK;
    }
    TRY(cut_call(s, at, false));
    if (w == NM_END)
        go(s, DS_SECTION, at + LEN(T_CALL_END));
    else
        after_cut(s, at, w == NM_CALL, w == NM_CALLS_END, LEN(T_EOS));
    return TW_OK;
}

static tw_status scan_args(ds_dec *s, bool final, bool *more)
{
    tw_dl *d = &s->dl;
    uint64_t at;
    size_t w;
    tw_dl_hit h = tw_dl_find(d, s->args_off, &s->resume, args_marks, N(args_marks), final, &at, &w);
    if (h == TW_DL_NONE)
        return TW_OK;
    *more = true;
    if (w == AM_END) {
        TRY(take_call(s, at));
        go(s, DS_SECTION, at + LEN(T_CALL_END));
        return TW_OK;
    }
    TRY(cut_call(s, at, false));
    after_cut(s, at, w == AM_CALL, w == AM_CALLS_END, LEN(T_EOS));
    return TW_OK;
}

static tw_status ds_scan(tw_dl *d, bool final)
{
    ds_dec *s = (ds_dec *)d;
    bool more = true;
    while (more && d->stop == TW_OK) {
        more = false;
        ds_state before = s->state;
        switch (s->state) {
        case DS_START:
            TRY(scan_start(s, final));
            more = s->state != before;
            break;
        case DS_THINK: TRY(scan_think(s, final, &more)); break;
        case DS_CONTENT: TRY(scan_content(s, final, &more)); break;
        case DS_SECTION: TRY(scan_section(s, final, &more)); break;
        case DS_NAME: TRY(scan_name(s, final, &more)); break;
        case DS_ARGS: TRY(scan_args(s, final, &more)); break;
        }
    }
    return TW_OK;
}

static tw_status ds_end(tw_dl *d)
{
    ds_dec *s = (ds_dec *)d;
    uint64_t end = tw_dl_end(d);
    switch (s->state) {
    case DS_THINK: return tw_dl_think_unterminated(d, &s->think, NULL);
    case DS_NAME:
    case DS_ARGS: return cut_call(s, end, true);
    case DS_SECTION:
        /* the calls taken stand; a section with none is a call never written */
        return tw_dl_diag(d, s->sec_calls == 0, TW_D_TOOL_CALL_UNTERMINATED, (int64_t)s->sec_off,
                          "tool calls section not closed by " T_CALLS_END);
    default: return TW_OK;
    }
}

static const tw_dialect deepseek_dialect = {"deepseek-v3.1", sizeof(ds_dec), ds_start, ds_scan,
                                            ds_end};

TW_DIALECT_MODULE(deepseek, deepseek_dialect, tw_format_deepseek_v31, "deepseek-v3.1",
                  "DeepSeek V3.1 output: </think> reasoning, " T_CALLS_BEGIN " tool call sections")
