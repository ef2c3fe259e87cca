/* Internal: what the request readers share (the OpenAI and Anthropic
 * request decoders, the vLLM-native GenerateRequest and the ChatML prompt);
 * request_read.c defines these. */
#ifndef TOOLWIRE_REQUEST_READ_H
#define TOOLWIRE_REQUEST_READ_H

#include <string.h>

#include "toolwire/request.h"

typedef struct tw_rq {
    tw_limits l;
    tw_diag_list *warnings;
    tw_error *err;
    tw_request *req;
    size_t cap_messages;
    size_t next_id; /* the last generated call id number */
    int64_t msg_at; /* where the next message starts in the input (-1: not known), for the
                     * max_messages refusal */
} tw_rq;

/* Empty *out and *err and set up d: limits from o (NULL: defaults),
 * warnings into out->warnings (max_diags), msg_at -1. */
void tw_rq_begin(tw_rq *d, const tw_decode_opts *o, tw_request *out, tw_error *err);

/* Fill d->err (when set) with code and return it. offset < 0: none. code
 * should be a failing status; a refusal that a diagnostic names goes through
 * tw_rq_refuse. A diagnostic code passed here is kept in err->code and the
 * call returns TW_ERR_INVALID (TW_OK: TW_ERR_INVALID in both), so a reader
 * never returns a diagnostic code, or success, as its status. */
