// A type-checking stub of Apple's CryptoKit: only what PorticoKit uses, as the iOS 13+ SDK declares
// it (developer.apple.com/documentation/cryptokit). Nothing here runs: bodies trap.
@_exported import Foundation
import Security

public protocol Digest: Hashable, Sequence, Sendable where Element == UInt8 {}

public struct SHA256Digest: Digest {
    public func makeIterator() -> Array<UInt8>.Iterator { fatalError("stub") }
}

public struct SHA256: Sendable {
    public static func hash<D: DataProtocol>(data: D) -> SHA256Digest { fatalError("stub") }
}

public enum P256 {
    public enum Signing {
        public struct PrivateKey: Sendable {
            public init(compactRepresentable: Bool = true) { fatalError("stub") }
            public init<Bytes: ContiguousBytes>(rawRepresentation: Bytes) throws { fatalError("stub") }
            public init(pemRepresentation: String) throws { fatalError("stub") }
            public var rawRepresentation: Data { fatalError("stub") }
            public var pemRepresentation: String { fatalError("stub") }
            public var publicKey: PublicKey { fatalError("stub") }
            public func signature<D: DataProtocol>(for data: D) throws -> ECDSASignature { fatalError("stub") }
        }
        public struct PublicKey: Sendable {
            public init<Bytes: ContiguousBytes>(x963Representation: Bytes) throws { fatalError("stub") }
            public var x963Representation: Data { fatalError("stub") }
            public func isValidSignature<D: DataProtocol>(_ signature: ECDSASignature, for data: D) -> Bool {
                fatalError("stub")
            }
        }
        public struct ECDSASignature: Sendable {
            public init<D: DataProtocol>(rawRepresentation: D) throws { fatalError("stub") }
            public var rawRepresentation: Data { fatalError("stub") }
        }
    }
}

public enum Curve25519 {
    public enum Signing {
        public struct PublicKey: Sendable {
            public init<D: ContiguousBytes>(rawRepresentation data: D) throws { fatalError("stub") }
            public func isValidSignature<S: DataProtocol, D: DataProtocol>(_ signature: S, for data: D) -> Bool {
                fatalError("stub")
            }
        }
    }
}

// The Secure Enclave's P-256 keys (developer.apple.com/documentation/cryptokit/secureenclave);
// the `authenticationContext: LAContext?` parameters (LocalAuthentication) are left out.
public enum SecureEnclave {
    public static var isAvailable: Bool { fatalError("stub") }
    public enum P256 {
        public enum Signing {
            public struct PrivateKey {
                public init(
                    compactRepresentable: Bool = true,
                    accessControl: SecAccessControl = SecAccessControlCreateWithFlags(
                        nil, kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, [], nil)!
                ) throws { fatalError("stub") }
                public init(dataRepresentation: Data) throws { fatalError("stub") }
                public var dataRepresentation: Data { fatalError("stub") }
                public var publicKey: CryptoKit.P256.Signing.PublicKey { fatalError("stub") }
                public func signature<D: DataProtocol>(for data: D) throws -> CryptoKit.P256.Signing.ECDSASignature {
                    fatalError("stub")
                }
            }
        }
    }
}
