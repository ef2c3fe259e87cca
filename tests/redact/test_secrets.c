/* Secrets never leave the process: the value scrubber (escaped and
 * percent-encoded forms, linear time), the redacting standard streams (a
 * secret split across two writes), discovery in import and record, and an
 * end-to-end run of import, record, run, serve and main against a local
 * server that echoes what it is sent, with every file and stream they
 * write searched for every planted secret. */
#include <criterion/criterion.h>
#include <curl/curl.h>
#include <dirent.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "import.h"
#include "out.h"
#include "redact.h"
#include "twtest.h"

/* ---------------------------------------------------------------- helpers */

static size_t count(const char *hay, size_t n, const char *needle)
{
    size_t k = 0, nl = strlen(needle);
    for (const char *p = hay; (p = tw_memmem(p, n - (size_t)(p - hay), needle, nl)); p += nl)
        k++;
    return k;
}

/* ---------------------------------------------------------------- the scrubber */

Test(secrets, scrubber_finds_escaped_and_encoded_forms)
{
    char *vals[] = {(char *)"ab/cd+ef9876", (char *)"Zyxw1234"};
    const char *in = "plain ab/cd+ef9876 | slash ab\\/cd+ef9876 | "
                     "u \\u0061\\u0062\\u002F\\u0063d+ef9876 | pct ab%2Fcd%2Bef9876 | "
                     "twice ab\\\\/cd+ef9876 | twice-u \\\\u005A\\\\u0079xw1234 | "
                     "near Zyxw123 ab/cd+ef987";
    tw_buf out = {0};
    size_t n = 0;
    cr_assert_eq(tw_scrub_values(vals, 2, in, strlen(in), &out, &n, NULL), TW_OK);
    cr_expect_eq(n, 7, "%zu replacements in: %s", n, out.data);
    cr_expect_str_eq(out.data, "plain [REDACTED] | slash [REDACTED] | u [REDACTED] | "
                               "pct [REDACTED] | twice [REDACTED] | twice-u [REDACTED] | "
                               "near Zyxw123 [REDACTED]");
    tw_buf_free(&out);
}

Test(secrets, scrubber_holds_back_a_possible_start)
{
    char *vals[] = {(char *)"SECRET-value-42"};
    tw_buf out = {0};
    size_t hold = 0;
    const char *in = "line one\nnext SECRET-va";
    cr_assert_eq(tw_scrub_values(vals, 1, in, strlen(in), &out, NULL, &hold), TW_OK);
    cr_expect_eq(hold, strlen("SECRET-va"));
    cr_expect_str_eq(out.data, "line one\nnext ");
    tw_buf_reset(&out);
    const char *esc = "tail \\u00";
    cr_assert_eq(tw_scrub_values(vals, 1, esc, strlen(esc), &out, NULL, &hold), TW_OK);
    cr_expect_eq(hold, 4);
    tw_buf_reset(&out);
    const char *done = "nothing to hold\n";
    cr_assert_eq(tw_scrub_values(vals, 1, done, strlen(done), &out, NULL, &hold), TW_OK);
    cr_expect_eq(hold, 0);
    cr_expect_str_eq(out.data, done);
    tw_buf_free(&out);
}

/* 16 MiB of near-misses for 16 values: work quadratic in the length could
 * not finish within ctest's time limit. */
Test(secrets, scrubber_is_linear)
{
    size_t n = (size_t)16 << 20;
    char *big = malloc(n + 1);
    cr_assert_not_null(big);
    for (size_t i = 0; i < n; i++)
        big[i] = (i % 97 == 96) ? '\\' : 'a';
    /* the secret, then a byte that no value starts with (a "ba…" run after it
     * would be a cut prefix of the values, scrubbed too) */
    memcpy(big + n / 2, "baaaaaaaaaaaaaaaaaaaaaaaabc", 27);
    big[n] = '\0';
    char *vals[16];
    char store[16][40];
    for (int v = 0; v < 16; v++) {
        memset(store[v], 'a', 25);
        store[v][0] = 'b';
        store[v][25] = (char)(v == 0 ? 'b' : 'c' + v % 20);
        store[v][26] = '\0';
        vals[v] = store[v];
    }
    tw_buf out = {0};
    size_t k = 0;
    cr_assert_eq(tw_scrub_values(vals, 16, big, n, &out, &k, NULL), TW_OK);
    cr_expect_eq(k, 1);
    cr_expect_eq(out.len, n - 26 + strlen(TW_REDACTED));
    tw_buf_free(&out);
    free(big);
}

Test(secrets, process_set_keeps_bearer_token_and_long_values_only)
{
    tw_secret_reset();
    cr_assert_eq(tw_secret_add("Bearer tok-123456789"), TW_OK);
    cr_assert_eq(tw_secret_add("short"), TW_OK);
    cr_expect_eq(tw_secret_count(), 2);
    tw_buf out = {0};
    const char *in = "a tok-123456789 b short";
    cr_assert_eq(tw_secret_scrub(in, strlen(in), &out, NULL), TW_OK);
    cr_expect_str_eq(out.data, "a [REDACTED] b short");
    tw_buf_free(&out);
    tw_secret_reset();
    cr_expect_eq(tw_secret_count(), 0);
}

/* A text found clean is judged again once the set changes: a secret added
 * after the verdict, and held by the text, makes it unclean. */
Test(secrets, static_clean_verdict_ends_when_the_set_changes)
{
    static const char text[] = "a log line holding sk-static-clean-7Fq2Lw9 in its middle";
    tw_secret_reset();
    cr_assert_eq(tw_secret_add("Bearer other-token-8Hd3Kp1x"), TW_OK);
    cr_expect(tw_secret_static_clean(text), "the set holds no value of the text");
    cr_expect(tw_secret_static_clean(text), "the verdict is kept");
    cr_assert_eq(tw_secret_add("sk-static-clean-7Fq2Lw9"), TW_OK);
    cr_expect_not(tw_secret_static_clean(text), "a secret added since is in the text");
    tw_secret_reset();
    cr_expect(tw_secret_static_clean(text), "an empty set leaves every text clean");
}

/* The header verdicts a thread keeps (no redactor) are the verdicts, at
 * every asking: a dropped header stays dropped, a kept one kept. */
Test(secrets, header_verdicts_the_same_when_asked_again)
{
    static const char *const dropped[] = {"Authorization", "X-Api-Key", "x-goog-api-key"};
    static const char *const kept[] = {"Content-Type", "x-request-id"};
    for (int round = 0; round < 3; round++) {
        for (size_t i = 0; i < sizeof dropped / sizeof *dropped; i++)
            cr_expect(tw_redact_header_dropped(NULL, dropped[i]), "round %d: %s kept", round,
                      dropped[i]);
        for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
            cr_expect_not(tw_redact_header_dropped(NULL, kept[i]), "round %d: %s dropped", round,
                          kept[i]);
    }
}

