/* Secrets, continued: the one table of credential names (bare and
 * camelCase, in a HAR's request body, in tool-call arguments and in
 * `serve --log-bodies`), excerpts cut after a whole scrub (the log tail of
 * a `toolwire clients` driver, tw_secret_tail and tw_secret_clip at every
 * cut over a key), several levels of percent-encoding, and a HAR's
 * cookies[] values. */
#include <criterion/criterion.h>
#include <curl/curl.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clients.h"
#include "files.h"
#include "import.h"
#include "redact.h"
#include "twtest.h"

/* ---------------------------------------------------------------- helpers */

/* ---------------------------------------------------------------- the names */

/* Each credential name bare and as camelCase, with a value of its own. */
static const char *const names[] = {"secret_key",
                                    "secretKey",
                                    "access_key",
                                    "accessKey",
                                    "private_key",
                                    "privateKey",
                                    "client_secret",
                                    "clientSecret",
                                    "refresh_token",
                                    "refreshToken",
                                    "password",
                                    "Password",
                                    "passwd",
                                    "Passwd",
                                    "pwd",
                                    "Pwd",
                                    "db_pwd",
                                    "dbPwd",
                                    NULL};

static void value_of(size_t i, char *out, size_t n)
{
    snprintf(out, n, "val-%02zu-Q7w9Zr4Lx2", i);
}

Test(secrets_names, one_table_names_bare_and_camel)
{
    for (size_t i = 0; names[i]; i++) {
        cr_expect(tw_redact_field_secret(NULL, names[i]), "field %s", names[i]);
        cr_expect(tw_redact_param_secret(NULL, names[i]), "parameter %s", names[i]);
        cr_expect(tw_redact_name(NULL, names[i], strlen(names[i]), TW_NAME_FIELD | TW_NAME_PARAM));
    }
    static const char *const plain[] = {"completion_tokens",
                                        "max_tokens",
                                        "keywords",
                                        "password_hint",
                                        "passage",
                                        "monkey",
                                        "access",
                                        "secretary_name",
                                        NULL};
    for (size_t i = 0; plain[i]; i++)
        cr_expect(!tw_redact_field_secret(NULL, plain[i]), "%s is not a credential", plain[i]);
    /* headers from the same table: a camel-cased part is still a part */
    cr_expect(tw_redact_header_dropped(NULL, "X-PassWord"));
    cr_expect(tw_redact_header_dropped(NULL, "X-Secret-Key"));
    cr_expect(!tw_redact_header_dropped(NULL, "x-ratelimit-remaining-tokens"));
    cr_expect(!tw_redact_header_dropped(NULL, "Content-Type"));
    /* "key" is a query parameter, not a field */
    cr_expect(tw_redact_param_secret(NULL, "key"));
    cr_expect(!tw_redact_field_secret(NULL, "key"));
}

/* A JSON object of every name with its value, as text. */
static char *names_object(void)
{
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; names[i]; i++) {
        char v[64];
        value_of(i, v, sizeof v);
        cJSON_AddStringToObject(o, names[i], v);
    }
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return s;
}

static cJSON *har_pairs(const char *name, const char *value)
{
    cJSON *a = cJSON_CreateArray();
    if (name) {
        cJSON *h = cJSON_CreateObject();
        cJSON_AddStringToObject(h, "name", name);
        cJSON_AddStringToObject(h, "value", value);
        cJSON_AddItemToArray(a, h);
    }
    return a;
}

/* A HAR of one exchange: a request body and response text given, and a
 * cookie in request.cookies[] and response.cookies[] (no Cookie header). */
