import Foundation

/// Single sign-on through the platform's own signed-in app on this device, `portico-agent`:
/// the app asks the agent over its Unix socket, the person answers a consent (or a one-click
/// "Continue as …") in the agent, and no password is typed.
///
/// The agent gets the app's authorization request (client id, redirect URI, scopes, `state`,
/// `nonce`, PKCE challenge) and returns a code bound to them; the manager redeems it with its
/// own verifier, so the agent never sees the app's tokens. When the provider offers PAR the app
/// pushes the request first (with its DPoP proof, binding the code to its key) and the agent
/// forwards only the `request_uri`. It is first in ``AutomaticUserAgent``'s order and
/// available only when an agent for this issuer answers a quick ping and has someone signed
/// in; otherwise the next agent runs, with no error.
///
/// How it ends: the person's Deny is ``AuthorizationError/Code/userCancelled``; the app's
/// cancel drops the request in the agent and ends as ``AuthorizationError/Code/cancelled``; an
/// agent that goes away mid-request is ``AuthorizationError/Code/network`` and one that lets the
/// consent time out is ``AuthorizationError/Code/timedOut``, never a hang.
public struct CompanionUserAgent: UserAgent {
    /// The socket to use; nil for the agent of the context's issuer at the usual place.
    public var socketPath: URL?
    /// How long the availability ping may take.
    public var pingTimeout: Duration
    /// The longest wait for the agent's answer; the agent itself ends a consent nobody answers
    /// earlier (with `timeout`), so this only guards against an agent that stops answering.
    public var timeout: Duration
    let environment: [String: String]

    /// A companion agent; by default it finds the agent of the provider's issuer.
    public init(socketPath: URL? = nil, pingTimeout: Duration = .milliseconds(500), timeout: Duration = .seconds(330)) {
        self.init(
            socketPath: socketPath, pingTimeout: pingTimeout, timeout: timeout,
            environment: ProcessInfo.processInfo.environment)
    }

    init(socketPath: URL?, pingTimeout: Duration, timeout: Duration, environment: [String: String]) {
        self.socketPath = socketPath
        self.pingTimeout = pingTimeout
        self.timeout = timeout
        self.environment = environment
    }

    func client(for context: AuthorizationContext) -> CompanionClient? {
        if let socketPath { return CompanionClient(socketPath: socketPath) }
        guard let issuer = context.provider.issuer else { return nil }
        return CompanionClient(issuer: issuer, environment: environment)
    }

    /// Available when the app has a redirect URI, and an agent for the provider's issuer
    /// answers the ping with someone signed in.
    public func isAvailable(for context: AuthorizationContext) -> Bool {
        guard context.redirectURI != nil, let issuer = context.provider.issuer, let client = client(for: context) else {
            return false
        }
        var ping = CompanionRequest(.ping)
        ping.issuer = issuer
        guard let reply = try? client.send(ping, timeout: pingTimeout), reply.ok, reply.signedIn == true else {
            return false
        }
        return Self.sameIssuer(reply.issuer, issuer)
    }

    /// Asks the agent and returns the code as a callback to the app's redirect URI.
    public func authorize(_ context: AuthorizationContext) async throws -> AuthorizationOutcome {
        guard let redirectURI = context.redirectURI, let client = client(for: context) else {
            throw AuthorizationError(.invalidInput, "the companion needs the app's registered redirect URI")
        }
        var request = CompanionRequest(.authorize)
        request.requestID = PendingAuthorization.randomToken()
        request.clientID = context.clientID
        request.redirectURI = redirectURI.absoluteString
        request.scope = context.pending.scopes.joined(separator: " ")
        request.state = context.pending.state
        request.nonce = context.pending.nonce
        request.codeChallenge = context.pending.codeChallenge
        request.codeChallengeMethod = "S256"
        request.prompt = context.pending.request.prompt
        // Pushed first when the provider offers PAR, with the DPoP proof that binds the code.
        request.requestURI = try await context.pushedRequest(redirectURI: redirectURI, impliesLogin: false)?
            .requestURI
        let channel: CompanionChannel
        do { channel = try client.connect() } catch {
            throw Self.unavailable("the Portico agent is not reachable: \(error)")
        }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let cancelledByApp = LockedState<Bool>(false)
        let sent = request
        let reply: CompanionReply
        do {
            reply = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation {
                    (continuation: CheckedContinuation<CompanionReply, any Error>) in
                    Thread.detachNewThread {
                        continuation.resume(with: Result { try client.exchange(sent, on: channel, until: deadline) })
                    }
                }
            } onCancel: {
                cancelledByApp.set()
                var cancel = CompanionRequest(.cancel)
                cancel.requestID = sent.requestID
                _ = try? client.send(cancel, timeout: .seconds(2))
                channel.shutDown()
            }
        } catch {
            channel.close()
            if cancelledByApp.value || Task.isCancelled { throw AuthorizationError.taskCancelled }
            switch error as? CompanionChannelError {
            case .timedOut?:
                throw AuthorizationError(.timedOut, "the Portico agent did not answer in time")
            case .closed?:
                throw AuthorizationError(.network, "the Portico agent went away before answering")
            default:
                throw AuthorizationError(.network, "the Portico agent failed: \(error)", underlyingError: error)
            }
        }
        channel.close()
        return try Self.outcome(of: reply, redirectURI: redirectURI)
    }

    /// The callback a reply stands for, or the error it means.
    static func outcome(of reply: CompanionReply, redirectURI: URL) throws(AuthorizationError) -> AuthorizationOutcome {
        guard reply.ok else {
            let description = reply.errorDescription
            switch reply.error ?? "" {
            case "access_denied":
                throw AuthorizationError(
                    .userCancelled, "the person declined in the Portico agent", oauthError: "access_denied",
                    oauthErrorDescription: description)
            case "timeout":
                throw AuthorizationError(.timedOut, "nobody answered the consent in the Portico agent")
            case "cancelled":
                throw AuthorizationError(.cancelled, "the Portico agent dropped the request")
            case "signed_out", "login_required":
                throw unavailable("the Portico agent cannot sign in now (\(reply.error ?? ""))")
            case let error:
                throw AuthorizationError.oauth(error, description: description)
            }
        }
        guard let code = reply.code, let state = reply.state else {
            throw AuthorizationError(.invalidResponse, "the Portico agent answered without a code")
        }
        var components = URLComponents(url: redirectURI, resolvingAgainstBaseURL: false)
        var items = [URLQueryItem(name: "code", value: code), URLQueryItem(name: "state", value: state)]
        if let iss = reply.iss { items.append(URLQueryItem(name: "iss", value: iss)) }
        components?.queryItems = items
        guard let url = components?.url else {
            throw AuthorizationError(.invalidResponse, "the Portico agent's code does not fit the redirect URI")
        }
        return .callback(url, redirectURI: redirectURI)
    }

    /// An error after which ``AutomaticUserAgent`` tries the next agent, as if none were here.
    static func unavailable(_ message: String) -> AuthorizationError {
        AuthorizationError(.authorizationRequired, message, underlyingError: CompanionUnavailable())
    }

    static func sameIssuer(_ first: String?, _ second: String) -> Bool {
        guard let first else { return false }
        func trimmed(_ text: String) -> String { text.hasSuffix("/") ? String(text.dropLast()) : text }
        return trimmed(first) == trimmed(second)
    }
}

/// Marks an error of the companion after which the next user agent should run.
struct CompanionUnavailable: Error {}

extension AuthorizationError {
    /// Whether this error only says the companion cannot help now.
    var isCompanionUnavailable: Bool { underlyingError is CompanionUnavailable }
}
