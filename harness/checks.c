/*
 * The conformance checks (docs/checks.md). Structural checks read
 * the received bytes directly (JSON bodies, SSE events, chunk by chunk) so
 * that they can say where a rule broke; result-level comparisons use the
 * reference decoders when they are available.
 */
#include "checks_int.h"

/* ================================================================ catalog */

static const tw_check_def catalog[] = {
    {"OAI-R01", TW_SEV_ERROR, false,
     "non-streaming body is a chat.completion with at least one choice and an assistant message"},
    {"OAI-R02", TW_SEV_ERROR, false,
     "every tool call has a non-empty id, unique in the message, type \"function\", a non-empty name"},
    {"OAI-R03", TW_SEV_ERROR, false, "the name is one of the request's tools"},
    {"OAI-R04", TW_SEV_ERROR, false,
     "function.arguments is a string holding one JSON object (not an object, not double-encoded)"},
    {"OAI-R05", TW_SEV_ERROR, false, "arguments satisfy the tool's JSON Schema"},
    {"OAI-R06", TW_SEV_ERROR, false,
     "finish_reason is tool_calls when calls are present, and not when none are"},
    {"OAI-R07", TW_SEV_ERROR, false,
     "no tool-call or think markup (<tool_call>, <think>) is left in content"},
    {"OAI-R08", TW_SEV_INFO, false, "the reasoning field's name (reasoning_content / reasoning)"},
    {"OAI-S01", TW_SEV_ERROR, false,
     "Content-Type: text/event-stream, every event's data is JSON or [DONE], the stream ends with [DONE]"},
    {"OAI-S02", TW_SEV_WARN, false, "the first chunk's delta carries role: \"assistant\""},
    {"OAI-S03", TW_SEV_ERROR, false,
     "every tool-call delta has an index; the first fragment of an index carries id, type and name; "
     "later fragments never change them"},
    {"OAI-S04", TW_SEV_ERROR, false,
     "per index, the concatenated argument fragments parse as one JSON object"},
    {"OAI-S05", TW_SEV_ERROR, false, "parallel calls use distinct indexes"},
    {"OAI-S06", TW_SEV_ERROR, false,
     "exactly one choice chunk carries a finish_reason; only a usage chunk may follow it"},
    {"OAI-S07", TW_SEV_ERROR, false,
     "the streamed result equals the non-streamed result of the same request (compared as JSON values)"},
    {"OAI-S08", TW_SEV_ERROR, false, "no error arrives inside a 200 stream"},
    {"OAI-E01", TW_SEV_ERROR, false,
     "an error response uses the OpenAI error envelope {error: {message, type, param, code}}"},
    {"ANT-R01", TW_SEV_ERROR, false, "tool_use blocks have an id, a name and an object input"},
    {"ANT-R02", TW_SEV_ERROR, false, "stop_reason is tool_use exactly when tool_use blocks are present"},
    {"ANT-S01", TW_SEV_ERROR, false,
     "event order: message_start, blocks (content_block_start, deltas, content_block_stop), "
     "message_delta, message_stop; ping anywhere"},
    {"ANT-S02", TW_SEV_ERROR, false, "per block, concatenated partial_json parses as one JSON object"},
    {"ANT-S03", TW_SEV_WARN, false, "every thinking block carries a signature"},
    {"HER-01", TW_SEV_ERROR, false, "every <tool_call> block is closed and its payload parses"},
    {"HER-02", TW_SEV_ERROR, false, "no tool call was emitted from inside a closed think block"},
    {"HER-03", TW_SEV_WARN, false, "every think block is closed"},
    {"VLN-01", TW_SEV_ERROR, false,
     "/generate responses carry thinking, response, tool_calls and, with calls, pre_tool_text"},
    {"VLN-02", TW_SEV_ERROR, false,
     "thinking respects max_thinking_tokens, the response max_response_tokens"},
    {"NUM-01", TW_SEV_WARN, false,
     "streamed and non-streamed tool-call arguments spell every number the same way"},
    {"NUM-02", TW_SEV_ERROR, false,
     "numbers in the response's tool-call arguments have exactly the values the model wrote "
     "(compared as decimal text, not as doubles: no integer precision lost)"},
    {"SES-01", TW_SEV_ERROR, false,
     "a continuation with role: tool results for every pending call returns a final answer"},
    {"SES-02", TW_SEV_ERROR, false,
     "a continuation with a missing or unknown tool_call_id is refused with 400 in the error envelope"},
    {"SES-03", TW_SEV_ERROR, false, "a strict-mode request without the session header is refused with 400"},
    {"RSP-01", TW_SEV_ERROR, false,
     "an HTTP response with a success status arrives where the fixture expects one (no error status, "
     "no transport error)"},
    {"LIV-01", TW_SEV_ERROR, false, "live: the expected tools were called, and no other"},
    {"LIV-02", TW_SEV_ERROR, false, "live: the number of tool calls is within the expected bounds"},
    {"LIV-03", TW_SEV_ERROR, false, "live: every call's arguments satisfy the declared tool's JSON Schema"},
    {"LIV-04", TW_SEV_ERROR, false, "live: the answer carries text, or none, as expected"},
    {"LIV-05", TW_SEV_ERROR, false, "live: the answer carries reasoning, or none, as expected"},
    {"LIV-06", TW_SEV_ERROR, false,
     "live: the same tool calls (names and argument values) as another exchange of the fixture"},
    {"LIV-07", TW_SEV_ERROR, false,
     "live: every call-id placeholder of the request names a call the server made earlier"},
    {"CLI-01", TW_SEV_ERROR, true,
     "every role: tool message answers a tool call of the previous assistant message, by id"},
    {"CLI-02", TW_SEV_ERROR, true, "every tool call is answered before the next user turn"},
    {"CLI-03", TW_SEV_ERROR, true,
     "tool definitions are well formed: type \"function\", name matching ^[a-zA-Z0-9_-]{1,64}$, "
     "parameters an object schema"},
    {"CLI-04", TW_SEV_ERROR, true, "assistant tool calls in history carry arguments as a JSON string"},
    {"CLI-05", TW_SEV_ERROR, true,
     "Anthropic: tool results sit in one user message, tool_result blocks first"},
    {"CLI-06", TW_SEV_INFO, true, "parallel_tool_calls is set explicitly when tools are present"},
    {"CLI-07", TW_SEV_WARN, true, "a client retried after 429/503 honours Retry-After"},
    {"XLT-01", TW_SEV_ERROR, false,
     "proxied: the request reached the upstream, paired by the directive's nonce, and decodes there"},
    {"XLT-02", TW_SEV_ERROR, false,
     "proxied: every tool arrives upstream with its name, description and parameters schema"},
    {"XLT-03", TW_SEV_ERROR, false, "proxied: the messages arrive upstream in order, with their roles and text"},
    {"XLT-04", TW_SEV_ERROR, false,
     "proxied: history tool calls (names, arguments) and tool results (text, error flag) arrive, "
     "each result paired with its call by id"},
    {"XLT-05", TW_SEV_ERROR, false, "proxied: tool_choice and parallel tool calls arrive unchanged"},
    {"XLT-06", TW_SEV_WARN, false, "proxied: reasoning is enabled upstream exactly when the client enabled it"},
    {"XLT-07", TW_SEV_ERROR, false,
     "proxied: the answer carries the calls the model wrote (count, names, arguments)"},
    {"XLT-08", TW_SEV_ERROR, false, "proxied: the answer carries the text the model wrote"},
    {"XLT-09", TW_SEV_ERROR, false, "proxied: the answer carries the reasoning the model wrote"},
    {"XLT-10", TW_SEV_ERROR, false, "proxied: the answer's finish reason maps the model's"},
    /* client libraries, judged on what they hand to their caller (toolwire clients) */
    {"CLT-01", TW_SEV_ERROR, true, "a client library surfaces every tool call with its id, name and exact arguments"},
    {"CLT-02", TW_SEV_ERROR, true, "a client library hands on the answer's text unchanged"},
    {"CLT-03", TW_SEV_WARN, true, "a client library keeps the reasoning the server sent"},
    {"CLT-04", TW_SEV_ERROR, true,
     "a client library raises on a truncated or malformed answer instead of handing on partial calls"},
    {"CLT-05", TW_SEV_ERROR, true, "a client library raises on an error event inside a 200 stream"},
    {"CLT-06", TW_SEV_WARN, true, "a client library retrying after 429/503 honours Retry-After"},
    {"CLT-07", TW_SEV_ERROR, true, "a client library sends tool results back with the ids of their calls"},
};
#define NCHECKS (sizeof catalog / sizeof catalog[0])

