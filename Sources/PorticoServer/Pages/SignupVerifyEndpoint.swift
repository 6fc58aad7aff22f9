import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// `GET /signup/verify?token=…` (the mailed link) asks "create this account?"; `POST` takes the
/// pending sign-up away (single use), creates the account with its address verified (and, for
/// a sign-up without a password, its passkey, made on this page: ``PasskeySignup``), signs the
/// person in, and goes on with the authorization the sign-up started from (consent, then back
/// to the app), or shows "your account is ready".
///
/// Why a button rather than acting on the link: mail scanners and link previews fetch links,
/// and a `GET` must not create an account or start a session for whoever follows next; `HEAD`
/// is refused like on every acting page. A link that was used, replaced by a newer sign-up,
/// has expired or never existed gets one page with a way to start again; an address that got an
/// account in the meantime gets a page saying so, never a second account.
struct SignupVerifyEndpoint: Sendable {
    /// The page's path (the mailed link).
    static let path = "/signup/verify"
    /// How long a confirmation link works.
    static let linkLifetime: TimeInterval = 24 * 60 * 60
    /// The same, in hours, for the texts.
    static var linkLifetimeHours: Int { Int(linkLifetime / 3600) }

    /// The provider's store, keys and clock.
    let environment: PageEnvironment
    /// Sign-up counters.
    let metrics: SignUpMetrics

    /// Adds `GET` and `POST /signup/verify`, both async.
    func register(on router: Router) {
        router.page(Self.path, environment: environment, show: { try show($0) }, submit: { try confirm($0) })
    }

    private func show(_ request: Request) throws -> Response {
        let token = request.query["token"] ?? ""
        let language = request.pageLanguage()
        guard let signup = try liveSignup(for: token) else { return SignupVerifyPage.dead(language: language) }
        let (secret, cookie) = CSRFProtection.ensureSecret(in: request, secure: environment.usesHTTPS)
        var page = SignupVerifyPage(
            token: token,
            sealedRequest: AuthorizationFlow.liveSeal(
                request.query[AuthorizationFlow.requestField], environment: environment),
            csrfToken: CSRFProtection.token(secret: secret, purpose: Self.purpose(token: token)),
            name: signup.name, email: signup.email, language: language)
        page.withPasskey = signup.passwordHash.isEmpty
        var response = page.response()
        if let cookie { response.setCookie(cookie) }
        return response
    }

    private enum Outcome {
        case created(UserRecord)
        case dead
        case taken(String)
    }

    /// Thrown inside the transaction to undo it: the passkey's credential id is registered.
    private struct PasskeyTaken: Error {}

