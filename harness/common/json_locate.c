/*
 * Where a value of a JSON text is (fixture messages, option errors): the
 * parsed tree does not remember positions, so the position is found again
 * from the JSON path with a small locator that walks the source bytes.
 */
#include "json_locate.h"

#include <stdlib.h>
#include <string.h>

#include "toolwire/json.h"

/* ===================== locating a JSON path in the source ===================== */

static size_t skip_ws(const char *s, size_t len, size_t i)
{
    while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    return i;
}

/* s[*i] is '"'; on success *i is one past the closing quote. */
static bool skip_string(const char *s, size_t len, size_t *i)
{
    size_t p = *i + 1;
    while (p < len) {
        if (s[p] == '\\')
            p += 2;
        else if (s[p] == '"') {
            *i = p + 1;
            return true;
        } else
            p++;
    }
    return false;
}

static bool skip_value(const char *s, size_t len, size_t *i)
{
    size_t p = *i;
    if (p >= len)
        return false;
    if (s[p] == '"')
        return skip_string(s, len, i);
    if (s[p] == '{' || s[p] == '[') {
        tw_jscan sc;
        memset(&sc, 0, sizeof sc);
        sc.max_depth = TW_DEPTH_HARD_MAX;
        size_t used = 0;
        if (tw_jscan_feed(&sc, s + p, len - p, &used) != TW_JSCAN_DONE)
            return false;
        *i = p + used;
        return true;
    }
    while (p < len && s[p] != ',' && s[p] != '}' && s[p] != ']' && s[p] != ' ' && s[p] != '\t' &&
           s[p] != '\n' && s[p] != '\r')
        p++;
    *i = p;
    return true;
}

/* Does the raw key literal s[a, b) (quotes included) spell `key`? */
static bool key_equals(const char *s, size_t a, size_t b, const char *key, size_t klen)
{
    if (b - a < 2)
        return false;
    const char *raw = s + a + 1;
    size_t rlen = b - a - 2;
    if (!memchr(raw, '\\', rlen))
        return rlen == klen && memcmp(raw, key, klen) == 0;
    cJSON *v = cJSON_ParseWithLength(s + a, b - a);
    bool eq = cJSON_IsString(v) && strlen(v->valuestring) == klen &&
              memcmp(v->valuestring, key, klen) == 0;
    cJSON_Delete(v);
    return eq;
}

/*
 * Byte offset of the value at `jpath` ("exchanges[0].request.path", "" for
 * the root). With at_key the offset of the last member's key is given
 * instead. When the path cannot be followed to its end, the offset of the
 * deepest value reached is given: a position is always returned.
 */
size_t tw_json_locate_off(const char *s, size_t len, const char *jpath, bool at_key)
{
    size_t i = skip_ws(s, len, 0);
    size_t best = i;
    const char *p = jpath;
    while (*p) {
        if (*p == '.')
            p++;
        if (*p == '[') {
            char *end = NULL;
            unsigned long want = strtoul(p + 1, &end, 10);
            if (!end || *end != ']' || i >= len || s[i] != '[')
                return best;
            p = end + 1;
            i = skip_ws(s, len, i + 1);
            unsigned long k = 0;
            for (;;) {
                if (i >= len || s[i] == ']')
                    return best;
                if (k == want)
                    break;
                if (!skip_value(s, len, &i))
                    return best;
                i = skip_ws(s, len, i);
                if (i < len && s[i] == ',')
                    i = skip_ws(s, len, i + 1);
                k++;
            }
            best = i;
            continue;
        }
        size_t klen = strcspn(p, ".[");
        if (i >= len || s[i] != '{')
            return best;
        i = skip_ws(s, len, i + 1);
        bool found = false;
        while (i < len && s[i] == '"') {
            size_t ka = i;
            if (!skip_string(s, len, &i))
                return best;
            size_t kb = i;
            i = skip_ws(s, len, i);
            if (i >= len || s[i] != ':')
                return best;
            i = skip_ws(s, len, i + 1);
            if (key_equals(s, ka, kb, p, klen)) {
                found = true;
                p += klen;
                best = (at_key && !*p) ? ka : i;
                break;
            }
            if (!skip_value(s, len, &i))
                return best;
            i = skip_ws(s, len, i);
            if (i < len && s[i] == ',')
                i = skip_ws(s, len, i + 1);
        }
        if (!found)
            return best;
    }
    return best;
}

tw_status tw_json_locate(const char *buf, size_t len, const char *jpath, bool at_key, size_t *line,
                         size_t *col)
{
    size_t off = tw_json_locate_off(buf, len, jpath ? jpath : "", at_key);
    tw_line_col(buf, len, off, line, col);
    return TW_OK;
}

void tw_line_col(const char *buf, size_t len, size_t off, size_t *line, size_t *col)
{
    size_t l = 1, c = 1;
    if (off > len)
        off = len;
    for (size_t i = 0; i < off; i++) {
        if (buf[i] == '\n') {
            l++;
            c = 1;
        } else {
            c++;
        }
    }
    *line = l;
    *col = c;
}
