/* The gate's verdicts in the forms CI reads (report.h): JSON, JUnit XML and
 * GitHub Actions workflow commands. The Markdown listing is gate.c's. */
#include "report.h"
#include "report_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "toolwire/json.h"

/* Does the row fail the gate? */
static bool row_fails(const tw_gate_row *r, bool allow_missing)
{
    return r->kind == TW_GATE_REGRESSION || (r->kind == TW_GATE_MISSING && !allow_missing);
}

static bool put_count(cJSON *o, const char *k, size_t n)
{
    return cJSON_AddNumberToObject(o, k, (double)n) != NULL;
}

tw_status tw_gate_to_json(const tw_gate_result *g, const tw_report *baseline,
                          const tw_report *current, bool allow_missing, tw_buf *out)
{
    cJSON *root = cJSON_CreateObject(), *counts = NULL, *rows = NULL;
    bool ok =
        root && cJSON_AddStringToObject(root, "schema", "toolwire-gate") &&
        cJSON_AddNumberToObject(root, "version", 1) &&
        cJSON_AddStringToObject(root, "baseline", baseline->backend ? baseline->backend : "") &&
        cJSON_AddStringToObject(root, "report", current->backend ? current->backend : "") &&
        cJSON_AddBoolToObject(root, "passed", !g->failed) &&
        cJSON_AddBoolToObject(root, "allow_missing", allow_missing) &&
        (counts = cJSON_AddObjectToObject(root, "counts")) &&
        put_count(counts, "regressions", g->regressions) &&
        put_count(counts, "missing_fixtures", g->missing_fixtures) &&
        put_count(counts, "missing_verdicts", g->missing) &&
        put_count(counts, "improvements", g->improvements) &&
        put_count(counts, "known_failures", g->known) &&
        put_count(counts, "advisory", g->advisory) && (rows = cJSON_AddArrayToObject(root, "rows"));
    for (size_t i = 0; ok && i < g->nrows; i++) {
        const tw_gate_row *r = &g->rows[i];
        cJSON *o = cJSON_CreateObject();
        ok = o && cJSON_AddItemToArray(rows, o) &&
             cJSON_AddStringToObject(o, "kind", tw_gate_kind_name(r->kind)) &&
             cJSON_AddBoolToObject(o, "fails_gate", row_fails(r, allow_missing)) &&
             cJSON_AddStringToObject(o, "fixture", r->fixture) &&
             cJSON_AddStringToObject(o, "file", r->file) &&
             (r->exchange == SIZE_MAX
                  ? cJSON_AddNullToObject(o, "exchange") != NULL
                  : cJSON_AddNumberToObject(o, "exchange", (double)r->exchange) != NULL) &&
             (r->check[0] ? cJSON_AddStringToObject(o, "check", r->check) != NULL
                          : cJSON_AddNullToObject(o, "check") != NULL) &&
             (r->check[0] ? cJSON_AddStringToObject(o, "severity", tw_severity_name(r->sev)) != NULL
                          : cJSON_AddNullToObject(o, "severity") != NULL) &&
             cJSON_AddStringToObject(o, "evidence", r->evidence);
    }
    char *s = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    if (!s)
        return TW_ERR_NOMEM;
    tw_status st = tw_buf_puts(out, s);
    if (st == TW_OK)
        st = tw_buf_putc(out, '\n');
    free(s);
    return st;
}

