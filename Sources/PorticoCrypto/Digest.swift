import COpenSSL
import Foundation

/// Message digests computed by OpenSSL's EVP interface.
///
/// Portico stores only SHA-256 hashes of secrets, codes, refresh tokens and session ids, and
/// JOSE needs SHA-256/384/512 for `at_hash`, thumbprints and signatures, so the three digests
/// live behind one small type instead of being called through OpenSSL at every use.
public enum Digest: Sendable, Hashable {
    /// SHA-1 (20 bytes): only as HMAC-SHA1 for one-time passwords (RFC 4226, RFC 6238), the
    /// one algorithm every authenticator app supports; never to fingerprint or sign anything.
    case sha1
    /// SHA-256 (32 bytes).
    case sha256
    /// SHA-384 (48 bytes).
    case sha384
    /// SHA-512 (64 bytes).
    case sha512

    /// The digest's output length in bytes.
    public var byteCount: Int {
        switch self {
        case .sha1: 20
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// The OpenSSL message-digest descriptor; static descriptors need no freeing.
    var evp: OpaquePointer? {
        switch self {
        case .sha1: EVP_sha1()
        case .sha256: EVP_sha256()
        case .sha384: EVP_sha384()
        case .sha512: EVP_sha512()
        }
    }

    /// Hashes `bytes` in one call.
    public func hash<Bytes: ContiguousBytes>(_ bytes: Bytes) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBufferPointer { out in
                EVP_Digest(input.baseAddress, input.count, out.baseAddress, &length, evp, nil)
            }
        }
        // EVP_Digest fails only when OpenSSL cannot allocate; there is no input that makes it fail.
        precondition(ok == 1 && Int(length) == byteCount, "OpenSSL digest failed")
        return output
    }

    /// Hashes the UTF-8 bytes of `string`.
    public func hash(_ string: String) -> [UInt8] {
        hash(Array(string.utf8))
    }
}

/// HMAC (RFC 2104) with a chosen digest.
public enum HMAC {
    /// The HMAC of `message` under `key`.
    public static func authenticationCode<Key: ContiguousBytes, Message: ContiguousBytes>(
        for message: Message, key: Key, digest: Digest = .sha256
    ) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: digest.byteCount)
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                output.withUnsafeMutableBufferPointer { out in
                    COpenSSL.HMAC(
                        digest.evp, keyBytes.baseAddress, Int32(keyBytes.count),
                        messageBytes.baseAddress, messageBytes.count, out.baseAddress, &length)
                }
            }
        }
        precondition(result != nil && Int(length) == digest.byteCount, "OpenSSL HMAC failed")
        return output
    }
}
