import Foundation
import PorticoHTTP
import PorticoTesting
import Testing

/// The `Host` allow-list (DNS rebinding gets 421) and the client address behind trusted
/// proxies (only the one header the operator names is believed, and only as far as the chain
/// of trusted hops goes).
@Suite struct HostAndForwardingTests {
    @Test func theAllowListComparesNamesWithoutPortOrCase() {
        let list = HostAllowList(["id.example.com", "127.0.0.1", "[::1]"])
        #expect(list.allows(host: "id.example.com"))
        #expect(list.allows(host: "ID.Example.COM:8443"))
        #expect(list.allows(host: "id.example.com.:443"))
        #expect(list.allows(host: "127.0.0.1:8080"))
        #expect(list.allows(host: "[::1]:8080"))
        #expect(!list.allows(host: "attacker.example"))
        #expect(!list.allows(host: "attacker.example:8080"))
        #expect(!list.allows(host: "id.example.com.attacker.example"))
        #expect(!list.allows(host: ""))
        #expect(list.allows(host: nil))
    }

    @Test func aServerRefusesOtherHostsWith421() throws {
        var configuration = ServerConfiguration(port: 0, threads: 2, logRequests: false)
        configuration.allowedHosts = HostAllowList(["127.0.0.1", "id.example.com"])
        let server = try startServer(configuration: configuration) { router in
            router.add(.get, "/constant", constant: .text("constant"))
        }
        defer { server.shutdown() }
        for path in ["/healthz", "/constant", "/missing"] {
            let rebound = RawHTTPClient.exchange(
                port: server.port,
                "GET \(path) HTTP/1.1\r\nHost: rebind.attacker.example:\(server.port)\r\nConnection: close\r\n\r\n")
            #expect(RawHTTPClient.status(of: rebound) == 421, "\(path): \(rebound)")
        }
        let named = RawHTTPClient.exchange(
            port: server.port, "GET /healthz HTTP/1.1\r\nHost: id.example.com\r\nConnection: close\r\n\r\n")
        #expect(RawHTTPClient.status(of: named) == 200)
        let loopback = RawHTTPClient.exchange(
            port: server.port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: close\r\n\r\n")
        #expect(RawHTTPClient.status(of: loopback) == 200)
    }

    @Test func rangesMatchIPv4IPv6AndMappedForms() throws {
        let v4 = try #require(IPAddressRange("10.0.0.0/8"))
        #expect(v4.contains("10.1.2.3"))
        #expect(v4.contains("::ffff:10.1.2.3"))
        #expect(!v4.contains("11.0.0.1"))
        let v6 = try #require(IPAddressRange("2001:db8::/32"))
        #expect(v6.contains("2001:db8:ffff::1"))
        #expect(!v6.contains("2001:db9::1"))
        let one = try #require(IPAddressRange("192.0.2.7"))
        #expect(one.contains("192.0.2.7"))
        #expect(!one.contains("192.0.2.8"))
        for bad in ["", "10.0.0.0/33", "::/129", "10.0.0.0/-1", "example.com", "10.0.0.0/8/8", "10.0.0.0/ 8"] {
            #expect(IPAddressRange(bad) == nil, "\(bad)")
        }
    }

    private func headers(_ pairs: [(String, String)]) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for (name, value) in pairs { headers.add(name, value: value) }
        return headers
    }

