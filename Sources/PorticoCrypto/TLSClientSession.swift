import COpenSSL

/// A TLS 1.2+ client session (OpenSSL libssl) over a TCP socket the caller has already
/// connected, for the provider's own outbound requests.
///
/// The caller connects the socket itself, to an address it has checked, and hands over only the
/// descriptor: name resolution stays the caller's, so a host name cannot be re-resolved here to
/// another address. The peer's certificate must chain to the system's trust store (or to
/// `trustedCertificatesFile`, for tests) and name `serverName` (a DNS name, or an IP address
/// literal, which is matched against the certificate's IP addresses and sent without SNI).
///
/// The socket stays the caller's: blocking, with the send and receive timeouts the caller sets,
/// which bound each read and write here too; ``close()`` ends the session, not the socket.
public final class TLSClientSession {
    /// Why a session could not be set up or used.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed, with OpenSSL's reason when it gave one.
        public let description: String
    }

    private let context: OpaquePointer
    private let session: OpaquePointer
    private var isClosed = false

    /// Prepares a session on `fileDescriptor` for `serverName`; nothing is sent until
    /// ``handshake()``.
    public init(fileDescriptor: Int32, serverName: String, trustedCertificatesFile: String? = nil) throws {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw Self.failure("creating a TLS context") }
        self.context = context
        guard let session = SSL_new(context) else {
            SSL_CTX_free(context)
            throw Self.failure("creating a TLS session")
        }
        self.session = session
        // From here on, deinit frees both.
        guard portico_ssl_ctx_set_minimum_tls12(context) == 1 else { throw Self.failure("requiring TLS 1.2") }
        let trusted =
            if let trustedCertificatesFile {
                SSL_CTX_load_verify_locations(context, trustedCertificatesFile, nil)
            } else {
                SSL_CTX_set_default_verify_paths(context)
            }
        guard trusted == 1 else { throw Self.failure("loading the trusted certificates") }
        SSL_set_verify(session, SSL_VERIFY_PEER, nil)
        let isAddress = serverName.contains(":") || serverName.allSatisfy { $0 == "." || $0.isNumber }
        if isAddress {
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(session), serverName) == 1 else {
                throw Self.failure("setting the expected address \(serverName)")
            }
        } else {
            guard portico_ssl_set_server_name(session, serverName) == 1, SSL_set1_host(session, serverName) == 1
            else { throw Self.failure("setting the server name \(serverName)") }
        }
        guard SSL_set_fd(session, fileDescriptor) == 1 else { throw Self.failure("attaching the socket") }
    }

    deinit {
        SSL_free(session)
        SSL_CTX_free(context)
    }

    /// Runs the handshake and checks the peer's certificate; throws if either fails.
    public func handshake() throws {
        ERR_clear_error()
        guard SSL_connect(session) == 1 else {
            let verification = SSL_get_verify_result(session)
            if verification != X509_V_OK {
                let reason = X509_verify_cert_error_string(verification).map { String(cString: $0) } ?? "unknown"
                throw Failure(description: "the TLS certificate was refused: \(reason)")
            }
            throw Self.failure("the TLS handshake")
        }
    }

    /// Sends all of `bytes`; throws if the connection fails or times out first.
    public func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            ERR_clear_error()
            let written = bytes[offset...].withUnsafeBytes { buffer in
                SSL_write(session, buffer.baseAddress, Int32(clamping: buffer.count))
            }
            guard written > 0 else { throw Self.failure("sending over TLS") }
            offset += Int(written)
        }
    }

    /// Reads at most `maximum` bytes as they arrive; an empty answer means the peer closed the
    /// connection. Throws if it fails or times out first.
    public func read(maximum: Int) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: max(1, maximum))
        ERR_clear_error()
        let count = buffer.withUnsafeMutableBytes { SSL_read(session, $0.baseAddress, Int32(clamping: $0.count)) }
        if count > 0 { return Array(buffer.prefix(Int(count))) }
        if SSL_get_error(session, count) == SSL_ERROR_ZERO_RETURN { return [] }
        throw Self.failure("receiving over TLS")
    }

    /// Says goodbye to the peer (without waiting for its answer); the socket stays open.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        ERR_clear_error()
        _ = SSL_shutdown(session)
    }

    private static func failure(_ what: String) -> Failure {
        let code = ERR_get_error()
        guard code != 0 else { return Failure(description: "\(what) failed") }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        let reason = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return Failure(description: "\(what) failed: \(reason)")
    }
}
