/// Checks for the free text admins type (names, descriptions), shared by the registrations.
///
/// Names end up on the sign-in and consent pages and in terminal output, so control characters
/// (which could rewrite a terminal line or hide text) and absurd lengths are refused up front.
enum AdminText {
    /// `text` trimmed of surrounding spaces, or an ``AdminError/invalid(_:)`` naming `field`
    /// when it is empty, longer than `maximumLength` characters, or holds control characters.
    static func checked(_ text: String, field: String, maximumLength: Int) throws(AdminError) -> String {
        let trimmed = text.trimmingSpaces
        guard !trimmed.isEmpty else { throw .invalid("\(field) must not be empty") }
        guard trimmed.count <= maximumLength else {
            throw .invalid("\(field) must be at most \(maximumLength) characters")
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalid("\(field) must not contain control characters")
        }
        return trimmed
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs (no Foundation needed).
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
