import Synchronization

/// The issuer identifier (`iss`) of a running provider, without a trailing slash.
///
/// Why a reference of its own: a server started on port 0 learns its URL only once it has bound
/// the port, after the handlers were built, so everything that signs or advertises shares this
/// one value instead of a copy taken too early.
final class IssuerIdentifier: Sendable {
    private let value: Mutex<String>

    /// An issuer identifier that starts as `initial`.
    init(_ initial: String) {
        value = Mutex(initial)
    }

    /// The identifier now.
    var current: String {
        value.withLock { $0 }
    }

    /// Replaces the identifier (once the port is known).
    func set(_ issuer: String) {
        value.withLock { $0 = issuer }
    }

    /// Whether people reach the provider over https (so cookies must be `Secure`).
    var usesHTTPS: Bool {
        current.lowercased().hasPrefix("https://")
    }
}
