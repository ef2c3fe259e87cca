/*
 * The Mistral prompt encoders and readers (src/mistral_enc.c,
 * src/request_mistral.c, docs/formats/mistral.md, "The prompts") beyond
 * the renderings of tests/data/prompts/ (test_dialect_prompts.c): NUL bytes
 * in a prompt's text kept and in a name refused, the ids Devstral's and
 * Ministral's readers give calls and results, what each template carries or
 * warns it drops, the readers' errors with their offsets, and linear work
 * on many turns.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolwire/encode.h"
#include "toolwire/json.h"
#include "toolwire/mistral.h"
#include "toolwire/registry.h"
#include "toolwire/request.h"
#include "twtest.h"

/* the library's work counter (src/work.h, internal) */
uint64_t tw_work_count(void);
void tw_work_reset(void);

static const char *const PROMPTS[] = {"mistral-small-3.2-prompt", "devstral-small-prompt",
                                      "ministral-3-reasoning-prompt"};

/* Read `len` bytes of `text` (an exact-size heap copy) with reader `name`. */
static tw_status read_prompt(const char *name, const char *text, size_t len, tw_request *q,
                             tw_error *e)
{
    const tw_request_reader_ops *rd = tw_request_reader_find(name);
    cr_assert_not_null(rd, "no reader %s", name);
    char *copy = malloc(len ? len : 1);
    cr_assert_not_null(copy);
    memcpy(copy, text, len);
    tw_status st = rd->decode(copy, len, NULL, q, e);
    free(copy);
    return st;
}

/* Encode a request given as neutral JSON with `name`; the bytes (free()). */
static char *encode_json(const char *name, const char *json, tw_diag_list *w, tw_status *st)
{
    cJSON *j = NULL; /* read as the library reads JSON: number spellings kept */
    tw_error je;
    cr_assert_eq(tw_json_parse(json, strlen(json), 64, &j, &je), TW_OK, "bad JSON in the test");
    tw_request r;
    tw_error e;
    cr_assert_eq(tw_request_read(j, NULL, &r, &e), TW_OK, "%s", e.message);
    cJSON_Delete(j);
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    o.parallel_tool_calls = -1;
    o.warnings = w;
    tw_buf out = {0};
    *st = tw_encoder_find(name)->encode_request(&r, &o, &out);
    tw_request_free(&r);
    size_t n = 0;
    char *s = tw_buf_take(&out, &n);
    return s ? s : calloc(1, 1);
}

static bool warned(const tw_diag_list *w, const char *what)
{
    for (size_t i = 0; i < w->len; i++)
        if (strstr(w->items[i].message, what))
            return true;
    return false;
}

Test(mistral_prompts, nul_in_text_kept)
{
    static const char P[] = "<s>[INST]a\0b[/INST]o\0k</s>";
    for (size_t i = 0; i < sizeof PROMPTS / sizeof PROMPTS[0]; i++) {
        tw_request q;
        tw_error e;
        cr_assert_eq(read_prompt(PROMPTS[i], P, sizeof P - 1, &q, &e), TW_OK, "%s: %s", PROMPTS[i],
                     e.message);
        cr_assert_eq(q.nmessages, 2, "%s", PROMPTS[i]);
        cr_expect_eq(q.messages[0].content.len, 3, "%s: the user text cut at its NUL", PROMPTS[i]);
        cr_expect(q.messages[0].content.len == 3 &&
                      memcmp(q.messages[0].content.data, "a\0b", 3) == 0,
                  "%s", PROMPTS[i]);
        cr_expect(q.messages[1].content.len == 3 &&
                      memcmp(q.messages[1].content.data, "o\0k", 3) == 0,
                  "%s: the assistant text", PROMPTS[i]);
        tw_request_free(&q);
    }
    /* Ministral's thinking too */
    static const char T[] = "<s>[INST]a[/INST][THINK]t\0u[/THINK]x</s>";
    tw_request q;
    tw_error e;
    cr_assert_eq(read_prompt("ministral-3-reasoning-prompt", T, sizeof T - 1, &q, &e), TW_OK, "%s",
                 e.message);
    cr_assert_eq(q.nmessages, 2);
    cr_expect(q.messages[1].thinking.len == 3 &&
                  memcmp(q.messages[1].thinking.data, "t\0u", 3) == 0,
              "the thinking cut at its NUL");
    cr_expect(q.messages[1].content.len == 1 && q.messages[1].content.data[0] == 'x');
    tw_request_free(&q);
}

