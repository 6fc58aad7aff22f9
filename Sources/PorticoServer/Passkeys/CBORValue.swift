import CCBOR
import Foundation

/// One CBOR data item (RFC 8949), as WebAuthn's attestation objects and COSE keys carry them.
///
/// Decoding is libcbor's streaming decoder (`cbor_stream_decode`): libcbor reads every head and
/// string, and `CBORDecoder` only assembles the items it reports. Not `cbor_load`: libcbor 0.8
/// allocates (and zeroes) a definite array or map's declared size before reading a single
/// element, so a nine-byte input declaring 2³² elements would make the server touch gigabytes.
/// Here a declared size larger than the bytes left is refused before anything is allocated.
public enum CBORValue: Sendable, Hashable {
    /// Major type 0.
    case unsigned(UInt64)
    /// Major type 1: the value is `-1 - n` for the stored `n`.
    case negative(UInt64)
    /// Major type 2 (definite length only).
    case bytes([UInt8])
    /// Major type 3 (definite length, valid UTF-8).
    case text(String)
    /// Major type 4.
    case array([CBORValue])
    /// Major type 5, in the order the encoder wrote it; keys are unique.
    case map([CBORPair])
    /// Major type 6.
    indirect case tagged(UInt64, CBORValue)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null
    /// `undefined`.
    case undefined
    /// A half, single or double precision float.
    case float(Double)

    /// The value as a signed integer when it is one that fits `Int64`.
    public var integerValue: Int64? {
        switch self {
        case .unsigned(let n): n <= UInt64(Int64.max) ? Int64(n) : nil
        case .negative(let n): n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default: nil
        }
    }

    /// The bytes of a byte string.
    public var bytesValue: [UInt8]? {
        if case .bytes(let bytes) = self { return bytes }
        return nil
    }

    /// The text of a text string.
    public var textValue: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    /// The pairs of a map.
    public var mapValue: [CBORPair]? {
        if case .map(let pairs) = self { return pairs }
        return nil
    }

    /// The value under `key` in a map, nil when absent or not a map.
    public subscript(key: CBORValue) -> CBORValue? {
        mapValue?.first { $0.key == key }?.value
    }

    /// The value under the text key `key`.
    public subscript(text key: String) -> CBORValue? { self[.text(key)] }

    /// The value under the integer label `label` (COSE's labels).
    public subscript(label label: Int64) -> CBORValue? {
        self[label >= 0 ? .unsigned(UInt64(label)) : .negative(UInt64(-(label + 1)))]
    }

    /// Decodes exactly one item that fills all of `bytes`.
    public init(decoding bytes: [UInt8]) throws(CBORError) {
        let (value, length) = try CBORDecoder.decodePrefix(bytes[...])
        guard length == bytes.count else { throw .trailingBytes }
        self = value
    }

    /// The item's encoding, written by libcbor (`cbor_serialize_alloc`); used by the software
    /// authenticator of the tests and the benchmark, never to read anything.
    public func encoded() -> [UInt8] {
        guard let item = CBOREncoder.item(self) else { return [] }
        var item0: UnsafeMutablePointer<cbor_item_t>? = item
        defer { cbor_decref(&item0) }
        var buffer: UnsafeMutablePointer<UInt8>?
        var capacity = 0
        let length = cbor_serialize_alloc(item, &buffer, &capacity)
        defer { free(buffer) }
        guard let buffer, length > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: buffer, count: length))
    }
}
