/* Parser conformance: the driver protocol's pieces, describe and output (parsers.h). */
#include "parsers.h"

#include <stdlib.h>
#include <string.h>

#include "apis.h"
#include "toolwire/json.h"

/* ---- the dialects: the text decoders of the table of formats ---- */

#define PD_TEXT(name) name,
#define PD_JSON(name)
#define PD_SSE(name)
#define PD_DEC(sym, name, fam, fuzz) PD_##fam(name)
#define PD_NONE4(a, b, c, d)
#define PD_NONE3(a, b, c)
static const char *const dialects[] = {TW_FORMAT_TABLE(PD_DEC, PD_NONE4, PD_NONE3) NULL};
#undef PD_TEXT
#undef PD_JSON
#undef PD_SSE
#undef PD_DEC
#undef PD_NONE4
#undef PD_NONE3

const char *const *tw_parser_dialects(size_t *n)
{
    *n = sizeof dialects / sizeof dialects[0] - 1;
    return dialects;
}

bool tw_parser_is_dialect(const char *name)
{
    for (size_t i = 0; name && dialects[i]; i++)
        if (strcmp(dialects[i], name) == 0)
            return true;
    return false;
}

/* ---- --describe ---- */

static bool copy_name(const cJSON *v, char *dst, size_t cap)
{
    if (!cJSON_IsString(v))
        return false;
    size_t n = strlen(v->valuestring);
    if (n == 0 || n >= cap)
        return false;
    memcpy(dst, v->valuestring, n + 1);
    return true;
}

/* The start of what a driver printed, for a message: at most SHOWN_MAX bytes
 * of it, printable ASCII as is, every other byte as \xNN, "…" past the cap. */
#define SHOWN_MAX 80
static void shown(const char *t, size_t len, char *dst, size_t n)
{
    size_t w = 0, k = 0;
    for (; k < len && k < SHOWN_MAX && w + 5 < n; k++) {
        unsigned char c = (unsigned char)t[k];
        if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"')
            dst[w++] = (char)c;
        else
            w += (size_t)snprintf(dst + w, n - w, "\\x%02x", c);
    }
    dst[w] = 0;
    if (k < len && w + 4 < n)
        memcpy(dst + w, "…", sizeof "…");
}

bool tw_parser_describe_parse(const char *text, size_t len, size_t max_depth, tw_parser_info *out,
                              tw_error *err)
{
    memset(out, 0, sizeof *out);
    cJSON *j = NULL;
    if (tw_json_parse(text, len, max_depth, &j, NULL) != TW_OK || !cJSON_IsObject(j)) {
        cJSON_Delete(j);
        char got[4 * SHOWN_MAX + 8];
        shown(text, len, got, sizeof got);
        tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                     "--describe did not print one JSON object; it printed %zu bytes%s%s%s", len,
                     len ? ", beginning \"" : "", got, len ? "\"" : "");
        return false;
    }
    bool ok = false;
    const cJSON *proto = tw_json_get(j, "protocol");
    const cJSON *ds = tw_json_get(j, "dialects");
    if (tw_json_int(proto, 0, 1000, -1) != TW_PARSER_PROTOCOL)
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "--describe: protocol must be %d",
                     TW_PARSER_PROTOCOL);
    else if (!copy_name(tw_json_get(j, "parser"), out->parser, sizeof out->parser))
        tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                     "--describe: parser must be a string of 1-63 bytes");
    else if (!copy_name(tw_json_get(j, "version"), out->version, sizeof out->version))
        tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                     "--describe: version must be a string of 1-63 bytes");
    else if (!cJSON_IsArray(ds) || cJSON_GetArraySize(ds) < 1 ||
             cJSON_GetArraySize(ds) > TW_PARSER_MAX_DIALECTS)
        tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                     "--describe: dialects must be an array of 1-%d objects",
                     TW_PARSER_MAX_DIALECTS);
    else {
        ok = true;
        size_t i = 0;
        for (const cJSON *d = ds->child; d && ok; d = d->next, i++) {
            const cJSON *name = tw_json_get(d, "dialect");
            if (!cJSON_IsObject(d) || !cJSON_IsString(name)) {
                tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                             "--describe: dialects[%zu] must be an object with a dialect string",
                             i);
                ok = false;
            } else if (!tw_parser_is_dialect(name->valuestring)) {
                tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                             "--describe: dialects[%zu] '%.80s' is not a text decoder of the "
                             "table of formats",
                             i, name->valuestring);
                ok = false;
            } else {
                for (size_t k = 0; k < out->ndialects && ok; k++)
                    if (strcmp(out->dialects[k], name->valuestring) == 0) {
                        tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                                     "--describe: dialect '%s' is listed twice", name->valuestring);
                        ok = false;
                    }
                if (!ok)
                    break;
                snprintf(out->dialects[out->ndialects], TW_PARSER_DIALECT_LEN, "%s",
                         name->valuestring);
                const char *note = tw_json_get_str(d, "template");
                if (!note)
                    note = tw_json_get_str(d, "note");
                snprintf(out->notes[out->ndialects], TW_PARSER_NOTE_LEN, "%s", note ? note : "");
                out->ndialects++;
            }
        }
    }
    cJSON_Delete(j);
    return ok;
}

