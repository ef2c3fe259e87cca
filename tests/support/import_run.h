/* Import a recording, run the fixture it becomes, read its verdicts: shared
 * by the import suites. */
#ifndef TW_IMPORT_RUN_H
#define TW_IMPORT_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "import.h"
#include "report.h"

/* Import src into the fresh folder made from the mkdtemp template dir
 * (recording the failing checks when expect), asserting success and
 * want_nx exchanges; the written fixture's path (malloc'd). */
char *tw_test_import_one(tw_import_kind kind, const char *src, char *dir, bool expect,
                         size_t want_nx);
/* Remove the fixture written by tw_test_import_one and its folder; frees written. */
void tw_test_import_cleanup(char *written, const char *dir);

/* Run the one fixture at path against the embedded mock with `profile`
 * (drop_responses: as if nothing had been recorded, for a reference
 * profile), asserting that it loaded and was not skipped. */
void tw_test_run_fixture(const char *path, const char *profile, bool drop_responses,
                         tw_report *rep);
/* The same with profile replay, asserting want_nex exchanges and no mismatch. */
void tw_test_replay_clean(const char *path, size_t want_nex, tw_report *rep);

/* The verdict of check id in exchange k of the report's first fixture
 * (asserting there is one); *ev (may be NULL) gets its evidence or "". */
tw_verdict tw_test_verdict(const tw_report *rep, size_t k, const char *id, const char **ev);
/* Expect verdict v for each check of the NULL-terminated ids in exchange k. */
void tw_test_expect_verdicts(const tw_report *rep, size_t k, const char *const *ids, tw_verdict v);

#endif
