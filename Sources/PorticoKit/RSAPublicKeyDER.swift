/// The DER encoding of a PKCS #1 `RSAPublicKey` (RFC 8017 §A.1.1), the form Security's
/// `SecKeyCreateWithData` takes for RSA public keys. Plain Swift, so the Linux tests check it
/// against OpenSSL although only the Apple crypto uses it.
enum RSAPublicKeyDER {
    /// `SEQUENCE { INTEGER modulus, INTEGER exponent }` from big-endian magnitudes.
    static func encode(modulus: [UInt8], exponent: [UInt8]) -> [UInt8] {
        let body = integer(modulus) + integer(exponent)
        return [0x30] + length(body.count) + body
    }

    /// The number of significant bits in a big-endian `modulus`.
    static func bitLength(ofModulus modulus: [UInt8]) -> Int {
        guard let first = modulus.firstIndex(where: { $0 != 0 }) else { return 0 }
        return (modulus.count - first) * 8 - modulus[first].leadingZeroBitCount
    }

    private static func integer(_ magnitude: [UInt8]) -> [UInt8] {
        var bytes = Array(magnitude.drop { $0 == 0 })
        // A set top bit would make the INTEGER negative: prefix a zero byte.
        if bytes.isEmpty || bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return [0x02] + length(bytes.count) + bytes
    }

    private static func length(_ count: Int) -> [UInt8] {
        guard count >= 0x80 else { return [UInt8(count)] }
        var octets: [UInt8] = []
        var remaining = count
        while remaining > 0 {
            octets.insert(UInt8(remaining & 0xFF), at: 0)
            remaining >>= 8
        }
        return [0x80 | UInt8(octets.count)] + octets
    }
}
