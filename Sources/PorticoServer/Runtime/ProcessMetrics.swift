import Foundation
import PorticoHTTP

/// The process gauges every Prometheus client library exports, under the names dashboards
/// expect (`process_resident_memory_bytes`, `process_open_fds`, …), read from `/proc` and
/// `getrusage` only when a scrape asks.
///
/// On a system without `/proc` (macOS) the lines that need it are left out.
enum ProcessMetrics {
    /// Registers the process gauges in `registry`.
    static func register(in registry: MetricsRegistry) {
        let startTime = processStartTime()
        registry.gauge(
            "process_start_time_seconds", help: "Start time of the process since the Unix epoch, in seconds.",
            sample: { startTime })
        registry.counter("process_cpu_seconds_total", help: "User and system CPU time spent, in seconds.") {
            var usage = rusage()
            guard getrusage(selfUsage, &usage) == 0 else { return nil }
            func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
            return seconds(usage.ru_utime) + seconds(usage.ru_stime)
        }
        registry.gauge("process_resident_memory_bytes", help: "Resident memory size, in bytes.") {
            memoryPages().map { Double($0.resident) * pageSize }
        }
        registry.gauge("process_virtual_memory_bytes", help: "Virtual memory size, in bytes.") {
            memoryPages().map { Double($0.total) * pageSize }
        }
        registry.gauge("process_open_fds", help: "Open file descriptors.") { openFileDescriptors() }
        registry.gauge("process_max_fds", help: "The limit on open file descriptors.") {
            var limit = rlimit()
            guard getrlimit(fileLimit, &limit) == 0, limit.rlim_cur != rlim_t.max else {
                return nil
            }
            return Double(limit.rlim_cur)
        }
    }

    private static let pageSize = Double(sysconf(Int32(_SC_PAGESIZE)))
    #if os(Linux)
        private static let selfUsage = __rusage_who_t(RUSAGE_SELF.rawValue)
        private static let fileLimit = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        private static let selfUsage = RUSAGE_SELF
        private static let fileLimit = RLIMIT_NOFILE
    #endif

    /// The first two fields of `/proc/self/statm`: total and resident pages.
    static func memoryPages() -> (total: UInt64, resident: UInt64)? {
        guard let text = readProcFile("/proc/self/statm") else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count >= 2, let total = UInt64(fields[0]), let resident = UInt64(fields[1]) else { return nil }
        return (total, resident)
    }

    /// Entries of `/proc/self/fd`, less the one the listing itself opens.
    static func openFileDescriptors() -> Double? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        // Only the name's first byte is read, through the pointer: copying `entry.pointee` would
        // read a whole `struct dirent`, past the end of a shorter record at the end of libc's
        // buffer (a crash when that buffer ends at a page boundary).
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 0
        while let entry = readdir(directory) {
            let first = UnsafeRawPointer(entry).load(fromByteOffset: nameOffset, as: UInt8.self)
            if first != UInt8(ascii: ".") { count += 1 }
        }
        return Double(max(0, count - 1))
    }

    /// When the process started: field 22 of `/proc/self/stat` (clock ticks after boot) plus
    /// the boot time from `/proc/stat`; the time of this call when those are unreadable.
    static func processStartTime() -> Double {
        let now = Date().timeIntervalSince1970
        guard let stat = readProcFile("/proc/self/stat"), let close = stat.lastIndex(of: ")"),
            let system = readProcFile("/proc/stat")
        else { return now }
        // Fields after the command name (which may contain spaces) start at field 3.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard fields.count > 19, let ticks = Double(fields[19]), ticksPerSecond > 0,
            let line = system.split(separator: "\n").first(where: { $0.hasPrefix("btime ") }),
            let boot = Double(line.dropFirst(6).trimmingCharacters(in: .whitespaces))
        else { return now }
        return boot + ticks / ticksPerSecond
    }

    /// A small `/proc` file's text; `/proc` files report size 0, so it is read to the end.
    private static func readProcFile(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd() else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
