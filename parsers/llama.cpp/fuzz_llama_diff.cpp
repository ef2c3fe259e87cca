/*
 * Differential fuzz target: llama.cpp's chat parser beside toolwire's
 * reference decoder on the same model text (docs/parsers-llama.md,
 * "Differential fuzzing"). An input is one dialect byte (its value modulo
 * the rows of the dialect table, llama_parser_common.h; a row whose template
 * is not found reads nothing) and the model text. Each dialect's
 * parser is configured once, as llama-server configures it for the
 * template (llama_parser_common.h), with the two tools of the decode
 * fixtures (get_weather, write_file); toolwire's decoder gets the same
 * tools (declared: unknown names refused) and forced_open when the
 * template's generation prompt opened the reasoning.
 *
 * A finding is one of:
 *   - a crash or sanitizer report inside either side (the sanitizers);
 *   - a hang (libFuzzer's -timeout);
 *   - "throws": llama.cpp's final parse throws where toolwire's reading is
 *     clean (no error diagnostic). A throw where toolwire also reports an
 *     error is expected (both refuse a malformed call), and so is a clean
 *     llama.cpp reading where toolwire reports an error (llama.cpp is
 *     laxer: schemas, some repairs) — neither is a finding;
 *   - "calls": both readings clean and the calls differ in number, names,
 *     or arguments (JSON-equal);
 *   - "partial throws": llama.cpp's partial parse (is_partial, as a
 *     streaming server re-parses after each token) of a prefix throws where
 *     the final parse of the whole text does not (a stream that fails
 *     mid-way on text it reads whole);
 *   - "retraction": a partial parse of a prefix shows more calls than the
 *     final parse reads, or a call under another name (a streaming client
 *     was sent a call that the finished message takes back).
 * Each of the last four gets a signature (sig_throws, sig_calls,
 * sig_retraction below): the class of defect, told from the input and both
 * readings, mostly by parsing an edited text again (the text cut after the
 * last call block reads clean with toolwire's calls: "text-after-calls").
 * The signatures declared known for a dialect (TOOLWIRE_LLAMA_KNOWN,
 * default parsers/llama.cpp/known-defects.json beside this file) are
 * counted and the run goes on: the smallest input of each is kept as
 * findings/known-SIGNATURE-DIALECT (written only when a smaller one comes),
 * the counts in findings/counts-PID.tsv (rewritten at most every 10 s and
 * at exit; TOOLWIRE_LLAMA_DIFF_KEEP=DIR writes them under DIR instead, and
 * an empty value writes nothing). Any other signature aborts, printed first as
 * `fuzz_llama_diff: DIALECT: KIND: SIGNATURE: detail`, so that libFuzzer
 * keeps the input as a crash file.
 *
 * TOOLWIRE_LLAMA_DIFF_ONLY=SIGNATURE (or DIALECT:SIGNATURE): only that
 * signature aborts, known or not, and nothing is written: -minimize_crash
 * then keeps the signature while it cuts the input.
 * TOOLWIRE_LLAMA_DIFF_LOG=1: each known finding is printed too (a replay).
 * TOOLWIRE_LLAMA_DIFF_REJECT_KNOWN=1: an input whose findings are all known
 * returns -1 (libFuzzer does not add it to the corpus).
 * The declared differences (parsers/llama.cpp/expected.json) are kept out
 * by construction, or by lp_declared below.
 *
 * TOOLWIRE_TEMPLATES: the chat templates (default ../shared/templates).
 * Built by scripts/fuzz-llama.sh; not part of the build or the tests.
 */
#include <cstdint>
#include <cstring>
#include <ctime>
#include <map>
#include <set>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "llama_parser_common.h"

#include <cjson/cJSON.h>

#include "toolwire/decode.h"

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv);
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" const char *__asan_default_options(void);

extern "C" const char *__asan_default_options(void)
{
    return "malloc_context_size=2";
}

static const char k_tools[] =
    "[{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"description\": "
    "\"Current weather for a city\", \"parameters\": {\"type\": \"object\", \"properties\": "
    "{\"city\": {\"type\": \"string\"}, \"days\": {\"type\": \"integer\"}, \"unit\": {\"type\": "
    "\"string\", \"enum\": [\"c\", \"f\"]}}, \"required\": [\"city\"]}}}, {\"type\": \"function\", "
    "\"function\": {\"name\": \"write_file\", \"description\": \"Write a file\", \"parameters\": "
    "{\"type\": \"object\", \"properties\": {\"path\": {\"type\": \"string\"}, \"content\": "
    "{\"type\": \"string\"}}}}}]";

/* The tokens that open and close a dialect's call block (docs/formats/), as
 * the signatures look for them: "" where the block has no close (the call
 * ends the message, or an end-of-generation token ends it); open2 and close2
 * open and close one call inside the block (or "" when none), think opens
 * the reasoning. */
struct lp_tokens {
    const char *dialect, *open, *close, *open2, *close2, *think;
};
static const lp_tokens k_tokens[] = {
    {"hermes", "<tool_call>", "</tool_call>", "", "", "<think>"},
    {"qwen3-coder", "<tool_call>", "</tool_call>", "<function=", "</function>", "<think>"},
    {"harmony", "to=functions.", "", "", "", ""},
    {"deepseek-v3.1", "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>", "<｜tool▁call▁begin｜>",
     "<｜tool▁call▁end｜>", "<think>"},
    {"dsml", "<｜DSML｜function_calls>", "</｜DSML｜function_calls>", "<｜DSML｜invoke",
     "</｜DSML｜invoke>", "<think>"},
    {"kimi-k2", "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>", "<|tool_call_begin|>",
     "<|tool_call_end|>", "<think>"},
    {"mistral", "[TOOL_CALLS]", "", "", "", "[THINK]"},
    {"llama3", "{", "", "<|python_tag|>", "", ""},
    {"glm", "<tool_call>", "</tool_call>", "", "", "<think>"},
    {"minimax-m2", "<minimax:tool_call>", "</minimax:tool_call>", "<invoke", "</invoke>",
     "<think>"},
    {"gemma4", "<|tool_call>", "<tool_call|>", "", "", "<|channel>thought"},
};

