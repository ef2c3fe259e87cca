/* Decoder options shared by `parse` and the fixture loaders. */
#include "decode_opts.h"

#include <stdio.h>
#include <string.h>

void tw_opts_holder_init(tw_opts_holder *h)
{
    memset(h, 0, sizeof *h);
}

void tw_opts_holder_free(tw_opts_holder *h)
{
    tw_tools_free(h->tools, h->ntools);
    memset(h, 0, sizeof *h);
}

void tw_opts_set_tools(tw_opts_holder *h, tw_tool *tools, size_t n)
{
    tw_tools_free(h->tools, h->ntools);
    h->tools = tools;
    h->ntools = n;
    h->o.tools = tools;
    h->o.ntools = n;
    h->o.tools_declared = true;
}

bool tw_parse_finish(const char *s, tw_finish *out)
{
    if (strcmp(s, "stop") == 0)
        *out = TW_FINISH_STOP;
    else if (strcmp(s, "length") == 0)
        *out = TW_FINISH_LENGTH;
    else if (strcmp(s, "stop_sequence") == 0)
        *out = TW_FINISH_STOP_SEQUENCE;
    else
        return false;
    return true;
}

bool tw_parse_unterminated(const char *s, tw_unterminated *out)
{
    if (strcmp(s, "synthesize") == 0)
        *out = TW_UNTERM_SYNTHESIZE;
    else if (strcmp(s, "direct") == 0)
        *out = TW_UNTERM_DIRECT;
    else
        return false;
    return true;
}

bool tw_parse_think_tags(const char *s, unsigned *out)
{
    if (strcmp(s, "think") == 0)
        *out = TW_TAG_THINK;
    else if (strcmp(s, "thinking") == 0)
        *out = TW_TAG_THINKING;
    else if (strcmp(s, "both") == 0)
        *out = TW_TAG_THINK | TW_TAG_THINKING;
    else
        return false;
    return true;
}

static bool size_field(const cJSON *v, size_t *out)
{
    if (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble > 1e15 ||
        v->valuedouble != (double)(size_t)v->valuedouble)
        return false;
    *out = (size_t)v->valuedouble;
    return true;
}

bool tw_opts_from_json(tw_opts_holder *h, const cJSON *j, tw_error *err)
{
    if (!j || cJSON_IsNull(j))
        return true;
    if (!cJSON_IsObject(j)) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "'options' must be an object");
        return false;
    }
    for (const cJSON *m = j->child; m; m = m->next) {
        const char *k = m->string;
        bool ok = true;
        if (strcmp(k, "forced_open") == 0)
            ok = cJSON_IsBool(m) && ((h->o.forced_open = cJSON_IsTrue(m)), true);
        else if (strcmp(k, "bare_json") == 0)
            ok = cJSON_IsBool(m) && ((h->o.bare_json = cJSON_IsTrue(m)), true);
        else if (strcmp(k, "allow_unknown_tool") == 0)
            ok = cJSON_IsBool(m) && ((h->o.allow_unknown_tool = cJSON_IsTrue(m)), true);
        else if (strcmp(k, "schema_warn") == 0)
            ok = cJSON_IsBool(m) && ((h->o.schema_warn = cJSON_IsTrue(m)), true);
        else if (strcmp(k, "unterminated") == 0)
            ok = cJSON_IsString(m) && tw_parse_unterminated(m->valuestring, &h->o.unterminated);
        else if (strcmp(k, "finish") == 0)
            ok = cJSON_IsString(m) && tw_parse_finish(m->valuestring, &h->o.finish);
        else if (strcmp(k, "think_tags") == 0)
            ok = cJSON_IsString(m) && tw_parse_think_tags(m->valuestring, &h->o.think_tags);
        else if (strcmp(k, "max_args_bytes") == 0)
            ok = size_field(m, &h->o.limits.max_args_bytes);
        else if (strcmp(k, "max_calls") == 0)
            ok = size_field(m, &h->o.limits.max_calls);
        else if (strcmp(k, "max_depth") == 0)
            ok = size_field(m, &h->o.limits.max_depth);
        else if (strcmp(k, "max_input_bytes") == 0)
            ok = size_field(m, &h->o.limits.max_input_bytes);
        else if (strcmp(k, "tools") == 0) {
            tw_tool *t = NULL;
            size_t n = 0;
            tw_error inner;
            if (tw_tools_read(m, &h->o.limits, &t, &n, &inner) != TW_OK) {
                tw_error_set(err, TW_ERR_INVALID, -1, NULL, "options.tools: %s", inner.message);
                return false;
            }
            tw_opts_set_tools(h, t, n);
        } else {
            tw_error_set(err, TW_ERR_INVALID, -1, NULL, "unknown option '%s'", k);
            return false;
        }
        if (!ok) {
            tw_error_set(err, TW_ERR_INVALID, -1, NULL, "option '%s' has a bad value", k);
            return false;
        }
    }
    return true;
}
