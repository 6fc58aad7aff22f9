import CCBOR

/// Builds libcbor items from `CBORValue`s so libcbor writes the bytes (the tests' and the
/// benchmark's software authenticator); Portico never writes CBOR by hand either.
enum CBOREncoder {
    /// A new item with one reference, or nil when libcbor cannot allocate.
    static func item(_ value: CBORValue) -> UnsafeMutablePointer<cbor_item_t>? {
        switch value {
        case .unsigned(let n): return unsigned(n)
        case .negative(let n): return negative(n)
        case .bytes(let bytes): return bytes.withUnsafeBufferPointer { cbor_build_bytestring($0.baseAddress, $0.count) }
        case .text(let text):
            let utf8 = Array(text.utf8)
            return utf8.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { cbor_build_stringn($0.baseAddress, $0.count) }
            }
        case .array(let items):
            guard let array = cbor_new_definite_array(items.count) else { return nil }
            for element in items {
                guard let child = item(element), cbor_array_push(array, cbor_move(child)) else {
                    var array0: UnsafeMutablePointer<cbor_item_t>? = array
                    cbor_decref(&array0)
                    return nil
                }
            }
            return array
        case .map(let pairs):
            guard let map = cbor_new_definite_map(pairs.count) else { return nil }
            for pair in pairs {
                guard let key = item(pair.key), let value = item(pair.value),
                    cbor_map_add(map, cbor_pair(key: cbor_move(key), value: cbor_move(value)))
                else {
                    var map0: UnsafeMutablePointer<cbor_item_t>? = map
                    cbor_decref(&map0)
                    return nil
                }
            }
            return map
        case .tagged(let tag, let inner):
            guard let child = item(inner) else { return nil }
            return cbor_build_tag(tag, cbor_move(child))
        case .bool(let flag): return cbor_build_bool(flag)
        case .null: return cbor_new_null()
        case .undefined: return cbor_new_undef()
        case .float(let number): return cbor_build_float8(number)
        }
    }

    /// The shortest head for `n`, as CTAP2's canonical form wants.
    private static func unsigned(_ n: UInt64) -> UnsafeMutablePointer<cbor_item_t>? {
        if n <= UInt64(UInt8.max) { return cbor_build_uint8(UInt8(n)) }
        if n <= UInt64(UInt16.max) { return cbor_build_uint16(UInt16(n)) }
        if n <= UInt64(UInt32.max) { return cbor_build_uint32(UInt32(n)) }
        return cbor_build_uint64(n)
    }

    private static func negative(_ n: UInt64) -> UnsafeMutablePointer<cbor_item_t>? {
        if n <= UInt64(UInt8.max) { return cbor_build_negint8(UInt8(n)) }
        if n <= UInt64(UInt16.max) { return cbor_build_negint16(UInt16(n)) }
        if n <= UInt64(UInt32.max) { return cbor_build_negint32(UInt32(n)) }
        return cbor_build_negint64(n)
    }
}