Test(mistral_prompts, nul_in_name_or_json_refused_where_it_is)
{
    static const struct {
        const char *reader, *text;
        size_t at; /* the NUL's offset; the text runs to the next NUL */
        const char *what;
    } C[] = {
        {"devstral-small-prompt", "<s>[INST]a[/INST][TOOL_CALLS]f\0[ARGS]{}</s>", 30,
         "call's name"},
        {"mistral-small-3.2-prompt",
         "<s>[INST]a[/INST][TOOL_CALLS]f[CALL_ID]a\0cdefghi[ARGS]{}</s>", 40, "call's id"},
        {"ministral-3-reasoning-prompt", "<s>[INST]a[/INST][TOOL_CALLS]f[ARGS]{\"a\": \"\0\"}</s>",
         43, "arguments"},
        {"devstral-small-prompt", "<s>[AVAILABLE_TOOLS][\0][/AVAILABLE_TOOLS]", 21,
         "[AVAILABLE_TOOLS]"},
    };
    for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
        cr_assert_eq(strlen(C[i].text), C[i].at, "case %zu: the test's offset", i);
        size_t len = C[i].at + 1 + strlen(C[i].text + C[i].at + 1);
        tw_request q;
        tw_error e;
        tw_status st = read_prompt(C[i].reader, C[i].text, len, &q, &e);
        cr_expect_eq(st, TW_ERR_INVALID, "case %zu: %s", i, tw_code_name(st));
        cr_expect_eq(e.offset, (int64_t)C[i].at, "case %zu: offset %lld", i, (long long)e.offset);
        cr_expect(strstr(e.message, "NUL") && strstr(e.message, C[i].what), "case %zu: %s", i,
                  e.message);
        cr_expect(q.nmessages == 0 && q.messages == NULL && q.ntools == 0, "case %zu: not empty",
                  i);
    }
}

Test(mistral_prompts, results_answer_the_calls_in_order)
{
    static const char P[] = "<s>[INST]go[/INST]Two.[TOOL_CALLS]f[ARGS]{\"a\": 1}[TOOL_CALLS]g"
                            "[ARGS]{}</s>[TOOL_RESULTS]r1[/TOOL_RESULTS][TOOL_RESULTS]r2[/TOOL_"
                            "RESULTS][TOOL_RESULTS]r3[/TOOL_RESULTS]";
    for (size_t k = 1; k < 3; k++) {
        tw_request q;
        tw_error e;
        cr_assert_eq(read_prompt(PROMPTS[k], P, sizeof P - 1, &q, &e), TW_OK, "%s: %s", PROMPTS[k],
                     e.message);
        cr_assert_eq(q.nmessages, 5, "%s", PROMPTS[k]);
        const tw_message *a = &q.messages[1];
        cr_assert_eq(a->ncalls, 2);
        cr_expect_str_eq(a->calls[0].id, "call_1");
        cr_expect_str_eq(a->calls[1].id, "call_2");
        cr_expect(a->content.len == 4 && memcmp(a->content.data, "Two.", 4) == 0,
                  "%s: the content before the calls", PROMPTS[k]);
        cr_expect_str_eq(q.messages[2].tool_call_id, "call_1");
        cr_expect_str_eq(q.messages[3].tool_call_id, "call_2");
        cr_expect_str_eq(q.messages[4].tool_call_id, "", "%s: a result past the calls", PROMPTS[k]);
        tw_request_free(&q);
    }
}

Test(mistral_prompts, what_each_template_carries)
{
    static const char REQ[] =
        "{\"messages\":[{\"role\":\"user\",\"content\":\"2+2?\"},"
        "{\"role\":\"assistant\",\"content\":\"Let me see.\",\"thinking\":\"Simple sum.\","
        "\"tool_calls\":[{\"id\":\"call_77\",\"name\":\"calc\",\"arguments\":{\"x\":1E5}}]},"
        "{\"role\":\"tool\",\"tool_call_id\":\"call_77\",\"content\":\"4\"}]}";
    tw_diag_list w = {0};
    tw_status st;
    /* Ministral: the thinking and the content before the calls, no ids */
    char *m = encode_json("ministral-3-reasoning-prompt", REQ, &w, &st);
    cr_assert_eq(st, TW_OK, "%s", tw_code_name(st));
    cr_expect_not_null(strstr(m, "[INST]2+2?[/INST][THINK]Simple sum.[/THINK]Let me see."
                                 "[TOOL_CALLS]calc[ARGS]{\"x\": 100000.0}</s>"
                                 "[TOOL_RESULTS]4[/TOOL_RESULTS]"),
                       "%s", m);
    cr_expect(!warned(&w, "thinking"), "Ministral carries the thinking");
    cr_expect(warned(&w, "call ids"), "Ministral writes no ids: warned");
    tw_diag_list_free(&w);
    free(m);
    /* Devstral: the content, not the thinking */
    memset(&w, 0, sizeof w);
    char *d = encode_json("devstral-small-prompt", REQ, &w, &st);
    cr_assert_eq(st, TW_OK);
    cr_expect_not_null(strstr(d, "[INST]2+2?[/INST]Let me see.[TOOL_CALLS]calc[ARGS]"), "%s", d);
    cr_expect_null(strstr(d, "Simple sum."));
    cr_expect(warned(&w, "thinking"), "Devstral drops the thinking: warned");
    cr_expect(warned(&w, "call ids"));
    cr_expect(!warned(&w, "content beside"));
    tw_diag_list_free(&w);
    free(d);
    /* Small 3.2: the calls alone, with a 9-character id derived from call_77 */
    memset(&w, 0, sizeof w);
    char *s = encode_json("mistral-small-3.2-prompt", REQ, &w, &st);
    cr_assert_eq(st, TW_OK);
    cr_expect_not_null(strstr(s, "[INST]2+2?[/INST][TOOL_CALLS]calc[CALL_ID]"), "%s", s);
    cr_expect_null(strstr(s, "Let me see."));
    cr_expect(warned(&w, "content beside tool calls"));
    cr_expect(warned(&w, "thinking"));
    cr_expect(warned(&w, "length 9"));
    cr_expect(!warned(&w, "call ids"), "Small writes ids");
    tw_diag_list_free(&w);
    free(s);
}

