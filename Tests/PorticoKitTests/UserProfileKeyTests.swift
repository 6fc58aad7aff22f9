import Foundation
import Testing

@testable import PorticoKit

/// LWA's `AMZNUser` properties are read from the profile by the keys apps can name.
struct UserProfileKeyTests {
    @Test func theAMZNUserPropertiesComeFromTheNamedKeys() throws {
        let profile: [String: ProfileValue] = [
            "user_id": .string("amzn1.account.1"), "name": .string("Dana"), "email": .string("dana@example.com"),
            "postal_code": .string("98101"), "locale": .string("en-US"),
        ]
        let user = try #require(User(profile: profile))
        #expect(user.userID == "amzn1.account.1")
        #expect(user.name == profile[User.ProfileKey.name]?.stringValue)
        #expect(user.email == "dana@example.com")
        #expect(user.postalCode == profile[User.ProfileKey.postalCode]?.stringValue)
        #expect(user.postalCode == "98101")
        #expect(user.profileData["locale"]?.stringValue == "en-US")
        let subjectOnly = try #require(User(profile: [User.ProfileKey.subject: .string("s-1")]))
        #expect(subjectOnly.userID == "s-1")
        #expect(User(profile: [User.ProfileKey.name: .string("nobody")]) == nil)
    }
}
