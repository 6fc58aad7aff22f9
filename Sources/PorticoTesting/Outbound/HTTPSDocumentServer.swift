import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real https server on 127.0.0.1 for the documents the provider fetches (client metadata
/// documents, `jwks_uri`s): Python's `http.server` behind its `ssl` module (OpenSSL), with a
/// certificate made for the test by `openssl req`, which the provider is told to trust
/// (``ProviderConfiguration/outboundTrustedCertificatesFile``).
///
/// Each path answers what the test put there with ``serve(_:body:headers:)``, or stalls
/// (``stall(_:)``: the request is read and never answered), or 404; every request is counted
/// (``requests(to:)``), so a test sees whether the provider fetched again.
public final class HTTPSDocumentServer: @unchecked Sendable {
    /// Where the certificate, the documents and the request log live.
    public let directory: URL
    /// The port it listens on.
    public let port: UInt16
    private let process: Process

    /// Starts the server with a fresh certificate for `names` (a `subjectAltName` value; by
    /// default 127.0.0.1 and `localhost`).
    public init(names: String = "DNS:localhost,IP:127.0.0.1") throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("portico-docs-\(UUID().uuidString)")
        let documents = directory.appendingPathComponent("documents")
        try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
        try Self.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                "key.pem", "-out", "cert.pem", "-days", "1", "-subj", "/CN=localhost", "-addext",
                "subjectAltName=\(names)",
            ], in: directory)
        try Data(Self.script.utf8).write(to: directory.appendingPathComponent("server.py"))
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["server.py"]
        process.currentDirectoryURL = directory
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The script prints the port it bound, once listening.
        var line = Data()
        while !line.contains(0x0A) {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty { break }
            line += byte
        }
        guard let port = UInt16(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            kill(process.processIdentifier, SIGKILL)
            throw HarnessFailure("the https document server did not start")
        }
        self.port = port
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The PEM certificate the provider must trust.
    public var certificate: String { directory.appendingPathComponent("cert.pem").path }

    /// `https://127.0.0.1:PORT` + `path`.
    public func url(_ path: String) -> String { "https://127.0.0.1:\(port)\(path)" }

    /// Answers `path` with `body` (as `application/json`) and the extra `headers`.
    public func serve(_ path: String, body: String, headers: [String: String] = [:]) throws {
        let base = documents(path)
        try Data(body.utf8).write(to: base.appendingPathExtension("body"))
        let lines = headers.map { "\($0.key): \($0.value)\n" }.joined()
        try Data(lines.utf8).write(to: base.appendingPathExtension("headers"))
        try? FileManager.default.removeItem(at: base.appendingPathExtension("stall"))
    }

    /// Makes `path` answer with `Transfer-Encoding: chunked` (its body in two chunks).
    public func chunk(_ path: String) throws {
        try Data().write(to: documents(path).appendingPathExtension("chunked"))
    }

    /// Makes `path` read the request and never answer.
    public func stall(_ path: String) throws {
        try Data().write(to: documents(path).appendingPathExtension("stall"))
    }

    /// How many requests for `path` arrived.
    public func requests(to path: String) -> Int {
        guard let log = try? String(contentsOf: directory.appendingPathComponent("requests.log"), encoding: .utf8)
        else { return 0 }
        return log.split(separator: "\n").filter { $0 == path }.count
    }

    private func documents(_ path: String) -> URL {
        let name = path.replacingOccurrences(of: "/", with: "_")
        return directory.appendingPathComponent("documents").appendingPathComponent(name)
    }

    private static func run(_ executable: String, _ arguments: [String], in directory: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw HarnessFailure("\(executable) \(arguments[0]) failed") }
    }

    private static let script = #"""
        import http.server, os, ssl, sys, threading, time

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                path = self.path.split("?")[0]
                with lock:
                    with open("requests.log", "a") as log:
                        log.write(path + "\n")
                base = os.path.join("documents", path.replace("/", "_"))
                if os.path.exists(base + ".stall"):
                    time.sleep(60)
                    return
                if not os.path.exists(base + ".body"):
                    self.send_error(404)
                    return
                body = open(base + ".body", "rb").read()
                if os.path.exists(base + ".chunked"):
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    half = len(body) // 2
                    for part in (body[:half], body[half:]):
                        self.wfile.write(b"%x\r\n" % len(part) + part + b"\r\n")
                    self.wfile.write(b"0\r\n\r\n")
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for line in open(base + ".headers").read().splitlines():
                    name, _, value = line.partition(": ")
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *arguments):
                pass

        lock = threading.Lock()
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain("cert.pem", "key.pem")
        server.socket = context.wrap_socket(server.socket, server_side=True)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#
}
