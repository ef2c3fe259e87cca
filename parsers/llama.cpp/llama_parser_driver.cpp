/*
 * A parser driver (docs/parsers.md, protocol 1) for llama.cpp's chat parser:
 * common_chat_parse, configured for each model dialect as llama-server
 * configures it for the model's chat template (docs/parsers-llama.md).
 *
 *   llama_parser_driver [--templates DIR] [--template DIALECT=FILE] --describe
 *   llama_parser_driver [--templates DIR] [--template DIALECT=FILE] --parse  < request
 *
 * --templates: where the chat templates are (default $TOOLWIRE_TEMPLATES, else
 * ../shared/templates from the working directory); --template: another
 * template for one dialect (a file name inside DIR or a path).
 *
 * Configuration, per request, as llama-server's chat completion does it:
 * the template rendered by common_chat_templates_apply with one user message,
 * the request's tools (OpenAI form), tool_choice auto, parallel_tool_calls
 * true (the OpenAI default; llama-server reads the request's field),
 * enable_thinking from options.reasoning, reasoning_format deepseek (the
 * server's default); the chat parser params built from the result
 * (common_chat_parser_params(chat_params), the PEG parser loaded from it,
 * parse_tool_calls when tools are declared). The generation prompt the
 * template writes (what the prompt already opened, e.g. "<think>") is
 * prepended by llama.cpp itself; options.forced_open picks the template's
 * thinking mode whose generation prompt opens the reasoning, when the
 * requested one does not (DeepSeek V3.1: thinking on opens it).
 *
 * The text is what llama-server's parser would read: cut at the first
 * end-of-generation token of the dialect (llama-server stops generating
 * there and renders the token as nothing). Streaming: after each piece the
 * text so far is parsed with is_partial true (llama-server re-parses the
 * whole generated text after each token), then the whole text with
 * is_partial false. A parse that throws gives the
 * message with "error" set (data, exit 0); exit 1 only when the driver
 * itself fails (a bad request, no template).
 *
 * Built by scripts/parser-llama.sh from the llama.cpp source that
 * scripts/llama-src.sh fetches; not part of the build or the tests.
 */
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "chat-auto-parser.h"
#include "chat.h"

#ifndef LLAMA_PARSER_VERSION
#define LLAMA_PARSER_VERSION "unknown"
#endif

#include "llama_parser_common.h"

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "llama_parser_driver: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static bool slurp(const std::string &path, std::string *out)
{
    std::ifstream f(path, std::ios::binary);
    if (!f)
        return false;
    std::ostringstream s;
    s << f.rdbuf();
    *out = s.str();
    return true;
}

int main(int argc, char **argv)
{
    const char *env = getenv("TOOLWIRE_TEMPLATES");
    std::string dir = env && *env ? env : "../shared/templates";
    std::map<std::string, std::string> chosen;
    int mode = 0; /* 1 describe, 2 parse */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : nullptr;
        if (v && strcmp(a, "--templates") == 0) {
            dir = v, i++;
        } else if (v && strcmp(a, "--template") == 0 && strchr(v, '=')) {
            const char *eq = strchr(v, '=');
            chosen[std::string(v, (size_t)(eq - v))] = eq + 1, i++;
        } else if (strcmp(a, "--describe") == 0) {
            mode = 1;
        } else if (strcmp(a, "--parse") == 0) {
            mode = 2;
        } else {
            fail("usage: llama_parser_driver [--templates DIR] [--template DIALECT=FILE] "
                 "--describe | --parse");
        }
    }
    if (mode == 0)
        fail("--describe or --parse");
    /* llama.cpp logs to stderr (a partial parse that fails says so); the
     * runner keeps 64 KiB of it */
    common_log_set_verbosity_thold(-1);

    std::vector<lp_dialect> dialects = lp_dialects(dir, chosen);
    if (mode == 1) {
        json out = json::object();
        out["protocol"] = 1;
        out["parser"] = "llama.cpp";
        out["version"] = LLAMA_PARSER_VERSION;
        json list = json::array();
        for (const lp_dialect &d : dialects) {
            std::string src;
            if (!slurp(d.path, &src))
                continue;
            json e = json::object();
            e["dialect"] = d.dialect;
            e["template"] = d.file;
            std::string note = lp_template_note(src);
            if (!note.empty())
                e["note"] = note;
            list.push_back(e);
        }
        if (list.empty())
            fail("no chat template found in %s (--templates DIR)", dir.c_str());
        out["dialects"] = list;
        printf("%s\n", out.dump().c_str());
        return 0;
    }

    std::string body((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    json req;
    try {
        req = json::parse(body);
    } catch (const std::exception &e) {
        fail("the request is not JSON: %s", e.what());
    }
    if (!req.is_object() || req.value("protocol", 0) != 1 || !req.contains("dialect") ||
        !req["dialect"].is_string() || !req.contains("pieces") || !req["pieces"].is_array())
        fail("the request needs protocol 1, a dialect and pieces");
    std::string dialect = req["dialect"];
    const lp_dialect *d = nullptr;
    for (const lp_dialect &x : dialects)
        if (x.dialect == dialect)
            d = &x;
    std::string src;
    if (!d || !slurp(d->path, &src))
        fail("no template for dialect %s in %s", dialect.c_str(), dir.c_str());
    std::vector<std::string> pieces;
    for (const auto &p : req["pieces"]) {
        if (!p.is_string())
            fail("a piece that is not a string");
        pieces.push_back(p.get<std::string>());
    }
    json opts = req.value("options", json::object());
    lp_options o;
    o.reasoning = opts.is_object() ? opts.value("reasoning", true) : true;
    o.forced_open = opts.is_object() ? opts.value("forced_open", false) : false;
    o.parallel = opts.is_object() ? opts.value("parallel_tool_calls", true) : true;

    lp_parser parser;
    try {
        parser = lp_configure(src, req.value("tools", json::array()), o);
    } catch (const std::exception &e) {
        fail("llama.cpp cannot configure a parser from %s: %s", d->file.c_str(), e.what());
    }
    if (parser.opened != o.forced_open)
        fprintf(stderr,
                "llama_parser_driver: %s: the template's generation prompt %s the reasoning in "
                "either thinking mode (forced_open %s asked)\n",
                d->file.c_str(), parser.opened ? "opens" : "does not open",
                o.forced_open ? "true" : "false");
    std::string acc;
    for (size_t k = 0; k < pieces.size(); k++) {
        acc += pieces[k];
        json line = json::object();
        line["piece"] = k;
        line["message"] = lp_parse(parser, lp_server_text(*d, acc, true), true);
        printf("%s\n", line.dump().c_str());
    }
    json line = json::object();
    line["final"] = true;
    line["message"] = lp_parse(parser, lp_server_text(*d, acc, false), false);
    printf("%s\n", line.dump().c_str());
    return fflush(stdout) == 0 ? 0 : 1;
}
