// A type-checking stub of Apple's CryptoKit: only what PorticoKit uses, as the iOS 13+ SDK declares
// it (developer.apple.com/documentation/cryptokit). Nothing here runs: bodies trap.
@_exported import Foundation

public protocol Digest: Hashable, Sequence, Sendable where Element == UInt8 {}

public struct SHA256Digest: Digest {
    public func makeIterator() -> Array<UInt8>.Iterator { fatalError("stub") }
}

public struct SHA256: Sendable {
    public static func hash<D: DataProtocol>(data: D) -> SHA256Digest { fatalError("stub") }
}

public enum P256 {
    public enum Signing {
        public struct PublicKey: Sendable {
            public init<Bytes: ContiguousBytes>(x963Representation: Bytes) throws { fatalError("stub") }
            public func isValidSignature<D: DataProtocol>(_ signature: ECDSASignature, for data: D) -> Bool {
                fatalError("stub")
            }
        }
        public struct ECDSASignature: Sendable {
            public init<D: DataProtocol>(rawRepresentation: D) throws { fatalError("stub") }
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
