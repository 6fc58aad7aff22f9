import PorticoStore

/// Binds the tokens to the key of the request's DPoP proof (RFC 9449), and holds a grant
/// already bound to a key to that key.
///
/// With a proof: it is recorded as used (once on every node, in the grant's transaction, so a
/// refused request leaves it unused), the access token gets `cnf.jkt` and `token_type` `DPoP`,
/// and a new refresh family of a public client is bound to the key (§5: a stolen refresh token
/// is useless without the key; a confidential client's already needs its secret). A grant
/// bound before (a code with `dpop_jkt`, a bound refresh family) needs a proof made with that
/// key, or is refused with `invalid_dpop_proof` and rolled back: the code and the refresh token
/// still work with the right proof.
struct SenderConstraintStep: IssuanceStep {
    func mayRefuse(_ request: TokenRequest) -> Bool {
        request.proof != nil
    }

    func applies(to issuance: TokenIssuance, for request: TokenRequest) -> Bool {
        request.proof != nil || issuance.requiredProofKey != nil || issuance.refreshFamilyKey == .unknown
    }

    func shape(_ issuance: inout TokenIssuance, for request: TokenRequest, in transaction: any StoreTransaction)
        throws
    {
        let familyID = issuance.refreshToken.flatMap(RefreshToken.familyID(of:)).map(String.init)
        var required = issuance.requiredProofKey
        if issuance.refreshFamilyKey == .unknown, let familyID {
            required = try transaction.boundKey(refreshFamilyID: familyID)
        }
        guard let proof = request.proof else {
            guard required == nil else {
                throw OAuthError.invalidDPoPProof("This grant is bound to a key; send a DPoP proof made with it.")
            }
            return
        }
        if let required, required != proof.keyThumbprint {
            throw OAuthError.invalidDPoPProof("This grant is bound to another key than the DPoP proof's.")
        }
        guard try proof.recordFirstUse(in: transaction) else {
            throw OAuthError.invalidDPoPProof("The DPoP proof has been used before.")
        }
        issuance.accessToken.confirmationKey = proof.keyThumbprint
        if let familyID, issuance.refreshFamilyKey == .newFamily, !request.client.isConfidential {
            try transaction.bindRefreshFamily(familyID, toKey: proof.keyThumbprint)
        }
    }
}
