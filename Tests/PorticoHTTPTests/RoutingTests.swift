import Foundation
import PorticoTesting
import Synchronization
import Testing

@testable import PorticoHTTP

@Suite struct RoutingTests {
    private func makeServer() throws -> HTTPServer {
        try startServer { router in
            router.get("/clients") { _ in .text("all clients") }
            router.post("/clients") { request in .text("created \(request.body.count)", status: .created) }
            router.get("/clients/:id") { request in .text("client \(request.pathParameters["id"] ?? "?")") }
            router.delete("/clients/:id") { request in .text("deleted \(request.pathParameters["id"] ?? "?")") }
            router.get("/clients/:id/secrets/:name") { request in
                .text("\(request.pathParameters["id"] ?? "?")/\(request.pathParameters["name"] ?? "?")")
            }
            router.put("/things/:id") { _ in .text("put") }
            router.patch("/things/:id") { _ in .text("patch") }
        }
    }

    @Test func routesByMethodAndPath() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        #expect(try await fetch(server, "/clients").text == "all clients")
        let created = try await fetch(server, "/clients", method: "POST", body: Data("abc".utf8))
        #expect(created.status == 201)
        #expect(created.text == "created 3")
        #expect(try await fetch(server, "/things/1", method: "PUT").text == "put")
        #expect(try await fetch(server, "/things/1", method: "PATCH").text == "patch")
    }

    @Test func bindsPercentDecodedPathParameters() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        #expect(try await fetch(server, "/clients/abc").text == "client abc")
        #expect(try await fetch(server, "/clients/a%20b%2Fc").text == "client a b/c")
        #expect(try await fetch(server, "/clients/42/secrets/primary").text == "42/primary")
        #expect(try await fetch(server, "/clients/42", method: "DELETE").text == "deleted 42")
    }

    @Test func unknownPathIs404() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        #expect(try await fetch(server, "/nowhere").status == 404)
        #expect(try await fetch(server, "/clients/1/other").status == 404)
        #expect(try await fetch(server, "/clients/").status == 404)
    }

    @Test func wrongMethodIs405WithAllow() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let reply = try await fetch(server, "/clients", method: "DELETE")
        #expect(reply.status == 405)
        #expect(reply.header("Allow") == "GET, HEAD, POST")
        let parameterized = try await fetch(server, "/clients/7", method: "POST")
        #expect(parameterized.status == 405)
        #expect(parameterized.header("Allow") == "DELETE, GET, HEAD")
    }

    @Test func headIsServedByGetWithoutBody() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let reply = try await fetch(server, "/clients/xyz", method: "HEAD")
        #expect(reply.status == 200)
        #expect(reply.body.isEmpty)
        #expect(reply.header("Content-Length") == "10")
        #expect(reply.header("Content-Type") == "text/plain; charset=utf-8")
        let raw = RawHTTPClient.exchange(
            port: server.port, "HEAD /clients/xyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(raw.hasPrefix("HTTP/1.1 200"))
        #expect(raw.contains("Content-Length: 10\r\n"))
        #expect(raw.hasSuffix("\r\n\r\n"))
    }

    @Test func badPercentEncodingInPathIs400() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let raw = RawHTTPClient.exchange(
            port: server.port, "GET /clients/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(RawHTTPClient.status(of: raw) == 400)
        #expect(try await fetch(server, "/healthz").status == 200)
    }

    @Test func constantResponsesAreServedForGetAndHead() async throws {
        let server = try startServer { router in
            var constant = Response.json(raw: #"{"status":"ok"}"#)
            constant.headers["Cache-Control"] = "no-store"
            router.get("/constant", constant: constant)
        }
        defer { server.shutdown() }
        for _ in 0..<3 {
            let reply = try await fetch(server, "/constant")
            #expect(reply.text == #"{"status":"ok"}"#)
            #expect(reply.header("Cache-Control") == "no-store")
            #expect(reply.header("Content-Type") == "application/json")
        }
        let head = try await fetch(server, "/constant", method: "HEAD")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.header("Content-Length") == "15")
        #expect(try await fetch(server, "/constant", method: "POST").status == 405)
    }

    /// A `current` route hands out the response its owner keeps; replacing it changes the
    /// answer while earlier ones are dropped safely, and the query is never parsed.
    @Test func preparedResponsesCanBeReplaced() async throws {
        let current = Mutex(PreparedResponse(.text("first")))
        let server = try startServer { router in
            router.get("/current", current: { current.withLock { $0 } })
        }
        defer { server.shutdown() }
        #expect(try await fetch(server, "/current?ignored=1").text == "first")
        for round in 0..<50 {
            current.withLock { $0 = PreparedResponse(.text("version \(round)")) }
            let reply = try await fetch(server, "/current")
            #expect(reply.text == "version \(round)")
            #expect(reply.header("Content-Type")?.hasPrefix("text/plain") == true)
        }
        let head = try await fetch(server, "/current", method: "HEAD")
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(try await fetch(server, "/current", method: "POST").status == 405)
        #expect(try await fetch(server, "/healthz").status == 200)
    }

    @Test func fallbackAnswersUnmatchedPaths() async throws {
        let server = try startServer { router in
            router.get("/known") { _ in .text("known") }
            router.fallback { request in .text("fallback for \(request.path)", status: .notFound) }
        }
        defer { server.shutdown() }
        let reply = try await fetch(server, "/unknown/path")
        #expect(reply.status == 404)
        #expect(reply.text == "fallback for /unknown/path")
        #expect(try await fetch(server, "/known", method: "POST").status == 405)
    }

    @Test func routesAddedAfterStartAreIgnored() async throws {
        let router = Router()
        router.get("/before") { _ in .text("before") }
        let server = HTTPServer(
            configuration: ServerConfiguration(port: 0, threads: 1, logRequests: false), router: router)
        try server.start()
        defer { server.shutdown() }
        router.get("/after") { _ in .text("after") }
        #expect(try await fetch(server, "/before").status == 200)
        #expect(try await fetch(server, "/after").status == 404)
    }

    @Test func routeTableMatchesLiteralBeforeParameter() throws {
        var table = RouteTable()
        table.add(.get, "/clients/:id", .immediate { _ in .text("parameter") })
        table.add(.get, "/clients/new", .immediate { _ in .text("literal") })
        guard case .handler(.immediate(let handler), let parameters, _) = try table.match(.get, path: "/clients/new")
        else {
            Issue.record("no match")
            return
        }
        #expect(parameters.isEmpty)
        #expect(try handler(Request(method: .get, path: "/clients/new")).body == Array("literal".utf8))
    }
}
