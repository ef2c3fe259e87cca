/*
 * Bounded JSON helpers around cJSON, an incremental value scanner and a
 * locale-independent writer.
 */
#ifndef TOOLWIRE_JSON_H
#define TOOLWIRE_JSON_H

#include "toolwire/core.h"

#include <cjson/cJSON.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Parse exactly one JSON value from buf[0, len) (no terminator needed).
 *
 * buf:       the text; may be NULL only when len is 0.
 * max_depth: nesting cap for objects and arrays (0 or past TW_DEPTH_HARD_MAX:
 *            TW_DEPTH_HARD_MAX).
 * out:       must not be NULL. On TW_OK *out owns a tree (free with
 *            cJSON_Delete) whose number nodes carry their source spelling
 *            (see tw_json_spelling); on failure *out is NULL.
 * err:       may be NULL. On failure it says why (see tw_error in core.h);
 *            on success it is left as it was.
 *
 * Leading and trailing whitespace are allowed, anything else after the
 * value is refused. RFC 8259 text is read in one pass that builds the tree
 * cJSON would build; other text cJSON accepts (and every error) goes through
 * cJSON itself, so trees, errors and offsets are cJSON's. The return value is
 * always a status:
 *
 *   TW_ERR_PARSE    not JSON; err->code TW_ERR_PARSE, err->offset the first
 *                   offending byte (or where an unfinished value went wrong).
 *   TW_ERR_LIMIT    nested deeper than max_depth; err->code
 *                   TW_D_JSON_TOO_DEEP, err->offset the bracket that
 *                   went past it (the message names that byte too).
 *   TW_ERR_INVALID  well-formed JSON refused as a whole: a string or key
 *                   holds U+0000 (raw, escaped, or a \u escape without four
 *                   hex digits), which cJSON would cut there; err->code
 *                   TW_D_JSON_NUL, err->offset its first byte
 *                   (tw_json_parse_lint instead removes such values and
 *                   marks what held them).
 *   TW_ERR_NOMEM    an allocation failed; err->code TW_ERR_NOMEM, offset -1.
 *
 * err->path is always "" and err->message the reason alone.
 */
TW_API tw_status tw_json_parse(const char *buf, size_t len, size_t max_depth, cJSON **out,
                               tw_error *err);

/*
 * Deepest nesting of [ and { outside strings in buf, or max_depth + 1 as soon
 * as it goes past max_depth (the scan stops there).
 */
TW_API size_t tw_json_depth(const char *buf, size_t len, size_t max_depth);

/* ---- incremental scanner: where does one JSON value end? ---- */

typedef enum tw_jscan_result {
    TW_JSCAN_MORE = 0, /* all bytes consumed, value not finished */
    TW_JSCAN_DONE,     /* value finished; *used bytes of this feed belong to it */
    TW_JSCAN_INVALID,  /* not JSON; *used is the offending byte */
    TW_JSCAN_TOO_DEEP  /* nesting past max_depth; *used is the offending byte */
} tw_jscan_result;

/*
 * Push scanner for one object or array value (leading whitespace allowed).
 * Zero-initialise, set max_depth, then feed bytes. Strings and escapes are
 * honoured; the structure (colons, commas) is checked; scalars are checked
 * for their character set only (the parser judges them). Allocates nothing.
 * After DONE/INVALID/TOO_DEEP further feeds return the same result with
 * *used = 0.
 */
typedef struct tw_jscan {
    size_t max_depth;
    size_t depth;
    size_t consumed; /* total bytes consumed so far */
    size_t max_seen; /* deepest level reached */
    unsigned char state;
    unsigned char in_key; /* the current string is an object key */
    unsigned char uhex;   /* \u hex digits left */
    unsigned char result;
    unsigned char stack[(TW_DEPTH_HARD_MAX + 8) / 8]; /* 1 bit per level: object */
} tw_jscan;

TW_API tw_jscan_result tw_jscan_feed(tw_jscan *s, const char *p, size_t n, size_t *used);

