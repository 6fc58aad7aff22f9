#if canImport(Security)
    import Foundation
    import Security
    import Testing

    @testable import PorticoKit

    /// The Keychain store against the real keychain of the simulator (or Mac) it runs on:
    /// round trip, removal, many concurrent saves, and access groups kept apart.
    @Suite(.serialized)
    struct KeychainTokenStoreTests {
        private static func grant(_ number: Int) -> StoredGrant {
            StoredGrant(
                accessToken: "access-\(number)", expiresAt: Date(timeIntervalSince1970: 4_100_000_000),
                refreshToken: "refresh-\(number)", scopes: ["openid", "profile"])
        }

        private static func freshStore(accessGroup: String? = nil) -> KeychainTokenStore {
            KeychainTokenStore(service: "PorticoKitAppleTests-\(UUID().uuidString)", accessGroup: accessGroup)
        }

        private static let key = TokenStoreKey(provider: "https://portico.test", clientID: "apple-tests")

        @Test func roundTripAndRemoval() throws {
            let store = Self.freshStore()
            #expect(try store.grant(for: Self.key) == nil)
            try store.save(Self.grant(1), for: Self.key)
            #expect(try store.grant(for: Self.key)?.refreshToken == "refresh-1")
            try store.save(Self.grant(2), for: Self.key)
            #expect(try store.grant(for: Self.key)?.accessToken == "access-2")
            try store.removeGrant(for: Self.key)
            #expect(try store.grant(for: Self.key) == nil)
            try store.removeGrant(for: Self.key)
        }

        /// Fifty saves at once (update-else-add races on the first one): none fails, and what is
        /// read afterwards is one of them, whole.
        @Test func fiftyConcurrentSavesLeaveOneWholeGrant() async throws {
            let store = Self.freshStore()
            defer { try? store.removeGrant(for: Self.key) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for number in 0..<50 {
                    group.addTask { try store.save(Self.grant(number), for: Self.key) }
                }
                try await group.waitForAll()
            }
            let stored = try #require(try store.grant(for: Self.key))
            let number = try #require(Int(stored.accessToken.dropFirst("access-".count)))
            #expect((0..<50).contains(number))
            #expect(stored.refreshToken == "refresh-\(number)")
        }

        /// A store in an access group reads only that group's item. The group must be in the
        /// test host's `keychain-access-groups` entitlement; the simulator's unsigned test
        /// bundle has its application identifier as its one group, read from an item it adds.
        @Test func accessGroupsAreKeptApart() throws {
            let probe = Self.freshStore()
            try probe.save(Self.grant(0), for: Self.key)
            defer { try? probe.removeGrant(for: Self.key) }
            let group = try #require(try Self.accessGroup(ofServiceItem: probe.service), "no access group")

            let inGroup = KeychainTokenStore(service: probe.service, accessGroup: group)
            #expect(try inGroup.grant(for: Self.key)?.accessToken == "access-0")
            let elsewhere = KeychainTokenStore(service: probe.service, accessGroup: group + ".other")
            #expect(throws: AuthorizationError.self) { try elsewhere.save(Self.grant(9), for: Self.key) }
            #expect(try inGroup.grant(for: Self.key)?.accessToken == "access-0")
        }

        private static func accessGroup(ofServiceItem service: String) throws -> String? {
            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitOne,
                kSecUseDataProtectionKeychain as String: true,
            ]
            var item: CFTypeRef?
            guard SecItemCopyMatching(query as CFDictionary, &item) == errSecSuccess else { return nil }
            return (item as? [String: Any])?[kSecAttrAccessGroup as String] as? String
        }
    }
#endif
