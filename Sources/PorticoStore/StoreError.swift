/// What went wrong in the store, typed so that the identity provider can answer a request
/// precisely (a taken e-mail address is a form error, a full disk is a 503) without parsing
/// database messages.
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
    /// The URL names a backend that this build cannot open yet.
    case backendUnavailable(String)
    /// The caller passed a value the store cannot keep (for example a confidential client
    /// without a secret, or text longer than SQLite accepts).
    case invalidArgument(String)
    /// The database stayed locked by other writers for longer than the busy timeout.
    case busy(String)
    /// Reading or writing the database file failed (permissions, full disk, missing directory).
    case io(String)
    /// The database file can be read by other local users; the message says the `chmod` that
    /// fixes it. Refused rather than opened, because the file holds everyone's sessions and
    /// grants.
    case readableByOthers(String)
    /// The file is not a database or is damaged; the message is SQLite's.
    case corrupt(String)
    /// The store was closed; a new one must be opened.
    case closed
    /// A transaction was used after its body returned, or a read transaction tried to write.
    case misuse(String)
    /// Any other database failure, with the backend's own code and message.
    case database(code: Int32, message: String)

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
        case .backendUnavailable(let message):
            message
        case .invalidArgument(let message):
            "invalid value: \(message)"
        case .busy(let message):
            "database busy: \(message)"
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
        case .database(let code, let message):
            "database error \(code): \(message)"
        }
    }
}
