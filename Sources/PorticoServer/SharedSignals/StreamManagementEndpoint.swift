import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// Stream management (SSF 1.0 §8.1): the configuration (create, read, update, replace,
/// delete), status, subjects and verification endpoints, for a receiver holding a
/// ``StreamAccess`` token. Every change is one store transaction; a refused request changes
/// nothing.
struct StreamManagementEndpoint: Sendable {
    /// The receiver's token, checked.
    let access: StreamAccess
    /// Streams, subjects and events.
    let store: any Store
    /// The provider's issuer (`iss` of the stream).
    let issuer: IssuerIdentifier
    /// Which delivery URLs the provider sends to.
    let addresses: OutboundAddressPolicy
    /// Finds the person behind a pairwise `sub`.
    let subjects: PairwiseSubjects
    /// The clock.
    let now: @Sendable () -> Date

    /// Registers the endpoints where the store's handlers run.
    func register(on router: Router, execution: RouteExecution) {
        let path = SharedSignals.configurationPath
        execution.add(.post, path, on: router) { request in respond(request, status: .created, create) }
        execution.get(path, on: router) { request in respond(request, read) }
        execution.add(.patch, path, on: router) { request in respond(request) { try update($0, $1, replacing: false) } }
        execution.add(.put, path, on: router) { request in respond(request) { try update($0, $1, replacing: true) } }
        execution.add(.delete, path, on: router) { request in respond(request, status: .noContent, delete) }
        execution.get(SharedSignals.statusPath, on: router) { request in respond(request, readStatus) }
        execution.post(SharedSignals.statusPath, on: router) { request in respond(request, updateStatus) }
        execution.post(SharedSignals.addSubjectPath, on: router) { request in
            respond(request) { try changeSubject($0, $1, adding: true) }
        }
        execution.post(SharedSignals.removeSubjectPath, on: router) { request in
            respond(request, status: .noContent) { try changeSubject($0, $1, adding: false) }
        }
        execution.post(SharedSignals.verificationPath, on: router) { request in
            respond(request, status: .noContent, verify)
        }
    }

    /// Admits the receiver, runs `body`, and answers its JSON (or nothing for 204) with
    /// `status`, or the error as OAuth JSON.
    private func respond(
        _ request: Request, status: HTTPStatus = .ok, _ body: (Request, Client) throws -> JSONValue?
    ) -> Response {
        OAuthEndpoint.respond {
            let client = try access.receiver(of: request)
            let value = try body(request, client)
            guard status != .noContent, let value else { return Response(status: .noContent) }
            var response = Response.json(raw: value.jsonString, status: status)
            response.headers["Cache-Control"] = "no-store"
            return response
        }
    }

    // MARK: Configuration

    private func create(_ request: Request, _ client: Client) throws -> JSONValue? {
        let body = try Self.object(in: request)
        let now = now()
        var stream = SignalStream(
            clientID: client.id, deliveryMethod: SharedSignals.pollMethod, endpointURL: nil,
            eventsRequested: SharedSignals.Event.allCases.map(\.rawValue).filter {
                $0 != SharedSignals.Event.verification.rawValue
            },
            createdAt: now)
        try apply(body, to: &stream, replacing: false)
        do {
            try store.transaction { transaction in
                guard try transaction.signalStream(clientID: client.id) == nil else { throw StreamError.conflict() }
                try transaction.insertSignalStream(stream)
            }
        } catch StoreError.duplicate {
            throw StreamError.conflict()
        }
        return document(of: stream)
    }

    private func read(_ request: Request, _ client: Client) throws -> JSONValue? {
        let stream = try store.read { try $0.signalStream(clientID: client.id) }
        guard let requested = request.query["stream_id"] else {
            // No stream_id: every stream of the receiver (SSF §8.1.1.2), here one at most.
            return .array(stream.map { [document(of: $0)] } ?? [])
        }
        guard let stream, stream.id == requested else { throw StreamError.notFound() }
        return document(of: stream)
    }

    private func update(_ request: Request, _ client: Client, replacing: Bool) throws -> JSONValue? {
        let body = try Self.object(in: request)
        let requested = try Self.streamID(in: body)
        return try store.transaction { transaction in
            guard var stream = try transaction.signalStream(clientID: client.id), stream.id == requested else {
                throw StreamError.notFound()
            }
            try apply(body, to: &stream, replacing: replacing)
            stream.updatedAt = now()
            try transaction.updateSignalStream(stream)
            return document(of: stream)
        }
    }