struct lp_side {
    lp_dialect d;
    std::string open, close, open2, close2, think; /* k_tokens */
    lp_parser llama;
    const tw_format_ops *f = nullptr;
    void *dec = nullptr;
    tw_decode_opts o;
};

static std::vector<lp_side> g_sides;
static std::vector<tw_tool> g_tools;

static bool slurp(const std::string &path, std::string *out)
{
    FILE *fp = fopen(path.c_str(), "rb");
    if (!fp)
        return false;
    char buf[65536];
    size_t n;
    out->clear();
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
        out->append(buf, n);
    fclose(fp);
    return true;
}

/* ---- the known defect classes and what was seen of them ---- */

struct lp_known {
    int defect;
    std::string why;
};
/* "DIALECT KIND SIGNATURE" -> its declaration */
static std::map<std::string, lp_known> g_known;
static std::string g_only;                    /* TOOLWIRE_LLAMA_DIFF_ONLY */
static std::string g_keep = "findings";       /* TOOLWIRE_LLAMA_DIFF_KEEP: "" writes nothing */
static bool g_reject_known;                   /* TOOLWIRE_LLAMA_DIFF_REJECT_KNOWN */
static bool g_log_known;                      /* TOOLWIRE_LLAMA_DIFF_LOG */
static std::map<std::string, size_t> g_count; /* "DIALECT\tKIND\tSIGNATURE" -> findings */
static std::map<std::string, size_t>
    g_smallest; /* "SIGNATURE-DIALECT" -> bytes kept, SIZE_MAX none */
static time_t g_flushed;

static void flush_counts()
{
    if (!g_only.empty() || g_keep.empty() || g_count.empty())
        return;
    std::string path = g_keep + "/counts-" + std::to_string((long)getpid()) + ".tsv";
    FILE *fp = fopen((path + ".tmp").c_str(), "w");
    if (!fp)
        return;
    for (const auto &c : g_count)
        fprintf(fp, "%s\t%zu\n", c.first.c_str(), c.second);
    if (fclose(fp) == 0)
        rename((path + ".tmp").c_str(), path.c_str());
    g_flushed = time(nullptr);
}

/* At exit: the counts written, and what LLVMFuzzerInitialize made freed (a
 * worker that ends its job normally must not end on a leak report) */
static void at_exit()
{
    flush_counts();
    for (lp_side &s : g_sides)
        if (s.f && s.dec)
            s.f->free_dec(s.dec);
    g_sides.clear();
    for (tw_tool &t : g_tools) {
        free(t.name);
        cJSON_Delete(t.parameters);
    }
    g_tools.clear();
}

/* The known classes: {"known": [{"signature", "kind", "dialects": [...], "defect", "why"}]}.
 * A file that cannot be read stops the run: every finding would abort. */
static void load_known()
{
    const char *only = getenv("TOOLWIRE_LLAMA_DIFF_ONLY");
    g_only = only ? only : "";
    const char *rej = getenv("TOOLWIRE_LLAMA_DIFF_REJECT_KNOWN");
    g_reject_known = rej && strcmp(rej, "1") == 0;
    const char *lg = getenv("TOOLWIRE_LLAMA_DIFF_LOG");
    g_log_known = lg && strcmp(lg, "1") == 0;
    const char *keep = getenv("TOOLWIRE_LLAMA_DIFF_KEEP");
    if (keep)
        g_keep = keep;
    const char *env = getenv("TOOLWIRE_LLAMA_KNOWN");
    std::string path = env && *env
                           ? env
                           : std::string(__FILE__).substr(0, std::string(__FILE__).rfind('/') + 1) +
                                 "known-defects.json";
    std::string src;
    if (!slurp(path, &src)) {
        fprintf(stderr,
                "fuzz_llama_diff: cannot read the known defects %s (TOOLWIRE_LLAMA_KNOWN)\n",
                path.c_str());
        abort();
    }
    nlohmann::json k = nlohmann::json::parse(src, nullptr, false);
    if (k.is_discarded() || !k.is_object() || !k.contains("known") || !k["known"].is_array()) {
        fprintf(stderr, "fuzz_llama_diff: %s: expected an object with an array \"known\"\n",
                path.c_str());
        abort();
    }
    size_t i = 0;
    for (const auto &e : k["known"]) {
        if (!e.is_object() || !e.contains("signature") || !e["signature"].is_string() ||
            !e.contains("kind") || !e["kind"].is_string() || !e.contains("dialects") ||
            !e["dialects"].is_array() || !e.contains("defect") ||
            !e["defect"].is_number_integer()) {
            fprintf(stderr,
                    "fuzz_llama_diff: %s: known[%zu]: expected signature, kind (strings), dialects "
                    "(array), "
                    "defect (integer)\n",
                    path.c_str(), i);
            abort();
        }
        for (const auto &d : e["dialects"]) {
            if (!d.is_string()) {
                fprintf(stderr, "fuzz_llama_diff: %s: known[%zu].dialects: expected strings\n",
                        path.c_str(), i);
                abort();
            }
            g_known[d.get<std::string>() + " " + e["kind"].get<std::string>() + " " +
                    e["signature"].get<std::string>()] = {e["defect"].get<int>(),
                                                          e.value("why", std::string())};
        }
        i++;
    }
    fprintf(stderr,
            "fuzz_llama_diff: %zu known signatures (dialect, kind, signature) from %s%s%s\n",
            g_known.size(), path.c_str(), g_only.empty() ? "" : "; only ", g_only.c_str());
    atexit(at_exit);
}

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    common_log_set_verbosity_thold(-1);
    common_log_pause(common_log_main());
    const char *env = getenv("TOOLWIRE_TEMPLATES");
    std::string dir = env && *env ? env : "../shared/templates";
    json tools = json::parse(k_tools);
    for (const auto &t : tools) {
        tw_tool x;
        x.name = strdup(t["function"]["name"].get<std::string>().c_str());
        x.description = nullptr;
        x.parameters = cJSON_Parse(t["function"]["parameters"].dump().c_str());
        g_tools.push_back(x);
    }
    size_t found = 0;
    for (const lp_dialect &d : lp_dialects(dir, {})) {
        std::string src;
        lp_side s;
        s.d = d;
        for (const lp_tokens &t : k_tokens)
            if (d.dialect == t.dialect) {
                s.open = t.open;
                s.close = t.close;
                s.open2 = t.open2;
                s.close2 = t.close2;
                s.think = t.think;
            }
        if (!slurp(d.path, &src)) {
            g_sides.push_back(s); /* its row stays, unused: the seeds' dialect bytes are rows */
            continue;
        }
        lp_options o;
        s.llama = lp_configure(src, tools, o);
        s.f = tw_format_find(d.dialect.c_str());
        if (!s.f) {
            fprintf(stderr, "fuzz_llama_diff: toolwire has no decoder %s\n", d.dialect.c_str());
            abort();
        }
        memset(&s.o, 0, sizeof s.o);
        s.o.forced_open = s.llama.opened;
        s.o.tools = g_tools.data();
        s.o.ntools = g_tools.size();
        s.o.tools_declared = true;
        s.dec = s.f->new_dec(&s.o, nullptr, nullptr);
        if (!s.dec)
            abort();
        g_sides.push_back(s);
        found++;
    }
    if (found == 0) {
        fprintf(stderr, "fuzz_llama_diff: no chat template in %s (TOOLWIRE_TEMPLATES)\n",
                dir.c_str());
        abort();
    }
    fprintf(stderr, "fuzz_llama_diff: %zu dialects:", found);
    for (const lp_side &s : g_sides)
        if (s.f)
            fprintf(stderr, " %s (%s, %s%s)", s.d.dialect.c_str(), s.d.file.c_str(),
                    s.llama.format.c_str(), s.llama.opened ? ", forced open" : "");
    fputc('\n', stderr);
    load_known();
    return 0;
}

