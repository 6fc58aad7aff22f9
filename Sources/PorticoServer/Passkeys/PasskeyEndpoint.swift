import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// The passkey ceremonies (WebAuthn Level 3): options and results for signing in
/// (`/passkeys/sign-in/options`, `/login/passkey`) and for adding a passkey from Your Account
/// (`/account/passkeys/options`, `/account/passkeys`).
///
/// Challenges hold five minutes and answer one ceremony, on whichever node finishes what
/// another began: registration challenges live in the store (hash only) from the options on;
/// sign-in challenges are sealed (``PasskeyChallengeSeal``), and only their use is stored. A passkey sign-in continues exactly as a password sign-in does
/// (``SignInCompletion``: session, "Keep me signed in", the pending authorization and its
/// consent rules), counts against the same per-address throttle, and satisfies two-step
/// verification (`amr` `hwk`/`swk`, `user`, `mfa`). Every refusal of a sign-in gives the same
/// page whatever failed, so it tells nothing about which accounts or credentials exist; the
/// reason goes to the audit log when a credential was involved.
struct PasskeyEndpoint: Sendable {
    static let signInOptionsPath = "/passkeys/sign-in/options"
    static let signInPath = "/login/passkey"
    static let registrationOptionsPath = "/account/passkeys/options"
    static let registrationPath = "/account/passkeys"
    /// How long a challenge is accepted.
    static let challengeLifetime: TimeInterval = 300
    /// Adding a passkey needs a sign-in at most this old.
    static let reauthenticationWindow: TimeInterval = 300
    /// The form field carrying the assertion or attestation (JSON).
    static let credentialField = "passkey_credential"
    /// The longest passkey name kept.
    static let maximumNameLength = 64

    /// `amr` of a device-bound passkey: hardware key, user verified, several factors.
    static let deviceBoundMethods = ["hwk", "user", "mfa"]
    /// `amr` of a synced (backup-eligible) passkey: software key.
    static let syncedMethods = ["swk", "user", "mfa"]
    /// How long past a sealed challenge's expiry its use stays recorded: more than nodes'
    /// clocks are expected to differ.
    static let usedChallengeGrace: TimeInterval = 600

    let environment: PageEnvironment
    /// The imported keys of the passkeys that signed in, shared by every request this endpoint
    /// serves.
    let keys = PasskeyKeyCache()
    /// Seals the sign-in challenges.
    let challengeSeal: PasskeyChallengeSeal

    init(environment: PageEnvironment) {
        self.environment = environment
        challengeSeal = PasskeyChallengeSeal(
            secret: environment.keys.derivedSecret(purpose: "portico passkey sign-in challenges"))
    }

    private var relyingParty: PasskeyRelyingParty? { PasskeyRelyingParty.of(issuer: environment.issuer) }

    /// The CSRF purpose of Your Account's passkey forms: the page's own token.
    static func purpose(_ signedIn: SignInSession) -> String {
        CSRFProtection.accountPurpose(sessionHashedID: signedIn.session.hashedID)
    }

    func register(on router: Router) {
        router.get(PasskeyScript.path) { PasskeyScript.asset.response(to: $0) }
        // Sign-in is one ES256 verification and a few store writes, no password: its two
        // posts run where the protocol endpoints run.
        router.form(Self.signInOptionsPath, environment: environment) { try signInOptions($0) }
        router.form(Self.registrationOptionsPath, environment: environment) { try registrationOptions($0) }
        router.form(PasskeySignup.optionsPath, environment: environment) {
            try PasskeySignup(environment: environment).options($0)
        }
        router.get(Self.signInPath) { _ in
            Router.secured(
                PageLayout.redirect(to: AuthorizationFlow.loginPath, status: .found), environment: environment)
        }
        router.form(Self.signInPath, environment: environment) { try signIn($0) }
        router.page(
            Self.registrationPath, environment: environment,
            show: { _ in PageLayout.redirect(to: AccountEndpoint.path, status: .found) },
            submit: { try manage($0) })
    }

    private func issueChallenge(_ purpose: PasskeyChallenge.Purpose, userID: String?) throws -> [UInt8] {
        let challenge = SecureRandom.bytes(count: 32)
        let now = environment.now()
        let record = PasskeyChallenge(
            challengeHash: Digest.sha256.hash(challenge), purpose: purpose, userID: userID, createdAt: now,
            expiresAt: now.addingTimeInterval(Self.challengeLifetime))
        try environment.store.transaction { try $0.insert(record, now: now) }
        return challenge
    }

