/*
 * DeepSeek V3.2 encoders: the output the model writes for a result (dsml),
 * as the chat template writes an assistant turn's calls, and the prompt of
 * its chat template (deepseek-v3.2-prompt), byte for byte what Python's
 * Jinja renders. Rules: docs/formats/dsml.md.
 */
#include "toolwire/dsml.h"

#include <stdio.h>
#include <string.h>

#include "dsml_text.h"
#include "enc_common.h"
#include "formats.h"
#include "py_text.h"
#include "tw_macros.h"
#include "toolwire/json.h"

#define OUT "dsml"
#define PROMPT "deepseek-v3.2-prompt"

static bool holds(const char *p, size_t n, const char *lit)
{
    return tw_memmem(p ? p : "", n, lit, strlen(lit)) != NULL;
}

/* The first marker of `marks` that p[0, n) holds, or NULL. */
static const char *holds_any(const char *p, size_t n, const char *const *marks, size_t nm)
{
    for (size_t i = 0; i < nm; i++)
        if (holds(p, n, marks[i]))
            return marks[i];
    return NULL;
}

static tw_status refuse_out(const tw_encode_opts *o, const char *what, const char *tok)
{
    tw_not_carried(o, OUT ": refused: %s holds %s, which the decoder reads as markup", what, tok);
    return TW_ERR_INVALID;
}

/* A name or key as an attribute value: not empty, no '<', '>', '"' or
 * control byte (what the decoder takes back; a space is kept). */
static bool attr_ok(const char *p)
{
    if (!p || !p[0])
        return false;
    for (; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c < 0x20 || c == '<' || c == '>' || c == '"' || c == 0x7f)
            return false;
    }
    return true;
}

/* <｜DSML｜invoke name="NAME">\n, a line per argument, </｜DSML｜invoke>\n. */
static tw_status put_invoke(tw_buf *b, const tw_call *c, size_t i, const tw_encode_opts *o,
                            size_t max_depth)
{
    static const char *const in_value[] = {D_PARAM_CLOSE, D_INVOKE_CLOSE, D_INVOKE_OPEN,
                                           D_CALLS_CLOSE, D_EOS};
    const char *nm = c->name ? c->name : "";
    char gen[32];
    snprintf(gen, sizeof gen, "call_%zu", i + 1);
    if (c->id && strcmp(c->id, gen) != 0)
        TRY(tw_not_carried(o, OUT ": id of call %.64s not carried", nm));
    if (!attr_ok(nm)) {
        tw_not_carried(o, OUT ": refused: the call name %.64s cannot be written", nm);
        return TW_ERR_INVALID;
    }
    if (c->arguments && !cJSON_IsObject(c->arguments)) {
        tw_not_carried(o, OUT ": refused: arguments of call %.64s are not an object", nm);
        return TW_ERR_INVALID;
    }
    TRY(PUTS(b, D_INVOKE_OPEN " name=\""));
    TRY(tw_buf_puts(b, nm));
    TRY(PUTS(b, "\">\n"));
    for (const cJSON *a = c->arguments ? c->arguments->child : NULL; a; a = a->next) {
        const char *k = a->string ? a->string : "";
        if (!attr_ok(k)) {
            tw_not_carried(o, OUT ": refused: parameter name %.64s of call %.64s cannot be written",
                           k, nm);
            return TW_ERR_INVALID;
        }
        TRY(PUTS(b, D_PARAM_OPEN " name=\""));
        TRY(tw_buf_puts(b, k));
        if (cJSON_IsString(a)) {
            const char *v = a->valuestring ? a->valuestring : "";
            size_t vn = strlen(v);
            const char *tok = holds_any(v, vn, in_value, 5);
            if (tok)
                return refuse_out(o, "a string argument", tok);
            TRY(PUTS(b, "\" string=\"true\">"));
            TRY(tw_buf_append(b, v, vn));
        } else {
            TRY(PUTS(b, "\" string=\"false\">"));
            size_t at = b->len;
            (void)max_depth;
            TRY(tw_json_write(b, a, 0));
            const char *tok = holds_any(b->data + at, b->len - at, in_value, 5);
            if (tok)
                return refuse_out(o, "an argument", tok);
        }
        TRY(PUTS(b, D_PARAM_CLOSE "\n"));
    }
    return PUTS(b, D_INVOKE_CLOSE "\n");
}

