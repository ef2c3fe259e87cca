/* Shared helpers of the toolwire program. */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int tw_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "toolwire %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return TW_EXIT_USAGE;
}

char *tw_read_file(const char *path, size_t max, size_t *len, char *why, size_t whylen)
{
    bool is_stdin = !path || strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        snprintf(why, whylen, "cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    tw_buf b = {0};
    b.max = max;
    char tmp[65536];
    size_t n;
    tw_status st = TW_OK;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) {
        st = tw_buf_append(&b, tmp, n);
        if (st != TW_OK)
            break;
    }
    bool err = ferror(f);
    if (!is_stdin)
        fclose(f);
    if (st == TW_ERR_LIMIT) {
        snprintf(why, whylen, "'%s' is larger than %zu bytes", is_stdin ? "-" : path, max);
        tw_buf_free(&b);
        return NULL;
    }
    if (st != TW_OK || err) {
        snprintf(why, whylen, "cannot read '%s'%s", is_stdin ? "-" : path,
                 st == TW_ERR_NOMEM ? ": out of memory" : "");
        tw_buf_free(&b);
        return NULL;
    }
    return tw_buf_take(&b, len);
}

bool tw_parse_size(const char *s, size_t *out)
{
    if (!s || !*s)
        return false;
    unsigned long long v = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (~0ULL - 9) / 10)
            return false;
        v = v * 10 + (unsigned long long)(*p - '0');
    }
    if (p == s)
        return false;
    unsigned long long mul = 1;
    if (*p == 'K' || *p == 'k')
        mul = 1024, p++;
    else if (*p == 'M' || *p == 'm')
        mul = 1024 * 1024, p++;
    else if (*p == 'G' || *p == 'g')
        mul = 1024ULL * 1024 * 1024, p++;
    if (*p)
        return false;
    if (v > (~0ULL) / mul)
        return false;
    *out = (size_t)(v * mul);
    return true;
}

void tw_line_col(const char *buf, size_t len, size_t off, size_t *line, size_t *col)
{
    size_t l = 1, c = 1;
    if (off > len)
        off = len;
    for (size_t i = 0; i < off; i++) {
        if (buf[i] == '\n') {
            l++;
            c = 1;
        } else {
            c++;
        }
    }
    *line = l;
    *col = c;
}

cJSON *tw_load_json_file(const char *path, size_t max_bytes, size_t max_depth, char *why,
                         size_t whylen)
{
    size_t len = 0;
    char inner[256];
    char *buf = tw_read_file(path, max_bytes, &len, inner, sizeof inner);
    if (!buf) {
        snprintf(why, whylen, "%s", inner);
        return NULL;
    }
    cJSON *v = NULL;
    tw_json_error e;
    if (tw_json_parse(buf, len, max_depth, &v, &e) != TW_OK) {
        size_t line, col;
        tw_line_col(buf, len, e.offset, &line, &col);
        snprintf(why, whylen, "%s:%zu:%zu: %s", path, line, col, e.message);
        free(buf);
        return NULL;
    }
    free(buf);
    return v;
}

bool tw_write_all(FILE *f, const char *p, size_t n)
{
    return fwrite(p, 1, n, f) == n && fflush(f) == 0;
}
