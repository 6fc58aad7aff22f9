import Foundation
import PorticoCrypto
import PorticoStore

/// The authorization code FedCM hands an app (`{"token": code}`), which its backend redeems at
/// the token endpoint like any other, but without `redirect_uri`: there was no redirect.
///
/// Such a code is stored with an empty redirect URI, which no authorization request can have
/// (every registered redirect URI is absolute), so ``AuthorizationCodeGrant`` tells the two
/// kinds apart by it: a FedCM code is redeemed only without `redirect_uri`, every other code
/// only with its own. It is bound to the app, the person, the scopes, the PKCE challenge (S256)
/// and the nonce, and lives as long as any authorization code.
enum FedCMCode {
    /// The redirect URI a FedCM code is stored with.
    static let redirectURI = ""

    /// Whether `code` was issued through FedCM.
    static func isFedCM(_ code: AuthorizationCode) -> Bool {
        code.redirectURI == redirectURI
    }

    /// What an app asks for in `params`: the PKCE challenge, the scopes and the nonce.
    struct Request: Sendable, Equatable {
        /// The PKCE `code_challenge` (S256 only).
        let codeChallenge: String
        /// The scopes asked for; `openid profile email` when none are named.
        let scopes: [String]
        /// The OIDC nonce for the ID token.
        let nonce: String?

        /// The scopes FedCM's own disclosure covers; more need Portico's consent page.
        static let disclosedScopes: Set<String> = ["openid", "profile", "email"]

        /// Reads and checks the values; `allowed` are the app's scopes.
        static func read(
            challenge: String?, method: String?, scope: String?, nonce: String?, allowed: [String]
        ) throws(FedCMError) -> Request {
            guard let challenge, !challenge.isEmpty else {
                throw .invalidRequest("params must carry code_challenge (PKCE S256 is required).")
            }
            guard method == "S256" else { throw .invalidRequest("params must carry code_challenge_method S256.") }
            guard challenge.utf8.count == 43, challenge.utf8.allSatisfy(Base64URLAlphabet.contains) else {
                throw .invalidRequest("code_challenge must be 43 base64url characters (S256).")
            }
            var scopes: [String] = []
            for name in (scope ?? "openid profile email").split(separator: " ").map(String.init)
            where !scopes.contains(name) {
                scopes.append(name)
            }
            if scopes.isEmpty { scopes = ["openid", "profile", "email"] }
            for name in scopes where !allowed.contains(name) {
                guard StoredText.canHold(name), name.utf8.count <= 100 else {
                    throw .invalidScope("A scope is malformed.")
                }
                throw .invalidScope("The app may not ask for the scope \(name).")
            }
            if let nonce {
                guard nonce.utf8.count <= 512, StoredText.canHold(nonce) else {
                    throw .invalidRequest("The nonce is too long or malformed.")
                }
            }
            return Request(codeChallenge: challenge, scopes: scopes, nonce: nonce?.isEmpty == true ? nil : nonce)
        }
    }

    /// Stores a code for `request` of `client` by the signed-in person and returns it.
    static func issue(
        _ request: Request, client: Client, signedIn: SignInSession, environment: PageEnvironment
    ) throws -> String {
        let now = environment.now()
        let code = SecureRandom.token()
        var lifetime = environment.lifetimes.authorizationCode
        if client.securityProfile == .fapi2 { lifetime = min(lifetime, AuthorizationFlow.fapiCodeLifetime) }
        let stored = AuthorizationCode(
            code: code, clientID: client.id, userID: signedIn.user.id, redirectURI: redirectURI,
            scopes: request.scopes, codeChallenge: request.codeChallenge, nonce: request.nonce,
            authTime: signedIn.session.authTime, sessionHashedID: signedIn.session.hashedID, createdAt: now,
            expiresAt: now.addingTimeInterval(lifetime))
        try environment.store.transaction { transaction in try transaction.insert(stored) }
        return code
    }
}
