import Foundation
import PorticoCrypto
import Testing

/// The directory of the copied test vectors, found next to this file.
let vectorsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Vectors")

/// One case of jose.json: keys, payload, the token that must verify and the ones that must not.
struct JOSEVectorCase: Decodable, Sendable, CustomTestStringConvertible {
    let alg: String
    let privateJWK: JWK
    let publicJWK: JWK
    let payload: String
    let valid: [String]
    let invalid: [String: String]

    enum CodingKeys: String, CodingKey {
        case alg, payload, valid, invalid
        case privateJWK = "private_jwk"
        case publicJWK = "public_jwk"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        alg = try container.decode(String.self, forKey: .alg)
        privateJWK = try container.decode(JWK.self, forKey: .privateJWK)
        publicJWK = try container.decode(JWK.self, forKey: .publicJWK)
        payload = try container.decode(String.self, forKey: .payload)
        // "valid" is one token in the copied file; accept a list too so added tokens are exercised.
        if let list = try? container.decode([String].self, forKey: .valid) {
            valid = list
        } else {
            valid = [try container.decode(String.self, forKey: .valid)]
        }
        if let named = try? container.decode([String: String].self, forKey: .invalid) {
            invalid = named
        } else {
            let list = try container.decode([String].self, forKey: .invalid)
            invalid = Dictionary(uniqueKeysWithValues: list.enumerated().map { ("#\($0.offset)", $0.element) })
        }
    }

    var algorithm: SignatureAlgorithm? { SignatureAlgorithm(rawValue: alg) }
    var testDescription: String { alg }
}

private struct JOSEVectorFile: Decodable {
    let cases: [JOSEVectorCase]
}

/// Every case of jose.json and of ps256.json (PS256, which the shared jose.json lacks, signed by
/// joserfc and the openssl command line; `make-ps256.py` made it); a file that is unreadable
/// adds no case, which fails the test that every algorithm has one.
let joseVectors: [JOSEVectorCase] = ["jose.json", "ps256.json"].flatMap { name -> [JOSEVectorCase] in
    guard let data = try? Data(contentsOf: vectorsDirectory.appendingPathComponent(name)),
        let file = try? JSONDecoder().decode(JOSEVectorFile.self, from: data)
    else { return [] }
    return file.cases
}

/// One case of pkce.json.
struct PKCEVectorCase: Decodable, Sendable {
    let codeVerifier: String
    let codeChallenge: String

    enum CodingKeys: String, CodingKey {
        case codeVerifier = "code_verifier"
        case codeChallenge = "code_challenge"
    }
}

private struct PKCEVectorFile: Decodable {
    let cases: [PKCEVectorCase]
}

/// Every case of pkce.json.
let pkceVectors: [PKCEVectorCase] = {
    guard let data = try? Data(contentsOf: vectorsDirectory.appendingPathComponent("pkce.json")),
        let file = try? JSONDecoder().decode(PKCEVectorFile.self, from: data)
    else { return [] }
    return file.cases
}()

/// A compact JWS built by hand, for tokens no honest signer would make.
func forgeToken(
    header: String, payload: String = #"{"sub":"x"}"#, signature: [UInt8] = [UInt8](repeating: 1, count: 64)
)
    -> String
{
    Base64URL.encode(header) + "." + Base64URL.encode(payload) + "." + Base64URL.encode(signature)
}

/// Replaces one dot-separated part of a token.
func replacingPart(_ index: Int, of token: String, with part: String) -> String {
    var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    parts[index] = part
    return parts.joined(separator: ".")
}

/// A temporary directory removed by the caller.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("portico-crypto-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A 1024-bit RSA key made with `openssl genpkey`: too small, and must be refused.
let rsa1024PEM = """
    -----BEGIN PRIVATE KEY-----
    MIICdwIBADANBgkqhkiG9w0BAQEFAASCAmEwggJdAgEAAoGBAM4zjKt+/Nrhs8DN
    2u9+Z1tGyHhWvMPc9+HY0N53Df7F31jAEeaNCc6xXIpXNe3R9Z9krW8LDPCGrOtL
    p9hUGbxSzCWDoNY4CnunN/Ipc84Ayongf2gr4RyUmwNIwwOdt5i4tBEKajnJyMLo
    js1VtFE7nQTLyC19OlExwjns45CxAgMBAAECgYAiM16jmz5pN4JO+lXT301ZUFYz
    z38jpWTf6sxJ+ckydrNizwipCr+TrstAjtJ9DZQFyfcSMe0Ff/DyXewK73gM/eDn
    4D3Y2akAc1rjvQD/p33O14rO39zbXAtIStXojH0wRqtUsTpiZ3Bfg0hG5ioQbZ72
    NSnzUfHpylhiyK6gAQJBAPjlVkIZ8/lsdnEecLfhB8cfjZCLIWPAY18s9EkEe/E/
    pAnR/htEdAMMpH120IHX8VKQUl9GClompsF7MyCVG7ECQQDUFj9I7a6Vzoht7mGm
    +EONbZqLK3hpXVy53a7EP+MK3g4fIv7nEVbCwoylOQB9vEi+V6P15sh3yNOll8e0
    BAUBAkBz+xJN7SAWS2eJ4MBvvwnLzTU/dMXTYNQthpoy6EcFLT24YcVCWYyh2yNP
    X61bxA+tBJmN0eqDBd3Q7SLu/OyRAkEApkx7evfD+Xtkxq4wq/fnIDJdB9siI5wt
    ZSBKNV/S62aKtCeAsDaMTVK3baZwmCbW80lNKze24RX7vtBwqtqsAQJBAO/fSuRI
    1I6QhefZlBuhUi/UmYZOKDslRMrvpnVGwk5mnJWsQuqjQKYplo+Ce+jhc0z+eh4a
    4daCQm0MY4Un/uE=
    -----END PRIVATE KEY-----
    """

/// The decoded signature (last part) of a compact JWS, or nil.
func signatureBytes(of token: String) -> [UInt8]? {
    token.split(separator: ".", omittingEmptySubsequences: false).last.flatMap { Base64URL.decode($0) }
}