static tw_status render_output(tw_buf *b, const tw_result *r, const tw_encode_opts *o)
{
    static const char *const in_text[] = {D_THINK_CLOSE, D_CALLS_OPEN, D_INVOKE_OPEN, D_EOS};
    const tw_message *m = &r->msg;
    const char *tok;
    /* the reasoning ends at the first </think> or block; the content at a
     * block or an invoke (a </think> in content is text) */
    if ((tok = holds_any(m->thinking.data, m->thinking.len, in_text, 4)) != NULL)
        return refuse_out(o, "the reasoning", tok);
    if ((tok = holds_any(m->content.data, m->content.len, in_text + 1, 3)) != NULL)
        return refuse_out(o, "the content", tok);
    if (m->has_redacted_thinking || m->redacted_thinking)
        TRY(tw_not_carried(o, OUT ": redacted thinking not carried"));
    if (m->thinking_signature)
        TRY(tw_not_carried(o, OUT ": thinking signature not carried"));
    if (r->finish_reason && r->finish_reason[0] &&
        strcmp(r->finish_reason, m->ncalls ? "tool_calls" : "stop") != 0)
        TRY(tw_not_carried(o, OUT ": finish_reason %.32s not carried", r->finish_reason));
    /* <think>...</think> whether the prompt opened the reasoning or not: a
     * decoder with forced_open drops the repeated opener */
    TRY(PUTS(b, D_THINK_OPEN));
    TRY(tw_buf_append(b, m->thinking.data ? m->thinking.data : "", m->thinking.len));
    TRY(PUTS(b, D_THINK_CLOSE));
    TRY(tw_buf_append(b, m->content.data ? m->content.data : "", m->content.len));
    if (m->ncalls == 0)
        return TW_OK;
    tw_limits L;
    tw_limits_resolve(&L, &o->limits);
    TRY(PUTS(b, "\n\n" D_CALLS_OPEN "\n"));
    for (size_t i = 0; i < m->ncalls; i++)
        TRY(put_invoke(b, &m->calls[i], i, o, L.max_depth));
    return PUTS(b, D_CALLS_CLOSE);
}

tw_status tw_dsml_output_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!r || !out)
        return TW_ERR_INVALID;
    if (!o)
        o = &tw_enc_default_opts;
    tw_capsave cs;
    tw_cap_begin(out, o, &cs);
    size_t before = out->len;
    tw_status st = render_output(out, r, o);
    if (st != TW_OK)
        out->len = before < out->len ? before : out->len;
    return tw_cap_end(out, &cs, st);
}

/* ===================== the prompt ===================== */

/* The template's `thinking`: options.thinking when given, else
 * options.enable_thinking, as Python's truth. */
static bool prompt_thinking(const tw_request *r)
{
    const cJSON *t = tw_json_get(r->options, "thinking");
    if (!t)
        t = tw_json_get(r->options, "enable_thinking");
    return truthy(t);
}

