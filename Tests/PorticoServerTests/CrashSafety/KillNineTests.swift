import Foundation
import PorticoTesting
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `kill -9` of the real `portico serve` on SQLite and on PostgreSQL in the middle of refresh
/// rotations, sign-ins, consent and device logins loses nothing that reached a client and
/// leaves nothing half-written: after a restart every chain's last refresh token refreshes (one
/// whose rotation answer was lost is the replaced token, inside the retry grace), every code
/// that reached the app redeems, every approved device login polls to tokens, one not approved
/// yet is pending or approved, never broken, and the database is consistent
/// (``CrashDatabase/problems()``: the token invariants, and `PRAGMA integrity_check` or
/// `amcheck`). On PostgreSQL the database server itself is crashed too, under a node that
/// keeps running.
@Suite(.serialized) struct KillNineTests {
    static let redirectURI = "http://127.0.0.1:9/cb"

    @Test func killedServerLosesNothingThatReachedAClientOnSQLite() async throws {
        try await Self.killedServerLosesNothingThatReachedAClient(on: .sqlite)
    }

    @Test(CrashBackend.postgresRequired) func killedServerLosesNothingThatReachedAClientOnPostgreSQL() async throws {
        try await Self.killedServerLosesNothingThatReachedAClient(on: .postgres)
    }

    @Test func killedMigrateAndKeysRotateLeaveADatabaseTheNextCommandCompletesOnSQLite() throws {
        try Self.killedMigrateAndKeysRotateLeaveADatabaseTheNextCommandCompletes(on: .sqlite)
    }

    @Test(CrashBackend.postgresRequired)
    func killedMigrateAndKeysRotateLeaveADatabaseTheNextCommandCompletesOnPostgreSQL() throws {
        try Self.killedMigrateAndKeysRotateLeaveADatabaseTheNextCommandCompletes(on: .postgres)
    }

    static func killedServerLosesNothingThatReachedAClient(on backend: CrashBackend) async throws {
        let world = try CrashWorld(backend)
        defer { world.database.drop() }
        var server = try world.serve()
        let ledger = try await world.beginChains(base: server.base)

        for round in 0..<3 {
            let base = server.base
            let load = try await world.startLoad(base: base, ledger: ledger, round: round)
            try await Task.sleep(for: .milliseconds(UInt64.random(in: 0...60)))
            server.killAndWait()
            await load.value
            let failures = ledger.withLock { $0.failures }
            #expect(failures.isEmpty, "round \(round): \(failures)")

            server = try world.serve()
            try await world.verify(base: server.base, ledger: ledger, round: round)
        }
        #expect(server.terminate() == 0)
        let problems = try world.database.problems()
        #expect(problems.isEmpty, "\(problems)")
    }

    /// The database server crashes under a running node: one backend killed with `kill -9`
    /// (PostgreSQL then ends all the others and recovers by itself), then the whole server
    /// stopped at once (`pg_ctl stop -m immediate`, crash recovery at the next start). While it
    /// is away the node answers 503, never anything else; when it is back the same node serves
    /// again without a restart, and everything that reached a client is still good.
    @Test(CrashBackend.postgresProgramsRequired) func crashedPostgreSQLLosesNothingAndTheNodeServesOn() async throws {
        let postgres = try ThrowawayPostgres()
        let world = try CrashWorld(.postgres, postgresServer: postgres.url)
        let server = try world.serve()
        let ledger = try await world.beginChains(base: server.base)
        for round in 0..<2 {
            let load = try await world.startLoad(base: server.base, ledger: ledger, round: round)
            try await Task.sleep(for: .milliseconds(UInt64.random(in: 0...60)))
            if round == 0 {
                try postgres.killBackend(of: world.database.name)
            } else {
                try postgres.crash()
                try await Task.sleep(for: .milliseconds(500))
                try postgres.start()
            }
            #expect(try await world.servesAgain(base: server.base), "round \(round): the node did not serve again")
            ledger.withLock { $0.stopped = true }
            await load.value
            let failures = ledger.withLock { $0.failures }
            #expect(failures.allSatisfy { $0.contains(": 503 ") }, "round \(round): \(failures)")
            ledger.withLock {
                $0.failures = []
                $0.stopped = false
            }
            #expect(server.isRunning)
            try await world.verify(base: server.base, ledger: ledger, round: round)
            let problems = try world.database.problems()
            #expect(problems.isEmpty, "round \(round): \(problems)")
        }
        #expect(server.terminate() == 0)
    }

