/* toolwire record: capture live exchanges as fixtures, secrets redacted. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "client.h"
#include "fixture_write.h"
#include "out.h"
#include "redact.h"
#include "report.h"
#include "run.h"
#include "url.h"
#include "toolwire/sse.h"

typedef struct ev_sink {
    cJSON *arr;
    size_t n, max;
} ev_sink;

static tw_status on_event(void *user, const tw_sse_event *ev)
{
    ev_sink *s = user;
    if (s->n >= s->max)
        return TW_ERR_LIMIT;
    cJSON *e = cJSON_CreateObject();
    if (!e)
        return TW_ERR_NOMEM;
    if (ev->type_len && !(ev->type_len == 7 && memcmp(ev->type, "message", 7) == 0)) {
        char *t = tw_strndup(ev->type, ev->type_len);
        cJSON_AddStringToObject(e, "event", t ? t : "");
        free(t);
    }
    char *d = tw_strndup(ev->data, ev->data_len);
    cJSON_AddStringToObject(e, "data", d ? d : "");
    free(d);
    cJSON_AddItemToArray(s->arr, e);
    s->n++;
    return TW_OK;
}

/* A secret split across the events of a streamed tool call: redacted in
 * the assembled arguments, fragment by fragment. */
static tw_status redact_stream_events(tw_redactor *red, const tw_limits *L, cJSON *events)
{
    size_t n = (size_t)cJSON_GetArraySize(events);
    if (!n)
        return TW_OK;
    const char **data = malloc(n * sizeof *data);
    size_t *len = malloc(n * sizeof *len);
    char **out = calloc(n, sizeof *out);
    cJSON **node = malloc(n * sizeof *node);
    tw_status st = data && len && out && node ? TW_OK : TW_ERR_NOMEM;
    size_t i = 0;
    for (cJSON *e = events->child; st == TW_OK && e && i < n; e = e->next, i++) {
        node[i] = cJSON_GetObjectItemCaseSensitive(e, "data");
        data[i] = cJSON_IsString(node[i]) && node[i]->valuestring ? node[i]->valuestring : "";
        len[i] = strlen(data[i]);
    }
    if (st == TW_OK)
        st = tw_redact_stream(red, data, len, n, L->max_depth, out);
    for (i = 0; st != TW_OK && node && i < n; i++) {
        /* not redacted as a whole: nothing of the events is kept */
        char *r = tw_strdup(TW_REDACTED);
        if (r && cJSON_IsString(node[i])) {
            cJSON_free(node[i]->valuestring);
            node[i]->valuestring = r;
        } else {
            free(r);
        }
    }
    for (i = 0; out && i < n; i++) {
        if (st == TW_OK && out[i]) {
            cJSON_free(node[i]->valuestring);
            node[i]->valuestring = out[i];
            out[i] = NULL;
        }
        free(out[i]);
    }
    free(data);
    free(len);
    free(out);
    free(node);
    return st;
}

