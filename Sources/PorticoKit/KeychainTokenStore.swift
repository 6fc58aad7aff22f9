#if canImport(Security)
    import Foundation
    import Security

    /// A ``TokenStore`` in the Apple Keychain: one generic-password item per provider × client,
    /// never synced to other devices.
    ///
    /// Items are readable after the first unlock since boot by default, so a background
    /// refresh on a locked phone works; ``Accessibility/whenUnlockedThisDeviceOnly`` is
    /// stricter. A save updates the item in place (`SecItemUpdate`, adding it only when there
    /// is none), so a reader never sees a moment with nobody signed in and a crash mid-save
    /// never loses the grant. Not compiled or tested on Linux.
    public final class KeychainTokenStore: TokenStore {
        /// When the items may be read.
        public enum Accessibility: Sendable {
            /// After the first unlock since boot, this device only (the default).
            case afterFirstUnlockThisDeviceOnly
            /// Only while the device is unlocked, this device only.
            case whenUnlockedThisDeviceOnly

            var attribute: CFString {
                switch self {
                case .afterFirstUnlockThisDeviceOnly: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
                case .whenUnlockedThisDeviceOnly: kSecAttrAccessibleWhenUnlockedThisDeviceOnly
                }
            }
        }

        /// The keychain service the items are filed under.
        public let service: String
        /// The keychain access group shared with the app's extensions or sibling apps, or nil
        /// for the app's default group.
        public let accessGroup: String?
        /// When the items may be read.
        public let accessibility: Accessibility

        /// A store filing items under `service` (by default `PorticoKit`), in `accessGroup`
        /// when given (it must be in the app's `keychain-access-groups` entitlement).
        public init(
            service: String = "PorticoKit", accessGroup: String? = nil,
            accessibility: Accessibility = .afterFirstUnlockThisDeviceOnly
        ) {
            self.service = service
            self.accessGroup = accessGroup
            self.accessibility = accessibility
        }

        private func query(for key: TokenStoreKey) -> [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: service,
                kSecAttrAccount as String: key.storageName,
            ]
            if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            return query
        }

        /// Reads the item, if any.
        public func grant(for key: TokenStoreKey) throws -> StoredGrant? {
            var search = query(for: key)
            search[kSecReturnData as String] = true
            search[kSecMatchLimit as String] = kSecMatchLimitOne
            var item: CFTypeRef?
            let status = SecItemCopyMatching(search as CFDictionary, &item)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess, let data = item as? Data else {
                throw AuthorizationError(.storage, "the keychain could not be read (OSStatus \(status))")
            }
            do {
                return try JSONDecoder().decode(StoredGrant.self, from: data)
            } catch {
                throw AuthorizationError(.storage, "the keychain item is not a stored grant", underlyingError: error)
            }
        }

        /// Replaces the item's data in place, or adds the item when there is none.
        public func save(_ grant: StoredGrant, for key: TokenStoreKey) throws {
            let data: Data
            do {
                data = try JSONEncoder().encode(grant)
            } catch {
                throw AuthorizationError(.storage, "cannot encode the grant", underlyingError: error)
            }
            let changes: [String: Any] = [
                kSecValueData as String: data, kSecAttrAccessible as String: accessibility.attribute,
            ]
            var status = SecItemUpdate(query(for: key) as CFDictionary, changes as CFDictionary)
            if status == errSecItemNotFound {
                let item = query(for: key).merging(changes) { _, new in new }
                status = SecItemAdd(item as CFDictionary, nil)
                // Another writer added it between the two calls: update theirs.
                if status == errSecDuplicateItem {
                    status = SecItemUpdate(query(for: key) as CFDictionary, changes as CFDictionary)
                }
            }
            guard status == errSecSuccess else {
                throw AuthorizationError(.storage, "the keychain could not be written (OSStatus \(status))")
            }
        }

        /// Deletes the item.
        public func removeGrant(for key: TokenStoreKey) throws {
            let status = SecItemDelete(query(for: key) as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else {
                throw AuthorizationError(.storage, "the keychain item could not be removed (OSStatus \(status))")
            }
        }

        /// The service and access group: stores with both equal share items.
        public var coordinationKey: String { "keychain:" + service + "\n" + (accessGroup ?? "") }
    }
#endif
