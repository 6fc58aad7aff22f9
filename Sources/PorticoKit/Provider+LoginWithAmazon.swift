import Foundation

extension Provider {
    /// Login with Amazon's regions, each with its own hosts.
    public enum AmazonRegion: Sendable, Hashable, CaseIterable {
        /// North America: `www.amazon.com`, `api.amazon.com`.
        case northAmerica
        /// Europe: `www.amazon.co.uk`, `api.amazon.co.uk`.
        case europe
        /// Far East: `www.amazon.co.jp`, `api.amazon.co.jp`.
        case farEast

        var webHost: String {
            switch self {
            case .northAmerica: "www.amazon.com"
            case .europe: "www.amazon.co.uk"
            case .farEast: "www.amazon.co.jp"
            }
        }

        var apiHost: String {
            switch self {
            case .northAmerica: "api.amazon.com"
            case .europe: "api.amazon.co.uk"
            case .farEast: "api.amazon.co.jp"
            }
        }
    }

    /// Login with Amazon with its documented endpoints: authorize at `/ap/oa`, tokens at
    /// `/auth/o2/token`, the profile at `/user/profile`, and code-pair device login at
    /// `/auth/o2/create/codepair`. Amazon has no discovery document, no RFC 7009 revocation and
    /// no `iss` on callbacks, so those checks and the remote revocation are off.
    public static func loginWithAmazon(region: AmazonRegion = .northAmerica) -> Provider {
        func url(_ host: String, _ path: String) -> URL {
            var components = URLComponents()
            components.scheme = "https"
            components.host = host
            components.path = path
            // Fixed literals: the components always form a URL.
            return components.url ?? URL(fileURLWithPath: "/")
        }
        return Provider(
            issuer: nil, authorizationEndpoint: url(region.webHost, "/ap/oa"),
            tokenEndpoint: url(region.apiHost, "/auth/o2/token"),
            profileEndpoint: url(region.apiHost, "/user/profile"),
            deviceAuthorizationEndpoint: url(region.apiHost, "/auth/o2/create/codepair"),
            deviceCodeDialect: .loginWithAmazon, sendsIssuerInAuthorizationResponse: false,
            scopesSupported: ["profile", "profile:user_id", "postal_code"])
    }
}
