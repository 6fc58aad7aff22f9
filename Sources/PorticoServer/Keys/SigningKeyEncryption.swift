import Foundation
import PorticoCrypto
import PorticoStore

/// How the private signing keys are kept at rest: sealed with a key-encryption key (AES-256-GCM)
/// that lives in a file of its own, so that a copy of the database alone cannot sign.
///
/// This is Ory Hydra's model (its JWKs are stored encrypted with the system secret given to
/// every node), not Keycloak's (plain keys in the database): the database is the thing that
/// gets backed up, replicated and read by other tools. By default the key file sits beside the
/// SQLite database (`portico.db.key`, mode 0600) and is made on the first start; several nodes
/// on one database are each given the same file with `--key-file` (`PORTICO_KEY_FILE`).
/// Keys stored in plain PEM by an older Portico are sealed on the first start that has a key
/// file (``sealPlainKeys(in:)``).
public struct SigningKeyEncryption: Sendable {
    private let key: KeyEncryptionKey
    /// The key file, or nil for a key that lives only in this process (an in-memory database).
    public let keyFilePath: String?

    /// A secret for `purpose` that every node with the same key file derives alike (see
    /// ``KeyEncryptionKey/derivedSecret(purpose:)``): for state that several nodes must share
    /// but that must not be kept in the database.
    func derivedSecret(purpose: String) -> [UInt8] {
        key.derivedSecret(purpose: purpose)
    }

    /// A key that exists only in this process, for a database that does too (`sqlite::memory:`).
    public static func ephemeral() -> SigningKeyEncryption {
        SigningKeyEncryption(key: .generate(), keyFilePath: nil)
    }

    /// Where the key file of a database file is by default: beside it, named after it. Nil for
    /// a database in this process and for a server (which has no folder of its own here).
    public static func defaultKeyFilePath(for location: StoreLocation) -> String? {
        guard case .file(let path) = location else { return nil }
        return path + ".key"
    }

    /// The encryption for the signing keys in `store`: `keyFile`, or the key file beside a
    /// database file; a database that lives only in this process gets a key that does too, and
    /// a server's needs `keyFile`.
    ///
    /// Reads `keyFile` (or the default beside an SQLite database). A missing file is made (0600,
    /// a new random key) unless the database already holds sealed keys, which a new key could
    /// never open: then this fails and names the file it looked for.
    ///
    /// - Throws: ``KeyFileError`` for a file other users can read, one that does not hold a
    ///   key, a PostgreSQL database without `--key-file`, or a file that cannot be read or made.
    public static func load(keyFile: String?, store: any Store) throws(KeyFileError)
        -> SigningKeyEncryption
    {
        let path: String
        if let keyFile {
            path = keyFile
        } else if let standard = defaultKeyFilePath(for: store.location) {
            path = standard
        } else if store.location == .process {
            return .ephemeral()
        } else {
            throw .required(
                "a database shared by several nodes needs --key-file PATH (or PORTICO_KEY_FILE): "
                    + "the same key file on every node, to encrypt the signing keys")
        }
        if let existing = try KeyFile.read(path: path) {
            return SigningKeyEncryption(key: existing, keyFilePath: path)
        }
        let sealed: Bool
        do {
            sealed = try store.signingKeys().contains { KeyEncryptionKey.isSealed($0.privateKeyPEM) }
        } catch {
            throw .storage("\(error)")
        }
        if sealed { throw .missing(path: path) }
        return SigningKeyEncryption(key: try KeyFile.create(path: path), keyFilePath: path)
    }

    /// The text to store for a new key's PEM.
    func seal(pem: String, keyID: String) throws -> String {
        try key.seal(pem, context: Self.context(keyID: keyID))
    }

    /// The PEM of a stored key: opened when sealed, as it is when still plain (an older database
    /// before ``sealPlainKeys(in:)`` ran).
    ///
    /// - Throws: ``KeyFileError/wrongKey(path:keyID:)`` when this key does not open it.
    public func privateKeyPEM(of record: StoredSigningKey) throws(KeyFileError) -> String {
        guard KeyEncryptionKey.isSealed(record.privateKeyPEM) else { return record.privateKeyPEM }
        do {
            return try key.open(record.privateKeyPEM, context: Self.context(keyID: record.id))
        } catch {
            throw .wrongKey(path: keyFilePath ?? "(in memory)", keyID: record.id)
        }
    }

    /// Seals every key still stored as plain PEM, in one transaction with an audit event each,
    /// and returns their ids: the migration of databases made before keys were encrypted.
    @discardableResult
    func sealPlainKeys(in store: any Store) throws -> [String] {
        guard try store.signingKeys().contains(where: { !KeyEncryptionKey.isSealed($0.privateKeyPEM) }) else {
            return []
        }
        let sealed = try store.transaction { transaction in
            let plain = try transaction.signingKeys().filter { !KeyEncryptionKey.isSealed($0.privateKeyPEM) }
            for record in plain {
                var sealed = record
                sealed.privateKeyPEM = try seal(pem: record.privateKeyPEM, keyID: record.id)
                // The record keeps its id, state, current flag and dates; only the PEM changes.
                _ = try transaction.deleteSigningKey(id: record.id)
                try transaction.insert(sealed)
                try transaction.append(
                    AuditEvent(actor: "system", action: "keys.encrypt", subject: record.id))
            }
            return plain.map(\.id)
        }
        try store.discardReplacedData()
        return sealed
    }

    /// The additional authenticated data of a sealed key: its `kid`, so a sealed PEM copied onto
    /// another row does not open.
    private static func context(keyID: String) -> String {
        "portico signing key \(keyID)"
    }
}
