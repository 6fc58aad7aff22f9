import PorticoStore

/// The rules for a password a person chooses (sign-up and password reset).
///
/// Why these rules (NIST SP 800-63B-4, §3.1.1.2, password verifiers):
/// - At least 15 characters: the revision says a password that is the only factor SHALL be at
///   least 15 characters long (8 only when it is one factor of several). A Portico password is
///   the only factor, and length is what makes a guess expensive.
/// - At most 128 characters: the guideline asks for a maximum of at least 64; 128 leaves room
///   for long passphrases and pasted generated passwords while bounding the Argon2id input.
/// - Length counts Unicode code points, as the guideline says, not bytes or grapheme clusters.
/// - No composition rules (the guideline forbids them), but a blocklist: the 10,000 most common
///   passwords (``CommonPasswords``), compared case-insensitively; the account's own e-mail
///   address, its local part, the person's name and the platform's name; and one short piece
///   repeated (`aaaaaaaaaaaaaaa`, `passwordpassword`).
///
/// The same rules apply to a password an operator sets with `portico user add`
/// (``UserRegistration``): one rule for every password a person signs in with.
enum PasswordPolicy {
    /// The fewest characters (Unicode code points) accepted.
    static let minimumLength = 15
    /// The most characters (Unicode code points) accepted.
    static let maximumLength = 128

    /// Why a password was refused, in words for the person choosing it.
    enum Problem: Error, Equatable {
        /// Shorter than ``minimumLength``.
        case tooShort
        /// Longer than ``maximumLength``.
        case tooLong
        /// On the list of common passwords, or one short piece repeated.
        case tooCommon
        /// The same as the e-mail address, its local part, the name or the platform's name.
        case personal

        /// The message shown next to the password field.
        var message: Localized {
            switch self {
            case .tooShort:
                Localized(
                    "Use at least \(PasswordPolicy.minimumLength) characters. A few unrelated words make a strong "
                        + "password.",
                    zh: "至少 \(PasswordPolicy.minimumLength) 个字符。几个互不相关的词就能组成一个强密码。")
            case .tooLong:
                Localized(
                    "Use at most \(PasswordPolicy.maximumLength) characters.",
                    zh: "最多 \(PasswordPolicy.maximumLength) 个字符。")
            case .tooCommon:
                Localized(
                    "This password is too common and easy to guess. Choose another one.",
                    zh: "此密码过于常见，容易被猜到。请换一个。")
            case .personal:
                Localized(
                    "Don't use your email address or name as your password.", zh: "请勿使用您的电子邮件地址或姓名作为密码。")
            }
        }
    }

    /// The hint under a new-password field.
    static let hint = Localized(
        "At least \(minimumLength) characters. A few unrelated words make a strong password.",
        zh: "至少 \(minimumLength) 个字符。几个互不相关的词就能组成一个强密码。")

    /// The problem with `password` for an account with this e-mail address and name, or nil
    /// when it may be used.
    static func problem(with password: String, email: String, name: String) -> Problem? {
        let length = password.unicodeScalars.count
        if length < minimumLength { return .tooShort }
        if length > maximumLength { return .tooLong }
        let lowered = password.lowercased()
        let normalizedEmail = UserRecord.normalizedEmail(email)
        let localPart = normalizedEmail.split(separator: "@").first.map(String.init) ?? normalizedEmail
        let personal = [
            normalizedEmail, localPart, name.trimmingSpaces.lowercased(), PageLayout.platformName.lowercased(),
        ]
        if personal.contains(where: { !$0.isEmpty && $0 == lowered }) { return .personal }
        if CommonPasswords.contains(lowered) || isRepetition(lowered) { return .tooCommon }
        return nil
    }

    /// Whether `text` is one piece of at most half its length repeated (`abcabcabc…`).
    private static func isRepetition(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count > 1 else { return false }
        for size in 1...(scalars.count / 2) where scalars.count % size == 0 {
            let piece = scalars[0..<size]
            if stride(from: size, to: scalars.count, by: size).allSatisfy({ scalars[$0..<($0 + size)] == piece }) {
                return true
            }
        }
        return false
    }
}
