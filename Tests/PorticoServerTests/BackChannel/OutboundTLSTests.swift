import Foundation
import PorticoTesting
import Testing

@testable import PorticoServer

#if canImport(Glibc)
    import Glibc
#endif

/// The outbound client's https, against a real TLS server (`openssl s_server` with a certificate
/// made for the test): the handshake runs on the connection to the checked address, and the
/// certificate must chain to what is trusted and name the host.
@Suite struct OutboundTLSTests {
    /// A TLS server on 127.0.0.1 answering `GET /` with a status page, and its certificate
    /// (for `localhost` and 127.0.0.1).
    private final class TLSServer {
        let directory: URL
        let port: UInt16
        private let process: Process

        init(names: String = "DNS:localhost,IP:127.0.0.1") throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "portico-tls-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Self.openssl(
                [
                    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", "key.pem", "-out", "cert.pem", "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=\(names)",
                ], in: directory)
            port = try Self.freePort()
            process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = [
                "s_server", "-accept", "127.0.0.1:\(port)", "-cert", "cert.pem", "-key", "key.pem", "-www", "-quiet",
            ]
            process.currentDirectoryURL = directory
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        deinit {
            // s_server outlives SIGTERM while it holds a connection.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: directory)
        }

        var certificate: String { directory.appendingPathComponent("cert.pem").path }

        /// Waits until it accepts connections.
        func waitUntilListening() async throws {
            try await waitUntil("openssl s_server listening") { [port] in
                let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                defer { close(probe) }
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_addr.s_addr = inet_addr("127.0.0.1")
                address.sin_port = port.bigEndian
                return withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        connect(probe, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                    }
                }
            }
        }

        private static func openssl(_ arguments: [String], in directory: URL) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = arguments
            process.currentDirectoryURL = directory
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw HarnessFailure("openssl \(arguments[0]) failed") }
        }

        private static func freePort() throws -> UInt16 {
            let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(probe) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(probe, $0, length) == 0 && getsockname(probe, $0, &length) == 0
                }
            }
            guard bound else { throw HarnessFailure("no free port") }
            return UInt16(bigEndian: address.sin_port)
        }
    }

    private func client(trusting certificate: String?) -> OutboundHTTPClient {
        var client = OutboundHTTPClient(
            policy: OutboundAddressPolicy(allowsLoopback: true), connectTimeout: .seconds(2), timeout: .seconds(10))
        client.trustedCertificatesFile = certificate
        return client
    }

    /// Trusted and named (by host name or by address): the answer's status comes back.
    @Test func aTrustedCertificateForTheHostGivesTheStatus() async throws {
        let server = try TLSServer()
        try await server.waitUntilListening()
        for host in ["localhost", "127.0.0.1"] {
            let exchange = client(trusting: server.certificate).get(
                try #require(URL(string: "https://\(host):\(server.port)/")))
            #expect(exchange.outcome == .status(200), "\(host)")
        }
    }

    /// Not trusted (the system's store does not know the test's certificate), or trusted but
    /// for another name: refused in the handshake, nothing sent.
    @Test func anUntrustedOrMisnamedCertificateIsRefused() async throws {
        let server = try TLSServer()
        try await server.waitUntilListening()
        let url = try #require(URL(string: "https://localhost:\(server.port)/"))
        let untrusted = client(trusting: nil).get(url)
        guard case .failed(let reason) = untrusted.outcome else {
            Issue.record("an untrusted certificate gave \(untrusted.outcome)")
            return
        }
        #expect(reason.contains("certificate"), "\(reason)")
        // Trusted, but made for another name.
        let other = try TLSServer(names: "DNS:other.example")
        try await other.waitUntilListening()
        let misnamed = client(trusting: other.certificate).get(
            try #require(URL(string: "https://localhost:\(other.port)/")))
        guard case .failed(let mismatch) = misnamed.outcome else {
            Issue.record("a certificate for another name gave \(misnamed.outcome)")
            return
        }
        #expect(mismatch.contains("certificate"), "\(mismatch)")
    }
}
