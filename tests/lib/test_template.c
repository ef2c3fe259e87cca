/*
 * The format-module template (src/template/format_template.c) builds and
 * keeps the decoder contract of include/toolwire/decode.h: batch and push
 * agree, bad input is a diagnostic, a cap is a diagnostic, a failure leaves
 * *out valid and empty.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* "Adding a format" (docs/architecture.md) followed here: the template
 * compiled as a real module (its registry object not static), its row in
 * the table of formats, and the registry built from that table in this
 * program (src/registry.c, compiled here in place of the library's copy),
 * so that the registry, the mock and the drift checks see the new format. */
#define TW_TEMPLATE_AS_MODULE 1
#define TW_FORMAT_TABLE_EXTRA(D, E, R) D(tw_format_lines, "lines", TEXT, (lines, BATCH))
#include "../../src/template/format_template.c"
#include "../../src/registry.c"

#include "cases.h"
#include "mock_ref.h"
#include "name_lists.h"
#include "toolwire/registry.h"
#include "twtest.h"

static const char sample[] = "hello\n"
                             "CALL get_weather {\"city\": \"Paris\", \"days\": 2}\n"
                             "CALL broken {not json}\n"
                             "bye\n";

Test(template, batch_and_push_agree)
{
    tw_result a, b;
    cr_assert_eq(tw_format_lines.decode(sample, strlen(sample), NULL, &a), TW_OK);
    cr_assert_eq(tw_decode_chunked(&tw_format_lines, sample, strlen(sample), 1, NULL, &b), TW_OK);
    cr_assert_str_eq(a.msg.content.data, "hello\nbye\n");
    cr_assert_eq(a.msg.ncalls, 1);
    cr_assert_str_eq(a.msg.calls[0].name, "get_weather");
    cr_assert_str_eq(a.msg.calls[0].id, "call_1");
    cr_assert_str_eq(a.finish_reason, "tool_calls");
    /* the bad line is an error diagnostic, not a failure */
    cr_assert_eq(a.errors.len, 1);
    cr_assert_eq(a.errors.items[0].code, TW_D_TOOL_CALL_JSON);
    tw_buf ja = {0}, jb = {0};
    cr_assert_eq(tw_result_write(&ja, &a, TW_JSON_COMPACT), TW_OK);
    cr_assert_eq(tw_result_write(&jb, &b, TW_JSON_COMPACT), TW_OK);
    cr_assert_str_eq(ja.data, jb.data);
    tw_buf_free(&ja);
    tw_buf_free(&jb);
    tw_result_free(&a);
    tw_result_free(&b);
}

Test(template, caps_are_diagnostics)
{
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits.max_input_bytes = 10;
    tw_result r;
    cr_assert_eq(tw_format_lines.decode(sample, strlen(sample), &o, &r), TW_OK);
    cr_assert(tw_diag_has(&r.errors, TW_D_INPUT_TOO_LARGE));
    cr_assert_eq(r.msg.content.len, 10);
    tw_result_free(&r);

    memset(&o, 0, sizeof o);
    o.limits.max_calls = 1;
    static const char two[] = "CALL a {}\nCALL b {}\n";
    cr_assert_eq(tw_format_lines.decode(two, strlen(two), &o, &r), TW_OK);
    cr_assert_eq(r.msg.ncalls, 1);
    cr_assert(tw_diag_has(&r.errors, TW_D_TOO_MANY_CALLS));
    tw_result_free(&r);
}

/* The diagnostic list's entry with that code; fails the test when none. */
static const tw_diag *diag_of(const tw_diag_list *l, tw_status code)
{
    for (size_t i = 0; i < l->len; i++)
        if (l->items[i].code == code)
            return &l->items[i];
    cr_assert_fail("no %s diagnostic", tw_code_name(code));
    return NULL;
}

/* The template's calls go through the shared rules (src/calls.h): the same
 * call gives the same verdict and diagnostic as a registered decoder's. */
