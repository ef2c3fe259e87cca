/* Secrets a stream carries in pieces: a key echoed back a few bytes per
 * delta, or cut in two across events, in every format's deltas; and
 * credentials inside tool calls the model wrote as text (Hermes JSON,
 * Qwen3-Coder XML), whole or split across events. The stream's text is
 * joined, scrubbed as one text and the scrubbing mapped back onto its
 * pieces, in the library calls and end to end through import (HAR,
 * vcrpy) and record against a server that is not toolwire. */
#include <criterion/criterion.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "out.h"
#include "redact.h"
#include "twtest.h"

/* ---------------------------------------------------------------- helpers */

static char *jstr(const char *s)
{
    cJSON *j = cJSON_CreateString(s);
    char *t = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return t;
}

/* the node at a path of keys and indexes: "choices/0/delta/content" */
static cJSON *at_path(cJSON *v, const char *path)
{
    char buf[200];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *save = NULL, *k = strtok_r(buf, "/", &save); k && v; k = strtok_r(NULL, "/", &save))
        v = (*k >= '0' && *k <= '9') ? cJSON_GetArrayItem(v, atoi(k)) : cJSON_GetObjectItem(v, k);
    return v;
}

/* ---------------------------------------------------------------- every format's pieces */

typedef struct shape {
    const char *name;
    const char *tmpl; /* the event, %s where the piece goes (a JSON string) */
    const char *path; /* where the piece is in the event */
    bool json;        /* the channel is a call's arguments (JSON text) */
} shape;

static const shape shapes[] = {
    {"openai content", "{\"choices\":[{\"index\":0,\"delta\":{\"content\":%s}}]}",
     "choices/0/delta/content", false},
    {"openai reasoning_content",
     "{\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":%s}}]}",
     "choices/0/delta/reasoning_content", false},
    {"openai reasoning", "{\"choices\":[{\"index\":0,\"delta\":{\"reasoning\":%s}}]}",
     "choices/0/delta/reasoning", false},
    {"openai arguments",
     "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{"
     "\"arguments\":%s}}]}}]}",
     "choices/0/delta/tool_calls/0/function/arguments", true},
    {"anthropic text_delta",
     "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":%s}"
     "}",
     "delta/text", false},
    {"anthropic thinking_delta",
     "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\","
     "\"thinking\":%s}}",
     "delta/thinking", false},
    {"anthropic input_json_delta",
     "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\","
     "\"partial_json\":%s}}",
     "delta/partial_json", true},
    {"responses output_text",
     "{\"type\":\"response.output_text.delta\",\"output_index\":0,\"content_index\":0,\"delta\":%"
     "s}",
     "delta", false},
    {"responses reasoning summary",
     "{\"type\":\"response.reasoning_summary_text.delta\",\"output_index\":0,\"summary_index\":0,"
     "\"delta\":%s}",
     "delta", false},
    {"responses arguments",
     "{\"type\":\"response.function_call_arguments.delta\",\"output_index\":1,\"delta\":%s}",
     "delta", true},
    {"gemini text",
     "{\"candidates\":[{\"index\":0,\"content\":{\"role\":\"model\",\"parts\":[{\"text\":%s}]}}]}",
     "candidates/0/content/parts/0/text", false},
    {"gemini thought",
     "{\"candidates\":[{\"index\":0,\"content\":{\"role\":\"model\",\"parts\":[{\"text\":%s,"
     "\"thought\":true}]}}]}",
     "candidates/0/content/parts/0/text", false},
    {"gemini partialArgs",
     "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":"
     "\"f\","
     "\"partialArgs\":[{\"jsonPath\":\"$.q\",\"stringValue\":%s,\"willContinue\":true}],"
     "\"willContinue\":true}}]}}]}",
     "candidates/0/content/parts/0/functionCall/partialArgs/0/stringValue", false},
};

/* The text split at the given cuts into events of one shape; scrubbed;
 * the pieces read back and joined. */
static char *scrub_split(tw_redactor *r, const shape *sh, const char *text, const size_t *cuts,
                         size_t ncuts)
{
    size_t n = ncuts + 1, tl = strlen(text);
    const char **ev = calloc(n, sizeof *ev);
    size_t *len = calloc(n, sizeof *len);
    char **out = calloc(n, sizeof *out);
    for (size_t i = 0; i < n; i++) {
        size_t a = i ? cuts[i - 1] : 0, b = i < ncuts ? cuts[i] : tl;
        char *piece = strndup(text + a, b - a), *js = jstr(piece), *e = NULL;
        cr_assert(asprintf(&e, sh->tmpl, js) > 0);
        ev[i] = e;
        len[i] = strlen(e);
        free(piece);
        cJSON_free(js);
    }
    cr_assert_eq(tw_redact_stream(r, ev, len, n, 64, out), TW_OK, "%s", sh->name);
    tw_buf joined = {0};
    tw_buf_reserve(&joined, 1);
    for (size_t i = 0; i < n; i++) {
        cJSON *e = cJSON_Parse(out[i] ? out[i] : ev[i]);
        cr_assert_not_null(e, "%s: event %zu does not parse", sh->name, i);
        cJSON *p = at_path(e, sh->path);
        cr_assert(cJSON_IsString(p), "%s: event %zu lost its piece: %s", sh->name, i,
                  out[i] ? out[i] : ev[i]);
        tw_buf_puts(&joined, p->valuestring);
        cJSON_Delete(e);
        free(out[i]);
        free((char *)ev[i]);
    }
    free(ev);
    free(len);
    free(out);
    return tw_buf_take(&joined, NULL);
}

/* Every shape, pieces of 1 to 8 bytes and two halves cut at every place in
 * the secret: the joined pieces are the text with the secret replaced by
 * one marker, so no piece keeps a fragment of it. */
