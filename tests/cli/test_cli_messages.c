/* What the commands say to a user: import then replay a URL with a query,
 * refusals inside neutral JSON, ids never written empty, JSON syntax errors
 * that say what was expected, quiet output that names its backend, and main's
 * arguments checked before it runs. Through the real binary. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "names.h"
#include "toolwire/decode.h"
#include "toolwire/encode.h"
#include "twtest.h"

typedef struct run {
    int rc;
    char out[65536];
    char err[8192];
} run;

static char dir[64];

/* Run `toolwire ARGS` in a scratch directory with stdin text; capture both streams. */
static void tw_run(run *r, const char *args, const char *stdin_text)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/twmsgXXXXXX");
        cr_assert_not_null(mkdtemp(dir));
    }
    r->rc = tw_test_run_bin_in(dir, args, stdin_text, r->out, sizeof r->out, r->err, sizeof r->err);
}

static void write_file(const char *name, const char *text)
{
    char p[300];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    cr_assert(f);
    fputs(text, f);
    fclose(f);
}

static void cleanup(void)
{
    if (dir[0]) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            cr_log_warn("cannot remove %s", dir);
    }
    dir[0] = '\0';
}

TestSuite(cli_messages, .fini = cleanup);

static const char query_har[] =
    "{\"log\": {\"version\": \"1.2\", \"creator\": {\"name\": \"t\", \"version\": \"1\"}, "
    "\"entries\": "
    "[{\"startedDateTime\": \"2024-01-01T00:00:00Z\", \"time\": 1, \"request\": {\"method\": "
    "\"POST\", "
    "\"url\": \"https://api.example.com/v1/chat/completions?foo=bar\", \"httpVersion\": "
    "\"HTTP/1.1\", "
    "\"headers\": [{\"name\": \"Content-Type\", \"value\": \"application/json\"}], "
    "\"queryString\": "
    "[{\"name\": \"foo\", \"value\": \"bar\"}], \"cookies\": [], \"headersSize\": -1, "
    "\"bodySize\": -1, "
    "\"postData\": {\"mimeType\": \"application/json\", \"text\": \"{\\\"model\\\": \\\"m\\\", "
    "\\\"messages\\\": [{\\\"role\\\": \\\"user\\\", \\\"content\\\": \\\"hi\\\"}]}\"}}, "
    "\"response\": "
    "{\"status\": 200, \"statusText\": \"OK\", \"httpVersion\": \"HTTP/1.1\", \"headers\": "
    "[{\"name\": "
    "\"Content-Type\", \"value\": \"application/json\"}], \"cookies\": [], \"content\": {\"size\": "
    "1, "
    "\"mimeType\": \"application/json\", \"text\": \"{\\\"id\\\": \\\"c1\\\", \\\"object\\\": "
    "\\\"chat.completion\\\", \\\"created\\\": 1, \\\"model\\\": \\\"m\\\", \\\"choices\\\": "
    "[{\\\"index\\\": 0, \\\"message\\\": {\\\"role\\\": \\\"assistant\\\", \\\"content\\\": "
    "\\\"hello\\\"}, \\\"finish_reason\\\": \\\"stop\\\"}]}\"}, \"redirectURL\": \"\", "
    "\"headersSize\": "
    "-1, \"bodySize\": -1}, \"cache\": {}, \"timings\": {\"send\": 0, \"wait\": 1, \"receive\": "
    "0}}]}}";

/* docs/fixtures.md: a fixture made by `import --expect` replays with exit 0. */
Test(cli_messages, imported_url_with_query_replays)
{
    run r;
    tw_run(&r, "--version", NULL); /* makes the scratch directory */
    write_file("query.har", query_har);
    tw_run(&r, "import --from har --expect --out fx query.har", NULL);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    tw_run(&r, "run --backend r=mock:replay --out rep --quiet fx", NULL);
    cr_assert_eq(r.rc, 0, "out: %s\nerr: %s", r.out, r.err);
    cr_assert_str_eq(r.out, "", "a clean quiet run prints nothing");
    cr_assert_null(strstr(r.err, "404"), "%s", r.err);
}

