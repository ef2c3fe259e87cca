/*
 * The one-pass JSON parser and its arena (json_marks.h).
 */
#include "alloc.h"
#include "toolwire/json.h"
#include "json_int.h"
#include "json_marks.h"
#include "utf8.h"
#include "work.h"

#include <limits.h>
#include <locale.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ===================== the one-pass parser =====================
 *
 * tw_json_parse and tw_json_parse_lint first read the text in one pass that
 * builds the tree cJSON would build, keeps each number's spelling, measures
 * the depth and marks each container whose objects repeat no key. It takes
 * only what is RFC 8259 JSON and reads the same under cJSON: whitespace of
 * the four RFC bytes, strings without control bytes, with valid UTF-8 and
 * escapes that decode to neither U+0000 nor a lone surrogate, numbers in RFC
 * form of at most 63 bytes not followed by another number character, and
 * nesting within the cap. On anything else it gives up, and the reading
 * before it (the lint scan, cJSON, the error walk) runs as it always has:
 * the same tree, the same findings, the same errors at the same offsets.
 * After the lint scan, tw_json_parse_lint gives it a second pass in its
 * lenient form (tw_json_lenient_parse) before cJSON. */

typedef struct fast_parser {
    const char *b;
    size_t n, i;
    size_t max_depth, depth, deepest;
    int fail;
    char *tmp; /* scratch for decoding a string with escapes: local, or malloc'd
                  past it (freed by fast_done) */
    size_t tmp_cap;
    tw_buf *marks;        /* where each container begins (json_marks.h), or NULL */
    tw_json_arena *arena; /* where the nodes and strings go (json_marks.h); NULL:
                             cJSON's allocator */
    bool lenient;         /* also take what cJSON takes past RFC 8259 between tokens and
                             inside strings (tw_json_lenient_parse) */
    char local[4096];
} fast_parser;

static void fast_init(fast_parser *p, const char *buf, size_t len, size_t max_depth)
{
    p->b = buf;
    p->n = len;
    p->i = 0;
    p->max_depth = max_depth;
    p->depth = p->deepest = 0;
    p->fail = FAST_OK;
    p->tmp = p->local;
    p->tmp_cap = sizeof p->local;
    p->marks = NULL;
    p->arena = NULL;
    p->lenient = false;
}

/* ---- the arena (json_marks.h) ---- */

struct tw_json_arena_blk {
    tw_json_arena_blk *next; /* the block filled before this one */
    size_t cap, used;
    max_align_t data[]; /* cap bytes */
};

#define TW_ARENA_ALIGN sizeof(max_align_t)

static void *arena_alloc(tw_json_arena *a, size_t n)
{
    n = (n + TW_ARENA_ALIGN - 1) & ~(TW_ARENA_ALIGN - 1);
    tw_json_arena_blk *b = a->blk;
    if (!b || b->cap - b->used < n) {
        /* the first block as a->first asks, each next one at least twice
         * the last: the blocks a text takes are few, and their sum is at
         * most four times what it used */
        size_t cap = b ? 2 * b->cap : a->first > 4096 ? a->first : 4096;
        if (cap < n)
            cap = n;
        tw_json_arena_blk *nb = tw_malloc(sizeof *nb + cap);
        if (!nb)
            return NULL;
        nb->next = b;
        nb->cap = cap;
        nb->used = 0;
        a->blk = b = nb;
    }
    void *r = (char *)b->data + b->used;
    b->used += n;
    return r;
}

void tw_json_arena_reset(tw_json_arena *a)
{
    tw_json_arena_blk *b = a->blk;
    a->live = false;
    if (!b)
        return;
    /* keep the last (largest) block for the next tree */
    tw_json_arena_blk *old = b->next;
    while (old) {
        tw_json_arena_blk *nx = old->next;
        tw_free(old);
        old = nx;
    }
    b->next = NULL;
    b->used = 0;
}

void tw_json_arena_free(tw_json_arena *a)
{
    tw_json_arena_reset(a);
    tw_free(a->blk);
    a->blk = NULL;
}

void tw_json_arena_drop(tw_json_arena *a, cJSON *root)
{
    if (a->live)
        tw_json_arena_reset(a);
    else
        cJSON_Delete(root);
}

/* n bytes for a string of the tree */
static char *fast_mem(fast_parser *p, size_t n)
{
    return p->arena ? arena_alloc(p->arena, n) : cJSON_malloc(n);
}

