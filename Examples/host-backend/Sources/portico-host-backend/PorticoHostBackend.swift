import Foundation
import PorticoHostBackend
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `portico-host-backend`: the backend of the example host app (see Examples/host-backend/README.md).
@main
struct PorticoHostBackendCommand {
    static let usage = """
        usage: portico-host-backend --client-id ID (--client-secret-stdin | --client-secret-file PATH)
                                    [--issuer URL] [--port N] [--data-dir PATH] [--ssf]

        The backend of the example host app: its own users, the account link with Portico, the
        auth model for mini-programs, the mini-program token exchange, back-channel logout.

        options:
          --issuer URL               the platform (default: $PORTICO_ISSUER, else http://127.0.0.1:8080)
          --client-id ID             the host's confidential client id there
          --client-secret-stdin      read the client secret from standard input
          --client-secret-file PATH  read it from a file
          --port N                   where to listen on 127.0.0.1 (default 8090)
          --data-dir PATH            where the user table lives (default ./host-backend-data)
          --ssf                      subscribe to the platform's Shared Signals at start: its
                                     session-revoked, account-disabled and account-purged
                                     pushed to /ssf/events end that person's host session and
                                     mini-program state (register the host with --ssf
                                     --grant client_credentials)
          -h, --help                 show this help

        Register the host with this command (portico is .build/release/portico after make run;
        the redirect URI is portico-host-demo's, port included; the backend exchanges tokens;
        its logout endpoint is on loopback, which the server accepts only when it runs with
        --allow-loopback-callbacks, as make run does):

          portico client add --name "Host App" --redirect-uri http://127.0.0.1:8091/callback \\
            --scope openid --scope profile --scope account_link \\
            --grant authorization_code --grant refresh_token \\
            --grant urn:ietf:params:oauth:grant-type:token-exchange \\
            --backchannel-logout-uri http://127.0.0.1:8090/backchannel-logout \\
            --allow-loopback-callbacks --json
        """

    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        var issuer =
            ProcessInfo.processInfo.environment["PORTICO_ISSUER"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "http://127.0.0.1:8080"
        var clientID: String?
        var secret: String?
        var port: UInt16 = 8090
        var dataDirectory = "host-backend-data"
        var subscribes = false
        var remaining = arguments[...]
        func value(_ flag: String) -> String {
            guard let value = remaining.popFirst(), !value.hasPrefix("--") else { fail("\(flag) needs a value") }
            return value
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help":
                print(usage)
                return
            case "--issuer": issuer = value(argument)
            case "--client-id": clientID = value(argument)
            case "--port":
                let text = value(argument)
                guard let number = UInt16(text) else { fail("--port \(text) is not a port number") }
                port = number
            case "--data-dir": dataDirectory = value(argument)
            case "--ssf": subscribes = true
            case "--client-secret-stdin":
                secret = readLine(strippingNewline: true)
            case "--client-secret-file":
                let path = value(argument)
                guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { fail("cannot read \(path)") }
                secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
            default:
                fail("unknown option \(argument) (see --help)")
            }
        }
        guard let url = URL(string: issuer), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            fail("the issuer \(issuer) is not an http(s) URL")
        }
        guard let clientID, !clientID.isEmpty else { fail("--client-id is required") }
        guard let secret, !secret.isEmpty else {
            fail("give the client secret with --client-secret-stdin or --client-secret-file")
        }
        let backend: HostBackend
        do {
            backend = try HostBackend(
                platform: PlatformClient(issuer: url, clientID: clientID, clientSecret: secret),
                dataDirectory: URL(fileURLWithPath: dataDirectory), port: port, logRequests: true)
            try backend.start()
        } catch {
            fail("cannot start: \(error)")
        }
        if subscribes {
            let done = DispatchSemaphore(value: 0)
            let failure = Mutex<String?>(nil)
            Task {
                do { try await backend.subscribeToSecurityEvents() } catch { failure.withLock { $0 = "\(error)" } }
                done.signal()
            }
            done.wait()
            if let failure = failure.withLock({ $0 }) { fail("cannot subscribe to Shared Signals: \(failure)") }
        }
        FileHandle.standardError.write(
            Data("portico-host-backend listening on http://127.0.0.1:\(backend.port)\n".utf8))
        backend.runUntilTerminated()
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("portico-host-backend: \(message)\n".utf8))
        exit(2)
    }
}
