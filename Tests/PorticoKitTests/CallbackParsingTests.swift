import Foundation
import Testing

@testable import PorticoKit

/// The callback checks: state first, then issuer (RFC 9207), then error or code.
struct CallbackParsingTests {
    let provider = Provider(
        issuer: "https://id.example", authorizationEndpoint: URL(string: "https://id.example/oauth/authorize")!,
        tokenEndpoint: URL(string: "https://id.example/oauth/token")!, sendsIssuerInAuthorizationResponse: true)
    let pending = PendingAuthorization(request: AuthorizeRequest(scopes: [.profile]))

    private func callback(_ query: String) -> URL {
        URL(string: "http://127.0.0.1:5000/callback?" + query)!
    }

    private func code(_ query: String, provider: Provider? = nil) throws(AuthorizationError) -> String {
        try AuthorizationCallback.code(from: callback(query), pending: pending, provider: provider ?? self.provider)
    }

    @Test func aGoodCallbackYieldsTheCode() throws {
        #expect(try code("code=abc&state=\(pending.state)&iss=https%3A%2F%2Fid.example") == "abc")
    }

    @Test func anErrorIsReported() {
        let error = #expect(throws: AuthorizationError.self) {
            try code(
                "error=access_denied&error_description=No%20thanks&state=\(pending.state)&iss=https%3A%2F%2Fid.example")
        }
        #expect(error?.code == .accessDenied)
        #expect(error?.oauthErrorDescription == "No thanks")
        let other = #expect(throws: AuthorizationError.self) {
            try code("error=invalid_scope&state=\(pending.state)&iss=https%3A%2F%2Fid.example")
        }
        #expect(other?.code == .serverError)
        #expect(other?.oauthError == "invalid_scope")
    }

    @Test func aMissingCodeIsAnInvalidResponse() {
        let error = #expect(throws: AuthorizationError.self) {
            try code("state=\(pending.state)&iss=https%3A%2F%2Fid.example")
        }
        #expect(error?.code == .invalidResponse)
    }

    @Test func aWrongOrMissingStateIsRefusedEvenForErrors() {
        for query in [
            "code=abc&state=other&iss=https%3A%2F%2Fid.example", "code=abc&iss=https%3A%2F%2Fid.example",
            "error=access_denied&state=other&iss=https%3A%2F%2Fid.example",
        ] {
            let error = #expect(throws: AuthorizationError.self) { try code(query) }
            #expect(error?.code == .stateMismatch)
        }
    }

    @Test func aMismatchedOrMissingIssuerIsRefused() {
        let wrong = #expect(throws: AuthorizationError.self) {
            try code("code=abc&state=\(pending.state)&iss=https%3A%2F%2Fevil.example")
        }
        #expect(wrong?.code == .issuerMismatch)
        let missing = #expect(throws: AuthorizationError.self) { try code("code=abc&state=\(pending.state)") }
        #expect(missing?.code == .issuerMismatch)
        // A provider that never sends iss (Login with Amazon) is not held to it...
        #expect((try? code("code=abc&state=\(pending.state)", provider: .loginWithAmazon())) == "abc")
        // ...but an iss it did not promise must still match.
        let unexpected = #expect(throws: AuthorizationError.self) {
            try code("code=abc&state=\(pending.state)&iss=https%3A%2F%2Fid.example", provider: .loginWithAmazon())
        }
        #expect(unexpected?.code == .issuerMismatch)
    }

    @Test func aRepeatedParameterIsRefused() {
        let error = #expect(throws: AuthorizationError.self) {
            try code("code=abc&code=def&state=\(pending.state)&iss=https%3A%2F%2Fid.example")
        }
        #expect(error?.code == .invalidResponse)
    }
}
