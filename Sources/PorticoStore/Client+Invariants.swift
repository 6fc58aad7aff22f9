// What every backend refuses to store about a client, checked here once so that no backend can
// disagree (a backend holds no policy).
extension Client {
    /// Throws unless the client can authenticate as its type says: a confidential client needs
    /// a secret or a JWKS (for `private_key_jwt`).
    public func checkStorable() throws {
        if type == .confidential && secretHash == nil && jwks == nil && jwksURI == nil {
            throw StoreError.invalidArgument("a confidential client needs a secret or a JWKS")
        }
        if jwks != nil && jwksURI != nil {
            throw StoreError.invalidArgument("a client has a JWKS or a JWKS URI, not both")
        }
    }
}
