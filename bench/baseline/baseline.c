/*
 * The C baseline of the benchmarks: the smallest libmicrohttpd server, in Portico's threading
 * mode (epoll, a thread pool of one thread per core, suspend/resume allowed) and, like Portico,
 * answering on the second access-handler call, which keeps connections alive.
 *
 * With only a port it answers GET /healthz with exactly Portico's bytes and headers
 * ({"status":"ok"}, Content-Type: application/json, Cache-Control: no-store): bench/http's
 * ceiling. Given documents it serves those instead (bench/idp feeds it the very bytes Portico
 * serves for discovery and JWKS), each as application/json with the given Cache-Control.
 *
 * Usage: mhd-baseline PORT [URL-PATH FILE CACHE-CONTROL ...]
 */
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_DOCUMENTS 8

struct document {
    const char *path;
    struct MHD_Response *response;
};

static struct document documents[MAX_DOCUMENTS];
static int document_count;
static struct MHD_Response *not_found;
static int marker;
static char healthz_body[] = "{\"status\":\"ok\"}";

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
    if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0) {
        for (int i = 0; i < document_count; i++) {
            if (strcmp(url, documents[i].path) == 0) {
                return MHD_queue_response(connection, MHD_HTTP_OK, documents[i].response);
            }
        }
    }
    return MHD_queue_response(connection, MHD_HTTP_NOT_FOUND, not_found);
}

/* Reads a whole file into memory that lives as long as the process; NULL on failure. */
static char *read_file(const char *name, size_t *length) {
    FILE *file = fopen(name, "rb");
    if (file == NULL) return NULL;
    char *bytes = NULL;
    size_t size = 0;
    char chunk[4096];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, file)) > 0) {
        char *grown = realloc(bytes, size + got);
        if (grown == NULL) {
            free(bytes);
            fclose(file);
            return NULL;
        }
        bytes = grown;
        memcpy(bytes + size, chunk, got);
        size += got;
    }
    fclose(file);
    *length = size;
    return bytes != NULL ? bytes : calloc(1, 1);
}

int main(int argc, char **argv) {
    if (argc < 2 || (argc - 2) % 3 != 0 || (argc - 2) / 3 > MAX_DOCUMENTS) {
        fprintf(stderr, "usage: %s PORT [URL-PATH FILE CACHE-CONTROL ...]\n", argv[0]);
        return 2;
    }
    unsigned int port = (unsigned int)atoi(argv[1]);
    long threads = sysconf(_SC_NPROCESSORS_ONLN);
    if (threads < 1) threads = 1;

    for (int i = 2; i + 2 < argc; i += 3) {
        size_t length = 0;
        char *bytes = read_file(argv[i + 1], &length);
        if (bytes == NULL) {
            fprintf(stderr, "mhd-baseline: cannot read %s\n", argv[i + 1]);
            return 1;
        }
        struct MHD_Response *response =
            MHD_create_response_from_buffer(length, bytes, MHD_RESPMEM_PERSISTENT);
        MHD_add_response_header(response, "Content-Type", "application/json");
        MHD_add_response_header(response, "Cache-Control", argv[i + 2]);
        documents[document_count].path = argv[i];
        documents[document_count].response = response;
        document_count++;
    }
    if (document_count == 0) {
        struct MHD_Response *response = MHD_create_response_from_buffer(
            strlen(healthz_body), healthz_body, MHD_RESPMEM_PERSISTENT);
        MHD_add_response_header(response, "Content-Type", "application/json");
        MHD_add_response_header(response, "Cache-Control", "no-store");
        documents[0].path = "/healthz";
        documents[0].response = response;
        document_count = 1;
    }

    /* Block the signals before any thread starts, so every thread inherits the mask. */
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    sigprocmask(SIG_BLOCK, &signals, NULL);

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
    for (int i = 0; i < document_count; i++) MHD_destroy_response(documents[i].response);
    MHD_destroy_response(not_found);
    return 0;
}
