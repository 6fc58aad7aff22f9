import PorticoServer
import PorticoStore

/// `portico client add | list | remove`: registers, lists and removes third-party apps.
enum ClientCommand {
    static let summary = "register, list and remove apps (OAuth clients)"
    static let usage = """
        usage: portico client add --name NAME --redirect-uri URI [--redirect-uri URI ...]
                                  [--public] [--scope S ...] [--grant G ...]
                                  [--logo-url URL] [--privacy-url URL]
                                  [--id-token-alg RS256|ES256|EdDSA]
                                  [--post-logout-redirect-uri URI ...] [--sso-group NAME]
                                  [--resource URI ...] [--subject-type public|pairwise [--sector NAME]]
                                  [--backchannel-logout-uri URI] [--companion] [--json] [--database URL]
               portico client list [--json] [--database URL]
               portico client remove ID [--database URL]

        add     registers an app and prints its client_id and, for a confidential app, its
                client secret, which is shown only this once (only a hash is stored).
                  --redirect-uri URI   exact redirect URI: https, http only on 127.0.0.1, [::1]
                                       or localhost, or (with --public) a reverse-domain scheme
                                       such as com.example.app:/callback; no fragment
                  --public             a native or browser app: no secret, PKCE only
                  --scope S            a scope it may request: built-in (openid, profile,
                                       profile:user_id, postal_code, email, offline_access) or
                                       added with 'portico scope add'; default all built-in
                  --grant G            \(grantHelp)
                  --logo-url URL       logo on the consent page (https)
                  --privacy-url URL    privacy policy linked from the consent page (https)
                  --id-token-alg ALG   ID token signature (default RS256)
                  --sso-group NAME     one vendor's apps: Native SSO on a device (scope
                                       device_sso, grant token-exchange)
                  --resource URI       a resource server its access tokens may be meant for
                                       (RFC 8707 resource); repeatable
                  --subject-type T     public (default: the account id) or pairwise (an id
                                       of its own per person, OIDC Core §8.1)
                  --sector NAME        the pairwise sector (default the redirect URIs' host)
                  --backchannel-logout-uri URI
                                       where its backend hears of sign-outs (OpenID Connect
                                       Back-Channel Logout): https, or http on loopback
                  --companion          the platform's own portico-agent: public, loopback
                                       and device sign-in, the only client granted scope
                                       companion (default redirect URI
                                       http://127.0.0.1/callback, any port)
                  --json               print {"client_id": "...", "client_secret": "..."}
        list    shows every app: id, name, type and redirect URIs (never secrets);
                companion clients are marked
        remove  removes an app and everything issued to it

          --database URL    sqlite:PATH or postgres://user@host:port/db
                            (PORTICO_DATABASE, default \(DatabaseOption.defaultURL))

        Safe while a server runs: a new app can sign people in at once.
        """

    /// What `--grant` accepts, from the provider's grant registry, aligned under its column.
    private static var grantHelp: String {
        ClientRegistration.grantTypeHelp(width: 58).joined(separator: "\n" + String(repeating: " ", count: 31))
    }

    static func run(_ arguments: inout Arguments, environment: [String: String]) throws {
        let url = try DatabaseOption.url(&arguments, environment: environment)
        switch try Subcommand.action(&arguments, command: "client", actions: ["add", "list", "remove"]) {
        case "add": try add(&arguments, database: url)
        case "list": try list(&arguments, database: url)
        default: try remove(&arguments, database: url)
        }
    }

