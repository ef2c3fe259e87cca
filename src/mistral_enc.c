/*
 * The Mistral encoders (include/toolwire/mistral.h, docs/formats/mistral.md):
 * "mistral", a result as the model writes it, and
 * and the prompts of the three Mistral chat templates, byte for byte what
 * jinja2 renders: "mistral-small-3.2-prompt", "devstral-small-prompt" and
 * "ministral-3-reasoning-prompt", one renderer over their differences
 * (tw_mistral_tmpl, mistral_text.h).
 */

#include "toolwire/mistral.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "enc_common.h"
#include "formats.h"
#include "mistral_text.h"
#include "py_text.h"
#include "tw_macros.h"

/* ===================== the model's output ===================== */

static const char *const TOKENS[] = {"[TOOL_CALLS]", "[THINK]",   "[/THINK]",
                                     "[ARGS]",       "[CALL_ID]", "</s>"};

/* A not_carried warning when s[0, n) holds a token the decoder would take. */
static tw_status warn_tokens(const tw_encode_opts *o, const char *what, const tw_buf *s)
{
    for (size_t i = 0; i < sizeof TOKENS / sizeof TOKENS[0]; i++)
        if (s->len && tw_memmem(s->data, s->len, TOKENS[i], strlen(TOKENS[i])))
            return tw_not_carried(o, "mistral: the %s holds %s, which a decoder reads as markup",
                                  what, TOKENS[i]);
    return TW_OK;
}

static tw_status write_output(const tw_result *r, const tw_encode_opts *o, tw_buf *b)
{
    const tw_message *m = &r->msg;
    if (m->thinking_signature)
        TRY(tw_not_carried(o, "mistral: the thinking signature not carried"));
    if (m->has_redacted_thinking || m->redacted_thinking)
        TRY(tw_not_carried(o, "mistral: redacted thinking not carried"));
    /* the text says only whether calls were made: tool_calls, else stop */
    const char *fin = r->finish_reason ? r->finish_reason : "";
    if (fin[0] && strcmp(fin, m->ncalls ? "tool_calls" : "stop") != 0)
        TRY(tw_not_carried(o, "mistral: finish_reason %.32s not carried", fin));
    /* the reasoning block, empty when there is content but no thinking: the
     * content then reads as content whether or not the prompt opened [THINK] */
    if (m->thinking.len || m->content.len) {
        TRY(warn_tokens(o, "thinking", &m->thinking));
        TRY(PUTS(b, "[THINK]"));
        TRY(tw_buf_append(b, m->thinking.data, m->thinking.len));
        TRY(PUTS(b, "[/THINK]"));
    }
    TRY(warn_tokens(o, "content", &m->content));
    TRY(tw_buf_append(b, m->content.data ? m->content.data : "", m->content.len));
    tw_buf args = {0};
    tw_status st = TW_OK;
    for (size_t i = 0; i < m->ncalls && st == TW_OK; i++) {
        const tw_call *c = &m->calls[i];
        args.len = 0;
        st = tw_args_text(c, &o->limits, &args);
        if (st == TW_OK)
            st = PUTS(b, "[TOOL_CALLS]");
        if (st == TW_OK)
            st = tw_buf_append(b, c->name ? c->name : "", c->name ? strlen(c->name) : 0);
        if (st == TW_OK && c->id && c->id[0]) {
            st = PUTS(b, "[CALL_ID]");
            if (st == TW_OK)
                st = tw_buf_append(b, c->id, strlen(c->id));
        }
        if (st == TW_OK)
            st = PUTS(b, "[ARGS]");
        if (st == TW_OK)
            st = tw_buf_append(b, args.data ? args.data : "{}", args.data ? args.len : 2);
    }
    tw_buf_free(&args);
    TRY(st);
    return PUTS(b, "</s>");
}

tw_status tw_mistral_output_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out)
{
    if (!r || !out)
        return TW_ERR_INVALID;
    if (!o)
        o = &tw_enc_default_opts;
    tw_capsave cs;
    tw_cap_begin(out, o, &cs);
    return tw_cap_end(out, &cs, write_output(r, o, out));
}

/* ===================== the prompts' shared pieces ===================== */

