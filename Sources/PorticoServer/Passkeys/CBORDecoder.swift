import CCBOR

/// Assembles `CBORValue`s from the items libcbor's streaming decoder reports, one head (or one
/// whole definite string) per `cbor_stream_decode` call.
///
/// libcbor does the reading; this type keeps the stack of open arrays, maps and tags, checks a
/// declared size against the bytes left before it reserves anything, and refuses what CTAP2's
/// canonical CBOR never contains (indefinite lengths, duplicate map keys).
final class CBORDecoder {
    /// Deeper nesting than any WebAuthn structure needs (an attestation object is 3 deep).
    static let maximumDepth = 16

    private enum Frame {
        case array(expected: Int, items: [CBORValue])
        case map(expected: Int, items: [CBORValue])
        case tag(UInt64)
    }

    private var stack: [Frame] = []
    private var result: CBORValue?
    private var error: CBORError?
    /// Bytes not yet handed to libcbor, for the declared-size check.
    private var remaining = 0

    private init() {}

    /// The first item of `bytes` and the number of bytes it takes.
    static func decodePrefix(_ bytes: ArraySlice<UInt8>) throws(CBORError) -> (CBORValue, Int) {
        let decoder = CBORDecoder()
        var callbacks = Self.callbacks
        let outcome: Result<(CBORValue, Int), CBORError> = bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, !buffer.isEmpty else { return .failure(.truncated) }
            var offset = 0
            let context = Unmanaged.passUnretained(decoder).toOpaque()
            while decoder.result == nil {
                decoder.remaining = buffer.count - offset
                guard offset < buffer.count else { return .failure(.truncated) }
                let step = cbor_stream_decode(base + offset, buffer.count - offset, &callbacks, context)
                if let error = decoder.error { return .failure(error) }
                switch step.status {
                case CBOR_DECODER_FINISHED: offset += step.read
                case CBOR_DECODER_NEDATA: return .failure(.truncated)
                default: return .failure(.malformed)
                }
                guard step.read > 0 else { return .failure(.malformed) }
            }
            guard let value = decoder.result else { return .failure(.truncated) }
            return .success((value, offset))
        }
        return try outcome.get()
    }

    private static func from(_ context: UnsafeMutableRawPointer?) -> CBORDecoder? {
        context.map { Unmanaged<CBORDecoder>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Records the first failure; later reports are ignored.
    private func fail(_ reason: CBORError) {
        if error == nil { error = reason }
    }

    /// A finished item: the result when nothing is open, else the next element of the open frame.
    private func emit(_ value: CBORValue) {
        guard error == nil else { return }
        var value = value
        while let top = stack.popLast() {
            switch top {
            case .tag(let tag):
                value = .tagged(tag, value)
            case .array(let expected, var items):
                items.append(value)
                guard items.count == expected else {
                    stack.append(.array(expected: expected, items: items))
                    return
                }
                value = .array(items)
            case .map(let expected, var items):
                items.append(value)
                guard items.count == expected * 2 else {
                    stack.append(.map(expected: expected, items: items))
                    return
                }
                var pairs: [CBORPair] = []
                pairs.reserveCapacity(expected)
                var keys = Set<CBORValue>()
                for index in stride(from: 0, to: items.count, by: 2) {
                    guard keys.insert(items[index]).inserted else { return fail(.duplicateKey) }
                    pairs.append(CBORPair(items[index], items[index + 1]))
                }
                value = .map(pairs)
            }
        }
        result = value
    }

    private func open(_ frame: Frame, declaring count: Int) {
        guard error == nil else { return }
        guard stack.count < Self.maximumDepth else { return fail(.tooDeep) }
        // Every element takes at least one byte after this head's (at least one) byte. A size
        // beyond `Int.max` arrives negative (`size_t` imports as `Int`).
        guard count >= 0, count < remaining else { return fail(.sizeBeyondInput) }
        stack.append(frame)
    }

    private func startArray(_ size: Int) {
        if size == 0 { return emit(.array([])) }
        guard size > 0 else { return fail(.sizeBeyondInput) }
        open(.array(expected: size, items: []), declaring: size)
    }

    private func startMap(_ size: Int) {
        if size == 0 { return emit(.map([])) }
        guard size >= 0, size < remaining / 2 + 1, size * 2 < remaining else { return fail(.sizeBeyondInput) }
        open(.map(expected: size, items: []), declaring: size * 2)
    }

    private static let callbacks: cbor_callbacks = {
        var c = cbor_empty_callbacks
        c.uint8 = { context, value in from(context)?.emit(.unsigned(UInt64(value))) }
        c.uint16 = { context, value in from(context)?.emit(.unsigned(UInt64(value))) }
        c.uint32 = { context, value in from(context)?.emit(.unsigned(UInt64(value))) }
        c.uint64 = { context, value in from(context)?.emit(.unsigned(value)) }
        c.negint8 = { context, value in from(context)?.emit(.negative(UInt64(value))) }
        c.negint16 = { context, value in from(context)?.emit(.negative(UInt64(value))) }
        c.negint32 = { context, value in from(context)?.emit(.negative(UInt64(value))) }
        c.negint64 = { context, value in from(context)?.emit(.negative(value)) }
        c.byte_string = { context, data, length in
            let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: length)) } ?? []
            from(context)?.emit(.bytes(bytes))
        }
        c.string = { context, data, length in
            guard let decoder = from(context) else { return }
            let bytes =
                data.map { UnsafeBufferPointer(start: $0, count: length) } ?? UnsafeBufferPointer(start: nil, count: 0)
            guard let text = String(validating: bytes, as: UTF8.self) else { return decoder.fail(.invalidUTF8) }
            decoder.emit(.text(text))
        }
        c.byte_string_start = { context in from(context)?.fail(.indefiniteLength) }
        c.string_start = { context in from(context)?.fail(.indefiniteLength) }
        c.indef_array_start = { context in from(context)?.fail(.indefiniteLength) }
        c.indef_map_start = { context in from(context)?.fail(.indefiniteLength) }
        c.indef_break = { context in from(context)?.fail(.indefiniteLength) }
        c.array_start = { context, size in from(context)?.startArray(size) }
        c.map_start = { context, size in from(context)?.startMap(size) }
        c.tag = { context, value in
            // libcbor's streaming decoder refuses the one-byte heads of tags 6...20 (0xc6-0xd4)
            // but writes those tags in that form: refused in every form, so whatever is
            // accepted is also read back after libcbor writes it.
            guard !(6...20).contains(value) else {
                from(context)?.fail(.malformed)
                return
            }
            from(context)?.open(.tag(value), declaring: 1)
        }
        c.float2 = { context, value in from(context)?.emit(.float(Double(value))) }
        c.float4 = { context, value in from(context)?.emit(.float(Double(value))) }
        c.float8 = { context, value in from(context)?.emit(.float(value)) }
        c.undefined = { context in from(context)?.emit(.undefined) }
        c.null = { context in from(context)?.emit(.null) }
        c.boolean = { context, value in from(context)?.emit(.bool(value)) }
        return c
    }()
}
