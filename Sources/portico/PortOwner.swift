import Foundation

/// Which process listens on a TCP port, read from `/proc` (Linux).
///
/// Why: "port in use" alone leaves a newcomer guessing; the usual culprit is a `make run`
/// left running in another terminal, and naming it (`portico, pid 4242`) says what to stop.
/// Only sockets of processes whose `/proc/PID/fd` this user may read can be named; otherwise
/// the answer is nil and the message just says the port is taken.
enum PortOwner {
    /// "NAME (pid N)" for a process listening on `port`, or nil when none can be found.
    static func describe(listeningOn port: UInt16) -> String? {
        let inodes = listeningSocketInodes(port: port)
        guard !inodes.isEmpty,
            let processes = try? FileManager.default.contentsOfDirectory(atPath: "/proc")
        else { return nil }
        let own = ProcessInfo.processInfo.processIdentifier
        for pid in processes.compactMap(Int32.init) where pid != own {
            let descriptors = "/proc/\(pid)/fd"
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: descriptors) else { continue }
            for entry in entries {
                guard
                    let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(descriptors)/\(entry)"),
                    target.hasPrefix("socket:["), inodes.contains(String(target.dropFirst(8).dropLast()))
                else { continue }
                let name =
                    (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "a process"
                return "\(name) (pid \(pid))"
            }
        }
        return nil
    }

    /// The inodes of the sockets in state LISTEN on `port`, IPv4 and IPv6.
    private static func listeningSocketInodes(port: UInt16) -> Set<String> {
        let hexPort = String(format: "%04X", port)
        var inodes: Set<String> = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 9, fields[3] == "0A", fields[1].hasSuffix(":" + hexPort) else { continue }
                inodes.insert(String(fields[9]))
            }
        }
        return inodes
    }
}
