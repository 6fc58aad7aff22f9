import Foundation
import PorticoKit

extension AgentServer {
    /// The provider refused the agent's session: it was ended (Your Account's Sign out, a
    /// password reset, a disabled person).
    struct SessionEnded: Error {}

    /// An app's authorization: forwarded to the provider; when it asks for consent, the person
    /// is asked (here, on the terminal, or through `approve`/`deny`) until the deadline.
    func authorize(_ request: CompanionRequest, on channel: CompanionChannel) -> CompanionReply? {
        guard account.isSignedIn else { return .failure("signed_out", "nobody is signed in to the agent") }
        let answer: CompanionBrokerAnswer
        do {
            answer = try BlockingBridge.run { [self] in
                try await withSession { try await broker.authorize(request, authorizing: account.authorizer) }
            }
        } catch {
            return failure(for: error, clientID: request.clientID)
        }
        switch answer {
        case .code(let code, let state, let issuer):
            log("signed in \(request.clientID ?? "") without a question (consent remembered by the provider)")
            return codeReply(code: code, state: state, issuer: issuer)
        case .consentRequired(var consent):
            if consent.personName == nil { consent.personName = account.personName }
            guard let entry = desk.add(consent, requestID: request.requestID ?? "") else {
                return .failure("server_error", "the agent cannot wait for a consent now")
            }
            let outcome = desk.wait(for: entry, watching: channel, until: .now.advanced(by: consentTimeout))
            switch outcome {
            case .cancelled:
                log("\(consent.clientName): the app cancelled")
                return nil
            case .timedOut:
                log("\(consent.clientName): nobody answered in time")
                return .failure("timeout", "nobody answered the consent in time")
            case .allowed, .denied:
                let allow = outcome == .allowed
                let asked = consent
                do {
                    let decided = try BlockingBridge.run { [self] in
                        try await withSession {
                            try await broker.decide(asked, allow: allow, authorizing: account.authorizer)
                        }
                    }
                    guard case .code(let code, let state, let issuer) = decided else {
                        return .failure("server_error", "the provider asked for a consent again")
                    }
                    return codeReply(code: code, state: state, issuer: issuer)
                } catch {
                    return failure(for: error, clientID: request.clientID)
                }
            }
        }
    }

    private func codeReply(code: String, state: String, issuer: String?) -> CompanionReply {
        var reply = CompanionReply()
        reply.code = code
        reply.state = state
        reply.iss = issuer
        return reply
    }

    /// Runs `call` (a request with the agent's credentials, ``AgentAccount/authorizer``) with a
    /// token good for a while; when the provider refuses it, once more after a refresh. A
    /// refused refresh means the session was ended: forgotten here.
    func withSession<Value: Sendable>(_ call: @Sendable () async throws -> Value) async throws -> Value {
        func ended(_ error: any Error) -> Bool { (error as? AuthorizationError)?.code == .authorizationRequired }
        func refused(_ error: any Error) -> Bool { (error as? AuthorizationError)?.oauthError == "invalid_token" }
        do { _ = try await account.accessToken() } catch  where ended(error) {
            account.forgetEndedSession()
            throw SessionEnded()
        }
        do {
            return try await call()
        } catch  where refused(error) {
            do { _ = try await account.refreshedAccessToken() } catch  where ended(error) {
                account.forgetEndedSession()
                throw SessionEnded()
            }
            do { return try await call() } catch  where refused(error) {
                account.forgetEndedSession()
                throw SessionEnded()
            }
        }
    }

    /// The protocol's answer for a failure of the provider call.
    func failure(for error: any Error, clientID: String?) -> CompanionReply {
        if error is SessionEnded {
            log("the agent's session was ended at the provider; signed out here")
            return .failure("signed_out", "the agent's sign-in was ended; run `portico-agent login`")
        }
        guard let error = error as? AuthorizationError else {
            return .failure("server_error", "\(error)")
        }
        if let oauth = error.oauthError {
            if oauth == "access_denied" { log("\(clientID ?? ""): declined") }
            return .failure(oauth, error.oauthErrorDescription)
        }
        return .failure(error.code == .network ? "temporarily_unavailable" : "server_error", error.message)
    }
}
