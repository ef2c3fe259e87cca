/* toolwire clients as a whole program (TOOLWIRE_BIN): --jobs, the progress lines, the driver
 * command (its length, how the shell runs it), the drivers' node modules missing and --install. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clients.h"
#include "twtest.h"

static char *dir;
static size_t slen; /* the length of the last file read (unused) */

static void fini(void)
{
    if (dir)
        tw_test_rm_tree(dir);
    free(dir);
    dir = NULL;
}

TestSuite(clients_run, .fini = fini);

static const char *bin(void)
{
    const char *b = getenv("TOOLWIRE_BIN");
    cr_assert_not_null(b, "TOOLWIRE_BIN is not set");
    return b;
}

/* A stand-in openai driver at DIR/name: a call on single_call scenarios, a raise on the others,
 * after `pause` seconds. */
static void stand_in(const char *name, const char *pause)
{
    char p[600], text[2000];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    snprintf(
        text, sizeof text,
        "if [ \"$1\" = --describe ]; then echo "
        "'{\"protocol\":1,\"client\":\"stand-in\",\"version\":\"1\","
        "\"endpoint\":\"openai\",\"modes\":[\"create\",\"stream\"]}'; exit 0; fi\n"
        "in=$(cat)\nsleep %s\ncase \"$in\" in\n"
        "*openai_single_call*) echo '{\"content\":\"Let me check the "
        "weather.\",\"tool_calls\":[{\"id\":\"call_w1\",\"name\":\"get_weather\","
        "\"arguments\":{\"city\":\"Paris\"}}],\"finish_reason\":\"tool_calls\",\"error\":null}' "
        ";;\n"
        "*) echo "
        "'{\"content\":null,\"tool_calls\":[],\"error\":{\"type\":\"APIError\",\"message\":\"no\","
        "\"status\":null}}' ;;\nesac\n",
        pause);
    tw_test_spit(p, text);
}

#define SCENARIOS                                                                                  \
    "fixtures/clients/openai_single_call.json fixtures/clients/openai_parallel_calls.json "        \
    "fixtures/clients/openai_stream_cut_in_arguments.json "                                        \
    "fixtures/clients/openai_stream_dropped.json "                                                 \
    "fixtures/clients/openai_text_only.json fixtures/clients/openai_stream_error_event.json"

/* The report without what changes from run to run (times, the date). */
static char *stable_json(const char *path)
{
    char *s = tw_test_slurp(path, &slen);
    char *w = s;
    for (char *r = s; *r;) {
        if (strncmp(r, "\"elapsed_ms\":", 13) == 0 || strncmp(r, "\"generated\":", 12) == 0) {
            r = strchr(r, ':') + 1;
            while (*r == ' ')
                r++;
            if (*r == '"')
                r = strchr(r + 1, '"') + 1;
            else
                while (*r >= '0' && *r <= '9')
                    r++;
            continue;
        }
        *w++ = *r++;
    }
    *w = 0;
    return s;
}

