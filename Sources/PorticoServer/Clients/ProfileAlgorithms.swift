import PorticoCrypto
import PorticoStore

extension SecurityProfile {
    /// The signature algorithms the profile lets a client's signatures use, nil for no limit.
    ///
    /// FAPI 2.0 Security Profile §5.4.1: PS256, ES256 or EdDSA only; RSASSA-PKCS1-v1_5 (RS256)
    /// is out. Since an RSA key registered without `alg` verifies both RSA algorithms
    /// (``ClientKeySet``), the limit is applied to the algorithm, not to the key.
    var signatureAlgorithms: Set<SignatureAlgorithm>? {
        switch self {
        case .fapi2: [.ps256, .es256, .edDSA]
        }
    }
}

extension Client {
    /// `algorithms` narrowed to what the client's security profile allows.
    func permittedAlgorithms(_ algorithms: Set<SignatureAlgorithm>) -> Set<SignatureAlgorithm> {
        guard let allowed = securityProfile?.signatureAlgorithms else { return algorithms }
        return algorithms.intersection(allowed)
    }

    /// Refuses a DPoP proof whose algorithm the client's profile does not allow.
    func checkProfileAllows(_ proof: DPoPProof?) throws {
        guard let proof, let allowed = securityProfile?.signatureAlgorithms, !allowed.contains(proof.algorithm) else {
            return
        }
        throw OAuthError.invalidDPoPProof(
            "This client's profile (FAPI 2.0) allows DPoP proofs signed with "
                + "\(allowed.map(\.rawValue).sorted().joined(separator: ", ")), not \(proof.algorithm.rawValue).")
    }
}