const tw_check_def *tw_checks_catalog(size_t *n)
{
    *n = NCHECKS;
    return catalog;
}

int tw_check_index(const char *id)
{
    for (size_t i = 0; id && i < NCHECKS; i++)
        if (strcmp(catalog[i].id, id) == 0)
            return (int)i;
    return -1;
}

const tw_check_def *tw_check_find(const char *id)
{
    int i = tw_check_index(id);
    return i < 0 ? NULL : &catalog[i];
}

const char *tw_severity_name(tw_severity s)
{
    return s == TW_SEV_ERROR ? "error" : s == TW_SEV_WARN ? "warn" : "info";
}

const char *tw_verdict_name(tw_verdict v)
{
    return v == TW_V_PASS ? "pass" : v == TW_V_FAIL ? "fail" : "skip";
}

bool tw_verdict_from_name(const char *s, tw_verdict *out)
{
    if (!s)
        return false;
    if (strcmp(s, "pass") == 0)
        *out = TW_V_PASS;
    else if (strcmp(s, "fail") == 0)
        *out = TW_V_FAIL;
    else if (strcmp(s, "skip") == 0)
        *out = TW_V_SKIP;
    else
        return false;
    return true;
}

/* ================================================================ check sets */

void tw_check_set_put(tw_check_set *s, const char *id, tw_verdict v, int64_t offset,
                      const char *fmt, ...)
{
    const tw_check_def *d = tw_check_find(id);
    if (!d)
        return;
    /* formatted whole, scrubbed, then cut to the evidence cap */
    char small[512] = "";
    char *ev = small;
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        int need = vsnprintf(small, sizeof small, fmt, ap);
        va_end(ap);
        if (need >= (int)sizeof small && (ev = malloc((size_t)need + 1)) != NULL) {
            va_start(ap, fmt);
            vsnprintf(ev, (size_t)need + 1, fmt, ap);
            va_end(ap);
        } else if (need >= (int)sizeof small) {
            ev = small;
        }
    }
    tw_buf clean = {0};
    tw_status sst = tw_secret_scrub(ev, strlen(ev), &clean, NULL);
    if (ev != small)
        free(ev);
    if (sst != TW_OK) {
        tw_buf_free(&clean);
        return;
    }
    if (clean.len > sizeof small - 1)
        clean.len = tw_redacted_cut(clean.data, sizeof small - 1);
    char *copy = tw_strndup(clean.data ? clean.data : "", clean.len);
    tw_buf_free(&clean);
    if (!copy)
        return;
    for (size_t i = 0; i < s->len; i++) {
        if (s->items[i].id == d->id) {
            free(s->items[i].evidence);
            s->items[i].verdict = v;
            s->items[i].offset = offset;
            s->items[i].evidence = copy;
            return;
        }
    }
    if (s->len == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 16;
        tw_check_result *ni = realloc(s->items, nc * sizeof *ni);
        if (!ni) {
            free(copy);
            return;
        }
        s->items = ni;
        s->cap = nc;
    }
    s->items[s->len++] = (tw_check_result){d->id, v, offset, copy};
}

