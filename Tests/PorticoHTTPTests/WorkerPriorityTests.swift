import Dispatch
import Foundation
import PorticoTesting
import Testing

@testable import PorticoHTTP

/// The worker threads run at a lower scheduling priority than the epoll threads, so that under
/// overload the kernel runs the threads that answer health checks and synchronous routes first.
/// Each handler reports the nice value of the thread it runs on, as the kernel has it
/// (`/proc/self/task/<tid>/stat`), not as the code thinks it set it.
@Suite struct WorkerPriorityTests {
    private func server(niceness: Int, workerThreads: Int = 3, held: Hold = Hold()) throws -> HTTPServer {
        var configuration = ServerConfiguration(port: 0, threads: 2, logRequests: false, workerThreads: workerThreads)
        configuration.workerNiceness = niceness
        return try startServer(configuration: configuration) { router in
            router.get("/nice/epoll") { _ in .text(kernelNiceOfCurrentThread().map(String.init) ?? "?") }
            router.getAsync("/nice/worker") { _ in
                await Task.yield()
                return .text(kernelNiceOfCurrentThread().map(String.init) ?? "?")
            }
            // Reports its thread's name and nice value, holding that thread until released.
            router.getAsync("/nice/held") { _ in
                let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
                let nice = kernelNiceOfCurrentThread().map(String.init) ?? "?"
                held.arrived.signal()
                held.release.wait()
                return .text("\(name.trimmingCharacters(in: .whitespacesAndNewlines)) \(nice)")
            }
        }
    }

    /// What parks requests to `/nice/held` on their worker threads, and lets them go.
    private struct Hold: Sendable {
        let arrived = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
    }

    private func nice(_ server: HTTPServer, _ path: String) async throws -> Int {
        let reply = try await fetch(server, path)
        #expect(reply.status == 200)
        return try #require(Int(reply.text), "\(path) answered \(reply.text)")
    }

    #if os(Linux)
        @Test func everyWorkerThreadRunsAtALowerPriorityThanTheEpollThreads() async throws {
            let workers = 3
            let hold = Hold()
            let server = try server(niceness: 7, workerThreads: workers, held: hold)
            defer { server.shutdown() }
            let epoll = try await nice(server, "/nice/epoll")
            // Every worker thread, not just the first one to take a job: one request per worker,
            // each holding its thread until all have arrived, so each is on a thread of its own.
            let port = server.port
            let replies = (0..<workers).map { _ in
                Task {
                    await onThread {
                        RawHTTPClient.exchange(
                            port: port, "GET /nice/held HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                            timeoutSeconds: 120)
                    }
                }
            }
            let arrivals = await onThread {
                (0..<workers).filter { _ in hold.arrived.wait(timeout: .now() + 60) == .success }.count
            }
            #expect(arrivals == workers)
            for _ in 0..<workers { hold.release.signal() }
            var threads: [String: String] = [:]
            for reply in replies {
                let text = await reply.value
                #expect(RawHTTPClient.status(of: text) == 200, "\(text)")
                let fields = text.split(separator: "\r\n\r\n").last?.split(separator: " ") ?? []
                if fields.count == 2 { threads[String(fields[0])] = String(fields[1]) }
            }
            #expect(threads.count == workers, "\(threads)")
            #expect(threads.values.allSatisfy { $0 == String(min(19, epoll + 7)) }, "\(threads)")
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
