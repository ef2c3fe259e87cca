#ifndef TW_UTF8_H
#define TW_UTF8_H
/* Internal: UTF-8 as the JSON writers print it. */
#include <stdbool.h>
#include <stddef.h>

/* A NUL-terminated copy of s[0, n) as every JSON writer prints it: each byte
 * that does not begin a valid UTF-8 sequence becomes U+FFFD. *changed says
 * whether any byte was replaced. NULL (and *changed set) when out of memory;
 * the caller frees the copy. */
char *tw_utf8_as_written(const char *s, size_t n, bool *changed);

/* How many bytes of s[0, n) the writers print as U+FFFD (bytes that do not
 * begin a valid UTF-8 sequence); *first is the index of the first of them
 * (n when there is none). One linear pass. */
size_t tw_utf8_invalid(const char *s, size_t n, size_t *first);

#endif