Test(mistral_prompts, tools_after_the_system_prompt_or_before_the_last_user)
{
    static const char REQ[] =
        "{\"messages\":[{\"role\":\"system\",\"content\":\"S\"},{\"role\":\"user\",\"content\":"
        "\"a\"},{\"role\":\"assistant\",\"content\":\"b\"},{\"role\":\"user\",\"content\":\"c\"}],"
        "\"tools\":[{\"name\":\"f\",\"description\":\"d\",\"parameters\":{}}]}";
    static const char TOOLS[] = "[AVAILABLE_TOOLS][{\"type\": \"function\", \"function\": "
                                "{\"name\": \"f\", \"description\": \"d\", \"parameters\": {}}}]"
                                "[/AVAILABLE_TOOLS]";
    char want[512];
    for (size_t i = 0; i < 3; i++) {
        tw_diag_list w = {0};
        tw_status st;
        char *p = encode_json(PROMPTS[i], REQ, &w, &st);
        cr_assert_eq(st, TW_OK, "%s", PROMPTS[i]);
        if (i == 0)
            snprintf(want, sizeof want,
                     "<s>[SYSTEM_PROMPT]S[/SYSTEM_PROMPT][INST]a[/INST]b</s>%s"
                     "[INST]c[/INST]",
                     TOOLS);
        else
            snprintf(want, sizeof want,
                     "<s>[SYSTEM_PROMPT]S[/SYSTEM_PROMPT]%s[INST]a[/INST]b</s>"
                     "[INST]c[/INST]",
                     TOOLS);
        cr_expect_str_eq(p, want, "%s", PROMPTS[i]);
        free(p);
        tw_diag_list_free(&w);
    }
}

Test(mistral_prompts, reader_errors_say_where)
{
    static const struct {
        const char *reader, *text;
        size_t at;
        const char *what;
    } C[] = {
        {"ministral-3-reasoning-prompt", "<s>[INST]a[/INST][THINK]abc", 24,
         "[THINK] is not closed"},
        {"devstral-small-prompt", "<s>[INST]a[/INST]x[TOOL_CALLS]f{}</s>", 30, "without [ARGS]"},
        {"devstral-small-prompt", "<s>[INST]a[/INST][TOOL_CALLS]f[ARGS]{}", 38,
         "not followed by </s>"},
        {"mistral-small-3.2-prompt", "<s>[AVAILABLE_TOOLS][][/AVAILABLE_TOOLS]x", 40,
         "not followed by [INST]"},
        {"devstral-small-prompt", "<s>[SYSTEM_PROMPT]sys", 18, "[SYSTEM_PROMPT] is not closed"},
    };
    for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
        tw_request q;
        tw_error e;
        tw_status st = read_prompt(C[i].reader, C[i].text, strlen(C[i].text), &q, &e);
        cr_expect_eq(st, TW_ERR_INVALID, "case %zu: %s", i, tw_code_name(st));
        cr_expect_eq(e.offset, (int64_t)C[i].at, "case %zu: offset %lld (%s)", i,
                     (long long)e.offset, e.message);
        cr_expect_not_null(strstr(e.message, C[i].what), "case %zu: %s", i, e.message);
        cr_expect_not_null(strstr(e.message, C[i].reader), "case %zu: %s", i, e.message);
    }
    /* Devstral's and Ministral's tools need no [INST] after them */
    tw_request q;
    tw_error e;
    static const char OK[] = "<s>[AVAILABLE_TOOLS][][/AVAILABLE_TOOLS]x</s>";
    cr_expect_eq(read_prompt("devstral-small-prompt", OK, sizeof OK - 1, &q, &e), TW_OK, "%s",
                 e.message);
    tw_request_free(&q);
}