static char *har_of(const char *rq_body, const char *rs_text, const char *rq_cookie,
                    const char *rs_cookie)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *log = cJSON_AddObjectToObject(root, "log");
    cJSON_AddStringToObject(log, "version", "1.2");
    cJSON *es = cJSON_AddArrayToObject(log, "entries");
    cJSON *e = cJSON_CreateObject();
    cJSON_AddItemToArray(es, e);
    cJSON *q = cJSON_AddObjectToObject(e, "request");
    cJSON_AddStringToObject(q, "method", "POST");
    cJSON_AddStringToObject(q, "url", "https://api.example.test/v1/chat/completions");
    cJSON *hq = cJSON_AddArrayToObject(q, "headers");
    cJSON *ct = cJSON_CreateObject();
    cJSON_AddStringToObject(ct, "name", "Content-Type");
    cJSON_AddStringToObject(ct, "value", "application/json");
    cJSON_AddItemToArray(hq, ct);
    cJSON_AddItemToObject(q, "cookies", har_pairs(rq_cookie ? "sid" : NULL, rq_cookie));
    cJSON *pd = cJSON_AddObjectToObject(q, "postData");
    cJSON_AddStringToObject(pd, "mimeType", "application/json");
    cJSON_AddStringToObject(pd, "text", rq_body);
    cJSON *r = cJSON_AddObjectToObject(e, "response");
    cJSON_AddNumberToObject(r, "status", 200);
    cJSON *hr = cJSON_AddArrayToObject(r, "headers");
    cJSON_AddItemToArray(hr, cJSON_Duplicate(ct, true));
    cJSON_AddItemToObject(r, "cookies", har_pairs(rs_cookie ? "session" : NULL, rs_cookie));
    cJSON *c = cJSON_AddObjectToObject(r, "content");
    cJSON_AddStringToObject(c, "mimeType", "application/json");
    cJSON_AddStringToObject(c, "text", rs_text);
    char *s = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return s;
}

static char *import_har(const char *har, tw_redactor *red)
{
    tw_import_opts o;
    memset(&o, 0, sizeof o);
    o.kind = TW_IMPORT_HAR;
    tw_buf out = {0};
    size_t nx = 0;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_import_mem_to_buf(har, strlen(har), "names.har", &o, red, &out, &nx, &why),
                 TW_OK, "%s", why.message);
    return tw_buf_take(&out, NULL);
}

Test(secrets_names, har_body_and_tool_call_arguments_redact_each_name)
{
    char *obj = names_object();
    /* the names at the top of the request body, in the arguments of a tool
     * call the request sends back, and in the arguments of the call the
     * response makes */
    cJSON *args = cJSON_CreateString(obj);
    char *args_json = cJSON_PrintUnformatted(args);
    cJSON_Delete(args);
    size_t bn = 2 * strlen(obj) + 2 * strlen(args_json) + 1024;
    char *body = malloc(bn), *resp = malloc(bn);
    snprintf(body, bn,
             "{\"model\":\"m\",\"creds\":%s,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},"
             "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c0\",\"type\":"
             "\"function\","
             "\"function\":{\"name\":\"login\",\"arguments\":%s}}]},"
             "{\"role\":\"tool\",\"tool_call_id\":\"c0\",\"content\":\"ok\"}]}",
             obj, args_json);
    snprintf(resp, bn,
             "{\"id\":\"x\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"m\","
             "\"choices\":[{\"index\":0,"
             "\"message\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\","
             "\"type\":"
             "\"function\",\"function\":{\"name\":\"login\",\"arguments\":%s}}]},\"finish_reason\":"
             "\"tool_calls\"}]}",
             args_json);
    char *har = har_of(body, resp, NULL, NULL);
    tw_redactor red;
    memset(&red, 0, sizeof red);
    char *out = import_har(har, &red);
    for (size_t i = 0; names[i]; i++) {
        char v[64];
        value_of(i, v, sizeof v);
        cr_expect_null(strstr(out, v), "the value of %s survives import:\n%s", names[i], out);
    }
    cr_expect(strstr(out, TW_REDACTED));
    tw_redactor_free(&red);
    free(out), free(har), free(body), free(resp), free(obj);
    cJSON_free(args_json);
}

