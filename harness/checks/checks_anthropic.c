/*
 * The Anthropic messages checks (ANT-*): the non-streamed body and the
 * event stream.
 */
#include "checks_int.h"

/* ================================================================ Anthropic */

typedef struct ablock {
    long index;
    char type[24];
    bool open;
    bool tool;
    char *id;
    char *name;
    tw_buf json;
    bool has_json;
    const cJSON *start_input;
    cJSON *start_input_own;
    bool thinking;
    bool signed_;
    size_t off;
} ablock;

static void ant_common(judge *j, size_t ntool, const char *bad_tool, int64_t bad_off,
                       const char *stop, int64_t stop_off, size_t nthink, size_t unsigned_think,
                       int64_t think_off)
{
    tw_check_set *out = j->out;
    if (bad_tool)
        PUT(out, TW_CHK_ANT_R01, TW_V_FAIL, bad_off, "%s", bad_tool);
    else
        PUT(out, TW_CHK_ANT_R01, ntool ? TW_V_PASS : TW_V_SKIP, -1, "%zu tool_use block(s)", ntool);
    bool want = ntool > 0, is = stop && strcmp(stop, "tool_use") == 0;
    if (want != is)
        PUT(out, TW_CHK_ANT_R02, TW_V_FAIL, stop_off, "%zu tool_use block(s), stop_reason %.40s",
            ntool, stop ? stop : "(absent)");
    else
        PUT(out, TW_CHK_ANT_R02, TW_V_PASS, -1, "stop_reason %.40s", stop ? stop : "(absent)");
    if (unsigned_think)
        PUT(out, TW_CHK_ANT_S03, TW_V_FAIL, think_off,
            "%zu of %zu thinking block(s) without a signature", unsigned_think, nthink);
    else
        PUT(out, TW_CHK_ANT_S03, nthink ? TW_V_PASS : TW_V_SKIP, -1, "%zu thinking block(s)",
            nthink);
}

void tw_chk_ant_response(judge *j, const cJSON *body)
{
    const cJSON *content = tw_json_get(body, "content");
    if (!cJSON_IsArray(content)) {
        PUT(j->out, TW_CHK_ANT_R01, TW_V_FAIL, 0, "the body has no content array");
        PUT(j->out, TW_CHK_ANT_R02, TW_V_SKIP, -1, "no content");
        PUT(j->out, TW_CHK_ANT_S03, TW_V_SKIP, -1, "no content");
        return;
    }
    size_t ntool = 0, nthink = 0, unsig = 0;
    char bad[300] = "";
    int64_t bad_off = -1, think_off = -1;
    size_t i = 0;
    for (const cJSON *b = content->child; b; b = b->next, i++) {
        const char *t = tw_json_get_str(b, "type");
        if (t && strcmp(t, "tool_use") == 0) {
            ntool++;
            if (!bad[0]) {
                const char *id = tw_json_get_str(b, "id");
                if (!tw_chk_str_nonempty(tw_json_get(b, "id")))
                    snprintf(bad, sizeof bad, "content[%zu] tool_use has no id", i);
                else if (!tw_chk_str_nonempty(tw_json_get(b, "name")))
                    snprintf(bad, sizeof bad, "content[%zu] tool_use has no name", i);
                else if (!cJSON_IsObject(tw_json_get(b, "input"))) {
                    char ex[120];
                    tw_chk_excerpt_json(ex, sizeof ex, tw_json_get(b, "input"));
                    snprintf(bad, sizeof bad, "content[%zu] tool_use input is not an object: %s", i,
                             ex);
                }
                if (bad[0])
                    bad_off = id ? tw_chk_find_off(j->in, id) : -1;
            }
        } else if (t && strcmp(t, "thinking") == 0) {
            nthink++;
            if (!tw_chk_str_nonempty(tw_json_get(b, "signature"))) {
                if (!unsig)
                    think_off = tw_chk_find_off(j->in, "\"thinking\"");
                unsig++;
            }
        }
    }
    ant_common(j, ntool, bad[0] ? bad : NULL, bad_off, tw_json_get_str(body, "stop_reason"),
               tw_chk_find_off(j->in, "\"stop_reason\""), nthink, unsig, think_off);
}

