import Foundation

/// The latest `DPoP-Nonce` each server sent (RFC 9449 §8, §9), shared by every manager of the
/// process: a nonce belongs to the server, not to one grant, and starting with the latest one
/// saves the round trip of a refused proof.
enum DPoPNonceBook {
    private static let nonces = LockedState<[String: String]>([:])

    /// The server a nonce belongs to: scheme, host and port of `url`.
    private static func origin(_ url: URL) -> String {
        "\(url.scheme?.lowercased() ?? "")://\(url.host?.lowercased() ?? "")\(url.port.map { ":\($0)" } ?? "")"
    }

    /// The latest nonce from the server of `url`, if it ever sent one.
    static func nonce(for url: URL) -> String? {
        nonces.withLock { $0[origin(url)] }
    }

    /// Remembers `nonce` as the latest from the server of `url`.
    static func remember(_ nonce: String, from url: URL) {
        let trimmed = nonce.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return }
        nonces.withLock { $0[origin(url)] = trimmed }
    }

    /// Remembers the nonce `reply` carries, if any; true when it carried one.
    @discardableResult
    static func remember(from reply: HTTPReply, of url: URL) -> Bool {
        guard let nonce = reply.header("DPoP-Nonce") else { return false }
        remember(nonce, from: url)
        return true
    }
}