/* ---------------------------------------------------------------- serve --log-bodies */

static size_t discard(char *p, size_t a, size_t b, void *u)
{
    (void)p, (void)u;
    return a * b;
}

Test(secrets_names, serve_log_bodies_redacts_each_name)
{
    const char *bin = getenv("TOOLWIRE_BIN");
    cr_assert(bin, "TOOLWIRE_BIN is set by ctest");
    char *dir = tw_test_tmpdir("tw_names");
    char fx[600], o[600], e[600];
    snprintf(fx, sizeof fx, "%s/fx.json", dir);
    snprintf(o, sizeof o, "%s/serve.out", dir);
    snprintf(e, sizeof e, "%s/serve.err", dir);
    tw_test_spit(
        fx,
        "{\"fixture_version\":1,\"name\":\"names\",\"description\":\"d\",\"backend\":\"openai\","
        "\"provenance\":{\"source\":\"hand-made\"},\"exchanges\":[{\"request\":{\"method\":"
        "\"POST\","
        "\"path\":\"/v1/chat/"
        "completions\",\"body\":{\"model\":\"m\",\"messages\":[{\"role\":\"user\","
        "\"content\":\"hi\"}]}},\"response\":{\"status\":200,\"body\":{\"id\":\"c\",\"object\":"
        "\"chat.completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"message\":{"
        "\"role\":"
        "\"assistant\",\"content\":\"hello\"},\"finish_reason\":\"stop\"}]}}}]}");
    char url[300];
    char *serve_args[] = {(char *)"--log-bodies", (char *)"--for", (char *)"60", fx, NULL};
    pid_t pid = tw_test_serve_start(o, e, url, sizeof url, serve_args);
    /* the names in the body itself and in a tool call's arguments */
    char *obj = names_object();
    cJSON *args = cJSON_CreateString(obj);
    char *args_json = cJSON_PrintUnformatted(args);
    cJSON_Delete(args);
    size_t bn = strlen(obj) + strlen(args_json) + 512;
    char *body = malloc(bn);
    snprintf(
        body, bn,
        "{\"model\":\"m\",\"creds\":%s,\"messages\":[{\"role\":\"assistant\",\"content\":null,"
        "\"tool_calls\":[{\"id\":\"c0\",\"type\":\"function\",\"function\":{\"name\":\"login\","
        "\"arguments\":%s}}]}]}",
        obj, args_json);
    CURL *c = curl_easy_init();
    char full[600];
    snprintf(full, sizeof full, "%s/v1/chat/completions", url);
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    curl_easy_setopt(c, CURLOPT_URL, full);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
    cr_expect_eq(curl_easy_perform(c), CURLE_OK);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    kill(pid, SIGTERM);
    int st = 0;
    waitpid(pid, &st, 0);
    size_t ln = 0, on = 0;
    char *log = tw_test_slurp(e, &ln), *out = tw_test_slurp(o, &on);
    cr_assert(strstr(log, " body: ") || strstr(out, " body: "), "the body was logged:\n%s\n%s", log,
              out);
    for (size_t i = 0; names[i]; i++) {
        char v[64];
        value_of(i, v, sizeof v);
        cr_expect_null(tw_memmem(log, ln, v, strlen(v)), "the value of %s is logged:\n%s", names[i],
                       log);
        cr_expect_null(tw_memmem(out, on, v, strlen(v)), "the value of %s is printed:\n%s",
                       names[i], out);
    }
    free(log), free(out), free(body), free(obj);
    cJSON_free(args_json);
    tw_test_rm_tree(dir);
    free(dir);
}

/* ---------------------------------------------------------------- excerpts */

/* A 37-byte key. */
#define KEY37 "sk-tail-0123456789abcdefABCDEFGHIJKLM"

