/// The authenticator data of a registration or an assertion (WebAuthn Level 3 §6.1).
///
/// Fixed fields are read by position (they are not CBOR); the credential public key and the
/// extensions are CBOR and are read with libcbor (`CBORDecoder`), which also tells where the
/// key ends. Nothing may follow the last structure the flags announce.
public struct AuthenticatorData: Sendable, Equatable {
    /// Bit 0: user present.
    public static let userPresent: UInt8 = 0x01
    /// Bit 2: user verified.
    public static let userVerified: UInt8 = 0x04
    /// Bit 3: backup eligible (a multi-device, "synced" credential).
    public static let backupEligible: UInt8 = 0x08
    /// Bit 4: backed up.
    public static let backedUp: UInt8 = 0x10
    /// Bit 6: attested credential data included.
    public static let attestedCredentialDataIncluded: UInt8 = 0x40
    /// Bit 7: extension data included.
    public static let extensionDataIncluded: UInt8 = 0x80

    /// The credential id, its AAGUID and public key, present at registration.
    public struct AttestedCredential: Sendable, Equatable {
        /// The authenticator model's AAGUID (all zeros for `none` conveyance).
        public var aaguid: [UInt8]
        /// The credential id (at most 1023 bytes, §7.1 step 25).
        public var credentialID: [UInt8]
        /// The credential public key's COSE_Key bytes, exactly as the authenticator wrote them.
        public var publicKey: [UInt8]
    }

    /// The longest credential id accepted (§7.1 step 25).
    public static let maximumCredentialIDLength = 1023

    /// The whole structure as received: signatures cover these bytes.
    public let bytes: [UInt8]
    /// SHA-256 of the RP ID the authenticator scoped the credential to.
    public let rpIDHash: [UInt8]
    /// The flags byte.
    public let flags: UInt8
    /// The signature counter (0 when the authenticator keeps none).
    public let signCount: UInt32
    /// Present when the AT flag is set.
    public let attestedCredential: AttestedCredential?
    /// The extension outputs, present when the ED flag is set.
    public let extensions: CBORValue?

    /// Whether `flag` (one of the static bits) is set.
    public func has(_ flag: UInt8) -> Bool { flags & flag == flag }

    /// Reads `bytes`; throws when a field is cut short, the CBOR is not one item, or bytes are left over.
    public init(bytes: [UInt8]) throws(PasskeyError) {
        guard bytes.count >= 37 else { throw .malformed("authenticator data is shorter than 37 bytes") }
        self.bytes = bytes
        rpIDHash = Array(bytes[0..<32])
        flags = bytes[32]
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = 37
        if flags & Self.attestedCredentialDataIncluded != 0 {
            guard bytes.count >= offset + 18 else { throw .malformed("attested credential data is cut short") }
            let aaguid = Array(bytes[offset..<offset + 16])
            let idLength = Int(bytes[offset + 16]) << 8 | Int(bytes[offset + 17])
            offset += 18
            guard idLength > 0, idLength <= Self.maximumCredentialIDLength else {
                throw .malformed("credential id length \(idLength) is outside 1…1023")
            }
            guard bytes.count >= offset + idLength else { throw .malformed("credential id is cut short") }
            let credentialID = Array(bytes[offset..<offset + idLength])
            offset += idLength
            let keyLength: Int
            do { (_, keyLength) = try CBORDecoder.decodePrefix(bytes[offset...]) } catch {
                throw .malformed("credential public key: \(error)")
            }
            attestedCredential = AttestedCredential(
                aaguid: aaguid, credentialID: credentialID, publicKey: Array(bytes[offset..<offset + keyLength]))
            offset += keyLength
        } else {
            attestedCredential = nil
        }
        if flags & Self.extensionDataIncluded != 0 {
            guard offset < bytes.count else { throw .malformed("extension data is missing") }
            let (value, length): (CBORValue, Int)
            do { (value, length) = try CBORDecoder.decodePrefix(bytes[offset...]) } catch {
                throw .malformed("extensions: \(error)")
            }
            guard case .map = value else { throw .malformed("extensions are not a map") }
            extensions = value
            offset += length
        } else {
            extensions = nil
        }
        guard offset == bytes.count else { throw .malformed("authenticator data has trailing bytes") }
    }
}
