import Testing

/// A small parser for the Prometheus text exposition format 0.0.4, strict enough to catch
/// what a real scraper would reject: every line is `# HELP`, `# TYPE` or a sample; samples of a
/// family follow its `# TYPE`; label values are quoted with `\\`, `\"` and `\n` escapes; values
/// are floats (`+Inf`, `NaN` included).
struct PrometheusText {
    struct Sample: Equatable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    enum ParseError: Error, CustomStringConvertible {
        case badLine(Int, String)
        var description: String {
            switch self {
            case .badLine(let number, let line): "line \(number) is not valid exposition text: \(line)"
            }
        }
    }

    var help: [String: String] = [:]
    var types: [String: String] = [:]
    var samples: [Sample] = []

    init(_ text: String) throws {
        var currentFamily: String?
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            if line.isEmpty {
                guard index == text.split(separator: "\n", omittingEmptySubsequences: false).count - 1 else {
                    throw ParseError.badLine(number, String(line))
                }
                continue
            }
            if line.hasPrefix("# HELP ") {
                let rest = line.dropFirst(7)
                guard let space = rest.firstIndex(of: " "), Self.isMetricName(rest[..<space]) else {
                    throw ParseError.badLine(number, String(line))
                }
                help[String(rest[..<space])] = String(rest[rest.index(after: space)...])
            } else if line.hasPrefix("# TYPE ") {
                let parts = line.dropFirst(7).split(separator: " ")
                guard parts.count == 2, Self.isMetricName(parts[0]),
                    ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[1]),
                    types[String(parts[0])] == nil
                else { throw ParseError.badLine(number, String(line)) }
                types[String(parts[0])] = String(parts[1])
                currentFamily = String(parts[0])
            } else if line.hasPrefix("#") {
                continue
            } else {
                guard let sample = Self.sample(line), let family = currentFamily,
                    sample.name == family
                        || ["_bucket", "_sum", "_count"].contains(where: { sample.name == family + $0 })
                else { throw ParseError.badLine(number, String(line)) }
                samples.append(sample)
            }
        }
    }

    /// The value of the one sample named `name` with exactly `labels`, or nil.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    /// Every sample named `name` whose labels include `labels`.
    func samples(_ name: String, matching labels: [String: String] = [:]) -> [Sample] {
        samples.filter { sample in
            sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value }
        }
    }

    private static func isMetricName<S: StringProtocol>(_ name: S) -> Bool {
        guard let first = name.first, first.isLetter || first == "_" || first == ":" else { return false }
        return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ":") }
    }

    private static func sample(_ line: Substring) -> Sample? {
        var rest = line[...]
        let nameEnd = rest.firstIndex { $0 == "{" || $0 == " " } ?? rest.endIndex
        let name = String(rest[..<nameEnd])
        guard isMetricName(name) else { return nil }
        rest = rest[nameEnd...]
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                guard let equals = rest.firstIndex(of: "=") else { return nil }
                let label = String(rest[..<equals])
                guard isMetricName(label), !label.contains(":"), labels[label] == nil else { return nil }
                rest = rest[rest.index(after: equals)...]
                guard rest.first == "\"" else { return nil }
                rest = rest.dropFirst()
                var value = ""
                while let character = rest.first, character != "\"" {
                    rest = rest.dropFirst()
                    if character == "\\" {
                        switch rest.first {
                        case "\\": value.append("\\")
                        case "\"": value.append("\"")
                        case "n": value.append("\n")
                        default: return nil
                        }
                        rest = rest.dropFirst()
                    } else {
                        value.append(character)
                    }
                }
                guard rest.first == "\"" else { return nil }
                rest = rest.dropFirst()
                labels[label] = value
                if rest.first == "," { rest = rest.dropFirst() } else if rest.first != "}" { return nil }
            }
            rest = rest.dropFirst()
        }
        guard rest.first == " " else { return nil }
        let parts = rest.dropFirst().split(separator: " ")
        guard (1...2).contains(parts.count) else { return nil }
        let valueText = String(parts[0])
        let value: Double? =
            switch valueText {
            case "+Inf": .infinity
            case "-Inf": -.infinity
            case "NaN": .nan
            default: Double(valueText)
            }
        guard let value else { return nil }
        return Sample(name: name, labels: labels, value: value)
    }
}
