import Foundation

/// Checks a JWT's claims after its signature verified: issuer, audience and the time window.
///
/// Clocks on different machines disagree, so every time comparison allows `clockSkew`
/// (60 s by default). `now` is injectable so tests can stand at any instant.
public struct JWTValidator: Sendable {
    /// The required `iss`, or nil to accept any.
    public var issuer: String?
    /// A value `aud` must contain, or nil to accept any audience.
    public var audience: String?
    /// How far clocks may disagree, in seconds.
    public var clockSkew: TimeInterval
    /// Whether a token without `exp` is rejected; Portico's tokens always expire.
    public var requiresExpiration: Bool
    /// The current time; replace it in tests.
    public var now: @Sendable () -> Date

    /// A validator; by default it requires `exp` and allows 60 s of skew.
    public init(
        issuer: String? = nil, audience: String? = nil, clockSkew: TimeInterval = 60, requiresExpiration: Bool = true,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.issuer = issuer
        self.audience = audience
        self.clockSkew = clockSkew
        self.requiresExpiration = requiresExpiration
        self.now = now
    }

    /// Throws the first way `claims` fails: wrong issuer, wrong audience, expired, not yet
    /// valid, or issued in the future.
    public func validate(_ claims: JWTClaims) throws(JOSEError) {
        if let issuer {
            guard let actual = claims.issuer else { throw .missingClaim("iss") }
            guard actual == issuer else { throw .wrongIssuer(actual) }
        }
        if let audience {
            guard !claims.audience.isEmpty else { throw .missingClaim("aud") }
            guard claims.audience.contains(audience) else { throw .wrongAudience(claims.audience) }
        }
        let instant = now()
        if let expiresAt = claims.expiresAt {
            // RFC 7519 §4.1.4: the token is valid only strictly before exp.
            guard instant < expiresAt.addingTimeInterval(clockSkew) else { throw .expired }
        } else if requiresExpiration {
            throw .missingClaim("exp")
        }
        if let notBefore = claims.notBefore, instant.addingTimeInterval(clockSkew) < notBefore {
            throw .notYetValid
        }
        if let issuedAt = claims.issuedAt, instant.addingTimeInterval(clockSkew) < issuedAt {
            throw .issuedInFuture
        }
    }
}
