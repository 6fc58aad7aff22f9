/// A failure the command line reports as one line on stderr before exiting non-zero.
struct CommandLineError: Error, CustomStringConvertible {
    /// What went wrong, in words a person at a terminal understands.
    let description: String
    /// The process exit status: 2 for a usage mistake, 1 for a failure while working.
    let exitCode: Int32

    /// A mistake in how the command was called (exit status 2).
    static func usage(_ message: String) -> CommandLineError {
        CommandLineError(description: message, exitCode: 2)
    }

    /// A failure while carrying out a well-formed command (exit status 1).
    static func failure(_ message: String) -> CommandLineError {
        CommandLineError(description: message, exitCode: 1)
    }
}

/// The words after a subcommand, consumed option by option.
///
/// Portico cannot fetch swift-argument-parser, and its commands are few and flat, so this
/// small reader does the job: `--name value`, `--name=value`, repeatable options, flags, and
/// positional words, with every word left over at the end reported as an error.
///
/// Options always start with two dashes (only `-h` is short), so a positional word may start
/// with one: a random client or user ID such as `-kH__Y3u…` is an ID, not an option. Words after
/// a lone `--` are positional whatever they look like, as with every POSIX tool.
struct Arguments {
    private var words: [String]
    private var operands: [String]

    init(_ words: [String]) {
        if let end = words.firstIndex(of: "--") {
            self.words = Array(words[..<end])
            self.operands = Array(words[(end + 1)...])
        } else {
            self.words = words
            self.operands = []
        }
    }

    /// Whether the caller asked for help anywhere in the words.
    var wantsHelp: Bool {
        words.contains("--help") || words.contains("-h")
    }

    /// Removes a boolean flag; true when it was present.
    mutating func flag(_ name: String) -> Bool {
        let before = words.count
        words.removeAll { $0 == "--\(name)" }
        return words.count != before
    }

    /// Removes every occurrence of `--name value` / `--name=value` and returns the values in order.
    mutating func values(_ name: String) throws -> [String] {
        var found: [String] = []
        var kept: [String] = []
        var index = 0
        while index < words.count {
            let word = words[index]
            if word == "--\(name)" {
                guard index + 1 < words.count, !words[index + 1].hasPrefix("--") else {
                    throw CommandLineError.usage("option --\(name) needs a value")
                }
                found.append(words[index + 1])
                index += 2
            } else if word.hasPrefix("--\(name)=") {
                found.append(String(word.dropFirst(name.count + 3)))
                index += 1
            } else {
                kept.append(word)
                index += 1
            }
        }
        words = kept
        return found
    }

    /// Removes a single-valued option; giving it twice is an error.
    mutating func value(_ name: String) throws -> String? {
        let found = try values(name)
        guard found.count <= 1 else { throw CommandLineError.usage("option --\(name) given more than once") }
        return found.first
    }

    /// Removes and returns the next word that is not an option, if any.
    mutating func positional() -> String? {
        if let index = words.firstIndex(where: { !$0.hasPrefix("--") && $0 != "-h" }) {
            return words.remove(at: index)
        }
        return operands.isEmpty ? nil : operands.removeFirst()
    }

    /// Fails on any word nobody consumed, so a typo never passes silently.
    func finish() throws {
        if let first = words.first ?? operands.first {
            throw CommandLineError.usage(
                first.hasPrefix("-") ? "unknown option \(first)" : "unexpected argument '\(first)'")
        }
    }
}
