/// Why a token was rejected: its structure, header, key, signature or claims.
///
/// Each case names one failure so that logs and tests can tell a forged token from an expired
/// one; none of them is ever shown to the client beyond "invalid_token".
public enum JOSEError: Error, Sendable, Equatable {
    /// The token is longer than `JWSVerifier.maximumTokenLength`; rejected before any parsing.
    case tokenTooLarge
    /// Compact JWS has exactly three dot-separated parts; this many were found.
    case wrongPartCount(Int)
    /// The header part is not strict base64url.
    case invalidHeaderEncoding
    /// The payload part is not strict base64url.
    case invalidPayloadEncoding
    /// The signature part is not strict base64url.
    case invalidSignatureEncoding
    /// The header is not a JSON object, repeats a member, or has a member of the wrong type.
    case invalidHeader
    /// The header says `alg: none`: an unsigned token, never accepted.
    case algorithmNone
    /// The header names an algorithm Portico does not implement (for example `HS256`).
    case unsupportedAlgorithm(String)
    /// The algorithm is implemented but the caller does not accept it here.
    case algorithmNotAllowed(SignatureAlgorithm)
    /// The header has no `kid`, so no key can be chosen without guessing.
    case missingKeyID
    /// The header carries no `jwk` object, and the token must bring its own key (DPoP).
    case missingEmbeddedKey
    /// The header's `jwk` is not a usable public key (unknown type, bad members, weak RSA).
    case invalidEmbeddedKey
    /// The header's `jwk` has private members; a key sent to be trusted must be public.
    case privateEmbeddedKey
    /// No key in the set has this `kid`.
    case unknownKeyID(String)
    /// The `kid` names a key for another algorithm (for example an ES256 key for an RS256 token).
    case keyAlgorithmMismatch(token: SignatureAlgorithm, key: SignatureAlgorithm)
    /// The header marks these extensions critical (`crit`) and they are not understood.
    case unsupportedCriticalHeader([String])
    /// The header `typ` is not the one required (for example `at+jwt` for access tokens).
    case wrongType(expected: String, actual: String?)
    /// The signature has the wrong length for the key; checked before any cryptography.
    case invalidSignatureLength(expected: Int, actual: Int)
    /// The signature does not verify with the key.
    case invalidSignature
    /// The payload is not a JSON object of claims.
    case invalidClaims
    /// A registered claim has the wrong JSON type (for example a string `exp`).
    case invalidClaim(String)
    /// A claim the validator requires is absent.
    case missingClaim(String)
    /// `iss` is not the expected issuer.
    case wrongIssuer(String?)
    /// `aud` does not contain the expected audience.
    case wrongAudience([String])
    /// `exp` has passed, beyond the allowed clock skew.
    case expired
    /// `nbf` is still ahead, beyond the allowed clock skew.
    case notYetValid
    /// `iat` is in the future, beyond the allowed clock skew.
    case issuedInFuture
}