    /// `kill -9` at many moments of `portico migrate` on a new database and of `keys rotate`:
    /// the next run of the same command completes, the server then starts, and the database is
    /// sound.
    static func killedMigrateAndKeysRotateLeaveADatabaseTheNextCommandCompletes(on backend: CrashBackend) throws {
        // A debug `migrate` of a new database takes about 0.7 s here and `keys rotate` 0.5 s, most
        // of it in the database and key generation: the kills land all along them.
        for step in 0..<8 {
            let delay = step * 90
            let world = try CrashWorld(backend, prepared: false)
            defer { world.database.drop() }
            let environment = ["PORTICO_KEY_FILE": world.keyFile]
            CrashWorld.runKilled(["migrate", "--database", world.databaseURL], environment, afterMilliseconds: delay)
            let migrated = try PorticoProcess.run(
                ["migrate", "--database", world.databaseURL], environment: environment)
            #expect(migrated.status == 0, "after a kill at \(delay) ms: \(migrated.stderr)")
            for _ in 0..<2 {
                CrashWorld.runKilled(
                    ["keys", "rotate", "--alg", "RS256", "--database", world.databaseURL], environment,
                    afterMilliseconds: step * 65)
            }
            let rotated = try PorticoProcess.run(
                ["keys", "rotate", "--alg", "RS256", "--database", world.databaseURL], environment: environment)
            #expect(rotated.status == 0, "after a kill at \(delay) ms: \(rotated.stderr)")
            let listed = try PorticoProcess.run(
                ["keys", "list", "--database", world.databaseURL], environment: environment)
            #expect(listed.status == 0, "\(listed.stderr)")
            #expect(listed.stdout.contains("RS256"))
            let server = try ServeProcess(databaseURL: world.databaseURL, arguments: ["--key-file", world.keyFile])
            let jwks = RawHTTPClient.exchange(
                port: UInt16(server.base.split(separator: ":").last.flatMap { Int($0) } ?? 0),
                "GET /oauth/jwks HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            #expect(RawHTTPClient.status(of: jwks) == 200)
            #expect(server.terminate() == 0)
            let problems = try world.database.problems()
            #expect(problems.isEmpty, "after a kill at \(delay) ms: \(problems)")
        }
    }
}

/// What reached the clients so far, and what went wrong while the server was up.
struct LedgerState: Sendable {
    struct Progress: Sendable {
        var rotations = 0
        var signIns = 0
        var approvals = 0
    }

    /// Chain number → the last refresh token an answer delivered.
    var chains: [Int: String] = [:]
    /// Codes that reached the app and were never sent to the token endpoint, with their verifier.
    var unredeemedCodes: [(code: String, verifier: String)] = []
    /// Device codes whose approval answer reached the browser, not polled yet.
    var approvedDevices: [String] = []
    /// Device codes started and not approved (as far as the browser knows).
    var pendingDevices: [String] = []
    var progress = Progress()
    var failures: [String] = []
    /// Set to end the load while the server stays up.
    var stopped = false
}

/// The ledger the flows share across tasks.
final class Ledger: Sendable {
    private let state = Mutex(LedgerState())

    func withLock<Result: Sendable>(_ body: (inout LedgerState) throws -> Result) rethrows -> Result {
        try state.withLock { try body(&$0) }
    }
}

/// A database with one public app (code, refresh and device grants) and one person, and the
/// client side of every flow the crash test drives.
struct CrashWorld: Sendable {
    let directory: URL
    let database: CrashDatabase
    let keyFile: String
    let clientID: String
    var databaseURL: String { database.url }

