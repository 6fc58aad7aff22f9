import Foundation
import PorticoTesting
import Testing

@testable import PorticoServer

/// The outbound client's https, against a real TLS server (``HTTPSDocumentServer``, with a
/// certificate made for the test): the handshake runs on the connection to the checked address, and the
/// certificate must chain to what is trusted and name the host.
@Suite struct OutboundTLSTests {
    /// A TLS server on 127.0.0.1 answering `GET /`, with a certificate for `names`.
    private func tlsServer(names: String = "DNS:localhost,IP:127.0.0.1") throws -> HTTPSDocumentServer {
        let server = try HTTPSDocumentServer(names: names)
        try server.serve("/", body: "ok")
        return server
    }

    private func client(trusting certificate: String?) -> OutboundHTTPClient {
        var client = OutboundHTTPClient(
            policy: OutboundAddressPolicy(allowsLoopback: true), connectTimeout: .seconds(2), timeout: .seconds(10))
        client.trustedCertificatesFile = certificate
        return client
    }

    /// Trusted and named (by host name or by address): the answer's status comes back.
    @Test func aTrustedCertificateForTheHostGivesTheStatus() async throws {
        let server = try tlsServer()
        for host in ["localhost", "127.0.0.1"] {
            let exchange = client(trusting: server.certificate).get(
                try #require(URL(string: "https://\(host):\(server.port)/")))
            #expect(exchange.outcome == .status(200), "\(host)")
        }
    }

    /// Not trusted (the system's store does not know the test's certificate), or trusted but
    /// for another name: refused in the handshake, nothing sent.
    @Test func anUntrustedOrMisnamedCertificateIsRefused() async throws {
        let server = try tlsServer()
        let url = try #require(URL(string: "https://localhost:\(server.port)/"))
        let untrusted = client(trusting: nil).get(url)
        guard case .failed(let reason) = untrusted.outcome else {
            Issue.record("an untrusted certificate gave \(untrusted.outcome)")
            return
        }
        #expect(reason.contains("certificate"), "\(reason)")
        // Trusted, but made for another name.
        let other = try tlsServer(names: "DNS:other.example")
        let misnamed = client(trusting: other.certificate).get(
            try #require(URL(string: "https://localhost:\(other.port)/")))
        guard case .failed(let mismatch) = misnamed.outcome else {
            Issue.record("a certificate for another name gave \(misnamed.outcome)")
            return
        }
        #expect(mismatch.contains("certificate"), "\(mismatch)")
    }
}