/* The calls as plain (unordered) JSON: arguments compare JSON-equal, key
 * order and number spelling aside. */
static nlohmann::json tw_calls(const tw_result &r)
{
    nlohmann::json a = nlohmann::json::array();
    for (size_t i = 0; i < r.msg.ncalls; i++) {
        const tw_call &c = r.msg.calls[i];
        char *p = c.arguments ? cJSON_PrintUnformatted(c.arguments) : nullptr;
        nlohmann::json args = nlohmann::json::object();
        if (p) {
            args = nlohmann::json::parse(p, nullptr, false);
            cJSON_free(p);
        }
        a.push_back({{"name", c.name ? c.name : ""}, {"arguments", args}});
    }
    return a;
}

static nlohmann::json llama_calls(const common_chat_msg &m)
{
    nlohmann::json a = nlohmann::json::array();
    for (const auto &c : m.tool_calls) {
        nlohmann::json args = c.arguments.empty()
                                  ? nlohmann::json::object()
                                  : nlohmann::json::parse(c.arguments, nullptr, false);
        a.push_back({{"name", c.name}, {"arguments", args}});
    }
    return a;
}

/* A declared difference (parsers/llama.cpp/expected.json) the fuzzer can only
 * skip by looking at the input: the name of its rule, or NULL. None today:
 * the others are kept out by construction (the same tools on both sides,
 * calls compared only, only clean toolwire readings, both sides cut at the
 * end-of-generation token, forced_open from the template). */
static const char *lp_declared(const lp_side &s, const std::string &text)
{
    (void)s;
    (void)text;
    return nullptr;
}

/* ---- signatures: the class of a finding, from the input and both readings ---- */

/* llama.cpp's final parse of `t` reads these calls, and does not throw */
static bool reads_as(const lp_side &s, const std::string &t, const nlohmann::json &want)
{
    try {
        return llama_calls(common_chat_parse(t, false, s.llama.params)) == want;
    } catch (const std::exception &) {
        return false;
    }
}

static bool has(const std::string &h, const std::string &n)
{
    return !n.empty() && h.find(n) != std::string::npos;
}

/* `t` without the text between a call block's close and the next block's
 * open, nor after the last close: the call blocks alone, and what precedes
 * the first */
static std::string blocks_only(const lp_side &s, const std::string &t)
{
    size_t at = t.find(s.open);
    if (at == std::string::npos || s.close.empty())
        return t;
    std::string out = t.substr(0, at);
    while (at != std::string::npos) {
        size_t end = t.find(s.close, at);
        if (end == std::string::npos) {
            out += t.substr(at);
            break;
        }
        end += s.close.size();
        out += t.substr(at, end - at);
        at = t.find(s.open, end);
    }
    return out;
}

/* `t` with each call block holding its calls (open2 ... close2) alone: the
 * text between them inside the block dropped */
static std::string calls_only(const lp_side &s, const std::string &t)
{
    if (s.close.empty() || s.open2.empty() || s.close2.empty())
        return t;
    std::string out;
    size_t from = 0;
    for (size_t at = t.find(s.open); at != std::string::npos; at = t.find(s.open, from)) {
        size_t end = t.find(s.close, at);
        if (end == std::string::npos)
            break;
        out += t.substr(from, at - from) + s.open;
        for (size_t c = t.find(s.open2, at); c != std::string::npos && c < end;
             c = t.find(s.open2, c + 1)) {
            size_t ce = t.find(s.close2, c);
            if (ce == std::string::npos || ce > end)
                break;
            out += t.substr(c, ce + s.close2.size() - c);
            c = ce;
        }
        out += s.close;
        from = end + s.close.size();
    }
    return out + t.substr(from);
}

/* The end of the JSON object that starts at t[at] ('{'), strings skipped;
 * npos when it does not end. */
static size_t object_end(const std::string &t, size_t at)
{
    int depth = 0;
    bool str = false;
    for (size_t i = at; i < t.size(); i++) {
        char c = t[i];
        if (str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                str = false;
        } else if (c == '"') {
            str = true;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (--depth == 0)
                return i + 1;
        }
    }
    return std::string::npos;
}

