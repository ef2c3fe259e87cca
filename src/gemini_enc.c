/*
 * Gemini generateContent encoders: request bodies, response bodies and
 * streamGenerateContent?alt=sse streams. Output is deterministic (key order
 * fixed here, compact JSON without the locale) so tests compare bytes.
 * Rules: docs/formats/gemini.md ("Encoding").
 */
#include "alloc.h"
#include "toolwire/gemini_encode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enc_common.h"
#include "formats.h"
#include "gemini_schema.h"
#include "toolwire/gemini.h"
#include "toolwire/openai_encode.h"

const char *tw_gemini_finish_reason_out(const char *fr)
{
    if (!fr || !fr[0] || strcmp(fr, "stop") == 0 || strcmp(fr, "tool_calls") == 0)
        return "STOP";
    if (strcmp(fr, "length") == 0)
        return "MAX_TOKENS";
    if (strcmp(fr, "content_filter") == 0)
        return "SAFETY";
    return fr;
}

static bool calls_named(const tw_message *m)
{
    for (size_t i = 0; i < m->ncalls; i++)
        if (!m->calls[i].name || !m->calls[i].name[0])
            return false;
    return true;
}

/* The id a decoder gives a call without one: call_N, N its 1-based position. */
static bool id_is_default(const char *id, size_t i)
{
    char def[32];
    snprintf(def, sizeof def, "call_%zu", i + 1);
    return strcmp(id, def) == 0;
}

static void function_call(tw_jw *w, const tw_call *c, bool with_id)
{
    tw_jw_open(w, "functionCall", '{');
    tw_jw_str(w, "name", c->name);
    if (c->arguments)
        tw_jw_json(w, "args", c->arguments);
    else
        tw_jw_raw(w, "args", "{}");
    if (with_id && c->id)
        tw_jw_str(w, "id", c->id);
    tw_jw_close(w, '}');
}

static void text_part(tw_jw *w, const tw_buf *t, bool thought, const char *sig)
{
    tw_jw_open(w, NULL, '{');
    tw_jw_strn(w, "text", t ? t->data : "", t ? t->len : 0);
    if (thought)
        tw_jw_raw(w, "thought", "true");
    if (sig)
        tw_jw_str(w, "thoughtSignature", sig);
    tw_jw_close(w, '}');
}

/* The parts of a model turn: thought, text, then the calls. The signature
 * rides on the first call (as Gemini 3 sends it), else on the first part;
 * a turn with a signature and nothing else gets an empty text part. */
static void model_parts(tw_jw *w, const tw_message *m, bool response)
{
    const char *sig = m->thinking_signature;
    if (m->thinking.len) {
        text_part(w, &m->thinking, true, m->ncalls ? NULL : sig);
        if (!m->ncalls)
            sig = NULL;
    }
    if (m->content.len || (sig && !m->ncalls)) {
        text_part(w, &m->content, false, m->ncalls ? NULL : sig);
        if (!m->ncalls)
            sig = NULL;
    }
    for (size_t i = 0; i < m->ncalls && w->st == TW_OK; i++) {
        const tw_call *c = &m->calls[i];
        tw_jw_open(w, NULL, '{');
        function_call(w, c, c->id && (!response || !id_is_default(c->id, i)));
        if (i == 0 && sig)
            tw_jw_str(w, "thoughtSignature", sig);
        tw_jw_close(w, '}');
    }
}

/* ===================== what a result cannot carry ===================== */

static tw_status result_warnings(const tw_result *r, const tw_encode_opts *o)
{
    const tw_message *m = &r->msg;
    tw_status st = TW_OK;
    if (m->content.len && memchr(m->content.data, '\0', m->content.len))
        st = tw_not_carried(o, "content: U+0000 in text is refused by the Gemini decoder");
    if (st == TW_OK && m->thinking.len && memchr(m->thinking.data, '\0', m->thinking.len))
        st = tw_not_carried(o, "thinking: U+0000 in text is refused by the Gemini decoder");
    if (st == TW_OK && m->thinking_signature && !m->thinking_signature[0])
        st = tw_not_carried(o, "thinking_signature: an empty signature is no signature in Gemini");
    if (st == TW_OK && (m->has_redacted_thinking || m->redacted_thinking))
        st = tw_not_carried(o, "redacted_thinking: Gemini has no redacted thinking parts");
    const char *fr = r->finish_reason;
    if (st == TW_OK && fr && fr[0]) {
        const char *back = tw_gemini_finish_reason(tw_gemini_finish_reason_out(fr), m->ncalls > 0);
        if (strcmp(back, fr) != 0)
            st = tw_not_carried(o, "finish_reason: \"%s\" reads back as \"%s\" from Gemini", fr,
                                back);
    }
    return st;
}