/* What the template leaves out whatever the turns, as not_carried warnings. */
static tw_status prompt_losses(const tw_request *r, const tw_encode_opts *o)
{
    if (!o->warnings)
        return TW_OK;
    if (r->model)
        TRY(tw_not_carried(o, PROMPT ": model not carried"));
    if (r->parallel_tool_calls >= 0)
        TRY(tw_not_carried(o, PROMPT ": parallel_tool_calls not carried"));
    if (r->choice == TW_CHOICE_NONE || r->choice == TW_CHOICE_REQUIRED ||
        r->choice == TW_CHOICE_NAMED)
        TRY(tw_not_carried(o,
                           PROMPT ": tool_choice not carried (the template has no place for it)"));
    for (const cJSON *c = r->options ? r->options->child : NULL; c; c = c->next) {
        const char *k = c->string ? c->string : "";
        if (strcmp(k, "add_generation_prompt") && strcmp(k, "thinking") &&
            strcmp(k, "enable_thinking"))
            TRY(tw_not_carried(o, PROMPT ": options.%.64s not carried", k));
    }
    size_t nsys = 0;
    bool late_sys = false, err = false, sig = false, redacted = false, turn = false, empty = false;
    for (size_t i = 0; i < r->nmessages; i++) {
        const tw_message *m = &r->messages[i];
        if (m->role == TW_ROLE_SYSTEM) {
            nsys++;
            late_sys |= turn;
            empty |= m->content.len == 0;
        }
        turn |= m->role != TW_ROLE_SYSTEM;
        err |= m->role == TW_ROLE_TOOL && m->is_error;
        sig |= m->thinking_signature != NULL;
        redacted |= m->has_redacted_thinking || m->redacted_thinking != NULL;
    }
    if (nsys > 1)
        TRY(tw_not_carried(o,
                           PROMPT ": %zu system messages not carried as such (the template "
                                  "joins them with a blank line into one system prompt)",
                           nsys));
    else if (empty)
        TRY(tw_not_carried(o, PROMPT ": an empty system message not carried"));
    if (late_sys)
        TRY(tw_not_carried(o, PROMPT ": the place of a system message after other messages not "
                                     "carried (the template writes every system message first)"));
    if (err)
        TRY(tw_not_carried(o, PROMPT ": is_error of a tool result not carried"));
    if (sig)
        TRY(tw_not_carried(o, PROMPT ": thinking signature not carried"));
    if (redacted)
        TRY(tw_not_carried(o, PROMPT ": redacted thinking not carried"));
    return TW_OK;
}

/* The message the template fails with on call arguments that are not an
 * object (Jinja's on `args.items()`, or its missing from_json filter). */
static const char *args_refusal(const cJSON *a, tw_buf *scratch)
{
    if (cJSON_IsString(a))
        return "No filter named 'from_json' found.";
    if (cJSON_IsArray(a))
        return "'list object' has no attribute 'items'";
    if (cJSON_IsBool(a))
        return "'bool object' has no attribute 'items'";
    if (cJSON_IsNumber(a)) {
        /* json.loads gives an int for an integer spelling, else a float */
        bool flt = tw_py_str_number(scratch, a, NULL, "") != TW_OK || !scratch->data ||
                   strpbrk(scratch->data, ".eEni") != NULL;
        return flt ? "'float object' has no attribute 'items'"
                   : "'int object' has no attribute 'items'";
    }
    return "'None' has no attribute 'items'";
}

/* One tool as `tool['function'] | tojson`: {"name", "description", "parameters"}. */
static tw_status put_tool(tw_buf *b, const tw_tool *t, size_t max_depth, const tw_encode_opts *o)
{
    static const char wrap[] = "{\"type\": \"function\", \"function\": ";
    tw_buf t1 = {0};
    t1.max = b->max;
    tw_status st = tw_py_tool_json_write(&t1, t, max_depth, o->warnings, PROMPT);
    if (st == TW_OK && (t1.len < sizeof wrap || memcmp(t1.data, wrap, sizeof wrap - 1) != 0))
        st = TW_ERR_INVALID;
    if (st == TW_OK)
        st = tw_buf_append(b, t1.data + sizeof wrap - 1, t1.len - sizeof wrap);
    tw_buf_free(&t1);
    return st;
}

/* What the prompt encoder tracks across the turns. */
typedef struct dp_state {
    const tw_request *r;
    const tw_encode_opts *o;
    size_t max_depth;
    bool thinking;
    long last_user;    /* index of the last user message, -1 none */
    bool pend_asst;    /* a user message was last: the next assistant gets the marker */
    bool pend_tool;    /* a results block was closed last */
    size_t last_calls; /* 1 + the index of the latest assistant message with calls, 0 none */
    bool in_run;       /* the previous message is that assistant or one of its results */
    bool sys_text;     /* the system prompt (or tool list) has bytes */
    bool turned;       /* a user, assistant or tool message was written */
    bool think_shown;  /* something written depends on `thinking` */
    size_t ncall;      /* calls so far: the reader's ids call_<n> */
    bool ids, names, reasoning, results, markup_seen;
    tw_name_memo memo;
} dp_state;

