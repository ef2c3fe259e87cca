/* Unknown names in messages (names.h). */
#include "names.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "toolwire/registry.h"

/* Levenshtein distance, case ignored; both at most TW_NAME_NEAR_MAX bytes. */
static size_t distance(const char *a, size_t la, const char *b, size_t lb)
{
    size_t row[TW_NAME_NEAR_MAX + 1];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t sub =
                diag + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
            size_t del = up + 1, ins = row[j - 1] + 1;
            row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
            diag = up;
        }
    }
    return row[lb];
}

const char *tw_nearest_name(const char *given, const char *const *names, size_t n)
{
    size_t lg = given ? strlen(given) : 0;
    if (!given || lg > TW_NAME_NEAR_MAX)
        return NULL;
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    /* the whole name, then its stem (up to the first '-': "openai" of
     * "openai-response"), so that a misspelt family finds its first format */
    for (int stem = 0; stem < 2 && !best; stem++)
        for (size_t i = 0; i < n; i++) {
            size_t ln = strlen(names[i]);
            if (stem && strchr(names[i], '-'))
                ln = (size_t)(strchr(names[i], '-') - names[i]);
            else if (stem)
                continue;
            if (ln > TW_NAME_NEAR_MAX)
                continue;
            size_t d = distance(given, lg, names[i], ln);
            size_t allowed = ln / 3 > 2 ? ln / 3 : 2;
            if (d <= allowed && d < best_d) {
                best = names[i];
                best_d = d;
            }
        }
    return best;
}

bool tw_unknown_name_error(tw_error *err, const char *what, const char *given,
                           const char *const *names, size_t n)
{
    char list[2048];
    size_t used = 0;
    list[0] = 0;
    for (size_t i = 0; i < n && used < sizeof list; i++) {
        int w = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", names[i]);
        used = w < 0 ? sizeof list : used + (size_t)w;
    }
    const char *near = tw_nearest_name(given, names, n);
    char hint[TW_NAME_NEAR_MAX + 32] = "";
    if (near)
        snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
    tw_error_set(err, TW_ERR_INVALID, -1, NULL, "unknown %s '%.100s' (one of: %s%s)", what,
                 given ? given : "", list, hint);
    return false;
}

size_t tw_format_names(const char **names, size_t cap, bool (*accept)(const char *name),
                       const char *const *extra, size_t n_extra)
{
    size_t nm = 0, got = 0;
    const tw_module *m = tw_modules(&nm);
    for (size_t i = 0; i < nm && got < cap; i++) {
        if (accept && !accept(m[i].name))
            continue;
        bool seen = false;
        for (size_t k = 0; k < got && !seen; k++)
            seen = strcmp(names[k], m[i].name) == 0;
        if (!seen)
            names[got++] = m[i].name;
    }
    for (size_t i = 0; i < n_extra && got < cap; i++)
        names[got++] = extra[i];
    return got;
}