static void every_shape_every_split(tw_redactor *r, const char *secret)
{
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        const shape *sh = &shapes[s];
        char text[300], want[300];
        if (sh->json) {
            snprintf(text, sizeof text, "{\"q\": \"%s\", \"n\": 1.50}", secret);
            snprintf(want, sizeof want, "{\"q\": \"%s\", \"n\": 1.50}", TW_REDACTED);
        } else {
            snprintf(text, sizeof text, "Your key is %s, keep it.", secret);
            snprintf(want, sizeof want, "Your key is %s, keep it.", TW_REDACTED);
        }
        size_t tl = strlen(text), cuts[300];
        for (size_t k = 1; k <= 8; k++) {
            size_t nc = 0;
            for (size_t c = k; c < tl; c += k)
                cuts[nc++] = c;
            char *j = scrub_split(r, sh, text, cuts, nc);
            cr_expect_str_eq(j, want, "%s in %zu-byte pieces", sh->name, k);
            free(j);
        }
        const char *at = strstr(text, secret);
        for (size_t c = 1; c < strlen(secret); c++) {
            cuts[0] = (size_t)(at - text) + c;
            char *j = scrub_split(r, sh, text, cuts, 1);
            cr_expect_str_eq(j, want, "%s cut in two after %zu bytes of the secret", sh->name, c);
            free(j);
        }
    }
}

Test(pieces, a_remembered_value_in_every_format_and_split)
{
    tw_redactor r = {0};
    cr_assert_eq(tw_redactor_add_value(&r, "zqPieceRED7f3kW9xQ2mV"), TW_OK);
    every_shape_every_split(&r, "zqPieceRED7f3kW9xQ2mV");
    cr_expect_gt(r.scrubbed, 0);
    tw_redactor_free(&r);
}

Test(pieces, a_key_of_the_process_set_in_every_format_and_split)
{
    /* as record holds the --key-env key: in the set every output passes
     * through, not in the redactor */
    cr_assert_eq(tw_secret_add("zqPieceSET4hT8nB1cL6pR"), TW_OK);
    tw_redactor r = {0};
    every_shape_every_split(&r, "zqPieceSET4hT8nB1cL6pR");
    tw_redactor_free(&r);
}

Test(pieces, a_key_shape_cut_across_events_without_being_known)
{
    /* an sk- key nobody declared: its shape is found in the joined text */
    tw_redactor r = {0};
    const shape *sh = &shapes[0];
    const char *text = "here: sk-proj-AbCdEfGh12345678IjKl done";
    size_t cuts[] = {9, 14, 20, 30};
    char *j = scrub_split(&r, sh, text, cuts, 4);
    cr_expect_str_eq(j, "here: [REDACTED] done");
    free(j);
    tw_redactor_free(&r);
}

Test(pieces, channels_interleaved_are_joined_apart)
{
    /* content, and two calls' arguments, interleaved event by event: each
     * channel is joined on its own */
    tw_redactor r = {0};
    cr_assert_eq(tw_redactor_add_value(&r, "zqInterLeave55Kx"), TW_OK);
    const char *ev[] = {
        "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a zqInter\"}}]}",
        "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{"
        "\"arguments\":\"{\\\"k\\\":\\\"zqInt\"}}]}}]}",
        "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{"
        "\"arguments\":\"{\\\"k\\\":\\\"zqInterLe\"}}]}}]}",
        "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Leave55Kx b\"}}]}",
        "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{"
        "\"arguments\":\"ave55Kx\\\"}\"}}]}}]}",
        "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{"
        "\"arguments\":\"erLeave55Kx\\\"}\"}}]}}]}",
    };
    size_t n = 6, len[6];
    char *out[6];
    for (size_t i = 0; i < n; i++)
        len[i] = strlen(ev[i]);
    cr_assert_eq(tw_redact_stream(&r, ev, len, n, 64, out), TW_OK);
    tw_buf c = {0}, a0 = {0}, a1 = {0};
    for (size_t i = 0; i < n; i++) {
        cJSON *e = cJSON_Parse(out[i] ? out[i] : ev[i]);
        cJSON *p = at_path(e, "choices/0/delta/content");
        if (p)
            tw_buf_puts(&c, p->valuestring);
        cJSON *tc = at_path(e, "choices/0/delta/tool_calls/0");
        if (tc)
            tw_buf_puts(at_path(tc, "index")->valueint ? &a1 : &a0,
                        at_path(tc, "function/arguments")->valuestring);
        cJSON_Delete(e);
        free(out[i]);
    }
    cr_expect_str_eq(c.data, "a [REDACTED] b");
    cr_expect_str_eq(a0.data, "{\"k\":\"[REDACTED]\"}");
    cr_expect_str_eq(a1.data, "{\"k\":\"[REDACTED]\"}");
    tw_buf_free(&c);
    tw_buf_free(&a0);
    tw_buf_free(&a1);
    tw_redactor_free(&r);
}

/* The events scrubbed (out[i] or the event itself), every string of every
 * event in order joined, and each event's data kept whole in ev_out. */
static char *scrub_events(tw_redactor *r, const char **ev, size_t n, bool discover)
{
    size_t len[64];
    char *out[64];
    cr_assert_leq(n, 64);
    tw_buf body = {0};
    for (size_t i = 0; i < n; i++) {
        len[i] = strlen(ev[i]);
        tw_buf_printf(&body, "data: %s\n\n", ev[i]);
    }
    if (discover)
        cr_assert_eq(tw_redact_discover_body(r, body.data, body.len, 64), TW_OK);
    tw_buf_free(&body);
    cr_assert_eq(tw_redact_stream(r, ev, len, n, 64, out), TW_OK);
    tw_buf all = {0};
    tw_buf_reserve(&all, 1);
    for (size_t i = 0; i < n; i++) {
        tw_buf_puts(&all, out[i] ? out[i] : ev[i]);
        tw_buf_putc(&all, '\n');
        free(out[i]);
    }
    return tw_buf_take(&all, NULL);
}

/* Only the string values of the events (a JSON event's strings, a plain
 * event's data), in order, joined. */
static void strings_of(const cJSON *v, tw_buf *b)
{
    if (cJSON_IsString(v) && v->valuestring)
        tw_buf_puts(b, v->valuestring);
    for (const cJSON *c = v ? v->child : NULL; c; c = c->next)
        strings_of(c, b);
}

