import Foundation
import Testing

@testable import PorticoKit

/// The one error type: mapping of OAuth codes, readable text, pattern matching.
struct AuthorizationErrorTests {
    @Test func oauthCodesMapToTheMostSpecificKind() {
        let cases: [(String, AuthorizationError.Code)] = [
            ("access_denied", .accessDenied), ("unauthorized_client", .unauthorizedClient),
            ("invalid_client", .unauthorizedClient), ("invalid_grant", .authorizationRequired),
            ("login_required", .authorizationRequired), ("invalid_scope", .serverError),
            ("temporarily_unavailable", .network), ("expired_token", .timedOut),
        ]
        for (oauth, code) in cases {
            #expect(AuthorizationError.oauth(oauth, description: nil).code == code, "\(oauth)")
        }
    }

    @Test func theDescriptionSaysWhatTheProviderSaidAndWhenToRetry() {
        let error = AuthorizationError.oauth("slow_down", description: "Too many requests", retryAfter: 30)
        #expect(
            error.description
                == "server error: the provider answered slow_down (slow_down: Too many requests); retry after 30 s")
        #expect(error.retryAfter == 30)
    }

    @Test func userCancelIsToldApartFromTheAppsCancel() {
        #expect(AuthorizationError.taskCancelled.code == .cancelled)
        #expect(AuthorizationError.taskCancelled.code != .userCancelled)
        #expect(AuthorizationError.wrap(CancellationError(), as: .network, "x").code == .cancelled)
    }

    @Test func codesMatchInCatchClauses() {
        func fail() throws { throw AuthorizationError(.userCancelled, "closed") }
        var matched = false
        do { try fail() } catch AuthorizationError.Code.userCancelled { matched = true } catch {}
        #expect(matched)
    }

    @Test func retryAfterIsReadFromTheHeader() {
        let reply = HTTPReply(
            status: 503, headers: ["retry-after": "120"], body: Data(#"{"error":"temporarily_unavailable"}"#.utf8))
        let error = reply.failure("the token endpoint")
        #expect(error.code == .network)
        #expect(error.retryAfter == 120)
        let plain = HTTPReply(status: 502, headers: [:], body: Data("<html>".utf8)).failure("the token endpoint")
        #expect(plain.code == .network)
    }
}
