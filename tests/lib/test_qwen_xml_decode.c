/*
 * The qwen3-coder decoder against output it did not write: every assistant
 * turn with tool calls in the renderings of the real Qwen3-Coder and Qwen3.5
 * templates (tests/data/qwen3-coder, tests/data/qwen3.5) decodes back to the
 * calls of the request (names, and arguments as JSON values typed with the
 * request's tools), batch and one byte at a time. A value whose parameter the
 * request's schema does not type comes back as a string (xml_untyped); a
 * second decode with every parameter typed from the request's own value
 * (tools made by the test) must give the request's arguments exactly.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "decode_fixtures.h"
#include "toolwire/decode.h"
#include "toolwire/registry.h"
#include "toolwire/request.h"
#include "toolwire/text.h"
#include "twtest.h"

static const char TURN[] = "<|im_start|>assistant\n";
static const char END[] = "<|im_end|>";

/* Does the schema of tool `name` give parameter `key` a type? */
static bool typed(const tw_tool *tools, size_t ntools, const char *name, const char *key)
{
    const tw_tool *t = tw_tools_find(tools, ntools, name);
    const cJSON *props = t && t->parameters ? tw_json_get(t->parameters, "properties") : NULL;
    const cJSON *prop = props ? tw_json_get(props, key) : NULL;
    return prop && (tw_json_get(prop, "type") || tw_json_get(prop, "anyOf"));
}

/* Same keys in the same order; equal values where the schema types them, a
 * string where it does not. */
static bool args_match(const tw_tool *tools, size_t ntools, const tw_call *got, const tw_call *want)
{
    const cJSON *g = got->arguments->child, *w = want->arguments->child;
    for (; g && w; g = g->next, w = w->next) {
        if (strcmp(g->string, w->string) != 0)
            return false;
        if (typed(tools, ntools, want->name, w->string)
                ? !tw_json_equal(g, w)
                : !cJSON_IsString(g) && !tw_json_equal(g, w))
            return false;
    }
    return !g && !w;
}

/* A JSON Schema type for a value as the request holds it. */
static const char *type_of(const cJSON *v)
{
    if (cJSON_IsBool(v))
        return "boolean";
    if (cJSON_IsNull(v))
        return "null";
    if (cJSON_IsNumber(v))
        return "number";
    if (cJSON_IsObject(v))
        return "object";
    if (cJSON_IsArray(v))
        return "array";
    return "string";
}

/* One tool per call of msg, every parameter typed from the request's value. */
static tw_tool *typed_tools(const tw_message *msg)
{
    tw_tool *t = calloc(msg->ncalls, sizeof *t);
    cr_assert_not_null(t);
    for (size_t c = 0; c < msg->ncalls; c++) {
        t[c].name = tw_strdup(msg->calls[c].name);
        t[c].parameters = cJSON_CreateObject();
        cJSON *props = cJSON_AddObjectToObject(t[c].parameters, "properties");
        for (const cJSON *a = msg->calls[c].arguments->child; a; a = a->next) {
            cJSON *p = cJSON_AddObjectToObject(props, a->string);
            cJSON_AddStringToObject(p, "type", type_of(a));
        }
    }
    return t;
}

