/* Client conformance: drivers, the client checks CLT-*, the run (clients.h). */
#include "clients.h"
#include "redact.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mock.h"
#include "report.h"
#include "run.h"
#include "toolwire/json.h"

/* ---- running a driver ---- */

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

void tw_proc_result_free(tw_proc_result *r)
{
    free(r->out);
    free(r->err);
    memset(r, 0, sizeof *r);
}

tw_status tw_proc_run(const char *cmd, const char *arg, const char *input, size_t inlen,
                      long timeout_ms, size_t max_out, size_t max_err, tw_proc_result *r)
{
    memset(r, 0, sizeof *r);
    r->exit_code = -1;
    int pin[2] = {-1, -1}, pout[2] = {-1, -1}, perr[2] = {-1, -1};
    if (pipe(pin) || pipe(pout) || pipe(perr)) {
        close_fd(&pin[0]), close_fd(&pin[1]), close_fd(&pout[0]), close_fd(&pout[1]);
        close_fd(&perr[0]), close_fd(&perr[1]);
        return TW_ERR_IO;
    }
    char script[4200];
    snprintf(script, sizeof script, "exec %s \"$@\"", cmd);
    pid_t pid = fork();
    if (pid < 0) {
        close_fd(&pin[0]), close_fd(&pin[1]), close_fd(&pout[0]), close_fd(&pout[1]);
        close_fd(&perr[0]), close_fd(&perr[1]);
        return TW_ERR_IO;
    }
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGPIPE, SIG_DFL);
        dup2(pin[0], 0);
        dup2(pout[1], 1);
        dup2(perr[1], 2);
        close(pin[0]), close(pin[1]), close(pout[0]), close(pout[1]), close(perr[0]), close(perr[1]);
        execl("/bin/sh", "sh", "-c", script, "sh", arg, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid); /* both sides: no race with the kill below */
    /* a driver that exits before reading all of its input must not kill this process */
    struct sigaction ign, old_pipe;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, &old_pipe);
    close_fd(&pin[0]), close_fd(&pout[1]), close_fd(&perr[1]);
    fcntl(pin[1], F_SETFL, O_NONBLOCK);
    if (inlen == 0)
        close_fd(&pin[1]);
    tw_buf out = {0}, err = {0};
    size_t sent = 0;
    long deadline = now_ms() + timeout_ms;
    bool killed = false;
    while (pout[0] >= 0 || perr[0] >= 0) {
        struct pollfd p[3];
        int np = 0, io = -1, ie = -1, ii = -1;
        if (pout[0] >= 0)
            io = np, p[np++] = (struct pollfd){pout[0], POLLIN, 0};
        if (perr[0] >= 0)
            ie = np, p[np++] = (struct pollfd){perr[0], POLLIN, 0};
        if (pin[1] >= 0)
            ii = np, p[np++] = (struct pollfd){pin[1], POLLOUT, 0};
        long left = deadline - now_ms();
        if (left <= 0) {
            r->timed_out = true;
            break;
        }
        int rc = poll(p, (nfds_t)np, (int)(left > 1000 ? 1000 : left));
        if (rc < 0 && errno != EINTR)
            break;
        if (rc <= 0)
            continue;
        char buf[8192];
        if (ii >= 0 && p[ii].revents) {
            ssize_t w = write(pin[1], input + sent, inlen - sent);
            if (w > 0)
                sent += (size_t)w;
            if (w < 0 && errno != EAGAIN && errno != EINTR)
                close_fd(&pin[1]);
            else if (sent == inlen)
                close_fd(&pin[1]);
        }
        if (io >= 0 && p[io].revents) {
            ssize_t n = read(pout[0], buf, sizeof buf);
            if (n > 0) {
                if (out.len + (size_t)n > max_out) {
                    r->overflow = true;
                    break;
                }
                tw_buf_append(&out, buf, (size_t)n);
            } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                close_fd(&pout[0]);
            }
        }
        if (ie >= 0 && p[ie].revents) {
            ssize_t n = read(perr[0], buf, sizeof buf);
            if (n > 0) {
                size_t keep = err.len < max_err ? max_err - err.len : 0;
                if ((size_t)n > keep)
                    r->err_cut = true;
                tw_buf_append(&err, buf, (size_t)n < keep ? (size_t)n : keep);
            } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                close_fd(&perr[0]);
            }
        }
    }
    if (r->timed_out || r->overflow) {
        kill(-pid, SIGKILL);
        killed = true;
    }
    close_fd(&pin[1]), close_fd(&pout[0]), close_fd(&perr[0]);
    int status = 0;
    /* stdout closed: the driver is about done; past the deadline it is killed */
    for (;;) {
        pid_t w = waitpid(pid, &status, killed ? 0 : WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR))
            break;
        if (w == 0 && now_ms() >= deadline) {
            r->timed_out = true;
            kill(-pid, SIGKILL);
            killed = true;
        } else if (w == 0) {
            struct timespec ts = {0, 10 * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    sigaction(SIGPIPE, &old_pipe, NULL);
    if (!killed && WIFEXITED(status))
        r->exit_code = WEXITSTATUS(status);
    tw_buf_putc(&out, 0);
    tw_buf_putc(&err, 0);
    r->out = out.data;
    r->out_len = out.len ? out.len - 1 : 0;
    r->err = err.data;
    r->err_len = err.len ? err.len - 1 : 0;
    if (!r->out || !r->err) {
        tw_proc_result_free(r);
        return TW_ERR_NOMEM;
    }
    return TW_OK;
}

/* ---- the protocol ---- */

static bool copy_str(const cJSON *o, const char *key, char *dst, size_t n, bool need)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        return !need;
    if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) >= n)
        return false;
    snprintf(dst, n, "%s", v->valuestring);
    return true;
}

