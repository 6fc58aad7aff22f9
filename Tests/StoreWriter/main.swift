// portico-store-writer: the process that the crash-safety test kills with SIGKILL.
//
// Usage: portico-store-writer DATABASE_PATH [COUNT]
// Opens the store, then inserts users one per transaction and prints each committed user id
// on its own line, flushed, so that the test knows exactly which rows were committed before
// the kill. Stops after COUNT rows (default: a million), long after the test has killed it.
import Foundation
import PorticoStore
import PorticoStoreSQLite

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: portico-store-writer DATABASE_PATH [COUNT]\n".utf8))
    exit(2)
}
let count = arguments.count >= 3 ? Int(arguments[2]) ?? 1_000_000 : 1_000_000

do {
    let store = try SQLiteStore(path: arguments[1])
    let run = RecordIdentifier.random()
    for index in 0..<count {
        let user = UserRecord(
            email: "writer-\(run)-\(index)@example.test", name: "Writer \(index)",
            passwordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA")
        try store.transaction { transaction in
            try transaction.insert(user)
            try transaction.append(AuditEvent(actor: "writer", action: "user.add", subject: user.id))
        }
        // Written (unbuffered) only after COMMIT returned: every id on stdout is in the WAL.
        FileHandle.standardOutput.write(Data("\(user.id)\n".utf8))
    }
} catch {
    FileHandle.standardError.write(Data("portico-store-writer: \(error)\n".utf8))
    exit(1)
}
