/// A JWS whose signature verified, with the header and payload it protected.
///
/// Holding one means the signature checked out; the claims inside still need
/// `JWTValidator` (expiry, audience, issuer) before the token is trusted.
public struct VerifiedJWS: Sendable {
    /// The checked header.
    public let header: JWSHeader
    /// The payload bytes exactly as signed.
    public let payload: [UInt8]
    /// The key that verified the signature.
    public let key: VerificationKey

    /// The payload read as JWT claims; throws `invalidClaims` or `invalidClaim` if it is not a
    /// JSON object with correctly typed registered claims.
    public func claims() throws(JOSEError) -> JWTClaims {
        try JWTClaims(json: payload)
    }
}
