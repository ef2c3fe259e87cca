/*
 * Excerpts (redact.h): where a cut may fall in scrubbed text, and the head
 * and tail excerpt helpers over the process-wide set. Every excerpt is
 * scrubbed whole first and cut after.
 */
#include "redact_int.h"

static bool is_alnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

size_t tw_redacted_cut(const char *s, size_t n)
{
    static const size_t ml = sizeof TW_REDACTED - 1;
    for (size_t k = ml - 1; k > 0; k--)
        if (n >= k && memcmp(s + n - k, TW_REDACTED, k) == 0)
            return n - k;
    return n;
}

/* A byte of a token run: what a key, a bearer token or a JWT is made of. */
static bool run_char(unsigned char c)
{
    return is_alnum(c) || c == '-' || c == '_' || c == '+' || c == '/' || c == '.' || c == '~';
}

static bool starts_ci(const char *s, size_t n, const char *w)
{
    size_t l = strlen(w);
    return n >= l && strncasecmp(s, w, l) == 0;
}

/*
 * Is the token run s[a, b) shaped like a secret? A key of a known family
 * (sk-, rk-, sess-, gsk_, xai-, AIza, xox?-, ghp_, github_pat_), a JWT
 * (eyJ… with two dots), the token after "Bearer " / "Basic ", or a run of
 * 16 bytes or more after a name holding key, token, secret, password or auth
 * ("api_key=…", "\"token\": \"…").
 */
static bool secret_shaped(const char *s, size_t a, size_t b)
{
    static const char *const fam[] = {"sk-",  "rk-",  "sess-",       "gsk_", "xai-",
                                      "AIza", "ghp_", "github_pat_", NULL};
    const char *t = s + a;
    size_t n = b - a;
    for (const char *const *p = fam; *p; p++)
        if (n > strlen(*p) && memcmp(t, *p, strlen(*p)) == 0)
            return true;
    if (n > 5 && memcmp(t, "xox", 3) == 0 && is_alnum((unsigned char)t[3]) && t[4] == '-')
        return true;
    if (n > 3 && memcmp(t, "eyJ", 3) == 0) {
        const char *d1 = memchr(t, '.', n);
        if (d1 && memchr(d1 + 1, '.', n - (size_t)(d1 + 1 - t)))
            return true;
    }
    /* what stands before the run: separators, then a word */
    size_t i = a, sep = 0;
    while (i > 0 && sep < 6 &&
           (s[i - 1] == ' ' || s[i - 1] == '"' || s[i - 1] == '\'' || s[i - 1] == ':' ||
            s[i - 1] == '=' || s[i - 1] == '\\')) {
        i--;
        sep++;
    }
    if (!sep)
        return false;
    size_t w = i;
    while (w > 0 && i - w < 64 &&
           (is_alnum((unsigned char)s[w - 1]) || s[w - 1] == '_' || s[w - 1] == '-'))
        w--;
    if (w == i)
        return false;
    if (sep == 1 && s[a - 1] == ' ') {
        /* "Bearer X" */
        if ((i - w == 6 && starts_ci(s + w, i - w, "bearer")) ||
            (i - w == 5 && starts_ci(s + w, i - w, "basic")))
            return true;
    }
    if (n < 16)
        return false;
    char word[72];
    size_t wl = i - w;
    for (size_t k = 0; k < wl; k++)
        word[k] = (char)((s[w + k] >= 'A' && s[w + k] <= 'Z') ? s[w + k] - 'A' + 'a' : s[w + k]);
    word[wl] = '\0';
    return strstr(word, "key") || strstr(word, "token") || strstr(word, "secret") ||
           strstr(word, "password") || strstr(word, "auth");
}

/* The token run around the boundary between s[c - 1] and s[c]: [*a, *b),
 * false when the boundary is not inside one. */
static bool run_around(const char *s, size_t n, size_t c, size_t *a, size_t *b)
{
    if (c == 0 || c >= n || !run_char((unsigned char)s[c - 1]) || !run_char((unsigned char)s[c]))
        return false;
    size_t x = c, y = c;
    while (x > 0 && run_char((unsigned char)s[x - 1]))
        x--;
    while (y < n && run_char((unsigned char)s[y]))
        y++;
    *a = x;
    *b = y;
    return true;
}

size_t tw_excerpt_end(const char *s, size_t n, size_t cut)
{
    if (cut >= n)
        return n;
    cut = tw_redacted_cut(s, cut);
    size_t a, b;
    if (run_around(s, n, cut, &a, &b) && secret_shaped(s, a, b))
        cut = a;
    while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
        cut--;
    return cut;
}

size_t tw_excerpt_start(const char *s, size_t n, size_t cut)
{
    static const size_t ml = sizeof TW_REDACTED - 1;
    if (cut == 0)
        return 0;
    if (cut >= n)
        return n;
    /* not inside a marker */
    for (size_t k = 1; k < ml && k <= cut; k++)
        if (cut - k + ml <= n && memcmp(s + cut - k, TW_REDACTED, ml) == 0) {
            cut = cut - k + ml;
            break;
        }
    size_t a, b;
    if (run_around(s, n, cut, &a, &b) && secret_shaped(s, a, b))
        cut = b;
    while (cut < n && ((unsigned char)s[cut] & 0xC0) == 0x80)
        cut++;
    return cut;
}

/* s[0, n) scrubbed by the process set into b (NUL-terminated). */
static bool scrub_whole(const char *s, size_t n, tw_buf *b)
{
    memset(b, 0, sizeof *b);
    if (tw_secret_scrub(s ? s : "", s ? n : 0, b, NULL) != TW_OK || tw_buf_reserve(b, 1) != TW_OK) {
        tw_buf_free(b);
        return false;
    }
    b->data[b->len] = '\0'; /* the scrubber may only reserve room for it */
    return true;
}

char *tw_secret_clip(const char *s, size_t max)
{
    tw_buf b;
    if (!scrub_whole(s, s ? strlen(s) : 0, &b))
        return NULL;
    if (b.len > max) {
        b.len = tw_excerpt_end(b.data, b.len, max);
        if (tw_buf_puts(&b, "...") != TW_OK) {
            tw_buf_free(&b);
            return NULL;
        }
    }
    return tw_buf_take(&b, NULL);
}

void tw_secret_clip_into(char *dst, size_t n, const char *s)
{
    if (!n)
        return;
    char *c = n >= 4 ? tw_secret_clip(s, n - 4) : NULL;
    snprintf(dst, n, "%s", c ? c : n >= 4 ? "(withheld: out of memory)" : "");
    free(c);
}

char *tw_secret_tail(const char *s, size_t n, size_t max)
{
    tw_buf b;
    if (!scrub_whole(s, n, &b))
        return NULL;
    if (b.len <= max)
        return tw_buf_take(&b, NULL);
    size_t from = tw_excerpt_start(b.data, b.len, b.len - max);
    tw_buf t = {0};
    tw_status st = tw_buf_puts(&t, "...");
    if (st == TW_OK)
        st = tw_buf_append(&t, b.data + from, b.len - from);
    tw_buf_free(&b);
    if (st != TW_OK) {
        tw_buf_free(&t);
        return NULL;
    }
    return tw_buf_take(&t, NULL);
}
