import Foundation
import PorticoStore

/// `portico keys list`: the signing keys, so operators can see what signs and what is published.
enum KeysCommand {
    static let summary = "list signing keys"
    static let usage = """
        usage: portico keys list [--json] [--database URL]

        Lists the signing keys: kid, algorithm, state (active or retired), whether it is the
        current signer of its algorithm, and when it was made. The first start (or
        'portico migrate') makes one key per algorithm: RS256, ES256 and EdDSA. Private keys
        are never printed.

          --json            print a JSON array of {"kid", "alg", "state", "current", "created"}
          --database URL    sqlite:PATH or postgres://user@host:port/db
                            (PORTICO_DATABASE, default sqlite:./portico-data/portico.db)
        """

    static func run(_ arguments: inout Arguments, environment: [String: String]) throws {
        let url = try DatabaseOption.url(&arguments, environment: environment)
        _ = try Subcommand.action(&arguments, command: "keys", actions: ["list"])
        let json = arguments.flag("json")
        try arguments.finish()
        let store = try DatabaseOption.open(url)
        defer { store.close() }
        let keys: [SigningKey]
        do {
            keys = try store.signingKeys()
        } catch {
            throw CommandLineError.failure("cannot read signing keys: \(error)")
        }
        let formatter = ISO8601DateFormatter()
        if json {
            let objects = keys.map { key in
                "{\"kid\": \(JSONLine.quoted(key.id)), \"alg\": \(JSONLine.quoted(key.algorithm)), "
                    + "\"state\": \(JSONLine.quoted(key.state.rawValue)), \"current\": \(key.isCurrent), "
                    + "\"created\": \(JSONLine.quoted(formatter.string(from: key.createdAt)))}"
            }
            print("[" + objects.joined(separator: ", ") + "]")
            return
        }
        guard !keys.isEmpty else {
            print("no signing keys yet; 'portico serve' or 'portico migrate' makes them")
            return
        }
        let kidWidth = max(3, keys.map(\.id.count).max() ?? 3)
        print(row(["KID".padded(kidWidth), "ALG   ", "STATE  ", "CURRENT", "CREATED"]))
        for key in keys {
            print(
                row([
                    key.id.padded(kidWidth), key.algorithm.padded(6), key.state.rawValue.padded(7),
                    (key.isCurrent ? "yes" : "no").padded(7), formatter.string(from: key.createdAt),
                ]))
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
