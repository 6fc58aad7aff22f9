// portico-bench-seed: seeds a database for the identity-provider benchmark (bench/idp/run.sh).
// Run it on a fresh database before `portico serve` opens it; see SeedOptions.usage.
import Foundation
import PorticoStore
import PorticoStorePostgres
import PorticoStoreSQLite

/// Writes one line to stderr.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

do {
    let options = try SeedOptions(arguments: Array(CommandLine.arguments.dropFirst()))
    if let samples = options.timeHashesOnly {
        let (_, milliseconds) = try Seeder.timedPasswordHash(samples: samples)
        print(String(format: "HASH_MS=%.2f", milliseconds))
        exit(0)
    }
    if let seconds = options.timeRS256Only {
        let threads = ProcessInfo.processInfo.activeProcessorCount
        let rate = try SigningCeiling.signsPerCoreSecond(threads: threads, seconds: Double(seconds))
        print(String(format: "RS256_SIGNS_PER_CORE=%.0f", rate))
        exit(0)
    }
    StoreBackends.register(SQLiteBackend())
    StoreBackends.register(PostgresBackend())
    let store = try StoreBackends.open(options.databaseURL)
    defer { store.close() }
    try Seeder(options: options, store: store, log: printError).run()
} catch SeedOptions.Problem.help {
    print(SeedOptions.usage)
} catch let problem as SeedOptions.Problem {
    printError(problem.description)
    printError(SeedOptions.usage)
    exit(2)
} catch {
    printError("portico-bench-seed: \(error)")
    exit(1)
}