bool tw_driver_mode_streams(const char *mode)
{
    for (const char *p = mode; *p; p++)
        if (strncasecmp(p, "stream", 6) == 0)
            return true;
    return false;
}

static bool mode_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > TW_DRIVER_MODE_LEN)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '-'))
            return false;
    return true;
}

bool tw_driver_describe_parse(const char *text, size_t len, tw_driver_info *out, tw_error *err)
{
    memset(out, 0, sizeof *out);
    cJSON *j = NULL;
    if (tw_json_parse(text, len, 16, &j, NULL) != TW_OK || !cJSON_IsObject(j)) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "--describe did not print one JSON object");
        cJSON_Delete(j);
        return false;
    }
    bool ok = false;
    const cJSON *pr = cJSON_GetObjectItemCaseSensitive(j, "protocol");
    const cJSON *modes = cJSON_GetObjectItemCaseSensitive(j, "modes");
    if (!cJSON_IsNumber(pr) || pr->valuedouble != TW_DRIVER_PROTOCOL)
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "--describe: \"protocol\" is not %d", TW_DRIVER_PROTOCOL);
    else if (!copy_str(j, "client", out->client, sizeof out->client, true) ||
             !copy_str(j, "version", out->version, sizeof out->version, true))
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "--describe: \"client\" and \"version\" must be strings of 1..63 bytes");
    else if (!copy_str(j, "endpoint", out->endpoint, sizeof out->endpoint, true) ||
             (strcmp(out->endpoint, "openai") != 0 && strcmp(out->endpoint, "anthropic") != 0))
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "--describe: \"endpoint\" must be \"openai\" or \"anthropic\"");
    else if (!cJSON_IsArray(modes) || cJSON_GetArraySize(modes) < 1 ||
             cJSON_GetArraySize(modes) > TW_DRIVER_MAX_MODES)
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "--describe: \"modes\" must list 1..%d modes", TW_DRIVER_MAX_MODES);
    else {
        ok = true;
        for (const cJSON *m = modes->child; ok && m; m = m->next) {
            if (!cJSON_IsString(m) || !mode_name_ok(m->valuestring)) {
                tw_error_set(err, TW_ERR_INVALID, -1, NULL, "--describe: a mode must match [A-Za-z0-9_-]{1,%d}", TW_DRIVER_MODE_LEN);
                ok = false;
                break;
            }
            for (size_t k = 0; k < out->nmodes; k++)
                if (strcmp(out->modes[k], m->valuestring) == 0) {
                    tw_error_set(err, TW_ERR_INVALID, -1, NULL, "--describe: mode '%s' listed twice", m->valuestring);
                    ok = false;
                }
            snprintf(out->modes[out->nmodes++], TW_DRIVER_MODE_LEN + 1, "%s", m->valuestring);
        }
    }
    cJSON_Delete(j);
    return ok;
}

static bool str_or_null(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return !v || cJSON_IsNull(v) || cJSON_IsString(v);
}

bool tw_driver_output_valid(const cJSON *out, tw_error *err)
{
    if (!cJSON_IsObject(out)) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "the output is not a JSON object");
        return false;
    }
    static const char *const strs[] = {"content", "reasoning", "finish_reason", NULL};
    for (size_t i = 0; strs[i]; i++)
        if (!str_or_null(out, strs[i])) {
            tw_error_set(err, TW_ERR_INVALID, -1, NULL, "\"%s\" is neither a string nor null", strs[i]);
            return false;
        }
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(out, "tool_calls");
    if (tc && !cJSON_IsNull(tc) && !cJSON_IsArray(tc)) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "\"tool_calls\" is not an array");
        return false;
    }
    size_t i = 0;
    for (const cJSON *c = tc ? tc->child : NULL; c; c = c->next, i++)
        if (!cJSON_IsObject(c) || !str_or_null(c, "id") || !str_or_null(c, "name")) {
            tw_error_set(err, TW_ERR_INVALID, -1, NULL, "tool_calls[%zu] is not {\"id\", \"name\", \"arguments\"}", i);
            return false;
        }
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(out, "error");
    if (e && !cJSON_IsNull(e) && !cJSON_IsObject(e)) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "\"error\" is neither an object nor null");
        return false;
    }
    return true;
}

/* ---- the checks ---- */

static const char *jstr(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const cJSON *raised(const cJSON *out)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(out, "error");
    return cJSON_IsObject(e) ? e : NULL;
}

