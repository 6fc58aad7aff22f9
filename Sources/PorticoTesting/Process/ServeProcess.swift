import Foundation

/// A real `portico serve` child process on an ephemeral port, for tests that must stop it the
/// way a machine does: `kill -9` in the middle of its work, then start it again on the same
/// database.
public final class ServeProcess: @unchecked Sendable {
    // @unchecked: `process` is only started in `init` and read (never reassigned) afterwards;
    // Foundation's Process is safe to query and signal from any thread.
    private let process: Process
    private let output: FileHandle
    /// `http://127.0.0.1:PORT` that the banner announced.
    public let base: String

    /// Starts `portico serve --port 0 --quiet --database databaseURL` plus `arguments` (without
    /// `--database` when `databaseURL` is nil: the default database, under `directory`) in
    /// `directory` (the test's own by default) and waits (up to `timeout`) for its banner;
    /// throws when it exits or stays silent. `environment` is added to this process's.
    public init(
        databaseURL: String?, arguments: [String] = [], directory: URL? = nil, timeout: TimeInterval = 60,
        environment: [String: String] = [:]
    ) throws {
        let process = Process()
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.executableURL = PorticoProcess.executable
        process.arguments =
            ["serve", "--port", "0", "--quiet"] + (databaseURL.map { ["--database", $0] } ?? []) + arguments
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        self.process = process
        let reader = output.fileHandleForReading
        self.output = reader
        var text = ""
        let deadline = Date().addingTimeInterval(timeout)
        while !text.contains("\n") {
            let chunk = reader.availableData
            if chunk.isEmpty {
                guard process.isRunning, Date() < deadline else {
                    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                    throw HarnessFailure("portico serve gave no banner: \(text)")
                }
                Thread.sleep(forTimeInterval: 0.01)
                continue
            }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let match = text.firstMatch(of: /listening on (http:\/\/[0-9.]+:\d+)/) else {
            kill(process.processIdentifier, SIGKILL)
            throw HarnessFailure("unexpected banner: \(text)")
        }
        base = String(match.1)
        // Later output is not read: keep the pipe from filling by draining it in the background.
        reader.readabilityHandler = { handle in _ = handle.availableData }
    }

    deinit {
        if process.isRunning { killAndWait() } else { stopReading() }
    }

    /// Whether the process still runs.
    public var isRunning: Bool { process.isRunning }

    /// SIGKILL, then waits until the process is gone: nothing it had not committed survives.
    public func killAndWait() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        stopReading()
    }

    /// Ends the background drain (the pipe itself closes with its handle).
    private func stopReading() {
        output.readabilityHandler = nil
    }

    /// SIGTERM and waits up to `timeout`; returns the exit status, nil if it had to be killed.
    public func terminate(timeout: TimeInterval = 30) -> Int32? {
        process.terminate()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        guard !process.isRunning else {
            killAndWait()
            return nil
        }
        stopReading()
        return process.terminationReason == .exit ? process.terminationStatus : nil
    }
}