Test(secrets_names, tail_helper_never_keeps_part_of_a_key)
{
    cr_assert_eq(strlen(KEY37), 37);
    /* known (in the set) and unknown: at every cut position over the key */
    for (int known = 0; known < 2; known++) {
        tw_secret_reset();
        if (known)
            cr_assert_eq(tw_secret_add(KEY37), TW_OK);
        for (size_t j = 1; j < 37; j++) {
            /* "… key KEY\n" then x's and "\n": the last 100 bytes start j bytes into the key */
            char s[400];
            size_t suffix = 100 - (37 - j);
            int n = snprintf(s, sizeof s, "driver starting, using key " KEY37 "\n");
            for (size_t k = 0; k + 2 < suffix; k++)
                s[n++] = 'x';
            s[n++] = '\n';
            s[n] = '\0';
            char *t = tw_secret_tail(s, (size_t)n, 100);
            cr_assert_not_null(t);
            const char *w = tw_test_window_of(t, strlen(t), KEY37);
            cr_expect_null(w, "known %d, cut %zu into the key: %s", known, j, t);
            cr_expect(strlen(t) <= 103, "%zu bytes", strlen(t));
            free(t);
        }
    }
    /* other secret shapes cut by the start of a tail: a JWT, a bearer token,
     * a hex run after "api_key=", an AIza and a xoxb key */
    static const char *const shapes[][2] = {
        {"Authorization: Bearer ", "tok9f8e7d6c5b4a39281706fedcba"},
        {"jwt ", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLWJ5dGVz"},
        {"api_key=", "0123456789abcdef0123456789abcdef"},
        {"{\"token\": \"", "QmFzZTY0U2VjcmV0VmFsdWVIZXJlMTIz"},
        {"gemini ", "AIzaSyA-1234567890abcdefghijklmnopqrs"},
        {"slack ", "xoxb-1234567890-abcdefghijklmnop"},
    };
    tw_secret_reset();
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        size_t tl = strlen(shapes[k][1]);
        for (size_t j = 1; j < tl; j++) {
            char s[400];
            int n = snprintf(s, sizeof s, "log: %s%s\" end", shapes[k][0], shapes[k][1]);
            size_t max = (size_t)n - (strlen("log: ") + strlen(shapes[k][0]) + j);
            char *t = tw_secret_tail(s, (size_t)n, max);
            cr_assert_not_null(t);
            cr_expect_null(tw_test_window_of(t, strlen(t), shapes[k][1]), "%s cut at %zu: %s",
                           shapes[k][1], j, t);
            free(t);
            /* and cut by the end of a head excerpt */
            char *c = tw_secret_clip(s, strlen("log: ") + strlen(shapes[k][0]) + j);
            cr_assert_not_null(c);
            cr_expect_null(tw_test_window_of(c, strlen(c), shapes[k][1]), "%s clipped at %zu: %s",
                           shapes[k][1], j, c);
            free(c);
        }
    }
}

Test(secrets_names, clip_helper_never_keeps_part_of_a_key)
{
    for (int known = 0; known < 2; known++) {
        tw_secret_reset();
        if (known)
            cr_assert_eq(tw_secret_add(KEY37), TW_OK);
        const char *s = "the client sent the key " KEY37 " and then stopped";
        size_t at = strlen("the client sent the key ");
        for (size_t j = 1; j < 37; j++) {
            char *c = tw_secret_clip(s, at + j);
            cr_assert_not_null(c);
            cr_expect_null(tw_test_window_of(c, strlen(c), KEY37),
                           "known %d, cut %zu into the key: %s", known, j, c);
            free(c);
        }
    }
    /* a cut never falls inside a marker */
    tw_secret_reset();
    cr_assert_eq(tw_secret_add(KEY37), TW_OK);
    const char *s = "aaaa " KEY37 " bbbb";
    for (size_t j = 0; j < 20; j++) {
        char *t = tw_secret_tail(s, strlen(s), 6 + j);
        cr_assert_not_null(t);
        const char *open = strchr(t, '['), *close = strchr(t, ']');
        cr_expect((open && close && close > open) || (!open && !close), "%s", t);
        free(t);
    }
}

