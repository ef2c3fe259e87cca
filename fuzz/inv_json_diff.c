/*
 * The json_diff target: tool-call arguments read by the reference decoder
 * and by an independent JSON parser (jansson) must agree. No header: the
 * whole input is the arguments text.
 *
 * The reference reads the input twice: tw_json_parse_lint alone, and as the
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
#include <stdlib.h>
#include <string.h>

#include "invariants.h"
#include "toolwire/json.h"
#include "toolwire/text.h"

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
        return;
    case cJSON_String: {
        TW_FZ_CHECK(json_is_string(j), "json_diff: %s: a string here, not in jansson", where);
        size_t n = strlen(c->valuestring);
        TW_FZ_CHECK(n == json_string_length(j) && memcmp(c->valuestring, json_string_value(j), n) == 0,
                    "json_diff: %s: string of %zu bytes here, %zu in jansson, or other bytes", where,
                    n, json_string_length(j));
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
    default:
        tw_fz_fail("json_diff: %s: a cJSON node of type %d", where, c->type & 0xFF);
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
    json_t *jv = json_loadb(in, size,
                            JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL | JSON_REJECT_DUPLICATES |
                                JSON_ALLOW_NUL,
                            &je);
    bool overflow = !jv && json_error_code(&je) == json_error_numeric_overflow;
    bool j_dup = !jv && json_error_code(&je) == json_error_duplicate_key;

    /* 1: tw_json_parse_lint alone */
    cJSON *v = NULL;
    tw_json_lint lint;
    tw_status st = tw_json_parse_lint(in, size, L.max_depth, &v, NULL, &lint);
    bool clean = st == TW_OK && !lint.nul && lint.nonstd_offset < 0;
    if (clean && !overflow) {
        if (has_dup(v)) {
            TW_FZ_CHECK(j_dup, "json_diff: the reference sees a repeated key, jansson %s",
                        jv ? "accepted the document" : je.text);
        } else {
            TW_FZ_CHECK(jv != NULL, "json_diff: the reference accepted, jansson refused: %s (%d:%d)",
                        je.text, je.line, je.column);
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
