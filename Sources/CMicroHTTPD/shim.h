// Swift cannot call C variadic functions; these inline wrappers give it fixed signatures.
#ifndef PORTICO_CMICROHTTPD_SHIM_H
#define PORTICO_CMICROHTTPD_SHIM_H
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Starts a daemon with every option passed as one `MHD_OPTION_ARRAY`.
static inline struct MHD_Daemon *portico_mhd_start_daemon(
    unsigned int flags, uint16_t port,
    MHD_AccessHandlerCallback handler, void *handler_context,
    const struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_context,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/// The peer address of a connection, or NULL.
static inline const struct sockaddr *portico_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}

/// Per-connection idle timeout in seconds.
static inline enum MHD_Result portico_mhd_set_connection_timeout(struct MHD_Connection *connection,
                                                                 unsigned int seconds) {
    return MHD_set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, seconds);
}

/// The listening port the daemon actually bound (for port 0), or 0.
static inline uint16_t portico_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}
#endif
