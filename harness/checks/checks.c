/*
 * The dispatcher of the conformance checks (docs/checks.md), on top of the
 * families: it judges the HTTP status, runs the families of the exchange's
 * format (check_table.c) and skips what none of them judged. Structural
 * checks read the received bytes directly (JSON bodies, SSE events, chunk by
 * chunk) so that they can say where a rule broke; result-level comparisons
 * use the reference decoders when they are available.
 */
#include "checks_int.h"

/* ================================================================ entry points */

/* RSP-01: the status the fixture expects (its recorded response's, or a
 * success for exchanges the mock builds from model text) against the one
 * that arrived. */
static void http_status_check(const tw_judge_input *in, tw_check_set *out)
{
    if (!in->ex) {
        PUT(out, TW_CHK_RSP_01, TW_V_SKIP, -1, "no fixture expectation");
        return;
    }
    int want = in->ex->has_response ? in->ex->resp.status : 200;
    char cb[312];
    if (want >= 400) {
        PUT(out, TW_CHK_RSP_01, TW_V_SKIP, -1,
            "the fixture expects an error status (HTTP %d), got HTTP %d", want, in->status);
        return;
    }
    if (in->status == 0) {
        PUT(out, TW_CHK_RSP_01, TW_V_FAIL, -1, "no response: %s",
            tw_chk_clip(cb, sizeof cb,
                        in->transport_error ? in->transport_error : "the transfer failed", 300));
        return;
    }
    if (in->status >= 400) {
        char ex[200];
        tw_chk_excerpt(ex, sizeof ex, in->body ? in->body : "", in->body_len);
        PUT(out, TW_CHK_RSP_01, TW_V_FAIL, 0, "HTTP %d where the fixture expects a success: %s",
            in->status, ex);
        return;
    }
    PUT(out, TW_CHK_RSP_01, TW_V_PASS, -1, "HTTP %d%s%s", in->status,
        in->transport_error ? ", transfer broke: " : "",
        tw_chk_clip(cb, sizeof cb, in->transport_error, 200));
}

static bool request_streams(const cJSON *req)
{
    return cJSON_IsTrue(tw_json_get(req, "stream"));
}

/*
 * The families that judge each format's exchanges (by the API of the path),
 * in the order they run, and why the checks none of them judged are skipped:
 * taken from the table of formats (src/format_table.h, the families column;
 * the families themselves are registered in check_table.c).
 */
typedef struct format_checks {
    tw_api_kind kind;        /* tw_path_kind; TW_API_NONE: any other path */
    const char *families[8]; /* NULL-ended */
    const char *elsewhere;   /* the skip of every other backend check */
} format_checks;

static const format_checks FORMATS[] = {
#define TW_X_FORMAT_CHECKS(ID, code, be, p1, p2, how, resp, strm, sc, fams)                        \
    {TW_API_##ID, {TW_TABLE_UNPAREN fams, NULL}, sc},
    TW_API_TABLE(TW_X_FORMAT_CHECKS) /* the table of formats (src/format_table.h) */
#undef TW_X_FORMAT_CHECKS
    {TW_API_NONE, {"hermes", NULL}, "unknown endpoint"},
};

static const format_checks *format_of(tw_api_kind kind)
{
    size_t n = sizeof FORMATS / sizeof FORMATS[0];
    for (size_t i = 0; i + 1 < n; i++)
        if (FORMATS[i].kind == kind)
            return &FORMATS[i];
    return &FORMATS[n - 1];
}

const char *const *tw_checks_families_of(tw_api_kind kind)
{
    return format_of(kind)->families;
}

void tw_checks_backend(const tw_judge_input *in, tw_check_set *out)
{
    judge j = {in, out, {0}};
    tw_limits_resolve(&j.L, in->limits);
    tw_api_kind kind = tw_path_kind(in->path);
    /* /generate has no streamed form: a "stream" key in its request changes
     * nothing, only an event-stream answer is judged as a stream */
    bool stream =
        (kind != TW_API_GENERATE && kind != TW_API_GEMINI && request_streams(in->req_body)) ||
        tw_chk_ctype_is(in, "text/event-stream") ||
        (kind == TW_API_GEMINI && in->path && strstr(in->path, ":streamGenerateContent"));
    http_status_check(in, out);
    if (in->status == 0) {
        tw_check_set_fill(out, false, in->transport_error ? in->transport_error : "no response");
        return;
    }
    cJSON *body =
        stream ? NULL : tw_chk_parse_json(in->body ? in->body : "", in->body_len, j.L.max_depth);
    const format_checks *fc = format_of(kind);
    tw_chk_exchange x = {kind, stream, body};
    for (size_t i = 0; fc->families[i]; i++) {
        const tw_check_family_def *fam = tw_check_family_find(fc->families[i]);
        if (fam)
            fam->judge(&j, &x);
    }
    cJSON_Delete(body);
    if (in->status >= 400) {
        tw_error why = {.offset = -1};
        tw_error_set(&why, TW_ERR_INVALID, -1, NULL, "HTTP %d: an error response", in->status);
        tw_check_set_fill(out, false, why.message);
    }
    tw_check_set_skip_family(out, TW_CHF_PROXY, "not judged through an upstream (run --upstream)");
    tw_check_set_fill(out, false, fc->elsewhere);
    tw_check_set_sort(out);
}

void tw_checks_client(const char *path, const cJSON *body, tw_check_set *out)
{
    tw_api_kind kind = tw_path_kind(path);
    if (kind == TW_API_GEMINI) {
        static const tw_check_id ids[] = {TW_CHK_CLI_01, TW_CHK_CLI_02, TW_CHK_CLI_03,
                                          TW_CHK_CLI_04, TW_CHK_CLI_05, TW_CHK_CLI_06};
        tw_chk_gem_client(body, out);
        tw_chk_skip_ids(out, ids, 6, "Gemini request (GEM-C*)");
        PUT(out, TW_CHK_CLI_08, TW_V_SKIP, -1, "not a Responses request");
        return;
    }
    if (kind == TW_API_RESPONSES && cJSON_IsObject(body)) {
        tw_chk_cli_responses(body, out);
        return;
    }
    tw_chk_cli_chat(kind, body, out);
}

void tw_checks_client_context(const char *path, const cJSON *body, const tw_fixture *f, size_t xi,
                              bool model_signs, const tw_limits *limits, tw_check_set *out)
{
    switch (tw_path_kind(path)) {
    case TW_API_RESPONSES: tw_checks_client_history(body, f, xi, limits, out); break;
    case TW_API_GEMINI: tw_checks_client_gemini(body, f, xi, model_signs, limits, out); break;
    case TW_API_ANTHROPIC: tw_checks_client_anthropic(body, f, xi, model_signs, limits, out); break;
    default: break;
    }
}
