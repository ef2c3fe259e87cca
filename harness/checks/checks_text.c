/*
 * The checks on model text and numbers: Hermes tool-call text (HER-*), the
 * vLLM /generate endpoint (VLN-*), number fidelity (NUM-*) and Qwen3-Coder
 * XML tool calls (QWX-*).
 */
#include "checks_int.h"

#include "apis.h"

#include "toolwire/registry.h"

/* ================================================================ Hermes text */

/* Does the fixture read this exchange's model text as Qwen3-Coder XML. */
static bool ex_is_qwen(const tw_fx_exchange *ex)
{
    /* model_format is set by the fixture loader; an exchange built in code
     * (import, record) names its decoder only */
    const char *f = !ex ? NULL : ex->model_format ? ex->model_format : ex->decode_format;
    return f && strcmp(f, "qwen3-coder") == 0;
}

/* The decoder the text checks read the model text with: the model dialect's,
 * qwen3-coder when the fixture decodes it so, else hermes. */
static const char *text_decoder(const tw_fx_exchange *ex)
{
    const char *d = tw_chk_ex_dialect(ex);
    return d ? d : ex_is_qwen(ex) ? "qwen3-coder" : "hermes";
}

static tw_status text_decode(const tw_fx_exchange *ex, const char *t, size_t n,
                             const tw_decode_opts *o, tw_result *r)
{
    const tw_format_ops *f = tw_format_find(text_decoder(ex));
    if (!f) {
        memset(r, 0, sizeof *r);
        return TW_ERR_UNSUPPORTED;
    }
    return f->decode(t, n, o, r);
}

/* The response's calls as a light view (for HER-02). */
static void response_view(judge *j, tw_api_kind kind, bool stream, rview *v)
{
    const tw_judge_input *in = j->in;
    if (!in->body)
        return;
    if (!stream) {
        cJSON *b = tw_chk_parse_json(in->body, in->body_len, j->L.max_depth);
        if (kind == TW_API_OPENAI)
            tw_chk_view_openai(b, j->L.max_depth, v);
        else if (kind == TW_API_ANTHROPIC)
            tw_chk_view_anthropic(b, v);
        else if (kind == TW_API_GENERATE)
            tw_chk_view_generate(b, j->L.max_depth, v);
        cJSON_Delete(b);
        return;
    }
    tw_decode_opts o = {0};
    o.limits = j->L;
    o.allow_unknown_tool = true;
    tw_result r;
    if (tw_decode_response(in->path, true, in->body, in->body_len, &o, &r) == TW_OK) {
        v->ok = true;
        for (size_t i = 0; i < r.msg.ncalls; i++)
            tw_chk_rview_add(
                v, r.msg.calls[i].id, r.msg.calls[i].name,
                r.msg.calls[i].arguments ? cJSON_Duplicate(r.msg.calls[i].arguments, 1) : NULL, 0);
        tw_result_free(&r);
        return;
    }
    /* streams without a reference decoder: assemble OpenAI tool-call deltas */
    if (kind != TW_API_OPENAI)
        return;
    sse_list ev;
    tw_chk_sse_parse(in->body, in->body_len, &j->L, &ev);
    ostream st = {0};
    for (size_t i = 0; i < ev.n; i++) {
        cJSON *c = tw_chk_parse_json(ev.v[i].data, ev.v[i].data_len, j->L.max_depth);
        const cJSON *ch = tw_json_get(c, "choices");
        for (const cJSON *x = cJSON_IsArray(ch) ? ch->child : NULL; x; x = x->next) {
            const cJSON *tcs = tw_json_get(tw_json_get(x, "delta"), "tool_calls");
            for (const cJSON *tc = cJSON_IsArray(tcs) ? tcs->child : NULL; tc; tc = tc->next) {
                const cJSON *idx = tw_json_get(tc, "index");
                bool fresh;
                sidx *s =
                    tw_chk_ostream_idx(&st, (long)tw_json_int(idx, -1, LONG_MAX, 0), 0, &fresh);
                if (!s)
                    continue;
                const cJSON *fn = tw_json_get(tc, "function");
                if (fresh) {
                    s->id = tw_strdup(tw_json_get_str(tc, "id") ? tw_json_get_str(tc, "id") : "");
                    s->name =
                        tw_strdup(tw_json_get_str(fn, "name") ? tw_json_get_str(fn, "name") : "");
                }
                const char *a = tw_json_get_str(fn, "arguments");
                if (a)
                    tw_buf_puts(&s->args, a);
            }
        }
        cJSON_Delete(c);
    }
    v->ok = true;
    for (size_t i = 0; i < st.n; i++)
        tw_chk_rview_add(v, st.v[i].id, st.v[i].name,
                         tw_chk_parse_json(st.v[i].args.data ? st.v[i].args.data : "",
                                           st.v[i].args.len, j->L.max_depth),
                         0);
    tw_chk_ostream_free(&st);
    tw_chk_sse_free(&ev);
}