    private static func add(_ arguments: inout Arguments, database url: String) throws {
        guard let name = try arguments.value("name") else {
            throw CommandLineError.usage("client add needs --name NAME")
        }
        var registration = ClientRegistration(name: name, redirectURIs: try arguments.values("redirect-uri"))
        registration.isPublic = arguments.flag("public")
        registration.scopes = try arguments.values("scope")
        registration.grantTypes = try arguments.values("grant")
        registration.logoURL = try arguments.value("logo-url")
        registration.privacyURL = try arguments.value("privacy-url")
        registration.idTokenSigningAlgorithm = try arguments.value("id-token-alg") ?? "RS256"
        registration.postLogoutRedirectURIs = try arguments.values("post-logout-redirect-uri")
        registration.ssoGroup = try arguments.value("sso-group")
        registration.resources = try arguments.values("resource")
        registration.subjectType = try arguments.value("subject-type") ?? "public"
        registration.sector = try arguments.value("sector")
        registration.backchannelLogoutURI = try arguments.value("backchannel-logout-uri")
        registration.isCompanion = arguments.flag("companion")
        let json = arguments.flag("json")
        try arguments.finish()

        let store = try DatabaseOption.open(url)
        defer { store.close() }
        let registered = try performing { () throws(AdminError) in try registration.register(in: store) }
        if json {
            var members = [("client_id", registered.client.id)]
            if let secret = registered.secret { members.append(("client_secret", secret)) }
            print(JSONLine.object(members))
            return
        }
        print("Registered \(registered.client.type.rawValue) client \"\(registered.client.name)\"")
        print("client_id:     \(registered.client.id)")
        if let secret = registered.secret {
            print("client_secret: \(secret)")
            print("Keep the secret now: it is not shown again (Portico stores only its hash).")
        } else {
            print("Public client: no secret; it must use PKCE (S256).")
        }
    }

    private static func list(_ arguments: inout Arguments, database url: String) throws {
        let json = arguments.flag("json")
        try arguments.finish()
        let store = try DatabaseOption.open(url)
        defer { store.close() }
        let clients: [Client]
        let companions: Set<String>
        do {
            clients = try store.clients()
            companions = try store.read { try $0.companionClientIDs() }
        } catch {
            throw CommandLineError.failure("cannot read clients: \(error)")
        }
        if json {
            let objects = clients.map { client in
                "{\"client_id\": \(JSONLine.quoted(client.id)), \"name\": \(JSONLine.quoted(client.name)), "
                    + "\"type\": \(JSONLine.quoted(client.type.rawValue)), "
                    + "\"redirect_uris\": \(JSONLine.array(client.redirectURIs)), "
                    + "\"scopes\": \(JSONLine.array(client.allowedScopes)), "
                    + "\"grant_types\": \(JSONLine.array(client.allowedGrantTypes)), "
                    + "\"companion\": \(companions.contains(client.id))"
                    + (client.backchannelLogoutURI.map { ", \"backchannel_logout_uri\": \(JSONLine.quoted($0))" } ?? "")
                    + "}"
            }
            print("[" + objects.joined(separator: ", ") + "]")
            return
        }
        guard !clients.isEmpty else {
            print("no clients yet; add one with 'portico client add'")
            return
        }
        for client in clients {
            let companion = companions.contains(client.id) ? "  (companion)" : ""
            print("\(client.id)  \(client.type.rawValue)  \(client.name)\(companion)")
            for uri in client.redirectURIs { print("    redirect \(uri)") }
            if let uri = client.backchannelLogoutURI { print("    backchannel-logout \(uri)") }
        }
    }

    private static func remove(_ arguments: inout Arguments, database url: String) throws {
        guard let id = arguments.positional() else { throw CommandLineError.usage("client remove needs a client ID") }
        try arguments.finish()
        let store = try DatabaseOption.open(url)
        defer { store.close() }
        let removed: Bool
        do {
            removed = try store.transaction { transaction in
                let removed = try transaction.deleteClient(id: id)
                if removed { try transaction.append(AuditEvent(actor: "cli", action: "client.remove", subject: id)) }
                return removed
            }
        } catch {
            throw CommandLineError.failure("cannot remove client \(id): \(error)")
        }
        guard removed else { throw CommandLineError.failure("no client with id \(id)") }
        print("removed client \(id)")
    }
}
