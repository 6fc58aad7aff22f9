import Foundation
import PorticoCrypto
import PorticoStore

/// RFC 7591 §2 client metadata, read into the ``ClientRegistration`` that `portico client add`
/// fills from its options, so that one validation path judges both; and a stored client
/// written back as metadata.
///
/// Unknown members are ignored (§2); members of the wrong JSON type, values the provider does
/// not support and every refusal of ``ClientRegistration`` become `invalid_client_metadata`, or
/// `invalid_redirect_uri` when the redirect URIs are at fault (§3.2.2).
struct ClientMetadata {
    /// The registration the metadata describes.
    let registration: ClientRegistration
    /// The `token_endpoint_auth_method` registered.
    let authMethod: String

    /// The authentication methods a registration may ask for.
    static let authMethods = ["client_secret_basic", "client_secret_post", "private_key_jwt", "none"]

    /// Reads a JSON object from `body`.
    init(json body: [UInt8], allowsLoopbackCallbacks: Bool) throws(OAuthError) {
        guard let object = JSONValue(parsing: body)?.objectValue else {
            throw Self.invalid("The request body must be a JSON object of client metadata (RFC 7591).")
        }
        try self.init(
            object: object, defaultAuthMethod: "client_secret_basic", allowsLoopbackCallbacks: allowsLoopbackCallbacks)
    }

    /// Reads the members of `object`; `defaultAuthMethod` stands for a missing
    /// `token_endpoint_auth_method` (`none` for a client metadata document, whose client has no
    /// secret).
    init(object: [String: JSONValue], defaultAuthMethod: String, allowsLoopbackCallbacks: Bool) throws(OAuthError) {
        let redirectURIs = try Self.strings(object, "redirect_uris") ?? []
        var registration = ClientRegistration(
            name: try Self.string(object, "client_name") ?? "Unnamed app", redirectURIs: redirectURIs)
        // A Portico extension member (RFC 7591 §2 allows them): `client add --profile`'s value.
        let profile = try Self.string(object, "security_profile")
        // FAPI 2.0 allows only private_key_jwt here, so it is what an unnamed method means.
        let profileMethod = profile?.lowercased() == SecurityProfile.fapi2.rawValue ? "private_key_jwt" : nil
        let method = try Self.string(object, "token_endpoint_auth_method") ?? profileMethod ?? defaultAuthMethod
        guard Self.authMethods.contains(method) else {
            throw Self.invalid(
                "token_endpoint_auth_method '\(method)' is not one of \(Self.authMethods.joined(separator: ", ")).")
        }
        registration.isPublic = method == "none"
        if let jwks = object["jwks"], jwks != .null {
            guard jwks.objectValue != nil else { throw Self.invalid("jwks must be a JSON Web Key Set object.") }
            registration.jwks = jwks.jsonString
        }
        registration.jwksURI = try Self.string(object, "jwks_uri")
        if registration.jwks != nil && registration.jwksURI != nil {
            throw Self.invalid("jwks and jwks_uri cannot both be given (RFC 7591 §2): send the keys one way.")
        }
        let hasKeys = registration.jwks != nil || registration.jwksURI != nil
        if method == "private_key_jwt" && !hasKeys {
            throw Self.invalid(
                "token_endpoint_auth_method private_key_jwt needs the client's public keys in jwks or jwks_uri.")
        }
        if method != "private_key_jwt" && hasKeys {
            throw Self.invalid("jwks and jwks_uri are only for token_endpoint_auth_method private_key_jwt.")
        }
        registration.grantTypes = try Self.strings(object, "grant_types") ?? []
        let responseTypes = try Self.strings(object, "response_types") ?? ["code"]
        if let other = responseTypes.first(where: { $0 != "code" }) {
            throw Self.invalid("response type '\(other)' is not supported; use code.")
        }
        let grants = registration.grantTypes.isEmpty ? ClientRegistration.defaultGrantTypes : registration.grantTypes
        if !responseTypes.isEmpty && !grants.contains("authorization_code") {
            throw Self.invalid("response type code needs the authorization_code grant type (RFC 7591 §2.1).")
        }
        if let scope = try Self.string(object, "scope") {
            registration.scopes = scope.split(separator: " ").map(String.init)
        }
        registration.logoURL = try Self.string(object, "logo_uri")
        registration.privacyURL = try Self.string(object, "policy_uri")
        registration.termsURL = try Self.string(object, "tos_uri")
        registration.backchannelLogoutURI = try Self.string(object, "backchannel_logout_uri")
        registration.allowsLoopbackCallbacks = allowsLoopbackCallbacks
        registration.isVerified = false
        registration.postLogoutRedirectURIs = try Self.strings(object, "post_logout_redirect_uris") ?? []
        if let subjectType = try Self.string(object, "subject_type") { registration.subjectType = subjectType }
        if let algorithm = try Self.string(object, "id_token_signed_response_alg") {
            registration.idTokenSigningAlgorithm = algorithm
        } else if profileMethod != nil {
            registration.idTokenSigningAlgorithm = SignatureAlgorithm.ps256.rawValue  // FAPI 2.0 §5.4.1
        }
        // RFC 9449 §5.2: the client will always bind its tokens, so bearer use is refused.
        if let bound = object["dpop_bound_access_tokens"], bound != .null {
            guard case .bool(let value) = bound else {
                throw Self.invalid("dpop_bound_access_tokens must be a boolean.")
            }
            registration.requiresDPoP = value
        }
        // RFC 9126 §6: the client will push every authorization request.
        if let required = object["require_pushed_authorization_requests"], required != .null {
            guard case .bool(let value) = required else {
                throw Self.invalid("require_pushed_authorization_requests must be a boolean.")
            }
            registration.requiresPAR = value
        }
        if profileMethod != nil {
            // FAPI 2.0 implies both flags; a member saying otherwise is a contradiction to
            // refuse, not to override silently.
            for member in ["dpop_bound_access_tokens", "require_pushed_authorization_requests"]
            where object[member] == .bool(false) {
                throw Self.invalid("security_profile fapi2 needs \(member) true (or left out).")
            }
            if method != "private_key_jwt" {
                throw Self.invalid(
                    "security_profile fapi2 needs token_endpoint_auth_method private_key_jwt, not \(method).")
            }
        }
        // ClientRegistration judges the name, in `client add --profile`'s words.
        registration.profile = profile
        self.registration = registration
        self.authMethod = method
    }