/* ---- the pieces ---- */

bool tw_parser_text_ok(const char *buf, size_t len)
{
    const unsigned char *s = (const unsigned char *)buf;
    size_t i = 0;
    while (i < len) {
        unsigned c = s[i];
        if (c == 0)
            return false;
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
        if (n == 0 || (c >= 0xE0 && c > 0xF4) || i + n > len)
            return false;
        for (size_t k = 1; k < n; k++)
            if ((s[i + k] & 0xC0) != 0x80)
                return false;
        unsigned c1 = s[i + 1];
        /* overlong, surrogates, past U+10FFFF */
        if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F) || (c == 0xF0 && c1 < 0x90) ||
            (c == 0xF4 && c1 > 0x8F))
            return false;
        i += n;
    }
    return true;
}

static uint64_t next_rand(uint64_t *s)
{
    /* splitmix64 */
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The end of the special token starting at text[s] ('<' or '['), or 0 when
 * none closes within TW_PARSER_TOKEN_MAX bytes. */
static size_t token_end(const char *text, size_t len, size_t s)
{
    char close = text[s] == '<' ? '>' : ']';
    size_t lim = len - s < TW_PARSER_TOKEN_MAX ? len - s : TW_PARSER_TOKEN_MAX;
    const char *e = memchr(text + s + 1, close, lim > 1 ? lim - 1 : 0);
    return e ? (size_t)(e - text) + 1 : 0;
}

static bool is_cont(const char *text, size_t len, size_t i)
{
    return i < len && ((unsigned char)text[i] & 0xC0) == 0x80;
}

size_t tw_parser_cut(const char *text, size_t len, uint64_t seed, size_t *cuts)
{
    uint64_t st = seed;
    size_t n = 0, p = 0;
    /* the next special token at or after `scan`, found once per token: linear */
    size_t tok_s = 0, tok_e = 0, scan = 0;
    bool tok_cut = false; /* the current token was cut inside once */
    while (p < len) {
        if (tok_e <= p) {
            tok_e = 0;
            while (scan < len) {
                const char *a = memchr(text + scan, '<', len - scan);
                const char *b = memchr(text + scan, '[', (a ? (size_t)(a - text) : len) - scan);
                const char *c = b ? b : a;
                if (!c) {
                    scan = len;
                    break;
                }
                size_t s = (size_t)(c - text);
                size_t e = token_end(text, len, s);
                scan = s + 1;
                if (e > p + 1 && e - s >= 3) {
                    tok_s = s, tok_e = e, tok_cut = false;
                    break;
                }
            }
        }
        size_t cut = p + 1 + (size_t)(next_rand(&st) % TW_PARSER_PIECE_MAX);
        /* a token within reach: the cut falls strictly inside it */
        size_t lo = (tok_s > p ? tok_s : p) + 1, hi = tok_e - 1; /* a cut in [lo, hi) */
        if (!tok_cut && tok_e > p && tok_s < p + TW_PARSER_PIECE_MAX && hi > lo) {
            cut = lo + (size_t)(next_rand(&st) % (hi - lo));
            tok_cut = true;
        }
        if (cut > len)
            cut = len;
        while (is_cont(text, len, cut))
            cut++;
        cuts[n++] = cut;
        p = cut;
    }
    return n;
}

/* ---- --parse output ---- */

void tw_parser_output_free(tw_parser_output *o)
{
    for (size_t i = 0; i < o->nlines; i++)
        cJSON_Delete(o->lines[i]);
    free(o->lines);
    free(o->msgs);
    memset(o, 0, sizeof *o);
}

/* Does m hold a message of the protocol's shape? why set when not. */
static bool message_ok(const cJSON *m, char *why, size_t n)
{
    if (!cJSON_IsObject(m)) {
        snprintf(why, n, "its message is not an object");
        return false;
    }
    static const char *const texts[] = {"content", "reasoning"};
    for (size_t i = 0; i < 2; i++) {
        const cJSON *t = tw_json_get(m, texts[i]);
        if (t && !cJSON_IsString(t) && !cJSON_IsNull(t)) {
            snprintf(why, n, "message.%s is neither a string nor null", texts[i]);
            return false;
        }
    }
    const cJSON *tc = tw_json_get(m, "tool_calls");
    if (!cJSON_IsArray(tc)) {
        snprintf(why, n, "message.tool_calls is %s", tc ? "not an array" : "missing");
        return false;
    }
    size_t i = 0;
    for (const cJSON *c = tc->child; c; c = c->next, i++) {
        const cJSON *a = tw_json_get(c, "arguments");
        const cJSON *id = tw_json_get(c, "id");
        if (!cJSON_IsObject(c) || !cJSON_IsString(tw_json_get(c, "name")) ||
            !(cJSON_IsObject(a) || cJSON_IsString(a)) ||
            (id && !cJSON_IsString(id) && !cJSON_IsNull(id))) {
            snprintf(why, n,
                     "message.tool_calls[%zu] wants a name string, arguments as an object or a "
                     "string, an id string or null",
                     i);
            return false;
        }
    }
    const cJSON *e = tw_json_get(m, "error");
    if (!e) {
        snprintf(why, n, "message.error is missing");
        return false;
    }
    if (!cJSON_IsNull(e) && !(cJSON_IsObject(e) && cJSON_IsString(tw_json_get(e, "type")) &&
                              cJSON_IsString(tw_json_get(e, "message")))) {
        snprintf(why, n, "message.error is neither null nor {\"type\": …, \"message\": …}");
        return false;
    }
    return true;
}

bool tw_parser_output_read(const char *out, size_t len, size_t npieces, size_t max_depth,
                           tw_parser_output *o, tw_error *err)
{
    memset(o, 0, sizeof *o);
    o->lines = calloc(npieces + 1, sizeof *o->lines);
    o->msgs = calloc(npieces + 1, sizeof *o->msgs);
    if (!o->lines || !o->msgs) {
        tw_parser_output_free(o);
        tw_error_set(err, TW_ERR_NOMEM, -1, NULL, "out of memory");
        return false;
    }
    char why[200] = "";
    size_t p = 0, line = 0;
    bool final = false;
    while (p < len && !why[0]) {
        const char *nl = memchr(out + p, '\n', len - p);
        size_t e = nl ? (size_t)(nl - out) : len;
        const char *s = out + p;
        size_t n = e - p;
        p = nl ? e + 1 : len;
        line++;
        size_t k = 0;
        while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r'))
            k++;
        if (k == n)
            continue; /* a blank line */
        cJSON *j = NULL;
        if (final) {
            snprintf(why, sizeof why, "line %zu follows the final line", line);
        } else if (tw_json_parse(s, n, max_depth, &j, NULL) != TW_OK || !cJSON_IsObject(j)) {
            snprintf(why, sizeof why, "line %zu is not a JSON object", line);
        } else if (o->nlines == npieces + 1) {
            snprintf(why, sizeof why, "line %zu: more lines than pieces", line);
        } else {
            o->lines[o->nlines++] = j;
            const cJSON *pk = tw_json_get(j, "piece");
            const cJSON *fin = tw_json_get(j, "final");
            const cJSON *m = tw_json_get(j, "message");
            char mw[160];
            j = NULL;
            if (cJSON_IsTrue(fin)) {
                if (o->nmsgs != npieces)
                    snprintf(why, sizeof why,
                             "line %zu: expected the piece line of piece %zu of %zu "
                             "({\"piece\": %zu, …}), got the final line",
                             line, o->nmsgs, npieces, o->nmsgs);
                final = true;
            } else if (tw_json_int(pk, -1, INT64_MAX, -1) != (int64_t)o->nmsgs) {
                snprintf(why, sizeof why, "line %zu: expected {\"piece\": %zu, …}", line, o->nmsgs);
            }
            if (!why[0] && !message_ok(m, mw, sizeof mw))
                snprintf(why, sizeof why, "line %zu: %s", line, mw);
            if (!why[0])
                o->msgs[o->nmsgs++] = m;
        }
        cJSON_Delete(j);
    }
    if (!why[0] && !final)
        snprintf(why, sizeof why, "no final line (after %zu piece lines of %zu)", o->nmsgs,
                 npieces);
    if (why[0]) {
        tw_parser_output_free(o);
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "%s", why);
        return false;
    }
    return true;
}
