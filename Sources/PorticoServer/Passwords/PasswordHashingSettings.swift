/// Argon2id cost parameters for new password hashes.
///
/// The defaults are OWASP's Argon2id recommendation (m=19456 KiB, t=2, p=1), which the DESIGN
/// adopts. Raising them later is safe: stored hashes carry their own parameters, keep
/// verifying, and `PasswordHasher.needsRehash(_:)` reports them for rehashing at sign-in.
public struct PasswordHashingSettings: Sendable, Hashable {
    /// Memory per hash in KiB (Argon2 `m`); the main defence against GPU cracking.
    public var memoryKiB: UInt32
    /// Passes over memory (Argon2 `t`).
    public var iterations: UInt32
    /// Lanes (Argon2 `p`).
    public var parallelism: UInt32
    /// Salt length in bytes; 16 bytes of CSPRNG output makes every hash unique.
    public var saltLength: Int
    /// Hash output length in bytes.
    public var hashLength: Int

    /// Settings with the DESIGN's defaults unless given.
    public init(
        memoryKiB: UInt32 = 19_456, iterations: UInt32 = 2, parallelism: UInt32 = 1, saltLength: Int = 16,
        hashLength: Int = 32
    ) {
        self.memoryKiB = memoryKiB
        self.iterations = iterations
        self.parallelism = parallelism
        self.saltLength = saltLength
        self.hashLength = hashLength
    }

    /// m=19456 KiB, t=2, p=1, 16-byte salt, 32-byte hash.
    public static let standard = PasswordHashingSettings()
}