/* The standard streams: a secret written in two pieces, and files. */
Test(secrets, stdio_and_files_are_redacted)
{
    char *dir = tw_test_tmpdir("tw_secrets");
    char so[512], se[512], fp[512];
    snprintf(so, sizeof so, "%s/stdout", dir);
    snprintf(se, sizeof se, "%s/stderr", dir);
    snprintf(fp, sizeof fp, "%s/file.txt", dir);
    int fo = open(so, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int fe = open(se, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    cr_assert(fo >= 0 && fe >= 0);
    fflush(stdout);
    fflush(stderr);
    int keep1 = dup(1), keep2 = dup(2);
    dup2(fo, 1);
    dup2(fe, 2);
    cr_assert(tw_out_stdio_install());
    tw_secret_add("Bearer split/Secret+Value-0042");
    fputs("first half split/Sec", stdout);
    fflush(stdout);
    fputs("ret+Value-0042 second half\n", stdout);
    fflush(stdout);
    fprintf(stderr, "escaped split\\/Secret+Value-0042 and split%%2FSecret%%2BValue-0042\n");
    fputs("held until the exit: split/Sec", stdout);
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_out_write_file(fp, "x split/Secret+Value-0042 y", 27, &why), TW_OK);
    cr_assert_eq(tw_out_append_file(fp, "\nsplit/Secret+Value-0042\n", 25, &why), TW_OK);
    tw_out_stdio_flush();
    dup2(keep1, 1);
    dup2(keep2, 2);
    size_t n1, n2, n3;
    char *o = tw_test_slurp(so, &n1), *e = tw_test_slurp(se, &n2), *f = tw_test_slurp(fp, &n3);
    cr_expect_eq(count(o, n1, "Secret"), 0, "%s", o);
    cr_expect_eq(count(e, n2, "Secret"), 0, "%s", e);
    cr_expect_eq(count(f, n3, "Secret"), 0, "%s", f);
    cr_expect_str_eq(o, "first half [REDACTED] second half\nheld until the exit: [REDACTED]");
    cr_expect_str_eq(e, "escaped [REDACTED] and [REDACTED]\n");
    cr_expect_str_eq(f, "x [REDACTED] y\n[REDACTED]\n");
    free(o);
    free(e);
    free(f);
    tw_secret_reset();
    if (!getenv("TW_KEEP"))
        tw_test_rm_tree(dir);
    free(dir);
}

/* ---------------------------------------------------------------- discovery */

Test(secrets, header_names_and_field_names)
{
    const char *dropped[] = {"X-Custom-Token",      "X-Api-Token",     "X-Session-Id", "X-Password",
                             "X-Auth-Extra",        "Idempotency-Key", "Cookie",       "Set-Cookie",
                             "Proxy-Authorization", "X-Client-Secret"};
    for (size_t i = 0; i < sizeof dropped / sizeof *dropped; i++)
        cr_expect(tw_redact_header_dropped(NULL, dropped[i]), "%s kept", dropped[i]);
    const char *kept[] = {"content-type",
                          "x-ratelimit-remaining-tokens",
                          "anthropic-ratelimit-input-tokens-reset",
                          "retry-after",
                          "x-request-id",
                          "keep-alive"};
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
        cr_expect(!tw_redact_header_dropped(NULL, kept[i]), "%s dropped", kept[i]);
    const char *fields[] = {"token",         "auth_token",  "access_token", "refreshToken",
                            "client_secret", "password",    "api_key",      "apiKey",
                            "secret",        "private_key", "x-api-key",    "id_token",
                            "aws_secret_key"};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        cr_expect(tw_redact_field_secret(NULL, fields[i]), "%s not a secret", fields[i]);
    const char *plain[] = {"max_tokens", "input_tokens", "tokens", "keyword", "city", "model"};
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
        cr_expect(!tw_redact_field_secret(NULL, plain[i]), "%s is a secret", plain[i]);
    tw_redactor r = {0};
    cr_assert_eq(tw_redactor_add_field(&r, "internal_ref"), TW_OK);
    cr_expect(tw_redact_field_secret(&r, "Internal_Ref"));
    tw_redactor_free(&r);
}

Test(secrets, json_fields_nested_strings_and_logprobs)
{
    const char *body = "{\"metadata\":{\"auth\":{\"token\":\"tokAAAA11\"},\"deep\":[{\"refresh_"
                       "token\":\"rfBBBB22\"}]},"
                       "\"user\":{\"password\":\"pw\"},\"code\":42,\"pin\":{\"secret\":123456789},"
                       "\"tool_calls\":[{\"function\":{\"arguments\":\"{\\\"api_key\\\":"
                       "\\\"akCCCC33\\\",\\\"city\\\":"
                       "\\\"Paris\\\",\\\"password\\\":\\\"pw\\\"}\"}}],"
                       "\"logprobs\":{\"content\":[{\"token\":\"Hello world\",\"logprob\":-0.1}]},"
                       "\"echo\":\"saw tokAAAA11 and rfBBBB22 and akCCCC33\"}";
    cJSON *v = cJSON_Parse(body);
    cr_assert_not_null(v);
    tw_redactor r = {0};
    cr_assert_eq(tw_redact_discover_json(&r, v, 64), TW_OK);
    cr_assert_eq(tw_redact_json(&r, v, 64), TW_OK);
    char *out = cJSON_PrintUnformatted(v);
    cr_expect_null(strstr(out, "tokAAAA11"), "%s", out);
    cr_expect_null(strstr(out, "rfBBBB22"), "%s", out);
    cr_expect_null(strstr(out, "akCCCC33"), "%s", out);
    cr_expect_null(strstr(out, "\"pw\""), "%s", out);
    cr_expect_null(strstr(out, "123456789"), "%s", out);
    cr_expect_not_null(strstr(out, "\\\"city\\\":\\\"Paris\\\""), "%s", out);
    cr_expect_not_null(strstr(out, "\"token\":\"Hello world\""), "%s", out);
    cr_expect_not_null(strstr(out, "\"code\":42"), "%s", out);
    cr_expect_not_null(strstr(out, "saw [REDACTED] and [REDACTED] and [REDACTED]"), "%s", out);
    cJSON_free(out);
    cJSON_Delete(v);
    tw_redactor_free(&r);
}

Test(secrets, discovery_from_text_headers_and_streams)
{
    tw_redactor r = {0};
    cr_assert_eq(
        tw_redact_discover_text(&r, "/v1/x?model=m&access_token=ab%2Bcd%2Fefgh&key=k1k1k1k1", 54),
        TW_OK);
    cr_assert_eq(tw_redact_discover_header(&r, "Cookie", "theme=dark; session=ck9ck9ck9"), TW_OK);
    cr_assert_eq(tw_redact_discover_header(&r, "Set-Cookie", "sid=sc8sc8sc8; Path=/; HttpOnly"),
                 TW_OK);
    const char *sse =
        "data: {\"choices\":[{\"delta\":{\"secret\":\"ev7ev7ev7\"}}]}\n\ndata: [DONE]\n\n";
    cr_assert_eq(tw_redact_discover_body(&r, sse, strlen(sse), 64), TW_OK);
    const char *want[] = {"ab%2Bcd%2Fefgh", "ab+cd/efgh", "k1k1k1k1",
                          "ck9ck9ck9",      "sc8sc8sc8",  "ev7ev7ev7"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        bool found = false;
        for (size_t k = 0; k < r.nvalues; k++)
            found = found || strcmp(r.values[k], want[i]) == 0;
        cr_expect(found, "%s not remembered", want[i]);
    }
    for (size_t k = 0; k < r.nvalues; k++)
        cr_expect(strcmp(r.values[k], "/") != 0 && strcmp(r.values[k], "HttpOnly") != 0);
    char *s = tw_redact_str(&r, "echo ab+cd\\/efgh ck9ck9ck9 ev7ev7ev7");
    cr_expect_str_eq(s, "echo [REDACTED] [REDACTED] [REDACTED]");
    free(s);
    tw_redactor_free(&r);
}

/* HTML/XML character references, named and numeric, in any mix with the
 * JSON and percent escapes. */
Test(secrets, scrubber_finds_entity_forms)
{
    char *vals[] = {(char *)"K3yAmp&Secr<Val>q'9xyzW\"e"};
    const char *in[] = {
        "md K3yAmp&amp;Secr&lt;Val&gt;q&apos;9xyzW&quot;e end",
        "num K3yAmp&#38;Secr&#60;Val&#x3E;q&#39;9xyzW&#X22;e end",
        "mix K3yAmp\\u0026Secr&lt;Val%3Eq&#039;9xyzW\\\"e end",
        "twice K3yAmp&amp;amp;Secr&amp;lt;Val&gt;q'9xyzW\"e end",
    };
    for (size_t i = 0; i < sizeof in / sizeof *in; i++) {
        tw_buf out = {0};
        size_t n = 0;
        cr_assert_eq(tw_scrub_values(vals, 1, in[i], strlen(in[i]), &out, &n, NULL), TW_OK);
        cr_expect_eq(n, 1, "%s -> %s", in[i], out.data);
        cr_expect(strstr(out.data, "[REDACTED] end") && !strstr(out.data, "K3yAmp"), "%s -> %s",
                  in[i], out.data);
        tw_buf_free(&out);
    }
    /* an entity cut at the end of a write is held for the next one */
    tw_buf out = {0};
    size_t hold = 0;
    const char *tail = "some text &am";
    cr_assert_eq(tw_scrub_values(vals, 1, tail, strlen(tail), &out, NULL, &hold), TW_OK);
    cr_expect_eq(hold, 3);
    tw_buf_free(&out);
}

/* A secret's start kept by a cut (before an excerpt's ellipsis or not), in
 * any encoding; a start shorter than 8 bytes is left. */
Test(secrets, scrubber_removes_a_cut_prefix_before_an_ellipsis)
{
    char *vals[] = {(char *)"twK3y_T3stSecr/AbC+dEf=Gh1jKq"};
    const char *in = "a PPPPtwK3y_T3stSecr/AbC... b twK3y_T3stSecr\\/Ab\xe2\x80\xa6 c "
                     "twK3y_T3stS%65cr... d twK3y_T... e twK3y_T3stSecr/AbC and more";
    tw_buf out = {0};
    size_t n = 0;
    cr_assert_eq(tw_scrub_values(vals, 1, in, strlen(in), &out, &n, NULL), TW_OK);
    cr_expect_eq(n, 4, "%s", out.data);
    cr_expect_str_eq(out.data, "a PPPP[REDACTED]... b [REDACTED]\xe2\x80\xa6 c [REDACTED]... d "
                               "twK3y_T... e [REDACTED] and more");
    tw_buf_free(&out);
}

/* Excerpts are scrubbed first and cut after, never inside a marker. */
Test(secrets, excerpts_are_scrubbed_before_the_cut)
{
    tw_secret_reset();
    const char *key = "twK3y_T3stSecr/AbC+dEf=Gh1jKq";
    cr_assert_eq(tw_secret_add(key), TW_OK);
    for (size_t pad = 150; pad <= 205; pad++) {
        char in[400];
        memset(in, 'P', pad);
        snprintf(in + pad, sizeof in - pad, "%s tail", key);
        char *c = tw_secret_clip(in, 200);
        cr_assert_not_null(c);
        cr_expect(!strstr(c, "twK3y_T3"), "pad %zu: %s", pad, c);
        const char *m = strchr(c, '[');
        if (m)
            cr_expect(strncmp(m, TW_REDACTED, strlen(TW_REDACTED)) == 0, "pad %zu: %s", pad, c);
        cr_expect(strlen(c) <= 203);
        free(c);
    }
    cr_expect_eq(tw_redacted_cut("ab[REDAC", 8), 2);
    cr_expect_eq(tw_redacted_cut("ab[REDACTED]", 12), 12);
    cr_expect_eq(tw_redacted_cut("abcd", 4), 4);
    tw_secret_reset();
}

/* A password split across the argument fragments of a streamed call, in
 * OpenAI and Anthropic events: found in the assembled arguments, and no
 * fragment keeps a part of it; the fragments still join into JSON. */
Test(secrets, stream_fragments_are_assembled_and_redacted)
{
    const char *ev[] = {
        "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\","
        "\"function\":"
        "{\"name\":\"login\",\"arguments\":\"{\\\"password\\\": \\\"pw_STR\"}}]}}]}",
        "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
        "{\"arguments\":\"EAM_16\"}}]}}]}",
        "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
        "{\"arguments\":\"16jjjj\\\", \\\"n\\\": 1.50}\"}}]}}]}",
        "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\","
        "\"partial_json\":\"{\\\"api_key\\\": \\\"ak_SPL\"}}",
        "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\","
        "\"partial_json\":\"IT_2020zzzz\\\"}\"}}",
    };
    size_t n = sizeof ev / sizeof *ev, len[5];
    tw_buf body = {0};
    for (size_t i = 0; i < n; i++) {
        len[i] = strlen(ev[i]);
        tw_buf_printf(&body, "data: %s\n\n", ev[i]);
    }
    tw_redactor r = {0};
    cr_assert_eq(tw_redact_discover_body(&r, body.data, body.len, 64), TW_OK);
    tw_buf_free(&body);
    const char *want[] = {"pw_STREAM_1616jjjj", "ak_SPLIT_2020zzzz"};
    for (size_t i = 0; i < 2; i++) {
        bool found = false;
        for (size_t k = 0; k < r.nvalues; k++)
            found = found || strcmp(r.values[k], want[i]) == 0;
        cr_expect(found, "%s not remembered", want[i]);
    }
    char *out[5];
    cr_assert_eq(tw_redact_stream(&r, ev, len, n, 64, out), TW_OK);
    tw_buf oa = {0}, an = {0};
    for (size_t i = 0; i < n; i++) {
        const char *d = out[i] ? out[i] : ev[i];
        cr_expect(!strstr(d, "STR") && !strstr(d, "EAM_16") && !strstr(d, "16jjjj") &&
                      !strstr(d, "SPL") && !strstr(d, "2020zzzz"),
                  "event %zu: %s", i, d);
        cJSON *e = cJSON_Parse(d);
        cr_assert_not_null(e, "%s", d);
        const cJSON *a =
            i < 3 ? cJSON_GetObjectItem(
                        cJSON_GetObjectItem(
                            cJSON_GetArrayItem(
                                cJSON_GetObjectItem(
                                    cJSON_GetObjectItem(
                                        cJSON_GetArrayItem(cJSON_GetObjectItem(e, "choices"), 0),
                                        "delta"),
                                    "tool_calls"),
                                0),
                            "function"),
                        "arguments")
                  : cJSON_GetObjectItem(cJSON_GetObjectItem(e, "delta"), "partial_json");
        cr_assert(cJSON_IsString(a));
        tw_buf_puts(i < 3 ? &oa : &an, a->valuestring);
        cJSON_Delete(e);
        free(out[i]);
    }
    cr_expect_str_eq(oa.data, "{\"password\": \"[REDACTED]\", \"n\": 1.50}");
    cr_expect_str_eq(an.data, "{\"api_key\": \"[REDACTED]\"}");
    tw_buf_free(&oa);
    tw_buf_free(&an);
    tw_redactor_free(&r);
}

/* ---------------------------------------------------------------- end to end */

/* Secrets planted in the inputs, made at run time (no file of the project
 * holds one). Each is a distinct kind of place a secret hides. */
enum {
    K_BEARER,
    K_XAPIKEY,
    K_APIKEY,
    K_COOKIE,
    K_SETCOOKIE,
    K_XCUSTOMTOKEN,
    K_XAPITOKEN,
    K_XSESSION,
    K_QKEY,
    K_QAPIKEY,
    K_QACCESS,
    K_BTOKEN,
    K_BAUTHTOKEN,
    K_BACCESS,
    K_BREFRESH,
    K_BCLIENTSECRET,
    K_BPASSWORD,
    K_ARGS,
    K_PRIVATE,
    K_BSECRET,
    K_BAPIKEY,
    K_REDACTHEADER,
    K_REDACTFIELD,
    K_KEYENV,
    K_SERVEAUTH,
    K_PROXYAUTH,
    K_SERVEQUERY,
    K_CUT,
    K_MARKUP,
    K_SPLIT,
    K_URLPASS,
    K_URLKEY,
    K_PIECES,
    K_ANTHPIECES,
    K_RESPPIECES,
    K_GEMPIECES,
    K_HERMESPW,
    K_QWENPW,
    K_DRIVERLOG,
    K_UPSTREAMERR,
    NKINDS
};
static const char *const kind_name[NKINDS] = {
    "Authorization: Bearer",
    "x-api-key",
    "api-key",
    "cookie value",
    "set-cookie value",
    "X-Custom-Token",
    "X-Api-Token",
    "X-Session-Id",
    "?key=",
    "&api_key=",
    "&access_token= (percent-encoded)",
    "body token at depth",
    "body auth_token at depth",
    "body access_token",
    "body refresh_token",
    "body client_secret",
    "body password (JSON-escaped echo)",
    "api_key in a tool call's arguments string",
    "body private_key (echoed in a response body)",
    "body secret (echoed in an SSE event)",
    "body api_key (\\u-escaped echo)",
    "--redact-header",
    "--redact-field",
    "--key-env value echoed by the backend",
    "serve: client Authorization",
    "Proxy-Authorization: Basic",
    "serve: client ?key=",
    "--key-env value cut by an excerpt",
    "--key-env value with & < > ' \"",
    "password split across stream deltas",
    "password in a backend URL's userinfo",
    "?key= in a backend URL",
    "--key-env value echoed in 4-byte content pieces",
    "x-api-key echoed in Anthropic text_delta pieces",
    "Bearer key echoed in Responses output_text.delta pieces",
    "x-goog-api-key echoed in Gemini text parts, cut in two",
    "password in a Hermes call written as model text",
    "password in a Qwen3-Coder call streamed in pieces",
    "a client driver's key at the cut of its log tail",
    "the reference proxy's upstream key in an upstream's 401 and answers"};
static char S[NKINDS][48];

static void make_secrets(void)
{
    static const char al[] = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
    /* each secret its own run of letters: no 8-byte window shared by two */
    unsigned x = (unsigned)getpid() * 2654435761u + 12345u;
    for (int i = 0; i < NKINDS; i++) {
        char t[20];
        for (int k = 0; k < 16; k++) {
            x = x * 1103515245u + 12345u;
            t[k] = al[(x >> 16) % 57];
        }
        t[16] = '\0';
        if (i == K_MARKUP)
            snprintf(S[i], sizeof S[i], "zq%02dX%.4s&%.4s<%.3s>%.3s'%.2s\"", i, t, t + 4, t + 8,
                     t + 11, t + 14);
        else if (i == K_QACCESS || i == K_BPASSWORD || i == K_BAPIKEY || i == K_KEYENV)
            snprintf(S[i], sizeof S[i], "zq%02dX%.5s+%.5s/%.5s", i, t, t + 5, t + 10);
        else
            snprintf(S[i], sizeof S[i], "zq%02dX%s", i, t);
    }
}

/* "a/b" as "a\/b" */
static void slash_escaped(const char *s, char *out, size_t n)
{
    size_t o = 0;
    for (; *s && o + 3 < n; s++) {
        if (*s == '/')
            out[o++] = '\\';
        out[o++] = *s;
    }
    out[o] = '\0';
}

/* every byte as \u00XX */
static void u_escaped(const char *s, char *out, size_t n)
{
    size_t o = 0;
    for (; *s && o + 7 < n; s++)
        o += (size_t)snprintf(out + o, n - o, "\\u%04X", (unsigned char)*s);
    out[o] = '\0';
}

/* '+' '/' ' ' ':' as %XX */
static void pct(const char *s, char *out, size_t n)
{
    size_t o = 0;
    for (; *s && o + 4 < n; s++) {
        if (*s == '+' || *s == '/' || *s == ' ' || *s == ':')
            o += (size_t)snprintf(out + o, n - o, "%%%02X", (unsigned char)*s);
        else
            out[o++] = *s;
    }
    out[o] = '\0';
}

/* & < > ' " as named entities (numeric ones too when num) */
static void entities(const char *s, char *out, size_t n, bool num)
{
    size_t o = 0;
    for (; *s && o + 8 < n; s++) {
        const char *e = NULL;
        char nb[8];
        switch (*s) {
        case '&': e = "&amp;"; break;
        case '<': e = "&lt;"; break;
        case '>': e = "&gt;"; break;
        case '\'': e = "&apos;"; break;
        case '"': e = "&quot;"; break;
        default: break;
        }
        if (e && num) {
            snprintf(nb, sizeof nb, "&#%d;", (unsigned char)*s);
            e = nb;
        }
        if (e)
            o += (size_t)snprintf(out + o, n - o, "%s", e);
        else
            out[o++] = *s;
    }
    out[o] = '\0';
}

/* ---- a server that echoes what it is sent (not toolwire) ---- */

static enum MHD_Result collect(void *cls, enum MHD_ValueKind kind, const char *k, const char *v)
{
    tw_buf *b = cls;
    (void)kind;
    tw_buf_printf(b, "%s=%s; ", k, v ? v : "");
    return MHD_YES;
}

static void json_str(tw_buf *b, const char *s)
{
    cJSON *j = cJSON_CreateString(s);
    char *t = cJSON_PrintUnformatted(j);
    tw_buf_append(b, t + 1, strlen(t) - 2); /* without the quotes */
    cJSON_free(t);
    cJSON_Delete(j);
}

static enum MHD_Result echo(void *cls, struct MHD_Connection *c, const char *url,
                            const char *method, const char *version, const char *upload,
                            size_t *upload_size, void **con_cls)
{
    (void)cls, (void)url, (void)method, (void)version;
    tw_buf *body = *con_cls;
    if (!body) {
        *con_cls = calloc(1, sizeof(tw_buf));
        return MHD_YES;
    }
    if (*upload_size) {
        tw_buf_append(body, upload, *upload_size);
        *upload_size = 0;
        return MHD_YES;
    }
    tw_buf seen = {0};
    MHD_get_connection_values(c, MHD_HEADER_KIND, collect, &seen);
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, collect, &seen);
    tw_buf_printf(&seen, "body=%.*s", (int)body->len, body->data ? body->data : "");
    const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    char u[600], sl[200], pc[200];
    u_escaped(auth ? auth : "", u, sizeof u);
    slash_escaped(auth ? auth : "", sl, sizeof sl);
    pct(auth ? auth : "", pc, sizeof pc);
    bool stream = body->data &&
                  (strstr(body->data, "\"stream\":true") || strstr(body->data, "\"stream\": true"));
    tw_buf content = {0};
    if (auth && strstr(auth, S[K_CUT])) {
        /* the key right where a 200-byte excerpt of the content is cut */
        for (int i = 0; i < 190; i++)
            tw_buf_putc(&content, 'P');
        json_str(&content, S[K_CUT]);
    }
    /* markup first: the check that flags it quotes the content in its evidence */
    tw_buf_puts(&content, "<tool_call>");
    json_str(&content, auth ? auth : "");
    tw_buf_printf(&content, " s=%s u=%s | you sent: ", sl, u);
    json_str(&content, seen.data ? seen.data : "");
    tw_buf out = {0};
    const char *token = auth && strncmp(auth, "Bearer ", 7) == 0 ? auth + 7 : "";
    if (body->data && strstr(body->data, "fail401")) {
        /* an upstream that repeats the key it was sent in its error */
        tw_buf_printf(
            &out,
            "{\"error\":{\"message\":\"Invalid key %s\",\"type\":\"invalid_request_error\","
            "\"code\":\"invalid_api_key\"}}",
            token);
        struct MHD_Response *r =
            MHD_create_response_from_buffer(out.len, out.data, MHD_RESPMEM_MUST_COPY);
        MHD_add_response_header(r, "Content-Type", "application/json");
        enum MHD_Result ret = MHD_queue_response(c, 401, r);
        MHD_destroy_response(r);
        tw_buf_free(&out);
        tw_buf_free(&content);
        tw_buf_free(&seen);
        return ret;
    }
    if (stream) {
        tw_buf_printf(
            &out,
            "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,"
            "\"model\":\"echo\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\","
            "\"content\":\"%s\"},\"finish_reason\":null}]}\n\n",
            content.data);
        /* the key once more, four bytes a delta */
        for (size_t a = 0, tl = strlen(token); a < tl; a += 4) {
            char piece[5];
            snprintf(piece, sizeof piece, "%.4s", token + a);
            tw_buf pj = {0};
            json_str(&pj, piece);
            tw_buf_printf(
                &out,
                "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,"
                "\"model\":\"echo\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"%s\"},"
                "\"finish_reason\":null}]}\n\n",
                pj.data);
            tw_buf_free(&pj);
        }
        if (MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Internal-Ref"))
            /* for record: a password split across two argument deltas */
            tw_buf_printf(
                &out,
                "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,"
                "\"model\":\"echo\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":"
                "[{\"index\":0,\"id\":\"c9\",\"type\":\"function\",\"function\":{\"name\":"
                "\"login\",\"arguments\":\"{\\\"password\\\": \\\"%.10s\"}}]},"
                "\"finish_reason\":null}]}\n\n"
                "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,"
                "\"model\":\"echo\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":"
                "[{\"index\":0,\"function\":{\"arguments\":\"%s\\\"}\"}}]},"
                "\"finish_reason\":null}]}\n\n",
                S[K_SPLIT], S[K_SPLIT] + 10);
        tw_buf_printf(&out,
                      "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,"
                      "\"model\":\"echo\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":"
                      "\"stop\"}]}\n\ndata: [DONE]\n\n");
    } else {
        tw_buf_printf(&out,
                      "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1,"
                      "\"model\":\"echo\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
                      "\"assistant\",\"content\":\"%s\"},\"finish_reason\":\"stop\"}]}",
                      content.data);
    }
    struct MHD_Response *r =
        MHD_create_response_from_buffer(out.len, out.data, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(r, "Content-Type", stream ? "text/event-stream" : "application/json");
    char link[300];
    snprintf(link, sizeof link, "<https://echo.test/?q=%s>", pc);
    MHD_add_response_header(r, "Link", link);
    enum MHD_Result ret = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    tw_buf_free(&out);
    tw_buf_free(&content);
    tw_buf_free(&seen);
    return ret;
}

static void echo_done(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe)
{
    (void)cls, (void)c, (void)toe;
    tw_buf *b = *con_cls;
    if (b) {
        tw_buf_free(b);
        free(b);
    }
    *con_cls = NULL;
}

/* ---- the inputs ---- */

static char *request_body(bool stream)
{
    char s16[100], *b = NULL;
    slash_escaped(S[K_BPASSWORD], s16, sizeof s16);
    int n = asprintf(
        &b,
        "{\"model\":\"gpt-test\",%s\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},"
        "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c0\",\"type\":"
        "\"function\",\"function\":{\"name\":\"login\",\"arguments\":\"{\\\"api_key\\\":\\\"%s\\\","
        "\\\"city\\\":\\\"Paris\\\"}\"}}]},{\"role\":\"tool\",\"tool_call_id\":\"c0\",\"content\":"
        "\"ok\"}],\"metadata\":{\"auth\":{\"token\":\"%s\"},\"deep\":{\"x\":[{\"auth_token\":"
        "\"%s\"}]}},\"access_token\":\"%s\",\"refresh_token\":\"%s\",\"client_secret\":\"%s\","
        "\"user\":{\"password\":\"%s\"},\"private_key\":\"%s\",\"secret\":\"%s\",\"api_key\":"
        "\"%s\",\"internal_ref\":\"%s\"}",
        stream ? "\"stream\":true," : "", S[K_ARGS], S[K_BTOKEN], S[K_BAUTHTOKEN], S[K_BACCESS],
        S[K_BREFRESH], S[K_BCLIENTSECRET], s16, S[K_PRIVATE], S[K_BSECRET], S[K_BAPIKEY],
        S[K_REDACTFIELD]);
    cr_assert(n > 0);
    return b;
}

static char *response_json(void)
{
    char s16[100], u20[400], p10[100], *b = NULL;
    slash_escaped(S[K_BPASSWORD], s16, sizeof s16);
    u_escaped(S[K_BAPIKEY], u20, sizeof u20);
    pct(S[K_QACCESS], p10, sizeof p10);
    int n = asprintf(
        &b,
        "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"gpt-"
        "test\","
        "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"you sent "
        "Bearer %s key %s pk %s pw %s u=%s pct=%s ref %s hdr %s\",\"tool_calls\":[{\"id\":\"c1\","
        "\"type\":\"function\",\"function\":{\"name\":\"login\",\"arguments\":\"{\\\"api_key\\\":"
        "\\\"%s\\\",\\\"city\\\":\\\"Paris\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}]}",
        S[K_BEARER], S[K_QKEY], S[K_PRIVATE], s16, u20, p10, S[K_REDACTFIELD], S[K_REDACTHEADER],
        S[K_ARGS]);
    cr_assert(n > 0);
    return b;
}

static char *response_sse(void)
{
    char s16[100], *b = NULL;
    slash_escaped(S[K_BPASSWORD], s16, sizeof s16);
    int n = asprintf(
        &b,
        "data: {\"id\":\"c2\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":"
        "\"gpt-test\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":"
        "\"echo %s %s %s %s %s %s %s %s %s %s %s %s %s %s split %s\"},\"finish_reason\":null}]}\n\n"
        "data: {\"id\":\"c2\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":"
        "\"gpt-test\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":"
        "\"c3\",\"type\":\"function\",\"function\":{\"name\":\"login\",\"arguments\":"
        "\"{\\\"password\\\":\\\"%s\\\"}\"}}]},\"finish_reason\":null}]}\n\n"
        "data: {\"id\":\"c2\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":"
        "\"gpt-test\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":"
        "\"c4\",\"type\":\"function\",\"function\":{\"name\":\"login\",\"arguments\":"
        "\"{\\\"password\\\": \\\"%.9s\"}}]},\"finish_reason\":null}]}\n\n"
        "data: {\"id\":\"c2\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":"
        "\"gpt-test\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,"
        "\"function\":{\"arguments\":\"%s\\\", \\\"city\\\": \\\"Oslo\\\"}\"}}]},"
        "\"finish_reason\":null}]}\n\n"
        "data: {\"id\":\"c2\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":"
        "\"gpt-test\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}"
        "\n\ndata: [DONE]\n\n",
        S[K_BSECRET], S[K_XAPITOKEN], S[K_COOKIE], S[K_XAPIKEY], S[K_APIKEY], S[K_XCUSTOMTOKEN],
        S[K_XSESSION], S[K_QAPIKEY], S[K_BTOKEN], S[K_BAUTHTOKEN], S[K_BACCESS], S[K_BREFRESH],
        S[K_BCLIENTSECRET], S[K_PROXYAUTH], S[K_SPLIT], s16, S[K_SPLIT], S[K_SPLIT] + 9);
    cr_assert(n > 0);
    return b;
}

typedef struct hdr {
    const char *name;
    char value[160];
} hdr;

static size_t request_headers(hdr *h)
{
    size_t n = 0;
    h[n].name = "Content-Type";
    snprintf(h[n++].value, sizeof h->value, "application/json");
    h[n].name = "Authorization";
    snprintf(h[n++].value, sizeof h->value, "Bearer %s", S[K_BEARER]);
    h[n].name = "x-api-key";
    snprintf(h[n++].value, sizeof h->value, "%s", S[K_XAPIKEY]);
    h[n].name = "api-key";
    snprintf(h[n++].value, sizeof h->value, "%s", S[K_APIKEY]);
    h[n].name = "Cookie";
    snprintf(h[n++].value, sizeof h->value, "theme=dark; session=%s", S[K_COOKIE]);
    h[n].name = "X-Custom-Token";
    snprintf(h[n++].value, sizeof h->value, "%s", S[K_XCUSTOMTOKEN]);
    h[n].name = "X-Api-Token";
    snprintf(h[n++].value, sizeof h->value, "%s", S[K_XAPITOKEN]);
    h[n].name = "X-Session-Id";
    snprintf(h[n++].value, sizeof h->value, "%s", S[K_XSESSION]);
    h[n].name = "Proxy-Authorization";
    snprintf(h[n++].value, sizeof h->value, "Basic %s", S[K_PROXYAUTH]);
    h[n].name = "X-Internal-Ref";
    snprintf(h[n++].value, sizeof h->value, "%s", S[K_REDACTHEADER]);
    return n;
}

static void url_with_query(char *u, size_t n)
{
    char p10[100];
    pct(S[K_QACCESS], p10, sizeof p10);
    snprintf(u, n, "https://api.example.test/v1/chat/completions?key=%s&api_key=%s&access_token=%s",
             S[K_QKEY], S[K_QAPIKEY], p10);
}

static cJSON *har_headers(const hdr *h, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", h[i].name);
        cJSON_AddStringToObject(o, "value", h[i].value);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *har_entry(const char *url, const hdr *rq, size_t nrq, const char *body, const hdr *rs,
                        size_t nrs, const char *mime, const char *text)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "startedDateTime", "2025-01-01T00:00:00.000Z");
    cJSON_AddNumberToObject(e, "time", 1);
    cJSON *q = cJSON_AddObjectToObject(e, "request");
    cJSON_AddStringToObject(q, "method", "POST");
    cJSON_AddStringToObject(q, "url", url);
    cJSON_AddStringToObject(q, "httpVersion", "HTTP/1.1");
    cJSON_AddItemToObject(q, "headers", har_headers(rq, nrq));
    cJSON_AddItemToObject(q, "queryString", cJSON_CreateArray());
    cJSON_AddItemToObject(q, "cookies", cJSON_CreateArray());
    cJSON_AddNumberToObject(q, "headersSize", -1);
    cJSON_AddNumberToObject(q, "bodySize", -1);
    cJSON *pd = cJSON_AddObjectToObject(q, "postData");
    cJSON_AddStringToObject(pd, "mimeType", "application/json");
    cJSON_AddStringToObject(pd, "text", body);
    cJSON *r = cJSON_AddObjectToObject(e, "response");
    cJSON_AddNumberToObject(r, "status", 200);
    cJSON_AddStringToObject(r, "statusText", "OK");
    cJSON_AddStringToObject(r, "httpVersion", "HTTP/1.1");
    cJSON_AddItemToObject(r, "headers", har_headers(rs, nrs));
    cJSON_AddItemToObject(r, "cookies", cJSON_CreateArray());
    cJSON *ct = cJSON_AddObjectToObject(r, "content");
    cJSON_AddNumberToObject(ct, "size", (double)strlen(text));
    cJSON_AddStringToObject(ct, "mimeType", mime);
    cJSON_AddStringToObject(ct, "text", text);
    cJSON_AddStringToObject(r, "redirectURL", "");
    cJSON_AddNumberToObject(r, "headersSize", -1);
    cJSON_AddNumberToObject(r, "bodySize", -1);
    cJSON *t = cJSON_AddObjectToObject(e, "timings");
    cJSON_AddNumberToObject(t, "send", 0);
    cJSON_AddNumberToObject(t, "wait", 1);
    cJSON_AddNumberToObject(t, "receive", 0);
    return e;
}

static size_t response_headers(hdr *h, bool sse)
{
    size_t n = 0;
    h[n].name = "Content-Type";
    snprintf(h[n++].value, sizeof h->value, sse ? "text/event-stream" : "application/json");
    h[n].name = "Set-Cookie";
    snprintf(h[n++].value, sizeof h->value, "sid=%s; Path=/; HttpOnly", S[K_SETCOOKIE]);
    h[n].name = "X-Echo";
    snprintf(h[n++].value, sizeof h->value, "Bearer %s", S[K_BEARER]);
    return n;
}

/* ---- streams that carry a secret in pieces, and calls written as model text ---- */

/* text cut into k-byte pieces, each a JSON string put into tmpl's %s, as
 * SSE events (with an event: line when ev is set) */
static void sse_pieces(tw_buf *o, const char *ev, const char *tmpl, const char *text, size_t k)
{
    for (size_t a = 0, n = strlen(text); a < n; a += k) {
        char piece[64];
        snprintf(piece, sizeof piece, "%.*s", (int)k, text + a);
        tw_buf pj = {0};
        json_str(&pj, piece);
        if (ev)
            tw_buf_printf(o, "event: %s\n", ev);
        tw_buf_puts(o, "data: ");
        tw_buf_printf(o, tmpl, pj.data);
        tw_buf_puts(o, "\n\n");
        tw_buf_free(&pj);
    }
}

/* One recorded exchange of the pieces entries. */
typedef struct piece_entry {
    const char *url;
    hdr rq[2];
    size_t nrq;
    char *body; /* request */
    char *resp;
    bool sse;
} piece_entry;

static size_t piece_entries(piece_entry *e)
{
    char text[200];
    tw_buf b = {0};
    size_t n = 0;
    /* Anthropic: the x-api-key echoed four bytes a text_delta */
    e[n] = (piece_entry){.url = "https://api.example.test/v1/messages", .nrq = 2, .sse = true};
    e[n].rq[0].name = "Content-Type";
    snprintf(e[n].rq[0].value, sizeof e->rq[0].value, "application/json");
    e[n].rq[1].name = "x-api-key";
    snprintf(e[n].rq[1].value, sizeof e->rq[1].value, "%s", S[K_ANTHPIECES]);
    e[n].body = strdup("{\"model\":\"claude-test\",\"max_tokens\":64,\"stream\":true,\"messages\":"
                       "[{\"role\":\"user\",\"content\":\"hi\"}]}");
    tw_buf_puts(
        &b, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\","
            "\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-test\",\"content\":[],"
            "\"stop_reason\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n"
            "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
            "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n");
    snprintf(text, sizeof text, "your key is %s.", S[K_ANTHPIECES]);
    sse_pieces(&b, "content_block_delta",
               "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\","
               "\"text\":\"%s\"}}",
               text, 4);
    tw_buf_puts(
        &b, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
            "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
            "\"end_turn\"},\"usage\":{\"output_tokens\":9}}\n\n"
            "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    e[n++].resp = tw_buf_take(&b, NULL);
    /* Responses: a bearer key echoed five bytes an output_text.delta */
    e[n] = (piece_entry){.url = "https://api.example.test/v1/responses", .nrq = 2, .sse = true};
    e[n].rq[0].name = "Content-Type";
    snprintf(e[n].rq[0].value, sizeof e->rq[0].value, "application/json");
    e[n].rq[1].name = "Authorization";
    snprintf(e[n].rq[1].value, sizeof e->rq[1].value, "Bearer %s", S[K_RESPPIECES]);
    e[n].body = strdup("{\"model\":\"gpt-test\",\"stream\":true,\"input\":\"hi\"}");
    snprintf(text, sizeof text, "the key %s is yours", S[K_RESPPIECES]);
    sse_pieces(&b, "response.output_text.delta",
               "{\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"output_index\":0,"
               "\"content_index\":0,\"delta\":\"%s\"}",
               text, 5);
    e[n++].resp = tw_buf_take(&b, NULL);
    /* Gemini: an x-goog-api-key cut in two text parts */
    e[n] = (piece_entry){
        .url = "https://api.example.test/v1beta/models/gemini-test:streamGenerateContent?alt=sse",
        .nrq = 2,
        .sse = true};
    e[n].rq[0].name = "Content-Type";
    snprintf(e[n].rq[0].value, sizeof e->rq[0].value, "application/json");
    e[n].rq[1].name = "x-goog-api-key";
    snprintf(e[n].rq[1].value, sizeof e->rq[1].value, "%s", S[K_GEMPIECES]);
    e[n].body = strdup("{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]}]}");
    snprintf(text, sizeof text, "key %s end", S[K_GEMPIECES]);
    sse_pieces(&b, NULL,
               "{\"candidates\":[{\"index\":0,\"content\":{\"role\":\"model\",\"parts\":[{\"text\":"
               "\"%s\"}]}}]}",
               text, 4 + strlen(S[K_GEMPIECES]) / 2);
    e[n++].resp = tw_buf_take(&b, NULL);
    /* a Hermes call written as model text, its password whole */
    e[n] = (piece_entry){
        .url = "https://api.example.test/v1/chat/completions", .nrq = 1, .sse = false};
    e[n].rq[0].name = "Content-Type";
    snprintf(e[n].rq[0].value, sizeof e->rq[0].value, "application/json");
    e[n].body = strdup(
        "{\"model\":\"hermes-test\",\"messages\":[{\"role\":\"user\",\"content\":\"log in\"}]}");
    snprintf(text, sizeof text,
             "<tool_call>{\"name\": \"login\", \"arguments\": {\"user\": \"ann\", \"password\": "
             "\"%s\"}}</tool_call>",
             S[K_HERMESPW]);
    tw_buf_puts(&b, "{\"id\":\"chatcmpl-9\",\"object\":\"chat.completion\",\"created\":1,\"model\":"
                    "\"hermes-test\","
                    "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"");
    json_str(&b, text);
    tw_buf_puts(&b, "\"},\"finish_reason\":\"stop\"}]}");
    e[n++].resp = tw_buf_take(&b, NULL);
    /* a Qwen3-Coder call streamed six bytes a delta */
    e[n] =
        (piece_entry){.url = "https://api.example.test/v1/chat/completions", .nrq = 1, .sse = true};
    e[n].rq[0].name = "Content-Type";
    snprintf(e[n].rq[0].value, sizeof e->rq[0].value, "application/json");
    e[n].body = strdup("{\"model\":\"qwen-test\",\"stream\":true,\"messages\":[{\"role\":\"user\","
                       "\"content\":\"log in\"}]}");
    snprintf(text, sizeof text,
             "<tool_call>\n<function=login>\n<parameter=password>\n%s\n</parameter>\n</"
             "function>\n</tool_call>",
             S[K_QWENPW]);
    sse_pieces(
        &b, NULL,
        "{\"id\":\"c7\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"qwen-test\","
        "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"%s\"},\"finish_reason\":null}]}",
        text, 6);
    tw_buf_puts(&b, "data: [DONE]\n\n");
    e[n++].resp = tw_buf_take(&b, NULL);
    return n;
}

static void piece_entries_free(piece_entry *e, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(e[i].body);
        free(e[i].resp);
    }
}

static void write_har(const char *path)
{
    hdr rq[16], rs[4];
    size_t nrq = request_headers(rq);
    char url[400];
    url_with_query(url, sizeof url);
    char *b1 = request_body(false), *b2 = request_body(true), *r1 = response_json(),
         *r2 = response_sse();
    cJSON *root = cJSON_CreateObject();
    cJSON *log = cJSON_AddObjectToObject(root, "log");
    cJSON_AddStringToObject(log, "version", "1.2");
    cJSON *cr = cJSON_AddObjectToObject(log, "creator");
    cJSON_AddStringToObject(cr, "name", "test");
    cJSON_AddStringToObject(cr, "version", "1");
    cJSON *es = cJSON_AddArrayToObject(log, "entries");
    cJSON_AddItemToArray(
        es, har_entry(url, rq, nrq, b1, rs, response_headers(rs, false), "application/json", r1));
    cJSON_AddItemToArray(es, har_entry("https://api.example.test/v1/chat/completions", rq, 2, b2,
                                       rs, response_headers(rs, true), "text/event-stream", r2));
    piece_entry pe[8];
    size_t npe = piece_entries(pe);
    for (size_t i = 0; i < npe; i++)
        cJSON_AddItemToArray(es, har_entry(pe[i].url, pe[i].rq, pe[i].nrq, pe[i].body, rs,
                                           response_headers(rs, pe[i].sse),
                                           pe[i].sse ? "text/event-stream" : "application/json",
                                           pe[i].resp));
    piece_entries_free(pe, npe);
    char *t = cJSON_Print(root);
    tw_test_spit(path, t);
    cJSON_free(t);
    cJSON_Delete(root);
    free(b1), free(b2), free(r1), free(r2);
}

/* A YAML double-quoted scalar. */
static void yq(tw_buf *y, const char *s)
{
    tw_buf_putc(y, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            tw_buf_putc(y, '\\');
        if (*s == '\n')
            tw_buf_puts(y, "\\n");
        else
            tw_buf_putc(y, *s);
    }
    tw_buf_putc(y, '"');
}

static void vcr_interaction(tw_buf *y, const char *url, const hdr *rq, size_t nrq, const char *body,
                            const hdr *rs, size_t nrs, const char *text)
{
    tw_buf_puts(y, "- request:\n    body: ");
    yq(y, body);
    tw_buf_puts(y, "\n    headers:\n");
    for (size_t i = 0; i < nrq; i++) {
        tw_buf_printf(y, "      %s:\n      - ", rq[i].name);
        yq(y, rq[i].value);
        tw_buf_putc(y, '\n');
    }
    tw_buf_puts(y, "    method: POST\n    uri: ");
    yq(y, url);
    tw_buf_puts(y, "\n  response:\n    body:\n      string: ");
    yq(y, text);
    tw_buf_puts(y, "\n    headers:\n");
    for (size_t i = 0; i < nrs; i++) {
        tw_buf_printf(y, "      %s:\n      - ", rs[i].name);
        yq(y, rs[i].value);
        tw_buf_putc(y, '\n');
    }
    tw_buf_puts(y, "    status:\n      code: 200\n      message: OK\n");
}

static void write_vcr(const char *path)
{
    hdr rq[16], rs[4];
    size_t nrq = request_headers(rq);
    char url[400];
    url_with_query(url, sizeof url);
    char *b1 = request_body(false), *b2 = request_body(true), *r1 = response_json(),
         *r2 = response_sse();
    tw_buf y = {0};
    tw_buf_puts(&y, "interactions:\n");
    vcr_interaction(&y, url, rq, nrq, b1, rs, response_headers(rs, false), r1);
    vcr_interaction(&y, "https://api.example.test/v1/chat/completions", rq, 2, b2, rs,
                    response_headers(rs, true), r2);
    piece_entry pe[8];
    size_t npe = piece_entries(pe);
    for (size_t i = 0; i < npe; i++)
        vcr_interaction(&y, pe[i].url, pe[i].rq, pe[i].nrq, pe[i].body, rs,
                        response_headers(rs, pe[i].sse), pe[i].resp);
    piece_entries_free(pe, npe);
    tw_buf_puts(&y, "version: 1\n");
    tw_test_spit(path, y.data);
    tw_buf_free(&y);
    free(b1), free(b2), free(r1), free(r2);
}

/* A fixture for record and run: a non-streaming and a streaming exchange.
 * With secrets: credential headers, a query key and secret body fields. */
static void write_fixture(const char *path, bool secrets)
{
    char *t = NULL;
    char hdrs[600] = "\"content-type\": \"application/json\"";
    char extra[600] = "";
    char query[200] = "";
    if (secrets) {
        snprintf(hdrs, sizeof hdrs,
                 "\"content-type\": \"application/json\", \"x-custom-token\": \"%s\", "
                 "\"x-api-token\": \"%s\", \"x-session-id\": \"%s\", \"cookie\": \"session=%s\", "
                 "\"x-internal-ref\": \"%s\"",
                 S[K_XCUSTOMTOKEN], S[K_XAPITOKEN], S[K_XSESSION], S[K_COOKIE], S[K_REDACTHEADER]);
        snprintf(
            extra, sizeof extra,
            ", \"metadata\": {\"auth\": {\"token\": \"%s\"}}, \"user\": {\"password\": \"%s\"},"
            " \"client_secret\": \"%s\", \"internal_ref\": \"%s\"",
            S[K_BTOKEN], S[K_BPASSWORD], S[K_BCLIENTSECRET], S[K_REDACTFIELD]);
        snprintf(query, sizeof query, "?key=%s", S[K_QKEY]);
    }
    int n = asprintf(
        &t,
        "{\"fixture_version\": 1, \"name\": \"echo\", \"description\": \"echo server\","
        " \"backend\": \"openai\", \"provenance\": {\"source\": \"hand-made\"}, \"exchanges\": ["
        "{\"request\": {\"method\": \"POST\", \"path\": \"/v1/chat/completions%s\", \"headers\": "
        "{%s},"
        " \"body\": {\"model\": \"gpt-test\", \"messages\": [{\"role\": \"user\", \"content\": "
        "\"hi\"}]%s}},"
        " \"response\": {\"status\": 200, \"body\": {\"id\": \"x\", \"object\": "
        "\"chat.completion\","
        " \"created\": 1, \"model\": \"gpt-test\", \"choices\": [{\"index\": 0, \"message\": "
        "{\"role\":"
        " \"assistant\", \"content\": \"hello\"}, \"finish_reason\": \"stop\"}]}}},"
        "{\"request\": {\"method\": \"POST\", \"path\": \"/v1/chat/completions\", \"headers\": "
        "{%s},"
        " \"body\": {\"model\": \"gpt-test\", \"stream\": true, \"messages\": [{\"role\": \"user\","
        " \"content\": \"hi\"}]%s}}, \"response\": {\"status\": 200, \"events\": [{\"data\":"
        " \"{\\\"id\\\":\\\"x\\\",\\\"object\\\":\\\"chat.completion.chunk\\\",\\\"created\\\":1,"
        "\\\"model\\\":\\\"gpt-test\\\",\\\"choices\\\":[{\\\"index\\\":0,\\\"delta\\\":{"
        "\\\"content\\\":"
        "\\\"hello\\\"},\\\"finish_reason\\\":\\\"stop\\\"}]}\"}, {\"data\": \"[DONE]\"}]}}]}\n",
        query, hdrs, extra, hdrs, extra);
    cr_assert(n > 0);
    tw_test_spit(path, t);
    free(t);
}

/* ---- running the program ---- */

static size_t discard(char *p, size_t a, size_t b, void *u)
{
    (void)p, (void)u;
    return a * b;
}

/* `toolwire serve ARGS…` in the background, its standard streams in
 * streams/NAME.out and .err; the URL it serves on into url. The process id. */
static pid_t serve_start(const char *dir, const char *name, char *url, size_t urln,
                         char *const *args)
{
    char o[600], e[600];
    snprintf(o, sizeof o, "%s/streams/%s.out", dir, name);
    snprintf(e, sizeof e, "%s/streams/%s.err", dir, name);
    return tw_test_serve_start(o, e, url, urln, args);
}

static void serve_and_call(const char *dir)
{
    char fx[600], url[300];
    snprintf(fx, sizeof fx, "%s/in/run/echo.json", dir);
    char *args[] = {(char *)"--for", (char *)"60", fx, NULL};
    pid_t pid = serve_start(dir, "serve", url, sizeof url, args);
    CURL *c = curl_easy_init();
    char full[600], auth[200], tok[200];
    snprintf(full, sizeof full, "%s/v1/chat/completions?key=%s", url, S[K_SERVEQUERY]);
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", S[K_SERVEAUTH]);
    snprintf(tok, sizeof tok, "X-Api-Token: %s", S[K_XAPITOKEN]);
    struct curl_slist *h = curl_slist_append(NULL, auth);
    h = curl_slist_append(h, tok);
    h = curl_slist_append(h, "Content-Type: application/json");
    curl_easy_setopt(c, CURLOPT_URL, full);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(
        c, CURLOPT_POSTFIELDS,
        "{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
    cr_expect_eq(curl_easy_perform(c), CURLE_OK);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    kill(pid, SIGTERM);
    int st = 0;
    waitpid(pid, &st, 0);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "serve ended with %d", st);
}

static size_t keep_body(char *p, size_t a, size_t b, void *u)
{
    tw_buf_append(u, p, a * b);
    return a * b;
}

/* The reference proxy (Anthropic in, OpenAI out) in front of the echo
 * server with its own upstream key: an answer that echoes the key, a stream
 * that echoes it in pieces, and an upstream 401 that repeats it. What the
 * client receives is kept in streams/proxy-N.out. */
static void proxy_and_call(const char *dir, unsigned port)
{
    char up[100], url[300];
    snprintf(up, sizeof up, "http://127.0.0.1:%u", port);
    cr_assert_eq(setenv("TW_SECRETS_KEY_U", S[K_UPSTREAMERR], 1), 0);
    char *args[] = {(char *)"--proxy",
                    (char *)"anthropic:openai",
                    (char *)"--upstream",
                    up,
                    (char *)"--key-env",
                    (char *)"TW_SECRETS_KEY_U",
                    (char *)"--for",
                    (char *)"60",
                    NULL};
    pid_t pid = serve_start(dir, "proxy", url, sizeof url, args);
    static const char *const bodies[] = {
        "{\"model\":\"m\",\"max_tokens\":64,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
        "{\"model\":\"m\",\"max_tokens\":64,\"stream\":true,\"messages\":[{\"role\":\"user\","
        "\"content\":\"hi\"}]}",
        "{\"model\":\"m\",\"max_tokens\":64,\"messages\":[{\"role\":\"user\",\"content\":"
        "\"fail401\"}]}",
    };
    for (size_t i = 0; i < 3; i++) {
        CURL *c = curl_easy_init();
        char full[400], o[600];
        snprintf(full, sizeof full, "%s/v1/messages", url);
        struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
        h = curl_slist_append(h, "anthropic-version: 2023-06-01");
        tw_buf got = {0};
        curl_easy_setopt(c, CURLOPT_URL, full);
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, bodies[i]);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, keep_body);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, &got);
        curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
        cr_expect_eq(curl_easy_perform(c), CURLE_OK);
        long status = 0;
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
        cr_expect(i == 2 ? status >= 400 : status == 200, "proxy answer %zu: HTTP %ld: %.*s", i,
                  status, (int)got.len, got.data ? got.data : "");
        snprintf(o, sizeof o, "%s/streams/proxy-%zu.out", dir, i);
        FILE *f = fopen(o, "wb");
        cr_assert_not_null(f);
        fwrite(got.data ? got.data : "", 1, got.len, f);
        fclose(f);
        cr_expect(got.len > 0 && tw_memmem(got.data, got.len, "[REDACTED]", 10),
                  "proxy answer %zu carries the echo, scrubbed: %.*s", i, (int)got.len,
                  got.data ? got.data : "");
        tw_buf_free(&got);
        curl_slist_free_all(h);
        curl_easy_cleanup(c);
    }
    kill(pid, SIGTERM);
    int st = 0;
    waitpid(pid, &st, 0);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "serve --proxy ended with %d", st);
}

