import Foundation
import Testing

@testable import PorticoKit

/// The platform's JWS signature check (OpenSSL on Linux, CryptoKit and Security on Apple; this
/// file also runs in .ci/PorticoKitAppleTests) against vectors signed outside Portico: each
/// algorithm accepts its token and refuses it with one bit flipped in the signature or payload.
struct JWSVectorTests {
    @Test(arguments: JWSVectors.all.map(\.algorithm))
    func eachAlgorithmAcceptsItsTokenAndRefusesAFlippedBit(algorithm: String) throws {
        let vector = try #require(JWSVectors.all.first { $0.algorithm == algorithm })
        #expect(try CompactJWS(vector.token).algorithm.rawValue == algorithm)
        #expect(try vector.platformAccepts(vector.token))
        #expect(try !vector.platformAccepts(vector.flipped()))
        #expect(try !vector.platformAccepts(vector.flipped(inPayload: true)))
    }

    @Test func aKeyOfAnotherVectorIsRefused() throws {
        let rsa = try #require(JWSVectors.all.first { $0.algorithm == "RS256" })
        let other = try #require(JWSVectors.all.first { $0.algorithm == "ES256" })
        let wrongKey = JWSVectors.Vector(algorithm: "RS256", jwk: other.jwk, token: rsa.token)
        #expect(try !wrongKey.platformAccepts(rsa.token))
    }
}
