/* Helpers shared by the Criterion suites. */
#ifndef TWTEST_H
#define TWTEST_H

#include <stddef.h>

/* Path under the source tree (TOOLWIRE_SOURCE_DIR); static buffer per call slot. */
const char *tw_test_src(const char *rel);
/* Path under ../shared (TOOLWIRE_SHARED_DIR), or NULL when it is absent. */
const char *tw_test_shared(const char *rel);
/* Exact-size heap copy (no terminator) so sanitizers catch over-reads. */
char *tw_test_exact(const char *s, size_t n);

#endif
