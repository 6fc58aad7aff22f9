/// What `sub` a client sees for a person (OpenID Connect Core §8).
///
/// Public clients of one platform share the person's account id; a pairwise client gets an
/// identifier of its own for each person, derived from its sector, so that apps of different
/// companies cannot link what they know about someone by comparing ids.
public enum SubjectType: String, Sendable, Hashable, CaseIterable {
    /// The account id, the same for every client (the default).
    case `public`
    /// An identifier per sector and person (OIDC Core §8.1).
    case pairwise
}
