/*
 * llama.cpp's chat parser configured as llama-server configures it for a
 * model's chat template, shared by the parser driver
 * (llama_parser_driver.cpp) and the differential fuzz target
 * (fuzz_llama_diff.cpp). Included once per program: it defines the few
 * libllama/ggml symbols the chat sources reference on paths a template
 * given as text never takes.
 */
#ifndef LLAMA_PARSER_COMMON_H
#define LLAMA_PARSER_COMMON_H

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "chat-auto-parser.h"
#include "chat.h"
#include "log.h"

extern "C" {
void ggml_abort(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "llama.cpp: ggml_abort at %s:%d: ", file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}
const char *llama_model_chat_template(const llama_model *, const char *) { return nullptr; }
const llama_vocab *llama_model_get_vocab(const llama_model *) { return nullptr; }
llama_token llama_vocab_bos(const llama_vocab *) { return -1; }
llama_token llama_vocab_eos(const llama_vocab *) { return -1; }
bool llama_vocab_get_add_bos(const llama_vocab *) { return false; }
bool llama_vocab_get_add_eos(const llama_vocab *) { return false; }
int32_t llama_tokenize(const llama_vocab *, const char *, int32_t, llama_token *, int32_t, bool,
                       bool)
{
    return -1;
}
int32_t llama_token_to_piece(const llama_vocab *, llama_token, char *, int32_t, int32_t, bool)
{
    return -1;
}
int32_t llama_chat_apply_template(const char *, const llama_chat_message *, size_t, bool, char *,
                                  int32_t)
{
    return -1;
}
}

/* Each toolwire text dialect, the chat template of the model family that
 * writes it (../shared/templates/README.md), and the text of the tokens
 * that end its generation (the tokenizer's end-of-generation tokens):
 * llama-server stops at the first one and renders it as nothing (not a
 * preserved token), so the text its parser reads never holds one, nor
 * anything after it. */
struct lp_dialect {
    std::string dialect, file, path;
    std::vector<std::string> eog;
};

static const char *const lp_table[][3] = {
    {"hermes", "qwen3.jinja", "<|im_end|> <|endoftext|>"},
    {"qwen3-coder", "qwen3-coder.jinja", "<|im_end|> <|endoftext|>"},
    {"harmony", "gpt-oss.jinja", "<|return|> <|call|>"},
    {"deepseek-v3.1", "deepseek-v3.1.jinja", "<｜end▁of▁sentence｜>"},
    {"dsml", "deepseek-v3.2.jinja", "<｜end▁of▁sentence｜>"},
    {"kimi-k2", "kimi-k2-instruct.jinja", "<|im_end|>"},
    {"mistral", "mistral-small-3.2.jinja", "</s>"},
    {"llama3", "llama-3.1.jinja", "<|eot_id|> <|eom_id|> <|end_of_text|>"},
    {"glm", "glm-4.6.jinja", "<|user|> <|observation|> <|endoftext|>"},
    {"minimax-m2", "minimax-m2.jinja", "[e~["},
    {"gemma4", "gemma-4.jinja", "<turn|> <eos>"},
};

/* The table, each template under dir unless `chosen` names another one for
 * its dialect (a file name under dir, or a path with a '/'). */
static inline std::vector<lp_dialect> lp_dialects(const std::string &dir,
                                                  const std::map<std::string, std::string> &chosen)
{
    std::vector<lp_dialect> out;
    for (const auto &row : lp_table) {
        lp_dialect d;
        d.dialect = row[0];
        d.file = row[1];
        for (const char *p = row[2], *sp; *p; p = *sp ? sp + 1 : sp) { /* space-separated */
            sp = strchr(p, ' ');
            if (!sp)
                sp = p + strlen(p);
            d.eog.emplace_back(p, (size_t)(sp - p));
        }
        auto it = chosen.find(d.dialect);
        if (it != chosen.end())
            d.file = it->second;
        d.path = d.file.find('/') == std::string::npos ? dir + "/" + d.file : d.file;
        if (d.file.find('/') != std::string::npos)
            d.file = d.file.substr(d.file.rfind('/') + 1);
        out.push_back(d);
    }
    return out;
}

/* "" when llama.cpp has a dedicated handler for the template; else a note
 * that its generic differential autoparser reads it. */
static inline std::string lp_template_note(const std::string &src)
{
    try {
        common_chat_template tmpl(src, "", "");
        autoparser::generation_params p;
        p.messages = json::array({{{"role", "user"}, {"content", "hi"}}});
        p.tools = json::array({{{"type", "function"},
                                {"function",
                                 {{"name", "f"},
                                  {"description", ""},
                                  {"parameters", {{"type", "object"}, {"properties", json::object()}}}}}}});
        p.add_generation_prompt = true;
        if (common_chat_try_specialized_template(tmpl, tmpl.source(), p))
            return "";
    } catch (const std::exception &e) {
        return std::string("no dedicated handler; probing the template threw: ") + e.what();
    }
    return "no dedicated handler: llama.cpp's generic differential autoparser, parser derived "
           "from renderings of the template";
}