/* Tool calls written inside closed think blocks of the model text: JSON
 * payloads, or with xml set the Qwen3-Coder XML calls as the qwen3-coder
 * decoder reads the block's text. */
static size_t closed_think_calls(const char *t, size_t n, size_t depth, const tw_decode_opts *xml,
                                 rview *out)
{
    size_t found = 0;
    static const char *const opens[] = {"<think>", "<thinking>"};
    static const char *const closes[] = {"</think>", "</thinking>"};
    size_t pos = 0;
    while (pos < n) {
        size_t best = n;
        int which = -1;
        for (int k = 0; k < 2; k++) {
            const char *p = tw_memmem(t + pos, n - pos, opens[k], strlen(opens[k]));
            if (p && (size_t)(p - t) < best) {
                best = (size_t)(p - t);
                which = k;
            }
        }
        if (which < 0)
            break;
        size_t in_start = best + strlen(opens[which]);
        const char *c = tw_memmem(t + in_start, n - in_start, closes[which], strlen(closes[which]));
        if (!c)
            break; /* unterminated: not a closed block */
        size_t in_end = (size_t)(c - t);
        size_t q = in_start;
        const tw_format_ops *xf = xml ? tw_format_find("qwen3-coder") : NULL;
        tw_result xr;
        if (xf && xf->decode(t + in_start, in_end - in_start, xml, &xr) == TW_OK) {
            for (size_t i = 0; i < xr.msg.ncalls; i++) {
                const tw_call *cl = &xr.msg.calls[i];
                tw_chk_rview_add(out, NULL, cl->name,
                                 cl->arguments ? cJSON_Duplicate(cl->arguments, 1) : NULL,
                                 in_start);
                found++;
            }
            tw_result_free(&xr);
        }
        while (!xml && q < in_end) {
            const char *tc = tw_memmem(t + q, in_end - q, "<tool_call>", 11);
            if (!tc)
                break;
            size_t bs = (size_t)(tc - t) + 11;
            size_t s, e;
            if (tw_json_first_balanced(t + bs, in_end - bs, depth, &s, &e)) {
                cJSON *v = tw_chk_parse_json(t + bs + s, e - s, depth);
                const cJSON *one = cJSON_IsArray(v) ? v->child : v;
                for (; one; one = cJSON_IsArray(v) ? one->next : NULL) {
                    const char *name = tw_json_get_str(one, "name");
                    if (name) {
                        tw_chk_rview_add(out, NULL, name,
                                         tw_chk_args_value(tw_json_get(one, "arguments"), depth),
                                         (size_t)(tc - t));
                        found++;
                    }
                    if (!cJSON_IsArray(v))
                        break;
                }
                cJSON_Delete(v);
            }
            q = bs;
        }
        pos = in_end + strlen(closes[which]);
    }
    return found;
}

