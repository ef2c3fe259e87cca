/* The regression gate (report.h): a report judged against a baseline, check
 * by check. */
#include "report.h"
#include "report_int.h"

#include <string.h>

typedef struct gate_ctx {
    const tw_rep_index *base, *cur;
    tw_gate_result *g;
    tw_buf regb, impb, misb;
    tw_rw reg, imp, mis;
} gate_ctx;

static void gate_key(void *u, const char *fx, size_t ex, const char *id)
{
    gate_ctx *c = u;
    bool brun, crun;
    const tw_rep_check *b = tw_rep_find_check(c->base, fx, ex, id, &brun);
    if (!b)
        return;
    const tw_rep_check *n = tw_rep_find_check(c->cur, fx, ex, id, &crun);
    if (!n) {
        if (b->verdict == TW_V_PASS) {
            c->g->missing++;
            tw_rw_puts(&c->mis, "- ");
            tw_rep_md_cell(&c->mis, fx, 120);
            tw_rw_printf(&c->mis, " #%zu %s: passed in the baseline, not run now\n", ex, id);
        }
        return;
    }
    /* a check that passed and is a skip now because nothing came back to judge
     * (no response, a driver that failed) is a regression too */
    bool unjudged = false;
    if (b->verdict == TW_V_PASS && n->verdict == TW_V_SKIP) {
        const tw_rep_exchange *be = tw_rep_find_exchange(c->base, fx, ex);
        const tw_rep_exchange *ce = tw_rep_find_exchange(c->cur, fx, ex);
        unjudged = be && ce && be->status != 0 && ce->status == 0;
    }
    if (b->verdict == TW_V_PASS && (n->verdict == TW_V_FAIL || unjudged)) {
        c->g->regressions++;
        tw_rw_puts(&c->reg, "| ");
        tw_rep_md_cell(&c->reg, fx, 120);
        tw_rw_printf(&c->reg, " | %zu | %s | ", ex, id);
        if (unjudged) {
            const tw_rep_exchange *ce = tw_rep_find_exchange(c->cur, fx, ex);
            tw_rw_puts(&c->reg, "not judged: ");
            tw_rep_md_cell(&c->reg, ce->error ? ce->error : ce->result_detail ? ce->result_detail : "no response", 200);
        } else {
            tw_rep_md_cell(&c->reg, n->evidence, 200);
        }
        tw_rw_puts(&c->reg, " |\n");
    } else if (b->verdict == TW_V_FAIL && n->verdict == TW_V_PASS) {
        c->g->improvements++;
        tw_rw_puts(&c->imp, "| ");
        tw_rep_md_cell(&c->imp, fx, 120);
        tw_rw_printf(&c->imp, " | %zu | %s |\n", ex, id);
    }
}

tw_status tw_gate(const tw_report *baseline, const tw_report *current, size_t max_text, tw_gate_result *out)
{
    size_t max = max_text;
    memset(out, 0, sizeof *out);
    out->text.max = max;
    tw_rep_index ix[2];
    tw_status st = tw_rep_index_build(&ix[0], baseline);
    if (st != TW_OK)
        return st;
    st = tw_rep_index_build(&ix[1], current);
    if (st != TW_OK) {
        tw_rep_index_free(&ix[0]);
        return st;
    }
    gate_ctx c;
    memset(&c, 0, sizeof c);
    c.base = &ix[0];
    c.cur = &ix[1];
    c.g = out;
    /* each listing is capped by the text's own cap */
    c.regb.max = c.impb.max = c.misb.max = max;
    c.reg = (tw_rw){.b = &c.regb, .st = TW_OK};
    c.imp = (tw_rw){.b = &c.impb, .st = TW_OK};
    c.mis = (tw_rw){.b = &c.misb, .st = TW_OK};
    tw_rep_each_key(baseline, &ix[0], 1, gate_key, &c);
    tw_rw wr = {.b = &out->text, .st = TW_OK}, *t = &wr;
    tw_rw_fail(t, c.reg.st);
    tw_rw_fail(t, c.imp.st);
    tw_rw_fail(t, c.mis.st);
    tw_rw_printf(t, "# toolwire gate: %s against baseline %s\n\n", current->backend, baseline->backend);
    if (out->regressions) {
        tw_rw_printf(t, "❌ **%zu regression(s)**: checks that passed in the baseline fail now, or could not be judged now (nothing came back).\n\n"
                        "| fixture | exchange | check | evidence |\n|---|---:|---|---|\n",
                     out->regressions);
        tw_rw_append(t, c.regb.data ? c.regb.data : "", c.regb.len);
        tw_rw_putc(t, '\n');
    } else {
        tw_rw_puts(t, "✅ no regression: every check that passed in the baseline still passes.\n\n");
    }
    if (out->improvements) {
        tw_rw_printf(t, "%zu improvement(s): checks that failed in the baseline pass now.\n\n"
                        "| fixture | exchange | check |\n|---|---:|---|\n",
                     out->improvements);
        tw_rw_append(t, c.impb.data ? c.impb.data : "", c.impb.len);
        tw_rw_putc(t, '\n');
    }
    if (out->missing) {
        tw_rw_printf(t, "%zu passing baseline verdict(s) have no counterpart in this report:\n\n", out->missing);
        tw_rw_append(t, c.misb.data ? c.misb.data : "", c.misb.len);
    }
    tw_buf_free(&c.regb);
    tw_buf_free(&c.impb);
    tw_buf_free(&c.misb);
    tw_rep_index_free(&ix[0]);
    tw_rep_index_free(&ix[1]);
    /* the counts stand even when the text could not be written whole */
    return wr.st;
}

void tw_gate_result_free(tw_gate_result *g)
{
    tw_buf_free(&g->text);
    memset(g, 0, sizeof *g);
}
