import Foundation
import PorticoKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `portico-host-demo`: a host app that runs mini-programs and hands them the person's Portico
/// sign-in through ``AccountLinkSession`` (mPaaS's 账户通, with Portico as the platform).
@main
struct PorticoHostDemo {
    static func main() async {
        let environment = ProcessInfo.processInfo.environment
        let options: HostDemoOptions
        do {
            options = try HostDemoOptions(arguments: Array(CommandLine.arguments.dropFirst()), environment: environment)
        } catch {
            fail("portico-host-demo: \(error)", status: 2)
        }
        if options.command == .help {
            print(HostDemoOptions.usage)
            return
        }
        let store = FileTokenStore(directory: configDirectory(environment))
        do {
            try await run(options, store: store)
        } catch {
            fail("portico-host-demo: \(error)", status: 1)
        }
    }

    static func run(_ options: HostDemoOptions, store: FileTokenStore) async throws {
        let hostSessionKey = TokenStoreKey(provider: options.backend.absoluteString, clientID: "host-session")
        if case .loginHost(let user) = options.command {
            let signedIn = try await HostBackendClient(base: options.backend, session: nil).signIn(user: user)
            // The host's own session, kept like a grant: in the same 0600 store.
            try store.save(
                StoredGrant(
                    accessToken: signedIn.session, expiresAt: nil, refreshToken: nil, scopes: [],
                    idTokenClaims: ["host_user_id": .string(signedIn.hostUserID), "name": .string(user)]),
                for: hostSessionKey)
            print("Signed in to the host app as \(user) (host user \(signedIn.hostUserID)).")
            return
        }
        guard let hostSession = try store.grant(for: hostSessionKey) else {
            throw HostBackendClient.Failure(
                status: 0, error: "login_required",
                description: "sign in to the host first: portico-host-demo login-host USER")
        }
        let backend = HostBackendClient(base: options.backend, session: hostSession.accessToken)
        let provider = try await Provider.discover(issuer: options.issuer)
        let agent = SystemBrowserUserAgent(
            opener: BrowserOpener { url in
                printError("Opening your browser to link your Portico account. If it does not open, visit:\n  \(url)")
                try? await BrowserOpener.system.open(url)
            })
        // The host is a confidential client: its backend pushes the request with its credentials.
        let manager = AuthorizationManager(
            provider: provider, clientID: options.clientID, redirectURI: HostDemoOptions.redirectURI,
            store: store, userAgent: agent, pushedAuthorization: .through { try await backend.push($0) })
        let session = AccountLinkSession(manager: manager) { result in
            try await backend.link(result)
        } unbind: { _ in
            try await backend.unbind()
        }
        switch options.command {
        case .link(let device):
            if device {
                throw HostBackendClient.Failure(
                    status: 0, error: "unsupported",
                    description:
                        "link --device is not available yet: a device login yields tokens, not a code for the backend")
            }
            let model = try await session.authModel()
            print("Linked: Portico user \(model.uid) is host user \(model.hostUserID).")
        case .miniProgramProfile(let miniProgram):
            let name = try await miniProgramProfile(miniProgram, session: session, backend: backend, provider: provider)
            print(name)
        case .logout:
            try await session.logout()
            try store.removeGrant(for: hostSessionKey)
            print("Signed out of the host app; its mini-programs forgot your Portico sign-in.")
        case .unbind:
            try await session.unbind()
            print("Unlinked your Portico account from this host app.")
        case .loginHost, .help:
            break
        }
    }

    /// What a mini-program does: get the model (the container's request), then its own token by
    /// delegation, then the profile with that token. When the backend no longer has the person's
    /// token (a back-channel logout told it to forget), the model is fetched again, as mPaaS's
    /// `NeedRefreshToken` asks.
    static func miniProgramProfile(
        _ miniProgram: String, session: AccountLinkSession, backend: HostBackendClient, provider: Provider
    ) async throws -> String {
        _ = try await session.authModel()
        let token: String
        do {
            token = try await backend.miniProgramToken(miniProgram)
        } catch let failure as HostBackendClient.Failure where failure.error == "not_linked" || failure.status == 401 {
            _ = try await session.authModel(refresh: true)
            token = try await backend.miniProgramToken(miniProgram)
        }
        var profileURL = URLComponents(url: provider.tokenEndpoint, resolvingAgainstBaseURL: false)
        profileURL?.path = "/user/profile"
        guard let url = provider.profileEndpoint ?? profileURL?.url else { throw URLError(.badURL) }
        var request = URLRequest(url: url)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        guard (response as? HTTPURLResponse)?.statusCode == 200, let name = json["name"] as? String else {
            throw HostBackendClient.Failure(
                status: (response as? HTTPURLResponse)?.statusCode ?? 0, error: "profile",
                description: "the mini-program could not read the profile")
        }
        return name
    }

    static func configDirectory(_ environment: [String: String]) -> URL {
        let base =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
        return base.appendingPathComponent("portico-host-demo")
    }

    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static func fail(_ text: String, status: Int32) -> Never {
        printError(text)
        exit(status)
    }
}
