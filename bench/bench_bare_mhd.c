/*
 * The smallest libmicrohttpd server that answers every request with one
 * fixed body: the yardstick bench_all measures `toolwire serve` against.
 * Same threading mode as the mock (epoll event loops in a thread pool, on
 * 127.0.0.1); the body, an SSE stream included, is sent from one buffer.
 *
 * usage: bench_bare_mhd THREADS BODY-FILE CONTENT-TYPE
 * Prints the port on standard output, then serves until killed.
 */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *body;
static size_t body_len;

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *data,
                              size_t *data_len, void **state)
{
    const char *ctype = cls;
    (void)url, (void)method, (void)version, (void)data;
    if (!*state) { /* first call: headers only */
        *state = (void *)1;
        return MHD_YES;
    }
    if (*data_len) { /* drain the request body */
        *data_len = 0;
        return MHD_YES;
    }
    struct MHD_Response *r =
        MHD_create_response_from_buffer(body_len, body, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(r, "Content-Type", ctype);
    enum MHD_Result ret = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    return ret;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return fprintf(stderr, "usage: bench_bare_mhd THREADS BODY-FILE CONTENT-TYPE\n"), 2;
    FILE *f = fopen(argv[2], "rb");
    if (!f || fseek(f, 0, SEEK_END) || (body_len = (size_t)ftell(f), fseek(f, 0, SEEK_SET)) ||
        !(body = malloc(body_len + 1)) || fread(body, 1, body_len, f) != body_len)
        return perror(argv[2]), 1;
    body[body_len] = '\0';
    fclose(f);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_EPOLL_INTERNAL_THREAD, 0, NULL, NULL, answer,
                                            argv[3], MHD_OPTION_SOCK_ADDR, &sa,
                                            MHD_OPTION_THREAD_POOL_SIZE, (unsigned)atoi(argv[1]),
                                            MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u, MHD_OPTION_END);
    if (!d)
        return fprintf(stderr, "bench_bare_mhd: cannot start\n"), 1;
    printf("%u\n", (unsigned)MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port);
    fflush(stdout);
    for (;;)
        pause();
}