/* A text of message i that the reader would take apart at one of marks[]
 * (written by the template as it is): one not_carried warning a message. */
static tw_status markup(dp_state *s, size_t i, const char *p, size_t n, const char *const *marks,
                        size_t nm)
{
    const char *tok = holds_any(p, n, marks, nm);
    if (!tok || s->markup_seen)
        return TW_OK;
    s->markup_seen = true;
    while (*tok == '\n') /* named without its line breaks */
        tok++;
    return tw_not_carried(s->o,
                          PROMPT ": message %zu holds %.*s, which the template writes as it is "
                                 "and the prompt's reader takes as markup (read back otherwise)",
                          i, (int)strcspn(tok, "\n"), tok);
}

/* One history call as the template writes it: an invoke, a line per
 * argument (string="true" and the string as is, or string="false" and
 * tojson). */
static tw_status put_prompt_invoke(tw_buf *b, dp_state *s, size_t i, const tw_call *c)
{
    static const char *const in_value[] = {D_PARAM_CLOSE "\n", D_EOS};
    static const char *const in_name[] = {"\">\n", D_EOS};
    static const char *const in_key[] = {"\" string=\"", D_EOS};
    const tw_encode_opts *o = s->o;
    const char *nm = c->name ? c->name : "";
    char gen[32];
    snprintf(gen, sizeof gen, "call_%zu", ++s->ncall);
    s->ids |= c->id && strcmp(c->id, gen) != 0;
    if (c->arguments && !cJSON_IsObject(c->arguments)) {
        tw_buf scratch = {0};
        tw_not_carried(o,
                       PROMPT ": refused: %s (the template's error on the arguments of call %.64s)",
                       args_refusal(c->arguments, &scratch), nm);
        tw_buf_free(&scratch);
        return TW_ERR_INVALID;
    }
    TRY(markup(s, i, nm, strlen(nm), in_name, 2));
    TRY(PUTS(b, D_INVOKE_OPEN " name=\""));
    TRY(tw_buf_puts(b, nm));
    TRY(PUTS(b, "\">\n"));
    char where[160];
    snprintf(where, sizeof where, PROMPT ": call %.64s arguments", nm);
    for (const cJSON *a = c->arguments ? c->arguments->child : NULL; a; a = a->next) {
        const char *k = a->string ? a->string : "";
        TRY(markup(s, i, k, strlen(k), in_key, 2));
        TRY(PUTS(b, D_PARAM_OPEN " name=\""));
        TRY(tw_buf_puts(b, k));
        size_t at;
        if (cJSON_IsString(a)) {
            TRY(PUTS(b, "\" string=\"true\">"));
            at = b->len;
            TRY(tw_buf_puts(b, a->valuestring ? a->valuestring : ""));
        } else {
            TRY(PUTS(b, "\" string=\"false\">"));
            at = b->len;
            TRY(tw_json_write_py_warn(b, a, s->max_depth, o->warnings, where));
        }
        TRY(markup(s, i, b->data + at, b->len - at, in_value, 2));
        TRY(PUTS(b, D_PARAM_CLOSE "\n"));
    }
    return PUTS(b, D_INVOKE_CLOSE "\n");
}

