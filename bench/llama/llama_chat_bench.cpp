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
 * (--source: what llama.cpp's source is, --command: the command that ran
 * this, both for the report; --forced-open: toolwire decodes with
 * forced_open, the template having opened the reasoning in the prompt)
 */
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "chat.h"
#include "toolwire/decode.h"

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

static llama_side llama_setup(const std::string &tmpl_src)
{
    static const char schema[] =
        "{\"type\": \"object\", \"properties\": {\"path\": {\"type\": \"string\"}, "
        "\"mode\": {\"type\": \"integer\"}, \"ratio\": {\"type\": \"number\"}, \"lines\": "
        "{\"type\": \"array\", \"items\": {\"type\": \"integer\"}}, \"text\": {\"type\": "
        "\"string\"}}, \"required\": [\"path\"]}";
    auto tmpls = common_chat_templates_init(nullptr, tmpl_src);
    common_chat_templates_inputs in;
    common_chat_msg user;
    user.role = "user";
    user.content = "Read src/file_1.c and write src/file_2.c.";
    in.messages.push_back(user);
    in.tools.push_back({"read_file", "Read a file.", schema});
    in.tools.push_back({"write_file", "Write a file.", schema});
    in.parallel_tool_calls = true;
    in.enable_thinking = true;
    in.reasoning_format = COMMON_REASONING_FORMAT_DEEPSEEK; /* llama-server's default */
    common_chat_params cp = common_chat_templates_apply(tmpls.get(), in);
    llama_side l;
    l.params = common_chat_parser_params(cp);
    l.params.reasoning_format = COMMON_REASONING_FORMAT_DEEPSEEK;
    if (!cp.parser.empty())
        l.params.parser.load(cp.parser);
    printf("llama.cpp chat format %s, generation prompt %zu bytes, parser %zu bytes\n",
           common_chat_format_name(cp.format), cp.generation_prompt.size(), cp.parser.size());
    return l;
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

/* The input cut to about `cap` bytes: up to the end of its last call block
 * within cap (or of its first); with no call, its head up to a line end,
 * then its tail from
 * the first line start in its last 256 bytes (a <think> block keeps its
 * close tag and what follows). */
static std::string cut(const std::string &in, size_t cap)
{
    if (in.size() <= cap || in.size() < 1024)
        return in;
    size_t call = in.rfind("</tool_call>\n", cap);
    if (call == std::string::npos)
        call = in.find("</tool_call>\n"); /* at least the first call, whole */
    if (call != std::string::npos)
        return in.substr(0, call + strlen("</tool_call>\n"));
    size_t tail = in.find('\n', in.size() - 256);
    size_t head = in.rfind('\n', cap > 512 ? cap - 256 : 256);
    if (tail == std::string::npos || head == std::string::npos || head >= tail)
        return in;
    return in.substr(0, head + 1) + in.substr(tail + 1);
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

int main(int argc, char **argv)
{
    std::string dir, tmpl_path, out = "reports/bench", source = "", command = "", format = "hermes";
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
        else
            fail("usage: llama_chat_bench --inputs DIR --template FILE [--rounds 1..15] "
                "[--budget SECONDS] [--out DIR] [--source TEXT] [--command TEXT] [--format NAME] "
                "[--forced-open]");
    }
    if (dir.empty() || tmpl_path.empty())
        fail("--inputs and --template are required");

    std::vector<input> ins;
    std::istringstream list(slurp(dir + "/inputs.tsv"));
    for (std::string line; std::getline(list, line);) {
        size_t a = line.find('\t'), b = line.find('\t', a + 1);
        if (a == std::string::npos || b == std::string::npos)
            fail("%s/inputs.tsv: a line without FILE, BYTES and NAME", dir.c_str());
        ins.push_back({line.substr(0, a), line.substr(b + 1), slurp(dir + "/" + line.substr(0, a))});
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

    time_t tt = time(NULL);
    struct tm tm;
    gmtime_r(&tt, &tm);
    char date[32], stamp[64];
    strftime(date, sizeof date, "%Y-%m-%d", &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);

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
    rep["rounds"] = rounds;
    rep["budget_seconds"] = budget;
    std::string md = "# llama.cpp's chat parser beside toolwire (" + format + ") " + stamp +
                     "\n\nCommand: `" + command + "`. " +
                     std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " CPUs, load average " +
                     load + " at the start.\n\nllama.cpp: " + source + ". Template: `" + tmpl_path +
                     "`. CPU time of the thread, medians of " + std::to_string(rounds) +
                     " interleaved rounds. batch: one parse of the whole text; stream/N: the "
                     "accumulated text re-parsed as partial after each N-byte piece, then a full "
                     "parse (llama.cpp), the pieces fed to one reset decoder (toolwire). A "
                     "streamed row whose llama.cpp decode would pass " +
                     std::to_string(budget).substr(0, 4) +
                     " s runs on a shorter cut of the input (its bytes column).\n\n"
                     "| input | bytes | mode | llama.cpp MB/s | toolwire MB/s | llama.cpp time / "
                     "toolwire time | calls llama.cpp | calls toolwire |\n"
                     "| --- | --- | --- | --- | --- | --- | --- | --- |\n";
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
                bytes = cut(in.bytes, (size_t)((double)bytes.size() * std::sqrt(budget / est)));
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
            double lmb = (double)bytes.size() / ml / 1e6, tmb = (double)bytes.size() / mt / 1e6;
            std::string mode = chunk ? "stream/" + std::to_string(chunk) : "batch";
            bool same = ll.last.names == tw.last.names;
            printf("%-28s %8zu %-11s %10s %10s %9.1f %6zu %6zu%s\n", in.name.c_str(),
                   bytes.size(), mode.c_str(), rate(lmb).c_str(), rate(tmb).c_str(), ml / mt,
                   ll.last.names.size(), tw.last.names.size(), same ? "" : "  calls differ");
            char row[512];
            snprintf(row, sizeof row, "| %s | %zu | %s | %s | %s | %.1f | %zu | %zu |\n",
                     in.name.c_str(), bytes.size(), mode.c_str(), rate(lmb).c_str(),
                     rate(tmb).c_str(), ml / mt, ll.last.names.size(), tw.last.names.size());
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
    if (!cuts.empty())
        md += "\nCut inputs:\n\n" + cuts;
    if (!refused.empty())
        md += "\nInputs llama.cpp's parser refuses (toolwire's decoder reads them; not "
              "measured):\n\n" +
              refused;
    md += checks;

    mkdir(out.c_str(), 0755);
    std::string base = out + "/" + date + "-llama" + (format == "hermes" ? "" : "-" + format);
    std::ofstream jf(base + ".json"), mf(base + ".md");
    jf << rep.dump(2) << "\n";
    mf << md;
    jf.close();
    mf.close();
    if (jf.fail() || mf.fail())
        fail("cannot write %s.json or .md: %s", base.c_str(), strerror(errno));
    printf("wrote %s.json\nwrote %s.md\n", base.c_str(), base.c_str());
    return 0;
}