/* A message cut into a fixed buffer (a transport error, a 400's reason):
 * scrubbed whole first, so no buffer size leaves a part of the key. */
Test(secrets_names, clip_into_a_buffer_never_keeps_part_of_a_key)
{
    for (int known = 0; known < 2; known++) {
        tw_secret_reset();
        if (known)
            cr_assert_eq(tw_secret_add(KEY37), TW_OK);
        const char *s = "Could not connect to http://u:" KEY37 "@host/ (Connection refused)";
        for (size_t n = 4; n < strlen(s) + 8; n++) {
            char dst[200];
            tw_secret_clip_into(dst, n, s);
            cr_expect_lt(strlen(dst), n);
            /* an unknown key of a known shape is dropped when a cut would split it; whole, it
             * is no business of this helper's */
            bool cut_before_its_end = n - 4 < (size_t)(strstr(s, KEY37) - s) + 37;
            if (known || cut_before_its_end)
                cr_expect_null(tw_test_window_of(dst, strlen(dst), KEY37),
                               "known %d, a buffer of %zu: %s", known, n, dst);
            /* a known key: not 4 bytes of it either */
            for (size_t w = 0; known && w + 4 <= 37; w++)
                cr_expect_null(memmem(dst, strlen(dst), &KEY37[w], 4), "a buffer of %zu: %s", n,
                               dst);
        }
    }
}

/* Every file under dir: no 8-byte window of the key. */
static size_t check_reports(const char *dir, size_t j)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    size_t files = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        struct stat sb;
        if (stat(p, &sb) != 0 || !S_ISREG(sb.st_mode))
            continue;
        size_t n = 0;
        char *b = tw_test_slurp(p, &n);
        const char *w = tw_test_window_of(b, n, KEY37);
        cr_expect_null(w, "cut %zu into the key: %s holds \"%.40s\"", j, p, w ? w : "");
        free(b);
        files++;
    }
    closedir(d);
    return files;
}

Test(secrets_names, clients_log_tail_keeps_no_part_of_the_key, .timeout = 240)
{
    /* tests/clients/key_logger.sh, run by `toolwire clients --client`: it
     * sends its key to the mock, then logs it followed by a newline and pad
     * dots, so that the last TW_CLIENTS_LOG_TAIL bytes start j bytes into it */
    const char *bin = getenv("TOOLWIRE_BIN");
    cr_assert(bin, "TOOLWIRE_BIN is set by ctest");
    char *dir = tw_test_tmpdir("tw_names");
    char out[600];
    snprintf(out, sizeof out, "%s/out", dir);
    size_t kl = strlen(KEY37);
    bool saw_tail = false;
    for (size_t j = 1; j < kl; j++) {
        size_t pad = TW_CLIENTS_LOG_TAIL - (kl - j) - 1;
        int rc = tw_test_sh(
            "rm -rf '%s' && TW_KEY_LOGGER_KEY='%s' TW_KEY_LOGGER_PAD=%zu '%s' clients --quiet "
            "--client key-logger='sh %s' --out '%s' '%s' >'%s/stdout' 2>'%s/stderr'",
            out, KEY37, pad, bin, tw_test_src("tests/clients/key_logger.sh"), out,
            tw_test_src("fixtures/clients/openai_single_call.json"), dir, dir);
        cr_assert(rc == 0 || rc == 1, "run %zu: exit %d", j, rc);
        cr_assert_gt(check_reports(out, j), 3,
                     "the JSON, HTML, Markdown and JUnit reports were written");
        check_reports(dir, j); /* the command's standard output and error */
        char p[700];
        size_t n = 0;
        snprintf(p, sizeof p, "%s/key-logger.json", out);
        char *b = tw_test_slurp(p, &n);
        saw_tail = saw_tail || tw_memmem(b, n, "driver log (end)", 16) != NULL;
        free(b);
    }
    cr_expect(saw_tail, "the reports hold the log's end");
    tw_test_rm_tree(dir);
    free(dir);
}

