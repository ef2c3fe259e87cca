/*
 * The provider-neutral model (docs/neutral.md): tool
 * definitions, tool calls, messages, requests and decode results, with their
 * neutral JSON form. Every string a struct holds is owned by it; free with
 * the matching *_free function. Zero-initialised structs are valid and empty.
 */
#ifndef TOOLWIRE_NEUTRAL_H
#define TOOLWIRE_NEUTRAL_H

#include "toolwire/core.h"
#include "toolwire/json.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tw_tool {
    char *name;
    char *description; /* NULL when absent */
    cJSON *parameters; /* JSON Schema object; NULL when absent */
} tw_tool;

typedef struct tw_call {
    char *id;
    char *name;
    cJSON *arguments; /* always an object once accepted */
    char *raw_args;   /* argument bytes as received when they came as text, else NULL */
    size_t raw_args_len;
    int64_t offset; /* where the call started in the input, -1 when none */
} tw_call;

typedef enum tw_role { TW_ROLE_SYSTEM, TW_ROLE_USER, TW_ROLE_ASSISTANT, TW_ROLE_TOOL } tw_role;

typedef struct tw_message {
    tw_role role;
    tw_buf content; /* may hold NUL bytes; len is authoritative */
    tw_buf thinking;
    char *thinking_signature; /* NULL when none */
    tw_call *calls;
    size_t ncalls;
    size_t cap_calls;
    char *tool_call_id; /* role tool */
    char *name;         /* role tool: the tool's name, optional */
    bool is_error;      /* role tool */
    bool has_redacted_thinking;
    cJSON *redacted_thinking; /* Anthropic redacted_thinking blocks (array), NULL when none */
} tw_message;

typedef enum tw_choice {
    TW_CHOICE_UNSET = 0,
    TW_CHOICE_AUTO,
    TW_CHOICE_NONE,
    TW_CHOICE_REQUIRED,
    TW_CHOICE_NAMED
} tw_choice;

typedef struct tw_request {
    char *model;
    tw_message *messages;
    size_t nmessages;
    tw_tool *tools;
    size_t ntools;
    bool tools_present; /* a "tools" key was given, even if empty */
    tw_choice choice;
    char *choice_name;       /* TW_CHOICE_NAMED */
    int parallel_tool_calls; /* -1 unset, 0 false, 1 true */
    cJSON *options;          /* generation options object as given, or NULL */
    /* What a request reader could not carry or repaired (not_carried,
     * arguments_as_object, …), capped at limits.max_diags; freed by
     * tw_request_free. Empty when the request was not read from a wire. */
    tw_diag_list warnings;
} tw_request;

/* A decoder's result. Zero-initialised or set by tw_result_init, it is
 * valid and empty; every decoder leaves *out so on failure. Owns all it
 * holds: free with tw_result_free. */
typedef struct tw_result {
    tw_message msg;      /* role assistant */
    char *finish_reason; /* NULL prints as "" */
    tw_diag_list errors;
    tw_diag_list warnings;
    const char *reasoning_field; /* static: "reasoning_content", "reasoning" or NULL */
    struct tw_id_index *ids;     /* internal: call ids and tool names indexed (tw_result_*) */
} tw_result;

/* ---- decode options shared by every decoder ----
 *
 * The one options struct of every decoder (decode.h). Zero-initialised (or
 * a NULL pointer in its place) is the default for every field. The decoder
 * copies the struct at init; `tools` (and what it points at) must stay
 * valid until the decode ends and is never freed or modified by it. */

typedef enum tw_unterminated { TW_UNTERM_SYNTHESIZE = 0, TW_UNTERM_DIRECT } tw_unterminated;
typedef enum tw_finish { TW_FINISH_STOP = 0, TW_FINISH_LENGTH, TW_FINISH_STOP_SEQUENCE } tw_finish;

enum { TW_TAG_THINK = 1, TW_TAG_THINKING = 2 };

typedef struct tw_decode_opts {
    tw_limits limits; /* zero fields take defaults */
    bool forced_open;
    tw_unterminated unterminated;
    tw_finish finish;
    unsigned think_tags;  /* TW_TAG_* mask; 0 means both */
    const tw_tool *tools; /* declared tools (not owned) */
    size_t ntools;
    bool tools_declared; /* refuse unknown names even when ntools == 0 */
    bool allow_unknown_tool;
    bool schema_warn; /* keep schema failures with a warning */
    bool bare_json;
} tw_decode_opts;

/* ---- streaming events ---- */

typedef enum tw_event_kind {
    TW_EV_CONTENT = 0, /* text, len: a delta of content */
    TW_EV_THINKING,    /* text, len: a delta of thinking */
    TW_EV_TOOL_CALL,   /* call: a complete, accepted call */
    TW_EV_ERROR,       /* diag */
    TW_EV_WARNING      /* diag */
} tw_event_kind;

typedef struct tw_event {
    tw_event_kind kind;
    const char *text;
    size_t len;
    const tw_call *call;
    const tw_diag *diag;
} tw_event;

/*
 * The push decoders' event callback: called synchronously from feed and
 * finish, in input order, with the `user` pointer given when the decoder
 * was set up. The pointers in `ev` are valid during the call only (copy
 * what is kept). The callback must not call back into the same decoder.
 *
 * Return TW_OK to go on. Any other status (usually one of the failures of
 * core.h, e.g. TW_ERR_STATE or TW_ERR_LIMIT, but any value but TW_OK) stops
 * the decode: no event is delivered after it, the feed or finish that made
 * the call returns that status as is, and the decoder is failed: a later
 * feed returns the same status (TW_ERR_STATE once finish was called), a
 * finish that follows returns it too and leaves *out valid and empty, and
 * freeing (or resetting) the decoder is still safe, freeing it still
 * needed.
 */
