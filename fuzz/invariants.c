/*
 * Invariant checks shared by the fuzz targets and the regression replay
 * test. Statics here are harness state (memory counters, the test tools),
 * never library state.
 */
#include "invariants.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolwire/decode.h"
#include "toolwire/registry.h"
#include "toolwire/encode.h"
#include "toolwire/schema.h"
#include "work.h"

#include "json_marks.h" /* src/: the arena of a tree read and dropped whole */

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TW_FZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TW_FZ_ASAN 1
#endif

#ifdef TW_FZ_ASAN
#if defined(__has_include)
#if __has_include(<sanitizer/asan_interface.h>)
#include <sanitizer/asan_interface.h>
#endif
#if __has_include(<sanitizer/allocator_interface.h>)
#include <sanitizer/allocator_interface.h>
#define TW_FZ_HAVE_ALLOC_IFACE 1
#endif
#endif
#ifndef TW_FZ_HAVE_ALLOC_IFACE
/* gcc ships libasan without this header; the functions are exported all the same */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));
size_t __sanitizer_get_allocated_size(const volatile void *p);
int __sanitizer_get_ownership(const volatile void *p);
#endif
#endif

#ifdef ASAN_POISON_MEMORY_REGION /* a no-op without ASan */
#define TW_FZ_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define TW_FZ_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define TW_FZ_POISON(p, n) ((void)(p), (void)(n))
#define TW_FZ_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* ===================== failure ===================== */

static const char *input_name;

void tw_fz_set_input_name(const char *name)
{
    input_name = name;
}

void tw_fz_fail(const char *fmt, ...)
{
    va_list ap;
    fputs("toolwire fuzz invariant violated: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (input_name)
        fprintf(stderr, " [input %s]", input_name);
    fputc('\n', stderr);
    fflush(stderr);
    abort();
}

/* ===================== memory accounting ===================== */

static int64_t mem_live, mem_peak;
static int mem_state; /* 0 not tried, 1 on, -1 unavailable */
/* Only the thread that runs the checks is counted: libFuzzer's own threads
 * (the RSS watcher) allocate and free at any time. */
#ifdef TW_FZ_ASAN
static _Thread_local bool mem_counted_thread;

static void on_malloc(const volatile void *p, size_t n)
{
    (void)p;
    if (!mem_counted_thread)
        return;
    mem_live += (int64_t)n;
    if (mem_live > mem_peak)
        mem_peak = mem_live;
}
static void on_free(const volatile void *p)
{
    if (mem_counted_thread && p && __sanitizer_get_ownership((const void *)p))
        mem_live -= (int64_t)__sanitizer_get_allocated_size((const void *)p);
}
#endif

bool tw_fz_mem_enabled(void)
{
    if (mem_state == 0) {
        mem_state = -1;
#ifdef TW_FZ_ASAN
        if (!getenv("TOOLWIRE_FUZZ_NO_MEM") &&
            __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free)) {
            mem_state = 1;
            mem_counted_thread = true;
        }
#endif
    }
    return mem_state == 1;
}

void tw_fz_mem_mark(void)
{
    mem_peak = mem_live;
}
int64_t tw_fz_mem_live(void)
{
    return mem_live;
}
int64_t tw_fz_mem_peak(void)
{
    return mem_peak;
}

/*
 * Why 64 per input byte: the densest JSON for cJSON is "[0,0,0,…": one
 * 64-byte node per two input bytes (32x); a decoder may hold that tree, its
 * compact print for the max_args_bytes check and the text it came from at
 * once. The constant covers fixed-size state and the diagnostics (each kept
 * diagnostic owns a short message).
 */
int64_t tw_fz_mem_bound(size_t len, const tw_limits *L)
{
    size_t eff = len < L->max_input_bytes ? len : L->max_input_bytes;
    size_t diags = L->max_diags < 4096 ? L->max_diags : 4096;
    return (int64_t)eff * 64 + 256 * 1024 + (int64_t)diags * 512;
}

char *tw_fz_copy(const void *p, size_t n)
{
    char *c = malloc(n ? n : 1);
    if (!c)
        tw_fz_fail("out of memory copying %zu bytes", n);
    if (n)
        memcpy(c, p, n);
    return c;
}

void tw_fz_poison(const void *p, size_t n)
{
    TW_FZ_POISON(p, n);
}
void tw_fz_unpoison(const void *p, size_t n)
{
    TW_FZ_UNPOISON(p, n);
}

/* ===================== header ===================== */

static const char test_tools_json[] =
    "[{\"name\":\"get_weather\",\"parameters\":{\"type\":\"object\",\"properties\":"
    "{\"city\":{\"type\":\"string\"},\"unit\":{\"enum\":[\"c\",\"f\"]},\"days\":"
    "{\"type\":\"integer\"}},\"required\":[\"city\"],\"additionalProperties\":false}},"
    "{\"name\":\"search\",\"parameters\":{\"type\":\"object\",\"properties\":{\"query\":"
    "{\"type\":\"string\"},\"n\":{\"type\":[\"integer\",\"null\"]},\"tags\":{\"type\":"
    "\"array\",\"items\":{\"type\":\"string\"}}}}},{\"name\":\"noop\"}]";

static tw_tool *test_tools;
static size_t test_ntools;

static void load_test_tools(void)
{
    if (test_tools)
        return;
    cJSON *j = NULL;
    if (tw_json_parse(test_tools_json, sizeof test_tools_json - 1, 64, &j, NULL) != TW_OK)
        tw_fz_fail("test tools do not parse");
    tw_error why_e = {0};
    if (tw_tools_read(j, NULL, &test_tools, &test_ntools, &why_e) != TW_OK)
        tw_fz_fail("test tools do not read: %s", why_e.message);
    cJSON_Delete(j);
}