    // MARK: Sign-in

    /// Options for `navigator.credentials.get`: discoverable credentials only (no
    /// `allowCredentials`, so nothing about any account is said), user verification required.
    /// The challenge is sealed, not stored: asking for options writes nothing.
    private func signInOptions(_ request: Request) throws -> Response {
        guard let relyingParty else { throw PageProblem.serverFailure }
        let challenge = challengeSeal.make(expiresAt: environment.now().addingTimeInterval(Self.challengeLifetime))
        let options: JSONValue = [
            "challenge": .string(Base64URL.encode(challenge)), "rpId": .string(relyingParty.rpID),
            "timeout": .integer(Int64(Self.challengeLifetime * 1000)), "userVerification": "required",
        ]
        return .json(raw: options.jsonString)
    }

    private func signIn(_ request: Request) throws -> Response {
        let form = try request.pageForm()
        let seal = form[AuthorizationFlow.requestField]
        let pending = try AuthorizationFlow.optionalPendingRequest(seal, environment: environment)
        let purpose = CSRFProtection.loginPurpose(requestID: pending?.request.id)
        guard CSRFProtection.verify(form, request: request, purpose: purpose, secure: environment.usesHTTPS) else {
            throw PageProblem.forgedForm(appName: pending?.client.name)
        }
        let remember = form["remember_me"] != nil
        let language = request.pageLanguage(pending: pending?.request.language)
        func refused(_ message: Localized = PasskeyText.refused, status: HTTPStatus = .ok) -> Response {
            var page = LoginPage(
                appName: pending?.client.name, sealedRequest: pending == nil ? nil : seal,
                csrfToken: form[CSRFProtection.fieldName] ?? "", email: "", language: language)
            page.remembersMe = remember
            page.errorMessage = message[language]
            page.status = status
            if pending == nil { page.returnPath = ReturnPath.validated(form[ReturnPath.field]) }
            return page.response()
        }
        // The per-address limit of password sign-ins; there is no address to count by account.
        let limits = Array(AttemptThrottle.signInLimits(email: "", address: request.remoteAddress).suffix(1))
        let throttle = AttemptThrottle(environment: environment)
        let assertion = PostedAssertion(form[Self.credentialField])
        let now = environment.now()
        let expiry = assertion.flatMap { challengeSeal.expiry(of: $0.clientData.challenge, now: now) }
        // One transaction: the attempt is counted (a refusal writes nothing), the challenge is
        // used up (single use, whatever follows: a replayed assertion finds it used), and step 6,
        // the credential is the one registered and it is the user handle's person's.
        let (decision, found) = try environment.store.transaction {
            transaction -> (AttemptThrottle.Decision, (PasskeyCredential, UserRecord)?) in
            let decision = try throttle.attempt(limits, in: transaction)
            guard case .allowed = decision, let assertion, let expiry else { return (decision, nil) }
            return (decision, try Self.registeredCredential(of: assertion, expiry: expiry, now: now, in: transaction))
        }
        let counted: [ThrottleAttempt]
        switch decision {
        case .refused(let wait):
            environment.metrics.recordSignIn(.throttled)
            var response = refused(AttemptThrottle.refusal(retryAfter: wait), status: .tooManyRequests)
            response.headers["Retry-After"] = String(Int(wait.rounded(.up)))
            return response
        case .allowed(let attempts):
            counted = attempts
        }
        guard let assertion, let (credential, user) = found, !user.isDisabled,
            let result = verified(assertion, credential: credential, user: user, now: now)
        else {
            environment.metrics.recordSignIn(.failure)
            return refused()
        }
        let methods = credential.backupEligible ? Self.syncedMethods : Self.deviceBoundMethods
        let returnPath = pending == nil ? form[ReturnPath.field] : nil
        let response: Response
        do {
            // The counter's compare-and-swap, the attempt taken back (a passkey that signed in
            // was no guess, as after a right password) and the session with its audit row: one
            // transaction, so a sign-in that lost the counter to another writes none of them.
            response = try SignInCompletion.finish(
                user: user, persistent: remember, methods: methods, pending: pending, returnPath: returnPath,
                request: request, environment: environment
            ) { transaction in
                guard
                    try transaction.recordPasskeyUse(
                        credentialID: assertion.id, previousSignCount: credential.signCount,
                        signCount: Int64(result.signCount), backedUp: result.backedUp, at: now)
                else { throw CounterMoved() }
                try throttle.forgive(counted, in: transaction)
            }
        } catch is CounterMoved {
            environment.metrics.recordSignIn(.failure)
            return refused()
        }
        environment.metrics.recordSignIn(.success)
        return response
    }