Test(template, calls_follow_shared_rules)
{
    tw_result r;
    /* a repeated id is made unique, with the duplicate_id warning */
    static const char dup[] = "CALL a@x {}\nCALL b@x {}\nCALL c {}\n";
    cr_assert_eq(tw_format_lines.decode(dup, strlen(dup), NULL, &r), TW_OK);
    cr_assert_eq(r.msg.ncalls, 3);
    cr_assert_str_eq(r.msg.calls[0].id, "x");
    cr_assert_str_neq(r.msg.calls[1].id, "x");
    cr_assert_str_neq(r.msg.calls[1].id, r.msg.calls[2].id);
    cr_assert_str_eq(r.msg.calls[2].id, "call_3"); /* no id: the shared call_<n> */
    cr_assert_eq(diag_of(&r.warnings, TW_D_DUPLICATE_ID)->offset, 12);
    cr_assert_eq(r.errors.len, 0);
    tw_result_free(&r);

    /* no argument text is an empty object; an empty name is missing_name;
     * a repeated key keeps the first value with the duplicate_key warning */
    static const char misc[] = "CALL ping\nCALL  {}\nCALL k {\"v\": 1, \"v\": 2}\n";
    cr_assert_eq(tw_format_lines.decode(misc, strlen(misc), NULL, &r), TW_OK);
    cr_assert_eq(r.msg.ncalls, 2);
    cr_assert_str_eq(r.msg.calls[0].name, "ping");
    cr_assert(cJSON_IsObject(r.msg.calls[0].arguments));
    cr_assert_null(r.msg.calls[0].arguments->child);
    cr_assert_eq(tw_json_get(r.msg.calls[1].arguments, "v")->valueint, 1);
    cr_assert_eq(diag_of(&r.errors, TW_D_MISSING_NAME)->offset, 10);
    cr_assert(tw_diag_has(&r.warnings, TW_D_DUPLICATE_KEY));
    tw_result_free(&r);

    /* arguments over max_args_bytes: refused with the diagnostic the Hermes
     * decoder gives the same call */
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits.max_args_bytes = 16;
    static const char big[] = "CALL a {\"text\": \"0123456789abcdefghij\"}\n";
    static const char hbig[] =
        "<tool_call>{\"name\": \"a\", \"arguments\": {\"text\": \"0123456789abcdefghij\"}}"
        "</tool_call>";
    const tw_module *hermes = tw_module_find(TW_MODULE_DECODER, "hermes");
    cr_assert_not_null(hermes);
    tw_result h;
    cr_assert_eq(hermes->decoder->decode(hbig, strlen(hbig), &o, &h), TW_OK);
    cr_assert_eq(tw_format_lines.decode(big, strlen(big), &o, &r), TW_OK);
    cr_assert_eq(r.msg.ncalls, 0);
    cr_assert_eq(h.msg.ncalls, 0);
    const tw_diag *dl = diag_of(&r.errors, TW_D_ARGS_TOO_LARGE);
    const tw_diag *dh = diag_of(&h.errors, TW_D_ARGS_TOO_LARGE);
    cr_assert_str_eq(dl->message, dh->message);
    cr_assert_eq(r.errors.len, 1);
    tw_result_free(&r);
    tw_result_free(&h);

    /* argument text past tw_args_text_cap is refused without being parsed */
    size_t cap = tw_args_text_cap(&(tw_limits){.max_args_bytes = 16});
    tw_buf in = {0};
    cr_assert_eq(tw_buf_puts(&in, "CALL a "), TW_OK);
    for (size_t i = 0; i <= cap; i++)
        cr_assert_eq(tw_buf_append(&in, "x", 1), TW_OK);
    cr_assert_eq(tw_format_lines.decode(in.data, in.len, &o, &r), TW_OK);
    cr_assert_eq(r.msg.ncalls, 0);
    cr_assert_str_eq(diag_of(&r.errors, TW_D_ARGS_TOO_LARGE)->message,
                     "argument text exceeds 2 * max_args_bytes + 4096");
    cr_assert_eq(r.errors.len, 1);
    tw_result_free(&r);
    tw_buf_free(&in);

    /* a declared tool list: an undeclared name is unknown_tool */
    static const char two[] = "CALL known {}\nCALL other {}\n";
    memset(&o, 0, sizeof o);
    tw_tool known = {0};
    char kname[] = "known";
    known.name = kname;
    o.tools = &known;
    o.ntools = 1;
    cr_assert_eq(tw_format_lines.decode(two, strlen(two), &o, &r), TW_OK);
    cr_assert_eq(r.msg.ncalls, 1);
    cr_assert_str_eq(r.msg.calls[0].name, "known");
    cr_assert_eq(diag_of(&r.errors, TW_D_UNKNOWN_TOOL)->offset, 14);
    tw_result_free(&r);
}