static void response_open(tw_jw *w)
{
    tw_jw_open(w, NULL, '{');
    tw_jw_open(w, "candidates", '[');
    tw_jw_open(w, NULL, '{');
    tw_jw_open(w, "content", '{');
    tw_jw_str(w, "role", "model");
    tw_jw_open(w, "parts", '[');
}

static void response_close(tw_jw *w, const tw_encode_opts *o, const char *finish)
{
    tw_jw_close(w, ']');
    tw_jw_close(w, '}');
    if (finish)
        tw_jw_str(w, "finishReason", finish);
    tw_jw_int(w, "index", 0);
    tw_jw_close(w, '}');
    tw_jw_close(w, ']');
    tw_jw_str(w, "modelVersion", o->model ? o->model : TW_DEFAULT_MODEL);
    if (o->id)
        tw_jw_str(w, "responseId", o->id);
    tw_jw_close(w, '}');
}

tw_status tw_gemini_response_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!o)
        o = &tw_enc_default_opts;
    if (!calls_named(&r->msg))
        return TW_ERR_INVALID;
    tw_status st = result_warnings(r, o);
    if (st != TW_OK)
        return st;
    tw_capsave cs;
    tw_cap_begin(out, o, &cs);
    tw_jw w = {.b = out};
    response_open(&w);
    model_parts(&w, &r->msg, true);
    response_close(&w, o, tw_gemini_finish_reason_out(r->finish_reason));
    return tw_cap_end(out, &cs, w.st);
}

/* ===================== streams ===================== */

static void ev_begin(tw_jw *w)
{
    tw_jw_lit(w, "data: ");
    w->depth = 0;
    response_open(w);
}

static void ev_end(tw_jw *w, const tw_encode_opts *o, const char *finish)
{
    response_close(w, o, finish);
    tw_jw_lit(w, "\r\n\r\n");
}

/* Text or thought deltas, one event each; the signature (when given) on the
 * first. */
static void text_events(tw_jw *w, const tw_encode_opts *o, const tw_buf *t, bool thought,
                        const char *sig)
{
    for (size_t off = 0; off < t->len && w->st == TW_OK;) {
        size_t k = tw_frag_len(t->data + off, t->len - off, o->text_fragment);
        tw_buf piece = {.data = t->data + off, .len = k};
        ev_begin(w);
        text_part(w, &piece, thought, off == 0 ? sig : NULL);
        ev_end(w, o, NULL);
        off += k;
    }
}

/* ---- streamed arguments: partialArgs ---- */

/* How a key is written as a jsonPath step: '.' for ".key", '\'' or '"' for
 * "['key']" or "[\"key\"]", 0 when no step the decoder reads names it. */
static char key_step(const char *k)
{
    if (k[0] && !strpbrk(k, ".['\"]"))
        return '.';
    if (!strchr(k, '\''))
        return '\'';
    if (!strchr(k, '"'))
        return '"';
    return 0;
}

/*
 * Can v (a member or element `steps` jsonPath steps below the arguments
 * object) be written as pieces that the decoder builds back exactly? Every
 * container below the root holds a value (an empty {} or [] has no leaf to
 * carry it), every key has a step, no member repeats the key of the one
 * before it (the decoder would take the second for the first), and no leaf
 * is more than max_depth steps deep. The recursion stops at max_depth.
 */
