/* Progress on standard error (progress.h). */
#include "progress.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "toolwire/core.h"

struct tw_progress {
    pthread_mutex_t mu;
    char *cmd;
    char *who;
    size_t total;
    size_t done;
    bool tty;
};

double tw_progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

tw_progress *tw_progress_begin(const char *cmd, const char *who, size_t total, bool enabled)
{
    if (!enabled)
        return NULL;
    tw_progress *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->cmd = tw_strdup(cmd ? cmd : "run");
    p->who = tw_strdup(who ? who : "");
    if (!p->cmd || !p->who || pthread_mutex_init(&p->mu, NULL) != 0) {
        free(p->cmd);
        free(p->who);
        free(p);
        return NULL;
    }
    p->total = total;
    p->tty = isatty(2) == 1;
    return p;
}

void tw_progress_fixture(tw_progress *p, const char *fixture, size_t exchanges, size_t mismatches,
                         double seconds, const char *note)
{
    if (p)
        tw_progress_item(p, p->who, fixture, exchanges, mismatches, seconds, note);
}

void tw_progress_item(tw_progress *p, const char *who, const char *fixture, size_t exchanges,
                      size_t mismatches, double seconds, const char *note)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->done++;
    if (p->tty)
        fprintf(stderr, "\r\033[K[%s] %zu/%zu %s", who, p->done, p->total, fixture);
    else if (note)
        fprintf(stderr, "toolwire %s: [%zu/%zu] %s %s: %s\n", p->cmd, p->done, p->total, who,
                fixture, note);
    else
        fprintf(stderr, "toolwire %s: [%zu/%zu] %s %s: %zu exchange%s, %zu mismatch%s, %.1f s\n",
                p->cmd, p->done, p->total, who, fixture, exchanges, exchanges == 1 ? "" : "s",
                mismatches, mismatches == 1 ? "" : "es", seconds);
    fflush(stderr);
    pthread_mutex_unlock(&p->mu);
}

void tw_progress_exchange(tw_progress *p, const char *fixture, size_t done, size_t total)
{
    if (!p || p->tty || total <= TW_PROGRESS_EVERY || done % TW_PROGRESS_EVERY != 0 ||
        done == total)
        return;
    pthread_mutex_lock(&p->mu);
    fprintf(stderr, "toolwire %s: [%zu/%zu] %s %s: %zu of %zu exchanges sent\n", p->cmd,
            p->done + 1, p->total, p->who, fixture, done, total);
    fflush(stderr);
    pthread_mutex_unlock(&p->mu);
}

void tw_progress_end(tw_progress *p)
{
    if (!p)
        return;
    if (p->tty && p->done) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
    pthread_mutex_destroy(&p->mu);
    free(p->cmd);
    free(p->who);
    free(p);
}
