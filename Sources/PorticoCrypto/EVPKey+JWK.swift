import COpenSSL
import Foundation

/// Building OpenSSL keys from JWK members with `OSSL_PARAM_BLD` and `EVP_PKEY_fromdata`.
extension EVPKey {
    /// The key a JWK describes; private when the JWK has `d`. Private keys pass a sign-and-verify
    /// self test and EC public points an on-curve check, since `EVP_PKEY_fromdata` checks neither.
    static func fromJWK(_ jwk: JWK) throws(KeyError) -> EVPKey {
        let key: EVPKey
        switch jwk.keyType {
        case "RSA": key = try rsaKey(jwk)
        case "EC": key = try ecKey(jwk)
        case "OKP": key = try edKey(jwk)
        default: throw .unsupportedKeyType(jwk.keyType)
        }
        if key.algorithm == .es256 {
            guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else { throw .invalidJWK("EC key") }
            defer { EVP_PKEY_CTX_free(context) }
            guard EVP_PKEY_public_check(context) == 1 else {
                ERR_clear_error()
                throw .invalidJWK("x/y is not a point on P-256")
            }
        }
        if key.hasPrivateKey {
            let probe = Array("portico key self test".utf8)
            let consistent = probe.withUnsafeBytes { message in
                key.sign(message).map { key.verify($0, of: message) } ?? false
            }
            guard consistent else { throw .inconsistentKeyPair }
        }
        return key
    }

    private static func member(_ value: String?, _ name: String, length: Int? = nil) throws(KeyError) -> [UInt8] {
        guard let value else { throw .invalidJWK("missing \(name)") }
        guard let bytes = Base64URL.decode(value), !bytes.isEmpty else { throw .invalidJWK("\(name) is not base64url") }
        if let length, bytes.count != length { throw .invalidJWK("\(name) must be \(length) bytes") }
        return bytes
    }

    /// Collects big numbers and strings for `EVP_PKEY_fromdata`, freeing everything it made.
    ///
    /// `OSSL_PARAM_BLD` keeps the *pointers* it is given (names included) until
    /// `OSSL_PARAM_BLD_to_param`, so every name is copied into C memory owned here: a Swift
    /// string bridged to `char *` lives only for the duration of one call.
    private final class ParameterBuilder {
        let builder: OpaquePointer?
        var numbers: [OpaquePointer] = []
        var names: [UnsafeMutablePointer<CChar>] = []

        init() { builder = OSSL_PARAM_BLD_new() }

        deinit {
            for number in numbers { BN_clear_free(number) }
            for name in names { free(name) }
            OSSL_PARAM_BLD_free(builder)
        }

        private func retained(_ name: String) -> UnsafeMutablePointer<CChar>? {
            guard let copy = strdup(name) else { return nil }
            names.append(copy)
            return copy
        }

        func push(_ name: String, bigEndian bytes: [UInt8]) -> Bool {
            guard let key = retained(name), let number = BN_bin2bn(bytes, Int32(bytes.count), nil) else { return false }
            numbers.append(number)
            return OSSL_PARAM_BLD_push_BN(builder, key, number) == 1
        }

        func push(_ name: String, utf8 value: String) -> Bool {
            guard let key = retained(name), let copy = retained(value) else { return false }
            return OSSL_PARAM_BLD_push_utf8_string(builder, key, copy, 0) == 1
        }

        func push(_ name: String, octets: [UInt8]) -> Bool {
            guard let key = retained(name), let copy = malloc(max(octets.count, 1)) else { return false }
            names.append(copy.assumingMemoryBound(to: CChar.self))
            octets.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress { copy.copyMemory(from: base, byteCount: bytes.count) }
            }
            return OSSL_PARAM_BLD_push_octet_string(builder, key, copy, octets.count) == 1
        }

