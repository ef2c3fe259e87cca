/* Internal: what the Gemma 4 output dialect (gemma.c) and the Gemma 4
 * prompt (gemma_prompt.c) share: the special tokens, a name as the brace
 * syntax writes it bare, the one writer of a value in the brace syntax and
 * the one reader of it. */
#ifndef TOOLWIRE_GEMMA_TEXT_H
#define TOOLWIRE_GEMMA_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "toolwire/encode.h"
#include "toolwire/json.h"

#define G_CH "<|channel>"
#define G_CH_END "<channel|>"
#define G_CALL "<|tool_call>"
#define G_CALL_END "<tool_call|>"
#define G_Q "<|\"|>"
#define G_EOT "<turn|>"
#define G_TURN "<|turn>"
#define G_RESP "<|tool_response>"
#define G_RESP_END "<tool_response|>"
#define G_TOOL "<|tool>"
#define G_TOOL_END "<tool|>"
#define G_THINK "<|think|>"
#define G_THOUGHT "thought"
#define G_CALL_KW "call:"

#define MLEN(lit) (sizeof(lit) - 1)
#define LIT(s) (s), (sizeof(s) - 1)

/* ===================== the prompt (gemma_prompt.c, request_gemma.c) ===================== */

#define FMT "gemma-4-prompt"
#define BOS "<bos>"
#define SYS_TURN G_TURN "system\n"
#define USER_TURN G_TURN "user\n"
#define MODEL_TURN G_TURN "model\n"
#define EOT_NL G_EOT "\n"
#define THINK_NL G_THINK "\n"
#define THOUGHT_OPEN G_CH G_THOUGHT "\n"
#define THOUGHT_CLOSE "\n" G_CH_END
#define EMPTY_THOUGHT G_CH G_THOUGHT "\n" G_CH_END
#define CALL_HEAD G_CALL G_CALL_KW
#define RESP_HEAD G_RESP "response:"
#define RESP_VALUE "{value:" G_Q
#define RESP_TAIL G_Q "}" G_RESP_END
#define DECL_HEAD G_TOOL "declaration:"

static inline const char *str_or(const char *s)
{
    return s ? s : "";
}

/*
 * One declaration b[at, n) as the prompt writes it,
 * "<|tool>declaration:NAME{…}<tool|>", read back into *tool ({"name",
 * "description", "parameters"} with the schema's types in lower case; the
 * caller deletes it) and *end past it. A declaration that does not read
 * leaves *tool NULL, *why a static reason and *where its byte, and returns
 * TW_OK; TW_ERR_NOMEM.
 */
tw_status tw_gemma_decl_read(const char *b, size_t at, size_t n, size_t max_depth, cJSON **tool,
                             size_t *end, const char **why, size_t *where);

/* The call of calls[0, n) the reader takes a result named `name`, k-th of
 * its run, to answer: the k-th call when it has that name, else the first
 * of that name; n when none has it. */
size_t tw_gemma_pick_call(const tw_call *calls, size_t n, size_t k, const char *name);

/* A call name or a bare key: not empty, no white space, no control byte,
 * no markup, no brace syntax, no quote. */
bool tw_gemma_name_ok(const char *p, size_t n);
/* Does s[0, n) hold one of the output's special tokens (channel, call,
 * string quote, turn and tool-response markers)? */
bool tw_gemma_has_token(const char *s, size_t n);

/* The members of object v (NULL: none) in the order of Jinja's dictsort:
 * keys compared with ASCII letters folded, ties in their order. *out is an
 * array of *n members (NULL when none; tw_free it). TW_OK or TW_ERR_NOMEM. */
tw_status tw_gemma_dictsort(const cJSON *v, const cJSON ***out, size_t *n);

/* How tw_gemma_put_value writes. */
#define TW_GV_PY                                                                                   \
    1u                 /* the chat template's format_argument: members sorted as Jinja's dictsort, \
                        * numbers as Python's str(), null as None */
#define TW_GV_QKEYS 2u /* keys quoted <|"|>k<|"|> (format_argument's escape_keys) */

typedef struct tw_gemma_vw {
    const tw_encode_opts *o; /* where not_carried warnings go */
    const char *fmt;         /* the encoder named in warnings */
    const char *call;        /* the call or tool named in warnings */
    size_t max_depth;        /* deeper values refuse: TW_ERR_LIMIT */
    unsigned flags;          /* TW_GV_* */
} tw_gemma_vw;

/*
 * One value in the brace syntax, appended to b: a string <|"|>s<|"|>, an
 * object {key:VALUE,…} (keys bare unless TW_GV_QKEYS), a list [VALUE,…],
 * other scalars bare (JSON spellings, or Python's with TW_GV_PY). Warns
 * not_carried where the reader would take the bytes back otherwise: a
 * string holding <|"|>, a key that is not a bare name, without TW_GV_PY a
 * bare top-level (depth 0) value, with TW_GV_PY a non-ASCII key of an
 * object whose order dictsort may fold otherwise. TW_OK, TW_ERR_NOMEM,
 * TW_ERR_LIMIT (output cap, or depth past w->max_depth).
 */
tw_status tw_gemma_put_value(tw_buf *b, const cJSON *v, const tw_gemma_vw *w, size_t depth);

/*
 * Read one value of the brace syntax at b[*p, e) as JSON text appended to
 * j: a quoted string, {key:VALUE,…} with bare or quoted keys, [VALUE,…], a
 * bare JSON scalar; a bare word that is none is a string, except None (null)
 * when `py`. White space around tokens is skipped (with `py`, JSON's only:
 * space, tab, line feed, carriage return); a trailing ',' before a
 * closer is taken. On success *p is past the value and *what NULL. A text
 * that does not read sets *what (a static reason), *code (tool_call_json,
 * json_too_deep) and *p where it failed; the call still returns TW_OK.
 * TW_ERR_NOMEM otherwise.
 */
tw_status tw_gemma_brace_json(const char *b, size_t e, size_t *p, size_t max_depth, bool py,
                              tw_buf *j, const char **what, tw_status *code);

#endif
