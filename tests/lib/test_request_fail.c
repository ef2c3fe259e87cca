/*
 * The request readers' failure helper returns a status whatever code it is
 * given: a diagnostic code stays in err->code, the call fails INVALID.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "toolwire/core.h"
#include "toolwire/registry.h"
#include "../../src/request_read.h"

static void begin(tw_rq *d, tw_request *r, tw_error *e)
{
    tw_rq_begin(d, NULL, r, e);
}

Test(request_fail, a_status_is_returned_as_given)
{
    tw_rq d;
    tw_request r;
    tw_error e;
    begin(&d, &r, &e);
    tw_status st = tw_rq_fail(&d, TW_ERR_LIMIT, 7, "messages[1]", "too long");
    cr_assert_eq(st, TW_ERR_LIMIT);
    cr_assert_eq(e.code, TW_ERR_LIMIT);
    cr_assert_eq(e.offset, 7);
    cr_assert_str_eq(e.path, "messages[1]");
    cr_assert_str_eq(e.message, "messages[1]: too long");
    tw_request_free(&r);
}

Test(request_fail, a_diagnostic_code_is_kept_but_never_returned)
{
    tw_rq d;
    tw_request r;
    tw_error e;
    begin(&d, &r, &e);
    tw_status st = tw_rq_fail(&d, TW_D_JSON_NUL, 3, "tools[0]", "holds a NUL");
    cr_assert(tw_code_is_status(st), "returned %s, not a status", tw_code_name(st));
    cr_assert_eq(st, TW_ERR_INVALID, "returned %s", tw_code_name(st));
    cr_assert_eq(e.code, TW_D_JSON_NUL, "err->code %s", tw_code_name(e.code));
    cr_assert_eq(e.offset, 3);
    cr_assert_str_eq(e.message, "tools[0]: holds a NUL");
    tw_request_free(&r);
}

Test(request_fail, success_is_never_returned_for_a_failure)
{
    tw_rq d;
    tw_request r;
    tw_error e;
    begin(&d, &r, &e);
    tw_status st = tw_rq_fail(&d, TW_OK, -1, NULL, "no reason");
    cr_assert_eq(st, TW_ERR_INVALID, "returned %s", tw_code_name(st));
    cr_assert_eq(e.code, TW_ERR_INVALID);
    cr_assert_eq(e.offset, -1);
    tw_request_free(&r);
}

Test(request_fail, without_an_error_struct_the_status_is_still_checked)
{
    tw_rq d;
    tw_request r;
    begin(&d, &r, NULL);
    cr_assert_eq(tw_rq_fail(&d, TW_D_JSON_TOO_DEEP, 0, "", "deep"), TW_ERR_INVALID);
    cr_assert_eq(tw_rq_fail(&d, TW_ERR_PARSE, 0, "", "bad"), TW_ERR_PARSE);
    tw_request_free(&r);
}

/* Every request reader refuses a body that repeats a top-level member: the
 * readers walk the members, and a second "tools" was once read into the
 * array sized for the first (a heap overflow) and a second "model" leaked. */
Test(request_fail, every_reader_refuses_a_repeated_member)
{
    static const char *const bodies[][2] = {
        {"openai-request", "{\"messages\":[{\"role\":\"user\",\"content\":\"a\"}],"
                           "\"tools\":[],\"tools\":[{\"type\":\"function\",\"function\":"
                           "{\"name\":\"f\"}}]}"},
        {"anthropic-request", "{\"max_tokens\":1,\"messages\":[{\"role\":\"user\",\"content\":"
                              "\"a\"}],\"tools\":[{\"name\":\"f\",\"input_schema\":{}}],"
                              "\"tools\":[{\"name\":\"g\",\"input_schema\":{}},"
                              "{\"name\":\"h\",\"input_schema\":{}}]}"},
        {"gemini-request", "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"a\"}]}],"
                           "\"contents\":[]}"},
        {"openai-responses-request", "{\"input\":\"a\",\"model\":\"m\",\"model\":\"n\"}"},
        {"vllm-generate-request", "{\"prompt\":\"a\",\"prompt\":\"b\"}"},
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        const tw_request_reader_ops *rd = tw_request_reader_find(bodies[i][0]);
        cr_assert_not_null(rd, "%s", bodies[i][0]);
        tw_request r;
        tw_error e;
        memset(&e, 0, sizeof e);
        const char *b = bodies[i][1];
        tw_status st = rd->decode(b, strlen(b), NULL, &r, &e);
        cr_assert_eq(st, TW_ERR_INVALID, "%s: %s", bodies[i][0], tw_code_name(st));
        cr_assert_eq(e.code, TW_D_DUPLICATE_KEY, "%s: %s (%s)", bodies[i][0], tw_code_name(e.code),
                     e.message);
        cr_assert_eq(r.nmessages, 0, "%s", bodies[i][0]);
        tw_request_free(&r);
    }
}