void tw_fz_read_header(const uint8_t *data, size_t size, tw_fz_setup *s)
{
    uint8_t h[TW_FZ_HDR] = {0};
    memcpy(h, data, size < TW_FZ_HDR ? size : TW_FZ_HDR);
    memset(s, 0, sizeof *s);
    tw_decode_opts *o = &s->o;
    o->forced_open = h[0] & 1;
    o->unterminated = (h[0] & 2) ? TW_UNTERM_DIRECT : TW_UNTERM_SYNTHESIZE;
    o->bare_json = (h[0] & 4) != 0;
    o->allow_unknown_tool = (h[0] & 8) != 0;
    o->schema_warn = (h[0] & 16) != 0;
    if (h[0] & 32) {
        load_test_tools();
        o->tools = test_tools;
        o->ntools = test_ntools;
        o->tools_declared = true;
    } else if (h[2] & 64) {
        o->tools_declared = true; /* declared, but none: every name is unknown */
    }
    o->think_tags = (unsigned)(h[0] >> 6) & 3u;
    switch (h[1] & 3) {
    case 1: o->finish = TW_FINISH_LENGTH; break;
    case 2: o->finish = TW_FINISH_STOP_SEQUENCE; break;
    default: o->finish = TW_FINISH_STOP; break;
    }
    s->plan_max = 1u + 4u * (unsigned)(h[1] >> 2);
    if (h[2] & 1)
        o->limits.max_args_bytes = 1u + 8u * h[3];
    if (h[2] & 2)
        o->limits.max_calls = 1u + (h[4] & 7u);
    if (h[2] & 4)
        o->limits.max_depth = 1u + (unsigned)(h[4] >> 3);
    if (h[2] & 8)
        o->limits.max_input_bytes = 1u + 16u * h[5];
    if (h[2] & 16)
        o->limits.max_diags = 1u + (h[6] & 7u);
    if (h[2] & 32) {
        o->limits.max_line_bytes = 8u + 32u * (unsigned)(h[6] >> 3);
        o->limits.max_event_bytes = 2u * o->limits.max_line_bytes;
    }
    tw_limits_resolve(&s->L, &o->limits);
    s->seed = h[7];
    s->body = size > TW_FZ_HDR ? data + TW_FZ_HDR : data + size;
    s->len = size > TW_FZ_HDR ? size - TW_FZ_HDR : 0;
}

size_t tw_fz_next_chunk(unsigned *state, unsigned plan_max, size_t left)
{
    size_t n = 1;
    if (*state != 0) {
        /* xorshift32; the seed is never 0 here */
        unsigned x = *state;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *state = x ? x : 1u;
        n = 1 + x % plan_max;
    }
    return n < left ? n : left;
}

/* ===================== result checks ===================== */

/* Does an object in v repeat a key? Read only: nothing is copied. */
static bool has_duplicate_key(const cJSON *v)
{
    if (cJSON_IsObject(v) && tw_json_duplicate_key(v))
        return true;
    for (const cJSON *c = v ? v->child : NULL; c; c = c->next)
        if (has_duplicate_key(c))
            return true;
    return false;
}

/* The length of the UTF-8 sequence m begins, 0 when it is not valid
 * (overlong, a surrogate, past U+10FFFF, cut short): read apart from
 * src/utf8.h, so the check does not share a mistake with the library. */
