import Foundation

/// Runs the real `portico` binary that `swift test` built next to the test bundle: the one way
/// every test target starts the CLI (admin commands, `migrate`, a database URL of any backend).
public enum PorticoProcess {
    /// The `portico` next to the test bundle (or one folder up, as SwiftPM lays them out).
    public static var executable: URL {
        let bundleDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [bundleDirectory, bundleDirectory.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("portico")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return bundleDirectory.appendingPathComponent("portico")
    }

    /// Runs `portico` with `arguments` to completion (bounded by `timeout`); `environment` is added
    /// to this process's own.
    public static func run(
        _ arguments: [String], environment: [String: String] = [:], stdin: String? = nil,
        timeout: TimeInterval = 60
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin {
            // A child that exits before reading its input (a usage error) must fail the test's
            // assertions, not kill the whole test process with SIGPIPE.
            signal(SIGPIPE, SIG_IGN)
            try? input.fileHandleForWriting.write(contentsOf: Data(stdin.utf8))
        }
        try input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, stdout, stderr)
    }
}