static char *joined_strings(const char *events)
{
    tw_buf b = {0};
    tw_buf_reserve(&b, 1);
    const char *p = events;
    while (*p) {
        const char *nl = strchr(p, '\n');
        char *line = strndup(p, nl ? (size_t)(nl - p) : strlen(p));
        cJSON *j = line[0] == '{' ? cJSON_Parse(line) : NULL;
        if (j)
            strings_of(j, &b);
        else
            tw_buf_puts(&b, line);
        cJSON_Delete(j);
        free(line);
        p = nl ? nl + 1 : p + strlen(p);
    }
    return tw_buf_take(&b, NULL);
}

Test(pieces, a_key_cut_across_two_channels)
{
    /* the key's first half in one channel, its second in the next event's
     * other channel: content then reasoning, choice 0 then choice 1, block 0
     * then block 1, Responses text then reasoning */
    static const char *const pairs[][2] = {
        {"{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"key zqCrossAbCd1\"}}]}",
         "{\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"2345eFgHtail end\"}}]}"},
        {"{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"key zqCrossAbCd1\"}}]}",
         "{\"choices\":[{\"index\":1,\"delta\":{\"content\":\"2345eFgHtail end\"}}]}"},
        {"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\","
         "\"text\":\"key zqCrossAbCd1\"}}",
         "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\","
         "\"text\":\"2345eFgHtail end\"}}"},
        {"{\"type\":\"response.output_text.delta\",\"output_index\":0,\"content_index\":0,"
         "\"delta\":\"key zqCrossAbCd1\"}",
         "{\"type\":\"response.reasoning_text.delta\",\"output_index\":1,\"content_index\":0,"
         "\"delta\":\"2345eFgHtail end\"}"},
    };
    const char *key = "zqCrossAbCd12345eFgHtail";
    for (int set = 0; set < 2; set++) {
        tw_redactor r = {0};
        if (set)
            cr_assert_eq(tw_secret_add(key), TW_OK);
        else
            cr_assert_eq(tw_redactor_add_value(&r, key), TW_OK);
        for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
            const char *ev[2] = {pairs[i][0], pairs[i][1]};
            char *all = scrub_events(&r, ev, 2, false);
            char *j = joined_strings(all);
            cr_expect(!tw_test_window_of(all, strlen(all), key) &&
                          !tw_test_window_of(j, strlen(j), key),
                      "pair %zu (%s): %s", i, set ? "process set" : "redactor", all);
            /* the marker where the key starts, its second half gone from the next piece */
            cr_expect(strstr(all, "\"key " TW_REDACTED "\"") && strstr(all, "\" end\""),
                      "pair %zu: %s", i, all);
            free(j);
            free(all);
        }
        tw_redactor_free(&r);
    }
}

Test(pieces, fields_no_format_names_are_joined_by_path)
{
    /* a key streamed a few bytes an event in fields no format's channel
     * names: each string of an event is joined with the same path's in the
     * other events */
    static const char *const tmpl[] = {
        "{\"choices\":[{\"index\":0,\"delta\":{\"refusal\":%s}}]}",
        "{\"choices\":[{\"index\":0,\"delta\":{\"function_call\":{\"arguments\":%s}}}]}",
        "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":"
        "%s}}]}}]}",
        "{\"choices\":[{\"index\":0,\"delta\":{},\"logprobs\":{\"content\":[{\"token\":%s,"
        "\"logprob\":-0.1}]}}]}",
        "{\"id\":%s,\"choices\":[{\"index\":0,\"delta\":{}}]}",
        "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\","
        "\"signature\":%s}}",
        "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"citations_delta\","
        "\"citation\":{\"cited_text\":%s}}}",
        "{\"candidates\":[{\"content\":{\"parts\":[{\"executableCode\":{\"code\":%s}}]}}]}",
        "{\"text\":[%s]}",
        "%s", /* the event's data is a JSON string */
    };
    const char *key = "zqPathKeyAbc123Def456";
    char text[80];
    snprintf(text, sizeof text, "k=%s;", key);
    for (size_t t = 0; t < sizeof tmpl / sizeof *tmpl; t++) {
        tw_redactor r = {0};
        cr_assert_eq(tw_redactor_add_value(&r, key), TW_OK);
        const char *ev[16];
        size_t n = 0;
        for (size_t a = 0; a < strlen(text); a += 3, n++) {
            char piece[4];
            snprintf(piece, sizeof piece, "%.3s", text + a);
            char *js = jstr(piece), *e = NULL;
            cr_assert(asprintf(&e, tmpl[t], js) > 0);
            ev[n] = e;
            cJSON_free(js);
        }
        char *all = scrub_events(&r, ev, n, false);
        char *j = joined_strings(all);
        cr_expect(!tw_test_window_of(j, strlen(j), key) && strstr(j, TW_REDACTED), "shape %zu: %s",
                  t, all);
        free(j);
        free(all);
        for (size_t i = 0; i < n; i++)
            free((char *)ev[i]);
        tw_redactor_free(&r);
    }
}

Test(pieces, credential_values_that_are_lists_or_objects)
{
    const char *body =
        "{\"arguments\":{\"password\":[\"zqListPw123456\"],\"credentials\":{\"user\":\"ann\","
        "\"value\":\"zqObjPw654321\"},\"n\":1},\"echo\":\"zqListPw123456 zqObjPw654321\"}";
    tw_redactor r = {0};
    cr_assert_eq(tw_redact_discover_body(&r, body, strlen(body), 64), TW_OK);
    cJSON *v = cJSON_Parse(body);
    cr_assert_eq(tw_redact_json(&r, v, 64), TW_OK);
    char *o = cJSON_PrintUnformatted(v);
    cr_expect(!strstr(o, "zqListPw") && !strstr(o, "zqObjPw") && !strstr(o, "ann"), "%s", o);
    cr_expect(strstr(o, "\"n\":1") != NULL, "more than the credentials was blanked: %s", o);
    cJSON_free(o);
    cJSON_Delete(v);
    tw_redactor_free(&r);
}

