/* Helpers for the hostile-peer suites: see sockets.h. */
#include "sockets.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

long tw_test_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void tw_test_sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

int tw_test_raw_connect(const char *from, unsigned short port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert(fd >= 0, "socket: %s", strerror(errno));
    if (from) {
        struct sockaddr_in a;
        memset(&a, 0, sizeof a);
        a.sin_family = AF_INET;
        inet_pton(AF_INET, from, &a.sin_addr);
        if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0) {
            close(fd);
            return -1;
        }
    }
    struct sockaddr_in s;
    memset(&s, 0, sizeof s);
    s.sin_family = AF_INET;
    s.sin_port = htons(port);
    s.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(fd, (struct sockaddr *)&s, sizeof s), 0, "connect: %s", strerror(errno));
    return fd;
}

bool tw_test_closed_by_server(int fd, long wait_ms)
{
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, (int)wait_ms) <= 0)
        return false;
    char b[256];
    ssize_t r = recv(fd, b, sizeof b, MSG_DONTWAIT);
    return r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

bool tw_test_room_for_fds(rlim_t n)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return false;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < n) {
        if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < n)
            return false;
        rl.rlim_cur = n;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
            return false;
    }
    return true;
}
