/// A short, human description of a `User-Agent` ("Chrome on Windows") for the list of
/// signed-in devices on Your Account.
///
/// Deliberately rough: it only has to help a person recognise their own devices, so it
/// looks for a few well-known tokens, in the order that tells browsers apart (Edge and Opera
/// also say Chrome; Chrome also says Safari), and never shows the raw header.
enum UserAgentSummary {
    /// The words for `userAgent`; "Unknown browser" when it is missing or unrecognised.
    static func describe(_ userAgent: String?) -> String {
        guard let userAgent, !userAgent.isEmpty else { return unknownBrowser }
        let browser = browsers.first { userAgent.contains($0.token) }?.name
        let system = systems.first { userAgent.contains($0.token) }?.name
        switch (browser, system) {
        case (let browser?, let system?): return "\(browser) on \(system)"
        case (let browser?, nil): return browser
        case (nil, let system?): return "\(unknownBrowser) on \(system)"
        case (nil, nil): return unknownBrowser
        }
    }

    private static let unknownBrowser = "Unknown browser"

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
