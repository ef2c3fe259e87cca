/* Helpers shared by the Criterion suites. */
#ifndef TWTEST_H
#define TWTEST_H

#include <stdbool.h>
#include <stddef.h>

/* Path under the source tree (TOOLWIRE_SOURCE_DIR); static buffer per call slot. */
const char *tw_test_src(const char *rel);
/* Path under ../shared (TOOLWIRE_SHARED_DIR), or NULL when it is absent. */
const char *tw_test_shared(const char *rel);
/* Exact-size heap copy (no terminator) so sanitizers catch over-reads. */
char *tw_test_exact(const char *s, size_t n);

/* Run a shell command (printf-style); its exit status. A command killed by
 * a signal fails the test. */
int tw_test_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A file's bytes (NUL-terminated, at most 256 MiB; *len its length); a file
 * that cannot be read fails the test. Free with free(). */
char *tw_test_slurp(const char *path, size_t *len);
/* Write s to path (created or emptied); fails the test when it cannot. */
void tw_test_spit(const char *path, const char *s);
/* A new directory under /tmp named after prefix; free() the path. */
char *tw_test_tmpdir(const char *prefix);
/* rm -rf dir. */
void tw_test_rm_tree(const char *dir);
/* The first 8-byte window of key found in s[0, n), or NULL: a part of a
 * secret long enough to count as a leak. */
const char *tw_test_window_of(const char *s, size_t n, const char *key);

/* Run the program (TOOLWIRE_BIN, set by ctest) with args (a shell word
 * list) and in on its standard input; its standard output into out (at most
 * outlen - 1 bytes, NUL-terminated), with its standard error after it when
 * with_err (dropped otherwise). Its exit status, -1 when a signal ended it. */
int tw_test_run_bin(const char *args, const char *in, char *out, size_t outlen, bool with_err);
/* The same, run in the directory dir (in, out and err are files there), its
 * standard output into out and its standard error into err (each at most
 * len - 1 bytes, NUL-terminated; zeroed first). */
int tw_test_run_bin_in(const char *dir, const char *args, const char *in, char *out, size_t outlen,
                       char *err, size_t errlen);
/* `toolwire serve ARGS…` (TOOLWIRE_BIN; args ends with NULL, at most 13) in
 * the background, its standard output in out_path and its standard error in
 * err_path. Waits up to 30 s for the line that says what it serves "on URL"
 * and copies the URL into url; a server that names none fails the test. The
 * process id (stop it with kill and waitpid). */
int tw_test_serve_start(const char *out_path, const char *err_path, char *url, size_t urln,
                        char *const *args);

#endif
