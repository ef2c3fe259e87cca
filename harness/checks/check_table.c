/*
 * The check table (checks_int.h): every family of backend checks under its
 * name, with what it judges and the one function that judges it. A family's
 * function reads the exchange and writes its verdicts; it calls no other
 * family and not the dispatcher (checks.c), which picks the families of each
 * format from this table.
 */
#include "checks_int.h"

static const tw_check_id OAI_S_IDS[] = {TW_CHK_OAI_S01, TW_CHK_OAI_S02, TW_CHK_OAI_S03,
                                        TW_CHK_OAI_S04, TW_CHK_OAI_S05, TW_CHK_OAI_S06,
                                        TW_CHK_OAI_S07, TW_CHK_OAI_S08};
static const tw_check_id OAI_R_IDS[] = {TW_CHK_OAI_R01, TW_CHK_OAI_R02, TW_CHK_OAI_R03,
                                        TW_CHK_OAI_R04, TW_CHK_OAI_R05, TW_CHK_OAI_R06,
                                        TW_CHK_OAI_R07, TW_CHK_OAI_R08};

/* An error answer's body, parsed for its envelope (OAI-E01). */
static void error_envelope(judge *j)
{
    const tw_judge_input *in = j->in;
    cJSON *eb = tw_chk_parse_json(in->body ? in->body : "", in->body_len, j->L.max_depth);
    tw_chk_oai_error(j, eb);
    cJSON_Delete(eb);
}

static void fam_openai(judge *j, const tw_chk_exchange *x)
{
    const tw_judge_input *in = j->in;
    tw_check_set *out = j->out;
    if (in->status >= 400) {
        error_envelope(j);
        tw_chk_skip_ids(out, OAI_R_IDS, 8, "error response");
        tw_chk_skip_ids(out, OAI_S_IDS, 8, "error response");
    } else if (x->stream) {
        ostream st = {0};
        tw_chk_oai_stream(j, &st);
        tw_chk_oai_s07(j, &st);
        tw_chk_ostream_free(&st);
    } else {
        if (!x->body) {
            char cb[112];
            PUT(out, TW_CHK_OAI_R01, TW_V_FAIL, 0, "the body is not JSON%s%s",
                in->transport_error ? ": " : "",
                tw_chk_clip(cb, sizeof cb, in->transport_error, 100));
        }
        tw_chk_oai_response(j, x->body);
        tw_chk_skip_ids(out, OAI_S_IDS, 8, "not streamed");
    }
    if (in->status < 400)
        PUT(out, TW_CHK_OAI_E01, TW_V_SKIP, -1, "not an error response");
}

static void fam_anthropic(judge *j, const tw_chk_exchange *x)
{
    if (j->in->status >= 400)
        return;
    if (x->stream)
        tw_chk_ant_stream(j);
    else
        tw_chk_ant_response(j, x->body);
}

static void fam_generate(judge *j, const tw_chk_exchange *x)
{
    if (j->in->status < 400)
        tw_chk_vln_checks(j, x->body);
}

static void fam_gemini(judge *j, const tw_chk_exchange *x)
{
    if (j->in->status < 400)
        tw_chk_gem_checks(j, x->body, x->stream);
}

static void fam_responses(judge *j, const tw_chk_exchange *x)
{
    if (j->in->status >= 400) {
        error_envelope(j);
        tw_chk_ors_skip(j->out, "error response");
    } else {
        tw_chk_ors_checks(j, x->stream, x->body);
        PUT(j->out, TW_CHK_OAI_E01, TW_V_SKIP, -1, "not an error response");
    }
}

static void fam_session(judge *j, const tw_chk_exchange *x)
{
    tw_chk_ses_checks(j, x->stream, x->stream ? NULL : x->body);
}

static void fam_hermes(judge *j, const tw_chk_exchange *x)
{
    if (j->in->status < 400)
        tw_chk_hermes_checks(j, x->kind, x->stream);
}

static void fam_qwen_xml(judge *j, const tw_chk_exchange *x)
{
    if (j->in->status < 400)
        tw_chk_qwx_checks(j, x->kind, x->stream);
}

static void fam_dialect(judge *j, const tw_chk_exchange *x)
{
    if (j->in->status < 400)
        tw_chk_dialect_checks(j, x->stream);
}

static void fam_numbers(judge *j, const tw_chk_exchange *x)
{
    if (j->in->status < 400 && x->kind) {
        tw_chk_num_stream_spelling(j, x->stream);
        tw_chk_num_model_values(j, x->kind, x->stream);
    }
}

static const tw_check_family_def FAMILIES[] = {
    {"openai",
     "OpenAI chat completions: body, stream, streamed against non-streamed, error (OAI-*)",
     fam_openai},
    {"anthropic", "Anthropic messages: body and stream (ANT-*)", fam_anthropic},
    {"generate", "vLLM /generate: its fields and token budgets (VLN-*)", fam_generate},
    {"gemini", "Gemini generateContent: body and stream (GEM-*)", fam_gemini},
    {"responses", "OpenAI Responses: body, stream, error envelope (ORS-*, OAI-E01)", fam_responses},
    {"session", "strict sessions: continuations and refusals (SES-*)", fam_session},
    {"hermes", "<tool_call> blocks and think blocks in the model's text (HER-*)", fam_hermes},
    {"qwen-xml", "model text that decodes as Qwen3-Coder XML (QWX-*)", fam_qwen_xml},
    {"dialect", "model text in a model dialect: calls, content, reasoning, ids, finish (DLX-*)",
     fam_dialect},
    {"numbers", "numbers in tool-call arguments: spelled alike, values kept (NUM-*)", fam_numbers},
};

const tw_check_family_def *tw_check_families(size_t *n)
{
    *n = sizeof FAMILIES / sizeof FAMILIES[0];
    return FAMILIES;
}

const tw_check_family_def *tw_check_family_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof FAMILIES / sizeof FAMILIES[0]; i++)
        if (strcmp(FAMILIES[i].name, name) == 0)
            return &FAMILIES[i];
    return NULL;
}