/* A client driver (Python, not toolwire) that sends its own key and logs it
 * so that the last 1,000 bytes of its log start inside the key. */
static void write_driver(const char *path)
{
    tw_test_spit(
        path,
        "import json, os, sys, urllib.request, urllib.error\n"
        "key = os.environ['TW_DRIVER_KEY']\n"
        "if sys.argv[1] == '--describe':\n"
        "    print(json.dumps({'protocol': 1, 'client': 'keylog', 'version': '1.0',\n"
        "                      'endpoint': 'openai', 'modes': ['create']}))\n"
        "    sys.exit(0)\n"
        "inp = json.load(sys.stdin)\n"
        "body = dict(inp['request'])\n"
        "body['stream'] = False\n"
        "hdrs = dict(inp.get('headers') or {})\n"
        "hdrs['Authorization'] = 'Bearer ' + key\n"
        "hdrs['Content-Type'] = 'application/json'\n"
        "req = urllib.request.Request(inp['base_url'] + '/v1/chat/completions',\n"
        "                             data=json.dumps(body).encode(), headers=hdrs)\n"
        "out = {'content': None, 'reasoning': None, 'tool_calls': [], 'finish_reason': None,\n"
        "       'error': None, 'requests': 1}\n"
        "try:\n"
        "    r = json.load(urllib.request.urlopen(req, timeout=inp['timeout_ms'] / 1000))\n"
        "    m = r['choices'][0]['message']\n"
        "    out['content'] = m.get('content')\n"
        "    out['tool_calls'] = [{'id': t['id'], 'name': t['function']['name'],\n"
        "                          'arguments': t['function']['arguments']} for t in "
        "m.get('tool_calls') or []]\n"
        "    out['finish_reason'] = r['choices'][0].get('finish_reason')\n"
        "except urllib.error.HTTPError as e:\n"
        "    out['error'] = {'type': 'HTTPError', 'message': str(e), 'status': e.code}\n"
        "sys.stderr.write('sending with key ' + key + '\\n' + '.' * 990 + '\\n')\n"
        "print(json.dumps(out))\n");
}

