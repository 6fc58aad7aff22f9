import Foundation
import PorticoCrypto
import PorticoHTTP
import Testing

@testable import PorticoServer

/// The parts of the proof check that need no server: URL normalisation and nonces.
@Suite struct DPoPProofCheckerTests {
    @Test func urlsCompareAsRFC9449Says() {
        let same = [
            ("https://Example.COM/oauth/token", "https://example.com/oauth/token"),
            ("https://example.com:443/oauth/token", "https://example.com/oauth/token"),
            ("http://127.0.0.1:80/x", "http://127.0.0.1/x"),
            ("https://example.com", "https://example.com/"),
            ("https://example.com/oauth/token?query=1#fragment", "https://example.com/oauth/token"),
        ]
        for (first, second) in same {
            #expect(DPoPProofChecker.normalized(first) == DPoPProofChecker.normalized(second), "\(first)")
        }
        #expect(
            DPoPProofChecker.normalized("https://example.com:8443/a")
                != DPoPProofChecker.normalized(
                    "https://example.com/a"))
        #expect(
            DPoPProofChecker.normalized("https://example.com/a") != DPoPProofChecker.normalized("http://example.com/a"))
        #expect(DPoPProofChecker.normalized("/oauth/token") == nil)
        #expect(DPoPProofChecker.normalized("ftp://example.com/") == nil)
        #expect(DPoPProofChecker.normalized("https://user:pw@example.com/") == nil)
    }

    /// The comparison's shortcut for an `htu` spelled exactly as the endpoint changes no
    /// answer: other spellings are still compared normalised, and text that is no http(s) URL
    /// names nothing even when it is equal.
    @Test func htuNamesTheEndpointWhetherSpelledAlikeOrNot() {
        let endpoints = NormalizedEndpoints()
        let token = "https://id.example/oauth/token"
        for _ in 0..<2 {  // the second time from the table
            #expect(endpoints.named(by: token, endpoint: token))
            #expect(endpoints.named(by: "https://ID.example:443/oauth/token?x=1", endpoint: token))
            #expect(!endpoints.named(by: "https://id.example/oauth/userinfo", endpoint: token))
            #expect(!endpoints.named(by: "https://id.example:8443/oauth/token", endpoint: token))
            #expect(!endpoints.named(by: "ftp://id.example/oauth/token", endpoint: "ftp://id.example/oauth/token"))
            #expect(!endpoints.named(by: "/oauth/token", endpoint: "/oauth/token"))
        }
        for index in 0...NormalizedEndpoints.capacity {
            #expect(endpoints.named(by: "https://id.example/\(index)", endpoint: "https://id.example/\(index)"))
        }
        #expect(endpoints.named(by: token, endpoint: token))
    }

    @Test func aNonceIsGoodForTwoPeriodsOnEveryNodeWithTheSameSecret() {
        let secret = SecureRandom.bytes(count: 32)
        let node = DPoPNonces(secret: secret)
        let other = DPoPNonces(secret: secret)
        let stranger = DPoPNonces(secret: SecureRandom.bytes(count: 32))
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let nonce = node.current(at: start)
        #expect(other.accepts(nonce, at: start))
        #expect(other.accepts(nonce, at: start.addingTimeInterval(DPoPNonces.period)))
        #expect(!other.accepts(nonce, at: start.addingTimeInterval(2 * DPoPNonces.period)))
        #expect(!other.accepts(nonce, at: start.addingTimeInterval(-DPoPNonces.period)))
        #expect(!stranger.accepts(nonce, at: start))
        #expect(!node.accepts("", at: start))
        #expect(!node.accepts(nonce + "A", at: start))
    }

    @Test func aRequiredNonceIsAskedForAndThenAccepted() throws {
        let nonces = DPoPNonces(secret: SecureRandom.bytes(count: 32))
        let checker = DPoPProofChecker(
            issuer: IssuerIdentifier("https://id.example"), nonces: nonces, requiresNonce: true, now: { Date() })
        let key = try SigningKey.generate(.es256)
        func proof(nonce: String?) -> String {
            var claims = JWTClaims(issuedAt: Date(), jwtID: SecureRandom.token())
            claims["htm"] = "POST"
            claims["htu"] = "https://id.example/oauth/token"
            if let nonce { claims["nonce"] = .string(nonce) }
            let jwk = JSONValue(parsing: Array(key.publicJWK.jsonString.utf8)) ?? .null
            return JWS.sign(payload: claims.jsonBytes(), key: key, type: "dpop+jwt", additionalHeader: ["jwk": jwk])
        }
        #expect(throws: DPoPProofChecker.Problem.nonceWanted) {
            try checker.check(proof(nonce: nil), method: "POST", path: "/oauth/token", accessToken: nil)
        }
        let accepted = try checker.check(
            proof(nonce: checker.currentNonce()), method: "POST", path: "/oauth/token", accessToken: nil)
        #expect(accepted.keyThumbprint == (try key.publicJWK.thumbprint()))
    }
}
