/// The 10,000 most common passwords (see ``CommonPasswordList`` for where they come from),
/// parsed once into a set on first use.
enum CommonPasswords {
    /// Every entry, lower case.
    static let all: Set<Substring> = Set(
        CommonPasswordList.text.split(whereSeparator: { $0 == " " || $0 == "\n" }))

    /// Whether `lowercased` (already lower case) is on the list.
    static func contains(_ lowercased: String) -> Bool {
        all.contains(Substring(lowercased))
    }
}
