import Foundation
import PorticoCrypto

/// A third-party app registered to use "Login with" the platform.
///
/// The secret of a confidential client is never kept: only its SHA-256, set from the secret by
/// ``init(id:name:type:secret:redirectURIs:allowedScopes:allowedGrantTypes:logoURL:privacyURL:idTokenSigningAlgorithm:postLogoutRedirectURIs:createdAt:)``
/// or ``setSecret(_:)``, and checked by ``verifiesSecret(_:)`` in constant time.
public struct Client: Sendable, Hashable {
    /// The `client_id`.
    public var id: String
    /// The name people see on the sign-in and consent pages.
    public var name: String
    /// Public or confidential.
    public var type: ClientType
    /// SHA-256 of the client secret; nil for public clients.
    public private(set) var secretHash: [UInt8]?
    /// Exact redirect URIs the authorization endpoint accepts.
    public var redirectURIs: [String]
    /// Scopes the client may ask for.
    public var allowedScopes: [String]
    /// Grant types the token endpoint accepts from this client.
    public var allowedGrantTypes: [String]
    /// The logo shown on the consent page.
    public var logoURL: String?
    /// The privacy policy linked from the consent page.
    public var privacyURL: String?
    /// The app's terms of service (`--terms-url`, RFC 7591's `tos_uri`), which FedCM's
    /// dialog links beside the privacy policy; nil when it names none.
    public var termsURL: String? = nil
    /// The JWS algorithm of this client's ID tokens (`RS256` unless it asked for another).
    public var idTokenSigningAlgorithm: String
    /// Where RP-initiated logout may send the browser back to.
    public var postLogoutRedirectURIs: [String]
    /// When the client was registered.
    public var createdAt: Date
    /// The Native SSO group (`--sso-group`): apps of one vendor that may share a device
    /// session; nil for an app of its own.
    public var ssoGroup: String? = nil
    /// The resource servers (RFC 8707 `resource` URIs) its access tokens may be meant for.
    public var resources: [String] = []
    /// Which `sub` it sees for a person.
    public var subjectType: SubjectType = .public
    /// The sector its pairwise subjects derive from (`--sector`, or its redirect URIs' host);
    /// nil for public subjects.
    public var sectorIdentifier: String? = nil
    /// Where it hears of sign-outs (`--backchannel-logout-uri`, OpenID Connect Back-Channel
    /// Logout 1.0): logout tokens are POSTed there; nil for a client that is not told.
    public var backchannelLogoutURI: String? = nil
    /// The public keys (a JWKS document) with which it signs `private_key_jwt` client
    /// assertions (RFC 7523 §2.2, `client add --jwks`); such a client has no secret. Nil for a
    /// client that authenticates with a secret, or not at all.
    public var jwks: String? = nil
    /// Where its public keys are published instead (`jwks_uri`, RFC 7591 §2): an https URL the
    /// provider fetches, caches and fetches again when an assertion names a key it has not seen
    /// (a rotation at the client). Never set together with ``jwks``.
    public var jwksURI: String? = nil
    /// Whether it is a resource server that may ask `/oauth/introspect` about tokens
    /// (`client add --introspection`); other clients must not learn whose a token is.
    public var mayIntrospect = false
    /// Whether its access tokens must be bound to a key (`client add --dpop`, RFC 9449 §5.2's
    /// `dpop_bound_access_tokens`): the token endpoint refuses its requests without a DPoP
    /// proof, so none of its tokens is usable as a bearer token.
    public var requiresDPoP = false
    /// Whether it must push its authorization requests (`client add --require-par`, RFC 9126
    /// §6's `require_pushed_authorization_requests`): `/oauth/authorize` refuses its requests
    /// unless they name a `request_uri` from `POST /oauth/par`.
    public var requiresPAR = false
    /// The security profile it is held to (`client add --profile fapi2`), nil for none; its
    /// flags (``requiresPAR``, ``requiresDPoP``, keys) are set to match when it is added.
    public var securityProfile: SecurityProfile? = nil
    /// When the operator suspended the app (`portico client suspend`); nil while it may sign
    /// people in. Its tokens are refused while it is suspended.
    public var suspendedAt: Date? = nil
    /// Whether the operator has verified the app: apps added by the operator are, apps
    /// registered through `POST /oauth/register` are not until `portico client verify`.
    public var isVerified = true
    /// SHA-256 of the secret a rotation replaced (developer console), accepted until
    /// ``previousSecretExpiresAt`` so the app's servers can change over; nil without one.
    public var previousSecretHash: [UInt8]? = nil
    /// When the previous secret stops working.
    public var previousSecretExpiresAt: Date? = nil

