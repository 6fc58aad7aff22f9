/// What went wrong in the store, typed so that the identity provider can answer a request
/// precisely (a taken e-mail address is a form error, a busy database a 503) without parsing
/// database messages.
///
/// The cases say what happened, not which database said it: each backend maps its own codes
/// onto them (the SQLite backend maps `SQLITE_BUSY` onto ``conflict(_:)``, a PostgreSQL one
/// would map `40001` onto ``serializationFailure(_:)`` and a lost connection onto
/// ``unavailable(_:)``), so the provider handles every backend with the same code.
public enum StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A value that must be unique is already taken; `field` names it as the caller knows it
    /// (`"email"`, `"id"`, `"user_code"`), never as a database column.
    case duplicate(field: String)
    /// A row refers to another that does not exist (a session for an unknown user, a code for an
    /// unknown client); `reference` says which kinds of row the operation refers to.
    case missingReference(String)
    /// An update addressed a row that does not exist; deletes return `false` instead.
    case notFound(entity: String, id: String)
    /// The database was written by a newer Portico; running older code on it could corrupt it.
    case schemaTooNew(found: Int, supported: Int)
    /// The database URL has a form Portico does not understand.
    case unsupportedURL(String)
    /// The database (named as its URL gives it, a file's path) does not exist, and the caller
    /// did not ask for one to be made (``StoreOpening/creating``).
    case databaseMissing(String)
    /// The URL names a backend that this build cannot open yet.
    case backendUnavailable(String)
    /// The caller passed a value the store cannot keep (for example a confidential client
    /// without a secret, or text longer than the database accepts).
    case invalidArgument(String)
    /// Other transactions held what this one needs for longer than the backend waits (SQLite's
    /// busy timeout, a lock timeout). Nothing was written; the request may be tried again later
    /// (the provider answers 503 with `Retry-After`).
    case conflict(String)
    /// The database aborted the transaction so that concurrent ones stay serializable (a
    /// serialization failure or deadlock). Nothing was written, and running the whole
    /// transaction body again is safe: see ``isRetryable`` and the store's "Implementation
    /// requirements".
    case serializationFailure(String)
    /// The database cannot be reached, or the connection was lost (for a commit in flight: it
    /// is unknown whether it happened).
    case unavailable(String)
    /// Reading or writing the database's storage failed (permissions, full disk, missing directory).
    case io(String)
    /// The database file can be read by other local users; the message says the `chmod` that
    /// fixes it. Refused rather than opened, because the file holds everyone's sessions and
    /// grants.
    case readableByOthers(String)
    /// The database is damaged or not a database; the message is the backend's.
    case corrupt(String)
    /// The store was closed; a new one must be opened.
    case closed
    /// A transaction was used after its body returned, or a read transaction tried to write.
    case misuse(String)
    /// Any other database failure, in the backend's words (its code and message).
    case failure(String)

    /// One line that an operator can act on; the CLI prints it as it is.
    public var description: String {
        switch self {
        case .duplicate(let field):
            "a record with this \(field) already exists"
        case .missingReference(let reference):
            "the referenced \(reference) does not exist"
        case .notFound(let entity, let id):
            "\(entity) \(id) not found"
        case .schemaTooNew(let found, let supported):
            "database schema version \(found) is newer than this portico understands (\(supported)); upgrade portico"
        case .unsupportedURL(let url):
            "unsupported database URL '\(url)': use sqlite:PATH, sqlite::memory: or postgres://user@host:port/db"
        case .databaseMissing(let name):
            "no database at \(name)"
        case .backendUnavailable(let message):
            message
        case .invalidArgument(let message):
            "invalid value: \(message)"
        case .conflict(let message):
            "database busy: \(message)"
        case .serializationFailure(let message):
            "database serialization failure (retry the transaction): \(message)"
        case .unavailable(let message):
            "database unavailable: \(message)"
        case .io(let message):
            "database I/O error: \(message)"
        case .readableByOthers(let message):
            message
        case .corrupt(let message):
            "database file is damaged or not a database: \(message)"
        case .closed:
            "the store is closed"
        case .misuse(let message):
            "store misuse: \(message)"
        case .failure(let message):
            message
        }
    }

    /// Whether the failure is the database's state at this moment rather than the request's
    /// fault, so that the same request may succeed shortly: a conflict, a serialization
    /// failure, an unreachable database.
    public var isTemporary: Bool {
        switch self {
        case .conflict, .serializationFailure, .unavailable: true
        default: false
        }
    }

    /// Whether the transaction body may simply be run again at once: the database rolled it
    /// back to keep concurrent transactions serializable.
    public var isRetryable: Bool {
        if case .serializationFailure = self { return true }
        return false
    }
}
