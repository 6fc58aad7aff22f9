import Foundation
import PorticoCrypto
import PorticoStore

/// A request to register a third-party app (`portico client add`, and the demo app).
///
/// ``register(in:)`` checks every value against the DESIGN and RFC 9700 before anything is
/// stored, generates the `client_id` and, for confidential clients, a 256-bit secret that is
/// returned once and stored only as a hash.
public struct ClientRegistration: Sendable {
    /// Grant types a client may be allowed: those the token endpoint implements
    /// (``TokenGrantRegistry``).
    public static var supportedGrantTypes: [String] { TokenGrantRegistry.grantTypes }
    /// Short names accepted for long grant types (`device_code`, as Login with Amazon calls it).
    public static var grantTypeAliases: [String: String] { TokenGrantRegistry.dialects }
    /// Grant types a client gets when none are given.
    public static var defaultGrantTypes: [String] { TokenGrantRegistry.defaultGrantTypes }
    /// ID-token signing algorithms a client may choose.
    public static let idTokenAlgorithms = ["RS256", "ES256", "EdDSA", "PS256"]

    /// The name people see on the sign-in and consent pages.
    public var name: String
    /// Exact redirect URIs.
    public var redirectURIs: [String]
    /// Whether the client is public (native or browser app: no secret, PKCE only).
    public var isPublic: Bool
    /// Scopes it may request; empty means every built-in scope.
    public var scopes: [String]
    /// Grant types it may use; empty means ``defaultGrantTypes``.
    public var grantTypes: [String]
    /// The logo on the consent page.
    public var logoURL: String?
    /// The privacy policy linked from the consent page.
    public var privacyURL: String?
    /// The app's terms of service (`--terms-url`, `tos_uri`), https or loopback.
    public var termsURL: String? = nil
    /// The ID token's `alg` (`RS256`, `ES256`, `EdDSA` or `PS256`).
    public var idTokenSigningAlgorithm: String
    /// Where RP-initiated logout may return to.
    public var postLogoutRedirectURIs: [String]
    /// The Native SSO group (`--sso-group`): apps of one vendor sharing sign-in on a device.
    public var ssoGroup: String? = nil
    /// Resource servers its access tokens may be meant for (`--resource`, RFC 8707).
    public var resources: [String] = []
    /// `public` or `pairwise` (`--subject-type`).
    public var subjectType: String = SubjectType.public.rawValue
    /// The sector of pairwise subjects (`--sector`); by default the redirect URIs' host.
    public var sector: String? = nil
    /// The host app's client id when this is a mini-program (`--mini-program-of`).
    public var miniProgramOf: String? = nil
    /// Where logout tokens are POSTed (`--backchannel-logout-uri`, OpenID Connect Back-Channel
    /// Logout 1.0): https, without a fragment, on a host that is not a private, link-local or
    /// reserved address; on loopback (http allowed) only with ``allowsLoopbackCallbacks``.
    public var backchannelLogoutURI: String? = nil
    /// Whether URLs the provider will send to may name loopback (`--allow-loopback-callbacks`):
    /// for tests and local development, whose app backends run on the provider's machine; the
    /// server delivers there only when it runs with the same option.
    public var allowsLoopbackCallbacks = false
    /// The text of a JWKS of public keys (`--jwks FILE`): the client authenticates with
    /// `private_key_jwt` assertions signed by them and gets no secret.
    public var jwks: String? = nil
    /// Where the client publishes those keys instead (`jwks_uri`): an https URL the server
    /// fetches (``ClientKeySetCache``); never together with ``jwks``.
    public var jwksURI: String? = nil
    /// Whether it is a resource server allowed to introspect tokens (`--introspection`).
    public var mayIntrospect = false
    /// Whether its tokens must be bound to a key by DPoP (`--dpop`): bearer use is refused.
    public var requiresDPoP = false
    /// Whether it must push its authorization requests (`--require-par`, RFC 9126).
    public var requiresPAR = false
    /// The security profile it is held to (`--profile fapi2`), by name; nil for none. FAPI 2.0
    /// needs a confidential client with `--jwks`, and implies `--require-par` and `--dpop`.
    public var profile: String? = nil
    /// Whether it is the platform's own companion app (`--companion`, see
    /// ``CompanionRegistration``): public, and the only kind of client granted `companion`.
    public var isCompanion = false
    /// Whether it is a Shared Signals receiver (`--ssf`): it gets the scope `ssf.manage` for
    /// its client-credentials tokens, with which it manages its stream (needs the
    /// `client_credentials` grant).
    public var isSignalReceiver = false
    /// The browser origins it signs people in from with FedCM (`--web-origin`, repeatable):
    /// scheme, host and port only, https or http on loopback, as the console checks them.
    public var webOrigins: [String] = []
    /// Whether the app starts verified: those the operator adds do, those registered through
    /// `POST /oauth/register` do not (until `portico client verify`).
    public var isVerified = true

