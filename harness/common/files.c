/* The program's file utilities (files.h). */
#include "files.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "out.h"

/* Read up to max bytes (0: no cap); *over says there was more. */
static tw_status read_stream(FILE *f, size_t max, tw_buf *b, bool *over)
{
    char tmp[65536];
    *over = false;
    for (;;) {
        size_t want = sizeof tmp;
        size_t room = max - b->len;
        if (max && room < want)
            want = room + 1; /* one byte more tells "over" from "exactly max" */
        size_t n = fread(tmp, 1, want, f);
        if (n == 0)
            return TW_OK;
        if (max && n > max - b->len) {
            *over = true;
            n = max - b->len;
        }
        tw_status st = tw_buf_append(b, tmp, n);
        if (st != TW_OK || *over)
            return st;
    }
}

static tw_status read_path(const char *path, size_t max, bool head, char **data, size_t *len,
                           tw_error *err)
{
    *data = NULL;
    *len = 0;
    bool is_stdin = !path || strcmp(path, "-") == 0;
    const char *name = is_stdin ? "-" : path;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        tw_error_file(err, TW_ERR_IO, -1, name, "cannot open '%s': %s", name, strerror(errno));
        return TW_ERR_IO;
    }
    tw_buf b = {0};
    bool over = false;
    tw_status st = read_stream(f, max, &b, &over);
    bool failed = ferror(f) != 0;
    if (!is_stdin)
        fclose(f);
    if (st == TW_OK && over && !head) {
        tw_error_file(err, TW_ERR_LIMIT, -1, name, "'%s' is larger than %zu bytes", name, max);
        st = TW_ERR_LIMIT;
    } else if (st != TW_OK || failed) {
        tw_error_file(err, st == TW_ERR_NOMEM ? TW_ERR_NOMEM : TW_ERR_IO, -1, name,
                      "cannot read '%s'%s", name, st == TW_ERR_NOMEM ? ": out of memory" : "");
        if (st == TW_OK)
            st = TW_ERR_IO;
    }
    if (st != TW_OK) {
        tw_buf_free(&b);
        return st;
    }
    if (head) {
        /* exactly the bytes read, nothing after them */
        *data = malloc(b.len ? b.len : 1);
        if (*data && b.len)
            memcpy(*data, b.data, b.len);
        *len = b.len;
        tw_buf_free(&b);
    } else {
        *data = tw_buf_take(&b, len);
    }
    if (!*data) {
        tw_error_file(err, TW_ERR_NOMEM, -1, name, "cannot read '%s': out of memory", name);
        return TW_ERR_NOMEM;
    }
    return TW_OK;
}

tw_status tw_file_read(const char *path, size_t max, char **data, size_t *len, tw_error *err)
{
    return read_path(path, max, false, data, len, err);
}

char *tw_read_file(const char *path, size_t max, size_t *len, tw_error *err)
{
    char *data;
    size_t n;
    if (read_path(path, max, false, &data, &n, err) != TW_OK)
        return NULL;
    *len = n;
    return data;
}

char *tw_read_file_head(const char *path, size_t max, size_t *len, tw_error *err)
{
    char *data;
    size_t n;
    if (read_path(path, max, true, &data, &n, err) != TW_OK)
        return NULL;
    *len = n;
    return data;
}

bool tw_write_all(FILE *f, const char *p, size_t n)
{
    return fwrite(p, 1, n, f) == n && fflush(f) == 0;
}

tw_status tw_write_atomic(const char *path, const char *data, size_t len, tw_error *err)
{
    return tw_out_write_file(path, data, len, err);
}

tw_status tw_append_file(const char *path, const char *data, size_t len, tw_error *err)
{
    return tw_out_append_file(path, data, len, err);
}

bool tw_mkdirs(const char *dir)
{
    size_t n = dir ? strlen(dir) : 0;
    if (n == 0) {
        errno = ENOENT;
        return false;
    }
    char *p = tw_strdup(dir);
    if (!p)
        return false;
    bool ok = true;
    for (size_t i = 1; i <= n && ok; i++) {
        if (p[i] == '/' || p[i] == 0) {
            char c = p[i];
            p[i] = 0;
            if (mkdir(p, 0777) != 0 && errno != EEXIST)
                ok = false;
            p[i] = c;
        }
    }
    free(p);
    if (!ok)
        return false;
    struct stat sb;
    if (stat(dir, &sb) != 0)
        return false;
    if (!S_ISDIR(sb.st_mode)) {
        errno = ENOTDIR;
        return false;
    }
    return true;
}

bool tw_path_join(char *dst, size_t n, const char *dir, const char *name)
{
    int w = snprintf(dst, n, "%s/%s", dir, name);
    return w >= 0 && (size_t)w < n;
}

void tw_safe_name(char *dst, size_t n, const char *src)
{
    size_t o = 0;
    for (; src && *src && o + 1 < n; src++) {
        char c = *src;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '_' || c == '.';
        dst[o++] = ok ? c : '_';
    }
    if (o == 0 && n > 1)
        dst[o++] = '_';
    if (n)
        dst[o] = 0;
    if (n && dst[0] == '.')
        dst[0] = '_';
}
