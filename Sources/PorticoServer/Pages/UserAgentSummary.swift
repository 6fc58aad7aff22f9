/// A short, human description of a `User-Agent` ("Chrome on Windows") for the list of
/// signed-in devices on Your Account.
///
/// Deliberately rough: it only has to help a person recognise their own devices, so it
/// looks for a few well-known tokens, in the order that tells browsers apart (Edge and Opera
/// also say Chrome; Chrome also says Safari), and never shows the raw header.
enum UserAgentSummary {
    /// The words for `userAgent` in `language`; "Unknown browser" when it is missing or
    /// unrecognised.
    static func describe(_ userAgent: String?, language: PageLanguage = .english) -> String {
        let unknown = Localized("Unknown browser", zh: "未知浏览器")[language]
        guard let userAgent, !userAgent.isEmpty else { return unknown }
        let browser = browsers.first { userAgent.contains($0.token) }?.name ?? unknown
        guard let system = systems.first(where: { userAgent.contains($0.token) })?.name else { return browser }
        return Localized("\(browser) on \(system)", zh: "\(system) 上的 \(browser)")[language]
    }

    private static let browsers: [(token: String, name: String)] = [
        ("Edg/", "Edge"), ("OPR/", "Opera"), ("SamsungBrowser/", "Samsung Internet"), ("Firefox/", "Firefox"),
        ("FxiOS/", "Firefox"), ("CriOS/", "Chrome"), ("Chrome/", "Chrome"), ("Chromium/", "Chromium"),
        ("Safari/", "Safari"), ("curl/", "curl"), ("python-requests/", "Python"), ("Portico", "Portico app"),
    ]

    private static let systems: [(token: String, name: String)] = [
        ("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("CrOS", "ChromeOS"), ("Windows", "Windows"),
        ("Mac OS X", "macOS"), ("Macintosh", "macOS"), ("Linux", "Linux"),
    ]
}
