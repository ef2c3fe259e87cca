/* Arguments written as markup, typed by the tool's schema (typed_args.h). */
#include "typed_args.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "hash.h"
#include "json_marks.h"
#include "utf8.h"
#include "wire_common.h"
#include "toolwire/json.h"

const tw_tool *tw_targs_tool(const tw_decode_opts *o, const char *p, size_t n)
{
    tw_trim(&p, &n);
    for (size_t i = 0; i < o->ntools; i++) {
        const char *nm = o->tools[i].name;
        if (nm && strlen(nm) == n && memcmp(nm, p, n) == 0)
            return &o->tools[i];
    }
    return NULL;
}

const cJSON *tw_targs_prop(const tw_tool *t, const char *key, size_t n)
{
    if (!t || !t->parameters)
        return NULL;
    const cJSON *props = tw_json_get(t->parameters, "properties");
    if (!cJSON_IsObject(props))
        return NULL;
    for (const cJSON *c = props->child; c; c = c->next)
        if (c->string && strlen(c->string) == n && memcmp(c->string, key, n) == 0)
            return c;
    return NULL;
}

static unsigned type_bit(const cJSON *t)
{
    static const struct {
        const char *n;
        unsigned b;
    } names[] = {{"string", TW_TY_STRING},   {"integer", TW_TY_INTEGER}, {"number", TW_TY_NUMBER},
                 {"boolean", TW_TY_BOOLEAN}, {"object", TW_TY_OBJECT},   {"array", TW_TY_ARRAY},
                 {"null", TW_TY_NULL}};
    if (!cJSON_IsString(t))
        return 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(t->valuestring, names[i].n) == 0)
            return names[i].b;
    return 0;
}

/* The bits of a "type": a name or an array of names. */
static unsigned type_bits(const cJSON *t)
{
    unsigned m = 0;
    if (cJSON_IsArray(t)) {
        for (const cJSON *e = t->child; e; e = e->next)
            m |= type_bit(e);
        return m;
    }
    return type_bit(t);
}

unsigned tw_targs_types(const cJSON *s)
{
    if (!cJSON_IsObject(s))
        return 0;
    unsigned m = type_bits(tw_json_get(s, "type"));
    static const char *const unions[] = {"anyOf", "oneOf"};
    for (size_t u = 0; u < 2; u++) {
        const cJSON *a = tw_json_get(s, unions[u]);
        for (const cJSON *e = cJSON_IsArray(a) ? a->child : NULL; e; e = e->next)
            m |= type_bits(cJSON_IsObject(e) ? tw_json_get(e, "type") : NULL);
    }
    return m;
}

static bool is(const char *p, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(p, lit, n) == 0;
}

/*
 * Append one value, typed by the types m (0: none). Sets *untyped when no
 * type was declared, *mistyped when the text did not read as any declared
 * type but string; both keep the value as a JSON string. *as_str says
 * whether it was written as a JSON string (an invalid UTF-8 byte becomes
 * U+FFFD; the caller builds its node). A value written otherwise gets its
 * node in *node (when node is not NULL), with its nesting in *depth, or
 * NULL when the one pass does not read what was written (the tree is then
 * dropped).
 */
