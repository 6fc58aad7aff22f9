import Foundation
import PorticoStore

/// An app's sign-ins per day over the last 30 days as an inline SVG bar chart, for its page in
/// the developer console.
///
/// Inline markup, like ``QRCodeSVG``: no script, no image request and no change to the pages'
/// Content Security Policy. The chart is one labelled image for assistive technology (its
/// label says the total and the busiest day), each bar has a title with its date and count for
/// a pointer, and the same total is in the text above it.
struct SignInChart {
    /// How many days the chart shows, today included.
    static let days = 30

    /// The app's counts (``SignInCountStorage/signInsPerDay(clientID:from:)``), any order.
    let counts: [DailySignIns]
    /// Today, as ``DailySignIns/day(of:)`` gives it.
    let today: Int

    /// The first day shown.
    static func firstDay(today: Int) -> Int { today - days + 1 }

    /// The count of each day shown, oldest first, zero where nobody signed in.
    var perDay: [Int] {
        let byDay = Dictionary(counts.map { ($0.day, $0.count) }, uniquingKeysWith: +)
        return (Self.firstDay(today: today)...today).map { byDay[$0] ?? 0 }
    }

    /// The chart, its heading and its total, in `language`.
    func html(in language: PageLanguage) -> String {
        let values = perDay
        let total = values.reduce(0, +)
        let most = values.max() ?? 0
        let label = DeveloperText.signInChartLabel(total: total, most: most)[language]
        // Bars scale to the busiest day; an empty month draws a flat line, not a division by zero.
        let scale = Double(Self.plotHeight) / Double(max(most, 1))
        var bars = ""
        for (index, value) in values.enumerated() {
            let height = value == 0 ? 1 : max(2, Int((Double(value) * scale).rounded()))
            let x = Self.left + index * Self.slot
            let y = Self.top + Self.plotHeight - height
            let day = Self.date(Self.firstDay(today: today) + index)
            bars += """
                <rect x="\(x)" y="\(y)" width="\(Self.slot - 4)" height="\(height)" \
                fill="\(value == 0 ? "#c9ced6" : "#131921")" data-day="\(day)" data-sign-ins="\(value)">\
                <title>\(DeveloperText.signInBar(day: day, count: value)[language])</title></rect>
                """
        }
        let bottom = Self.top + Self.plotHeight
        let width = Self.left + Self.days * Self.slot
        return """
            <h2>\(DeveloperText.signInChartHeading[language])</h2>
            <p id="sign-ins-total">\(DeveloperText.signInTotal(total)[language])</p>
            <figure class="chart" id="sign-ins">
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(width) \(bottom + 22)" width="100%" \
            role="img" aria-label="\(HTML.escape(label))" font-size="13" fill="#3a3f45">
            \(most > 0 ? "<text x=\"\(Self.left - 6)\" y=\"\(Self.top + 10)\" text-anchor=\"end\">\(most)</text>" : "")\
            <text x="\(Self.left - 6)" y="\(bottom)" text-anchor="end">0</text>\
            <line x1="\(Self.left)" y1="\(bottom + 1)" x2="\(width)" y2="\(bottom + 1)" stroke="#8a9099"/>
            \(bars)
            <text x="\(Self.left)" y="\(bottom + 18)">\(Self.date(Self.firstDay(today: today)))</text>\
            <text x="\(width)" y="\(bottom + 18)" text-anchor="end">\(Self.date(today))</text>
            </svg>
            </figure>

            """
    }

    /// The drawing's measures, in SVG user units.
    private static let left = 34
    private static let top = 4
    private static let slot = 13
    private static let plotHeight = 120

    /// `day` as an ISO 8601 date, which reads alike in both languages.
    static func date(_ day: Int) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents(
            [.year, .month, .day], from: Date(timeIntervalSince1970: TimeInterval(day) * 86_400))
        let pad = { (value: Int?) in String(format: "%02d", value ?? 0) }
        return "\(parts.year ?? 1970)-\(pad(parts.month))-\(pad(parts.day))"
    }
}