Test(cli_messages, unknown_key_inside_a_tool_call_is_refused)
{
    run r;
    tw_run(&r, "encode --format openai-response",
           "{\"content\":\"x\",\"tool_calls\":[{\"name\":\"f\",\"argz\":{}}]}");
    cr_assert_eq(r.rc, 1, "%s", r.out);
    cr_assert_str_eq(r.out, "");
    cr_assert(strstr(r.err,
                     "-:1:42: tool_calls[0].argz: unknown key in a tool call (expected only: id, "
                     "name, arguments, args, type, function)"),
              "%s", r.err);
    tw_run(&r, "encode --format openai-request",
           "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"},{\"role\":\"assistant\","
           "\"content\":\"\","
           "\"tool_calls\":[{\"id\":\"a\",\"function\":{\"name\":\"f\",\"argumnts\":\"{}\"}}]}]}");
    cr_assert_eq(r.rc, 1);
    cr_assert(
        strstr(r.err,
               "messages[1].tool_calls[0].function.argumnts: unknown key in a call's function"),
        "%s", r.err);
    tw_run(&r, "encode --format openai-request",
           "{\"messages\":[{\"role\":\"user\",\"contnt\":\"x\"}]}");
    cr_assert_eq(r.rc, 1);
    cr_assert(strstr(r.err, "-:1:29: messages[0].contnt: unknown key in a message"), "%s", r.err);
    tw_run(&r, "encode --format openai-request",
           "{\"messages\":[],\"tools\":[{\"name\":\"f\",\"paramters\":{}}]}");
    cr_assert_eq(r.rc, 1);
    cr_assert(strstr(r.err, "tools[0].paramters: unknown key in a tool"), "%s", r.err);
    /* the accepted spellings still pass */
    tw_run(&r, "encode --format openai-request",
           "{\"messages\":[{\"role\":\"assistant\",\"content\":\"\",\"reasoning_content\":\"r\","
           "\"tool_calls\":[{\"id\":\"a\",\"type\":\"function\",\"function\":{\"name\":\"f\","
           "\"arguments\":\"{}\"}}]}],"
           "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"description\":\"d\","
           "\"parameters\":{}}}]}");
    cr_assert_eq(r.rc, 0, "%s", r.err);
}

Test(cli_messages, value_errors_name_the_call)
{
    run r;
    tw_run(&r, "encode --format openai-response",
           "{\"content\":\"x\",\"tool_calls\":[{\"id\":\"a\",\"name\":\"f\"},{\"id\":\"b\","
           "\"name\":\"g\","
           "\"arguments\":\"[1]\"}]}");
    cr_assert_eq(r.rc, 1);
    cr_assert(strstr(r.err,
                     "-: not a neutral result: tool_calls[1]: tool call arguments must be a JSON "
                     "object"),
              "%s", r.err);
}

Test(cli_messages, a_call_without_id_gets_one_with_a_warning)
{
    run r;
    tw_run(&r, "encode --format openai-response",
           "{\"content\":\"x\",\"tool_calls\":[{\"name\":\"f\"},{\"id\":\"\",\"name\":\"g\"}]}");
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_null(strstr(r.out, "\"id\":\"\""), "%s", r.out);
    cr_assert(strstr(r.out, "\"id\":\"call_1\""), "%s", r.out);
    cr_assert(strstr(r.out, "\"id\":\"call_2\""), "%s", r.out);
    cr_assert(strstr(r.err, "toolwire encode: warning: tool_calls[0] has no id; wrote call_1"),
              "%s", r.err);
    cr_assert(strstr(r.err, "toolwire encode: warning: tool_calls[1] has no id; wrote call_2"),
              "%s", r.err);
    tw_run(&r, "encode --format anthropic-request",
           "{\"messages\":[{\"role\":\"user\",\"content\":\"q\"},{\"role\":\"assistant\","
           "\"content\":\"\","
           "\"tool_calls\":[{\"name\":\"f\"},{\"id\":\"call_1\",\"name\":\"g\"}]}]}");
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_null(strstr(r.out, "\"id\":\"\""), "%s", r.out);
    cr_assert(strstr(r.out, "\"id\":\"call_1__2\""), "unique among the message's calls: %s", r.out);
    cr_assert(strstr(r.err, "warning: messages[1].tool_calls[0] has no id; wrote call_1__2"), "%s",
              r.err);
}

