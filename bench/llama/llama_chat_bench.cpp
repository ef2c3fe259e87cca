/*
 * llama.cpp's chat parser (common_chat_parse) beside a toolwire text
 * decoder (--format: hermes by default, or a model dialect) on the same
 * bytes: the inputs bench_all writes with --dump-inputs --format, each parsed in one piece (batch: is_partial false on the
 * whole text) and streamed the way llama-server streams (the text
 * accumulated after each piece of 4096, 16 and 4 bytes re-parsed whole as
 * partial, then one full parse at the end); toolwire's decoder fed the
 * same pieces (one decoder reset for each decode, the result recycled, as
 * bench_all's batch and stream/N rows). The parser is configured through
 * llama.cpp's own API as llama-server configures it: the chat template
 * (Qwen3 by default) rendered by common_chat_templates_apply with two tools,
 * thinking on and reasoning_format deepseek, its parser loaded.
 *
 * CPU time of the thread (CLOCK_THREAD_CPUTIME_ID), each operation repeated
 * until 10 ms have passed, both sides in turn inside each round, the median
 * of the rounds kept. A streamed row whose llama.cpp side would take more
 * than --budget seconds a decode (the re-parses grow with the square of the
 * length) runs on a shorter input, the same for both sides: the head of the
 * input cut at a line, then its last line(s); the row gives its bytes.
 * Prints the table and the calls each side decoded (count and names), and
 * writes OUT/DATE-llama.json and OUT/DATE-llama.md (DATE-llama-FORMAT.* for
 * a format other than hermes). Asserts nothing.
 *
 * Built and run by scripts/bench-llama.sh (it fetches llama.cpp's source);
 * not part of the build or the tests.
 *
 * usage: llama_chat_bench --inputs DIR --template FILE [--rounds 1..15]
 *                         [--budget SECONDS] [--out DIR] [--source TEXT]
 *                         [--command TEXT] [--format NAME] [--forced-open]
 *                         [--tag TAG] [--layout glm-4.7|minimax-m2]
 *        llama_chat_bench --fixtures DIR --template FILE [--format NAME]
 *                         [--tag TAG] [--out DIR] [--source TEXT] [--command TEXT]
 * (--source: what llama.cpp's source is, --command: the command that ran
 * this, both for the report; --forced-open: toolwire decodes with
 * forced_open, the template having opened the reasoning in the prompt;
 * --fixtures: no timing: each decode fixture of DIR read by llama.cpp's
 * parser built for its tools, beside what toolwire's decoder gives,
 * written to OUT/DATE-llama-FORMAT-fixtures.md and .json; --tag: appended
 * to the reports' names, DATE-llama-FORMAT-TAG…, for a second template of
 * one format: lower-case letters, digits, '.' and '-'; --layout: the
 * inputs (or fixtures) rewritten to another layout of the markup, for a
 * parser that reads only its template's: glm-4.7, no line breaks between a
 * call's elements; minimax-m2, the template's line breaks between them)
 */
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "chat.h"
#include "log.h"
#include "toolwire/decode.h"
#include "toolwire/json.h"

/* ---- symbols of libllama and ggml that the chat sources reference on paths
 * this program never takes (a model's template or vocabulary, the
 * pre-Jinja templates); the parser itself needs none of them ---- */
