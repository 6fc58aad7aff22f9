/// What a harness helper throws when the provider did not answer as a step needs (a sign-in
/// page without its CSRF field, a token request that failed): the test then stops with the
/// reason instead of carrying on with a value that is not there.
public struct HarnessFailure: Error, CustomStringConvertible {
    /// What was missing or wrong.
    public let description: String

    /// A failure saying `description`.
    public init(_ description: String) {
        self.description = description
    }
}

extension Optional {
    /// The value, or a ``HarnessFailure`` saying what was missing.
    func required(_ what: @autoclosure () -> String) throws -> Wrapped {
        guard let self else { throw HarnessFailure(what()) }
        return self
    }
}