Test(cli_messages, json_syntax_errors_say_what_was_expected)
{
    run r;
    tw_run(&r, "encode --format openai-response", "{\"content\":\"x\" \"tool_calls\":[]}");
    cr_assert_eq(r.rc, 2);
    cr_assert(strstr(r.err,
                     "-:1:16: invalid JSON at byte 15: expected ',' or '}' after an object member, "
                     "found '\"'"),
              "%s", r.err);
    tw_run(&r, "parse --format hermes --tools - x", "[{\"name\":\"f\",");
    cr_assert_eq(r.rc, 2);
    cr_assert(strstr(r.err, "unexpected end of JSON inside an object"), "%s", r.err);
    tw_run(&r, "parse --format hermes --tools - x", "[{\"name\":\"f");
    cr_assert(strstr(r.err, "unexpected end of JSON inside a string"), "%s", r.err);
    tw_run(&r, "parse --format hermes --tools - x", "[{\"name\" 1}]");
    cr_assert(strstr(r.err, "invalid JSON at byte 9: expected ':' after an object key, found '1'"),
              "%s", r.err);
    tw_run(&r, "parse --format hermes --tools - x", "[1 2]");
    cr_assert(strstr(r.err, "expected ',' or ']' after an array element, found '2'"), "%s", r.err);
    tw_run(&r, "parse --format hermes --tools - x", "{\"a\":1,}");
    cr_assert(strstr(r.err, "expected a string key after ',', found '}'"), "%s", r.err);
    tw_run(&r, "parse --format hermes --tools - x", "[\"\\q\"]");
    cr_assert(strstr(r.err, "invalid escape in a string: \\ followed by 'q'"), "%s", r.err);
    tw_run(&r, "parse --format hermes --tools - x", "[nope]");
    cr_assert(strstr(r.err, "expected a JSON value, found 'n'"), "%s", r.err);
}

/* The payload of a Hermes block is parsed on its own: its offsets say so. */
Test(cli_messages, hermes_payload_error_counts_in_payload_and_input)
{
    run r;
    tw_run(&r, "parse --format hermes -",
           "hi <tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1 \"b\"}}\n</tool_call>");
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert(
        strstr(r.out,
               "invalid JSON at byte 35 of the payload (byte 50 of the input): expected ',' or "
               "'}' after an object member"),
        "%s", r.out);
}

Test(cli_messages, unreadable_fixtures_name_the_command_and_the_reason)
{
    run r;
    tw_run(&r, "run --backend r=mock:replay /nonexistent/fx", NULL);
    cr_assert_eq(r.rc, 2);
    cr_assert(
        strstr(r.err, "toolwire run: cannot read '/nonexistent/fx': No such file or directory"),
        "%s", r.err);
}

Test(cli_messages, main_checks_its_arguments_first)
{
    run r;
    tw_run(&r, "main --quiet --conformance /nonexistent --out rep", NULL);
    cr_assert_eq(r.rc, 2);
    cr_assert(strstr(r.err,
                     "toolwire main: cannot read --conformance '/nonexistent': No such file or "
                     "directory"),
              "%s", r.err);
    char p[300];
    snprintf(p, sizeof p, "%s/rep", dir);
    struct stat sb;
    cr_assert_neq(stat(p, &sb), 0, "nothing was written");
    tw_run(&r, "main --quiet --conformance in --fixtures /nonexistent --out rep", NULL);
    cr_assert_eq(r.rc, 2);
    cr_assert(strstr(r.err, "cannot read --fixtures '/nonexistent'"), "%s", r.err);
    cr_assert_neq(stat(p, &sb), 0, "nothing was written");
}

