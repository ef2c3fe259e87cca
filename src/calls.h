/*
 * Internal: call acceptance, the one place where a tool call as a decoder
 * read it becomes an accepted tw_call or a refusal. Every decoder that
 * yields calls (OpenAI, Anthropic, the text formats, vLLM) describes each
 * call as a tw_wire_call and hands it to tw_wire_take_call, which applies
 * the rules of docs/formats/openai.md "Calls" and docs/text-formats.md in
 * one order: the decoder's own refusal, name, declared tool, arguments
 * (text parsed, object checked), repeated keys, size, schema, max_calls;
 * then the id is made unique and the warnings held back for the call are
 * written, in the order they were found.
 *
 * Also here: the caps that follow from the limits and bound a call while it
 * arrives, named once.
 */
#ifndef TOOLWIRE_CALLS_H
#define TOOLWIRE_CALLS_H

#include "toolwire/json.h"
#include "toolwire/neutral.h"

/* ===================== derived caps ===================== */

/*
 * Bytes of one call's argument text a decoder holds while it arrives (a
 * text-format call block, an OpenAI arguments string, an Anthropic
 * input_json): twice max_args_bytes, since escapes make the text longer
 * than the value it writes, plus room for the envelope. Past it the call is
 * refused as args_too_large without the text being parsed.
 */
static inline size_t tw_args_text_cap(const tw_limits *L)
{
    return 2 * L->max_args_bytes + 4096;
}

/*
 * Calls (OpenAI) or content blocks (Anthropic) one stream may hold open at
 * once: twice max_calls, since refused calls hold a slot too, plus the
 * text and thinking blocks.
 */
static inline size_t tw_open_calls_cap(const tw_limits *L)
{
    return 2 * L->max_calls + 16;
}

/* ===================== where results go ===================== */

/* Where decoded values, diagnostics and events go. */
typedef struct tw_wire_sink {
    tw_result *res;
    const tw_decode_opts *o;
    const tw_limits *L;
    tw_event_fn fn; /* NULL: no events */
    void *user;
    tw_status *stop; /* the decoder's stop status (tw_event_deliver) */
} tw_wire_sink;

/*
 * Deliver one event to fn (NULL: no events). A callback that returns
 * anything but TW_OK stops the decoder: its status is kept in *stop, no
 * event is delivered after it, and the decoder's feed or finish returns it.
 */
static inline void tw_event_deliver(tw_event_fn fn, void *user, tw_status *stop, const tw_event *ev)
{
    if (!fn || *stop != TW_OK)
        return;
    tw_status st = fn(user, ev);
    if (st != TW_OK)
        *stop = st;
}

/* Add an error (error = true) or warning and fire its event. */
tw_status tw_wire_diag(tw_wire_sink *k, bool error, tw_status code, int64_t off, const char *msg);

/* ===================== one call ===================== */

/* One call as the wire delivered it, before the rules are applied. */
typedef struct tw_wire_call {
    const char *id;       /* NUL-terminated or NULL */
    const char *name;     /* NUL-terminated or NULL */
    const char *args_str; /* arguments as text (has_args_str), any bytes */
    size_t args_len;
    tw_buf *args_buf; /* when not NULL, the buffer args_str lies in (args_str ==
                         args_buf->data): an accepted call takes its allocation as
                         raw_args, not a copy, and leaves it empty */
    bool has_args_str;
    cJSON *args_tree;        /* with has_args_str, or NULL: the tree args_str reads as, built
                                beside it by the decoder (typed_args.h) for a text that is
                                an object in RFC 8259 form without U+0000, nested within
                                L->max_depth, with its containers marked as the parser
                                marks them; taken as the parsed text (the text itself is
                                not read again). Always the call's: taken as its arguments
                                or freed */
    const cJSON *args_value; /* arguments as a JSON value (not text), or NULL */
    bool args_native;        /* args_value is the format's own form (no arguments_as_object) */
    cJSON *args_owner;       /* when not NULL, the object args_value is a member of: an
                                accepted object is moved out of it, not copied */
    bool params_alias;       /* the arguments came under "parameters" (parameters_alias) */
    bool args_oversize;      /* the text went past tw_args_text_cap */
    bool legacy;             /* an OpenAI legacy function_call */
    int64_t offset;
    tw_status refuse;       /* decided by the format before the shared rules (json_nul,
                               call_duplicate_key), TW_OK when none */
    const char *refuse_why; /* its message, NULL for the code's own */
    size_t args_src_len;    /* args_value was parsed from at most this many bytes of
                               text and nests at most k->L->max_depth deep (a tree
                               tw_json_parse(_lint) read with that cap, or a member whose
                               depth the whole tree's bounds), so its written size is at
                               most 33 bytes a source byte; 0 when not known */
} tw_wire_call;

