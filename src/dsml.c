/*
 * DeepSeek V3.2 model output (dsml): reasoning closed by </think> (the
 * prompt opens it when thinking is on), content, and tool calls in
 * <｜DSML｜function_calls> blocks of <｜DSML｜invoke name="NAME"> elements
 * holding <｜DSML｜parameter name="K" string="true|false">V</｜DSML｜parameter>.
 * Built on the dialect engine (dialect.h); the values are typed by
 * typed_args.h. Rules: docs/formats/dsml.md.
 */
#include "toolwire/dsml.h"

#include <string.h>

#include "dialect.h"
#include "dsml_text.h"
#include "formats.h"
#include "tw_macros.h"
#include "typed_args.h"
#include "toolwire/json.h"

#define LEN(lit) (sizeof(lit) - 1)

typedef enum dm_state {
    DM_START = 0, /* nothing read yet but white space */
    DM_THINK,     /* inside the reasoning (the engine's tw_dl_think_step) */
    DM_CONTENT,   /* content, outside a calls block */
    DM_SECTION,   /* inside a calls block, between invokes */
    DM_INVOKE,    /* inside an invoke: waiting for its </｜DSML｜invoke> */
} dm_state;

typedef struct dm_dec {
    tw_dl dl; /* first member: the engine's */
    dm_state state;
    tw_dl_think think; /* the reasoning */
    uint64_t resume;   /* where the current search stopped (0: none) */
    bool implied;      /* the open section began at a bare invoke (no opener) */
    uint64_t sec_off;  /* where the open section began */
    uint64_t call_off; /* where the open invoke began */
    size_t sec_calls;  /* invokes begun in the open section */
} dm_dec;

static const tw_dl_think_spec think_spec = {
    TW_DL_MARK(D_THINK_OPEN), TW_DL_MARK(D_THINK_CLOSE), TW_DL_MARK(D_CALLS_OPEN),
    TW_DL_MARK(D_EOS), "the reasoning ended at a function_calls block without </think>"};
static const tw_dl_mark content_marks[] = {TW_DL_MARK(D_CALLS_OPEN), TW_DL_MARK(D_INVOKE_OPEN),
                                           TW_DL_MARK(D_EOS)};
enum { CM_CALLS, CM_INVOKE, CM_EOS };
static const tw_dl_mark section_marks[] = {TW_DL_MARK(D_INVOKE_OPEN), TW_DL_MARK(D_CALLS_CLOSE),
                                           TW_DL_MARK(D_EOS)};
enum { SM_INVOKE, SM_END, SM_EOS };
static const tw_dl_mark invoke_marks[] = {TW_DL_MARK(D_INVOKE_CLOSE), TW_DL_MARK(D_INVOKE_OPEN),
                                          TW_DL_MARK(D_CALLS_CLOSE), TW_DL_MARK(D_EOS)};
enum { IM_END, IM_INVOKE, IM_CALLS_END, IM_EOS };

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void go(dm_dec *s, dm_state st, uint64_t pos)
{
    s->state = st;
    s->dl.pos = pos;
    s->resume = 0;
}

static void dm_start(tw_dl *d)
{
    ((dm_dec *)d)->state = DM_START;
}

/* ---- one invoke ---- */

/* A name as the template's attribute holds it: not empty, no '<', '>',
 * '"' or control byte (a space is allowed: the template writes keys as they are). */
static bool name_ok(const char *p, size_t n)
{
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c < 0x20 || c == '<' || c == '>' || c == '"' || c == 0x7f)
            return false;
    }
    return true;
}

/* One attribute at p[*i, n): white space, key, '=', a double-quoted value.
 * True with the key and value; *i past it. */