/* Many call turns: each reader and encoder does work linear in the bytes. */
Test(mistral_prompts, linear_on_many_turns)
{
    const size_t turns = 3000;
    tw_buf b = {0};
    cr_assert_eq(tw_buf_puts(&b, "<s>"), TW_OK);
    for (size_t i = 0; i < turns; i++)
        cr_assert_eq(tw_buf_printf(&b,
                                   "[INST]q%zu[/INST][TOOL_CALLS]f[CALL_ID]%09zu[ARGS]"
                                   "{\"i\": %zu}</s>[TOOL_RESULTS]%09zu[TOOL_CONTENT]r"
                                   "[/TOOL_RESULTS]a</s>",
                                   i, i, i, i),
                     TW_OK);
    /* Devstral's and Ministral's form: no ids, content before the calls */
    tw_buf d = {0};
    cr_assert_eq(tw_buf_puts(&d, "<s>"), TW_OK);
    for (size_t i = 0; i < turns; i++)
        cr_assert_eq(tw_buf_printf(&d,
                                   "[INST]q%zu[/INST]t[TOOL_CALLS]f[ARGS]{\"i\": %zu}</s>"
                                   "[TOOL_RESULTS]r[/TOOL_RESULTS]a</s>",
                                   i, i),
                     TW_OK);
    tw_limits L;
    memset(&L, 0, sizeof L);
    L.max_messages = 5 * turns;
    L.max_calls = 2 * turns;
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits = L;
    for (size_t k = 0; k < 3; k++) {
        const tw_buf *in = k == 0 ? &b : &d;
        const tw_request_reader_ops *rd = tw_request_reader_find(PROMPTS[k]);
        tw_request q;
        tw_error e;
        tw_work_reset();
        tw_status st = rd->decode(in->data, in->len, &o, &q, &e);
        uint64_t work = tw_work_count();
        cr_assert_eq(st, TW_OK, "%s: %s", PROMPTS[k], e.message);
        cr_expect_eq(q.nmessages, 4 * turns, "%s", PROMPTS[k]);
        cr_expect_leq(work, 16 * (uint64_t)in->len, "%s: %llu units for %zu bytes", PROMPTS[k],
                      (unsigned long long)work, in->len);
        cr_log_info("%s: read %zu bytes in %llu units", PROMPTS[k], in->len,
                    (unsigned long long)work);
        tw_encode_opts eo;
        memset(&eo, 0, sizeof eo);
        eo.limits = L;
        eo.parallel_tool_calls = -1;
        tw_buf out = {0};
        tw_work_reset();
        st = tw_encoder_find(PROMPTS[k])->encode_request(&q, &eo, &out);
        work = tw_work_count();
        cr_expect_eq(st, TW_OK, "%s: %s", PROMPTS[k], tw_code_name(st));
        cr_expect_leq(work, 16 * (uint64_t)(in->len + out.len), "%s: encoding, %llu units",
                      PROMPTS[k], (unsigned long long)work);
        tw_buf_free(&out);
        tw_request_free(&q);
    }
    tw_buf_free(&b);
    tw_buf_free(&d);
}

/* options.today: Small 3.2's date; any other option, or today in another
 * template, is not carried; a today that is no string is said so. */
Test(mistral_prompts, options_today)
{
    static const char *const REQ[] = {
        "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"options\":{\"today\":"
        "\"2031-02-03\"}}",
        "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"options\":{\"today\":5}}"};
    for (size_t k = 0; k < 3; k++)
        for (size_t i = 0; i < 2; i++) {
            tw_diag_list w = {0};
            tw_status st;
            char *p = encode_json(PROMPTS[k], REQ[i], &w, &st);
            cr_assert_eq(st, TW_OK, "%s", PROMPTS[k]);
            bool dated = strstr(p, "The current date is 2031-02-03.") != NULL;
            cr_expect_eq(dated, k == 0 && i == 0, "%s, request %zu: the date", PROMPTS[k], i);
            cr_expect_eq(warned(&w, "options.today not carried"), k != 0, "%s, request %zu",
                         PROMPTS[k], i);
            cr_expect_eq(warned(&w, "options.today is not a string"), k == 0 && i == 1,
                         "%s, request %zu", PROMPTS[k], i);
            free(p);
            tw_diag_list_free(&w);
        }
}
