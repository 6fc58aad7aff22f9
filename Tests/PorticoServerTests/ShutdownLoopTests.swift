import Foundation
import PorticoTesting
import Synchronization
import Testing

/// The real `portico serve`, loaded and stopped with SIGTERM again and again, exits 0 by
/// itself every time (it once died in `_dl_fini` while a background thread still ran), on
/// SQLite and on PostgreSQL, where it must also have closed every connection of its pool (none
/// left in `pg_stat_activity`, none ended by the kernel rather than by a goodbye).
/// `scripts/shutdown-loop` does the work; run it with `--cycles 200` by hand.
@Suite struct ShutdownLoopTests {
    @Test func sigtermUnderLoadExitsZeroEveryTime() throws {
        try Self.sigtermUnderLoadExitsZeroEveryTime(cycles: 6, [])
    }

    @Test(CrashBackend.postgresRequired) func sigtermUnderLoadExitsZeroAndClosesItsConnectionsOnPostgreSQL() throws {
        try Self.sigtermUnderLoadExitsZeroEveryTime(cycles: 6, ["--postgres", try #require(CrashBackend.postgresURL)])
    }

    static func sigtermUnderLoadExitsZeroEveryTime(cycles: Int, _ arguments: [String]) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let result = try runTool(
            "/usr/bin/env",
            [
                "python3", root.appendingPathComponent("scripts/shutdown-loop").path, "--cycles", "\(cycles)",
                "--binary", PorticoProcess.executable.path,
            ] + arguments,
            timeout: 240)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("\(cycles) cycles, 0 failed"))
    }
}

/// Runs `tool` with `arguments` to completion, killing it after `timeout`.
private func runTool(_ tool: String, _ arguments: [String], timeout: TimeInterval) throws -> (
    status: Int32, stdout: String, stderr: String
) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Drained while it runs, so a chatty failure cannot fill the pipe and stall it.
    let output = Mutex((Data(), Data()))
    let readers = DispatchGroup()
    for (handle, isError) in [(out.fileHandleForReading, false), (err.fileHandleForReading, true)] {
        DispatchQueue.global().async(group: readers) {
            let data = handle.readDataToEndOfFile()
            output.withLock { if isError { $0.1 = data } else { $0.0 = data } }
        }
    }
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    readers.wait()
    let (stdout, stderr) = output.withLock { $0 }
    return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
}