static void replace_all(std::string *t, const std::string &from, const std::string &to)
{
    for (size_t at = t->find(from); at != std::string::npos; at = t->find(from, at + to.size()))
        t->replace(at, from.size(), to);
}

/* `t` without the ASCII white space next to a special token (<|...|>,
 * <｜...｜>, Kimi's and DeepSeek's call tokens) */
static std::string tight(const std::string &t)
{
    static const char *const ends[] = {"|>", "｜>"}, *const starts[] = {"<|", "<｜", "</｜"};
    std::string out;
    for (size_t i = 0; i < t.size(); i++) {
        if (strchr(" \t\r\n", t[i])) {
            size_t j = i;
            while (j < t.size() && strchr(" \t\r\n", t[j]))
                j++;
            bool after = false, before = false;
            for (const char *e : ends)
                after = after || (out.size() >= strlen(e) &&
                                  out.compare(out.size() - strlen(e), strlen(e), e) == 0);
            for (const char *st : starts)
                before = before || t.compare(j, strlen(st), st) == 0;
            if (after || before) {
                i = j - 1;
                continue;
            }
        }
        out += t[i];
    }
    return out;
}

/* The tools' declared parameters, "NAME KEY" */
static bool declared(const std::string &tool, const std::string &key)
{
    static const nlohmann::json tools = nlohmann::json::parse(k_tools);
    for (const auto &t : tools)
        if (t["function"]["name"] == tool)
            return t["function"]["parameters"]["properties"].contains(key);
    return false;
}

/* Hermes/Qwen3: each <tool_call> block whose JSON is a call object written
 * again as Qwen3's template writes it ({"name", "arguments"} in that order,
 * one line break inside the tags) */
static std::string hermes_canonical(const std::string &text)
{
    std::string out;
    size_t at = 0;
    for (;;) {
        size_t open = text.find("<tool_call>", at);
        size_t close = open == std::string::npos ? open : text.find("</tool_call>", open);
        if (close == std::string::npos)
            break;
        nlohmann::json c =
            nlohmann::json::parse(text.substr(open + 11, close - open - 11), nullptr, false);
        out += text.substr(at, open - at);
        if (!c.is_discarded() && c.is_object() && c.size() == 2 && c.contains("name") &&
            c["name"].is_string() && c.contains("arguments"))
            out += "<tool_call>\n{\"name\": " + c["name"].dump() +
                   ", \"arguments\": " + c["arguments"].dump() + "}\n</tool_call>";
        else
            out += text.substr(open, close + 12 - open);
        at = close + 12;
    }
    return out + text.substr(at);
}

/* Hermes/Qwen3: each <tool_call> block (to the first </tool_call>) whose
 * payload is no JSON value, nor fenced, written again holding only the
 * first balanced {...} or [...] of it, as toolwire reads such a block
 * (text formats, section 2 rule 2) */
static std::string hermes_first_object(const std::string &text)
{
    std::string out;
    size_t at = 0;
    for (;;) {
        size_t open = text.find("<tool_call>", at);
        size_t close = open == std::string::npos ? open : text.find("</tool_call>", open);
        if (close == std::string::npos)
            break;
        std::string p = text.substr(open + 11, close - open - 11);
        size_t b = p.find_first_of("{[");
        size_t e = b == std::string::npos ? b : object_end(p, b);
        out += text.substr(at, open - at);
        if (e != std::string::npos && p.find("```") == std::string::npos &&
            nlohmann::json::parse(p, nullptr, false).is_discarded())
            out += "<tool_call>\n" + p.substr(b, e - b) + "\n</tool_call>";
        else
            out += text.substr(open, close + 12 - open);
        at = close + 12;
    }
    return out + text.substr(at);
}

/* The end of the GLM value that starts at t[at], its close `</arg_value>`
 * as glm rule 5 reads it: the first followed (after white space) by
 * <arg_key> or by the block's end `blk`, else the first; npos when none is
 * before `blk` */
static size_t glm_value_end(const std::string &t, size_t at, size_t blk)
{
    size_t first = t.find("</arg_value>", at);
    for (size_t v = first; v != std::string::npos && v < blk; v = t.find("</arg_value>", v + 1)) {
        size_t n = t.find_first_not_of(" \t\r\n", v + 12);
        if (n == blk || (n != std::string::npos && t.compare(n, 9, "<arg_key>") == 0))
            return v;
    }
    return first != std::string::npos && first < blk ? first : std::string::npos;
}

/* GLM: each <tool_call> block of `text` whose elements are all whole
 * written again in GLM-4.6's layout (a line break after the name and after
 * each element), its name, keys and values kept as they are; a block out
 * of that shape (stray text, an element not closed) kept as it is */
static std::string glm_layout(const std::string &text)
{
    std::string out;
    size_t from = 0;
    for (size_t at = text.find("<tool_call>"); at != std::string::npos;
         at = text.find("<tool_call>", from)) {
        size_t end = text.find("</tool_call>", at);
        if (end == std::string::npos)
            break;
        size_t k = text.find("<arg_key>", at);
        std::string blk;
        bool ok = k != std::string::npos && k < end;
        if (ok) {
            std::string name = text.substr(at + 11, k - at - 11);
            name.erase(name.find_last_not_of(" \t\r\n") + 1);
            blk = "<tool_call>" + name + "\n";
        }
        while (ok && k < end) {
            size_t ke = text.find("</arg_key>", k);
            size_t v = ke == std::string::npos ? ke : text.find_first_not_of(" \t\r\n", ke + 10);
            ok = v != std::string::npos && v < end && text.compare(v, 11, "<arg_value>") == 0;
            size_t ve = ok ? glm_value_end(text, v + 11, end) : std::string::npos;
            ok = ok && ve != std::string::npos;
            if (ok) {
                blk += text.substr(k, ke + 10 - k) + "\n" + text.substr(v, ve + 12 - v) + "\n";
                k = text.find_first_not_of(" \t\r\n", ve + 12);
                ok = k == end || (k != std::string::npos && text.compare(k, 9, "<arg_key>") == 0);
            }
        }
        out += text.substr(from, at - from) +
               (ok ? blk + "</tool_call>" : text.substr(at, end + 12 - at));
        from = end + 12;
    }
    return out + text.substr(from);
}

