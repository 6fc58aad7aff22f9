import Foundation
import PorticoServer
import PorticoStore

/// `portico client add | list | remove | signals | suspend | resume | verify`: registers, lists
/// and removes third-party apps, shows a Shared Signals receiver's stream, and gives the
/// operator the say over apps.
enum ClientCommand {
    static let summary = "register, list and remove apps (OAuth clients)"
    static let usage = """
        usage: portico client add --name NAME --redirect-uri URI [--redirect-uri URI ...]
                                  [--public] [--scope S ...] [--grant G ...]
                                  [--logo-url URL] [--privacy-url URL] [--terms-url URL]
                                  [--id-token-alg RS256|ES256|EdDSA|PS256]
                                  [--post-logout-redirect-uri URI ...] [--sso-group NAME]
                                  [--resource URI ...] [--subject-type public|pairwise [--sector NAME]]
                                  [--backchannel-logout-uri URI [--allow-loopback-callbacks]]
                                  [--jwks FILE | --jwks-uri URL] [--introspection] [--ssf] [--dpop]
                                  [--require-par] [--profile fapi2] [--web-origin ORIGIN ...]
                                  [--companion] [--json] [--database URL]
               portico client add --name NAME --mini-program-of HOST_CLIENT_ID [--scope S ...] [--json]
               portico client list [--json] [--database URL]
               portico client remove ID [--database URL]
               portico client signals ID [--json] [--database URL]
               portico client suspend ID | resume ID | verify ID [--database URL]

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
                  --terms-url URL      terms of service, linked from the browser's FedCM dialog (https)
                  --id-token-alg ALG   ID token signature (default RS256; PS256 with
                                       --profile fapi2, which refuses RS256)
                  --web-origin ORIGIN  a browser origin it signs people in from with FedCM:
                                       scheme, host and port only (https://app.example;
                                       http only on 127.0.0.1, [::1] or localhost);
                                       repeatable
                  --sso-group NAME     one vendor's apps: Native SSO on a device (scope
                                       device_sso, grant token-exchange)
                  --resource URI       a resource server its access tokens may be meant for
                                       (RFC 8707 resource); repeatable
                  --subject-type T     public (default: the account id) or pairwise (an id
                                       of its own per person, OIDC Core §8.1)
                  --sector NAME        the pairwise sector (default the redirect URIs' host)
                  --mini-program-of ID a mini-program inside the confidential host app ID: no
                                       redirect URI, no secret; its host hands it sign-in by
                                       token exchange (scope account_link, DESIGN "Account link")
                  --backchannel-logout-uri URI
                                       where its backend hears of sign-outs (OpenID Connect
                                       Back-Channel Logout): https, never on a private,
                                       link-local or reserved address (10/8, 192.168/16,
                                       169.254/16, fc00::/7, …) nor on loopback
                  --allow-loopback-callbacks
                                       also accept a back-channel logout URI on loopback
                                       (127.0.0.1, [::1], localhost; http allowed there), for
                                       tests and local development; the server delivers
                                       there only if it runs with
                                       'portico serve --allow-loopback-callbacks' too
                  --jwks FILE          a JWKS of the app's public keys (RSA of 2048 bits or
                                       more for RS256 or PS256 — its alg, or both without
                                       one —, ES256, EdDSA): it authenticates with
                                       private_key_jwt assertions (RFC 7523) and gets no secret
                  --jwks-uri URL       the same keys published by the app at an https URL,
                                       which the server fetches and caches (a key it does
                                       not know yet makes it fetch again)
                  --introspection      a resource server: it may ask /oauth/introspect about
                                       tokens (other apps may not)
                  --dpop               its tokens are bound to a key (DPoP, RFC 9449): the
                                       token endpoint wants a DPoP proof from it, and its
                                       access tokens are refused as Bearer tokens
                  --require-par        it must push its authorization requests to
                                       /oauth/par (RFC 9126): /oauth/authorize refuses
                                       any request without a pushed request_uri
                  --profile fapi2      the FAPI 2.0 Security Profile: needs --jwks or
                                       --jwks-uri (it authenticates with
                                       private_key_jwt), implies
                                       --require-par and --dpop; codes live at most 60 s
                  --ssf                a Shared Signals receiver: with --grant
                                       client_credentials it gets tokens of scope ssf.manage
                                       to manage its stream (/.well-known/ssf-configuration)
                  --companion          the platform's own portico-agent: public, loopback
                                       and device sign-in, the only client granted scope
                                       companion (default redirect URI
                                       http://127.0.0.1/callback, any port)
                  --json               print {"client_id": "...", "client_secret": "..."}
        list    shows every app: id, name, type and redirect URIs (never secrets);
                companion clients are marked, and each host app's mini-programs are
                listed under it; suspended and unverified apps are marked (--json:
                "suspended" and "verified")
        remove  removes an app and everything issued to it; a host's mini-programs are
                disabled (their tokens stop working)
        signals shows an --ssf app's Shared Signals stream: delivery, status, events
                waiting, and the latest events given up on with the receiver's reason
                (its RFC 8935 err and description)
        suspend stops an app at once: its sign-in requests get a page saying it is
                suspended, its token requests invalid_client, and its access tokens are
                refused on every node (refresh tokens within seconds, with the client)
        resume  lets a suspended app work again (its unexpired tokens work again)
        verify  marks an app verified; apps registered through POST /oauth/register
                start unverified

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
        let actions = ["add", "list", "remove", "signals", "suspend", "resume", "verify"]
        switch try Subcommand.action(&arguments, command: "client", actions: actions) {
        case "add": try add(&arguments, database: url)
        case let action where ClientStandingChange(rawValue: action) != nil:
            try changeStanding(&arguments, database: url, change: ClientStandingChange(rawValue: action) ?? .verify)
        case "list": try list(&arguments, database: url)
        case "signals": try signals(&arguments, database: url)
        default: try remove(&arguments, database: url)
        }
    }

    private static func add(_ arguments: inout Arguments, database url: String) throws {
        guard let name = try arguments.value("name") else {
            throw CommandLineError.usage("client add needs --name NAME")
        }
        let miniProgramOf = try arguments.value("mini-program-of")
        var registration = ClientRegistration(name: name, redirectURIs: try arguments.values("redirect-uri"))
        registration.miniProgramOf = miniProgramOf
        registration.isPublic = arguments.flag("public")
        registration.scopes = try arguments.values("scope")
        registration.grantTypes = try arguments.values("grant")
        registration.logoURL = try arguments.value("logo-url")
        registration.privacyURL = try arguments.value("privacy-url")
        registration.termsURL = try arguments.value("terms-url")
        let profile = try arguments.value("profile")
        // FAPI 2.0 rules RS256 out (§5.4.1): its RSA algorithm is PS256.
        let defaultAlgorithm = profile?.lowercased() == SecurityProfile.fapi2.rawValue ? "PS256" : "RS256"
        registration.idTokenSigningAlgorithm = try arguments.value("id-token-alg") ?? defaultAlgorithm
        registration.postLogoutRedirectURIs = try arguments.values("post-logout-redirect-uri")
        registration.ssoGroup = try arguments.value("sso-group")
        registration.resources = try arguments.values("resource")
        registration.subjectType = try arguments.value("subject-type") ?? "public"
        registration.sector = try arguments.value("sector")
        registration.backchannelLogoutURI = try arguments.value("backchannel-logout-uri")
        registration.allowsLoopbackCallbacks = arguments.flag("allow-loopback-callbacks")
        if let path = try arguments.value("jwks") { registration.jwks = try readKeySet(path) }
        registration.jwksURI = try arguments.value("jwks-uri")
        registration.mayIntrospect = arguments.flag("introspection")
        registration.requiresDPoP = arguments.flag("dpop")
        registration.requiresPAR = arguments.flag("require-par")
        registration.profile = profile
        registration.isCompanion = arguments.flag("companion")
        registration.isSignalReceiver = arguments.flag("ssf")
        registration.webOrigins = try arguments.values("web-origin")
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
        if let host = miniProgramOf {
            print("Registered mini-program \"\(registered.client.name)\" of host \(host)")
            print("client_id:     \(registered.client.id)")
            return
        }
        print("Registered \(registered.client.type.rawValue) client \"\(registered.client.name)\"")
        print("client_id:     \(registered.client.id)")
        if let secret = registered.secret {
            print("client_secret: \(secret)")
            print("Keep the secret now: it is not shown again (Portico stores only its hash).")
        } else if registered.client.jwks != nil || registered.client.jwksURI != nil {
            print("No secret: it authenticates with private_key_jwt, signed by a key of its JWKS.")
        } else {
            print("Public client: no secret; it must use PKCE (S256).")
        }
    }

    /// The text of the `--jwks` file, or one line saying why it cannot be read.
    private static func readKeySet(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandLineError.failure("cannot read the JWKS file \(path)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CommandLineError.usage("the JWKS file \(path) is not UTF-8 text")
        }
        return text
    }

    private static func list(_ arguments: inout Arguments, database url: String) throws {
        let json = arguments.flag("json")
        try arguments.finish()
        let store = try DatabaseOption.open(url)
        defer { store.close() }
        let clients: [Client]
        let miniPrograms: [String: MiniProgram]
        let companions: Set<String>
        do {
            (clients, miniPrograms) = try store.read { transaction in
                let clients = try transaction.clients()
                var miniPrograms: [String: MiniProgram] = [:]
                for client in clients { miniPrograms[client.id] = try transaction.miniProgram(clientID: client.id) }
                return (clients, miniPrograms)
            }
            companions = try store.read { try $0.companionClientIDs() }
        } catch {
            throw CommandLineError.failure("cannot read clients: \(error)")
        }
        if json {
            let objects = clients.map { client in
                var object =
                    "{\"client_id\": \(JSONLine.quoted(client.id)), \"name\": \(JSONLine.quoted(client.name)), "
                    + "\"type\": \(JSONLine.quoted(client.type.rawValue)), "
                    + "\"redirect_uris\": \(JSONLine.array(client.redirectURIs)), "
                    + "\"scopes\": \(JSONLine.array(client.allowedScopes)), "
                    + "\"grant_types\": \(JSONLine.array(client.allowedGrantTypes)), "
                    + "\"companion\": \(companions.contains(client.id)), "
                    + "\"dpop_bound_access_tokens\": \(client.requiresDPoP), "
                    + "\"require_pushed_authorization_requests\": \(client.requiresPAR), "
                    + (client.securityProfile.map { "\"profile\": \(JSONLine.quoted($0.rawValue)), " } ?? "")
                    + "\"suspended\": \(client.suspendedAt != nil), \"verified\": \(client.isVerified)"
                    + (client.backchannelLogoutURI.map { ", \"backchannel_logout_uri\": \(JSONLine.quoted($0))" } ?? "")
                if let miniProgram = miniPrograms[client.id] {
                    object +=
                        ", \"mini_program_of\": \(JSONLine.quoted(miniProgram.hostClientID)), "
                        + "\"enabled\": \(miniProgram.isEnabled)"
                }
                return object + "}"
            }
            print("[" + objects.joined(separator: ", ") + "]")
            return
        }
        guard !clients.isEmpty else {
            print("no clients yet; add one with 'portico client add'")
            return
        }
        let ids = Set(clients.map(\.id))
        for client in clients {
            // Mini-programs are listed under their host; those whose host is gone stand alone.
            if let miniProgram = miniPrograms[client.id], ids.contains(miniProgram.hostClientID) { continue }
            let companion = companions.contains(client.id) ? "  (companion)" : ""
            let dpop =
                (client.requiresDPoP ? "  (dpop)" : "") + (client.requiresPAR ? "  (par)" : "")
                + (client.securityProfile.map { "  (\($0.rawValue))" } ?? "")
            let standing =
                (client.suspendedAt != nil ? "  (suspended)" : "") + (client.isVerified ? "" : "  (unverified)")
            print("\(client.id)  \(client.type.rawValue)  \(client.name)\(companion)\(dpop)\(standing)")
            if let miniProgram = miniPrograms[client.id] {
                print(
                    "    mini-program of \(miniProgram.hostClientID) (removed)\(miniProgram.isEnabled ? "" : ", disabled")"
                )
            }
            for uri in client.redirectURIs { print("    redirect \(uri)") }
            if let uri = client.backchannelLogoutURI { print("    backchannel-logout \(uri)") }
            for mini in clients where miniPrograms[mini.id]?.hostClientID == client.id {
                let state = miniPrograms[mini.id]?.isEnabled == false ? "  (disabled)" : ""
                print("    mini-program \(mini.id)  \(mini.name)\(state)")
            }
        }
    }

    private static func signals(_ arguments: inout Arguments, database url: String) throws {
        guard let id = arguments.positional() else { throw CommandLineError.usage("client signals needs a client ID") }
        let json = arguments.flag("json")
        try arguments.finish()
        let store = try DatabaseOption.open(url)
        defer { store.close() }
        let report: SignalStreamReport?
        do {
            report = try SignalStreamReport.read(clientID: id, from: store)
        } catch {
            throw CommandLineError.failure("cannot read the stream of client \(id): \(error)")
        }
        guard let report else {
            throw CommandLineError.failure("client \(id) has no Shared Signals stream")
        }
        let time = ISO8601DateFormatter()
        if json {
            let refusals = report.refusals.map { refusal in
                "{\"jti\": \(JSONLine.quoted(refusal.jti)), \"event\": \(JSONLine.quoted(refusal.event)), "
                    + "\"user_id\": \(refusal.userID.map(JSONLine.quoted) ?? "null"), "
                    + "\"failed_at\": \(JSONLine.quoted(time.string(from: refusal.failedAt))), "
                    + "\"reason\": \(JSONLine.quoted(refusal.reason))}"
            }
            print(
                "{\"client_id\": \(JSONLine.quoted(report.clientID)), "
                    + "\"delivery_method\": \(JSONLine.quoted(report.deliveryMethod)), "
                    + "\"endpoint_url\": \(report.endpointURL.map(JSONLine.quoted) ?? "null"), "
                    + "\"status\": \(JSONLine.quoted(report.status)), \"pending\": \(report.pending), "
                    + "\"given_up\": [\(refusals.joined(separator: ", "))]}")
            return
        }
        let method = report.isPush ? "push" : "poll"
        print("\(report.clientID)  \(method)\(report.endpointURL.map { " to \($0)" } ?? "")")
        print("    status \(report.status)\(report.statusReason.map { " (\($0))" } ?? "")")
        print("    \(report.pending) event\(report.pending == 1 ? "" : "s") waiting")
        if report.refusals.isEmpty { print("    no event given up on") }
        for refusal in report.refusals {
            print("    given up \(time.string(from: refusal.failedAt))  \(refusal.event)  \(refusal.jti)")
            print("        \(refusal.reason)")
        }
    }

    private static func changeStanding(_ arguments: inout Arguments, database url: String, change: ClientStandingChange)
        throws
    {
        guard let id = arguments.positional() else {
            throw CommandLineError.usage("client \(change.rawValue) needs a client ID")
        }
        try arguments.finish()
        let store = try DatabaseOption.open(url)
        defer { store.close() }
        try performing { () throws(AdminError) in try change.apply(toClient: id, in: store) }
        switch change {
        case .suspend: print("suspended client \(id): it signs nobody in and its tokens are refused")
        case .resume: print("resumed client \(id)")
        case .verify: print("verified client \(id)")
        }
    }

    private static func remove(_ arguments: inout Arguments, database url: String) throws {
        guard let id = arguments.positional() else { throw CommandLineError.usage("client remove needs a client ID") }
        try arguments.finish()
        let store = try DatabaseOption.open(url)
        defer { store.close() }
        let outcome: ClientRemoval.Outcome
        do {
            outcome = try ClientRemoval.remove(id: id, from: store)
        } catch {
            throw CommandLineError.failure("cannot remove client \(id): \(error)")
        }
        let removed = outcome.removed
        let disabled = outcome.disabledMiniPrograms
        guard removed else { throw CommandLineError.failure("no client with id \(id)") }
        print("removed client \(id)")
        if disabled > 0 { print("disabled its \(disabled) mini-program\(disabled == 1 ? "" : "s")") }
    }
}
