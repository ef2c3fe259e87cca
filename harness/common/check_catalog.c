/* The catalog of conformance checks (check_catalog.h). */
#include "check_catalog.h"

#include <string.h>

static const tw_check_def catalog[] = {
#define TW_CHECK_DEF_(name, id, sev, fam, rule)                                                    \
    {TW_CHK_##name,                                                                                \
     id,                                                                                           \
     TW_SEV_##sev,                                                                                 \
     TW_CHF_##fam,                                                                                 \
     TW_CHF_##fam == TW_CHF_CLIENT || TW_CHF_##fam == TW_CHF_CLIENT_LIB,                           \
     rule},
    TW_CHECK_CATALOG(TW_CHECK_DEF_) TW_CHECK_CATALOG_GEMINI(TW_CHECK_DEF_)
        TW_CHECK_CATALOG_QWEN(TW_CHECK_DEF_) TW_CHECK_CATALOG_DIALECT(TW_CHECK_DEF_)
            TW_CHECK_CATALOG_SIGN(TW_CHECK_DEF_) TW_CHECK_CATALOG_PARSER(TW_CHECK_DEF_)
#undef TW_CHECK_DEF_
};
#define NCHECKS (sizeof catalog / sizeof catalog[0])
_Static_assert(NCHECKS == TW_CHK_COUNT, "one catalog entry per check id");

const tw_check_def *tw_checks_catalog(size_t *n)
{
    *n = NCHECKS;
    return catalog;
}

const tw_check_def *tw_check_def_of(tw_check_id c)
{
    return (size_t)c < NCHECKS ? &catalog[c] : NULL;
}

const char *tw_check_name(tw_check_id c)
{
    return (size_t)c < NCHECKS ? catalog[c].id : "";
}

int tw_check_index(const char *id)
{
    for (size_t i = 0; id && i < NCHECKS; i++)
        if (strcmp(catalog[i].id, id) == 0)
            return (int)i;
    return -1;
}

bool tw_check_from_name(const char *id, tw_check_id *out)
{
    int i = tw_check_index(id);
    if (i < 0)
        return false;
    *out = (tw_check_id)i;
    return true;
}

const tw_check_def *tw_check_find(const char *id)
{
    int i = tw_check_index(id);
    return i < 0 ? NULL : &catalog[i];
}

const char *tw_severity_name(tw_severity s)
{
    return s == TW_SEV_ERROR ? "error" : s == TW_SEV_WARN ? "warn" : "info";
}

const char *tw_verdict_name(tw_verdict v)
{
    return v == TW_V_PASS ? "pass" : v == TW_V_FAIL ? "fail" : "skip";
}

bool tw_verdict_from_name(const char *s, tw_verdict *out)
{
    if (!s)
        return false;
    if (strcmp(s, "pass") == 0)
        *out = TW_V_PASS;
    else if (strcmp(s, "fail") == 0)
        *out = TW_V_FAIL;
    else if (strcmp(s, "skip") == 0)
        *out = TW_V_SKIP;
    else
        return false;
    return true;
}
