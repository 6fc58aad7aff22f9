/*
 * The C baseline for bench/http: the smallest libmicrohttpd server that answers
 * GET /healthz with the same bytes and headers as Portico ({"status":"ok"},
 * Content-Type: application/json, Cache-Control: no-store) in the same threading mode (epoll, a thread pool of
 * one thread per core, suspend/resume allowed). Like Portico it answers on the second
 * access-handler call, which keeps connections alive.
 *
 * Usage: mhd-baseline PORT [THREADS]
 */
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char body[] = "{\"status\":\"ok\"}";
static struct MHD_Response *healthz;
static struct MHD_Response *not_found;
static int marker;

static enum MHD_Result handle(void *cls, struct MHD_Connection *connection, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **request_state) {
    (void)cls;
    (void)version;
    (void)upload_data;
    if (*request_state == NULL) {
        *request_state = &marker;
        return MHD_YES;
    }
    if (*upload_data_size != 0) {
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (strcmp(url, "/healthz") == 0 && (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0)) {
        return MHD_queue_response(connection, MHD_HTTP_OK, healthz);
    }
    return MHD_queue_response(connection, MHD_HTTP_NOT_FOUND, not_found);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s PORT [THREADS]\n", argv[0]);
        return 2;
    }
    unsigned int port = (unsigned int)atoi(argv[1]);
    long threads = argc > 2 ? atol(argv[2]) : sysconf(_SC_NPROCESSORS_ONLN);
    if (threads < 1) threads = 1;

    /* Block the signals before any thread starts, so every thread inherits the mask. */
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    sigprocmask(SIG_BLOCK, &signals, NULL);

    healthz = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(healthz, "Content-Type", "application/json");
    MHD_add_response_header(healthz, "Cache-Control", "no-store");
    not_found = MHD_create_response_from_buffer(9, (void *)"Not Found", MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(not_found, "Content-Type", "text/plain; charset=utf-8");

    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG, (uint16_t)port,
        NULL, NULL, handle, NULL,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)threads,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned int)4096,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)60,
        MHD_OPTION_STRICT_FOR_CLIENT, (int)1,
        MHD_OPTION_END);
    if (daemon == NULL) {
        fprintf(stderr, "mhd-baseline: cannot listen on port %u\n", port);
        return 1;
    }
    printf("http://127.0.0.1:%u\n", port);
    fflush(stdout);

    int received;
    sigwait(&signals, &received);

    MHD_stop_daemon(daemon);
    MHD_destroy_response(healthz);
    MHD_destroy_response(not_found);
    return 0;
}
