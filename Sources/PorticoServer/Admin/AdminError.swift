import PorticoStore

/// Why an admin operation (`portico client add`, `user add`, `scope add`, …) was refused.
///
/// The command line turns ``invalid(_:)`` into a usage error (exit status 2) and the others
/// into failures (exit status 1); every case carries one line a person at a terminal can act on.
public enum AdminError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A value given to the command is not acceptable (a relative redirect URI, an unknown scope).
    case invalid(String)
    /// What the command would create already exists (a taken e-mail address, a scope name).
    case conflict(String)
    /// What the command names does not exist (an unknown client id).
    case notFound(String)
    /// The database refused or failed.
    case storage(String)

    /// The one line the command line prints.
    public var description: String {
        switch self {
        case .invalid(let message), .conflict(let message), .notFound(let message), .storage(let message):
            message
        }
    }

    /// Wraps any error thrown inside a store transaction: admin errors stay as they are, store
    /// errors become ``storage(_:)`` with the store's own one-line description.
    static func wrapping(_ error: any Error) -> AdminError {
        if let error = error as? AdminError { return error }
        if let error = error as? StoreError { return .storage(error.description) }
        return .storage("\(error)")
    }
}