/* Decode one turn and compare its calls with msg's; returns the failures. */
static int check_turn(const char *path, size_t k, const char *p, size_t n, const tw_tool *tools,
                      size_t ntools, const tw_message *msg, size_t chunk)
{
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.tools = tools;
    o.ntools = ntools;
    tw_result res;
    const tw_format_ops *f = tw_format_find("qwen3-coder");
    cr_assert_not_null(f);
    if (chunk == 0) {
        cr_assert_eq(tw_qwen3_coder_output_decode(p, n, &o, &res), TW_OK);
    } else {
        tw_text_dec *d = tw_text_dec_new(TW_TEXT_QWEN_XML, &o, NULL, NULL);
        cr_assert_not_null(d);
        for (size_t i = 0; i < n; i += chunk)
            cr_assert_eq(tw_text_dec_feed(d, p + i, n - i < chunk ? n - i : chunk), TW_OK);
        cr_assert_eq(tw_text_dec_finish(d, &res), TW_OK);
        tw_text_dec_free(d);
    }
    int bad = 0;
    if (res.msg.ncalls != msg->ncalls || res.errors.len) {
        cr_log_error("%s: turn %zu: %zu calls (%zu errors, first %s), want %zu", path, k,
                     res.msg.ncalls, res.errors.len,
                     res.errors.len ? tw_code_name(res.errors.items[0].code) : "-", msg->ncalls);
        bad++;
    }
    for (size_t c = 0; !bad && c < msg->ncalls; c++) {
        const tw_call *got = &res.msg.calls[c], *want = &msg->calls[c];
        if (strcmp(got->name, want->name) != 0 || !args_match(tools, ntools, got, want)) {
            char *g = cJSON_PrintUnformatted(got->arguments);
            char *w = cJSON_PrintUnformatted(want->arguments);
            cr_log_error("%s: turn %zu call %zu: got %s %s, want %s %s", path, k, c, got->name, g,
                         want->name, w);
            free(g);
            free(w);
            bad++;
        }
    }
    tw_result_free(&res);
    return bad;
}

/* Every rendered assistant turn of one fixture; *ncalls counts the calls checked. */
static int check_file(const char *path, size_t *nturns, size_t *ncalls)
{
    size_t len;
    cJSON *fx;
    char *copy = tw_test_load_exact(path, &len, &fx);
    cr_assert_eq(tw_json_keep_spellings(copy, len, fx, 256), TW_OK, "%s: spellings", path);
    free(copy);
    const char *text = tw_json_get_str(fx, "expected");
    int bad = 0;
    if (!text) { /* a rendering the template refuses: nothing to read back */
        cJSON_Delete(fx);
        return 0;
    }
    tw_request r;
    tw_error e = {0};
    cr_assert_eq(tw_request_read(tw_json_get(fx, "request"), NULL, &r, &e), TW_OK, "%s: %s", path,
                 e.message);
    size_t m = 0, k = 0;
    const char *at = text;
    while ((at = strstr(at, TURN)) != NULL) {
        at += sizeof TURN - 1;
        const char *end = strstr(at, END);
        if (!end)
            break; /* the generation prompt */
        while (m < r.nmessages && r.messages[m].role != TW_ROLE_ASSISTANT)
            m++;
        cr_assert_lt(m, r.nmessages, "%s: more rendered assistant turns than messages", path);
        const tw_message *msg = &r.messages[m++];
        if (msg->ncalls && strstr(path, "number_beyond_double")) {
            /* the templates print Python's inf, which is no JSON number: the
             * number-typed value stays a string and the schema refuses it */
            tw_decode_opts o;
            memset(&o, 0, sizeof o);
            o.tools = r.tools;
            o.ntools = r.ntools;
            tw_result res;
            cr_assert_eq(tw_qwen3_coder_output_decode(at, (size_t)(end - at), &o, &res), TW_OK);
            cr_expect_eq(res.msg.ncalls, 0, "%s: a call with inf was accepted", path);
            cr_expect(res.errors.len == 1 && res.errors.items[0].code == TW_D_ARGS_SCHEMA,
                      "%s: inf not refused by the schema", path);
            tw_result_free(&res);
        } else if (msg->ncalls) {
            size_t n = (size_t)(end - at);
            tw_tool *own = typed_tools(msg);
            bad += check_turn(path, k, at, n, r.tools, r.ntools, msg, 0);
            bad += check_turn(path, k, at, n, r.tools, r.ntools, msg, 1);
            bad += check_turn(path, k, at, n, own, msg->ncalls, msg, 0);
            tw_tools_free(own, msg->ncalls);
            *ncalls += msg->ncalls;
            (*nturns)++;
        }
        k++;
        at = end;
    }
    tw_request_free(&r);
    cJSON_Delete(fx);
    return bad;
}

