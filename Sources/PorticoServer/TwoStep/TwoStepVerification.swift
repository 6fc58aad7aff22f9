import Foundation
import PorticoCrypto
import PorticoStore

/// Two-step verification's rules: the TOTP secret and its sealing, the codes accepted, and the
/// recovery codes.
///
/// TOTP (RFC 6238) with a 160-bit random secret, HMAC-SHA1, 6 digits and 30-second steps, the
/// parameters every authenticator app supports. A code of the current step or one step either
/// side is accepted (clocks drift; RFC 6238 §5.2 recommends at most one step back), and never a
/// code of a step already used or older: the last step used is stored with a conditional update,
/// so a code overheard or replayed, even on another node at the same instant, is refused.
///
/// The secret is sealed at rest (AES-256-GCM, bound to the account id) with a key derived from
/// the key-encryption key the signing keys are sealed with, so a copy of the database alone
/// yields no codes. Recovery codes are 50-bit random values shown once; the store keeps an
/// HMAC-SHA256 of each under another derived key. A fast keyed hash suffices where Argon2id is
/// needed for passwords because these are not chosen by people: 2^50 candidates per account
/// cannot be searched online through the throttle, and the key (not in the database) stops an
/// offline search of a stolen database altogether. The code is found by its hash, never
/// compared byte by byte, so timing says nothing about how close a guess was.
struct TwoStepVerification: Sendable {
    /// How many recovery codes a person gets.
    static let recoveryCodeCount = 10
    /// How long a half-done sign-in waits for its second step.
    static let pendingLifetime: TimeInterval = 5 * 60
    /// How long a shown but unconfirmed secret stays offered before a new one is made.
    static let pendingEnrollmentLifetime: TimeInterval = 30 * 60
    /// How many steps either side of now are accepted.
    static let window: Int64 = 1

    /// The provider's store, keys and clock.
    let environment: PageEnvironment

    private var sealingKey: KeyEncryptionKey? {
        KeyEncryptionKey(bytes: environment.keys.derivedSecret(purpose: "portico two-step secrets"))
    }

    private static func sealContext(userID: String) -> String {
        "portico two-step secret \(userID)"
    }

    /// A new random secret (160 bits, RFC 4226 §4's recommendation).
    static func makeSecret() -> [UInt8] {
        SecureRandom.bytes(count: 20)
    }

    /// `secret` sealed for `userID`'s row.
    func seal(_ secret: [UInt8], userID: String) throws -> String {
        guard let key = sealingKey else { throw PageProblem.serverFailure }
        return try key.seal(Base32.encode(secret), context: Self.sealContext(userID: userID))
    }

    /// The secret of `enrollment`, or nil when it does not open (another key file).
    func secret(of enrollment: TwoStepEnrollment) -> [UInt8]? {
        guard let key = sealingKey,
            let text = try? key.open(enrollment.sealedSecret, context: Self.sealContext(userID: enrollment.userID))
        else { return nil }
        return Base32.decode(text)
    }

    /// The time step whose code `code` is for `secret` now, or nil. Spaces are ignored.
    func matchingStep(of code: String, secret: [UInt8]) -> Int64? {
        let digits = code.filter { $0 != " " }
        let unixTime = Int64(environment.now().timeIntervalSince1970.rounded(.down))
        return OneTimePassword(secret: secret).matchingStep(of: digits, at: unixTime, window: Self.window)
    }

    /// The person's confirmed enrollment, if any.
    func confirmedEnrollment(userID: String) throws -> TwoStepEnrollment? {
        try environment.store.read { try $0.twoStepEnrollment(userID: userID) }.flatMap { $0.isConfirmed ? $0 : nil }
    }

    /// What a presented authenticator code turned out to be.
    enum CodeCheck: Sendable, Equatable {
        /// A valid code, used now for the first time (its step is recorded).
        case accepted
        /// A code of the window that is of a step already used or older: seen before, so
        /// overheard or phished, and refused (ASVS 2.8.5: audited and told).
        case replayed(step: Int64)
        /// Not a code of the window at all.
        case wrong
    }

    /// Checks `code` for the enrolled `userID`, recording its step when it is accepted, so that
    /// it is refused next time (the conditional update holds across nodes).
    func checkCode(_ code: String, userID: String) throws -> CodeCheck {
        guard let enrollment = try confirmedEnrollment(userID: userID), let secret = secret(of: enrollment),
            let step = matchingStep(of: code, secret: secret)
        else { return .wrong }
        let used = try environment.store.transaction { try $0.useTwoStepStep(userID: userID, step: step) }
        return used ? .accepted : .replayed(step: step)
    }

    /// Whether `code` is one of `userID`'s unused recovery codes; it is used up if so.
    func acceptRecoveryCode(_ code: String, userID: String) throws -> Bool {
        guard let hash = recoveryCodeHash(code, userID: userID) else { return false }
        let now = environment.now()
        return try environment.store.transaction { try $0.useRecoveryCode(userID: userID, hash: hash, at: now) }
    }

    /// Ten new recovery codes (`xxxxx-xxxxx`, base32 lower case), replacing the old ones in
    /// `transaction`; returned once for the page, never stored.
    func replaceRecoveryCodes(userID: String, in transaction: any StoreTransaction) throws -> [String] {
        let codes = (0..<Self.recoveryCodeCount).map { _ in
            let text = Base32.encode(SecureRandom.bytes(count: 7)).prefix(10).lowercased()
            return String(text.prefix(5)) + "-" + String(text.suffix(5))
        }
        let hashes = codes.compactMap { recoveryCodeHash($0, userID: userID) }
        try transaction.replaceRecoveryCodes(userID: userID, hashes: hashes, at: environment.now())
        return codes
    }

    /// The keyed hash of a recovery code as typed (case, spaces and hyphens ignored), bound to
    /// the account; nil for text that cannot be one.
    func recoveryCodeHash(_ code: String, userID: String) -> [UInt8]? {
        let normalized = code.lowercased().filter { $0 != "-" && $0 != " " }
        let alphabet = Set("abcdefghijklmnopqrstuvwxyz234567")
        guard normalized.count == 10, normalized.allSatisfy(alphabet.contains) else { return nil }
        let key = environment.keys.derivedSecret(purpose: "portico recovery codes")
        return HMAC.authenticationCode(for: Array((userID + "\n" + normalized).utf8), key: key, digest: .sha256)
    }

    /// The Key URI (Google Authenticator's format) an app scans: `otpauth://totp/Issuer:email?…`.
    static func keyURI(secret: [UInt8], email: String, issuer: String) -> String {
        let encodedIssuer = AuthorizationResponse.percentEncode(issuer)
        let label = encodedIssuer + ":" + AuthorizationResponse.percentEncode(email)
        return "otpauth://totp/\(label)?secret=\(Base32.encode(secret))&issuer=\(encodedIssuer)"
            + "&algorithm=SHA1&digits=6&period=30"
    }

    /// The secret as people type it: groups of four.
    static func grouped(_ secret: [UInt8]) -> String {
        var groups: [String] = []
        var current = ""
        for character in Base32.encode(secret) {
            current.append(character)
            if current.count == 4 {
                groups.append(current)
                current = ""
            }
        }
        if !current.isEmpty { groups.append(current) }
        return groups.joined(separator: " ")
    }
}
