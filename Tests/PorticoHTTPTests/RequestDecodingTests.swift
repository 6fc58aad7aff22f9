import Foundation
import PorticoTesting
import Testing

@testable import PorticoHTTP

@Suite struct RequestDecodingTests {
    private struct Greeting: Codable, Equatable {
        var name: String
        var count: Int
    }

    @Test func decodesQueryWithRepeatsInOrder() async throws {
        let server = try startServer { router in
            router.get("/q") { request in
                let items = request.query.items.map { "\($0.name)=\($0.value)" }.joined(separator: "|")
                return .text("\(items);\(request.query.values(for: "a"));\(request.path);\(request.rawQuery ?? "-")")
            }
        }
        defer { server.shutdown() }
        let reply = try await fetch(server, "/q?a=b+c%2Bd&a=2&flag&%E2%9C%93=ok")
        #expect(reply.text == #"a=b c+d|a=2|flag=|✓=ok;["b c+d", "2"];/q;a=b+c%2Bd&a=2&flag&%E2%9C%93=ok"#)
        let bad = RawHTTPClient.exchange(
            port: server.port, "GET /q?a=%G1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(RawHTTPClient.status(of: bad) == 400)
        let truncated = RawHTTPClient.exchange(
            port: server.port, "GET /q?a=%4 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(RawHTTPClient.status(of: truncated) == 400)
    }

    @Test func decodesFormBodies() async throws {
        let server = try startServer { router in
            router.post("/form") { request in
                let form = try request.form()
                return .text("\(form["grant_type"] ?? "-")|\(form["redirect_uri"] ?? "-")|\(form.values(for: "scope"))")
            }
        }
        defer { server.shutdown() }
        let body = Data(
            "grant_type=authorization_code&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&scope=a+b&scope=c".utf8)
        let reply = try await fetch(
            server, "/form", method: "POST", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: body)
        #expect(reply.status == 200)
        #expect(reply.text == #"authorization_code|https://app.example/cb|["a b", "c"]"#)

        let bad = try await fetch(
            server, "/form", method: "POST", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Data("a=%ZZ".utf8))
        #expect(bad.status == 400)
        let wrongType = try await fetch(
            server, "/form", method: "POST", headers: ["Content-Type": "application/json"], body: Data("{}".utf8))
        #expect(wrongType.status == 415)
    }

    @Test func decodesAndEncodesJSON() async throws {
        let server = try startServer { router in
            router.post("/json") { request in
                var greeting = try request.decodeJSON(Greeting.self)
                greeting.count += 1
                return try .json(greeting, status: .created)
            }
        }
        defer { server.shutdown() }
        let reply = try await fetch(
            server, "/json", method: "POST", headers: ["Content-Type": "application/json"],
            body: Data(#"{"name":"Ada","count":1}"#.utf8))
        #expect(reply.status == 201)
        #expect(reply.header("Content-Type") == "application/json")
        #expect(try JSONDecoder().decode(Greeting.self, from: reply.body) == Greeting(name: "Ada", count: 2))
        let bad = try await fetch(server, "/json", method: "POST", body: Data("{nope".utf8))
        #expect(bad.status == 400)
        #expect(bad.text == "Invalid JSON body")
    }

    @Test func readsHeadersCookiesAndRemoteAddress() async throws {
        let server = try startServer { router in
            router.get("/who") { request in
                let cookies = request.cookies
                return .text(
                    "\(request.headers["x-custom"] ?? "-")|\(cookies["session"] ?? "-")|\(cookies["theme"] ?? "-")|"
                        + request.remoteAddress)
            }
        }
        defer { server.shutdown() }
        let reply = try await fetch(
            server, "/who", headers: ["X-Custom": "yes", "Cookie": #"session=abc123; theme="dark""#])
        #expect(reply.text == "yes|abc123|dark|127.0.0.1")
    }

    @Test func readsBasicCredentials() async throws {
        let server = try startServer { router in
            router.post("/token") { request in
                guard let credentials = request.basicCredentials else { throw HTTPError(.unauthorized, "no") }
                let decoded = try credentials.formURLDecoded()
                return .text("\(credentials.user)|\(credentials.password)|\(decoded.user)|\(decoded.password)")
            }
        }
        defer { server.shutdown() }
        let encoded = Data("my%20client:s3cr%3At:x".utf8).base64EncodedString()
        let reply = try await fetch(server, "/token", method: "POST", headers: ["Authorization": "Basic \(encoded)"])
        #expect(reply.text == "my%20client|s3cr%3At:x|my client|s3cr:t:x")
        #expect(try await fetch(server, "/token", method: "POST").status == 401)
        let garbage = try await fetch(server, "/token", method: "POST", headers: ["Authorization": "Basic !!!"])
        #expect(garbage.status == 401)
    }

    @Test func basicCredentialsParsing() {
        #expect(
            BasicCredentials(authorization: "Basic dXNlcjpwYXNz") == BasicCredentials(user: "user", password: "pass"))
        #expect(BasicCredentials(authorization: "basic dXNlcjpwYXNz")?.user == "user")
        #expect(BasicCredentials(authorization: "Bearer dXNlcjpwYXNz") == nil)
        #expect(BasicCredentials(authorization: "Basic bm9jb2xvbg==") == nil)
        #expect(BasicCredentials(authorization: "Basic ") == nil)
    }

    @Test func formParametersDecoding() throws {
        let form = try FormParameters(decoding: "a=1&&b=%C3%A9+x&a=2&=empty&c")
        #expect(form.items.map(\.name) == ["a", "b", "a", "", "c"])
        #expect(form["b"] == "é x")
        #expect(form.values(for: "a") == ["1", "2"])
        #expect(form["c"] == "")
        #expect(form["missing"] == nil)
        #expect(throws: HTTPError.self) { try FormParameters(decoding: "a=%") }
        #expect(throws: HTTPError.self) { try FormParameters(decoding: "a=%C3") }
        #expect(throws: HTTPError.self) { try FormParameters(decoding: "a=%FF%FE") }
    }

    @Test func headersLookupIgnoresCase() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain", "Set-Cookie": "a=1"]
        headers.add("set-cookie", value: "b=2")
        #expect(headers["content-type"] == "text/plain")
        #expect(headers.values(for: "SET-COOKIE") == ["a=1", "b=2"])
        headers["CONTENT-TYPE"] = "application/json"
        #expect(headers.values(for: "Content-Type") == ["application/json"])
        headers.remove("set-cookie")
        #expect(!headers.contains("Set-Cookie"))
        #expect(headers.count == 1)
    }
}
