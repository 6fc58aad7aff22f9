import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// Your Account's companion section: every live companion session of the person ("Portico
/// agent on <host>") with a Sign out button (`name="end_companion"`, the session's id), and
/// what that button does.
///
/// Signing out revokes the session's refresh family, which ends the session: its refresh token
/// stops working, and its access tokens, which name the session (``CompanionSessions``), are
/// refused everywhere at once, so the agent's next request gets `invalid_token` and it tells
/// the person. Audited as `companion.session.end`.
enum AccountCompanions {
    /// The form field of the Sign out button.
    static let field = "end_companion"

    /// The person's live companion sessions.
    static func sessions(of userID: String, environment: PageEnvironment) throws -> [CompanionSession] {
        let now = environment.now()
        return try environment.store.read { try $0.liveCompanionSessions(userID: userID, now: now) }
    }

    /// The name a session is shown by.
    static func name(of session: CompanionSession, language: PageLanguage) -> String {
        guard let host = session.hostName else { return AccountCompanionText.unnamedHost[language] }
        return AccountCompanionText.agent(on: host)[language]
    }

    /// The section's HTML; empty when there is no session.
    static func section(_ sessions: [CompanionSession], csrfToken: String, language: PageLanguage) -> String {
        guard !sessions.isEmpty else { return "" }
        var html = "<h2 id=\"companions\">\(AccountCompanionText.heading[language])</h2>\n"
        html += "<p class=\"small\">\(AccountCompanionText.intro[language])</p>\n<ul class=\"entries\">\n"
        for session in sessions {
            let name = name(of: session, language: language)
            let since = AccountPage.format(session.createdAt, language: language)
            html += """
                <li class="entry device companion" data-companion-session="\(HTML.escape(session.id))">
                <div><strong>\(HTML.escape(name))</strong></div>
                <div class="small">\(HTML.escape(AccountCompanionText.signedIn(since)[language]))</div>
                <form method="post" action="\(AccountEndpoint.path)">\
                \(HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken))\
                <button type="submit" class="button secondary compact" name="\(field)" \
                value="\(HTML.escape(session.id))" aria-label="\(HTML.escape(AccountCompanionText.signOut(name)[language]))">\
                \(HTML.escape(AccountCompanionText.signOut[language]))</button></form>
                </li>

                """
        }
        return html + "</ul>\n"
    }

    /// Ends the session `sessionID` if it is `signedIn`'s person's; nothing happens for any
    /// other value (another person's session, an ended one, garbage).
    static func end(sessionID: String, for signedIn: SignInSession, environment: PageEnvironment) throws {
        let now = environment.now()
        try environment.store.transaction { transaction in
            guard let session = try transaction.companionSession(id: sessionID), session.userID == signedIn.user.id,
                try transaction.revokeRefreshFamily(id: session.familyID, now: now)
            else { return }
            try transaction.append(
                AuditEvent(
                    occurredAt: now, actor: signedIn.user.id, action: "companion.session.end",
                    subject: session.clientID,
                    details: (["companion_session": .string(session.id)] as JSONValue).jsonString))
        }
    }
}
