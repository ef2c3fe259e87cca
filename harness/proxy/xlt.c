/* Translation checks XLT-01..XLT-10 (xlt.h). */
#include "xlt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script.h"
#include "toolwire/decode.h"
#include "toolwire/request.h"
#include "toolwire/transcode.h"

static const tw_check_id XLT_IDS[] = {TW_CHK_XLT_01, TW_CHK_XLT_02, TW_CHK_XLT_03, TW_CHK_XLT_04,
                                      TW_CHK_XLT_05, TW_CHK_XLT_06, TW_CHK_XLT_07, TW_CHK_XLT_08,
                                      TW_CHK_XLT_09, TW_CHK_XLT_10};
#define NXLT (sizeof XLT_IDS / sizeof XLT_IDS[0])

#define REQ "upstream request: "
#define ANS "answer to the client: "

void tw_xlt_skip(tw_check_set *out, const char *why)
{
    tw_check_set_skip_family(out, TW_CHF_PROXY, why);
}

/* ---- helpers ---- */

/* The comparisons json_where makes at most to name one difference. */
#define WHERE_BUDGET (1L << 20)

/* The first place where a and b differ as JSON values, as a JSON pointer
 * (path holds the prefix on entry). Comparisons are bounded by *budget. */
static void json_where(const cJSON *a, const cJSON *b, char *path, size_t plen, long *budget)
{
    if (--*budget < 0 || !a || !b)
        return;
    int ta = a->type & 0xFF, tb = b->type & 0xFF;
    if (ta != tb || (ta != cJSON_Object && ta != cJSON_Array))
        return;
    size_t used = strlen(path);
    if (ta == cJSON_Array) {
        size_t i = 0;
        const cJSON *x = a->child, *y = b->child;
        for (; x && y; x = x->next, y = y->next, i++)
            if (!tw_json_equal(x, y)) {
                snprintf(path + used, plen - used, "/%zu", i);
                json_where(x, y, path, plen, budget);
                return;
            }
        if (x || y)
            snprintf(path + used, plen - used, "/%zu", i);
        return;
    }
    for (const cJSON *x = a->child; x; x = x->next) {
        if (--*budget < 0)
            return;
        const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, x->string);
        if (!y || !tw_json_equal(x, y)) {
            snprintf(path + used, plen - used, "/%.60s", x->string ? x->string : "");
            if (y)
                json_where(x, y, path, plen, budget);
            else
                snprintf(path + strlen(path), plen - strlen(path), " (lost)");
            return;
        }
    }
    for (const cJSON *y = b->child; y; y = y->next) {
        if (--*budget < 0)
            return;
        if (!cJSON_GetObjectItemCaseSensitive(a, y->string)) {
            snprintf(path + used, plen - used, "/%.60s (added)", y->string ? y->string : "");
            return;
        }
    }
}

/* A short excerpt of n bytes for evidence. */
static void excerpt(char *dst, size_t dn, const char *s, size_t n)
{
    size_t k = n < 60 ? n : 60;
    snprintf(dst, dn, "\"%.*s%s\"", (int)k, s ? s : "", n > k ? "…" : "");
}

