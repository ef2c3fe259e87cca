/*
 * Real recorded provider traffic (the vcrpy cassettes of ../shared/real-traffic):
 * every response body is decoded with its format's decoder, in
 * one piece and in small chunks, and the calls, arguments, reasoning and
 * text it really holds are asserted. Also the cassette reader itself on
 * the body forms the recordings do not cover (gzip, errors).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cassette.h"
#include "decoding.h"
#include "toolwire/decode.h"
#include "twtest.h"

/* Decode a body batch and at chunk 1, 7 and 64; all must agree. */
static void decode(const char *fmt, const tw_cassette_body *b, tw_result *out)
{
    cr_assert(b->data, "body present");
    tw_test_decode_every_way(fmt, b->data, b->len, NULL, out);
}

Test(real_traffic, openai_parallel_tool_calls_stream)
{
    tw_cassette c;
    tw_test_load_cassette("real-traffic/openai_chat__stream__parallel_tool_calls.yaml", &c);
    cr_assert_eq(c.ninteractions, 3);
    cr_assert_eq(c.interactions[0].response.status, 200);
    cr_assert_eq(c.interactions[0].response.body.kind, TW_CASSETTE_BODY_STRING);
    cr_assert_str_eq(c.interactions[0].request.method, "POST");
    cr_assert_str_eq(c.interactions[0].request.uri, "https://api.openai.com/v1/chat/completions");
    cr_assert_eq(c.interactions[0].request.body.kind, TW_CASSETTE_BODY_PARSED);
    cr_assert_str_eq(tw_json_get_str(c.interactions[0].request.body.json, "tool_choice"),
                     "required");
    cr_assert_str_eq(tw_cassette_header_get(c.interactions[0].response.headers,
                                            c.interactions[0].response.nheaders, "Content-Type"),
                     "text/event-stream; charset=utf-8");

    tw_result r;
    decode("openai-stream", &c.interactions[0].response.body, &r);
    cr_assert_eq(r.msg.ncalls, 2);
    tw_test_expect_call(&r, 0, "call_q2UyBRP7eXNTzAoR8lEhjc9Z", "get_country", "{}");
    tw_test_expect_call(&r, 1, "call_b51ijcpFkDiTQG1bQzsrmtW5", "get_product_name", "{}");
    cr_assert_str_eq(r.finish_reason, "tool_calls");
    tw_test_expect_text(&r.msg.content, "");
    tw_test_expect_clean(&r);
    tw_result_free(&r);

    decode("openai-stream", &c.interactions[1].response.body, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    tw_test_expect_call(&r, 0, "call_LwxJUB9KppVyogRRLQsamRJv", "get_weather",
                        "{\"city\":\"Mexico City\"}");
    tw_test_expect_clean(&r);
    tw_result_free(&r);

    decode("openai-stream", &c.interactions[2].response.body, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    tw_test_expect_call(
        &r, 0, "call_CCGIWaMeYWmxOQ91orkmTvzn", "final_result",
        "{\"answers\":[{\"label\":\"Capital\",\"answer\":\"The capital of Mexico is Mexico "
        "City.\"},{\"label\":\"Weather\",\"answer\":\"The weather in Mexico City is "
        "currently sunny.\"},{\"label\":\"Product Name\",\"answer\":\"The product name is "
        "Pydantic AI.\"}]}");
    cr_assert_str_eq(r.finish_reason, "tool_calls");
    tw_test_expect_clean(&r);
    tw_result_free(&r);
    tw_cassette_free(&c);
}

Test(real_traffic, deepseek_reasoning_content_nonstream)
{
    tw_cassette c;
    tw_test_load_cassette(
        "real-traffic/deepseek_chat__nonstream__reasoning_content_parallel_tool_calls.yaml", &c);
    cr_assert_eq(c.ninteractions, 3);
    cr_assert_eq(c.interactions[0].response.body.kind, TW_CASSETTE_BODY_PARSED);

    tw_result r;
    decode("openai-response", &c.interactions[0].response.body, &r);
    tw_test_expect_text(&r.msg.content, "Let me load the dice rolling capability!");
    tw_test_expect_text(
        &r.msg.thinking,
        "The user wants to play a dice game. I need to roll a die and compare it to the "
        "user's guess of 4. But the DICE_ROLL capability is deferred - I need to load it "
        "first using the `load_capability` tool.\n\nLet me load the capability first.");
    cr_assert_str_eq(r.reasoning_field, "reasoning_content");
    cr_assert_eq(r.msg.ncalls, 1);
    tw_test_expect_call(&r, 0, "call_00_sXqYgMESDht75NCLLZtt9804", "load_capability",
                        "{\"id\":\"DICE_ROLL\"}");
    cr_assert_str_eq(r.finish_reason, "tool_calls");
    tw_test_expect_clean(&r);
    tw_result_free(&r);

    decode("openai-response", &c.interactions[1].response.body, &r);
    tw_test_expect_text(&r.msg.content, "Let me get your name and roll the die!");
    cr_assert_eq(r.msg.ncalls, 2);
    tw_test_expect_call(&r, 0, "call_00_6edlnw3Z1MgeMfey687g8451", "get_player_name", "{}");
    tw_test_expect_call(&r, 1, "call_01_km02sac7sHxNDPATKLZy7705", "roll_dice", "{}");
    tw_test_expect_clean(&r);
    tw_result_free(&r);

    decode("openai-response", &c.interactions[2].response.body, &r);
    tw_test_expect_text(&r.msg.content,
                        "\xF0\x9F\x8E\x89 **Congratulations, Anne!** You're a winner! "
                        "\xF0\x9F\x8E\x89\n\nThe die rolled exactly **4** -- matching your "
                        "guess perfectly! Lucky you! \xF0\x9F\x8E\xB2");
    tw_test_expect_text(
        &r.msg.thinking,
        "The player's name is Anne, and the die rolled a 4. The user guessed 4, so they win!");
    cr_assert_eq(r.msg.ncalls, 0);
    cr_assert_str_eq(r.finish_reason, "stop");
    tw_test_expect_clean(&r);
    tw_result_free(&r);
    tw_cassette_free(&c);
}

Test(real_traffic, groq_midstream_error)
{
    tw_cassette c;
    tw_test_load_cassette(
        "real-traffic/groq_chat__stream__reasoning_and_midstream_error_tool_use_failed.yaml", &c);
    cr_assert_eq(c.ninteractions, 3);
    tw_result r;
    decode("openai-stream", &c.interactions[0].response.body, &r);
    tw_test_expect_text(
        &r.msg.thinking,
        "We need to call the tool with invalid parameters first, then second call with "
        "valid args. The user wants us to test error handling. So first call should have "
        "wrong parameters (e.g., missing required \"name\" or extra param). The tool "
        "expects only \"name\". If we send extra property, that might cause error. Or "
        "missing \"name\". We'll do a call with missing name: {}. Then second call with "
        "name: \"test\". Let's do that.");
    cr_assert_str_eq(r.reasoning_field, "reasoning");
    cr_assert_eq(r.msg.ncalls, 0);
    cr_assert_eq(r.errors.len, 2);
    const char *body = c.interactions[0].response.body.data;
    const char *ev = strstr(body, "event: error");
    cr_assert(ev);
    cr_assert_eq(r.errors.items[0].code, TW_D_STREAM_ERROR);
    cr_assert_eq(r.errors.items[0].offset, (int64_t)(ev - body));
    cr_assert(strstr(r.errors.items[0].message, "tool_use_failed"));
    cr_assert_eq(r.errors.items[1].code, TW_D_STREAM_TRUNCATED);
    cr_assert_eq(r.errors.items[1].offset, (int64_t)c.interactions[0].response.body.len);
    tw_result_free(&r);

    decode("openai-stream", &c.interactions[1].response.body, &r);
    tw_test_expect_text(&r.msg.thinking,
                        "We need to call the function with correct parameter \"name\". "
                        "Provide a name, e.g., \"example\".");
    cr_assert_eq(r.msg.ncalls, 1);
    tw_test_expect_call(&r, 0, "fc_bfb39741-3748-4def-9886-a93fc9c64a90", "get_something_by_name",
                        "{\"name\":\"example\"}");
    cr_assert_str_eq(r.finish_reason, "tool_calls");
    tw_test_expect_clean(&r);
    tw_result_free(&r);

    decode("openai-stream", &c.interactions[2].response.body, &r);
    tw_test_expect_text(&r.msg.content,
                        "The tool returned the expected result for the valid call.");
    tw_test_expect_text(&r.msg.thinking,
                        "The user wants to test error handling by calling tool with non-existent "
                        "parameters first (we did) and then second try with valid args. We have "
                        "succeeded. Now respond concisely.");
    cr_assert_str_eq(r.finish_reason, "stop");
    tw_test_expect_clean(&r);
    tw_result_free(&r);
    tw_cassette_free(&c);
}

Test(real_traffic, anthropic_thinking_signature_tool_use)
{
    tw_cassette c;
    tw_test_load_cassette(
        "real-traffic/anthropic_messages__stream__thinking_signature_then_tool_use.yaml", &c);
    cr_assert_eq(c.ninteractions, 2);
    cr_assert_eq(c.interactions[0].request.body.kind, TW_CASSETTE_BODY_STRING);
    cr_assert(strstr(c.interactions[0].request.body.data, "\"budget_tokens\":1024"));
    tw_result r;
    decode("anthropic-stream", &c.interactions[0].response.body, &r);
    tw_test_expect_text(&r.msg.thinking,
                        "The user wants me to:\n1. Use the fixed_version tool\n2. Tell "
                        "them the version\n3. Make a short joke about it\n\nLet me first "
                        "call the fixed_version tool to see what version it returns.");
    cr_assert(r.msg.thinking_signature);
    cr_assert_eq(strncmp(r.msg.thinking_signature, "EoQDCm0IDhgCKkCDzGs2kL2P", 24), 0);
    cr_assert_eq(strlen(r.msg.thinking_signature), 524);
    cr_assert_str_eq(r.msg.thinking_signature + 512, "ANWRjSBwUxgB");
    cr_assert_eq(r.msg.ncalls, 1);
    tw_test_expect_call(&r, 0, "toolu_01825dXWLSoJwCst1qTsiWdb", "fixed_version", "{}");
    cr_assert_str_eq(r.finish_reason, "tool_calls");
    tw_test_expect_text(&r.msg.content, "");
    tw_test_expect_clean(&r);
    tw_result_free(&r);

    decode("anthropic-stream", &c.interactions[1].response.body, &r);
    tw_test_expect_text(
        &r.msg.content,
        "The version is **0.32a0**.\n\nHere's a joke about it: \n\nLooks like this version "
        "is still in alpha testing... I guess you could say it's going through a \"0.32a "
        "good time\" before becoming stable! \xF0\x9F\x98\x84\n\n(It's at version 0.32a, "
        "which means it's far from 1.0, so plenty of room to grow!)");
    cr_assert_eq(r.msg.ncalls, 0);
    cr_assert_str_eq(r.finish_reason, "stop");
    tw_test_expect_clean(&r);
    tw_result_free(&r);
    tw_cassette_free(&c);
}

/* ---- the reader on forms the recordings do not use ---- */

static const char GZ_CASSETTE[] =
    "interactions:\n"
    "- request:\n"
    "    body: null\n"
    "    headers: {}\n"
    "    method: GET\n"
    "    uri: https://example.test/v1/x\n"
    "  response:\n"
    "    body:\n"
    "      string: !!binary |\n"
    "        H4sIAAAAAAACA6tWykxRslLKLU6PN1TSUcrPVrIqKSpNrQUATla/sBgAAAA=\n"
    "    headers:\n"
    "      Content-Encoding:\n"
    "      - gzip\n"
    "      Set-Cookie:\n"
    "      - a=1\n"
    "      - b=2\n"
    "    status:\n"
    "      code: 404\n"
    "      message: Not Found\n"
    "version: 1\n";

Test(cassette, gzip_binary_body)
{
    tw_cassette c;
    tw_error why = {.offset = -1};
    char *buf = tw_test_exact(GZ_CASSETTE, sizeof GZ_CASSETTE - 1);
    cr_assert_eq(tw_cassette_parse(buf, sizeof GZ_CASSETTE - 1, "gz.yaml", NULL, &c, &why), TW_OK,
                 "%s", why.message);
    free(buf);
    cr_assert_eq(c.version, 1);
    cr_assert_eq(c.ninteractions, 1);
    const tw_cassette_response *rs = &c.interactions[0].response;
    cr_assert_eq(rs->status, 404);
    cr_assert_str_eq(rs->status_message, "Not Found");
    cr_assert_eq(rs->body.kind, TW_CASSETTE_BODY_BINARY);
    cr_assert(rs->body.gunzipped);
    cr_assert_eq(rs->body.len, strlen("{\"id\":\"msg_1\",\"ok\":true}"));
    cr_assert_str_eq(rs->body.data, "{\"id\":\"msg_1\",\"ok\":true}");
    cr_assert_eq(rs->nheaders, 3);
    cr_assert_str_eq(rs->headers[2].value, "b=2");
    cr_assert_eq(c.interactions[0].request.body.kind, TW_CASSETTE_BODY_NONE);
    cr_assert_eq(c.interactions[0].line, 2);
    tw_cassette_free(&c);
}

Test(cassette, parsed_body_scalars)
{
    static const char y[] = "interactions:\n"
                            "- request:\n"
                            "    parsed_body:\n"
                            "      a: 1\n"
                            "      b: '1'\n"
                            "      c: null\n"
                            "      d: true\n"
                            "      e: -2.5e3\n"
                            "      f: [x, ~]\n"
                            "      g: |-\n"
                            "        two\n"
                            "        lines\n"
                            "  response:\n"
                            "    status: {code: 200}\n";
    tw_cassette c;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_cassette_parse(y, sizeof y - 1, "p.yaml", NULL, &c, &why), TW_OK, "%s",
                 why.message);
    cr_assert_str_eq(c.interactions[0].request.body.data,
                     "{\"a\":1,\"b\":\"1\",\"c\":null,\"d\":true,\"e\":-2.5e3,\"f\":[\"x\",null],"
                     "\"g\":\"two\\nlines\"}");
    tw_cassette_free(&c);
}

Test(cassette, errors_have_file_line_column)
{
    static const char bad_yaml[] = "interactions:\n- request: {a: 1\n  response: x\n";
    tw_cassette c;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_cassette_parse(bad_yaml, sizeof bad_yaml - 1, "bad.yaml", NULL, &c, &why),
                 TW_ERR_PARSE);
    cr_assert(strncmp(why.message, "bad.yaml:", 9) == 0, "%s", why.message);
    cr_assert_eq(c.ninteractions, 0);

    static const char no_resp[] = "interactions:\n- request:\n    method: POST\n";
    cr_assert_eq(tw_cassette_parse(no_resp, sizeof no_resp - 1, "x.yaml", NULL, &c, &why),
                 TW_ERR_INVALID);
    cr_assert_str_eq(why.message, "x.yaml:2:3: interaction needs a 'response' mapping");

    static const char bad_b64[] = "interactions:\n- request: {}\n  response:\n    body:\n"
                                  "      string: !!binary 'a*b'\n";
    cr_assert_eq(tw_cassette_parse(bad_b64, sizeof bad_b64 - 1, "b.yaml", NULL, &c, &why),
                 TW_ERR_PARSE);
    cr_assert_str_eq(why.message, "b.yaml:5:15: binary body is not valid base64");

    cr_assert_eq(tw_cassette_load("/nonexistent/c.yaml", NULL, &c, &why), TW_ERR_IO);
}

Test(cassette, alias_bomb_is_bounded)
{
    tw_buf y = {0};
    tw_buf_puts(&y, "a0: &a0 [x, x, x, x, x, x, x, x]\n");
    for (int i = 1; i < 12; i++)
        tw_buf_printf(&y, "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i,
                      i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
    tw_buf_puts(&y, "interactions:\n- request:\n    parsed_body: *a11\n  response: {}\n");
    tw_cassette c;
    tw_error why = {.offset = -1};
    tw_limits L = {0};
    L.max_input_bytes = 1 << 16;
    cr_assert_eq(tw_cassette_parse(y.data, y.len, "bomb.yaml", &L, &c, &why), TW_ERR_LIMIT, "%s",
                 why.message);
    tw_buf_free(&y);
}
