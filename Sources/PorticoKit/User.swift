import Foundation

/// The signed-in person as the provider describes them (LWA's `AMZNUser`).
///
/// The common fields are properties; ``profileData`` holds every field the provider returned,
/// including ones this SDK has no property for.
public struct User: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The person's stable id at the provider (`user_id`, or `sub` from OpenID Connect).
    public let userID: String
    /// The person's name, when a profile scope released it.
    public let name: String?
    /// The person's e-mail address, when a scope released it.
    public let email: String?
    /// The postal code, when `postal_code` was granted.
    public let postalCode: String?
    /// Every field the provider returned, by name.
    public let profileData: [String: ProfileValue]

    /// A user with these fields; `profileData` is kept as given.
    public init(
        userID: String, name: String? = nil, email: String? = nil, postalCode: String? = nil,
        profileData: [String: ProfileValue] = [:]
    ) {
        self.userID = userID
        self.name = name
        self.email = email
        self.postalCode = postalCode
        self.profileData = profileData
    }

    /// Reads a profile answer: LWA's `user_id` or OpenID Connect's `sub`, plus the usual fields.
    init?(profile: [String: ProfileValue]) {
        guard let id = profile[ProfileKey.userID]?.stringValue ?? profile[ProfileKey.subject]?.stringValue, !id.isEmpty
        else {
            return nil
        }
        self.init(
            userID: id, name: profile[ProfileKey.name]?.stringValue, email: profile[ProfileKey.email]?.stringValue,
            postalCode: profile[ProfileKey.postalCode]?.stringValue, profileData: profile)
    }

    /// The id only: names and addresses are personal data and stay out of logs.
    public var description: String { "User(userID: \(userID))" }
}