void tw_chk_hermes_checks(judge *j, tw_api_kind kind, bool stream)
{
    const tw_fx_exchange *ex = j->in->ex;
    static const tw_check_id ids[] = {TW_CHK_HER_01, TW_CHK_HER_02, TW_CHK_HER_03};
    const char *text = ex ? ex->model_text : NULL;
    bool two_pass = false;
    if (!text && ex && ex->model_pass2) {
        text = ex->model_pass2;
        two_pass = true;
    }
    if (!text) {
        tw_chk_skip_ids(j->out, ids, 3, "no model text in the fixture");
        return;
    }
    if (tw_chk_ex_dialect(ex)) { /* its own markup, not <tool_call> blocks: DLX-* judge it */
        tw_chk_skip_ids(j->out, ids, 3, "the model text is in a model dialect (DLX-*)");
        return;
    }
    size_t n = strlen(text);
    tw_opts_holder h;
    tw_opts_holder_init(&h);
    if (ex->decode_options && !tw_opts_from_json(&h, ex->decode_options, NULL)) {
        tw_opts_holder_free(&h);
        tw_opts_holder_init(&h);
    }
    h.o.limits = j->L;
    h.o.allow_unknown_tool = true;
    if (two_pass)
        h.o.finish = TW_FINISH_STOP_SEQUENCE;
    tw_result r;
    if (text_decode(ex, text, n, &h.o, &r) != TW_OK) {
        tw_chk_skip_ids(j->out, ids, 3,
                        ex_is_qwen(ex) ? "the qwen3-coder decoder refused the model text"
                                       : "the hermes decoder refused the model text");
        tw_opts_holder_free(&h);
        return;
    }
    /* HER-01 */
    const tw_diag *bad = NULL;
    for (size_t i = 0; i < r.errors.len && !bad; i++)
        if (r.errors.items[i].code == TW_D_TOOL_CALL_JSON ||
            r.errors.items[i].code == TW_D_TOOL_CALL_UNTERMINATED ||
            r.errors.items[i].code == TW_D_XML_PARAM_UNCLOSED ||
            r.errors.items[i].code == TW_D_XML_BAD_NAME)
            bad = &r.errors.items[i];
    size_t blocks = 0;
    for (const char *p = text; (p = tw_memmem(p, n - (size_t)(p - text), "<tool_call>", 11));
         p += 11)
        blocks++;
    char cb[212];
    if (bad)
        PUT(j->out, TW_CHK_HER_01, TW_V_FAIL, bad->offset, "model text: %s: %s",
            tw_code_name(bad->code), tw_chk_clip(cb, sizeof cb, bad->message, 200));
    else
        PUT(j->out, TW_CHK_HER_01, blocks ? TW_V_PASS : TW_V_SKIP, -1,
            "%zu <tool_call> block(s) in the model text", blocks);
    /* HER-03 */
    if (two_pass)
        PUT(j->out, TW_CHK_HER_03, TW_V_SKIP, -1, "two-pass: the server closes the think block");
    else if (tw_diag_has(&r.errors, TW_D_THINK_UNTERMINATED) ||
             tw_diag_has(&r.warnings, TW_D_THINK_IMPLICIT_END) ||
             tw_diag_has(&r.errors, TW_D_THINK_IMPLICIT_END)) {
        int64_t off = -1;
        for (size_t i = 0; i < r.errors.len; i++)
            if (r.errors.items[i].code == TW_D_THINK_UNTERMINATED ||
                r.errors.items[i].code == TW_D_THINK_IMPLICIT_END)
                off = r.errors.items[i].offset;
        for (size_t i = 0; off < 0 && i < r.warnings.len; i++)
            if (r.warnings.items[i].code == TW_D_THINK_IMPLICIT_END)
                off = r.warnings.items[i].offset;
        PUT(j->out, TW_CHK_HER_03, TW_V_FAIL, off, "think block not closed in the model text%s",
            tw_diag_has(&r.errors, TW_D_THINK_UNTERMINATED) ? "" : " (a tool call ended it)");
    } else {
        bool any = tw_memmem(text, n, "<think", 6) != NULL;
        PUT(j->out, TW_CHK_HER_03, any ? TW_V_PASS : TW_V_SKIP, -1, "%s",
            any ? "every think block closed" : "no think block");
    }
    /* HER-02 */
    rview hidden = {0};
    size_t nh = closed_think_calls(text, n, j->L.max_depth, ex_is_qwen(ex) ? &h.o : NULL, &hidden);
    if (nh == 0) {
        PUT(j->out, TW_CHK_HER_02, TW_V_PASS, -1, "no tool call inside a closed think block");
    } else if (j->in->status != 200) {
        PUT(j->out, TW_CHK_HER_02, TW_V_SKIP, -1, "no successful response to judge");
    } else {
        rview got = {0};
        response_view(j, kind, stream, &got);
        const vcall *leak = NULL;
        for (size_t i = 0; i < hidden.ncalls && !leak; i++) {
            bool public_call = false;
            for (size_t k = 0; k < r.msg.ncalls; k++)
                if (strcmp(r.msg.calls[k].name, hidden.calls[i].name) == 0 &&
                    (!hidden.calls[i].args ||
                     tw_json_equal(r.msg.calls[k].arguments, hidden.calls[i].args)))
                    public_call = true;
            if (public_call)
                continue;
            for (size_t k = 0; k < got.ncalls; k++)
                if (strcmp(got.calls[k].name, hidden.calls[i].name) == 0 &&
                    (!hidden.calls[i].args || !got.calls[k].args ||
                     tw_json_equal(got.calls[k].args, hidden.calls[i].args)))
                    leak = &hidden.calls[i];
        }
        if (!got.ok)
            PUT(j->out, TW_CHK_HER_02, TW_V_SKIP, -1, "the response's calls could not be read");
        else if (leak)
            PUT(j->out, TW_CHK_HER_02, TW_V_FAIL, (int64_t)leak->off,
                "call %.64s from inside a closed think block (model text offset %zu) was emitted",
                leak->name, leak->off);
        else
            PUT(j->out, TW_CHK_HER_02, TW_V_PASS, -1,
                "%zu call(s) inside closed think blocks, none emitted", nh);
        tw_chk_rview_free(&got);
    }
    tw_chk_rview_free(&hidden);
    tw_result_free(&r);
    tw_opts_holder_free(&h);
}