typedef tw_status (*tw_event_fn)(void *user, const tw_event *ev);

/* ---- lifecycle ---- */

TW_API void tw_call_free(tw_call *c);
TW_API void tw_message_free(tw_message *m);
TW_API void tw_tool_free(tw_tool *t);
TW_API void tw_tools_free(tw_tool *t, size_t n);
TW_API void tw_request_free(tw_request *r);
/* An empty result whose diagnostic lists keep at most limits->max_diags
 * each (limits may be NULL: defaults). Does not free what *r held. */
TW_API void tw_result_init(tw_result *r, const tw_limits *limits);
/* Free everything r holds and zero it; r may be zeroed or initialised. */
TW_API void tw_result_free(tw_result *r);
/* Empty r for another use, keeping the allocations of msg.content and
 * msg.thinking (len 0, data and cap kept, max 0) and freeing everything else
 * it holds; r is then as tw_result_init(r, limits) leaves it but for those
 * two allocations (r must be zeroed, initialised or a finished result). Free
 * it with tw_result_free as any result. */
TW_API void tw_result_clear(tw_result *r, const tw_limits *limits);

/* Append a call to the message, taking ownership of *c's members (c is
 * zeroed). */
TW_API tw_status tw_message_add_call(tw_message *m, tw_call *c);
/* Deep copy. */
TW_API tw_status tw_call_copy(tw_call *dst, const tw_call *src);
TW_API tw_status tw_message_copy(tw_message *dst, const tw_message *src);
TW_API tw_status tw_tool_copy(tw_tool *dst, const tw_tool *src);

TW_API const char *tw_role_name(tw_role r);
TW_API bool tw_role_from_name(const char *s, tw_role *out);

/* ---- neutral JSON ---- */

/*
 * Print the neutral result exactly as docs/neutral.md orders it: content,
 * thinking, [thinking_signature], tool_calls, finish_reason, errors,
 * warnings. flags: TW_JSON_* (PRETTY for humans).
 */
TW_API tw_status tw_result_write(tw_buf *out, const tw_result *r, int flags);
/*
 * The readers of the neutral JSON (docs/neutral.md). j is not modified or
 * kept; limits may be NULL (the defaults). On TW_OK *out owns what was read
 * (free with the matching *_free). On failure *out is empty. On
 * TW_ERR_INVALID (a value of the wrong shape) err (may be NULL) says why:
 * err->code TW_ERR_INVALID, err->offset -1, err->path "", err->message the
 * reason, prefixed with the part that failed ("messages[2]: …"). On
 * TW_ERR_NOMEM err may be left as it was.
 */
/* A neutral result (used by fixtures and encoders of responses). */
TW_API tw_status tw_result_read(const cJSON *j, const tw_limits *limits, tw_result *out,
                                tw_error *err);

/* One tool definition, in the neutral or the OpenAI form. */
TW_API tw_status tw_tool_read(const cJSON *j, tw_tool *out, tw_error *err);
/* A JSON array of tool definitions. */
TW_API tw_status tw_tools_read(const cJSON *arr, const tw_limits *limits, tw_tool **out, size_t *n,
                               tw_error *err);
TW_API tw_status tw_tool_write(tw_buf *out, const tw_tool *t, int flags);

TW_API tw_status tw_message_read(const cJSON *j, const tw_limits *limits, tw_message *out,
                                 tw_error *err);
TW_API tw_status tw_message_write(tw_buf *out, const tw_message *m, int flags);

TW_API tw_status tw_request_read(const cJSON *j, const tw_limits *limits, tw_request *out,
                                 tw_error *err);
TW_API tw_status tw_request_write(tw_buf *out, const tw_request *r, int flags);

/* ---- helpers used by several decoders ---- */

/* Find a declared tool by name (NULL when none). */
TW_API const tw_tool *tw_tools_find(const tw_tool *tools, size_t n, const char *name);
/*
 * Make `id` unique among the message's calls: returns a malloc'd id, either
 * a copy or the id with the first free "__N" suffix (N >= 2); *rewritten
 * says which.
 */
TW_API char *tw_unique_call_id(const tw_message *m, const char *id, bool *rewritten);
/*
 * The same, among r->msg's calls, through an index of their ids that r keeps
 * (r->ids, freed by tw_result_free) and brings up to date with the calls
 * added since: a decode that takes n calls does O(n) work for their ids,
 * however many repeat. The id is taken as every JSON writer prints it
 * (invalid UTF-8 bytes as U+FFFD), so ids that differ only in such bytes
 * are duplicates. NULL when memory runs out.
 */
TW_API char *tw_result_unique_call_id(tw_result *r, const char *id, bool *rewritten);
/*
 * tw_tools_find through a sorted index of the tools that r keeps (built on
 * first use, again when tools or n change): a decode of many calls looks
 * each name up in O(log n). The same answer as tw_tools_find.
 */
TW_API const tw_tool *tw_result_find_tool(tw_result *r, const tw_tool *tools, size_t n,
                                          const char *name);
/* The finish_reason of a text decode (docs/text-formats.md, tool-call rule 13). */
TW_API const char *tw_text_finish_reason(size_t ncalls, tw_finish finish);

#ifdef __cplusplus
}
#endif
#endif