static bool same_bytes(const tw_buf *a, const tw_buf *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

/* The bytes of s without ASCII whitespace at both ends. */
static void trimmed(const tw_buf *b, const char **p, size_t *n)
{
    *p = b->data ? b->data : "";
    *n = b->len;
    tw_trim(p, n);
}

static bool same_trimmed(const tw_buf *a, const tw_buf *b)
{
    const char *p, *q;
    size_t n, m;
    trimmed(a, &p, &n);
    trimmed(b, &q, &m);
    return n == m && (n == 0 || memcmp(p, q, n) == 0);
}

/* One reasoning setting read: a name for the evidence and on (1) or off (0). */
static void setting(int v, const char *name, int *on, int *off, char *why, size_t n)
{
    int *k = v ? on : off;
    if ((*k)++ == 0 && why) {
        size_t used = strlen(why);
        snprintf(why + used, n - used, "%s%s", used ? " beside " : "", name);
    }
}

static bool effort_on(const cJSON *e)
{
    return strcmp(e->valuestring, "none") != 0 && strcmp(e->valuestring, "minimal") != 0;
}

int tw_xlt_reasoning_enabled(tw_api_kind kind, const cJSON *body, char *why, size_t n)
{
    if (why && n)
        why[0] = '\0';
    if (!cJSON_IsObject(body) || (kind != TW_API_ANTHROPIC && kind != TW_API_OPENAI))
        return -1;
    int on = 0, off = 0;
    /* every setting docs/checks.md names, each read on its own */
    const char *tt = tw_json_get_str(tw_json_get(body, "thinking"), "type");
    if (tt && (strcmp(tt, "enabled") == 0 || strcmp(tt, "disabled") == 0))
        setting(tt[0] == 'e', tt[0] == 'e' ? "thinking.type: enabled" : "thinking.type: disabled",
                &on, &off, why, n);
    if (kind == TW_API_OPENAI) {
        const cJSON *e = tw_json_get(body, "reasoning_effort");
        if (cJSON_IsString(e))
            setting(effort_on(e),
                    effort_on(e) ? "reasoning_effort on" : "reasoning_effort none/minimal", &on,
                    &off, why, n);
        const cJSON *r = tw_json_get(body, "reasoning");
        if (cJSON_IsObject(r)) {
            const cJSON *en = tw_json_get(r, "enabled"), *re = tw_json_get(r, "effort");
            if (cJSON_IsBool(en))
                setting(cJSON_IsTrue(en),
                        cJSON_IsTrue(en) ? "reasoning.enabled: true" : "reasoning.enabled: false",
                        &on, &off, why, n);
            if (cJSON_IsString(re))
                setting(effort_on(re),
                        effort_on(re) ? "reasoning.effort on" : "reasoning.effort none/minimal",
                        &on, &off, why, n);
            if (!cJSON_IsBool(en) && !cJSON_IsString(re))
                setting(1, "a reasoning object", &on, &off, why, n);
        }
        const cJSON *et = tw_json_get(tw_json_get(body, "chat_template_kwargs"), "enable_thinking");
        if (cJSON_IsBool(et))
            setting(cJSON_IsTrue(et),
                    cJSON_IsTrue(et) ? "chat_template_kwargs.enable_thinking: true"
                                     : "chat_template_kwargs.enable_thinking: false",
                    &on, &off, why, n);
    }
    if (on && off)
        return 2;
    return on > 0;
}

static const char *choice_name(tw_choice c)
{
    switch (c) {
    case TW_CHOICE_AUTO: return "auto";
    case TW_CHOICE_NONE: return "none";
    case TW_CHOICE_REQUIRED: return "required";
    case TW_CHOICE_NAMED: return "named";
    default: return "unset";
    }
}

/* ---- request translation ---- */

static void xlt_tools(const tw_request *s, const tw_request *a, tw_check_set *out)
{
    if (!s->ntools && !a->ntools) {
        tw_check_set_put(out, TW_CHK_XLT_02, TW_V_SKIP, -1, REQ "no tools sent or arrived");
        return;
    }
    for (size_t i = 0; i < s->ntools; i++) {
        const tw_tool *t = &s->tools[i];
        const tw_tool *u = i < a->ntools ? &a->tools[i] : NULL;
        if (!u || strcmp(u->name ? u->name : "", t->name ? t->name : "") != 0) {
            const tw_tool *any = tw_tools_find(a->tools, a->ntools, t->name ? t->name : "");
            if (!any) {
                tw_check_set_put(out, TW_CHK_XLT_02, TW_V_FAIL, -1,
                                 REQ "tool %.64s was sent, not forwarded (%zu of %zu arrived)",
                                 t->name ? t->name : "", a->ntools, s->ntools);
                return;
            }
            if (!u) {
                u = any;
            } else {
                tw_check_set_put(out, TW_CHK_XLT_02, TW_V_FAIL, -1,
                                 REQ "tools[%zu] is %.64s, sent %.64s (order changed)", i,
                                 u->name ? u->name : "", t->name ? t->name : "");
                return;
            }
        }
        const char *d1 = t->description ? t->description : "",
                   *d2 = u->description ? u->description : "";
        if (strcmp(d1, d2) != 0) {
            char e1[80], e2[80];
            excerpt(e1, sizeof e1, d1, strlen(d1));
            excerpt(e2, sizeof e2, d2, strlen(d2));
            tw_check_set_put(out, TW_CHK_XLT_02, TW_V_FAIL, -1,
                             REQ "tool %.64s: description sent %s, arrived %s", t->name, e1, e2);
            return;
        }
        if (!tw_json_equal(t->parameters, u->parameters)) {
            char where[200] = "";
            long budget = WHERE_BUDGET;
            if (!t->parameters || !u->parameters)
                snprintf(where, sizeof where, " (%s)", t->parameters ? "lost" : "added");
            else
                json_where(t->parameters, u->parameters, where, sizeof where, &budget);
            tw_check_set_put(out, TW_CHK_XLT_02, TW_V_FAIL, -1,
                             REQ "tool %.64s: parameters schema differs at %s", t->name,
                             where[0] ? where : "/");
            return;
        }
    }
    if (a->ntools > s->ntools) {
        tw_check_set_put(out, TW_CHK_XLT_02, TW_V_FAIL, -1,
                         REQ "%zu tool(s) arrived, %zu sent (tools[%zu] %.64s added)", a->ntools,
                         s->ntools, s->ntools,
                         a->tools[s->ntools].name ? a->tools[s->ntools].name : "");
        return;
    }
    tw_check_set_put(out, TW_CHK_XLT_02, TW_V_PASS, -1,
                     REQ "%zu tool(s) with names, descriptions and schemas intact", s->ntools);
}

/* Messages other than tool results, with their text (XLT-03). */
static void xlt_messages(const tw_request *s, const tw_request *a, tw_check_set *out)
{
    size_t i = 0, j = 0, n = 0;
    for (;; i++, j++) {
        while (i < s->nmessages && s->messages[i].role == TW_ROLE_TOOL)
            i++;
        while (j < a->nmessages && a->messages[j].role == TW_ROLE_TOOL)
            j++;
        /* an assistant message that carries only calls may merge or split: compare text only */
        while (i < s->nmessages && j < a->nmessages && s->messages[i].role == TW_ROLE_ASSISTANT &&
               a->messages[j].role == TW_ROLE_ASSISTANT && !s->messages[i].content.len &&
               !a->messages[j].content.len &&
               (i + 1 < s->nmessages && s->messages[i + 1].role == TW_ROLE_ASSISTANT))
            i++;
        if (i >= s->nmessages || j >= a->nmessages)
            break;
        const tw_message *m = &s->messages[i], *u = &a->messages[j];
        if (m->role != u->role) {
            tw_check_set_put(out, TW_CHK_XLT_03, TW_V_FAIL, -1,
                             REQ "message %zu: sent role %s, arrived role %s", n,
                             tw_role_name(m->role), tw_role_name(u->role));
            return;
        }
        if (!same_bytes(&m->content, &u->content)) {
            char e1[80], e2[80];
            excerpt(e1, sizeof e1, m->content.data, m->content.len);
            excerpt(e2, sizeof e2, u->content.data, u->content.len);
            tw_check_set_put(out, TW_CHK_XLT_03, TW_V_FAIL, -1,
                             REQ "%s message %zu: text sent %s (%zu bytes), arrived %s (%zu bytes)",
                             tw_role_name(m->role), n, e1, m->content.len, e2, u->content.len);
            return;
        }
        n++;
    }
    if (i < s->nmessages || j < a->nmessages) {
        const tw_message *x = i < s->nmessages ? &s->messages[i] : &a->messages[j];
        tw_check_set_put(out, TW_CHK_XLT_03, TW_V_FAIL, -1, REQ "%s message %zu %s",
                         tw_role_name(x->role), n,
                         i < s->nmessages ? "was sent, not forwarded" : "arrived, never sent");
        return;
    }
    tw_check_set_put(out, TW_CHK_XLT_03, TW_V_PASS, -1,
                     REQ "%zu message(s) with roles and text intact", n);
}

/* Tool calls of the history and their results (XLT-04). */
static void xlt_calls(const tw_request *s, const tw_request *a, tw_check_set *out)
{
    size_t ci = 0, cj = 0;
    size_t ncalls = 0, nres = 0;
    for (size_t i = 0; i < s->nmessages; i++) {
        ncalls += s->messages[i].role == TW_ROLE_ASSISTANT ? s->messages[i].ncalls : 0;
        nres += s->messages[i].role == TW_ROLE_TOOL;
    }
    size_t acalls = 0, ares = 0;
    for (size_t j = 0; j < a->nmessages; j++) {
        acalls += a->messages[j].role == TW_ROLE_ASSISTANT ? a->messages[j].ncalls : 0;
        ares += a->messages[j].role == TW_ROLE_TOOL;
    }
    if (!ncalls && !nres && !acalls && !ares) {
        tw_check_set_put(out, TW_CHK_XLT_04, TW_V_SKIP, -1,
                         REQ "no tool calls or results in the history");
        return;
    }
    if (ncalls != acalls || nres != ares) {
        tw_check_set_put(out, TW_CHK_XLT_04, TW_V_FAIL, -1,
                         REQ "sent %zu call(s) and %zu result(s), arrived %zu and %zu", ncalls,
                         nres, acalls, ares);
        return;
    }
    /* walk both histories call by call and result by result, in order */
    size_t i = 0, j = 0, k = 0;
    while (1) {
        while (i < s->nmessages &&
               !(s->messages[i].role == TW_ROLE_ASSISTANT && ci < s->messages[i].ncalls)) {
            i++;
            ci = 0;
        }
        while (j < a->nmessages &&
               !(a->messages[j].role == TW_ROLE_ASSISTANT && cj < a->messages[j].ncalls)) {
            j++;
            cj = 0;
        }
        if (i >= s->nmessages || j >= a->nmessages)
            break;
        const tw_call *x = &s->messages[i].calls[ci++], *y = &a->messages[j].calls[cj++];
        if (strcmp(x->name ? x->name : "", y->name ? y->name : "") != 0) {
            tw_check_set_put(out, TW_CHK_XLT_04, TW_V_FAIL, -1,
                             REQ "history call %zu: sent %.64s, arrived %.64s", k,
                             x->name ? x->name : "", y->name ? y->name : "");
            return;
        }
        if (!tw_json_equal(x->arguments, y->arguments)) {
            char where[200] = "";
            long budget = WHERE_BUDGET;
            json_where(x->arguments, y->arguments, where, sizeof where, &budget);
            tw_check_set_put(out, TW_CHK_XLT_04, TW_V_FAIL, -1,
                             REQ "history call %zu (%.64s): arguments differ at %s", k,
                             x->name ? x->name : "", where[0] ? where : "/");
            return;
        }
        /* the result answering this call, by id on each side */
        const tw_message *rx = NULL, *ry = NULL;
        for (size_t m = i; m < s->nmessages && !rx; m++)
            if (s->messages[m].role == TW_ROLE_TOOL && s->messages[m].tool_call_id && x->id &&
                strcmp(s->messages[m].tool_call_id, x->id) == 0)
                rx = &s->messages[m];
        for (size_t m = j; m < a->nmessages && !ry; m++)
            if (a->messages[m].role == TW_ROLE_TOOL && a->messages[m].tool_call_id && y->id &&
                strcmp(a->messages[m].tool_call_id, y->id) == 0)
                ry = &a->messages[m];
        if (rx && !ry) {
            tw_check_set_put(
                out, TW_CHK_XLT_04, TW_V_FAIL, -1,
                REQ "history call %zu (%.64s, id %.64s upstream): no tool result carries its id", k,
                y->name ? y->name : "", y->id ? y->id : "(none)");
            return;
        }
        if (rx && ry) {
            if (!same_bytes(&rx->content, &ry->content)) {
                char e1[80], e2[80];
                excerpt(e1, sizeof e1, rx->content.data, rx->content.len);
                excerpt(e2, sizeof e2, ry->content.data, ry->content.len);
                tw_check_set_put(out, TW_CHK_XLT_04, TW_V_FAIL, -1,
                                 REQ "result of call %zu (%.64s): sent %s, arrived %s", k,
                                 x->name ? x->name : "", e1, e2);
                return;
            }
            if (rx->is_error != ry->is_error) {
                tw_check_set_put(out, TW_CHK_XLT_04, TW_V_FAIL, -1,
                                 REQ "result of call %zu (%.64s): error flag sent %s, arrived %s",
                                 k, x->name ? x->name : "", rx->is_error ? "true" : "false",
                                 ry->is_error ? "true" : "false");
                return;
            }
        }
        k++;
    }
    tw_check_set_put(out, TW_CHK_XLT_04, TW_V_PASS, -1,
                     REQ "%zu history call(s) and %zu result(s) intact, results paired by id",
                     ncalls, nres);
}

static void xlt_choice(const tw_request *s, const tw_request *a, tw_check_set *out)
{
    if (!s->ntools && !a->ntools && s->choice == TW_CHOICE_UNSET) {
        tw_check_set_put(out, TW_CHK_XLT_05, TW_V_SKIP, -1, REQ "no tools and no tool_choice");
        return;
    }
    tw_choice cs = s->choice == TW_CHOICE_UNSET ? TW_CHOICE_AUTO : s->choice;
    tw_choice ca = a->choice == TW_CHOICE_UNSET ? TW_CHOICE_AUTO : a->choice;
    if (cs != ca || (cs == TW_CHOICE_NAMED && strcmp(s->choice_name ? s->choice_name : "",
                                                     a->choice_name ? a->choice_name : "") != 0)) {
        tw_check_set_put(out, TW_CHK_XLT_05, TW_V_FAIL, -1,
                         REQ "tool_choice sent %s%s%.64s, arrived %s%s%.64s",
                         choice_name(s->choice), cs == TW_CHOICE_NAMED ? " " : "",
                         cs == TW_CHOICE_NAMED && s->choice_name ? s->choice_name : "",
                         choice_name(a->choice), ca == TW_CHOICE_NAMED ? " " : "",
                         ca == TW_CHOICE_NAMED && a->choice_name ? a->choice_name : "");
        return;
    }
    /* under tool_choice none no call can be made: the parallel setting is moot. Unset
     * reads as both APIs' default: parallel calls allowed */
    int ps = s->parallel_tool_calls != 0, pa = a->parallel_tool_calls != 0;
    if (cs != TW_CHOICE_NONE && ps != pa) {
        tw_check_set_put(out, TW_CHK_XLT_05, TW_V_FAIL, -1,
                         REQ "parallel tool calls sent %s, arrived %s",
                         s->parallel_tool_calls < 0 ? "unset (allowed)"
                         : ps                       ? "allowed"
                                                    : "disabled",
                         a->parallel_tool_calls < 0 ? "unset (allowed)"
                         : pa                       ? "allowed"
                                                    : "disabled");
        return;
    }
    tw_check_set_put(out, TW_CHK_XLT_05, TW_V_PASS, -1, REQ "tool_choice %s%s%.64s",
                     choice_name(cs), cs == TW_CHOICE_NAMED ? " " : "",
                     cs == TW_CHOICE_NAMED && s->choice_name ? s->choice_name : "");
}

static void xlt_reasoning(const cJSON *sent_body, tw_api_kind sent_kind,
                          const tw_upstream_record *r, tw_check_set *out)
{
    tw_api_kind akind = tw_path_kind(r->path);
    char ws[240], wa[240];
    int s = tw_xlt_reasoning_enabled(sent_kind, sent_body, ws, sizeof ws);
    int a = tw_xlt_reasoning_enabled(akind, r->body, wa, sizeof wa);
    if (s < 0 || a < 0) {
        tw_check_set_put(out, TW_CHK_XLT_06, TW_V_SKIP, -1, REQ "no reasoning setting read for %s",
                         s < 0 ? "the sent request's format" : "the upstream's format");
        return;
    }
    /* settings that contradict each other on one side are reported, not read as one of them */
    if (s == 2 || a == 2) {
        tw_check_set_put(out, TW_CHK_XLT_06, TW_V_FAIL, -1,
                         REQ "reasoning settings conflict %s: %s",
                         a == 2 ? "upstream" : "in the sent request", a == 2 ? wa : ws);
        return;
    }
    if (s != a) {
        tw_check_set_put(out, TW_CHK_XLT_06, TW_V_FAIL, -1,
                         REQ "reasoning %s in the sent request, %s upstream",
                         s ? "enabled" : "not enabled", a ? "enabled" : "not enabled");
        return;
    }
    tw_check_set_put(out, TW_CHK_XLT_06, TW_V_PASS, -1, REQ "reasoning %s on both sides",
                     s ? "enabled" : "not enabled");
}

void tw_xlt_request(const tw_request *sent, const cJSON *sent_body, tw_api_kind sent_kind,
                    const tw_upstream_record *arrived, size_t narrived, const char *nonce,
                    tw_check_set *out)
{
    if (!arrived) {
        if (nonce)
            tw_check_set_put(out, TW_CHK_XLT_01, TW_V_FAIL, -1,
                             REQ
                             "none carrying nonce %.80s arrived (%zu other upstream request(s))",
                             nonce, narrived);
        else
            tw_check_set_put(out, TW_CHK_XLT_01, TW_V_FAIL, -1,
                             REQ "none arrived during the exchange (%zu upstream request(s))",
                             narrived);
        tw_xlt_skip(out, "nothing arrived upstream to compare (XLT-01)");
        return;
    }
    if (!arrived->decoded) {
        tw_check_set_put(out, TW_CHK_XLT_01, TW_V_FAIL, -1, REQ "%s %.200s: %.200s", "arrived at",
                         arrived->path, arrived->why);
        tw_xlt_skip(out, "the upstream request did not decode (XLT-01)");
        return;
    }
    tw_check_set_put(out, TW_CHK_XLT_01, TW_V_PASS, -1,
                     REQ "arrived at %.100s%s%.80s (%zu upstream request(s))", arrived->path,
                     nonce ? " with nonce " : "", nonce ? nonce : "", narrived);
    if (!sent) {
        for (size_t i = 1; i < 6; i++)
            tw_check_set_put(out, XLT_IDS[i], TW_V_SKIP, -1,
                             REQ "the sent request does not decode");
        return;
    }
    xlt_tools(sent, &arrived->req, out);
    xlt_messages(sent, &arrived->req, out);
    xlt_calls(sent, &arrived->req, out);
    xlt_choice(sent, &arrived->req, out);
    xlt_reasoning(sent_body, sent_kind, arrived, out);
}

/* ---- answer translation ---- */

static const char *norm_finish(const char *f)
{
    if (!f || !*f)
        return "(none)";
    if (strcmp(f, "tool_use") == 0)
        return "tool_calls";
    if (strcmp(f, "end_turn") == 0 || strcmp(f, "stop_sequence") == 0)
        return "stop";
    if (strcmp(f, "max_tokens") == 0)
        return "length";
    return f;
}

/* A finish reason of norm_finish's names as the client's format spells it
 * (kind of its path: TW_API_ANTHROPIC Anthropic's; the others use the OpenAI names). */
static const char *client_finish(const char *norm, tw_api_kind kind)
{
    if (kind != TW_API_ANTHROPIC)
        return norm;
    static const char *const map[][2] = {
        {"tool_calls", "tool_use"}, {"stop", "end_turn"}, {"length", "max_tokens"}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(norm, map[i][0]) == 0)
            return map[i][1];
    return norm;
}

void tw_xlt_answer(const tw_upstream_record *arrived, const char *client_path, bool stream,
                   int status, const char *body, size_t len, const tw_limits *limits,
                   tw_check_set *out)
{
    if (!arrived || !arrived->model_text || arrived->status != 200) {
        for (size_t i = 6; i < NXLT; i++)
            tw_check_set_put(out, XLT_IDS[i], TW_V_SKIP, -1, ANS "%s",
                             arrived ? "the upstream answered no script text"
                                     : "nothing arrived upstream");
        return;
    }
    if (status < 200 || status >= 300) {
        tw_check_set_put(out, TW_CHK_XLT_07, TW_V_FAIL, -1,
                         ANS "HTTP %d where the upstream answered 200", status);
        for (size_t i = 7; i < NXLT; i++)
            tw_check_set_put(out, XLT_IDS[i], TW_V_SKIP, -1, ANS "no answer to compare (XLT-07)");
        return;
    }
    tw_limits L;
    tw_limits_resolve(&L, limits);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits = L;
    o.tools = arrived->req.tools;
    o.ntools = arrived->req.ntools;
    o.allow_unknown_tool = true;
    o.schema_warn = true;
    tw_result want, got;
    const tw_format_ops *h = tw_format_find("hermes");
    tw_status st = h ? h->decode(arrived->model_text, strlen(arrived->model_text), &o, &want)
                     : TW_ERR_UNSUPPORTED;
    if (st != TW_OK) {
        for (size_t i = 6; i < NXLT; i++)
            tw_check_set_put(out, XLT_IDS[i], TW_V_SKIP, -1,
                             ANS "the script's text does not decode: %s", tw_code_message(st));
        return;
    }
    st = tw_decode_response(client_path, stream, body, len, &o, &got);
    if (st != TW_OK) {
        tw_check_set_put(out, TW_CHK_XLT_07, TW_V_FAIL, -1,
                         ANS "the answer does not decode (%s): %s", stream ? "stream" : "body",
                         tw_code_message(st));
        for (size_t i = 7; i < NXLT; i++)
            tw_check_set_put(out, XLT_IDS[i], TW_V_SKIP, -1, ANS "no answer to compare (XLT-07)");
        tw_result_free(&want);
        return;
    }
    /* XLT-07: calls */
    const tw_message *w = &want.msg, *g = &got.msg;
    bool calls_ok = true;
    if (w->ncalls != g->ncalls) {
        tw_check_set_put(out, TW_CHK_XLT_07, TW_V_FAIL, -1, ANS "%zu call(s), the script wrote %zu",
                         g->ncalls, w->ncalls);
        calls_ok = false;
    }
    for (size_t i = 0; calls_ok && i < w->ncalls; i++) {
        const tw_call *x = &w->calls[i], *y = &g->calls[i];
        if (strcmp(x->name ? x->name : "", y->name ? y->name : "") != 0) {
            tw_check_set_put(out, TW_CHK_XLT_07, TW_V_FAIL, -1,
                             ANS "call %zu is %.64s, the script wrote %.64s", i,
                             y->name ? y->name : "", x->name ? x->name : "");
            calls_ok = false;
        } else if (!tw_json_equal(x->arguments, y->arguments)) {
            char where[200] = "";
            long budget = WHERE_BUDGET;
            json_where(x->arguments, y->arguments, where, sizeof where, &budget);
            tw_check_set_put(out, TW_CHK_XLT_07, TW_V_FAIL, -1,
                             ANS "call %zu (%.64s): arguments differ at %s", i,
                             x->name ? x->name : "", where[0] ? where : "/");
            calls_ok = false;
        }
    }
    if (calls_ok)
        tw_check_set_put(out, TW_CHK_XLT_07, TW_V_PASS, -1,
                         ANS "%zu call(s) as the script wrote them", w->ncalls);
    /* XLT-08: text */
    if (same_trimmed(&w->content, &g->content)) {
        tw_check_set_put(out, TW_CHK_XLT_08, TW_V_PASS, -1,
                         ANS "text as the script wrote it (%zu bytes)", w->content.len);
    } else {
        char e1[80], e2[80];
        const char *p, *q;
        size_t n, m;
        trimmed(&w->content, &p, &n);
        trimmed(&g->content, &q, &m);
        excerpt(e1, sizeof e1, p, n);
        excerpt(e2, sizeof e2, q, m);
        tw_check_set_put(out, TW_CHK_XLT_08, TW_V_FAIL, -1,
                         ANS "text %s (%zu bytes), the script wrote %s (%zu bytes)", e2, m, e1, n);
    }
    /* XLT-09: reasoning */
    if (!w->thinking.len && !g->thinking.len)
        tw_check_set_put(out, TW_CHK_XLT_09, TW_V_SKIP, -1,
                         ANS "the script wrote no reasoning, none arrived");
    else if (same_trimmed(&w->thinking, &g->thinking))
        tw_check_set_put(out, TW_CHK_XLT_09, TW_V_PASS, -1,
                         ANS "reasoning as the script wrote it (%zu bytes)", w->thinking.len);
    else if (!g->thinking.len)
        tw_check_set_put(out, TW_CHK_XLT_09, TW_V_FAIL, -1,
                         ANS "no reasoning, the script wrote %zu bytes", w->thinking.len);
    else {
        char e1[80], e2[80];
        const char *p, *q;
        size_t n, m;
        trimmed(&w->thinking, &p, &n);
        trimmed(&g->thinking, &q, &m);
        excerpt(e1, sizeof e1, p, n);
        excerpt(e2, sizeof e2, q, m);
        tw_check_set_put(out, TW_CHK_XLT_09, TW_V_FAIL, -1, ANS "reasoning %s, the script wrote %s",
                         e2, e1);
    }
    /* XLT-10: finish reason */
    const char *fw = norm_finish(want.finish_reason), *fg = norm_finish(got.finish_reason);
    if (strcmp(fw, fg) == 0)
        tw_check_set_put(out, TW_CHK_XLT_10, TW_V_PASS, -1, ANS "finish reason %s",
                         client_finish(fg, tw_path_kind(client_path)));
    else
        tw_check_set_put(out, TW_CHK_XLT_10, TW_V_FAIL, -1,
                         ANS "finish reason %.40s, the script's answer ends with %s",
                         client_finish(fg, tw_path_kind(client_path)),
                         client_finish(fw, tw_path_kind(client_path)));
    tw_result_free(&want);
    tw_result_free(&got);
}

/* ---- the run's side ---- */

tw_status tw_proxied_start(const char *format, unsigned short port, const char *proxy,
                           const char *base_url, const tw_limits *limits, tw_proxied *out,
                           tw_error *err)
{
    memset(out, 0, sizeof *out);
    tw_upstream_opts uo;
    memset(&uo, 0, sizeof uo);
    uo.format = format;
    uo.port = port;
    uo.limits = *limits;
    tw_status st = tw_upstream_start(&uo, &out->up, err);
    if (st != TW_OK)
        return st;
    if (proxy) {
        char from[16], to[16];
        if (!tw_refproxy_spec_parse(proxy, from, sizeof from, to, sizeof to, err)) {
            tw_proxied_stop(out);
            return TW_ERR_INVALID;
        }
        if (strcmp(to, format) != 0) {
            tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                         "the reference proxy %s writes %s, the upstream speaks %s", proxy, to,
                         format);
            tw_proxied_stop(out);
            return TW_ERR_INVALID;
        }
        tw_refproxy_opts po;
        memset(&po, 0, sizeof po);
        po.from = from;
        po.to = to;
        po.upstream = tw_upstream_url(out->up);
        po.limits = *limits;
        po.client.max_retries = 0;
        st = tw_refproxy_start(&po, &out->rp, err);
        if (st != TW_OK) {
            tw_proxied_stop(out);
            return st;
        }
        snprintf(out->target, sizeof out->target, "reference proxy %s, embedded %s upstream", proxy,
                 format);
    } else {
        snprintf(out->target, sizeof out->target, "%.300s, upstream %s@%u",
                 base_url ? base_url : "", format, tw_upstream_port(out->up));
    }
    return TW_OK;
}

