import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// Creating an account with a passkey and no password: the sign-up form's "with a passkey
/// instead" leaves a pending sign-up without a password hash, and its mailed link's page
/// (``SignupVerifyEndpoint``) runs the registration ceremony (§7.1) before the account exists.
///
/// The account does not exist while the ceremony runs, so the challenge cannot name a person.
/// Instead the stored hash binds the challenge to the user handle offered in the options and to
/// the pending sign-up's token: the options answer once per ceremony, any node can finish it,
/// and a handle or token changed on the way finds no challenge. The account, its user handle
/// and its passkey are then written in one transaction, so there is never an account without a
/// way to sign in.
struct PasskeySignup: Sendable {
    /// Creation options for the page behind the mailed link (JSON).
    static let optionsPath = "/signup/passkey/options"
    /// The field carrying the user handle the options offered (base64url).
    static let handleField = "passkey_user"
    /// User handles are 64 random bytes, as for passkeys added from Your Account.
    static let handleLength = 64

    let environment: PageEnvironment

    /// A new account's verified passkey: its user handle and what §7.1 returned.
    struct Verified {
        let handle: [UInt8]
        let registration: PasskeyRegistration
    }

    /// The stored hash of a sign-up challenge: bound to the offered user handle and the sign-up.
    static func binding(challenge: [UInt8], handle: [UInt8], token: String) -> [UInt8] {
        Digest.sha256.hash(
            Array("portico passkey sign-up".utf8) + challenge + handle + Digest.sha256.hash(Array(token.utf8)))
    }

    /// Options for `navigator.credentials.create`, for a live pending sign-up without a
    /// password (`token` and the confirmation page's CSRF token); `{"error": …}` otherwise.
    func options(_ request: Request) throws -> Response {
        let form = try request.pageForm()
        let token = form["token"] ?? ""
        guard
            CSRFProtection.verify(
                form, request: request, purpose: SignupVerifyEndpoint.purpose(token: token),
                secure: environment.usesHTTPS)
        else { throw PageProblem.forgedForm(appName: nil) }
        guard let relyingParty = PasskeyRelyingParty(issuer: environment.issuer) else {
            throw PageProblem.serverFailure
        }
        let now = environment.now()
        guard SignInSession.isWellFormed(token),
            let signup = try environment.store.read({ try $0.pendingSignup(token: token) }),
            now < signup.expiresAt, signup.passwordHash.isEmpty
        else { return .json(raw: #"{"error":"invalid_request"}"#, status: .badRequest) }
        let handle = SecureRandom.bytes(count: Self.handleLength)
        let challenge = SecureRandom.bytes(count: 32)
        // Purpose `registration` with no person: a ceremony of Your Account needs its own
        // person's challenge, and this hash is never a plain challenge's.
        let record = PasskeyChallenge(
            challengeHash: Self.binding(challenge: challenge, handle: handle, token: token), purpose: .registration,
            userID: nil, createdAt: now, expiresAt: now.addingTimeInterval(PasskeyEndpoint.challengeLifetime))
        try environment.store.transaction { try $0.insert(record, now: now) }
        let options: JSONValue = [
            "rp": ["id": .string(relyingParty.rpID), "name": .string(PageLayout.platformName)],
            "user": [
                "id": .string(Base64URL.encode(handle)), "name": .string(signup.email),
                "displayName": .string(signup.name),
            ],
            "challenge": .string(Base64URL.encode(challenge)),
            "pubKeyCredParams": .array(
                COSEAlgorithm.allCases.map { ["type": "public-key", "alg": .integer($0.rawValue)] }),
            "timeout": .integer(Int64(PasskeyEndpoint.challengeLifetime * 1000)),
            "excludeCredentials": .array([]),
            "authenticatorSelection": [
                "residentKey": "required", "requireResidentKey": true, "userVerification": "required",
            ],
            "attestation": "none",
        ]
        return .json(raw: options.jsonString)
    }

    /// The posted attestation for the sign-up `token`, checked (challenge taken once, then
    /// every step of §7.1), or nil. Whether the credential id is free is checked when the
    /// account is written.
    func verify(_ form: FormParameters, token: String) throws -> Verified? {
        guard let relyingParty = PasskeyRelyingParty(issuer: environment.issuer),
            let fields = PasskeyResponseFields(form[PasskeyEndpoint.credentialField]), let id = fields["id"],
            let clientDataJSON = fields["clientDataJSON"], let attestationObject = fields["attestationObject"],
            let handle = form[Self.handleField].flatMap(Base64URL.decode), handle.count == Self.handleLength,
            let clientData = try? CollectedClientData(json: clientDataJSON)
        else { return nil }
        let now = environment.now()
        let hash = Self.binding(challenge: clientData.challenge, handle: handle, token: token)
        guard
            let challenge = try environment.store.transaction({
                try $0.consumePasskeyChallenge(hash: hash, purpose: .registration, now: now)
            }), challenge.userID == nil
        else { return nil }
        guard
            let registration = try? relyingParty.verifyRegistration(
                clientDataJSON: clientDataJSON, attestationObject: attestationObject, challenge: clientData.challenge),
            registration.credentialID == id
        else { return nil }
        return Verified(handle: handle, registration: registration)
    }
}