Test(clients_run, jobs_give_the_reports_of_one_job)
{
    dir = tw_test_tmpdir("tw-clients-jobs");
    stand_in("a.sh", "0.2");
    stand_in("b.sh", "0.1");
    int rc[2];
    for (int j = 0; j < 2; j++)
        rc[j] = tw_test_sh(
            "cd '%s' && '%s' clients --client a='sh %s/a.sh' --client b='sh %s/b.sh' --jobs %d "
            "--out '%s/r%d' " SCENARIOS " >'%s/out%d' 2>'%s/err%d'",
            tw_test_src(""), bin(), dir, dir, j ? 6 : 1, dir, j, dir, j, dir, j);
    cr_assert_eq(rc[0], 1, "a raise where a call is right fails a check");
    cr_assert_eq(rc[1], rc[0], "the same exit status with --jobs 6");
    for (const char *const *n = (const char *const[]){"a", "b", NULL}; *n; n++) {
        char p0[600], p1[600];
        snprintf(p0, sizeof p0, "%s/r0/%s.json", dir, *n);
        snprintf(p1, sizeof p1, "%s/r1/%s.json", dir, *n);
        char *s0 = stable_json(p0), *s1 = stable_json(p1);
        cr_assert(strstr(s0, "\"CLT-01\""), "the report has verdicts");
        cr_assert_str_eq(s0, s1, "the report of --jobs 6 is that of --jobs 1 (%s)", *n);
        free(s0);
        free(s1);
    }
    /* one progress line a client and scenario file, on stderr, counted to the end */
    for (int j = 0; j < 2; j++) {
        char p[600];
        snprintf(p, sizeof p, "%s/err%d", dir, j);
        char *err = tw_test_slurp(p, &slen);
        size_t lines = 0;
        for (const char *q = err; (q = strstr(q, "toolwire clients: [")); q++)
            lines++;
        cr_assert_eq(lines, 12, "12 progress lines (2 clients x 6 files): %s", err);
        cr_assert(strstr(err, "[12/12] "), "%s", err);
        cr_assert(
            strstr(err,
                   "] a fixtures/clients/openai_stream_dropped.json: 1 exchange, 0 mismatches, "),
            "the line names the client, the file, its counts: %s", err);
        cr_assert(
            strstr(err, "] b fixtures/clients/openai_text_only.json: 2 exchanges, 4 mismatches, "),
            "%s", err);
        free(err);
    }
    /* --quiet: no progress */
    cr_assert_eq(
        tw_test_sh("cd '%s' && '%s' clients --quiet --client a='sh %s/a.sh' --jobs 2 --out '%s/r2' "
                   "fixtures/clients/openai_single_call.json 2>'%s/err2'",
                   tw_test_src(""), bin(), dir, dir, dir),
        0);
    char p[600];
    snprintf(p, sizeof p, "%s/err2", dir);
    char *err = tw_test_slurp(p, &slen);
    cr_assert_str_eq(err, "");
    free(err);
    cr_assert_eq(tw_test_sh("'%s' clients --jobs 0 >/dev/null 2>&1", bin()), 2);
    cr_assert_eq(tw_test_sh("'%s' clients --jobs 65 >/dev/null 2>&1", bin()), 2);
}

/* An --out that cannot be a directory: refused once, before any driver runs. */
Test(clients_run, unwritable_out_is_refused_before_any_driver)
{
    dir = tw_test_tmpdir("tw-clients-badout");
    char p[600];
    snprintf(p, sizeof p, "%s/r", dir); /* --out DIR/r: a regular file */
    tw_test_spit(p, "x");
    snprintf(p, sizeof p, "%s/a.sh", dir);
    tw_test_spit(p, "touch \"$(dirname \"$0\")/ran\"\nexit 1\n");
    int rc = tw_test_sh("cd '%s' && '%s' clients --client a='sh %s/a.sh' --out '%s/r' "
                        "fixtures/clients/openai_single_call.json >'%s/out' 2>'%s/err'",
                        tw_test_src(""), bin(), dir, dir, dir, dir);
    cr_assert_eq(rc, 2);
    snprintf(p, sizeof p, "%s/err", dir);
    char *err = tw_test_slurp(p, &slen);
    cr_assert(strstr(err, "toolwire clients: --out: cannot create directory ") &&
                  strstr(err, "/r: Not a directory\n"),
              "%s", err);
    cr_assert_null(strstr(strstr(err, "cannot") + 1, "cannot"), "one message: %s", err);
    free(err);
    snprintf(p, sizeof p, "%s/out", dir);
    char *out = tw_test_slurp(p, &slen);
    cr_assert_null(strstr(out, "->"), "%s", out);
    free(out);
    snprintf(p, sizeof p, "%s/ran", dir);
    cr_assert_neq(access(p, F_OK), 0, "a driver ran");
}

