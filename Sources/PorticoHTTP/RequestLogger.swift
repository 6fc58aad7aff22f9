#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes one JSON line per request (and per handler error) to stderr.
///
/// Lines are assembled by hand into one buffer and written with a single write(2), so that lines
/// from several threads never interleave and no encoder runs on the hot path.
struct RequestLogger: Sendable {
    let isEnabled: Bool

    func logRequest(method: String, path: String, status: Int, durationNanoseconds: UInt64, bytes: Int) {
        guard isEnabled else { return }
        var line: [UInt8] = []
        line.reserveCapacity(112 + path.utf8.count)
        line.append(contentsOf: #"{"method":"#.utf8)
        Self.appendString(method, to: &line)
        line.append(contentsOf: #","path":"#.utf8)
        Self.appendString(path, to: &line)
        line.append(contentsOf: #","status":"#.utf8)
        Self.appendInteger(UInt64(max(0, status)), to: &line)
        line.append(contentsOf: #","duration_ms":"#.utf8)
        let microseconds = durationNanoseconds / 1_000
        Self.appendInteger(microseconds / 1_000, to: &line)
        line.append(UInt8(ascii: "."))
        let fraction = microseconds % 1_000
        if fraction < 100 { line.append(UInt8(ascii: "0")) }
        if fraction < 10 { line.append(UInt8(ascii: "0")) }
        Self.appendInteger(fraction, to: &line)
        line.append(contentsOf: #","bytes":"#.utf8)
        Self.appendInteger(UInt64(max(0, bytes)), to: &line)
        line.append(contentsOf: "}\n".utf8)
        Self.writeLine(line)
    }

    /// Logs a handler failure; always on, because a 500 must leave a trace.
    static func logError(method: String, path: String, error: String) {
        var line: [UInt8] = []
        line.append(contentsOf: #"{"level":"error","method":"#.utf8)
        appendString(method, to: &line)
        line.append(contentsOf: #","path":"#.utf8)
        appendString(path, to: &line)
        line.append(contentsOf: #","error":"#.utf8)
        appendString(error, to: &line)
        line.append(contentsOf: "}\n".utf8)
        writeLine(line)
    }

    /// Writes `line` (adding a newline if missing) to stderr in one system call.
    static func writeLine(_ line: [UInt8]) {
        var bytes = line
        if bytes.last != UInt8(ascii: "\n") {
            bytes.append(UInt8(ascii: "\n"))
        }
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(2, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    static func appendString(_ text: String, to line: inout [UInt8]) {
        line.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                line.append(UInt8(ascii: "\\"))
                line.append(byte)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                line.append(contentsOf: #"\u00"#.utf8)
                line.append(hex[Int(byte >> 4)])
                line.append(hex[Int(byte & 0x0F)])
            default:
                line.append(byte)
            }
        }
        line.append(UInt8(ascii: "\""))
    }

    static func appendInteger(_ value: UInt64, to line: inout [UInt8]) {
        if value == 0 {
            line.append(UInt8(ascii: "0"))
            return
        }
        var digits: [UInt8] = []
        var rest = value
        while rest > 0 {
            digits.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        }
        line.append(contentsOf: digits.reversed())
    }

    /// Monotonic nanoseconds for request durations (vDSO, no system call).
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
