import CArgon2
import Foundation
import PorticoCrypto

/// Hashes and verifies passwords with Argon2id (RFC 9106) through the reference libargon2,
/// storing PHC strings such as `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`.
///
/// A PHC string carries its own parameters, so settings can be raised without invalidating
/// stored hashes; `needsRehash(_:)` tells the sign-in code when to replace one. Hashing costs
/// tens of milliseconds and ~19 MiB by design: call it from the worker pool, never from the
/// HTTP threads. Passwords are hashed as their UTF-8 bytes, without normalization.
public struct PasswordHasher: Sendable {
    /// The parameters for new hashes.
    public let settings: PasswordHashingSettings

    /// Bounds on parameters read from stored PHC strings. A corrupted or planted hash asking
    /// for terabytes of memory or millions of passes is treated as not matching instead.
    static let maximumMemoryKiB: UInt32 = 4 * 1024 * 1024
    static let maximumIterations: UInt32 = 1_000
    static let maximumParallelism: UInt32 = 64

    /// At most two hashes per core at once, whatever the number of worker threads: each takes
    /// its ~19 MiB for its whole run, and more at once than the cores can compute would only
    /// add memory, not sign-ins. (With PostgreSQL the provider runs more worker threads than
    /// that, so that threads waiting on the database never leave a core without a hash.)
    /// Set up with the first hash: glibc is also told to hand each hash's memory back when it
    /// is freed, so that the peak RSS follows the hashes at once, not the worker threads.
    private static let gate: DispatchSemaphore = {
        portico_argon2_return_memory_when_freed()
        return DispatchSemaphore(value: 2 * max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
    }()

    /// Runs `body` holding one of the gate's places.
    private static func gated<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        gate.wait()
        defer { gate.signal() }
        return try body()
    }

    /// A hasher for `settings` (the DESIGN's defaults unless given).
    public init(settings: PasswordHashingSettings = .standard) {
        self.settings = settings
    }

    /// The PHC string for `password` with a fresh 16-byte random salt.
    public func hash(_ password: String) throws(PasswordHashingError) -> String {
        try Self.gated { () throws(PasswordHashingError) -> String in try unGatedHash(password) }
    }

    private func unGatedHash(_ password: String) throws(PasswordHashingError) -> String {
        let salt = SecureRandom.bytes(count: settings.saltLength)
        let password = Array(password.utf8)
        let length = argon2_encodedlen(
            settings.iterations, settings.memoryKiB, settings.parallelism, UInt32(clamping: settings.saltLength),
            UInt32(clamping: settings.hashLength), Argon2_id)
        var encoded = [CChar](repeating: 0, count: length)
        let result = password.withUnsafeBytes { passwordBytes in
            salt.withUnsafeBytes { saltBytes in
                argon2id_hash_encoded(
                    settings.iterations, settings.memoryKiB, settings.parallelism, passwordBytes.baseAddress,
                    passwordBytes.count, saltBytes.baseAddress, saltBytes.count, settings.hashLength, &encoded,
                    encoded.count)
            }
        }
        guard result == ARGON2_OK.rawValue else {
            throw .argon2(code: result, message: String(cString: argon2_error_message(result)))
        }
        return String(decoding: encoded.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` matches the stored `phc` string. Anything malformed, of another
    /// Argon2 variant, or with out-of-range parameters is simply `false`; the comparison inside
    /// libargon2 is constant-time.
    public func verify(_ password: String, against phc: String) -> Bool {
        guard PHCParameters(phc) != nil, !phc.utf8.contains(0) else { return false }
        let password = Array(password.utf8)
        let result = Self.gated { () -> Int32 in
            password.withUnsafeBytes { bytes in argon2id_verify(phc, bytes.baseAddress, bytes.count) }
        }
        return result == ARGON2_OK.rawValue
    }

    /// Whether `phc` should be replaced by a hash with the current settings: true when its
    /// version, memory, iterations, parallelism or hash length differ, its salt is shorter,
    /// or it cannot be read at all. Call it after a successful `verify`.
    public func needsRehash(_ phc: String) -> Bool {
        guard let parameters = PHCParameters(phc) else { return true }
        return parameters.version != UInt32(ARGON2_VERSION_13.rawValue) || parameters.memoryKiB != settings.memoryKiB
            || parameters.iterations != settings.iterations || parameters.parallelism != settings.parallelism
            || parameters.hashLength != settings.hashLength || parameters.saltLength < settings.saltLength
    }
}

/// The parameters of an Argon2id PHC string, read strictly and bounded.
struct PHCParameters: Equatable {
    var version: UInt32
    var memoryKiB: UInt32
    var iterations: UInt32
    var parallelism: UInt32
    var saltLength: Int
    var hashLength: Int

    /// Parses `$argon2id$v=19$m=…,t=…,p=…$salt$hash`; nil for anything else.
    init?(_ phc: String) {
        guard phc.utf8.count <= 512 else { return nil }
        let fields = phc.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 6, fields[0].isEmpty, fields[1] == "argon2id" else { return nil }
        guard fields[2].hasPrefix("v="), let version = UInt32(fields[2].dropFirst(2)) else { return nil }
        let costs = fields[3].split(separator: ",", omittingEmptySubsequences: false)
        guard costs.count == 3, costs[0].hasPrefix("m="), costs[1].hasPrefix("t="), costs[2].hasPrefix("p="),
            let memory = UInt32(costs[0].dropFirst(2)), let iterations = UInt32(costs[1].dropFirst(2)),
            let parallelism = UInt32(costs[2].dropFirst(2))
        else { return nil }
        guard (1...PasswordHasher.maximumIterations).contains(iterations),
            (1...PasswordHasher.maximumParallelism).contains(parallelism),
            (8 * parallelism...PasswordHasher.maximumMemoryKiB).contains(memory)
        else { return nil }
        guard let saltLength = Self.decodedLength(fields[4]), let hashLength = Self.decodedLength(fields[5]),
            saltLength >= 8, hashLength >= 4
        else { return nil }
        self.version = version
        self.memoryKiB = memory
        self.iterations = iterations
        self.parallelism = parallelism
        self.saltLength = saltLength
        self.hashLength = hashLength
    }

    /// The byte length of unpadded standard base64 text, or nil if it is not such text.
    private static func decodedLength(_ text: Substring) -> Int? {
        let valid = text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                true
            default:
                false
            }
        }
        let count = text.utf8.count
        guard valid, count % 4 != 1 else { return nil }
        return count * 3 / 4
    }
}