/* The command as the shell gets it: /bin/sh -c 'exec CMD "$@"' — any length up to the cap, its
 * first word the program (so a leading VAR=value is not an assignment: env sets variables). */
Test(clients_run, driver_command)
{
    dir = tw_test_tmpdir("tw-clients-cmd");
    stand_in("a.sh", "0");
    /* 10,000 bytes of command: a long env value (the command was once cut at 4,200 bytes) */
    size_t pad = 10000;
    char *cmd = malloc(pad + 700);
    cr_assert(cmd);
    int n = snprintf(cmd, 700, "env TW_PAD=");
    memset(cmd + n, 'x', pad);
    snprintf(cmd + n + pad, 700, " sh %s/a.sh", dir);
    char p[600];
    snprintf(p, sizeof p, "%s/cmd", dir);
    tw_test_spit(p, cmd);
    cr_assert_eq(
        tw_test_sh("cd '%s' && '%s' clients --quiet --client \"long=$(cat '%s/cmd')\" --out '%s/r' "
                   "fixtures/clients/openai_single_call.json 2>'%s/err'",
                   tw_test_src(""), bin(), dir, dir, dir),
        0, "a command of 10,000 bytes runs");
    /* exec: the first word is the program */
    cr_assert_eq(
        tw_test_sh("cd '%s' && '%s' clients --quiet --client 'v=TW_X=1 sh %s/a.sh' --out '%s/r' "
                   "fixtures/clients/openai_single_call.json 2>'%s/err'",
                   tw_test_src(""), bin(), dir, dir, dir),
        2, "a driver whose --describe fails cannot be judged");
    snprintf(p, sizeof p, "%s/err", dir);
    char *err = tw_test_slurp(p, &slen);
    cr_assert(strstr(err, "client v: 'TW_X=1 sh") &&
                  strstr(err, "--describe' exited with status 127"),
              "%s", err);
    free(err);
    /* over the cap: refused before anything runs */
    tw_client_spec c = {"long", cmd};
    char *paths[] = {(char *)tw_test_src("fixtures/clients/openai_single_call.json")};
    tw_clients_opts o;
    memset(&o, 0, sizeof o);
    o.quiet = true;
    o.limits.max_line_bytes = 4096;
    snprintf(p, sizeof p, "%s/r", dir);
    cr_assert_eq(tw_clients_run_all(&c, 1, paths, 1, p, &o), 2,
                 "a command over limits.max_line_bytes");
    char *huge = malloc(TW_PROC_MAX_CMD + 2);
    cr_assert(huge);
    memset(huge, 'x', TW_PROC_MAX_CMD + 1);
    huge[TW_PROC_MAX_CMD + 1] = 0;
    c.cmd = huge;
    o.limits.max_line_bytes = 0;
    cr_assert_eq(tw_clients_run_all(&c, 1, paths, 1, p, &o), 2,
                 "a command longer than one argument of /bin/sh");
    tw_proc_result r;
    cr_assert_eq(tw_proc_run(huge, "--describe", "", 0, 1000, 100, 100, &r), TW_ERR_LIMIT);
    free(huge);
    free(cmd);
}

static bool have_node(void)
{
    return tw_test_sh("command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1") == 0;
}

