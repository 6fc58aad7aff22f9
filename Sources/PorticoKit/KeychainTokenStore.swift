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
    /// never loses the grant.
    ///
    /// Refreshes are locked across processes (an app and its extensions in one access group)
    /// with a lease item (``RefreshLease``): only one process refreshes a grant at a time, so
    /// two never send the same single-use refresh token. On macOS the items live in the data
    /// protection keychain when there is an access group (where accessibility and access groups
    /// apply; it needs a signed app with an application identifier). A locked keychain (a
    /// prewarmed launch before the first unlock) is ``AuthorizationError/Code/storage`` with
    /// ``isLockedKeychain``, never "signed out". Type-checked on Linux against apple/stubs;
    /// run by .ci/PorticoKitAppleTests.
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
        /// Whether reading the grant asks for Face ID, Touch ID or the passcode
        /// (`SecAccessControlCreateFlags.userPresence`). Refreshes in the background then
        /// cannot read it; meant for apps that gate the account behind the person.
        public let requiresUserPresence: Bool
        /// Whether the items live in the data protection keychain on macOS (always so on iOS).
        public let usesDataProtectionKeychain: Bool

        /// A store filing items under `service` (by default `PorticoKit`), in `accessGroup`
        /// when given (it must be in the app's `keychain-access-groups` entitlement). On macOS
        /// `dataProtectionKeychain` defaults to whether there is an access group.
        public init(
            service: String = "PorticoKit", accessGroup: String? = nil,
            accessibility: Accessibility = .afterFirstUnlockThisDeviceOnly, requiresUserPresence: Bool = false,
            dataProtectionKeychain: Bool? = nil
        ) {
            self.service = service
            self.accessGroup = accessGroup
            self.accessibility = accessibility
            self.requiresUserPresence = requiresUserPresence
            self.usesDataProtectionKeychain = dataProtectionKeychain ?? (accessGroup != nil)
        }

        private func query(for key: TokenStoreKey, service: String? = nil) -> [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: service ?? self.service,
                kSecAttrAccount as String: key.storageName,
            ]
            if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            #if os(macOS)
                if usesDataProtectionKeychain { query[kSecUseDataProtectionKeychain as String] = true }
            #endif
            return query
        }

        /// The error of a failed keychain call: a locked keychain says so.
        private func failure(_ action: String, _ status: OSStatus) -> AuthorizationError {
            if status == errSecInteractionNotAllowed {
                return AuthorizationError(
                    .storage, "the keychain is locked (the device has not been unlocked since it started)",
                    underlyingError: KeychainLocked())
            }
            if status == errSecUserCanceled || status == errSecAuthFailed {
                return AuthorizationError(.userCancelled, "the person did not confirm reading the sign-in")
            }
            return AuthorizationError(.storage, "the keychain could not be \(action) (OSStatus \(status))")
        }

        /// Where and when the items may be read: the accessibility, or an access control that
        /// also asks for the person's presence.
        private func protection() throws -> [String: Any] {
            guard requiresUserPresence else { return [kSecAttrAccessible as String: accessibility.attribute] }
            var error: Unmanaged<CFError>?
            guard
                let control = SecAccessControlCreateWithFlags(nil, accessibility.attribute, .userPresence, &error)
            else {
                throw AuthorizationError(.storage, "the keychain access control could not be made")
            }
            return [kSecAttrAccessControl as String: control]
        }

        /// Reads the item, if any.
        public func grant(for key: TokenStoreKey) throws -> StoredGrant? {
            var search = query(for: key)
            search[kSecReturnData as String] = true
            search[kSecMatchLimit as String] = kSecMatchLimitOne
            var item: CFTypeRef?
            let status = SecItemCopyMatching(search as CFDictionary, &item)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess else { throw failure("read", status) }
            guard let data = item as? Data else { throw AuthorizationError(.storage, "the keychain item has no data") }
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
            let changes = try protection().merging([kSecValueData as String: data]) { _, new in new }
            var status = SecItemUpdate(query(for: key) as CFDictionary, changes as CFDictionary)
            if status == errSecItemNotFound {
                let item = query(for: key).merging(changes) { _, new in new }
                status = SecItemAdd(item as CFDictionary, nil)
                // Another writer added it between the two calls: update theirs.
                if status == errSecDuplicateItem {
                    status = SecItemUpdate(query(for: key) as CFDictionary, changes as CFDictionary)
                }
            }
            guard status == errSecSuccess else { throw failure("written", status) }
        }

        /// The DPoP key: a Secure Enclave key where there is one (its opaque handle kept in an
        /// item of service `<service>.dpop-key`), else a software key in that item; made on
        /// first use, readable after the first unlock so background refreshes can sign.
        public func dpopKey() throws -> DPoPKey {
            let item = query(
                for: TokenStoreKey(provider: "dpop", clientID: "installation"), service: service + ".dpop-key")
            var search = item
            search[kSecReturnData as String] = true
            search[kSecMatchLimit as String] = kSecMatchLimitOne
            var found: CFTypeRef?
            var status = SecItemCopyMatching(search as CFDictionary, &found)
            if status == errSecSuccess, let data = found as? Data { return try DPoPKey.load(keychainItem: data) }
            guard status == errSecItemNotFound else { throw failure("read", status) }
            let made = try DPoPKey.generateForKeychain()
            let attributes: [String: Any] = [
                kSecValueData as String: made.item, kSecAttrAccessible as String: accessibility.attribute,
            ]
            status = SecItemAdd(item.merging(attributes) { _, new in new } as CFDictionary, nil)
            if status == errSecDuplicateItem {
                // Another process made one first: use theirs.
                status = SecItemCopyMatching(search as CFDictionary, &found)
                if status == errSecSuccess, let data = found as? Data { return try DPoPKey.load(keychainItem: data) }
            }
            guard status == errSecSuccess else { throw failure("written", status) }
            return made.key
        }

        /// Deletes the item.
        public func removeGrant(for key: TokenStoreKey) throws {
            let status = SecItemDelete(query(for: key) as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else { throw failure("removed", status) }
        }

        /// Runs `refresh` holding the grant's lease item (service `<service>.refresh-lease`), so
        /// that processes sharing the keychain refresh one at a time; the second waits, then finds
        /// the fresh grant the first stored.
        public func whileRefreshing<T: Sendable>(
            _ key: TokenStoreKey, _ refresh: @Sendable () async throws -> T
        ) async throws -> T {
            try await lease(for: key).whileHolding(refresh)
        }

        /// The lease of `key`'s refresh: an item whose label is the holder's identifier and whose
        /// data is its expiry.
        func lease(for key: TokenStoreKey) -> RefreshLease {
            let base = query(for: key, service: service + ".refresh-lease")
            let place = SendableQuery(base)
            let adding = SendableQuery(
                base.merging([kSecAttrAccessible as String: accessibility.attribute]) { _, new in new })
            return RefreshLease(
                claim: { lease in
                    var item = adding.value
                    item[kSecAttrLabel as String] = lease.identifier
                    item[kSecValueData as String] = Data(String(lease.expiresAt.timeIntervalSince1970).utf8)
                    let status = SecItemAdd(item as CFDictionary, nil)
                    if status == errSecSuccess { return .acquired }
                    guard status == errSecDuplicateItem else {
                        throw AuthorizationError(.storage, "the refresh lease could not be taken (OSStatus \(status))")
                    }
                    var search = place.value
                    search[kSecReturnAttributes as String] = true
                    search[kSecReturnData as String] = true
                    search[kSecMatchLimit as String] = kSecMatchLimitOne
                    var found: CFTypeRef?
                    let read = SecItemCopyMatching(search as CFDictionary, &found)
                    if read == errSecItemNotFound { return .held(nil) }
                    let attributes = found as? [String: Any]
                    let identifier = attributes?[kSecAttrLabel as String] as? String ?? ""
                    let expiry = (attributes?[kSecValueData as String] as? Data)
                        .flatMap { TimeInterval(String(decoding: $0, as: UTF8.self)) }
                    return .held(
                        RefreshLease.Lease(
                            identifier: identifier,
                            expiresAt: expiry.map(Date.init(timeIntervalSince1970:)) ?? .distantPast))
                },
                remove: { lease in
                    var item = place.value
                    item[kSecAttrLabel as String] = lease.identifier
                    _ = SecItemDelete(item as CFDictionary)
                })
        }

        /// The service and access group: stores with both equal share items.
        public var coordinationKey: String { "keychain:" + service + "\n" + (accessGroup ?? "") }
    }

    /// A keychain query built once and only read afterwards (its values are constants and
    /// strings), shared by the lease's closures.
    private struct SendableQuery: @unchecked Sendable {
        let value: [String: Any]
        init(_ value: [String: Any]) { self.value = value }
    }
#endif