const tw_check_result *tw_check_set_get(const tw_check_set *s, const char *id)
{
    for (size_t i = 0; i < s->len; i++)
        if (strcmp(s->items[i].id, id) == 0)
            return &s->items[i];
    return NULL;
}

void tw_check_set_merge(tw_check_set *dst, const tw_check_set *src)
{
    for (size_t i = 0; i < src->len; i++)
        tw_check_set_put(dst, src->items[i].id, src->items[i].verdict, src->items[i].offset, "%s",
                         src->items[i].evidence);
}

void tw_check_set_fill(tw_check_set *s, bool client, const char *why)
{
    for (size_t i = 0; i < NCHECKS; i++)
        if (catalog[i].client == client && strncmp(catalog[i].id, "CLT-", 4) != 0 &&
            !tw_check_set_get(s, catalog[i].id))
            tw_check_set_put(s, catalog[i].id, TW_V_SKIP, -1, "%s", why ? why : "");
}

static int cmp_result(const void *a, const void *b)
{
    int ia = tw_check_index(((const tw_check_result *)a)->id);
    int ib = tw_check_index(((const tw_check_result *)b)->id);
    return (ia > ib) - (ia < ib);
}

void tw_check_set_sort(tw_check_set *s)
{
    if (s->len > 1)
        qsort(s->items, s->len, sizeof *s->items, cmp_result);
}