/* Python's len() of a UTF-8 string: its code points. */
static size_t py_len_of(const char *s)
{
    size_t n = 0;
    for (; s && *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

#define SYS_HEAD                                                                                   \
    "You are Mistral Small 3, a Large Language Model (LLM) created by Mistral AI, a French "       \
    "startup headquartered in Paris.\nYour knowledge base was last updated on 2023-10-01. The "    \
    "current date is "
#define SYS_TAIL                                                                                   \
    ".\n"                                                                                          \
    "\n"                                                                                           \
    "When you're not sure about some information or when the user's request requires up-to-date "  \
    "or specific data, you must use the available tools to fetch the information. Do not "         \
    "hesitate to use tools whenever they can provide a more accurate or complete response. If no " \
    "relevant tools are available, then clearly state that you don't have the information and "    \
    "avoid making up anything.\n"                                                                  \
    "\n"                                                                                           \
    "If the user's question is not clear, ambiguous, or does not provide enough context for you "  \
    "to accurately answer the question, you do not try to answer it right away and you rather "    \
    "ask the user to clarify their request (e.g. \"What are some good restaurants around me?\" "   \
    "=> \"Where are you?\" or \"When is the next flight to Tokyo\" => \"Where do you travel "      \
    "from?\").\n"                                                                                  \
    "You are always very attentive to dates, and when asked about information at specific dates, " \
    "you discard information that is at another date.\n"                                           \
    "You follow these instructions in all languages, and always respond to the user in the "       \
    "language they use or request.\n"                                                              \
    "Next sections describe the capabilities that you have.\n"                                     \
    "\n"                                                                                           \
    "# WEB BROWSING INSTRUCTIONS\n"                                                                \
    "\n"                                                                                           \
    "You cannot perform any web search or access internet to open URLs, links etc. If it seems "   \
    "like the user is expecting you to do so, you clarify the situation and ask the user to copy " \
    "paste the text directly in the chat.\n"                                                       \
    "\n"                                                                                           \
    "# MULTI-MODAL INSTRUCTIONS\n"                                                                 \
    "\n"                                                                                           \
    "You have the ability to read images, but you cannot generate images. You also cannot "        \
    "transcribe audio files or videos.\n"                                                          \
    "You cannot read nor transcribe audio files or videos.\n"                                      \
    "\n"                                                                                           \
    "# TOOL CALLING INSTRUCTIONS\n"                                                                \
    "\n"                                                                                           \
    "You may have access to tools that you can use to fetch information or perform actions. You "  \
    "must use these tools in the following situations:\n"                                          \
    "\n"                                                                                           \
    "1. When the request requires up-to-date information.\n"                                       \
    "2. When the request requires specific data that you do not have in your knowledge base.\n"    \
    "3. When the request involves actions that you cannot perform without tools.\n"                \
    "\n"                                                                                           \
    "Always prioritize using tools to provide the most accurate and helpful response. If tools "   \
    "are not available, inform the user that you cannot perform the requested action at the "      \
    "moment."

/* The id the prompt writes: the request's when it is 9 characters long (all
 * the template checks), else 9 alphanumerics derived from it (FNV-1a in base
 * 62), the same for a call and the results that answer it. */
static void small_id(const char *id, char out[40])
{
    static const char digits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    id = id ? id : "";
    size_t n = strlen(id);
    if (py_len_of(id) == 9 && n < 40) {
        memcpy(out, id, n + 1);
        return;
    }
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)id[i]) * 1099511628211u;
    for (int i = 0; i < 9; i++, h /= 62)
        out[i] = digits[h % 62];
    out[9] = '\0';
}

/* The three templates, compared (mistral_text.h); a flag left out is false. */
const tw_mistral_tmpl tw_mistral_small_tmpl = {
    .name = "mistral-small-3.2-prompt",
    .sys = SYS_HEAD,
    .sys_tail = SYS_TAIL,
    .dated = true,
    .alternate = "After the optional system message, conversation roles must alternate "
                 "user/assistant/user/assistant/...",
    .alt_system = true,
    .ids = true,
};
const tw_mistral_tmpl tw_mistral_devstral_tmpl = {
    .name = "devstral-small-prompt",
    .sys = TW_MISTRAL_DEVSTRAL_SYS,
    .tools_first = true,
    .content_beside = true,
    .no_empty = true,
};
const tw_mistral_tmpl tw_mistral_ministral_tmpl = {
    .name = "ministral-3-reasoning-prompt",
    .sys = TW_MISTRAL_MINISTRAL_SYS,
    .alternate = "After the optional system message, conversation roles must alternate user "
                 "and assistant roles except for tool calls and results.",
    .tools_first = true,
    .content_beside = true,
    .think = true,
    .no_later_system = true,
    .no_empty = true,
    .assistant_needs = true,
};