static bool pieces_fit(const cJSON *v, size_t steps, size_t max_depth)
{
    if (!cJSON_IsObject(v) && !cJSON_IsArray(v))
        return true;
    if (!v->child && steps > 0)
        return false;
    if (steps + 1 > max_depth)
        return false;
    const char *prev = NULL;
    for (const cJSON *c = v->child; c; c = c->next) {
        if (cJSON_IsObject(v)) {
            if (!c->string || !key_step(c->string) || (prev && strcmp(prev, c->string) == 0))
                return false;
            prev = c->string;
        }
        if (!pieces_fit(c, steps + 1, max_depth))
            return false;
    }
    return true;
}

typedef struct pa_out {
    tw_jw *w;
    const tw_encode_opts *o;
    tw_buf path; /* the jsonPath of the value being written */
} pa_out;

/* One event holding one piece: its jsonPath, then the value's key and
 * value written by the caller between piece_open and piece_close. */
static void piece_open(pa_out *p)
{
    tw_jw *w = p->w;
    ev_begin(w);
    tw_jw_open(w, NULL, '{');
    tw_jw_open(w, "functionCall", '{');
    tw_jw_open(w, "partialArgs", '[');
    tw_jw_open(w, NULL, '{');
    tw_jw_strn(w, "jsonPath", p->path.data, p->path.len);
}

static void piece_close(pa_out *p, bool more)
{
    tw_jw *w = p->w;
    if (more)
        tw_jw_raw(w, "willContinue", "true");
    tw_jw_close(w, '}');
    tw_jw_close(w, ']');
    tw_jw_raw(w, "willContinue", "true");
    tw_jw_close(w, '}');
    tw_jw_close(w, '}');
    ev_end(w, p->o, NULL);
}

/* A leaf: a string as pieces of at most args_fragment bytes, each with
 * willContinue, closed by an empty piece (as Gemini 3 sends it); an empty
 * string is one piece; a number (its spelling), a boolean or null one. */
static void leaf_pieces(pa_out *p, const cJSON *v)
{
    tw_jw *w = p->w;
    if (cJSON_IsString(v)) {
        const char *s = v->valuestring ? v->valuestring : "";
        size_t n = strlen(s);
        for (size_t off = 0; off < n && w->st == TW_OK;) {
            size_t k = tw_frag_len(s + off, n - off, p->o->args_fragment);
            piece_open(p);
            tw_jw_strn(w, "stringValue", s + off, k);
            piece_close(p, true);
            off += k;
        }
        piece_open(p);
        tw_jw_str(w, "stringValue", "");
        piece_close(p, false);
        return;
    }
    piece_open(p);
    if (cJSON_IsNumber(v))
        tw_jw_json(w, "numberValue", v);
    else if (cJSON_IsBool(v))
        tw_jw_raw(w, "boolValue", cJSON_IsTrue(v) ? "true" : "false");
    else
        tw_jw_str(w, "nullValue", "NULL_VALUE");
    piece_close(p, false);
}

/* Every leaf below v in document order; v's own path is in p->path. The
 * depth is bounded by pieces_fit. */
static void path_cut(tw_buf *b, size_t len)
{
    b->len = len;
    if (b->data)
        b->data[len] = '\0';
}

static void value_pieces(pa_out *p, const cJSON *v)
{
    if (!cJSON_IsObject(v) && !cJSON_IsArray(v)) {
        leaf_pieces(p, v);
        return;
    }
    size_t at = p->path.len, i = 0;
    for (const cJSON *c = v->child; c && p->w->st == TW_OK; c = c->next, i++) {
        path_cut(&p->path, at);
        tw_status st;
        if (cJSON_IsArray(v)) {
            char ix[32];
            snprintf(ix, sizeof ix, "[%zu]", i);
            st = tw_buf_puts(&p->path, ix);
        } else {
            char q = key_step(c->string);
            st = q == '.' ? tw_buf_putc(&p->path, '.') : tw_buf_putc(&p->path, '[');
            if (st == TW_OK && q != '.')
                st = tw_buf_putc(&p->path, q);
            if (st == TW_OK)
                st = tw_buf_puts(&p->path, c->string);
            if (st == TW_OK && q != '.') {
                st = tw_buf_putc(&p->path, q);
                if (st == TW_OK)
                    st = tw_buf_putc(&p->path, ']');
            }
        }
        if (st != TW_OK) {
            p->w->st = st;
            break;
        }
        value_pieces(p, c);
    }
    path_cut(&p->path, at);
}

