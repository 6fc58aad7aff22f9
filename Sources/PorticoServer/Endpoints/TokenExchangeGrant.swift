import Foundation
import PorticoCrypto
import PorticoStore

/// `grant_type=urn:ietf:params:oauth:grant-type:token-exchange` (RFC 8693): a client trades a
/// token it holds for another.
///
/// This file reads and checks the parameters of RFC 8693 §2.1 the same way for every profile,
/// then hands the request to the profile its token types name:
///
/// - an ID token with a device secret as actor token: Native SSO (``NativeSSOExchange``);
/// - an access token without an actor and with `audience` naming a mini-program: a host app's
///   delegation to its mini-program (``MiniProgramDelegation``);
/// - an access token without an actor otherwise: narrowing to fewer scopes or one resource
///   server (``NarrowingExchange``), confidential clients only.
///
/// Anything else is `invalid_request`. Every answer carries `issued_token_type`.
struct TokenExchangeGrant: TokenGrant {
    static let grantType = "urn:ietf:params:oauth:grant-type:token-exchange"
    static let helpNote: String? = "Native SSO, narrowing and mini-program delegation"
    static let metricsLabel = "token_exchange"
    /// RFC 8707's (any grant may answer it for a `resource`) and Native SSO's.
    static let errorCodes = [OAuthError.invalidTarget("").code, OAuthError.interactionRequired("").code]

    /// The parameters of a token exchange, checked.
    struct Parameters {
        /// `subject_token`.
        let subjectToken: String
        /// `subject_token_type`.
        let subjectTokenType: String
        /// `actor_token` with its `actor_token_type`, when sent.
        let actor: (token: String, type: String)?
        /// `audience`.
        let audience: String?
        /// `resource`.
        let resource: String?
        /// `scope`, split; nil when not sent.
        let scopes: [String]?
    }

    private let nativeSSO: NativeSSOExchange
    private let narrowing: NarrowingExchange
    private let delegation: MiniProgramDelegation
    /// What the tokens get: Native SSO runs it in its transaction; narrowing and delegation,
    /// which write nothing, after they decided.
    private let pipeline: IssuancePipeline

    init(_ dependencies: TokenGrantDependencies) {
        nativeSSO = NativeSSOExchange(dependencies)
        narrowing = NarrowingExchange(dependencies)
        delegation = MiniProgramDelegation(dependencies)
        pipeline = dependencies.pipeline
    }

    func exchange(_ request: TokenRequest) throws -> TokenIssuance {
        let parameters = try Self.parameters(of: request.parameters)
        var issuance: TokenIssuance
        switch parameters.subjectTokenType {
        case TokenTypeIdentifier.idToken:
            guard let actor = parameters.actor else {
                throw OAuthError.invalidRequest(
                    "An ID token is exchanged with a device secret: send actor_token and actor_token_type.")
            }
            guard TokenTypeIdentifier.isDeviceSecret(actor.type) else {
                throw OAuthError.invalidRequest("The actor_token_type must be \(TokenTypeIdentifier.deviceSecret).")
            }
            issuance = try nativeSSO.exchange(parameters, deviceSecret: actor.token, request: request)
        case TokenTypeIdentifier.accessToken:
            guard parameters.actor == nil else {
                throw OAuthError.invalidRequest("An access token is exchanged without an actor_token.")
            }
            if let audience = parameters.audience, try delegation.isDelegation(to: audience) {
                issuance = try delegation.exchange(parameters, audience: audience, client: request.client)
            } else {
                issuance = try narrowing.exchange(parameters, client: request.client)
            }
            try pipeline.shape(&issuance, for: request)
        case TokenTypeIdentifier.refreshToken, TokenTypeIdentifier.deviceSecret, TokenTypeIdentifier.oktaDeviceSecret:
            throw OAuthError.invalidRequest("This subject_token_type cannot be exchanged here.")
        default:
            throw OAuthError.invalidRequest("The subject_token_type is not a known token type.")
        }
        issuance.additionalMembers["issued_token_type"] = .string(TokenTypeIdentifier.accessToken)
        return issuance
    }

    /// Reads RFC 8693 §2.1's parameters: both subject parameters, the actor's two together or
    /// neither, and a `requested_token_type` this provider issues.
    static func parameters(of form: OAuthParameters) throws(OAuthError) -> Parameters {
        let subjectToken = try form.required("subject_token")
        let subjectTokenType = try form.required("subject_token_type")
        var actor: (String, String)?
        switch (form["actor_token"], form["actor_token_type"]) {
        case (let token?, let type?): actor = (token, type)
        case (nil, nil): actor = nil
        case (_?, nil): throw .invalidRequest("The actor_token_type is missing (it comes with actor_token).")
        case (nil, _?): throw .invalidRequest("The actor_token is missing (it comes with actor_token_type).")
        }
        if let requested = form["requested_token_type"], requested != TokenTypeIdentifier.accessToken {
            throw .invalidRequest("Only access tokens are issued here (requested_token_type \(requested)).")
        }
        return Parameters(
            subjectToken: subjectToken, subjectTokenType: subjectTokenType, actor: actor, audience: form["audience"],
            resource: form["resource"], scopes: form["scope"].map { ScopeCatalog.parse($0) })
    }
}
