import Foundation
import PorticoHTTP

/// `GET /metrics`: the Prometheus text exposition (format 0.0.4) of the HTTP server's and the
/// provider's metrics, registered only with `portico serve --metrics`.
///
/// Metrics tell an outsider a lot (traffic, failed sign-ins, memory), so like Keycloak's they
/// are off unless asked for, and even then answered only to loopback peers: a Prometheus agent
/// on the same host (or in the same pod) scrapes them. A request that came through a reverse
/// proxy on the same host also arrives from loopback; one carrying `Forwarded`,
/// `X-Forwarded-For` or `X-Real-IP` is therefore refused too, so that a proxy forwarding every
/// path does not publish the metrics.
struct MetricsEndpoint: Sendable {
    /// The path Prometheus scrapes by default.
    static let path = "/metrics"
    /// Headers that mark a request relayed by a proxy.
    static let forwardingHeaders = ["Forwarded", "X-Forwarded-For", "X-Real-IP"]

    /// The registry to render.
    let registry: MetricsRegistry

    /// Adds `GET /metrics` (and so `HEAD`), on the HTTP threads: rendering only reads atomics
    /// and a few `/proc` files.
    func register(on router: Router) {
        router.get(Self.path) { request in respond(to: request) }
    }

    /// The metrics for a loopback peer, 403 for anyone else.
    func respond(to request: Request) -> Response {
        guard Self.isLoopback(request.peerAddress),
            !Self.forwardingHeaders.contains(where: { request.headers[$0] != nil })
        else {
            var refused = Response.text("/metrics is only served to loopback clients.\n", status: .forbidden)
            refused.headers["Cache-Control"] = "no-store"
            return refused
        }
        var response = Response(status: .ok, body: Array(registry.render().utf8))
        response.headers["Content-Type"] = MetricsRegistry.contentType
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    /// Whether `address` (numeric IPv4 or IPv6 text) is a loopback address: `127.0.0.0/8`,
    /// `::1`, or `127.0.0.0/8` mapped into IPv6 (`::ffff:127.0.0.1`, what a dual-stack socket
    /// reports for an IPv4 client).
    static func isLoopback(_ address: String) -> Bool {
        var ipv4 = in_addr()
        if inet_pton(AF_INET, address, &ipv4) == 1 {
            return withUnsafeBytes(of: ipv4) { $0[0] == 127 }
        }
        var ipv6 = in6_addr()
        guard inet_pton(AF_INET6, address, &ipv6) == 1 else { return false }
        return withUnsafeBytes(of: ipv6) { bytes in
            let isLoopback = bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1
            let isMappedLoopback =
                bytes.prefix(10).allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
            return isLoopback || isMappedLoopback
        }
    }
}