/* `t` with each byte that does not belong to a well-formed UTF-8 sequence
 * written as U+FFFD */
static std::string utf8_replaced(const std::string &t)
{
    std::string out;
    const unsigned char *p = (const unsigned char *)t.data();
    size_t n = t.size();
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        size_t len = c < 0x80                 ? 1
                     : c >= 0xc2 && c <= 0xdf ? 2
                     : c >= 0xe0 && c <= 0xef ? 3
                     : c >= 0xf0 && c <= 0xf4 ? 4
                                              : 0;
        bool ok = len > 0 && i + len <= n;
        for (size_t k = 1; ok && k < len; k++) {
            unsigned lo = 0x80, hi = 0xbf;
            if (k == 1 && c == 0xe0)
                lo = 0xa0;
            if (k == 1 && c == 0xed)
                hi = 0x9f;
            if (k == 1 && c == 0xf0)
                lo = 0x90;
            if (k == 1 && c == 0xf4)
                hi = 0x8f;
            ok = p[i + k] >= lo && p[i + k] <= hi;
        }
        if (ok) {
            out.append(t, i, len);
            i += len;
        } else {
            out += "\xef\xbf\xbd";
            i++;
        }
    }
    return out;
}

/* llama.cpp throws, toolwire reads `twc` clean (`shape`: with a response_shape warning) */
static std::string sig_throws(const lp_side &s, const std::string &text, const nlohmann::json &twc,
                              bool shape)
{
    const std::string &dl = s.d.dialect;
    std::string valid = utf8_replaced(text);
    if (valid != text) /* bytes that are not UTF-8: the same text without them, or its class */
    {
        try { /* the throw is the bytes' when the same text without them reads (its calls are
                 another matter) */
            (void)common_chat_parse(valid, false, s.llama.params);
            return "invalid-utf8";
        } catch (const std::exception &) {
            return sig_throws(s, valid, twc, shape);
        }
    }
    if (!s.close.empty()) {
        size_t last = text.rfind(s.close);
        if (last != std::string::npos && last + s.close.size() < text.size() &&
            reads_as(s, text.substr(0, last + s.close.size()), twc))
            return "text-after-calls";
        /* the section's close garbled: the text cut right after the last call's
         * close (the section closed again, the text between its calls cut out,
         * and the white space next to its tokens: defect 14 too) */
        size_t last2 = s.close2.empty() ? std::string::npos : text.rfind(s.close2);
        if (last2 != std::string::npos && (last == std::string::npos || last < last2) &&
            last2 + s.close2.size() < text.size()) {
            std::string cut = text.substr(0, last2 + s.close2.size());
            if (reads_as(s, cut, twc) || reads_as(s, calls_only(s, cut + s.close), twc) ||
                reads_as(s, calls_only(s, tight(cut) + s.close), twc))
                return "text-after-calls";
        }
        std::string b = blocks_only(s, text);
        if (b != text && reads_as(s, b, twc))
            return "text-between-calls";
        std::string c = calls_only(s, text);
        if (c != text && (reads_as(s, c, twc) || reads_as(s, blocks_only(s, c), twc)))
            return "stray-text-in-call";
        std::string one = b; /* the blocks made one */
        replace_all(&one, s.close + s.open, "");
        if (one != b && reads_as(s, one, twc))
            return "second-call-block";
    }
    if (dl == "mistral") { /* no call-close token: the text cut after a call's [ARGS] object */
        size_t at = text.find("[ARGS]");
        for (int tries = 0; at != std::string::npos && tries < 8;
             tries++, at = text.find("[ARGS]", at + 6)) {
            size_t o = text.find_first_not_of(" \t\r\n", at + 6);
            size_t end =
                o != std::string::npos && text[o] == '{' ? object_end(text, o) : std::string::npos;
            if (end != std::string::npos && end < text.size() &&
                reads_as(s, text.substr(0, end), twc))
                return "text-after-calls";
        }
    }
    if (dl == "llama3") {
        std::string t = text;
        replace_all(&t, "\"arguments\"", "\"parameters\"");
        if (t != text && reads_as(s, t, twc))
            return "arguments-key";
        size_t at = t.find('{');
        size_t end = at == std::string::npos ? at : object_end(t, at);
        if (end != std::string::npos && end < t.size() && twc.size() >= 1 &&
            reads_as(s, t.substr(0, end), nlohmann::json::array({twc[0]})))
            return t != text ? "arguments-key" : "text-after-first-call";
        if (twc.empty() && at != std::string::npos)
            return "json-not-a-call"; /* toolwire reads JSON content, not a call */
    }
    if (dl == "harmony") {
        /* a message llama.cpp cannot read before one it can: the text from a later header */
        size_t h = text.find("<|channel|>");
        if (h == std::string::npos ||
            !has(text, "<|message|>")) /* no header at all: such text throws */
            return "text-without-header";
        for (int tries = 0; h != std::string::npos && tries < 8;
             tries++, h = text.find("<|channel|>", h + 1))
            if (h > 0 && reads_as(s, text.substr(h), twc))
                return "text-without-header";
        if (shape) /* toolwire read a header or message out of the format's shape */
            return "malformed-header";
        size_t end = text.rfind("<|end|>"); /* text after the last message that is none */
        if (end != std::string::npos && text.find("<|message|>", end) == std::string::npos &&
            reads_as(s, text.substr(0, end + 7), twc))
            return "text-without-header";
        /* a message's <|end|> followed by no <|start|> (a start garbled): the
         * rest is no message, and the text cut at that <|end|> reads clean */
        for (size_t e = text.find("<|end|>"); e != std::string::npos;
             e = text.find("<|end|>", e + 7))
            if (e + 7 < text.size() && text.compare(e + 7, 9, "<|start|>") != 0) {
                if (reads_as(s, text.substr(0, e + 7), twc))
                    return "text-without-header";
                break;
            }
        /* text without a header before the first <|start|>: written as a
         * final message, the text reads clean */
        size_t st = text.find("<|start|>");
        if (st != std::string::npos && st > 0 && !has(text.substr(0, st), "<|channel|>") &&
            reads_as(s, "<|channel|>final<|message|>x<|end|>" + text.substr(st), twc))
            return "text-without-header";
        /* a message to a recipient other than functions.NAME (python, browser.*) */
        for (size_t to = text.find(" to="); to != std::string::npos; to = text.find(" to=", to + 1))
            if (text.compare(to + 4, 10, "functions.") != 0) {
                size_t st = text.rfind("<|start|>", to);
                std::string pre = st == std::string::npos ? "" : text.substr(0, st);
                /* before it text without a header (defect 9 too): that cut out */
                if (reads_as(s, pre, twc) || (!has(pre, "<|channel|>") && reads_as(s, "", twc)))
                    return "recipient-not-functions";
            }
    }
    std::string t = tight(text);
    if (t != text && (reads_as(s, t, twc) || reads_as(s, blocks_only(s, t), twc)))
        return "space-between-call-tokens";
    if (dl == "glm") {
        for (size_t at = text.find("<tool_call>"); at != std::string::npos;
             at = text.find("<tool_call>", at + 1)) {
            size_t end = text.find("</tool_call>", at);
            if (end == std::string::npos)
                break;
            std::string blk = text.substr(at + 11, end - at - 11);
            if (blk.find("<arg_key>") == std::string::npos)
                return "call-without-arguments";
            /* a key repeated or not in the tool's schema */
            std::string name = blk.substr(0, blk.find('<'));
            name.erase(name.find_last_not_of(" \t\r\n") + 1);
            std::set<std::string> keys;
            for (size_t k = blk.find("<arg_key>"); k != std::string::npos;
                 k = blk.find("<arg_key>", k + 1)) {
                size_t ke = blk.find("</arg_key>", k);
                if (ke == std::string::npos)
                    break;
                std::string key = blk.substr(k + 9, ke - k - 9);
                if (!keys.insert(key).second || !declared(name, key))
                    return "parameter-outside-schema";
            }
        }
        /* the blocks' elements alone: the text between them dropped */
        std::string e;
        size_t from = 0;
        for (size_t at = text.find("<tool_call>"); at != std::string::npos;
             at = text.find("<tool_call>", from)) {
            size_t end = text.find("</tool_call>", at);
            if (end == std::string::npos)
                break;
            e += text.substr(from, at - from);
            size_t k = text.find('<', at + 11);
            e += text.substr(at, (k < end ? k : end) - at);
            while (k < end) {
                bool key = text.compare(k, 9, "<arg_key>") == 0,
                     val = text.compare(k, 11, "<arg_value>") == 0;
                size_t ke = key   ? text.find("</arg_key>", k)
                            : val ? text.find("</arg_value>", k)
                                  : std::string::npos;
                if (ke != std::string::npos && ke < end) {
                    ke += key ? 10 : 12;
                    e += text.substr(k, ke - k) + "\n";
                    k = text.find('<', ke);
                } else {
                    k = text.find('<', k + 1);
                }
            }
            e += "</tool_call>";
            from = end + 12;
        }
        e += text.substr(from);
        if (e != text && (reads_as(s, e, twc) || reads_as(s, blocks_only(s, e), twc)))
            return "stray-text-in-call";
        /* each block written again in GLM-4.6's layout, its values as toolwire
         * reads them (a value may hold </arg_value>: glm rule 5) */
        std::string g = glm_layout(text);
        if (g != text && reads_as(s, g, twc))
            return "call-without-template-newlines";
        /* the template's line breaks: after the name, each </arg_key> and </arg_value> */
        std::string u = text; /* only between two elements: a value may hold </arg_value> (glm 5) */
        replace_all(&u, "</arg_value><arg_key>", "</arg_value>\n<arg_key>");
        replace_all(&u, "</arg_value></tool_call>", "</arg_value>\n</tool_call>");
        replace_all(&u, "</arg_key><arg_value>", "</arg_key>\n<arg_value>");
        for (size_t at = u.find("<tool_call>"); at != std::string::npos;
             at = u.find("<tool_call>", at + 1)) {
            size_t k = u.find('<', at + 11);
            if (k != std::string::npos && u.compare(k, 9, "<arg_key>") == 0 && u[k - 1] != '\n')
                u.insert(k, "\n");
        }
        if (u != text && reads_as(s, u, twc))
            return "call-without-template-newlines";
    }
    if (dl == "hermes") { /* a Markdown fence around the call's JSON */
        std::string c = hermes_canonical(text);
        if (c != text && reads_as(s, c, twc))
            return "call-object-layout";
        /* a block holding more than its call's JSON: its first balanced object */
        std::string f = hermes_first_object(text);
        if (f != text && (reads_as(s, f, twc) || reads_as(s, hermes_canonical(f), twc)))
            return "block-first-object";
        size_t at = text.find("<tool_call>");
        if (at != std::string::npos && text.find("```", at) != std::string::npos)
            return "fenced-call";
    }
    if (dl == "deepseek-v3.1" && has(text, "<｜tool▁call▁begin｜>function<｜tool▁sep｜>"))
        return "v3-call-spelling";
    if (dl == "mistral" && has(text, "[TOOL_CALLS]["))
        return "legacy-call-array";
    /* a call block from which toolwire reads no call: the text without the blocks reads clean */
    if (twc.empty() && !s.close.empty() && has(text, s.open)) {
        std::string t;
        size_t from = 0;
        for (size_t at = text.find(s.open); at != std::string::npos; at = text.find(s.open, from)) {
            t += text.substr(from, at - from);
            size_t end = text.find(s.close, at);
            from = end == std::string::npos ? text.size() : end + s.close.size();
        }
        t += text.substr(from);
        if (reads_as(s, t, twc))
            return "malformed-call-block";
    }
    /* the reasoning opened by the prompt, and opened again by the text; or
     * closed by the prompt, and a think block in the text */
    size_t at = text.find_first_not_of(" \t\r\n");
    if (!s.think.empty() && at != std::string::npos &&
        text.compare(at, s.think.size(), s.think) == 0) {
        if (s.llama.opened && reads_as(s, text.substr(at + s.think.size()), twc))
            return "think-opened-again";
        size_t end = s.think == "<think>" ? text.find("</think>", at) : std::string::npos;
        if (!s.llama.opened && end != std::string::npos && reads_as(s, text.substr(end + 8), twc))
            return "think-block-while-closed";
    }
    return "throws";
}