/* An excerpt of s, JSON-quoted, at most about 120 bytes. */
/* s between quotes, JSON-escaped. */
static void quoted(tw_buf *b, const char *s)
{
    tw_buf_putc(b, '"');
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            tw_buf_printf(b, "\\%c", c);
        else if (c < 0x20)
            tw_buf_printf(b, "\\u%04x", c);
        else
            tw_buf_putc(b, (char)c);
    }
    tw_buf_putc(b, '"');
}

/* A quoted excerpt of s: its first 120 bytes or so, scrubbed first and cut
 * after (tw_secret_clip). */
static void excerpt(tw_buf *b, const char *s)
{
    if (!s) {
        tw_buf_printf(b, "null");
        return;
    }
    size_t n = strlen(s);
    char *c = tw_secret_clip(s, 120);
    quoted(b, c ? c : TW_REDACTED);
    free(c);
    if (n > 120)
        tw_buf_printf(b, " (%zu bytes)", n);
}

static void json_excerpt(tw_buf *b, const cJSON *v)
{
    if (!v) {
        tw_buf_printf(b, "(none)");
        return;
    }
    if (cJSON_IsString(v)) {
        excerpt(b, v->valuestring);
        return;
    }
    char *p = cJSON_PrintUnformatted(v);
    char *c = p ? tw_secret_clip(p, 117) : NULL;
    tw_buf_printf(b, "%s", c ? c : p ? TW_REDACTED : "?");
    free(c);
    free(p);
}

static void calls_summary(tw_buf *b, const cJSON *calls)
{
    int n = cJSON_GetArraySize(calls);
    tw_buf_printf(b, "%d call%s", n, n == 1 ? "" : "s");
    int i = 0;
    for (const cJSON *c = calls ? calls->child : NULL; c && i < 8; c = c->next, i++) {
        tw_buf_printf(b, "%s%s %s(", i ? ", " : ": ", jstr(c, "id") ? jstr(c, "id") : "(no id)",
                      jstr(c, "name") ? jstr(c, "name") : "(no name)");
        json_excerpt(b, cJSON_GetObjectItemCaseSensitive(c, "arguments"));
        tw_buf_putc(b, ')');
    }
    if (n > 8)
        tw_buf_printf(b, ", …");
}

void tw_driver_output_summary(const cJSON *out, tw_buf *b)
{
    const cJSON *e = raised(out);
    if (e) {
        tw_buf_printf(b, "raised %s", jstr(e, "type") ? jstr(e, "type") : "an error");
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(e, "status");
        if (cJSON_IsNumber(st))
            tw_buf_printf(b, " (HTTP %d)", st->valueint);
        tw_buf_printf(b, ": ");
        excerpt(b, jstr(e, "message") ? jstr(e, "message") : "");
        return;
    }
    tw_buf_printf(b, "returned ");
    calls_summary(b, cJSON_GetObjectItemCaseSensitive(out, "tool_calls"));
    tw_buf_printf(b, "; content ");
    excerpt(b, jstr(out, "content") ? jstr(out, "content") : "");
    tw_buf_printf(b, "; finish ");
    excerpt(b, jstr(out, "finish_reason"));
}

/* Arguments as a value: a string holding JSON is read; other strings stay strings. */
static cJSON *args_value(const cJSON *a)
{
    if (cJSON_IsString(a)) {
        cJSON *p = NULL;
        const char *s = a->valuestring;
        if (tw_json_parse(s, strlen(s), 64, &p, NULL) == TW_OK && (cJSON_IsObject(p) || cJSON_IsArray(p)))
            return p;
        cJSON_Delete(p);
    }
    return a ? cJSON_Duplicate(a, true) : cJSON_CreateNull();
}

static void put_buf(tw_check_set *s, tw_check_id id, tw_verdict v, tw_buf *b)
{
    tw_check_set_put(s, id, v, -1, "%s", b->data ? b->data : "");
    tw_buf_reset(b);
}

/* CLT-01 on a returned (not raised) output. */
static void judge_calls(const cJSON *want, const cJSON *got, tw_check_set *set)
{
    tw_buf b = {0};
    const cJSON *wc = cJSON_GetObjectItemCaseSensitive(want, "tool_calls");
    const cJSON *gc = cJSON_GetObjectItemCaseSensitive(got, "tool_calls");
    int nw = cJSON_GetArraySize(wc), ng = cJSON_GetArraySize(gc);
    const char *bad = NULL;
    int at = -1;
    const cJSON *w = wc ? wc->child : NULL, *g = gc ? gc->child : NULL;
    for (int i = 0; !bad && w && g; i++, w = w->next, g = g->next) {
        at = i;
        const char *wi = jstr(w, "id"), *gi = jstr(g, "id");
        if (wi && (!gi || strcmp(wi, gi) != 0))
            bad = "id";
        else if (strcmp(jstr(w, "name") ? jstr(w, "name") : "", jstr(g, "name") ? jstr(g, "name") : "") != 0)
            bad = "name";
        else {
            cJSON *wa = args_value(cJSON_GetObjectItemCaseSensitive(w, "arguments"));
            cJSON *ga = args_value(cJSON_GetObjectItemCaseSensitive(g, "arguments"));
            if (!wa || !ga || !tw_json_equal(wa, ga))
                bad = "arguments";
            cJSON_Delete(wa);
            cJSON_Delete(ga);
        }
    }
    if (!bad && nw != ng)
        bad = "count";
    if (!bad) {
        tw_buf_printf(&b, "every call as sent: ");
        calls_summary(&b, gc);
        put_buf(set, TW_CHK_CLT_01, TW_V_PASS, &b);
    } else {
        if (strcmp(bad, "count") == 0)
            tw_buf_printf(&b, "%d calls handed on, %d sent; ", ng, nw);
        else
            tw_buf_printf(&b, "call %d: wrong %s; ", at, bad);
        tw_buf_printf(&b, "client ");
        calls_summary(&b, gc);
        tw_buf_printf(&b, "; right ");
        calls_summary(&b, wc);
        put_buf(set, TW_CHK_CLT_01, TW_V_FAIL, &b);
    }
    tw_buf_free(&b);
}