/* A drivers directory: an npm package (no dependencies) and one driver, x, importing `imports`. */
static void drivers_dir(const char *imports)
{
    char p[600], text[1200];
    snprintf(p, sizeof p, "%s/d", dir);
    cr_assert_eq(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/d/x", dir);
    cr_assert_eq(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/d/package.json", dir);
    tw_test_spit(p, "{\"name\":\"tw-test-drivers\",\"version\":\"1.0.0\",\"private\":true,\"type\":"
                    "\"module\"}\n");
    snprintf(p, sizeof p, "%s/d/package-lock.json", dir);
    tw_test_spit(p, "{\"name\":\"tw-test-drivers\",\"version\":\"1.0.0\",\"lockfileVersion\":3,"
                    "\"requires\":true,"
                    "\"packages\":{\"\":{\"name\":\"tw-test-drivers\",\"version\":\"1.0.0\"}}}\n");
    snprintf(p, sizeof p, "%s/d/x/driver.mjs", dir);
    snprintf(text, sizeof text,
             "%s\nif (process.argv[2] === '--describe') {\n"
             "  console.log(JSON.stringify({protocol: 1, client: 'x', version: '1', endpoint: "
             "'openai', modes: ['create']}));\n"
             "  process.exit(0);\n}\nfor await (const _ of process.stdin);\n"
             "console.log(JSON.stringify({content: 'Let me check the weather.', tool_calls: [{id: "
             "'call_w1', name: 'get_weather', arguments: "
             "{city: 'Paris'}}], finish_reason: 'tool_calls', error: null}));\n",
             imports);
    tw_test_spit(p, text);
}

Test(clients_run, node_modules_missing, .timeout = 300)
{
    if (!have_node())
        cr_skip_test("node and npm are not installed");
    dir = tw_test_tmpdir("tw-clients-mods");
    drivers_dir("");
    char *real = realpath(dir, NULL);
    cr_assert(real);
    char p[700];
    snprintf(p, sizeof p, "%s/err", dir);
    /* no node_modules beside package.json: exit 2, naming the command */
    cr_assert_eq(tw_test_sh("cd '%s' && '%s' clients --drivers '%s/d' --out '%s/r' "
                            "fixtures/clients/openai_single_call.json >/dev/null 2>'%s/err'",
                            tw_test_src(""), bin(), dir, dir, dir),
                 2);
    char *err = tw_test_slurp(p, &slen);
    char want[900];
    snprintf(want, sizeof want, "run `cd %s/d && npm ci` (or give --install)", real);
    cr_assert(strstr(err, want), "%s", err);
    free(err);
    snprintf(p, sizeof p, "%s/r/x.json", dir);
    struct stat sb;
    cr_assert_neq(stat(p, &sb), 0, "no driver ran");
    /* --install installs them and goes on */
    cr_assert_eq(tw_test_sh("cd '%s' && '%s' clients --install --drivers '%s/d' --out '%s/r' "
                            "fixtures/clients/openai_single_call.json >/dev/null 2>'%s/err'",
                            tw_test_src(""), bin(), dir, dir, dir),
                 0);
    cr_assert_eq(stat(p, &sb), 0, "the driver ran after the install");
    snprintf(p, sizeof p, "%s/err", dir);
    err = tw_test_slurp(p, &slen);
    cr_assert(strstr(err, "installing the drivers' node modules"), "%s", err);
    free(err);
    free(real);
}

Test(clients_run, module_not_found)
{
    if (!have_node())
        cr_skip_test("node is not installed");
    dir = tw_test_tmpdir("tw-clients-nomod");
    drivers_dir("import 'tw-no-such-package';");
    char p[700];
    snprintf(p, sizeof p, "%s/d/node_modules", dir);
    cr_assert_eq(mkdir(p, 0755), 0);
    char *real = realpath(dir, NULL);
    cr_assert(real);
    cr_assert_eq(tw_test_sh("cd '%s' && '%s' clients --drivers '%s/d' --out '%s/r' "
                            "fixtures/clients/openai_single_call.json >/dev/null 2>'%s/err'",
                            tw_test_src(""), bin(), dir, dir, dir),
                 2, "a driver that cannot load its package");
    snprintf(p, sizeof p, "%s/err", dir);
    char *err = tw_test_slurp(p, &slen);
    char want[900];
    snprintf(want, sizeof want, "run `cd %s/d && npm ci`", real);
    cr_assert(strstr(err, "client x: its driver cannot load a module (") &&
                  strstr(err, "tw-no-such-package"),
              "%s", err);
    cr_assert(strstr(err, want), "%s", err);
    free(err);
    free(real);
}