static void fast_drop_str(fast_parser *p, char *s)
{
    if (!p->arena)
        cJSON_free(s);
}

/* Drop a tree being built after a failure (an arena's is dropped whole by its owner). */
static void fast_drop(fast_parser *p, cJSON *v)
{
    if (!p->arena)
        cJSON_Delete(v);
}

/* A node of `type`, zeroed, as cJSON_New_Item makes it. */
static cJSON *fast_node(fast_parser *p, int type)
{
    cJSON *v = p->arena ? arena_alloc(p->arena, sizeof *v) : cJSON_malloc(sizeof *v);
    if (v) {
        memset(v, 0, sizeof *v);
        v->type = type;
    }
    return v;
}

/* A number node holding d, as cJSON_CreateNumber fills it. */
static cJSON *fast_number_node(fast_parser *p, double d)
{
    cJSON *v = fast_node(p, cJSON_Number);
    if (v) {
        v->valuedouble = d;
        v->valueint = d >= INT_MAX ? INT_MAX : d <= (double)INT_MIN ? INT_MIN : (int)d;
    }
    return v;
}

/* Where the text is not JSON: cJSON refuses it too in the lenient reading,
 * which takes what cJSON takes there; the strict one only gives up. */
static int fast_fault(const fast_parser *p)
{
    return p->lenient ? FAST_NOT_JSON : FAST_BAIL;
}

static void fast_done(fast_parser *p)
{
    if (p->tmp != p->local)
        tw_free(p->tmp);
}

static bool fast_space(unsigned char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static void fast_skip(fast_parser *p)
{
    if (p->lenient) {
        /* cJSON steps over every byte up to 0x20 between tokens */
        while (p->i < p->n && (unsigned char)p->b[p->i] <= 0x20)
            p->i++;
        return;
    }
    while (p->i < p->n && fast_space((unsigned char)p->b[p->i]))
        p->i++;
}

static int hex_val(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)(c | 0x20);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Four hex digits at s (n bytes left) into *u; false when not four. */
static bool fast_hex4(const char *s, size_t n, unsigned *u)
{
    if (n < 4)
        return false;
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        int d = hex_val(s[k]);
        if (d < 0)
            return false;
        v = v * 16 + (unsigned)d;
    }
    *u = v;
    return true;
}

static char *put_utf8(char *o, unsigned u)
{
    if (u < 0x80) {
        *o++ = (char)u;
    } else if (u < 0x800) {
        *o++ = (char)(0xC0 | (u >> 6));
        *o++ = (char)(0x80 | (u & 0x3F));
    } else if (u < 0x10000) {
        *o++ = (char)(0xE0 | (u >> 12));
        *o++ = (char)(0x80 | ((u >> 6) & 0x3F));
        *o++ = (char)(0x80 | (u & 0x3F));
    } else {
        *o++ = (char)(0xF0 | (u >> 18));
        *o++ = (char)(0x80 | ((u >> 12) & 0x3F));
        *o++ = (char)(0x80 | ((u >> 6) & 0x3F));
        *o++ = (char)(0x80 | (u & 0x3F));
    }
    return o;
}

/* Room for `more` bytes past the used part of the parser's scratch buffer
 * (grown by doubling; bounded by the string being decoded, so by the
 * input). False when it cannot grow. */
static bool scratch_grow(fast_parser *p, size_t used, size_t more)
{
    size_t cap = p->tmp_cap;
    while (cap - used < more)
        cap *= 2;
    char *t = p->tmp == p->local ? tw_malloc(cap) : tw_realloc(p->tmp, cap);
    if (!t)
        return false;
    if (p->tmp == p->local)
        memcpy(t, p->local, used);
    p->tmp = t;
    p->tmp_cap = cap;
    return true;
}

static inline bool scratch_room(fast_parser *p, size_t used, size_t more)
{
    return p->tmp_cap - used >= more || scratch_grow(p, used, more);
}

/* The string at b[i] == '"', checked and decoded in one pass: runs of plain
 * bytes are stepped over eight at a time (to the first special byte of a
 * word), a string without escapes is copied in one piece from the text, and
 * one with escapes is decoded into the parser's scratch buffer (a run
 * appended in one copy at each escape) and copied from there. The result is
 * in cJSON's allocator. NULL with p->fail set when it gives up. */