/* A call of `twc` missing from llama.cpp's `lc`: its name ("" when none is) */
static std::string missing_name(const nlohmann::json &lc, const nlohmann::json &twc)
{
    std::multiset<std::string> got;
    for (const auto &c : lc)
        got.insert(c["name"].get<std::string>());
    for (const auto &c : twc) {
        auto it = got.find(c["name"].get<std::string>());
        if (it == got.end())
            return c["name"].get<std::string>();
        got.erase(it);
    }
    return "";
}

/* The text with one line break after each <tool_call> and before each
 * </tool_call>, as Qwen3's template writes them */
static std::string qwen_newlines(const std::string &text)
{
    std::string t = text;
    size_t at = 0;
    while ((at = t.find("<tool_call>", at)) != std::string::npos) {
        at += 11;
        size_t j = at;
        while (j < t.size() && strchr(" \t\r\n", t[j]))
            j++;
        t.replace(at, j - at, "\n");
    }
    at = 0;
    while ((at = t.find("</tool_call>", at)) != std::string::npos) {
        size_t j = at;
        while (j > 0 && strchr(" \t\r\n", t[j - 1]))
            j--;
        t.replace(j, at - j, "\n");
        at = j + 1 + 12;
    }
    return t;
}

/* llama.cpp reads `m` (calls `lc`) where toolwire reads `twc` (`dup`: it
 * warned of a repeated key) */