    /// The client's registered metadata, as answered by registration and by RFC 7592's read.
    static func members(of client: Client, authMethod: String) -> [String: JSONValue] {
        var members: [String: JSONValue] = [
            "client_id": .string(client.id),
            "client_name": .string(client.name),
            "client_id_issued_at": .integer(Int64(client.createdAt.timeIntervalSince1970)),
            "redirect_uris": .array(client.redirectURIs.map { .string($0) }),
            "grant_types": .array(client.allowedGrantTypes.map { .string($0) }),
            "response_types": client.allowedGrantTypes.contains("authorization_code") ? ["code"] : [],
            "token_endpoint_auth_method": .string(authMethod),
            "scope": .string(client.allowedScopes.joined(separator: " ")),
            "subject_type": .string(client.subjectType.rawValue),
            "id_token_signed_response_alg": .string(client.idTokenSigningAlgorithm),
            "dpop_bound_access_tokens": .bool(client.requiresDPoP),
            "require_pushed_authorization_requests": .bool(client.requiresPAR),
        ]
        if client.secretHash != nil { members["client_secret_expires_at"] = .integer(0) }
        if let logo = client.logoURL { members["logo_uri"] = .string(logo) }
        if let policy = client.privacyURL { members["policy_uri"] = .string(policy) }
        if let terms = client.termsURL { members["tos_uri"] = .string(terms) }
        if let uri = client.backchannelLogoutURI { members["backchannel_logout_uri"] = .string(uri) }
        if !client.postLogoutRedirectURIs.isEmpty {
            members["post_logout_redirect_uris"] = .array(client.postLogoutRedirectURIs.map { .string($0) })
        }
        if let jwks = client.jwks, let keys = JSONValue(parsing: Array(jwks.utf8)) { members["jwks"] = keys }
        if let jwksURI = client.jwksURI { members["jwks_uri"] = .string(jwksURI) }
        if let profile = client.securityProfile { members["security_profile"] = .string(profile.rawValue) }
        return members
    }

    /// A refusal of the metadata, in RFC 7591 §3.2.2's words.
    static func invalid(_ description: String) -> OAuthError {
        OAuthError(code: "invalid_client_metadata", description: description, status: .badRequest)
    }

    /// The endpoint's form of a refusal by ``ClientRegistration``: the same words as the
    /// command line's, under the error code of the field at fault.
    static func refusal(_ error: AdminError) -> OAuthError {
        guard case .invalid(let message) = error else {
            return OAuthError(
                code: "server_error", description: "The client could not be stored.", status: .internalServerError)
        }
        if message.hasPrefix("redirect URI") || message.contains("--redirect-uri") {
            return OAuthError(code: "invalid_redirect_uri", description: message, status: .badRequest)
        }
        return invalid(message)
    }

    private static func string(_ object: [String: JSONValue], _ name: String) throws(OAuthError) -> String? {
        guard let value = object[name], value != .null else { return nil }
        guard let text = value.stringValue else { throw invalid("\(name) must be a string.") }
        return text
    }

    private static func strings(_ object: [String: JSONValue], _ name: String) throws(OAuthError) -> [String]? {
        guard let value = object[name], value != .null else { return nil }
        guard let array = value.arrayValue else { throw invalid("\(name) must be an array of strings.") }
        var strings: [String] = []
        for element in array {
            guard let text = element.stringValue else { throw invalid("\(name) must be an array of strings.") }
            strings.append(text)
        }
        return strings
    }
}
