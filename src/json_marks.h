/*
 * Internal: where the containers of a parsed tree begin in its text, and
 * where a tree that is read and dropped whole is placed. The one-pass
 * parser (json.c) can record, for each object and array it builds, the
 * node and the byte offset of its opening bracket, in document order; a
 * wire decoder then has the offsets of a body's tool calls without walking
 * the body again (wire_common.h, tw_wire_elems). It can also take the
 * tree's memory from an arena instead of one allocation per node.
 */
#ifndef TOOLWIRE_JSON_MARKS_H
#define TOOLWIRE_JSON_MARKS_H

#include "toolwire/json.h"

/* One container of the tree and the offset of its '{' or '['. */
typedef struct tw_json_mark {
    const cJSON *node;
    size_t off;
} tw_json_mark;

/*
 * Memory for the tree of a text that is read and then dropped whole (a wire
 * body, an SSE event): the one-pass parser takes its nodes and strings from
 * a few blocks instead of one allocation each, and dropping the tree empties
 * the blocks, keeping the largest for the next text. Nothing of such a tree
 * may be kept, moved out (cJSON_Detach*) or freed alone: what outlives it is
 * copied. Zero-initialise; tw_json_arena_free when done.
 */
typedef struct tw_json_arena_blk tw_json_arena_blk;
typedef struct tw_json_arena {
    tw_json_arena_blk *blk; /* the block being filled, the earlier ones behind it */
    bool live;              /* the last parse's tree lies in the blocks */
    size_t first;           /* the size of a first block (the parse sets it from the text) */
} tw_json_arena;

/*
 * tw_json_parse_lint, the tree in the arena when the one-pass parser reads
 * the text (arena->live then set), else from cJSON's allocator as before.
 * Empties the arena first: the tree of the previous text must be dropped.
 */
tw_status tw_json_parse_lint_in(const char *buf, size_t len, size_t max_depth, cJSON **out,
                                tw_error *err, tw_json_lint *lint, tw_json_arena *arena);
/*
 * tw_json_parse_lint, and into marks (emptied first; its max is set to
 * bound it by the text: at most one mark per two bytes) one tw_json_mark
 * per object and array of *out in document order. marks is left empty when
 * the text was not read by the one-pass parser (not RFC 8259, or any
 * failure): the caller then finds offsets by walking the text. With an
 * arena (NULL: none), the tree is placed as tw_json_parse_lint_in places it.
 */
tw_status tw_json_parse_lint_marked(const char *buf, size_t len, size_t max_depth, cJSON **out,
                                    tw_error *err, tw_json_lint *lint, tw_buf *marks,
                                    tw_json_arena *arena);
/* Drop root, the tree of the last parse into a (NULL is fine). */
void tw_json_arena_drop(tw_json_arena *a, cJSON *root);
/* Empty the arena, keeping its largest block. */
void tw_json_arena_reset(tw_json_arena *a);
/* Free every block. */
void tw_json_arena_free(tw_json_arena *a);

/* ---- a tree built beside its text ----
 * A reader that writes a JSON text itself and builds the tree that text
 * reads as (typed_args.c: a call's arguments, from the values of its
 * markup) takes the values it copies as JSON from the one pass alone, and
 * marks the containers it builds as the one pass would. */

/*
 * The one pass of tw_json_parse over buf[0, len) alone: true with *out, the
 * tree tw_json_parse and tw_json_parse_lint give (a clean lint), and
 * *deepest, its nesting, when the text is RFC 8259 JSON without U+0000
 * nested within max_depth (0: TW_DEPTH_HARD_MAX); false with *out NULL
 * otherwise, an allocation failure included: the caller then reads the text
 * its usual way.
 */
bool tw_json_parse_rfc(const char *buf, size_t len, size_t max_depth, cJSON **out, size_t *deepest);
/*
 * Give object or array v (built by hand, its members in place) the mark the
 * one pass leaves on a container in which no object repeats a key: when
 * every member container has it and (an object) no two keys are the same,
 * as the one pass finds them. Anything else is left as it is. TW_OK or
 * TW_ERR_NOMEM (v then unmarked, which only costs tw_json_dedupe a walk).
 */
tw_status tw_json_mark_unique(cJSON *v);

/* The marks in m (a tw_buf of tw_json_mark). */
static inline const tw_json_mark *tw_json_marks(const tw_buf *m, size_t *n)
{
    *n = m->len / sizeof(tw_json_mark);
    return (const tw_json_mark *)(const void *)m->data;
}

#endif