static tw_status put_prompt_assistant(tw_buf *b, dp_state *s, size_t i)
{
    static const char *const in_content[] = {D_EOS, D_CALLS_OPEN, D_USER, D_ASSISTANT};
    static const char *const in_reasoning[] = {D_THINK_CLOSE, D_EOS};
    const tw_message *m = &s->r->messages[i];
    bool marked = s->pend_asst || s->pend_tool;
    bool keep = marked && (long)i > s->last_user && s->thinking;
    if (s->pend_asst)
        TRY(PUTS(b, D_ASSISTANT));
    else if (s->pend_tool)
        TRY(PUTS(b, "\n\n"));
    if (keep) {
        TRY(PUTS(b, D_THINK_OPEN));
        TRY(put_span(b, buf_span(&m->thinking)));
        TRY(PUTS(b, D_THINK_CLOSE));
        TRY(markup(s, i, m->thinking.data, m->thinking.len, in_reasoning, 2));
    } else if (marked) {
        TRY(PUTS(b, D_THINK_CLOSE));
    } else if (!s->turned && s->sys_text && !s->r->ntools) {
        TRY(tw_not_carried(s->o,
                           PROMPT ": assistant message %zu follows the system prompt with no "
                                  "marker (read back, the two are one assistant message)",
                           i));
    }
    s->think_shown |= marked && (long)i > s->last_user;
    s->reasoning |= m->thinking.len > 0 && !keep;
    s->pend_asst = s->pend_tool = false;
    /* an assistant with no marker: its first bytes are read as a turn's */
    TRY(markup(s, i, m->content.data, m->content.len, in_content, marked ? 2 : 4));
    TRY(put_span(b, buf_span(&m->content)));
    if (m->ncalls) {
        TRY(PUTS(b, "\n\n" D_CALLS_OPEN "\n"));
        for (size_t j = 0; j < m->ncalls; j++)
            TRY(put_prompt_invoke(b, s, i, &m->calls[j]));
        TRY(PUTS(b, D_CALLS_CLOSE));
        s->last_calls = i + 1;
    }
    s->in_run = m->ncalls > 0;
    return PUTS(b, D_EOS);
}

/* A tool message as the template places it: the k-th message after the
 * latest assistant with calls is its k-th result; the first opens the
 * results block, the one that matches the number of calls closes it. */
static tw_status put_prompt_result(tw_buf *b, dp_state *s, size_t i)
{
    static const char *const in_result[] = {D_RESULT_CLOSE};
    const tw_request *r = s->r;
    const tw_message *m = &r->messages[i];
    /* the template's messages[-1] when no assistant with calls comes before */
    const tw_message *last = &r->messages[r->nmessages - 1];
    size_t order = s->last_calls ? i + 1 - s->last_calls : i + 1;
    size_t count = last->role == TW_ROLE_ASSISTANT ? last->ncalls : 0;
    if (s->last_calls)
        count = r->messages[s->last_calls - 1].ncalls;
    bool proper = s->last_calls && s->in_run && order <= count;
    if (proper) {
        const tw_call *c = &r->messages[s->last_calls - 1].calls[order - 1];
        s->ids |= m->tool_call_id && (!c->id || strcmp(m->tool_call_id, c->id) != 0);
        if (m->name)
            s->names |= !tw_name_recoverable(&s->memo, r, i, m->tool_call_id, m->name);
    } else {
        s->results = true;
    }
    s->in_run = proper;
    TRY(markup(s, i, m->content.data, m->content.len, in_result, 1));
    if (order == 1)
        TRY(PUTS(b, D_RESULTS_OPEN));
    TRY(PUTS(b, D_RESULT_OPEN));
    TRY(put_span(b, buf_span(&m->content)));
    TRY(PUTS(b, D_RESULT_CLOSE));
    if (order == count) {
        TRY(PUTS(b, D_RESULTS_CLOSE));
        s->pend_asst = false;
        s->pend_tool = true;
    }
    return TW_OK;
}