/* Quiet: no summary lines, so each mismatch line names its backend. */
Test(cli_messages, quiet_mismatch_lines_name_the_backend)
{
    run r;
    tw_run(&r, "--version", NULL);
    /* a fixture that expects a check to fail which passes on the mock */
    write_file(
        "fx.json",
        "{\"fixture_version\":1,\"name\":\"t/m\",\"description\":\"d\",\"backend\":\"openai\","
        "\"provenance\":{\"source\":\"hand-made\"},\"exchanges\":[{\"request\":{\"method\":"
        "\"POST\","
        "\"path\":\"/v1/chat/"
        "completions\",\"body\":{\"model\":\"m\",\"messages\":[{\"role\":\"user\","
        "\"content\":\"hi\"}]}},\"response\":{\"status\":200,\"body\":{\"id\":\"c1\",\"object\":"
        "\"chat.completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"message\":"
        "{\"role\":\"assistant\",\"content\":\"hello\"},\"finish_reason\":\"stop\"}]}},"
        "\"decode\":{\"format\":\"openai-response\"},\"expect\":{\"result\":{\"content\":\"other\"}"
        "}}]}");
    tw_run(&r, "run --backend a=mock:replay --backend b=mock:replay --out rep --quiet fx.json",
           NULL);
    cr_assert_eq(r.rc, 1, "out: %s\nerr: %s", r.out, r.err);
    cr_assert_null(strstr(r.out, "fixtures run"), "no summary line: %s", r.out);
    cr_assert(strstr(r.out, "  backend a: mismatch t/m#0 "), "%s", r.out);
    cr_assert(strstr(r.out, "  backend b: mismatch t/m#0 "), "%s", r.out);
    tw_run(&r, "run --backend a=mock:replay --out rep fx.json", NULL);
    cr_assert(strstr(r.out, "backend a (mock:replay): MISMATCH"), "%s", r.out);
    cr_assert(strstr(r.out, "\n  mismatch t/m#0 "), "without --quiet the summary line names it: %s",
              r.out);
}

/* The scratch directory (made by a first run) with fixtures/openai/nonstream_single_call.json
 * and the fixture `other` of the source tree (may be NULL) copied in. */
static void copy_in(run *r, const char *other)
{
    tw_run(r, "--version", NULL);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cp '%s' %s%s%s '%s/'",
             tw_test_src("fixtures/openai/nonstream_single_call.json"), other ? "'" : "",
             other ? tw_test_src(other) : "", other ? "'" : "", dir);
    cr_assert_eq(system(cmd), 0);
}

/* The nearest known name: a typo, a misspelt family (the stem before '-'),
 * case, and nothing when no name is near. */
Test(cli_messages, nearest_name)
{
    static const char *const names[] = {"openai-response", "openai-stream", "hermes", "qwen3-coder",
                                        "gemini"};
    cr_expect_str_eq(tw_nearest_name("hermse", names, 5), "hermes");
    cr_expect_str_eq(tw_nearest_name("HERMES", names, 5), "hermes");
    cr_expect_str_eq(tw_nearest_name("openai-strem", names, 5), "openai-stream");
    cr_expect_str_eq(tw_nearest_name("opneai", names, 5), "openai-response");
    cr_expect_str_eq(tw_nearest_name("qwen3coder", names, 5), "qwen3-coder");
    cr_expect_null(tw_nearest_name("xml", names, 5));
    cr_expect_null(tw_nearest_name("", names, 5));
    char longer[200];
    memset(longer, 'a', sizeof longer - 1);
    longer[sizeof longer - 1] = 0;
    cr_expect_null(tw_nearest_name(longer, names, 5));
}

/* An unknown format name lists the registry's formats (every one of them:
 * the list is the registry, not a hand list) and the nearest. */
