/// The one request header that a trusted reverse proxy writes the client's address into
/// (`serve --client-address-header`).
///
/// Only this header is read. A proxy passes every other header from the client through
/// unchanged, so reading a second one (preferring `Forwarded` when present, say) lets a client
/// that writes it choose its own address behind a proxy that only appends `X-Forwarded-For`,
/// as HAProxy, cloud load balancers and a plain nginx do. The proxy must append to this header
/// (the chain is read from the right) or overwrite it.
public enum ClientAddressHeader: String, Sendable, CaseIterable {
    /// `X-Forwarded-For: client, proxy1, …`: what nearly every proxy appends to. The default.
    case xForwardedFor = "X-Forwarded-For"
    /// `X-Real-IP: client`: one address, which the proxy must set (nginx `proxy_set_header`).
    case xRealIP = "X-Real-IP"
    /// `Forwarded: for=client;proto=https, for=…` (RFC 7239): only with a proxy that overwrites
    /// or appends to it; many pass a client's own through.
    case forwarded = "Forwarded"

    /// The header named case-insensitively (`x-forwarded-for`), or nil for any other name.
    public init?(name: String) {
        let lowered = name.lowercased()
        guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == lowered }) else { return nil }
        self = match
    }
}
