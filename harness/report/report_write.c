/*
 * Every file of a conformance report (report.h): the JSON, Markdown, JUnit
 * and HTML renderings written each to its file in pieces. Above the model
 * (report.c) and the renderers.
 */
#include "report.h"
#include "report_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "out.h"

static tw_status out_file_sink(void *u, const char *p, size_t n)
{
    return tw_out_file_write(u, p, n);
}

bool tw_report_dir_ready(const char *dir, tw_error *err)
{
    errno = 0;
    if (!tw_mkdirs(dir)) {
        int e = errno ? errno : ENOENT;
        tw_error_set(err, TW_ERR_IO, -1, NULL, "cannot create directory %s: %s", dir, strerror(e));
        return false;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        int e = errno;
        tw_error_set(err, TW_ERR_IO, -1, NULL, "cannot write into directory %s: %s", dir,
                     strerror(e));
        return false;
    }
    return true;
}

tw_status tw_report_write_all(const tw_report *r, const char *dir, tw_error *err)
{
    if (!tw_report_dir_ready(dir, err))
        return TW_ERR_IO;
    char base[TW_REPORT_BASE_MAX];
    tw_report_file_base(r->backend, base, sizeof base);
    static const char *const ext[] = {"json", "md", "junit.xml", "html"};
    void (*const fn[])(const tw_report *, tw_rw *) = {tw_report_json_emit, tw_report_markdown_emit,
                                                      tw_report_junit_emit, tw_report_html_emit};
    tw_buf b = {0};
    for (size_t i = 0; i < 4; i++) {
        char name[220], path[4400];
        snprintf(name, sizeof name, "%s.%s", base, ext[i]);
        if (!tw_path_join(path, sizeof path, dir, name)) {
            tw_error_set(err, TW_ERR_LIMIT, -1, NULL, "%s/%s: the path is too long", dir, name);
            tw_buf_free(&b);
            return TW_ERR_LIMIT;
        }
        /* each document goes to its file in pieces, never held whole */
        tw_out_file f;
        tw_status st = tw_out_file_open(&f, path, err);
        if (st != TW_OK) {
            tw_buf_free(&b);
            return st;
        }
        b.len = 0;
        tw_rw w = {.b = &b, .st = TW_OK, .sink = out_file_sink, .sink_u = &f};
        fn[i](r, &w);
        tw_rw_flush(&w, true);
        if (w.st != TW_OK && f.st == TW_OK) {
            /* the renderer failed, not the file */
            tw_error_set(err, TW_ERR_INVALID, -1, NULL, "cannot render %s: %s", path,
                         tw_code_name(w.st));
            tw_out_file_abort(&f);
            tw_buf_free(&b);
            return w.st;
        }
        st = tw_out_file_commit(&f, err);
        if (st != TW_OK) {
            tw_buf_free(&b);
            return st;
        }
    }
    tw_buf_free(&b);
    return TW_OK;
}