/*
 * First balanced {…} or […] in buf: the value that starts at the first '{'
 * or '[' (only that one), as far as the scanner accepts it. Returns false if
 * there is no opener or it does not close.
 */
TW_API bool tw_json_first_balanced(const char *buf, size_t len, size_t max_depth, size_t *start,
                                   size_t *end);

/* ---- writer ---- */

enum {
    TW_JSON_COMPACT = 0,
    TW_JSON_SPACED = 1, /* ", " and ": " separators (Python json.dumps) */
    TW_JSON_ASCII = 2,  /* escape non-ASCII as \uXXXX (Python ensure_ascii) */
    TW_JSON_PRETTY = 4  /* two-space indentation */
};

/*
 * Serialise a cJSON tree. A number node that carries its source spelling
 * (every tree tw_json_parse returns does; see tw_json_spelling) is printed
 * exactly as spelled. Other numbers are printed without the locale:
 * integral values below 2^53 as integers, others in the shortest of
 * %.15g/%.16g/%.17g that reads back equal, non-finite ones as null.
 * Invalid UTF-8 in strings is written as U+FFFD.
 * Returns TW_ERR_LIMIT when the buffer's cap is hit (contents then partial).
 */
TW_API tw_status tw_json_write(tw_buf *out, const cJSON *v, int flags);
/* Write one JSON string literal from n bytes. */
TW_API tw_status tw_json_write_str(tw_buf *out, const char *s, size_t n, int flags);
/* Write one double as tw_json_write writes a number without a spelling. */
TW_API tw_status tw_json_write_num(tw_buf *out, double d);
/* Write one number node as tw_json_write does (its spelling when it has one). */
TW_API tw_status tw_json_write_number(tw_buf *out, const cJSON *v);

/* ---- number spellings ----
 *
 * cJSON keeps a number only as a double, which cannot hold integers past
 * 2^53, 1e400, or the difference between 1.0 and 1. tw_json_parse therefore
 * stores each number node's source text in the node's valuestring (cJSON
 * leaves it unused for numbers; cJSON_Delete frees it and cJSON_Duplicate
 * copies it). Code that changes a number node's value must drop it.
 */

/* Is s[0, n) a number as RFC 8259 spells it (-?int frac? exp?)? */
TW_API bool tw_json_number_valid(const char *s, size_t n);
/* The node's source spelling when it is a number that has a valid one, else NULL. */
TW_API const char *tw_json_spelling(const cJSON *v);
/* Does a number spelling have neither fraction nor exponent ("12", "-0")? */
TW_API bool tw_json_spelled_integer(const char *s);
/* Does a valid spelling denote an integer value ("1.5e3" does, "0.5" not)? */
TW_API bool tw_json_number_is_integer(const char *s, size_t n);
/*
 * Do two valid spellings denote the same decimal value, compared exactly
 * (no rounding to double: 9007199254740993 differs from 9007199254740992,
 * 1.5e3 equals 1500.0, -0 equals 0)? A non-zero value whose exponent is
 * 10^18 or more equals only the very same spelling.
 */
TW_API bool tw_json_same_number(const char *a, size_t an, const char *b, size_t bn);
/* Number nodes compared as tw_json_equal does: by spelled decimal value;
 * a node without a spelling stands for its double's shortest spelling. */
TW_API bool tw_json_number_equal(const cJSON *a, const cJSON *b);
/* Compact serialisation into a new malloc'd string; NULL on failure. */
TW_API char *tw_json_print(const cJSON *v, size_t *len);
/* Compact serialised size, stopping early once past `cap` (returns cap + 1). */
TW_API size_t tw_json_size(const cJSON *v, size_t cap);
/* Does the compact serialisation fit in cap bytes? The same answer as
 * tw_json_size(v, cap) <= cap, from string lengths alone when their bound fits. */
TW_API bool tw_json_size_within(const cJSON *v, size_t cap);

/* ---- small accessors ---- */

