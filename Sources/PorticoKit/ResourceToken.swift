import Foundation

/// An access token for one resource server (RFC 8707), kept in the ``StoredGrant`` beside
/// the grant's own token: it came from the grant's refresh token, which it does not replace.
struct ResourceToken: Sendable, Hashable, Codable {
    /// The token, whose `aud` is the resource alone.
    var accessToken: String
    /// When it expires; nil when the provider did not say.
    var expiresAt: Date?
}