struct lp_options {
    bool reasoning = true, forced_open = false, parallel = true;
};

struct lp_parser {
    common_chat_parser_params params;
    std::string format, generation_prompt;
    bool opened = false; /* the generation prompt opened the reasoning */
};

/* llama-server's chat completion setup for one request: `tools` in OpenAI
 * form. Throws what llama.cpp throws (a template it cannot read). */
static inline lp_parser lp_configure(const std::string &src, const json &tools, const lp_options &o)
{
    auto tmpls = common_chat_templates_init(nullptr, src);
    common_chat_templates_inputs in;
    common_chat_msg user;
    user.role = "user";
    user.content = "Use the tools.";
    in.messages.push_back(user);
    in.tools = common_chat_tools_parse_oaicompat(tools);
    in.tool_choice = COMMON_CHAT_TOOL_CHOICE_AUTO;
    in.parallel_tool_calls = o.parallel;
    in.reasoning_format = COMMON_REASONING_FORMAT_DEEPSEEK; /* common_params' default */
    in.enable_thinking = o.reasoning;
    common_chat_params cp = common_chat_templates_apply(tmpls.get(), in);
    auto opens = [](const common_chat_params &c) {
        if (!c.supports_thinking || c.thinking_start_tag.empty())
            return false;
        size_t at = c.generation_prompt.rfind(c.thinking_start_tag);
        if (at == std::string::npos)
            return false;
        for (const std::string &end : c.thinking_end_tags)
            if (!end.empty() && c.generation_prompt.find(end, at) != std::string::npos)
                return false;
        return true;
    };
    bool opened = opens(cp);
    if (opened != o.forced_open) {
        /* the template's other thinking mode, when that one matches */
        in.enable_thinking = !in.enable_thinking;
        common_chat_params other = common_chat_templates_apply(tmpls.get(), in);
        if (opens(other) == o.forced_open) {
            cp = other;
            opened = o.forced_open;
        }
    }
    lp_parser l;
    l.params = common_chat_parser_params(cp);
    l.params.reasoning_format = COMMON_REASONING_FORMAT_DEEPSEEK;
    l.params.reasoning_in_content = false;
    l.params.parse_tool_calls = !in.tools.empty();
    if (!cp.parser.empty())
        l.params.parser.load(cp.parser);
    l.format = common_chat_format_name(cp.format);
    l.generation_prompt = cp.generation_prompt;
    l.opened = opened;
    return l;
}

/* The text llama-server's parser would read: `text` up to the first
 * end-of-generation token of the dialect (the server stops there). While
 * streaming (`partial`), a tail that may be the start of one is held back
 * too: the server receives the token whole, never its first bytes. */
static inline std::string lp_server_text(const lp_dialect &d, const std::string &text, bool partial)
{
    size_t end = text.size();
    for (const std::string &t : d.eog)
        end = std::min(end, text.find(t));
    if (partial && end == text.size())
        for (const std::string &t : d.eog)
            for (size_t n = std::min(t.size() - 1, text.size()); n > 0; n--)
                if (text.compare(text.size() - n, n, t, 0, n) == 0) {
                    end = std::min(end, text.size() - n);
                    break;
                }
    return text.substr(0, end);
}

/* The protocol's message for one parse of `text`. */
static inline json lp_message(const common_chat_msg &m)
{
    json out = json::object();
    out["content"] = m.content;
    out["reasoning"] = m.reasoning_content;
    json calls = json::array();
    for (const auto &c : m.tool_calls) {
        json j = json::object();
        j["name"] = c.name;
        try {
            j["arguments"] = c.arguments.empty() ? json(c.arguments) : json::parse(c.arguments);
        } catch (const std::exception &) {
            j["arguments"] = c.arguments; /* a partial parse: the raw text */
        }
        j["id"] = c.id.empty() ? json(nullptr) : json(c.id);
        calls.push_back(j);
    }
    out["tool_calls"] = calls;
    out["error"] = nullptr;
    return out;
}

static inline json lp_parse(const lp_parser &l, const std::string &text, bool partial)
{
    try {
        return lp_message(common_chat_parse(text, partial, l.params));
    } catch (const std::exception &e) {
        json out = lp_message(common_chat_msg());
        out["error"] = {{"type", "exception"}, {"message", e.what()}};
        return out;
    }
}

#endif