/* The live response as a fixture "response" object, redacted. */
static cJSON *response_json(const tw_http_response *r, tw_redactor *red, const tw_limits *L,
                            tw_status *st)
{
    *st = TW_OK;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "status", r->status);
    cJSON *h = cJSON_AddObjectToObject(o, "headers");
    bool sse = false;
    /* every secret of the response first, then scrub */
    for (size_t i = 0; i < r->nheaders; i++)
        tw_redact_discover_header(red, r->headers[i].name, r->headers[i].value);
    tw_redact_discover_body(red, r->body.data, r->body.len, L->max_depth);
    for (size_t i = 0; i < r->nheaders; i++) {
        const char *n = r->headers[i].name;
        if (tw_redact_header_dropped(red, n))
            continue;
        if (strcmp(n, "content-type") != 0 && strncmp(n, "x-ratelimit", 11) != 0 &&
            strcmp(n, "retry-after") != 0)
            continue; /* keep what the checks read; drop request ids, cookies, dates */
        char *v = tw_redact_str(red, r->headers[i].value);
        if (!tw_json_get(h, n))
            cJSON_AddStringToObject(h, n, v ? v : "");
        if (strcmp(n, "content-type") == 0 && v && strncmp(v, "text/event-stream", 17) == 0)
            sse = true;
        free(v);
    }
    if (sse) {
        /* the text the events carry in pieces is scrubbed joined, before
         * each event is scrubbed on its own (which would take a secret's
         * first part out of its piece and leave the rest unknown) */
        ev_sink s = {cJSON_AddArrayToObject(o, "events"), 0, 100000};
        tw_sse ps;
        memset(&ps, 0, sizeof ps);
        tw_sse_init(&ps, L, true, on_event, NULL, &s);
        tw_sse_feed(&ps, r->body.data ? r->body.data : "", r->body.len);
        tw_sse_finish(&ps);
        tw_sse_release(&ps);
        /* past a cap (4096 channels) nothing of the events is kept, and the
         * exchange is not written as if it were the answer */
        *st = redact_stream_events(red, L, s.arr);
        for (cJSON *e = s.arr ? s.arr->child : NULL; e; e = e->next)
            for (cJSON *f = e->child; f; f = f->next) {
                if (!cJSON_IsString(f) || !f->valuestring)
                    continue;
                char *c = tw_redact_str(red, f->valuestring);
                if (!c)
                    c = tw_strdup(TW_REDACTED); /* not scrubbed: nothing of it is kept */
                cJSON_free(f->valuestring);
                f->valuestring = c;
            }
        return o;
    }
    tw_buf scrubbed = {0};
    tw_redact_text(red, r->body.data ? r->body.data : "", r->body.len, &scrubbed);
    const char *b = scrubbed.data ? scrubbed.data : "";
    {
        cJSON *j = NULL;
        if (scrubbed.len && tw_json_parse(b, scrubbed.len, L->max_depth, &j, NULL) == TW_OK) {
            tw_redact_json(red, j, L->max_depth);
            cJSON_AddItemToObject(o, "body", j);
        } else {
            cJSON_AddStringToObject(o, "body_text", b);
        }
    }
    tw_buf_free(&scrubbed);
    return o;
}

