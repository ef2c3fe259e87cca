/*
 * The redact target: a secret planted in a random text, the text cut at
 * random places into the pieces of a stream (any format's deltas), and the
 * pieces scrubbed as import and record scrub them (harness/redact/redact.h,
 * tw_redact_stream).
 *
 * Input: four header bytes, then the text.
 *   byte 0  the secret's length, 8 + value % 33 bytes, taken from the bytes
 *           after the header (as letters of an alphabet the text never holds)
 *   byte 1  where the secret is planted in the text (value * length / 255)
 *   byte 2  bits 0-3 the stream shape (a format's delta), bit 4 the secret
 *           is in the process-wide set instead of the redactor, bit 5 the
 *           stream is read for secrets first (tw_redact_discover_body), bit 6
 *           each piece goes to that shape or the next at random (a secret
 *           cut across two channels: content and reasoning, two blocks)
 *   byte 3  seed of the piece sizes (1 to 16 bytes each)
 *
 * The text keeps printable ASCII without capital letters; the secret is
 * made of capitals that "[REDACTED]" does not hold, so no 8-byte window of
 * the secret can be in the text unless the plant put it there.
 *
 * Invariants (docs/fuzzing.md): every event scrubbed is JSON and still
 * holds its piece; joined in the order the stream carries them, the pieces
 * hold no 8-byte window of the secret; nothing leaks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "invariants.h"
#include "redact.h"

static const struct {
    const char *tmpl; /* %s: the piece as a JSON string */
    const char *path[8];
} shapes[] = {
    {"{\"choices\":[{\"index\":0,\"delta\":{\"content\":%s}}]}",
     {"choices", "0", "delta", "content"}},
    {"{\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":%s}}]}",
     {"choices", "0", "delta", "reasoning_content"}},
    {"{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{"
     "\"arguments\":%s}}]}}]}",
     {"choices", "0", "delta", "tool_calls", "0", "function", "arguments"}},
    {"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":%s}"
     "}",
     {"delta", "text"}},
    {"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\","
     "\"thinking\":%s}}",
     {"delta", "thinking"}},
    {"{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\","
     "\"partial_json\":%s}}",
     {"delta", "partial_json"}},
    {"{\"type\":\"response.output_text.delta\",\"output_index\":0,\"content_index\":0,\"delta\":%"
     "s}",
     {"delta"}},
    {"{\"type\":\"response.function_call_arguments.delta\",\"output_index\":1,\"delta\":%s}",
     {"delta"}},
    {"{\"candidates\":[{\"index\":0,\"content\":{\"parts\":[{\"text\":%s}]}}]}",
     {"candidates", "0", "content", "parts", "0", "text"}},
    {"{\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\",\"partialArgs\":["
     "{\"jsonPath\":"
     "\"$.password\",\"stringValue\":%s,\"willContinue\":true}]}}]}}]}",
     {"candidates", "0", "content", "parts", "0", "functionCall", "partialArgs", "0"}},
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

/* Capitals that "[REDACTED]" does not hold. */
static const char secret_alpha[] = "BFGHIJKLMNOPQSUVWXYZ";

static cJSON *at_path(cJSON *v, const char *const *path, size_t s)
{
    for (size_t i = 0; i < 8 && path[i] && v; i++)
        v = path[i][0] >= '0' && path[i][0] <= '9' ? cJSON_GetArrayItem(v, atoi(path[i]))
                                                   : cJSON_GetObjectItemCaseSensitive(v, path[i]);
    if (v && s == 9)
        v = cJSON_GetObjectItemCaseSensitive(v, "stringValue");
    return v;
}

