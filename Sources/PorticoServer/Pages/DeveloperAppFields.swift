import PorticoHTTP

/// The fields of an app's settings in the developer console, on the new-app form and on the
/// app's page: the names the DESIGN gives (`name`, `app_type`, `redirect_uri`, `web_origin`,
/// `logo_url`, `privacy_url`, `terms_url`, `scope`, `jwks`, `backchannel_logout_uri`, `ssf`),
/// filled with what was typed or stored.
struct DeveloperAppFields {
    /// The values to show.
    var form: DeveloperAppForm
    /// The page's language.
    var language: PageLanguage

    private var text: DeveloperText.Type { DeveloperText.self }

    /// The fields, with the app's kind as a choice (a new app) or as text (it stays).
    func html(typeEditable: Bool) -> String {
        let lang = language
        var html = FormField(
            name: "name", label: text.name[lang], value: form.name, autocomplete: "off",
            attributes: "maxlength=\"100\""
        ).html
        if typeEditable {
            html += "<fieldset class=\"choices\"><legend>\(text.appType[lang])</legend>\n"
            for type in DeveloperAppForm.AppType.allCases {
                let checked = type == form.appType ? " checked" : ""
                html += """
                    <label class="check" for="app_type_\(type.rawValue)"><input type="radio" name="app_type" \
                    id="app_type_\(type.rawValue)" value="\(type.rawValue)"\(checked)> \(type.label[lang])</label>

                    """
            }
            html += "</fieldset>\n"
        } else {
            html += "<p><strong>\(text.typeLabel[lang])</strong>: \(form.appType.label[lang])</p>\n"
        }
        html += textarea(
            "redirect_uri", label: text.redirectURIs[lang], hint: text.redirectHint[lang], form.redirectURIs)
        html += textarea("web_origin", label: text.webOrigins[lang], hint: text.webOriginsHint[lang], form.webOrigins)
        html +=
            FormField(
                name: "logo_url", label: text.logoURL[lang], value: form.logoURL, autocomplete: "off",
                isRequired: false, attributes: "inputmode=\"url\""
            ).html
        html +=
            FormField(
                name: "privacy_url", label: text.privacyURL[lang], value: form.privacyURL,
                autocomplete: "off", isRequired: false, attributes: "inputmode=\"url\""
            ).html
        html +=
            FormField(
                name: "terms_url", label: text.termsURL[lang], value: form.termsURL, autocomplete: "off",
                isRequired: false, attributes: "inputmode=\"url\""
            ).html
        html += scopeChoices()
        // Pasted keys at creation; afterwards only for an app that already signs with them.
        if typeEditable || !form.jwks.isEmpty {
            html += textarea("jwks", label: text.jwks[lang], hint: text.jwksHint[lang], form.jwks)
        }
        html +=
            FormField(
                name: "backchannel_logout_uri", label: text.backchannelLogoutURI[lang],
                value: form.backchannelLogoutURI, autocomplete: "off", isRequired: false,
                attributes: "inputmode=\"url\""
            ).html
        html += """
            <label class="check" for="ssf"><input type="checkbox" id="ssf" name="ssf" value="yes"\
            \(form.sharedSignals ? " checked" : "")> \(text.sharedSignals[lang])</label>

            """
        return html
    }

    /// The scopes a console app may ask for, each with the consent page's words; `openid` is
    /// always asked (a fixed box, posted by a hidden field).
    private func scopeChoices() -> String {
        let lang = language
        let chosen = Set(form.scopes ?? DeveloperAppForm.offeredScopes)
        var html = "<fieldset class=\"choices\" id=\"scopes\"><legend>\(text.scopesLegend[lang])</legend>\n"
        html += "<input type=\"hidden\" name=\"scope\" value=\"openid\">\n"
        for entry in ScopeCatalog.builtIn where DeveloperAppForm.offeredScopes.contains(entry.name) {
            let id = "scope_" + entry.name.replacingOccurrences(of: ":", with: "_")
            let fixed = entry.name == "openid"
            let state = fixed ? " checked disabled" : chosen.contains(entry.name) ? " checked" : ""
            let name = fixed ? "" : " name=\"scope\" value=\"\(HTML.escape(entry.name))\""
            html += """
                <label class="check" for="\(id)"><input type="checkbox" id="\(id)"\(name)\(state)> \
                \(entry.description[lang]) <code>\(HTML.escape(entry.name))</code></label>

                """
        }
        return html + "</fieldset>\n"
    }

    private func textarea(_ name: String, label: String, hint: String, _ value: String) -> String {
        """
        <label for="\(name)">\(HTML.escape(label))</label>
        <p class="hint" id="\(name)-hint">\(HTML.escape(hint))</p>
        <textarea id="\(name)" name="\(name)" rows="3" aria-describedby="\(name)-hint" \
        spellcheck="false" autocapitalize="none">\(HTML.escape(value))</textarea>

        """
    }
}