static void judge_text(tw_check_id id, const char *what, const char *want, const char *got, bool skip_empty,
                       tw_check_set *set)
{
    tw_buf b = {0};
    if (skip_empty && (!want || !*want)) {
        tw_check_set_put(set, id, TW_V_SKIP, -1, "the server sent no %s", what);
        return;
    }
    bool ok = strcmp(want ? want : "", got ? got : "") == 0;
    tw_buf_printf(&b, ok ? "%s as sent: " : "%s changed: client ", what);
    excerpt(&b, got ? got : "");
    if (!ok) {
        tw_buf_printf(&b, "; right ");
        excerpt(&b, want ? want : "");
    }
    put_buf(set, id, ok ? TW_V_PASS : TW_V_FAIL, &b);
    tw_buf_free(&b);
}

static bool has_stream_fault(const cJSON *f)
{
    return f && (cJSON_GetObjectItemCaseSensitive(f, "drop_after_events") ||
                 cJSON_GetObjectItemCaseSensitive(f, "truncate_sse_after_bytes") ||
                 cJSON_GetObjectItemCaseSensitive(f, "malformed_chunk_at"));
}

/* Does the request hand tool results back? */
static bool has_tool_results(const cJSON *body)
{
    const cJSON *msgs = cJSON_GetObjectItemCaseSensitive(body, "messages");
    for (const cJSON *m = msgs ? msgs->child : NULL; m; m = m->next) {
        const char *role = jstr(m, "role");
        if (role && strcmp(role, "tool") == 0)
            return true;
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "content");
        for (const cJSON *bl = cJSON_IsArray(c) ? c->child : NULL; bl; bl = bl->next)
            if (jstr(bl, "type") && strcmp(jstr(bl, "type"), "tool_result") == 0)
                return true;
    }
    return false;
}

static void judge_from_records(const tw_fx_exchange *x, const tw_mock_record *recs, size_t nrec,
                               tw_check_set *set)
{
    /* CLT-06: the mock's CLI-07 verdict on the retry */
    const cJSON *fsj = x->faults ? cJSON_GetObjectItemCaseSensitive(x->faults, "status") : NULL;
    long fs = cJSON_IsNumber(fsj) ? (long)fsj->valuedouble : 0;
    bool asked = x->faults && cJSON_GetObjectItemCaseSensitive(x->faults, "retry_after") && (fs == 429 || fs == 503);
    const tw_check_result *cli07 = NULL;
    for (size_t i = 0; i < nrec; i++) {
        const tw_check_result *r = tw_check_set_get(&recs[i].checks, TW_CHK_CLI_07);
        if (r && r->verdict != TW_V_SKIP && (!cli07 || r->verdict == TW_V_FAIL))
            cli07 = r;
    }
    if (!asked)
        tw_check_set_put(set, TW_CHK_CLT_06, TW_V_SKIP, -1, "no 429/503 with Retry-After in this scenario");
    else if (!cli07)
        tw_check_set_put(set, TW_CHK_CLT_06, TW_V_SKIP, -1, "the client did not retry (%zu request%s)", nrec,
                         nrec == 1 ? "" : "s");
    else
        tw_check_set_put(set, TW_CHK_CLT_06, cli07->verdict, -1, "HTTP %ld, Retry-After honoured? mock CLI-07: %s", fs,
                         cli07->evidence);
    /* CLT-07: the mock's CLI-01/02 verdicts on the requests that carried the results */
    if (!has_tool_results(x->req.body)) {
        tw_check_set_put(set, TW_CHK_CLT_07, TW_V_SKIP, -1, "the request hands no tool results back");
        return;
    }
    const tw_check_result *bad = NULL;
    size_t judged = 0;
    for (size_t i = 0; i < nrec && !bad; i++)
        for (tw_check_id id = TW_CHK_CLI_01; id <= TW_CHK_CLI_02; id++) {
            const tw_check_result *r = tw_check_set_get(&recs[i].checks, id);
            if (r && r->verdict == TW_V_FAIL) {
                bad = r;
                break;
            }
            judged += r && r->verdict == TW_V_PASS;
        }
    if (bad)
        tw_check_set_put(set, TW_CHK_CLT_07, TW_V_FAIL, -1, "mock %s: %s", bad->id, bad->evidence);
    else if (judged)
        tw_check_set_put(set, TW_CHK_CLT_07, TW_V_PASS, -1, "every tool result names its call (mock CLI-01/02, %zu request%s)",
                         nrec, nrec == 1 ? "" : "s");
    else
        tw_check_set_put(set, TW_CHK_CLT_07, TW_V_SKIP, -1, "no request of the client reached the mock");
}