/* ---- what every output is searched for ---- */

/* Every 8-byte window of every secret, as a sorted array of 64-bit words. */
static uint64_t *windows;
static size_t nwindows;
static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void make_windows(void)
{
    free(windows);
    windows = malloc(NKINDS * 48 * sizeof *windows);
    nwindows = 0;
    for (int k = 0; k < NKINDS; k++)
        for (size_t i = 0; i + 8 <= strlen(S[k]); i++)
            memcpy(&windows[nwindows++], S[k] + i, 8);
    qsort(windows, nwindows, sizeof *windows, u64_cmp);
}

/* The secret a window of b at i belongs to, or -1: one pass over b. */
static int window_at(const char *b, size_t n, size_t *at)
{
    for (size_t i = 0; i + 8 <= n; i++) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        if (bsearch(&w, windows, nwindows, sizeof w, u64_cmp)) {
            *at = i;
            for (int k = 0; k < NKINDS; k++)
                if (memmem(S[k], strlen(S[k]), b + i, 8))
                    return k;
        }
    }
    return -1;
}

/* Every string leaf of v with its path (array indexes kept) appended to
 * the buffer of that path: the pieces a stream's events carry, joined. */
typedef struct joined {
    char path[160];
    tw_buf text;
} joined;

static void join_leaves(const cJSON *v, char *path, size_t pl, joined *j, size_t *nj, size_t cap)
{
    if (cJSON_IsString(v) && v->valuestring) {
        size_t k = 0;
        while (k < *nj && strcmp(j[k].path, path) != 0)
            k++;
        if (k == *nj && *nj < cap) {
            snprintf(j[k].path, sizeof j[k].path, "%s", path);
            memset(&j[k].text, 0, sizeof j[k].text);
            (*nj)++;
        }
        if (k < *nj)
            tw_buf_puts(&j[k].text, v->valuestring);
        return;
    }
    int i = 0;
    for (const cJSON *c = v->child; c; c = c->next, i++) {
        size_t n = c->string ? (size_t)snprintf(path + pl, 160 - pl, "/%s", c->string)
                             : (size_t)snprintf(path + pl, 160 - pl, "/%d", i);
        if (pl + n < 159)
            join_leaves(c, path, pl + n, j, nj, cap);
        path[pl] = '\0';
    }
}