    /// A registration; only `name` and `redirectURIs` are required.
    public init(
        name: String, redirectURIs: [String], isPublic: Bool = false, scopes: [String] = [],
        grantTypes: [String] = [], logoURL: String? = nil, privacyURL: String? = nil,
        idTokenSigningAlgorithm: String = "RS256", postLogoutRedirectURIs: [String] = []
    ) {
        self.name = name
        self.redirectURIs = redirectURIs
        self.isPublic = isPublic
        self.scopes = scopes
        self.grantTypes = grantTypes
        self.logoURL = logoURL
        self.privacyURL = privacyURL
        self.idTokenSigningAlgorithm = idTokenSigningAlgorithm
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
    }

    /// What `--grant` accepts, for the CLI's help: every grant type with its short names and
    /// notes, then the default, in lines of at most `width` characters.
    public static func grantTypeHelp(width: Int) -> [String] {
        let names = TokenGrantRegistry.grants.map { grant -> String in
            var extras = grant.dialects.map { "or just \($0)" }.joined(separator: ", ")
            if let note = grant.helpNote { extras += extras.isEmpty ? note : ": \(note)" }
            return extras.isEmpty ? grant.grantType : "\(grant.grantType) (\(extras))"
        }
        let defaults = defaultGrantTypes
        let fallback =
            defaults.count > 1
            ? defaults.dropLast().joined(separator: ", ") + " and " + defaults[defaults.count - 1]
            : defaults.first ?? "none"
        return wrapped(names.joined(separator: ", "), width: width) + wrapped("(default \(fallback))", width: width)
    }