void tw_check_set_free(tw_check_set *s)
{
    for (size_t i = 0; i < s->len; i++)
        free(s->items[i].evidence);
    free(s->items);
    memset(s, 0, sizeof *s);
}

void tw_chk_skip_ids(tw_check_set *out, const char *const *ids, size_t n, const char *why)
{
    for (size_t i = 0; i < n; i++)
        if (!tw_check_set_get(out, ids[i]))
            PUT(out, ids[i], TW_V_SKIP, -1, "%s", why);
}

static const char *const OAI_S_IDS[] = {"OAI-S01", "OAI-S02", "OAI-S03", "OAI-S04",
                                        "OAI-S05", "OAI-S06", "OAI-S07", "OAI-S08"};
static const char *const OAI_R_IDS[] = {"OAI-R01", "OAI-R02", "OAI-R03", "OAI-R04",
                                        "OAI-R05", "OAI-R06", "OAI-R07", "OAI-R08"};

/* ================================================================ entry points */

/* RSP-01: the status the fixture expects (its recorded response's, or a
 * success for exchanges the mock builds from model text) against the one
 * that arrived. */
static void http_status_check(const tw_judge_input *in, tw_check_set *out)
{
    if (!in->ex) {
        PUT(out, "RSP-01", TW_V_SKIP, -1, "no fixture expectation");
        return;
    }
    int want = in->ex->has_response ? in->ex->resp.status : 200;
    char cb[312];
    if (want >= 400) {
        PUT(out, "RSP-01", TW_V_SKIP, -1, "the fixture expects an error status (HTTP %d), got HTTP %d", want,
            in->status);
        return;
    }
    if (in->status == 0) {
        PUT(out, "RSP-01", TW_V_FAIL, -1, "no response: %s",
            tw_chk_clip(cb, sizeof cb, in->transport_error ? in->transport_error : "the transfer failed", 300));
        return;
    }
    if (in->status >= 400) {
        char ex[200];
        tw_chk_excerpt(ex, sizeof ex, in->body ? in->body : "", in->body_len);
        PUT(out, "RSP-01", TW_V_FAIL, 0, "HTTP %d where the fixture expects a success: %s", in->status, ex);
        return;
    }
    PUT(out, "RSP-01", TW_V_PASS, -1, "HTTP %d%s%s", in->status, in->transport_error ? ", transfer broke: " : "",
        tw_chk_clip(cb, sizeof cb, in->transport_error, 200));
}

static bool request_streams(const cJSON *req)
{
    return cJSON_IsTrue(tw_json_get(req, "stream"));
}

