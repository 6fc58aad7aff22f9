/// What a message on the companion's socket asks the agent to do (its `op`).
public enum CompanionOperation: String, Codable, Sendable, CaseIterable {
    /// Is an agent for this issuer here, and is someone signed in to it?
    case ping
    /// Sign the person in to an app: the app's authorization request, answered with a code.
    case authorize
    /// The app gave up: drop its pending authorization (by `request_id`).
    case cancel
    /// The consents waiting for the person, for a shell or `portico-agent pending`.
    case pending
    /// The person allows a waiting consent (by `id`).
    case approve
    /// The person declines a waiting consent (by `id`).
    case deny
}
