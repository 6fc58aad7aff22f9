/// Writing the Prometheus text exposition format 0.0.4: escaping, numbers, and one family's
/// lines.
enum MetricsText {
    /// Appends `family`: `# HELP`, `# TYPE`, then every sample.
    static func append(_ family: MetricFamily, to text: inout String) {
        text += "# HELP \(family.name) \(escapeHelp(family.help))\n"
        text += "# TYPE \(family.name) \(family.kind.rawValue)\n"
        for (labels, series) in family.entries {
            switch series {
            case .counter(let counter):
                sample(family.name, labels, String(counter.value), to: &text)
            case .gauge(let gauge):
                sample(family.name, labels, number(gauge.value), to: &text)
            case .sampled(let read):
                if let value = read() { sample(family.name, labels, number(value), to: &text) }
            case .statuses(let counters):
                let (counts, other) = counters.snapshot()
                for (status, count) in counts {
                    sample(
                        family.name, labels + [MetricLabel(name: "status", value: String(status))], String(count),
                        to: &text)
                }
                if other > 0 {
                    sample(
                        family.name, labels + [MetricLabel(name: "status", value: "other")], String(other), to: &text)
                }
            case .histogram(let histogram):
                let snapshot = histogram.snapshot()
                // An instrument nobody has used yet would only add lines of zeros.
                guard snapshot.count > 0 || labels.isEmpty else { continue }
                for (index, bound) in histogram.upperBounds.enumerated() {
                    sample(
                        family.name + "_bucket", labels + [MetricLabel(name: "le", value: number(bound))],
                        String(snapshot.cumulativeCounts[index]), to: &text)
                }
                sample(
                    family.name + "_bucket", labels + [MetricLabel(name: "le", value: "+Inf")], String(snapshot.count),
                    to: &text)
                sample(family.name + "_sum", labels, number(snapshot.sumSeconds), to: &text)
                sample(family.name + "_count", labels, String(snapshot.count), to: &text)
            }
        }
    }

    private static func sample(_ name: String, _ labels: [MetricLabel], _ value: String, to text: inout String) {
        text += name
        if !labels.isEmpty {
            text += "{"
            for (index, label) in labels.enumerated() {
                if index > 0 { text += "," }
                text += label.name
                text += "=\""
                text += escapeLabelValue(label.value)
                text += "\""
            }
            text += "}"
        }
        text += " "
        text += value
        text += "\n"
    }

    /// A value as the format writes floats: `+Inf`, `-Inf`, `NaN`, integers without `.0`.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value == .infinity { return "+Inf" }
        if value == -.infinity { return "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return value.description
    }

    /// `\` and line feeds escaped, as `# HELP` text needs.
    static func escapeHelp(_ text: String) -> String {
        guard text.contains(where: { $0 == "\\" || $0 == "\n" }) else { return text }
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// `\`, `"` and line feeds escaped, as label values need.
    static func escapeLabelValue(_ text: String) -> String {
        guard text.contains(where: { $0 == "\\" || $0 == "\n" || $0 == "\"" }) else { return text }
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\"": escaped += "\\\""
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// `[a-zA-Z_:][a-zA-Z0-9_:]*`.
    static func isValidMetricName(_ name: String) -> Bool {
        isName(name, allowingColon: true)
    }

    /// `[a-zA-Z_][a-zA-Z0-9_]*`, and not starting with the reserved `__`.
    static func isValidLabelName(_ name: String) -> Bool {
        isName(name, allowingColon: false) && !name.hasPrefix("__")
    }

    private static func isName(_ name: String, allowingColon: Bool) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                true
            case UInt8(ascii: ":"): allowingColon
            default: false
            }
        }
    }
}
