import PorticoStore

/// A request to create a platform account (`portico user add`, and the demo person).
///
/// The password is hashed with Argon2id before anything is stored; the e-mail address must look
/// like one and be free in any letter case.
public struct UserRegistration: Sendable {
    /// Passwords longer than this are refused even where the pages' rules do not apply, so
    /// nobody can make the server hash megabytes.
    public static let maximumPasswordLength = 1024

    /// The address the person signs in with.
    public var email: String
    /// The display name.
    public var name: String
    /// The postal code, shared under the `postal_code` scope.
    public var postalCode: String?
    /// The password in plain text; only its hash is stored.
    public var password: String
    /// Whether the operator vouches that the person receives mail at ``email``
    /// (`portico user add --email-verified`; the demo person); reported as `email_verified`.
    public var isEmailVerified: Bool
    /// Whether the password must follow the rules of the sign-up and reset pages (15 to 128
    /// characters, not common, not the address or name). True for `portico user add`: one rule
    /// for every password a person signs in with. Only the demo person (whose password is
    /// printed for everyone anyway) and test fixtures turn it off.
    public var checksPasswordRules: Bool

    /// A registration of these values.
    public init(
        email: String, name: String, postalCode: String? = nil, password: String, isEmailVerified: Bool = false,
        checksPasswordRules: Bool = true
    ) {
        self.email = email
        self.name = name
        self.postalCode = postalCode
        self.password = password
        self.isEmailVerified = isEmailVerified
        self.checksPasswordRules = checksPasswordRules
    }

    /// Validates, hashes the password with `hasher` and stores the user, with an audit event
    /// by `actor` (nil: the new user, as after a self-service sign-up) named `action`.
    public func register(
        in store: any Store, hasher: PasswordHasher = PasswordHasher(), actor: String? = "cli",
        action: String = "user.add"
    ) throws(AdminError) -> UserRecord {
        let user = try validatedUser(hasher: hasher)
        do {
            try store.transaction { transaction in
                try transaction.insert(user)
                try transaction.append(AuditEvent(actor: actor ?? user.id, action: action, subject: user.id))
            }
        } catch let error as StoreError {
            if case .duplicate = error {
                throw .conflict("a user with the e-mail address \(user.email) already exists")
            }
            throw .storage(error.description)
        } catch {
            throw AdminError.wrapping(error)
        }
        return user
    }

    private func validatedUser(hasher: PasswordHasher) throws(AdminError) -> UserRecord {
        let email = email.trimmingSpaces
        guard Self.looksLikeEmail(email) else {
            throw .invalid("'\(email)' is not an e-mail address (expected name@example.com)")
        }
        let name = try AdminText.checked(name, field: "name", maximumLength: 200)
        var postalCode: String?
        if let given = self.postalCode {
            let code = try AdminText.checked(given, field: "postal code", maximumLength: 20)
            guard code.allSatisfy({ $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" }) else {
                throw .invalid("postal code '\(code)' may hold only letters, digits, spaces and hyphens")
            }
            postalCode = code
        }
        if checksPasswordRules, let problem = PasswordPolicy.problem(with: password, email: email, name: name) {
            throw .invalid("password refused: \(problem.message.english)")
        }
        guard !password.isEmpty, password.count <= Self.maximumPasswordLength else {
            throw .invalid("the password must be at most \(Self.maximumPasswordLength) characters long")
        }
        let hash: String
        do {
            hash = try hasher.hash(password)
        } catch {
            throw .storage("could not hash the password: \(error)")
        }
        return UserRecord(
            email: email, name: name, postalCode: postalCode, passwordHash: hash, isEmailVerified: isEmailVerified)
    }

    /// A pragmatic shape check: one `@`, a non-empty local part, a dotted domain of letters,
    /// digits and hyphens, no spaces or control characters, at most 254 characters. Whether the
    /// address receives mail is not this check's business.
    public static func looksLikeEmail(_ text: String) -> Bool {
        guard text.count <= 254, !text.isEmpty else { return false }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, let local = parts.first, let domain = parts.last else { return false }
        guard !local.isEmpty, local.count <= 64,
            local.unicodeScalars.allSatisfy({
                $0.value > 0x20 && $0.value != 0x7F && !"()<>,;:\\\"[]".unicodeScalars.contains($0)
            })
        else { return false }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return false }
        return labels.allSatisfy { label in
            !label.isEmpty && label.count <= 63 && label.first != "-" && label.last != "-"
                && label.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" }
        }
    }
}