void tw_clients_judge(const tw_fx_exchange *x, const cJSON *out, const tw_mock_record *recs,
                      size_t nrec, tw_check_set *set)
{
    const cJSON *ec = x->expect_client;
    const cJSON *want = cJSON_GetObjectItemCaseSensitive(ec, "result");
    const cJSON *err = raised(out);
    tw_buf what = {0}, b = {0};
    tw_driver_output_summary(out, &what);
    if (!what.data)
        tw_buf_printf(&what, "%s", err ? "raised" : "returned");
    if (!what.data) {
        for (tw_check_id k = TW_CHK_CLT_01; k <= TW_CHK_CLT_07; k++)
            tw_check_set_put(set, k, TW_V_SKIP, -1, "out of memory");
        return;
    }
    if (!want) {
        /* an error raised to the caller is the right answer */
        tw_check_id id = has_stream_fault(x->faults) || !x->resp.stream ? TW_CHK_CLT_04 : TW_CHK_CLT_05;
        tw_check_id other = id == TW_CHK_CLT_04 ? TW_CHK_CLT_05 : TW_CHK_CLT_04;
        /* the driver's own watchdog (error type DriverTimeout) is no raise: the
         * library neither returned nor raised, it hung */
        const char *et = err ? jstr(err, "type") : NULL;
        bool hung = et && strcmp(et, "DriverTimeout") == 0;
        if (hung)
            err = NULL;
        tw_buf_printf(&b, "client %s; right: raise", what.data);
        if (hung)
            tw_buf_puts(&b, " (the library hung: neither an answer nor an error came back)");
        else if (!err)
            tw_buf_printf(&b, x->resp.stream ? " (the stream %s)" : " (%s)",
                          has_stream_fault(x->faults) ? "was cut or damaged" : x->resp.stream ? "carried an error event"
                                                                                             : "the answer is broken");
        put_buf(set, id, err ? TW_V_PASS : TW_V_FAIL, &b);
        tw_check_set_put(set, other, TW_V_SKIP, -1, "not this fault");
        for (tw_check_id k = TW_CHK_CLT_01; k <= TW_CHK_CLT_03; k++)
            tw_check_set_put(set, k, TW_V_SKIP, -1, "an error is the right answer");
    } else {
        tw_check_set_put(set, TW_CHK_CLT_04, TW_V_SKIP, -1, "the answer is whole");
        tw_check_set_put(set, TW_CHK_CLT_05, TW_V_SKIP, -1, "no error event");
        bool may = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ec, "may_raise"));
        const char *wt = jstr(want, "thinking");
        if (err && may) {
            for (tw_check_id k = TW_CHK_CLT_01; k <= TW_CHK_CLT_03; k++)
                tw_check_set_put(set, k, TW_V_SKIP, -1, "client %s (raising is right here too)", what.data);
        } else if (err) {
            tw_buf_printf(&b, "client %s; right: ", what.data);
            calls_summary(&b, cJSON_GetObjectItemCaseSensitive(want, "tool_calls"));
            put_buf(set, TW_CHK_CLT_01, TW_V_FAIL, &b);
            tw_check_set_put(set, TW_CHK_CLT_02, TW_V_FAIL, -1, "client %s; nothing handed on", what.data);
            if (wt && *wt)
                tw_check_set_put(set, TW_CHK_CLT_03, TW_V_FAIL, -1, "client %s; the reasoning was lost", what.data);
            else
                tw_check_set_put(set, TW_CHK_CLT_03, TW_V_SKIP, -1, "the server sent no reasoning");
        } else {
            judge_calls(want, out, set);
            judge_text(TW_CHK_CLT_02, "content", jstr(want, "content"), jstr(out, "content"), false, set);
            judge_text(TW_CHK_CLT_03, "reasoning", wt, jstr(out, "reasoning"), true, set);
        }
    }
    judge_from_records(x, recs, nrec, set);
    tw_check_set_sort(set);
    tw_buf_free(&what);
    tw_buf_free(&b);
}

/* ---- the run ---- */

/* Which modes fit the exchange: a recorded stream only the streaming modes, a
 * recorded whole answer only the others, an error status or no recording all. */
static bool mode_fits(const tw_fx_exchange *x, const char *mode)
{
    if (!x->has_response || x->resp.status >= 400)
        return true;
    return tw_driver_mode_streams(mode) == x->resp.stream;
}

static const char *client_endpoint(const tw_fixture *f)
{
    return f->backend && strcmp(f->backend, "anthropic") == 0 ? "anthropic" : "openai";
}

