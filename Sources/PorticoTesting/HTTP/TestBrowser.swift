import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A minimal browser: a cookie jar, no automatic redirects, form posts.
///
/// Cookies are kept by hand because URLSession on Linux folds several `Set-Cookie` fields into
/// one, and because parallel tests must not share a jar.
public final class TestBrowser: Sendable {
    /// Where relative targets go: `http://HOST:PORT` of the provider.
    public let base: String
    private let session: URLSession
    private let jar = Mutex<[String: String]>([:])
    private let acceptLanguage: String?

    /// A browser with an empty jar that sends `Accept-Language: acceptLanguage` when given.
    public init(base: String, acceptLanguage: String? = nil) {
        self.base = base
        self.acceptLanguage = acceptLanguage
        session = TestSessions.browser(timeout: 90)
    }

    /// The cookie `name` as the browser holds it.
    public func cookie(_ name: String) -> String? { jar.withLock { $0[name] } }

    /// Sets or removes a cookie by hand.
    public func setCookie(_ name: String, _ value: String?) { jar.withLock { $0[name] = value } }

    /// GET `target` (a path or an absolute URL).
    public func get(_ target: String) async throws -> TestReply {
        try await send(target, method: "GET", body: nil)
    }

    /// POST form fields to `target`.
    public func post(_ target: String, _ fields: [(String, String)]) async throws -> TestReply {
        try await send(target, method: "POST", body: Data(ProviderHarness.formEncode(fields).utf8))
    }

    private func send(_ target: String, method: String, body: Data?) async throws -> TestReply {
        let url = try URL(string: target.hasPrefix("http") ? target : base + target).required("a URL from \(target)")
        var request = URLRequest(url: url)
        request.httpMethod = method
        if let body {
            request.httpBody = body
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        }
        let cookieHeader = jar.withLock { $0.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ") }
        if !cookieHeader.isEmpty { request.setValue(cookieHeader, forHTTPHeaderField: "Cookie") }
        if let acceptLanguage { request.setValue(acceptLanguage, forHTTPHeaderField: "Accept-Language") }
        let (data, response) = try await session.data(for: request)
        let reply = try TestReply(response, data: data)
        for cookie in reply.setCookies {
            let pair = cookie.split(separator: ";", maxSplits: 1)[0]
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let name = String(pair[..<equals])
            let value = String(pair[pair.index(after: equals)...])
            let deletes = cookie.contains("Max-Age=0")
            jar.withLock { $0[name] = deletes ? nil : value }
        }
        return reply
    }
}
