/*
 * The json_diff target: tool-call arguments read by the reference decoder
 * and by an independent JSON parser (jansson) must agree. No header: the
 * whole input is the arguments text.
 *
 * The reference reads the input twice: tw_json_parse_lint alone (whose tree,
 * for a clean document, must also be cJSON_Parse's own, node for node, with
 * the same repeated keys), and as the
 * arguments of a Hermes call, <tool_call>{"name":"f","arguments":INPUT}
 * </tool_call>, through tw_hermes_output_decode with default options. A document
 * is compared only where the reference accepted it WITHOUT a diagnostic (no
 * lint finding, one call, no error, no warning). Then jansson (any value,
 * integers read as reals, duplicates rejected) must accept it too, and the
 * two trees must match: the same types, strings byte for byte (lengths
 * included), the same object keys byte for byte with no key missing on
 * either side, arrays element by element, numbers both numbers of the same
 * double. Where the reference warned duplicate_key, jansson must reject the
 * document as a duplicate key. The one documented difference: jansson
 * refuses a number outside the double range, which the reference reads as
 * an infinity; such inputs are not compared.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "invariants.h"
#include "toolwire/json.h"
#include "toolwire/text.h"

/* tw_json_exact_int never rounds: below 2^53 in magnitude it says "an
 * integer" exactly when the number's exact decimal value equals the integer
 * its double truncates to, and then gives that integer. */
static void exact_int_agrees(const cJSON *c, const char *where)
{
    double d = c->valuedouble;
    int64_t got = 0;
    bool said = tw_json_exact_int(c, INT64_MIN, INT64_MAX, &got);
    if (!(d > -9007199254740992.0 && d < 9007199254740992.0)) {
        TW_FZ_CHECK(!said, "json_diff: %s: %.17g taken as an exact integer", where, d);
        return;
    }
    char t[32];
    snprintf(t, sizeof t, "%lld", (long long)d);
    cJSON *n = NULL;
    TW_FZ_CHECK(tw_json_parse(t, strlen(t), 0, &n, NULL) == TW_OK, "json_diff: %s: %s", where, t);
    bool is_int = tw_json_number_equal(c, n);
    cJSON_Delete(n);
    TW_FZ_CHECK(said == is_int, "json_diff: %s: exact_int says %d, the exact value says %d (%s)",
                where, said, is_int, t);
    TW_FZ_CHECK(!said || got == (int64_t)d, "json_diff: %s: exact_int gave %lld for %s", where,
                (long long)got, t);
}

static void same(const cJSON *c, const json_t *j, const char *where, unsigned depth)
{
    TW_FZ_CHECK(depth <= TW_DEPTH_HARD_MAX + 2, "json_diff: recursion past the depth cap");
    switch (c->type & 0xFF) {
    case cJSON_NULL:
        TW_FZ_CHECK(json_is_null(j), "json_diff: %s: null here, not in jansson", where);
        return;
    case cJSON_True:
        TW_FZ_CHECK(json_is_true(j), "json_diff: %s: true here, not in jansson", where);
        return;
    case cJSON_False:
        TW_FZ_CHECK(json_is_false(j), "json_diff: %s: false here, not in jansson", where);
        return;
    case cJSON_Number:
        TW_FZ_CHECK(json_is_number(j), "json_diff: %s: a number here, not in jansson", where);
        TW_FZ_CHECK(c->valuedouble == json_number_value(j),
                    "json_diff: %s: number %.17g here, %.17g in jansson", where, c->valuedouble,
                    json_number_value(j));
        exact_int_agrees(c, where);
        return;
    case cJSON_String: {
        TW_FZ_CHECK(json_is_string(j), "json_diff: %s: a string here, not in jansson", where);
        size_t n = strlen(c->valuestring);
        TW_FZ_CHECK(n == json_string_length(j) &&
                        memcmp(c->valuestring, json_string_value(j), n) == 0,
                    "json_diff: %s: string of %zu bytes here, %zu in jansson, or other bytes",
                    where, n, json_string_length(j));
        return;
    }
    case cJSON_Array: {
        TW_FZ_CHECK(json_is_array(j), "json_diff: %s: an array here, not in jansson", where);
        size_t i = 0;
        for (const cJSON *e = c->child; e; e = e->next, i++) {
            TW_FZ_CHECK(i < json_array_size(j), "json_diff: %s: array longer than in jansson",
                        where);
            same(e, json_array_get(j, i), where, depth + 1);
        }
        TW_FZ_CHECK(i == json_array_size(j), "json_diff: %s: array shorter than in jansson", where);
        return;
    }
    case cJSON_Object: {
        TW_FZ_CHECK(json_is_object(j), "json_diff: %s: an object here, not in jansson", where);
        size_t n = 0;
        for (const cJSON *m = c->child; m; m = m->next, n++) {
            size_t kl = strlen(m->string);
            const json_t *v = json_object_getn(j, m->string, kl);
            TW_FZ_CHECK(v != NULL, "json_diff: %s: key of %zu bytes missing in jansson", where, kl);
            same(m, v, where, depth + 1);
        }
        TW_FZ_CHECK(n == json_object_size(j),
                    "json_diff: %s: %zu members here, %zu in jansson (a key cut short?)", where, n,
                    json_object_size(j));
        return;
    }
    default: tw_fz_fail("json_diff: %s: a cJSON node of type %d", where, c->type & 0xFF);
    }
}

/* The tree tw_json_parse_lint built is the one cJSON_Parse builds, node for
 * node: types, keys and strings byte for byte, numbers to the bit (valueint
 * too), members in order, each list's head pointing back at its last. */
