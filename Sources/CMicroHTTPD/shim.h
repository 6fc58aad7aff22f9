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
#include <string.h>

/// An unescape callback that keeps the text exactly as received: PorticoHTTP decodes paths
/// and queries itself, strictly, so that bad percent-encoding can be answered with 400.
static inline size_t portico_mhd_unescape_nothing(void *cls, struct MHD_Connection *connection,
                                                  char *text) {
    (void)cls;
    (void)connection;
    return strlen(text);
}

/// Called once per request with the raw request target; its result becomes the request's
/// `*con_cls`.
typedef void *(*portico_mhd_uri_logger)(void *cls, const char *uri, struct MHD_Connection *connection);

/// Starts a daemon whose request lifecycle is driven by PorticoHTTP: `uri_logger` creates the
/// per-request state from the raw target, `completed` frees it, the unescape callback keeps
/// paths and query strings raw, `connection_notice` hears each connection open and close,
/// `accept_policy` may refuse a new connection (it is closed at
/// once), and every other option comes in `options`.
static inline struct MHD_Daemon *portico_mhd_start_daemon_with_callbacks(
    unsigned int flags, uint16_t port,
    MHD_AcceptPolicyCallback accept_policy,
    MHD_AccessHandlerCallback handler, void *context,
    MHD_RequestCompletedCallback completed, portico_mhd_uri_logger uri_logger,
    MHD_NotifyConnectionCallback connection_notice,
    const struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, port, accept_policy, context, handler, context,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                            MHD_OPTION_NOTIFY_CONNECTION, connection_notice, context,
                            MHD_OPTION_URI_LOG_CALLBACK, uri_logger, context,
                            MHD_OPTION_UNESCAPE_CALLBACK, portico_mhd_unescape_nothing, NULL,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/// The socket of a connection, or -1.
static inline int portico_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

/// What the connection-notify callback stored for a connection, or NULL.
static inline void *portico_mhd_connection_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

/// The number of connections the daemon currently holds, or 0.
static inline unsigned int portico_mhd_current_connections(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info ? info->num_connections : 0;
}
#endif