    /// Another sign-in with the same passkey moved its counter between the read and the write.
    private struct CounterMoved: Error {}

    /// The members of a posted assertion (`passkey_credential`), or nil when one is missing.
    private struct PostedAssertion {
        let id: [UInt8]
        let clientDataJSON: [UInt8]
        let authenticatorData: [UInt8]
        let signature: [UInt8]
        let userHandle: [UInt8]
        let clientData: CollectedClientData

        init?(_ field: String?) {
            guard let fields = PasskeyResponseFields(field), let id = fields["id"],
                let clientDataJSON = fields["clientDataJSON"], let authenticatorData = fields["authenticatorData"],
                let signature = fields["signature"], let userHandle = fields["userHandle"],
                let clientData = try? CollectedClientData(json: clientDataJSON)
            else { return nil }
            self.id = id
            self.clientDataJSON = clientDataJSON
            self.authenticatorData = authenticatorData
            self.signature = signature
            self.userHandle = userHandle
            self.clientData = clientData
        }
    }

    /// Uses up the assertion's sign-in challenge (sealed, holding until `expiry`) and returns the
    /// credential it names with its person, or nil when the challenge was used already, the
    /// credential is not registered, or the user handle is another person's (§7.2 step 6).
    private static func registeredCredential(
        of assertion: PostedAssertion, expiry: Date, now: Date, in transaction: any StoreTransaction
    ) throws -> (PasskeyCredential, UserRecord)? {
        // Recorded past the seal's expiry: another node whose clock runs behind still takes the
        // seal for a while, and must find its use recorded.
        let use = PasskeyChallenge(
            challengeHash: Digest.sha256.hash(assertion.clientData.challenge), purpose: .signIn, userID: nil,
            createdAt: now, expiresAt: expiry.addingTimeInterval(Self.usedChallengeGrace))
        guard try transaction.claimPasskeyChallenge(use, now: now),
            let credential = try transaction.passkeyCredential(id: assertion.id),
            let owner = try transaction.userID(passkeyUserHandle: assertion.userHandle), owner == credential.userID,
            let user = try transaction.user(id: owner)
        else { return nil }
        return (credential, user)
    }

    /// The rest of §7.2 for a stored credential: what to write back, or nil after noting the
    /// refusal's reason in the audit log.
    private func verified(
        _ assertion: PostedAssertion, credential: PasskeyCredential, user: UserRecord, now: Date
    ) -> PasskeyAssertion? {
        guard let relyingParty else { return nil }
        do {
            return try relyingParty.verifyAssertion(
                clientDataJSON: assertion.clientDataJSON, authenticatorData: assertion.authenticatorData,
                signature: assertion.signature, challenge: assertion.clientData.challenge,
                publicKey: credential.publicKey, storedSignCount: UInt32(clamping: credential.signCount),
                backupEligible: credential.backupEligible, keys: keys)
        } catch {
            try? environment.store.transaction {
                try $0.append(
                    AuditEvent(
                        occurredAt: now, actor: user.id, action: "user.passkey_refused", subject: user.id,
                        details: JSONValue.object(["reason": .string("\(error)")]).jsonString))
            }
            return nil
        }
    }

    // MARK: Registration

