import PorticoHTTP

/// The short static pages the sign-in pages link to: conditions of use, privacy notice, and
/// "Learn more" about signing in with the platform.
///
/// They say nothing about any one person, so unlike the other pages they may be cached.
enum InfoPages {
    /// Adds `/terms`, `/privacy` and `/help` as constant responses.
    static func register(on router: Router) {
        router.get("/terms", constant: page(title: "Conditions of Use", body: terms))
        router.get("/privacy", constant: page(title: "Privacy Notice", body: privacy))
        router.get("/help", constant: page(title: "About Login with \(PageLayout.platformName)", body: help))
    }

    private static func page(title: String, body: String) -> Response {
        var response = PageLayout.page(title: title, content: "<h1>\(HTML.escape(title))</h1>\n\(body)")
        response.headers["Cache-Control"] = "public, max-age=3600"
        response.headers["Pragma"] = nil
        return response
    }

    private static let platform = PageLayout.platformName

    private static let terms = """
        <p>When you use Login with \(platform), you sign in to other apps with your \(platform) account. \
        You are responsible for keeping your password secret and for what you allow apps to see.</p>
        <p>Apps that use Login with \(platform) are run by others; their own terms apply to what you do in them.</p>
        """

    private static let privacy = """
        <p>\(platform) shares with an app only what you allowed on the consent page, such as your name, \
        e-mail address or postal code. It never shares your password.</p>
        <p>You can see the apps you allowed, and remove them, in <a href="/account">Your Account</a>.</p>
        """

    private static let help = """
        <p>Login with \(platform) lets you sign in to apps and websites with the \(platform) account you \
        already have: no new password to remember, and you choose what each app may see.</p>
        <ul><li>Sign in once; apps you allowed before let you in without asking again.</li>
        <li>Every app asks before it sees anything; you can say no.</li>
        <li>Remove an app's access any time in <a href="/account">Your Account</a>.</li></ul>
        """
}
