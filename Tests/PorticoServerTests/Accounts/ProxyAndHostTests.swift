import Foundation
import PorticoHTTP
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

/// The provider answers only its own host names (421 otherwise: DNS rebinding), and behind
/// `--trusted-proxy` its throttles count the client the proxy names, IPv6 by /64, while
/// `/metrics` still looks at the true peer.
@Suite struct ProxyAndHostTests {
    /// A provider on a fresh database, stopped after `body`.
    private func withProvider(
        allowedHosts: [String] = [], issuer: String? = nil, trustedProxies: [String] = [], metrics: Bool = false,
        clientAddressHeader: ClientAddressHeader = .xForwardedFor, _ body: (IdentityProvider) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("portico-proxy-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ProviderConfiguration(
            port: 0, logRequests: false,
            passwordHashing: ProviderHarness.passwordHashing)
        configuration.allowedHosts = allowedHosts
        configuration.issuer = issuer
        configuration.trustedProxies = try trustedProxies.map { try #require(IPAddressRange($0)) }
        configuration.metrics = metrics
        configuration.clientAddressHeader = clientAddressHeader
        let provider = try IdentityProvider(
            configuration: configuration,
            store: try openStore(url: "sqlite:\(directory.path)/portico.db", longRunning: true))
        try provider.start()
        defer { provider.shutdown() }
        try await body(provider)
    }

    /// One HTTP/1.1 exchange with exactly these header lines (Host included).
    private func exchange(port: UInt16, _ head: String, body: String = "") throws -> TestReply {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(connected == 0)
        let outgoing = Array((head + "Connection: close\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body).utf8)
        _ = outgoing.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        var incoming: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            incoming += buffer[0..<count]
        }
        let text = String(decoding: incoming, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let lines = parts[0].components(separatedBy: "\r\n")
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let status = Int(lines[0].split(separator: " ").dropFirst().first ?? "") ?? 0
        return TestReply(
            status: status, headers: headers, body: Data(parts.dropFirst().joined(separator: "\r\n\r\n").utf8))
    }

    /// Asks for a reset link as a client behind the proxy at `forwardedFor`; returns the status.
    /// `extra` adds header lines as the client wrote them, which the proxy passed on.
    private func forgot(
        port: UInt16, forwardedFor: String, header: String = "X-Forwarded-For", extra: String = ""
    ) throws -> Int {
        let host = "Host: 127.0.0.1:\(port)\r\n\(header): \(forwardedFor)\r\n" + extra
        let page = try exchange(port: port, "GET /password/forgot HTTP/1.1\r\n" + host)
        let cookie = try #require(page.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
        let token = try #require(
            page.text.range(of: #"name="csrf_token" value="([^"]*)""#, options: .regularExpression).map {
                String(page.text[$0].dropFirst(#"name="csrf_token" value=""#.count).dropLast())
            })
        let form = "csrf_token=\(token)&email=nobody%40example.com"
        let reply = try exchange(
            port: port,
            "POST /password/forgot HTTP/1.1\r\n" + host + "Cookie: \(cookie)\r\n"
                + "Content-Type: application/x-www-form-urlencoded\r\nOrigin: http://127.0.0.1:\(port)\r\n",
            body: form)
        return reply.status
    }

    @Test func otherHostNamesGet421() async throws {
        try await withProvider(allowedHosts: ["id.example.com"]) { (provider: IdentityProvider) async throws in
            for path in ["/login", "/oauth/jwks", "/healthz", "/.well-known/openid-configuration"] {
                let rebound = try exchange(
                    port: provider.port, "GET \(path) HTTP/1.1\r\nHost: rebind.attacker.example:\(provider.port)\r\n")
                #expect(rebound.status == 421, "\(path)")
            }
            for host in ["127.0.0.1:\(provider.port)", "localhost:\(provider.port)", "id.example.com"] {
                let reply = try exchange(port: provider.port, "GET /healthz HTTP/1.1\r\nHost: \(host)\r\n")
                #expect(reply.status == 200, "\(host)")
            }
        }
    }

    @Test func theIssuersHostIsTheDefault() async throws {
        try await withProvider(issuer: "https://id.example.com") { (provider: IdentityProvider) async throws in
            let own = try exchange(port: provider.port, "GET /healthz HTTP/1.1\r\nHost: id.example.com\r\n")
            #expect(own.status == 200)
            let loopback = try exchange(port: provider.port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            #expect(loopback.status == 421)
        }
    }

    @Test func throttlesCountTheClientATrustedProxyNames() async throws {
        try await withProvider(trustedProxies: ["127.0.0.1"]) { (provider: IdentityProvider) async throws in
            for _ in 0..<5 { #expect(try forgot(port: provider.port, forwardedFor: "198.51.100.1") == 200 as Int) }
            #expect(try forgot(port: provider.port, forwardedFor: "198.51.100.1") == 429 as Int)
            // Another client behind the same proxy is not held back by the first.
            #expect(try forgot(port: provider.port, forwardedFor: "198.51.100.2") == 200 as Int)
            // A client cannot pick its address by writing its own header: the proxy appends.
            #expect(try forgot(port: provider.port, forwardedFor: "203.0.113.50, 198.51.100.1") == 429 as Int)
        }
    }

    /// A proxy that appends `X-Forwarded-For` passes a client's own `Forwarded` through: it
    /// must not choose the address that throttles count.
    @Test func aClientsOwnForwardedHeaderIsNotBelieved() async throws {
        try await withProvider(trustedProxies: ["127.0.0.1"]) { (provider: IdentityProvider) async throws in
            for index in 1...5 {
                let claim = "Forwarded: for=203.0.113.\(index)\r\n"
                #expect(try forgot(port: provider.port, forwardedFor: "198.51.100.1", extra: claim) == 200 as Int)
            }
            let claim = "Forwarded: for=203.0.113.77\r\n"
            #expect(try forgot(port: provider.port, forwardedFor: "198.51.100.1", extra: claim) == 429 as Int)
        }
    }

    /// With `X-Real-IP` named, that is the client; an `X-Forwarded-For` the client wrote is not.
    @Test func theOperatorNamesTheHeader() async throws {
        try await withProvider(trustedProxies: ["127.0.0.1"], clientAddressHeader: .xRealIP) {
            (provider: IdentityProvider) async throws in
            for index in 1...5 {
                let claim = "X-Forwarded-For: 203.0.113.\(index)\r\n"
                #expect(
                    try forgot(port: provider.port, forwardedFor: "198.51.100.1", header: "X-Real-IP", extra: claim)
                        == 200 as Int)
            }
            #expect(try forgot(port: provider.port, forwardedFor: "198.51.100.1", header: "X-Real-IP") == 429 as Int)
            #expect(try forgot(port: provider.port, forwardedFor: "198.51.100.2", header: "X-Real-IP") == 200 as Int)
        }
    }

    @Test func withoutTrustEveryoneBehindTheProxyIsOneClient() async throws {
        try await withProvider { (provider: IdentityProvider) async throws in
            for _ in 0..<5 { #expect(try forgot(port: provider.port, forwardedFor: "198.51.100.1") == 200 as Int) }
            #expect(try forgot(port: provider.port, forwardedFor: "198.51.100.2") == 429 as Int)
        }
    }

    @Test func anIPv6ClientIsCountedByItsSlash64() async throws {
        try await withProvider(trustedProxies: ["127.0.0.0/8"]) { (provider: IdentityProvider) async throws in
            for index in 1...5 {
                #expect(try forgot(port: provider.port, forwardedFor: "2001:db8:1:2::\(index)") == 200 as Int)
            }
            #expect(try forgot(port: provider.port, forwardedFor: "2001:db8:1:2:ffff::9") == 429 as Int)
            #expect(try forgot(port: provider.port, forwardedFor: "2001:db8:1:3::1") == 200 as Int)
        }
    }

    @Test func metricsStillNeedATrueLoopbackPeer() async throws {
        try await withProvider(trustedProxies: ["127.0.0.1"], metrics: true) {
            (provider: IdentityProvider) async throws in
            let direct = try exchange(port: provider.port, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            #expect(direct.status == 200)
            let relayed = try exchange(
                port: provider.port, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: 127.0.0.1\r\n")
            #expect(relayed.status == 403)
        }
    }
}
