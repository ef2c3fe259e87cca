/* The `toolwire parse` contract, through the real binary. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "toolwire/decode.h"
#include "toolwire/json.h"
#include "twtest.h"

typedef struct run {
    int rc;
    char out[65536];
    char err[4096];
} run;

/* Run toolwire with args (a shell fragment) and stdin text; capture both streams. */
static void tw_run(run *r, const char *args, const char *stdin_text)
{
    char dir[] = "/tmp/twcliXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    r->rc = tw_test_run_bin_in(dir, args, stdin_text, r->out, sizeof r->out, r->err, sizeof r->err);
    if (tw_test_sh("rm -rf %s", dir) != 0)
        cr_log_warn("cannot remove %s", dir);
}

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

Test(cli_parse, prints_neutral_result_in_contract_order)
{
    run r;
    tw_run(&r, "parse --format hermes",
           "<think>plan</think>Sure.<tool_call>{\"name\": \"get_weather\", \"arguments\": "
           "{\"city\": \"Paris\"}}</tool_call>");
    cr_assert_eq(r.rc, 0, "stderr: %s", r.err);
    cr_assert_str_eq(
        r.out, "{\"content\":\"Sure.\",\"thinking\":\"plan\",\"tool_calls\":[{\"id\":\"call_1\","
               "\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}],\"finish_reason\":"
               "\"tool_calls\",\"errors\":[],\"warnings\":[]}\n");
}

Test(cli_parse, refused_calls_still_exit_zero)
{
    run r;
    tw_run(&r, "parse --format hermes", "a<tool_call>{not json}</tool_call>b");
    cr_assert_eq(r.rc, 0);
    cJSON *v = cJSON_Parse(r.out);
    cr_assert_not_null(v);
    cJSON *e = cJSON_GetArrayItem(tw_json_get(v, "errors"), 0);
    cr_assert_str_eq(tw_json_get_str(e, "code"), "tool_call_json");
    cr_assert_eq(tw_json_get(e, "offset")->valueint, 1);
    cr_assert_str_eq(tw_json_get_str(v, "content"), "ab");
    cJSON_Delete(v);
}

Test(cli_parse, chunked_equals_batch)
{
    const char *in = "<think>a</think> x "
                     "<tool_call>[{\"name\":\"f\"},{\"name\":\"g\",\"arguments\":\"{\\\"k\\\":1}\"}"
                     "]</tool_call> y";
    run a, b;
    tw_run(&a, "parse --format hermes", in);
    tw_run(&b, "parse --format hermes --chunk 3", in);
    cr_assert_eq(a.rc, 0);
    cr_assert_eq(b.rc, 0);
    cr_assert_str_eq(a.out, b.out);
}

Test(cli_parse, bad_usage_is_one_line_exit_two)
{
    const char *cases[] = {"parse",
                           "parse --format nope",
                           "parse --format hermes --bogus",
                           "parse --format hermes --chunk 0",
                           "parse --format hermes --finish later",
                           "parse --format hermes --max-calls x",
                           "parse --format hermes /no/such/file",
                           "parse --format hermes --tools /no/such/tools.json",
                           "parse --format hermes --max-depth 5000"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run r;
        tw_run(&r, cases[i], "x");
        cr_assert_eq(r.rc, 2, "%s -> %d", cases[i], r.rc);
        cr_assert_eq(lines(r.err), 1, "%s: stderr was: %s", cases[i], r.err);
        cr_assert_eq(r.out[0], '\0', "%s printed to stdout", cases[i]);
        cr_assert(strstr(r.err, "toolwire parse:"), "%s", r.err);
    }
}

Test(cli_parse, tools_file_in_openai_form_refuses_unknown_names)
{
    char path[] = "/tmp/twtoolsXXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    const char *tools =
        "[{\"type\": \"function\", \"function\": {\"name\": \"known\", \"parameters\": "
        "{\"type\": \"object\", \"properties\": {\"n\": {\"type\": \"integer\"}}, \"required\": "
        "[\"n\"]}}}]";
    cr_assert_eq(write(fd, tools, strlen(tools)), (ssize_t)strlen(tools));
    close(fd);
    char args[512];
    snprintf(args, sizeof args, "parse --format hermes --tools %s", path);
    run r;
    tw_run(&r, args,
           "<tool_call>{\"name\": \"other\"}</tool_call><tool_call>{\"name\": \"known\", "
           "\"arguments\": {\"n\": 1.5}}</tool_call>"
           "<tool_call>{\"name\": \"known\", \"arguments\": {\"n\": 2}}</tool_call>");
    unlink(path);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cJSON *v = cJSON_Parse(r.out);
    cr_assert_not_null(v);
    cJSON *errs = tw_json_get(v, "errors");
    cr_assert_eq(cJSON_GetArraySize(errs), 2);
    cr_assert_str_eq(tw_json_get_str(cJSON_GetArrayItem(errs, 0), "code"), "unknown_tool");
    cr_assert_str_eq(tw_json_get_str(cJSON_GetArrayItem(errs, 1), "code"), "args_schema");
    cr_assert_eq(cJSON_GetArraySize(tw_json_get(v, "tool_calls")), 1);
    cJSON_Delete(v);
}

Test(cli_parse, limits_from_options)
{
    run r;
    tw_run(&r, "parse --format hermes --max-input-bytes 10", "0123456789abcdef");
    cr_assert_eq(r.rc, 0);
    cJSON *v = cJSON_Parse(r.out);
    cr_assert_str_eq(tw_json_get_str(v, "content"), "0123456789");
    cJSON *e = cJSON_GetArrayItem(tw_json_get(v, "errors"), 0);
    cr_assert_str_eq(tw_json_get_str(e, "code"), "input_too_large");
    cr_assert_eq(tw_json_get(e, "offset")->valueint, 10);
    cJSON_Delete(v);
}

Test(cli_parse, help_lists_every_format)
{
    run r;
    tw_run(&r, "parse --help", "");
    cr_assert_eq(r.rc, 0);
    /* every registered decoder (tests/lib/test_contract.c pins how many there
     * are), so a new format needs no edit here */
    size_t n = 0;
    for (const tw_format_ops *const *f = tw_formats(); *f; f++, n++)
        cr_assert(strstr(r.out, (*f)->name), "%s missing from --help", (*f)->name);
    cr_assert_gt(n, 0, "no registered decoder");
    cr_assert(strstr(r.out, "hermes"), "--help lists no hermes");
}
