import Foundation
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The companion end to end: the real provider, the real `portico-agent` as a child process
/// (signed in once with the device flow, approved by the robot), and apps signing in through
/// it with PorticoKit's ``CompanionUserAgent`` over the real socket. No app ever sees a page.
@Suite(.serialized)
struct CompanionEndToEndTests {
    /// A provider with a companion client and a person; the agent signed in as them and serving.
    static func withServingAgent(
        consentTimeout: Int = 120, configuration: ProviderConfiguration = .testing(),
        _ body: (KitHarness, AgentProcess, UserRecord, RunningAgent) async throws -> Void
    ) async throws {
        try await KitHarness.with(configuration: configuration) { harness in
            let person = try harness.addUser(name: "Agent Person")
            let companionID = try registerCompanion(harness)
            try await AgentProcess.with(issuer: harness.provider.issuer, clientID: companionID) { agent in
                try await agent.loginWithDevice(robot: SignInRobot(email: person.email, password: harness.password))
                let serving = try await agent.serve(consentTimeout: consentTimeout)
                try await body(harness, agent, person, serving)
            }
        }
    }

    /// `portico client add --companion`, the only way to make one.
    static func registerCompanion(_ harness: KitHarness) throws -> String {
        let result = try PorticoProcess.run([
            "client", "add", "--companion", "--name", "Portico agent", "--json", "--database",
            harness.provider.databaseURL,
        ])
        guard result.status == 0,
            let id = ProfileValue(parsing: Data(result.stdout.utf8))?.objectValue?["client_id"]?.stringValue
        else { throw HarnessFailure("client add --companion failed: \(result.stderr)") }
        return id
    }

    /// A third-party app whose only ways to sign in are the agent, then a browser that must
    /// never open (so a password could never be typed).
    static func app(_ name: String, _ harness: KitHarness, _ agent: AgentProcess) async throws -> AuthorizationManager {
        let client = try harness.provider.addPublicClient(
            name: name, redirectURIs: ["http://127.0.0.1/callback"], grants: ["authorization_code", "refresh_token"])
        let automatic = AutomaticUserAgent(
            companion: CompanionUserAgent(socketPath: agent.socketPath),
            browserOpener: BrowserOpener { _ in throw HarnessFailure("\(name) opened a browser") })
        return try await harness.manager(for: client, userAgent: automatic)
    }

    static let request = AuthorizeRequest(scopes: [.openID, .profile])

    /// This computer's name, as the agent reports it at sign-in (`agent_host`).
    static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        _ = gethostname(&buffer, buffer.count - 1)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    @Test func twoAppsSignInThroughTheAgentWithOneConsentEachAndContinueLater() async throws {
        try await Self.withServingAgent { harness, agent, person, _ in
            for name in ["Photo Printer", "Recipe Box"] {
                let manager = try await Self.app(name, harness, agent)
                let signingIn = Task { try await manager.authorize(Self.request) }
                let pending = try await agent.waitForPending()
                #expect(pending.map(\.clientName) == [name])
                #expect(pending.first?.kind == .consent)
                #expect(pending.first?.scopes.contains("profile") == true)
                #expect(pending.first?.clientID == manager.clientID)
                #expect(try agent.run(["approve", pending[0].id]).status == 0)

                let result = try await signingIn.value
                #expect(result.user?.userID == person.id)
                #expect(result.user?.name == "Agent Person")
                #expect(try manager.store.grant(for: manager.storeKey)?.refreshToken != nil)

                // The same app again: the person allowed it before, so one click, "continue".
                let again = Task {
                    try await manager.authorize(
                        AuthorizeRequest(scopes: [.openID, .profile], interactiveStrategy: .always))
                }
                let second = try await agent.waitForPending()
                #expect(second.first?.kind == .continue)
                #expect(try agent.run(["approve", second[0].id]).status == 0)
                #expect(try await again.value.user?.userID == person.id)
            }
        }
    }

