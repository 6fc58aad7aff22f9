/// The errors of RFC 9449: `invalid_dpop_proof` and `use_dpop_nonce`, answered as the token
/// endpoint answers them (400, §5) or as a resource does (401 with a `DPoP` challenge, §7.1).
extension OAuthError {
    /// A proof missing where one is required, malformed, replayed or made with the wrong key,
    /// at the token endpoint.
    static func invalidDPoPProof(_ description: String) -> OAuthError {
        OAuthError(code: "invalid_dpop_proof", description: description, status: .badRequest)
    }

    /// `problem` as the token endpoint answers it; a wanted nonce comes in `DPoP-Nonce`.
    static func tokenEndpoint(_ problem: DPoPProofChecker.Problem, nonce: @autoclosure () -> String) -> OAuthError {
        switch problem {
        case .invalid(let description):
            return invalidDPoPProof(description)
        case .nonceWanted:
            var error = OAuthError(
                code: "use_dpop_nonce", description: "The DPoP proof must carry the nonce in DPoP-Nonce.",
                status: .badRequest)
            error.headers = [("DPoP-Nonce", nonce())]
            return error
        }
    }

    /// `problem` as a resource answers it (RFC 9449 §7.1): 401 with
    /// `WWW-Authenticate: DPoP error=…` naming the accepted algorithms.
    static func resource(_ problem: DPoPProofChecker.Problem, nonce: @autoclosure () -> String) -> OAuthError {
        switch problem {
        case .invalid(let description):
            return dpopChallenge(code: "invalid_dpop_proof", description: description)
        case .nonceWanted:
            var error = dpopChallenge(
                code: "use_dpop_nonce", description: "The DPoP proof must carry the nonce in DPoP-Nonce.")
            error.headers.append(("DPoP-Nonce", nonce()))
            return error
        }
    }

    /// A 401 at a resource with a `DPoP` challenge carrying `code`: a bad proof, or a bad token
    /// sent with the `DPoP` scheme.
    static func dpopChallenge(code: String, description: String) -> OAuthError {
        let algorithms = DPoPProofChecker.algorithms.map(\.rawValue).joined(separator: " ")
        return OAuthError(
            code: code, description: description, status: .unauthorized,
            headers: [
                (
                    "WWW-Authenticate",
                    #"DPoP realm="portico", algs="\#(algorithms)", error="\#(code)", error_description=\#(quoted(description))"#
                )
            ])
    }
}
