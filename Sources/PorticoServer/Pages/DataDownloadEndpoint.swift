import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// `POST /account/data`: "Download your data", one JSON file of what Portico holds about the
/// signed-in person, posted from Your Account with its CSRF token (a `GET` goes back there).
///
/// It holds the profile, two-step verification on or off, the apps allowed with their scopes
/// and dates, linked accounts, the browsers signed in, the passkeys' metadata, and the
/// person's own history from the audit log (what they did and what was done to their
/// account, newest first, at most ``historyLimit`` rows). It never holds a hash, a secret, a
/// token, a session's id or a public key: those identify nothing for the person and would
/// only help whoever got the file. The answer is `no-store` and an attachment named
/// `portico-data-YYYY-MM-DD.json`.
struct DataDownloadEndpoint: Sendable {
    /// The form's target.
    static let path = "/account/data"
    /// The most audit rows the file carries.
    static let historyLimit = 1_000

    /// The provider's store and clock.
    let environment: PageEnvironment

    /// Adds `GET` (back to Your Account) and `POST /account/data`.
    func register(on router: Router) {
        router.page(
            Self.path, environment: environment,
            show: { _ in PageLayout.redirect(to: AccountEndpoint.path, status: .found) },
            submit: { try download($0) })
    }

    private func download(_ request: Request) throws -> Response {
        guard let (_, signedIn) = try AccountForm.read(request, environment: environment) else {
            return PageLayout.redirect(to: AccountEndpoint.signInLocation, status: .seeOther)
        }
        let now = environment.now()
        let document = try environment.store.read { transaction in
            try Self.document(for: signedIn, issuer: environment.issuer, now: now, in: transaction)
        }
        let day = DateFormatter()
        day.locale = Locale(identifier: "en_US_POSIX")
        day.timeZone = TimeZone(identifier: "UTC")
        day.dateFormat = "yyyy-MM-dd"
        var response = Response(
            status: .ok,
            headers: [
                "Content-Type": "application/json; charset=utf-8",
                "Content-Disposition": "attachment; filename=\"portico-data-\(day.string(from: now)).json\"",
                "Cache-Control": "no-store",
            ], body: Self.readable(document))
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response
    }

    /// `document` indented with sorted members, for a person to read; compact if that fails.
    private static func readable(_ document: JSONValue) -> [UInt8] {
        let compact = Array(document.jsonString.utf8)
        guard let object = try? JSONSerialization.jsonObject(with: Data(compact)),
            let pretty = try? JSONSerialization.data(
                withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return compact }
        return Array(pretty)
    }

    /// The file's content for `signedIn`.
    static func document(for signedIn: SignInSession, issuer: String, now: Date, in transaction: any StoreTransaction)
        throws -> JSONValue
    {
        let user = try transaction.user(id: signedIn.user.id) ?? signedIn.user
        let iso = ISO8601DateFormatter()
        func time(_ date: Date) -> JSONValue { .string(iso.string(from: date)) }
        func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }

        var apps: [JSONValue] = []
        for consent in try transaction.consents(userID: user.id) {
            let client = try transaction.client(id: consent.clientID)
            apps.append([
                "client_id": .string(consent.clientID), "name": optional(client?.name),
                "scopes": .array(consent.scopes.sorted().map(JSONValue.string)),
                "first_allowed": time(consent.createdAt), "last_allowed": time(consent.updatedAt),
            ])
        }
        var links: [JSONValue] = []
        for link in try transaction.accountLinks(platformUserID: user.id) {
            let host = try transaction.client(id: link.hostClientID)
            links.append([
                "app_client_id": .string(link.hostClientID), "app_name": optional(host?.name),
                "your_id_at_the_app": .string(link.hostUserID), "linked": time(link.createdAt),
            ])
        }
        let sessions: [JSONValue] = try transaction.sessions(userID: user.id).filter { $0.expiresAt > now }.map {
            [
                "signed_in": time($0.authTime), "started": time($0.createdAt), "last_seen": time($0.lastSeenAt),
                "ends": time($0.expiresAt), "kept_signed_in": .bool($0.isPersistent),
                "browser": optional($0.userAgent), "address": optional($0.ipAddress),
                "this_browser": .bool($0.hashedID == signedIn.session.hashedID),
            ]
        }
        let passkeys: [JSONValue] = try transaction.passkeyCredentials(userID: user.id).map {
            [
                "name": .string($0.name), "added": time($0.createdAt),
                "last_used": $0.lastUsedAt.map(time) ?? .null, "synced": .bool($0.backupEligible),
                "backed_up": .bool($0.backedUp),
            ]
        }
        let twoStep = try TwoStepSection.load(userID: user.id, in: transaction)
        let history: [JSONValue] = try transaction.auditEvents(involving: user.id, limit: historyLimit).map { event in
            var entry: [String: JSONValue] = [
                "at": time(event.occurredAt), "action": .string(event.action),
                "by": .string(event.actor == user.id ? "you" : event.actor),
            ]
            if event.subject != user.id { entry["about"] = .string(event.subject) }
            if let details = JSONValue(parsing: Array(event.details.utf8)), details != [:] {
                entry["details"] = details
            }
            return .object(entry)
        }
        return [
            "format": "portico-data/1", "issuer": .string(issuer), "exported": time(now),
            "profile": [
                "id": .string(user.id), "email": .string(user.email), "email_verified": .bool(user.isEmailVerified),
                "name": .string(user.name), "postal_code": optional(user.postalCode),
                "created": time(user.createdAt), "updated": time(user.updatedAt),
                "has_password": .bool(!user.passwordHash.isEmpty),
            ],
            "two_step_verification": [
                "enabled": .bool(twoStep.enabled), "recovery_codes_left": .integer(Int64(twoStep.remainingCodes)),
            ],
            "apps_allowed": .array(apps), "linked_accounts": .array(links), "sessions": .array(sessions),
            "passkeys": .array(passkeys), "history": .array(history),
        ]
    }
}