/*
 * One call as Gemini 3 streams it: an event opening the call (name, id,
 * willContinue; the signature beside it), one event per piece, and the end
 * marker {} (with the finish reason when it is the stream's last event).
 */
static void call_pieces(tw_jw *w, const tw_encode_opts *o, const tw_call *c, bool with_id,
                        const char *sig, const char *finish)
{
    ev_begin(w);
    tw_jw_open(w, NULL, '{');
    tw_jw_open(w, "functionCall", '{');
    tw_jw_str(w, "name", c->name);
    if (with_id && c->id)
        tw_jw_str(w, "id", c->id);
    tw_jw_raw(w, "willContinue", "true");
    tw_jw_close(w, '}');
    if (sig)
        tw_jw_str(w, "thoughtSignature", sig);
    tw_jw_close(w, '}');
    ev_end(w, o, NULL);
    if (c->arguments) {
        pa_out p = {.w = w, .o = o};
        tw_limits l;
        tw_limits_resolve(&l, &o->limits);
        p.path.max = l.max_args_bytes;
        if (tw_buf_putc(&p.path, '$') != TW_OK)
            w->st = TW_ERR_NOMEM;
        else
            value_pieces(&p, c->arguments);
        tw_buf_free(&p.path);
    }
    ev_begin(w);
    tw_jw_open(w, NULL, '{');
    tw_jw_raw(w, "functionCall", "{}");
    tw_jw_close(w, '}');
    ev_end(w, o, finish);
}

tw_status tw_gemini_stream_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!o)
        o = &tw_enc_default_opts;
    const tw_message *m = &r->msg;
    if (!calls_named(m))
        return TW_ERR_INVALID;
    tw_status st = result_warnings(r, o);
    if (st != TW_OK)
        return st;
    tw_capsave cs;
    tw_cap_begin(out, o, &cs);
    tw_jw w = {.b = out};
    const char *sig = m->thinking_signature;
    if (m->thinking.len) {
        text_events(&w, o, &m->thinking, true, m->ncalls ? NULL : sig);
        if (!m->ncalls)
            sig = NULL;
    }
    if (m->content.len) {
        text_events(&w, o, &m->content, false, m->ncalls ? NULL : sig);
        if (!m->ncalls)
            sig = NULL;
    }
    const char *finish = tw_gemini_finish_reason_out(r->finish_reason);
    tw_limits l;
    tw_limits_resolve(&l, &o->limits);
    bool finished = false; /* the last call's end marker carried the finish reason */
    for (size_t i = 0; i < m->ncalls && w.st == TW_OK; i++) {
        const tw_call *c = &m->calls[i];
        bool with_id = c->id && !id_is_default(c->id, i);
        /* arguments the pieces cannot rebuild exactly go whole */
        if (o->partial_args && (!c->arguments || (cJSON_IsObject(c->arguments) &&
                                                  pieces_fit(c->arguments, 0, l.max_depth)))) {
            finished = i + 1 == m->ncalls;
            call_pieces(&w, o, c, with_id, i == 0 ? sig : NULL, finished ? finish : NULL);
            continue;
        }
        ev_begin(&w);
        tw_jw_open(&w, NULL, '{');
        function_call(&w, c, with_id);
        if (i == 0 && sig)
            tw_jw_str(&w, "thoughtSignature", sig);
        tw_jw_close(&w, '}');
        ev_end(&w, o, NULL);
    }
    /* the last event: an empty text part with the finish reason (and the
     * signature when nothing else carried it) */
    if (!finished) {
        ev_begin(&w);
        text_part(&w, NULL, false, m->ncalls ? NULL : sig);
        ev_end(&w, o, finish);
    }
    return tw_cap_end(out, &cs, w.st);
}

/* ===================== requests ===================== */