static tw_status put_value(tw_buf *out, unsigned m, const char *p, size_t n, size_t max_depth,
                           bool *untyped, bool *mistyped, bool *as_str, cJSON **node, size_t *depth)
{
    *as_str = false;
    if (!m) {
        *untyped = *as_str = true;
        return tw_json_write_str(out, p, n, 0);
    }
    const char *t = p;
    size_t tn = n;
    tw_trim(&t, &tn);
    if ((m & TW_TY_NULL) && (is(t, tn, "null") || is(t, tn, "None"))) {
        if (node)
            *node = cJSON_CreateNull();
        return tw_buf_puts(out, "null");
    }
    if (m & TW_TY_BOOLEAN) {
        bool yes = is(t, tn, "true") || is(t, tn, "True");
        if (yes || is(t, tn, "false") || is(t, tn, "False")) {
            if (node)
                *node = cJSON_CreateBool(yes);
            return tw_buf_puts(out, yes ? "true" : "false");
        }
    }
    if ((m & (TW_TY_INTEGER | TW_TY_NUMBER)) && tw_json_number_valid(t, tn) &&
        ((m & TW_TY_NUMBER) || tw_json_number_is_integer(t, tn))) {
        if (node)
            (void)tw_json_parse_rfc(t, tn, max_depth, node, depth);
        return tw_buf_append(out, t, tn);
    }
    if ((m & (TW_TY_OBJECT | TW_TY_ARRAY)) && tn && (t[0] == '{' || t[0] == '[')) {
        cJSON *v = NULL;
        size_t dv = 0;
        tw_error e;
        tw_error_clear(&e);
        /* the one pass alone gives what tw_json_parse gives when it reads the
         * text; the full reading only for what it does not */
        bool rfc = tw_json_parse_rfc(t, tn, max_depth, &v, &dv);
        tw_status ps = rfc ? TW_OK : tw_json_parse(t, tn, max_depth, &v, &e);
        if (ps == TW_ERR_NOMEM)
            return ps;
        bool ok = ps == TW_OK && (((m & TW_TY_OBJECT) && cJSON_IsObject(v)) ||
                                  ((m & TW_TY_ARRAY) && cJSON_IsArray(v)));
        /* too deep, or a string holding U+0000: the text goes as is, so the
         * call is refused json_too_deep or json_nul as every decoder's is,
         * not args_schema */
        if (ok || ps == TW_ERR_LIMIT || e.code == TW_D_JSON_NUL) {
            if (node && rfc && ok) {
                *node = v;
                *depth = dv;
                v = NULL;
            }
            cJSON_Delete(v);
            return tw_buf_append(out, t, tn);
        }
        cJSON_Delete(v);
    }
    if (!(m & TW_TY_STRING))
        *mistyped = true;
    *as_str = true;
    return tw_json_write_str(out, p, n, 0);
}

/* ===================== the tree beside the text ===================== */

static void tree_drop(tw_targs *a)
{
    cJSON_Delete(a->tree);
    a->tree = a->tail = NULL;
    a->no_tree = true;
}

/* s[0, n) as the text's JSON string reads back: each of its nbad bytes that
 * begin no valid UTF-8 sequence as U+FFFD (tw_json_write_str); in cJSON's
 * allocator, as the parser's strings are. NULL when out of memory. */
static char *tree_str(const char *s, size_t n, size_t nbad)
{
    char *o = cJSON_malloc(n + 2 * nbad + 1);
    if (!o)
        return NULL;
    if (!nbad) {
        memcpy(o, s, n);
        o[n] = '\0';
        return o;
    }
    const unsigned char *u = (const unsigned char *)s;
    size_t w = 0;
    for (size_t i = 0; i < n;) {
        size_t k = tw_utf8_len(u + i, n - i);
        if (k) {
            memcpy(o + w, s + i, k);
            w += k;
            i += k;
        } else {
            memcpy(o + w, "\xEF\xBF\xBD", 3);
            w += 3;
            i++;
        }
    }
    o[w] = '\0';
    return o;
}

/* A string node of s[0, n) with nbad invalid bytes, as the parser makes
 * it, or NULL. */
static cJSON *tree_str_node(const char *s, size_t n, size_t nbad)
{
    cJSON *v = cJSON_malloc(sizeof *v);
    char *c = v ? tree_str(s, n, nbad) : NULL;
    if (!c) {
        cJSON_free(v);
        return NULL;
    }
    memset(v, 0, sizeof *v);
    v->type = cJSON_String;
    v->valuestring = c;
    return v;
}

/* Member k[0, kn) (kbad invalid bytes) with value v (taken; NULL: the one
 * pass would not read it) and its nesting, appended to the tree; the tree
 * is dropped where it cannot follow the text. */
static void tree_add(tw_targs *a, const char *k, size_t kn, size_t kbad, cJSON *v, size_t depth)
{
    if (a->no_tree || !v || memchr(k, 0, kn)) { /* U+0000 in a key: the text's reading */
        cJSON_Delete(v);
        if (!a->no_tree)
            tree_drop(a);
        return;
    }
    if (!(v->string = tree_str(k, kn, kbad))) {
        cJSON_Delete(v);
        tree_drop(a);
        return;
    }
    if (a->tail) {
        a->tail->next = v;
        v->prev = a->tail;
    } else {
        a->tree->child = v;
    }
    a->tail = v;
    a->tree->child->prev = v; /* cJSON's lists: the head's prev is the last */
    if (depth > a->depth)
        a->depth = depth;
}