    @Test func thePersonsDenyIsUserCancelled() async throws {
        try await Self.withServingAgent { harness, agent, _, _ in
            let manager = try await Self.app("Nosy App", harness, agent)
            let signingIn = Task { try await manager.authorize(Self.request) }
            let pending = try await agent.waitForPending()
            #expect(try agent.run(["deny", pending[0].id]).status == 0)
            let error = await #expect(throws: AuthorizationError.self) { try await signingIn.value }
            #expect(error?.code == .userCancelled)
            #expect(error?.oauthError == "access_denied")
            #expect(try manager.store.grant(for: manager.storeKey) == nil)
            // Deciding twice is refused: the consent is gone.
            #expect(try agent.run(["approve", pending[0].id]).status == 1)
        }
    }

    @Test func theAppsCancelDropsTheRequestInTheAgent() async throws {
        try await Self.withServingAgent { harness, agent, _, _ in
            let manager = try await Self.app("Impatient App", harness, agent)
            let signingIn = Task { try await manager.authorize(Self.request) }
            _ = try await agent.waitForPending()
            signingIn.cancel()
            let error = await #expect(throws: AuthorizationError.self) { try await signingIn.value }
            #expect(error?.code == .cancelled)
            #expect(try await agent.waitForPending(count: 0).isEmpty)
        }
    }

    @Test func anAgentKilledMidRequestIsAClearErrorNotAHang() async throws {
        try await Self.withServingAgent { harness, agent, _, serving in
            let manager = try await Self.app("Unlucky App", harness, agent)
            let signingIn = Task { try await manager.authorize(Self.request) }
            _ = try await agent.waitForPending()
            serving.kill()
            let error = await #expect(throws: AuthorizationError.self) { try await signingIn.value }
            #expect(error?.code == .network)
            #expect(error?.message.contains("Portico agent") == true)
        }
    }

    @Test func aConsentNobodyAnswersEndsAsTimedOut() async throws {
        try await Self.withServingAgent(consentTimeout: 1) { harness, agent, _, _ in
            let manager = try await Self.app("Waiting App", harness, agent)
            let error = await #expect(throws: AuthorizationError.self) { try await manager.authorize(Self.request) }
            #expect(error?.code == .timedOut)
        }
    }