static std::string sig_calls(const lp_side &s, const std::string &text, const common_chat_msg &m,
                             const nlohmann::json &lc, const nlohmann::json &twc, bool dup,
                             bool again = true)
{
    if (lc.size() < twc.size()) {
        if (has(m.reasoning_content, s.open) || has(m.reasoning_content, s.open2))
            return "call-in-open-reasoning";
        if (has(m.content, s.open) || has(m.content, s.open2)) {
            if (s.d.dialect == "hermes" && again) { /* the template's line breaks around the JSON */
                std::string t = qwen_newlines(text);
                std::string c = hermes_canonical(text);
                if (t != text && reads_as(s, t, twc))
                    return "call-without-template-newlines";
                if (c != t && reads_as(s, c, twc))
                    return "call-object-layout";
                if (t != text) {
                    try {
                        common_chat_msg x = common_chat_parse(t, false, s.llama.params);
                        nlohmann::json xc = llama_calls(x);
                        if (xc == twc)
                            return "call-without-template-newlines";
                        return "call-without-template-newlines+" +
                               sig_calls(s, t, x, xc, twc, dup, false);
                    } catch (const std::exception &) {
                        return "call-without-template-newlines+throws";
                    }
                }
            }
            return "call-left-as-content";
        }
        std::string name = missing_name(lc, twc);
        if (!name.empty() && !has(m.content, name) && !has(m.reasoning_content, name))
            return "call-vanished";
        return "fewer-calls";
    }
    for (const auto &c : lc)
        if (c["arguments"].is_discarded())
            return "arguments-not-json"; /* the final message holds a call whose arguments are not
                                            JSON */
    if (lc.size() > twc.size()) {
        /* toolwire reads the call as reasoning: inside a closed think block */
        size_t th = s.think.empty() ? std::string::npos : text.find(s.think);
        std::string close = s.think == "<think>"   ? "</think>"
                            : s.think == "[THINK]" ? "[/THINK]"
                                                   : "<channel|>";
        size_t end = th == std::string::npos ? th : text.find(close, th);
        size_t call = th == std::string::npos ? th : text.find(s.open, th);
        if (end != std::string::npos && call != std::string::npos && call < end)
            return "call-in-closed-reasoning";
        if (!s.open2.empty() && text.find(s.open2) < text.find(s.open))
            return "call-without-block"; /* a call's own tokens without the block that holds it */
        return "more-calls";
    }
    for (size_t i = 0; i < lc.size(); i++) {
        if (lc[i]["name"] != twc[i]["name"])
            return "call-names-differ";
        if (lc[i]["arguments"] == twc[i]["arguments"])
            continue;
        if (lc[i]["arguments"].is_discarded())
            return "arguments-not-json";
        if (lc[i]["arguments"].dump().find("<|\\\"|>") != std::string::npos)
            return "key-keeps-quote-tokens";
        if (lc[i]["arguments"].is_object() && lc[i]["arguments"].empty())
            return "arguments-emptied";
        if (dup && lc[i]["arguments"].is_object() && twc[i]["arguments"].is_object()) {
            bool same_keys = lc[i]["arguments"].size() == twc[i]["arguments"].size();
            for (const auto &kv : lc[i]["arguments"].items())
                same_keys = same_keys && twc[i]["arguments"].contains(kv.key());
            if (same_keys)
                return "repeated-key-last-wins";
        }
        return "arguments-differ";
    }
    return "calls";
}

/* A prefix showed call `name` that the final parse `m` does not read:
 * under another name (`renamed`), or not at all */
static std::string sig_retraction(const lp_side &s, const common_chat_msg &m,
                                  const std::string &name, bool renamed)
{
    if (renamed)
        return "streamed-call-renamed";
    if (has(m.content, s.open))
        return "streamed-call-left-as-content";
    if (has(m.reasoning_content, s.open))
        return "streamed-call-in-reasoning";
    if (!has(m.content, name) && !has(m.reasoning_content, name))
        return "streamed-call-vanished";
    return "retraction";
}