static void same_cjson(const cJSON *a, const cJSON *b, unsigned depth)
{
    TW_FZ_CHECK(depth <= TW_DEPTH_HARD_MAX + 2, "json_diff: recursion past the depth cap");
    TW_FZ_CHECK((a->type & 0xFF) == (b->type & 0xFF), "json_diff: type %d here, %d in cJSON",
                a->type & 0xFF, b->type & 0xFF);
    TW_FZ_CHECK((a->string == NULL) == (b->string == NULL) &&
                    (!a->string || strcmp(a->string, b->string) == 0),
                "json_diff: a key differs from cJSON's");
    switch (a->type & 0xFF) {
    case cJSON_Number:
        TW_FZ_CHECK(memcmp(&a->valuedouble, &b->valuedouble, sizeof a->valuedouble) == 0 &&
                        a->valueint == b->valueint,
                    "json_diff: number %.17g here, %.17g in cJSON", a->valuedouble, b->valuedouble);
        return;
    case cJSON_String:
        TW_FZ_CHECK(strcmp(a->valuestring, b->valuestring) == 0,
                    "json_diff: a string differs from cJSON's");
        return;
    case cJSON_Array:
    case cJSON_Object: {
        const cJSON *x = a->child, *y = b->child, *last = NULL;
        for (; x && y; x = x->next, y = y->next) {
            same_cjson(x, y, depth + 1);
            last = x;
        }
        TW_FZ_CHECK(!x && !y, "json_diff: %s members than cJSON", x ? "more" : "fewer");
        TW_FZ_CHECK(!a->child || a->child->prev == last, "json_diff: a list's head does not "
                                                         "point back at its last member");
        return;
    }
    default: return;
    }
}

/* Does some object in v repeat a key? (on a copy: tw_json_dedupe removes) */
static bool has_dup(const cJSON *v)
{
    cJSON *c = cJSON_Duplicate(v, 1);
    if (!c)
        tw_fz_fail("out of memory");
    size_t removed = 0;
    if (tw_json_dedupe(c, NULL, 0, &removed) != TW_OK)
        tw_fz_fail("out of memory");
    cJSON_Delete(c);
    return removed > 0;
}

int tw_fz_json_diff(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    char *in = tw_fz_copy(data, size);
    tw_limits L;
    tw_limits_resolve(&L, NULL);
    json_error_t je;
    json_t *jv = json_loadb(
        in, size,
        JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL | JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
    bool overflow = !jv && json_error_code(&je) == json_error_numeric_overflow;
    bool j_dup = !jv && json_error_code(&je) == json_error_duplicate_key;

    /* 1: tw_json_parse_lint alone */
    cJSON *v = NULL;
    tw_json_lint lint;
    tw_status st = tw_json_parse_lint(in, size, L.max_depth, &v, NULL, &lint);
    bool clean = st == TW_OK && !lint.nul && lint.nonstd_offset < 0;
    if (clean) {
        /* the same tree as cJSON's own parse, and the same repeated keys
         * (cJSON's tree carries no mark from the parser to trust) */
        const char *end = NULL;
        cJSON *cj = cJSON_ParseWithLengthOpts(in, size, &end, 0);
        TW_FZ_CHECK(cj != NULL, "json_diff: the reference accepted, cJSON_Parse refused");
        same_cjson(v, cj, 0);
        TW_FZ_CHECK(has_dup(v) == has_dup(cj),
                    "json_diff: repeated keys here and in cJSON's tree disagree");
        cJSON_Delete(cj);
    }
    if (clean && !overflow) {
        if (has_dup(v)) {
            TW_FZ_CHECK(j_dup, "json_diff: the reference sees a repeated key, jansson %s",
                        jv ? "accepted the document" : je.text);
        } else {
            TW_FZ_CHECK(jv != NULL,
                        "json_diff: the reference accepted, jansson refused: %s (%d:%d)", je.text,
                        je.line, je.column);
            same(v, jv, "parse", 0);
        }
    }

    /* 2: the same text as the arguments of a Hermes call */
    static const char pre[] = "<tool_call>{\"name\":\"f\",\"arguments\":";
    static const char post[] = "}</tool_call>";
    size_t n = sizeof pre - 1 + size + sizeof post - 1;
    char *doc = malloc(n);
    if (!doc)
        tw_fz_fail("out of memory");
    memcpy(doc, pre, sizeof pre - 1);
    memcpy(doc + sizeof pre - 1, in, size);
    memcpy(doc + sizeof pre - 1 + size, post, sizeof post - 1);
    tw_result r;
    if (tw_hermes_output_decode(doc, n, NULL, &r) != TW_OK)
        tw_fz_fail("json_diff: hermes decode failed");
    /* the input alone must be one clean value: else the wrapper's own
     * bytes may have made another call object */
    if (clean && !overflow && cJSON_IsObject(v) && r.msg.ncalls == 1 && r.errors.len == 0) {
        bool dup_warned = r.warnings.len == 1 && r.warnings.items[0].code == TW_D_DUPLICATE_KEY;
        if (dup_warned) {
            TW_FZ_CHECK(j_dup, "json_diff: hermes warned duplicate_key, jansson %s",
                        jv ? "accepted the document" : je.text);
        } else if (r.warnings.len == 0) {
            TW_FZ_CHECK(jv != NULL, "json_diff: hermes accepted the arguments, jansson refused: %s",
                        je.text);
            same(r.msg.calls[0].arguments, jv, "hermes arguments", 0);
        }
    }
    tw_result_free(&r);
    free(doc);
    cJSON_Delete(v);
    json_decref(jv);
    free(in);
    return 0;
}