const char *tw_proxied_url(const tw_proxied *p, const char *base_url)
{
    return p->rp ? tw_refproxy_url(p->rp) : base_url;
}

void tw_proxied_stop(tw_proxied *p)
{
    tw_refproxy_stop(p->rp);
    tw_upstream_stop(p->up);
    memset(p, 0, sizeof *p);
}

static tw_status sent_request(tw_api_kind kind, const cJSON *body, const tw_limits *L,
                              tw_request *out)
{
    memset(out, 0, sizeof *out);
    out->parallel_tool_calls = -1;
    if (!cJSON_IsObject(body))
        return TW_ERR_INVALID;
    tw_decode_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.limits = *L;
    if (kind == TW_API_ANTHROPIC)
        return tw_anthropic_request_from_json(body, &ro, out, NULL);
    if (kind == TW_API_OPENAI)
        return tw_openai_request_from_json(body, &ro, out, NULL);
    size_t len = 0;
    char *text = tw_json_print(body, &len);
    if (!text)
        return TW_ERR_NOMEM;
    tw_decode_opts d;
    memset(&d, 0, sizeof d);
    d.limits = *L;
    tw_neutral_value v;
    tw_status st = tw_transcode_read("vllm-generate-request", text, len, &d, &v, NULL, NULL);
    free(text);
    if (st != TW_OK)
        return st;
    *out = v.req;
    return TW_OK;
}

