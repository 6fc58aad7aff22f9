import Foundation
import PorticoTesting
import Testing

@testable import PorticoHTTP

@Suite struct ResponseTests {
    @Test func sendsEachCookieAsItsOwnField() async throws {
        let server = try startServer { router in
            router.get("/login") { _ in
                var response = Response.html("<p>signed in</p>")
                response.setCookie(Cookie(name: "session", value: "abc", maxAge: 3_600, isSecure: true))
                response.setCookie(
                    Cookie(
                        name: "prefs", value: "x", path: "/account", domain: "example.com",
                        expires: Date(timeIntervalSince1970: 784_111_777), isHTTPOnly: false, sameSite: .strict))
                return response.settingCookie(.expired(name: "old"))
            }
        }
        defer { server.shutdown() }
        let raw = RawHTTPClient.exchange(
            port: server.port, "GET /login HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let cookieLines = raw.components(separatedBy: "\r\n").filter { $0.hasPrefix("Set-Cookie: ") }
        #expect(
            cookieLines == [
                "Set-Cookie: session=abc; Path=/; Max-Age=3600; Secure; HttpOnly; SameSite=Lax",
                "Set-Cookie: prefs=x; Path=/account; Domain=example.com; Expires=Sun, 06 Nov 1994 08:49:37 GMT; "
                    + "SameSite=Strict",
                "Set-Cookie: old=; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax",
            ])
        #expect(raw.contains("Content-Type: text/html; charset=utf-8\r\n"))
        // URLSession on Linux folds the three fields into one; all three must still be there.
        let reply = try await fetch(server, "/login")
        let folded = try #require(reply.header("Set-Cookie"))
        #expect(folded.contains("session=abc") && folded.contains("prefs=x") && folded.contains("old="))
    }

    @Test func cookieRoundTripThroughTheBrowserSide() async throws {
        let server = try startServer { router in
            router.get("/set") { _ in Response.text("ok").settingCookie(Cookie(name: "sid", value: "v1")) }
            router.get("/read") { request in .text(request.cookies["sid"] ?? "none") }
        }
        defer { server.shutdown() }
        let set = try await fetch(server, "/set")
        let cookie = try #require(set.header("Set-Cookie")?.split(separator: ";").first)
        #expect(try await fetch(server, "/read", headers: ["Cookie": String(cookie)]).text == "v1")
    }

    @Test func responseHelpersSetContentTypes() throws {
        #expect(Response.text("a").headers["Content-Type"] == "text/plain; charset=utf-8")
        #expect(Response.json(raw: "{}").headers["Content-Type"] == "application/json")
        let json = try Response.json(["url": "https://a/b"])
        #expect(json.body == Array(#"{"url":"https://a/b"}"#.utf8))
        let redirect = Response.redirect(to: "https://app.example/cb?code=1")
        #expect(redirect.status == .found)
        #expect(redirect.headers["Location"] == "https://app.example/cb?code=1")
    }

    @Test func invalidHeaderFromHandlerBecomes500() async throws {
        let server = try startServer { router in
            router.get("/bad-header") { _ in Response(headers: ["X-Injected": "a\r\nEvil: yes"]) }
        }
        defer { server.shutdown() }
        #expect(try await fetch(server, "/bad-header").status == 500)
        #expect(try await fetch(server, "/healthz").status == 200)
    }
}