/* Object member with exactly this key (case-sensitive), or NULL. */
TW_API cJSON *tw_json_get(const cJSON *obj, const char *key);
/* String value of a member, or NULL when absent or not a string. */
TW_API const char *tw_json_get_str(const cJSON *obj, const char *key);
/* Deep equality of two JSON values (object key order ignored; numbers by
 * exact decimal value, see tw_json_number_equal). */
TW_API bool tw_json_equal(const cJSON *a, const cJSON *b);
/*
 * A JSON number as an integer without undefined behaviour: truncated toward
 * zero and clamped to [lo, hi]; `dflt` when v is not a finite number.
 */
TW_API int64_t tw_json_int(const cJSON *v, int64_t lo, int64_t hi, int64_t dflt);
/*
 * A JSON number that is exactly an integer in [lo, hi]: true with *out set;
 * false (and *out untouched) when v is not a number, has a fraction (judged
 * on the number's spelling when the tree kept it, so that 9007199254740990.6
 * is not taken for the double it rounds to), lies outside [lo, hi], or is
 * 2^53 or more in magnitude (where a double no longer tells neighbouring
 * integers apart). For values whose meaning would change
 * under truncation or clamping: an index, a position, a count.
 */
TW_API bool tw_json_exact_int(const cJSON *v, int64_t lo, int64_t hi, int64_t *out);

/* Does obj hold the same key twice? Returns the second key or NULL. */
TW_API const char *tw_json_duplicate_key(const cJSON *obj);

/* ---- strings and keys: what a cJSON tree cannot show ---- */

/*
 * cJSON strings end at their first NUL, so a string or key holding U+0000
 * (a raw 0x00 byte, the escape \u0000, or a \u escape whose four characters
 * are not all hex digits, which cJSON reads as U+0000) would be read cut
 * short. The scan finds such strings and the first place where the text is
 * not RFC 8259 JSON although cJSON accepts it: a raw byte below 0x20 inside
 * a string; a byte below 0x20 other than tab, LF and CR between tokens
 * (cJSON takes it as whitespace); invalid UTF-8 inside a string; a number
 * such as 01, 1. or -.5; a leading UTF-8 byte order mark. One linear pass,
 * no allocation.
 */
typedef struct tw_json_lint {
    bool nul;                /* some string or key holds U+0000 */
    int64_t nul_offset;      /* its first byte (the 0x00 or the backslash), -1 when none */
    int64_t nonstd_offset;   /* first byte that is not RFC 8259, -1 when none */
    const char *nonstd_what; /* static description of it, NULL when none */
    size_t depth;            /* deepest nesting of objects and arrays */
} tw_json_lint;

TW_API void tw_json_lint_scan(const char *buf, size_t len, tw_json_lint *out);

/*
 * tw_json_parse plus the scan (the one pass of tw_json_parse finds nothing
 * for it on RFC 8259 text without U+0000; allocates only when U+0000 is found: the
 * ordinals of the strings that hold it). Returns and fills err as
 * tw_json_parse does, except that U+0000 is not a failure: `lint` (must not
 * be NULL) is filled on TW_OK and whenever the scan ran. When a string or key holds U+0000, every
 * member whose key or string value holds it, and every such array element,
 * is removed from the tree, and the container it was in and all containers
 * above are marked (tw_json_tainted): no reader ever sees a cut string, and
 * a reader of a marked object knows something in it was refused.
 */
TW_API tw_status tw_json_parse_lint(const char *buf, size_t len, size_t max_depth, cJSON **out,
                                    tw_error *err, tw_json_lint *lint);

/*
 * Does buf read as an object or an array, as tw_json_parse_lint reads it?
 * The same reading without building the lint, the number spellings or the
 * message: TW_OK with *container set, TW_ERR_PARSE when the text does not
 * read (or is not one value), TW_ERR_LIMIT when it is nested deeper than
 * max_depth, TW_ERR_NOMEM.
 */
TW_API tw_status tw_json_reads_container(const char *buf, size_t len, size_t max_depth,
                                         bool *container);

