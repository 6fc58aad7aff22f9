import COpenSSL
import Foundation

/// A 256-bit key that encrypts other keys at rest with AES-256-GCM (OpenSSL's EVP).
///
/// Why: the provider's private signing keys live in the database so that every node signs with
/// the same ones, but whoever can read the database must not be able to sign. The signing keys
/// are therefore stored sealed with this key, which lives elsewhere (a 0600 file beside the
/// database, or one file handed to every node), as Ory Hydra seals its JWKs with its system
/// secret. Each sealed value carries a fresh 96-bit nonce and binds the caller's context (the
/// key id) as additional authenticated data, so a sealed key cannot be moved to another row.
public struct KeyEncryptionKey: Sendable {
    /// The prefix of every sealed value, naming the scheme so that a later one can be told apart.
    public static let sealedPrefix = "aes256gcm:"

    private let bytes: [UInt8]

    /// A key from its 32 bytes; nil for any other length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        self.bytes = bytes
    }

    /// A new random key.
    public static func generate() -> KeyEncryptionKey {
        // 32 bytes always make a key.
        KeyEncryptionKey(unchecked: SecureRandom.bytes(count: 32))
    }

    private init(unchecked bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// A 32-byte secret for `purpose`, derived from this key (HMAC-SHA256 of the purpose), so
    /// that every node given the same key file arrives at the same secret without it being
    /// stored anywhere; distinct purposes give unrelated secrets, and none reveals the key.
    public func derivedSecret(purpose: String) -> [UInt8] {
        HMAC.authenticationCode(for: Array(("portico derived secret: " + purpose).utf8), key: bytes)
    }

    /// The key as base64url text, the form the key file holds.
    public var encoded: String { Base64URL.encode(bytes) }

    /// The key that `text` (base64url of 32 bytes, surrounding whitespace ignored) holds.
    public init?(encoded text: String) {
        guard let decoded = Base64URL.decode(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return nil }
        self.init(bytes: decoded)
    }

    /// Whether `text` is a value ``seal(_:context:)`` made (rather than, say, a plain PEM).
    public static func isSealed(_ text: String) -> Bool {
        text.hasPrefix(sealedPrefix)
    }

    /// `plaintext` encrypted and authenticated, bound to `context`: `aes256gcm:` followed by
    /// base64url of nonce (12 bytes), ciphertext and tag (16 bytes).
    public func seal(_ plaintext: String, context: String) throws(KeyEncryptionError) -> String {
        let nonce = SecureRandom.bytes(count: 12)
        let (ciphertext, tag) = try crypt(
            encrypt: true, input: Array(plaintext.utf8), nonce: nonce, context: Array(context.utf8), tag: nil)
        return Self.sealedPrefix + Base64URL.encode(nonce + ciphertext + tag)
    }

    /// The plaintext of a value ``seal(_:context:)`` made with this key and `context`.
    ///
    /// - Throws: ``KeyEncryptionError/malformed`` for text of another form,
    ///   ``KeyEncryptionError/authenticationFailed`` when the key or context is not the one it
    ///   was sealed with, or the value was altered.
    public func open(_ sealed: String, context: String) throws(KeyEncryptionError) -> String {
        guard Self.isSealed(sealed), let raw = Base64URL.decode(sealed.dropFirst(Self.sealedPrefix.count)),
            raw.count >= 12 + 16
        else { throw .malformed }
        let nonce = Array(raw[0..<12])
        let ciphertext = Array(raw[12..<(raw.count - 16)])
        let tag = Array(raw[(raw.count - 16)...])
        let (plaintext, _) = try crypt(
            encrypt: false, input: ciphertext, nonce: nonce, context: Array(context.utf8), tag: tag)
        guard let text = String(validating: plaintext, as: UTF8.self) else { throw .malformed }
        return text
    }

    private func crypt(encrypt: Bool, input: [UInt8], nonce: [UInt8], context: [UInt8], tag: [UInt8]?)
        throws(KeyEncryptionError) -> (output: [UInt8], tag: [UInt8])
    {
        guard let cipherContext = EVP_CIPHER_CTX_new() else { throw .cryptoFailure }
        defer { EVP_CIPHER_CTX_free(cipherContext) }
        let cipher = EVP_aes_256_gcm()
        let begin: Int32 =
            encrypt
            ? EVP_EncryptInit_ex(cipherContext, cipher, nil, nil, nil)
            : EVP_DecryptInit_ex(cipherContext, cipher, nil, nil, nil)
        guard begin == 1,
            EVP_CIPHER_CTX_ctrl(cipherContext, EVP_CTRL_GCM_SET_IVLEN, Int32(nonce.count), nil) == 1
        else { throw .cryptoFailure }
        let keyed: Int32 =
            encrypt
            ? EVP_EncryptInit_ex(cipherContext, nil, nil, bytes, nonce)
            : EVP_DecryptInit_ex(cipherContext, nil, nil, bytes, nonce)
        guard keyed == 1 else { throw .cryptoFailure }
        var length: Int32 = 0
        if !context.isEmpty {
            let added: Int32 =
                encrypt
                ? EVP_EncryptUpdate(cipherContext, nil, &length, context, Int32(context.count))
                : EVP_DecryptUpdate(cipherContext, nil, &length, context, Int32(context.count))
            guard added == 1 else { throw .cryptoFailure }
        }
        var output = [UInt8](repeating: 0, count: input.count + 16)
        var written: Int32 = 0
        if !input.isEmpty {
            let updated: Int32 =
                encrypt
                ? EVP_EncryptUpdate(cipherContext, &output, &written, input, Int32(input.count))
                : EVP_DecryptUpdate(cipherContext, &output, &written, input, Int32(input.count))
            guard updated == 1 else { throw .cryptoFailure }
        }
        var tagBytes = tag ?? [UInt8](repeating: 0, count: 16)
        if !encrypt {
            guard EVP_CIPHER_CTX_ctrl(cipherContext, EVP_CTRL_GCM_SET_TAG, 16, &tagBytes) == 1 else {
                throw .cryptoFailure
            }
        }
        var finalLength: Int32 = 0
        let finished: Int32 = output.withUnsafeMutableBufferPointer { buffer in
            let end = buffer.baseAddress.map { $0 + Int(written) }
            return encrypt
                ? EVP_EncryptFinal_ex(cipherContext, end, &finalLength)
                : EVP_DecryptFinal_ex(cipherContext, end, &finalLength)
        }
        guard finished == 1 else {
            ERR_clear_error()
            throw encrypt ? .cryptoFailure : .authenticationFailed
        }
        if encrypt {
            guard EVP_CIPHER_CTX_ctrl(cipherContext, EVP_CTRL_GCM_GET_TAG, 16, &tagBytes) == 1 else {
                throw .cryptoFailure
            }
        }
        return (Array(output[0..<Int(written + finalLength)]), tagBytes)
    }
}
