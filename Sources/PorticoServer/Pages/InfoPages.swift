import PorticoHTTP

/// The short static pages the sign-in pages link to: conditions of use, privacy notice, and
/// "Learn more" about signing in with the platform.
///
/// They say nothing about any one person, so unlike the other pages they may be cached; each
/// is rendered once per language at start-up and picked by `ui_locales` / `Accept-Language`
/// (hence `Vary: Accept-Language`).
enum InfoPages {
    /// Adds `/terms`, `/privacy` and `/help`.
    static func register(on router: Router) {
        for (path, title, body) in [
            ("/terms", terms.title, terms.body), ("/privacy", privacy.title, privacy.body),
            ("/help", help.title, help.body),
        ] {
            var rendered: [PageLanguage: Response] = [:]
            for language in PageLanguage.allCases {
                rendered[language] = page(title: title[language], body: body[language], language: language)
            }
            let pages = rendered
            router.get(path) { request in
                pages[request.pageLanguage()] ?? .text("Not found", status: .notFound)
            }
        }
    }

    private static func page(title: String, body: String, language: PageLanguage) -> Response {
        var response = PageLayout.page(
            title: title, content: "<h1>\(HTML.escape(title))</h1>\n\(body)", language: language)
        response.headers["Cache-Control"] = "public, max-age=3600"
        response.headers["Vary"] = "Accept-Language"
        response.headers["Pragma"] = nil
        return response
    }

    private static let platform = PageLayout.platformName

    private static let terms = (
        title: Localized("Conditions of Use", zh: "使用条件"),
        body: Localized(
            """
            <p>When you use Login with \(platform), you sign in to other apps with your \(platform) account. \
            You are responsible for keeping your password secret and for what you allow apps to see.</p>
            <p>Apps that use Login with \(platform) are run by others; their own terms apply to what you do in them.</p>
            """,
            zh: """
                <p>使用“通过 \(platform) 登录”时，您用自己的 \(platform) 账户登录其他应用。\
                您有责任对密码保密，并对您允许应用查看的内容负责。</p>
                <p>使用“通过 \(platform) 登录”的应用由他人运营；您在这些应用中的行为适用其各自的条款。</p>
                """)
    )

    private static let privacy = (
        title: Localized("Privacy Notice", zh: "隐私声明"),
        body: Localized(
            """
            <p>\(platform) shares with an app only what you allowed on the consent page, such as your name, \
            e-mail address or postal code. It never shares your password.</p>
            <p>You can see the apps you allowed, and remove them, in <a href="/account">Your Account</a>.</p>
            """,
            zh: """
                <p>\(platform) 只会与应用分享您在授权页面上允许的内容，例如您的姓名、电子邮件地址或邮政编码。\
                它绝不会分享您的密码。</p>
                <p>您可以在<a href="/account">您的账户</a>中查看并移除您允许过的应用。</p>
                """)
    )

    private static let help = (
        title: Localized("About Login with \(platform)", zh: "关于“通过 \(platform) 登录”"),
        body: Localized(
            """
            <p>Login with \(platform) lets you sign in to apps and websites with the \(platform) account you \
            already have: no new password to remember, and you choose what each app may see.</p>
            <ul><li>Sign in once; apps you allowed before let you in without asking again.</li>
            <li>Every app asks before it sees anything; you can say no.</li>
            <li>Remove an app's access any time in <a href="/account">Your Account</a>.</li></ul>
            """,
            zh: """
                <p>“通过 \(platform) 登录”让您用已有的 \(platform) 账户登录各种应用和网站：\
                无需记住新密码，并由您决定每个应用可以看到什么。</p>
                <ul><li>登录一次；您之前允许过的应用无需再次询问即可让您进入。</li>
                <li>每个应用在查看任何信息之前都会征求您的同意；您可以拒绝。</li>
                <li>您可以随时在<a href="/account">您的账户</a>中移除应用的访问权限。</li></ul>
                """)
    )
}
