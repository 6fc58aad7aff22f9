/// Name-value pairs in `application/x-www-form-urlencoded` form: a query string or a form body.
///
/// Kept as an ordered list because OAuth needs to see repeated parameters (a repeated
/// `client_id` is an error there) and order matters to some clients.
public struct FormParameters: Sendable, Sequence, Equatable {
    /// One decoded parameter.
    public typealias Element = (name: String, value: String)

    private var pairs: [Element]

    /// Wraps already-decoded pairs, in order.
    public init(_ items: [(name: String, value: String)] = []) {
        pairs = items
    }

    /// Decodes `name=value&…` text: `+` is a space, `%XX` a byte; a bad escape or bytes that are
    /// not UTF-8 throw a 400 `HTTPError`. A name without `=` has an empty value.
    public init(decoding encoded: some Collection<UInt8>) throws(HTTPError) {
        try self.init(decoding: Array(encoded))
    }

    /// Decodes a request body or query held in an array; see `init(decoding:)` for the rules.
    ///
    /// Why a concrete overload: token requests decode a form on every call, and the generic
    /// initializer, called from another module, runs unspecialized (witness-table calls per
    /// byte). This one works on contiguous bytes with the decoding fully specialized.
    public init(decoding encoded: [UInt8]) throws(HTTPError) {
        pairs = []
        var start = 0
        let end = encoded.count
        while start < end {
            var stop = start
            while stop < end && encoded[stop] != UInt8(ascii: "&") { stop += 1 }
            if stop > start {
                let pair = encoded[start..<stop]
                if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
                    let name = try PercentDecoding.decode(pair[..<equals], plusAsSpace: true)
                    let value = try PercentDecoding.decode(pair[(equals + 1)...], plusAsSpace: true)
                    pairs.append((name, value))
                } else {
                    pairs.append((try PercentDecoding.decode(pair, plusAsSpace: true), ""))
                }
            }
            start = stop + 1
        }
    }

    /// Decodes a query or form string; see `init(decoding:)` for the rules.
    public init(decoding encoded: String) throws(HTTPError) {
        try self.init(decoding: Array(encoded.utf8))
    }

    /// The first value for `name` (names are case-sensitive), or nil.
    public subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// Every value for `name`, in order, so callers can reject or join repeats.
    public func values(for name: String) -> [String] {
        pairs.compactMap { $0.name == name ? $0.value : nil }
    }

    /// The pairs in the order they were sent.
    public var items: [(name: String, value: String)] {
        pairs
    }

    /// The number of pairs, counting repeats.
    public var count: Int { pairs.count }

    /// Whether there are no pairs.
    public var isEmpty: Bool { pairs.isEmpty }

    /// Iterates the pairs in the order they were sent.
    public func makeIterator() -> IndexingIterator<[Element]> {
        pairs.makeIterator()
    }

    /// Compares pair by pair, in order.
    public static func == (lhs: FormParameters, rhs: FormParameters) -> Bool {
        lhs.pairs.count == rhs.pairs.count && zip(lhs.pairs, rhs.pairs).allSatisfy { $0 == $1 }
    }
}
