import Foundation
import PorticoServer
import PorticoStore

/// `portico keys list | rotate | revoke`: the signing keys, so operators can see what signs and
/// what is published, replace them, and drop a compromised one at once.
enum KeysCommand {
    static let summary = "list, rotate and revoke signing keys"
    static let usage = """
        usage: portico keys list [--json] [--database URL]
               portico keys rotate [--alg RS256|ES256|EdDSA|PS256] [--json] [--database URL]
                                   [--key-file PATH]
               portico keys revoke KID [--json] [--database URL] [--key-file PATH]

        list    shows the signing keys: kid, algorithm, state (published: in the JWKS,
                waiting to sign; active; retired: in the JWKS, signing nothing), whether it
                is the current signer of its algorithm, and when it was made. The first
                start (or 'portico migrate') makes one key per algorithm: RS256, ES256,
                EdDSA and PS256 (an RSA key of its own), which sign at once; a database
                from before PS256 gains its key the same way. Private keys are never printed.
                  --json   a JSON array of {"kid", "alg", "state", "current", "created",
                           "signs_from"}
        rotate  publishes a new key for its algorithm; without --alg, for all four. It is
                in the JWKS at once but signs only after \(Int(SigningKeyRotation.publicationDelay)) seconds (the JWKS's
                cache lifetime plus the servers' reload interval), so no relying party
                meets a token signed with a key its cached JWKS lacks; the current key
                signs until then. Then it is retired: it signs nothing more but stays
                published for 65 minutes, until every token it signed has expired (access
                and ID tokens live an hour); then it is deleted. Running servers do all
                this by themselves, without a restart.
                  --alg ALG  rotate only RS256, ES256, EdDSA or PS256
                  --json     a JSON array of {"alg", "kid", "signs_from", "previous_kid",
                             "previous_published_until"}
        revoke  removes a compromised key at once: it leaves the JWKS and nothing it signed
                verifies any more (running servers drop it within seconds). If it was its
                algorithm's signer, a new key takes over.
                  --json     {"kid", "alg", "replacement_kid"}

          --database URL    sqlite:PATH or postgres://user@host:port/db
                            (PORTICO_DATABASE, default \(DatabaseOption.defaultURL))
          --key-file PATH   the key that encrypts the signing keys (PORTICO_KEY_FILE,
                            default DATABASE.key beside an SQLite database); list
                            ignores it, since it never reads a private key
        """

    static func run(_ arguments: inout Arguments, environment: [String: String]) throws {
        let url = try DatabaseOption.url(&arguments, environment: environment)
        let action = try Subcommand.action(&arguments, command: "keys", actions: ["list", "rotate", "revoke"])
        let keyFile = try KeyFileOption.path(&arguments, environment: environment)
        if action == "rotate" { return try rotate(&arguments, database: url, keyFile: keyFile) }
        if action == "revoke" { return try revoke(&arguments, database: url, keyFile: keyFile) }
        let json = arguments.flag("json")
        try arguments.finish()
        let store = try DatabaseOption.open(url)
        defer { store.close() }
        let keys: [StoredSigningKey]
        do {
            keys = try store.signingKeys()
        } catch {
            throw CommandLineError.failure("cannot read signing keys: \(error)")
        }
        let formatter = ISO8601DateFormatter()
        if json {
            let objects = keys.map { key in
                "{\"kid\": \(JSONLine.quoted(key.id)), \"alg\": \(JSONLine.quoted(key.algorithm)), "
                    + "\"state\": \(JSONLine.quoted(SigningKeyRotation.stateName(of: key))), "
                    + "\"current\": \(key.isCurrent), "
                    + "\"created\": \(JSONLine.quoted(formatter.string(from: key.createdAt))), "
                    + "\"signs_from\": \(key.signsFrom.map { JSONLine.quoted(formatter.string(from: $0)) } ?? "null")}"
            }
            print("[" + objects.joined(separator: ", ") + "]")
            return
        }
        guard !keys.isEmpty else {
            print("no signing keys yet; 'portico serve' or 'portico migrate' makes them")
            return
        }
        let kidWidth = max(3, keys.map(\.id.count).max() ?? 3)
        print(row(["KID".padded(kidWidth), "ALG   ", "STATE    ", "CURRENT", "CREATED"]))
        for key in keys {
            var cells = [
                key.id.padded(kidWidth), key.algorithm.padded(6), SigningKeyRotation.stateName(of: key).padded(9),
                (key.isCurrent ? "yes" : "no").padded(7), formatter.string(from: key.createdAt),
            ]
            if SigningKeyRotation.isWaiting(key), let from = key.signsFrom {
                cells.append("(signs from \(formatter.string(from: from)))")
            }
            if let until = SigningKeyRotation.publishedUntil(key) {
                cells.append("(published until \(formatter.string(from: until)))")
            }
            print(row(cells))
        }
    }