/* ================================================================ vLLM /generate */

/* The token rule of the mock backend (toolwire/vllm.h). */
static size_t count_tokens(const char *s)
{
    size_t n = 0;
    if (s)
        tw_vllm_token_prefix(s, strlen(s), 0, &n);
    return n;
}

static long req_long(const cJSON *req, const char *key)
{
    const cJSON *v = tw_json_get(req, key);
    if (!cJSON_IsNumber(v))
        v = tw_json_get(tw_json_get(req, "options"), key);
    if (!cJSON_IsNumber(v))
        v = tw_json_get(tw_json_get(req, "generation_config"), key);
    return (long)tw_json_int(v, -1, LONG_MAX, -1);
}

void tw_chk_vln_checks(judge *j, const cJSON *body)
{
    tw_check_set *out = j->out;
    if (!cJSON_IsObject(body)) {
        PUT(out, TW_CHK_VLN_01, TW_V_FAIL, 0, "the body is not a JSON object");
        PUT(out, TW_CHK_VLN_02, TW_V_SKIP, -1, "no body");
        return;
    }
    const cJSON *th = tw_json_get(body, "thinking"), *rs = tw_json_get(body, "response"),
                *tc = tw_json_get(body, "tool_calls"), *pre = tw_json_get(body, "pre_tool_text");
    if (!cJSON_IsString(th))
        PUT(out, TW_CHK_VLN_01, TW_V_FAIL, tw_chk_find_off(j->in, "\"thinking\""),
            "thinking is not a string");
    else if (!cJSON_IsString(rs))
        PUT(out, TW_CHK_VLN_01, TW_V_FAIL, tw_chk_find_off(j->in, "\"response\""),
            "response is not a string");
    else if (!cJSON_IsArray(tc) && !cJSON_IsNull(tc))
        PUT(out, TW_CHK_VLN_01, TW_V_FAIL, tw_chk_find_off(j->in, "\"tool_calls\""),
            "tool_calls is %s", tc ? "not an array" : "absent");
    else if (cJSON_GetArraySize(tc) > 0 && !cJSON_IsString(pre))
        PUT(out, TW_CHK_VLN_01, TW_V_FAIL, tw_chk_find_off(j->in, "\"tool_calls\""),
            "%d call(s) without pre_tool_text", cJSON_GetArraySize(tc));
    else
        PUT(out, TW_CHK_VLN_01, TW_V_PASS, -1, "thinking, response, tool_calls%s present",
            cJSON_GetArraySize(tc) > 0 ? ", pre_tool_text" : "");
    /* the declared-name and schema rules hold for /generate calls as well */
    ocall calls[256] = {{0}};
    cJSON *argstr[256];
    size_t n = 0;
    for (const cJSON *c = cJSON_IsArray(tc) ? tc->child : NULL; c && n < 256; c = c->next, n++) {
        const cJSON *a = tw_json_get(c, "arguments");
        char *sa = a ? tw_json_print(a, NULL) : NULL;
        argstr[n] = cJSON_IsString(a) ? cJSON_CreateString(a->valuestring)
                                      : cJSON_CreateString(sa ? sa : "");
        free(sa);
        calls[n] =
            (ocall){tw_json_get_str(c, "id"), "function", tw_json_get_str(c, "name"), argstr[n], 0};
    }
    {
        tw_check_set tmp = {0};
        judge j2 = *j;
        j2.out = &tmp;
        tw_chk_ocall_checks(&j2, calls, n, NULL, -1, NULL, 0, -1, NULL, false, 0, NULL);
        const tw_check_id keep[] = {TW_CHK_OAI_R03, TW_CHK_OAI_R05};
        for (size_t k = 0; k < 2; k++) {
            const tw_check_result *r = tw_check_set_get(&tmp, keep[k]);
            if (r)
                PUT(out, keep[k], r->verdict, r->offset, "/generate: %s", r->evidence);
        }
        tw_check_set_free(&tmp);
    }
    for (size_t k = 0; k < n; k++)
        cJSON_Delete(argstr[k]);
    long mt = req_long(j->in->req_body, "max_thinking_tokens");
    long mr = req_long(j->in->req_body, "max_response_tokens");
    if (mt < 0 && mr < 0) {
        PUT(out, TW_CHK_VLN_02, TW_V_SKIP, -1, "the request sets no token budget");
        return;
    }
    size_t nt = cJSON_IsString(th) ? count_tokens(th->valuestring) : 0;
    size_t nr = cJSON_IsString(rs) ? count_tokens(rs->valuestring) : 0;
    if (mt >= 0 && nt > (size_t)mt)
        PUT(out, TW_CHK_VLN_02, TW_V_FAIL, tw_chk_find_off(j->in, "\"thinking\""),
            "thinking has %zu tokens, max_thinking_tokens %ld", nt, mt);
    else if (mr >= 0 && nr > (size_t)mr)
        PUT(out, TW_CHK_VLN_02, TW_V_FAIL, tw_chk_find_off(j->in, "\"response\""),
            "response has %zu tokens, max_response_tokens %ld", nr, mr);
    else
        PUT(out, TW_CHK_VLN_02, TW_V_PASS, -1, "thinking %zu/%ld, response %zu/%ld tokens", nt, mt,
            nr, mr);
}