/* One finding: known (counted, the smallest input kept; false) or not
 * (printed and aborted). Under TOOLWIRE_LLAMA_DIFF_ONLY only that signature
 * aborts, and nothing is counted or kept. */
static void finding(const lp_side &s, const uint8_t *data, size_t size, const char *kind,
                    const std::string &sig, const std::string &detail)
{
    auto known = g_known.find(s.d.dialect + " " + kind + " " + sig);
    if (!g_only.empty()) {
        if (g_only != sig && g_only != s.d.dialect + ":" + sig)
            return;
    } else if (known != g_known.end()) {
        if (g_log_known)
            fprintf(stderr, "fuzz_llama_diff: %s: %s: %s (known, defect %d): %s\n",
                    s.d.dialect.c_str(), kind, sig.c_str(), known->second.defect, detail.c_str());
        g_count[s.d.dialect + "\t" + kind + "\t" + sig]++;
        std::string keep = "known-" + sig + "-" + s.d.dialect;
        std::string path = g_keep + "/" + keep;
        auto it = g_smallest.find(keep);
        if (it == g_smallest.end()) { /* a file of an earlier worker: its size */
            struct stat st;
            it = g_smallest
                     .emplace(keep, stat(path.c_str(), &st) == 0 ? (size_t)st.st_size : SIZE_MAX)
                     .first;
        }
        if (!g_keep.empty() && size < it->second) {
            FILE *fp = fopen((path + ".tmp").c_str(), "wb");
            if (fp) {
                bool ok = fwrite(data, 1, size, fp) == size;
                if (fclose(fp) == 0 && ok && rename((path + ".tmp").c_str(), path.c_str()) == 0)
                    it->second = size;
            }
        }
        if (time(nullptr) - g_flushed >= 10)
            flush_counts();
        return;
    }
    flush_counts();
    fprintf(stderr, "fuzz_llama_diff: %s: %s: %s: %s\n", s.d.dialect.c_str(), kind, sig.c_str(),
            detail.c_str());
    abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    lp_side &s = g_sides[data[0] % g_sides.size()];
    if (!s.f)
        return 0;
    /* both sides read what llama-server's parser would: the text up to the
     * first end-of-generation token (declared: the server stops there) */
    std::string text = lp_server_text(s.d, std::string((const char *)data + 1, size - 1), false);

    /* toolwire: one exact-size copy, fed whole */
    std::vector<char> copy(text.begin(), text.end());
    tw_result r;
    tw_status st = s.f->reset(s.dec, &s.o, nullptr, nullptr);
    if (st == TW_OK)
        st = s.f->feed(s.dec, copy.data(), copy.size());
    if (st == TW_OK)
        st = s.f->finish(s.dec, &r);
    if (st != TW_OK)
        return 0; /* out of memory: nothing to compare */
    bool tw_clean = r.errors.len == 0;
    bool tw_dup = tw_diag_has(&r.warnings, TW_D_DUPLICATE_KEY) ||
                  tw_diag_has(&r.warnings, TW_D_CALL_DUPLICATE_KEY);
    bool tw_shape = tw_diag_has(&r.warnings, TW_D_RESPONSE_SHAPE);
    nlohmann::json twc = tw_calls(r);
    s.f->recycle(s.dec, &r);

    /* llama.cpp: the final parse, then partial parses of two prefixes */
    common_chat_msg m;
    std::string thrown;
    try {
        m = common_chat_parse(text, false, s.llama.params);
    } catch (const std::exception &e) {
        thrown = e.what();
    }
    std::string partial_thrown, retracted, retracted_name;
    bool renamed = false;
    size_t cuts[2] = {text.size() / 2, text.size() ? text.size() - 1 : 0};
    for (size_t cut : cuts) {
        try {
            common_chat_msg pm = common_chat_parse(lp_server_text(s.d, text.substr(0, cut), true),
                                                   true, s.llama.params);
            /* a call shown while streaming is never taken back (its name kept) */
            if (thrown.empty() && retracted.empty()) {
                if (pm.tool_calls.size() > m.tool_calls.size()) {
                    retracted = "a prefix of " + std::to_string(cut) + " bytes shows " +
                                std::to_string(pm.tool_calls.size()) + " calls, the whole text " +
                                std::to_string(m.tool_calls.size());
                    retracted_name = pm.tool_calls[m.tool_calls.size()].name;
                }
                for (size_t i = 0; retracted.empty() && i < pm.tool_calls.size(); i++)
                    if (!pm.tool_calls[i].name.empty() &&
                        pm.tool_calls[i].name != m.tool_calls[i].name) {
                        retracted = "call " + std::to_string(i) + " shown as " +
                                    pm.tool_calls[i].name + ", read as " + m.tool_calls[i].name;
                        retracted_name = pm.tool_calls[i].name;
                        renamed = true;
                    }
            }
        } catch (const std::exception &e) {
            if (partial_thrown.empty())
                partial_thrown = "prefix of " + std::to_string(cut) + " bytes: " + e.what();
        }
    }

    const char *why = lp_declared(s, text);
    if (why)
        return 0;
    bool any = false;
    if (!thrown.empty() && tw_clean) {
        finding(s, data, size, "throws", sig_throws(s, text, twc, tw_shape),
                thrown + " (toolwire reads it clean: " + twc.dump() + ")");
        any = true;
    }
    if (thrown.empty() && !partial_thrown.empty()) {
        finding(s, data, size, "partial throws", "partial-throws", partial_thrown);
        any = true;
    }
    if (!retracted.empty()) {
        finding(s, data, size, "retraction", sig_retraction(s, m, retracted_name, renamed),
                retracted);
        any = true;
    }
    if (thrown.empty() && tw_clean) {
        nlohmann::json lc = llama_calls(m);
        if (lc != twc) {
            finding(s, data, size, "calls", sig_calls(s, text, m, lc, twc, tw_dup),
                    "llama.cpp " + lc.dump() + ", toolwire " + twc.dump());
            any = true;
        }
    }
    return any && g_reject_known ? -1 : 0;
}
