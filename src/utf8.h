#ifndef TW_UTF8_H
#define TW_UTF8_H
/* Internal: UTF-8 as the JSON writers print it and messages store it. */
#include <stdbool.h>
#include <stddef.h>

/* Length of the valid UTF-8 sequence at s (n >= 1 bytes left), 0 if s[0]
 * does not begin one (RFC 3629: no overlong form, no surrogate, at most
 * U+10FFFF). */
static inline size_t tw_utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        return n >= 2 && (s[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (n < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80)
            return 0;
        if (c == 0xE0 && s[1] < 0xA0)
            return 0;
        if (c == 0xED && s[1] >= 0xA0)
            return 0; /* surrogates */
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (n < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80)
            return 0;
        if (c == 0xF0 && s[1] < 0x90)
            return 0;
        if (c == 0xF4 && s[1] >= 0x90)
            return 0;
        return 4;
    }
    return 0;
}

/* Do s[0, n) (n >= 1) begin a valid UTF-8 sequence that a cut ended early:
 * fewer bytes than s[0] announces, each of them one tw_utf8_len would take
 * there? */
static inline bool tw_utf8_cut_prefix(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t need = c >= 0xC2 && c <= 0xDF   ? 2
                  : c >= 0xE0 && c <= 0xEF ? 3
                  : c >= 0xF0 && c <= 0xF4 ? 4
                                           : 0;
    if (n >= need)
        return false;
    if (n >= 2) {
        unsigned char lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
        unsigned char hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
        if (s[1] < lo || s[1] > hi)
            return false;
    }
    for (size_t i = 2; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return false;
    return true;
}

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
