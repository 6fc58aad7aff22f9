import Foundation
import PorticoKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `portico-demo`: what a third-party command-line app needs to let people sign in with the
/// platform, in a page of code.
@main
struct PorticoDemo {
    static func main() async {
        let environment = ProcessInfo.processInfo.environment
        let options: DemoOptions
        do {
            options = try DemoOptions(arguments: Array(CommandLine.arguments.dropFirst()), environment: environment)
        } catch {
            fail("portico-demo: \(error)", status: 2)
        }
        if options.command == .help {
            print(DemoOptions.usage)
            return
        }
        let store = FileTokenStore(directory: configDirectory(environment))
        do {
            try await run(options, store: store)
        } catch AuthorizationError.Code.authorizationRequired {
            fail("portico-demo: nobody is signed in; run `portico-demo login`", status: 1)
        } catch {
            fail("portico-demo: \(error)", status: 1)
        }
    }

    static func run(_ options: DemoOptions, store: FileTokenStore) async throws {
        let discovered: Provider?
        do {
            discovered = try await Provider.discover(issuer: options.issuer)
        } catch {
            guard options.command == .logout else { throw error }
            discovered = nil
        }
        guard let provider = discovered else {
            // The provider is unreachable: at least forget the tokens here. Login stored them under
            // the discovered issuer, which may differ from the one typed by a trailing slash.
            let typed = options.issuer.absoluteString
            let other = typed.hasSuffix("/") ? String(typed.dropLast()) : typed + "/"
            var removed = false
            for issuer in [typed, other] {
                let key = TokenStoreKey(provider: issuer, clientID: options.clientID)
                if FileManager.default.fileExists(atPath: store.fileURL(for: key).path) { removed = true }
                try store.removeGrant(for: key)
            }
            if removed {
                print("Signed out on this computer (the provider could not be reached to revoke the tokens).")
            } else {
                print("Nobody was signed in here (and the provider could not be reached).")
            }
            return
        }
        let scopes: [Scope] = [.openID, .profile, .postalCode]
        switch options.command {
        case .login(let device, let companion):
            let browser = BrowserOpener { url in
                printError("Opening your browser. If it does not open, visit:\n  \(url.absoluteString)")
                try? await BrowserOpener.system.open(url)
            }
            let agent: any UserAgent =
                device
                ? DeviceCodeUserAgent { prompt in
                    var text = "To sign in, open \(prompt.verificationURL) and enter the code \(prompt.userCode)\n"
                    if let complete = prompt.verificationURLComplete { text += "(or open \(complete))\n" }
                    text += "Waiting for you to approve...\n"
                    // Written at once, not through print's buffer: the person must see it while we wait.
                    FileHandle.standardOutput.write(Data(text.utf8))
                }
                // The platform's agent first (single sign-on, only a consent), then the browser.
                : AutomaticUserAgent(companion: companion ? CompanionUserAgent() : nil, browserOpener: browser)
            let manager = AuthorizationManager(
                provider: provider, clientID: options.clientID, redirectURI: URL(string: "http://127.0.0.1/callback"),
                store: store, userAgent: agent)
            let result = try await manager.authorize(AuthorizeRequest(scopes: scopes))
            let who = result.user.map { user in user.name ?? user.email ?? user.userID } ?? "you"
            print("Signed in as \(who).")
        case .whoami(let json):
            let user = try await manager(provider, options, store).fetchUser()
            if json {
                print(ProfileValue.object(user.profileData).jsonString)
            } else {
                let email = user.email.map { " <\($0)>" } ?? ""
                print("\(user.name ?? user.userID)\(email)")
            }
        case .token:
            print(try await manager(provider, options, store).validAccessToken())
        case .logout:
            try await manager(provider, options, store).signOut()
            print("Signed out.")
        case .help:
            print(DemoOptions.usage)
        }
    }

    static func manager(_ provider: Provider, _ options: DemoOptions, _ store: FileTokenStore) -> AuthorizationManager {
        AuthorizationManager(
            provider: provider, clientID: options.clientID, redirectURI: URL(string: "http://127.0.0.1/callback"),
            store: store, userAgent: SystemBrowserUserAgent())
    }

    static func configDirectory(_ environment: [String: String]) -> URL {
        let base =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
        return base.appendingPathComponent("portico-demo")
    }

    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static func fail(_ text: String, status: Int32) -> Never {
        printError(text)
        exit(status)
    }
}