/* Is args[a, e) a name seen before? Adds it when not. */
static bool repeat(tw_targs *t, size_t a, size_t e)
{
    if (!t->slot)
        return false; /* no table (one name or none) */
    const char *buf = t->args.data;
    size_t i = (size_t)tw_hash_mem(buf + a, e - a) & t->mask;
    for (;; i = (i + 1) & t->mask) {
        size_t *s = t->slot + 2 * i;
        if (!s[0]) {
            s[0] = a + 1;
            s[1] = e;
            return false;
        }
        if (s[1] - (s[0] - 1) == e - a && memcmp(buf + s[0] - 1, buf + a, e - a) == 0)
            return true;
    }
}

tw_status tw_targs_begin(tw_targs *a, const tw_tool *tool, size_t nparams, size_t max_depth)
{
    memset(a, 0, sizeof *a);
    a->tool = tool;
    a->max_depth = max_depth;
    if (nparams > 1) {
        size_t cap = 4;
        while (cap < 2 * nparams)
            cap *= 2;
        a->slot = tw_calloc(2 * cap, sizeof *a->slot);
        if (!a->slot)
            return TW_ERR_NOMEM;
        a->mask = cap - 1;
    }
    a->tree = cJSON_CreateObject();
    a->no_tree = !a->tree; /* the text is parsed instead */
    return tw_buf_putc(&a->args, '{');
}

void tw_targs_refuse(tw_targs *a, tw_status code, const char *fmt, ...)
{
    if (a->refuse != TW_OK)
        return;
    /* a refused call's text is never read: no tree for it */
    if (!a->no_tree)
        tree_drop(a);
    a->refuse = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->why, sizeof a->why, fmt, ap);
    va_end(ap);
}

static void keep_first(char dst[65], const char *k, size_t kn)
{
    snprintf(dst, 65, "%.*s", (int)(kn > 64 ? 64 : kn), k);
}

tw_status tw_targs_add(tw_targs *a, const char *k, size_t kn, const char *v, size_t vn,
                       tw_targs_how how, uint64_t kpos, uint64_t vpos)
{
    if (memchr(v, 0, vn))
        tw_targs_refuse(a, TW_D_JSON_NUL, "parameter '%.*s' holds U+0000", (int)(kn > 64 ? 64 : kn),
                        k);
    tw_status st = a->count++ ? tw_buf_putc(&a->args, ',') : TW_OK;
    size_t key_at = a->args.len;
    if (st == TW_OK)
        st = tw_json_write_str(&a->args, k, kn, 0);
    /* a repeated name's value is dropped by the rules (the first is kept):
     * it counts in none of the warnings */
    bool rep = st == TW_OK && repeat(a, key_at, a->args.len);
    if (st == TW_OK)
        st = tw_buf_putc(&a->args, ':');
    bool u = false, mt = false, as_str = false;
    cJSON *node = NULL;
    cJSON **want = a->no_tree ? NULL : &node;
    size_t depth = 0;
    if (st == TW_OK && how == TW_TARGS_STRING) {
        as_str = true;
        st = tw_json_write_str(&a->args, v, vn, 0);
    } else if (st == TW_OK && how == TW_TARGS_JSON) {
        const char *t = v;
        size_t tn = vn;
        tw_trim(&t, &tn);
        cJSON *pv = NULL;
        tw_error e;
        tw_error_clear(&e);
        /* the one pass alone gives what tw_json_parse gives when it reads the
         * text; the full reading only for what it does not */
        bool rfc = tn && tw_json_parse_rfc(t, tn, a->max_depth, &pv, &depth);
        tw_status ps = rfc  ? TW_OK
                       : tn ? tw_json_parse(t, tn, a->max_depth, &pv, &e)
                            : TW_ERR_INVALID;
        if (rfc && want) {
            node = pv;
            pv = NULL;
        }
        cJSON_Delete(pv);
        if (ps == TW_ERR_NOMEM) {
            cJSON_Delete(node);
            return ps;
        }
        /* too deep or U+0000: as written, refused by the shared rules */
        if (ps != TW_OK && ps != TW_ERR_LIMIT && e.code != TW_D_JSON_NUL)
            tw_targs_refuse(a, TW_D_TOOL_CALL_JSON, "parameter '%.*s' is marked JSON but is not",
                            (int)(kn > 64 ? 64 : kn), k);
        st = tw_buf_append(&a->args, tn ? t : "null", tn ? tn : 4);
    } else if (st == TW_OK) {
        st = put_value(&a->args, tw_targs_types(tw_targs_prop(a->tool, k, kn)), v, vn, a->max_depth,
                       &u, &mt, &as_str, want, &depth);
    }
    if (st != TW_OK) {
        cJSON_Delete(node);
        return st;
    }
    size_t f = 0, kf = 0, kb = tw_utf8_invalid(k, kn, &kf);
    size_t vb = as_str ? tw_utf8_invalid(v, vn, &f) : 0;
    if (want && as_str)
        node = tree_str_node(v, vn, vb);
    if (want)
        tree_add(a, k, kn, kb, node, depth);
    if (rep)
        return TW_OK;
    if (kb && !a->nbad)
        a->bad_pos = kpos + kf;
    if (vb && !a->nbad && !kb)
        a->bad_pos = vpos + f;
    if ((kb || vb) && !a->nbad)
        keep_first(a->bad, k, kn);
    a->nbad += kb + vb;
    if (u && !a->nuntyped++)
        keep_first(a->untyped, k, kn);
    if (mt && !a->nmistyped++)
        keep_first(a->mistyped, k, kn);
    return TW_OK;
}