Test(qwen_xml_decode, template_renderings_decode_to_the_request_calls)
{
    static const char *const dirs[] = {"tests/data/qwen3-coder", "tests/data/qwen3.5"};
    for (size_t d = 0; d < 2; d++) {
        char **files = NULL;
        long n = tw_list_files(tw_test_src(dirs[d]), ".json", &files);
        cr_assert_geq(n, 1, "no renderings in %s", dirs[d]);
        size_t turns = 0, calls = 0;
        int bad = 0;
        for (long i = 0; i < n; i++)
            bad += check_file(files[i], &turns, &calls);
        cr_log_info("%s: %zu turns, %zu calls read back", dirs[d], turns, calls);
        cr_expect_eq(bad, 0, "%s: %d turns differ", dirs[d], bad);
        cr_expect_geq(calls, 10, "%s: only %zu calls were checked", dirs[d], calls);
        tw_free_list(files, n);
    }
}

/* Decode text batch and one byte at a time; both must agree on every
 * warning's code and offset. */
static void decode_both(const char *text, size_t n, const tw_decode_opts *o, tw_result *res)
{
    cr_assert_eq(tw_qwen3_coder_output_decode(text, n, o, res), TW_OK);
    tw_text_dec *d = tw_text_dec_new(TW_TEXT_QWEN_XML, o, NULL, NULL);
    cr_assert_not_null(d);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(tw_text_dec_feed(d, text + i, 1), TW_OK);
    tw_result r2;
    cr_assert_eq(tw_text_dec_finish(d, &r2), TW_OK);
    tw_text_dec_free(d);
    cr_assert_eq(r2.warnings.len, res->warnings.len);
    for (size_t i = 0; i < r2.warnings.len; i++) {
        cr_expect_eq(r2.warnings.items[i].code, res->warnings.items[i].code);
        cr_expect_eq(r2.warnings.items[i].offset, res->warnings.items[i].offset);
    }
    tw_result_free(&r2);
}

static const tw_diag *find_warning(const tw_result *r, tw_status code)
{
    for (size_t i = 0; i < r->warnings.len; i++)
        if (r->warnings.items[i].code == code)
            return &r->warnings.items[i];
    return NULL;
}

/* An invalid UTF-8 byte in a string value (typed or not) or in a key is
 * written as U+FFFD: the accepted call says so with json_not_rfc8259 at the
 * byte's own offset, as hermes does for the same bytes in JSON. */