Test(cli_messages, unknown_format_lists_the_registry_and_the_nearest)
{
    run r;
    tw_run(&r, "parse --format hermse", "");
    cr_assert_eq(r.rc, 2);
    cr_expect(strstr(r.err, "toolwire parse: unknown format 'hermse' (one of: "), "%s", r.err);
    cr_expect(strstr(r.err, "; did you mean 'hermes'?)\n"), "%s", r.err);
    for (const tw_format_ops *const *f = tw_formats(); *f; f++) {
        char want[100];
        snprintf(want, sizeof want, " %s,", (*f)->name);
        cr_expect(strstr(r.err, want) || strstr(r.err, (*f)->name), "decoder %s is listed: %s",
                  (*f)->name, r.err);
    }
    tw_run(&r, "encode --format anthropic-respons", "");
    cr_assert_eq(r.rc, 2);
    for (const tw_encoder_ops *const *e = tw_encoders(); *e; e++)
        cr_expect(strstr(r.err, (*e)->name), "encoder %s is listed: %s", (*e)->name, r.err);
    cr_expect(strstr(r.err, "did you mean 'anthropic-response'?"), "%s", r.err);
    tw_run(&r, "convert --from openai-reqest --to neutral", "");
    cr_assert_eq(r.rc, 2);
    cr_expect(strstr(r.err, "unknown source format 'openai-reqest'"), "%s", r.err);
    cr_expect(strstr(r.err, "neutral-request"), "the neutral names are listed: %s", r.err);
    cr_expect(strstr(r.err, "did you mean 'openai-request'?"), "%s", r.err);
    tw_run(&r, "convert --from neutral --to gemini-requst", "");
    cr_assert_eq(r.rc, 2);
    cr_expect(strstr(r.err, "unknown target format 'gemini-requst'"), "%s", r.err);
    cr_expect(strstr(r.err, "did you mean 'gemini-request'?"), "%s", r.err);
    /* nothing near: the list alone */
    tw_run(&r, "parse --format protobuf", "");
    cr_assert_eq(r.rc, 2);
    cr_expect(strstr(r.err, "unknown format 'protobuf' (one of: ") &&
                  !strstr(r.err, "did you mean"),
              "%s", r.err);
    tw_run(&r, "run --backend p=http://127.0.0.1:9 --upstream anthropc@9 fixtures", "");
    cr_assert_eq(r.rc, 2);
    cr_expect(
        strstr(r.err,
               "unknown --upstream format 'anthropc' (one of: openai, anthropic, vllm-native; "
               "did you mean 'anthropic'?)"),
        "%s", r.err);
    /* mock profiles, the same way */
    tw_run(&r, "run --backend x=mock:hermse fixtures", "");
    cr_assert_eq(r.rc, 2);
    cr_expect(strstr(r.err, "unknown mock profile 'hermse' (one of: auto, replay, "), "%s", r.err);
    cr_expect(strstr(r.err, "did you mean 'hermes'?"), "%s", r.err);
    tw_run(&r, "serve --profile scirpt --for 1", "");
    cr_assert_eq(r.rc, 2);
    cr_expect(strstr(r.err, "did you mean 'script'?"), "%s", r.err);
    tw_run(&r, "serve --proxy anthropic:opena --upstream http://127.0.0.1:9 --for 1", "");
    cr_assert_eq(r.rc, 2);
    cr_expect(
        strstr(
            r.err,
            "unknown --proxy format 'opena' (one of: anthropic, openai; did you mean 'openai'?)"),
        "%s", r.err);
}

