import PorticoCrypto

/// The ID tokens whose signature this provider has verified, with their claims, for the Native
/// SSO exchange (``NativeSSOExchange``); at most 4,096 of them (about 2 KiB each).
///
/// Why: every app of an SSO group presents the same ID token of the first app, and an app may
/// repeat the exchange (it lost its tokens, it was reinstalled), while an RS256 verification and
/// the parsing around it cost a tenth of the exchange. Nothing else is cached: the device
/// secret, the session, `ds_hash`, the group and the consent are checked on every exchange.
typealias VerifiedIDTokens = VerifiedTokenCache<JWTClaims>

extension VerifiedTokenCache where Value == JWTClaims {
    /// The capacity of the Native SSO exchange's cache.
    static var idTokenCapacity: Int { 4096 }

    /// An empty cache of at most `capacity` ID tokens.
    convenience init() {
        self.init(capacity: Self.idTokenCapacity)
    }
}