/* ================================================================ number fidelity */

/* The first number of `a` whose counterpart at the same place in `b` is a
 * number spelled differently (by_value: of a different decimal value).
 * Writes its path and both spellings into diff; false when none. */
static bool number_differs(const cJSON *a, const cJSON *b, bool by_value, char *path, size_t plen,
                           size_t cap, char *diff, size_t diffn)
{
    if (cJSON_IsNumber(a)) {
        if (!cJSON_IsNumber(b))
            return false;
        const char *sa = tw_json_spelling(a), *sb = tw_json_spelling(b);
        bool same = by_value ? tw_json_number_equal(a, b) : (sa && sb && strcmp(sa, sb) == 0);
        if (same)
            return false;
        char ta[48], tb[48];
        if (!sa)
            snprintf(ta, sizeof ta, "%.17g", a->valuedouble);
        if (!sb)
            snprintf(tb, sizeof tb, "%.17g", b->valuedouble);
        snprintf(diff, diffn, "%s: %.60s vs %.60s", path[0] ? path : "/", sa ? sa : ta,
                 sb ? sb : tb);
        return true;
    }
    bool obj = cJSON_IsObject(a);
    if (!(obj && cJSON_IsObject(b)) && !(cJSON_IsArray(a) && cJSON_IsArray(b)))
        return false;
    size_t i = 0;
    const cJSON *y = b->child;
    for (const cJSON *x = a->child; x; x = x->next, i++) {
        const cJSON *other = obj ? tw_json_get(b, x->string ? x->string : "") : y;
        if (!obj && y)
            y = y->next;
        if (!other)
            continue;
        if (obj)
            snprintf(path + plen, cap - plen, "/%s", x->string ? x->string : "");
        else
            snprintf(path + plen, cap - plen, "/%zu", i);
        bool d = number_differs(x, other, by_value, path, strlen(path), cap, diff, diffn);
        path[plen] = '\0';
        if (d)
            return true;
    }
    return false;
}