static bool attr(const char *p, size_t n, size_t *i, const char **k, size_t *kn, const char **v,
                 size_t *vn)
{
    size_t j = *i;
    size_t ws = j;
    while (j < n && tw_dl_space(p[j]))
        j++;
    if (j == ws || j == n)
        return false;
    size_t ks = j;
    while (j < n && p[j] != '=' && !tw_dl_space(p[j]))
        j++;
    *k = p + ks;
    *kn = j - ks;
    while (j < n && tw_dl_space(p[j]))
        j++;
    if (j == n || p[j] != '=')
        return false;
    j++;
    while (j < n && tw_dl_space(p[j]))
        j++;
    if (j == n || p[j] != '"')
        return false;
    const char *q = memchr(p + j + 1, '"', n - j - 1);
    if (!q)
        return false;
    *v = p + j + 1;
    *vn = (size_t)(q - (p + j + 1));
    *i = (size_t)(q - p) + 1;
    return *kn > 0;
}

static bool is(const char *p, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(p, lit, n) == 0;
}

/* A parameter head p[0, n) (between "<｜DSML｜parameter" and '>'): its name
 * and how its value is written (string="true": a string, "false": JSON,
 * absent or another value: typed by the schema). False when malformed. */
static bool param_head(const char *p, size_t n, const char **k, size_t *kn, tw_targs_how *how)
{
    size_t i = 0;
    bool have_name = false, have_str = false;
    *how = TW_TARGS_TYPED;
    while (i < n) {
        size_t j = i;
        while (j < n && tw_dl_space(p[j]))
            j++;
        if (j == n)
            break;
        const char *ak, *av;
        size_t akn, avn;
        if (!attr(p, n, &i, &ak, &akn, &av, &avn))
            return false;
        if (is(ak, akn, "name") && !have_name) {
            have_name = true;
            *k = av;
            *kn = avn;
        } else if (is(ak, akn, "string") && !have_str) {
            have_str = true;
            *how = is(av, avn, "true")    ? TW_TARGS_STRING
                   : is(av, avn, "false") ? TW_TARGS_JSON
                                          : TW_TARGS_TYPED;
        } else {
            return false;
        }
    }
    return have_name;
}

/* The invoke [call_off, at): its head up to the first '>', then its
 * parameters, taken as one call. */
