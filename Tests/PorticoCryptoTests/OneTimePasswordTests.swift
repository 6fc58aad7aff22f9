import Foundation
import PorticoCrypto
import Testing

/// otp.json: RFC 4226 Appendix D and RFC 6238 Appendix B, as published.
struct OneTimePasswordVectors: Decodable {
    struct HOTP: Decodable {
        let secret: String
        let codes: [String]
    }
    struct TOTPCase: Decodable {
        let time: Int64
        let code: String
    }
    struct TOTP: Decodable {
        let algorithm: String
        let secret: String
        let cases: [TOTPCase]
    }
    let hotp: HOTP
    let totp: [TOTP]

    static func load() throws -> OneTimePasswordVectors {
        let data = try Data(contentsOf: vectorsDirectory.appendingPathComponent("otp.json"))
        return try JSONDecoder().decode(OneTimePasswordVectors.self, from: data)
    }
}

@Suite struct OneTimePasswordTests {
    @Test func hotpMatchesRFC4226AppendixD() throws {
        let vectors = try OneTimePasswordVectors.load()
        let generator = OneTimePassword(secret: Array(vectors.hotp.secret.utf8), digits: 6)
        #expect(vectors.hotp.codes.count == 10)
        for (counter, code) in vectors.hotp.codes.enumerated() {
            #expect(generator.code(counter: UInt64(counter)) == code, "counter \(counter)")
        }
    }

    @Test func totpMatchesRFC6238AppendixB() throws {
        let vectors = try OneTimePasswordVectors.load()
        #expect(vectors.totp.map(\.algorithm) == ["SHA1", "SHA256", "SHA512"])
        for set in vectors.totp {
            let digest: Digest =
                switch set.algorithm {
                case "SHA256": .sha256
                case "SHA512": .sha512
                default: .sha1
                }
            let generator = OneTimePassword(secret: Array(set.secret.utf8), digits: 8, digest: digest)
            for vector in set.cases {
                let step = try #require(generator.step(at: vector.time))
                #expect(generator.code(step: step) == vector.code, "\(set.algorithm) at \(vector.time)")
            }
        }
    }

    @Test func acceptsTheNeighbouringStepsOnly() {
        let generator = OneTimePassword(secret: Array("12345678901234567890".utf8))
        let now: Int64 = 1_111_111_111
        let current = now / 30
        for offset: Int64 in -1...1 {
            #expect(generator.matchingStep(of: generator.code(step: current + offset), at: now) == current + offset)
        }
        #expect(generator.matchingStep(of: generator.code(step: current - 2), at: now) == nil)
        #expect(generator.matchingStep(of: generator.code(step: current + 2), at: now) == nil)
        #expect(generator.matchingStep(of: "12345", at: now) == nil)
        #expect(generator.matchingStep(of: "abcdef", at: now) == nil)
    }

    @Test func base32RoundTripsAndMatchesRFC4648() {
        // RFC 4648 §10, padding left out.
        let cases = [
            ("", ""), ("f", "MY"), ("fo", "MZXQ"), ("foo", "MZXW6"), ("foob", "MZXW6YQ"), ("fooba", "MZXW6YTB"),
            ("foobar", "MZXW6YTBOI"),
        ]
        for (plain, encoded) in cases {
            #expect(Base32.encode(Array(plain.utf8)) == encoded)
            #expect(Base32.decode(encoded) == Array(plain.utf8))
        }
        #expect(Base32.decode("mzxw 6ytb oi==") == Array("foobar".utf8))
        #expect(Base32.decode("MZXW1") == nil)
        let secret = SecureRandom.bytes(count: 20)
        #expect(Base32.encode(secret).count == 32)
        #expect(Base32.decode(Base32.encode(secret)) == secret)
    }
}
