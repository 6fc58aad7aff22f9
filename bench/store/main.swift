// portico-bench-store: store operations per second with 1 and 2 threads, for each connection
// strategy. Run in release: swift run -c release portico-bench-store [OPERATIONS_PER_THREAD] [ROUNDS]
// Each cell is the best of ROUNDS runs, the strategies interleaved, so that a busy machine
// disturbs both alike. Beside operations per second (wall clock), the CPU time the operating
// threads spent per operation (their own clocks, so other processes on a shared machine disturb
// it much less; the lowest of the rounds).
import Foundation
import PorticoServer
import PorticoStore
import PorticoStoreSQLite
import Synchronization

let operationsPerThread = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 5000 : 5000
let rounds = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 3 : 3
/// The provider's refresh policy, as the refresh grant runs it, with tokens that live a day.
let refreshPolicy = RefreshTokenPolicy(tokenLifetime: 86_400, reuseGrace: 30)
// "+bg ckpt": the server's setting, WAL checkpoints on the store's own thread instead of in
// the commit that fills the log (SQLiteCheckpointer).
let strategies: [(name: String, strategy: SQLiteConnectionStrategy, backgroundCheckpoints: Bool)] = [
    ("per-thread", .perThread, false),
    ("pool(2)", .pool(maximumConnections: 2), false),
    ("per-thread+bg ckpt", .perThread, true),
]

/// The calling thread's CPU time (user and system), in nanoseconds.
func threadCPUNanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

/// Runs `body(thread, index)` `operationsPerThread` times on each of `threads` threads started
/// together; returns operations per second over the wall-clock time and the threads' CPU time
/// per operation in microseconds.
func measure(threads: Int, _ body: @escaping @Sendable (Int, Int) throws -> Void) -> (
    rate: Double, cpuMicroseconds: Double
) {
    let start = DispatchSemaphore(value: 0)
    let group = DispatchGroup()
    let cpu = Mutex<Int64>(0)
    for thread in 0..<threads {
        group.enter()
        Thread {
            start.wait()
            let began = threadCPUNanoseconds()
            for index in 0..<operationsPerThread {
                do {
                    try body(thread, index)
                } catch {
                    FileHandle.standardError.write(Data("operation failed: \(error)\n".utf8))
                }
            }
            let spent = threadCPUNanoseconds() - began
            cpu.withLock { $0 += spent }
            group.leave()
        }.start()
    }
    let began = DispatchTime.now()
    for _ in 0..<threads { start.signal() }
    group.wait()
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - began.uptimeNanoseconds) / 1e9
    let operations = Double(threads * operationsPerThread)
    return (operations / seconds, Double(cpu.withLock { $0 }) / 1000 / operations)
}

struct Row {
    let operation: String
    let strategy: String
    let threads: Int
    let rate: Double
    let cpuMicroseconds: Double
}