    init(_ backend: CrashBackend, prepared: Bool = true, postgresServer: String? = CrashBackend.postgresURL) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("portico-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        database = try CrashDatabase(backend, directory: directory, postgresServer: postgresServer)
        keyFile = directory.appendingPathComponent("portico.key").path
        guard prepared else {
            clientID = ""
            return
        }
        let url = database.url
        // As an operator does: `migrate` makes the database the admin commands then use.
        let migrated = try PorticoProcess.run(["migrate", "--database", url, "--key-file", keyFile])
        guard migrated.status == 0 else { throw HarnessFailure("migrate: \(migrated.stderr)") }
        let added = try PorticoProcess.run([
            "client", "add", "--name", "Crash App", "--redirect-uri", KillNineTests.redirectURI, "--public",
            "--grant", "authorization_code", "--grant", "refresh_token", "--grant", "device_code", "--json",
            "--database", url,
        ])
        guard added.status == 0,
            let id = TestReply(status: 200, headers: [:], body: Data(added.stdout.utf8))
                .string("client_id")
        else { throw HarnessFailure("client add: \(added.stderr)") }
        clientID = id
        let user = try PorticoProcess.run(
            [
                "user", "add", "--email", ProviderHarness.defaultEmail, "--name", "Ann", "--password-stdin",
                "--database", url,
            ],
            stdin: Self.password + "\n")
        guard user.status == 0 else { throw HarnessFailure("user add: \(user.stderr)") }
    }

    /// The person's password: `portico user add` takes only what the sign-up page would.
    static let password = "correct horse battery"

    /// `portico serve` on the database (a shared database needs the nodes' key file).
    func serve() throws -> ServeProcess {
        try ServeProcess(databaseURL: databaseURL, arguments: ["--key-file", keyFile])
    }