Test(qwen_xml_decode, invalid_utf8_in_a_value_is_reported_at_its_byte)
{
    static const char text[] = "x<tool_call>\n<function=f>\n<parameter=a>\nok\n</parameter>\n"
                               "<parameter=city>\nPar\xff"
                               "is\xc3\n</parameter>\n</function>\n"
                               "</tool_call>";
    size_t n = sizeof text - 1;
    const char *bad = memchr(text, 0xff, n);
    cr_assert_not_null(bad);
    tw_tool tool = {0};
    tool.name = "f";
    tw_error e = {0};
    static const char schema[] = "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
                                 "\"string\"},\"city\":{\"type\":\"string\"}}}";
    cr_assert_eq(tw_json_parse(schema, sizeof schema - 1, 8, &tool.parameters, &e), TW_OK, "%s",
                 e.message);
    for (int typed_run = 0; typed_run < 2; typed_run++) {
        tw_decode_opts o;
        memset(&o, 0, sizeof o);
        if (typed_run) {
            o.tools = &tool;
            o.ntools = 1;
        }
        tw_result r;
        decode_both(text, n, &o, &r);
        cr_assert_eq(r.msg.ncalls, 1);
        const cJSON *city = tw_json_get(r.msg.calls[0].arguments, "city");
        cr_assert(cJSON_IsString(city));
        cr_expect_str_eq(city->valuestring, "Par\xef\xbf\xbdis\xef\xbf\xbd");
        const tw_diag *w = find_warning(&r, TW_D_JSON_NOT_RFC8259);
        cr_assert_not_null(w, "typed %d: the replaced bytes carry no warning", typed_run);
        cr_expect_eq(w->offset, (int64_t)(bad - text));
        cr_expect(w->message && strstr(w->message, "2 invalid UTF-8 byte(s)") &&
                      strstr(w->message, "'city'"),
                  "%s", w->message ? w->message : "");
        tw_result_free(&r);
    }
    /* in a key */
    static const char key[] = "<tool_call>\n<function=f>\n<parameter=k\xfe>\nv\n</parameter>\n"
                              "</function>\n</tool_call>";
    tw_result r;
    decode_both(key, sizeof key - 1, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    const tw_diag *w = find_warning(&r, TW_D_JSON_NOT_RFC8259);
    cr_assert_not_null(w);
    cr_expect_eq(w->offset, (int64_t)((const char *)memchr(key, 0xfe, sizeof key) - key));
    tw_result_free(&r);
    /* valid UTF-8 (two to four bytes) carries none */
    static const char ok[] = "<tool_call>\n<function=f>\n<parameter=a>\n\xc3\xa9\xe2\x82\xac"
                             "\xf0\x9f\x98\x80\n</parameter>\n</function>\n</tool_call>";
    decode_both(ok, sizeof ok - 1, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    cr_expect_null(find_warning(&r, TW_D_JSON_NOT_RFC8259));
    tw_result_free(&r);
    cJSON_Delete(tool.parameters);
}

/* No control byte, no DEL, and every byte >= 0x80 in a lead byte and its
 * continuation bytes? */
static bool safe_text(const char *m)
{
    const unsigned char *u = (const unsigned char *)m;
    while (*u) {
        if (*u < 0x20 || *u == 0x7f)
            return false;
        size_t k = *u < 0x80                  ? 1
                   : *u >= 0xc2 && *u <= 0xdf ? 2
                   : *u >= 0xe0 && *u <= 0xef ? 3
                   : *u >= 0xf0 && *u <= 0xf4 ? 4
                                              : 0;
        if (!k)
            return false;
        for (size_t i = 1; i < k; i++)
            if ((u[i] & 0xc0) != 0x80)
                return false;
        u += k;
    }
    return true;
}

/* A parameter name the decoder quotes in a diagnostic comes out as safe
 * text: the terminal escape and the invalid byte are written \xNN, in the
 * error of a refused call and in the warning of an accepted one, batch and
 * one byte at a time. */
Test(qwen_xml_decode, quoted_names_come_out_escaped)
{
    static const char unclosed[] = "<tool_call>\n<function=f>\n<parameter=\x1b[31m\xff>\nv\n"
                                   "</function>\n</tool_call>";
    tw_result r;
    decode_both(unclosed, sizeof unclosed - 1, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 0);
    cr_assert_eq(r.errors.len, 1);
    cr_expect_eq(r.errors.items[0].code, TW_D_XML_PARAM_UNCLOSED);
    cr_expect_str_eq(r.errors.items[0].message, "parameter '\\x1B[31m\\xFF' has no </parameter>");
    tw_result_free(&r);
    tw_text_dec *d = tw_text_dec_new(TW_TEXT_QWEN_XML, NULL, NULL, NULL);
    cr_assert_not_null(d);
    for (size_t i = 0; i < sizeof unclosed - 1; i++)
        cr_assert_eq(tw_text_dec_feed(d, unclosed + i, 1), TW_OK);
    cr_assert_eq(tw_text_dec_finish(d, &r), TW_OK);
    tw_text_dec_free(d);
    cr_assert_eq(r.errors.len, 1);
    cr_expect_str_eq(r.errors.items[0].message, "parameter '\\x1B[31m\\xFF' has no </parameter>");
    tw_result_free(&r);

    static const char accepted[] = "<tool_call>\n<function=f>\n<parameter=k\xff\xc3\xa9>\nv\n"
                                   "</parameter>\n</function>\n</tool_call>";
    decode_both(accepted, sizeof accepted - 1, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    const tw_diag *w = find_warning(&r, TW_D_JSON_NOT_RFC8259);
    cr_assert_not_null(w);
    cr_expect(strstr(w->message, "parameter 'k\\xFF\xc3\xa9'") != NULL, "%s", w->message);
    const tw_diag *u = find_warning(&r, TW_D_XML_UNTYPED);
    cr_assert_not_null(u);
    cr_expect(strstr(u->message, "(first 'k\\xFF\xc3\xa9')") != NULL, "%s", u->message);
    for (size_t i = 0; i < r.warnings.len; i++)
        cr_expect(safe_text(r.warnings.items[i].message), "%s", r.warnings.items[i].message);
    tw_result_free(&r);
}

/* A repeated parameter's value is dropped (duplicate_key keeps the first),
 * so its bytes count in no warning of the call: no U+FFFD in the result, no
 * json_not_rfc8259; and the untyped count is of the values kept. */
Test(qwen_xml_decode, a_dropped_repeat_counts_in_no_warning)
{
    static const char text[] = "<tool_call>\n<function=f>\n<parameter=a>\nx\n</parameter>\n"
                               "<parameter=a>\n\xff\n</parameter>\n<parameter=b>\ny\n</parameter>\n"
                               "</function>\n</tool_call>";
    tw_result r;
    decode_both(text, sizeof text - 1, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    cr_expect_str_eq(tw_json_get_str(r.msg.calls[0].arguments, "a"), "x");
    cr_expect_not_null(find_warning(&r, TW_D_DUPLICATE_KEY));
    cr_expect_null(find_warning(&r, TW_D_JSON_NOT_RFC8259), "the dropped value's byte is reported");
    const tw_diag *u = find_warning(&r, TW_D_XML_UNTYPED);
    cr_assert_not_null(u);
    cr_expect(u->message && strstr(u->message, "2 parameter value(s)"), "%s",
              u->message ? u->message : "");
    tw_result_free(&r);
    /* the first of the repeated names is the one that counts */
    static const char first[] = "<tool_call>\n<function=f>\n<parameter=a>\n\xfe\n</parameter>\n"
                                "<parameter=a>\n\xff\xff\n</parameter>\n</function>\n</tool_call>";
    decode_both(first, sizeof first - 1, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    const tw_diag *w = find_warning(&r, TW_D_JSON_NOT_RFC8259);
    cr_assert_not_null(w);
    cr_expect(w->message && strstr(w->message, "1 invalid UTF-8 byte(s)"), "%s",
              w->message ? w->message : "");
    cr_expect_eq(w->offset, (int64_t)((const char *)memchr(first, 0xfe, sizeof first) - first));
    tw_result_free(&r);
}

/* CRLF output: the line break the template writes around a value is
 * "\r\n" and is removed exactly as "\n" is; a "\r" that is not part of that
 * break is kept. */
/* A parameter the schema types integer takes integers only (by value, as
 * JSON Schema counts them: 2.0 and 1e3 are integers): 1.5 stays the text it
 * was, with the warning that it is not of its type. Schema violations are
 * warnings here (schema_warn), so the call stands and its values show; with
 * the schema enforced the call is refused either way. */
Test(qwen_xml_decode, integer_parameter_takes_integers_only)
{
    static const char schema[] = "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":"
                                 "\"integer\"},\"x\":{\"type\":\"number\"}}}";
    tw_tool tool = {0};
    tool.name = "f";
    tw_error e = {0};
    cr_assert_eq(tw_json_parse(schema, sizeof schema - 1, 8, &tool.parameters, &e), TW_OK, "%s",
                 e.message);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.tools = &tool;
    o.ntools = 1;
    o.schema_warn = true;
    static const struct {
        const char *n;
        bool integer;
    } cases[] = {{"2", true},   {"-7", true},   {"1e3", true},
                 {"2.0", true}, {"1.5", false}, {"-0.25", false}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tw_buf in = {0};
        cr_assert_eq(tw_buf_printf(&in,
                                   "<tool_call>\n<function=f>\n<parameter=n>\n%s\n</parameter>\n"
                                   "<parameter=x>\n%s\n</parameter>\n</function>\n</tool_call>",
                                   cases[i].n, cases[i].n),
                     TW_OK);
        tw_result r;
        decode_both(in.data, in.len, &o, &r);
        cr_assert_eq(r.msg.ncalls, 1, "case %s", cases[i].n);
        const cJSON *n = tw_json_get(r.msg.calls[0].arguments, "n");
        if (cases[i].integer) {
            cr_expect(cJSON_IsNumber(n), "case %s: an integer is a number", cases[i].n);
            cr_expect_null(find_warning(&r, TW_D_XML_VALUE_TYPE), "case %s", cases[i].n);
        } else {
            cr_expect(cJSON_IsString(n) && strcmp(n->valuestring, cases[i].n) == 0,
                      "case %s: not kept as its text", cases[i].n);
            cr_expect_not_null(find_warning(&r, TW_D_XML_VALUE_TYPE), "case %s: no warning",
                               cases[i].n);
        }
        /* the number parameter takes every number */
        cr_expect(cJSON_IsNumber(tw_json_get(r.msg.calls[0].arguments, "x")), "case %s",
                  cases[i].n);
        tw_result_free(&r);
        tw_buf_free(&in);
    }
    cJSON_Delete(tool.parameters);
}

/* A value holding U+0000 is a cut string: the call is refused json_nul, and
 * the refusal names the parameter, typed or not. */
Test(qwen_xml_decode, nul_in_a_value_refuses_the_call)
{
    static const char text[] =
        "<tool_call>\n<function=f>\n<parameter=city>\nPa\0ris\n</parameter>\n"
        "</function>\n</tool_call>";
    tw_tool tool = {0};
    tool.name = "f";
    tw_error e = {0};
    static const char schema[] = "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":"
                                 "\"string\"}}}";
    cr_assert_eq(tw_json_parse(schema, sizeof schema - 1, 8, &tool.parameters, &e), TW_OK);
    for (int typed_run = 0; typed_run < 2; typed_run++) {
        tw_decode_opts o;
        memset(&o, 0, sizeof o);
        if (typed_run) {
            o.tools = &tool;
            o.ntools = 1;
        }
        tw_result r;
        decode_both(text, sizeof text - 1, &o, &r);
        cr_expect_eq(r.msg.ncalls, 0, "typed %d", typed_run);
        cr_assert_eq(r.errors.len, 1, "typed %d", typed_run);
        cr_expect_eq(r.errors.items[0].code, TW_D_JSON_NUL, "typed %d: %s", typed_run,
                     tw_code_name(r.errors.items[0].code));
        cr_expect(r.errors.items[0].message &&
                      strstr(r.errors.items[0].message, "parameter 'city' holds U+0000"),
                  "typed %d: %s", typed_run,
                  r.errors.items[0].message ? r.errors.items[0].message : "");
        tw_result_free(&r);
    }
    cJSON_Delete(tool.parameters);
}

Test(qwen_xml_decode, crlf_line_breaks_around_a_value)
{
    static const struct {
        const char *value, *want;
    } cases[] = {
        {"\r\nParis\r\n", "Paris"},
        {"\r\nline 1\r\nline 2\r\n", "line 1\r\nline 2"},
        {"\nParis\r\n", "Paris"},
        {"\r\nParis\n", "Paris"},
        {"\nParis\r", "Paris\r"},
        {"\rParis\n", "\rParis"},
        {"\r\n\r\nParis\r\n\r\n", "\r\nParis\r\n"},
        {"\r\n", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tw_buf in = {0};
        cr_assert_eq(tw_buf_printf(&in,
                                   "<tool_call>\r\n<function=f>\r\n<parameter=a>%s</parameter>\r\n"
                                   "</function>\r\n</tool_call>",
                                   cases[i].value),
                     TW_OK);
        tw_result r;
        decode_both(in.data, in.len, NULL, &r);
        cr_assert_eq(r.msg.ncalls, 1, "case %zu", i);
        cr_expect_eq(r.errors.len, 0, "case %zu", i);
        const cJSON *a = tw_json_get(r.msg.calls[0].arguments, "a");
        cr_assert(cJSON_IsString(a), "case %zu", i);
        cr_expect_str_eq(a->valuestring, cases[i].want, "case %zu", i);
        tw_result_free(&r);
        tw_buf_free(&in);
    }
}