static char *fast_string(fast_parser *p)
{
    /* the byte each one-letter escape stands for; 0: not one */
    static const char one_letter[256] = {['"'] = '"',  ['\\'] = '\\', ['/'] = '/',  ['b'] = '\b',
                                         ['f'] = '\f', ['n'] = '\n',  ['r'] = '\r', ['t'] = '\t'};
    const char *b = p->b;
    size_t n = p->n, s = p->i + 1, i = s;
    size_t run = s;  /* start of the plain bytes not yet in the scratch buffer */
    size_t olen = 0; /* decoded bytes in the scratch buffer */
    bool esc = false;
    for (;;) {
        while (i + 8 <= n) {
            uint64_t m = special_bits(b + i);
            if (!m) {
                i += 8;
                continue;
            }
            i += first_special(m);
            break;
        }
        if (i >= n)
            goto fault;
        unsigned char c = (unsigned char)b[i];
        if (c == '"')
            break;
        if (c >= 0x20 && c < 0x80 && c != '\\') {
            i++;
            continue;
        }
        if (c >= 0x80) {
            size_t k = tw_utf8_len((const unsigned char *)b + i, n - i);
            if (!k) {
                if (!p->lenient)
                    goto bail;
                k = 1; /* cJSON copies invalid UTF-8 as it is */
            }
            i += k;
            continue;
        }
        if (c != '\\') {
            /* a control byte: cJSON copies it (U+0000 is left to the reading
             * that prunes it) */
            if (!p->lenient || c == 0)
                goto bail;
            i++;
            continue;
        }
        /* the plain run before it, then the escapes that follow one
         * another, into the scratch buffer */
        size_t plain = i - run;
        if (!scratch_room(p, olen, plain + 8)) {
            p->fail = FAST_NOMEM;
            return NULL;
        }
        char *o = p->tmp + olen;
        if (plain <= 8 && run + 8 <= n)
            memcpy(o, b + run, 8); /* one word; the bytes past the run are overwritten */
        else
            memcpy(o, b + run, plain);
        o += plain;
        esc = true;
        do {
            if (i + 1 >= n)
                goto fault;
            unsigned char e = (unsigned char)b[i + 1];
            if (one_letter[e]) {
                *o++ = one_letter[e];
                i += 2;
            } else if (e == 'u') {
                unsigned u, l;
                if (!fast_hex4(b + i + 2, n - i - 2, &u) || u == 0 || (u >= 0xDC00 && u <= 0xDFFF))
                    goto bail;
                if (u >= 0xD800 && u <= 0xDBFF) {
                    if (i + 12 > n || b[i + 6] != '\\' || b[i + 7] != 'u' ||
                        !fast_hex4(b + i + 8, n - i - 8, &l) || l < 0xDC00 || l > 0xDFFF)
                        goto bail;
                    u = 0x10000 + ((u - 0xD800) << 10) + (l - 0xDC00);
                    i += 12;
                } else {
                    i += 6;
                }
                o = put_utf8(o, u);
            } else {
                goto fault;
            }
            olen = (size_t)(o - p->tmp);
            /* room for the next escape's four bytes */
            if (i < n && b[i] == '\\' && !scratch_room(p, olen, 4)) {
                p->fail = FAST_NOMEM;
                return NULL;
            }
            o = p->tmp + olen;
        } while (i < n && b[i] == '\\');
        run = i;
    }
    const char *from = b + s;
    size_t len = i - s;
    if (esc) {
        size_t plain = i - run;
        if (!scratch_room(p, olen, plain)) {
            p->fail = FAST_NOMEM;
            return NULL;
        }
        memcpy(p->tmp + olen, b + run, plain);
        from = p->tmp;
        len = olen + plain;
    }
    char *dst = fast_mem(p, len + 1);
    if (!dst) {
        p->fail = FAST_NOMEM;
        return NULL;
    }
    memcpy(dst, from, len);
    dst[len] = '\0';
    p->i = i + 1;
    return dst;
bail:
    p->fail = FAST_BAIL;
    return NULL;
fault:
    p->fail = fast_fault(p);
    return NULL;
}

static bool fast_digit(const char *b, size_t n, size_t i)
{
    return i < n && b[i] >= '0' && b[i] <= '9';
}

/* A number in RFC form; its value as cJSON reads it (strtod on the token,
 * with the locale's decimal point as cJSON does, or the integer itself when
 * it has at most 15 digits, which a double holds exactly) and its spelling. */