/* A fixture's streams, each exchange's events' pieces joined by path: no
 * window of a secret. */
static size_t streams_joined;
static void check_joined_pieces(const char *file, const char *b, size_t n)
{
    cJSON *f = cJSON_ParseWithLength(b, n);
    const cJSON *xs = cJSON_GetObjectItem(f, "exchanges");
    size_t x = 0;
    for (const cJSON *e = xs ? xs->child : NULL; e; e = e->next, x++) {
        const cJSON *evs = cJSON_GetObjectItem(cJSON_GetObjectItem(e, "response"), "events");
        if (!evs)
            continue;
        joined j[64];
        size_t nj = 0;
        for (const cJSON *ev = evs->child; ev; ev = ev->next) {
            const cJSON *d = cJSON_GetObjectItem(ev, "data");
            cJSON *dv = cJSON_IsString(d) ? cJSON_Parse(d->valuestring) : NULL;
            char path[160] = "";
            if (dv)
                join_leaves(dv, path, 0, j, &nj, 64);
            cJSON_Delete(dv);
        }
        streams_joined++;
        for (size_t k = 0; k < nj; k++) {
            size_t at = 0;
            int s = window_at(j[k].text.data ? j[k].text.data : "", j[k].text.len, &at);
            cr_expect(s < 0, "%s: exchange %zu, %s joined holds 8 bytes of the %s secret: %.60s",
                      file, x, j[k].path, s >= 0 ? kind_name[s] : "", j[k].text.data + at);
            tw_buf_free(&j[k].text);
        }
    }
    cJSON_Delete(f);
}

