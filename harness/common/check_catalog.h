/*
 * The catalog of conformance checks (docs/checks.md, written once in
 * check_ids.h): every check has a stable id, a severity and a family. C code
 * names a check by its enumerator (TW_CHK_OAI_R04); ids as strings come in
 * only through tw_check_from_name / tw_check_find. Below the fixtures (which
 * name checks they expect to fail) and the checks (which judge them).
 */
#ifndef TOOLWIRE_HARNESS_CHECK_CATALOG_H
#define TOOLWIRE_HARNESS_CHECK_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

#include "check_ids.h"

typedef enum tw_severity { TW_SEV_ERROR = 0, TW_SEV_WARN, TW_SEV_INFO } tw_severity;
typedef enum tw_verdict { TW_V_SKIP = 0, TW_V_PASS, TW_V_FAIL } tw_verdict;

/* One entry of the catalog (check_ids.h). */
typedef struct tw_check_def {
    tw_check_id chk; /* TW_CHK_OAI_R01 */
    const char *id;  /* "OAI-R01"; never renumbered */
    tw_severity sev;
    tw_check_family family;
    bool client;      /* judges what a client sent or handed on (CLI-*, CLT-*) */
    const char *rule; /* one line */
} tw_check_def;

/* The catalog, in report order: *n is TW_CHK_COUNT, entry i has chk == i. */
const tw_check_def *tw_checks_catalog(size_t *n);
/* The entry of a check id (never NULL for a tw_check_id below TW_CHK_COUNT). */
const tw_check_def *tw_check_def_of(tw_check_id c);
/* The stable id string of a check, "OAI-R01". */
const char *tw_check_name(tw_check_id c);
/* The strings' way in (fixtures, reports, options): false for an unknown id or NULL. */
bool tw_check_from_name(const char *id, tw_check_id *out);
/* NULL when unknown. */
const tw_check_def *tw_check_find(const char *id);
/* Index of id in the catalog, or -1. */
int tw_check_index(const char *id);
const char *tw_severity_name(tw_severity s);
const char *tw_verdict_name(tw_verdict v);
bool tw_verdict_from_name(const char *s, tw_verdict *out);

#endif
