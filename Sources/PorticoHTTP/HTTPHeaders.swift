/// An ordered list of HTTP header fields with case-insensitive lookup.
///
/// Order and repeated names are kept because some fields (`Set-Cookie` above all) must be sent
/// once per value rather than folded into one line.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral, Equatable {
    /// One header field as a name and a value.
    public typealias Element = (name: String, value: String)

    private var fields: [Element] = []

    /// Creates an empty list, to be filled with `add(_:value:)`.
    public init() {}

    /// Creates a list from literal pairs, in the order written.
    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements {
            add(name, value: value)
        }
    }

    /// The number of fields, counting repeated names separately.
    public var count: Int { fields.count }

    /// Whether there are no fields at all.
    public var isEmpty: Bool { fields.isEmpty }

    /// The first value for `name` (compared without case), or nil; setting replaces every
    /// field of that name, and setting nil removes them.
    public subscript(name: String) -> String? {
        get {
            for field in fields where Self.equalIgnoringCase(field.name, name) {
                return field.value
            }
            return nil
        }
        set {
            remove(name)
            if let newValue {
                add(name, value: newValue)
            }
        }
    }

    /// Every value sent for `name`, in order, for fields that may repeat.
    public func values(for name: String) -> [String] {
        var result: [String] = []
        for field in fields where Self.equalIgnoringCase(field.name, name) {
            result.append(field.value)
        }
        return result
    }

    /// Whether at least one field is called `name`.
    public func contains(_ name: String) -> Bool {
        fields.contains { Self.equalIgnoringCase($0.name, name) }
    }

    /// Appends a field, keeping any earlier ones of the same name (as `Set-Cookie` needs).
    public mutating func add(_ name: String, value: String) {
        if fields.isEmpty {
            fields.reserveCapacity(4)
        }
        fields.append((name, value))
    }

    /// Removes every field called `name`.
    public mutating func remove(_ name: String) {
        fields.removeAll { Self.equalIgnoringCase($0.name, name) }
    }

    /// Iterates the fields in the order they were added or received.
    public func makeIterator() -> IndexingIterator<[Element]> {
        fields.makeIterator()
    }

    /// Compares two field lists field by field, names without case and in order.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        guard lhs.fields.count == rhs.fields.count else { return false }
        return zip(lhs.fields, rhs.fields).allSatisfy { equalIgnoringCase($0.name, $1.name) && $0.value == $1.value }
    }

    /// ASCII case-insensitive comparison: header names are ASCII tokens, so no Unicode folding.
    static func equalIgnoringCase(_ lhs: String, _ rhs: String) -> Bool {
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil):
                return true
            case (let first?, let second?):
                if first != second && lowercased(first) != lowercased(second) {
                    return false
                }
            default:
                return false
            }
        }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (byte >= 65 && byte <= 90) ? byte + 32 : byte
    }
}
