/// A page of this site to go back to after signing in without an app's request (Your Account
/// sends people to `/login?return_to=/account`).
///
/// Only local paths pass: they start with one `/` (not `//`, which browsers read as another
/// host), contain no backslash (which some browsers read as `/`), no control characters or
/// spaces, and are not too long. Anything else falls back to Your Account, so the parameter
/// can never become an open redirect.
enum ReturnPath {
    /// The query and form field.
    static let field = "return_to"
    /// Where a sign-in without a request or a usable return path ends.
    static let fallback = "/account"
    /// The longest path accepted.
    static let maximumLength = 512

    /// The sign-in page that comes back to `path` (a page of this site) once signed in: where a
    /// signed-in-only page sends a browser without a session.
    static func signInLocation(returningTo path: String) -> String {
        AuthorizationResponse.location(AuthorizationFlow.loginPath, [(field, path)])
    }

    /// `candidate` if it is a safe local path, else nil.
    static func validated(_ candidate: String?) -> String? {
        guard let candidate, candidate.utf8.count <= maximumLength else { return nil }
        let bytes = Array(candidate.utf8)
        guard bytes.first == UInt8(ascii: "/"), bytes.count == 1 || bytes[1] != UInt8(ascii: "/") else { return nil }
        let safe = bytes.allSatisfy { byte in
            byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "\\")
        }
        return safe ? candidate : nil
    }
}
