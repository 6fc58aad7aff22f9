/// Why bytes are not one acceptable CBOR item; WebAuthn inputs that fail are refused whole.
public enum CBORError: Error, Sendable, Equatable {
    /// The input ends inside an item.
    case truncated
    /// libcbor found a malformed head (reserved additional information, a bad simple value).
    case malformed
    /// Indefinite-length strings, arrays or maps, which CTAP2's canonical form never uses.
    case indefiniteLength
    /// Arrays, maps and tags nested deeper than `CBORDecoder.maximumDepth`.
    case tooDeep
    /// A declared array or map size larger than the bytes that could hold it.
    case sizeBeyondInput
    /// A text string that is not UTF-8.
    case invalidUTF8
    /// A map with the same key twice.
    case duplicateKey
    /// Bytes after the one item that should fill the input.
    case trailingBytes
}