static tw_status take_invoke(dm_dec *s, uint64_t at)
{
    tw_dl *d = &s->dl;
    const char *b = tw_dl_at(d, s->call_off);
    size_t n = (size_t)(at - s->call_off);
    size_t h0 = LEN(D_INVOKE_OPEN);
    const char *gt = memchr(b + h0, '>', n - h0);
    const char *nm = NULL, *k;
    size_t nn = 0, kn, i = h0;
    bool head_ok = gt && attr(b, (size_t)(gt - b), &i, &k, &kn, &nm, &nn) && is(k, kn, "name");
    if (head_ok) {
        while (i < (size_t)(gt - b) && tw_dl_space(b[i]))
            i++;
        head_ok = i == (size_t)(gt - b);
    }
    if (!gt || !head_ok) {
        nm = NULL;
        nn = 0;
    }
    /* a bound on the parameters: the openers in the body */
    size_t body = gt ? (size_t)(gt - b) + 1 : n;
    size_t nparams = 0;
    for (const char *p = b + body;
         (p = tw_memmem(p, n - (size_t)(p - b), D_PARAM_OPEN, LEN(D_PARAM_OPEN))) != NULL;
         p += LEN(D_PARAM_OPEN))
        nparams++;
    tw_targs a;
    tw_status st =
        tw_targs_begin(&a, nn ? tw_targs_tool(&d->o, nm, nn) : NULL, nparams, d->L.max_depth);
    if (!gt || !head_ok)
        tw_targs_refuse(&a, TW_D_XML_BAD_NAME, "invoke has no well-formed name=\"...\" head");
    else if (!name_ok(nm, nn))
        tw_targs_refuse(&a, TW_D_XML_BAD_NAME,
                        "function name is empty or holds '<', '>', '\"' or a control byte");
    size_t j = body, count = 0;
    const char *whole = NULL; /* a body that is one JSON object, no parameters */
    size_t whole_n = 0;
    while (st == TW_OK && j < n) {
        while (j < n && tw_dl_space(b[j]))
            j++;
        if (j == n)
            break;
        if (n - j < LEN(D_PARAM_OPEN) || memcmp(b + j, D_PARAM_OPEN, LEN(D_PARAM_OPEN)) != 0) {
            const char *t = b + j;
            size_t tn = n - j;
            tw_trim(&t, &tn);
            if (count == 0 && tn && t[0] == '{' && t[tn - 1] == '}') {
                whole = t;
                whole_n = tn;
            } else {
                tw_targs_refuse(
                    &a, TW_D_XML_STRAY_TEXT,
                    "text inside an invoke outside its parameters (a value holding " D_PARAM_CLOSE
                    "?): the call was refused");
            }
            break;
        }
        count++;
        size_t hs = j + LEN(D_PARAM_OPEN);
        const char *pg = memchr(b + hs, '>', n - hs);
        const char *pk = NULL;
        size_t pkn = 0;
        tw_targs_how how = TW_TARGS_TYPED;
        if (!pg || !param_head(b + hs, (size_t)(pg - b) - hs, &pk, &pkn, &how) ||
            !name_ok(pk, pkn)) {
            tw_targs_refuse(&a, TW_D_XML_BAD_NAME,
                            "parameter %zu has no well-formed name=\"...\" head", count);
            break;
        }
        size_t vs = (size_t)(pg - b) + 1;
        const char *ve = tw_memmem(b + vs, n - vs, D_PARAM_CLOSE, LEN(D_PARAM_CLOSE));
        if (!ve) {
            tw_targs_refuse(&a, TW_D_XML_PARAM_UNCLOSED, "parameter '%.*s' has no " D_PARAM_CLOSE,
                            (int)(pkn > 64 ? 64 : pkn), pk);
            break;
        }
        st = tw_targs_add(&a, pk, pkn, b + vs, (size_t)(ve - (b + vs)), how,
                          s->call_off + (uint64_t)(pk - b), s->call_off + vs);
        j = (size_t)(ve - b) + LEN(D_PARAM_CLOSE);
    }
    if (st != TW_OK) {
        tw_targs_free(&a);
        return st == TW_ERR_LIMIT ? TW_ERR_NOMEM : st;
    }
    if (whole && a.refuse == TW_OK) { /* <｜DSML｜invoke name="f">{json}</｜DSML｜invoke> */
        tw_targs_free(&a);
        return tw_dl_call(d, nm, nn, NULL, 0, whole, whole_n, (int64_t)s->call_off);
    }
    bool accepted = false;
    tw_wire_sink k2 = {&d->res, &d->o, &d->L, d->fn, d->user, &d->stop};
    st =
        tw_targs_take(&a, &k2, nm ? nm : "", nn, NULL, (int64_t)s->call_off, NULL, NULL, &accepted);
    tw_targs_free(&a);
    return st == TW_ERR_LIMIT ? TW_ERR_NOMEM : st;
}

/* An invoke cut off (by another marker or the end of the input). */
static tw_status cut_invoke(dm_dec *s)
{
    return tw_dl_diag(&s->dl, true, TW_D_TOOL_CALL_UNTERMINATED, (int64_t)s->call_off,
                      "invoke not closed by " D_INVOKE_CLOSE);
}

static void begin_invoke(dm_dec *s, uint64_t at)
{
    s->call_off = at;
    s->sec_calls++;
    go(s, DM_INVOKE, at); /* the invoke is read whole at its end */
}

/* ---- the states ---- */

static tw_status scan_start(dm_dec *s, bool final)
{
    int r = tw_dl_think_start(&s->dl, &s->think, &think_spec, final);
    if (r >= 0)
        go(s, r ? DM_THINK : DM_CONTENT, s->dl.pos);
    return TW_OK;
}

static tw_status scan_think(dm_dec *s, bool final, bool *more)
{
    tw_dl_think_end e;
    uint64_t at;
    TRY(tw_dl_think_step(&s->dl, &s->think, &think_spec, final, &e, &at));
    *more = e != TW_DL_THINK_WAIT;
    if (e == TW_DL_THINK_CONTENT) {
        go(s, DM_CONTENT, s->dl.pos);
    } else if (e == TW_DL_THINK_CALLS) { /* the model forgot </think> */
        s->sec_off = at;
        s->sec_calls = 0;
        s->implied = false;
        go(s, DM_SECTION, at + LEN(D_CALLS_OPEN));
    }
    return TW_OK;
}