int tw_cmd_record(int argc, char **argv)
{
    static const struct option longopts[] = {{"backend", required_argument, NULL, 'b'},
                                             {"key-env", required_argument, NULL, 'k'},
                                             {"redact-header", required_argument, NULL, 'H'},
                                             {"redact-field", required_argument, NULL, 'F'},
                                             {"out", required_argument, NULL, 'o'},
                                             {"timeout", required_argument, NULL, 't'},
                                             {"keep-errors", no_argument, NULL, 'E'},
                                             {"help", no_argument, NULL, 'h'},
                                             TW_SEL_LONGOPTS,
                                             {NULL, 0, NULL, 0}};
    tw_selection_opts so;
    tw_selection_opts_init(&so);
    bool bad_sel = false;
    tw_error swhy = {.offset = -1};
    const char *url = NULL, *bname = NULL, *key_env = NULL, *outdir = NULL;
    char name_store[128] = "";
    long timeout = 0;
    bool keep_errors = false;
    tw_redactor red;
    memset(&red, 0, sizeof red);
    red.publish = true; /* every secret found is scrubbed from every output too */
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "b:k:o:h", longopts, NULL)) != -1) {
        if (tw_selection_option(&so, c, optarg, &bad_sel, &swhy)) {
            if (bad_sel) {
                tw_redactor_free(&red);
                return tw_cli_usage_error("record", "%s", swhy.message);
            }
            continue;
        }
        switch (c) {
        case 'b': {
            /* NAME=URL as run takes it, or the bare URL; one server a recording */
            if (url) {
                tw_redactor_free(&red);
                return tw_cli_usage_error("record",
                                          "--backend is given once: record captures one server "
                                          "(run record once for each)");
            }
            url = optarg;
            const char *eq = strchr(optarg, '=');
            const char *scheme = strstr(optarg, "://");
            if (eq && (!scheme || eq < scheme)) {
                url = eq + 1;
                if (eq == optarg || (size_t)(eq - optarg) >= sizeof name_store) {
                    tw_redactor_free(&red);
                    return tw_cli_usage_error("record",
                                              "--backend wants NAME=URL or URL, NAME of 1 to %zu "
                                              "bytes",
                                              sizeof name_store - 1);
                }
                memcpy(name_store, optarg, (size_t)(eq - optarg));
                name_store[eq - optarg] = 0;
                bname = name_store;
            }
            /* its credentials are secrets before anything is written */
            if (tw_url_learn_secrets(url) != TW_OK) {
                tw_redactor_free(&red);
                return tw_cli_usage_error("record", "out of memory");
            }
            break;
        }
        case 'k': key_env = optarg; break;
        case 'o': outdir = optarg; break;
        case 't':
            if (!tw_cli_parse_long(optarg, 1, 86400000, &timeout)) {
                tw_redactor_free(&red);
                return tw_cli_usage_error(
                    "record", "bad --timeout '%s' (milliseconds, 1 to 86400000)", optarg);
            }
            break;
        case 'E': keep_errors = true; break;
        case 'H':
        case 'F':
            if (!*optarg || (c == 'H' ? tw_redactor_add_name(&red, optarg)
                                      : tw_redactor_add_field(&red, optarg)) != TW_OK) {
                tw_redactor_free(&red);
                return tw_cli_usage_error("record", "%s needs a name",
                                          c == 'H' ? "--redact-header" : "--redact-field");
            }
            break;
        case 'h':
            puts("usage: toolwire record --backend [NAME=]URL [--key-env NAME] --out DIR [options] "
                 "FIXTURES…\n\n"
                 "Replay the requests of the fixtures against a live server and write new\n"
                 "fixtures (one per input, same file name, under DIR) holding the live\n"
                 "responses. Credentials are never written: the key is read from $NAME at\n"
                 "request time; credential headers (authorization, cookie, any name containing\n"
                 "token, secret, password, session, auth, key, …) are dropped; JSON fields and\n"
                 "query parameters named like credentials become [REDACTED]; and every value\n"
                 "found in them, the key and bearer tokens are scrubbed wherever they appear\n"
                 "(headers, URLs, bodies, stream events; JSON-escaped, percent-encoded or as\n"
                 "HTML/XML character references too); a credential split across the argument\n"
                 "fragments of a streamed tool call is found and removed from every fragment.\n"
                 "The base URL may carry a query (kept after each request's path) and\n"
                 "credentials (user:pass@, key=…): they are sent, never written. --backend\n"
                 "takes NAME=URL as run does (NAME names the server in messages) or the URL.\n"
                 "The recorded fixtures carry no expectations: review them and add\n"
                 "expect.failing_checks before committing.\n\n"
                 "  --redact-header NAME   drop this header too and scrub its value (repeatable)\n"
                 "  --redact-field NAME    redact JSON fields and query parameters of this name\n"
                 "                         too and scrub their values (repeatable)\n"
                 "  --timeout MS           one request, whole transfer\n"
                 "  --keep-errors          write the fixture of an error response too\n" TW_SEL_HELP
                 "\n"
                 "An error status (400 or above, after 2 retries of a 429, a 5xx or a connection\n"
                 "error) where the input fixture\n"
                 "expects a success is said on standard error and that fixture is not written,\n"
                 "unless --keep-errors is given (then it is written and the exit status is 0).\n"
                 "Exit status: 0 when every exchange got an HTTP response that was kept;\n"
                 "1 when some did not (no response from a server that answered others, an\n"
                 "error status without --keep-errors, a response that would not make a valid\n"
                 "fixture); 2 when nothing could be recorded or read: bad usage, a selection\n"
                 "(--tag/--exclude-tag/--filter) that keeps no fixture, a fixture\n"
                 "that cannot be loaded, a server with which no exchange got a response\n"
                 "(\"nobody answered at URL\", said once), a fixture that cannot be written.");
            tw_redactor_free(&red);
            return TW_EXIT_OK;
        default:
            tw_redactor_free(&red);
            return tw_cli_option_error("record", longopts, argv[optind - 1]);
        }
    }
    const char *bad = NULL;
    tw_error uwhy = {.offset = -1};
    if (!url || (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0))
        bad = "--backend wants the server's base URL, as NAME=URL or URL (see --help)";
    else if (!tw_url_base_ok(url, "--backend", &uwhy))
        bad = uwhy.message;
    else if (!outdir)
        bad = "--out DIR is required";
    else if (optind >= argc)
        bad = "give fixtures to record (see --help)";
    if (bad) {
        tw_redactor_free(&red);
        return tw_cli_usage_error("record", "%s", bad);
    }
    if (key_env && (!getenv(key_env) || !*getenv(key_env))) {
        tw_redactor_free(&red);
        return tw_cli_usage_error("record", "environment variable %s is not set or empty", key_env);
    }
    if (key_env)
        tw_redactor_add_value(&red, getenv(key_env)); /* echoed back, it is scrubbed too */
    if (!tw_mkdirs(outdir)) {
        tw_redactor_free(&red);
        return tw_cli_usage_error("record", "cannot create '%s'", outdir);
    }
    size_t stale = tw_clean_stale_temps(outdir);
    if (stale)
        fprintf(stderr, "toolwire record: removed %zu stale temporary file(s) in %s\n", stale,
                outdir);
    tw_limits L;
    tw_limits_default(&L);
    tw_fixture_set fs;
    tw_error why = {.offset = -1};
    if (!tw_fixture_set_load(&fs, argv + optind, (size_t)(argc - optind), &L, &why)) {
        tw_fixture_set_free(&fs);
        tw_redactor_free(&red);
        return tw_cli_usage_error("record", "%s", why.message);
    }
    if (!tw_fixture_set_select_cmd(&fs, &so.sel, "record")) {
        tw_fixture_set_free(&fs);
        tw_redactor_free(&red);
        return TW_EXIT_USAGE;
    }
    /* every secret of every request first, so that an echo is caught anywhere */
    for (size_t i = 0; i < fs.n; i++)
        for (size_t k = 0; k < fs.fx[i].nexchanges; k++) {
            const tw_fx_request *q = &fs.fx[i].exchanges[k].req;
            for (size_t j = 0; j < q->nheaders; j++)
                tw_redact_discover_header(&red, q->headers[j].name, q->headers[j].value);
            if (q->path)
                tw_redact_discover_text(&red, q->path, strlen(q->path));
            tw_redact_discover_json(&red, q->body, L.max_depth);
        }
    for (size_t i = 0; i < fs.nbad; i++)
        fprintf(stderr, "toolwire record: cannot load fixture %s: %s\n", fs.bad_files[i],
                fs.bad_why[i]);
    tw_client_opts co;
    memset(&co, 0, sizeof co);
    co.base_url = url;
    co.key_env = key_env;
    co.max_retries = 2;
    co.total_timeout_ms = timeout > 0 ? timeout : 0;
    tw_client *cl = tw_client_new(&co);
    if (!cl) {
        tw_fixture_set_free(&fs);
        tw_redactor_free(&red);
        return tw_cli_usage_error("record", "cannot create the HTTP client");
    }
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    char *shown = tw_url_shown(url);
    char *from = shown ? tw_redact_str(&red, shown) : NULL;
    free(shown);
    /* a fixture that does not load is not recorded: exit status 2 */
    int rc = fs.nbad ? TW_EXIT_USAGE : TW_EXIT_OK;
    size_t written = 0;
    /* exchanges without a response before any answered: said once if none ever does */
    size_t answered = 0, unanswered = 0;
    char first_err[300] = "";
    const char *who = bname ? bname : "the server";
    for (size_t i = 0; i < fs.n; i++) {
        const tw_fixture *f = &fs.fx[i];
        cJSON *root = cJSON_Duplicate(f->root, 1);
        if (!root)
            break;
        char name[400];
        snprintf(name, sizeof name, "recorded/%s", f->name);
        cJSON_ReplaceItemInObject(root, "name", cJSON_CreateString(name));
        cJSON *prov = cJSON_CreateObject();
        cJSON_AddStringToObject(prov, "source", "recorded");
        cJSON_AddStringToObject(prov, "from", from ? from : "live server");
        cJSON_AddStringToObject(prov, "recorded_at", stamp);
        if (tw_json_get(root, "provenance"))
            cJSON_ReplaceItemInObject(root, "provenance", prov);
        else
            cJSON_AddItemToObject(root, "provenance", prov);
        cJSON *exs = tw_json_get(root, "exchanges");
        size_t k = 0;
        bool ok = true;
        for (cJSON *x = exs ? exs->child : NULL; x && k < f->nexchanges; x = x->next, k++) {
            const tw_fx_exchange *fx = &f->exchanges[k];
            char *body = fx->req.body ? tw_json_print(fx->req.body, NULL) : NULL;
            tw_http_response r;
            tw_client_send(cl, fx->req.method, fx->req.path, fx->req.headers, fx->req.nheaders,
                           body, body ? strlen(body) : 0, &r);
            free(body);
            answered += r.status != 0;
            if (r.status == 0 && !answered) {
                if (!unanswered++)
                    snprintf(first_err, sizeof first_err, "%s", r.transport_error);
                ok = false;
            } else if (r.status == 0) {
                fprintf(stderr, "toolwire record: %s#%zu: no response from %s: %s\n", f->name, k,
                        who, r.transport_error);
                ok = false;
            } else if (r.status >= 400 && !(fx->has_response && fx->resp.status >= 400)) {
                /* the fixture expects a success: an error is not what was meant to be recorded */
                fprintf(stderr, "toolwire record: %s#%zu: HTTP %d after %d attempt(s)%s\n", f->name,
                        k, r.status, r.nattempts,
                        keep_errors ? "; kept (--keep-errors)"
                                    : "; the fixture is not written (--keep-errors writes it)");
                if (!keep_errors)
                    ok = false;
            }
            /* request: drop credential headers, scrub the rest and the path */
            cJSON *req = tw_json_get(x, "request");
            cJSON *rh = tw_json_get(req, "headers");
            for (cJSON *h = rh ? rh->child : NULL; h;) {
                cJSON *next = h->next;
                if (h->string && tw_redact_header_dropped(&red, h->string))
                    cJSON_Delete(cJSON_DetachItemViaPointer(rh, h));
                h = next;
            }
            if (rh)
                tw_redact_json(&red, rh, L.max_depth);
            if (cJSON_IsString(tw_json_get(req, "path")))
                tw_redact_json(&red, tw_json_get(req, "path"), L.max_depth);
            if (tw_json_get(req, "body"))
                tw_redact_json(&red, tw_json_get(req, "body"), L.max_depth);
            tw_status rst = TW_OK;
            cJSON *resp = ok ? response_json(&r, &red, &L, &rst) : NULL;
            if (rst != TW_OK) {
                fprintf(
                    stderr,
                    "toolwire record: %s#%zu: the stream could not be scrubbed of secrets (%s); "
                    "the fixture is not written\n",
                    f->name, k,
                    rst == TW_ERR_LIMIT ? "more than 4096 text channels" : tw_code_message(rst));
                ok = false;
            }
            tw_http_response_free(&r);
            cJSON_DeleteItemFromObject(x, "expect");
            cJSON_DeleteItemFromObject(x, "faults");
            cJSON_DeleteItemFromObject(x, "model_text");
            cJSON_DeleteItemFromObject(x, "model_passes");
            if (resp) {
                if (tw_json_get(x, "response"))
                    cJSON_ReplaceItemInObject(x, "response", resp);
                else
                    cJSON_AddItemToObject(x, "response", resp);
            }
        }
        if (!ok) {
            rc = rc ? rc : TW_EXIT_FAIL;
            cJSON_Delete(root);
            continue;
        }
        tw_buf out = {0};
        tw_json_write(&out, root, TW_JSON_PRETTY);
        tw_buf_putc(&out, '\n');
        cJSON_Delete(root);
        const char *base = strrchr(f->path, '/');
        base = base ? base + 1 : f->path;
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", outdir, base);
        /* what is written must load back as a fixture */
        tw_fixture check;
        tw_error fw = {.offset = -1};
        if (tw_fixture_parse(out.data, out.len, path, &L, &check, &fw) != TW_OK) {
            fprintf(stderr, "toolwire record: %s would not be a valid fixture: %s\n", path,
                    fw.message);
            rc = rc ? rc : TW_EXIT_FAIL;
        } else {
            tw_fixture_free(&check);
            if (tw_write_atomic(path, out.data, out.len, &why) != TW_OK) {
                fprintf(stderr, "toolwire record: %s\n", why.message);
                rc = TW_EXIT_USAGE;
            } else {
                written++;
            }
        }
        tw_buf_free(&out);
    }
    if (unanswered && !answered) {
        fprintf(stderr,
                "toolwire record: %s%snobody answered at %s (%zu exchange(s), none got a response: "
                "%s)\n",
                bname ? bname : "", bname ? ": " : "", from ? from : "the server", unanswered,
                first_err);
        rc = TW_EXIT_USAGE;
    } else if (unanswered) {
        fprintf(stderr, "toolwire record: the first %zu exchange(s) got no response from %s: %s\n",
                unanswered, who, first_err);
    }
    printf("recorded %zu fixture(s) into %s (%zu secret(s) scrubbed)\n", written, outdir,
           red.scrubbed);
    free(from);
    tw_redactor_free(&red);
    tw_client_free(cl);
    tw_fixture_set_free(&fs);
    return rc;
}