void tw_checks_backend(const tw_judge_input *in, tw_check_set *out)
{
    judge j = {in, out, {0}};
    tw_limits_resolve(&j.L, in->limits);
    char kind = tw_path_kind(in->path);
    /* /generate has no streamed form: a "stream" key in its request changes
     * nothing, only an event-stream answer is judged as a stream */
    bool stream = (kind != 'g' && request_streams(in->req_body)) || tw_chk_ctype_is(in, "text/event-stream");
    http_status_check(in, out);
    if (in->status == 0) {
        tw_check_set_fill(out, false, in->transport_error ? in->transport_error : "no response");
        return;
    }
    cJSON *body = stream ? NULL : tw_chk_parse_json(in->body ? in->body : "", in->body_len, j.L.max_depth);
    if (kind == 'o') {
        if (in->status >= 400) {
            cJSON *eb = tw_chk_parse_json(in->body ? in->body : "", in->body_len, j.L.max_depth);
            tw_chk_oai_error(&j, eb);
            cJSON_Delete(eb);
            tw_chk_skip_ids(out, OAI_R_IDS, 8, "error response");
            tw_chk_skip_ids(out, OAI_S_IDS, 8, "error response");
        } else if (stream) {
            ostream st = {0};
            tw_chk_oai_stream(&j, &st);
            tw_chk_oai_s07(&j, &st);
            tw_chk_ostream_free(&st);
        } else {
            if (!body) {
                char cb[112];
                PUT(out, "OAI-R01", TW_V_FAIL, 0, "the body is not JSON%s%s",
                    in->transport_error ? ": " : "", tw_chk_clip(cb, sizeof cb, in->transport_error, 100));
            }
            tw_chk_oai_response(&j, body);
            tw_chk_skip_ids(out, OAI_S_IDS, 8, "not streamed");
        }
        if (in->status < 400)
            PUT(out, "OAI-E01", TW_V_SKIP, -1, "not an error response");
    }
    if (kind == 'a' && in->status < 400) {
        if (stream)
            tw_chk_ant_stream(&j);
        else
            tw_chk_ant_response(&j, body);
    }
    if (kind == 'g' && in->status < 400)
        tw_chk_vln_checks(&j, body);
    if (kind == 'o') {
        cJSON *eb = stream ? NULL : body;
        tw_chk_ses_checks(&j, stream, eb);
    }
    if (in->status < 400)
        tw_chk_hermes_checks(&j, kind, stream);
    if (in->status < 400 && kind) {
        tw_chk_num_stream_spelling(&j, stream);
        tw_chk_num_model_values(&j, kind, stream);
    }
    cJSON_Delete(body);
    if (in->status >= 400) {
        char why[64];
        snprintf(why, sizeof why, "HTTP %d: an error response", in->status);
        tw_check_set_fill(out, false, why);
    }
    tw_xlt_skip(out, "not judged through an upstream (run --upstream)");
    tw_check_set_fill(out, false, kind == 'o'   ? "does not apply to this exchange"
                                  : kind == 'a' ? "does not apply to an Anthropic exchange"
                                  : kind == 'g' ? "does not apply to a /generate exchange"
                                                : "unknown endpoint");
    tw_check_set_sort(out);
}

tw_status tw_decode_response(const char *path, bool stream, const char *body, size_t len,
                             const tw_decode_opts *o, tw_result *out)
{
    char kind = tw_path_kind(path);
    const char *name = kind == 'o'   ? (stream ? "openai-stream" : "openai-response")
                       : kind == 'a' ? (stream ? "anthropic-stream" : "anthropic-response")
                       : kind == 'g' ? "vllm-generate"
                                     : NULL;
    const tw_format_ops *f = name ? tw_format_find(name) : NULL;
    if (!f)
        return TW_ERR_UNSUPPORTED;
    /* exact-size copy: decoders never rely on a terminator */
    char *copy = malloc(len ? len : 1);
    if (!copy)
        return TW_ERR_NOMEM;
    if (len)
        memcpy(copy, body, len);
    tw_status st = f->decode(copy, len, o, out);
    free(copy);
    return st;
}
