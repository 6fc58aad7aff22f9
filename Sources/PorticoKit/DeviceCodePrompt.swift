import Foundation

/// What the person must do on another device: open ``verificationURL`` and enter ``userCode``
/// (the "Login with Amazon for TVs" screen).
public struct DeviceCodePrompt: Sendable, Hashable {
    /// The code to enter, for example `WDJB-MJHT`.
    public let userCode: String
    /// Where to enter it.
    public let verificationURL: URL
    /// A URL with the code already filled in (good for a QR code), when the provider gives one.
    public let verificationURLComplete: URL?
    /// When the code stops working.
    public let expiresAt: Date

    /// A prompt with these values.
    public init(userCode: String, verificationURL: URL, verificationURLComplete: URL?, expiresAt: Date) {
        self.userCode = userCode
        self.verificationURL = verificationURL
        self.verificationURLComplete = verificationURLComplete
        self.expiresAt = expiresAt
    }
}