tw_status tw_rq_fail(tw_rq *d, tw_status code, int64_t offset, const char *path, const char *fmt,
                     ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* Fill d->err (when set) with the diagnostic code that names the cause and
 * return the status st (TW_ERR_LIMIT, TW_ERR_PARSE, TW_ERR_INVALID, ...). */
tw_status tw_rq_refuse(tw_rq *d, tw_status st, tw_status code, int64_t offset, const char *path,
                       const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/*
 * A JSON text inside the request failed to parse (tw_json_parse returned st
 * and filled *je): fill d->err with je's code (json_too_deep, json_nul or
 * the status), its offset moved by base (where the text starts in the
 * input; -1 stays -1) and its reason at path, and return st.
 */
tw_status tw_rq_fail_json(tw_rq *d, tw_status st, const tw_error *je, int64_t base,
                          const char *path);
/* ===================== the JSON and names of a prompt ===================== */

/* The first byte of the JSON text p[0, n) that a JSON reader would drop: a
 * NUL byte anywhere (cJSON takes one between tokens for white space, and a
 * string cannot hold one), or a control byte other than tab, line feed and
 * carriage return between tokens (white space to cJSON, not to RFC 8259).
 * n when there is none. One pass, no allocation. */
size_t tw_rq_json_stray(const char *p, size_t n);

/* Read the JSON text p[0, n) that starts at byte `at` of a prompt into *out
 * (the caller frees it; NULL on failure), `what` naming it in the messages.
 * A byte tw_rq_json_stray finds is refused at its offset (json_nul for a
 * NUL, json_not_rfc8259 for a control byte), so none vanishes; text that
 * does not parse fails as tw_rq_fail_json says. TW_ERR_NOMEM as it comes. */
tw_status tw_rq_prompt_json(tw_rq *d, const char *p, size_t n, size_t at, const char *path,
                            const char *what, cJSON **out);

/* A name, key or id p[0, n) starting at byte `at` of a prompt, which becomes
 * a C string: a NUL byte in it is refused at its offset (json_nul), never
 * cut at. TW_OK when it holds none. */
tw_status tw_rq_no_nul(tw_rq *d, const char *p, size_t n, size_t at, const char *path,
                       const char *what);

/* A value of a call's arguments written as markup (the GLM and MiniMax-M2
 * templates: a string as it stands, anything else as tojson writes it),
 * p[0, n) at byte `at`, `types` its parameter's (typed_args.h; 0: none
 * known) into *out: JSON when the parameter may be other than a string and
 * the text is JSON other than a string that tojson writes back as the same
 * bytes, else the string as it stands, so the value is kept exactly. A NUL
 * byte is refused (json_nul: a string cannot hold one). */
tw_status tw_rq_markup_value(tw_rq *d, unsigned types, const char *p, size_t n, size_t at,
                             const char *path, cJSON **out);

/* The body's root: a JSON object that names each member once; else a
 * refusal (a repeated member: code duplicate_key, the key as the path). */
tw_status tw_rq_root(tw_rq *d, const cJSON *j);

/* Add a warning (offset -1) when d->warnings is set. */
tw_status tw_rq_warn(tw_rq *d, tw_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* The same at byte `offset` of the input (< 0: none). */
tw_status tw_rq_warn_at(tw_rq *d, tw_status code, int64_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* A tool_choice string: "auto", "none" or "required" into r->choice;
 * any other word fails (tool_choice: unknown value). */
tw_status tw_rq_choice_word(tw_rq *d, const char *s);

/* Copy a generation option into r->options under `key` (replacing it). */
tw_status tw_rq_put_option(tw_rq *d, const char *key, const cJSON *v);

/*
 * Start reading a JSON "tools" array: tools_present set, an array of at most
 * max_tools required, r->tools allocated for its *cnt entries (none when 0).
 */
tw_status tw_rq_tools_begin(tw_rq *d, const cJSON *arr, size_t *cnt);

/* Read tool t (at `path`) into the next r->tools entry. */
tw_status tw_rq_read_tool(tw_rq *d, const cJSON *t, const char *path);

/*
 * The head of messages[i]: j must be an object with a string "role".
 * path gets "messages[i]", p gets "messages[i].role", *role the role.
 */
tw_status tw_rq_message_head(tw_rq *d, const cJSON *j, size_t i, char *path, size_t pathlen,
                             char *p, size_t plen, const char **role);

/* A new zeroed message at the end of the request (max_messages checked: the
 * refusal is at d->msg_at). */
tw_status tw_rq_push(tw_rq *d, const char *path, tw_message **out);

/*
 * Take the <tool_call> blocks ending m's content off it as calls with
 * generated ids: the content is TEXT followed by blocks
 * "<tool_call>\n{\"name\": N, \"arguments\": {…}}\n</tool_call>", each
 * preceded by "\n" unless it is the first and TEXT is empty. A block that
 * does not hold such an object stays in the content (warning
 * tool_call_json), and so does everything before it. max_calls and
 * max_args_bytes refuse (TW_ERR_LIMIT).
 */
tw_status tw_rq_take_calls(tw_rq *d, tw_message *m, int64_t content_at, const char *path);

/* p[0, n) (its first 120 bytes) as a JSON string literal for a message: a
 * control byte of the input shows as its escape ("system\r"), never raw.
 * The caller frees it; NULL when memory runs out. */
char *tw_rq_quoted(const char *p, size_t n);

/* A call naming a tool the request's tools section does not declare (when it
 * has one): kept, with an unknown_tool warning at byte `at`, `where` naming
 * the place. */
tw_status tw_rq_warn_undeclared(tw_rq *d, const char *name, int64_t at, const char *where);
/* The calls found at the end of m's content, found[nfound) collected from
 * the last block back: the content cut to end bytes (when any were found),
 * each added in order with the id call_N, and found freed in every case. */
tw_status tw_rq_add_found_calls(tw_rq *d, tw_message *m, tw_call *found, size_t nfound, size_t end);

/*
 * Give every tool message without a tool_call_id the id (and name) of the
 * call it answers: the k-th tool message of a run answers the k-th call of
 * the assistant message before the run. A result with no such call gets a
 * fresh id and a not_carried warning.
 */
tw_status tw_rq_link_results(tw_rq *d, const char *fmt);

/* ===================== byte search ===================== */

/* Last occurrence of lit[0, k) in p[0, n), or NULL. */
static inline const char *rfind(const char *p, size_t n, const char *lit, size_t k)
{
    if (n < k)
        return NULL;
    for (size_t i = n - k + 1; i-- > 0;)
        if (p[i] == lit[0] && memcmp(p + i, lit, k) == 0)
            return p + i;
    return NULL;
}

static inline bool ends_with(const char *p, size_t n, const char *lit, size_t k)
{
    return n >= k && memcmp(p + n - k, lit, k) == 0;
}

static inline bool starts_with(const char *p, size_t n, const char *lit, size_t k)
{
    return n >= k && memcmp(p, lit, k) == 0;
}

#endif
