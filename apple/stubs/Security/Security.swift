// A type-checking stub of Apple's Security framework: only what PorticoKit uses, with the
// declarations as the iOS 18 / macOS 15 SDK spells them (developer.apple.com/documentation/security).
// Nothing here runs: bodies trap. See scripts/apple-typecheck for what this cannot check.
//
// Core Foundation: Apple's Security re-exports CoreFoundation, whose CF types bridge toll-free to
// Foundation's (CFString ↔ NSString ↔ String, CFDictionary ↔ NSDictionary, CFData ↔ NSData).
// Linux's CoreFoundation has the names but not the bridging, so the stub names the Foundation
// classes instead: `as CFDictionary`, `as String` and `as? Data` then type-check as on Apple.
@_exported import Foundation

public typealias CFString = NSString
public typealias CFData = NSData
public typealias CFDictionary = NSDictionary
public typealias CFTypeRef = AnyObject
public final class CFError {}
public typealias OSStatus = Int32

// Result codes (SecBase.h).
public var errSecSuccess: OSStatus { 0 }
public var errSecAllocate: OSStatus { -108 }
public var errSecUserCanceled: OSStatus { -128 }
public var errSecAuthFailed: OSStatus { -25293 }
public var errSecDuplicateItem: OSStatus { -25299 }
public var errSecItemNotFound: OSStatus { -25300 }
public var errSecInteractionNotAllowed: OSStatus { -25308 }
public var errSecMissingEntitlement: OSStatus { -34018 }

// Item attribute keys and values (SecItem.h): imported C globals, `let` of CFString.
public nonisolated(unsafe) let kSecClass: CFString = "class"
public nonisolated(unsafe) let kSecClassGenericPassword: CFString = "genp"
public nonisolated(unsafe) let kSecAttrService: CFString = "svce"
public nonisolated(unsafe) let kSecAttrAccount: CFString = "acct"
public nonisolated(unsafe) let kSecAttrAccessGroup: CFString = "agrp"
public nonisolated(unsafe) let kSecAttrAccessible: CFString = "pdmn"
public nonisolated(unsafe) let kSecAttrAccessControl: CFString = "accc"
public nonisolated(unsafe) let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
public nonisolated(unsafe) let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "aku"
public nonisolated(unsafe) let kSecAttrLabel: CFString = "labl"
public nonisolated(unsafe) let kSecAttrCreationDate: CFString = "cdat"
public nonisolated(unsafe) let kSecAttrSynchronizable: CFString = "sync"
public nonisolated(unsafe) let kSecValueData: CFString = "v_Data"
public nonisolated(unsafe) let kSecReturnData: CFString = "r_Data"
public nonisolated(unsafe) let kSecReturnAttributes: CFString = "r_Attributes"
public nonisolated(unsafe) let kSecMatchLimit: CFString = "m_Limit"
public nonisolated(unsafe) let kSecMatchLimitOne: CFString = "m_LimitOne"
public nonisolated(unsafe) let kSecUseDataProtectionKeychain: CFString = "nleg"
public nonisolated(unsafe) let kSecUseAuthenticationUI: CFString = "u_AuthUI"
public nonisolated(unsafe) let kSecUseAuthenticationUIFail: CFString = "u_AuthUIF"
public nonisolated(unsafe) let kSecUseOperationPrompt: CFString = "u_OpPrompt"
public nonisolated(unsafe) let kSecAttrKeyType: CFString = "type"
public nonisolated(unsafe) let kSecAttrKeyTypeRSA: CFString = "42"
public nonisolated(unsafe) let kSecAttrKeyClass: CFString = "kcls"
public nonisolated(unsafe) let kSecAttrKeyClassPublic: CFString = "0"

public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    fatalError("stub")
}
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    fatalError("stub")
}
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus { fatalError("stub") }
public func SecItemDelete(_ query: CFDictionary) -> OSStatus { fatalError("stub") }

// Access control (SecAccessControl.h).
public final class SecAccessControl {}
public struct SecAccessControlCreateFlags: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let userPresence = SecAccessControlCreateFlags(rawValue: 1 << 0)
    public static let biometryAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    public static let biometryCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    public static let devicePasscode = SecAccessControlCreateFlags(rawValue: 1 << 4)
}
public func SecAccessControlCreateWithFlags(
    _ allocator: AnyObject?, _ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? { fatalError("stub") }

// Randomness (SecRandom.h).
public typealias SecRandomRef = OpaquePointer
public nonisolated(unsafe) let kSecRandomDefault: SecRandomRef? = nil
public func SecRandomCopyBytes(_ rnd: SecRandomRef?, _ count: Int, _ bytes: UnsafeMutableRawPointer) -> Int32 {
    fatalError("stub")
}

// Keys (SecKey.h).
public final class SecKey {}
public struct SecKeyAlgorithm: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let rsaSignatureMessagePKCS1v15SHA256 = SecKeyAlgorithm(
        rawValue: "algid:sign:RSA:message-PKCS1v15:SHA256")
    public static let rsaSignatureMessagePSSSHA256 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PSS:SHA256")
}
public func SecKeyCreateWithData(
    _ keyData: CFData, _ attributes: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecKey? { fatalError("stub") }
public func SecKeyVerifySignature(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ signedData: CFData, _ signature: CFData,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> Bool { fatalError("stub") }
