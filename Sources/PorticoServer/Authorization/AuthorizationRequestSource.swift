import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// Where the parameters of an authorization request come from: the query (or form) itself, a
/// request the client pushed to `POST /oauth/par` (RFC 9126) named by `request_uri`, or a signed
/// request object in `request` (RFC 9101).
///
/// Why a step of its own before ``AuthorizationRequestValidator``: the validator then checks
/// one set of parameters the same way whatever their source (at `/oauth/par` too), and the
/// pushed or signed parameters replace the ones outside entirely — only `client_id` is read
/// outside, to find the pushed request or the keys (RFC 9126 §4, RFC 9101 §6.3).
struct AuthorizationRequestSource {
    /// The prefix of every `request_uri` Portico hands out.
    static let requestURIPrefix = "urn:ietf:params:oauth:request_uri:"
    /// Longest random part of a `request_uri` looked up; longer ones are not Portico's.
    static let maximumReferenceLength = 128

    /// What the source yielded.
    enum Outcome {
        /// The parameters to validate, and whether they were pushed (a `--require-par` client's
        /// must be).
        case parameters(FormParameters, pushed: Bool)
        /// The request cannot go on and nothing can be sent back to the app: show this page.
        case page(PageProblem)
        /// A request object that did not verify: its error goes back to the client like any
        /// other, to a redirect URI checked against the client's registration.
        case invalidRequestObject(RequestObjectVerifier.Problem)
    }

    /// Where pushed requests and clients are kept.
    let store: any Store
    /// The clock.
    let now: @Sendable () -> Date
    /// Verifies request objects.
    let requestObjects: RequestObjectVerifier

    /// The parameters `incoming` stands for.
    func resolve(_ incoming: FormParameters) throws -> Outcome {
        let clientIDs = incoming.values(for: "client_id")
        // Without one usable client_id, the validator shows its page for it.
        guard clientIDs.count == 1, let clientID = clientIDs.first, !clientID.isEmpty, StoredText.canHold(clientID)
        else { return .parameters(incoming, pushed: false) }
        let requestURIs = incoming.values(for: "request_uri")
        if requestURIs.count == 1, let requestURI = requestURIs.first, requestURI.hasPrefix(Self.requestURIPrefix) {
            return try pushed(reference: String(requestURI.dropFirst(Self.requestURIPrefix.count)), clientID: clientID)
        }
        let objects = incoming.values(for: "request")
        // Anything else (a remote request_uri, a repeated one) is the validator's to refuse.
        guard requestURIs.isEmpty, objects.count == 1, let object = objects.first else {
            return .parameters(incoming, pushed: false)
        }
        guard let client = try store.read({ try $0.client(id: clientID) }) else {
            return .parameters(incoming, pushed: false)
        }
        do {
            return .parameters(try requestObjects.parameters(of: object, for: client), pushed: false)
        } catch {
            return .invalidRequestObject(error)
        }
    }

    /// The pushed request `reference` names for `clientID`, taken so it cannot serve twice.
    private func pushed(reference: String, clientID: String) throws -> Outcome {
        let client = try store.read { try $0.client(id: clientID) }
        let expired = PageProblem.expiredRequest(appName: client?.name)
        guard client != nil, !reference.isEmpty, reference.utf8.count <= Self.maximumReferenceLength,
            StoredText.canHold(reference)
        else { return .page(expired) }
        let taken = try store.transaction {
            try $0.takePushedRequest(reference: reference, clientID: clientID, now: now())
        }
        guard let taken, let parameters = Self.decode(taken.parameters) else { return .page(expired) }
        return .parameters(parameters, pushed: true)
    }

    /// `parameters` as the store keeps a pushed request's: a JSON object of strings.
    static func encode(_ parameters: FormParameters) -> String {
        var members: [String: JSONValue] = [:]
        for (name, value) in parameters { members[name] = .string(value) }
        return JSONValue.object(members).jsonString
    }

    /// The parameters of a stored pushed request; nil if the text is not what ``encode(_:)`` wrote.
    static func decode(_ text: String) -> FormParameters? {
        guard let members = JSONValue(parsing: Array(text.utf8))?.objectValue else { return nil }
        var pairs: [(name: String, value: String)] = []
        for (name, value) in members.sorted(by: { $0.key < $1.key }) {
            guard let string = value.stringValue else { return nil }
            pairs.append((name, string))
        }
        return FormParameters(pairs)
    }
}