var best: [String: Row] = [:]
let root = FileManager.default.temporaryDirectory.appendingPathComponent("portico-bench-store-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: root) }

do {
    for round in 0..<rounds {
        for threads in [1, 2] {
            for (name, strategy, background) in strategies {
                let store = try SQLiteStore(
                    path: root.appendingPathComponent("\(name)-\(threads)-\(round).db").path, strategy: strategy,
                    backgroundCheckpoints: background)
                let user = UserRecord(email: "bench@example.com", name: "Bench", passwordHash: "x")
                let client = Client(
                    name: "Bench", type: .confidential, secret: "secret", redirectURIs: ["https://bench.example/cb"],
                    allowedScopes: ["openid", "profile"])
                try store.insert(user)
                try store.insert(client)
                let now = Date()
                let families = (0..<threads).map { _ in
                    RefreshFamily(clientID: client.id, userID: user.id, scopes: ["openid", "profile"], authTime: now)
                }
                // Tokens name their family before a dot, as minted ones do.
                let token: @Sendable (Int, Int) -> String = { thread, index in
                    "\(families[thread].id).r-\(thread)-\(index)"
                }
                try store.transaction { transaction in
                    for (thread, family) in families.enumerated() {
                        try transaction.insert(family, token: token(thread, 0), expiresAt: now + 86_400)
                    }
                }

                let create = measure(threads: threads) { thread, index in
                    try store.insert(
                        AuthorizationCode(
                            code: "c-\(thread)-\(index)", clientID: client.id, userID: user.id,
                            redirectURI: "https://bench.example/cb", scopes: ["openid", "profile"],
                            codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", nonce: "n", authTime: now,
                            expiresAt: now + 60))
                }
                let redeem = measure(threads: threads) { thread, index in
                    guard case .redeemed = try store.redeemAuthorizationCode("c-\(thread)-\(index)", now: now) else {
                        throw StoreError.misuse("code not redeemed")
                    }
                }
                let rotate = measure(threads: threads) { thread, index in
                    let result = try store.transaction {
                        try refreshPolicy.rotate(token(thread, index), in: $0, now: now) { _ in token(thread, index + 1)
                        }
                    }
                    guard case .rotated = result else { throw StoreError.misuse("not rotated: \(result)") }
                }
                let lookup = measure(threads: threads) { _, _ in
                    _ = try store.client(id: client.id)
                }
                // The refresh grant's store trip: the one-step rotation (RefreshRotationStorage),
                // which returns the family and its person, decoded from one row of 20 columns.
                let oneStepFamilies = (0..<threads).map { _ in
                    RefreshFamily(clientID: client.id, userID: user.id, scopes: ["openid", "profile"], authTime: now)
                }
                try store.transaction { transaction in
                    for (thread, family) in oneStepFamilies.enumerated() {
                        try transaction.insert(family, token: "\(family.id).s-\(thread)-0", expiresAt: now + 86_400)
                    }
                }
                let rotateOneStep = measure(threads: threads) { thread, index in
                    let family = oneStepFamilies[thread]
                    let record = try store.writeOne { transaction in
                        try transaction.rotateRefreshToken(
                            familyID: family.id, from: SecretHash.digest("\(family.id).s-\(thread)-\(index)"),
                            to: SecretHash.digest("\(family.id).s-\(thread)-\(index + 1)"), clientID: client.id,
                            now: now, expiresAt: now + 86_400)
                    }
                    guard record != nil else { throw StoreError.misuse("not rotated in one step") }
                }
                // Userinfo's store trip when its cache has not got the token: its revocation
                // standing and its person (BearerAccessStorage).
                let standing = measure(threads: threads) { _, index in
                    let standing = try store.readOne { transaction in
                        try transaction.accessTokenStanding(
                            id: "jti-\(index)", userID: user.id, clientID: client.id, issuedAt: now)
                    }
                    guard standing.user != nil, !standing.isRevoked else { throw StoreError.misuse("no standing") }
                }
                for (operation, figures) in [
                    ("create code", create), ("redeem code", redeem), ("rotate refresh token", rotate),
                    ("read client", lookup), ("rotate in one step", rotateOneStep), ("token standing", standing),
                ] {
                    let key = "\(operation)|\(name)|\(threads)"
                    let previous = best[key]
                    best[key] = Row(
                        operation: operation, strategy: name, threads: threads,
                        rate: max(figures.rate, previous?.rate ?? 0),
                        cpuMicroseconds: min(figures.cpuMicroseconds, previous?.cpuMicroseconds ?? .infinity))
                }
                store.close()
            }
        }
    }
} catch {
    FileHandle.standardError.write(Data("portico-bench-store: \(error)\n".utf8))
    exit(1)
}

func padded(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

print(
    "PorticoStore (SQLite, WAL, synchronous=NORMAL): \(operationsPerThread) operations per thread, best of \(rounds)")
print(padded("operation", 22) + padded("strategy", 20) + padded("threads", 9) + padded("ops/s", 10) + "CPU µs/op")
for row in best.values.sorted(by: { ($0.operation, $0.threads, $0.strategy) < ($1.operation, $1.threads, $1.strategy) })
{
    print(
        padded(row.operation, 22) + padded(row.strategy, 20) + padded("\(row.threads)", 9)
            + padded(String(Int(row.rate)), 10) + String(format: "%.1f", row.cpuMicroseconds))
}