/* The --run input for one exchange. */
static char *run_input(const tw_fixture *f, size_t k, const char *mode, const char *url, long client_timeout)
{
    char scen[256];
    snprintf(scen, sizeof scen, "%s#%zu", f->name, k);
    cJSON *in = cJSON_CreateObject();
    cJSON_AddNumberToObject(in, "protocol", TW_DRIVER_PROTOCOL);
    cJSON_AddStringToObject(in, "base_url", url);
    cJSON_AddStringToObject(in, "mode", mode);
    cJSON_AddStringToObject(in, "scenario", scen);
    cJSON_AddItemToObject(in, "request", f->exchanges[k].req.body ? cJSON_Duplicate(f->exchanges[k].req.body, true)
                                                                   : cJSON_CreateObject());
    cJSON *h = cJSON_AddObjectToObject(in, "headers");
    cJSON_AddStringToObject(h, TW_MOCK_EXCHANGE_HEADER, scen);
    cJSON_AddNumberToObject(in, "timeout_ms", (double)client_timeout);
    char *s = cJSON_PrintUnformatted(in);
    cJSON_Delete(in);
    return s;
}

/* The end of the driver's log, for the evidence: its last
 * TW_CLIENTS_LOG_TAIL bytes at most, scrubbed whole first and cut after
 * (tw_secret_tail), so a key the cut would split is not kept in part. */
static void log_tail(tw_buf *b, const tw_proc_result *pr)
{
    if (!pr->err_len)
        return;
    char *t = tw_secret_tail(pr->err, pr->err_len, TW_CLIENTS_LOG_TAIL);
    tw_buf_printf(b, "; driver log%s: ", pr->err_cut || pr->err_len > TW_CLIENTS_LOG_TAIL ? " (end)" : "");
    quoted(b, t ? t : TW_REDACTED);
    free(t);
}

typedef struct run_ctx {
    const tw_client_spec *c;
    const tw_driver_info *info;
    const tw_clients_opts *o;
    tw_limits L;
} run_ctx;

/* Run one exchange in one mode into the report row e. */
/* One exchange through the driver into e; TW_ERR_NOMEM when a verdict could not be recorded. */
static tw_status run_one(const run_ctx *cx, const tw_fixture *f, size_t k, const char *mode, tw_rep_exchange *e)
{
    const tw_fx_exchange *x = &f->exchanges[k];
    e->index = k;
    e->method = tw_strdup(x->req.method);
    e->path = tw_strdup(x->req.path);
    e->stream = tw_driver_mode_streams(mode);
    tw_buf det = {0};
    tw_mock_opts mo;
    memset(&mo, 0, sizeof mo);
    mo.profile = "auto";
    mo.limits = cx->L;
    mo.threads = 2;
    tw_mock *m = NULL;
    tw_error why = {.offset = -1};
    if (tw_mock_start(f, 1, &mo, &m, &why) != TW_OK) {
        e->result = TW_V_FAIL;
        tw_buf_printf(&det, "mock backend did not start: %s", why.message);
        e->result_detail = det.data;
        return TW_OK;
    }
    char *in = run_input(f, k, mode, tw_mock_url(m), cx->o->client_timeout_ms);
    tw_proc_result pr;
    long t0 = now_ms();
    tw_status st = in ? tw_proc_run(cx->c->cmd, "--run", in, strlen(in), cx->o->timeout_ms, cx->o->max_out,
                                    cx->o->max_err, &pr)
                      : TW_ERR_NOMEM;
    e->elapsed_ms = now_ms() - t0;
    free(in);
    tw_mock_record *recs = NULL;
    size_t nrec = 0;
    tw_mock_records(m, 0, &recs, &nrec);
    tw_mock_stop(m);
    e->attempts = (int)nrec;
    e->status = nrec ? recs[nrec - 1].status : 0;
    cJSON *out = NULL;
    char bad[300] = "";
    if (st != TW_OK)
        snprintf(bad, sizeof bad, "the driver could not be started");
    else if (pr.timed_out)
        snprintf(bad, sizeof bad, "the driver ran past %ld ms and was killed", cx->o->timeout_ms);
    else if (pr.overflow)
        snprintf(bad, sizeof bad, "the driver printed more than %zu bytes and was killed", cx->o->max_out);
    else if (pr.exit_code != 0)
        snprintf(bad, sizeof bad, "the driver exited with status %d", pr.exit_code);
    else if (tw_json_parse(pr.out, pr.out_len, cx->L.max_depth, &out, NULL) != TW_OK)
        snprintf(bad, sizeof bad, "the driver did not print one JSON object");
    else if (!tw_driver_output_valid(out, &why)) {
        char *wm = tw_secret_clip(why.message, 200);
        snprintf(bad, sizeof bad, "the driver broke the protocol: %s", wm ? wm : TW_REDACTED);
        free(wm);
    }
    tw_check_set set = {0};
    if (bad[0]) {
        /* no verdict: the driver failed */
        e->result = TW_V_FAIL;
        tw_buf_printf(&det, "driver failure: %s", bad);
        for (tw_check_id c = TW_CHK_CLT_01; c <= TW_CHK_CLT_07; c++)
            tw_check_set_put(&set, c, TW_V_SKIP, -1, "driver failure");
    } else {
        e->result = TW_V_SKIP;
        tw_buf_printf(&det, "%s: client ", mode);
        tw_driver_output_summary(out, &det);
        const cJSON *rq = cJSON_GetObjectItemCaseSensitive(out, "requests");
        if (cJSON_IsNumber(rq))
            tw_buf_printf(&det, "; %d HTTP request%s", rq->valueint, rq->valueint == 1 ? "" : "s");
        tw_clients_judge(x, out, recs, nrec, &set);
    }
    if (st == TW_OK)
        log_tail(&det, &pr);
    tw_status rec = TW_OK;
    for (size_t i = 0; i < set.len && rec == TW_OK; i++) {
        const tw_check_def *d = tw_check_def_of(set.items[i].check);
        if (!tw_report_add_check(e, set.items[i].id, set.items[i].verdict,
                                 d && d->sev == TW_SEV_INFO ? TW_EXPECT_ANY : TW_EXPECT_NOT_FAIL, -1,
                                 set.items[i].evidence))
            rec = TW_ERR_NOMEM;
    }
    e->result_detail = det.data;
    tw_check_set_free(&set);
    cJSON_Delete(out);
    tw_mock_records_free(recs, nrec);
    if (st == TW_OK)
        tw_proc_result_free(&pr);
    return rec;
}

