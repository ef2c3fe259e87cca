/* Live expectations and call-id placeholders (live.h). */
#include "live.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "decode_opts.h"
#include "script.h"
#include "toolwire/decode.h"
#include "toolwire/request.h"
#include "toolwire/request_gemini.h"
#include "toolwire/request_responses.h"
#include "toolwire/request_vllm.h"
#include "toolwire/schema.h"

/* ---- decoding an answer ---- */

void tw_live_decode(const tw_fx_exchange *x, int status, const char *body, size_t len,
                    const tw_limits *L, tw_live_answer *out)
{
    memset(out, 0, sizeof *out);
    out->status = status;
    if (status == 0) {
        snprintf(out->why, sizeof out->why, "no response arrived");
        return;
    }
    if (status >= 400) {
        snprintf(out->why, sizeof out->why, "HTTP %d: no answer to judge", status);
        return;
    }
    bool stream = cJSON_IsTrue(tw_json_get(x->req.body, "stream"));
    tw_opts_holder h;
    tw_opts_holder_init(&h);
    h.o.limits = *L;
    tw_status st = tw_decode_response(x->req.path, stream, body ? body : "", len, &h.o, &out->res);
    tw_opts_holder_free(&h);
    if (st == TW_ERR_UNSUPPORTED) {
        snprintf(out->why, sizeof out->why, "no reference decoder reads answers of %.100s",
                 x->req.path);
        return;
    }
    if (st != TW_OK) {
        snprintf(out->why, sizeof out->why, "the reference decoder refused the answer: %s",
                 tw_code_message(st));
        return;
    }
    out->decoded = true;
}

void tw_live_answer_free(tw_live_answer *a)
{
    if (a && a->decoded)
        tw_result_free(&a->res);
    if (a)
        memset(a, 0, sizeof *a);
}

/* ---- placeholders ---- */

static void subst_walk(cJSON *v, const tw_live_answer *answers, size_t nanswers, size_t *unresolved,
                       tw_error *err)
{
    for (cJSON *m = v->child; m; m = m->next) {
        if (!cJSON_IsString(m)) {
            subst_walk(m, answers, nanswers, unresolved, err);
            continue;
        }
        size_t e = 0, c = 0;
        if (!tw_call_id_placeholder(m->valuestring, &e, &c))
            continue;
        const char *id = NULL;
        char w[240] = "";
        if (e >= nanswers)
            snprintf(w, sizeof w, "%.60s: exchange %zu comes later", m->valuestring, e);
        else if (!answers[e].decoded)
            snprintf(w, sizeof w, "%.60s: exchange %zu has no call: %.120s", m->valuestring, e,
                     answers[e].why);
        else if (c >= answers[e].res.msg.ncalls)
            snprintf(w, sizeof w, "%.60s: exchange %zu produced %zu call(s)", m->valuestring, e,
                     answers[e].res.msg.ncalls);
        else if (!answers[e].res.msg.calls[c].id || !answers[e].res.msg.calls[c].id[0])
            snprintf(w, sizeof w, "%.60s: call %zu of exchange %zu has no id", m->valuestring, c,
                     e);
        else
            id = answers[e].res.msg.calls[c].id;
        if (!id) {
            if (!*unresolved && err)
                tw_error_set(err, TW_ERR_INVALID, -1, NULL, "%s", w);
            (*unresolved)++;
            continue;
        }
        if (!cJSON_SetValuestring(m, id)) {
            if (!*unresolved && err)
                tw_error_set(err, TW_ERR_NOMEM, -1, NULL, "%.60s: out of memory", m->valuestring);
            (*unresolved)++;
        }
    }
}

