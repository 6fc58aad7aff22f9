/// One labelled input of a page's form, with an optional hint and an error shown next to it.
///
/// The hint and the error are tied to the input with `aria-describedby` (and the input is
/// marked `aria-invalid`), so a screen reader reads them with the field; the error comes first
/// and is the first thing a person sees under the label.
struct FormField {
    /// The input's `name` and `id`.
    var name: String
    /// The visible label.
    var label: String
    /// The input type (`text`, `email`, `password`).
    var type = "text"
    /// The value to show (never a password).
    var value = ""
    /// The `autocomplete` token that lets browsers and password managers fill the field.
    var autocomplete: String
    /// Whether the field must be filled.
    var isRequired = true
    /// A line of help shown under the label.
    var hint: String?
    /// What is wrong with what was typed.
    var error: String?
    /// Further attributes, already escaped (`autocapitalize="none"`, `maxlength="…"`).
    var attributes = ""

    /// The field's markup.
    var html: String {
        var described: [String] = []
        var html = "<label for=\"\(HTML.escape(name))\">\(HTML.escape(label))</label>\n"
        if let error {
            html += "<p class=\"field-error\" id=\"\(HTML.escape(name))-error\">\(HTML.escape(error))</p>\n"
            described.append("\(name)-error")
        }
        if let hint {
            html += "<p class=\"hint\" id=\"\(HTML.escape(name))-hint\">\(HTML.escape(hint))</p>\n"
            described.append("\(name)-hint")
        }
        html += "<input type=\"\(type)\" id=\"\(HTML.escape(name))\" name=\"\(HTML.escape(name))\""
        if type != "password" { html += " value=\"\(HTML.escape(value))\"" }
        html += " autocomplete=\"\(HTML.escape(autocomplete))\""
        if isRequired { html += " required" }
        if !described.isEmpty { html += " aria-describedby=\"\(HTML.escape(described.joined(separator: " ")))\"" }
        if error != nil { html += " aria-invalid=\"true\"" }
        if !attributes.isEmpty { html += " " + attributes }
        return html + ">\n"
    }
}
