/*
 * Internal: where the containers of a parsed tree begin in its text. The
 * one-pass parser (json.c) can record, for each object and array it
 * builds, the node and the byte offset of its opening bracket, in document
 * order; a wire decoder then has the offsets of a body's tool calls without
 * walking the body again (wire_common.h, tw_wire_elems).
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
 * tw_json_parse_lint, and into marks (emptied first; its max is set to
 * bound it by the text: at most one mark per two bytes) one tw_json_mark
 * per object and array of *out in document order. marks is left empty when
 * the text was not read by the one-pass parser (not RFC 8259, or any
 * failure): the caller then finds offsets by walking the text.
 */
tw_status tw_json_parse_lint_marked(const char *buf, size_t len, size_t max_depth, cJSON **out,
                                    tw_error *err, tw_json_lint *lint, tw_buf *marks);

/* The marks in m (a tw_buf of tw_json_mark). */
static inline const tw_json_mark *tw_json_marks(const tw_buf *m, size_t *n)
{
    *n = m->len / sizeof(tw_json_mark);
    return (const tw_json_mark *)(const void *)m->data;
}

#endif