cJSON *tw_live_substitute(const cJSON *body, const tw_live_answer *answers, size_t nanswers,
                          size_t *unresolved, tw_error *err)
{
    *unresolved = 0;
    tw_error_clear(err);
    cJSON *copy = cJSON_Duplicate(body, 1);
    if (!copy)
        return NULL;
    size_t e = 0, c = 0;
    if (cJSON_IsString(copy) && tw_call_id_placeholder(copy->valuestring, &e, &c)) {
        /* a body that is only a placeholder: wrap to reuse the walk */
        cJSON *wrap = cJSON_CreateArray();
        if (!wrap || !cJSON_AddItemToArray(wrap, copy)) {
            cJSON_Delete(wrap);
            cJSON_Delete(copy);
            return NULL;
        }
        subst_walk(wrap, answers, nanswers, unresolved, err);
        copy = cJSON_DetachItemFromArray(wrap, 0);
        cJSON_Delete(wrap);
        return copy;
    }
    subst_walk(copy, answers, nanswers, unresolved, err);
    return copy;
}

/* ---- judging ---- */

/* "get_weather, get_time" (at most n bytes). */
static void call_names(const tw_result *r, char *out, size_t n)
{
    size_t used = 0;
    out[0] = '\0';
    if (!r->msg.ncalls) {
        snprintf(out, n, "no call");
        return;
    }
    for (size_t i = 0; i < r->msg.ncalls && used + 1 < n; i++) {
        int w = snprintf(out + used, n - used, "%s%s", i ? ", " : "",
                         r->msg.calls[i].name ? r->msg.calls[i].name : "(no name)");
        if (w < 0 || (size_t)w >= n - used)
            break;
        used += (size_t)w;
    }
}

static void expected_names(const tw_fx_live *lv, char *out, size_t n)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < lv->ntool_called && used + 1 < n; i++) {
        int w = snprintf(out + used, n - used, "%s%s", i ? ", " : "", lv->tool_called[i]);
        if (w < 0 || (size_t)w >= n - used)
            break;
        used += (size_t)w;
    }
}

static bool has_text(const tw_buf *b)
{
    for (size_t i = 0; i < b->len; i++)
        if (b->data[i] != ' ' && b->data[i] != '\n' && b->data[i] != '\t' && b->data[i] != '\r')
            return true;
    return false;
}

static void judge_tool_called(const tw_fx_live *lv, const tw_result *r, tw_check_set *out)
{
    char want[300], got[300];
    expected_names(lv, want, sizeof want);
    call_names(r, got, sizeof got);
    for (size_t i = 0; i < lv->ntool_called; i++) {
        bool found = false;
        for (size_t c = 0; c < r->msg.ncalls && !found; c++)
            found = r->msg.calls[c].name && strcmp(r->msg.calls[c].name, lv->tool_called[i]) == 0;
        if (!found) {
            tw_check_set_put(out, TW_CHK_LIV_01, TW_V_FAIL, -1, "expected a call of %s; got %s",
                             lv->tool_called[i], got);
            return;
        }
    }
    for (size_t c = 0; c < r->msg.ncalls; c++) {
        bool listed = false;
        for (size_t i = 0; i < lv->ntool_called && !listed; i++)
            listed = r->msg.calls[c].name && strcmp(r->msg.calls[c].name, lv->tool_called[i]) == 0;
        if (!listed) {
            tw_check_set_put(out, TW_CHK_LIV_01, TW_V_FAIL, -1,
                             "expected calls of %s only; call %zu names %s (got %s)", want, c,
                             r->msg.calls[c].name ? r->msg.calls[c].name : "(no name)", got);
            return;
        }
    }
    tw_check_set_put(out, TW_CHK_LIV_01, TW_V_PASS, -1, "expected %s; got %s", want, got);
}