    private func confirm(_ request: Request) throws -> Response {
        let form = try request.pageForm()
        let token = form["token"] ?? ""
        guard
            CSRFProtection.verify(
                form, request: request, purpose: Self.purpose(token: token), secure: environment.usesHTTPS)
        else {
            throw PageProblem.forgedForm(appName: nil)
        }
        let language = request.pageLanguage()
        let seal = AuthorizationFlow.liveSeal(form[AuthorizationFlow.requestField], environment: environment)
        guard SignInSession.isWellFormed(token) else { return SignupVerifyPage.dead(language: language) }
        // A sign-up without a password finishes only with a passkey that passes every check;
        // one refused leaves the sign-up as it was, to try again.
        var passkey: PasskeySignup.Verified?
        if let waiting = try liveSignup(for: token), waiting.passwordHash.isEmpty {
            guard let verified = try PasskeySignup(environment: environment).verify(form, token: token) else {
                return passkeyRefused(waiting, token: token, form: form, seal: seal, language: language)
            }
            passkey = verified
        }
        let now = environment.now()
        let outcome: Outcome
        do {
            outcome = try environment.store.transaction { transaction -> Outcome in
                guard case .redeemed(let signup) = try transaction.redeemPendingSignup(token: token, now: now) else {
                    return .dead
                }
                // Made meanwhile (`portico user add`, a sign-up confirmed first): used up, no second account.
                if try transaction.user(email: signup.email) != nil { return .taken(signup.email) }
                // Never an account without a way to sign in.
                guard signup.passwordHash.isEmpty == (passkey != nil) else { throw PasskeyTaken() }
                let user = UserRecord(
                    email: signup.email, name: signup.name, postalCode: signup.postalCode,
                    passwordHash: signup.passwordHash, isEmailVerified: true, createdAt: now)
                try transaction.insert(user)
                try transaction.append(
                    AuditEvent(occurredAt: now, actor: user.id, action: "user.signup", subject: user.id))
                if let passkey {
                    try addPasskey(passkey, for: user, now: now, language: language, in: transaction)
                }
                return .created(user)
            }
        } catch is PasskeyTaken {
            let waiting = try liveSignup(for: token)
            guard let waiting else { return SignupVerifyPage.dead(language: language) }
            return passkeyRefused(waiting, token: token, form: form, seal: seal, language: language)
        } catch StoreError.duplicate {
            // The address was taken between the check and the insert; the transaction rolled back.
            let email = try environment.store.read { try $0.pendingSignup(token: token)?.email }
            outcome = .taken(email ?? "")
        }
        let user: UserRecord
        switch outcome {
        case .dead: return SignupVerifyPage.dead(language: language)
        case .taken(let email): return SignupVerifyPage.taken(email: email, sealedRequest: seal, language: language)
        case .created(let created): user = created
        }
        metrics.record(.confirmed)
        // A passkey was just used with user verification: the session's `amr` says so.
        let methods =
            passkey.map {
                $0.registration.backupEligible ? PasskeyEndpoint.syncedMethods : PasskeyEndpoint.deviceBoundMethods
            } ?? AuthenticationMethods.password
        let (signedIn, cookie) = try SignInSession.start(
            for: user, persistent: false, methods: methods,
            replacing: request.cookies[SignInSession.cookieName(environment)], request: request,
            environment: environment)
        var response: Response
        if let seal, let pending = try? AuthorizationFlow.pendingRequest(seal, environment: environment) {
            response = try AuthorizationFlow.next(
                for: pending.request, client: pending.client, signedIn: signedIn, personActed: true,
                environment: environment, status: .seeOther)
        } else {
            response = SignupPage.ready(name: user.name, email: user.email, language: language)
        }
        response.setCookie(cookie)
        LoginStatus.signedIn(&response, token: signedIn.token, session: signedIn.session, environment: environment)
        return response
    }

    /// Writes a new account's passkey and user handle; a credential id registered to anyone
    /// undoes the whole transaction (account included).
    private func addPasskey(
        _ passkey: PasskeySignup.Verified, for user: UserRecord, now: Date, language: PageLanguage,
        in transaction: any StoreTransaction
    ) throws {
        let registration = passkey.registration
        guard try transaction.passkeyCredential(id: registration.credentialID) == nil else { throw PasskeyTaken() }
        guard try transaction.assignPasskeyUserHandle(userID: user.id, handle: passkey.handle) == passkey.handle else {
            throw PasskeyTaken()
        }
        try transaction.insert(
            PasskeyCredential(
                credentialID: registration.credentialID, userID: user.id, publicKey: registration.publicKey,
                algorithm: registration.algorithm.rawValue, signCount: Int64(registration.signCount),
                backupEligible: registration.backupEligible, backedUp: registration.backedUp,
                name: PasskeyText.defaultName[language], createdAt: now))
        try transaction.append(
            AuditEvent(occurredAt: now, actor: user.id, action: "user.passkey_added", subject: user.id))
    }

    /// The passkey page of the link again, saying the passkey was refused; nothing changed.
    private func passkeyRefused(
        _ signup: PendingSignup, token: String, form: FormParameters, seal: String?, language: PageLanguage
    ) -> Response {
        var page = SignupVerifyPage(
            token: token, sealedRequest: seal, csrfToken: form[CSRFProtection.fieldName] ?? "", name: signup.name,
            email: signup.email, language: language)
        page.withPasskey = true
        page.passkeyRefused = true
        return page.response()
    }

    /// The pending sign-up a live (present, unexpired) token confirms, or nil.
    private func liveSignup(for token: String) throws -> PendingSignup? {
        guard SignInSession.isWellFormed(token) else { return nil }
        let now = environment.now()
        return try environment.store.read { transaction in
            guard let signup = try transaction.pendingSignup(token: token), now < signup.expiresAt else { return nil }
            return signup
        }
    }

    /// The CSRF purpose of the form: bound to the link's token, so it works for this link only.
    static func purpose(token: String) -> String {
        "signup-verify:" + Base64URL.encode(Digest.sha256.hash(token))
    }
}
