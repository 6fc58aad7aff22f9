import PorticoCrypto

extension COSEKey {
    /// Imports a credential public key from its COSE_Key encoding (RFC 9052 §7): `kty` (1),
    /// `alg` (3), and per key type `crv` (-1), `x` (-2), `y` (-3) or RSA's `n` (-1), `e` (-2).
    /// Only ES256, EdDSA and RS256 are accepted; a key whose members disagree is refused.
    init(cbor bytes: [UInt8]) throws(PasskeyError) {
        let value: CBORValue
        do { value = try CBORValue(decoding: bytes) } catch { throw .malformed("credential public key: \(error)") }
        guard case .map = value else { throw .unsupportedKey("credential public key is not a map") }
        guard let algorithmLabel = value[label: 3]?.integerValue,
            let algorithm = COSEAlgorithm(rawValue: algorithmLabel)
        else { throw .unsupportedKey("alg \(value[label: 3]?.integerValue.map(String.init) ?? "missing")") }
        guard let typeLabel = value[label: 1]?.integerValue, let keyType = KeyType(rawValue: typeLabel) else {
            throw .unsupportedKey("kty \(value[label: 1]?.integerValue.map(String.init) ?? "missing")")
        }
        do {
            switch keyType {
            case .ec2, .okp:
                try self.init(
                    algorithm: algorithm, keyType: keyType, curve: value[label: -1]?.integerValue,
                    x: value[label: -2]?.bytesValue, y: value[label: -3]?.bytesValue)
            case .rsa:
                try self.init(
                    algorithm: algorithm, keyType: keyType, modulus: value[label: -1]?.bytesValue,
                    exponent: value[label: -2]?.bytesValue)
            }
        } catch {
            throw .unsupportedKey("\(error)")
        }
    }
}
