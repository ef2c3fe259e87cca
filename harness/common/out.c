/* Redacted output: files and the standard streams (out.h). */
#include "out.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "redact.h"

void tw_error_file(tw_error *err, tw_status code, int64_t offset, const char *where,
                   const char *fmt, ...)
{
    if (!err)
        return;
    char reason[sizeof err->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    tw_error_set(err, code, offset, NULL, "%s", reason);
    if (where)
        snprintf(err->path, sizeof err->path, "%s", where);
}

static bool write_fd(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* The redacted bytes, or NULL (why set) when there is no memory. */
static bool redact(const char *path, const char *data, size_t len, tw_buf *clean, tw_error *err)
{
    if (tw_secret_scrub(data ? data : "", len, clean, NULL) != TW_OK) {
        tw_error_file(err, TW_ERR_NOMEM, -1, path, "%s: out of memory", path);
        tw_buf_free(clean);
        return false;
    }
    return true;
}

/* ---- temporaries ---- */

char *tw_temp_template(const char *path)
{
    size_t n = strlen(path) + 48;
    char *t = malloc(n);
    if (t)
        snprintf(t, n, "%s.tmp.%ld.XXXXXX", path, (long)getpid());
    return t;
}

/* mkstemp's six characters */
static bool temp_suffix(const char *s)
{
    if (strlen(s) != 6)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
            return false;
    return true;
}

/* The pid of a "NAME.tmp.PID.XXXXXX" name, 0 for "NAME.tmp.XXXXXX", -1 for
 * any other name. */
static long temp_pid(const char *name)
{
    const char *t = NULL;
    for (const char *p = name; (p = strstr(p, ".tmp.")); p++)
        t = p;
    if (!t || t == name)
        return -1;
    /* only temporaries of the files this program writes: reports, fixtures */
    static const char *const exts[] = {".json", ".md", ".html", ".xml"};
    bool own = false;
    for (size_t i = 0; i < sizeof exts / sizeof *exts; i++) {
        size_t el = strlen(exts[i]);
        if ((size_t)(t - name) > el && memcmp(t - el, exts[i], el) == 0)
            own = true;
    }
    if (!own)
        return -1;
    const char *rest = t + 5;
    if (temp_suffix(rest))
        return 0;
    const char *dot = strchr(rest, '.');
    if (!dot || dot == rest || dot - rest > 10 || !temp_suffix(dot + 1))
        return -1;
    long pid = 0;
    for (const char *p = rest; p < dot; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        pid = pid * 10 + (*p - '0');
    }
    return pid > 0 ? pid : -1;
}

size_t tw_clean_stale_temps(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t removed = 0;
    time_t now = time(NULL);
    long self = (long)getpid();
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long pid = temp_pid(e->d_name);
        if (pid < 0 || pid == self)
            continue;
        char p[4400];
        if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= sizeof p)
            continue;
        struct stat sb;
        if (lstat(p, &sb) != 0 || !S_ISREG(sb.st_mode))
            continue;
        double age = difftime(now, sb.st_mtime);
        bool stale;
        if (pid == 0)
            stale = age >= TW_STALE_TEMP_OLD_FORM_S;
        else
            stale = (kill((pid_t)pid, 0) != 0 && errno == ESRCH) || age >= TW_STALE_TEMP_AGE_S;
        if (stale && unlink(p) == 0)
            removed++;
    }
    closedir(d);
    return removed;
}