/* Compare calls pairwise (same position, same name); false with diff filled
 * at the first differing number. *pairs counts the compared calls. */
static bool calls_numbers_equal(const tw_call *a, size_t na, const vcall *vb, const tw_call *b,
                                size_t nb, bool by_value, size_t *pairs, char *diff, size_t diffn)
{
    *pairs = 0;
    for (size_t i = 0; i < na && i < nb; i++) {
        const char *bn = vb ? vb[i].name : b[i].name;
        const cJSON *ba = vb ? vb[i].args : b[i].arguments;
        if (!a[i].arguments || !ba || strcmp(a[i].name ? a[i].name : "", bn ? bn : "") != 0)
            continue;
        (*pairs)++;
        char path[256] = "", d[300];
        if (number_differs(a[i].arguments, ba, by_value, path, 0, sizeof path, d, sizeof d)) {
            snprintf(diff, diffn, "call %zu (%.64s) %s", i, a[i].name ? a[i].name : "", d);
            return false;
        }
    }
    return true;
}

/* NUM-01: the streamed arguments against the non-streamed ones, spelling
 * by spelling (OAI-S07 compares them as values). */
void tw_chk_num_stream_spelling(judge *j, bool stream)
{
    const tw_judge_input *in = j->in;
    if (!stream || !in->pair_body) {
        PUT(j->out, TW_CHK_NUM_01, TW_V_SKIP, -1, "no streamed and non-streamed pair to compare");
        return;
    }
    tw_decode_opts o = {0};
    o.limits = j->L;
    o.allow_unknown_tool = true;
    tw_result a, b;
    if (tw_decode_response(in->path, true, in->body, in->body_len, &o, &a) != TW_OK) {
        PUT(j->out, TW_CHK_NUM_01, TW_V_SKIP, -1, "no reference decoder for this stream");
        return;
    }
    if (tw_decode_response(in->path, false, in->pair_body, in->pair_len, &o, &b) != TW_OK) {
        tw_result_free(&a);
        PUT(j->out, TW_CHK_NUM_01, TW_V_SKIP, -1, "no reference decoder for the non-streamed body");
        return;
    }
    char why[400] = "";
    size_t pairs = 0;
    bool eq = calls_numbers_equal(a.msg.calls, a.msg.ncalls, NULL, b.msg.calls, b.msg.ncalls, false,
                                  &pairs, why, sizeof why);
    if (!eq)
        PUT(j->out, TW_CHK_NUM_01, TW_V_FAIL, -1, "streamed vs non-streamed: %s", why);
    else
        PUT(j->out, TW_CHK_NUM_01, pairs ? TW_V_PASS : TW_V_SKIP, -1, "%s",
            pairs ? "every number spelled the same" : "no call in both results");
    tw_result_free(&a);
    tw_result_free(&b);
}

