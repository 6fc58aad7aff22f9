import Foundation
import PorticoStore
import PorticoStoreSQLite
import PorticoTesting
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite struct CrashSafetyTests {
    /// SIGKILL a writer mid-stream: the file stays sound and every row it reported committed is
    /// there.
    @Test(.timeLimit(.minutes(2)))
    func killedWriterLosesNoCommittedRow() throws {
        let executable = try #require(
            Self.writerExecutable(), "portico-store-writer not found next to the test bundle; build all products first")
        let directory = try TemporaryDirectory()
        let path = directory.databasePath()

        let process = Process()
        process.executableURL = executable
        process.arguments = [path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Our copy of the write end would keep the pipe from reaching end of file after the kill.
        try? output.fileHandleForWriting.close()

        let reader = LineReader(fileDescriptor: output.fileHandleForReading.fileDescriptor)
        var committed: [String] = []
        let deadline = Date(timeIntervalSinceNow: 60)
        while committed.count < 200, Date() < deadline, let line = reader.nextLine(timeoutMilliseconds: 5_000) {
            committed.append(line)
        }
        kill(process.processIdentifier, SIGKILL)
        // Lines already in the pipe were committed too; read them up to end of file.
        while let line = reader.nextLine(timeoutMilliseconds: 5_000) { committed.append(line) }
        for _ in 0..<500 where process.isRunning { usleep(10_000) }

        #expect(!process.isRunning)
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(committed.count >= 200, "the writer reported only \(committed.count) rows")

        let store = try SQLiteStore(path: path)
        defer { store.close() }
        #expect(try store.integrityCheck() == ["ok"])
        let missing = try store.read { transaction in
            try committed.filter { try transaction.user(id: $0) == nil }
        }
        #expect(missing.isEmpty, "committed rows lost: \(missing.prefix(5))")
    }

    /// The writer is a product of this package; `swift test` builds it into the same directory
    /// as the test bundle. Looks there (from several starting points, as platforms differ) and
    /// honours `PORTICO_STORE_WRITER` for other layouts.
    static func writerExecutable() -> URL? {
        let name = "portico-store-writer"
        if let override = ProcessInfo.processInfo.environment["PORTICO_STORE_WRITER"] {
            return URL(fileURLWithPath: override)
        }
        var starts: [URL] = []
        if let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            starts.append(URL(fileURLWithPath: link))
        }
        if let executable = Bundle.main.executableURL { starts.append(executable) }
        starts.append(URL(fileURLWithPath: CommandLine.arguments[0]))
        starts += Bundle.allBundles.map(\.bundleURL).filter { $0.pathExtension == "xctest" }
        for start in starts {
            var directory = start.resolvingSymlinksInPath().deletingLastPathComponent()
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                directory = directory.deletingLastPathComponent()
            }
        }
        return nil
    }
}

/// Reads lines from a pipe with a bounded wait for each, so that a stuck child cannot hang the
/// test.
private final class LineReader {
    private let fileDescriptor: Int32
    private var buffer: [UInt8] = []
    private var isAtEnd = false

    init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    /// The next complete line, or nil at end of file or when nothing arrives in time.
    func nextLine(timeoutMilliseconds: Int32) -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            if isAtEnd { return nil }  // A partial last line was never committed-and-reported.
            var descriptor = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, timeoutMilliseconds)
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(fileDescriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                isAtEnd = true
            } else {
                buffer += chunk[0..<count]
            }
        }
    }
}