    @Test func anAgentWhoseSessionWasEndedSaysSoAndAppsFallBackToTheBrowser() async throws {
        try await Self.withServingAgent { harness, agent, person, _ in
            // The person ends the agent's session in Your Account, where it is listed by host.
            let browser = harness.provider.browser()
            _ = try await browser.signIn(at: "/login", email: person.email, password: harness.password)
            let account = try await browser.get("/account")
            #expect(account.text.contains("Portico agent on \(Self.hostName)"))
            let marker = #"name="end_companion" value=""#
            let start = try #require(account.text.range(of: marker))
            let session = String(account.text[start.upperBound...].prefix { $0 != "\"" })
            let signedOut = try await browser.post(
                "/account",
                [("csrf_token", try #require(account.hiddenField("csrf_token"))), ("end_companion", session)])
            #expect(signedOut.status == 303)

            let robot = SignInRobot(email: person.email, password: harness.password)
            let client = try harness.provider.addPublicClient(
                name: "Fallback App", redirectURIs: ["http://127.0.0.1/callback"],
                grants: ["authorization_code", "refresh_token"])
            let manager = try await harness.manager(
                for: client,
                userAgent: AutomaticUserAgent(
                    companion: CompanionUserAgent(socketPath: agent.socketPath), browserOpener: robot.opener))
            let result = try await manager.authorize(Self.request)
            #expect(result.user?.userID == person.id)
            #expect(robot.delivered.withLock { $0 } != nil)

            let status = try agent.run(["status", "--json"])
            let json = ProfileValue(parsing: Data(status.stdout.utf8))?.objectValue
            #expect(json?["signed_in"]?.boolValue == false)
            #expect(json?["serving"]?.boolValue == true)
        }
    }

    @Test func noAgentRunningFallsBackToTheBrowserWithNoError() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let robot = SignInRobot(email: person.email, password: harness.password)
            let client = try harness.addPublicClient()
            let nowhere = FileManager.default.temporaryDirectory.appendingPathComponent("no-agent-\(UUID()).sock")
            let manager = try await harness.manager(
                for: client,
                userAgent: AutomaticUserAgent(
                    companion: CompanionUserAgent(socketPath: nowhere), browserOpener: robot.opener))
            let result = try await manager.authorize(Self.request)
            #expect(result.user?.userID == person.id)
        }
    }

    @Test func theSocketIsPrivateBoundedAndAnswersManyAtOnce() async throws {
        try await Self.withServingAgent { harness, agent, person, serving in
            let path = agent.socketPath.path
            var status = stat()
            #expect(lstat(path, &status) == 0)
            #expect(status.st_mode & 0o777 == 0o600)
            #expect(lstat(agent.socketPath.deletingLastPathComponent().path, &status) == 0)
            #expect(status.st_mode & 0o777 == 0o700)

            let client = CompanionClient(socketPath: agent.socketPath)
            func raw(_ bytes: [UInt8]) throws -> CompanionReply? {
                let channel = try client.connect()
                defer { channel.close() }
                try channel.send(bytes)
                return CompanionReply(decoding: try channel.receive(until: .now.advanced(by: .seconds(10))))
            }
            #expect(try raw(Array(#"{"v":2,"op":"ping"}"#.utf8))?.error == "unsupported_version")
            #expect(try raw(Array("hello".utf8))?.error == "invalid_request")
            // A line longer than the limit is refused without reading it all.
            let huge = try client.connect()
            defer { huge.close() }
            let oversized = [UInt8](repeating: UInt8(ascii: "x"), count: CompanionProtocol.maximumMessageBytes + 2)
            _ = oversized.withUnsafeBytes { write(huge.descriptor, $0.baseAddress, $0.count) }
            let answer = try huge.receive(until: .now.advanced(by: .seconds(10)))
            #expect(CompanionReply(decoding: answer)?.error == "too_large")

            // While one app waits for its consent, others are answered.
            let manager = try await Self.app("Slow App", harness, agent)
            let signingIn = Task { try await manager.authorize(Self.request) }
            _ = try await agent.waitForPending()
            let pings = try await withThrowingTaskGroup(of: CompanionReply.self) { group in
                for _ in 0..<8 {
                    group.addTask { try client.send(CompanionRequest(.ping), timeout: .seconds(10)) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(pings.count == 8)
            #expect(pings.allSatisfy { $0.ok && $0.signedIn == true && $0.name == "Agent Person" })
            #expect(pings.allSatisfy { CompanionUserAgent.sameIssuer($0.issuer, agent.issuer) })
            let pending = try await agent.waitForPending()
            #expect(try agent.run(["approve", pending[0].id]).status == 0)
            #expect(try await signingIn.value.user?.userID == person.id)

            // A second agent for the same issuer refuses to start; the first keeps its socket.
            let second = try agent.run(["serve"])
            #expect(second.status == 1)
            #expect(second.stderr.contains("already serves"))
            // Stopped by SIGTERM, the agent removes its socket.
            kill(serving.process.processIdentifier, SIGTERM)
            _ = serving.finish(within: 30)
            #expect(serving.process.terminationStatus == 0)
            #expect(lstat(path, &status) != 0)
        }
    }

    /// Another user cannot reach the socket through its directory, and when the permissions
    /// are widened by mistake the agent still refuses them (SO_PEERCRED). Only a test run as
    /// root can be another user; elsewhere the check's unit test covers it.
    @Test(.enabled(if: geteuid() == 0, "needs root to act as another user"))
    func anotherUserIsRefusedEvenWhenTheSocketIsWideOpen() async throws {
        try await Self.withServingAgent { _, agent, _, serving in
            let script = """
                import socket, sys
                s = socket.socket(socket.AF_UNIX)
                try:
                    s.connect(sys.argv[1])
                except OSError as error:
                    print("unreachable", error.errno); sys.exit(0)
                # The agent answers a stranger before reading anything (a request sent now could
                # race its close), so only read.
                print(s.makefile().readline().strip())
                """
            func asNobody() throws -> String {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
                process.arguments = [
                    "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script,
                    agent.socketPath.path,
                ]
                let out = Pipe()
                process.standardOutput = out
                try process.run()
                process.waitUntilExit()
                return String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            }
            #expect(try asNobody().hasPrefix("unreachable"))
            chmod(agent.home.path, 0o755)
            chmod(agent.home.appendingPathComponent("run").path, 0o755)
            chmod(agent.socketPath.deletingLastPathComponent().path, 0o755)
            chmod(agent.socketPath.path, 0o666)
            let answer = try asNobody()
            #expect(answer.contains(#""error":"forbidden""#))
            #expect(!answer.contains("pending\":"))
            let logged = try await serving.waitForOutput(
                containing: "refused a connection", within: 10, onStandardError: true)
            #expect(logged.contains("uid 65534"))
        }
    }

    @Test func porticoDemoSignsInThroughTheAgentUnlessToldNotTo() async throws {
        try await Self.withServingAgent { harness, agent, _, _ in
            let client = try harness.provider.addPublicClient(
                name: "Portico Demo", redirectURIs: ["http://127.0.0.1/callback"],
                grants: ["authorization_code", "refresh_token"])
            let demo = AgentProcess.executable.deletingLastPathComponent().appendingPathComponent("portico-demo")
            let login = try agent.start(
                ["--client-id", client.id, "login"], executable: demo)
            let pending = try await agent.waitForPending()
            #expect(pending.first?.clientName == "Portico Demo")
            #expect(try agent.run(["approve", pending[0].id]).status == 0)
            let result = login.finish(within: 60)
            #expect(result.status == 0)
            #expect(result.stdout.contains("Signed in as Agent Person."))
            #expect(!result.stderr.contains("Opening your browser"))

            // --no-companion (with nobody signed in to the demo yet) goes to the browser at once;
            // the agent is never asked.
            let skipping = try agent.start(
                ["--client-id", client.id, "login", "--no-companion"],
                environment: ["XDG_CONFIG_HOME": agent.home.appendingPathComponent("other-config").path],
                executable: demo)
            _ = try await skipping.waitForOutput(containing: "Opening your browser", within: 30, onStandardError: true)
            #expect(try agent.pending().isEmpty)
            skipping.kill()
        }
    }

    /// On a terminal, `serve` asks there: the app's name, its permissions in plain words and
    /// the person's name, then "Continue as" for the same app; `y` and `n` answer. In the
    /// person's language.
    @Test(arguments: [
        ("C.UTF-8", "Allow? [y/n]", "Continue as Agent Person?", "See your name, e-mail address and account ID"),
        ("zh_CN.UTF-8", "允许吗？[y/n]", "以 Agent Person 的身份继续？", "查看您的姓名、电子邮件地址和账户 ID"),
    ])
    func onATerminalTheAgentAsksThere(language: String, allow: String, continueAs: String, profile: String)
        async throws
    {
        try await KitHarness.with { harness in
            let person = try harness.addUser(name: "Agent Person")
            let companionID = try Self.registerCompanion(harness)
            try await AgentProcess.with(issuer: harness.provider.issuer, clientID: companionID) { agent in
                try await agent.loginWithDevice(robot: SignInRobot(email: person.email, password: harness.password))
                let keyboard = Pipe()
                defer { try? keyboard.fileHandleForWriting.close() }
                let serving = try await agent.serveOnATerminal(keyboard: keyboard, language: language)
                let manager = try await Self.app("Photo Printer", harness, agent)

                let signingIn = Task { try await manager.authorize(Self.request) }
                let question = try await serving.waitForOutput(containing: allow, within: 30)
                #expect(question.contains(allow))
                #expect(serving.stdout.contains("Photo Printer"))
                #expect(serving.stdout.contains("Agent Person"))
                // Permissions in plain words (the provider's descriptions), not scope names.
                #expect(serving.stdout.contains("  - \(profile)"))
                try keyboard.fileHandleForWriting.write(contentsOf: Data("y\n".utf8))
                #expect(try await signingIn.value.user?.userID == person.id)

                let again = Task {
                    try await manager.authorize(
                        AuthorizeRequest(scopes: [.openID, .profile], interactiveStrategy: .always))
                }
                _ = try await serving.waitForOutput(containing: continueAs, within: 30)
                try keyboard.fileHandleForWriting.write(contentsOf: Data("n\n".utf8))
                let error = await #expect(throws: AuthorizationError.self) { try await again.value }
                #expect(error?.code == .userCancelled)
            }
        }
    }

    /// An app that hangs up drops its consent; so does a `cancel` naming its request from
    /// another connection (what ``CompanionUserAgent`` sends first), each on its own.
    @Test func aHangUpOrACancelMessageDropsTheConsent() async throws {
        try await Self.withServingAgent { harness, agent, _, _ in
            let app = try harness.provider.addPublicClient(
                name: "Raw App", redirectURIs: ["http://127.0.0.1/callback"], grants: ["authorization_code"])
            let client = CompanionClient(socketPath: agent.socketPath)
            func ask(_ requestID: String) throws -> CompanionChannel {
                var request = CompanionProtocolTests.authorizeRequest()
                request.requestID = requestID
                request.clientID = app.id
                let channel = try client.connect()
                try channel.send(request.encoded())
                return channel
            }
            let hangingUp = try ask("hang-up")
            _ = try await agent.waitForPending()
            hangingUp.close()
            #expect(try await agent.waitForPending(count: 0).isEmpty)

            let cancelled = try ask("cancel-me")
            defer { cancelled.close() }
            _ = try await agent.waitForPending()
            var cancel = CompanionRequest(.cancel)
            cancel.requestID = "cancel-me"
            #expect(try client.send(cancel, timeout: .seconds(10)).ok)
            #expect(try await agent.waitForPending(count: 0).isEmpty)
            // The dropped request gets no answer: its connection just ends.
            #expect(throws: CompanionChannelError.closed) {
                try cancelled.receive(until: .now.advanced(by: .seconds(10)))
            }
        }
    }

    /// `status` says who is signed in; `logout` revokes the session at the provider and
    /// forgets it, so apps no longer find the agent available.
    @Test func statusShowsWhoAndLogoutRevokesTheSession() async throws {
        try await Self.withServingAgent { harness, agent, person, _ in
            let status = try agent.run(["status", "--json"])
            #expect(status.status == 0)
            let json = ProfileValue(parsing: Data(status.stdout.utf8))?.objectValue
            #expect(json?["signed_in"]?.boolValue == true)
            #expect(json?["name"]?.stringValue == "Agent Person")
            #expect(json?["subject"]?.stringValue == person.id)
            #expect(json?["serving"]?.boolValue == true)
            #expect(try agent.run(["status"]).stdout.contains("Signed in as Agent Person."))

            let key = TokenStoreKey(provider: agent.issuer, clientID: agent.clientID)
            let refreshToken = try #require(try agent.tokenStore.grant(for: key)?.refreshToken)
            let logout = try agent.run(["logout"])
            #expect(logout.status == 0)
            #expect(logout.stdout == "Signed out.\n")
            #expect(try agent.tokenStore.grant(for: key) == nil)
            let refreshed = try await harness.post(
                "oauth/token",
                [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", agent.clientID)])
            #expect(refreshed.status == 400)
            #expect(refreshed.json["error"]?.stringValue == "invalid_grant")
            let ping = try CompanionClient(socketPath: agent.socketPath).send(
                CompanionRequest(.ping), timeout: .seconds(10))
            #expect(ping.signedIn == false)
        }
    }
}