/* generationConfig fields for request options; NULL: not a generation option. */
static const char *generation_key(const char *k)
{
    static const char *const map[][2] = {
        {"temperature", "temperature"},
        {"top_p", "topP"},
        {"top_k", "topK"},
        {"max_tokens", "maxOutputTokens"},
        {"max_completion_tokens", "maxOutputTokens"},
        {"seed", "seed"},
        {"presence_penalty", "presencePenalty"},
        {"frequency_penalty", "frequencyPenalty"},
        {"n", "candidateCount"},
        {"stop", "stopSequences"},
        {"thinkingConfig", "thinkingConfig"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(map[i][0], k) == 0)
            return map[i][1];
    return NULL;
}

/*
 * The function name of every tool result, in one pass: the name of the call
 * with its tool_call_id in the latest assistant message before it (the call
 * at the result's own position among the results is tried first), else
 * NULL. Work per result is bounded by that message's calls (max_calls).
 */
static void answered_names(const tw_request *r, const char **called)
{
    const tw_message *last = NULL;
    size_t pos = 0;
    for (size_t i = 0; i < r->nmessages; i++) {
        const tw_message *m = &r->messages[i];
        called[i] = NULL;
        if (m->role == TW_ROLE_ASSISTANT) {
            last = m;
            pos = 0;
            continue;
        }
        if (m->role != TW_ROLE_TOOL || !last || !m->tool_call_id)
            continue;
        size_t k = pos++;
        if (k >= last->ncalls || !last->calls[k].id ||
            strcmp(last->calls[k].id, m->tool_call_id) != 0)
            for (k = 0; k < last->ncalls; k++)
                if (last->calls[k].id && strcmp(last->calls[k].id, m->tool_call_id) == 0)
                    break;
        if (k < last->ncalls)
            called[i] = last->calls[k].name;
    }
}

static tw_status request_warnings(const tw_request *r, const tw_encode_opts *o,
                                  const char *const *called, bool *maxtok_seen)
{
    tw_status st = TW_OK;
    bool other_seen = false;
    for (size_t i = 0; st == TW_OK && i < r->nmessages; i++) {
        const tw_message *m = &r->messages[i];
        if (m->role == TW_ROLE_SYSTEM && other_seen)
            st = tw_not_carried(o,
                                "messages[%zu]: a system message inside the conversation; its text "
                                "moved to systemInstruction",
                                i);
        if (m->role != TW_ROLE_SYSTEM)
            other_seen = true;
        if (st == TW_OK && m->role != TW_ROLE_ASSISTANT &&
            (m->thinking.len || m->thinking_signature || m->ncalls))
            st = tw_not_carried(o,
                                "messages[%zu]: only model turns carry thinking, signatures and "
                                "calls",
                                i);
        if (st == TW_OK && (m->has_redacted_thinking || m->redacted_thinking))
            st = tw_not_carried(o,
                                "messages[%zu].redacted_thinking: Gemini has no redacted "
                                "thinking parts",
                                i);
        if (st == TW_OK && m->role == TW_ROLE_TOOL) {
            if (called[i] && m->name && strcmp(called[i], m->name) != 0)
                st = tw_not_carried(o,
                                    "messages[%zu].name: \"%s\" differs from the call it answers; "
                                    "the call's name is sent",
                                    i, m->name);
        }
    }
    int ptc = o->parallel_tool_calls >= 0 ? o->parallel_tool_calls : r->parallel_tool_calls;
    if (st == TW_OK && ptc >= 0)
        st = tw_not_carried(o, "parallel_tool_calls: Gemini has no parallel setting");
    const char *model = o->model ? o->model : r->model;
    if (st == TW_OK && model)
        st = tw_not_carried(o, "model: Gemini names the model in the URL, not the body");
    if (r->options)
        for (const cJSON *c = r->options->child; c && st == TW_OK; c = c->next) {
            if (!c->string)
                continue;
            const char *g = generation_key(c->string);
            if (!g)
                st =
                    tw_not_carried(o, "options.%s: not a Gemini generationConfig field", c->string);
            else if (strcmp(g, "maxOutputTokens") == 0 && *maxtok_seen)
                st = tw_not_carried(o, "options.%s: maxOutputTokens is already set", c->string);
            else if (strcmp(g, "stopSequences") == 0 && !cJSON_IsString(c) && !cJSON_IsArray(c))
                st = tw_not_carried(o, "options.stop: neither a string nor an array");
            if (g && strcmp(g, "maxOutputTokens") == 0)
                *maxtok_seen = true;
        }
    return st;
}

static void function_response(tw_jw *w, const tw_message *m, const char *name)
{
    tw_jw_open(w, NULL, '{');
    tw_jw_open(w, "functionResponse", '{');
    tw_jw_str(w, "name", name);
    tw_jw_open(w, "response", '{');
    tw_jw_strn(w, m->is_error ? "error" : "output", m->content.data, m->content.len);
    tw_jw_close(w, '}');
    if (m->tool_call_id)
        tw_jw_str(w, "id", m->tool_call_id);
    tw_jw_close(w, '}');
    tw_jw_close(w, '}');
}

static void write_contents(tw_jw *w, const tw_request *r, const char *const *names)
{
    tw_jw_open(w, "contents", '[');
    for (size_t i = 0; i < r->nmessages && w->st == TW_OK; i++) {
        const tw_message *m = &r->messages[i];
        switch (m->role) {
        case TW_ROLE_SYSTEM: break;
        case TW_ROLE_USER:
            tw_jw_open(w, NULL, '{');
            tw_jw_str(w, "role", "user");
            tw_jw_open(w, "parts", '[');
            text_part(w, &m->content, false, NULL);
            tw_jw_close(w, ']');
            tw_jw_close(w, '}');
            break;
        case TW_ROLE_ASSISTANT:
            tw_jw_open(w, NULL, '{');
            tw_jw_str(w, "role", "model");
            tw_jw_open(w, "parts", '[');
            if (!m->thinking.len && !m->thinking_signature && !m->ncalls)
                text_part(w, &m->content, false, NULL);
            else
                model_parts(w, m, false);
            tw_jw_close(w, ']');
            tw_jw_close(w, '}');
            break;
        case TW_ROLE_TOOL: {
            /* one user turn: every consecutive tool result */
            tw_jw_open(w, NULL, '{');
            tw_jw_str(w, "role", "user");
            tw_jw_open(w, "parts", '[');
            size_t j = i;
            for (; j < r->nmessages && r->messages[j].role == TW_ROLE_TOOL; j++)
                function_response(w, &r->messages[j], names[j]);
            tw_jw_close(w, ']');
            tw_jw_close(w, '}');
            i = j - 1;
            break;
        }
        }
    }
    tw_jw_close(w, ']');
}

static void write_system(tw_jw *w, const tw_request *r)
{
    bool any = false;
    for (size_t i = 0; i < r->nmessages; i++)
        any |= r->messages[i].role == TW_ROLE_SYSTEM;
    if (!any)
        return;
    tw_jw_open(w, "systemInstruction", '{');
    tw_jw_open(w, "parts", '[');
    for (size_t i = 0; i < r->nmessages && w->st == TW_OK; i++)
        if (r->messages[i].role == TW_ROLE_SYSTEM)
            text_part(w, &r->messages[i].content, false, NULL);
    tw_jw_close(w, ']');
    tw_jw_close(w, '}');
}

/* Each tool's schema goes in `parameters` (Gemini's Schema) when it has only
 * that Schema's keys, else whole in `parametersJsonSchema`, which takes any
 * JSON Schema: the one Gemini refuses no key of, nothing left out. */
static void write_tools(tw_jw *w, const tw_request *r, const tw_limits *l)
{
    if (r->ntools) {
        tw_jw_open(w, "tools", '[');
        tw_jw_open(w, NULL, '{');
        tw_jw_open(w, "functionDeclarations", '[');
        for (size_t i = 0; i < r->ntools && w->st == TW_OK; i++) {
            const tw_tool *t = &r->tools[i];
            tw_jw_open(w, NULL, '{');
            tw_jw_str(w, "name", t->name);
            if (t->description)
                tw_jw_str(w, "description", t->description);
            if (t->parameters)
                tw_jw_json(w,
                           tw_gemini_schema_fits(t->parameters, l->max_depth)
                               ? "parameters"
                               : "parametersJsonSchema",
                           t->parameters);
            tw_jw_close(w, '}');
        }
        tw_jw_close(w, ']');
        tw_jw_close(w, '}');
        tw_jw_close(w, ']');
    }
    if (r->choice == TW_CHOICE_UNSET)
        return;
    tw_jw_open(w, "toolConfig", '{');
    tw_jw_open(w, "functionCallingConfig", '{');
    switch (r->choice) {
    case TW_CHOICE_NONE: tw_jw_str(w, "mode", "NONE"); break;
    case TW_CHOICE_REQUIRED: tw_jw_str(w, "mode", "ANY"); break;
    case TW_CHOICE_NAMED:
        tw_jw_str(w, "mode", "ANY");
        tw_jw_open(w, "allowedFunctionNames", '[');
        tw_jw_str(w, NULL, r->choice_name ? r->choice_name : "");
        tw_jw_close(w, ']');
        break;
    default: tw_jw_str(w, "mode", "AUTO"); break;
    }
    tw_jw_close(w, '}');
    tw_jw_close(w, '}');
}

static void write_generation(tw_jw *w, const tw_request *r)
{
    bool open = false, maxtok = false;
    for (const cJSON *c = r->options ? r->options->child : NULL; c && w->st == TW_OK; c = c->next) {
        const char *g = c->string ? generation_key(c->string) : NULL;
        if (!g)
            continue;
        bool is_max = strcmp(g, "maxOutputTokens") == 0;
        bool is_stop = strcmp(g, "stopSequences") == 0;
        if ((is_max && maxtok) || (is_stop && !cJSON_IsString(c) && !cJSON_IsArray(c)))
            continue; /* reported as not_carried */
        maxtok |= is_max;
        if (!open)
            tw_jw_open(w, "generationConfig", '{');
        open = true;
        if (is_stop && cJSON_IsString(c)) {
            tw_jw_open(w, g, '[');
            tw_jw_str(w, NULL, c->valuestring);
            tw_jw_close(w, ']');
        } else {
            tw_jw_json(w, g, c);
        }
    }
    if (open)
        tw_jw_close(w, '}');
}

tw_status tw_gemini_request_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!o)
        o = &tw_enc_default_opts;
    tw_limits l;
    tw_limits_resolve(&l, &o->limits);
    if (r->nmessages > l.max_messages || r->ntools > l.max_tools)
        return TW_ERR_LIMIT;
    for (size_t i = 0; i < r->nmessages; i++)
        if (r->messages[i].role == TW_ROLE_ASSISTANT && !calls_named(&r->messages[i]))
            return TW_ERR_INVALID;
    /* the function name of every tool result: its call's, else its own */
    const char **names = NULL, **called = NULL;
    if (r->nmessages) {
        names = tw_calloc(2 * r->nmessages, sizeof *names);
        if (!names)
            return TW_ERR_NOMEM;
        called = names + r->nmessages;
        answered_names(r, called);
    }
    for (size_t i = 0; i < r->nmessages; i++) {
        const tw_message *m = &r->messages[i];
        if (m->role != TW_ROLE_TOOL)
            continue;
        names[i] = called[i] ? called[i] : m->name;
        if (!names[i] || !names[i][0]) {
            tw_free(names);
            return TW_ERR_INVALID;
        }
    }
    bool maxtok = false;
    tw_status st = request_warnings(r, o, called, &maxtok);
    if (st != TW_OK) {
        tw_free(names);
        return st;
    }
    tw_capsave cs;
    tw_cap_begin(out, o, &cs);
    tw_jw w = {.b = out};
    tw_jw_open(&w, NULL, '{');
    write_contents(&w, r, names);
    write_system(&w, r);
    write_tools(&w, r, &l);
    write_generation(&w, r);
    tw_jw_close(&w, '}');
    tw_free(names);
    return tw_cap_end(out, &cs, w.st);
}

/* ===================== registry ===================== */

const tw_encoder_ops tw_encoder_gemini_request = {
    "gemini-request", "Gemini generateContent request body", TW_ENC_REQUEST,
    tw_gemini_request_encode, tw_unsupported_encode_result};
const tw_encoder_ops tw_encoder_gemini_response = {"gemini", "Gemini generateContent response body",
                                                   TW_ENC_RESULT, tw_unsupported_encode_request,
                                                   tw_gemini_response_encode};
const tw_encoder_ops tw_encoder_gemini_stream = {
    "gemini-stream", "Gemini streamGenerateContent?alt=sse stream", TW_ENC_RESULT,
    tw_unsupported_encode_request, tw_gemini_stream_encode};
