import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

/// Private signing keys at rest: sealed with a key file that is not in the database, so a copy
/// of the database alone cannot sign; files owner-only whatever the umask; plain keys of older
/// databases sealed on the first start; the admin commands use the same key file.
@Suite struct KeysAtRestTests {
    private func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int) & 0o777
    }

    /// Runs `portico` under `umask 000` through the shell, the worst umask a service may have.
    private func porticoUnderOpenUmask(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "umask 000; exec \"$0\" \"$@\"", PorticoProcess.executable.path] + arguments
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        )
    }

    private func bytes(_ path: String) -> [UInt8] {
        (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))) ?? []
    }

    private func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
        let pattern = Array(needle.utf8)
        guard haystack.count >= pattern.count else { return false }
        return (0...(haystack.count - pattern.count)).contains {
            haystack[$0..<($0 + pattern.count)].elementsEqual(pattern)
        }
    }

    @Test func aNewDatabaseUnderUmaskZeroIsOwnerOnlyAndHoldsNoPlainKey() throws {
        let database = try CLIDatabase()
        let folder = database.directory.appendingPathComponent("data").path
        let path = folder + "/portico.db"
        let result = try porticoUnderOpenUmask(["migrate", "--database", "sqlite:\(path)"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try mode(folder) == 0o700)
        #expect(try mode(path) == 0o600)
        #expect(try mode(path + ".key") == 0o600)
        let store = try openStore(url: "sqlite:\(path)")
        defer { store.close() }
        let keys = try store.signingKeys()
        #expect(keys.count == 4)
        #expect(keys.allSatisfy { KeyEncryptionKey.isSealed($0.privateKeyPEM) })
        let plainLeft = contains(bytes(path) + bytes(path + "-wal"), "PRIVATE KEY")
        #expect(!plainLeft)
    }

    @Test func theDatabaseAloneCannotSign() throws {
        let database = try CLIDatabase()
        #expect(try database.portico(["migrate"]).status == 0)
        let copy = try CLIDatabase()
        let copied = copy.directory.path + "/portico.db"
        try FileManager.default.copyItem(atPath: database.directory.path + "/portico.db", toPath: copied)
        let rotate = try copy.portico(["keys", "rotate"])
        #expect(rotate.status == 1)
        #expect(rotate.stderr.contains("encrypted, but the key file \(copied).key does not exist"), "\(rotate.stderr)")
        #expect(!FileManager.default.fileExists(atPath: copied + ".key"))
        let wrong = copy.directory.path + "/wrong.key"
        try Data((KeyEncryptionKey.generate().encoded + "\n").utf8).write(to: URL(fileURLWithPath: wrong))
        #expect(chmod(wrong, 0o600) == 0)
        let serve = try PorticoProcess.run(
            ["serve", "--port", "0", "--database", copy.url, "--key-file", wrong], timeout: 30)
        #expect(serve.status == 1)
        #expect(serve.stderr.contains("does not open signing key"), "\(serve.stderr)")
        #expect(serve.stderr.split(separator: "\n").count == 1)
    }

    @Test func aKeyFileOthersCanReadIsRefusedWithTheChmod() throws {
        let database = try CLIDatabase()
        #expect(try database.portico(["migrate"]).status == 0)
        let keyFile = database.directory.path + "/portico.db.key"
        #expect(chmod(keyFile, 0o644) == 0)
        let result = try database.portico(["keys", "rotate"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("run: chmod 600 \(keyFile)"), "\(result.stderr)")
    }

    @Test func serveRefusesADatabaseOthersCanReadInOneLine() throws {
        let database = try CLIDatabase()
        #expect(try database.portico(["migrate"]).status == 0)
        let path = database.directory.path + "/portico.db"
        #expect(chmod(path, 0o644) == 0)
        for arguments in [["serve", "--port", "0"], ["client", "list"], ["keys", "list"]] {
            let result = try database.portico(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr.contains("run: chmod 600 \(path)*"), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
    }

    @Test func aKeyFileOfItsOwnServesSeveralNodesAndTheAdminCommands() throws {
        let database = try CLIDatabase()
        let shared = try CLIDatabase()
        let keyFile = shared.directory.path + "/nodes.key"
        #expect(try database.portico(["migrate", "--key-file", keyFile]).status == 0)
        #expect(try mode(keyFile) == 0o600)
        #expect(!FileManager.default.fileExists(atPath: database.directory.path + "/portico.db.key"))
        // The environment names it as well as the flag does.
        let rotate = try PorticoProcess.run(
            ["keys", "rotate", "--alg", "ES256", "--database", database.url], environment: ["PORTICO_KEY_FILE": keyFile]
        )
        #expect(rotate.status == 0, "\(rotate.stderr)")
        let without = try database.portico(["keys", "rotate"])
        #expect(without.status == 1)
        let list = try database.portico(["keys", "list", "--json"])
        #expect(list.status == 0)
        let store = try openStore(url: database.url)
        defer { store.close() }
        let encryption = try SigningKeyEncryption.load(
            keyFile: keyFile, store: store)
        for record in try store.signingKeys() {
            #expect(KeyEncryptionKey.isSealed(record.privateKeyPEM))
            _ = try PorticoCrypto.SigningKey(pem: try encryption.privateKeyPEM(of: record), keyID: record.id)
        }
    }

    /// A database from before keys were encrypted: plain PEM rows are sealed on the first start,
    /// keeping their ids, states and current flags, so tokens they signed still verify.
    @Test func plainKeysOfAnOlderDatabaseAreSealedOnTheFirstStart() async throws {
        let database = try CLIDatabase()
        let path = database.directory.path + "/portico.db"
        let current = try PorticoCrypto.SigningKey.generate(.es256)
        let retired = try PorticoCrypto.SigningKey.generate(.rs256)
        do {
            let store = try openStore(url: database.url)
            defer { store.close() }
            try store.insert(
                StoredSigningKey(
                    id: retired.keyID, algorithm: "RS256", privateKeyPEM: retired.pemRepresentation, state: .retired,
                    createdAt: Date(timeIntervalSinceNow: -600), retiredAt: Date(timeIntervalSinceNow: -60)))
            try store.insert(
                StoredSigningKey(
                    id: current.keyID, algorithm: "ES256", privateKeyPEM: current.pemRepresentation, isCurrent: true))
        }
        let signedBefore = JWS.sign(claims: JWTClaims(subject: "ann"), key: current, type: "JWT")
        let provider = try IdentityProvider(
            configuration: ProviderConfiguration(
                port: 0, logRequests: false),
            store: try openStore(url: database.url, longRunning: true))
        try provider.start()
        do {
            let store = try openStore(url: database.url)
            defer { store.close() }
            let keys = try store.signingKeys()
            #expect(keys.allSatisfy { KeyEncryptionKey.isSealed($0.privateKeyPEM) })
            let migrated = try #require(keys.first { $0.id == current.keyID })
            #expect(migrated.isCurrent && migrated.state == .active)
            let old = try #require(keys.first { $0.id == retired.keyID })
            #expect(old.state == .retired && !old.isCurrent)
            #expect(try mode(path + ".key") == 0o600)
            let events = try store.recentAuditEvents(limit: 50).filter { $0.action == "keys.encrypt" }
            #expect(Set(events.map(\.subject)) == [current.keyID, retired.keyID])
            // The JWKS still publishes the same public keys: a token signed before verifies.
            let jwks = try await CLIHTTP.get("http://127.0.0.1:\(provider.port)/oauth/jwks")
            let verifier = try JWSVerifier(keySet: try JWKSet(json: jwks.body))
            _ = try verifier.verify(signedBefore, algorithms: [.es256])
        }
        provider.shutdown()
        // Once the server has stopped (its log copied into the file), no copy of the plain key
        // is left in the freed space of a page.
        let needle = String(current.pemRepresentation.dropFirst(40).prefix(60))
        let inFile = contains(bytes(path), needle)
        let inLog = contains(bytes(path + "-wal"), needle)
        #expect(!inFile, "the plain PEM is still in the database file")
        #expect(!inLog, "the plain PEM is still in the log \(FileManager.default.fileExists(atPath: path + "-wal"))")
    }
}