static cJSON *fast_number(fast_parser *p)
{
    const char *b = p->b;
    size_t n = p->n, s = p->i, i = s;
    bool neg = false, integral = true;
    uint64_t m = 0;
    size_t nd = 0;
    if (b[i] == '-') {
        neg = true;
        i++;
    }
    if (i < n && b[i] == '0') {
        i++;
        nd = 1;
    } else if (fast_digit(b, n, i)) {
        for (; fast_digit(b, n, i); i++, nd++)
            m = m * 10 + (uint64_t)(b[i] - '0');
    } else {
        goto bail;
    }
    if (i < n && b[i] == '.') {
        i++;
        if (!fast_digit(b, n, i))
            goto bail;
        while (fast_digit(b, n, i))
            i++;
        integral = false;
    }
    if (i < n && (b[i] == 'e' || b[i] == 'E')) {
        i++;
        if (i < n && (b[i] == '+' || b[i] == '-'))
            i++;
        if (!fast_digit(b, n, i))
            goto bail;
        while (fast_digit(b, n, i))
            i++;
        integral = false;
    }
    size_t len = i - s;
    if ((i < n && tw_json_num_char((unsigned char)b[i])) || len > 63)
        goto bail; /* 01, 1.2.3, or longer than cJSON reads a number */
    double d;
    if (integral && nd <= 15) {
        d = neg ? -(double)m : (double)m;
    } else {
        char tmp[64], *end = NULL;
        char dp = *localeconv()->decimal_point;
        memcpy(tmp, b + s, len);
        tmp[len] = '\0';
        for (size_t k = 0; k < len; k++)
            if (tmp[k] == '.')
                tmp[k] = dp;
        d = strtod(tmp, &end);
        if (end != tmp + len)
            goto bail;
    }
    cJSON *v = fast_number_node(p, d);
    char *sp = v ? fast_mem(p, len + 1) : NULL;
    if (!sp) {
        fast_drop(p, v);
        p->fail = FAST_NOMEM;
        return NULL;
    }
    memcpy(sp, b + s, len);
    sp[len] = '\0';
    v->valuestring = sp;
    p->i = i;
    return v;
bail:
    p->fail = FAST_BAIL;
    return NULL;
}

static uint64_t key_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h ^ (h >> 29);
}

/*
 * Does an object's member list (n > 1 members) repeat a key? Pairwise up to
 * 8 members, an open-addressing table past that. 1 also when the probes pass
 * 8 per member (keys made to collide: the caller then leaves the object to
 * tw_json_dedupe's sort), -1 when the table cannot be allocated.
 */
static int repeats_key(const cJSON *head, size_t n)
{
    if (n <= 8) {
        for (const cJSON *a = head; a; a = a->next)
            for (const cJSON *c = a->next; c; c = c->next)
                if (strcmp(a->string, c->string) == 0)
                    return 1;
        return 0;
    }
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    const cJSON **t = tw_calloc(cap, sizeof *t);
    if (!t)
        return -1;
    size_t probes = 0;
    int r = 0;
    for (const cJSON *a = head; a && !r; a = a->next) {
        size_t h = (size_t)key_hash(a->string) & (cap - 1);
        while (t[h] && !r) {
            if (strcmp(t[h]->string, a->string) == 0 || ++probes > 8 * n)
                r = 1;
            h = (h + 1) & (cap - 1);
        }
        t[h] = a;
    }
    tw_free(t);
    return r;
}

static cJSON *fast_value(fast_parser *p);