/* Every file under dir (recursively): no form of any secret. */
static size_t files_checked;
static void check_tree(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat sb;
        cr_assert_eq(stat(p, &sb), 0);
        if (S_ISDIR(sb.st_mode)) {
            check_tree(p);
            continue;
        }
        size_t n = 0;
        char *b = tw_test_slurp(p, &n);
        files_checked++;
        for (int k = 0; k < NKINDS; k++) {
            char sl[100], pc[100], en[200], ex[200], js[200], pre[9], pu[100];
            slash_escaped(S[k], sl, sizeof sl);
            pct(S[k], pc, sizeof pc);
            entities(S[k], en, sizeof en, false);
            entities(S[k], ex, sizeof ex, true);
            cJSON *jv = cJSON_CreateString(S[k]);
            char *jt = cJSON_PrintUnformatted(jv);
            snprintf(js, sizeof js, "%.*s", (int)strlen(jt) - 2, jt + 1);
            cJSON_free(jt);
            cJSON_Delete(jv);
            snprintf(pre, sizeof pre, "%.8s", S[k]);
            u_escaped(pre, pu, sizeof pu);
            cr_expect_eq(count(b, n, en), 0, "%s holds the %s secret, entity-escaped", p,
                         kind_name[k]);
            cr_expect_eq(count(b, n, ex), 0, "%s holds the %s secret, as numeric references", p,
                         kind_name[k]);
            cr_expect_eq(count(b, n, js), 0, "%s holds the %s secret, JSON-escaped", p,
                         kind_name[k]);
            cr_expect_eq(count(b, n, pre), 0, "%s holds 8 bytes of the %s secret", p, kind_name[k]);
            cr_expect_eq(count(b, n, pu), 0, "%s holds 8 bytes of the %s secret, \\u-escaped", p,
                         kind_name[k]);
            cr_expect_eq(count(b, n, S[k]), 0, "%s holds the %s secret", p, kind_name[k]);
            cr_expect_eq(count(b, n, sl), 0, "%s holds the %s secret, \\/-escaped", p,
                         kind_name[k]);
            cr_expect_eq(count(b, n, pc), 0, "%s holds the %s secret, percent-encoded", p,
                         kind_name[k]);
        }
        size_t at = 0;
        int w = window_at(b, n, &at);
        cr_expect(w < 0, "%s holds 8 bytes of the %s secret at byte %zu: %.40s", p,
                  w >= 0 ? kind_name[w] : "", at, b + at);
        if (n && b[0] == '{' && tw_memmem(b, n, "\"exchanges\"", 11))
            check_joined_pieces(p, b, n);
        /* the sanitizer build: a child's report lands in its stderr file */
        cr_expect(!tw_memmem(b, n, "Sanitizer", 9) && !tw_memmem(b, n, "runtime error:", 14),
                  "%s: %.*s", p, (int)(n < 2000 ? n : 2000), b);
        free(b);
    }
    closedir(d);
}

