/* The backend checks on one crafted exchange: shared by the check suites
 * (tests/checks/). */
#ifndef TW_TEST_JUDGE_H
#define TW_TEST_JUDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "checks.h"

/* Judge a response (status, body from an exact-size copy, JSON or SSE by
 * sse) to the request req (JSON text, NULL: none) sent to path, with limits
 * L (NULL: the defaults). The verdict of the check id, its evidence into ev
 * (when not NULL). A check id without a verdict fails the test, and so does
 * any backend check without one when every_check. */
tw_verdict tw_test_judge(const char *path, const char *req, int status, const char *body, bool sse,
                         const tw_limits *L, tw_check_id id, char *ev, size_t evn,
                         bool every_check);
/* tw_test_judge of an exchange whose fixture part is ex (model text,
 * decode format and options; NULL: none). */
tw_verdict tw_test_judge_ex(const tw_fx_exchange *ex, const char *path, const char *req, int status,
                            const char *body, bool sse, tw_check_id id, char *ev, size_t evn);

#endif
