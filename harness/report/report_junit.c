/* The report's JUnit XML form (report.h): a test case per exchange. */
#include "report.h"
#include "report_int.h"

#include <stdio.h>

void tw_xml_text(tw_rw *b, const char *s)
{
    if (!s)
        return;
    for (;;) {
        /* a run of bytes written as they are */
        size_t run = 0;
        for (unsigned char c; (c = (unsigned char)s[run]) != '\0'; run++)
            if (c == '<' || c == '>' || c == '&' || c == '"' || c == '\'' ||
                (c < 0x20 && c != '\n' && c != '\t'))
                break;
        tw_rw_append(b, s, run);
        s += run;
        if (!*s)
            return;
        switch (*s) {
        case '<': tw_rw_puts(b, "&lt;"); break;
        case '>': tw_rw_puts(b, "&gt;"); break;
        case '&': tw_rw_puts(b, "&amp;"); break;
        case '"': tw_rw_puts(b, "&quot;"); break;
        case '\'': tw_rw_puts(b, "&apos;"); break;
        default: tw_rw_putc(b, '?'); /* a control byte: not allowed in XML 1.0 */
        }
        s++;
    }
}

void tw_report_junit_emit(const tw_report *r, tw_rw *out)
{
    size_t tests = 0, failures = 0, skipped = 0;
    for (size_t i = 0; i < r->nfx; i++) {
        if (r->fx[i].skipped) {
            tests++, skipped++;
            continue;
        }
        if (r->fx[i].nex == 0)
            tests++, failures++;
        for (size_t k = 0; k < r->fx[i].nex; k++) {
            tests++;
            if (!r->fx[i].ex[k].match)
                failures++;
        }
    }
    tw_rw_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"toolwire\">\n");
    tw_rw_puts(out, "  <testsuite name=\"toolwire.");
    tw_xml_text(out, r->backend);
    tw_rw_printf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" timestamp=\"",
                 tests, failures, skipped);
    tw_xml_text(out, r->generated);
    tw_rw_puts(out, "\">\n");
    for (size_t i = 0; i < r->nfx; i++) {
        const tw_rep_fixture *f = &r->fx[i];
        if (f->skipped || f->nex == 0) {
            tw_rw_puts(out, "    <testcase classname=\"");
            tw_xml_text(out, r->backend);
            tw_rw_puts(out, "\" name=\"");
            tw_xml_text(out, f->name);
            tw_rw_puts(out, f->skipped ? "\">\n      <skipped message=\""
                                       : "\">\n      <failure message=\"");
            tw_xml_text(out, f->note ? f->note : "");
            tw_rw_puts(out, f->skipped ? "\"/>\n    </testcase>\n" : "\"/>\n    </testcase>\n");
            continue;
        }
        for (size_t k = 0; k < f->nex; k++) {
            const tw_rep_exchange *e = &f->ex[k];
            tw_rw_puts(out, "    <testcase classname=\"");
            tw_xml_text(out, r->backend);
            tw_rw_puts(out, "\" name=\"");
            tw_xml_text(out, f->name);
            tw_rw_printf(out, "#%zu\" time=\"%.3f\">\n", e->index, (double)e->elapsed_ms / 1000.0);
            char oc[200];
            tw_rep_exchange_outcome(e, oc, sizeof oc);
            if (!e->match) {
                tw_rw_puts(out, "      <failure message=\"");
                tw_xml_text(out, oc);
                tw_rw_puts(out, ": verdicts differ from the fixture's expectations\">");
            }
            if (e->match) {
                tw_rw_puts(out, "      <system-out>");
                tw_xml_text(out, e->method);
                tw_rw_putc(out, ' ');
                tw_xml_text(out, e->path);
                tw_rw_puts(out, ": ");
                tw_xml_text(out, oc);
                tw_rw_puts(out, "</system-out>\n    </testcase>\n");
                tw_rw_flush(out, false);
                continue;
            }
            tw_rw_puts(out, "response: ");
            tw_xml_text(out, oc);
            tw_rw_putc(out, '\n');
            for (size_t c = 0; c < e->nchecks; c++) {
                const tw_rep_check *ch = &e->checks[c];
                if (ch->match)
                    continue;
                tw_rw_printf(out, "%s: expected %s, got %s: ", ch->id, tw_expect_name(ch->expected),
                             tw_verdict_name(ch->verdict));
                tw_xml_text(out, ch->evidence);
                if (ch->follows[0])
                    tw_rw_printf(out, " (a consequence of %s, %s)", ch->follows, ch->follows_check);
                tw_rw_putc(out, '\n');
            }
            tw_rw_puts(out, "</failure>\n    </testcase>\n");
            tw_rw_flush(out, false);
        }
    }
    tw_rw_puts(out, "  </testsuite>\n</testsuites>\n");
    tw_rw_flush(out, true);
}

tw_status tw_report_to_junit(const tw_report *r, tw_buf *buf)
{
    tw_rw w = {.b = buf, .st = TW_OK};
    tw_report_junit_emit(r, &w);
    return w.st;
}
