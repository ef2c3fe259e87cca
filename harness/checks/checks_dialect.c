/*
 * The checks on model text in a model dialect (DLX-*): an exchange whose
 * fixture reads its model text with the decoder of a dialect profile
 * (src/format_table.h: Harmony, DeepSeek, Kimi K2, Mistral, Llama 3.x, …)
 * is judged by what that reference decoder reads from the text against
 * what the server answered (OpenAI chat completions, streamed or not, or
 * /generate): the calls, the content, the reasoning, the ids the model
 * wrote, the finish reason. Qwen3-Coder XML has its own checks (QWX-*).
 */
#include "checks_int.h"

#include "apis.h"
#include "toolwire/registry.h"

static const tw_check_id DLX_IDS[] = {TW_CHK_DLX_01, TW_CHK_DLX_02, TW_CHK_DLX_03, TW_CHK_DLX_04,
                                      TW_CHK_DLX_05};
#define NDLX (sizeof DLX_IDS / sizeof DLX_IDS[0])

/* s[0, n) without its leading and trailing white space. */
static void trimmed(const tw_buf *b, const char **s, size_t *n)
{
    *s = b->data ? b->data : "";
    *n = b->len;
    tw_trim(s, n);
}

/* Is the trimmed text of a the trimmed text of b. */
static bool same_text(const tw_buf *a, const tw_buf *b, size_t *at)
{
    const char *x, *y;
    size_t xn, yn, i = 0;
    trimmed(a, &x, &xn);
    trimmed(b, &y, &yn);
    while (i < xn && i < yn && x[i] == y[i])
        i++;
    *at = i;
    return xn == yn && i == xn;
}

static void calls_check(judge *j, const tw_result *ref, const tw_result *got)
{
    size_t n = ref->msg.ncalls < got->msg.ncalls ? ref->msg.ncalls : got->msg.ncalls;
    for (size_t i = 0; i < n; i++) {
        const tw_call *e = &ref->msg.calls[i], *g = &got->msg.calls[i];
        if (strcmp(e->name, g->name) != 0) {
            PUT(j->out, TW_CHK_DLX_01, TW_V_FAIL, -1,
                "call %zu: the model text names '%.64s', the response '%.64s' (%zu call(s) in the "
                "model text, %zu in the response)",
                i, e->name, g->name, ref->msg.ncalls, got->msg.ncalls);
            return;
        }
        if (!tw_json_equal(e->arguments, g->arguments)) {
            char *es = tw_json_print(e->arguments, NULL), *gs = tw_json_print(g->arguments, NULL);
            char eb[200], gb[200];
            PUT(j->out, TW_CHK_DLX_01, TW_V_FAIL, -1,
                "call %zu (%.64s): arguments differ: model text %s, response %s", i, e->name,
                tw_chk_clip(eb, sizeof eb, es ? es : "", 160),
                tw_chk_clip(gb, sizeof gb, gs ? gs : "", 160));
            free(es);
            free(gs);
            return;
        }
    }
    if (ref->msg.ncalls != got->msg.ncalls)
        PUT(j->out, TW_CHK_DLX_01, TW_V_FAIL, -1,
            "the model text reads as %zu call(s), the response carries %zu", ref->msg.ncalls,
            got->msg.ncalls);
    else
        PUT(j->out, TW_CHK_DLX_01, ref->msg.ncalls ? TW_V_PASS : TW_V_SKIP, -1,
            "%zu call(s), as the model text reads", ref->msg.ncalls);
}

/* DLX-02: the content. A difference is said as markup left when the
 * dialect's decoder takes something out of the response's content. */
static void content_check(judge *j, const tw_format_ops *f, const tw_decode_opts *o,
                          const tw_result *ref, const tw_result *got)
{
    size_t at;
    if (same_text(&ref->msg.content, &got->msg.content, &at)) {
        PUT(j->out, TW_CHK_DLX_02, TW_V_PASS, -1, "%zu bytes of content, as the model text reads",
            ref->msg.content.len);
        return;
    }
    const char *c = got->msg.content.data ? got->msg.content.data : "";
    tw_result again;
    bool markup = false;
    if (f->decode(c, got->msg.content.len, o, &again) == TW_OK) {
        size_t a2;
        markup = again.msg.ncalls > 0 || again.msg.thinking.len > 0 ||
                 !same_text(&again.msg.content, &got->msg.content, &a2);
        tw_result_free(&again);
    }
    char eb[120], gb[120];
    const char *x, *y;
    size_t xn, yn;
    trimmed(&ref->msg.content, &x, &xn);
    trimmed(&got->msg.content, &y, &yn);
    PUT(j->out, TW_CHK_DLX_02, TW_V_FAIL, -1,
        "content differs at character %zu%s: model text %s, response %s", at,
        markup ? " (the response's content still holds the dialect's markup)" : "",
        tw_chk_clip(eb, sizeof eb, at < xn ? x + at : "(end)", 80),
        tw_chk_clip(gb, sizeof gb, at < yn ? y + at : "(end)", 80));
}