tw_status tw_out_write_file(const char *path, const char *data, size_t len, tw_error *err)
{
    tw_buf clean = {0};
    if (!redact(path, data, len, &clean, err))
        return TW_ERR_NOMEM;
    char *tmp = tw_temp_template(path);
    if (!tmp) {
        tw_error_file(err, TW_ERR_NOMEM, -1, path, "%s: out of memory", path);
        tw_buf_free(&clean);
        return TW_ERR_NOMEM;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        tw_error_file(err, TW_ERR_IO, -1, path, "%s: cannot create a temporary file: %s", path,
                      strerror(errno));
        free(tmp);
        tw_buf_free(&clean);
        return TW_ERR_IO;
    }
    /* mkstemp creates 0600; reports and fixtures are ordinary readable files */
    (void)fchmod(fd, 0644);
    int eno = write_fd(fd, clean.data ? clean.data : "", clean.len) ? 0 : (errno ? errno : EIO);
    if (!eno && fsync(fd) != 0)
        eno = errno;
    if (close(fd) != 0 && !eno)
        eno = errno;
    if (!eno && rename(tmp, path) != 0)
        eno = errno;
    tw_buf_free(&clean);
    if (eno) {
        unlink(tmp);
        tw_error_file(err, TW_ERR_IO, -1, path, "%s: cannot write: %s", path, strerror(eno));
        free(tmp);
        return TW_ERR_IO;
    }
    free(tmp);
    return TW_OK;
}

/* ---- a file written in pieces ---- */

static void out_file_release(tw_out_file *f)
{
    free(f->path);
    free(f->tmp);
    tw_buf_free(&f->held);
    tw_buf_free(&f->clean);
    f->path = f->tmp = NULL;
    f->fd = -1;
}

tw_status tw_out_file_open(tw_out_file *f, const char *path, tw_error *err)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    f->path = tw_strdup(path);
    f->tmp = tw_temp_template(path);
    if (!f->path || !f->tmp) {
        tw_error_file(err, TW_ERR_NOMEM, -1, path, "%s: out of memory", path);
        out_file_release(f);
        return TW_ERR_NOMEM;
    }
    f->fd = mkstemp(f->tmp);
    if (f->fd < 0) {
        tw_error_file(err, TW_ERR_IO, -1, path, "%s: cannot create a temporary file: %s", path,
                      strerror(errno));
        out_file_release(f);
        return TW_ERR_IO;
    }
    /* mkstemp creates 0600; reports and fixtures are ordinary readable files */
    (void)fchmod(f->fd, 0644);
    return TW_OK;
}

/* Redact and write s[0, n); the last *hold bytes (when hold is not NULL) are
 * left unwritten because the next bytes may complete a secret in them. */
static void out_file_put(tw_out_file *f, const char *s, size_t n, size_t *hold)
{
    f->clean.len = 0;
    tw_status st = tw_secret_scrub(s, n, &f->clean, hold);
    if (st != TW_OK) {
        f->st = st; /* nothing unredacted is written */
        return;
    }
    if (!write_fd(f->fd, f->clean.data ? f->clean.data : "", f->clean.len)) {
        f->err = errno ? errno : EIO;
        f->st = TW_ERR_IO;
    }
}

tw_status tw_out_file_write(tw_out_file *f, const char *p, size_t n)
{
    if (f->st != TW_OK || !n)
        return f->st;
    size_t hold = 0;
    if (!f->held.len) {
        /* nothing held back: redact the piece where it lies */
        out_file_put(f, p, n, &hold);
        if (f->st == TW_OK && hold &&
            (f->st = tw_buf_append(&f->held, p + n - hold, hold)) != TW_OK)
            return f->st;
        return f->st;
    }
    if ((f->st = tw_buf_append(&f->held, p, n)) != TW_OK)
        return f->st;
    out_file_put(f, f->held.data, f->held.len, &hold);
    if (f->st == TW_OK)
        tw_buf_consume(&f->held, f->held.len - hold);
    return f->st;
}

tw_status tw_out_file_commit(tw_out_file *f, tw_error *err)
{
    if (f->st == TW_OK && f->held.len)
        out_file_put(f, f->held.data, f->held.len, NULL);
    if (f->st == TW_OK && fsync(f->fd) != 0) {
        f->err = errno;
        f->st = TW_ERR_IO;
    }
    if (close(f->fd) != 0 && f->st == TW_OK) {
        f->err = errno;
        f->st = TW_ERR_IO;
    }
    f->fd = -1;
    if (f->st == TW_OK && rename(f->tmp, f->path) != 0) {
        f->err = errno;
        f->st = TW_ERR_IO;
    }
    tw_status st = f->st;
    if (st != TW_OK) {
        unlink(f->tmp);
        if (st == TW_ERR_IO)
            tw_error_file(err, TW_ERR_IO, -1, f->path, "%s: cannot write: %s", f->path,
                          strerror(f->err ? f->err : EIO));
        else
            tw_error_file(err, TW_ERR_IO, -1, f->path, "%s: cannot write: %s", f->path,
                          tw_code_name(st));
    }
    out_file_release(f);
    return st;
}