/*
 * Apply the acceptance rules to one call: accepted calls are appended to
 * k->res->msg and fire TW_EV_TOOL_CALL; refused ones add an error. Returns
 * TW_OK unless memory ran out.
 */
tw_status tw_wire_take_call(tw_wire_sink *k, const tw_wire_call *c);

/*
 * A call written as one JSON object {"name", "arguments" (or "parameters"),
 * "id"}, as the text formats and vLLM's tool_calls give it: not an object is
 * tool_call_json, otherwise the object's own refusals (tw_call_object_check)
 * and then tw_wire_take_call with the arguments in their native form. An
 * object's arguments are moved out of obj into the call, never copied.
 */
tw_status tw_call_take_object(tw_wire_sink *k, cJSON *obj, int64_t off);

/*
 * tw_call_take_object for an object that lies in a tree tw_json_parse or
 * tw_json_parse_lint read with k->L->max_depth from src_len bytes of text:
 * the same rules, without walking the arguments again for their depth, nor
 * for their size when 33 * src_len is within max_args_bytes.
 */
tw_status tw_call_take_parsed(tw_wire_sink *k, cJSON *obj, int64_t off, size_t src_len);

/* ===================== pieces of the rules ===================== */

/* A warning held back until its call is accepted. */
typedef struct tw_pending {
    tw_status code;
    char msg[224];
} tw_pending;

/*
 * Every kind of warning a call can hold back, each at most once per call:
 * a decoder's array of pending warnings has TW_PENDING_MAX slots, and
 * tw_pending_add keeps one warning per code, so it can never overflow.
 */
#define TW_PENDING_CODES(X)                                                                        \
    X(TW_D_PARAMETERS_ALIAS)                                                                       \
    X(TW_D_ARGUMENTS_AS_STRING)                                                                    \
    X(TW_D_ARGUMENTS_AS_OBJECT)                                                                    \
    X(TW_D_ARGS_SCHEMA)                                                                            \
    X(TW_D_LEGACY_FUNCTION_CALL)                                                                   \
    X(TW_D_DUPLICATE_ID)                                                                           \
    X(TW_D_DUPLICATE_KEY)                                                                          \
    X(TW_D_JSON_NOT_RFC8259)

#define TW_PENDING_ONE(code) +1
enum { TW_PENDING_MAX = 0 TW_PENDING_CODES(TW_PENDING_ONE) };
#undef TW_PENDING_ONE

/*
 * Hold a warning: returns false (and holds nothing) when `code` is not one
 * of TW_PENDING_CODES or is already held; warns has TW_PENDING_MAX slots.
 */
bool tw_pending_add(tw_pending *warns, size_t *nwarn, tw_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/*
 * Refusals every decoder shares for a parsed call object: a string or key in
 * it held U+0000 (removed by tw_json_parse_lint: json_nul), or it repeats
 * one of name, arguments, parameters, id, type, function, input
 * (call_duplicate_key). True when the call is refused, with the refusal in err
 * (err->code the diagnostic, err->message its text); false leaves err as it was.
 */
bool tw_call_object_check(const cJSON *obj, tw_error *err);

/*
 * Repeated keys at any depth of accepted arguments: the later members are
 * removed, the first value of each key kept, and one duplicate_key warning
 * naming the first path is held. TW_ERR_NOMEM possible.
 */
tw_status tw_args_dedupe(cJSON *args, tw_pending *warns, size_t *nwarn);

/*
 * The checks a call's parsed arguments pass last, in this order: size
 * (max_args_bytes), the declared tool's schema, then max_calls (the
 * calls res holds so far). True when the call is refused, with the refusal in
 * err (err->code the diagnostic); false leaves err as it was. A schema failure
 * under o->schema_warn does not refuse: it is held as warns[(*nwarn)++].
 */
bool tw_call_check(const tw_decode_opts *o, const tw_limits *L, tw_result *res, const char *name,
                   const cJSON *args, tw_error *err, tw_pending *warns, size_t *nwarn);

#endif