/* A fixture that fits no profile is named: run with mock:PROFILE, serve --profile. */
Test(cli_messages, a_fixture_that_fits_no_profile_is_named)
{
    run r;
    copy_in(&r, "fixtures/anthropic/ref_tool_call.json");
    /* some fit, some do not: the others are named and the rest is run */
    tw_run(&r,
           "run --backend a=mock:anthropic --out rep nonstream_single_call.json ref_tool_call.json",
           NULL);
    cr_expect_eq(r.rc, 0, "%s", r.err);
    cr_expect(
        strstr(r.err,
               "toolwire run: backend a: 1 fixture(s) do not fit profile anthropic and were not "
               "run: nonstream_single_call.json\n"),
        "%s", r.err);
    /* none fits: named, exit 2 */
    tw_run(&r, "run --quiet --backend a=mock:anthropic --out rep nonstream_single_call.json", NULL);
    cr_expect_eq(r.rc, 2);
    cr_expect(
        strstr(r.err, "do not fit profile anthropic and were not run: nonstream_single_call.json"),
        "%s", r.err);
    cr_expect(
        strstr(r.err, "none of the fixtures given fits profile anthropic: nothing was judged"),
        "%s", r.err);
    tw_run(
        &r,
        "serve --for 1 --quiet --profile anthropic nonstream_single_call.json ref_tool_call.json",
        NULL);
    cr_expect_eq(r.rc, 0, "%s", r.err);
    cr_expect(
        strstr(
            r.err,
            "1 of the 2 fixture(s) given do not fit profile anthropic and are not served (the "
            "auto profile serves each with a profile that fits it): nonstream_single_call.json\n"),
        "%s", r.err);
    tw_run(&r, "serve --for 1 --quiet --profile anthropic nonstream_single_call.json", NULL);
    cr_expect_eq(r.rc, 2);
    cr_expect(
        strstr(
            r.err,
            "none of the 1 fixture(s) given fits profile anthropic: nonstream_single_call.json\n"),
        "%s", r.err);
}

/* record --backend takes NAME=URL as run does, and still the bare URL. */
Test(cli_messages, record_takes_name_equals_url)
{
    run r;
    copy_in(&r, NULL);
    /* nothing listens on port 9: the name is in the one message */
    tw_run(&r, "record --backend staging=http://127.0.0.1:9 --out rec nonstream_single_call.json",
           NULL);
    cr_expect_eq(r.rc, 2);
    cr_expect(
        strstr(r.err,
               "toolwire record: staging: nobody answered at http://127.0.0.1:9 (1 exchange(s)"),
        "%s", r.err);
    tw_run(&r, "record --backend http://127.0.0.1:9 --out rec nonstream_single_call.json", NULL);
    cr_expect_eq(r.rc, 2);
    cr_expect(strstr(r.err, "toolwire record: nobody answered at http://127.0.0.1:9"), "%s", r.err);
    tw_run(&r, "record --backend =http://127.0.0.1:9 --out rec nonstream_single_call.json", NULL);
    cr_expect_eq(r.rc, 2);
    cr_expect(strstr(r.err, "--backend wants NAME=URL or URL"), "%s", r.err);
    /* a URL whose query holds '=' is a bare URL */
    tw_run(&r, "record --backend 'http://127.0.0.1:9/v1?x=1' --out rec nonstream_single_call.json",
           NULL);
    cr_expect_eq(r.rc, 2);
    cr_expect(strstr(r.err, "toolwire record: nobody answered at http://127.0.0.1:9/v1?x=1"), "%s",
              r.err);
}

/* An option given without its value is said so, on every command (not "unknown option"). */
Test(cli_messages, an_option_without_its_value_is_named)
{
    static const char *const cases[][2] = {
        {"gate --baseline", "toolwire gate: option '--baseline' needs a value"},
        {"run --out", "toolwire run: option '--out' needs a value"},
        {"run --backend", "toolwire run: option '--backend' needs a value"},
        {"merge --out", "toolwire merge: option '--out' needs a value"},
        {"serve --port", "toolwire serve: option '--port' needs a value"},
        {"compare --label", "toolwire compare: option '--label' needs a value"},
        {"record --backend", "toolwire record: option '--backend' needs a value"},
        {"clients --jobs", "toolwire clients: option '--jobs' needs a value"},
        {"main --out", "toolwire main: option '--out' needs a value"},
        {"import --out", "toolwire import: option '--out' needs a value"},
        {"run --no-such-option", "toolwire run: unknown option '--no-such-option' (see --help)"},
        {"record --backend a=http://127.0.0.1:1 --backend b=http://127.0.0.1:2 --out o x.json",
         "toolwire record: --backend is given once"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run r;
        tw_run(&r, cases[i][0], NULL);
        cr_expect_eq(r.rc, 2, "%s", cases[i][0]);
        cr_expect(strstr(r.err, cases[i][1]), "%s: %s", cases[i][0], r.err);
    }
}