static bool file_has(const char *path, const char *needle)
{
    size_t n = 0;
    char *b = tw_test_slurp(path, &n);
    bool r = tw_memmem(b, n, needle, strlen(needle)) != NULL;
    free(b);
    return r;
}

Test(secrets, no_output_of_any_command_holds_a_secret)
{
    const char *bin = getenv("TOOLWIRE_BIN");
    cr_assert(bin, "TOOLWIRE_BIN is set by ctest");
    make_secrets();
    char *dir = tw_test_tmpdir("tw_secrets");
    cr_assert_eq(
        tw_test_sh("mkdir -p '%s/in/rec' '%s/in/run' '%s/out' '%s/streams'", dir, dir, dir, dir),
        0);
    char p[600];
    snprintf(p, sizeof p, "%s/in/planted.har", dir);
    write_har(p);
    snprintf(p, sizeof p, "%s/in/planted.yaml", dir);
    write_vcr(p);
    snprintf(p, sizeof p, "%s/in/rec/echo.json", dir);
    write_fixture(p, true);
    snprintf(p, sizeof p, "%s/in/run/echo.json", dir);
    write_fixture(p, false);

    /* the echo server */
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, echo, NULL, MHD_OPTION_SOCK_ADDR, &sa,
        MHD_OPTION_NOTIFY_COMPLETED, echo_done, NULL, MHD_OPTION_END);
    cr_assert_not_null(d);
    unsigned port = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port;

    /* import, HAR and vcrpy */
    for (int i = 0; i < 2; i++) {
        const char *k = i ? "vcr" : "har";
        cr_expect_eq(tw_test_sh("cd '%s' && '%s' import --from %s --redact-header X-Internal-Ref "
                                "--redact-field internal_ref --out out/import-%s in/planted.%s "
                                "> streams/import-%s.out 2> streams/import-%s.err",
                                dir, bin, k, k, i ? "yaml" : "har", k, k),
                     0, "import --from %s failed", k);
        snprintf(p, sizeof p, "%s/out/import-%s/planted.json", dir, k);
        cr_expect(file_has(p, "[REDACTED]"));
        cr_expect(file_has(p, "\\\"city\\\":\\\"Paris\\\""),
                  "%s: the arguments lost more than the key", p);
        cr_expect(file_has(p, "you sent [REDACTED] key [REDACTED] pk [REDACTED] pw [REDACTED] "
                              "u=[REDACTED] pct=[REDACTED] ref [REDACTED] hdr [REDACTED]"),
                  "%s", p);
    }
    /* record against the echo server, with a key */
    cr_expect_eq(
        tw_test_sh("cd '%s' && TW_SECRETS_KEY='%s' '%s' record --backend http://127.0.0.1:%u "
                   "--key-env TW_SECRETS_KEY --redact-header X-Internal-Ref --redact-field "
                   "internal_ref --out out/record in/rec/echo.json "
                   "> streams/record.out 2> streams/record.err",
                   dir, S[K_KEYENV], bin, port),
        0);
    snprintf(p, sizeof p, "%s/out/record/echo.json", dir);
    cr_expect(file_has(p, "you sent: "), "the echo was recorded");
    cr_expect(file_has(p, "Bearer [REDACTED]"));
    cr_expect(file_has(p, "{\\\\\\\"password\\\\\\\": \\\\\\\"[REDACTED]"),
              "the split password was recorded redacted");
    /* run against the echo server, reached by URL, with --key-env */
    int rc =
        tw_test_sh("cd '%s' && TW_SECRETS_KEY='%s' '%s' run --backend echo=http://127.0.0.1:%u "
                   "--key-env TW_SECRETS_KEY --retries 0 --out out/run in/run "
                   "> streams/run.out 2> streams/run.err",
                   dir, S[K_KEYENV], bin, port);
    cr_expect(rc == 0 || rc == 1, "run exited %d", rc);
    snprintf(p, sizeof p, "%s/out/run/echo.json", dir);
    cr_expect(file_has(p, "Bearer [REDACTED] s=Bearer [REDACTED]"), "the echo reached the report");
    snprintf(p, sizeof p, "%s/streams/run.out", dir);
    cr_expect(file_has(p, "<tool_call>Bearer [REDACTED]"), "the echo reached standard output");
    /* keys the reports would cut in an excerpt, or escape as markup */
    cr_assert_eq(setenv("TW_SECRETS_KEY_M", S[K_MARKUP], 1), 0);
    cr_assert_eq(setenv("TW_SECRETS_KEY_C", S[K_CUT], 1), 0);
    rc = tw_test_sh(
        "cd '%s' && '%s' run --backend echo=http://127.0.0.1:%u --key-env TW_SECRETS_KEY_M "
        "--retries 0 --out out/run-markup in/run > streams/run-markup.out 2> "
        "streams/run-markup.err",
        dir, bin, port);
    cr_expect(rc == 0 || rc == 1, "run exited %d", rc);
    snprintf(p, sizeof p, "%s/out/run-markup/echo.junit.xml", dir);
    cr_expect(file_has(p, "Bearer [REDACTED]"), "the echo reached the JUnit report");
    rc = tw_test_sh(
        "cd '%s' && '%s' run --backend echo=http://127.0.0.1:%u --key-env TW_SECRETS_KEY_C "
        "--retries 0 --out '%s/out/run-cut' fixtures/openai/nonstream_text_only.json "
        "> '%s/streams/run-cut.out' 2> '%s/streams/run-cut.err'",
        getenv("TOOLWIRE_SOURCE_DIR"), bin, port, dir, dir, dir);
    cr_expect(rc == 0 || rc == 1, "run exited %d", rc);
    snprintf(p, sizeof p, "%s/streams/run-cut.out", dir);
    cr_expect(file_has(p, "PPPP[REDACTED]"), "the padded echo reached standard output");
    /* run against a backend URL that carries credentials (userinfo, ?key=) */
    rc = tw_test_sh(
        "cd '%s' && '%s' run --backend 'echo2=http://tw:%s@127.0.0.1:%u/base?key=%s&api-version=1' "
        "--retries 0 --out out/run-url in/run > streams/run-url.out 2> streams/run-url.err",
        dir, bin, S[K_URLPASS], port, S[K_URLKEY]);
    cr_expect(rc == 0 || rc == 1, "run with a credential URL exited %d", rc);
    snprintf(p, sizeof p, "%s/out/run-url/echo2.json", dir);
    cr_expect(file_has(p, "[REDACTED]"), "the URL's credentials reached the echo, scrubbed");
    /* run with a key the backend echoes in 4-byte pieces of a stream */
    cr_assert_eq(setenv("TW_SECRETS_KEY_P", S[K_PIECES], 1), 0);
    rc =
        tw_test_sh("cd '%s' && '%s' run --backend echo=http://127.0.0.1:%u --key-env "
                   "TW_SECRETS_KEY_P --retries 0 "
                   "--out out/run-pieces in/run > streams/run-pieces.out 2> streams/run-pieces.err",
                   dir, bin, port);
    cr_expect(rc == 0 || rc == 1, "run exited %d", rc);
    /* compare and gate over those reports */
    rc = tw_test_sh(
        "cd '%s' && '%s' compare --html out/compare.html out/run/echo.json out/run-url/echo2.json "
        "out/run-pieces/echo.json out/run-markup/echo.json > streams/compare.out 2> "
        "streams/compare.err",
        dir, bin);
    cr_expect_eq(rc, 0, "compare exited %d", rc);
    rc = tw_test_sh("cd '%s' && '%s' gate --baseline out/run/echo.json --summary streams/gate.md "
                    "out/run-pieces/echo.json "
                    "> streams/gate.out 2> streams/gate.err",
                    dir, bin);
    cr_expect(rc == 0 || rc == 1, "gate exited %d", rc);
    /* the reference proxy, its upstream key echoed and repeated in an error */
    proxy_and_call(dir, port);
    /* a client driver that logs its own key */
    snprintf(p, sizeof p, "%s/in/driver.py", dir);
    write_driver(p);
    cr_assert_eq(setenv("TW_DRIVER_KEY", S[K_DRIVERLOG], 1), 0);
    rc = tw_test_sh(
        "cd '%s' && '%s' clients --client 'keylog=python3 %s/in/driver.py' --out '%s/out/clients' "
        "fixtures/clients/openai_parallel_calls.json > '%s/streams/clients.out' 2> "
        "'%s/streams/clients.err'",
        getenv("TOOLWIRE_SOURCE_DIR"), bin, dir, dir, dir, dir);
    cr_expect(rc == 0 || rc == 1, "clients exited %d", rc);
    snprintf(p, sizeof p, "%s/out/clients/keylog.json", dir);
    cr_expect(file_has(p, "driver log (end)") && file_has(p, "................"),
              "the driver's log tail reached its report");
    /* serve, while a client sends credentials */
    serve_and_call(dir);
    snprintf(p, sizeof p, "%s/streams/serve.err", dir);
    cr_expect(file_has(p, "request(s) served"));
    /* main */
    cr_expect_eq(tw_test_sh("cd '%s' && TW_SECRETS_KEY='%s' '%s' main --quiet --out '%s/out/main' "
                            "> '%s/streams/main.out' 2> '%s/streams/main.err'",
                            getenv("TOOLWIRE_SOURCE_DIR"), S[K_KEYENV], bin, dir, dir, dir),
                 0);
    MHD_stop_daemon(d);

    files_checked = 0;
    streams_joined = 0;
    make_windows();
    snprintf(p, sizeof p, "%s/out", dir);
    check_tree(p);
    snprintf(p, sizeof p, "%s/streams", dir);
    check_tree(p);
    cr_expect_geq(files_checked, 20, "%zu files checked", files_checked);
    /* import's two fixtures hold 5 streams each, record's one */
    cr_expect_geq(streams_joined, 11, "%zu streams joined", streams_joined);
    if (!getenv("TW_KEEP"))
        tw_test_rm_tree(dir);
    free(dir);
}