static cJSON *fast_container(fast_parser *p, bool obj)
{
    if (++p->depth > p->max_depth) {
        p->fail = FAST_BAIL;
        return NULL;
    }
    if (p->depth > p->deepest)
        p->deepest = p->depth;
    cJSON *v = fast_node(p, obj ? cJSON_Object : cJSON_Array);
    if (!v) {
        p->fail = FAST_NOMEM;
        return NULL;
    }
    if (p->marks) {
        tw_json_mark m = {v, p->i};
        if (tw_buf_append(p->marks, &m, sizeof m) != TW_OK) {
            fast_drop(p, v);
            p->fail = FAST_NOMEM;
            return NULL;
        }
    }
    char close = obj ? '}' : ']';
    cJSON *tail = NULL;
    size_t count = 0;
    bool unique = true;
    p->i++;
    fast_skip(p);
    if (p->i < p->n && p->b[p->i] == close) {
        p->i++;
    } else {
        for (;;) {
            char *key = NULL;
            if (obj) {
                if (p->i >= p->n || p->b[p->i] != '"')
                    goto fault;
                if (!(key = fast_string(p)))
                    goto fail;
                fast_skip(p);
                if (p->i >= p->n || p->b[p->i] != ':') {
                    fast_drop_str(p, key);
                    goto fault;
                }
                p->i++;
                fast_skip(p);
            }
            cJSON *c = p->i < p->n ? fast_value(p) : NULL;
            if (!c) {
                fast_drop_str(p, key);
                if (!p->fail) /* the text ends where a value should be */
                    p->fail = fast_fault(p);
                goto fail;
            }
            c->string = key;
            if (tail) {
                tail->next = c;
                c->prev = tail;
            } else {
                v->child = c;
            }
            tail = c;
            count++;
            if ((c->type & (cJSON_Object | cJSON_Array)) && !(c->type & TW_JSON_UNIQUE_BIT))
                unique = false;
            fast_skip(p);
            if (p->i >= p->n)
                goto fault;
            char ch = p->b[p->i++];
            if (ch == close)
                break;
            if (ch != ',')
                goto fault;
            fast_skip(p);
        }
        v->child->prev = tail; /* cJSON's lists: the head's prev is the last */
    }
    p->depth--;
    if (obj && unique && count > 1) {
        int r = repeats_key(v->child, count);
        if (r < 0) {
            p->fail = FAST_NOMEM;
            goto fail;
        }
        unique = r == 0;
    }
    if (unique)
        v->type |= TW_JSON_UNIQUE_BIT;
    return v;
fault:
    p->fail = fast_fault(p);
fail:
    fast_drop(p, v);
    return NULL;
}

static cJSON *fast_value(fast_parser *p)
{
    const char *b = p->b + p->i;
    size_t left = p->n - p->i;
    cJSON *v;
    switch (*b) {
    case '{': return fast_container(p, true);
    case '[': return fast_container(p, false);
    case '"': {
        char *s = fast_string(p);
        if (!s)
            return NULL;
        v = fast_node(p, cJSON_String);
        if (!v) {
            fast_drop_str(p, s);
            p->fail = FAST_NOMEM;
            return NULL;
        }
        v->valuestring = s;
        return v;
    }
    case 't':
        if (left < 4 || memcmp(b, "true", 4) != 0)
            goto fault;
        p->i += 4;
        v = fast_node(p, cJSON_True);
        break;
    case 'f':
        if (left < 5 || memcmp(b, "false", 5) != 0)
            goto fault;
        p->i += 5;
        v = fast_node(p, cJSON_False);
        break;
    case 'n':
        if (left < 4 || memcmp(b, "null", 4) != 0)
            goto fault;
        p->i += 4;
        v = fast_node(p, cJSON_NULL);
        break;
    default:
        if (*b == '-' || (*b >= '0' && *b <= '9'))
            return fast_number(p);
        goto fault;
    }
    if (!v)
        p->fail = FAST_NOMEM;
    return v;
fault:
    p->fail = fast_fault(p);
    return NULL;
}

/* An arena emptied for the next tree; a tree takes about twice its text
 * (nodes of 64 bytes, strings copied), capped so that a large text grows
 * the arena by doubling. */
static void fast_arena_begin(tw_json_arena *arena, size_t len)
{
    if (!arena)
        return;
    tw_json_arena_reset(arena);
    arena->first = len < (1u << 20) ? 2 * len : (2u << 20);
}

/* The end of a reading, v its value (NULL: it failed): only white space may
 * follow it -- fast_skip's four bytes, or for the lenient reading every byte
 * tw_is_space takes, as parse_plain tests them -- else the tree is dropped
 * and the reading gives up. */
static int fast_end(fast_parser *p, cJSON *v, cJSON **out)
{
    fast_done(p);
    if (!v)
        return p->fail ? p->fail : FAST_BAIL;
    if (p->lenient)
        while (p->i < p->n && tw_is_space((unsigned char)p->b[p->i]))
            p->i++;
    else
        fast_skip(p);
    if (p->i < p->n) {
        fast_drop(p, v);
        return FAST_BAIL;
    }
    *out = v;
    if (p->arena)
        p->arena->live = true;
    return FAST_OK;
}

