import PorticoStore

/// Your Account's "Two-step verification" section: whether it is on, how many recovery codes
/// are left, and the link to turn it on or manage it.
struct TwoStepSection {
    /// Whether a confirmed enrollment exists.
    var enabled: Bool
    /// Unused recovery codes.
    var remainingCodes: Int

    /// The section for `userID`.
    static func load(userID: String, in transaction: any StoreTransaction) throws -> TwoStepSection {
        guard let enrollment = try transaction.twoStepEnrollment(userID: userID), enrollment.isConfirmed else {
            return TwoStepSection(enabled: false, remainingCodes: 0)
        }
        return TwoStepSection(enabled: true, remainingCodes: try transaction.unusedRecoveryCodeCount(userID: userID))
    }

    /// The section's markup.
    func html(language: PageLanguage) -> String {
        let text = TwoStepText.self
        var html = "<h3 id=\"two-step\">\(text.title[language])</h3>\n"
        html += "<p class=\"small\" id=\"two-step-state\">"
        html += enabled ? text.on(remaining: remainingCodes)[language] : text.off[language]
        html += "</p>\n<p><a href=\"\(TwoStepEndpoint.path)\" id=\"two-step-link\">"
        html += (enabled ? text.manage : text.turnOn)[language] + "</a></p>\n"
        return html
    }
}