/* NUM-02: the response's arguments against the model text's. */
void tw_chk_num_model_values(judge *j, tw_api_kind kind, bool stream)
{
    const tw_fx_exchange *ex = j->in->ex;
    const char *text = ex ? ex->model_text : NULL;
    bool two_pass = false;
    if (!text && ex && ex->model_pass2) {
        text = ex->model_pass2;
        two_pass = true;
    }
    if (!text) {
        PUT(j->out, TW_CHK_NUM_02, TW_V_SKIP, -1, "no model text in the fixture");
        return;
    }
    if (j->in->status != 200) {
        PUT(j->out, TW_CHK_NUM_02, TW_V_SKIP, -1, "no successful response to judge");
        return;
    }
    tw_opts_holder h;
    tw_opts_holder_init(&h);
    char why[400] = "";
    if (ex->decode_options && !tw_opts_from_json(&h, ex->decode_options, NULL)) {
        tw_opts_holder_free(&h);
        tw_opts_holder_init(&h);
    }
    h.o.limits = j->L;
    h.o.allow_unknown_tool = true;
    if (two_pass)
        h.o.finish = TW_FINISH_STOP_SEQUENCE;
    tw_result r;
    if (text_decode(ex, text, strlen(text), &h.o, &r) != TW_OK) {
        PUT(j->out, TW_CHK_NUM_02, TW_V_SKIP, -1, "the %s decoder refused the model text",
            text_decoder(ex));
        tw_opts_holder_free(&h);
        return;
    }
    rview got = {0};
    response_view(j, kind, stream, &got);
    size_t pairs = 0;
    if (!got.ok) {
        PUT(j->out, TW_CHK_NUM_02, TW_V_SKIP, -1, "the response's calls could not be read");
    } else if (!calls_numbers_equal(r.msg.calls, r.msg.ncalls, got.calls, NULL, got.ncalls, true,
                                    &pairs, why, sizeof why)) {
        PUT(j->out, TW_CHK_NUM_02, TW_V_FAIL, -1, "model text vs response: %s", why);
    } else {
        PUT(j->out, TW_CHK_NUM_02, pairs ? TW_V_PASS : TW_V_SKIP, -1, "%s",
            pairs ? "every number carries the value the model wrote"
                  : "no call both in the model text and the response");
    }
    tw_chk_rview_free(&got);
    tw_result_free(&r);
    tw_opts_holder_free(&h);
}

/* ================================================================ Qwen3-Coder XML */

/* The XML elements of a Qwen3-Coder call; <tool_call> itself is OAI-R07's. */
static const char *const qwx_tags[] = {"<function=", "<parameter=", "</parameter>", "</function>"};