Test(pieces, plain_text_events_are_joined_too)
{
    /* a server that streams plain text, not JSON, in 4-byte events */
    const char *ev[] = {"you ", "sent", " zqP", "lain", "Text", "Key9", "87xy", " ok", "[DONE]"};
    tw_redactor r = {0};
    cr_assert_eq(tw_redactor_add_value(&r, "zqPlainTextKey987xy"), TW_OK);
    char *all = scrub_events(&r, ev, 9, false);
    char *j = joined_strings(all);
    cr_expect_str_eq(j, "you sent " TW_REDACTED " ok[DONE]");
    free(j);
    free(all);
    tw_redactor_free(&r);
}

Test(pieces, a_call_inside_think_tags_is_read_for_credentials)
{
    /* the decoder reads no call inside <think>…</think>; its credentials
     * are credentials all the same */
    const char *pw = "hunter2-InThink-9Qz";
    char text[400];
    snprintf(text, sizeof text,
             "<think><tool_call>{\"name\": \"login\", \"arguments\": {\"password\": "
             "\"%s\"}}</tool_call></think>ok",
             pw);
    static const char *const tmpl[] = {
        "{\"choices\":[{\"index\":0,\"delta\":{\"content\":%s}}]}",
        "{\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":%s}}]}"};
    for (size_t t = 0; t < 2; t++)
        for (size_t k = 3; k <= 300; k += 297) {
            const char *ev[40];
            size_t n = 0, tl = strlen(text);
            for (size_t a = 0; a < tl && n < 40; a += k, n++) {
                char *piece = strndup(text + a, a + k < tl ? k : tl - a), *js = jstr(piece),
                     *e = NULL;
                cr_assert(asprintf(&e, tmpl[t], js) > 0);
                ev[n] = e;
                free(piece);
                cJSON_free(js);
            }
            tw_redactor r = {0};
            char *all = scrub_events(&r, ev, n, true);
            char *j = joined_strings(all);
            cr_expect(!tw_test_window_of(j, strlen(j), pw) && strstr(j, TW_REDACTED),
                      "%s in %zu-byte pieces: %s", t ? "reasoning" : "content", k, j);
            free(j);
            free(all);
            for (size_t i = 0; i < n; i++)
                free((char *)ev[i]);
            tw_redactor_free(&r);
        }
}

/* ---------------------------------------------------------------- calls written as model text */

static const char *const model_calls[] = {
    /* Hermes */
    "I will log in.<tool_call>{\"name\": \"login\", \"arguments\": {\"user\": \"ann\", "
    "\"password\": \"%s\"}}</tool_call>",
    /* Qwen3-Coder XML */
    "<tool_call>\n<function=login>\n<parameter=user>\nann\n</"
    "parameter>\n<parameter=password>\n%s\n</parameter>\n"
    "</function>\n</tool_call>",
    /* Qwen3-Coder XML, a camelCase credential name */
    "<tool_call>\n<function=deploy>\n<parameter=clientSecret>\n%s\n</parameter>\n</function>\n</"
    "tool_call>",
};

Test(pieces, credentials_in_model_text_calls_are_found_whole)
{
    for (size_t i = 0; i < sizeof model_calls / sizeof *model_calls; i++) {
        char pw[40], text[600], *body = NULL;
        snprintf(pw, sizeof pw, "hunter2-Mdl%zu-xQ7", i);
        snprintf(text, sizeof text, model_calls[i], pw);
        char *js = jstr(text);
        cr_assert(
            asprintf(
                &body,
                "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":%s},"
                "\"finish_reason\":\"stop\"}]}",
                js) > 0);
        cJSON_free(js);
        tw_redactor r = {0};
        cr_assert_eq(tw_redact_discover_body(&r, body, strlen(body), 64), TW_OK);
        bool found = false;
        for (size_t k = 0; k < r.nvalues; k++)
            found = found || strcmp(r.values[k], pw) == 0;
        cr_expect(found, "call %zu: the password in the model text was not found", i);
        cJSON *v = cJSON_Parse(body);
        cr_assert_eq(tw_redact_json(&r, v, 64), TW_OK);
        char *o = cJSON_PrintUnformatted(v);
        cr_expect(!strstr(o, pw) && strstr(o, TW_REDACTED), "call %zu: %s", i, o);
        cr_expect(strstr(o, "ann") || i == 2, "call %zu lost more than the password: %s", i, o);
        cJSON_free(o);
        cJSON_Delete(v);
        tw_redactor_free(&r);
        free(body);
    }
}

Test(pieces, credentials_in_model_text_calls_split_across_events)
{
    for (size_t i = 0; i < sizeof model_calls / sizeof *model_calls; i++) {
        char pw[40], text[600];
        snprintf(pw, sizeof pw, "hunter2-Spl%zu-wE4", i);
        snprintf(text, sizeof text, model_calls[i], pw);
        for (size_t k = 1; k <= 7; k += 3) {
            /* the stream as import and record read it: discovery over the
             * whole body first, then the events */
            tw_buf body = {0};
            size_t tl = strlen(text), n = 0;
            const char *ev[700];
            size_t len[700];
            char *out[700];
            for (size_t a = 0; a < tl; a += k, n++) {
                char *piece = strndup(text + a, a + k < tl ? k : tl - a), *js = jstr(piece),
                     *e = NULL;
                cr_assert(asprintf(&e, "{\"choices\":[{\"index\":0,\"delta\":{\"content\":%s}}]}",
                                   js) > 0);
                ev[n] = e;
                len[n] = strlen(e);
                tw_buf_printf(&body, "data: %s\n\n", e);
                free(piece);
                cJSON_free(js);
            }
            tw_redactor r = {0};
            cr_assert_eq(tw_redact_discover_body(&r, body.data, body.len, 64), TW_OK);
            cr_assert_eq(tw_redact_stream(&r, ev, len, n, 64, out), TW_OK);
            tw_buf joined = {0};
            for (size_t e = 0; e < n; e++) {
                cJSON *j = cJSON_Parse(out[e] ? out[e] : ev[e]);
                tw_buf_puts(&joined, at_path(j, "choices/0/delta/content")->valuestring);
                cJSON_Delete(j);
                free(out[e]);
                free((char *)ev[e]);
            }
            char want[600];
            snprintf(want, sizeof want, model_calls[i], TW_REDACTED);
            cr_expect_str_eq(joined.data, want, "call %zu in %zu-byte pieces", i, k);
            tw_buf_free(&joined);
            tw_buf_free(&body);
            tw_redactor_free(&r);
        }
    }
}