static void judge_calls(const tw_fx_live *lv, const tw_result *r, tw_check_set *out)
{
    long n = (long)r->msg.ncalls;
    char want[80];
    if (lv->calls_min >= 0 && lv->calls_max >= 0)
        snprintf(want, sizeof want, "%ld to %ld calls", lv->calls_min, lv->calls_max);
    else if (lv->calls_min >= 0)
        snprintf(want, sizeof want, "at least %ld call(s)", lv->calls_min);
    else
        snprintf(want, sizeof want, "at most %ld call(s)", lv->calls_max);
    bool ok =
        (lv->calls_min < 0 || n >= lv->calls_min) && (lv->calls_max < 0 || n <= lv->calls_max);
    char got[300];
    call_names(r, got, sizeof got);
    tw_check_set_put(out, TW_CHK_LIV_02, ok ? TW_V_PASS : TW_V_FAIL, -1,
                     "expected %s; got %ld (%s)", want, n, got);
}

static tw_status request_tools(const tw_fx_exchange *x, const tw_limits *L, tw_request *rq,
                               tw_error *err)
{
    tw_error_clear(err);
    tw_decode_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.limits = *L;
    tw_api_kind kind = tw_path_kind(x->req.path);
    tw_status st =
        kind == TW_API_OPENAI      ? tw_openai_request_from_json(x->req.body, &ro, rq, err)
        : kind == TW_API_ANTHROPIC ? tw_anthropic_request_from_json(x->req.body, &ro, rq, err)
        : kind == TW_API_GENERATE  ? tw_vllm_request_from_json(x->req.body, &ro, rq, err)
        : kind == TW_API_GEMINI    ? tw_gemini_request_from_json(x->req.body, &ro, rq, err)
        : kind == TW_API_RESPONSES ? tw_responses_request_from_json(x->req.body, &ro, rq, err)
                                   : TW_ERR_UNSUPPORTED;
    if (st != TW_OK && !kind)
        tw_error_set(err, TW_ERR_UNSUPPORTED, -1, NULL, "no request decoder for this path");
    return st;
}

static void judge_arguments(const tw_fx_exchange *x, const tw_result *r, const tw_limits *L,
                            tw_check_set *out)
{
    if (!r->msg.ncalls) {
        tw_check_set_put(out, TW_CHK_LIV_03, TW_V_SKIP, -1, "no call to judge");
        return;
    }
    tw_request rq;
    tw_error why = {.offset = -1};
    if (request_tools(x, L, &rq, &why) != TW_OK) {
        tw_check_set_put(out, TW_CHK_LIV_03, TW_V_FAIL, -1,
                         "the request's tools cannot be read: %s", why.message);
        return;
    }
    for (size_t c = 0; c < r->msg.ncalls; c++) {
        const tw_call *call = &r->msg.calls[c];
        const tw_tool *t = NULL;
        for (size_t i = 0; i < rq.ntools && !t; i++)
            if (call->name && rq.tools[i].name && strcmp(call->name, rq.tools[i].name) == 0)
                t = &rq.tools[i];
        if (!t) {
            tw_check_set_put(
                out, TW_CHK_LIV_03, TW_V_FAIL, -1,
                "expected arguments valid for a declared tool; call %zu names %s, which the "
                "request does not declare",
                c, call->name ? call->name : "(no name)");
            tw_request_free(&rq);
            return;
        }
        if (!call->arguments) {
            tw_check_set_put(out, TW_CHK_LIV_03, TW_V_FAIL, -1,
                             "expected arguments valid against %s's schema; call %zu has none",
                             call->name, c);
            tw_request_free(&rq);
            return;
        }
        tw_error se;
        if (!tw_schema_validate(t->parameters, call->arguments, L->max_depth, &se)) {
            tw_check_set_put(out, TW_CHK_LIV_03, TW_V_FAIL, -1,
                             "expected arguments valid against %s's schema; call %zu: %s",
                             call->name, c, se.message);
            tw_request_free(&rq);
            return;
        }
    }
    tw_check_set_put(out, TW_CHK_LIV_03, TW_V_PASS, -1,
                     "%zu call(s), arguments valid against the declared schemas", r->msg.ncalls);
    tw_request_free(&rq);
}

