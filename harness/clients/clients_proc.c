/* Client conformance: running a driver process (clients.h, tw_proc_run). */
#include "clients.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- running a driver ---- */

long tw_clients_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

void tw_proc_result_free(tw_proc_result *r)
{
    free(r->out);
    free(r->err);
    memset(r, 0, sizeof *r);
}

tw_status tw_proc_run(const char *cmd, const char *arg, const char *input, size_t inlen,
                      long timeout_ms, size_t max_out, size_t max_err, tw_proc_result *r)
{
    memset(r, 0, sizeof *r);
    r->exit_code = -1;
    if (strlen(cmd) > TW_PROC_MAX_CMD)
        return TW_ERR_LIMIT;
    tw_buf script = {0};
    tw_buf_printf(&script, "exec %s \"$@\"", cmd);
    if (!script.data)
        return TW_ERR_NOMEM;
    /* close-on-exec: a driver started by another thread meanwhile must not
     * hold these pipes open (the read would wait for its end) */
    int pin[2] = {-1, -1}, pout[2] = {-1, -1}, perr[2] = {-1, -1};
    pid_t pid = -1;
    if (pipe2(pin, O_CLOEXEC) == 0 && pipe2(pout, O_CLOEXEC) == 0 && pipe2(perr, O_CLOEXEC) == 0)
        pid = fork();
    if (pid < 0) {
        close_fd(&pin[0]), close_fd(&pin[1]), close_fd(&pout[0]), close_fd(&pout[1]);
        close_fd(&perr[0]), close_fd(&perr[1]);
        tw_buf_free(&script);
        return TW_ERR_IO;
    }
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGPIPE, SIG_DFL);
        dup2(pin[0], 0);
        dup2(pout[1], 1);
        dup2(perr[1], 2);
        for (int fd = 0; fd < 3; fd++) /* a pipe that already was fd 0..2 keeps close-on-exec */
            fcntl(fd, F_SETFD, 0);
        execl("/bin/sh", "sh", "-c", script.data, "sh", arg, (char *)NULL);
        _exit(127);
    }
    tw_buf_free(&script);
    setpgid(pid, pid); /* both sides: no race with the kill below */
    /* a driver that exits before reading all of its input must not kill this process */
    struct sigaction ign, old_pipe;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, &old_pipe);
    close_fd(&pin[0]), close_fd(&pout[1]), close_fd(&perr[1]);
    fcntl(pin[1], F_SETFL, O_NONBLOCK);
    if (inlen == 0)
        close_fd(&pin[1]);
    tw_buf out = {0}, err = {0};
    size_t sent = 0;
    long deadline = tw_clients_now_ms() + timeout_ms;
    bool killed = false;
    while (pout[0] >= 0 || perr[0] >= 0) {
        struct pollfd p[3];
        int np = 0, io = -1, ie = -1, ii = -1;
        if (pout[0] >= 0)
            io = np, p[np++] = (struct pollfd){pout[0], POLLIN, 0};
        if (perr[0] >= 0)
            ie = np, p[np++] = (struct pollfd){perr[0], POLLIN, 0};
        if (pin[1] >= 0)
            ii = np, p[np++] = (struct pollfd){pin[1], POLLOUT, 0};
        long left = deadline - tw_clients_now_ms();
        if (left <= 0) {
            r->timed_out = true;
            break;
        }
        int rc = poll(p, (nfds_t)np, (int)(left > 1000 ? 1000 : left));
        if (rc < 0 && errno != EINTR)
            break;
        if (rc <= 0)
            continue;
        char buf[8192];
        if (ii >= 0 && p[ii].revents) {
            ssize_t w = write(pin[1], input + sent, inlen - sent);
            if (w > 0)
                sent += (size_t)w;
            if (w < 0 && errno != EAGAIN && errno != EINTR)
                close_fd(&pin[1]);
            else if (sent == inlen)
                close_fd(&pin[1]);
        }
        if (io >= 0 && p[io].revents) {
            ssize_t n = read(pout[0], buf, sizeof buf);
            if (n > 0) {
                if (out.len + (size_t)n > max_out) {
                    r->overflow = true;
                    break;
                }
                tw_buf_append(&out, buf, (size_t)n);
            } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                close_fd(&pout[0]);
            }
        }
        if (ie >= 0 && p[ie].revents) {
            ssize_t n = read(perr[0], buf, sizeof buf);
            if (n > 0) {
                size_t keep = err.len < max_err ? max_err - err.len : 0;
                if ((size_t)n > keep)
                    r->err_cut = true;
                tw_buf_append(&err, buf, (size_t)n < keep ? (size_t)n : keep);
            } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                close_fd(&perr[0]);
            }
        }
    }
    if (r->timed_out || r->overflow) {
        kill(-pid, SIGKILL);
        killed = true;
    }
    close_fd(&pin[1]), close_fd(&pout[0]), close_fd(&perr[0]);
    int status = 0;
    /* stdout closed: the driver is about done; past the deadline it is killed */
    for (;;) {
        pid_t w = waitpid(pid, &status, killed ? 0 : WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR))
            break;
        if (w == 0 && tw_clients_now_ms() >= deadline) {
            r->timed_out = true;
            kill(-pid, SIGKILL);
            killed = true;
        } else if (w == 0) {
            struct timespec ts = {0, 10 * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    sigaction(SIGPIPE, &old_pipe, NULL);
    if (!killed && WIFEXITED(status))
        r->exit_code = WEXITSTATUS(status);
    tw_buf_putc(&out, 0);
    tw_buf_putc(&err, 0);
    r->out = out.data;
    r->out_len = out.len ? out.len - 1 : 0;
    r->err = err.data;
    r->err_len = err.len ? err.len - 1 : 0;
    if (!r->out || !r->err) {
        tw_proc_result_free(r);
        return TW_ERR_NOMEM;
    }
    return TW_OK;
}