    /// A client ready to insert; pass the plain `secret` of a confidential client and only its
    /// hash is kept.
    public init(
        id: String = RecordIdentifier.random(), name: String, type: ClientType, secret: String? = nil,
        redirectURIs: [String], allowedScopes: [String] = [],
        allowedGrantTypes: [String] = ["authorization_code", "refresh_token"], logoURL: String? = nil,
        privacyURL: String? = nil, idTokenSigningAlgorithm: String = "RS256", postLogoutRedirectURIs: [String] = [],
        createdAt: Date = Date()
    ) {
        self.init(
            id: id, name: name, type: type, secretHash: secret.map(SecretHash.digest), redirectURIs: redirectURIs,
            allowedScopes: allowedScopes, allowedGrantTypes: allowedGrantTypes, logoURL: logoURL,
            privacyURL: privacyURL, idTokenSigningAlgorithm: idTokenSigningAlgorithm,
            postLogoutRedirectURIs: postLogoutRedirectURIs, createdAt: createdAt)
    }

    /// A client as stored, with its secret already hashed (backends only).
    public init(
        id: String, name: String, type: ClientType, secretHash: [UInt8]?, redirectURIs: [String],
        allowedScopes: [String], allowedGrantTypes: [String], logoURL: String?, privacyURL: String?,
        idTokenSigningAlgorithm: String, postLogoutRedirectURIs: [String], createdAt: Date
    ) {
        self.id = id
        self.name = name
        self.type = type
        self.secretHash = secretHash
        self.redirectURIs = redirectURIs
        self.allowedScopes = allowedScopes
        self.allowedGrantTypes = allowedGrantTypes
        self.logoURL = logoURL
        self.privacyURL = privacyURL
        self.idTokenSigningAlgorithm = idTokenSigningAlgorithm
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.createdAt = createdAt
    }

    /// Replaces the secret (rotation) or removes it (nil); only the hash is kept.
    public mutating func setSecret(_ secret: String?) {
        secretHash = secret.map(SecretHash.digest)
    }

    /// Keeps the secret of `stored` (a replaced registration, RFC 7592 §2.2: the secret stays
    /// unless the server issues a new one), without it ever being known in plain text.
    public mutating func keepSecret(of stored: Client) {
        secretHash = stored.secretHash
    }

    /// Whether `presented` is this client's secret. Compares hashes in constant time, so the
    /// answer's timing says nothing about the stored value; always false without a secret.
    public func verifiesSecret(_ presented: String) -> Bool {
        guard let secretHash else { return false }
        return ConstantTime.equals(SecretHash.digest(presented), secretHash)
    }

    /// Whether `presented` is this client's secret at `now`: the current one, or the one a
    /// rotation replaced while its overlap lasts (until ``previousSecretExpiresAt``). Both
    /// hashes are compared in constant time, whichever matches.
    public func verifiesSecret(_ presented: String, at now: Date) -> Bool {
        guard let secretHash else { return false }
        let digest = SecretHash.digest(presented)
        let current = ConstantTime.equals(digest, secretHash)
        var previous = false
        if let previousSecretHash, let previousSecretExpiresAt, now < previousSecretExpiresAt {
            previous = ConstantTime.equals(digest, previousSecretHash)
        }
        return current || previous
    }
}
