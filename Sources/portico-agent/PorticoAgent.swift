import Foundation
import PorticoKit

#if canImport(Glibc)
    import Glibc
#endif

/// `portico-agent`: the platform's signed-in companion on a computer. Apps on it sign in
/// through the agent (``CompanionUserAgent``) with no password, only consent.
@main
struct PorticoAgent {
    static func main() async {
        let environment = ProcessInfo.processInfo.environment
        let options: AgentOptions
        do {
            options = try AgentOptions(arguments: Array(CommandLine.arguments.dropFirst()), environment: environment)
        } catch {
            fail("portico-agent: \(error)", status: 2)
        }
        if case .help(let name) = options.command {
            print(name.flatMap { AgentUsage.commands[$0] } ?? AgentUsage.overview)
            return
        }
        let text = AgentText(environment: environment)
        do {
            try await run(options, text: text, environment: environment)
        } catch let error as AgentFailure {
            fail("portico-agent: \(error.description)", status: 1)
        } catch {
            fail("portico-agent: \(error)", status: 1)
        }
    }

    static func run(_ options: AgentOptions, text: AgentText, environment: [String: String]) async throws {
        let socketPath = CompanionProtocol.socketPath(issuer: options.issuer.absoluteString, environment: environment)
        switch options.command {
        case .pending(let json):
            let reply = try ask(CompanionRequest(.pending), at: socketPath)
            let pending = reply.pending ?? []
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                let items = pending.map { item in
                    CompanionPendingConsent(
                        id: item.id, clientID: item.clientID, clientName: item.clientName, kind: item.kind,
                        scopes: item.scopes)
                }
                print(String(decoding: try encoder.encode(items), as: UTF8.self))
            } else if pending.isEmpty {
                print(text.nothingPending)
            } else {
                for item in pending {
                    print(
                        "\(item.id)\t\(text.kindWord(item.kind))\t\(item.clientName)\t\(item.scopes.joined(separator: " "))"
                    )
                }
            }
            return
        case .approve(let id), .deny(let id):
            var request = CompanionRequest(options.command == .approve(id) ? .approve : .deny)
            request.id = id
            let reply = try ask(request, at: socketPath)
            guard reply.ok else { throw AgentFailure(reply.errorDescription ?? reply.error ?? "refused") }
            return
        default:
            break
        }
        let provider = try await Provider.discover(issuer: options.issuer)
        switch options.command {
        case .login(let device):
            let agent: any UserAgent =
                device
                ? DeviceCodeUserAgent { prompt in
                    var message = "To sign in, open \(prompt.verificationURL) and enter the code \(prompt.userCode)\n"
                    if let complete = prompt.verificationURLComplete { message += "(or open \(complete))\n" }
                    FileHandle.standardOutput.write(Data(message.utf8))
                }
                : SystemBrowserUserAgent(
                    opener: BrowserOpener { url in
                        printError("Opening your browser. If it does not open, visit:\n  \(url.absoluteString)")
                        try await BrowserOpener.system.open(url)
                    })
            let account = AgentAccount(
                provider: provider, clientID: options.clientID, environment: environment, userAgent: agent)
            try await account.login()
            print(text.signedIn(as: account.personName ?? "?"))
        case .status(let json):
            let account = AgentAccount(
                provider: provider, clientID: options.clientID, environment: environment,
                userAgent: SystemBrowserUserAgent())
            let serving =
                (try? CompanionClient(socketPath: socketPath).send(CompanionRequest(.ping), timeout: .seconds(2)))?.ok
                == true
            if json {
                var object: [String: Any] = [
                    "issuer": provider.identifier, "client_id": options.clientID, "signed_in": account.isSignedIn,
                    "serving": serving,
                ]
                if let name = account.personName { object["name"] = name }
                if let subject = account.subject { object["subject"] = subject }
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                print(String(decoding: data, as: UTF8.self))
            } else {
                print(account.isSignedIn ? text.signedIn(as: account.personName ?? "?") : text.nobodySignedIn)
                print(serving ? "serving: \(socketPath.path)" : "serving: no")
            }
        case .logout:
            let account = AgentAccount(
                provider: provider, clientID: options.clientID, environment: environment,
                userAgent: SystemBrowserUserAgent())
            try await account.logout()
            print(text.signedOut)
        case .serve(let consentTimeout):
            try await serve(
                provider: provider, options: options, text: text, environment: environment, socketPath: socketPath,
                consentTimeout: consentTimeout)
        default:
            break
        }
    }

    static func serve(
        provider: Provider, options: AgentOptions, text: AgentText, environment: [String: String], socketPath: URL,
        consentTimeout: Duration
    ) async throws {
        let account = AgentAccount(
            provider: provider, clientID: options.clientID, environment: environment,
            userAgent: SystemBrowserUserAgent())
        guard account.isSignedIn else { throw AgentFailure(text.nobodySignedIn) }
        let desk = ConsentDesk()
        let server: AgentServer
        do {
            server = try AgentServer(
                path: socketPath, issuer: provider.identifier,
                broker: CompanionBroker(provider: provider, language: text.acceptLanguage), account: account,
                desk: desk, consentTimeout: consentTimeout, log: { printError("portico-agent: \($0)") })
        } catch {
            throw AgentFailure(error.description)
        }
        // Before any thread of serve's own starts, so that they inherit the blocked signals.
        signal(SIGPIPE, SIG_IGN)
        let stop = StopSignal()
        if TerminalConsent.isInteractive {
            TerminalConsent(desk: desk, text: text, person: { account.personName ?? "?" }).start()
        }
        Thread.detachNewThread { server.run() }
        // Written at once, not through print's buffer: tests and systemd read it while serve runs.
        FileHandle.standardOutput.write(
            Data((text.serving(path: socketPath.path, name: account.personName ?? "?") + "\n").utf8))
        await stop.wait()
        server.stop()
    }

    static func ask(_ request: CompanionRequest, at socketPath: URL) throws -> CompanionReply {
        do {
            return try CompanionClient(socketPath: socketPath).send(request, timeout: .seconds(10))
        } catch .unreachable {
            throw AgentFailure("the agent is not running (start `portico-agent serve`)")
        } catch {
            throw AgentFailure("the agent did not answer: \(error)")
        }
    }

    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static func fail(_ text: String, status: Int32) -> Never {
        printError(text)
        exit(status)
    }
}

/// A failure the agent states in one line.
struct AgentFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