Test(pieces, a_credential_value_continued_across_gemini_partial_args)
{
    const char *ev[] = {
        "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":"
        "\"login\","
        "\"partialArgs\":[{\"jsonPath\":\"$.password\",\"stringValue\":\"gem-Pa\",\"willContinue\":"
        "true}],"
        "\"willContinue\":true}}]}}]}",
        "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":"
        "\"login\","
        "\"partialArgs\":[{\"jsonPath\":\"$.password\",\"stringValue\":\"ss-77Zq\"}],"
        "\"willContinue\":false}}]}}]}",
    };
    size_t len[2] = {strlen(ev[0]), strlen(ev[1])};
    char *out[2];
    tw_buf body = {0};
    tw_buf_printf(&body, "data: %s\n\ndata: %s\n\n", ev[0], ev[1]);
    tw_redactor r = {0};
    cr_assert_eq(tw_redact_discover_body(&r, body.data, body.len, 64), TW_OK);
    cr_assert_eq(tw_redact_stream(&r, ev, len, 2, 64, out), TW_OK);
    tw_buf joined = {0};
    for (size_t e = 0; e < 2; e++) {
        cJSON *j = cJSON_Parse(out[e] ? out[e] : ev[e]);
        tw_buf_puts(
            &joined,
            at_path(j, "candidates/0/content/parts/0/functionCall/partialArgs/0/stringValue")
                ->valuestring);
        cJSON_Delete(j);
        free(out[e]);
    }
    cr_expect_str_eq(joined.data, TW_REDACTED);
    tw_buf_free(&joined);
    tw_buf_free(&body);
    tw_redactor_free(&r);
}

/* ---------------------------------------------------------------- end to end */

/* Secrets made at run time (no file of the project holds one). */
static char K_OPENAI[40], K_ANTH[40], PW_HERMES[40], PW_QWEN[40], PW_QWEN_SPLIT[40];

static void make_secrets(void)
{
    unsigned p = (unsigned)getpid();
    snprintf(K_OPENAI, sizeof K_OPENAI, "zqOpenAIkey%08xTail77", p);
    snprintf(K_ANTH, sizeof K_ANTH, "zqAnthKey%08xTail99Q", p * 7u);
    snprintf(PW_HERMES, sizeof PW_HERMES, "zqHermesPw%08xQ", p * 13u);
    snprintf(PW_QWEN, sizeof PW_QWEN, "zqReasonPw%08xR", p * 17u);
    snprintf(PW_QWEN_SPLIT, sizeof PW_QWEN_SPLIT, "zqQwenSplit%08xS", p * 19u);
}

static const char *const *all_secrets(void)
{
    static const char *s[6];
    s[0] = K_OPENAI, s[1] = K_ANTH, s[2] = PW_HERMES, s[3] = PW_QWEN, s[4] = PW_QWEN_SPLIT,
    s[5] = NULL;
    return s;
}

/* An OpenAI stream whose content is `text` in k-byte pieces and whose
 * reasoning is `reason` in 3-byte pieces. */
static void openai_stream(tw_buf *o, const char *text, size_t k, const char *reason)
{
    for (size_t a = 0, n = strlen(reason); a < n; a += 3) {
        char *p = strndup(reason + a, 3), *js = jstr(p);
        tw_buf_printf(
            o,
            "data: "
            "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
            "\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":%s},\"finish_reason\":null}"
            "]}\n\n",
            js);
        free(p);
        cJSON_free(js);
    }
    for (size_t a = 0, n = strlen(text); a < n; a += k) {
        char *p = strndup(text + a, k), *js = jstr(p);
        tw_buf_printf(
            o,
            "data: "
            "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
            "\"choices\":[{\"index\":0,\"delta\":{\"content\":%s},\"finish_reason\":null}]}\n\n",
            js);
        free(p);
        cJSON_free(js);
    }
    tw_buf_puts(
        o,
        "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
        "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
}

/* An Anthropic stream whose text is `text` cut in two at `cut`, and whose
 * thinking is `think` in 5-byte pieces. */
