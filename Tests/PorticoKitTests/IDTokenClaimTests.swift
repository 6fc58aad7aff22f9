import Foundation
import Testing

@testable import PorticoKit

/// The ID-token claim checks of OpenID Connect Core §3.1.3.7 with the manager's leeway and clock.
struct IDTokenClaimTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    let provider = Provider(
        issuer: "https://id.example", authorizationEndpoint: URL(string: "https://id.example/authorize")!,
        tokenEndpoint: URL(string: "https://id.example/token")!)

    private func verifier(leeway: TimeInterval = 60) -> IDTokenVerifier {
        IDTokenVerifier(provider: provider, clientID: "app", http: .shared, leeway: leeway, now: { Self.now })
    }

    private func claims(_ extra: [String: ProfileValue] = [:]) -> [String: ProfileValue] {
        let base: [String: ProfileValue] = [
            "iss": "https://id.example", "aud": "app", "sub": "user-1",
            "exp": .integer(Int64(Self.now.timeIntervalSince1970) + 300),
            "iat": .integer(Int64(Self.now.timeIntervalSince1970) - 10),
        ]
        return base.merging(extra) { _, new in new }
    }

    private func reason(
        _ claims: [String: ProfileValue], _ expected: IDTokenVerifier.Expectations = .init(),
        leeway: TimeInterval = 60
    ) -> String? {
        do {
            try verifier(leeway: leeway).validate(claims, expected)
            return nil
        } catch { return error.message }
    }

    @Test func aGoodTokenPasses() {
        #expect(reason(claims()) == nil)
    }

    @Test func severalAudiencesNeedThisAppAsAuthorizedParty() {
        #expect(reason(claims(["aud": ["app", "other"]]))?.contains("no azp") == true)
        #expect(reason(claims(["aud": ["app", "other"], "azp": "other"]))?.contains("azp names another app") == true)
        #expect(reason(claims(["aud": ["app", "other"], "azp": "app"])) == nil)
        #expect(reason(claims(["aud": "app", "azp": "other"]))?.contains("azp") == true)
        #expect(reason(claims(["aud": ["other"]]))?.contains("another app") == true)
    }

    @Test func maxAgeNeedsARecentAuthTime() {
        let recent = ProfileValue.integer(Int64(Self.now.timeIntervalSince1970) - 100)
        let old = ProfileValue.integer(Int64(Self.now.timeIntervalSince1970) - 1000)
        #expect(reason(claims(["auth_time": recent]), .init(maxAge: 300)) == nil)
        #expect(reason(claims(["auth_time": old]), .init(maxAge: 300))?.contains("older than the max_age") == true)
        #expect(reason(claims(), .init(maxAge: 300))?.contains("no auth_time") == true)
        #expect(reason(claims(["auth_time": old])) == nil)
    }

    @Test func aRefreshMustNameTheSamePerson() {
        #expect(reason(claims(), .init(subject: "user-1")) == nil)
        #expect(reason(claims(), .init(subject: "user-2"))?.contains("another person") == true)
    }

    @Test func theLeewayAndTheManagersClockDecideExpiry() {
        let expiredJustNow = claims(["exp": .integer(Int64(Self.now.timeIntervalSince1970) - 30)])
        #expect(reason(expiredJustNow, leeway: 60) == nil)
        #expect(reason(expiredJustNow, leeway: 10)?.contains("expired") == true)
        let future = claims(["iat": .integer(Int64(Self.now.timeIntervalSince1970) + 120)])
        #expect(reason(future)?.contains("issued in the future") == true)
    }

    @Test func theIssuerMustBeTheProvider() {
        let error = #expect(throws: AuthorizationError.self) {
            try verifier().validate(claims(["iss": "https://evil.example"]), .init())
        }
        #expect(error?.code == .issuerMismatch)
    }
}
