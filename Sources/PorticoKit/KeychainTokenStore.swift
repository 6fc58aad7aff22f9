#if canImport(Security)
    import Foundation
    import Security

    /// A ``TokenStore`` in the Apple Keychain: one generic-password item per provider × client,
    /// readable only while the device is unlocked and never synced to other devices.
    public final class KeychainTokenStore: TokenStore {
        /// The keychain service the items are filed under.
        public let service: String

        /// A store filing items under `service` (by default `PorticoKit`).
        public init(service: String = "PorticoKit") {
            self.service = service
        }

        private func query(for key: TokenStoreKey) -> [String: Any] {
            [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: service,
                kSecAttrAccount as String: key.storageName,
            ]
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

        /// Replaces the item.
        public func save(_ grant: StoredGrant, for key: TokenStoreKey) throws {
            let data: Data
            do {
                data = try JSONEncoder().encode(grant)
            } catch {
                throw AuthorizationError(.storage, "cannot encode the grant", underlyingError: error)
            }
            SecItemDelete(query(for: key) as CFDictionary)
            var item = query(for: key)
            item[kSecValueData as String] = data
            item[kSecAttrAccessible as String] = kSecAttrAccessibleWhenUnlockedThisDeviceOnly
            let status = SecItemAdd(item as CFDictionary, nil)
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

        /// The service: stores with one service share items.
        public var coordinationKey: String { "keychain:" + service }
    }
#endif