static const char IDS[] = "Tool call IDs should be alphanumeric strings with length 9!";
static const char LATER_SYSTEM[] = "Only user, assistant and tool roles are supported, got system.";
static const char ASSISTANT_EMPTY[] = "Assistant message must have a string or a list of chunks in "
                                      "content or a list of tool calls.";

static tw_status refuse(const tw_mistral_tmpl *t, const tw_encode_opts *o, const char *why)
{
    tw_not_carried(o, "%s: refused: %s", t->name, why);
    return TW_ERR_INVALID;
}

static bool same_text(const tw_buf *a, const tw_buf *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

static tw_status put_buf(tw_buf *b, const tw_buf *s)
{
    return tw_buf_append(b, s->data ? s->data : "", s->len);
}

/* The date of a dated default system prompt: options.today, else today (UTC). */
static tw_status put_today(tw_buf *b, const tw_request *r)
{
    const cJSON *t = r->options ? cJSON_GetObjectItemCaseSensitive(r->options, "today") : NULL;
    if (cJSON_IsString(t) && t->valuestring)
        return tw_buf_append(b, t->valuestring, strlen(t->valuestring));
    char day[32];
    tw_enc_utc_date(time(NULL), day, sizeof day);
    return tw_buf_append(b, day, strlen(day));
}

/* What the template has no place for: a not_carried warning each. */
static tw_status losses(const tw_mistral_tmpl *t, const tw_request *r, const tw_encode_opts *o)
{
    if (!o || !o->warnings)
        return TW_OK;
    const char *nm = t->name;
    if (r->model)
        TRY(tw_not_carried(o, "%s: model not carried", nm));
    if (r->parallel_tool_calls >= 0)
        TRY(tw_not_carried(o, "%s: parallel_tool_calls not carried", nm));
    if (r->choice == TW_CHOICE_NONE || r->choice == TW_CHOICE_REQUIRED ||
        r->choice == TW_CHOICE_NAMED)
        TRY(tw_not_carried(o, "%s: tool_choice not carried (the template has no place for it)",
                           nm));
    for (const cJSON *c = r->options ? r->options->child : NULL; c; c = c->next) {
        bool today = t->dated && c->string && strcmp(c->string, "today") == 0;
        if (!today)
            TRY(tw_not_carried(o, "%s: options.%.64s not carried", nm, c->string ? c->string : ""));
        else if (!cJSON_IsString(c))
            TRY(tw_not_carried(o, "%s: options.today is not a string: today's date written", nm));
    }
    bool think = false, sign = false, beside = false, names = false, err = false, ids = false;
    for (size_t i = 0; i < r->nmessages; i++) {
        const tw_message *m = &r->messages[i];
        bool asst = m->role == TW_ROLE_ASSISTANT;
        think |= m->thinking.len > 0 && !(t->think && asst);
        sign |= m->has_redacted_thinking || m->thinking_signature;
        beside |= asst && m->ncalls && m->content.len && !t->content_beside;
        names |= m->role == TW_ROLE_TOOL && m->name;
        err |= m->role == TW_ROLE_TOOL && m->is_error;
        for (size_t k = 0; k < m->ncalls && !t->ids; k++)
            ids |= m->calls[k].id && m->calls[k].id[0];
        ids |= m->role == TW_ROLE_TOOL && !t->ids && m->tool_call_id && m->tool_call_id[0];
    }
    if (think)
        TRY(tw_not_carried(o, "%s: thinking of %s messages not carried", nm,
                           t->think ? "non-assistant" : "assistant"));
    if (sign)
        TRY(tw_not_carried(o, "%s: thinking signatures and redacted thinking not carried", nm));
    if (beside)
        TRY(tw_not_carried(o, "%s: content beside tool calls not carried", nm));
    if (names)
        TRY(tw_not_carried(o, "%s: tool result names not carried", nm));
    if (err)
        TRY(tw_not_carried(o, "%s: tool result is_error not carried", nm));
    if (ids)
        TRY(tw_not_carried(o,
                           "%s: call ids and tool_call_id not carried (the template writes none; "
                           "results answer calls in order)",
                           nm));
    if (r->ntools && r->nmessages && !t->tools_first) {
        bool user = false;
        for (size_t i = 0; i < r->nmessages; i++)
            user |= r->messages[i].role == TW_ROLE_USER;
        if (!user)
            TRY(tw_not_carried(o, "%s: tools not carried (no user message to put them before)",
                               nm));
    }
    return TW_OK;
}

static tw_status write_tools(const tw_mistral_tmpl *t, tw_buf *b, const tw_request *r,
                             const tw_encode_opts *o, size_t depth)
{
    TRY(PUTS(b, "[AVAILABLE_TOOLS]["));
    for (size_t i = 0; i < r->ntools; i++) {
        if (i)
            TRY(PUTS(b, ", "));
        TRY(tw_py_tool_json_write(b, &r->tools[i], depth, o->warnings, t->name));
    }
    return PUTS(b, "][/AVAILABLE_TOOLS]");
}

/* The template's checks before it writes: the roles alternate (calls and
 * results aside), and the ids of a template that writes them. */
static tw_status precheck(const tw_mistral_tmpl *t, const tw_request *r, const tw_encode_opts *o,
                          size_t first)
{
    if (t->no_empty && r->nmessages == 0)
        return refuse(t, o, TW_MISTRAL_NO_MESSAGES);
    size_t idx = 0;
    for (size_t i = first; i < r->nmessages && t->alternate; i++) {
        const tw_message *m = &r->messages[i];
        if (m->role == TW_ROLE_TOOL || (m->role == TW_ROLE_ASSISTANT && m->ncalls))
            continue;
        if (m->role == TW_ROLE_SYSTEM && !t->alt_system)
            continue;
        if ((m->role == TW_ROLE_USER) != (idx % 2 == 0))
            return refuse(t, o, t->alternate);
        idx++;
    }
    /* Small refuses an id that is not 9 characters; the prompt gets one
     * derived from it, with a warning */
    bool rewritten = false;
    for (size_t i = first; i < r->nmessages && t->ids; i++) {
        const tw_message *m = &r->messages[i];
        for (size_t k = 0; k < m->ncalls; k++)
            rewritten |= py_len_of(m->calls[k].id) != 9;
        rewritten |= m->role == TW_ROLE_TOOL && py_len_of(m->tool_call_id) != 9;
    }
    if (rewritten)
        TRY(tw_not_carried(o, "%s: %s; such ids were rewritten as 9 alphanumerics", t->name, IDS));
    return TW_OK;
}

static tw_status write_call(const tw_mistral_tmpl *t, tw_buf *b, const tw_call *c,
                            const tw_encode_opts *o, size_t depth)
{
    TRY(PUTS(b, "[TOOL_CALLS]"));
    TRY(tw_buf_append(b, c->name ? c->name : "", c->name ? strlen(c->name) : 0));
    if (t->ids) {
        char id[40];
        small_id(c->id, id);
        TRY(PUTS(b, "[CALL_ID]"));
        TRY(tw_buf_append(b, id, strlen(id)));
    }
    TRY(PUTS(b, "[ARGS]"));
    if (!c->arguments)
        return PUTS(b, "{}");
    char where[160];
    snprintf(where, sizeof where, "%s: call %.64s arguments", t->name, c->name ? c->name : "");
    return tw_json_write_py_warn(b, c->arguments, depth, o->warnings, where);
}

static tw_status write_assistant(const tw_mistral_tmpl *t, tw_buf *b, const tw_message *m,
                                 const tw_encode_opts *o, size_t depth)
{
    if (t->assistant_needs && !m->content.len && !m->ncalls && !(t->think && m->thinking.len))
        return refuse(t, o, ASSISTANT_EMPTY);
    if (t->think && m->thinking.len) {
        TRY(PUTS(b, "[THINK]"));
        TRY(put_buf(b, &m->thinking));
        TRY(PUTS(b, "[/THINK]"));
    }
    if (!m->ncalls || t->content_beside)
        TRY(put_buf(b, &m->content));
    for (size_t k = 0; k < m->ncalls; k++)
        TRY(write_call(t, b, &m->calls[k], o, depth));
    return PUTS(b, "</s>");
}

static tw_status render(const tw_mistral_tmpl *t, tw_buf *b, const tw_request *r,
                        const tw_encode_opts *o, size_t depth)
{
    size_t first = r->nmessages && r->messages[0].role == TW_ROLE_SYSTEM;
    TRY(precheck(t, r, o, first));
    TRY(losses(t, r, o));
    size_t last_user = (size_t)-1;
    for (size_t i = first; i < r->nmessages; i++)
        if (r->messages[i].role == TW_ROLE_USER)
            last_user = i;
    TRY(PUTS(b, "<s>[SYSTEM_PROMPT]"));
    if (first) {
        TRY(put_buf(b, &r->messages[0].content));
    } else {
        TRY(tw_buf_append(b, t->sys, strlen(t->sys)));
        if (t->dated) {
            TRY(put_today(b, r));
            TRY(tw_buf_append(b, t->sys_tail, strlen(t->sys_tail)));
        }
    }
    TRY(PUTS(b, "[/SYSTEM_PROMPT]"));
    if (t->tools_first && r->ntools)
        TRY(write_tools(t, b, r, o, depth));
    for (size_t i = first; i < r->nmessages; i++) {
        const tw_message *m = &r->messages[i];
        switch (m->role) {
        case TW_ROLE_SYSTEM:
            if (t->no_later_system)
                return refuse(t, o, LATER_SYSTEM);
            TRY(PUTS(b, "[SYSTEM_PROMPT]"));
            TRY(put_buf(b, &m->content));
            TRY(PUTS(b, "[/SYSTEM_PROMPT]"));
            break;
        case TW_ROLE_USER:
            /* Small compares the message with the last user one */
            if (!t->tools_first && r->ntools &&
                same_text(&m->content, &r->messages[last_user].content))
                TRY(write_tools(t, b, r, o, depth));
            TRY(PUTS(b, "[INST]"));
            TRY(put_buf(b, &m->content));
            TRY(PUTS(b, "[/INST]"));
            break;
        case TW_ROLE_ASSISTANT: TRY(write_assistant(t, b, m, o, depth)); break;
        case TW_ROLE_TOOL:
            TRY(PUTS(b, "[TOOL_RESULTS]"));
            if (t->ids) {
                char rid[40];
                small_id(m->tool_call_id, rid);
                TRY(tw_buf_append(b, rid, strlen(rid)));
                TRY(PUTS(b, "[TOOL_CONTENT]"));
            }
            TRY(put_buf(b, &m->content));
            TRY(PUTS(b, "[/TOOL_RESULTS]"));
            break;
        }
    }
    return TW_OK;
}

static tw_status render_small(tw_buf *b, const tw_request *r, const tw_encode_opts *o, size_t depth)
{
    return render(&tw_mistral_small_tmpl, b, r, o, depth);
}

static tw_status render_devstral(tw_buf *b, const tw_request *r, const tw_encode_opts *o,
                                 size_t depth)
{
    return render(&tw_mistral_devstral_tmpl, b, r, o, depth);
}

static tw_status render_ministral(tw_buf *b, const tw_request *r, const tw_encode_opts *o,
                                  size_t depth)
{
    return render(&tw_mistral_ministral_tmpl, b, r, o, depth);
}

static tw_status encode_with(tw_render_fn fn, const tw_request *r, const tw_encode_opts *o,
                             tw_buf *out)
{
    if (!r || !out)
        return TW_ERR_INVALID;
    if (!o)
        o = &tw_enc_default_opts;
    return tw_encode_capped(r, o, out, fn);
}

tw_status tw_mistral_small_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    return encode_with(render_small, r, o, out);
}