/* ---------------------------------------------------------------- encodings and cookies */

/* s percent-encoded once more: every '%' and every byte outside [A-Za-z0-9]. */
static void pct_more(const char *s, char *out, size_t n)
{
    size_t o = 0;
    for (; *s && o + 4 < n; s++) {
        unsigned char c = (unsigned char)*s;
        bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (keep)
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, n - o, "%%%02X", c);
    }
    out[o] = '\0';
}

Test(secrets_names, scrubber_undoes_several_levels_of_percent_encoding)
{
    const char *secret = "ab/cd+ef9876~Zq";
    char *vals[] = {(char *)secret};
    char l1[200], l2[400], l3[800], l4[1600];
    pct_more(secret, l1, sizeof l1);
    pct_more(l1, l2, sizeof l2);
    pct_more(l2, l3, sizeof l3);
    cr_assert(strstr(l3, "%2525"), "%s", l3);
    /* three levels of percent-encoding, and three levels under a JSON \u escape */
    const char *pc = strchr(l3, '%');
    snprintf(l4, sizeof l4, "%.*s\\u0025%s", (int)(pc - l3), l3, pc + 1);
    const char *forms[] = {l1, l2, l3, l4};
    for (size_t f = 0; f < 4; f++) {
        char in[2000];
        snprintf(in, sizeof in, "x=%s&y=1", forms[f]);
        tw_buf out = {0};
        size_t k = 0;
        cr_assert_eq(tw_scrub_values(vals, 1, in, strlen(in), &out, &k, NULL), TW_OK);
        cr_expect_str_eq(out.data, "x=" TW_REDACTED "&y=1", "%zu levels: %s", f + 1, out.data);
        cr_expect_eq(k, 1);
        tw_buf_free(&out);
    }
}

/* A secret whose last byte is percent-encoded at the very end of the text:
 * the escape in the last three bytes is decoded as any other. */
Test(secrets_names, percent_escape_at_the_end_of_the_text)
{
    char *vals[] = {(char *)"zqEndsWithSlash/"};
    static const char *const in[] = {"x=zqEndsWithSlash%2F", "x=zqEndsWithSlash%2f",
                                     "x=zqEndsWithSlash%2F&y=1"};
    static const char *const want[] = {"x=" TW_REDACTED, "x=" TW_REDACTED, "x=" TW_REDACTED "&y=1"};
    for (size_t i = 0; i < sizeof in / sizeof *in; i++) {
        tw_buf out = {0};
        cr_assert_eq(tw_scrub_values(vals, 1, in[i], strlen(in[i]), &out, NULL, NULL), TW_OK);
        cr_expect_str_eq(out.data, want[i], "%s", in[i]);
        tw_buf_free(&out);
    }
}

/* The key shapes found with no name or header to tell them: each provider's
 * prefix followed by 16 or more key characters; a shorter run is no key. */
Test(secrets_names, key_shapes_of_each_provider)
{
    static const char *const prefixes[] = {"sk-", "rk-", "sess-", "gsk_", "xai-", "sk-proj-"};
    tw_redactor r = {0};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
        char in[128], want[128];
        snprintf(in, sizeof in, "key %sAbCdEfGh12345678IjKl, then", prefixes[i]);
        snprintf(want, sizeof want, "key %s, then", TW_REDACTED);
        char *got = tw_redact_str(&r, in);
        cr_assert_not_null(got);
        cr_expect_str_eq(got, want, "%s", prefixes[i]);
        free(got);
        if (strcmp(prefixes[i], "sk-proj-") == 0)
            continue; /* "proj-" is part of the run after "sk-" */
        snprintf(in, sizeof in, "key %sAbCdEfGh1234567, then", prefixes[i]);
        got = tw_redact_str(&r, in);
        cr_assert_not_null(got);
        cr_expect_str_eq(got, in, "%s: 15 characters are no key", prefixes[i]);
        free(got);
    }
    tw_redactor_free(&r);
}