static void anthropic_stream(tw_buf *o, const char *text, size_t cut, const char *think)
{
    tw_buf_puts(
        o, "event: message_start\ndata: "
           "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":"
           "\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,"
           "\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n"
           "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
           "\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n");
    for (size_t a = 0, n = strlen(think); a < n; a += 5) {
        char *p = strndup(think + a, 5), *js = jstr(p);
        tw_buf_printf(
            o,
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
            "\"delta\":{\"type\":\"thinking_delta\",\"thinking\":%s}}\n\n",
            js);
        free(p);
        cJSON_free(js);
    }
    tw_buf_puts(o,
                "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
                "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,"
                "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n");
    char *p1 = strndup(text, cut), *j1 = jstr(p1), *j2 = jstr(text + cut);
    tw_buf_printf(o,
                  "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,"
                  "\"delta\":{\"type\":\"text_delta\",\"text\":%s}}\n\n"
                  "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,"
                  "\"delta\":{\"type\":\"text_delta\",\"text\":%s}}\n\n",
                  j1, j2);
    free(p1);
    cJSON_free(j1);
    cJSON_free(j2);
    tw_buf_puts(
        o, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n"
           "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
           "\"end_turn\"},\"usage\":{\"output_tokens\":5}}\n\n"
           "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
}

/* The pieces of every stream in a fixture, joined per exchange. */
static void joined_pieces(const char *fixture, tw_buf *out)
{
    size_t n = 0;
    char *t = tw_test_slurp(fixture, &n);
    cJSON *f = cJSON_Parse(t);
    cr_assert_not_null(f, "%s does not parse", fixture);
    cJSON *xs = cJSON_GetObjectItem(f, "exchanges");
    size_t streams = 0;
    for (cJSON *x = xs ? xs->child : NULL; x; x = x->next) {
        cJSON *evs = at_path(x, "response/events");
        streams += evs != NULL;
        static const char *const paths[] = {"choices/0/delta/content",
                                            "choices/0/delta/reasoning_content", "delta/text",
                                            "delta/thinking"};
        for (size_t p = 0; p < 4; p++) {
            for (cJSON *e = evs ? evs->child : NULL; e; e = e->next) {
                cJSON *d = cJSON_GetObjectItem(e, "data");
                cJSON *ev = cJSON_IsString(d) ? cJSON_Parse(d->valuestring) : NULL;
                cJSON *s = ev ? at_path(ev, paths[p]) : NULL;
                if (cJSON_IsString(s))
                    tw_buf_puts(out, s->valuestring);
                cJSON_Delete(ev);
            }
            tw_buf_puts(out, "\n--\n");
        }
        cJSON *mt = cJSON_GetObjectItem(x, "model_text");
        if (cJSON_IsString(mt))
            tw_buf_puts(out, mt->valuestring);
    }
    cr_expect_gt(streams, 0, "%s holds no stream", fixture);
    cJSON_Delete(f);
    free(t);
}

/* No 8-byte window of any secret in the file, nor in the text its streams
 * carry once their pieces are joined; the marker where each secret was. */
static void check_fixture(const char *fixture, size_t want_markers)
{
    size_t n = 0;
    char *t = tw_test_slurp(fixture, &n);
    tw_buf j = {0};
    joined_pieces(fixture, &j);
    for (const char *const *s = all_secrets(); *s; s++) {
        cr_expect(!tw_test_window_of(t, n, *s), "%s holds 8 bytes of %s", fixture, *s);
        cr_expect(!tw_test_window_of(j.data ? j.data : "", j.len, *s),
                  "%s: its streams' pieces joined hold 8 bytes of %s: %s", fixture, *s, j.data);
    }
    size_t markers = 0;
    for (const char *p = j.data; p && (p = strstr(p, TW_REDACTED)); p++)
        markers++;
    cr_expect_geq(markers, want_markers, "%s: %zu markers in the joined pieces: %s", fixture,
                  markers, j.data);
    tw_buf_free(&j);
    free(t);
}

/* No 8-byte window of any secret in a file that is not a fixture. */
static void check_plain(const char *path)
{
    size_t n = 0;
    char *t = tw_test_slurp(path, &n);
    for (const char *const *s = all_secrets(); *s; s++)
        cr_expect(!tw_test_window_of(t, n, *s), "%s holds 8 bytes of %s", path, *s);
    free(t);
}

/* The text of the four recorded streams: keys echoed in pieces, and calls
 * written as model text holding passwords. */
static void recorded_bodies(char *bodies[4])
{
    char text[400], hermes[400], qwen[400], reason[400];
    tw_buf b[4] = {{0}};
    snprintf(text, sizeof text, "You sent the key %s, and I kept it.", K_OPENAI);
    openai_stream(&b[0], text, 4, K_OPENAI);
    snprintf(text, sizeof text, "Your key: %s.", K_ANTH);
    anthropic_stream(&b[1], text, 10 + strlen(K_ANTH) / 2, K_ANTH);
    snprintf(hermes, sizeof hermes, model_calls[0], PW_HERMES);
    openai_stream(&b[2], hermes, 5, "");
    snprintf(qwen, sizeof qwen, model_calls[1], PW_QWEN_SPLIT);
    snprintf(reason, sizeof reason, model_calls[0], PW_QWEN); /* a call drafted in the reasoning */
    openai_stream(&b[3], qwen, 6, reason);
    for (int i = 0; i < 4; i++)
        bodies[i] = tw_buf_take(&b[i], NULL);
}

static const char *const rec_path[4] = {"/v1/chat/completions", "/v1/messages",
                                        "/v1/chat/completions", "/v1/chat/completions"};

static void write_har(const char *path, char *bodies[4])
{
    cJSON *root = cJSON_CreateObject();
    cJSON *log = cJSON_AddObjectToObject(root, "log");
    cJSON_AddStringToObject(log, "version", "1.2");
    cJSON *cr = cJSON_AddObjectToObject(log, "creator");
    cJSON_AddStringToObject(cr, "name", "test");
    cJSON_AddStringToObject(cr, "version", "1");
    cJSON *es = cJSON_AddArrayToObject(log, "entries");
    for (int i = 0; i < 4; i++) {
        cJSON *e = cJSON_CreateObject(), *rq = cJSON_AddObjectToObject(e, "request"),
              *rs = cJSON_AddObjectToObject(e, "response");
        char url[200], auth[200];
        snprintf(url, sizeof url, "https://api.example.test%s", rec_path[i]);
        cJSON_AddStringToObject(rq, "method", "POST");
        cJSON_AddStringToObject(rq, "url", url);
        cJSON_AddStringToObject(rq, "httpVersion", "HTTP/1.1");
        cJSON *h = cJSON_AddArrayToObject(rq, "headers"), *hv = cJSON_CreateObject();
        cJSON_AddStringToObject(hv, "name", i == 1 ? "x-api-key" : "Authorization");
        snprintf(auth, sizeof auth, i == 1 ? "%s" : "Bearer %s", i == 1 ? K_ANTH : K_OPENAI);
        cJSON_AddStringToObject(hv, "value", auth);
        cJSON_AddItemToArray(h, hv);
        cJSON *pd = cJSON_AddObjectToObject(rq, "postData");
        cJSON_AddStringToObject(pd, "mimeType", "application/json");
        cJSON_AddStringToObject(pd, "text",
                                i == 1 ? "{\"model\":\"m\",\"max_tokens\":64,\"stream\":true,"
                                         "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"
                                       : "{\"model\":\"m\",\"stream\":true,\"messages\":"
                                         "[{\"role\":\"user\",\"content\":\"hi\"}]}");
        cJSON_AddNumberToObject(rs, "status", 200);
        cJSON_AddStringToObject(rs, "statusText", "OK");
        cJSON_AddStringToObject(rs, "httpVersion", "HTTP/1.1");
        cJSON *rh = cJSON_AddArrayToObject(rs, "headers"), *ct = cJSON_CreateObject();
        cJSON_AddStringToObject(ct, "name", "Content-Type");
        cJSON_AddStringToObject(ct, "value", "text/event-stream");
        cJSON_AddItemToArray(rh, ct);
        cJSON *c = cJSON_AddObjectToObject(rs, "content");
        cJSON_AddStringToObject(c, "mimeType", "text/event-stream");
        cJSON_AddStringToObject(c, "text", bodies[i]);
        cJSON_AddItemToArray(es, e);
    }
    char *t = cJSON_Print(root);
    tw_test_spit(path, t);
    cJSON_free(t);
    cJSON_Delete(root);
}

/* A vcrpy cassette, written in YAML's JSON-compatible flow style. */
static void write_vcr(const char *path, char *bodies[4])
{
    tw_buf y = {0};
    tw_buf_puts(&y, "interactions:\n");
    for (int i = 0; i < 4; i++) {
        char auth[200];
        snprintf(auth, sizeof auth, i == 1 ? "%s" : "Bearer %s", i == 1 ? K_ANTH : K_OPENAI);
        char *ja = jstr(auth), *jb = jstr(bodies[i]);
        tw_buf_printf(&y,
                      "- request:\n    method: POST\n    uri: \"https://api.example.test%s\"\n"
                      "    headers: {%s: [%s], Content-Type: [application/json]}\n"
                      "    body: "
                      "'{\"model\":\"m\",\"max_tokens\":64,\"stream\":true,\"messages\":[{\"role\":"
                      "\"user\",\"content\":\"hi\"}]}'\n"
                      "  response:\n    status: {code: 200, message: OK}\n"
                      "    headers: {Content-Type: [text/event-stream]}\n    body: {string: %s}\n",
                      rec_path[i], i == 1 ? "x-api-key" : "Authorization", ja, jb);
        cJSON_free(ja);
        cJSON_free(jb);
    }
    tw_buf_puts(&y, "version: 1\n");
    tw_test_spit(path, y.data);
    tw_buf_free(&y);
}

Test(pieces, import_scrubs_keys_and_passwords_cut_into_pieces, .timeout = 120)
{
    const char *bin = getenv("TOOLWIRE_BIN");
    cr_assert(bin, "TOOLWIRE_BIN is set by ctest");
    make_secrets();
    char dir[] = "/tmp/tw_pieces_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char *bodies[4];
    recorded_bodies(bodies);
    char p[600];
    snprintf(p, sizeof p, "%s/rec.har", dir);
    write_har(p, bodies);
    snprintf(p, sizeof p, "%s/rec.yaml", dir);
    write_vcr(p, bodies);
    for (int i = 0; i < 4; i++)
        free(bodies[i]);
    for (int i = 0; i < 2; i++) {
        const char *k = i ? "vcr" : "har";
        cr_expect_eq(
            tw_test_sh("cd '%s' && '%s' import --from %s --out out-%s rec.%s > %s.out 2> %s.err",
                       dir, bin, k, k, i ? "yaml" : "har", k, k),
            0, "import --from %s", k);
        snprintf(p, sizeof p, "%s/out-%s/rec.json", dir, k);
        /* the key in 4-byte content pieces and in reasoning, the key cut in
         * two text deltas and in thinking, two passwords in model-text calls */
        check_fixture(p, 6);
        for (int e = 0; e < 2; e++) {
            snprintf(p, sizeof p, "%s/%s.%s", dir, k, e ? "err" : "out");
            check_plain(p);
        }
    }
    tw_test_sh("rm -rf '%s'", dir);
}

Test(pieces, import_joins_a_key_cut_across_two_interactions, .timeout = 120)
{
    /* the key's first half ends the content of one recorded stream, its
     * second half starts the next one's */
    const char *bin = getenv("TOOLWIRE_BIN");
    cr_assert(bin, "TOOLWIRE_BIN is set by ctest");
    make_secrets();
    char *dir = tw_test_tmpdir("tw_pieces");
    size_t half = strlen(K_OPENAI) / 2;
    char first[200], second[200];
    snprintf(first, sizeof first, "the key is %.*s", (int)half, K_OPENAI);
    snprintf(second, sizeof second, "%s and that is all", K_OPENAI + half);
    tw_buf b[4] = {{0}};
    openai_stream(&b[0], "hello", 4, "");
    anthropic_stream(&b[1], "hello there", 5, "");
    openai_stream(&b[2], first, 4, "");
    openai_stream(&b[3], second, 4, "");
    char *bodies[4];
    for (int i = 0; i < 4; i++)
        bodies[i] = tw_buf_take(&b[i], NULL);
    char p[600];
    snprintf(p, sizeof p, "%s/cut.har", dir);
    write_har(p, bodies);
    snprintf(p, sizeof p, "%s/cut.yaml", dir);
    write_vcr(p, bodies);
    for (int i = 0; i < 4; i++)
        free(bodies[i]);
    for (int i = 0; i < 2; i++) {
        const char *k = i ? "vcr" : "har";
        cr_expect_eq(
            tw_test_sh("cd '%s' && '%s' import --from %s --out out-%s cut.%s > %s.out 2> %s.err",
                       dir, bin, k, k, i ? "yaml" : "har", k, k),
            0, "import --from %s", k);
        snprintf(p, sizeof p, "%s/out-%s/cut.json", dir, k);
        size_t n = 0;
        char *t = tw_test_slurp(p, &n);
        cJSON *f = cJSON_Parse(t);
        cr_assert_not_null(f);
        tw_buf all = {0};
        tw_buf_reserve(&all, 1);
        for (cJSON *x = cJSON_GetObjectItem(f, "exchanges")->child; x; x = x->next)
            for (cJSON *e = at_path(x, "response/events") ? at_path(x, "response/events")->child
                                                          : NULL;
                 e; e = e->next) {
                cJSON *ev = cJSON_Parse(cJSON_GetObjectItem(e, "data")->valuestring);
                cJSON *c = ev ? at_path(ev, "choices/0/delta/content") : NULL;
                if (cJSON_IsString(c))
                    tw_buf_puts(&all, c->valuestring);
                cJSON_Delete(ev);
            }
        cr_expect(!tw_test_window_of(all.data, all.len, K_OPENAI) &&
                      !tw_test_window_of(t, n, K_OPENAI),
                  "%s: the content of every exchange joined: %s", k, all.data);
        cr_expect(strstr(all.data, "the key is " TW_REDACTED " and that is all") != NULL, "%s: %s",
                  k, all.data);
        tw_buf_free(&all);
        cJSON_Delete(f);
        free(t);
    }
    tw_test_rm_tree(dir);
    free(dir);
}

/* ---- record, against a server that echoes the key it is sent in pieces (not toolwire) ---- */

static enum MHD_Result echo_pieces(void *cls, struct MHD_Connection *c, const char *url,
                                   const char *method, const char *version, const char *upload,
                                   size_t *upload_size, void **con_cls)
{
    (void)cls, (void)method, (void)version, (void)upload;
    if (!*con_cls) {
        *con_cls = c;
        return MHD_YES;
    }
    if (*upload_size) {
        *upload_size = 0;
        return MHD_YES;
    }
    const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    const char *xk = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "x-api-key");
    const char *key = auth && strncmp(auth, "Bearer ", 7) == 0 ? auth + 7 : xk ? xk : "none";
    char text[300];
    tw_buf o = {0};
    if (strstr(url, "/many/")) {
        /* more text channels than a stream may have (4096): 4200 choices */
        for (int i = 0; i < 4200; i++)
            tw_buf_printf(
                &o, "data: {\"choices\":[{\"index\":%d,\"delta\":{\"content\":\"%.4s\"}}]}\n\n", i,
                key + (i % 4) * 4);
    } else if (strstr(url, "/messages")) {
        snprintf(text, sizeof text, "Your key: %s.", key);
        anthropic_stream(&o, text, 10 + strlen(key) / 2, key);
    } else {
        snprintf(text, sizeof text, "You sent the key %s, and I kept it.", key);
        openai_stream(&o, text, 4, key);
    }
    struct MHD_Response *r = MHD_create_response_from_buffer(o.len, o.data, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(r, "Content-Type", "text/event-stream");
    enum MHD_Result ret = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    tw_buf_free(&o);
    return ret;
}

Test(pieces, record_scrubs_the_key_echoed_in_pieces, .timeout = 120)
{
    const char *bin = getenv("TOOLWIRE_BIN");
    cr_assert(bin, "TOOLWIRE_BIN is set by ctest");
    make_secrets();
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct MHD_Daemon *d =
        MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, echo_pieces, NULL,
                         MHD_OPTION_SOCK_ADDR, &sa, MHD_OPTION_END);
    cr_assert_not_null(d);
    unsigned port = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port;
    char dir[] = "/tmp/tw_pieces_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char p[600];
    for (int i = 0; i < 2; i++) {
        const char *path = i ? "/v1/messages" : "/v1/chat/completions";
        const char *key = i ? K_ANTH : K_OPENAI;
        snprintf(p, sizeof p, "%s/in%d.json", dir, i);
        char *fx = NULL;
        cr_assert(
            asprintf(&fx,
                     "{\"fixture_version\": 1, \"name\": \"echo%d\", \"description\": \"echo\","
                     " \"backend\": \"%s\", \"provenance\": {\"source\": \"hand-made\"}, "
                     "\"exchanges\": ["
                     "{\"request\": {\"method\": \"POST\", \"path\": \"%s\", \"headers\": "
                     "{\"content-type\":"
                     " \"application/json\"}, \"body\": {\"model\": \"m\", \"max_tokens\": 64, "
                     "\"stream\": true,"
                     " \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}}, \"response\": "
                     "{\"status\": 200,"
                     " \"events\": [{\"data\": \"[DONE]\"}]}}]}\n",
                     i, i ? "anthropic" : "openai", path) > 0);
        tw_test_spit(p, fx);
        free(fx);
        cr_assert_eq(setenv("TW_PIECES_KEY", key, 1), 0);
        cr_expect_eq(tw_test_sh("cd '%s' && '%s' record --backend http://127.0.0.1:%u --key-env "
                                "TW_PIECES_KEY --out out%d "
                                "in%d.json > rec%d.out 2> rec%d.err",
                                dir, bin, port, i, i, i, i),
                     0, "record of %s", path);
        snprintf(p, sizeof p, "%s/out%d/in%d.json", dir, i, i);
        /* content (or text) and reasoning (or thinking) */
        check_fixture(p, 2);
        for (int e = 0; e < 2; e++) {
            snprintf(p, sizeof p, "%s/rec%d.%s", dir, i, e ? "err" : "out");
            check_plain(p);
        }
    }
    /* past the cap of channels: refused with a reason, nothing written */
    snprintf(p, sizeof p, "%s/many.json", dir);
    tw_test_spit(
        p,
        "{\"fixture_version\": 1, \"name\": \"many\", \"description\": \"many\", \"backend\": "
        "\"openai\","
        " \"provenance\": {\"source\": \"hand-made\"}, \"exchanges\": [{\"request\": {\"method\": "
        "\"POST\","
        " \"path\": \"/v1/many/chat/completions\", \"headers\": {\"content-type\": "
        "\"application/json\"},"
        " \"body\": {\"model\": \"m\", \"stream\": true, \"messages\": [{\"role\": \"user\", "
        "\"content\":"
        " \"hi\"}]}}, \"response\": {\"status\": 200, \"events\": [{\"data\": \"[DONE]\"}]}}]}\n");
    cr_assert_eq(setenv("TW_PIECES_KEY", K_OPENAI, 1), 0);
    int rc = tw_test_sh("cd '%s' && '%s' record --backend http://127.0.0.1:%u --key-env "
                        "TW_PIECES_KEY --out outmany "
                        "many.json > many.out 2> many.err",
                        dir, bin, port);
    cr_expect_eq(rc, 1, "record past the cap of channels exited %d", rc);
    snprintf(p, sizeof p, "%s/many.err", dir);
    size_t n = 0;
    char *err = tw_test_slurp(p, &n);
    cr_expect(strstr(err, "more than 4096 text channels") != NULL, "%s", err);
    free(err);
    snprintf(p, sizeof p, "%s/outmany/many.json", dir);
    cr_expect_neq(access(p, F_OK), 0, "a fixture was written past the cap");
    MHD_stop_daemon(d);
    tw_test_sh("rm -rf '%s'", dir);
}