/* The calls of a and b pair up: same names, equal argument values (in any order). */
static bool calls_agree(const tw_result *a, const tw_result *b, tw_error *err)
{
    if (a->msg.ncalls != b->msg.ncalls) {
        char na[200], nb[200];
        call_names(a, na, sizeof na);
        call_names(b, nb, sizeof nb);
        tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                     "%zu call(s) (%.100s) where the other has %zu (%.100s)", a->msg.ncalls, na,
                     b->msg.ncalls, nb);
        return false;
    }
    size_t n = a->msg.ncalls;
    bool *used = calloc(n ? n : 1, sizeof *used);
    if (!used) {
        tw_error_set(err, TW_ERR_NOMEM, -1, NULL, "out of memory");
        return false;
    }
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        const tw_call *ca = &a->msg.calls[i];
        bool found = false;
        for (size_t k = 0; k < n && !found; k++) {
            const tw_call *cb = &b->msg.calls[k];
            if (used[k] || !ca->name || !cb->name || strcmp(ca->name, cb->name) != 0)
                continue;
            if ((!ca->arguments && !cb->arguments) ||
                (ca->arguments && cb->arguments && tw_json_equal(ca->arguments, cb->arguments)))
                found = used[k] = true;
        }
        if (!found) {
            char *args = ca->arguments ? tw_json_print(ca->arguments, NULL) : NULL;
            tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                         "call %zu %s %.120s has no equal call (same name, same argument values) "
                         "in the other",
                         i, ca->name ? ca->name : "(no name)", args ? args : "(no arguments)");
            free(args);
            ok = false;
        }
    }
    free(used);
    return ok;
}

void tw_live_judge(const tw_fixture *f, size_t k, const tw_live_answer *answers, size_t unresolved,
                   const char *subst_why, const tw_limits *L, tw_check_set *out)
{
    const tw_fx_exchange *x = &f->exchanges[k];
    if (x->nplaceholders) {
        if (unresolved)
            tw_check_set_put(
                out, TW_CHK_LIV_07, TW_V_FAIL, -1,
                "expected every call-id placeholder to name a call the server made; %zu of %zu "
                "did not: %s",
                unresolved, x->nplaceholders, subst_why ? subst_why : "");
        else
            tw_check_set_put(out, TW_CHK_LIV_07, TW_V_PASS, -1,
                             "%zu call-id placeholder(s) replaced by the ids the server produced",
                             x->nplaceholders);
    }
    const tw_fx_live *lv = &x->live;
    if (!lv->json)
        return;
    const tw_live_answer *a = &answers[k];
    static const tw_check_id ids[] = {TW_CHK_LIV_01, TW_CHK_LIV_02, TW_CHK_LIV_03,
                                      TW_CHK_LIV_04, TW_CHK_LIV_05, TW_CHK_LIV_06};
    bool wanted[6] = {lv->ntool_called > 0, lv->calls_min >= 0 || lv->calls_max >= 0,
                      lv->arguments_valid,  lv->text >= 0,
                      lv->reasoning >= 0,   lv->agrees_with >= 0};
    if (!a->decoded) {
        for (size_t i = 0; i < 6; i++)
            if (wanted[i])
                tw_check_set_put(out, ids[i], TW_V_FAIL, -1, "expected an answer to judge; %s",
                                 a->why);
        return;
    }
    const tw_result *r = &a->res;
    if (wanted[0])
        judge_tool_called(lv, r, out);
    if (wanted[1])
        judge_calls(lv, r, out);
    if (wanted[2])
        judge_arguments(x, r, L, out);
    if (wanted[3]) {
        bool got = has_text(&r->msg.content);
        bool ok = got == (lv->text == 1);
        int shown = got ? (int)(r->msg.content.len < 80 ? r->msg.content.len : 80) : 0;
        tw_check_set_put(out, TW_CHK_LIV_04, ok ? TW_V_PASS : TW_V_FAIL, -1,
                         "expected %s; got %s%.*s%s", lv->text == 1 ? "text" : "no text",
                         got ? "text: \"" : "no text", shown, got ? r->msg.content.data : "",
                         got ? "\"" : "");
    }
    if (wanted[4]) {
        bool got = has_text(&r->msg.thinking) || r->msg.has_redacted_thinking;
        bool ok = got == (lv->reasoning == 1);
        tw_check_set_put(out, TW_CHK_LIV_05, ok ? TW_V_PASS : TW_V_FAIL, -1,
                         "expected %s; got %s (%zu bytes)",
                         lv->reasoning == 1 ? "reasoning" : "no reasoning",
                         got ? "reasoning" : "no reasoning", r->msg.thinking.len);
    }
    if (wanted[5]) {
        size_t o = (size_t)lv->agrees_with;
        tw_error why = {.offset = -1};
        if (o >= f->nexchanges || !answers[o].decoded)
            tw_check_set_put(
                out, TW_CHK_LIV_06, TW_V_FAIL, -1,
                "expected the same calls as exchange %zu; it has no answer to compare: %s", o,
                o < f->nexchanges ? answers[o].why : "no such exchange");
        else if (!calls_agree(r, &answers[o].res, &why))
            tw_check_set_put(out, TW_CHK_LIV_06, TW_V_FAIL, -1,
                             "expected the same calls as exchange %zu; got %s", o, why.message);
        else
            tw_check_set_put(out, TW_CHK_LIV_06, TW_V_PASS, -1,
                             "the same %zu call(s) as exchange %zu (names and argument values)",
                             r->msg.ncalls, o);
    }
}