/* DLX-03: the reasoning. */
static void reasoning_check(judge *j, const tw_result *ref, const tw_result *got)
{
    size_t at;
    const char *t, *c, *rc;
    size_t tn, cn, rcn;
    trimmed(&ref->msg.thinking, &t, &tn);
    trimmed(&got->msg.content, &c, &cn);
    trimmed(&ref->msg.content, &rc, &rcn);
    if (tn && tw_memmem(c, cn, t, tn) && !tw_memmem(rc, rcn, t, tn)) {
        PUT(j->out, TW_CHK_DLX_03, TW_V_FAIL, -1,
            "the reasoning (%zu bytes) is in the response's content", tn);
        return;
    }
    if (same_text(&ref->msg.thinking, &got->msg.thinking, &at)) {
        PUT(j->out, TW_CHK_DLX_03, tn ? TW_V_PASS : TW_V_SKIP, -1, "%zu bytes of reasoning%s", tn,
            tn ? ", as the model text reads" : "");
        return;
    }
    char eb[120], gb[120];
    const char *g;
    size_t gn;
    trimmed(&got->msg.thinking, &g, &gn);
    PUT(j->out, TW_CHK_DLX_03, TW_V_FAIL, -1,
        "reasoning differs at character %zu: model text %s, response %s", at,
        tw_chk_clip(eb, sizeof eb, at < tn ? t + at : "(end)", 80),
        tw_chk_clip(gb, sizeof gb, at < gn ? g + at : "(end)", 80));
}

/* Is id one the rules made (call_<n>) rather than one the model wrote. */
static bool made_id(const char *id)
{
    if (strncmp(id, "call_", 5) != 0 || !id[5])
        return false;
    for (const char *p = id + 5; *p; p++)
        if (*p < '0' || *p > '9')
            return false;
    return true;
}

/* DLX-04: the ids the model wrote, kept. */
static void ids_check(judge *j, tw_api_kind kind, const tw_result *ref, const tw_result *got)
{
    if (kind == TW_API_GENERATE) {
        PUT(j->out, TW_CHK_DLX_04, TW_V_SKIP, -1, "the /generate server numbers the calls itself");
        return;
    }
    size_t own = 0;
    for (size_t i = 0; i < ref->msg.ncalls && i < got->msg.ncalls; i++) {
        const char *want = ref->msg.calls[i].id;
        if (made_id(want))
            continue;
        own++;
        if (strcmp(want, got->msg.calls[i].id) != 0) {
            char gb[80];
            PUT(j->out, TW_CHK_DLX_04, TW_V_FAIL, -1,
                "call %zu (%.64s): the model wrote the id %.64s, the response gives %s", i,
                ref->msg.calls[i].name, want, tw_chk_clip(gb, sizeof gb, got->msg.calls[i].id, 64));
            return;
        }
    }
    PUT(j->out, TW_CHK_DLX_04, own ? TW_V_PASS : TW_V_SKIP, -1, "%s",
        own ? "every id the model wrote is kept" : "the model text writes no call ids");
}

static void finish_check(judge *j, const tw_result *ref, const tw_result *got)
{
    const char *fr = got->finish_reason ? got->finish_reason : "";
    bool tc = strcmp(fr, "tool_calls") == 0;
    if (tc == (ref->msg.ncalls > 0))
        PUT(j->out, TW_CHK_DLX_05, TW_V_PASS, -1, "finish_reason %s with %zu call(s)",
            fr[0] ? fr : "(none)", ref->msg.ncalls);
    else
        PUT(j->out, TW_CHK_DLX_05, TW_V_FAIL, -1,
            "finish_reason %s, but the model text reads as %zu call(s)", fr[0] ? fr : "(none)",
            ref->msg.ncalls);
}

void tw_chk_dialect_checks(judge *j, bool stream)
{
    const tw_fx_exchange *ex = j->in->ex;
    const char *dialect = tw_chk_ex_dialect(ex);
    const tw_format_ops *f = dialect ? tw_format_find(dialect) : NULL;
    if (!f || !ex->model_text) {
        tw_chk_skip_ids(j->out, DLX_IDS, NDLX, "no model text in a model dialect");
        return;
    }
    if (j->in->status != 200 || !j->in->body) {
        tw_chk_skip_ids(j->out, DLX_IDS, NDLX, "no successful response to judge");
        return;
    }
    tw_api_kind kind = tw_path_kind(j->in->path);
    tw_opts_holder h;
    tw_chk_model_opts(j, ex, &h);
    tw_result ref, got;
    if (f->decode(ex->model_text, strlen(ex->model_text), &h.o, &ref) != TW_OK) {
        tw_chk_skip_ids(j->out, DLX_IDS, NDLX, "the dialect's decoder refused the model text");
        tw_opts_holder_free(&h);
        return;
    }
    tw_decode_opts ro = {0};
    ro.limits = j->L;
    ro.allow_unknown_tool = true;
    if (tw_decode_response(j->in->path, stream, j->in->body, j->in->body_len, &ro, &got) != TW_OK) {
        tw_chk_skip_ids(j->out, DLX_IDS, NDLX, "the response could not be read");
    } else {
        calls_check(j, &ref, &got);
        content_check(j, f, &h.o, &ref, &got);
        reasoning_check(j, &ref, &got);
        ids_check(j, kind, &ref, &got);
        finish_check(j, &ref, &got);
        tw_result_free(&got);
    }
    tw_result_free(&ref);
    tw_opts_holder_free(&h);
}