tw_status tw_devstral_small_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    return encode_with(render_devstral, r, o, out);
}

tw_status tw_ministral3_reasoning_prompt_encode(const tw_request *r, const tw_encode_opts *o,
                                                tw_buf *out)
{
    return encode_with(render_ministral, r, o, out);
}

const tw_encoder_ops tw_encoder_mistral_output = {
    "mistral", "Mistral model text: [THINK], [TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{json}, </s>",
    TW_ENC_RESULT, tw_unsupported_encode_request, tw_mistral_output_encode};
const tw_encoder_ops tw_encoder_mistral_small_prompt = {
    "mistral-small-3.2-prompt", "the Mistral Small 3.2 prompt (as its chat template renders it)",
    TW_ENC_REQUEST, tw_mistral_small_prompt_encode, tw_unsupported_encode_result};
const tw_encoder_ops tw_encoder_devstral_small_prompt = {
    "devstral-small-prompt", "the Devstral Small prompt (as its chat template renders it)",
    TW_ENC_REQUEST, tw_devstral_small_prompt_encode, tw_unsupported_encode_result};
const tw_encoder_ops tw_encoder_ministral3_reasoning_prompt = {
    "ministral-3-reasoning-prompt",
    "the Ministral 3 reasoning prompt (as its chat template renders it)", TW_ENC_REQUEST,
    tw_ministral3_reasoning_prompt_encode, tw_unsupported_encode_result};
