import PorticoStore

/// The grant types this provider implements: the one list that the token endpoint dispatches
/// on, discovery advertises (`grant_types_supported`, in this order), client registration
/// validates `--grant` against (with the CLI's help and the defaults of a new client), and
/// metrics label `portico_tokens_issued_total` with.
///
/// To add a grant, write one new file with a type conforming to ``TokenGrant`` and add one line
/// to ``grants``; nothing else changes. A `grant_type` no grant answers is
/// `unsupported_grant_type`.
enum TokenGrantRegistry {
    /// Every grant, one line each.
    static let grants: [any TokenGrant.Type] = [
        AuthorizationCodeGrant.self,
        RefreshTokenGrant.self,
        ClientCredentialsGrant.self,
        DeviceCodeGrant.self,
        TokenExchangeGrant.self,
    ]

    /// The standard grant type of every grant, in registry order.
    static var grantTypes: [String] {
        grants.map { $0.grantType }
    }

    /// What a client registered without `--grant` may use.
    static var defaultGrantTypes: [String] {
        grants.filter { $0.isDefault }.map { $0.grantType }
    }

    /// Each dialect's standard grant type (`device_code` → the RFC 8628 URI).
    static var dialects: [String: String] {
        var dialects: [String: String] = [:]
        for grant in grants {
            for dialect in grant.dialects { dialects[dialect] = grant.grantType }
        }
        return dialects
    }

    /// The grant that answers `grantType` (a standard name or a dialect), if any.
    static func grant(answering grantType: String) -> (any TokenGrant.Type)? {
        grants.first { $0.grantType == grantType || $0.dialects.contains(grantType) }
    }

    /// One instance of every grant, built from `dependencies`.
    static func instances(with dependencies: TokenGrantDependencies) -> [any TokenGrant] {
        grants.map { $0.init(dependencies) }
    }
}
