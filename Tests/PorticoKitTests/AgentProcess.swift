import Foundation
import PorticoTesting
import Synchronization

@testable import PorticoKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The real `portico-agent` binary run as a child process with a home of its own (a temporary
/// `HOME`, `XDG_CONFIG_HOME` and `XDG_RUNTIME_DIR`), for the companion's end-to-end tests.
///
/// ``with(issuer:clientID:_:)`` always kills what it started and removes the directory, also
/// when the test body throws.
final class AgentProcess: Sendable {
    let home: URL
    let issuer: String
    let clientID: String
    private let children = Mutex<[Process]>([])

    init(issuer: String, clientID: String) throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("agent-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(
            at: home.appendingPathComponent("run"), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        self.issuer = issuer
        self.clientID = clientID
    }

    /// Runs `body` with an agent home, then stops every child and removes the home.
    static func with(issuer: String, clientID: String, _ body: (AgentProcess) async throws -> Void) async throws {
        let agent = try AgentProcess(issuer: issuer, clientID: clientID)
        defer { agent.cleanUp() }
        try await body(agent)
    }

    /// The `portico-agent` that `swift build` put next to the test bundle.
    static var executable: URL {
        PorticoProcess.executable.deletingLastPathComponent().appendingPathComponent("portico-agent")
    }

    /// The child's environment: its own home and runtime directory, no browser, English.
    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in ["BROWSER", "DISPLAY", "WAYLAND_DISPLAY", "LC_ALL", "LC_MESSAGES", "XDG_CACHE_HOME"] {
            environment[name] = nil
        }
        environment["HOME"] = home.path
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        environment["XDG_RUNTIME_DIR"] = home.appendingPathComponent("run").path
        environment["PORTICO_ISSUER"] = issuer
        environment["PORTICO_AGENT_CLIENT_ID"] = clientID
        environment["LANG"] = "C.UTF-8"
        return environment
    }

    /// Where the agent listens.
    var socketPath: URL { CompanionProtocol.socketPath(issuer: issuer, environment: environment) }

    /// The agent's token store, as the agent keeps it.
    var tokenStore: FileTokenStore { FileTokenStore(directory: home.appendingPathComponent("config/portico-agent")) }

    /// Starts `portico-agent arguments…` (or another program of the package, in the agent's
    /// environment); its output is collected as it comes.
    func start(
        _ arguments: [String], environment extra: [String: String] = [:], executable: URL = AgentProcess.executable,
        input: Pipe? = nil
    ) throws -> RunningAgent {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment.merging(extra) { $1 }
        let running = RunningAgent(process: process, input: input)
        try process.run()
        children.withLock { $0.append(process) }
        return running
    }

    /// Runs `portico-agent arguments…` to its end (at most 60 s).
    func run(_ arguments: [String], environment extra: [String: String] = [:]) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let running = try start(arguments, environment: extra)
        return running.finish(within: 60)
    }

    /// Signs the agent in with the device flow, "the person" approving it with `robot`.
    func loginWithDevice(robot: SignInRobot) async throws {
        let login = try start(["login", "--device"])
        let line = try await login.waitForOutput(containing: "(or open ", within: 30)
        guard let start = line.range(of: "(or open "), let end = line[start.upperBound...].firstIndex(of: ")"),
            let url = URL(string: String(line[start.upperBound..<end]))
        else { throw HarnessFailure("the agent printed no device URL: \(line)") }
        try await robot.signIn(at: url)
        let result = login.finish(within: 60)
        guard result.status == 0 else { throw HarnessFailure("login --device failed: \(result.stderr)") }
    }

    /// Starts `serve` on a terminal of its own (`script` gives it a pseudo-terminal), its
    /// keyboard being `keyboard`, and waits until it listens.
    func serveOnATerminal(keyboard: Pipe, language: String) async throws -> RunningAgent {
        let command = "\(Self.executable.path) serve --consent-timeout 60"
        let serving = try start(
            ["-qfec", command, "/dev/null"], environment: ["LANG": language],
            executable: URL(fileURLWithPath: "/usr/bin/script"), input: keyboard)
        _ = try await serving.waitForOutput(containing: ".sock", within: 30)
        return serving
    }

    /// Starts `serve` and waits until it listens.
    func serve(consentTimeout: Int = 120) async throws -> RunningAgent {
        let serving = try start(["serve", "--consent-timeout", String(consentTimeout)])
        _ = try await serving.waitForOutput(containing: "serves", within: 30)
        return serving
    }

    /// The consents waiting, as `pending --json` prints them.
    func pending() throws -> [CompanionPendingConsent] {
        let result = try run(["pending", "--json"])
        guard result.status == 0 else { throw HarnessFailure("pending failed: \(result.stderr)") }
        return try JSONDecoder().decode([CompanionPendingConsent].self, from: Data(result.stdout.utf8))
    }

    /// Waits until exactly `count` consents wait (each `pending` is a real round trip).
    func waitForPending(count: Int = 1, within seconds: TimeInterval = 30) async throws -> [CompanionPendingConsent] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let pending = try pending()
            if pending.count == count { return pending }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw HarnessFailure("no \(count) pending consent(s) appeared")
    }

    func cleanUp() {
        for process in children.withLock({ $0 }) where process.isRunning {
            killProcess(process.processIdentifier)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: home)
    }
}

/// One running `portico-agent` child and what it has printed so far.
final class RunningAgent: Sendable {
    let process: Process
    private final class Collected: Sendable {
        let text = Mutex<String>("")
    }
    private let output = Collected()
    private let errors = Collected()
    private let outputDone = DispatchSemaphore(value: 0)
    private let errorsDone = DispatchSemaphore(value: 0)

    init(process: Process, input: Pipe? = nil) {
        self.process = process
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input ?? FileHandle.nullDevice
        Self.collect(out.fileHandleForReading, into: output, done: outputDone)
        Self.collect(err.fileHandleForReading, into: errors, done: errorsDone)
    }

    private static func collect(_ handle: FileHandle, into collected: Collected, done: DispatchSemaphore) {
        Thread.detachNewThread {
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                collected.text.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
            done.signal()
        }
    }

    var stdout: String { output.text.withLock { $0 } }
    var stderr: String { errors.text.withLock { $0 } }

    /// The first line of standard output (or error) containing `needle`, waiting at most `seconds`.
    func waitForOutput(
        containing needle: String, within seconds: TimeInterval, onStandardError: Bool = false
    ) async throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let text = onStandardError ? stderr : stdout
            if let line = text.split(separator: "\n").first(where: { $0.contains(needle) }) { return String(line) }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw HarnessFailure("portico-agent never printed \(needle); stdout: \(stdout) stderr: \(stderr)")
    }

    /// Waits for the exit (killing it after `seconds`) and returns what it printed.
    func finish(within seconds: TimeInterval) -> (status: Int32, stdout: String, stderr: String) {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { killProcess(process.processIdentifier) }
        process.waitUntilExit()
        outputDone.wait()
        errorsDone.wait()
        return (process.terminationStatus, stdout, stderr)
    }

    /// Kills it at once (SIGKILL) and waits for the exit.
    func kill() {
        if process.isRunning { killProcess(process.processIdentifier) }
        process.waitUntilExit()
    }
}