/* One pass over buf: FAST_OK with *out and *deepest; FAST_BAIL when the
 * text needs the reading described above, FAST_NOMEM when an allocation
 * failed (the callers then read it that way too, which tells a text that
 * reads from one that does not). */
int tw_json_fast_parse(const char *buf, size_t len, size_t max_depth, cJSON **out, size_t *deepest,
                       tw_buf *marks, tw_json_arena *arena)
{
    *out = NULL;
    fast_arena_begin(arena, len);
    if (max_depth == 0 || max_depth > TW_DEPTH_HARD_MAX)
        max_depth = TW_DEPTH_HARD_MAX;
    fast_parser p;
    fast_init(&p, buf, len, max_depth);
    p.marks = marks;
    p.arena = arena;
    fast_skip(&p);
    if (p.i >= len)
        return FAST_BAIL;
    int r = fast_end(&p, fast_value(&p), out);
    *deepest = p.deepest;
    return r;
}

/*
 * The one-pass reading of a text the strict one gave up on, nested within
 * max_depth (1 to TW_DEPTH_HARD_MAX) as the lint scan measures it: what
 * cJSON takes past RFC 8259 between tokens (any byte up to 0x20) and inside
 * strings (control bytes other than 0x00, invalid UTF-8, copied as they
 * are) is taken as cJSON takes it, so the tree is the one parse_plain builds
 * (the same nodes, strings and number spellings; the text's only numbers
 * are in RFC form). FAST_NOT_JSON where cJSON's grammar refuses the text
 * too (no value, an unterminated string, a backslash ending the text or
 * before a byte no escape starts with, a byte no value starts with, a
 * missing key, ':', ',' or closing bracket). Anything else (a byte order
 * mark, a number not in RFC form, a \u escape that is not a character
 * other than U+0000, U+0000 in a string, bytes after the value other than
 * tw_is_space) gives up (FAST_BAIL) and parse_plain reads the text. No
 * marks; the tree in the arena as tw_json_fast_parse places it.
 */
int tw_json_lenient_parse(const char *buf, size_t len, size_t max_depth, cJSON **out,
                          tw_json_arena *arena)
{
    *out = NULL;
    fast_arena_begin(arena, len);
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        return FAST_BAIL; /* cJSON skips the mark when two bytes follow it */
    fast_parser p;
    fast_init(&p, buf, len, max_depth);
    p.arena = arena;
    p.lenient = true;
    fast_skip(&p);
    if (p.i >= len)
        return FAST_NOT_JSON; /* no value */
    return fast_end(&p, fast_value(&p), out);
}

bool tw_json_parse_prefix(const char *buf, size_t len, size_t max_depth, cJSON **out, size_t *used)
{
    *out = NULL;
    *used = 0;
    if (!len || (buf[0] != '{' && buf[0] != '['))
        return false;
    if (max_depth == 0 || max_depth > TW_DEPTH_HARD_MAX)
        max_depth = TW_DEPTH_HARD_MAX;
    fast_parser p;
    fast_init(&p, buf, len, max_depth);
    cJSON *v = fast_value(&p);
    fast_done(&p);
    if (!v)
        return false; /* not within len, not RFC 8259, too deep, or out of memory */
    *out = v;
    *used = p.i;
    return true;
}

/* ===================== trees built beside their text (json_marks.h) ===================== */

bool tw_json_parse_rfc(const char *buf, size_t len, size_t max_depth, cJSON **out, size_t *deepest)
{
    size_t d = 0;
    if (tw_json_fast_parse(buf, len, max_depth, out, &d, NULL, NULL) != FAST_OK)
        return false; /* *out is NULL */
    *deepest = d;
    return true;
}

tw_status tw_json_mark_unique(cJSON *v)
{
    bool obj = cJSON_IsObject(v);
    if (!obj && !cJSON_IsArray(v))
        return TW_OK;
    size_t count = 0;
    for (const cJSON *c = v->child; c; c = c->next, count++)
        if ((c->type & (cJSON_Object | cJSON_Array)) && !(c->type & TW_JSON_UNIQUE_BIT))
            return TW_OK;
    if (obj && count > 1) {
        int r = repeats_key(v->child, count);
        if (r < 0)
            return TW_ERR_NOMEM;
        if (r > 0)
            return TW_OK;
    }
    v->type |= TW_JSON_UNIQUE_BIT;
    return TW_OK;
}
