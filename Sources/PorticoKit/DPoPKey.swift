import Foundation

/// The installation's proof-of-possession key (RFC 9449): one P-256 key that signs every DPoP
/// proof, so tokens the provider binds to it (`cnf.jkt`) are worthless to whoever copies them
/// without it.
///
/// A ``TokenStore`` hands it out (``TokenStore/dpopKey()``) and keeps it as long as the grants
/// it binds: a `0600` PEM file beside ``FileTokenStore``'s grants, the Secure Enclave (or a
/// Keychain item) for ``KeychainTokenStore``, memory for ``InMemoryTokenStore``. Losing it only
/// means signing in again. Made by `DPoPKey+OpenSSL.swift` (Linux) or `DPoPKey+Apple.swift`;
/// everything else about proofs is the same on every platform.
public final class DPoPKey: Sendable {
    /// The public key's x coordinate, base64url (32 bytes).
    let x: String
    /// The public key's y coordinate, base64url (32 bytes).
    let y: String
    /// The private key as PKCS#8 PEM, for a store that keeps it in a file; nil for a key that
    /// cannot leave its hardware (the Secure Enclave).
    let pemRepresentation: String?
    /// Signs a JWS signing input: ES256, raw R‖S (64 bytes); nil when signing failed.
    private let signer: @Sendable ([UInt8]) -> [UInt8]?

    init(x: String, y: String, pemRepresentation: String?, signer: @escaping @Sendable ([UInt8]) -> [UInt8]?) {
        self.x = x
        self.y = y
        self.pemRepresentation = pemRepresentation
        self.signer = signer
    }

    /// The RFC 7638 thumbprint of the public key: what the provider records as `cnf.jkt` in
    /// the tokens bound to this key.
    public var thumbprint: String {
        // The required members in lexicographic order, no white space (RFC 7638 §3.2).
        let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
        return Base64URLCoding.encode(PlatformCrypto.sha256(Array(canonical.utf8)))
    }

    /// The public JWK for a proof's header: `kty`, `crv`, `x`, `y` and nothing private.
    var publicJWK: [String: String] {
        ["kty": "EC", "crv": "P-256", "x": x, "y": y]
    }

    /// The ES256 signature (raw R‖S) of `message`.
    func signature(of message: [UInt8]) throws(AuthorizationError) -> [UInt8] {
        guard let signature = signer(message), signature.count == 64 else {
            throw AuthorizationError(.storage, "the DPoP key could not sign a proof")
        }
        return signature
    }
}

/// Keys of stores that keep none themselves (``InMemoryTokenStore``, an app's own store): one
/// per store identity, for the life of the process.
enum EphemeralDPoPKeys {
    private static let keys = LockedState<[String: DPoPKey]>([:])

    /// The key of the store `coordinationKey`, made on first use.
    static func key(for coordinationKey: String) throws(AuthorizationError) -> DPoPKey {
        try keys.withLock { (table) throws(AuthorizationError) -> DPoPKey in
            if let key = table[coordinationKey] { return key }
            let key = try DPoPKey.generate()
            table[coordinationKey] = key
            return key
        }
    }
}
