import PorticoCrypto
import PorticoStore

/// Your Account's "Passkeys" section: each passkey (name, when added, last used, synced or this
/// device only) and the "Add a passkey" button (`id="passkey-add"`), shown by the script only
/// where the browser has WebAuthn.
struct PasskeySection {
    /// The person's passkeys, oldest first.
    var credentials: [PasskeyCredential]

    /// The section for `userID`.
    static func load(userID: String, in transaction: any StoreTransaction) throws -> PasskeySection {
        PasskeySection(credentials: try transaction.passkeyCredentials(userID: userID))
    }

    /// The section's markup; `csrfToken` is the page's.
    func html(csrfToken: String, language: PageLanguage) -> String {
        let text = PasskeyText.self
        var html = "<h3 id=\"passkeys\">\(text.section[language])</h3>\n"
        html += "<p class=\"small\">\(text.sectionHint[language])</p>\n"
        if credentials.isEmpty {
            html += "<p class=\"small\" id=\"no-passkeys\">\(text.none[language])</p>\n"
        } else {
            html += "<ul class=\"entries\" id=\"passkey-list\">\n"
            for credential in credentials {
                let id = Base64URL.encode(credential.credentialID)
                let kind = credential.backupEligible ? text.synced : text.thisDevice
                let used =
                    credential.lastUsedAt.map { AccountPage.format($0, language: language) } ?? text.never[language]
                html += """
                    <li class="entry passkey" data-credential-id="\(id)">
                    <div><strong>\(HTML.escape(credential.name))</strong> <span class="badge">\(kind[language])</span></div>
                    <div class="small">\(text.added[language]) \(AccountPage.format(credential.createdAt, language: language)) · \
                    \(text.lastUsed[language]) \(used)</div>
                    <form method="post" action="\(PasskeyEndpoint.registrationPath)" class="passkey-rename">\
                    \(HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken))\
                    <label>\(text.nameLabel[language]) <input type="text" name="passkey_name" \
                    value="\(HTML.escape(credential.name))" maxlength="\(PasskeyEndpoint.maximumNameLength)"></label> \
                    <button type="submit" class="button secondary compact" name="passkey_rename" value="\(id)">\
                    \(text.rename[language])</button></form>
                    <form method="post" action="\(PasskeyEndpoint.registrationPath)">\
                    \(HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken))\
                    <button type="submit" class="button secondary compact" name="passkey_remove" value="\(id)" \
                    aria-label="\(HTML.escape(text.remove[language] + " " + credential.name))">\(text.remove[language])</button></form>
                    </li>

                    """
            }
            html += "</ul>\n"
        }
        html += """
            <form method="post" action="\(PasskeyEndpoint.registrationPath)" id="passkey-add-form" class="needs-passkeys" \
            data-options="\(PasskeyEndpoint.registrationOptionsPath)" hidden>
            \(HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken))
            <input type="hidden" name="\(PasskeyEndpoint.credentialField)" value="">
            <div class="alert" role="alert" id="passkey-error" hidden>\(text.addRefused[language])</div>
            <button type="button" class="button secondary" id="passkey-add">\(text.add[language])</button>
            </form>
            \(PasskeyScript.tag)
            """
        return html
    }
}