    /// `text` broken at spaces into lines of at most `width` characters (a longer word gets a
    /// line of its own).
    private static func wrapped(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// Validates and stores the client; `clientID` is random unless given (the demo app's is fixed).
    ///
    /// - Returns: the stored client and, for a confidential client, its secret in plain text,
    ///   which nobody can see again.
    public func register(in store: any Store, clientID: String = RecordIdentifier.random()) throws(AdminError)
        -> RegisteredClient
    {
        try register(in: store, clientID: clientID, actor: "cli", alongside: nil)
    }

    /// Validates and stores the client as ``register(in:clientID:)`` does, recording `actor`
    /// in the audit log and running `alongside` in the same transaction after the insert
    /// (dynamic registration uses its initial access token and stores its registration access
    /// token there, so a refused registration changes nothing).
    func register(
        in store: any Store, clientID: String, actor: String,
        alongside: ((any StoreTransaction, Client) throws -> Void)?
    ) throws(AdminError) -> RegisteredClient {
        let secret = needsSecret ? SecureRandom.token() : nil
        let client = try validatedClient(id: clientID, secret: secret, store: store)
        let origins = try checkedWebOrigins()
        do {
            try store.transaction { transaction in
                try checkScopes(client.allowedScopes, in: transaction)
                try transaction.insert(client)
                if !origins.isEmpty { try transaction.setClientWebOrigins(clientID: client.id, webOrigins: origins) }
                try attachMiniProgram(client, in: transaction)
                if isCompanion { try transaction.markCompanionClient(id: client.id, at: client.createdAt) }
                try alongside?(transaction, client)
                try transaction.append(
                    AuditEvent(actor: actor, action: "client.add", subject: client.id, details: "{}"))
            }
        } catch let error as StoreError {
            if case .duplicate = error { throw .conflict("a client with id \(clientID) already exists") }
            throw .storage(error.description)
        } catch {
            throw AdminError.wrapping(error)
        }
        return RegisteredClient(client: client, secret: secret)
    }

    /// ``webOrigins`` checked and normalised (``ClientURIRules/checkedWebOrigin(_:label:)``),
    /// without repeats, or the first reason one is not acceptable.
    func checkedWebOrigins() throws(AdminError) -> [String] {
        var origins: [String] = []
        for text in webOrigins {
            let origin = try ClientURIRules.checkedWebOrigin(text)
            if !origins.contains(origin) { origins.append(origin) }
        }
        return origins
    }

    /// Whether the client gets a secret: confidential, and not authenticating by its JWKS.
    var needsSecret: Bool { !(isPublic || isCompanion || miniProgramOf != nil || jwks != nil || jwksURI != nil) }

    /// Validates a replacement of the stored client `id` (RFC 7592 §2.2) and stores it in
    /// `transaction`: the same checks as a new registration; the secret kept when the client
    /// stays one with a secret, a new one when it becomes one, none otherwise.
    ///
    /// - Returns: the stored client and a new secret when one was made.
    func replace(
        _ stored: Client, in transaction: any StoreTransaction, store: any Store
    ) throws -> RegisteredClient {
        let newSecret = needsSecret && stored.secretHash == nil ? SecureRandom.token() : nil
        var client = try validatedClient(id: stored.id, secret: newSecret, store: store)
        client.createdAt = stored.createdAt
        if needsSecret && newSecret == nil { client.keepSecret(of: stored) }
        try checkScopes(client.allowedScopes, in: transaction)
        try transaction.update(client)
        return RegisteredClient(client: client, secret: newSecret)
    }

    /// The client these values describe, or the first reason they are not acceptable.
    func validatedClient(id: String, secret: String?, store: any Store) throws(AdminError) -> Client {
        try checkMiniProgramOptions()
        if isCompanion { return try CompanionRegistration(self).validatedClient(id: id, store: store) }
        let name = try AdminText.checked(name, field: "client name", maximumLength: 100)
        let isPublic = isPublic || miniProgramOf != nil
        let grants =
            miniProgramOf != nil
            ? []
            : grantTypes.isEmpty ? Self.defaultGrantTypes : unique(grantTypes.map { Self.grantTypeAliases[$0] ?? $0 })
        var kinds: [any TokenGrant.Type] = []
        for grant in grants {
            guard let kind = TokenGrantRegistry.grant(answering: grant) else {
                let aliases = TokenGrantRegistry.grants.flatMap { $0.dialects }
                let or = aliases.isEmpty ? "" : " (or \(aliases.joined(separator: ", ")))"
                throw .invalid(
                    "unknown grant type '\(grant)'; use \(Self.supportedGrantTypes.joined(separator: ", "))\(or)")
            }
            kinds.append(kind)
        }
        if isPublic, let kind = kinds.first(where: { !$0.clientTypes.contains(.public) }) {
            throw .invalid("a public client cannot use \(kind.grantType): it has no secret to authenticate with")
        }
        if !isPublic, let kind = kinds.first(where: { !$0.clientTypes.contains(.confidential) }) {
            throw .invalid("a confidential client cannot use \(kind.grantType): it is for public clients only")
        }
        if redirectURIs.isEmpty, let kind = kinds.first(where: { $0.needsRedirectURI }) {
            throw .invalid("at least one --redirect-uri is required for the \(kind.grantType) grant")
        }
        for uri in redirectURIs { try ClientURIRules.checkRedirect(uri, allowsPrivateUseScheme: isPublic) }
        for uri in postLogoutRedirectURIs {
            try ClientURIRules.checkRedirect(
                uri, allowsPrivateUseScheme: isPublic, label: "post-logout redirect URI")
        }
        if let logoURL { try ClientURIRules.checkWebURL(logoURL, label: "logo URL") }
        if let privacyURL { try ClientURIRules.checkWebURL(privacyURL, label: "privacy URL") }
        if let termsURL { try ClientURIRules.checkWebURL(termsURL, label: "terms URL") }
        if let backchannelLogoutURI {
            // The rules of redirect URIs (§2.2: absolute, no fragment), never a custom scheme:
            // the provider itself POSTs there.
            try ClientURIRules.checkRedirect(
                backchannelLogoutURI, allowsPrivateUseScheme: false, label: "back-channel logout URI")
            try ClientURIRules.checkOutboundTarget(
                backchannelLogoutURI, policy: OutboundAddressPolicy(allowsLoopback: allowsLoopbackCallbacks),
                label: "back-channel logout URI")
        }
        guard
            let algorithm = Self.idTokenAlgorithms.first(where: {
                $0.lowercased() == idTokenSigningAlgorithm.lowercased()
            })
        else {
            throw .invalid(
                "ID token algorithm '\(idTokenSigningAlgorithm)' is not one of \(Self.idTokenAlgorithms.joined(separator: ", "))"
            )
        }
        let group = try ssoGroup.map { group throws(AdminError) -> String in
            guard Self.isName(group, maximumLength: 64) else {
                throw .invalid("SSO group '\(group)' must be 1 to 64 letters, digits, '.', '_' or '-'")
            }
            return group
        }
        let builtIn = ScopeCatalog.builtIn.map(\.name).filter {
            ($0 != NativeSSO.scope || group != nil) && $0 != CompanionClients.scope
                && ($0 != AccountLinkScope.name || !isPublic)
        }
        var scopes =
            self.scopes.isEmpty ? (miniProgramOf == nil ? builtIn : Self.defaultMiniProgramScopes) : unique(self.scopes)
        if isPublic && miniProgramOf == nil && scopes.contains(AccountLinkScope.name) {
            throw .invalid("the account_link scope is for confidential host apps; a --public client cannot have it")
        }
        if isSignalReceiver {
            guard !isPublic, grants.contains(ClientCredentialsGrant.grantType) else {
                throw .invalid(
                    "--ssf needs a confidential client with --grant client_credentials (its stream is managed with client-credentials tokens)"
                )
            }
            if !scopes.contains(SharedSignals.manageScope) { scopes.append(SharedSignals.manageScope) }
        } else if scopes.contains(SharedSignals.manageScope) {
            throw .invalid("the \(SharedSignals.manageScope) scope needs --ssf")
        }
        if scopes.contains(CompanionClients.scope) {
            throw .invalid("the companion scope needs --companion: only the platform's own companion app gets it")
        }
        if scopes.contains(NativeSSO.scope) && group == nil {
            throw .invalid("the device_sso scope needs --sso-group: it shares sign-in within a group of apps")
        }
        for resource in resources where !ResourceIndicators.isWellFormed(resource) {
            throw .invalid("resource '\(resource)' is not an absolute URI without a fragment")
        }
        var client = Client(
            id: id, name: name, type: isPublic ? .public : .confidential, secret: secret,
            redirectURIs: unique(redirectURIs), allowedScopes: scopes,
            allowedGrantTypes: grants, logoURL: logoURL,
            privacyURL: privacyURL, idTokenSigningAlgorithm: algorithm,
            postLogoutRedirectURIs: unique(postLogoutRedirectURIs))
        client.ssoGroup = group
        client.resources = unique(resources)
        guard let subject = SubjectType(rawValue: subjectType.lowercased()) else {
            throw .invalid("subject type '\(subjectType)' is not public or pairwise")
        }
        client.subjectType = subject
        client.sectorIdentifier = try sectorIdentifier(for: subject)
        client.backchannelLogoutURI = backchannelLogoutURI
        client.termsURL = termsURL
        if let jwks {
            if isPublic { throw .invalid("--jwks is for confidential clients: a public client has no key to keep") }
            client.jwks = try ClientKeySet(json: jwks).jsonString
        }
        if let jwksURI {
            if jwks != nil { throw .invalid("jwks and jwks_uri cannot both be given: send the keys one way") }
            if isPublic { throw .invalid("jwks_uri is for confidential clients: a public client has no key to keep") }
            guard jwksURI.lowercased().hasPrefix("https://") else {
                throw .invalid("jwks_uri '\(jwksURI)' must be an https URL")
            }
            try ClientURIRules.checkWebURL(jwksURI, label: "jwks_uri")
            try ClientURIRules.checkOutboundTarget(
                jwksURI, policy: OutboundAddressPolicy(allowsLoopback: allowsLoopbackCallbacks), label: "jwks_uri")
            client.jwksURI = jwksURI
        }
        client.mayIntrospect = mayIntrospect
        client.requiresDPoP = requiresDPoP
        client.requiresPAR = requiresPAR
        if let profile {
            guard let known = SecurityProfile(rawValue: profile.lowercased()) else {
                throw .invalid(
                    "profile '\(profile)' is not one of \(SecurityProfile.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            switch known {
            case .fapi2:
                if isPublic { throw .invalid("--profile fapi2 is for confidential clients, not --public ones") }
                guard client.jwks != nil || client.jwksURI != nil else {
                    throw .invalid(
                        "--profile fapi2 needs --jwks or --jwks-uri: the client authenticates with private_key_jwt")
                }
                client.requiresPAR = true
                client.requiresDPoP = true
                // §5.4.1 rules out RS256 for ID tokens too (the command line and registration
                // default such a client to PS256); said, not silently changed.
                if client.idTokenSigningAlgorithm == SignatureAlgorithm.rs256.rawValue {
                    throw .invalid(
                        "--profile fapi2 signs ID tokens with PS256, ES256 or EdDSA (FAPI 2.0 §5.4.1), not RS256")
                }
            }
            client.securityProfile = known
        }
        client.isVerified = isVerified
        return client
    }

    /// The sector of pairwise subjects: `--sector`, else the one host of the redirect URIs
    /// (OIDC Core §8.1); nil for public subjects.
    private func sectorIdentifier(for subject: SubjectType) throws(AdminError) -> String? {
        guard subject == .pairwise else {
            if sector != nil { throw .invalid("--sector needs --subject-type pairwise") }
            return nil
        }
        if let sector {
            guard Self.isName(sector.lowercased(), maximumLength: 253) else {
                throw .invalid("sector '\(sector)' must be a host name (letters, digits, '.', '-')")
            }
            return sector.lowercased()
        }
        let hosts = Set(
            redirectURIs.compactMap { URLComponents(string: $0)?.host?.lowercased() }.filter { !$0.isEmpty })
        guard hosts.count == 1, let host = hosts.first else {
            throw .invalid(
                "a pairwise client whose redirect URIs do not share one host needs --sector NAME (OIDC Core §8.1)")
        }
        return host
    }

    /// Whether `text` is 1 to `maximumLength` ASCII letters, digits, `.`, `_` or `-`.
    private static func isName(_ text: String, maximumLength: Int) -> Bool {
        !text.isEmpty && text.utf8.count <= maximumLength
            && text.utf8.allSatisfy {
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                    || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D
            }
    }

    /// Every scope must be built in or a product scope already added with `portico scope add`.
    private func checkScopes(_ scopes: [String], in transaction: any StoreTransaction) throws {
        let known = Set(try ScopeCatalog.supportedNames(in: transaction))
        for scope in scopes where !known.contains(scope) && scope != SharedSignals.manageScope {
            throw AdminError.invalid(
                "unknown scope '\(scope)'; use a built-in scope (\(ScopeCatalog.builtIn.map(\.name).joined(separator: ", "))) or add it with 'portico scope add'"
            )
        }
    }

    private func unique(_ values: [String]) -> [String] {
        var seen = Set<String>()
        return values.filter { seen.insert($0).inserted }
    }
}

/// A client just registered, with its secret in plain text for the one time it is shown.
public struct RegisteredClient: Sendable {
    /// The client as stored (its secret only as a hash).
    public let client: Client
    /// The secret of a confidential client; nil for a public one.
    public let secret: String?
}
