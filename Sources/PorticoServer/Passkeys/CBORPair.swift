/// One key and value of a CBOR map.
public struct CBORPair: Sendable, Hashable {
    /// The key.
    public var key: CBORValue
    /// The value.
    public var value: CBORValue

    /// A pair.
    public init(_ key: CBORValue, _ value: CBORValue) {
        self.key = key
        self.value = value
    }
}