/*
 * The JSON object or array that starts at buf[0], read by the one pass of
 * tw_json_parse when that pass takes it (RFC 8259 text, nesting within
 * max_depth): true with *out, the tree tw_json_parse_lint gives for
 * buf[0, *used), and *used, the bytes up to and including its closing
 * bracket (what follows is not read). False, with *out NULL, when the value
 * does not end within len, is not RFC 8259 JSON, nests too deep or an
 * allocation failed: the caller then reads the text its usual way.
 */
TW_API bool tw_json_parse_prefix(const char *buf, size_t len, size_t max_depth, cJSON **out,
                                 size_t *used);

/* Did tw_json_parse_lint remove a NUL-holding value inside v (or is v a
 * top-level string that holds one)? Survives cJSON_Duplicate. */
TW_API bool tw_json_tainted(const cJSON *v);

/* Of the NULL-terminated list `keys`, the first that obj holds more than
 * once, or NULL. An object tw_json_parse marked as holding no repeated key
 * (tw_json_dedupe) is not walked. */
TW_API const char *tw_json_repeated_member(const cJSON *obj, const char *const *keys);

/*
 * Remove, in every object inside v (at any depth, v included), the members
 * whose key an earlier member of the same object already has: the first
 * value of a key is kept. *removed counts them; the JSON Pointer of the
 * first one removed (its object's path and its key) is written to path
 * ("" when none). Linear up to a log factor in the number of members.
 * Containers that tw_json_parse or tw_json_parse_lint marked as holding no
 * repeated key (a mark cJSON_Duplicate copies) are not walked again.
 */
TW_API tw_status tw_json_dedupe(cJSON *v, char *path, size_t pathlen, size_t *removed);

/* ===================== Python-style writing, spellings, positions ===================== */

/*
 * Serialise `v` as Python's json.dumps(json.loads(text)) does with
 * ensure_ascii=False and the default ", " / ": " separators. Numbers print
 * as Python would print the value the JSON text denotes: a number node that
 * carries its source spelling (every tree tw_json_parse returns) prints an
 * integer spelling as written (-0 as 0) and a fraction/exponent spelling as
 * Python's float repr (1.5e3 as 1500.0, 1e400 as Infinity); a node without
 * one prints integral values below 2^53 as integers and others as float
 * repr. Nesting past max_depth (0: TW_DEPTH_HARD_MAX) is TW_ERR_LIMIT.
 */
TW_API tw_status tw_json_write_py(tw_buf *out, const cJSON *v, size_t max_depth);

/*
 * tw_json_write_py, adding a number_inexact warning to `warnings` (when not
 * NULL) for each number whose Python value differs from the value its
 * spelling denotes (a fraction/exponent spelling that is not exactly the
 * printed float: 1e400, 1e-400, 0.10000000000000000001) and for each integer
 * longer than the 4300 digits Python's json reads. `where` starts the
 * message ("hermes-prompt: call f arguments").
 */
TW_API tw_status tw_json_write_py_warn(tw_buf *out, const cJSON *v, size_t max_depth,
                                       tw_diag_list *warnings, const char *where);

/* Called for every node of a tree with the byte range [start, end) of its
 * text in the buffer it was parsed from. */
typedef tw_status (*tw_json_pos_fn)(void *user, cJSON *node, size_t start, size_t end);

/*
 * Walk buf[0, len) (the exact text `tree` was parsed from, e.g. by
 * tw_json_parse) alongside the tree, calling fn for each node in document
 * order, children before their parent. Returns TW_ERR_PARSE when text and
 * tree do not match, TW_ERR_LIMIT past max_depth, or fn's first failure.
 */
TW_API tw_status tw_json_positions(const char *buf, size_t len, cJSON *tree, size_t max_depth,
                                   tw_json_pos_fn fn, void *user);

/*
 * Store in every number node of `tree` a copy of its spelling in buf (the
 * text it was parsed from), in the node's valuestring (see
 * tw_json_spelling). tw_json_parse already does this; this is for trees
 * parsed otherwise. Nodes that carry a spelling keep it.
 */
TW_API tw_status tw_json_keep_spellings(const char *buf, size_t len, cJSON *tree, size_t max_depth);

#ifdef __cplusplus
}
#endif
#endif
