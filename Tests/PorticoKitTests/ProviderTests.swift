import Foundation
import PorticoCrypto
import Testing

@testable import PorticoKit

/// Presets, discovery parsing, and discovery against a real provider.
struct ProviderTests {
    @Test func loginWithAmazonHasItsDocumentedEndpoints() {
        let northAmerica = Provider.loginWithAmazon(region: .northAmerica)
        #expect(northAmerica.authorizationEndpoint.absoluteString == "https://www.amazon.com/ap/oa")
        #expect(northAmerica.tokenEndpoint.absoluteString == "https://api.amazon.com/auth/o2/token")
        #expect(northAmerica.profileEndpoint?.absoluteString == "https://api.amazon.com/user/profile")
        #expect(
            northAmerica.deviceAuthorizationEndpoint?.absoluteString == "https://api.amazon.com/auth/o2/create/codepair"
        )
        #expect(northAmerica.deviceCodeDialect == .loginWithAmazon)
        #expect(northAmerica.issuer == nil && northAmerica.revocationEndpoint == nil)
        let europe = Provider.loginWithAmazon(region: .europe)
        #expect(europe.authorizationEndpoint.absoluteString == "https://www.amazon.co.uk/ap/oa")
        #expect(europe.tokenEndpoint.absoluteString == "https://api.amazon.co.uk/auth/o2/token")
        #expect(europe.profileEndpoint?.absoluteString == "https://api.amazon.co.uk/user/profile")
        let farEast = Provider.loginWithAmazon(region: .farEast)
        #expect(farEast.authorizationEndpoint.absoluteString == "https://www.amazon.co.jp/ap/oa")
        #expect(farEast.tokenEndpoint.absoluteString == "https://api.amazon.co.jp/auth/o2/token")
        #expect(
            farEast.deviceAuthorizationEndpoint?.absoluteString == "https://api.amazon.co.jp/auth/o2/create/codepair")
        #expect(Set(Provider.AmazonRegion.allCases.map { Provider.loginWithAmazon(region: $0).identifier }).count == 3)
    }

    @Test func aDocumentNamingAnotherIssuerIsRefused() {
        let document: [String: ProfileValue] = [
            "issuer": "https://evil.example", "authorization_endpoint": "https://evil.example/a",
            "token_endpoint": "https://evil.example/t",
        ]
        let error = #expect(throws: AuthorizationError.self) {
            try Provider(discoveryDocument: document, expectedIssuer: "https://id.example")
        }
        #expect(error?.code == .issuerMismatch)
    }

    @Test func aDocumentWithoutTheTokenEndpointIsRefused() {
        let document: [String: ProfileValue] = [
            "issuer": "https://id.example", "authorization_endpoint": "https://id.example/a",
        ]
        let error = #expect(throws: AuthorizationError.self) {
            try Provider(discoveryDocument: document, expectedIssuer: "https://id.example")
        }
        #expect(error?.code == .invalidResponse)
    }

    @Test func aStandardProviderHasNoProfileEndpoint() throws {
        let document: [String: ProfileValue] = [
            "issuer": "https://id.example", "authorization_endpoint": "https://id.example/a",
            "token_endpoint": "https://id.example/t", "userinfo_endpoint": "https://id.example/u",
            "claims_supported": ["sub", "name"],
        ]
        let provider = try Provider(discoveryDocument: document, expectedIssuer: "https://id.example")
        #expect(provider.profileEndpoint == nil)
        #expect(provider.userInfoEndpoint?.absoluteString == "https://id.example/u")
        #expect(!provider.sendsIssuerInAuthorizationResponse)
    }

    @Test func discoversARealProvider() async throws {
        try await KitHarness.with { harness in
            let provider = try await Provider.discover(issuer: harness.issuer)
            let base = harness.issuer.absoluteString
            #expect(provider.issuer == base)
            #expect(provider.authorizationEndpoint.absoluteString == base + "/oauth/authorize")
            #expect(provider.tokenEndpoint.absoluteString == base + "/oauth/token")
            #expect(provider.revocationEndpoint?.absoluteString == base + "/oauth/revoke")
            #expect(provider.jwksURI?.absoluteString == base + "/oauth/jwks")
            #expect(provider.profileEndpoint?.absoluteString == base + "/user/profile")
            #expect(provider.sendsIssuerInAuthorizationResponse)
            #expect(provider.scopesSupported.contains("postal_code"))
        }
    }

    @Test func discoveryOfNothingIsANetworkError() async {
        let error = await #expect(throws: AuthorizationError.self) {
            try await Provider.discover(issuer: URL(string: "http://127.0.0.1:9")!)
        }
        #expect(error?.code == .network)
    }
}
