import Foundation
import PorticoCrypto
import PorticoStore

/// `grant_type=urn:ietf:params:oauth:grant-type:device_code` (RFC 8628 §3.4–3.5), and Login
/// with Amazon's `grant_type=device_code`: a device polls until the person decided at
/// `/device`, then gets tokens exactly as an app redeeming an authorization code would.
///
/// Each poll is decided by ``DevicePollPolicy/poll(deviceCode:in:now:)`` on the
/// store's conditional updates: too soon raises the interval by 5 s (`slow_down`), an approval
/// is consumed by the one poll whose update changed its row, the one that gets the tokens. The poll's bookkeeping must commit even when the answer is an error,
/// so the transaction returns an ``Outcome`` and the error is thrown after it.
struct DeviceCodeGrant: TokenGrant {
    /// The RFC 8628 grant type.
    static let grantType = "urn:ietf:params:oauth:grant-type:device_code"
    /// Login with Amazon's name for the same grant.
    static let amazonGrantType = "device_code"
    static let dialects = [amazonGrantType]
    static let metricsLabel = "device_code"
    static let helpNote: String? = "TV and console login, no redirect URI needed"
    static let errorCodes = [
        OAuthError.authorizationPending.code, "slow_down", OAuthError.accessDenied.code, OAuthError.expiredToken.code,
    ]

    /// Where device authorizations and refresh families live.
    let store: any Store
    /// Describes the tokens to sign.
    let tokens: TokenIssuer
    /// Lifetimes of codes and tokens.
    let lifetimes: TokenLifetimes
    /// The clock.
    let now: @Sendable () -> Date
    /// What the tokens get before the poll that consumes an approval commits.
    let pipeline: IssuancePipeline

    init(_ dependencies: TokenGrantDependencies) {
        store = dependencies.store
        tokens = dependencies.tokens
        lifetimes = dependencies.lifetimes
        now = dependencies.now
        pipeline = dependencies.pipeline
    }

    /// What the transaction decided.
    private enum Outcome {
        case issue(TokenIssuance)
        case refuse(OAuthError)
    }

    /// The tokens to sign for an approval just consumed.
    private struct Issue {
        let authorization: DeviceAuthorization
        let user: UserRecord
        let accessToken: TokenIssuer.AccessTokenGrant
        let refreshToken: String?
    }

    /// The client a Login with Amazon poll speaks for: LWA's token request carries only the
    /// device and user codes, so the device code names the client. Only a public client can be
    /// named this way; a confidential one must authenticate.
    func client(namedBy parameters: OAuthParameters, grantType: String) throws -> AuthenticatedClient? {
        guard grantType == Self.amazonGrantType else { return nil }
        let deviceCode = try parameters.required("device_code")
        guard let authorization = try store.read({ try $0.deviceAuthorization(deviceCode: deviceCode) }),
            let client = try store.read({ try $0.client(id: authorization.clientID) })
        else { throw OAuthError.invalidGrant("The device code is not valid.") }
        guard client.type == .public else {
            throw OAuthError.invalidClient("This client must authenticate with its secret.")
        }
        return AuthenticatedClient(client: client, method: .none)
    }

    /// Answers one poll with the `device_code` (and, if sent, `user_code`) of the request;
    /// Login with Amazon's dialect must send the user code.
    func exchange(_ request: TokenRequest) throws -> TokenIssuance {
        let parameters = request.parameters
        let client = request.client
        if request.grantType == Self.amazonGrantType { _ = try parameters.required("user_code") }
        let deviceCode = try parameters.required("device_code")
        let userCode = parameters["user_code"]
        let issuer = tokens
        let now = now()
        let outcome = try store.transaction { transaction throws -> Outcome in
            guard let stored = try transaction.deviceAuthorization(deviceCode: deviceCode) else {
                throw OAuthError.invalidGrant("The device code is not valid.")
            }
            guard stored.clientID == client.client.id else {
                throw OAuthError.invalidGrant("The device code was issued to another client.")
            }
            if let userCode, DeviceAuthorization.normalizedUserCode(userCode) != stored.userCode {
                throw OAuthError.invalidGrant("The user_code does not belong to this device_code.")
            }
            guard stored.status != .consumed else {
                throw OAuthError.invalidGrant("Tokens were already issued for this device code.")
            }
            switch try DevicePollPolicy().poll(deviceCode: deviceCode, in: transaction, now: now) {
            case .pending:
                return .refuse(.authorizationPending)
            case .slowDown(let interval):
                return .refuse(.slowDown(interval: interval))
            case .denied:
                return .refuse(.accessDenied)
            case .expired:
                return .refuse(.expiredToken)
            case .notFound:
                throw OAuthError.invalidGrant("The device code is not valid.")
            case .approved(let authorization):
                guard let issue = try issue(authorization, to: client, issuer: issuer, in: transaction, now: now)
                else { return .refuse(.invalidGrant("The account is not available.")) }
                var issuance = TokenIssuance(
                    accessToken: issue.accessToken,
                    identity: TokenIssuer.IdentityGrant(
                        user: issue.user, client: client.client, scopes: issue.authorization.scopes,
                        authTime: issue.authorization.authTime ?? now, nonce: nil),
                    refreshToken: issue.refreshToken)
                // A step's refusal rolls the consumed approval back too: the device may poll again.
                try pipeline.shape(&issuance, for: request, in: transaction)
                return .issue(issuance)
            }
        }
        switch outcome {
        case .refuse(let error):
            throw error
        case .issue(let issuance):
            return issuance
        }
    }

    /// What a consumed approval issues, with the refresh family started; nil when the person
    /// who approved has since been removed or disabled (the approval stays consumed).
    private func issue(
        _ authorization: DeviceAuthorization, to client: AuthenticatedClient, issuer: TokenIssuer,
        in transaction: any StoreTransaction, now: Date
    ) throws -> Issue? {
        guard let userID = authorization.userID, let user = try transaction.user(id: userID), !user.isDisabled else {
            return nil
        }
        let authTime = authorization.authTime ?? now
        let accessToken = issuer.accessTokenGrant(
            subject: user.id, clientID: client.client.id, scopes: authorization.scopes, authTime: authTime)
        let refreshToken = try RefreshFamilies.begin(
            for: client.client, userID: user.id, scopes: authorization.scopes, authTime: authTime, now: now,
            lifetime: lifetimes.refreshToken, in: transaction)?.token
        return Issue(authorization: authorization, user: user, accessToken: accessToken, refreshToken: refreshToken)
    }
}

extension OAuthError {
    /// RFC 8628 §3.5: the person has not decided yet; poll again after the interval.
    static let authorizationPending = OAuthError(
        code: "authorization_pending", description: "The person has not approved the device yet.",
        status: .badRequest)

    /// RFC 8628 §3.5: polled too soon; the interval is now `interval` seconds.
    static func slowDown(interval: Int) -> OAuthError {
        OAuthError(
            code: "slow_down", description: "Polling too fast: wait at least \(interval) seconds between requests.",
            status: .badRequest)
    }

    /// RFC 8628 §3.5: the person refused.
    static let accessDenied = OAuthError(
        code: "access_denied", description: "The person denied the device access.", status: .badRequest)

    /// RFC 8628 §3.5: the codes have expired; start a new device authorization.
    static let expiredToken = OAuthError(
        code: "expired_token", description: "The device code has expired; start again.", status: .badRequest)
}