/* Ask the driver what it is. */
static bool describe(const tw_client_spec *c, const tw_clients_opts *o, tw_driver_info *info, tw_error *err)
{
    tw_proc_result pr;
    if (tw_proc_run(c->cmd, "--describe", "", 0, o->timeout_ms, o->max_out, o->max_err, &pr) != TW_OK) {
        tw_error_set(err, TW_ERR_IO, -1, NULL, "cannot start '%s'", c->cmd);
        return false;
    }
    bool ok = false;
    if (pr.timed_out)
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "'%s --describe' ran past %ld ms", c->cmd, o->timeout_ms);
    else if (pr.exit_code != 0) {
        char *t = tw_secret_clip(pr.err, 300);
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "'%s --describe' exited with status %d: %s", c->cmd, pr.exit_code,
                     t ? t : TW_REDACTED);
        free(t);
    }
    else
        ok = tw_driver_describe_parse(pr.out, pr.out_len, info, err);
    tw_proc_result_free(&pr);
    return ok;
}

static tw_status run_client(const tw_fixture_set *fs, const run_ctx *cx, tw_report *rep)
{
    char target[1024];
    snprintf(target, sizeof target, "%.63s %.63s (%.15s) via %.600s", cx->info->client, cx->info->version, cx->info->endpoint,
             cx->c->cmd);
    tw_report_init(rep, cx->c->name, target);
    for (size_t fi = 0; fi < fs->n; fi++) {
        const tw_fixture *f = &fs->fx[fi];
        if (strcmp(client_endpoint(f), cx->info->endpoint) != 0)
            continue;
        for (size_t mi = 0; mi < cx->info->nmodes; mi++) {
            const char *mode = cx->info->modes[mi];
            bool streams = tw_driver_mode_streams(mode);
            /* rows line up across clients: one "stream" and one "whole" mode by name, others by theirs */
            bool first = true;
            for (size_t k = 0; k < mi; k++)
                if (tw_driver_mode_streams(cx->info->modes[k]) == streams)
                    first = false;
            char name[400];
            if (first)
                snprintf(name, sizeof name, "%.300s [%s]", f->name, streams ? "stream" : "whole");
            else
                snprintf(name, sizeof name, "%.300s [%s]", f->name, mode);
            tw_rep_fixture *rf = NULL;
            for (size_t k = 0; k < f->nexchanges; k++) {
                const tw_fx_exchange *x = &f->exchanges[k];
                if (!x->expect_client || !mode_fits(x, mode))
                    continue;
                if (!rf && !(rf = tw_report_add_fixture(rep, name, f->path, cx->c->name)))
                    return TW_ERR_NOMEM;
                tw_rep_exchange *e = tw_report_add_exchange(rf);
                if (!e)
                    return TW_ERR_NOMEM;
                if (run_one(cx, f, k, mode, e) != TW_OK)
                    return TW_ERR_NOMEM;
                if (!cx->o->quiet && cx->o->out && e->result == TW_V_FAIL)
                    fprintf(cx->o->out, "client %s: %s#%zu %s: %s\n", cx->c->name, f->name, k, mode,
                            e->result_detail ? e->result_detail : "");
            }
        }
    }
    tw_report_summarise(rep);
    return TW_OK;
}