    /// Options for `navigator.credentials.create`, for the signed-in person whose sign-in is
    /// recent; otherwise `{"error": "reauthenticate", "location": …}` (sign in again first).
    private func registrationOptions(_ request: Request) throws -> Response {
        let form = try request.pageForm()
        guard let relyingParty else { throw PageProblem.serverFailure }
        guard let signedIn = try SignInSession.current(in: request, environment: environment) else {
            return .json(raw: Self.reauthenticate, status: .unauthorized)
        }
        guard
            CSRFProtection.verify(
                form, request: request, purpose: Self.purpose(signedIn), secure: environment.usesHTTPS)
        else { throw PageProblem.forgedForm(appName: nil) }
        let now = environment.now()
        guard now.timeIntervalSince(signedIn.session.authTime) <= Self.reauthenticationWindow else {
            return .json(raw: Self.reauthenticate, status: .forbidden)
        }
        let user = signedIn.user
        let handle = try environment.store.transaction {
            try $0.assignPasskeyUserHandle(userID: user.id, handle: SecureRandom.bytes(count: 64))
        }
        let existing = try environment.store.read { try $0.passkeyCredentials(userID: user.id) }
        let challenge = try issueChallenge(.registration, userID: user.id)
        let options: JSONValue = [
            "rp": ["id": .string(relyingParty.rpID), "name": .string(PageLayout.platformName)],
            "user": [
                "id": .string(Base64URL.encode(handle)), "name": .string(user.email), "displayName": .string(user.name),
            ],
            "challenge": .string(Base64URL.encode(challenge)),
            "pubKeyCredParams": .array(
                COSEAlgorithm.allCases.map { ["type": "public-key", "alg": .integer($0.rawValue)] }),
            "timeout": .integer(Int64(Self.challengeLifetime * 1000)),
            "excludeCredentials": .array(
                existing.map { ["type": "public-key", "id": .string(Base64URL.encode($0.credentialID))] }),
            "authenticatorSelection": [
                "residentKey": "required", "requireResidentKey": true, "userVerification": "required",
            ],
            "attestation": "none",
        ]
        return .json(raw: options.jsonString)
    }

    private static var reauthenticate: String {
        let location = ReturnPath.signInLocation(returningTo: AccountEndpoint.path)
        return JSONValue.object(["error": "reauthenticate", "location": .string(location)]).jsonString
    }

    /// Your Account's passkey forms: rename (`passkey_rename` = id, `passkey_name`), remove
    /// (`passkey_remove` = id), or add (`passkey_credential`).
    private func manage(_ request: Request) throws -> Response {
        let form = try request.pageForm()
        guard let signedIn = try SignInSession.current(in: request, environment: environment) else {
            return PageLayout.redirect(
                to: ReturnPath.signInLocation(returningTo: AccountEndpoint.path), status: .seeOther)
        }
        guard
            CSRFProtection.verify(
                form, request: request, purpose: Self.purpose(signedIn), secure: environment.usesHTTPS)
        else { throw PageProblem.forgedForm(appName: nil) }
        if let removed = form["passkey_remove"] {
            return try remove(removed, for: signedIn, language: request.pageLanguage())
        }
        if let renamed = form["passkey_rename"] {
            return try rename(renamed, to: form["passkey_name"] ?? "", for: signedIn, language: request.pageLanguage())
        }
        return try addPasskey(form, request: request, signedIn: signedIn)
    }

    private static let backToPasskeys = AccountEndpoint.path + "#passkeys"

    private func name(_ text: String, language: PageLanguage) -> String {
        let name = String(text.trimmingCharacters(in: .whitespacesAndNewlines).prefix(Self.maximumNameLength))
        return name.isEmpty || !StoredText.canHold(name) ? PasskeyText.defaultName[language] : name
    }

    private func rename(_ id: String, to text: String, for signedIn: SignInSession, language: PageLanguage)
        throws -> Response
    {
        guard let credentialID = Base64URL.decode(id),
            try environment.store.transaction({
                try $0.renamePasskey(
                    userID: signedIn.user.id, credentialID: credentialID, name: name(text, language: language))
            })
        else { throw PageProblem.malformedRequest(appName: nil) }
        return PageLayout.redirect(to: Self.backToPasskeys, status: .seeOther)
    }

    private enum Removal {
        case removed(String)
        case lastMethod
        case missing
    }

