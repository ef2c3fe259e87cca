/* Helpers shared by the suites that meet a server as a hostile peer would
 * (tests/backends/test_mock_hostile.c, tests/proxy/test_refproxy_hostile.c):
 * a monotonic clock, raw TCP connections to loopback, and room for many
 * descriptors. */
#ifndef TW_TEST_SOCKETS_H
#define TW_TEST_SOCKETS_H

#include <stdbool.h>
#include <sys/resource.h>

/* Milliseconds on the monotonic clock. */
long tw_test_now_ms(void);
void tw_test_sleep_ms(long ms);
/* A TCP connection to 127.0.0.1:port from the address from (NULL: any);
 * -1 when from cannot be bound. A refused connection fails the test. */
int tw_test_raw_connect(const char *from, unsigned short port);
/* Has the server closed fd (EOF or reset)? Waits up to wait_ms. */
bool tw_test_closed_by_server(int fd, long wait_ms);
/* Raise the soft limit of open descriptors to n when it is lower; false when
 * the hard limit does not allow it (the test then skips what needs them). */
bool tw_test_room_for_fds(rlim_t n);

#endif