static tw_status scan_content(dm_dec *s, bool final, bool *more)
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
        d->pos = at + LEN(D_EOS);
        return TW_OK;
    }
    tw_dl_gap(d, TW_DL_CONTENT);
    s->sec_off = at;
    s->sec_calls = 0;
    s->implied = w == CM_INVOKE;
    if (w == CM_CALLS)
        go(s, DM_SECTION, at + LEN(D_CALLS_OPEN));
    else /* an invoke without its block's opener: the block is implied */
        begin_invoke(s, at);
    return TW_OK;
}

static tw_status scan_section(dm_dec *s, bool final, bool *more)
{
    tw_dl *d = &s->dl;
    uint64_t at;
    size_t w;
    /* text between invokes: content, never dropped */
    TRY(tw_dl_content(d, &s->resume, section_marks, N(section_marks), final, &at, &w));
    if (w == N(section_marks))
        return TW_OK;
    *more = true;
    if (w == SM_EOS) {
        s->resume = 0;
        d->pos = at + LEN(D_EOS);
        return TW_OK;
    }
    if (w == SM_END) {
        go(s, DM_CONTENT, at + LEN(D_CALLS_CLOSE));
        return TW_OK;
    }
    begin_invoke(s, at);
    return TW_OK;
}

static tw_status scan_invoke(dm_dec *s, bool final, bool *more)
{
    tw_dl *d = &s->dl;
    uint64_t at;
    size_t w;
    uint64_t from = s->call_off + LEN(D_INVOKE_OPEN);
    tw_dl_hit h = tw_dl_find(d, from, &s->resume, invoke_marks, N(invoke_marks), final, &at, &w);
    if (h == TW_DL_NONE)
        return TW_OK;
    *more = true;
    if (w == IM_END) {
        TRY(take_invoke(s, at));
        go(s, DM_SECTION, at + LEN(D_INVOKE_CLOSE));
        return TW_OK;
    }
    TRY(cut_invoke(s));
    if (w == IM_INVOKE)
        begin_invoke(s, at);
    else if (w == IM_CALLS_END)
        go(s, DM_CONTENT, at + LEN(D_CALLS_CLOSE));
    else
        go(s, DM_SECTION, at + LEN(D_EOS));
    return TW_OK;
}

static tw_status dm_scan(tw_dl *d, bool final)
{
    dm_dec *s = (dm_dec *)d;
    bool more = true;
    while (more && d->stop == TW_OK) {
        more = false;
        dm_state before = s->state;
        switch (s->state) {
        case DM_START:
            TRY(scan_start(s, final));
            more = s->state != before;
            break;
        case DM_THINK: TRY(scan_think(s, final, &more)); break;
        case DM_CONTENT: TRY(scan_content(s, final, &more)); break;
        case DM_SECTION: TRY(scan_section(s, final, &more)); break;
        case DM_INVOKE: TRY(scan_invoke(s, final, &more)); break;
        }
    }
    return TW_OK;
}

static tw_status dm_end(tw_dl *d)
{
    dm_dec *s = (dm_dec *)d;
    switch (s->state) {
    case DM_THINK: return tw_dl_think_unterminated(d, &s->think, NULL);
    case DM_INVOKE: return cut_invoke(s);
    case DM_SECTION:
        /* the calls taken stand; a block with none is a call never written;
         * a bare invoke's implied block has no closer to miss */
        if (s->implied && s->sec_calls > 0)
            return TW_OK;
        return tw_dl_diag(d, s->sec_calls == 0, TW_D_TOOL_CALL_UNTERMINATED, (int64_t)s->sec_off,
                          "function_calls block not closed by " D_CALLS_CLOSE);
    default: return TW_OK;
    }
}

static const tw_dialect dsml_dialect = {"dsml", sizeof(dm_dec), dm_start, dm_scan, dm_end};

TW_DIALECT_MODULE(dsml, dsml_dialect, tw_format_dsml, "dsml",
                  "DeepSeek V3.2 output: </think> reasoning, " D_CALLS_OPEN " DSML tool calls")