void tw_out_file_abort(tw_out_file *f)
{
    if (f->fd >= 0) {
        close(f->fd);
        unlink(f->tmp);
    }
    out_file_release(f);
}

tw_status tw_out_append_file(const char *path, const char *data, size_t len, tw_error *err)
{
    tw_buf clean = {0};
    if (!redact(path, data, len, &clean, err))
        return TW_ERR_NOMEM;
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    int eno = fd < 0 ? errno : 0;
    if (!eno && !write_fd(fd, clean.data ? clean.data : "", clean.len))
        eno = errno ? errno : EIO;
    if (fd >= 0 && close(fd) != 0 && !eno)
        eno = errno;
    tw_buf_free(&clean);
    if (eno) {
        tw_error_file(err, TW_ERR_IO, -1, path, "%s: cannot append: %s", path, strerror(eno));
        return TW_ERR_IO;
    }
    return TW_OK;
}

/* ---- the standard streams ---- */

typedef struct out_stream {
    int fd;
    tw_buf held; /* written to us, not yet to fd */
} out_stream;

static out_stream g_streams[2] = {{1, {0}}, {2, {0}}};
static bool g_installed;

/* Write what is held, redacted; keep back what may start a secret unless final. */
static bool stream_drain(out_stream *o, bool final)
{
    if (!o->held.len)
        return true;
    tw_buf clean = {0};
    size_t hold = 0;
    if (tw_secret_scrub(o->held.data, o->held.len, &clean, final ? NULL : &hold) != TW_OK) {
        tw_buf_free(&clean);
        return false; /* nothing unredacted is written */
    }
    bool ok = write_fd(o->fd, clean.data ? clean.data : "", clean.len);
    tw_buf_free(&clean);
    tw_buf_consume(&o->held, o->held.len - hold);
    return ok;
}

static ssize_t stream_write(void *cookie, const char *buf, size_t size)
{
    out_stream *o = cookie;
    if (tw_buf_append(&o->held, buf, size) != TW_OK)
        return -1;
    return stream_drain(o, false) ? (ssize_t)size : -1;
}

static int stream_close(void *cookie)
{
    out_stream *o = cookie;
    bool ok = stream_drain(o, true);
    tw_buf_free(&o->held);
    return ok ? 0 : EOF;
}

void tw_out_stdio_flush(void)
{
    if (!g_installed)
        return;
    FILE *o = stdout, *e = stderr;
    flockfile(o);
    fflush_unlocked(o);
    stream_drain(&g_streams[0], true);
    funlockfile(o);
    flockfile(e);
    fflush_unlocked(e);
    stream_drain(&g_streams[1], true);
    funlockfile(e);
}

static void at_exit(void)
{
    /* the streams stay open: handlers that run after this one may print */
    tw_out_stdio_flush();
    tw_buf_free(&g_streams[0].held);
    tw_buf_free(&g_streams[1].held);
}

bool tw_out_stdio_install(void)
{
    if (g_installed)
        return true;
    static const cookie_io_functions_t io = {NULL, stream_write, NULL, stream_close};
    fflush(stdout);
    fflush(stderr);
    FILE *o = fopencookie(&g_streams[0], "w", io);
    FILE *e = fopencookie(&g_streams[1], "w", io);
    if (!o || !e) {
        if (o)
            fclose(o);
        if (e)
            fclose(e);
        return false;
    }
    setvbuf(o, NULL, isatty(1) ? _IOLBF : _IOFBF, BUFSIZ);
    setvbuf(e, NULL, _IOLBF, BUFSIZ);
    stdout = o;
    stderr = e;
    g_installed = true;
    atexit(at_exit);
    return true;
}
