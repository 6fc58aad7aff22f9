import Foundation
import PorticoCrypto
import Testing

@Suite struct ClaimsTests {
    private let issued = Date(timeIntervalSince1970: 1_700_000_000)

    private func claims(audience: [String] = ["client-1"]) -> JWTClaims {
        var claims = JWTClaims(
            issuer: "https://id.example", subject: "u-1", audience: audience,
            expiresAt: issued.addingTimeInterval(3600), notBefore: issued, issuedAt: issued, jwtID: "j-1")
        claims["nonce"] = "n-0S6"
        claims["auth_time"] = .integer(1_699_999_000)
        claims["scope"] = "openid profile"
        claims["email_verified"] = true
        claims["amr"] = ["pwd", "mfa"]
        claims["address"] = ["postal_code": "98052", "country": .null]
        return claims
    }

    private func validator(at offset: TimeInterval, skew: TimeInterval = 60) -> JWTValidator {
        let instant = issued.addingTimeInterval(offset)
        return JWTValidator(issuer: "https://id.example", audience: "client-1", clockSkew: skew) { instant }
    }

    @Test func encodeDecodeRoundTrip() throws {
        for audience in [["client-1"], ["client-1", "api"]] {
            let original = claims(audience: audience)
            let decoded = try JWTClaims(json: original.jsonBytes())
            #expect(decoded == original)
            #expect(decoded["nonce"]?.stringValue == "n-0S6")
            #expect(decoded["auth_time"]?.integerValue == 1_699_999_000)
        }
        #expect(
            claims().jsonString.hasPrefix(#"{"iss":"https://id.example","sub":"u-1","aud":"client-1","exp":1700003600"#)
        )
        #expect(claims(audience: ["a", "b"]).jsonString.contains(#""aud":["a","b"]"#))
    }

    @Test func signedClaimsRoundTripAsAccessToken() throws {
        let key = try SigningKey.generate(.es256)
        let token = JWS.sign(claims: claims(), key: key, type: "at+jwt")
        let verifier = JWSVerifier(keys: [key.verificationKey])
        let decoded = try verifier.verifyJWT(token, algorithms: [.es256], type: "at+jwt", validator: validator(at: 10))
        #expect(decoded == claims())
        #expect(throws: JOSEError.expired) {
            try verifier.verifyJWT(token, algorithms: [.es256], type: "at+jwt", validator: validator(at: 7200))
        }
    }

    @Test func registeredClaimsWithWrongTypesAreRejected() {
        for (json, name) in [
            (#"{"exp":"soon"}"#, "exp"), (#"{"iss":1}"#, "iss"), (#"{"aud":[1]}"#, "aud"), (#"{"aud":{}}"#, "aud"),
            (#"{"nbf":true}"#, "nbf"), (#"{"jti":null}"#, "jti"),
        ] {
            #expect(throws: JOSEError.invalidClaim(name)) { try JWTClaims(json: Array(json.utf8)) }
        }
        for json in ["[]", "", "null", #"{"a":1,"a":2}"#, "{} x"] {
            #expect(throws: JOSEError.invalidClaims) { try JWTClaims(json: Array(json.utf8)) }
        }
    }

    @Test func validWithinWindow() throws {
        try validator(at: 0).validate(claims())
        try validator(at: 3599).validate(claims())
    }

    @Test func expired() {
        #expect(throws: JOSEError.expired) { try validator(at: 3600 + 60).validate(claims()) }
        #expect(throws: JOSEError.expired) { try validator(at: 3600, skew: 0).validate(claims()) }
    }

    @Test func expiredButWithinSkew() throws {
        try validator(at: 3600 + 59).validate(claims())
    }

    @Test func notYetValid() throws {
        var early = claims()
        early.notBefore = issued.addingTimeInterval(600)
        #expect(throws: JOSEError.notYetValid) { try validator(at: 0).validate(early) }
        try validator(at: 541).validate(early)  // within the 60 s skew
        #expect(throws: JOSEError.notYetValid) { try validator(at: 539).validate(early) }
    }

    @Test func issuedInTheFuture() throws {
        var noNotBefore = claims()
        noNotBefore.notBefore = nil
        #expect(throws: JOSEError.issuedInFuture) { try validator(at: -61).validate(noNotBefore) }
        #expect(throws: JOSEError.issuedInFuture) { try validator(at: -120).validate(noNotBefore) }
        try validator(at: -30).validate(noNotBefore)
    }

    @Test func wrongAudience() {
        #expect(throws: JOSEError.wrongAudience(["other"])) {
            try validator(at: 0).validate(claims(audience: ["other"]))
        }
        #expect(throws: JOSEError.missingClaim("aud")) { try validator(at: 0).validate(claims(audience: [])) }
    }

    @Test func audienceArrayContainingTheClient() throws {
        try validator(at: 0).validate(claims(audience: ["api", "client-1"]))
    }

    @Test func wrongIssuer() {
        var other = claims()
        other.issuer = "https://evil.example"
        #expect(throws: JOSEError.wrongIssuer("https://evil.example")) { try validator(at: 0).validate(other) }
        other.issuer = nil
        #expect(throws: JOSEError.missingClaim("iss")) { try validator(at: 0).validate(other) }
    }

    @Test func expirationRequiredByDefault() throws {
        var forever = claims()
        forever.expiresAt = nil
        #expect(throws: JOSEError.missingClaim("exp")) { try validator(at: 0).validate(forever) }
        var lenient = validator(at: 0)
        lenient.requiresExpiration = false
        try lenient.validate(forever)
    }

    @Test func defaultSkewIsSixtySeconds() {
        #expect(JWTValidator().clockSkew == 60)
    }
}