void tw_chk_qwx_checks(judge *j, tw_api_kind kind, bool stream)
{
    const tw_fx_exchange *ex = j->in->ex;
    static const tw_check_id ids[] = {TW_CHK_QWX_01, TW_CHK_QWX_02};
    if (!ex_is_qwen(ex) || !ex->model_text) {
        tw_chk_skip_ids(j->out, ids, 2, "not Qwen3-Coder XML model text");
        return;
    }
    if (j->in->status != 200 || !j->in->body) {
        tw_chk_skip_ids(j->out, ids, 2, "no successful response to judge");
        return;
    }
    /* QWX-02: the content the response carries */
    tw_decode_opts ro = {0};
    ro.limits = j->L;
    ro.allow_unknown_tool = true;
    tw_result resp;
    if (tw_decode_response(j->in->path, stream, j->in->body, j->in->body_len, &ro, &resp) !=
        TW_OK) {
        PUT(j->out, TW_CHK_QWX_02, TW_V_SKIP, -1, "the response's content could not be read");
    } else {
        const char *c = resp.msg.content.data ? resp.msg.content.data : "";
        size_t cn = resp.msg.content.len, at = cn;
        const char *tag = NULL;
        for (size_t k = 0; k < sizeof qwx_tags / sizeof qwx_tags[0]; k++) {
            const char *p = tw_memmem(c, cn, qwx_tags[k], strlen(qwx_tags[k]));
            if (p && (size_t)(p - c) < at) {
                at = (size_t)(p - c);
                tag = qwx_tags[k];
            }
        }
        if (tag)
            PUT(j->out, TW_CHK_QWX_02, TW_V_FAIL, tw_chk_find_off(j->in, tag),
                "content holds %s at character %zu: the XML tool call was not parsed", tag, at);
        else
            PUT(j->out, TW_CHK_QWX_02, TW_V_PASS, -1,
                "no XML tool-call markup in %zu bytes of content", cn);
        tw_result_free(&resp);
    }
    /* QWX-01: the calls against the model text's, read by the reference decoder */
    tw_opts_holder h;
    tw_chk_model_opts(j, ex, &h);
    tw_result r;
    if (text_decode(ex, ex->model_text, strlen(ex->model_text), &h.o, &r) != TW_OK) {
        PUT(j->out, TW_CHK_QWX_01, TW_V_SKIP, -1, "the qwen3-coder decoder refused the model text");
        tw_opts_holder_free(&h);
        return;
    }
    rview got = {0};
    response_view(j, kind, stream, &got);
    if (!got.ok) {
        PUT(j->out, TW_CHK_QWX_01, TW_V_SKIP, -1, "the response's calls could not be read");
    } else {
        size_t bad = SIZE_MAX;
        const char *what = "";
        size_t n = r.msg.ncalls < got.ncalls ? r.msg.ncalls : got.ncalls;
        for (size_t i = 0; i < n && bad == SIZE_MAX; i++) {
            if (strcmp(r.msg.calls[i].name, got.calls[i].name ? got.calls[i].name : "") != 0) {
                bad = i;
                what = "names";
            } else if (!got.calls[i].args ||
                       !tw_json_equal(r.msg.calls[i].arguments, got.calls[i].args)) {
                bad = i;
                what = "arguments";
            }
        }
        char eb[200], gb[200];
        if (bad != SIZE_MAX && strcmp(what, "names") == 0) {
            /* the count first when it differs too: a call the response adds
             * (one hidden in the thinking, say) shifts every name after it */
            PUT(j->out, TW_CHK_QWX_01, TW_V_FAIL, -1,
                "call %zu: the model text names %.64s, the response %.64s (the model text reads "
                "as %zu call(s), the response carries %zu)",
                bad, r.msg.calls[bad].name, got.calls[bad].name ? got.calls[bad].name : "(none)",
                r.msg.ncalls, got.ncalls);
        } else if (bad != SIZE_MAX) {
            char *e = tw_json_print(r.msg.calls[bad].arguments, NULL);
            char *g = got.calls[bad].args ? tw_json_print(got.calls[bad].args, NULL) : NULL;
            PUT(j->out, TW_CHK_QWX_01, TW_V_FAIL, -1,
                "call %zu (%.64s): %s differ: model text %s, response %s", bad,
                r.msg.calls[bad].name, what, tw_chk_clip(eb, sizeof eb, e ? e : "", 160),
                tw_chk_clip(gb, sizeof gb, g ? g : "(not a JSON object)", 160));
            free(e);
            free(g);
        } else if (r.msg.ncalls != got.ncalls) {
            PUT(j->out, TW_CHK_QWX_01, TW_V_FAIL, -1,
                "the model text reads as %zu call(s), the response carries %zu%s%.64s",
                r.msg.ncalls, got.ncalls, got.ncalls > n ? ": first extra " : "",
                got.ncalls > n && got.calls[n].name ? got.calls[n].name : "");
        } else {
            PUT(j->out, TW_CHK_QWX_01, TW_V_PASS, -1, "%zu call(s) as the model text reads", n);
        }
    }
    tw_chk_rview_free(&got);
    tw_result_free(&r);
    tw_opts_holder_free(&h);
}
