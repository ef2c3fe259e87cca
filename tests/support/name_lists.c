/* Lists of names and how they differ (name_lists.h). */
#include "name_lists.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void tw_names_add_n(names *l, const char *s, size_t len)
{
    cr_assert_lt(l->n, TW_NAMES_MAX, "more than %d names", TW_NAMES_MAX);
    cr_assert_lt(len, TW_NAMES_LEN, "a name of %zu bytes", len);
    memcpy(l->at[l->n], s, len);
    l->at[l->n][len] = 0;
    l->n++;
}

void tw_names_add(names *l, const char *s)
{
    tw_names_add_n(l, s, strlen(s));
}

bool tw_names_has(const names *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->at[i], s) == 0)
            return true;
    return false;
}

/* How list differs from the table's names (each missing and each extra
 * name, and with ordered, the first place the order differs): the count,
 * the names in why. */
size_t tw_names_drift(const names *table, const names *list, bool ordered, char *why, size_t cap)
{
    size_t d = 0, off = 0;
    why[0] = 0;
#define SAY(...)                                                                                   \
    do {                                                                                           \
        int k_ = snprintf(why + off, cap - off, __VA_ARGS__);                                      \
        if (k_ > 0 && (size_t)k_ < cap - off)                                                      \
            off += (size_t)k_;                                                                     \
    } while (0)
    for (size_t i = 0; i < table->n; i++)
        if (!tw_names_has(list, table->at[i])) {
            SAY(" missing %s;", table->at[i]);
            d++;
        }
    for (size_t i = 0; i < list->n; i++)
        if (!tw_names_has(table, list->at[i])) {
            SAY(" not in the table %s;", list->at[i]);
            d++;
        }
    if (!d && ordered)
        for (size_t i = 0; i < table->n && i < list->n; i++)
            if (strcmp(table->at[i], list->at[i]) != 0) {
                SAY(" %s where the table has %s;", list->at[i], table->at[i]);
                d++;
                break;
            }
#undef SAY
    return d;
}

/* one name a line of a command's output */
names tw_names_command_lines(const char *cmd)
{
    names l = {0};
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p, "cannot run %s", cmd);
    char line[256];
    while (fgets(line, sizeof line, p)) {
        size_t n = strcspn(line, "\r\n");
        if (n)
            tw_names_add_n(&l, line, n);
    }
    cr_assert_eq(pclose(p), 0, "%s failed", cmd);
    return l;
}

char *tw_names_command_output(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p, "cannot run %s", cmd);
    size_t cap = 1 << 16, len = 0, got;
    char *s = malloc(cap);
    cr_assert_not_null(s);
    while ((got = fread(s + len, 1, cap - 1 - len, p)) > 0) {
        len += got;
        if (len + 1 == cap) {
            cap *= 2;
            s = realloc(s, cap);
            cr_assert_not_null(s);
        }
    }
    s[len] = 0;
    cr_assert_eq(pclose(p), 0, "%s failed", cmd);
    return s;
}

/* the entries of dir that are folders (dirs) or files ending in suffix,
 * the suffix cut off */
names tw_names_dir_entries(const char *dir, bool dirs, const char *suffix)
{
    names l = {0};
    DIR *d = opendir(dir);
    if (!d)
        return l;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        size_t n = strlen(e->d_name), k = suffix ? strlen(suffix) : 0;
        if (dirs && S_ISDIR(st.st_mode))
            tw_names_add(&l, e->d_name);
        else if (!dirs && S_ISREG(st.st_mode) && n > k && strcmp(e->d_name + n - k, suffix) == 0)
            tw_names_add_n(&l, e->d_name, n - k);
    }
    closedir(d);
    return l;
}

/* the `names` after anchor on the first line of text that holds it */
names tw_names_backticked(const char *text, const char *anchor)
{
    names l = {0};
    const char *a = strstr(text, anchor);
    cr_assert_not_null(a, "no line holds '%s'", anchor);
    const char *s = a + strlen(anchor);
    const char *end = strchr(a, '\n');
    for (const char *p = strchr(s, '`'); p && (!end || p < end); p = strchr(p, '`')) {
        const char *q = strchr(p + 1, '`');
        if (!q || (end && q > end))
            break;
        tw_names_add_n(&l, p + 1, (size_t)(q - p - 1));
        p = q + 1;
    }
    return l;
}

/* the `names` of the first column of the table after the heading (with
 * first_only, the first of each row) */
names tw_names_first_column(const char *text, const char *heading, bool first_only)
{
    names l = {0};
    const char *h = strstr(text, heading);
    cr_assert_not_null(h, "no heading '%s'", heading);
    const char *line = strchr(h, '\n');
    bool in_table = false;
    while (line && line[1]) {
        line++;
        const char *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line) : strlen(line);
        if (n && line[0] == '|') {
            in_table = true;
            const char *cell_end = memchr(line + 1, '|', n - 1);
            for (const char *p = memchr(line, '`', n); p && cell_end && p < cell_end;) {
                const char *q = memchr(p + 1, '`', (size_t)(cell_end - p - 1));
                if (!q)
                    break;
                tw_names_add_n(&l, p + 1, (size_t)(q - p - 1));
                p = first_only ? NULL : memchr(q + 1, '`', (size_t)(cell_end - q));
            }
        } else if (in_table) {
            break;
        }
        line = eol;
    }
    return l;
}