    /// Four refresh chains, each begun by a sign-in, in a new ledger.
    func beginChains(base: String) async throws -> Ledger {
        let ledger = Ledger()
        for index in 0..<4 {
            let code = try await authorize(base: base)
            let tokens = try await redeem(code, base: base)
            ledger.withLock { $0.chains[index] = try? #require(tokens.string("refresh_token")) }
        }
        #expect(ledger.withLock { $0.chains.count } == 4)
        return ledger
    }

    /// Starts ``load(base:ledger:)`` and returns once every kind of work has happened again in
    /// this round (bounded wait).
    func startLoad(base: String, ledger: Ledger, round: Int) async throws -> Task<Void, Never> {
        let before = ledger.withLock { $0.progress }
        let load = Task { await self.load(base: base, ledger: ledger) }
        let deadline = Date().addingTimeInterval(120)
        var reached = false
        while !reached && Date() < deadline {
            let now = ledger.withLock { $0.progress }
            reached =
                now.rotations >= before.rotations + 20 && now.signIns >= before.signIns + 2
                && now.approvals >= before.approvals + 1
            if !reached { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(reached, "round \(round): the load did not get going: \(ledger.withLock { $0.progress })")
        return load
    }

    /// Whether the node answers from its database again within a minute: a token request of an
    /// unknown client (which no cache answers) gets its 401 several times running, so that every
    /// connection of the pool has been through the outage.
    func servesAgain(base: String) async throws -> Bool {
        let deadline = Date().addingTimeInterval(60)
        var running = 0
        while Date() < deadline {
            let reply = try? await post(
                base: base, "/oauth/token",
                [("grant_type", "client_credentials"), ("client_id", "nobody"), ("client_secret", "x")])
            running = reply?.status == 401 ? running + 1 : 0
            if running >= 12 { return true }
            try await Task.sleep(for: .milliseconds(running == 0 ? 100 : 5))
        }
        return false
    }

    // MARK: - Flows

    /// Sign-in and consent (asked for every time) to a code at the app's redirect URI.
    func authorize(base: String) async throws -> (code: String, verifier: String) {
        let browser = TestBrowser(base: base)
        let pkce = PKCEPair()
        var components = URLComponents()
        components.path = "/oauth/authorize"
        components.queryItems = [
            URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "client_id", value: clientID),
            URLQueryItem(name: "redirect_uri", value: KillNineTests.redirectURI),
            URLQueryItem(name: "scope", value: "openid profile offline_access"),
            URLQueryItem(name: "state", value: "s"), URLQueryItem(name: "code_challenge", value: pkce.challenge),
            URLQueryItem(name: "code_challenge_method", value: "S256"), URLQueryItem(name: "prompt", value: "consent"),
        ]
        let start = try await browser.get(components.string ?? "/oauth/authorize")
        var location = try start.location.orThrow("a redirect from /oauth/authorize (\(start.status) \(start.text))")
        if location.hasPrefix("/login") {
            let login = try await browser.signIn(at: location, password: CrashWorld.password)
            location = try login.location.orThrow("a redirect after signing in (\(login.status))")
        }
        if location.hasPrefix("/consent") {
            let decided = try await browser.decide(at: location, "allow")
            location = try decided.location.orThrow("a redirect after consent (\(decided.status))")
        }
        guard location.hasPrefix(KillNineTests.redirectURI),
            let code = URLComponents(string: location)?.queryItems?.first(where: { $0.name == "code" })?.value
        else { throw HarnessFailure("no code in \(location)") }
        return (code, pkce.verifier)
    }

    func redeem(_ code: (code: String, verifier: String), base: String) async throws -> TestReply {
        let reply = try await token(
            base: base,
            [
                ("grant_type", "authorization_code"), ("code", code.code), ("code_verifier", code.verifier),
                ("redirect_uri", KillNineTests.redirectURI),
            ])
        guard reply.status == 200, reply.string("access_token") != nil else {
            throw HarnessFailure("code redemption said \(reply.status) \(reply.text)")
        }
        return reply
    }

    func refresh(_ token: String, base: String) async throws -> TestReply {
        try await self.token(base: base, [("grant_type", "refresh_token"), ("refresh_token", token)])
    }

    func startDevice(base: String) async throws -> (deviceCode: String, userCode: String) {
        let reply = try await post(
            base: base, "/oauth/device_authorization", [("client_id", clientID), ("scope", "openid profile")])
        guard let device = reply.string("device_code"), let user = reply.string("user_code") else {
            throw HarnessFailure("device authorization said \(reply.status) \(reply.text)")
        }
        return (device, user)
    }

    func poll(_ deviceCode: String, base: String) async throws -> TestReply {
        try await token(base: base, [("grant_type", ProviderHarness.deviceGrantType), ("device_code", deviceCode)])
    }

    private func token(base: String, _ fields: [(String, String)]) async throws -> TestReply {
        try await post(base: base, "/oauth/token", fields + [("client_id", clientID)])
    }

    func post(base: String, _ path: String, _ fields: [(String, String)]) async throws -> TestReply {
        let url = try URL(string: base + path).orThrow("a URL")
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        // A kept-alive connection of a killed server must never carry a request to its successor.
        request.setValue("close", forHTTPHeaderField: "Connection")
        request.httpBody = Data(ProviderHarness.formEncode(fields).utf8)
        let (data, response) = try await Self.session.data(for: request)
        return try TestReply(response, data: data)
    }

    /// No cookies, no cache, a bound on every request: a generous one, since an answer the client
    /// gives up on while the server still commits it is a lost answer, which only the 30 s retry
    /// grace covers.
    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 120
        configuration.httpShouldSetCookies = false
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        return URLSession(configuration: configuration)
    }()

    // MARK: - Load and verification

    /// Every kind of work at once until the server goes away: one rotating task per chain, a
    /// sign-in-and-consent loop and a device-login loop. Each records what reached it.
    func load(base: String, ledger: Ledger) async {
        await withTaskGroup(of: Void.self) { group in
            for index in ledger.withLock({ Array($0.chains.keys) }) {
                group.addTask { await rotate(chain: index, base: base, ledger: ledger) }
            }
            group.addTask { await signInLoop(base: base, ledger: ledger) }
            group.addTask { await deviceLoop(base: base, ledger: ledger) }
        }
    }

    private func rotate(chain index: Int, base: String, ledger: Ledger) async {
        while let current = ledger.withLock({ $0.stopped ? nil : $0.chains[index] }) {
            guard let reply = try? await refresh(current, base: base) else { return }
            guard reply.status == 200, let next = reply.string("refresh_token") else {
                ledger.withLock { $0.failures.append("chain \(index): \(reply.status) \(reply.text)") }
                return
            }
            ledger.withLock {
                $0.chains[index] = next
                $0.progress.rotations += 1
            }
        }
    }

    private func signInLoop(base: String, ledger: Ledger) async {
        var redeemNext = false
        while !ledger.withLock({ $0.stopped }) {
            guard let code = try? await authorize(base: base) else { return }
            ledger.withLock { $0.progress.signIns += 1 }
            redeemNext.toggle()
            if redeemNext {
                // Sent: from here the answer may be lost, and a code is single-use.
                guard (try? await redeem(code, base: base)) != nil else { return }
            } else {
                ledger.withLock { $0.unredeemedCodes.append(code) }
            }
        }
    }

    private func deviceLoop(base: String, ledger: Ledger) async {
        while !ledger.withLock({ $0.stopped }) {
            guard let device = try? await startDevice(base: base) else { return }
            ledger.withLock { $0.pendingDevices.append(device.deviceCode) }
            let browser = TestBrowser(base: base)
            guard
                let page = try? await browser.reachDeviceConsent(code: device.userCode, password: CrashWorld.password),
                let decided = try? await browser.decideDevice(on: page, "allow")
            else { return }
            guard decided.status < 400 else {
                ledger.withLock { $0.failures.append("device approval: \(decided.status) \(decided.text)") }
                return
            }
            ledger.withLock {
                $0.pendingDevices.removeAll { $0 == device.deviceCode }
                $0.approvedDevices.append(device.deviceCode)
                $0.progress.approvals += 1
            }
        }
    }

    /// After a restart: everything the ledger holds is still good.
    func verify(base: String, ledger: Ledger, round: Int) async throws {
        let state = ledger.withLock { $0 }
        for (index, token) in state.chains.sorted(by: { $0.key < $1.key }) {
            let reply = try await refresh(token, base: base)
            #expect(reply.status == 200, "round \(round), chain \(index): \(reply.text)")
            if let next = reply.string("refresh_token") {
                ledger.withLock { $0.chains[index] = next }
            }
        }
        for code in state.unredeemedCodes {
            let reply = try await token(
                base: base,
                [
                    ("grant_type", "authorization_code"), ("code", code.code), ("code_verifier", code.verifier),
                    ("redirect_uri", KillNineTests.redirectURI),
                ])
            #expect(reply.status == 200 && reply.string("access_token") != nil, "round \(round), code: \(reply.text)")
        }
        for deviceCode in state.approvedDevices {
            let reply = try await poll(deviceCode, base: base)
            #expect(
                reply.status == 200 && reply.string("access_token") != nil && reply.string("refresh_token") != nil,
                "round \(round), approved device: \(reply.text)")
        }
        for deviceCode in state.pendingDevices {
            // Its approval may have committed with its answer lost; either way it is whole.
            let reply = try await poll(deviceCode, base: base)
            let pending = reply.status == 400 && reply.string("error") == "authorization_pending"
            let issued = reply.status == 200 && reply.string("access_token") != nil
            #expect(pending || issued, "round \(round), pending device: \(reply.status) \(reply.text)")
        }
        ledger.withLock {
            $0.unredeemedCodes = []
            $0.approvedDevices = []
            $0.pendingDevices = []
        }
    }

    // MARK: - CLI and file

    /// Runs `portico arguments` and sends SIGKILL after `afterMilliseconds` if it still runs.
    static func runKilled(_ arguments: [String], _ environment: [String: String], afterMilliseconds: Int) {
        let process = Process()
        process.executableURL = PorticoProcess.executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return }
        usleep(useconds_t(afterMilliseconds * 1_000))
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