int tw_clients_run_all(const tw_client_spec *c, size_t nc, char *const *paths, size_t npaths,
                       const char *outdir, const tw_clients_opts *oin)
{
    tw_clients_opts o = *oin;
    if (o.timeout_ms <= 0)
        o.timeout_ms = 60000;
    if (o.client_timeout_ms <= 0)
        o.client_timeout_ms = 20000;
    if (!o.max_out)
        o.max_out = (size_t)1 << 20;
    if (!o.max_err)
        o.max_err = (size_t)64 << 10;
    run_ctx cx = {.o = &o};
    tw_limits_resolve(&cx.L, &o.limits);
    tw_fixture_set fs;
    tw_error why = {.offset = -1};
    /* two reports in one file, or one in the comparison page's: refused
     * before any driver runs */
    if (!tw_report_names_ok(nc ? &c[0].name : NULL, nc, sizeof *c, "client", outdir, &why)) {
        fprintf(stderr, "toolwire clients: %s\n", why.message);
        return 2;
    }
    if (!tw_fixture_set_load(&fs, paths, npaths, &cx.L, &why)) {
        fprintf(stderr, "toolwire clients: %s\n", why.message);
        tw_fixture_set_free(&fs);
        return 2;
    }
    for (size_t i = 0; i < fs.nbad; i++)
        fprintf(stderr, "toolwire clients: %s: %s\n", fs.bad_files[i], fs.bad_why[i]);
    const char *tags[TW_FIXTURE_MAX_TAGS + 1] = {"clients"};
    tw_fixture_selection sel = o.sel;
    for (size_t i = 0; i < o.sel.ntags && i < TW_FIXTURE_MAX_TAGS; i++)
        tags[i + 1] = o.sel.tags[i];
    sel.tags = tags;
    sel.ntags = o.sel.ntags < TW_FIXTURE_MAX_TAGS ? o.sel.ntags + 1 : TW_FIXTURE_MAX_TAGS + 1;
    if (!tw_fixture_set_select(&fs, &sel) || fs.nbad) {
        if (!fs.nbad) {
            tw_buf d = {0};
            tw_selection_describe(&o.sel, &d);
            fprintf(stderr, "toolwire clients: no scenario (fixture tagged clients) is selected%s%s\n",
                    d.data ? " by" : "", d.data ? d.data : "");
            tw_buf_free(&d);
        }
        tw_fixture_set_free(&fs);
        return 2;
    }
    tw_report *reps = calloc(nc ? nc : 1, sizeof *reps);
    if (!reps) {
        tw_fixture_set_free(&fs);
        return 1;
    }
    int rc = 0;
    size_t done = 0;
    for (size_t i = 0; i < nc; i++) {
        tw_driver_info info;
        if (!describe(&c[i], &o, &info, &why)) {
            fprintf(stderr, "toolwire clients: client %s: %s\n", c[i].name, why.message);
            rc = 1;
            continue;
        }
        cx.c = &c[i];
        cx.info = &info;
        tw_report *r = &reps[done];
        if (run_client(&fs, &cx, r) != TW_OK) {
            fprintf(stderr, "toolwire clients: client %s: out of memory\n", c[i].name);
            tw_report_free(r);
            rc = 1;
            continue;
        }
        done++;
        if (tw_report_write_all(r, outdir, &why) != TW_OK) {
            fprintf(stderr, "toolwire clients: %s\n", why.message);
            rc = 1;
        }
        if (!r->ok)
            rc = rc ? rc : 1;
        if (r->n_fixtures == 0) {
            fprintf(stderr, "toolwire clients: client %s (endpoint %s): no scenario of its endpoint is selected; "
                            "nothing was judged\n", r->backend, info.endpoint);
            rc = 1;
        }
        /* driver failures are listed, --quiet or not (at most 50 a client) */
        size_t nfail = 0;
        for (size_t f = 0; f < r->nfx; f++)
            for (size_t k = 0; k < r->fx[f].nex; k++) {
                const char *d = r->fx[f].ex[k].result_detail;
                if (!d || strncmp(d, "driver failure: ", 16) != 0 || nfail++ >= 50)
                    continue;
                char *dc = tw_secret_clip(d, 1200);
                fprintf(stderr, "toolwire clients: client %s: %s#%zu: %s\n", r->backend, r->fx[f].name,
                        r->fx[f].ex[k].index, dc ? dc : TW_REDACTED);
                free(dc);
            }
        if (nfail > 50)
            fprintf(stderr, "toolwire clients: client %s: %zu driver failures in all\n", r->backend, nfail);
        if (o.out && !o.quiet) {
            char base[TW_REPORT_BASE_MAX];
            tw_report_file_base(r->backend, base, sizeof base);
            fprintf(o.out, "client %s (%s): %s, %zu scenario rows, %zu exchanges, %zu pass, %zu fail, %zu skip -> %s/%s.json\n",
                    r->backend, r->target, r->ok ? "ok" : "FAIL", r->n_fixtures, r->n_exchanges, r->n_pass, r->n_fail,
                    r->n_skip, outdir, base);
        }
    }
    if (done && tw_write_comparison(reps, done, outdir, &why) != TW_OK) {
        fprintf(stderr, "toolwire clients: %s\n", why.message);
        rc = 1;
    }
    for (size_t i = 0; i < done; i++)
        tw_report_free(&reps[i]);
    free(reps);
    tw_fixture_set_free(&fs);
    return rc;
}