static long fail_from = -1;
static long nallocs;

static void *failing_malloc(size_t n)
{
    if (fail_from >= 0 && nallocs++ >= fail_from)
        return NULL;
    return malloc(n);
}

Test(template, failures_leave_out_empty)
{
    size_t failures = 0;
    for (long k = 0; k < 100; k++) {
        tw_result r;
        memset(&r, 0xA5, sizeof r);
        fail_from = k;
        nallocs = 0;
        cJSON_Hooks h = {failing_malloc, free};
        cJSON_InitHooks(&h);
        tw_status st = tw_format_lines.decode(sample, strlen(sample), NULL, &r);
        cJSON_InitHooks(NULL);
        if (st == TW_OK) {
            tw_result_free(&r);
            break;
        }
        cr_assert_eq(st, TW_ERR_NOMEM, "%s", tw_code_name(st));
        cr_assert_eq(r.msg.content.len, 0);
        cr_assert_eq(r.msg.ncalls, 0);
        cr_assert_null(r.finish_reason);
        cr_assert_eq(r.errors.len, 0);
        tw_result_free(&r);
        failures++;
    }
    cr_assert_gt(failures, 0);

    /* a finish out of order: TW_ERR_STATE, *out empty */
    tw_stream *s = tw_stream_new(&tw_format_lines, NULL, NULL, NULL);
    cr_assert_not_null(s);
    cr_assert_eq(tw_stream_feed(s, "x\n", 2), TW_OK);
    tw_result r;
    cr_assert_eq(tw_stream_finish(s, &r), TW_OK);
    tw_result_free(&r);
    memset(&r, 0xA5, sizeof r);
    cr_assert_eq(tw_stream_finish(s, &r), TW_ERR_STATE);
    cr_assert_eq(r.msg.content.len, 0);
    tw_result_free(&r);
    tw_stream_free(s);
}

/* The opaque decoder a module publishes: new, feed, finish, reset, free. */
Test(template, opaque_decoder_reused)
{
    tw_result a, b;
    cr_assert_eq(tw_format_lines.decode(sample, strlen(sample), NULL, &a), TW_OK);
    tw_lines_dec *d = tw_lines_dec_new(NULL, NULL, NULL);
    cr_assert_not_null(d);
    for (int round = 0; round < 3; round++) {
        if (round)
            cr_assert_eq(tw_lines_dec_reset(d, NULL, NULL, NULL), TW_OK);
        cr_assert_eq(tw_lines_dec_feed(d, sample, 7), TW_OK);
        cr_assert_eq(tw_lines_dec_feed(d, sample + 7, strlen(sample) - 7), TW_OK);
        cr_assert_eq(tw_lines_dec_finish(d, &b), TW_OK);
        char *ja = tw_test_neutral(&a), *jb = tw_test_neutral(&b);
        cr_assert_str_eq(jb, ja, "round %d", round);
        free(jb);
        tw_result_free(&b);
        cr_assert_eq(tw_lines_dec_finish(d, &b), TW_ERR_STATE, "a second finish");
        cr_assert_eq(b.msg.ncalls, 0);
        cr_assert_eq(tw_lines_dec_feed(d, "x", 1), TW_ERR_STATE, "a feed after finish");
        tw_result_free(&b); /* the empty result of the second finish */
        /* a reset in the middle of a decode drops what it held */
        cr_assert_eq(tw_lines_dec_reset(d, NULL, NULL, NULL), TW_OK);
        cr_assert_eq(tw_lines_dec_feed(d, "CALL x {}\npartial", 17), TW_OK);
        cr_assert_eq(tw_lines_dec_reset(d, NULL, NULL, NULL), TW_OK);
        cr_assert_eq(tw_lines_dec_feed(d, sample, strlen(sample)), TW_OK);
        cr_assert_eq(tw_lines_dec_finish(d, &b), TW_OK);
        jb = tw_test_neutral(&b);
        cr_assert_str_eq(jb, ja, "round %d, after a reset mid-decode", round);
        free(ja);
        free(jb);
        tw_result_free(&b);
    }
    tw_lines_dec_free(d);
    tw_lines_dec_free(NULL);
    tw_result_free(&a);
}