void tw_xlt_exchange(tw_upstream *up, unsigned long since, const char *path, const cJSON *req_body,
                     bool stream, const tw_http_response *r, const tw_limits *limits,
                     tw_check_set *client, tw_check_set *xlt)
{
    tw_limits L;
    tw_limits_resolve(&L, limits);
    tw_upstream_record *recs = NULL;
    size_t n = 0;
    tw_upstream_take(up, since, &recs, &n);
    tw_api_kind kind = tw_path_kind(path);
    tw_request sent;
    bool have_sent = sent_request(kind, req_body, &L, &sent) == TW_OK;
    char *nonce = have_sent ? tw_script_nonce(&sent) : NULL;
    /* the last upstream request of the exchange with its nonce (retries come later) */
    const tw_upstream_record *pair = NULL;
    for (size_t i = n; i-- > 0 && !pair;)
        if (nonce ? recs[i].nonce && strcmp(recs[i].nonce, nonce) == 0 : true)
            pair = &recs[i];
    /* a request that did not decode upstream has no nonce: it is the exchange's when
     * nothing else carried the nonce (XLT-01 then names why it did not decode) */
    for (size_t i = n; i-- > 0 && !pair && nonce;)
        if (!recs[i].decoded)
            pair = &recs[i];
    if (pair) {
        for (size_t i = 0; i < pair->checks.len; i++) {
            const tw_check_result *c = &pair->checks.items[i];
            tw_check_set_put(client, c->check, c->verdict, c->offset, REQ "%s", c->evidence);
        }
    }
    tw_check_set_fill(client, true, REQ "none arrived to judge");
    tw_xlt_request(have_sent ? &sent : NULL, req_body, kind, pair, n, nonce, xlt);
    tw_xlt_answer(pair, path, stream, r->status, r->body.data ? r->body.data : "", r->body.len, &L,
                  xlt);
    tw_xlt_skip(xlt, "not judged");
    free(nonce);
    if (have_sent)
        tw_request_free(&sent);
    tw_upstream_records_free(recs, n);
}
