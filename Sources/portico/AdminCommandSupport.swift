import PorticoCrypto
import PorticoServer

extension CommandLineError {
    /// The command-line form of an admin error: a bad value is a usage mistake (exit 2), a
    /// conflict, a missing record or a database failure is a failure (exit 1).
    init(_ error: AdminError) {
        switch error {
        case .invalid(let message): self = .usage(message)
        case .conflict(let message), .notFound(let message), .storage(let message): self = .failure(message)
        }
    }
}

/// Runs an admin operation and turns its typed error into the command line's.
func performing<Value>(_ body: () throws(AdminError) -> Value) throws(CommandLineError) -> Value {
    do {
        return try body()
    } catch {
        throw CommandLineError(error)
    }
}

/// Writes the small JSON objects the DESIGN fixes (`{"client_id": "...", ...}`): members in the
/// given order, a space after each colon, strings escaped by PorticoCrypto's JSON writer.
enum JSONLine {
    /// One object of string members, or of nested raw JSON when `raw` is used.
    static func object(_ members: [(String, String)]) -> String {
        "{" + members.map { "\(quoted($0.0)): \(quoted($0.1))" }.joined(separator: ", ") + "}"
    }

    /// A JSON string literal.
    static func quoted(_ text: String) -> String {
        JSONValue.string(text).jsonString
    }

    /// A JSON array of strings.
    static func array(_ values: [String]) -> String {
        "[" + values.map(quoted).joined(separator: ", ") + "]"
    }
}

/// Splits `client add`-style subcommand words: the first positional word names the action.
enum Subcommand {
    /// The action word, or a usage error listing the ones that exist.
    static func action(_ arguments: inout Arguments, command: String, actions: [String]) throws -> String {
        guard let action = arguments.positional() else {
            throw CommandLineError.usage(
                "'portico \(command)' needs one of: \(actions.joined(separator: ", ")); try 'portico \(command) --help'"
            )
        }
        guard actions.contains(action) else {
            throw CommandLineError.usage(
                "unknown action '\(command) \(action)'; use one of: \(actions.joined(separator: ", "))")
        }
        return action
    }
}