/* ---- the template as a module of the table ---- */

Test(template, the_registry_sees_the_new_row)
{
    cr_assert_eq(tw_format_find("lines"), &tw_format_lines);
    cr_assert(tw_decoder_is_text("lines"));
    size_t nf = 0;
    while (tw_formats()[nf])
        nf++;
    cr_assert_gt(nf, 1);
    cr_expect_eq(tw_formats()[nf - 1], &tw_format_lines, "the last row is the last decoder");
    const tw_module *m = tw_module_find(TW_MODULE_DECODER, "lines");
    cr_assert_not_null(m);
    cr_expect_eq(m->family, TW_FAMILY_TEXT);
    cr_expect_eq(m->decoder, &tw_format_lines);
}

/* The mock's text profiles decode a fixture's model text with its
 * decode.format: a hermes answer over the lines format. */
Test(template, the_mock_answers_in_the_new_format)
{
    cJSON *body = cJSON_Parse("{\"model\": \"m\", \"messages\": [{\"role\": \"user\", "
                              "\"content\": \"weather?\"}]}");
    cr_assert_not_null(body);
    tw_ref_text t;
    memset(&t, 0, sizeof t);
    t.model_text = "looking\nCALL get_weather {\"city\": \"Paris\"}\n";
    t.decode_format = "lines";
    tw_limits L;
    tw_limits_resolve(&L, NULL);
    tw_ref_answer a;
    tw_ref_answer_text("hermes", &t, body, &L, &a);
    cr_assert_eq(a.status, 200, "%s", a.why);
    cr_assert_not_null(a.body.data);
    cr_expect_not_null(strstr(a.body.data, "get_weather"), "%s", a.body.data);
    cr_expect_not_null(strstr(a.body.data, "\"tool_calls\""), "%s", a.body.data);
    cr_expect_not_null(strstr(a.body.data, "looking"), "%s", a.body.data);
    tw_ref_answer_free(&a);
    cJSON_Delete(body);
}

/* The drift checks see the row: the new format's fuzz target has no corpus
 * folder, dictionary or options yet, and docs/fixtures.md does not list
 * the decoder, until the walkthrough's steps add them. */
Test(template, the_drift_checks_see_the_new_row)
{
    names dec = {0}, targets = {0};
#define X_T(tg, nm, mode) tw_names_add(&targets, #tg);
#define X_DEC(sym, nm, fam, fuzz)                                                                  \
    tw_names_add(&dec, nm);                                                                        \
    TW_FUZZ_EACH(X_T, nm, fuzz)
#define X_NONE3(a, b, c)
#define X_NONE4(a, b, c, d)
    TW_FORMAT_TABLE(X_DEC, X_NONE4, X_NONE3)
#define X_O(tg, cond) tw_names_add(&targets, #tg);
    TW_FUZZ_OTHER_TARGETS(X_O)
    cr_assert(tw_names_has(&dec, "lines") && tw_names_has(&targets, "lines"));
    char why[1024];
    names corpus = tw_names_dir_entries(tw_test_src("corpus"), true, NULL);
    cr_expect_eq(tw_names_drift(&targets, &corpus, false, why, sizeof why), 1, "corpus/: %s", why);
    cr_expect_not_null(strstr(why, "missing lines"), "corpus/: %s", why);
    names dicts = tw_names_dir_entries(tw_test_src("fuzz"), false, ".dict");
    cr_expect_eq(tw_names_drift(&targets, &dicts, false, why, sizeof why), 1, "fuzz/*.dict: %s",
                 why);
    size_t len;
    char *fixtures = tw_test_slurp(tw_test_src("docs/fixtures.md"), &len);
    names listed = tw_names_backticked(fixtures, "| `format` | yes | a registered decoder:");
    listed.n--; /* `toolwire parse --help` */
    cr_expect_eq(tw_names_drift(&dec, &listed, true, why, sizeof why), 1,
                 "docs/fixtures.md, the decoders of `format`: %s", why);
    cr_expect_not_null(strstr(why, "missing lines"), "docs/fixtures.md: %s", why);
    free(fixtures);
}