static tw_status prompt_render(tw_buf *b, const tw_request *r, const tw_encode_opts *o,
                               size_t max_depth)
{
    static const char *const in_system[] = {D_USER, D_ASSISTANT, D_EOS};
    static const char *const in_user[] = {D_USER, D_ASSISTANT};
    dp_state s;
    memset(&s, 0, sizeof s);
    s.r = r;
    s.o = o;
    s.max_depth = max_depth;
    s.thinking = prompt_thinking(r);
    s.last_user = -1;
    TRY(prompt_losses(r, o));
    TRY(PUTS(b, D_BOS));
    size_t sys_at = b->len;
    bool first_sp = true;
    for (size_t i = 0; i < r->nmessages; i++) {
        const tw_message *m = &r->messages[i];
        if (m->role == TW_ROLE_USER)
            s.last_user = (long)i;
        if (m->role != TW_ROLE_SYSTEM)
            continue;
        if (!first_sp)
            TRY(PUTS(b, "\n\n"));
        first_sp = false;
        TRY(markup(&s, i, m->content.data, m->content.len, in_system, 3));
        TRY(put_span(b, buf_span(&m->content)));
        s.markup_seen = false;
    }
    if (r->ntools) {
        if (b->len > sys_at)
            TRY(PUTS(b, "\n\n"));
        TRY(PUTS(b, D_TOOLS_HEAD));
        for (size_t i = 0; i < r->ntools; i++) {
            TRY(put_tool(b, &r->tools[i], max_depth, o));
            TRY(tw_buf_putc(b, '\n'));
        }
        TRY(PUTS(b, D_TOOLS_TAIL));
    }
    s.sys_text = b->len > sys_at;
    for (size_t i = 0; i < r->nmessages; i++) {
        const tw_message *m = &r->messages[i];
        s.markup_seen = false;
        switch (m->role) {
        case TW_ROLE_SYSTEM: s.in_run = false; continue;
        case TW_ROLE_USER:
            TRY(markup(&s, i, m->content.data, m->content.len, in_user, 2));
            TRY(PUTS(b, D_USER));
            TRY(put_span(b, buf_span(&m->content)));
            s.pend_asst = true;
            s.pend_tool = false;
            s.in_run = false;
            break;
        case TW_ROLE_ASSISTANT: TRY(put_prompt_assistant(b, &s, i)); break;
        case TW_ROLE_TOOL: TRY(put_prompt_result(b, &s, i)); break;
        }
        s.turned = true;
    }
    if (truthy(tw_json_get(r->options, "add_generation_prompt"))) {
        if (s.pend_asst || s.pend_tool) {
            TRY(s.pend_asst ? PUTS(b, D_ASSISTANT) : PUTS(b, "\n\n"));
            TRY(s.thinking ? PUTS(b, D_THINK_OPEN) : PUTS(b, D_THINK_OPEN D_THINK_CLOSE));
            s.think_shown = true;
        } else {
            TRY(tw_not_carried(o, PROMPT ": add_generation_prompt not carried (the template "
                                         "opens no turn after an assistant message)"));
        }
    }
    if (s.thinking && !s.think_shown)
        TRY(tw_not_carried(o, PROMPT ": thinking not carried (no generation prompt and no "
                                     "assistant turn after the last user message show it)"));
    if (s.ids)
        TRY(tw_not_carried(o, PROMPT ": call ids not carried (the template writes none: results "
                                     "answer the calls in order)"));
    if (s.names)
        TRY(tw_not_carried(o, PROMPT ": name of a tool result not carried"));
    if (s.reasoning)
        TRY(tw_not_carried(o, PROMPT ": thinking of assistant messages not carried (the template "
                                     "writes it only after the last user message, thinking on)"));
    if (s.results)
        TRY(tw_not_carried(o, PROMPT ": a tool result that does not follow the calls it answers "
                                     "not carried as a result (the template writes it where the "
                                     "count of calls puts it)"));
    return TW_OK;
}

tw_status tw_dsml_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!r || !out || r->nmessages == 0)
        return TW_ERR_INVALID;
    return tw_encode_capped(r, o ? o : &tw_enc_default_opts, out, prompt_render);
}

const tw_encoder_ops tw_encoder_dsml_output = {
    OUT, "neutral result -> the DeepSeek V3.2 model output (</think>, DSML function_calls)",
    TW_ENC_RESULT, tw_unsupported_encode_request, tw_dsml_output_encode};
const tw_encoder_ops tw_encoder_deepseek_v32_prompt = {
    PROMPT,
    "neutral request -> the DeepSeek V3.2 prompt (DSML history calls, <function_results>, "
    "byte-exact template)",
    TW_ENC_REQUEST, tw_dsml_prompt_encode, tw_unsupported_encode_result};