tw_status tw_gate_to_junit(const tw_gate_result *g, const tw_report *current, bool allow_missing,
                           tw_buf *buf)
{
    tw_rw w = {.b = buf, .st = TW_OK}, *out = &w;
    size_t tests = 0, failures = 0;
    for (size_t i = 0; i < g->nrows; i++) {
        if (g->rows[i].kind == TW_GATE_ADVISORY)
            continue;
        tests++;
        failures += row_fails(&g->rows[i], allow_missing);
    }
    tw_rw_puts(out,
               "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"toolwire gate\">\n"
               "  <testsuite name=\"toolwire gate: ");
    tw_xml_text(out, current->backend);
    tw_rw_printf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\">\n",
                 tests ? tests : 1, failures);
    if (!tests)
        tw_rw_puts(out,
                   "    <testcase classname=\"gate\" name=\"no regression, nothing missing\"/>\n");
    for (size_t i = 0; i < g->nrows; i++) {
        const tw_gate_row *r = &g->rows[i];
        if (r->kind == TW_GATE_ADVISORY)
            continue;
        tw_rw_puts(out, "    <testcase classname=\"");
        tw_xml_text(out, r->fixture);
        tw_rw_printf(out, "\" file=\"");
        tw_xml_text(out, r->file);
        tw_rw_printf(out, "\" name=\"%s", tw_gate_kind_name(r->kind));
        if (r->kind == TW_GATE_MISSING)
            tw_rw_puts(out, ": fixture");
        else
            tw_rw_printf(out, ": #%zu %s (%s)", r->exchange, r->check, tw_severity_name(r->sev));
        tw_rw_puts(out, "\">");
        if (row_fails(r, allow_missing)) {
            tw_rw_printf(out, "<failure type=\"%s\" message=\"", tw_gate_kind_name(r->kind));
            tw_xml_text(out, r->evidence);
            tw_rw_puts(out, "\">");
            tw_xml_text(out, r->evidence);
            tw_rw_puts(out, "</failure>");
        } else {
            tw_rw_puts(out, "<system-out>");
            tw_rw_puts(out, r->kind == TW_GATE_KNOWN         ? "failed in the baseline too: "
                            : r->kind == TW_GATE_IMPROVEMENT ? ""
                                                             : "accepted by --allow-missing: ");
            tw_xml_text(out, r->evidence);
            tw_rw_puts(out, "</system-out>");
        }
        tw_rw_puts(out, "</testcase>\n");
    }
    tw_rw_puts(out, "  </testsuite>\n</testsuites>\n");
    return w.st;
}

/* s escaped for a workflow command: % CR LF always, : and , in a property. */
static void wf_escape(tw_rw *out, const char *s, bool property)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '%': tw_rw_puts(out, "%25"); break;
        case '\r': tw_rw_puts(out, "%0D"); break;
        case '\n': tw_rw_puts(out, "%0A"); break;
        case ':': property ? tw_rw_puts(out, "%3A") : tw_rw_putc(out, ':'); break;
        case ',': property ? tw_rw_puts(out, "%2C") : tw_rw_putc(out, ','); break;
        default: tw_rw_putc(out, *s);
        }
    }
}

tw_status tw_gate_to_annotations(const tw_gate_result *g, bool allow_missing, tw_buf *buf)
{
    tw_rw w = {.b = buf, .st = TW_OK}, *out = &w;
    for (size_t i = 0; i < g->nrows; i++) {
        const tw_gate_row *r = &g->rows[i];
        if (!row_fails(r, allow_missing))
            continue;
        char title[80];
        if (r->kind == TW_GATE_MISSING)
            snprintf(title, sizeof title, "toolwire gate: fixture missing");
        else
            snprintf(title, sizeof title, "toolwire gate: %s regressed", r->check);
        tw_rw_puts(out, "::error file=");
        wf_escape(out, r->file, true);
        tw_rw_puts(out, ",title=");
        wf_escape(out, title, true);
        tw_rw_puts(out, "::");
        wf_escape(out, r->fixture, false);
        if (r->kind == TW_GATE_MISSING) {
            tw_rw_puts(out, ": ");
        } else {
            char head[80];
            snprintf(head, sizeof head, " #%zu %s (%s): ", r->exchange, r->check,
                     tw_severity_name(r->sev));
            wf_escape(out, head, false);
        }
        wf_escape(out, r->evidence, false);
        tw_rw_putc(out, '\n');
    }
    return w.st;
}
