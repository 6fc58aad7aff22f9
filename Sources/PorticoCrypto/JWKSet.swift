import Foundation

/// A JWK Set (RFC 7517 §5), the document served at `/oauth/jwks`.
///
/// Relying parties fetch it to verify Portico's tokens; it carries only public keys, each with
/// `kid`, `alg` and `use: "sig"` so that clients pick the right key without guessing.
public struct JWKSet: Codable, Sendable, Hashable {
    /// The keys, current and recently rotated.
    public var keys: [JWK]

    /// A set of `keys` as given.
    public init(keys: [JWK]) {
        self.keys = keys
    }

    /// The public JWKs of `signingKeys`, the usual way Portico builds its JWKS document.
    public init(signingKeys: [SigningKey]) {
        self.keys = signingKeys.map(\.publicJWK)
    }

    /// Decodes a JWK Set from JSON text.
    public init(json: String) throws {
        self = try JSONDecoder().decode(JWKSet.self, from: Data(json.utf8))
    }

    /// The document's compact JSON text: `{"keys":[...]}`.
    public var jsonString: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? #"{"keys":[]}"#
    }
}
