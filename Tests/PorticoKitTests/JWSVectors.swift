import Foundation
import Testing

@testable import PorticoKit

/// JWS vectors of the three algorithms PorticoKit verifies, made once with Python's
/// `cryptography` (not with Portico's own signer), so the platform crypto of Linux (OpenSSL)
/// and of Apple (CryptoKit, Security) is checked against one outside source. Shared by
/// PorticoKitTests and the Apple-only suite in .ci/PorticoKitAppleTests (a symbolic link).
enum JWSVectors {
    /// One vector: the algorithm, its public key as a JWK (JSON), and a token it signed.
    struct Vector: Sendable {
        let algorithm: String
        let jwk: String
        let token: String
    }

    static let all: [Vector] = [
        Vector(
            algorithm: "RS256",
            jwk: #"""
                {"kty":"RSA","kid":"rsa-1","alg":"RS256","use":"sig","n":"pzj_nstdIMFPEnnLdsIe-QJDvlh1zMFjrUs3REUvxY1DX8JzFxDXxe2YC64tWjg8fGt6ZVPZ9nbBTkiBLSFsYXOl4dkQizhKqpp-mazaocgtewKp0Iy2Zy0Kim3c64WuP5hSUSKktfwSn0ForshRDYjRQuDFTzFJrr8-g8jz1er5VLBjfQcqhK5Lf-Oi69f94Kxe7NAp1gmpjCMEs0MT6pzktOl4haBxYq-SXo8Oa5rnbWuhBvgS2e59KZV99ADS2pjgCtIqqIzfotMA5tAdbf59CDnimSjIJ6DEv897TSlOLBI9jdXsqXlfjaeaGM9d289Vv2bmUQiIi11VNa2QQw","e":"AQAB"}
                """#,
            token: """
                eyJhbGciOiJSUzI1NiIsImtpZCI6InJzYS0xIiwidHlwIjoiSldUIn0.eyJpc3MiOiJodHRwczovL3ZlY3RvcnMucG9ydGljby50ZXN0Iiwic3ViIjoidmVjdG9yIiwiYXVkIjoidmVjdG9ycyIsImlhdCI6MTcwMDAwMDAwMCwiZXhwIjo0MTAwMDAwMDAwfQ.XYlKbkaesuLD2CiQeR7Cyv1mKEoaNgKHgW-DRIpR3Ob46RsrwVkPMotUEHhAoVKoWTav4UR2CUgJAViHzn9277TqPOzEw1ajH5AETDPPFYEkO8zgmwAPcR90ZCztIwsRW-pVNULcTGSMELexnT6tNhlhOQcpa7386qm9CmlSC3msjTpk7QAYCatRxTuPaqZo9P3X65nbmPNpcCnC2X0R48YZE8nR7vqxXWbHZsySkSmVTb2AYhE164eoYgIPtxz9q8ZqsWTRmJMH15_2RDh-1xG0u4kH2_hIfYa8lsNfwMLNrc5edR7svzj4JUY65bvEdMI_sFdgRRlChVhBu0FOSg
                """),
        Vector(
            algorithm: "ES256",
            jwk: #"""
                {"kty":"EC","kid":"ec-1","alg":"ES256","use":"sig","crv":"P-256","x":"bvMIYvmcxr8-KkHGhH4diUfDx145Q1RiB_KWJR_2k3I","y":"qx_BJ7sWTaaWRJstLUJ-EqvMLqmLDPyEwkkt7G9yVWw"}
                """#,
            token: """
                eyJhbGciOiJFUzI1NiIsImtpZCI6ImVjLTEiLCJ0eXAiOiJKV1QifQ.eyJpc3MiOiJodHRwczovL3ZlY3RvcnMucG9ydGljby50ZXN0Iiwic3ViIjoidmVjdG9yIiwiYXVkIjoidmVjdG9ycyIsImlhdCI6MTcwMDAwMDAwMCwiZXhwIjo0MTAwMDAwMDAwfQ.HS62zwCVz_6T8vFzE4CJRiwO1a4C6rE4GS3IYr9Fqvhyqs0aBHO8zgUnh-5kCcFNwPskQ2_VrULC_ywWNrveAw
                """),
        Vector(
            algorithm: "EdDSA",
            jwk: #"""
                {"kty":"OKP","kid":"ed-1","alg":"EdDSA","use":"sig","crv":"Ed25519","x":"NYFF-Q1gGeYe0bRDRf1j4NEjXNw16SaDfaS_oK3UU8U"}
                """#,
            token: """
                eyJhbGciOiJFZERTQSIsImtpZCI6ImVkLTEiLCJ0eXAiOiJKV1QifQ.eyJpc3MiOiJodHRwczovL3ZlY3RvcnMucG9ydGljby50ZXN0Iiwic3ViIjoidmVjdG9yIiwiYXVkIjoidmVjdG9ycyIsImlhdCI6MTcwMDAwMDAwMCwiZXhwIjo0MTAwMDAwMDAwfQ.ZWiCEOp3etdGDVH7yw9IvpgstfpT6da9ml1UDhQ64ljycv_mOJkXjYZaCtkYaiKYUULs93N80dyvED3i55dmDA
                """),
    ]
}

extension JWSVectors.Vector {
    /// The token with one bit of its signature flipped, or with `inPayload` one bit of its
    /// payload (in the `sub` value, so the payload stays JSON and only the signature fails).
    func flipped(inPayload: Bool = false) throws -> String {
        var parts = token.split(separator: ".").map(String.init)
        let index = inPayload ? 1 : 2
        var bytes = try #require(Base64URLCoding.decode(parts[index]))
        let target = inPayload ? try #require(bytes.firstRange(of: Array("vector".utf8))).lowerBound : bytes.count / 2
        bytes[target] ^= 0x01
        parts[index] = Base64URLCoding.encode(bytes)
        return parts.joined(separator: ".")
    }

    /// Whether the platform's crypto accepts `text` as signed by this vector's key.
    func platformAccepts(_ text: String) throws -> Bool {
        let key = try JSONDecoder().decode(JSONWebKey.self, from: Data(jwk.utf8))
        return PlatformCrypto.isValidSignature(of: try CompactJWS(text), key: key)
    }
}