    private static func rotate(_ arguments: inout Arguments, database url: String, keyFile: String?) throws {
        let chosen = try arguments.value("alg")
        let json = arguments.flag("json")
        try arguments.finish()
        var algorithms = SigningKeyRotation.algorithms
        if let chosen {
            algorithms = [try performing { () throws(AdminError) in try SigningKeyRotation.algorithm(named: chosen) }]
        }
        let store = try DatabaseOption.open(url)
        defer { store.close() }
        let encryption = try KeyFileOption.encryption(keyFile: keyFile, store: store)
        let rotations = try performing { () throws(AdminError) in
            try SigningKeyRotation.rotate(algorithms: algorithms, in: store, encryption: encryption)
        }
        // Housekeeping an operator expects from a rotation: keys whose time is up go now.
        _ = try? SigningKeyRotation.deleteExpiredKeys(in: store)
        let formatter = ISO8601DateFormatter()
        if json {
            let objects = rotations.map { rotation in
                "{\"alg\": \(JSONLine.quoted(rotation.algorithm)), \"kid\": \(JSONLine.quoted(rotation.keyID)), "
                    + "\"signs_from\": \(JSONLine.quoted(formatter.string(from: rotation.signsFrom))), "
                    + "\"previous_kid\": \(rotation.previousKeyID.map(JSONLine.quoted) ?? "null"), "
                    + "\"previous_published_until\": "
                    + "\(rotation.previousPublishedUntil.map { JSONLine.quoted(formatter.string(from: $0)) } ?? "null")}"
            }
            print("[" + objects.joined(separator: ", ") + "]")
            return
        }
        for rotation in rotations {
            print(
                "\(rotation.algorithm): new signing key \(rotation.keyID), published now, "
                    + "signs from \(formatter.string(from: rotation.signsFrom))")
            if let previous = rotation.previousKeyID, let until = rotation.previousPublishedUntil {
                print("  \(previous) signs until then; it stays in the JWKS until \(formatter.string(from: until))")
            }
        }
    }

    private static func revoke(_ arguments: inout Arguments, database url: String, keyFile: String?) throws {
        guard let keyID = arguments.positional() else {
            throw CommandLineError.usage(
                "'portico keys revoke' needs the KID of the key; 'portico keys list' shows them")
        }
        let json = arguments.flag("json")
        try arguments.finish()
        let store = try DatabaseOption.open(url)
        defer { store.close() }
        let encryption = try KeyFileOption.encryption(keyFile: keyFile, store: store)
        let revocation = try performing { () throws(AdminError) in
            try SigningKeyRevocation.revoke(keyID: keyID, in: store, encryption: encryption)
        }
        if json {
            print(
                "{\"kid\": \(JSONLine.quoted(revocation.keyID)), \"alg\": \(JSONLine.quoted(revocation.algorithm)), "
                    + "\"replacement_kid\": \(revocation.replacementKeyID.map(JSONLine.quoted) ?? "null")}")
            return
        }
        print("revoked \(revocation.algorithm) key \(revocation.keyID): it is no longer published")
        if let replacement = revocation.replacementKeyID {
            print("  new \(revocation.algorithm) signing key \(replacement)")
        }
    }

    private static func row(_ cells: [String]) -> String {
        cells.joined(separator: "  ")
    }
}

extension String {
    /// The string padded with spaces to `width` characters (never cut).
    func padded(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
