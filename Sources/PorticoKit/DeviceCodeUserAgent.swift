import Foundation

/// Device login for TVs, consoles and terminals without a browser (RFC 8628, and Login with
/// Amazon's code pair): the app shows a code and a URL, the person approves on their phone or
/// computer, and the SDK polls the token endpoint until they have.
public struct DeviceCodeUserAgent: UserAgent {
    /// Called once with the code and URL to show.
    public var onPrompt: @Sendable (DeviceCodePrompt) async -> Void
    let sleep: @Sendable (TimeInterval) async throws -> Void

    /// A device agent that shows its prompt with `onPrompt`.
    public init(onPrompt: @escaping @Sendable (DeviceCodePrompt) async -> Void) {
        self.init(onPrompt: onPrompt) { seconds in try await Task.sleep(for: .milliseconds(Int64(seconds * 1000))) }
    }

    init(
        onPrompt: @escaping @Sendable (DeviceCodePrompt) async -> Void,
        sleep: @escaping @Sendable (TimeInterval) async throws -> Void
    ) {
        self.onPrompt = onPrompt
        self.sleep = sleep
    }

    /// Available when the provider has a device endpoint.
    public func isAvailable(for context: AuthorizationContext) -> Bool {
        context.provider.deviceAuthorizationEndpoint != nil
    }

    /// Asks for a code, shows it, and polls until the person decides or the code expires.
    public func authorize(_ context: AuthorizationContext) async throws -> AuthorizationOutcome {
        let provider = context.provider
        guard let endpoint = provider.deviceAuthorizationEndpoint else {
            throw AuthorizationError(.invalidInput, "the provider has no device login")
        }
        guard context.grantType == .accessToken else {
            throw AuthorizationError(.invalidInput, "device login yields tokens, not a code for the backend")
        }
        let scope = context.pending.scopes.joined(separator: " ")
        var fields = [("client_id", context.clientID), ("scope", scope)]
        if provider.deviceCodeDialect == .loginWithAmazon { fields.insert(("response_type", "device_code"), at: 0) }
        let reply = try await context.http.postForm(endpoint, fields)
        guard reply.status == 200 else { throw reply.failure("the device endpoint") }
        guard let json = reply.jsonObject, let deviceCode = json["device_code"]?.stringValue,
            let userCode = json["user_code"]?.stringValue,
            let verification = (json["verification_uri"] ?? json["verification_url"])?.stringValue.flatMap(URL.init)
        else { throw AuthorizationError(.invalidResponse, "the device endpoint's answer lacks a code or URL") }
        let started = Date()
        let expiresAt = started.addingTimeInterval(json["expires_in"]?.doubleValue ?? 600)
        await onPrompt(
            DeviceCodePrompt(
                userCode: userCode, verificationURL: verification,
                verificationURLComplete: json["verification_uri_complete"]?.stringValue.flatMap(URL.init),
                expiresAt: expiresAt))

        var poll = [("device_code", deviceCode), ("client_id", context.clientID)]
        switch provider.deviceCodeDialect {
        case .standard:
            poll.insert(("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), at: 0)
        case .loginWithAmazon:
            poll.insert(("grant_type", "device_code"), at: 0)
            poll.append(("user_code", userCode))
        }
        poll = context.pending.request.withTokenParameters(poll)
        var schedule = DevicePollingSchedule(interval: json["interval"]?.doubleValue, expiresAt: expiresAt)
        var wait = schedule.interval
        let tokenEndpoint = TokenEndpointClient(http: context.http, dpopKey: context.dpopKey)
        while true {
            do { try await sleep(wait) } catch { throw AuthorizationError.taskCancelled }
            try Task.checkCancellation()
            let answer = try await tokenEndpoint.post(provider.tokenEndpoint, poll)
            if answer.status == 200 { return .tokens(try TokenResponse(reply: answer)) }
            let error = answer.jsonObject?["error"]?.stringValue ?? ""
            switch schedule.next(after: error, now: Date()) {
            case .pollAgain(let seconds):
                wait = seconds
            case .stop:
                if error == "authorization_pending" || error == "slow_down" {
                    throw AuthorizationError(.timedOut, "the device code expired before it was approved")
                }
                throw answer.failure("the token endpoint")
            }
        }
    }
}