    private func delete(_ request: Request, _ client: Client) throws -> JSONValue? {
        guard let requested = request.query["stream_id"] else {
            throw StreamError.invalid("Name the stream to delete with ?stream_id=.")
        }
        try store.transaction { transaction in
            guard let stream = try transaction.signalStream(clientID: client.id), stream.id == requested else {
                throw StreamError.notFound()
            }
            try transaction.deleteSignalStream(clientID: client.id)
        }
        return nil
    }

    /// Takes the receiver-supplied members of `body` into `stream` (SSF §8.1.1.1): `delivery`
    /// (method, endpoint URL, authorization header), `events_requested` and `description`; with
    /// `replacing` (PUT) the members left out go back to their defaults. Transmitter-supplied
    /// members are ignored, as the spec allows.
    private func apply(_ body: [String: JSONValue], to stream: inout SignalStream, replacing: Bool) throws {
        if let delivery = body["delivery"] {
            guard let members = delivery.objectValue else { throw StreamError.invalid("delivery must be an object.") }
            let method = members["method"]?.stringValue ?? SharedSignals.pollMethod
            switch method {
            case SharedSignals.pushMethod:
                guard let url = members["endpoint_url"]?.stringValue else {
                    throw StreamError.invalid(
                        "Push delivery (\(SharedSignals.pushMethod)) needs delivery.endpoint_url.")
                }
                try checkEndpoint(url)
                stream.endpointURL = url
            case SharedSignals.pollMethod:
                if members["endpoint_url"] != nil && members["endpoint_url"] != .null {
                    throw StreamError.invalid("Poll delivery's endpoint_url is the transmitter's; leave it out.")
                }
                stream.endpointURL = nil
            default:
                throw StreamError.invalid(
                    "delivery.method must be \(SharedSignals.pushMethod) or \(SharedSignals.pollMethod).")
            }
            stream.deliveryMethod = method
            if let header = members["authorization_header"] {
                guard let text = header.stringValue, text.count <= 4096,
                    !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
                else { throw StreamError.invalid("delivery.authorization_header must be one line of text.") }
                stream.authorizationHeader = text
            } else if replacing {
                stream.authorizationHeader = nil
            }
        } else if replacing {
            stream.deliveryMethod = SharedSignals.pollMethod
            stream.endpointURL = nil
            stream.authorizationHeader = nil
        }
        if let events = body["events_requested"] {
            guard let list = events.arrayValue, list.count <= 100 else {
                throw StreamError.invalid("events_requested must be an array of event type URIs.")
            }
            var requested: [String] = []
            for item in list {
                guard let uri = item.stringValue, uri.count <= 500 else {
                    throw StreamError.invalid("events_requested must be an array of event type URIs.")
                }
                if !requested.contains(uri) { requested.append(uri) }
            }
            stream.eventsRequested = requested
        } else if replacing {
            stream.eventsRequested = []
        }
        if let description = body["description"] {
            guard let text = description.stringValue, text.count <= 1000 else {
                throw StreamError.invalid("description must be text of at most 1000 characters.")
            }
            stream.description = text
        } else if replacing {
            stream.description = nil
        }
    }

    /// A push endpoint must be https, or http on loopback (RFC 8935 §2, DESIGN), absolute,
    /// without a fragment, and on a host the provider sends to.
    private func checkEndpoint(_ url: String) throws {
        do {
            try ClientURIRules.checkRedirect(url, allowsPrivateUseScheme: false, label: "delivery.endpoint_url")
            try ClientURIRules.checkOutboundTarget(url, policy: addresses, label: "delivery.endpoint_url")
        } catch {
            throw StreamError.invalid(error.description)
        }
    }

    /// The stream configuration as SSF §8.1.1 writes it.
    func document(of stream: SignalStream) -> JSONValue {
        var delivery: [String: JSONValue] = ["method": .string(stream.deliveryMethod)]
        delivery["endpoint_url"] = .string(
            stream.endpointURL ?? issuer.current + SharedSignals.pollPath)
        var document: [String: JSONValue] = [
            "stream_id": .string(stream.id), "iss": .string(issuer.current), "aud": .string(stream.clientID),
            "delivery": .object(delivery),
            "events_supported": .array(SharedSignals.Event.allCases.map { .string($0.rawValue) }),
            "events_requested": .array(stream.eventsRequested.map(JSONValue.string)),
            "events_delivered": .array(SharedSignals.eventsDelivered(stream).map(JSONValue.string)),
            "min_verification_interval": 0,
        ]
        if let description = stream.description { document["description"] = .string(description) }
        return .object(document)
    }

    // MARK: Status

    private func readStatus(_ request: Request, _ client: Client) throws -> JSONValue? {
        guard let requested = request.query["stream_id"] else {
            throw StreamError.invalid("Name the stream with ?stream_id=.")
        }
        guard let stream = try store.read({ try $0.signalStream(clientID: client.id) }), stream.id == requested else {
            throw StreamError.notFound()
        }
        return Self.status(of: stream)
    }

