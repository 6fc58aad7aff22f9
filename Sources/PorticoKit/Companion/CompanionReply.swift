import Foundation

/// The agent's one answer to a ``CompanionRequest``, on one line.
///
/// `ok` says whether the request succeeded; a failed one carries `error` (`access_denied`,
/// `timeout`, `signed_out`, `login_required`, `invalid_request`, `unknown_consent`, an OAuth
/// error the provider sent, …) and, when useful, `error_description`.
public struct CompanionReply: Codable, Sendable, Equatable {
    /// The protocol version, 1.
    public var version: Int
    /// Whether the request succeeded.
    public var ok: Bool
    /// What went wrong, when `ok` is false.
    public var error: String?
    /// A sentence about it, for logs and error messages.
    public var errorDescription: String?
    /// `authorize`: the authorization code for the app.
    public var code: String?
    /// `authorize`: the app's `state`, echoed.
    public var state: String?
    /// `authorize`: the issuer of the code (RFC 9207).
    public var iss: String?
    /// `ping`: the issuer this agent signs in with.
    public var issuer: String?
    /// `ping`: whether someone is signed in to the agent.
    public var signedIn: Bool?
    /// `ping`: the signed-in person's name.
    public var name: String?
    /// `pending`: the consents waiting.
    public var pending: [CompanionPendingConsent]?

    /// A successful answer; set the fields that go with it.
    public init() {
        version = CompanionProtocol.version
        ok = true
    }

    /// A failed answer.
    public static func failure(_ error: String, _ description: String? = nil) -> CompanionReply {
        var reply = CompanionReply()
        reply.ok = false
        reply.error = error
        reply.errorDescription = description
        return reply
    }

    enum CodingKeys: String, CodingKey {
        case version = "v"
        case ok, error, code, state, iss, issuer, name, pending
        case errorDescription = "error_description"
        case signedIn = "signed_in"
    }

    /// Reads an answer; nil when `bytes` is not one.
    public init?(decoding bytes: [UInt8]) {
        guard bytes.count <= CompanionProtocol.maximumMessageBytes,
            let reply = try? JSONDecoder().decode(CompanionReply.self, from: Data(bytes)),
            reply.version == CompanionProtocol.version
        else { return nil }
        self = reply
    }

    /// The answer as sent: compact JSON, no newline in it.
    public func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? Array(encoder.encode(self))) ?? []
    }
}
