import Foundation
import PorticoHTTP
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `GET /metrics` as `portico serve --metrics` serves it: off by default, loopback only, and
/// counting what operators watch.
@Suite struct MetricsEndpointTests {
    /// The samples of a scrape by their series (`name{labels}`), after checking that every
    /// line is a `# HELP`, a `# TYPE` or a sample a Prometheus scraper accepts.
    private static func samples(_ text: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# HELP ") { continue }
            if line.wholeMatch(of: /# TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (counter|gauge|histogram)/) != nil { continue }
            let match = line.wholeMatch(
                of: /([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[a-z_]+="[^"\\]*"(?:,[a-z_]+="[^"\\]*")*\})?) (\S+)/)
            guard let match else {
                Issue.record("not a valid exposition line: \(line)")
                continue
            }
            let value = match.2 == "+Inf" ? Double.infinity : Double(match.2)
            #expect(value != nil, "bad value in \(line)")
            samples[String(match.1)] = value
        }
        return samples
    }

    private static func scrape(_ harness: ProviderHarness) async throws -> [String: Double] {
        let reply = try await harness.request("GET", "/metrics")
        #expect(reply.status == 200)
        #expect(reply.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        #expect(reply.header("Cache-Control") == "no-store")
        return samples(reply.text)
    }

    @Test func metricsAreOffUnlessEnabled() async throws {
        try await ProviderHarness.with { harness in
            let reply = try await harness.request("GET", "/metrics")
            #expect(reply.status == 404)
        }
    }

    @Test func tokensErrorsAndReuseAreCountedByGrantAndCode() async throws {
        try await ProviderHarness.with(configuration: .testing { $0.metrics = true }) { harness in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient(grants: ["authorization_code", "refresh_token"])
            let machine = try harness.addConfidentialClient(scopes: [], grants: ["client_credentials"])
            let credentials = ClientCredentials.of(client)

            let machineToken = try await harness.token(
                [("grant_type", "client_credentials")], client: ClientCredentials.of(machine))
            #expect(machineToken.status == 200)
            let wrongSecret = try await harness.token(
                [("grant_type", "client_credentials")], client: .basic(id: machine.id, secret: "wrong"))
            #expect(wrongSecret.status == 401)
            let unsupported = try await harness.token([("grant_type", "password")], client: credentials)
            #expect(unsupported.string("error") == "unsupported_grant_type")

            // Refresh twice, then present the first token again: a genuine reuse.
            let first = try #require(
                try await harness.signIn(user, to: client, scopes: ["openid"]).string("refresh_token"))
            let second = try #require(try await harness.refresh(first, client: credentials).string("refresh_token"))
            #expect(try await harness.refresh(second, client: credentials).status == 200)
            let reuse = try await harness.refresh(first, client: credentials)
            #expect(reuse.string("error") == "invalid_grant")
            #expect(try await harness.request("GET", "/no/such/page").status == 404)

            let metrics = try await Self.scrape(harness)
            #expect(metrics[#"portico_tokens_issued_total{grant="client_credentials"}"#] == 1)
            #expect(metrics[#"portico_tokens_issued_total{grant="authorization_code"}"#] == 1)
            #expect(metrics[#"portico_tokens_issued_total{grant="refresh_token"}"#] == 2)
            #expect(metrics[#"portico_tokens_issued_total{grant="device_code"}"#] == 0)
            #expect(metrics[#"portico_token_errors_total{error="invalid_client"}"#] == 1)
            #expect(metrics[#"portico_token_errors_total{error="unsupported_grant_type"}"#] == 1)
            #expect(metrics[#"portico_token_errors_total{error="invalid_grant"}"#] == 1)
            #expect(metrics["portico_refresh_token_reuse_detected_total"] == 1)
            // The HTTP layer labels by route pattern; unknown paths are "unmatched".
            let token = #"portico_http_requests_total{route="/oauth/token",method="POST""#
            #expect(metrics[token + #",status="200"}"#] == 4)
            #expect(metrics[token + #",status="400"}"#] == 2)
            #expect(metrics[token + #",status="401"}"#] == 1)
            #expect(metrics[#"portico_http_requests_total{route="unmatched",method="GET",status="404"}"#] == 1)
            #expect(
                metrics[#"portico_http_request_duration_seconds_count{route="/oauth/token",method="POST"}"#] == 7)
            #expect(!metrics.keys.contains { $0.contains("/no/such/page") })
            // Process gauges, under the names every Prometheus client library uses.
            #expect((metrics["process_resident_memory_bytes"] ?? 0) > 1_000_000)
            #expect((metrics["process_open_fds"] ?? 0) >= 3)
            let start = try #require(metrics["process_start_time_seconds"])
            #expect(start <= Date().timeIntervalSince1970 && start > Date().timeIntervalSince1970 - 86_400 * 7)
            #expect((metrics["process_cpu_seconds_total"] ?? 0) > 0)
            #expect((metrics["portico_http_connections_open"] ?? 0) >= 1)
        }
    }

    @Test func signInsAreCountedByResult() async throws {
        try await ProviderHarness.with(configuration: .testing { $0.metrics = true }) { provider in
            try provider.addUser()
            try provider.addUser(email: "bob@example.com", name: "Bob")
            let browser = TestBrowser(base: provider.base)
            for _ in 1...AttemptThrottle.accountLimit {
                #expect(try await browser.signIn(at: "/login", password: "wrong horse").status == 200)
            }
            #expect(try await browser.signIn(at: "/login").status == 429)
            #expect(try await browser.signIn(at: "/login", email: "bob@example.com").status == 303)

            let reply = try await browser.get("/metrics")
            #expect(reply.status == 200)
            let metrics = Self.samples(reply.text)
            #expect(metrics[#"portico_sign_ins_total{result="failure"}"#] == Double(AttemptThrottle.accountLimit))
            #expect(metrics[#"portico_sign_ins_total{result="throttled"}"#] == 1)
            #expect(metrics[#"portico_sign_ins_total{result="success"}"#] == 1)
            #expect(metrics[#"portico_http_requests_total{route="/login",method="POST",status="429"}"#] == 1)
        }
    }

    @Test func requestsRelayedByAProxyAreRefused() async throws {
        try await ProviderHarness.with(configuration: .testing { $0.metrics = true }) { harness in
            for header in MetricsEndpoint.forwardingHeaders {
                let reply = try await harness.request("GET", "/metrics", headers: [header: "203.0.113.9"])
                #expect(reply.status == 403, "\(header)")
                #expect(!reply.text.contains("portico_"))
            }
        }
    }

    @Test(arguments: [
        ("127.0.0.1", true), ("127.10.20.30", true), ("::1", true), ("::ffff:127.0.0.1", true),
        ("10.0.0.1", false), ("192.168.1.5", false), ("::ffff:10.0.0.1", false), ("::2", false),
        ("fe80::1", false), ("2001:db8::1", false), ("128.0.0.1", false), ("", false), ("localhost", false),
        ("127.0.0.1.evil", false),
    ])
    func onlyLoopbackAddressesMayScrape(address: String, isLoopback: Bool) {
        #expect(MetricsEndpoint.isLoopback(address) == isLoopback)
    }

    @Test(.enabled(if: nonLoopbackAddress() != nil, "needs a non-loopback IPv4 address on this machine"))
    func aPeerOnAnotherAddressGets403() async throws {
        let address = try #require(nonLoopbackAddress())
        // Listening on that address only, the connection to it comes from it, not from loopback.
        try await ProviderHarness.with(
            configuration: .testing {
                $0.host = address
                $0.metrics = true
            }
        ) { harness in
            let base = harness.base
            let health = try await ProviderHarness.session.data(from: try #require(URL(string: base + "/healthz")))
            #expect((health.1 as? HTTPURLResponse)?.statusCode == 200)
            let (body, response) = try await ProviderHarness.session.data(
                from: try #require(URL(string: base + "/metrics")))
            #expect((response as? HTTPURLResponse)?.statusCode == 403)
            #expect(!String(decoding: body, as: UTF8.self).contains("portico_"))
        }
    }
}

/// An IPv4 address of an interface that is up and not loopback, or nil.
private func nonLoopbackAddress() -> String? {
    var list: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&list) == 0, let first = list else { return nil }
    defer { freeifaddrs(list) }
    for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
        let flags = Int32(entry.pointee.ifa_flags)
        guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
            flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0
        else { continue }
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        let converted = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
            var raw = ipv4.pointee.sin_addr
            return inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
        }
        if converted != nil {
            return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
    return nil
}