tw_status tw_targs_take(tw_targs *a, tw_wire_sink *k, const char *name, size_t nlen, const char *id,
                        int64_t off, int64_t (*pos_off)(void *ctx, uint64_t pos), void *ctx,
                        bool *accepted)
{
    *accepted = false;
    tw_status st = tw_buf_putc(&a->args, '}');
    char *nm = nlen ? tw_strndup(name, nlen) : NULL;
    if (st != TW_OK || (nlen && !nm)) {
        tw_free(nm);
        return TW_ERR_NOMEM;
    }
    tw_wire_call c;
    memset(&c, 0, sizeof c);
    c.name = nm;
    c.id = id;
    c.offset = off;
    c.has_args_str = true;
    c.args_str = a->args.data;
    c.args_len = a->args.len;
    /* the tree, when the whole text reads as it: nested within max_depth (the
     * object is one level) and, as the one pass leaves it, marked where no
     * key repeats */
    size_t cap = k->L->max_depth == 0 || k->L->max_depth > TW_DEPTH_HARD_MAX ? TW_DEPTH_HARD_MAX
                                                                             : k->L->max_depth;
    if (!a->no_tree && (a->depth + 1 > cap || tw_json_mark_unique(a->tree) != TW_OK))
        tree_drop(a);
    c.args_tree = a->tree; /* the call's from here on */
    a->tree = a->tail = NULL;
    if (c.args_len > tw_args_text_cap(k->L)) {
        c.args_len = tw_args_text_cap(k->L);
        c.args_oversize = true;
    }
    c.refuse = a->refuse;
    c.refuse_why = a->refuse != TW_OK ? a->why : NULL;
    size_t before = k->res->msg.ncalls;
    st = tw_wire_take_call(k, &c);
    tw_free(nm);
    *accepted = k->res->msg.ncalls > before;
    /* the values' warnings belong to an accepted call only */
    char m[240];
    if (st == TW_OK && *accepted && a->nuntyped) {
        snprintf(
            m, sizeof m,
            "%zu parameter value(s) kept as strings: no schema type declares them (first '%s')",
            a->nuntyped, a->untyped);
        st = tw_wire_diag(k, false, TW_D_XML_UNTYPED, off, m);
    }
    if (st == TW_OK && *accepted && a->nmistyped) {
        snprintf(m, sizeof m,
                 "%zu parameter value(s) do not read as their schema type and were kept as strings "
                 "(first '%s')",
                 a->nmistyped, a->mistyped);
        st = tw_wire_diag(k, false, TW_D_XML_VALUE_TYPE, off, m);
    }
    if (st == TW_OK && *accepted && a->nbad) {
        snprintf(m, sizeof m,
                 "%zu invalid UTF-8 byte(s) in parameter names or string values were written as "
                 "U+FFFD (the first in parameter '%s', at this offset)",
                 a->nbad, a->bad);
        int64_t at = pos_off ? pos_off(ctx, a->bad_pos) : (int64_t)a->bad_pos;
        st = tw_wire_diag(k, false, TW_D_JSON_NOT_RFC8259, at, m);
    }
    return st;
}

void tw_targs_free(tw_targs *a)
{
    cJSON_Delete(a->tree);
    a->tree = a->tail = NULL;
    tw_free(a->slot);
    tw_buf_free(&a->args);
    a->slot = NULL;
}
