/*
 * Internal: arguments written as markup, one value per parameter, typed by
 * the tool's schema (docs/text-formats.md, "Qwen3-Coder XML": the typing
 * rules). The dialects that write a call's arguments as elements rather
 * than JSON (Qwen3-Coder XML, and the markup dialects: DSML, GLM, MiniMax,
 * Gemma) build the call's arguments object here, one parameter at a time,
 * and hand it to the one call acceptance (calls.h):
 *
 *   - a value is typed by the types its parameter's schema allows ("type",
 *     or the types of its "anyOf"/"oneOf"): null, boolean (true/false,
 *     True/False), integer or number (a JSON number, the spelling kept),
 *     object or array (JSON that parses as one); a string parameter keeps
 *     the text as a string whatever it reads as;
 *   - a value that reads as none of its declared types but string is kept
 *     as a string (warning xml_value_type; the schema check then refuses
 *     the call unless schema_warn keeps it); a parameter no schema types is
 *     kept as a string (warning xml_untyped);
 *   - a repeated parameter keeps its first value (duplicate_key, as every
 *     decoder's repeated keys), and the repeat counts in no warning;
 *   - U+0000 in a value refuses the call (json_nul); an invalid UTF-8 byte
 *     in a name or a string value is written as U+FFFD (warning
 *     json_not_rfc8259 at the first);
 *   - too deep JSON goes as written, so the call is refused json_too_deep as
 *     every decoder's is.
 *
 * The object is written as JSON text (the call's raw_args) and, beside it,
 * built as the tree that text reads as, which the call takes as its
 * arguments without the text being parsed again. Where the tree cannot be
 * built alongside (a value the one pass of the parser does not read, a key
 * holding U+0000, nesting past max_depth, an allocation that failed) it is
 * dropped and the text is parsed at take as it always was: either way the
 * call, its arguments and its diagnostics are those of the text.
 */
#ifndef TOOLWIRE_TYPED_ARGS_H
#define TOOLWIRE_TYPED_ARGS_H

#include "calls.h"

/* The types a schema allows, as bits. */
enum {
    TW_TY_STRING = 1,
    TW_TY_INTEGER = 2,
    TW_TY_NUMBER = 4,
    TW_TY_BOOLEAN = 8,
    TW_TY_OBJECT = 16,
    TW_TY_ARRAY = 32,
    TW_TY_NULL = 64
};

/* The declared tool named p[0, n) (trimmed), or NULL. */
const tw_tool *tw_targs_tool(const tw_decode_opts *o, const char *p, size_t n);
/* The schema of parameter key[0, n) of tool t, or NULL when it declares none. */
const cJSON *tw_targs_prop(const tw_tool *t, const char *key, size_t n);
/* The types schema s allows (TW_TY_* bits); 0 for none. */
unsigned tw_targs_types(const cJSON *s);

/* How a parameter's value is written. */
typedef enum tw_targs_how {
    TW_TARGS_TYPED = 0, /* typed by the schema (the rules above) */
    TW_TARGS_STRING,    /* the dialect says it is a string: kept as one */
    TW_TARGS_JSON,      /* the dialect says it is JSON: written as is (not JSON: the
                           call is refused tool_call_json) */
} tw_targs_how;

/* One call's arguments being built. */
typedef struct tw_targs {
    const tw_tool *tool; /* the declared tool, or NULL */
    size_t max_depth;
    tw_buf args; /* the object so far, "{…" */
    size_t count;
    size_t *slot; /* parameter names seen (2 per entry: start + 1, end in args) */
    size_t mask;
    size_t nuntyped, nmistyped, nbad;
    char untyped[65], mistyped[65], bad[65]; /* the first of each */
    uint64_t bad_pos;                        /* where the first invalid byte is (caller's units) */
    tw_status refuse;                        /* a refusal decided while reading; TW_OK none */
    char why[200];
    cJSON *tree;  /* the object args reads as, built beside it; NULL once dropped */
    cJSON *tail;  /* its last member */
    bool no_tree; /* dropped: the text is parsed at take */
    size_t depth; /* the deepest nesting of the members' values */
} tw_targs;

/* Start the arguments of a call to `tool` (NULL: undeclared) that will
 * hold at most nparams parameters (a bound: the repeat table's size). */
tw_status tw_targs_begin(tw_targs *a, const tw_tool *tool, size_t nparams, size_t max_depth);
/*
 * One parameter: its name k[0, kn) and value v[0, vn) (neither trimmed
 * here), written `how`. kpos and vpos say where name and value start, in
 * the caller's units (an input offset, or a position the caller maps to one
 * at take): the first invalid UTF-8 byte is reported there.
 */
tw_status tw_targs_add(tw_targs *a, const char *k, size_t kn, const char *v, size_t vn,
                       tw_targs_how how, uint64_t kpos, uint64_t vpos);
/* Refuse the call with code and a message (the first refusal is kept). */
void tw_targs_refuse(tw_targs *a, tw_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/*
 * Close the object and take the call name[0, nlen) at input offset off
 * through tw_wire_take_call (id: NULL or the dialect's own); an accepted
 * call gets the warnings of its values (xml_untyped, xml_value_type,
 * json_not_rfc8259 at pos_off(ctx, bad_pos), or bad_pos itself when pos_off
 * is NULL). *accepted says whether it was. Frees nothing: tw_targs_free.
 */
tw_status tw_targs_take(tw_targs *a, tw_wire_sink *k, const char *name, size_t nlen, const char *id,
                        int64_t off, int64_t (*pos_off)(void *ctx, uint64_t pos), void *ctx,
                        bool *accepted);
void tw_targs_free(tw_targs *a);

#endif