        /// The key from the pushed parameters, of OpenSSL key type `typeName`.
        func makeKey(typeName: String, isPrivate: Bool) -> OpaquePointer? {
            guard let builder, let parameters = OSSL_PARAM_BLD_to_param(builder) else { return nil }
            defer { OSSL_PARAM_free(parameters) }
            guard let context = EVP_PKEY_CTX_new_from_name(nil, typeName, nil) else { return nil }
            defer { EVP_PKEY_CTX_free(context) }
            guard EVP_PKEY_fromdata_init(context) == 1 else { return nil }
            var key: OpaquePointer?
            let selection = isPrivate ? portico_selection_keypair() : portico_selection_public_key()
            guard EVP_PKEY_fromdata(context, &key, selection, parameters) == 1 else {
                ERR_clear_error()
                return nil
            }
            return key
        }
    }

    private static func rsaKey(_ jwk: JWK) throws(KeyError) -> EVPKey {
        let modulus = try member(jwk.modulus, "n")
        let exponent = try member(jwk.exponent, "e")
        let significantBits = modulus.drop { $0 == 0 }.count * 8
        guard significantBits >= minimumRSABits else { throw .rsaKeyTooSmall(bits: significantBits) }
        let builder = ParameterBuilder()
        guard builder.push(OSSL_PKEY_PARAM_RSA_N, bigEndian: modulus),
            builder.push(OSSL_PKEY_PARAM_RSA_E, bigEndian: exponent)
        else { throw .invalidJWK("n/e") }
        let isPrivate = jwk.d != nil
        if isPrivate {
            guard builder.push(OSSL_PKEY_PARAM_RSA_D, bigEndian: try member(jwk.d, "d")) else { throw .invalidJWK("d") }
            let factors: [(String?, String, UnsafePointer<CChar>?)] = [
                (jwk.p, "p", portico_param_rsa_factor1()), (jwk.q, "q", portico_param_rsa_factor2()),
                (jwk.dp, "dp", portico_param_rsa_exponent1()), (jwk.dq, "dq", portico_param_rsa_exponent2()),
                (jwk.qi, "qi", portico_param_rsa_coefficient1()),
            ]
            let present = factors.filter { $0.0 != nil }.count
            // RFC 7518 §6.3.2: the CRT members come all together or not at all.
            guard present == 0 || present == factors.count else { throw .invalidJWK("partial p/q/dp/dq/qi") }
            for (value, name, parameter) in factors where value != nil {
                guard let parameter, builder.push(String(cString: parameter), bigEndian: try member(value, name))
                else { throw .invalidJWK(name) }
            }
        }
        guard let key = builder.makeKey(typeName: "RSA", isPrivate: isPrivate) else { throw .invalidJWK("RSA key") }
        return try adopt(key, hasPrivateKey: isPrivate)
    }

    private static func ecKey(_ jwk: JWK) throws(KeyError) -> EVPKey {
        guard jwk.curve == "P-256" else { throw .unsupportedKeyType("EC \(jwk.curve ?? "without crv")") }
        let x = try member(jwk.x, "x", length: 32)
        let y = try member(jwk.y, "y", length: 32)
        let builder = ParameterBuilder()
        guard builder.push(OSSL_PKEY_PARAM_GROUP_NAME, utf8: "prime256v1"),
            builder.push(OSSL_PKEY_PARAM_PUB_KEY, octets: [0x04] + x + y)
        else { throw .invalidJWK("x/y") }
        let isPrivate = jwk.d != nil
        if isPrivate {
            guard builder.push(OSSL_PKEY_PARAM_PRIV_KEY, bigEndian: try member(jwk.d, "d", length: 32)) else {
                throw .invalidJWK("d")
            }
        }
        guard let key = builder.makeKey(typeName: "EC", isPrivate: isPrivate) else {
            throw .invalidJWK("x/y is not a point on P-256")
        }
        return try adopt(key, hasPrivateKey: isPrivate)
    }

    private static func edKey(_ jwk: JWK) throws(KeyError) -> EVPKey {
        guard jwk.curve == "Ed25519" else { throw .unsupportedKeyType("OKP \(jwk.curve ?? "without crv")") }
        let x = try member(jwk.x, "x", length: 32)
        if jwk.d != nil {
            let d = try member(jwk.d, "d", length: 32)
            guard let key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, d, d.count) else {
                ERR_clear_error()
                throw .invalidJWK("d")
            }
            let adopted = try adopt(key, hasPrivateKey: true)
            // The public key is derived from d; a JWK whose x disagrees is not one key.
            guard adopted.publicJWK().x == Base64URL.encode(x) else { throw .inconsistentKeyPair }
            return adopted
        }
        guard let key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, x, x.count) else {
            ERR_clear_error()
            throw .invalidJWK("x")
        }
        return try adopt(key, hasPrivateKey: false)
    }
}