int tw_fz_redact(const uint8_t *data, size_t size)
{
    uint8_t h[4] = {0};
    for (size_t i = 0; i < 4 && i < size; i++)
        h[i] = data[i];
    const uint8_t *p = size > 4 ? data + 4 : data;
    size_t n = size > 4 ? size - 4 : 0;
    size_t sl = 8 + h[0] % 33u;
    char secret[48];
    for (size_t i = 0; i < sl; i++)
        secret[i] = secret_alpha[(i < n ? p[i] : i) % (sizeof secret_alpha - 1)];
    secret[sl] = '\0';
    /* the text: printable ASCII without capitals */
    size_t tl = n, at = (size_t)h[1] * tl / 255u;
    char *text = malloc(tl + sl + 1);
    if (!text)
        return 0;
    size_t o = 0;
    for (size_t i = 0; i <= tl; i++) {
        if (i == at) {
            memcpy(text + o, secret, sl);
            o += sl;
        }
        if (i == tl)
            break;
        unsigned c = 32u + p[i] % 95u;
        if (c >= 'A' && c <= 'Z')
            c += 'a' - 'A';
        text[o++] = (char)c;
    }
    text[o] = '\0';
    size_t total = o;

    size_t s = h[2] % 16u % NSHAPES;
    bool in_set = h[2] & 16, discover = h[2] & 32, two = h[2] & 64;
    tw_redactor r;
    memset(&r, 0, sizeof r);
    if (in_set)
        tw_secret_add(secret);
    else
        tw_redactor_add_value(&r, secret);

    /* pieces of 1 to 16 bytes */
    size_t cap = total + 1, nev = 0;
    const char **ev = calloc(cap, sizeof *ev);
    size_t *shape = calloc(cap, sizeof *shape);
    size_t *len = calloc(cap, sizeof *len);
    char **out = calloc(cap, sizeof *out);
    tw_buf body = {0};
    uint32_t seed = h[3] * 2654435761u + 1u;
    for (size_t a = 0; ev && len && out && shape && a < total;) {
        seed = seed * 1103515245u + 12345u;
        size_t k = 1 + (seed >> 16) % 16u;
        size_t es = two && (seed >> 28) & 1 ? (s + 1) % NSHAPES : s;
        if (a + k > total)
            k = total - a;
        char save = text[a + k];
        text[a + k] = '\0';
        cJSON *js = cJSON_CreateString(text + a);
        text[a + k] = save;
        char *q = js ? cJSON_PrintUnformatted(js) : NULL;
        cJSON_Delete(js);
        char *e = NULL;
        if (q && asprintf(&e, shapes[es].tmpl, q) > 0) {
            shape[nev] = es;
            ev[nev] = e;
            len[nev++] = strlen(e);
            tw_buf_printf(&body, "data: %s\n\n", e);
        }
        cJSON_free(q);
        a += k;
    }
    if (ev && len && out && shape) {
        tw_status st = TW_OK;
        if (discover)
            st = tw_redact_discover_body(&r, body.data ? body.data : "", body.len, 64);
        if (st == TW_OK)
            st = tw_redact_stream(&r, ev, len, nev, 64, out);
        if (st == TW_OK) {
            tw_buf joined = {0};
            for (size_t i = 0; i < nev; i++) {
                const char *d = out[i] ? out[i] : ev[i];
                cJSON *j = cJSON_Parse(d);
                TW_FZ_CHECK(j != NULL, "redact: scrubbed event %zu is not JSON: %s", i, d);
                cJSON *v = at_path(j, shapes[shape[i]].path, shape[i]);
                TW_FZ_CHECK(cJSON_IsString(v), "redact: scrubbed event %zu lost its piece: %s", i,
                            d);
                tw_buf_puts(&joined, v->valuestring);
                cJSON_Delete(j);
            }
            for (size_t w = 0; w + 8 <= sl; w++)
                TW_FZ_CHECK(!joined.data || !tw_memmem(joined.data, joined.len, secret + w, 8),
                            "redact: 8 bytes of the secret (from byte %zu) survive the pieces "
                            "joined: %.200s",
                            w, joined.data);
            tw_buf_free(&joined);
        }
    }
    for (size_t i = 0; i < nev; i++) {
        free((char *)ev[i]);
        free(out[i]);
    }
    free(ev);
    free(shape);
    free(len);
    free(out);
    tw_buf_free(&body);
    free(text);
    tw_redactor_free(&r);
    if (in_set)
        tw_secret_reset();
    return 0;
}