    private func updateStatus(_ request: Request, _ client: Client) throws -> JSONValue? {
        let body = try Self.object(in: request)
        let requested = try Self.streamID(in: body)
        guard let status = body["status"]?.stringValue, SharedSignals.statuses.contains(status) else {
            throw StreamError.invalid("status must be enabled, paused or disabled.")
        }
        let reason = body["reason"]?.stringValue
        if let reason, reason.count > 1000 { throw StreamError.invalid("reason must be at most 1000 characters.") }
        return try store.transaction { transaction in
            guard var stream = try transaction.signalStream(clientID: client.id), stream.id == requested else {
                throw StreamError.notFound()
            }
            stream.status = status
            stream.statusReason = reason
            stream.updatedAt = now()
            try transaction.updateSignalStream(stream)
            return Self.status(of: stream)
        }
    }

    private static func status(of stream: SignalStream) -> JSONValue {
        var members: [String: JSONValue] = ["stream_id": .string(stream.id), "status": .string(stream.status)]
        if let reason = stream.statusReason { members["reason"] = .string(reason) }
        return .object(members)
    }

    // MARK: Subjects

    /// Adds or removes the person named by `subject` (format `iss_sub`, this provider's `iss`,
    /// the `sub` this receiver sees): by default everyone who allowed the app is in its stream.
    private func changeSubject(_ request: Request, _ client: Client, adding: Bool) throws -> JSONValue? {
        let body = try Self.object(in: request)
        let requested = try Self.streamID(in: body)
        guard let subject = body["subject"]?.objectValue else {
            throw StreamError.invalid("subject must be an object (format iss_sub).")
        }
        guard subject["format"]?.stringValue == "iss_sub", let sub = subject["sub"]?.stringValue else {
            throw StreamError.invalidSubject("Only subjects of format iss_sub with a sub are supported.")
        }
        guard subject["iss"]?.stringValue == issuer.current else {
            throw StreamError.invalidSubject("The subject's iss must be \(issuer.current).")
        }
        let sector = try subjects.pairwiseSector(ofClientID: client.id)
        try store.transaction { transaction in
            guard let stream = try transaction.signalStream(clientID: client.id), stream.id == requested else {
                throw StreamError.notFound()
            }
            guard StoredText.canHold(sub),
                let userID = try PairwiseSubjects.userID(subject: sub, sector: sector, in: transaction),
                try transaction.consent(userID: userID, clientID: client.id) != nil
            else { throw StreamError.invalidSubject("No person who allowed this app has this sub.") }
            if adding {
                try transaction.includeSignalSubject(clientID: stream.clientID, userID: userID)
            } else {
                try transaction.excludeSignalSubject(clientID: stream.clientID, userID: userID, at: now())
            }
        }
        return adding ? .object([:]) : nil
    }

    // MARK: Verification

    /// Queues a `verification` event carrying the receiver's `state` (SSF §8.1.4.2).
    private func verify(_ request: Request, _ client: Client) throws -> JSONValue? {
        let body = try Self.object(in: request)
        let requested = try Self.streamID(in: body)
        var fields: [String: JSONValue] = [:]
        if let state = body["state"] {
            guard let text = state.stringValue, text.count <= 1000 else {
                throw StreamError.invalid("state must be text of at most 1000 characters.")
            }
            fields["state"] = .string(text)
        }
        let now = now()
        try store.transaction { transaction in
            guard let stream = try transaction.signalStream(clientID: client.id), stream.id == requested else {
                throw StreamError.notFound()
            }
            guard stream.status != "disabled" else {
                throw StreamError.invalid("The stream is disabled; enable it before asking for verification.")
            }
            let event = SignalEvent(
                clientID: client.id, userID: nil, event: .verification, fields: fields,
                transaction: RecordIdentifier.random(), issuedAt: now)
            try SignalAnnouncement.queue(event, on: stream, now: now, in: transaction)
        }
        return nil
    }

    // MARK: Parsing

    /// The request's JSON object body, or a 400.
    static func object(in request: Request) throws -> [String: JSONValue] {
        guard let object = JSONValue(parsing: request.body)?.objectValue else {
            throw StreamError.invalid("The body must be a JSON object.")
        }
        return object
    }

    /// The body's `stream_id`, or a 400.
    static func streamID(in body: [String: JSONValue]) throws -> String {
        guard let id = body["stream_id"]?.stringValue else { throw StreamError.invalid("stream_id is required.") }
        return id
    }
}
