import Foundation
import PorticoStore

extension ProviderHarness {
    /// The device grant's type URI (RFC 8628).
    public static let deviceGrantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// A TV app: public unless `secret` is given, registered for the device grant (and refresh).
    public func addDeviceClient(
        name: String = "Living Room TV", secret: String? = nil,
        grants: [String] = [ProviderHarness.deviceGrantType, "refresh_token"],
        scopes: [String] = ProviderHarness.allScopes
    ) throws -> Client {
        try addClient(
            name: name, type: secret == nil ? .public : .confidential, secret: secret, redirectURIs: [],
            scopes: scopes, grants: grants, privacyURL: nil)
    }

    /// A started device login, as the device saw it.
    public struct DeviceLogin: Sendable {
        /// What the device polls with.
        public let deviceCode: String
        /// What the person types at `/device`.
        public let userCode: String
        /// The device authorization answer.
        public let reply: TestReply

        /// A login from its parts (a test may forge one).
        public init(deviceCode: String, userCode: String, reply: TestReply) {
            self.deviceCode = deviceCode
            self.userCode = userCode
            self.reply = reply
        }
    }

    /// Starts a device login for a public `client` in the RFC 8628 dialect.
    public func startDeviceLogin(_ client: Client, scope: String = "openid profile") async throws -> DeviceLogin {
        try deviceLogin(
            from: try await post("/oauth/device_authorization", [("client_id", client.id), ("scope", scope)]))
    }

    /// Starts a device login through Login with Amazon's code-pair path.
    public func startAmazonDeviceLogin(_ client: Client, scope: String = "profile") async throws -> DeviceLogin {
        try deviceLogin(
            from: try await post(
                "/auth/o2/create/codepair",
                [("response_type", "device_code"), ("client_id", client.id), ("scope", scope)]))
    }

    private func deviceLogin(from reply: TestReply) throws -> DeviceLogin {
        guard reply.status == 200 else {
            throw HarnessFailure("device authorization said \(reply.status) \(reply.text)")
        }
        return DeviceLogin(
            deviceCode: try reply.string("device_code").required("a device_code in \(reply.text)"),
            userCode: try reply.string("user_code").required("a user_code in \(reply.text)"), reply: reply)
    }

    /// One RFC 8628 poll by a public client.
    public func poll(_ login: DeviceLogin, clientID: String) async throws -> TestReply {
        try await post(
            "/oauth/token",
            [
                ("grant_type", ProviderHarness.deviceGrantType), ("client_id", clientID),
                ("device_code", login.deviceCode),
            ])
    }

    /// One Login with Amazon poll: device and user code, no client id.
    public func pollAmazon(_ login: DeviceLogin, userCode: String? = nil, path: String = "/auth/o2/token")
        async throws -> TestReply
    {
        try await post(
            path,
            [
                ("grant_type", "device_code"), ("device_code", login.deviceCode),
                ("user_code", userCode ?? login.userCode),
            ])
    }

    /// Approves a started login as `user` straight in the store (the `/device` pages have
    /// tests of their own).
    public func approve(_ login: DeviceLogin, as user: UserRecord) throws {
        let now = clock.now
        let approved = try store.transaction {
            try $0.approveDeviceAuthorization(userCode: login.userCode, userID: user.id, authTime: now, now: now)
        }
        guard approved else { throw HarnessFailure("no pending device login has the code \(login.userCode)") }
    }
}
