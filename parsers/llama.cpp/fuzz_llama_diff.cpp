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
 * Aborts (a finding) on:
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
 * The declared differences (parsers/llama.cpp/expected.json) are kept out
 * by construction, or by lp_declared below. The finding is printed to stderr with its kind before the
 * abort, so that a crash file's trace says what differed.
 *
 * TOOLWIRE_TEMPLATES: the chat templates (default ../shared/templates).
 * Built by scripts/fuzz-llama.sh; not part of the build or the tests.
 */
#include <cstdint>
#include <cstring>
#include <string>
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

struct lp_side {
    lp_dialect d;
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
        fprintf(stderr, "fuzz_llama_diff: no chat template in %s (TOOLWIRE_TEMPLATES)\n", dir.c_str());
        abort();
    }
    fprintf(stderr, "fuzz_llama_diff: %zu dialects:", found);
    for (const lp_side &s : g_sides)
        if (s.f)
            fprintf(stderr, " %s (%s, %s%s)", s.d.dialect.c_str(), s.d.file.c_str(), s.llama.format.c_str(),
                s.llama.opened ? ", forced open" : "");
    fputc('\n', stderr);
    return 0;
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

[[noreturn]] static void finding(const lp_side &s, const char *kind, const std::string &detail)
{
    fprintf(stderr, "fuzz_llama_diff: %s: %s: %s\n", s.d.dialect.c_str(), kind, detail.c_str());
    abort();
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
        nlohmann::json args = c.arguments.empty() ? nlohmann::json::object()
                                                  : nlohmann::json::parse(c.arguments, nullptr, false);
        a.push_back({{"name", c.name}, {"arguments", args}});
    }
    return a;
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
    std::string partial_thrown, retracted;
    size_t cuts[2] = {text.size() / 2, text.size() ? text.size() - 1 : 0};
    for (size_t cut : cuts) {
        try {
            common_chat_msg pm =
                common_chat_parse(lp_server_text(s.d, text.substr(0, cut), true), true, s.llama.params);
            /* a call shown while streaming is never taken back (its name kept) */
            if (thrown.empty() && retracted.empty()) {
                if (pm.tool_calls.size() > m.tool_calls.size())
                    retracted = "a prefix of " + std::to_string(cut) + " bytes shows " +
                                std::to_string(pm.tool_calls.size()) + " calls, the whole text " +
                                std::to_string(m.tool_calls.size());
                for (size_t i = 0; retracted.empty() && i < pm.tool_calls.size(); i++)
                    if (!pm.tool_calls[i].name.empty() && pm.tool_calls[i].name != m.tool_calls[i].name)
                        retracted = "call " + std::to_string(i) + " shown as " + pm.tool_calls[i].name +
                                    ", read as " + m.tool_calls[i].name;
            }
        } catch (const std::exception &e) {
            if (partial_thrown.empty())
                partial_thrown = "prefix of " + std::to_string(cut) + " bytes: " + e.what();
        }
    }

    const char *why = lp_declared(s, text);
    if (why)
        return 0;
    if (!thrown.empty() && tw_clean)
        finding(s, "throws", thrown + " (toolwire reads it clean: " + twc.dump() + ")");
    if (thrown.empty() && !partial_thrown.empty())
        finding(s, "partial throws", partial_thrown);
    if (!retracted.empty())
        finding(s, "retraction", retracted);
    if (thrown.empty() && tw_clean) {
        nlohmann::json lc = llama_calls(m);
        if (lc != twc)
            finding(s, "calls", "llama.cpp " + lc.dump() + ", toolwire " + twc.dump());
    }
    return 0;
}
