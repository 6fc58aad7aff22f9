import Foundation
import PorticoCrypto
import Testing

@testable import PorticoKit

/// State, nonce and PKCE generation, and the authorization URL.
struct AuthorizationRequestTests {
    let provider = Provider(
        issuer: "https://id.example",
        authorizationEndpoint: URL(string: "https://id.example/oauth/authorize?tenant=a")!,
        tokenEndpoint: URL(string: "https://id.example/oauth/token")!)

    private func parameters(_ url: URL) -> [String: String] {
        var result: [String: String] = [:]
        for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? [] {
            result[item.name] = item.value
        }
        return result
    }

    @Test func everyAttemptHasFreshStateAndAnS256Pair() {
        let request = AuthorizeRequest(scopes: [.profile])
        let first = PendingAuthorization(request: request)
        let second = PendingAuthorization(request: request)
        #expect(first.state != second.state)
        #expect(first.state.utf8.count == 43)
        #expect(first.codeVerifier != nil)
        let verifier = first.codeVerifier
        #expect(PKCE.isValidVerifier(verifier ?? ""))
        #expect(first.codeChallenge == PKCE.challenge(for: verifier ?? ""))
        #expect(first.codeVerifier != second.codeVerifier)
        #expect(first.nonce == nil)
        #expect(PendingAuthorization(request: AuthorizeRequest(scopes: [.openID])).nonce != nil)
    }

    @Test func anAppSuppliedChallengeIsSentAsIs() {
        var request = AuthorizeRequest(scopes: [.profile], grantType: .authorizationCode)
        request.codeChallenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        let pending = PendingAuthorization(request: request)
        #expect(pending.codeVerifier == nil)
        #expect(pending.codeChallenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test func theURLCarriesEveryParameterAndKeepsTheEndpointQuery() throws {
        var request = AuthorizeRequest(
            scopes: [.openID, .profile, .postalCode, .profile], loginHint: "ann+x@example.com",
            additionalParameters: ["ui_locales": "zh-CN", "state": "forged", "client_id": "other"])
        request.prompt = "consent"
        let pending = PendingAuthorization(request: request)
        let redirect = URL(string: "http://127.0.0.1:49152/callback")!
        let url = pending.authorizationURL(provider: provider, clientID: "app-1", redirectURI: redirect)
        let query = parameters(url)
        #expect(url.host == "id.example" && url.path == "/oauth/authorize")
        #expect(query["tenant"] == "a")
        #expect(query["response_type"] == "code")
        #expect(query["client_id"] == "app-1")
        #expect(query["redirect_uri"] == "http://127.0.0.1:49152/callback")
        #expect(query["scope"] == "openid profile postal_code")
        #expect(query["state"] == pending.state)
        #expect(query["nonce"] == pending.nonce)
        #expect(query["code_challenge"] == pending.codeChallenge)
        #expect(query["code_challenge_method"] == "S256")
        #expect(query["login_hint"] == "ann+x@example.com")
        #expect(query["prompt"] == "consent")
        #expect(query["ui_locales"] == "zh-CN")
        // Extras cannot override what the SDK sends (it would defeat state and PKCE).
        #expect(url.absoluteString.components(separatedBy: "state=").count == 2)
        #expect(!url.absoluteString.contains("forged"))
        #expect(url.absoluteString.contains("ann%2Bx%40example.com"))
    }

    @Test func alwaysAsksForTheLoginPage() {
        let always = PendingAuthorization(request: AuthorizeRequest(scopes: [.profile], interactiveStrategy: .always))
        let auto = PendingAuthorization(request: AuthorizeRequest(scopes: [.profile]))
        let redirect = URL(string: "http://127.0.0.1/callback")!
        #expect(
            parameters(always.authorizationURL(provider: provider, clientID: "a", redirectURI: redirect))["prompt"]
                == "login")
        #expect(
            parameters(auto.authorizationURL(provider: provider, clientID: "a", redirectURI: redirect))["prompt"] == nil
        )
    }

    @Test func scopesHaveTheirProviderNames() {
        #expect(Scope.profile.name == "profile")
        #expect(Scope.profileUserID.name == "profile:user_id")
        #expect(Scope.postalCode.name == "postal_code")
        #expect(Scope.email.name == "email")
        #expect(Scope.openID.name == "openid")
        #expect(Scope(name: "print:photos") == "print:photos")
    }

    @Test func anEmptyScopeListIsInvalidInput() async {
        let manager = AuthorizationManager(
            provider: provider, clientID: "a", store: InMemoryTokenStore(), userAgent: DeviceCodeUserAgent { _ in })
        let error = await #expect(throws: AuthorizationError.self) {
            try await manager.authorize(AuthorizeRequest(scopes: []))
        }
        #expect(error?.code == .invalidInput)
    }
}