/* ---- the directive ---- */

/* The calls of a and b name the same tools, counted (any order). */
static bool same_names(const tw_result *a, const tw_result *b)
{
    if (a->msg.ncalls != b->msg.ncalls)
        return false;
    for (size_t i = 0; i < a->msg.ncalls; i++) {
        const char *na = a->msg.calls[i].name ? a->msg.calls[i].name : "";
        size_t in_a = 0, in_b = 0;
        for (size_t j = 0; j < a->msg.ncalls; j++) {
            in_a += strcmp(a->msg.calls[j].name ? a->msg.calls[j].name : "", na) == 0;
            in_b += strcmp(b->msg.calls[j].name ? b->msg.calls[j].name : "", na) == 0;
        }
        if (in_a != in_b)
            return false;
    }
    return true;
}

int tw_live_followed(const tw_fx_exchange *x, const tw_live_answer *a, const tw_limits *L,
                     char *why, size_t n)
{
    if (n)
        why[0] = '\0';
    if (!a->decoded || !x->req.body)
        return -1;
    tw_request rq;
    tw_error err = {.offset = -1};
    if (request_tools(x, L, &rq, &err) != TW_OK)
        return -1;
    tw_script_answer sa;
    int rc = -1;
    if (tw_script_answer_for(&rq, L, &sa, &err) == TW_OK) {
        const tw_format_ops *h = tw_format_find("hermes");
        tw_decode_opts o;
        memset(&o, 0, sizeof o);
        o.limits = *L;
        o.tools = rq.tools;
        o.ntools = rq.ntools;
        o.allow_unknown_tool = true;
        tw_result want;
        if (sa.step >= 0 && h &&
            h->decode(sa.model_text.data ? sa.model_text.data : "", sa.model_text.len, &o, &want) ==
                TW_OK) {
            rc = same_names(&want, &a->res);
            if (!rc) {
                char w[300], g[300];
                call_names(&want, w, sizeof w);
                call_names(&a->res, g, sizeof g);
                snprintf(
                    why, n, "step %d of the directive asks for %s%.200s; the answer has %s%.200s",
                    sa.step, want.msg.ncalls ? "a call of " : "", want.msg.ncalls ? w : "no call",
                    a->res.msg.ncalls ? "calls of " : "", a->res.msg.ncalls ? g : "no call");
            }
            tw_result_free(&want);
        }
        tw_script_answer_free(&sa);
    }
    tw_request_free(&rq);
    return rc;
}