void tw_chk_ant_stream(judge *j)
{
    const tw_judge_input *in = j->in;
    sse_list ev;
    tw_chk_sse_parse(in->body, in->body_len, &j->L, &ev);
    ablock blocks[256];
    size_t nb = 0;
    int phase = 0; /* 0 before message_start, 1 in message, 2 after message_delta, 3 stopped */
    long open_idx = -1;
    char s01[300] = "";
    int64_t s01_off = -1;
    char s02[300] = "";
    int64_t s02_off = -1;
    char *stop = NULL;
    int64_t stop_off = -1;
#define S01_FAIL(off, ...)                                                                         \
    do {                                                                                           \
        if (!s01[0]) {                                                                             \
            snprintf(s01, sizeof s01, __VA_ARGS__);                                                \
            s01_off = (int64_t)(off);                                                              \
        }                                                                                          \
    } while (0)
    for (size_t i = 0; i < ev.n; i++) {
        sse_ev *e = &ev.v[i];
        if (e->over_cap) {
            S01_FAIL(e->off, "event dropped: %s", tw_code_message(e->over_cap));
            continue;
        }
        cJSON *d = tw_chk_parse_json(e->data, e->data_len, j->L.max_depth);
        const char *t = tw_json_get_str(d, "type");
        if (!t)
            t = e->type;
        if (!d) {
            char ex[100];
            tw_chk_excerpt(ex, sizeof ex, e->data, e->data_len);
            S01_FAIL(e->off, "event data is not JSON: %s", ex);
            continue;
        }
        if (!t) {
            cJSON_Delete(d);
            continue;
        }
        if (strcmp(t, "ping") == 0) {
        } else if (strcmp(t, "error") == 0) {
            char ex[120];
            tw_chk_excerpt_json(ex, sizeof ex, tw_json_get(d, "error"));
            S01_FAIL(e->off, "error event: %s", ex);
        } else if (strcmp(t, "message_start") == 0) {
            if (phase != 0)
                S01_FAIL(e->off, "a second message_start");
            phase = 1;
        } else if (strcmp(t, "content_block_start") == 0) {
            const cJSON *cb = tw_json_get(d, "content_block");
            const cJSON *ix = tw_json_get(d, "index");
            if (phase != 1)
                S01_FAIL(e->off, "content_block_start outside the message");
            else if (open_idx >= 0)
                S01_FAIL(e->off, "content_block_start while block %ld is open", open_idx);
            open_idx = (long)tw_json_int(ix, -1, LONG_MAX, -1);
            if (open_idx < 0)
                S01_FAIL(e->off, "content_block_start without index");
            if (nb < 256) {
                ablock *b = &blocks[nb++];
                memset(b, 0, sizeof *b);
                b->index = open_idx;
                b->open = true;
                b->off = e->off;
                snprintf(b->type, sizeof b->type, "%s",
                         tw_json_get_str(cb, "type") ? tw_json_get_str(cb, "type") : "");
                b->tool = strcmp(b->type, "tool_use") == 0;
                b->thinking = strcmp(b->type, "thinking") == 0;
                b->id = tw_strdup(tw_json_get_str(cb, "id") ? tw_json_get_str(cb, "id") : "");
                b->name = tw_strdup(tw_json_get_str(cb, "name") ? tw_json_get_str(cb, "name") : "");
                const cJSON *inp = tw_json_get(cb, "input");
                b->start_input_own = inp ? cJSON_Duplicate(inp, 1) : NULL;
                b->signed_ = tw_chk_str_nonempty(tw_json_get(cb, "signature"));
            }
        } else if (strcmp(t, "content_block_delta") == 0) {
            const cJSON *ix = tw_json_get(d, "index");
            long idx = (long)tw_json_int(ix, -1, LONG_MAX, -1);
            if (phase != 1 || idx != open_idx || open_idx < 0)
                S01_FAIL(e->off, "content_block_delta for index %ld while %ld is open", idx,
                         open_idx);
            ablock *b = NULL;
            for (size_t k = nb; k-- > 0;)
                if (blocks[k].index == idx) {
                    b = &blocks[k];
                    break;
                }
            const cJSON *delta = tw_json_get(d, "delta");
            const char *dt = tw_json_get_str(delta, "type");
            if (b && dt && strcmp(dt, "input_json_delta") == 0) {
                const char *pj = tw_json_get_str(delta, "partial_json");
                if (pj)
                    tw_buf_puts(&b->json, pj);
                b->has_json = true;
            } else if (b && dt && strcmp(dt, "signature_delta") == 0) {
                if (tw_chk_str_nonempty(tw_json_get(delta, "signature")))
                    b->signed_ = true;
            }
        } else if (strcmp(t, "content_block_stop") == 0) {
            const cJSON *ix = tw_json_get(d, "index");
            long idx = (long)tw_json_int(ix, -1, LONG_MAX, -1);
            if (idx != open_idx || open_idx < 0)
                S01_FAIL(e->off, "content_block_stop for index %ld while %ld is open", idx,
                         open_idx);
            for (size_t k = nb; k-- > 0;)
                if (blocks[k].index == idx) {
                    blocks[k].open = false;
                    break;
                }
            open_idx = -1;
        } else if (strcmp(t, "message_delta") == 0) {
            if (phase != 1 && phase != 2)
                S01_FAIL(e->off, "message_delta outside the message");
            if (open_idx >= 0)
                S01_FAIL(e->off, "message_delta while block %ld is open", open_idx);
            phase = 2;
            const char *sr = tw_json_get_str(tw_json_get(d, "delta"), "stop_reason");
            if (sr) {
                free(stop);
                stop = tw_strdup(sr);
                stop_off = (int64_t)e->off;
            }
        } else if (strcmp(t, "message_stop") == 0) {
            if (phase != 2)
                S01_FAIL(e->off, "message_stop before message_delta");
            phase = 3;
        }
        cJSON_Delete(d);
    }
    if (phase != 3) {
        char cb[112];
        S01_FAIL(in->body_len, "the stream ends without message_stop%s%s",
                 in->transport_error ? ": " : "",
                 tw_chk_clip(cb, sizeof cb, in->transport_error, 100));
    }
    if (s01[0])
        PUT(j->out, TW_CHK_ANT_S01, TW_V_FAIL, s01_off, "%s", s01);
    else
        PUT(j->out, TW_CHK_ANT_S01, TW_V_PASS, -1, "%zu events in order", ev.n);
    size_t ntool = 0, nthink = 0, unsig = 0, njson = 0;
    char bad[300] = "";
    int64_t bad_off = -1, think_off = -1;
    for (size_t k = 0; k < nb; k++) {
        ablock *b = &blocks[k];
        cJSON *input = NULL;
        /* the stream of a call without parameters sends partial_json "": the
         * start block's input stands, as the anthropic-stream decoder reads it */
        bool from_start = !b->has_json || b->json.len == 0;
        if (b->has_json)
            njson++;
        if (!from_start) {
            input =
                tw_chk_parse_json(b->json.data ? b->json.data : "", b->json.len, j->L.max_depth);
            if (!cJSON_IsObject(input) && !s02[0]) {
                char ex[120];
                tw_chk_excerpt(ex, sizeof ex, b->json.data ? b->json.data : "", b->json.len);
                snprintf(s02, sizeof s02, "block %ld partial_json is not one JSON object: %s",
                         b->index, ex);
                s02_off = (int64_t)b->off;
            }
        }
        if (b->tool) {
            ntool++;
            const cJSON *inp = from_start ? b->start_input_own : input;
            if (!bad[0]) {
                if (!b->id[0])
                    snprintf(bad, sizeof bad, "tool_use block %ld has no id", b->index);
                else if (!b->name[0])
                    snprintf(bad, sizeof bad, "tool_use block %ld has no name", b->index);
                else if (from_start && !cJSON_IsObject(inp))
                    snprintf(bad, sizeof bad, "tool_use block %ld input is not an object",
                             b->index);
                if (bad[0])
                    bad_off = (int64_t)b->off;
            }
        }
        if (b->thinking) {
            nthink++;
            if (!b->signed_) {
                if (!unsig)
                    think_off = (int64_t)b->off;
                unsig++;
            }
        }
        cJSON_Delete(input);
        cJSON_Delete(b->start_input_own);
        free(b->id);
        free(b->name);
        tw_buf_free(&b->json);
    }
    if (s02[0])
        PUT(j->out, TW_CHK_ANT_S02, TW_V_FAIL, s02_off, "%s", s02);
    else
        PUT(j->out, TW_CHK_ANT_S02, njson ? TW_V_PASS : TW_V_SKIP, -1,
            "%zu block(s) with partial_json", njson);
    ant_common(j, ntool, bad[0] ? bad : NULL, bad_off, stop, stop_off, nthink, unsig, think_off);
    free(stop);
    tw_chk_sse_free(&ev);
#undef S01_FAIL
}