static size_t utf8_seq(const unsigned char *m)
{
    unsigned c = m[0], cp, min;
    size_t k;
    if (c < 0x80)
        return 1;
    if ((c & 0xE0) == 0xC0) {
        k = 2, cp = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        k = 3, cp = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        k = 4, cp = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    for (size_t j = 1; j < k; j++) {
        if ((m[j] & 0xC0) != 0x80) /* the terminator included */
            return 0;
        cp = cp << 6 | (m[j] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return k;
}

bool tw_fz_safe_text(const char *m, size_t *bad)
{
    const unsigned char *u = (const unsigned char *)m;
    size_t i = 0;
    while (u[i]) {
        size_t k = u[i] < 0x20 || u[i] == 0x7F || (u[i] == 0xC2 && u[i + 1] < 0xA0)
                       ? 0 /* a control byte, DEL, or a C1 control */
                       : utf8_seq(u + i);
        if (!k) {
            *bad = i;
            return false;
        }
        i += k;
    }
    return true;
}

void tw_fz_check_text(const char *m, const char *what)
{
    size_t at = 0;
    TW_FZ_CHECK(tw_fz_safe_text(m, &at), "%s: message is not safe text (byte 0x%02X at %zu)", what,
                (unsigned char)m[at], at);
}

static void check_diags(const tw_diag_list *l, const char *what, size_t len, const char *pass)
{
    for (size_t i = 0; i < l->len; i++) {
        const tw_diag *d = &l->items[i];
        TW_FZ_CHECK(d->code > TW_ERR_UNSUPPORTED && d->code < TW_CODE_COUNT,
                    "%s: %s[%zu] has code %d, not a diagnostic code", pass, what, i, (int)d->code);
        TW_FZ_CHECK(d->offset >= -1 && d->offset <= (int64_t)len,
                    "%s: %s[%zu] (%s) offset %lld outside [-1, %zu]", pass, what, i,
                    tw_code_name(d->code), (long long)d->offset, len);
        TW_FZ_CHECK(d->message != NULL, "%s: %s[%zu] has no message", pass, what, i);
        /* valid UTF-8, no control byte, no DEL: a message may be logged */
        size_t at = 0;
        TW_FZ_CHECK(tw_fz_safe_text(d->message, &at),
                    "%s: %s[%zu] (%s) message is not safe text (byte 0x%02X at %zu)", pass, what, i,
                    tw_code_name(d->code), (unsigned char)d->message[at], at);
    }
}

static void check_call(const tw_call *c, const tw_limits *L, size_t len, const char *pass, size_t i)
{
    TW_FZ_CHECK(c->id && c->id[0], "%s: call %zu has an empty id", pass, i);
    TW_FZ_CHECK(c->name && c->name[0], "%s: call %zu (%s) has an empty name", pass, i, c->id);
    TW_FZ_CHECK(cJSON_IsObject(c->arguments), "%s: call %zu (%s) arguments are not an object", pass,
                i, c->id);
    size_t sz = tw_json_size(c->arguments, L->max_args_bytes);
    TW_FZ_CHECK(sz <= L->max_args_bytes,
                "%s: call %zu (%s) arguments serialise past max_args_bytes %zu", pass, i, c->id,
                L->max_args_bytes);
    TW_FZ_CHECK(c->offset >= -1 && c->offset <= (int64_t)len,
                "%s: call %zu offset %lld outside [-1, %zu]", pass, i, (long long)c->offset, len);
    /* never a value that held U+0000, never a repeated key (docs/text-formats.md rule 14) */
    TW_FZ_CHECK(!tw_json_tainted(c->arguments), "%s: call %zu (%s) arguments lost a NUL value",
                pass, i, c->id);
    TW_FZ_CHECK(!has_duplicate_key(c->arguments), "%s: call %zu (%s) arguments repeat a key", pass,
                i, c->id);
}

static void check_result(const tw_result *r, const tw_limits *L, size_t len, const char *pass)
{
    const tw_message *m = &r->msg;
    TW_FZ_CHECK(m->ncalls <= L->max_calls, "%s: %zu calls, max_calls is %zu", pass, m->ncalls,
                L->max_calls);
    for (size_t i = 0; i < m->ncalls; i++) {
        check_call(&m->calls[i], L, len, pass, i);
        for (size_t j = 0; j < i; j++)
            TW_FZ_CHECK(strcmp(m->calls[i].id, m->calls[j].id) != 0,
                        "%s: calls %zu and %zu share the id '%s'", pass, j, i, m->calls[i].id);
    }
    check_diags(&r->errors, "errors", len, pass);
    check_diags(&r->warnings, "warnings", len, pass);
    /* tw_result_init caps each list at max_diags */
    TW_FZ_CHECK(r->errors.len <= L->max_diags && r->warnings.len <= L->max_diags,
                "%s: %zu errors and %zu warnings kept, max_diags is %zu", pass, r->errors.len,
                r->warnings.len, L->max_diags);
}

static bool has_code(const tw_diag_list *l, tw_status code)
{
    for (size_t i = 0; i < l->len; i++)
        if (l->items[i].code == code)
            return true;
    return l->dropped > 0; /* past max_diags it may be among the dropped */
}

/* Does a key or a string of v hold U+FFFD (where its compact print would
 * show it)? Walked in place, nothing printed. */
static bool holds_replacement(const cJSON *v)
{
    for (; v; v = v->next) {
        const char *k = v->string;
        const char *str = cJSON_IsString(v) || cJSON_IsRaw(v) ? v->valuestring : NULL;
        if ((k && tw_memmem(k, strlen(k), "\xEF\xBF\xBD", 3)) ||
            (str && tw_memmem(str, strlen(str), "\xEF\xBF\xBD", 3)) || holds_replacement(v->child))
            return true;
    }
    return false;
}

/*
 * Rules a decoder's result shows by itself:
 * - qwen3-coder: an argument holding U+FFFD that the input never spells
 *   (neither raw nor as a \u escape) had a byte replaced; the result says
 *   so with json_not_rfc8259, never silently; and the other way round, a
 *   warning that bytes "were written as U+FFFD" is about a value the result
 *   holds (not one a repeated name dropped);
 * - gemini-stream: a call refused for one of its streamed pieces is refused
 *   at the event that held them (the event from that offset holds
 *   "partialArgs"), not at the event that opened the call.
 */
static void check_decoder_rules(const char *name, const char *in, size_t len, const tw_result *r)
{
    bool escapes = tw_memmem(in, len, "\\u", 2) != NULL;
    if (strcmp(name, "qwen3-coder") == 0 && !escapes && !tw_memmem(in, len, "\xEF\xBF\xBD", 3)) {
        bool replaced = false;
        for (size_t i = 0; !replaced && i < r->msg.ncalls; i++)
            replaced = holds_replacement(r->msg.calls[i].arguments);
        TW_FZ_CHECK(!replaced || has_code(&r->warnings, TW_D_JSON_NOT_RFC8259),
                    "qwen3-coder: an argument holds U+FFFD the input does not: a byte was "
                    "replaced without a warning");
    }
    if (strcmp(name, "qwen3-coder") == 0) {
        bool said = false;
        for (size_t i = 0; !said && i < r->warnings.len; i++) {
            const tw_diag *w = &r->warnings.items[i];
            said = w->code == TW_D_JSON_NOT_RFC8259 && w->message &&
                   strstr(w->message, "were written as U+FFFD");
        }
        bool held = false;
        for (size_t i = 0; said && !held && i < r->msg.ncalls; i++)
            held = holds_replacement(r->msg.calls[i].arguments);
        TW_FZ_CHECK(!said || held,
                    "qwen3-coder: a warning says bytes were written as U+FFFD, but no argument "
                    "holds U+FFFD");
    }
    if (strcmp(name, "gemini-stream") == 0 && !escapes) {
        for (size_t i = 0; i < r->errors.len; i++) {
            const tw_diag *e = &r->errors.items[i];
            const char *m = e->message ? e->message : "";
            /* the refusals of a streamed piece, by their codes: a server's
             * own error message (stream_error) may hold any of the words */
            if (e->code != TW_D_TOOL_CALL_JSON && e->code != TW_D_JSON_TOO_DEEP &&
                e->code != TW_D_ARGS_TOO_LARGE)
                continue;
            if (!(strstr(m, "partialArgs") || strstr(m, "jsonPath") ||
                  strstr(m, "streamed arguments")) ||
                strstr(m, "args after partialArgs"))
                continue;
            if (e->offset < 0 || (size_t)e->offset >= len) {
                tw_fz_fail("gemini-stream: '%s' at %lld, outside the input", m,
                           (long long)e->offset);
                continue;
            }
            const char *at = in + e->offset;
            size_t left = len - (size_t)e->offset;
            const char *end = tw_memmem(at, left, "\n\n", 2);
            size_t n = end ? (size_t)(end - at) : left;
            TW_FZ_CHECK(tw_memmem(at, n, "partialArgs", 11) != NULL,
                        "gemini-stream: '%s' at %lld, an event without partialArgs", m,
                        (long long)e->offset);
        }
    }
}

static char *result_json(const tw_result *r, size_t *n)
{
    tw_buf b = {0};
    if (tw_result_write(&b, r, TW_JSON_COMPACT) != TW_OK)
        tw_fz_fail("tw_result_write failed");
    return tw_buf_take(&b, n);
}

/* ===================== comparing results ===================== */

static bool same_cstr(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

/* Two trees node by node, in order: types, keys, strings, number spellings
 * (the bits of the double when neither has one). Never looser than
 * comparing their prints. */
static bool same_json(const cJSON *a, const cJSON *b)
{
    for (; a && b; a = a->next, b = b->next) {
        int t = a->type & 0xFF;
        if (t != (b->type & 0xFF) || !same_cstr(a->string, b->string))
            return false;
        if (t == cJSON_Number) {
            if (a->valuestring || b->valuestring) {
                if (!a->valuestring || !b->valuestring || strcmp(a->valuestring, b->valuestring))
                    return false;
            } else if (memcmp(&a->valuedouble, &b->valuedouble, sizeof a->valuedouble) != 0) {
                return false;
            }
        } else if (t == cJSON_String || t == cJSON_Raw) {
            if (!same_cstr(a->valuestring, b->valuestring))
                return false;
        } else if ((t == cJSON_Array || t == cJSON_Object) && !same_json(a->child, b->child)) {
            return false;
        }
    }
    return !a && !b;
}

static bool same_diags(const tw_diag_list *a, const tw_diag_list *b)
{
    if (a->len != b->len || (a->dropped != 0) != (b->dropped != 0) ||
        (a->dropped && a->dropped != b->dropped))
        return false;
    for (size_t i = 0; i < a->len; i++)
        if (a->items[i].code != b->items[i].code || a->items[i].offset != b->items[i].offset ||
            !same_cstr(a->items[i].message, b->items[i].message))
            return false;
    return true;
}

/*
 * Everything tw_result_write prints but the errors and warnings (and the
 * finish reason when `finish` is false), compared in place: the same answer
 * as comparing two prints of the neutral value (byte-wise where a print
 * would map bytes to U+FFFD), without printing. Equal here means every
 * number of the calls' arguments has the same spelling (or none in both).
 */
static bool same_value(const tw_result *a, const tw_result *b, bool finish)
{
    const tw_message *x = &a->msg, *y = &b->msg;
    if (x->content.len != y->content.len || x->thinking.len != y->thinking.len ||
        (x->content.len && memcmp(x->content.data, y->content.data, x->content.len)) ||
        (x->thinking.len && memcmp(x->thinking.data, y->thinking.data, x->thinking.len)) ||
        !same_cstr(x->thinking_signature, y->thinking_signature) ||
        (!x->thinking_signature) != (!y->thinking_signature) || x->ncalls != y->ncalls ||
        (finish && !same_cstr(a->finish_reason, b->finish_reason)))
        return false;
    for (size_t i = 0; i < x->ncalls; i++) {
        const tw_call *c = &x->calls[i], *d = &y->calls[i];
        if (!same_cstr(c->id, d->id) || !same_cstr(c->name, d->name))
            return false;
        if (!c->arguments || !d->arguments) {
            /* printed as {} when absent: compare the prints */
            size_t n1 = 0, n2 = 0;
            char *p1 = c->arguments ? tw_json_print(c->arguments, &n1) : NULL;
            char *p2 = d->arguments ? tw_json_print(d->arguments, &n2) : NULL;
            bool eq = (p1 ? n1 == 2 && !memcmp(p1, "{}", 2) : true) &&
                      (p2 ? n2 == 2 && !memcmp(p2, "{}", 2) : true);
            free(p1);
            free(p2);
            if (!eq)
                return false;
        } else if (!same_json(c->arguments, d->arguments)) {
            return false;
        }
    }
    return true;
}

/* Everything tw_result_write prints, compared in place (same_value, then
 * the diagnostics). The prints are made only to report a difference. */
static bool same_result(const tw_result *a, const tw_result *b)
{
    return same_value(a, b, true) && same_diags(&a->errors, &b->errors) &&
           same_diags(&a->warnings, &b->warnings);
}

/* The printed neutral value (js, the print of orig) reads back to the same
 * printed value. */
static void check_neutral_roundtrip(const tw_result *orig, const char *js, size_t n,
                                    const tw_limits *L)
{
    if (tw_memmem(js, n, "\\u0000", 6))
        return; /* cJSON strings stop at NUL: not representable after reading */
    /* the tree is only read, then dropped: placed in an arena (one block
     * instead of an allocation per node) when the one-pass parser reads the
     * text; any other text is read by tw_json_parse as before */
    cJSON *j = NULL;
    tw_error je;
    tw_json_lint lint;
    tw_json_arena arena = {0};
    tw_status st = tw_json_parse_lint_in(js, n, TW_DEPTH_HARD_MAX, &j, &je, &lint, &arena);
    if (st != TW_OK || !arena.live) {
        tw_json_arena_drop(&arena, j);
        st = tw_json_parse(js, n, TW_DEPTH_HARD_MAX, &j, &je);
    }
    TW_FZ_CHECK(st == TW_OK, "printed neutral result is not JSON (%s at %lld): %.*s", je.message,
                (long long)je.offset, (int)(n > 2000 ? 2000 : n), js);
    tw_result back;
    tw_error why_e = {0};
    /* read with room for every printed diagnostic, the "N more" entry too */
    tw_limits rl = *L;
    rl.max_diags = L->max_diags + 1;
    st = tw_result_read(j, &rl, &back, &why_e);
    TW_FZ_CHECK(st == TW_OK, "printed neutral result does not read back: %s", why_e.message);
    /* equal in place means equal prints (same_result is never looser); only
     * where they differ (an "N more" entry read back as a diagnostic, bytes
     * printed as U+FFFD) is the value printed again and compared as text */
    if (!orig || !same_result(orig, &back)) {
        size_t n2;
        char *js2 = result_json(&back, &n2);
        TW_FZ_CHECK(n == n2 && memcmp(js, js2, n) == 0,
                    "neutral result changes when read back:\n  printed %.*s\n  reread  %.*s",
                    (int)(n > 2000 ? 2000 : n), js, (int)(n2 > 2000 ? 2000 : n2), js2);
        free(js2);
    }
    tw_result_free(&back);
    tw_json_arena_drop(&arena, j);
    tw_json_arena_free(&arena);
}

/* ===================== numbers ===================== */

/* Every number of v, in document order, as "spelling\n" (a number without
 * a kept spelling as "?\n"). */
static void collect_spellings(const cJSON *v, tw_buf *out)
{
    for (; v; v = v->next) {
        if (cJSON_IsNumber(v)) {
            const char *sp = v->valuestring;
            tw_buf_puts(out, sp ? sp : "?");
            tw_buf_putc(out, '\n');
        }
        collect_spellings(v->child, out);
    }
}

static char *call_spellings(const tw_result *r, size_t *n)
{
    tw_buf b = {0};
    for (size_t i = 0; i < r->msg.ncalls; i++) {
        collect_spellings(r->msg.calls[i].arguments, &b);
        tw_buf_puts(&b, "--\n");
    }
    return tw_buf_take(&b, n);
}

/* The numbers of v and below: each keeps a spelling; with `in`, one that
 * occurs in the input. */
static void check_spellings_of(const cJSON *v, const char *name, const char *in, size_t len)
{
    for (; v; v = v->next) {
        if (cJSON_IsNumber(v)) {
            const char *p = v->valuestring;
            TW_FZ_CHECK(p && strcmp(p, "?") != 0, "%s: a number of the arguments lost its spelling",
                        name);
            size_t k = strlen(p);
            TW_FZ_CHECK(!in || tw_memmem(in, len, p, k),
                        "%s: number spelling %.*s is not in the input", name,
                        (int)(k > 80 ? 80 : k), p);
        }
        check_spellings_of(v->child, name, in, len);
    }
}

/* Every number of every decoded call keeps the text it was written as;
 * a text format takes it straight from the input, so it occurs there,
 * unless it was not RFC 8259 (010, 1.e5): then it takes the spelling every
 * writer gives its value, and the result says so with json_not_rfc8259. */
static void check_number_spellings(const tw_result *r, const char *name, const char *in, size_t len,
                                   bool text)
{
    if (text && has_code(&r->warnings, TW_D_JSON_NOT_RFC8259))
        text = false;
    if (text && tw_memmem(in, len, "\\u", 2))
        text = false; /* escapes inside string arguments */
    /* walked in place: no list of the spellings is built */
    for (size_t i = 0; i < r->msg.ncalls; i++)
        check_spellings_of(r->msg.calls[i].arguments, name, text ? in : NULL, len);
}

/* ===================== streaming ===================== */

/* What one stream's events add up to, compared as they come with what the
 * batch result holds: text bytes by memcmp at the running offset, calls by
 * id and name at their index; nothing is copied or hashed. */
typedef struct ev_text {
    const char *want;
    size_t want_len;
    size_t n; /* bytes the events gave */
    bool differs;
} ev_text;

static void text_add(ev_text *t, const char *p, size_t n)
{
    if (!t->differs && n && (n > t->want_len - t->n || memcmp(t->want + t->n, p, n) != 0))
        t->differs = true;
    t->n += n;
}

static bool text_same(const ev_text *t)
{
    return !t->differs && t->n == t->want_len;
}

typedef struct ev_acc {
    const tw_limits *L;
    size_t len;
    const tw_message *want; /* the batch result's message */
    ev_text content, thinking;
    size_t ncalls;
    bool calls_differ;
} ev_acc;

static tw_status on_event(void *user, const tw_event *ev)
{
    ev_acc *a = user;
    switch (ev->kind) {
    case TW_EV_CONTENT:
        TW_FZ_CHECK(ev->text || ev->len == 0, "content event without text");
        text_add(&a->content, ev->text, ev->len);
        break;
    case TW_EV_THINKING:
        TW_FZ_CHECK(ev->text || ev->len == 0, "thinking event without text");
        text_add(&a->thinking, ev->text, ev->len);
        break;
    case TW_EV_TOOL_CALL:
        TW_FZ_CHECK(ev->call != NULL, "tool-call event without a call");
        check_call(ev->call, a->L, a->len, "stream event", a->ncalls);
        if (a->ncalls >= a->want->ncalls ||
            strcmp(ev->call->id, a->want->calls[a->ncalls].id) != 0 ||
            strcmp(ev->call->name, a->want->calls[a->ncalls].name) != 0)
            a->calls_differ = true;
        a->ncalls++;
        break;
    case TW_EV_ERROR:
    case TW_EV_WARNING:
        TW_FZ_CHECK(ev->diag != NULL, "diagnostic event without a diagnostic");
        TW_FZ_CHECK(ev->diag->offset >= -1 && ev->diag->offset <= (int64_t)a->len,
                    "diagnostic event %s offset %lld outside [-1, %zu]",
                    tw_code_name(ev->diag->code), (long long)ev->diag->offset, a->len);
        break;
    default: tw_fz_fail("unknown event kind %d", (int)ev->kind);
    }
    return TW_OK;
}

/* Stream the body in pieces from one exact-size copy (`in`); the chunk
 * plan starts at `state` (0: one byte at a time). Under ASan every byte of
 * the copy but the piece being fed is poisoned, so a decoder that reads past
 * the end of a piece (or before its start, to ASan's 8-byte granule) is
 * caught as if the piece were a heap block of its own, with no allocation
 * per piece. */
static tw_status run_stream(const tw_format_ops *f, const tw_fz_setup *s, char *in, unsigned state,
                            bool whole, ev_acc *acc, void **dec, tw_result *out)
{
    memset(out, 0, sizeof *out);
    void *st_mem = *dec;
    if (!st_mem) {
        st_mem = *dec = f->new_dec(&s->o, on_event, acc);
        if (!st_mem)
            tw_fz_fail("out of memory");
    } else {
        /* the decoder of the previous stream, finished (or failed) and its
         * result given back: reset must leave nothing of that decode */
        TW_FZ_CHECK(f->reset(st_mem, &s->o, on_event, acc) == TW_OK, "%s: reset failed", f->name);
    }
    tw_status st = TW_OK;
    TW_FZ_POISON(in, s->len);
    for (size_t off = 0; st == TW_OK && off < s->len;) {
        size_t n = whole ? s->len : tw_fz_next_chunk(&state, s->plan_max, s->len - off);
        TW_FZ_UNPOISON(in + off, n);
        st = f->feed(st_mem, in + off, n);
        TW_FZ_POISON(in + off, n);
        off += n;
    }
    TW_FZ_UNPOISON(in, s->len);
    if (st == TW_OK)
        st = f->finish(st_mem, out);
    return st;
}

/* A decoder in the middle of a decode (the first half of the input fed,
 * events to nowhere), for the streams that follow to reset: reset must
 * start over from any state. */
static void *primed_decoder(const tw_format_ops *f, const tw_fz_setup *s, const char *in)
{
    void *d = f->new_dec(&s->o, NULL, NULL);
    if (!d)
        tw_fz_fail("out of memory");
    (void)f->feed(d, in, s->len / 2);
    return d;
}

static bool every_stream;

void tw_fz_set_every_stream(bool on)
{
    every_stream = on;
}

/*
 * The second batch decode (the same input twice gives the same result) runs
 * for a quarter of the inputs: those whose seed byte has bits 1 and 2 clear,
 * a choice independent of the low bit that picks the stream targets' second
 * stream, so across a corpus every target and both stream kinds get it.
 * Under tw_fz_set_every_stream(true) every input gets it.
 */
bool tw_fz_check_twice(const tw_fz_setup *s)
{
    return every_stream || (s->seed & 6u) == 0;
}

/*
 * The streams of one input: the plan from the header; the stream targets
 * add one more, chosen by the low bit of the seed byte so that across inputs both
 * run: one byte at a time (odd seed, bodies of at most 4 KiB) or the whole
 * body in a single feed (even seed; seed 0's plan is already one byte at a
 * time). With tw_fz_set_every_stream(true) the stream targets run all of
 * them.
 */
size_t tw_fz_stream_plans(const tw_fz_setup *s, bool stream_target, unsigned plans[3],
                          bool wholes[3])
{
    size_t n = 0;
    plans[n] = s->seed, wholes[n++] = false;
    if (!stream_target)
        return n;
    bool bytewise = s->seed != 0 && s->len <= 4096;
    if (every_stream) {
        if (bytewise)
            plans[n] = 0, wholes[n++] = false;
        plans[n] = 0, wholes[n++] = true;
    } else if (bytewise && (s->seed & 1)) {
        plans[n] = 0, wholes[n++] = false;
    } else {
        plans[n] = 0, wholes[n++] = true;
    }
    return n;
}

/* ===================== encode, then decode ===================== */

/* The encoder of a decoder's format, from the table of formats: the result
 * encoder of the decoder's name, or of NAME-response (vllm-generate's). */
static const tw_encoder_ops *result_encoder_of(const char *dec)
{
    const tw_encoder_ops *e = tw_encoder_find(dec);
    if (e && e->input == TW_ENC_RESULT)
        return e;
    char nm[96];
    snprintf(nm, sizeof nm, "%s-response", dec);
    e = tw_encoder_find(nm);
    return e && e->input == TW_ENC_RESULT ? e : NULL;
}

/* The neutral value without errors and warnings, printed compactly. */
static char *neutral_value(const tw_result *r, bool drop_finish, size_t *n)
{
    tw_result v = *r;
    if (drop_finish)
        v.finish_reason = NULL;
    memset(&v.errors, 0, sizeof v.errors);
    memset(&v.warnings, 0, sizeof v.warnings);
    return result_json(&v, n);
}

/* partial: the encoder writes call arguments as streamed pieces (gemini-stream's
 * partialArgs; strings split in pieces of a size taken from the input's seed) */
static void encode_roundtrip(const tw_format_ops *f, const tw_fz_setup *s, const tw_result *r,
                             const tw_encoder_ops *e, bool partial)
{
    if (r->errors.len > 0)
        return; /* only a clean decode has a value every encoder must carry */
    tw_diag_list warn = {0};
    tw_encode_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.warnings = &warn;
    eo.partial_args = partial;
    eo.args_fragment = partial ? (size_t)(s->seed % 5) : 0;
    tw_buf wire = {0};
    tw_status st = e->encode_result(r, &eo, &wire);
    for (size_t i = 0; i < warn.len; i++)
        tw_fz_check_text(warn.items[i].message, e->name);
    bool skip = st != TW_OK || warn.len > 0;
    /* not implemented yet, over max_output_bytes, or a value the format
     * cannot carry (not_carried): nothing to compare */
    tw_diag_list_free(&warn);
    if (skip) {
        tw_buf_free(&wire);
        return;
    }
    tw_decode_opts o2 = s->o;
    memset(&o2.limits, 0, sizeof o2.limits);
    o2.limits.max_diags = s->L.max_diags;
    tw_result r2;
    memset(&r2, 0, sizeof r2);
    st = f->decode(wire.data ? wire.data : "", wire.len, &o2, &r2);
    TW_FZ_CHECK(st == TW_OK, "%s: decoding the encoder's output failed (%s)", f->name,
                tw_code_name(st));
    /* no finish_reason decoded: the encoder writes its format's default */
    bool no_finish = !r->finish_reason || !r->finish_reason[0];
    /* equal in place: the same neutral value, every number with the same
     * spelling (same_value is never looser than the prints below); only
     * where they differ are the spellings and the values printed */
    if (same_value(r, &r2, !no_finish)) {
        tw_result_free(&r2);
        tw_buf_free(&wire);
        return;
    }
    size_t n1, n2;
    /* every number keeps its spelling through the wire format */
    char *sa = call_spellings(r, &n1), *sb = call_spellings(&r2, &n2);
    TW_FZ_CHECK(n1 == n2 && memcmp(sa, sb, n1) == 0,
                "%s: encode then decode changes a number's spelling:\n  decoded   %.*s\n  "
                "re-decoded %.*s",
                f->name, (int)(n1 > 2000 ? 2000 : n1), sa, (int)(n2 > 2000 ? 2000 : n2), sb);
    free(sa);
    free(sb);
    char *a = neutral_value(r, no_finish, &n1), *b = neutral_value(&r2, no_finish, &n2);
    TW_FZ_CHECK(n1 == n2 && memcmp(a, b, n1) == 0,
                "%s: encode then decode changes the neutral value:\n  decoded   %.*s\n  "
                "re-decoded %.*s\n  wire %.*s",
                f->name, (int)(n1 > 2000 ? 2000 : n1), a, (int)(n2 > 2000 ? 2000 : n2), b,
                (int)(wire.len > 2000 ? 2000 : wire.len), wire.data);
    free(a);
    free(b);
    tw_result_free(&r2);
    tw_buf_free(&wire);
}

static void check_encode_roundtrip(const tw_format_ops *f, const tw_fz_setup *s, const tw_result *r)
{
    const tw_encoder_ops *e = result_encoder_of(f->name);
    if (!e)
        return;
    encode_roundtrip(f, s, r, e, false);
    /* the one encoder with a second way of writing arguments */
    if (strcmp(e->name, "gemini-stream") == 0)
        encode_roundtrip(f, s, r, e, true);
}

/* ===================== decoder targets ===================== */

enum { MODE_BATCH = 0, MODE_STREAM = 1 };

/* Work counted per input byte (plus 64 bytes' worth) that a decode may do:
 * a few passes over the body, constant work per call, and a few bytes
 * searched again per feed when the input comes one byte at a time. */
#define TW_FZ_WORK_PER_BYTE 64u

static int check_decoder(const char *name, const uint8_t *data, size_t size, int mode)
{
    const tw_format_ops *f = tw_format_find(name);
    if (!f)
        return 0; /* not registered in this build */
    tw_fz_setup s;
    tw_fz_read_header(data, size, &s);
    const tw_limits *L = &s.L;
    bool mem = tw_fz_mem_enabled();
    int64_t base0 = tw_fz_mem_live();
    char *in = tw_fz_copy(s.body, s.len);
    int64_t bound = tw_fz_mem_bound(s.len, L);

    /* batch, twice */
    int64_t base = tw_fz_mem_live();
    tw_fz_mem_mark();
    tw_result r1;
    memset(&r1, 0, sizeof r1);
    tw_work_reset();
    tw_status st1 = f->decode(in, s.len, &s.o, &r1);
    uint64_t work = tw_work_count();
    if (st1 == TW_ERR_UNSUPPORTED) {
        tw_result_free(&r1);
        free(in);
        return 0; /* the decoder is not built yet */
    }
    int64_t peak = tw_fz_mem_peak() - base;
    TW_FZ_CHECK(!mem || peak <= bound, "%s batch: peak memory %lld bytes over the bound %lld", name,
                (long long)peak, (long long)bound);
    TW_FZ_CHECK(st1 == TW_OK, "%s batch: decode returned %s", name, tw_code_name(st1));
    TW_FZ_CHECK(work <= TW_FZ_WORK_PER_BYTE * ((uint64_t)s.len + 64),
                "%s batch: %llu units of work (src/work.h) for %zu input bytes: a rescan", name,
                (unsigned long long)work, s.len);
    check_result(&r1, L, s.len, "batch");
    check_decoder_rules(name, in, s.len, &r1);
    check_number_spellings(&r1, name, in, s.len, tw_decoder_is_text(name));
    if (tw_decoder_is_text(name)) {
        const char *fr = r1.finish_reason ? r1.finish_reason : "";
        TW_FZ_CHECK((r1.msg.ncalls > 0) == (strcmp(fr, "tool_calls") == 0),
                    "%s: %zu calls but finish_reason '%s'", name, r1.msg.ncalls, fr);
        TW_FZ_CHECK(strcmp(name, "think") != 0 || r1.msg.ncalls == 0,
                    "think: the think format extracted a call");
    }
    size_t n1;
    char *j1 = result_json(&r1, &n1);
    check_neutral_roundtrip(&r1, j1, n1, L);

    if (tw_fz_check_twice(&s)) {
        tw_result r2;
        memset(&r2, 0, sizeof r2);
        tw_status st2 = f->decode(in, s.len, &s.o, &r2);
        if (st1 != st2 || !same_result(&r1, &r2)) {
            size_t n2;
            char *j2 = result_json(&r2, &n2);
            tw_fz_fail("%s: the same input twice gives two results:\n  first  %.*s\n  second %.*s",
                       name, (int)(n1 > 2000 ? 2000 : n1), j1, (int)(n2 > 2000 ? 2000 : n2), j2);
        }
        tw_result_free(&r2);
    }

    unsigned plans[3];
    bool wholes[3];
    size_t nplans = tw_fz_stream_plans(&s, mode == MODE_STREAM, plans, wholes);
    /* every stream of the input on one decoder, reset in between and its
     * result given back with recycle, as a client decoding one output after
     * another does; for the inputs that get the second batch decode, the
     * first stream starts from a decoder reset in mid-decode */
    void *dec = tw_fz_check_twice(&s) ? primed_decoder(f, &s, in) : NULL;
    for (size_t p = 0; p < nplans; p++) {
        ev_acc acc = {.L = L, .len = s.len, .want = &r1.msg};
        acc.content.want = r1.msg.content.data, acc.content.want_len = r1.msg.content.len;
        acc.thinking.want = r1.msg.thinking.data, acc.thinking.want_len = r1.msg.thinking.len;
        base = tw_fz_mem_live();
        tw_fz_mem_mark();
        tw_result rs;
        tw_work_reset();
        tw_status sts = run_stream(f, &s, in, plans[p], wholes[p], &acc, &dec, &rs);
        work = tw_work_count();
        TW_FZ_CHECK(work <= TW_FZ_WORK_PER_BYTE * ((uint64_t)s.len + 64),
                    "%s stream (plan seed %u): %llu units of work for %zu input bytes", name,
                    plans[p], (unsigned long long)work, s.len);
        peak = tw_fz_mem_peak() - base;
        TW_FZ_CHECK(!mem || peak <= bound + (int64_t)s.len,
                    "%s stream: peak memory %lld bytes over the bound %lld", name, (long long)peak,
                    (long long)(bound + (int64_t)s.len));
        TW_FZ_CHECK(sts == st1, "%s: stream returned %s, batch %s", name, tw_code_name(sts),
                    tw_code_name(st1));
        check_result(&rs, L, s.len, "stream");
        if (!same_result(&r1, &rs)) {
            size_t ns;
            char *js = result_json(&rs, &ns);
            tw_fz_fail("%s: streaming (plan seed %u, max chunk %u%s) differs from batch:\n  batch  "
                       "%.*s\n  stream %.*s",
                       name, plans[p], s.plan_max, wholes[p] ? ", one feed" : "",
                       (int)(n1 > 2000 ? 2000 : n1), j1, (int)(ns > 2000 ? 2000 : ns), js);
        }
        /* what was emitted is what the result holds: nothing retracted */
        TW_FZ_CHECK(text_same(&acc.content),
                    "%s: content events (%zu bytes) differ from the final content (%zu bytes)",
                    name, acc.content.n, acc.content.want_len);
        TW_FZ_CHECK(text_same(&acc.thinking),
                    "%s: thinking events (%zu bytes) differ from the final thinking (%zu bytes)",
                    name, acc.thinking.n, acc.thinking.want_len);
        TW_FZ_CHECK(acc.ncalls == rs.msg.ncalls && acc.ncalls == r1.msg.ncalls && !acc.calls_differ,
                    "%s: %zu tool-call events, %zu calls in the result", name, acc.ncalls,
                    rs.msg.ncalls);
        f->recycle(dec, &rs);
        static const tw_result empty;
        TW_FZ_CHECK(memcmp(&rs, &empty, sizeof rs) == 0, "%s: recycle left the result non-empty",
                    name);
    }
    f->free_dec(dec);

    check_encode_roundtrip(f, &s, &r1);
    free(j1);
    tw_result_free(&r1);
    free(in);
    TW_FZ_CHECK(!mem || tw_fz_mem_live() == base0,
                "%s: %lld bytes still allocated after "
                "every result was freed (a leak)",
                name, (long long)(tw_fz_mem_live() - base0));
    return 0;
}

/* one function per decoder target of the table (src/format_table.h) */
#define TW_FZ_DECODER_TARGET(t, nm, mode)                                                          \
    int tw_fz_##t(const uint8_t *d, size_t n)                                                      \
    {                                                                                              \
        return check_decoder(nm, d, n, MODE_##mode);                                               \
    }
#define TW_FZ_DECODER_ROW(sym, nm, fam, fuzz) TW_FUZZ_EACH(TW_FZ_DECODER_TARGET, nm, fuzz)
#define TW_FZ_NONE3(a, b, c)
#define TW_FZ_NONE4(a, b, c, d)
TW_FORMAT_TABLE(TW_FZ_DECODER_ROW, TW_FZ_NONE4, TW_FZ_NONE3)

/* ===================== schema ===================== */

static const char *json_type_name(const cJSON *v)
{
    if (cJSON_IsObject(v))
        return "object";
    if (cJSON_IsArray(v))
        return "array";
    if (cJSON_IsString(v))
        return "string";
    if (cJSON_IsBool(v))
        return "boolean";
    if (cJSON_IsNull(v))
        return "null";
    return "number";
}

/*
 * Input: byte 0 chooses max_depth (1 + value % 72), byte 1 the size of the
 * `why` buffer (0: no error struct); then a schema JSON, one NUL byte, a value JSON.
 */
int tw_fz_schema(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t depth = 1 + data[0] % 72u;
    size_t whylen = data[1];
    const char *body = (const char *)data + 2;
    size_t len = size - 2;
    const char *nul = memchr(body, 0, len);
    if (!nul)
        return 0;
    size_t slen = (size_t)(nul - body);
    cJSON *schema = NULL, *value = NULL;
    char *sbuf = tw_fz_copy(body, slen), *vbuf = tw_fz_copy(nul + 1, len - slen - 1);
    bool ok = tw_json_parse(sbuf, slen, 200, &schema, NULL) == TW_OK &&
              tw_json_parse(vbuf, len - slen - 1, 200, &value, NULL) == TW_OK;
    free(sbuf);
    free(vbuf);
    if (!ok) {
        cJSON_Delete(schema);
        cJSON_Delete(value);
        return 0;
    }
    bool mem = tw_fz_mem_enabled();
    tw_error e1, e2;
    tw_error *why1 = whylen ? &e1 : NULL, *why2 = whylen ? &e2 : NULL;
    int64_t base = tw_fz_mem_live();
    tw_fz_mem_mark();
    bool r1 = tw_schema_validate(schema, value, depth, why1);
    int64_t peak = tw_fz_mem_peak() - base;
    int64_t bound = 64 * (int64_t)len + 64 * 1024;
    TW_FZ_CHECK(!mem || peak <= bound, "schema: peak memory %lld over the bound %lld",
                (long long)peak, (long long)bound);
    TW_FZ_CHECK(!mem || tw_fz_mem_live() == base, "schema: validation leaked %lld bytes",
                (long long)(tw_fz_mem_live() - base));
    bool r2 = tw_schema_validate(schema, value, depth, why2);
    bool r3 = tw_schema_validate(schema, value, depth, NULL);
    TW_FZ_CHECK(r1 == r2 && r1 == r3, "schema: one schema and value, results %d %d %d", r1, r2, r3);
    if (!r1 && whylen) {
        TW_FZ_CHECK(memchr(e1.message, 0, sizeof e1.message) != NULL,
                    "schema: why is not NUL-terminated");
        tw_fz_check_text(e1.message, "schema: why");
        TW_FZ_CHECK(strcmp(e1.message, e2.message) == 0,
                    "schema: why differs between runs: '%s' / '%s'", e1.message, e2.message);
    }
    TW_FZ_CHECK(tw_schema_validate(NULL, value, depth, NULL), "schema: NULL schema refused");
    cJSON *empty = cJSON_CreateObject();
    TW_FZ_CHECK(tw_schema_validate(empty, value, depth, NULL),
                "schema: the empty schema {} refused a value");
    size_t vdepth = tw_json_depth(nul + 1, len - slen - 1, 200);
    /* tw_json_equal looks keys up by name, so a value with a duplicate key
     * is not equal to itself: no enum identity for it */
    if (vdepth + 2 <= depth && !has_duplicate_key(value)) {
        /* a value is in an enum that lists it, and has its own type */
        cJSON *en = cJSON_CreateObject(), *arr = cJSON_CreateArray();
        cJSON_AddItemToArray(arr, cJSON_Duplicate(value, 1));
        cJSON_AddItemToObject(en, "enum", arr);
        TW_FZ_CHECK(tw_schema_validate(en, value, depth, NULL),
                    "schema: {\"enum\": [v]} refused v");
        cJSON *ty = cJSON_CreateObject();
        cJSON_AddStringToObject(ty, "type", json_type_name(value));
        TW_FZ_CHECK(tw_schema_validate(ty, value, depth, NULL),
                    "schema: {\"type\": \"%s\"} refused a value of that type",
                    json_type_name(value));
        /* and in upper case (Gemini's and OpenAPI's spelling): the same answer,
         * here and for the input's own schema */
        char up[16];
        snprintf(up, sizeof up, "%s", json_type_name(value));
        for (char *c = up; *c; c++)
            *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
        cJSON_ReplaceItemInObject(ty, "type", cJSON_CreateString(up));
        TW_FZ_CHECK(tw_schema_validate(ty, value, depth, NULL),
                    "schema: {\"type\": \"%s\"} refused a value of that type", up);
        cJSON_Delete(en);
        cJSON_Delete(ty);
    }
    cJSON_Delete(empty);
    cJSON_Delete(schema);
    cJSON_Delete(value);
    return 0;
}

/* ===================== registry ===================== */

/* The table's targets (src/format_table.h) that this build has: every
 * decoder's, and the others whose module is there (fuzz/detect.cmake). */
#define TW_FZ_ALWAYS 1
#ifndef TW_FZ_HAVE_SSE
#define TW_FZ_HAVE_SSE 0
#endif
#ifndef TW_FZ_HAVE_FIXTURE
#define TW_FZ_HAVE_FIXTURE 0
#endif
#ifndef TW_FZ_HAVE_IMPORT
#define TW_FZ_HAVE_IMPORT 0
#endif
#ifndef TW_FZ_HAVE_JSON_DIFF
#define TW_FZ_HAVE_JSON_DIFF 0
#endif
/* a target not built has no function (NULL) and is left out by its flag */
#define TW_FZ_FN_1(t) tw_fz_##t
#define TW_FZ_FN_0(t) NULL
#define TW_FZ_FN_(have, t) TW_FZ_FN_##have(t)
#define TW_FZ_FN(have, t) TW_FZ_FN_(have, t)
#define TW_FZ_ROW_T(t, nm, mode) {#t, tw_fz_##t, 1},
#define TW_FZ_ROW_D(sym, nm, fam, fuzz) TW_FUZZ_EACH(TW_FZ_ROW_T, nm, fuzz)
#define TW_FZ_ROW_O(t, have) {#t, TW_FZ_FN(TW_FZ_##have, t), TW_FZ_##have},

static const struct {
    const char *name;
    tw_fz_fn fn;
    int built;
} all_targets[] = {TW_FORMAT_TABLE(TW_FZ_ROW_D, TW_FZ_NONE4, TW_FZ_NONE3)
                       TW_FUZZ_OTHER_TARGETS(TW_FZ_ROW_O)};

#define NALL (sizeof all_targets / sizeof all_targets[0])

/* tw_fz_target_names' order: the decoders' targets, then the others */
static size_t built_targets(const char **names, tw_fz_fn *fns)
{
    size_t n = 0;
    for (size_t i = 0; i < NALL; i++)
        if (all_targets[i].built) {
            if (names)
                names[n] = all_targets[i].name;
            if (fns)
                fns[n] = all_targets[i].fn;
            n++;
        }
    return n;
}

tw_fz_fn tw_fz_target(const char *name)
{
    for (size_t i = 0; i < NALL; i++)
        if (all_targets[i].built && strcmp(all_targets[i].name, name) == 0)
            return all_targets[i].fn;
    return NULL;
}

const char *const *tw_fz_target_names(void)
{
    static const char *names[NALL + 1];
    names[built_targets(names, NULL)] = NULL;
    return names;
}

const char *const *tw_fz_table_target_names(void)
{
    static const char *names[NALL + 1];
    for (size_t i = 0; i < NALL; i++)
        names[i] = all_targets[i].name;
    names[NALL] = NULL;
    return names;
}
