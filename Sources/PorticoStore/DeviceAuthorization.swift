import Foundation

/// A device login in progress (RFC 8628): a TV shows ``userCode`` and polls with its device
/// code while the person approves on a phone.
///
/// The device code is stored only as its SHA-256. The user code is short and typed by people,
/// so it is kept normalized (``normalizedUserCode(_:)``) and unique among live authorizations.
public struct DeviceAuthorization: Sendable, Hashable {
    /// SHA-256 of the device code, base64url.
    public let hashedDeviceCode: String
    /// The user code, normalized.
    public var userCode: String
    /// The client (device app) asking.
    public var clientID: String
    /// The requested scopes.
    public var scopes: [String]
    /// When it was started.
    public var createdAt: Date
    /// When both codes stop working.
    public var expiresAt: Date
    /// The minimum seconds between polls; raised by 5 on every `slow_down`.
    public var interval: Int
    /// When the device last polled.
    public var lastPolledAt: Date?
    /// Pending, approved, denied or consumed.
    public var status: DeviceAuthorizationStatus
    /// Who approved it.
    public var userID: String?
    /// When that person authenticated.
    public var authTime: Date?

    /// A pending authorization for the plain `deviceCode`; only its hash is kept, and
    /// `userCode` is normalized.
    public init(
        deviceCode: String, userCode: String, clientID: String, scopes: [String], createdAt: Date = Date(),
        expiresAt: Date, interval: Int = 5
    ) {
        self.init(
            hashedDeviceCode: SecretHash.reference(deviceCode), userCode: Self.normalizedUserCode(userCode),
            clientID: clientID, scopes: scopes, createdAt: createdAt, expiresAt: expiresAt, interval: interval,
            lastPolledAt: nil, status: .pending, userID: nil, authTime: nil)
    }

    /// An authorization as stored (backends only).
    public init(
        hashedDeviceCode: String, userCode: String, clientID: String, scopes: [String], createdAt: Date,
        expiresAt: Date, interval: Int, lastPolledAt: Date?, status: DeviceAuthorizationStatus, userID: String?,
        authTime: Date?
    ) {
        self.hashedDeviceCode = hashedDeviceCode
        self.userCode = userCode
        self.clientID = clientID
        self.scopes = scopes
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.interval = interval
        self.lastPolledAt = lastPolledAt
        self.status = status
        self.userID = userID
        self.authTime = authTime
    }

    /// The user code as compared: letters and digits only, upper case, so that `wdjb-mjht`,
    /// `WDJB MJHT` and `WDJBMJHT` are the same code (RFC 8628 §6.1).
    public static func normalizedUserCode(_ userCode: String) -> String {
        String(String.UnicodeScalarView(userCode.uppercased().unicodeScalars.filter(isASCIIAlphanumeric)))
    }

    private static func isASCIIAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }
}