extern "C" {
void ggml_abort(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "llama_chat_bench: ggml_abort at %s:%d: ", file, line);
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

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "llama_chat_bench: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Seconds per run of fn: repeated until min_total has passed (bench_all's). */
template <typename F> static double time_op(F fn, double min_total)
{
    fn(); /* warm */
    for (size_t n = 1;; n *= 2) {
        double t0 = now();
        for (size_t i = 0; i < n; i++)
            fn();
        double t = now() - t0;
        if (t >= min_total || n >= (1u << 24))
            return t / (double)n;
    }
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Today's date (YYYY-MM-DD) and the moment (ISO 8601, UTC), for a report's name and header. */
static void utc_now(char date[32], char stamp[64])
{
    time_t tt = time(NULL);
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(date, 32, "%Y-%m-%d", &tm);
    strftime(stamp, 64, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* A report as BASE.json (the JSON text given) and BASE.md, in the folder OUT. */
static void write_report(const std::string &out, const std::string &base, const std::string &json,
                         const std::string &md)
{
    mkdir(out.c_str(), 0755);
    std::ofstream jf(base + ".json"), mf(base + ".md");
    jf << json << "\n";
    mf << md;
    jf.close();
    mf.close();
    if (jf.fail() || mf.fail())
        fail("cannot write %s.json or .md: %s", base.c_str(), strerror(errno));
}

static std::string slurp(const std::string &path)
{
    std::ifstream f(path, std::ios::binary);
    if (!f)
        fail("cannot read %s", path.c_str());
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

/* What a decode gave: calls (names), content and reasoning bytes. */
typedef struct outcome {
    std::vector<std::string> names;
    size_t content = 0, reasoning = 0;
} outcome;

/* ---- llama.cpp: the parse llama-server runs on the generated text ---- */

typedef struct llama_side {
    common_chat_parser_params params;
    outcome last;
} llama_side;

static void llama_keep(llama_side *l, const common_chat_msg &m)
{
    l->last.names.clear();
    for (const auto &c : m.tool_calls)
        l->last.names.push_back(c.name);
    l->last.content = m.content.size();
    l->last.reasoning = m.reasoning_content.size();
}

/* chunk 0: one parse of the whole text; else the accumulated text re-parsed
 * as partial after each piece, then a full parse. */
static void llama_decode(llama_side *l, const std::string &in, size_t chunk)
{
    try {
        if (chunk == 0) {
            llama_keep(l, common_chat_parse(in, false, l->params));
            return;
        }
        std::string acc;
        for (size_t off = 0; off < in.size(); off += chunk) {
            acc.append(in, off, chunk);
            common_chat_parse(acc, true, l->params);
        }
        llama_keep(l, common_chat_parse(acc, false, l->params));
    } catch (const std::exception &e) {
        fail("llama.cpp's parser failed: %s", e.what());
    }
}

/* The message llama.cpp's parser throws on the whole input, or "" when it
 * reads it (an input it refuses is a finding, not a measurement). */
static std::string llama_refusal(llama_side *l, const std::string &in)
{
    try {
        common_chat_parse(in, false, l->params);
    } catch (const std::exception &e) {
        return e.what();
    }
    return "";
}

/* The bench's two tools (bench_all's arguments: a path, an integer, a
 * decimal, a list of integers, a text). */
static std::vector<common_chat_tool> bench_tools(void)
{
    static const char schema[] =
        "{\"type\": \"object\", \"properties\": {\"path\": {\"type\": \"string\"}, "
        "\"mode\": {\"type\": \"integer\"}, \"ratio\": {\"type\": \"number\"}, \"lines\": "
        "{\"type\": \"array\", \"items\": {\"type\": \"integer\"}}, \"text\": {\"type\": "
        "\"string\"}}, \"required\": [\"path\"]}";
    return {{"read_file", "Read a file.", schema}, {"write_file", "Write a file.", schema}};
}

/* The template rendered as llama-server renders a request: one user
 * message, the tools, parallel calls, reasoning_format deepseek. */
static common_chat_params llama_apply(const common_chat_templates *tmpls,
                                      const std::vector<common_chat_tool> &tools, bool thinking)
{
    common_chat_templates_inputs in;
    common_chat_msg user;
    user.role = "user";
    user.content = "Read src/file_1.c and write src/file_2.c.";
    in.messages.push_back(user);
    in.tools = tools;
    in.parallel_tool_calls = true;
    in.enable_thinking = thinking;
    in.reasoning_format = COMMON_REASONING_FORMAT_DEEPSEEK; /* llama-server's default */
    return common_chat_templates_apply(tmpls, in);
}

static llama_side llama_side_of(const common_chat_params &cp)
{
    llama_side l;
    l.params = common_chat_parser_params(cp);
    l.params.reasoning_format = COMMON_REASONING_FORMAT_DEEPSEEK;
    if (!cp.parser.empty())
        l.params.parser.load(cp.parser);
    return l;
}

/* Whether the generation prompt ends inside an opened reasoning (the model's
 * text starts in it: toolwire's forced_open). */
static bool prompt_opens_reasoning(const common_chat_params &cp)
{
    std::string g = cp.generation_prompt, tag = cp.thinking_start_tag.empty() ? "<think>" :
                                                                                 cp.thinking_start_tag;
    while (!g.empty() && isspace((unsigned char)g.back()))
        g.pop_back();
    while (!tag.empty() && isspace((unsigned char)tag.back()))
        tag.pop_back();
    return !tag.empty() && g.size() >= tag.size() &&
           g.compare(g.size() - tag.size(), tag.size(), tag) == 0;
}

static llama_side llama_setup(const std::string &tmpl_src)
{
    auto tmpls = common_chat_templates_init(nullptr, tmpl_src);
    common_chat_params cp = llama_apply(tmpls.get(), bench_tools(), true);
    printf("llama.cpp chat format %s, generation prompt %zu bytes%s, parser %zu bytes\n",
           common_chat_format_name(cp.format), cp.generation_prompt.size(),
           prompt_opens_reasoning(cp) ? " (opens the reasoning)" : "", cp.parser.size());
    return llama_side_of(cp);
}

/* ---- toolwire: bench_all's batch and stream/N decode ---- */

typedef struct tw_side {
    const tw_format_ops *f;
    tw_decode_opts o;
    void *state;
    outcome last;
} tw_side;

static void tw_decode(tw_side *t, const std::string &in, size_t chunk)
{
    const char *p = in.data();
    size_t len = in.size(), step = chunk ? chunk : (len ? len : 1);
    tw_status st = t->f->reset(t->state, &t->o, NULL, NULL);
    for (size_t off = 0; st == TW_OK && off < len; off += step)
        st = t->f->feed(t->state, p + off, std::min(step, len - off));
    tw_result r;
    if (st == TW_OK)
        st = t->f->finish(t->state, &r);
    if (st != TW_OK)
        fail("toolwire's %s decoder failed: %s", t->f->name, tw_code_message(st));
    t->last.names.clear();
    for (size_t i = 0; i < r.msg.ncalls; i++)
        t->last.names.push_back(r.msg.calls[i].name ? r.msg.calls[i].name : "");
    t->last.content = r.msg.content.len;
    t->last.reasoning = r.msg.thinking.len;
    t->f->recycle(t->state, &r);
}

/* ---- inputs ---- */

typedef struct input {
    std::string file, name, bytes;
} input;

/* Where a call ends in a format's text, and what closes the block that
 * holds its calls ("": each call is a block of its own). A format not
 * listed is cut as hermes. */
typedef struct call_marks {
    const char *format, *call_end, *block_end;
} call_marks;

static const call_marks marks[] = {
    {"hermes", "</tool_call>\n", ""},
    {"glm", "</tool_call>", ""},
    {"gemma4", "<tool_call|>", ""},
    {"minimax-m2", "</invoke>\n", "</minimax:tool_call>"},
    {"dsml", "</｜DSML｜invoke>\n", "</｜DSML｜function_calls>"},
};

static const call_marks *marks_of(const std::string &format)
{
    for (const call_marks &m : marks)
        if (format == m.format)
            return &m;
    return &marks[0];
}

/* The input cut to about `cap` bytes: up to the end of its last call within
 * cap (or of its first), then the close of the block that holds the calls
 * and what follows it, as in the input; with no call, its head up to a line
 * end, then its tail from the first line start in its last 256 bytes (a
 * reasoning block keeps its close tag and what follows). */
static std::string cut(const std::string &in, size_t cap, const call_marks &m)
{
    if (in.size() <= cap || in.size() < 1024)
        return in;
    size_t ce = strlen(m.call_end);
    size_t call = in.rfind(m.call_end, cap);
    if (call == std::string::npos)
        call = in.find(m.call_end); /* at least the first call, whole */
    if (call != std::string::npos) {
        std::string head = in.substr(0, call + ce);
        size_t block = *m.block_end ? in.rfind(m.block_end) : std::string::npos;
        if (block != std::string::npos && block >= head.size())
            head += in.substr(block);
        return head;
    }
    size_t tail = in.find('\n', in.size() - 256);
    size_t head = in.rfind('\n', cap > 512 ? cap - 256 : 256);
    if (tail == std::string::npos || head == std::string::npos || head >= tail)
        return in;
    return in.substr(0, head + 1) + in.substr(tail + 1);
}

/* Every `from` in s replaced by `to`. */
static std::string replace_all(std::string s, const std::string &from, const std::string &to)
{
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

/* An input rewritten to another layout of its markup, the same bytes for
 * both sides: "glm-4.7", GLM-4.7's calls with no line break after the name,
 * between the elements, before </tool_call> or before <tool_call> (the glm
 * encoder writes GLM-4.5/4.6's); "minimax-m2", the line breaks MiniMax-M2's
 * template writes between a section's elements, where there are none. */
static std::string relayout(const std::string &in, const std::string &layout)
{
    if (layout == "minimax-m2") {
        std::string s = replace_all(in, "<minimax:tool_call><", "<minimax:tool_call>\n<");
        s = replace_all(s, "</parameter><", "</parameter>\n<");
        s = replace_all(s, "</invoke><", "</invoke>\n<");
        for (size_t at = s.find("<invoke name="); at != std::string::npos;
             at = s.find("<invoke name=", at + 1)) {
            size_t gt = s.find('>', at);
            if (gt != std::string::npos && gt + 1 < s.size() && s[gt + 1] == '<')
                s.insert(gt + 1, "\n");
        }
        return s;
    }
    if (layout != "glm-4.7")
        return in;
    std::string s = replace_all(in, "\n<arg_key>", "<arg_key>");
    s = replace_all(s, "</arg_key>\n<arg_value>", "</arg_key><arg_value>");
    s = replace_all(s, "</arg_value>\n</tool_call>", "</arg_value></tool_call>");
    return replace_all(s, "\n<tool_call>", "<tool_call>");
}

/* MB/s with three significant digits or more (a quadratic row is far below 1). */
static std::string rate(double v)
{
    char b[32];
    snprintf(b, sizeof b, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : v >= 1 ? "%.2f" : "%.3g", v);
    return b;
}

static std::string names(const outcome &o)
{
    std::string s = std::to_string(o.names.size());
    for (size_t i = 0; i < o.names.size() && i < 4; i++)
        s += (i ? ", " : " (") + o.names[i];
    if (o.names.size() > 4)
        s += ", …";
    if (!o.names.empty())
        s += ")";
    return s;
}

/* ---- the decode fixtures: llama.cpp's reading beside toolwire's ---- */

/* A value for a table cell: JSON-quoted (line breaks seen), cut to about
 * `max` bytes at a character boundary, '|' escaped. */
static std::string cell(const std::string &v, size_t max = 120)
{
    std::string q = nlohmann::json(v).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (q.size() > max) {
        size_t n = max;
        while (n > 0 && ((unsigned char)q[n] & 0xC0) == 0x80)
            n--;
        q = q.substr(0, n) + "…";
    }
    std::string o;
    for (char c : q)
        o += c == '|' ? std::string("\\|") : std::string(1, c);
    return o;
}

/* A JSON tree read with toolwire's reader (numbers keep their spelling,
 * 1e400 included), or NULL. */
static cJSON *json_read(const std::string &text)
{
    cJSON *v = NULL;
    return tw_json_parse(text.data(), text.size(), 0, &v, NULL) == TW_OK ? v : NULL;
}

static std::string json_text(const cJSON *v)
{
    tw_buf b = {}; /* no cap: a fixture's arguments */
    std::string s = v && tw_json_write(&b, v, TW_JSON_COMPACT) == TW_OK ? std::string(b.data, b.len) :
                                                                         "null";
    tw_buf_free(&b);
    return s;
}

static std::string json_str(const cJSON *o, const char *key)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
    return s ? s : "";
}

/* The same JSON value: objects whatever their key order, numbers by their
 * spelling or value. */
static bool json_same(const cJSON *a, const cJSON *b)
{
    if (!a || !b)
        return a == b;
    if ((a->type & 0xFF) != (b->type & 0xFF))
        return false;
    if (cJSON_IsNumber(a)) {
        const char *x = tw_json_spelling(a), *y = tw_json_spelling(b);
        return (x && y && strcmp(x, y) == 0) || a->valuedouble == b->valuedouble;
    }
    if (cJSON_IsString(a))
        return strcmp(a->valuestring, b->valuestring) == 0;
    if (cJSON_IsArray(a)) {
        const cJSON *x = a->child, *y = b->child;
        for (; x && y; x = x->next, y = y->next)
            if (!json_same(x, y))
                return false;
        return !x && !y;
    }
    if (cJSON_IsObject(a)) {
        if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
            return false;
        for (const cJSON *x = a->child; x; x = x->next)
            if (!json_same(x, cJSON_GetObjectItemCaseSensitive(b, x->string)))
                return false;
        return true;
    }
    return true; /* true, false, null */
}

/* One call as a decoder gave it: the name and the arguments (a JSON tree,
 * or the text when it is not JSON). */
typedef struct fx_call {
    std::string name, text;
    cJSON *args = NULL;
} fx_call;

static bool calls_same(const std::vector<fx_call> &a, const std::vector<fx_call> &b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); i++)
        if (a[i].name != b[i].name || (a[i].args || b[i].args ? !json_same(a[i].args, b[i].args) :
                                                                a[i].text != b[i].text))
            return false;
    return true;
}

static std::string calls_text(const std::vector<fx_call> &calls)
{
    std::string s;
    for (const auto &c : calls)
        s += (s.empty() ? "" : ", ") + c.name + " " + (c.args ? json_text(c.args) : c.text);
    return s;
}

static nlohmann::ordered_json calls_json(const std::vector<fx_call> &calls)
{
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const auto &c : calls)
        a.push_back({{"name", c.name}, {"arguments", c.args ? json_text(c.args) : c.text}});
    return a;
}

/* Each decode fixture in `dir` (tests/data/decode/FORMAT/NAME.json) read by
 * llama.cpp's parser built for the fixture's tools (the template rendered
 * with thinking on, or off when that is what makes its prompt open the
 * reasoning as the fixture's forced_open says), set against the fixture's
 * expected result (what toolwire's decoder gives: the decode tests assert
 * it). Writes OUT/DATE-llama-FORMAT-fixtures.md and .json. */
static int run_fixtures(const std::string &dir, const std::string &tmpl_path,
                        const std::string &format, const std::string &tag,
                        const std::string &layout, const std::string &out,
                        const std::string &source, const std::string &command)
{
    std::vector<std::string> files;
    DIR *d = opendir(dir.c_str());
    if (!d)
        fail("cannot open %s: %s", dir.c_str(), strerror(errno));
    for (struct dirent *e; (e = readdir(d));) {
        std::string n = e->d_name;
        if (n.size() > 5 && n.compare(n.size() - 5, 5, ".json") == 0)
            files.push_back(n);
    }
    closedir(d);
    std::sort(files.begin(), files.end());
    if (files.empty())
        fail("no fixtures (*.json) in %s", dir.c_str());

    common_log_pause(common_log_main()); /* its warnings on every refused input */
    auto tmpls = common_chat_templates_init(nullptr, slurp(tmpl_path));
    struct side {
        llama_side l;
        bool matched, thinking;
        std::string align; /* put before an input when no prompt matches: the tag that does */
    };
    std::map<std::string, side> sides; /* tools and forced_open: the parser */
    std::map<std::string, bool> seen;   /* the parsers' chat formats and prompts */
    size_t same = 0, thrown = 0, unmatched_prompt = 0;
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    std::string table;
    for (const std::string &f : files) {
        cJSON *fx = json_read(slurp(dir + "/" + f));
        if (!fx)
            fail("%s/%s: not JSON", dir.c_str(), f.c_str());
        if (cJSON_GetObjectItemCaseSensitive(fx, "format") && json_str(fx, "format") != format) {
            cJSON_Delete(fx);
            continue;
        }
        const cJSON *opts = cJSON_GetObjectItemCaseSensitive(fx, "options");
        bool fo = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(opts, "forced_open"));
        const cJSON *jtools = cJSON_GetObjectItemCaseSensitive(opts, "tools");
        std::vector<common_chat_tool> tools;
        for (const cJSON *t = jtools ? jtools->child : NULL; t; t = t->next) {
            const cJSON *ps = cJSON_GetObjectItemCaseSensitive(t, "parameters");
            tools.push_back({json_str(t, "name"), json_str(t, "description"),
                             ps ? json_text(ps) : "{\"type\": \"object\", \"properties\": {}}"});
        }
        std::string key = (jtools ? json_text(jtools) : "") + (fo ? "1" : "0");
        auto it = sides.find(key);
        if (it == sides.end()) {
            /* thinking on first (llama-server's default); off if only that
             * gives the fixture's prompt */
            common_chat_params cp = llama_apply(tmpls.get(), tools, true);
            bool matched = prompt_opens_reasoning(cp) == fo, thinking = true;
            if (!matched) {
                common_chat_params off = llama_apply(tmpls.get(), tools, false);
                if (prompt_opens_reasoning(off) == fo)
                    cp = off, matched = true, thinking = false;
            }
            std::string align;
            if (!matched)
                align = fo ? (cp.thinking_start_tag.empty() ? "<think>" : cp.thinking_start_tag) :
                             (cp.thinking_end_tags.empty() ? "</think>" : cp.thinking_end_tags[0]);
            it = sides.emplace(key, side{llama_side_of(cp), matched, thinking, align}).first;
            seen[std::string(common_chat_format_name(cp.format)) + ", generation prompt with thinking " +
                 (thinking ? "on " : "off ") + cell(cp.generation_prompt, 200)] = true;
        }
        llama_side &ll = it->second.l;
        bool matched = it->second.matched, thinking = it->second.thinking;
        unmatched_prompt += !matched;

        /* one whole parse: the message, or why the parser threw */
        auto parse = [&](const std::string &text, common_chat_msg *m, std::string *why) {
            try {
                *m = common_chat_parse(text, false, ll.params);
            } catch (const std::exception &e) {
                *why = e.what();
            }
        };
        auto reading = [&](const common_chat_msg &m, const std::string &why,
                           const std::vector<fx_call> &calls) {
            return !why.empty() ? "throws " + cell(why, 80) :
                                  "calls: " +
                                      (calls.empty() ? std::string("none") : cell(calls_text(calls))) +
                                      "; content " + cell(m.content, 60) + "; reasoning " +
                                      cell(m.reasoning_content, 60);
        };
        std::string input = relayout(json_str(fx, "input"), layout), why, lgiven;
        common_chat_msg m;
        std::vector<fx_call> lcalls, tcalls;
        parse(input, &m, &why);
        if (!matched) {
            /* as given, then aligned to the parser's prompt (the one compared) */
            for (const auto &c : m.tool_calls)
                lcalls.push_back({c.name, c.arguments, json_read(c.arguments)});
            lgiven = "as given: " + reading(m, why, lcalls) + "; with " + cell(it->second.align) +
                     " put first: ";
            for (auto &c : lcalls)
                cJSON_Delete(c.args);
            lcalls.clear();
            m = common_chat_msg();
            why.clear();
            parse(it->second.align + input, &m, &why);
        }
        for (const auto &c : m.tool_calls)
            lcalls.push_back({c.name, c.arguments, json_read(c.arguments)});
        const cJSON *ex = cJSON_GetObjectItemCaseSensitive(fx, "expect");
        const cJSON *tc = cJSON_GetObjectItemCaseSensitive(ex, "tool_calls");
        for (const cJSON *c = tc ? tc->child : NULL; c; c = c->next) {
            const cJSON *a = cJSON_GetObjectItemCaseSensitive(c, "arguments");
            tcalls.push_back({json_str(c, "name"), json_text(a), a ? cJSON_Duplicate(a, 1) : NULL});
        }
        std::string tcontent = json_str(ex, "content"), tthinking = json_str(ex, "thinking"), codes;
        for (const char *k : {"errors", "warnings"}) {
            const cJSON *dl = cJSON_GetObjectItemCaseSensitive(ex, k);
            for (const cJSON *dg = dl ? dl->child : NULL; dg; dg = dg->next)
                codes += (codes.empty() ? "" : ", ") + json_str(dg, "code");
        }
        std::string differ;
        if (!why.empty()) {
            thrown++;
            differ = "llama.cpp throws";
        } else {
            if (!calls_same(lcalls, tcalls))
                differ += "calls";
            if (m.content != tcontent)
                differ += std::string(differ.empty() ? "" : ", ") + "content";
            if (m.reasoning_content != tthinking)
                differ += std::string(differ.empty() ? "" : ", ") + "reasoning";
        }
        same += differ.empty();
        std::string name = f.substr(0, f.size() - 5);
        std::string lside = lgiven + reading(m, why, lcalls);
        std::string tside = "calls: " + (tcalls.empty() ? std::string("none") : cell(calls_text(tcalls))) +
                            "; content " + cell(tcontent, 60) + "; thinking " + cell(tthinking, 60) +
                            (codes.empty() ? "" : "; " + codes);
        table += "| " + name + (fo ? " (forced_open)" : "") + (matched ? "" : " ¹") + " | " +
                 (thinking ? "" : "(thinking off) ") + lside + " | " + tside + " | " + (differ.empty() ? "yes" : "**" + differ + "**") +
                 " |\n";
        nlohmann::ordered_json r;
        r["fixture"] = name;
        r["description"] = json_str(fx, "description");
        r["forced_open"] = fo;
        r["llama_prompt_as_fixture"] = matched;
        r["llama_thinking"] = thinking;
        r["llama_as_given"] = lgiven;
        r["llama_aligned_with"] = it->second.align;
        r["llama_error"] = why;
        r["llama_calls"] = calls_json(lcalls);
        r["llama_content"] = m.content;
        r["llama_reasoning"] = m.reasoning_content;
        r["toolwire_calls"] = calls_json(tcalls);
        r["toolwire_content"] = tcontent;
        r["toolwire_thinking"] = tthinking;
        r["toolwire_diagnostics"] = codes;
        r["differ"] = differ;
        rows.push_back(r);
        printf("%-44s %s\n", name.c_str(), differ.empty() ? "same" : differ.c_str());
        for (auto &c : lcalls)
            cJSON_Delete(c.args);
        for (auto &c : tcalls)
            cJSON_Delete(c.args);
        cJSON_Delete(fx);
    }

    char date[32], stamp[64];
    utc_now(date, stamp);
    nlohmann::ordered_json rep;
    rep["date"] = stamp;
    rep["llama_cpp"] = source;
    rep["command"] = command;
    rep["template"] = tmpl_path;
    rep["fixtures"] = dir;
    rep["toolwire_decoder"] = format;
    rep["same"] = same;
    rep["llama_throws"] = thrown;
    rep["rows"] = rows;
    std::string md =
        "# llama.cpp's chat parser on toolwire's " + format + " decode fixtures " + stamp +
        "\n\nCommand: `" + command + "`.\n\nllama.cpp: " + source + ". Template: `" + tmpl_path +
        "`. Fixtures: `" + dir + "`. Each fixture's input parsed once, whole (is_partial false), by "
        "llama.cpp's parser built from the template rendered for the fixture's tools (as "
        "llama-server renders a request: parallel calls, reasoning_format deepseek, thinking on, or "
        "off where only that makes the generation prompt open the reasoning as the fixture's "
        "`forced_open` says), beside the result the fixture expects of toolwire's decoder (the "
        "decode tests assert it; its diagnostics' codes last). Arguments are compared as JSON "
        "values; content and reasoning byte for byte." +
        (layout.empty() ? std::string() : " Inputs rewritten to the " + layout + " layout.") +
        "\n\nllama.cpp's chat format: ";
    for (const auto &kv : seen)
        md += (&kv == &*seen.begin() ? "" : "; ") + kv.first;
    md += ".\n\n" +
        std::to_string(rows.size()) + " fixtures: the same reading in " + std::to_string(same) +
        ", llama.cpp's parser throws on " + std::to_string(thrown) + ".";
    if (unmatched_prompt)
        md += " ¹: no rendering of the template opens (or leaves closed) the reasoning as the "
              "fixture says (" + std::to_string(unmatched_prompt) + " fixtures): llama.cpp's "
              "parser is the one of thinking on, its reading of the input as given is followed by "
              "its reading of the input after the tag that makes the two agree (the reasoning's "
              "close when the prompt opens it, its opener when the fixture's prompt does), the "
              "one compared.";
    md += "\n\n| fixture | llama.cpp | toolwire | same |\n| --- | --- | --- | --- |\n" + table;
    std::string base = out + "/" + date + "-llama-" + format + (tag.empty() ? "" : "-" + tag) +
                       "-fixtures";
    write_report(out, base, rep.dump(2, ' ', false, nlohmann::json::error_handler_t::replace), md);
    printf("%zu fixtures, the same reading in %zu, llama.cpp throws on %zu\nwrote %s.json\nwrote %s.md\n",
           rows.size(), same, thrown, base.c_str(), base.c_str());
    return 0;
}

int main(int argc, char **argv)
{
    std::string dir, tmpl_path, out = "reports/bench", source = "", command = "", format = "hermes",
                fixtures, tag, layout;
    bool forced_open = false;
    int rounds = 3;
    double budget = 2.0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v && strcmp(a, "--inputs") == 0)
            dir = v, i++;
        else if (v && strcmp(a, "--template") == 0)
            tmpl_path = v, i++;
        else if (v && strcmp(a, "--out") == 0)
            out = v, i++;
        else if (v && strcmp(a, "--source") == 0)
            source = v, i++;
        else if (v && strcmp(a, "--command") == 0)
            command = v, i++;
        else if (v && strcmp(a, "--rounds") == 0 && atoi(v) >= 1 && atoi(v) <= 15)
            rounds = atoi(v), i++;
        else if (v && strcmp(a, "--budget") == 0 && atof(v) > 0 && atof(v) <= 3600)
            budget = atof(v), i++;
        else if (v && strcmp(a, "--format") == 0)
            format = v, i++;
        else if (strcmp(a, "--forced-open") == 0)
            forced_open = true;
        else if (v && strcmp(a, "--fixtures") == 0)
            fixtures = v, i++;
        else if (v && strcmp(a, "--layout") == 0 &&
                 (strcmp(v, "glm-4.7") == 0 || strcmp(v, "minimax-m2") == 0))
            layout = v, i++;
        else if (v && strcmp(a, "--tag") == 0 && strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789.-") == strlen(v))
            tag = v, i++;
        else
            fail("usage: llama_chat_bench --inputs DIR --template FILE [--rounds 1..15] "
                "[--budget SECONDS] [--out DIR] [--source TEXT] [--command TEXT] [--format NAME] "
                "[--forced-open] [--tag TAG] [--layout glm-4.7|minimax-m2]\n       llama_chat_bench --fixtures DIR --template FILE "
                "[--format NAME] [--tag TAG] [--out DIR] [--source TEXT] [--command TEXT]");
    }
    if (!fixtures.empty() && !tmpl_path.empty())
        return run_fixtures(fixtures, tmpl_path, format, tag, layout, out, source, command);
    if (dir.empty() || tmpl_path.empty())
        fail("--inputs (or --fixtures) and --template are required");

    std::vector<input> ins;
    std::istringstream list(slurp(dir + "/inputs.tsv"));
    for (std::string line; std::getline(list, line);) {
        size_t a = line.find('\t'), b = line.find('\t', a + 1);
        if (a == std::string::npos || b == std::string::npos)
            fail("%s/inputs.tsv: a line without FILE, BYTES and NAME", dir.c_str());
        ins.push_back({line.substr(0, a), line.substr(b + 1),
                       relayout(slurp(dir + "/" + line.substr(0, a)), layout)});
    }

    llama_side ll = llama_setup(slurp(tmpl_path));
    tw_side tw;
    tw.f = tw_format_find(format.c_str());
    memset(&tw.o, 0, sizeof tw.o);
    tw.o.forced_open = forced_open;
    tw.o.limits.max_input_bytes = 64u << 20;
    tw.o.limits.max_args_bytes = 64u << 20;
    tw.o.limits.max_diags = 1u << 20;
    if (!tw.f || !(tw.state = tw.f->new_dec(&tw.o, NULL, NULL)))
        fail("no decoder %s", format.c_str());

    char date[32], stamp[64];
    utc_now(date, stamp);

    nlohmann::ordered_json rep, rows = nlohmann::ordered_json::array();
    rep["date"] = stamp;
    std::string load = slurp("/proc/loadavg");
    load = load.substr(0, load.find(' '));
    rep["llama_cpp"] = source;
    rep["command"] = command;
    rep["cpus"] = sysconf(_SC_NPROCESSORS_ONLN);
    rep["load_average"] = load;
    rep["template"] = tmpl_path;
    rep["toolwire_decoder"] = format;
    rep["forced_open"] = forced_open;
    rep["layout"] = layout;
    rep["rounds"] = rounds;
    rep["budget_seconds"] = budget;
    std::string md = "# llama.cpp's chat parser beside toolwire (" + format + ") " + stamp +
                     "\n\nCommand: `" + command + "`. " +
                     std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " CPUs, load average " +
                     load + " at the start.\n\nllama.cpp: " + source + ". Template: `" + tmpl_path +
                     "`." + (layout.empty() ? "" : " Inputs rewritten to the " + layout + " layout.") +
                     " CPU time of the thread, medians of " + std::to_string(rounds) +
                     " interleaved rounds. batch: one parse of the whole text; stream/N: the "
                     "accumulated text re-parsed as partial after each N-byte piece, then a full "
                     "parse (llama.cpp), the pieces fed to one reset decoder (toolwire). A "
                     "streamed row whose llama.cpp decode would pass " +
                     std::to_string(budget).substr(0, 4) +
                     " s runs on a shorter cut of the input (its bytes column). The machine is "
                     "shared with other work (the load average): read the ratios, both sides timed "
                     "in turn inside each round, not the rates; the rounds' ratios column gives "
                     "the lowest and highest of the rounds' own ratios.\n\n"
                     "| input | bytes | mode | llama.cpp MB/s | toolwire MB/s | llama.cpp time / "
                     "toolwire time | the rounds' ratios | calls llama.cpp | calls toolwire |\n"
                     "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
    std::string checks = "\n## Calls decoded (count, first names), content and reasoning bytes\n\n"
                         "| input | bytes | mode | llama.cpp | toolwire | same |\n"
                         "| --- | --- | --- | --- | --- | --- |\n";
    std::string cuts;
    printf("%-28s %8s %-11s %10s %10s %9s %6s %6s\n", "input", "bytes", "mode", "llama MB/s",
           "tw MB/s", "llama/tw", "calls", "calls");

    static const size_t chunks[] = {0, 4096, 16, 4};
    std::string refused;
    for (const input &in : ins) {
        std::string why = llama_refusal(&ll, in.bytes);
        if (!why.empty()) {
            printf("%-28s %8zu llama.cpp's parser refuses it: %.100s\n", in.name.c_str(),
                   in.bytes.size(), why.c_str());
            refused += "- " + in.name + " (" + std::to_string(in.bytes.size()) +
                       " bytes): llama.cpp's parser throws \"" + why.substr(0, 200) + "\"\n";
            continue;
        }
        double t0 = now();
        llama_decode(&ll, in.bytes, 0);
        double tb = std::max(now() - t0, 1e-7);
        for (size_t chunk : chunks) {
            std::string bytes = in.bytes;
            /* about (len / chunk) / 2 whole-text parses */
            double est = chunk ? tb * ((double)bytes.size() / (double)chunk / 2 + 1) : tb;
            if (chunk && est > budget) {
                bytes = cut(in.bytes, (size_t)((double)bytes.size() * std::sqrt(budget / est)),
                            *marks_of(format));
                char note[256];
                snprintf(note, sizeof note,
                         "- %s, %s: cut to %zu of %zu bytes; on the whole input one llama.cpp "
                         "decode would take about %.0f s (its batch time times the parses)\n",
                         in.name.c_str(), chunk ? ("stream/" + std::to_string(chunk)).c_str() : "batch",
                         bytes.size(), in.bytes.size(), est);
                cuts += note;
            }
            std::vector<double> lt, tt2;
            for (int r = 0; r < rounds; r++) {
                lt.push_back(time_op([&] { llama_decode(&ll, bytes, chunk); }, 0.01));
                tt2.push_back(time_op([&] { tw_decode(&tw, bytes, chunk); }, 0.01));
            }
            double ml = median(lt), mt = median(tt2);
            std::vector<double> ratios; /* each round's, for the spread */
            for (int r = 0; r < rounds; r++)
                ratios.push_back(lt[(size_t)r] / tt2[(size_t)r]);
            double rlo = *std::min_element(ratios.begin(), ratios.end()),
                   rhi = *std::max_element(ratios.begin(), ratios.end());
            double lmb = (double)bytes.size() / ml / 1e6, tmb = (double)bytes.size() / mt / 1e6;
            std::string mode = chunk ? "stream/" + std::to_string(chunk) : "batch";
            bool same = ll.last.names == tw.last.names;
            printf("%-28s %8zu %-11s %10s %10s %9.1f %6zu %6zu%s\n", in.name.c_str(),
                   bytes.size(), mode.c_str(), rate(lmb).c_str(), rate(tmb).c_str(), ml / mt,
                   ll.last.names.size(), tw.last.names.size(), same ? "" : "  calls differ");
            char row[512];
            snprintf(row, sizeof row, "| %s | %zu | %s | %s | %s | %.1f | %.1f–%.1f | %zu | %zu |\n",
                     in.name.c_str(), bytes.size(), mode.c_str(), rate(lmb).c_str(),
                     rate(tmb).c_str(), ml / mt, rlo, rhi, ll.last.names.size(),
                     tw.last.names.size());
            md += row;
            checks += "| " + in.name + " | " + std::to_string(bytes.size()) + " | " + mode + " | " +
                      names(ll.last) + "; content " + std::to_string(ll.last.content) +
                      ", reasoning " + std::to_string(ll.last.reasoning) + " | " +
                      names(tw.last) + "; content " + std::to_string(tw.last.content) +
                      ", reasoning " + std::to_string(tw.last.reasoning) + " | " +
                      (same ? "yes" : "**no**") + " |\n";
            nlohmann::ordered_json j;
            j["input"] = in.name;
            j["bytes"] = bytes.size();
            j["input_bytes"] = in.bytes.size();
            j["llama_whole_input_estimate_seconds"] = est;
            j["mode"] = mode;
            j["llama_seconds"] = ml;
            j["toolwire_seconds"] = mt;
            j["llama_mb_per_s"] = lmb;
            j["toolwire_mb_per_s"] = tmb;
            j["llama_over_toolwire"] = ml / mt;
            j["llama_over_toolwire_rounds"] = ratios;
            j["llama_calls"] = ll.last.names;
            j["toolwire_calls"] = tw.last.names;
            j["llama_content_bytes"] = ll.last.content;
            j["toolwire_content_bytes"] = tw.last.content;
            j["llama_reasoning_bytes"] = ll.last.reasoning;
            j["toolwire_reasoning_bytes"] = tw.last.reasoning;
            j["same_calls"] = same;
            rows.push_back(j);
            fflush(stdout);
        }
    }
    tw.f->free_dec(tw.state);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    rep["rows"] = rows;
    rep["peak_rss_kib"] = ru.ru_maxrss;
    std::string load_end = slurp("/proc/loadavg");
    load_end = load_end.substr(0, load_end.find(' '));
    rep["load_average_end"] = load_end;
    md += "\nLoad average " + load_end + " at the end.\n";
    if (!cuts.empty())
        md += "\nCut inputs:\n\n" + cuts;
    if (!refused.empty())
        md += "\nInputs llama.cpp's parser refuses (toolwire's decoder reads them; not "
              "measured):\n\n" +
              refused;
    md += checks;

    std::string base = out + "/" + date + "-llama" + (format == "hermes" ? "" : "-" + format) +
                       (tag.empty() ? "" : "-" + tag);
    write_report(out, base, rep.dump(2), md);
    printf("wrote %s.json\nwrote %s.md\n", base.c_str(), base.c_str());
    return 0;
}