    /// Removes one of the person's passkeys unless it is their last way to sign in (no password
    /// and no other passkey). Removing a passkey ends nothing else: sessions and apps stay.
    private func remove(_ id: String, for signedIn: SignInSession, language: PageLanguage) throws -> Response {
        let user = signedIn.user
        let now = environment.now()
        guard let credentialID = Base64URL.decode(id) else { throw PageProblem.malformedRequest(appName: nil) }
        let outcome = try environment.store.transaction { transaction -> Removal in
            let credentials = try transaction.passkeyCredentials(userID: user.id)
            guard let credential = credentials.first(where: { $0.credentialID == credentialID }) else {
                return .missing
            }
            let hasPassword = !(try transaction.user(id: user.id)?.passwordHash.isEmpty ?? true)
            guard hasPassword || credentials.count > 1 else { return .lastMethod }
            guard try transaction.deletePasskey(userID: user.id, credentialID: credentialID) else { return .missing }
            try transaction.append(
                AuditEvent(occurredAt: now, actor: user.id, action: "user.passkey_removed", subject: user.id))
            try SignalAnnouncement.announce(
                [.credentialChange(credentialType: credential.caepCredentialType, changeType: "delete")],
                userID: user.id, now: now, in: transaction)
            return .removed(credential.name)
        }
        switch outcome {
        case .missing:
            throw PageProblem.malformedRequest(appName: nil)
        case .lastMethod:
            var content = "<h1>\(PasskeyText.section[language])</h1>\n"
            content += "<div class=\"alert\" role=\"alert\" id=\"passkey-last-method\"><p>"
            content += "\(PasskeyText.lastMethod[language])</p></div>\n"
            content += "<p><a href=\"\(Self.backToPasskeys)\">\(LayoutText.yourAccount[language])</a></p>\n"
            return PageLayout.page(
                title: PasskeyText.section[language], content: content, status: HTTPStatus(rawValue: 409),
                language: language)
        case .removed(let name):
            PasskeyNotice.send(
                to: user, added: false, name: name, at: now, language: language, environment: environment)
            return PageLayout.redirect(to: Self.backToPasskeys, status: .seeOther)
        }
    }

    /// Stores a new passkey after every check of §7.1, then goes back to Your Account.
    private func addPasskey(_ form: FormParameters, request: Request, signedIn: SignInSession) throws -> Response {
        let user = signedIn.user
        let now = environment.now()
        guard let relyingParty, let fields = PasskeyResponseFields(form[Self.credentialField]), let id = fields["id"],
            let clientDataJSON = fields["clientDataJSON"], let attestationObject = fields["attestationObject"],
            let clientData = try? CollectedClientData(json: clientDataJSON),
            let challenge = try environment.store.transaction({
                try $0.consumePasskeyChallenge(
                    hash: Digest.sha256.hash(clientData.challenge), purpose: .registration, now: now)
            }), challenge.userID == user.id
        else { throw PageProblem.malformedRequest(appName: nil) }
        let registration: PasskeyRegistration
        do {
            registration = try relyingParty.verifyRegistration(
                clientDataJSON: clientDataJSON, attestationObject: attestationObject, challenge: clientData.challenge)
        } catch {
            try? environment.store.transaction {
                try $0.append(
                    AuditEvent(
                        occurredAt: now, actor: user.id, action: "user.passkey_add_refused", subject: user.id,
                        details: JSONValue.object(["reason": .string("\(error)")]).jsonString))
            }
            throw PageProblem.malformedRequest(appName: nil)
        }
        guard registration.credentialID == id else { throw PageProblem.malformedRequest(appName: nil) }
        let language = request.pageLanguage()
        let name = name(form["passkey_name"] ?? "", language: language)
        let credential = PasskeyCredential(
            credentialID: registration.credentialID, userID: user.id, publicKey: registration.publicKey,
            algorithm: registration.algorithm.rawValue, signCount: Int64(registration.signCount),
            backupEligible: registration.backupEligible, backedUp: registration.backedUp, name: name, createdAt: now)
        do {
            try environment.store.transaction {
                try $0.insert(credential)
                try $0.append(
                    AuditEvent(occurredAt: now, actor: user.id, action: "user.passkey_added", subject: user.id))
                try SignalAnnouncement.announce(
                    [.credentialChange(credentialType: credential.caepCredentialType, changeType: "create")],
                    userID: user.id, now: now, in: $0)
            }
        } catch StoreError.duplicate {
            throw PageProblem.malformedRequest(appName: nil)
        }
        PasskeyNotice.send(to: user, added: true, name: name, at: now, language: language, environment: environment)
        return PageLayout.redirect(to: Self.backToPasskeys, status: .seeOther)
    }
}

extension PasskeyCredential {
    /// The CAEP `credential_type` announced when this passkey is added or removed. WebAuthn does
    /// not record where a credential lives, so backup eligibility stands in: a synced passkey
    /// belongs to a platform's keychain, a device-bound one is most often a security key.
    var caepCredentialType: String { backupEligible ? "fido2-platform" : "fido2-roaming" }
}