    @Test func onlyATrustedPeerIsBelievedAndOnlyAsFarAsTrustedHopsGo() throws {
        let trusted = [try #require(IPAddressRange("10.0.0.0/8"))]
        let spoofed = headers([("X-Forwarded-For", "6.6.6.6, 203.0.113.9, 10.0.0.5")])
        // From the proxy: the rightmost address that is not a proxy; the client's own claim
        // (6.6.6.6, leftmost) is ignored.
        #expect(ForwardedClientAddress.resolve(peer: "10.0.0.1", headers: spoofed, trusted: trusted) == "203.0.113.9")
        // From anyone else the header means nothing.
        #expect(
            ForwardedClientAddress.resolve(peer: "198.51.100.4", headers: spoofed, trusted: trusted) == "198.51.100.4")
        #expect(ForwardedClientAddress.resolve(peer: "10.0.0.1", headers: spoofed, trusted: []) == "10.0.0.1")
        // No header: the proxy itself.
        #expect(
            ForwardedClientAddress.resolve(peer: "10.0.0.1", headers: HTTPHeaders(), trusted: trusted) == "10.0.0.1")
        // Garbage in the chain stops it at the peer.
        let garbage = headers([("X-Forwarded-For", "203.0.113.9, not-an-address")])
        #expect(ForwardedClientAddress.resolve(peer: "10.0.0.1", headers: garbage, trusted: trusted) == "10.0.0.1")
        // Several header lines are one list.
        let split = headers([("X-Forwarded-For", "203.0.113.9"), ("X-Forwarded-For", "10.0.0.7")])
        #expect(ForwardedClientAddress.resolve(peer: "10.0.0.1", headers: split, trusted: trusted) == "203.0.113.9")
    }

    @Test func onlyTheNamedHeaderIsRead() throws {
        let trusted = [try #require(IPAddressRange("10.0.0.0/8"))]
        // A client's own Forwarded, passed through by a proxy that appends X-Forwarded-For.
        let both = headers([
            ("Forwarded", #"for=192.0.2.60;proto=https, for="[2001:db8:cafe::17]:4711""#),
            ("X-Forwarded-For", "6.6.6.6, 198.51.100.1"),
            ("X-Real-IP", "192.0.2.99"),
        ])
        #expect(ForwardedClientAddress.resolve(peer: "10.0.0.1", headers: both, trusted: trusted) == "198.51.100.1")
        #expect(
            ForwardedClientAddress.resolve(peer: "10.0.0.1", headers: both, trusted: trusted, header: .forwarded)
                == "2001:db8:cafe::17")
        #expect(
            ForwardedClientAddress.resolve(peer: "10.0.0.1", headers: both, trusted: trusted, header: .xRealIP)
                == "192.0.2.99")
        // The named header absent: the proxy itself, never another header's claim.
        let onlyForwarded = headers([("Forwarded", "for=192.0.2.43")])
        #expect(
            ForwardedClientAddress.resolve(peer: "10.0.0.1", headers: onlyForwarded, trusted: trusted) == "10.0.0.1")
        let withPort = headers([("Forwarded", "for=192.0.2.43:8080")])
        #expect(
            ForwardedClientAddress.resolve(peer: "10.0.0.1", headers: withPort, trusted: trusted, header: .forwarded)
                == "192.0.2.43")
        let hidden = headers([("Forwarded", "for=_hidden")])
        #expect(
            ForwardedClientAddress.resolve(peer: "10.0.0.1", headers: hidden, trusted: trusted, header: .forwarded)
                == "10.0.0.1")
        #expect(ClientAddressHeader(name: "x-real-ip") == .xRealIP)
        #expect(ClientAddressHeader(name: "X-Client-IP") == nil)
    }

    @Test func handlersSeeTheForwardedClientAndThePeerApart() throws {
        var configuration = ServerConfiguration(port: 0, threads: 2, logRequests: false)
        configuration.trustedProxies = [try #require(IPAddressRange("127.0.0.1"))]
        let server = try startServer(configuration: configuration) { router in
            router.get("/who") { request in .text("\(request.remoteAddress) \(request.peerAddress)") }
        }
        defer { server.shutdown() }
        let reply = RawHTTPClient.exchange(
            port: server.port,
            "GET /who HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 203.0.113.9\r\nConnection: close\r\n\r\n")
        #expect(reply.hasSuffix("203.0.113.9 127.0.0.1"), "\(reply)")
    }
}
