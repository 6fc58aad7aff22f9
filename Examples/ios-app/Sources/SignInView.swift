import PorticoKit
import SwiftUI

/// Signs in with the branded button, shows the person's name and e-mail from the profile, and
/// signs out: the whole PorticoKit flow of an iOS app in one screen.
///
/// The manager is made on the first tap (discovery needs the network); it keeps the grant in
/// the Keychain and signs in through `ASWebAuthenticationSession` (the system's "wants to use
/// … to sign in" alert, then Portico's pages in the sheet). Accessibility identifiers are
/// what the UI test looks for.
struct SignInView: View {
    /// The issuer and client id of this launch, or why they cannot be used.
    let configuration: Result<ExampleConfiguration, ExampleConfigurationError>

    @State private var phase = SignInPhase.signedOut
    @State private var manager: AuthorizationManager? = nil

    var body: some View {
        VStack(spacing: 16) {
            switch configuration {
            case .success:
                content
            case .failure(let error):
                Text(verbatim: error.message).accessibilityIdentifier("configuration-error")
            }
        }
        .padding(24)
        .onOpenURL { url in
            // A redirect that came back by the URL scheme (a companion app, the system browser).
            _ = manager?.handleOpenURL(url)
        }
    }

    @ViewBuilder private var content: some View {
        switch phase {
        case .signedOut:
            loginButton
        case .working(let activity):
            Text(verbatim: activity).accessibilityIdentifier("activity")
        case .signedIn(let user):
            Text(verbatim: user.name ?? user.userID).accessibilityIdentifier("user-name")
            Text(verbatim: user.email ?? "").accessibilityIdentifier("user-email")
            Button("Sign out") { Task { await signOut() } }.accessibilityIdentifier("sign-out")
        case .failed(let reason):
            Text(verbatim: reason).accessibilityIdentifier("failure")
            loginButton
        }
    }

    private var loginButton: some View {
        LoginWithPorticoButton { Task { await signIn() } }.accessibilityIdentifier("login-with-portico")
    }

    /// Discovers the provider (once), signs in (from the Keychain when a grant covers the
    /// scopes, else in the web sheet) and fetches the profile.
    private func signIn() async {
        phase = .working("Signing in…")
        do {
            let manager = try await currentManager()
            _ = try await manager.authorize(AuthorizeRequest(scopes: [.openID, .profile]))
            phase = .signedIn(try await manager.fetchUser())
        } catch let error as AuthorizationError where error.code == .userCancelled {
            phase = .signedOut
        } catch {
            phase = .failed(error.localizedDescription)
        }
    }

    /// Forgets the grant here (revoking its refresh token at the provider).
    private func signOut() async {
        guard let manager else {
            phase = .signedOut
            return
        }
        phase = .working("Signing out…")
        do {
            try await manager.signOut()
            phase = .signedOut
        } catch {
            phase = .failed(error.localizedDescription)
        }
    }

    /// The manager, made from a discovery of the issuer on first use.
    private func currentManager() async throws -> AuthorizationManager {
        if let manager { return manager }
        let configuration = try configuration.get()
        let provider = try await Provider.discover(issuer: configuration.issuer)
        // No companion app on a phone; the in-app web session with its defaults (Safari's
        // cookies, the key window of the foreground scene as anchor).
        let agent = AutomaticUserAgent(companion: nil, webSession: WebAuthenticationSessionUserAgent())
        let made = AuthorizationManager(
            provider: provider, clientID: configuration.clientID, redirectURI: ExampleConfiguration.redirectURI,
            userAgent: agent)
        manager = made
        return made
    }
}
