import Foundation

/// One request on the companion's socket: a single JSON object on one line, at most
/// ``CompanionProtocol/maximumMessageBytes`` long (see the "Companion protocol" article).
///
/// ``init(decoding:)`` is the one way the agent reads what a peer sent; it refuses anything
/// but protocol version 1, an unknown `op`, a field that is missing for the `op`, and strings
/// longer than ``CompanionProtocol/maximumFieldLength``, so no later code sees odd input.
public struct CompanionRequest: Codable, Sendable, Equatable {
    /// The protocol version; only 1 exists.
    public var version: Int
    /// What is asked.
    public var operation: CompanionOperation
    /// The app's own id for an `authorize` (random), which a later `cancel` names.
    public var requestID: String?
    /// `approve` / `deny`: the pending consent's id.
    public var id: String?
    /// `authorize`: the app's client id.
    public var clientID: String?
    /// `authorize`: the redirect URI the code is for (registered for that client).
    public var redirectURI: String?
    /// `authorize`: the scopes, space-separated.
    public var scope: String?
    /// `authorize`: the app's `state`, echoed with the code.
    public var state: String?
    /// `authorize`: the app's `nonce` for its ID token.
    public var nonce: String?
    /// `authorize`: the app's PKCE challenge; only `S256` is accepted.
    public var codeChallenge: String?
    /// `authorize`: `S256`.
    public var codeChallengeMethod: String?
    /// `authorize`: OpenID Connect `prompt` (`none`, `login`, `consent`), if the app set one.
    public var prompt: String?
    /// `ping`: the issuer the app wants; an agent for another one says so.
    public var issuer: String?
    /// `authorize`: the `request_uri` of the same request, pushed by the app to the provider's
    /// PAR endpoint (RFC 9126). The agent then forwards only it and `client_id`, so the
    /// provider judges the pushed parameters (a client held to PAR is refused otherwise); the
    /// other fields stay for an agent that does not know this one.
    public var requestURI: String?

    /// A request of `operation`; set the fields the operation needs.
    public init(_ operation: CompanionOperation) {
        version = CompanionProtocol.version
        self.operation = operation
    }

    enum CodingKeys: String, CodingKey {
        case version = "v"
        case operation = "op"
        case requestID = "request_id"
        case id
        case clientID = "client_id"
        case redirectURI = "redirect_uri"
        case scope, state, nonce, prompt, issuer
        case codeChallenge = "code_challenge"
        case codeChallengeMethod = "code_challenge_method"
        case requestURI = "request_uri"
    }

    /// Reads and checks one message; throws ``CompanionProtocolError`` saying what is wrong.
    public init(decoding bytes: [UInt8]) throws(CompanionProtocolError) {
        guard bytes.count <= CompanionProtocol.maximumMessageBytes else { throw .tooLarge }
        // The version first, so a newer client hears "unsupported version", not "bad field".
        struct Probe: Decodable { let v: Int }
        guard let probe = try? JSONDecoder().decode(Probe.self, from: Data(bytes)) else {
            throw .invalid("a message is one JSON object with a version v")
        }
        guard probe.v == CompanionProtocol.version else { throw .unsupportedVersion(probe.v) }
        let decoded: CompanionRequest
        do {
            decoded = try JSONDecoder().decode(CompanionRequest.self, from: Data(bytes))
        } catch {
            throw .invalid("the message's fields are not those of a request")
        }
        try decoded.check()
        self = decoded
    }

    /// The message as sent: compact JSON, no newline in it.
    public func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? Array(encoder.encode(self))) ?? []
    }

    /// The fields each operation needs, and the bounds every field keeps.
    func check() throws(CompanionProtocolError) {
        let fields: [(String, String?)] = [
            ("request_id", requestID), ("id", id), ("client_id", clientID), ("redirect_uri", redirectURI),
            ("scope", scope), ("state", state), ("nonce", nonce), ("code_challenge", codeChallenge),
            ("code_challenge_method", codeChallengeMethod), ("prompt", prompt), ("issuer", issuer),
            ("request_uri", requestURI),
        ]
        for (name, value) in fields {
            guard let value else { continue }
            guard value.utf8.count <= CompanionProtocol.maximumFieldLength else {
                throw .invalid("\(name) is too long")
            }
            guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw .invalid("\(name) contains a control character")
            }
        }
        func require(_ name: String, _ value: String?) throws(CompanionProtocolError) {
            guard let value, !value.isEmpty else { throw .invalid("\(operation.rawValue) needs \(name)") }
        }
        switch operation {
        case .ping, .pending:
            break
        case .authorize:
            try require("request_id", requestID)
            try require("client_id", clientID)
            try require("redirect_uri", redirectURI)
            try require("scope", scope)
            try require("state", state)
            try require("code_challenge", codeChallenge)
            guard (codeChallengeMethod ?? "S256") == "S256" else {
                throw .invalid("code_challenge_method must be S256")
            }
        case .cancel:
            try require("request_id", requestID)
        case .approve, .deny:
            try require("id", id)
        }
    }
}
