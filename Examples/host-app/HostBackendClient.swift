import Foundation
import PorticoKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The host app's calls to its own backend, with the host session as Bearer token.
struct HostBackendClient: Sendable {
    /// A failure the backend or the network reported, in one line.
    struct Failure: Error, CustomStringConvertible {
        let status: Int
        let error: String
        let description: String
    }

    let base: URL
    let session: String?

    /// `POST /host/sessions`: the host's own sign-in stand-in.
    func signIn(user: String) async throws -> (hostUserID: String, session: String) {
        let json = try await send("POST", "host/sessions", form: [("user", user)])
        guard let id = json["host_user_id"] as? String, let session = json["session"] as? String else {
            throw Failure(status: 0, error: "invalid_response", description: "the backend's answer has no session")
        }
        return (id, session)
    }

    /// `POST /host/account-link`: code, verifier and redirect URI; answers the auth model.
    func link(_ result: AuthorizeResult) async throws -> AuthModel {
        guard let code = result.authorizationCode, let verifier = result.codeVerifier,
            let redirectURI = result.redirectURI
        else { throw Failure(status: 0, error: "invalid_request", description: "the authorization brought no code") }
        let json = try await send(
            "POST", "host/account-link",
            form: [("code", code), ("code_verifier", verifier), ("redirect_uri", redirectURI.absoluteString)])
        guard let uid = json["uid"] as? String, let token = json["access_token"] as? String,
            let hostUserID = json["host_user_id"] as? String
        else {
            throw Failure(status: 0, error: "invalid_response", description: "the backend's answer is no auth model")
        }
        let expiresAt = (json["expires_at"] as? NSNumber).map { Date(timeIntervalSince1970: $0.doubleValue) }
        return AuthModel(uid: uid, accessToken: token, hostUserID: hostUserID, expiresAt: expiresAt)
    }

    /// `POST /host/par`: the backend pushes the authorization request with the host client's
    /// credentials (RFC 9126) and answers the platform's `request_uri`.
    func push(_ request: PushedAuthorizationRequest) async throws -> PushedAuthorizationResponse {
        let json = try await send("POST", "host/par", form: request.formFields)
        guard let requestURI = json["request_uri"] as? String else {
            throw Failure(status: 0, error: "invalid_response", description: "the backend's answer has no request_uri")
        }
        let expiresIn = (json["expires_in"] as? NSNumber)?.doubleValue ?? 60
        return PushedAuthorizationResponse(requestURI: requestURI, expiresIn: expiresIn)
    }

    /// `DELETE /host/account-link`: the backend unbinds at the platform.
    func unbind() async throws {
        _ = try await send("DELETE", "host/account-link")
    }

    /// `POST /host/mini-programs/{id}/token`: the mini-program's own token, by delegation.
    func miniProgramToken(_ clientID: String) async throws -> String {
        var unreserved = CharacterSet.alphanumerics
        unreserved.insert(charactersIn: "-._~")
        let encoded = clientID.addingPercentEncoding(withAllowedCharacters: unreserved) ?? clientID
        let json = try await send("POST", "host/mini-programs/\(encoded)/token")
        guard let token = json["access_token"] as? String else {
            throw Failure(status: 0, error: "invalid_response", description: "the backend's answer has no token")
        }
        return token
    }

    private func send(_ method: String, _ path: String, form: [(String, String)] = []) async throws -> [String: Any] {
        var request = URLRequest(url: base.appendingPathComponent(path))
        request.httpMethod = method
        if let session { request.setValue("Bearer \(session)", forHTTPHeaderField: "Authorization") }
        if method == "POST" {
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            request.httpBody = Data(
                form.map { name, value in
                    "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
                }.joined(separator: "&").utf8)
        }
        let data: Data
        let response: URLResponse
        do { (data, response) = try await URLSession.shared.data(for: request) } catch {
            throw Failure(
                status: 0, error: "unreachable", description: "the host backend at \(base) cannot be reached")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        guard (200..<300).contains(status) else {
            let error = json["error"] as? String ?? "status \(status)"
            let text = json["error_description"] as? String ?? "the host backend answered \(status)"
            throw Failure(status: status, error: error, description: "\(text) (\(error))")
        }
        return json
    }
}