Test(secrets_names, deep_encodings_cost_linear_time)
{
    /* 8 MiB of "%252525" nests, each level decodable: the views stop at the
     * cap, each decoded in one pass */
    size_t n = (size_t)8 << 20;
    char *big = malloc(n + 1);
    cr_assert_not_null(big);
    static const char unit[] = "%25252541";
    for (size_t i = 0; i < n; i++)
        big[i] = unit[i % (sizeof unit - 1)];
    big[n] = '\0';
    char *vals[] = {(char *)"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    tw_buf out = {0};
    cr_assert_eq(tw_scrub_values(vals, 1, big, n, &out, NULL, NULL), TW_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    cr_expect_lt(s, 20.0, "%.2f s", s);
    /* a long run of decoded "A" is the value many times over */
    cr_expect(out.len < n);
    tw_buf_free(&out);
    free(big);
}

Test(secrets_names, har_cookies_join_the_secret_set)
{
    const char *ck_rq = "ck-request-Vx81Tq3Lm0", *ck_rs = "ck-response-Ha27Bw5Np9";
    char body[512], resp[512];
    /* both values echoed in the bodies, no Cookie or Set-Cookie header */
    snprintf(
        body, sizeof body,
        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"my session is %s\"}]}",
        ck_rs);
    snprintf(resp, sizeof resp,
             "{\"id\":\"x\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"m\","
             "\"choices\":[{\"index\":0,"
             "\"message\":{\"role\":\"assistant\",\"content\":\"you sent "
             "%s\"},\"finish_reason\":\"stop\"}]}",
             ck_rq);
    char *har = har_of(body, resp, ck_rq, ck_rs);
    tw_secret_reset();
    tw_redactor red;
    memset(&red, 0, sizeof red);
    red.publish = true;
    char *out = import_har(har, &red);
    cr_expect_null(strstr(out, ck_rq), "%s", out);
    cr_expect_null(strstr(out, ck_rs), "%s", out);
    cr_expect(strstr(out, "you sent " TW_REDACTED), "%s", out);
    /* and the process-wide set knows them */
    for (const char *const *v = (const char *const[]){ck_rq, ck_rs, NULL}; *v; v++) {
        tw_buf b = {0};
        cr_assert_eq(tw_secret_scrub(*v, strlen(*v), &b, NULL), TW_OK);
        cr_expect_null(tw_memmem(b.data ? b.data : "", b.len, *v, strlen(*v)), "%s not in the set",
                       *v);
        tw_buf_free(&b);
    }
    tw_redactor_free(&red);
    free(out);
    free(har);
    /* a cookies[] that is not an array of {name, value} is refused with its place */
    const char *bad =
        "{\"log\":{\"version\":\"1.2\",\"entries\":[{\"request\":{\"method\":\"POST\",\"url\":"
        "\"https://a.test/v1/chat/completions\",\"cookies\":[{\"name\":\"a\"}]},\"response\":"
        "{\"status\":200}}]}}";
    tw_import_opts o;
    memset(&o, 0, sizeof o);
    o.kind = TW_IMPORT_HAR;
    tw_buf b = {0};
    size_t nx = 0;
    tw_error why = {.offset = -1};
    tw_redactor r2;
    memset(&r2, 0, sizeof r2);
    cr_expect_neq(tw_import_mem_to_buf(bad, strlen(bad), "bad.har", &o, &r2, &b, &nx, &why), TW_OK);
    cr_expect(strstr(why.message, "request.cookies[0]"), "%s", why.message);
    tw_buf_free(&b);
    tw_redactor_free(&r2);
}
