import Foundation
import PorticoTesting
import Testing

@testable import PorticoHTTP

/// The worker threads run at a lower scheduling priority than the epoll threads, so that under
/// overload the kernel runs the threads that answer health checks and synchronous routes first.
/// Each handler reports the nice value of the thread it runs on, as the kernel has it
/// (`/proc/self/task/<tid>/stat`), not as the code thinks it set it.
@Suite struct WorkerPriorityTests {
    private func server(niceness: Int) throws -> HTTPServer {
        var configuration = ServerConfiguration(port: 0, threads: 2, logRequests: false)
        configuration.workerNiceness = niceness
        return try startServer(configuration: configuration) { router in
            router.get("/nice/epoll") { _ in .text(kernelNiceOfCurrentThread().map(String.init) ?? "?") }
            router.getAsync("/nice/worker") { _ in
                await Task.yield()
                return .text(kernelNiceOfCurrentThread().map(String.init) ?? "?")
            }
        }
    }

    private func nice(_ server: HTTPServer, _ path: String) async throws -> Int {
        let reply = try await fetch(server, path)
        #expect(reply.status == 200)
        return try #require(Int(reply.text), "\(path) answered \(reply.text)")
    }

    #if os(Linux)
        @Test func workerThreadsRunAtALowerPriorityThanTheEpollThreads() async throws {
            let server = try server(niceness: 7)
            defer { server.shutdown() }
            let epoll = try await nice(server, "/nice/epoll")
            // Every worker thread, not just the first one to take a job: more requests than threads.
            for _ in 0..<(2 * server.configuration.workerThreads) {
                #expect(try await nice(server, "/nice/worker") == min(19, epoll + 7))
            }
        }

        @Test func theDefaultLowersWorkersByTen() {
            #expect(ServerConfiguration().workerNiceness == 10)
        }

        @Test func nicenessZeroLeavesWorkersAsTheEpollThreads() async throws {
            let server = try server(niceness: 0)
            defer { server.shutdown() }
            let epoll = try await nice(server, "/nice/epoll")
            #expect(try await nice(server, "/nice/worker") == epoll)
        }

        @Test func workerThreadsHaveNamesTheKernelKeeps() async throws {
            let server = try startServer { router in
                router.getAsync("/comm") { _ in
                    .text((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
                }
            }
            defer { server.shutdown() }
            let reply = try await fetch(server, "/comm")
            #expect(reply.text.hasPrefix("portico-work-"), "\(reply.text)")
        }
    #endif
}

/// The nice value the kernel holds for the calling thread: field 19 of its `stat`, counted
/// after the parenthesised command name (which may itself contain spaces).
private func kernelNiceOfCurrentThread() -> Int? {
    guard let stat = try? String(contentsOfFile: "/proc/thread-self/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return nil }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    // fields[0] is field 3 (the state), so field 19 is fields[16].
    guard fields.count > 16 else { return nil }
    return Int(fields[16])
}
