import PorticoHTTP
import PorticoStore

/// The gate in front of the resource endpoints (userinfo, profile): a bearer token (RFC 6750)
/// that is genuine, unrevoked, carries one of the accepted scopes, and speaks for an account
/// that still exists and is not disabled.
///
/// Why one type: both endpoints must answer the same 401 and 403 challenges in the same order
/// (a revoked token is a 401 even when its scopes would also fail), and both read the
/// revocation and the person in one read transaction.
struct ProtectedResource {
    /// Where revocations and people are read.
    let store: any Store
    /// The shared, caching verifier.
    let verifier: AccessTokenVerifier
    /// Finds the person behind a pairwise `sub`.
    var subjects: PairwiseSubjects? = nil
    /// The provider's issuer: the `aud` of tokens meant for these endpoints (RFC 8707).
    var issuer: IssuerIdentifier? = nil
    /// Standings kept in memory, when the store reports its changes (PostgreSQL); used by the
    /// usual token's read alone.
    var standings: StandingCache? = nil
    /// Checks the DPoP proofs of tokens sent with the `DPoP` scheme (RFC 9449 §7); without it
    /// only bearer tokens are accepted.
    var proofs: DPoPProofChecker? = nil

    /// An access token as a request presented it: as a bearer token, or with the `DPoP` scheme
    /// and a checked proof of possession (not yet recorded as used).
    struct PresentedToken {
        /// The access token.
        let token: String
        /// The proof sent with it under the `DPoP` scheme; nil for a bearer token.
        let proof: DPoPProof?
    }

    /// The token `request` presents, under either scheme; a `DPoP` one with its proof checked
    /// against `path` and the token (`ath`).
    func presentedToken(in request: Request, path: String, formParameter: Bool) throws -> PresentedToken {
        guard let authorization = request.headers["Authorization"],
            let token = Self.credentials(in: authorization, scheme: "dpop")
        else {
            return PresentedToken(token: try Self.bearerToken(in: request, formParameter: formParameter), proof: nil)
        }
        guard let proofs else { throw OAuthError.invalidToken("The Authorization header must carry a Bearer token.") }
        guard !token.isEmpty else {
            throw OAuthError.dpopChallenge(code: "invalid_token", description: "An access token is required.")
        }
        let proof: DPoPProof?
        do {
            proof = try proofs.proof(of: request, path: path, accessToken: token)
        } catch {
            throw OAuthError.resource(error, nonce: proofs.currentNonce())
        }
        guard let proof else {
            throw OAuthError.resource(.invalid("A token sent with the DPoP scheme needs a DPoP proof."), nonce: "")
        }
        return PresentedToken(token: token, proof: proof)
    }

    /// `response` with the current DPoP nonce when `request` came with a proof and nonces are
    /// required (RFC 9449 §8.2), so that the client keeps a fresh nonce without a refusal first.
    func supplyingNonce(_ response: Response, to request: Request) -> Response {
        guard let proofs, proofs.requiresNonce, Self.usesDPoPScheme(request) else { return response }
        var response = response
        proofs.supplyNonce(in: &response)
        return response
    }

    /// Whether `request` sends its token with the `DPoP` scheme, which the epoll thread leaves
    /// to the worker pool (the proof's use is recorded in the store).
    static func usesDPoPScheme(_ request: Request) -> Bool {
        request.headers["Authorization"].map { credentials(in: $0, scheme: "dpop") != nil } ?? false
    }

    /// Admits the token `request` presents (``presentedToken(in:path:formParameter:)``), as
    /// ``admit(_:acceptedScopes:challengeScope:)`` does.
    func admit(_ request: Request, formParameter: Bool, acceptedScopes: Set<String>, challengeScope: String) throws
        -> (VerifiedAccessToken, UserRecord)
    {
        let presented = try presentedToken(in: request, path: request.path, formParameter: formParameter)
        return try admit(try verify(presented), acceptedScopes: acceptedScopes, challengeScope: challengeScope)
    }

    /// The token sent in `Authorization: Bearer`, or (when `formParameter` is set, for POSTed
    /// userinfo) in the form body; sending both is an error (RFC 6750 §2).
    static func bearerToken(in request: Request, formParameter: Bool) throws(OAuthError) -> String {
        var fromBody: String?
        if formParameter && request.method == .post && OAuthParameters.isForm(request) {
            fromBody = try OAuthParameters(formOf: request)["access_token"]
        }
        guard let authorization = request.headers["Authorization"] else {
            guard let fromBody else { throw missingToken() }
            return fromBody
        }
        guard fromBody == nil else { throw .invalidRequest("Send the access token in one place, not two.") }
        guard let token = credentials(in: authorization, scheme: "bearer") else {
            throw .invalidToken("The Authorization header must carry a Bearer token.")
        }
        guard !token.isEmpty else { throw missingToken() }
        return token
    }

    /// What follows `scheme` (lowercase ASCII, compared without case) and a space in an
    /// `Authorization` value, without surrounding spaces; nil for another scheme. Works on the
    /// UTF-8 bytes, since this runs for every resource request and tokens are long.
    static func credentials(in authorization: String, scheme: String) -> String? {
        let bytes = Array(authorization.utf8)
        let expected = Array(scheme.utf8)
        guard bytes.count > expected.count, bytes[expected.count] == UInt8(ascii: " "),
            zip(bytes, expected).allSatisfy({ ($0 | 0x20) == $1 })
        else { return nil }
        var start = expected.count + 1
        var end = bytes.count
        while start < end && bytes[start] == UInt8(ascii: " ") { start += 1 }
        while end > start && bytes[end - 1] == UInt8(ascii: " ") { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// A request without any token: 401 with a bare challenge (RFC 6750 §3.1).
    static func missingToken() -> OAuthError {
        OAuthError(
            code: "invalid_token", description: "An access token is required.", status: .unauthorized,
            headers: [("WWW-Authenticate", #"Bearer realm="portico""#)])
    }

    /// Admits `token` if it grants any of `acceptedScopes`; `challengeScope` is what a 403 names.
    ///
    /// - Returns: the verified token and the person it speaks for.
    func admit(_ token: String, acceptedScopes: Set<String>, challengeScope: String) throws -> (
        VerifiedAccessToken, UserRecord
    ) {
        try admit(try verify(token), acceptedScopes: acceptedScopes, challengeScope: challengeScope)
    }

    /// `token`'s signature, lifetime and (with ``issuer``) audience checked: the first half of
    /// ``admit(_:acceptedScopes:challengeScope:)``, for a caller with checks of its own on the
    /// token (whose client it was issued to) before the store is read.
    func verify(_ token: String) throws -> VerifiedAccessToken {
        try verify(PresentedToken(token: token, proof: nil))
    }

    /// ``verify(_:)`` for a token under either scheme: a token bound to a key (`cnf.jkt`) only
    /// with a proof made with that key, recorded as used once on every node, and an unbound one
    /// only as a bearer token (RFC 9449 §7.1, §7.2).
    func verify(_ presented: PresentedToken) throws -> VerifiedAccessToken {
        let verified = try verifier.verify(presented.token)
        if let issuer, !verified.audience.contains(issuer.current) {
            throw OAuthError.invalidToken("The access token is meant for another resource server.")
        }
        switch (verified.confirmationKey, presented.proof) {
        case (nil, nil):
            return verified
        case (.some, nil):
            throw OAuthError.dpopChallenge(
                code: "invalid_token",
                description: "The access token is bound to a key: send it with the DPoP scheme and a proof.")
        case (nil, .some):
            throw OAuthError.dpopChallenge(
                code: "invalid_token", description: "The access token is not bound to a key: send it as Bearer.")
        case (.some(let key), .some(let proof)):
            guard key == proof.keyThumbprint else {
                throw OAuthError.resource(
                    .invalid("The DPoP proof is made with another key than the token is bound to."), nonce: "")
            }
            guard try store.writeOne({ try proof.recordFirstUse(in: $0) }) else {
                throw OAuthError.resource(DPoPProof.replayed, nonce: "")
            }
            return verified
        }
    }

    /// Admits `verified` (from ``verify(_:)``): unrevoked, granting one of `acceptedScopes`, for
    /// a person who exists and is not disabled.
    ///
    /// The usual token (a person's, public subject, nothing but the revocation lists to
    /// consult) takes one read, which on PostgreSQL is one statement outside any transaction;
    /// the others read everything their checks need in one read transaction.
    func admit(_ verified: VerifiedAccessToken, acceptedScopes: Set<String>, challengeScope: String) throws -> (
        VerifiedAccessToken, UserRecord
    ) {
        let sector = verified.hasUser ? try subjects?.pairwiseSector(ofClientID: verified.clientID) : nil
        if verified.hasUser, sector == nil, verifier.revocationListsDecide(verified) {
            let (revoked, user) = try standing(of: verified)
            let (token, admitted, _) = try judge(
                verified, revoked: revoked, user: user, extra: (), acceptedScopes: acceptedScopes,
                challengeScope: challengeScope)
            return (token, admitted)
        }
        let (token, user, _) = try admit(
            verified, sector: sector, acceptedScopes: acceptedScopes, challengeScope: challengeScope,
            alsoReading: { _, _ in () })
        return (token, user)
    }

    /// ``admit(_:acceptedScopes:challengeScope:)`` answered from memory alone, for the epoll
    /// thread: the verdict when `token` was verified before (``AccessTokenVerifier``'s cache),
    /// is the usual kind, and its standing is in ``standings``; nil when the store may have to
    /// be read (then ``admit(_:acceptedScopes:challengeScope:)`` on the worker pool decides).
    func admitFromMemory(_ token: String, acceptedScopes: Set<String>, challengeScope: String) -> Result<
        (VerifiedAccessToken, UserRecord), any Error
    >? {
        guard let standings, let verified = verifier.verifiedFromMemory(token), verified.confirmationKey == nil,
            issuer.map({ verified.audience.contains($0.current) }) ?? true,
            verified.hasUser, verifier.revocationListsDecide(verified),
            subjects?.hasPublicSubjectsInMemory(clientID: verified.clientID) ?? true,
            let user = standings.user(for: verified)
        else { return nil }
        return Result {
            let (token, admitted, _) = try judge(
                verified, revoked: false, user: user, extra: (), acceptedScopes: acceptedScopes,
                challengeScope: challengeScope)
            return (token, admitted)
        }
    }

    /// A resource endpoint's whole answer on the epoll thread: the bearer token (a malformed
    /// one answered at once), admitted by ``admitFromMemory(_:acceptedScopes:challengeScope:)``
    /// and rendered by `render`; nil hands the request to the worker pool.
    func answerFromMemory(
        _ request: Request, formParameter: Bool, acceptedScopes: Set<String>, challengeScope: String,
        render: ((VerifiedAccessToken, UserRecord)) -> Response
    ) -> Response? {
        guard standings != nil, !Self.usesDPoPScheme(request) else { return nil }
        let token: String
        do {
            token = try Self.bearerToken(in: request, formParameter: formParameter)
        } catch {
            return error.response()
        }
        guard let admitted = admitFromMemory(token, acceptedScopes: acceptedScopes, challengeScope: challengeScope)
        else { return nil }
        return OAuthEndpoint.respond { render(try admitted.get()) }
    }

    /// The usual token's standing: from ``standings`` when it is there, else read in one
    /// statement (and kept when it admits and nothing changed meanwhile).
    private func standing(of verified: VerifiedAccessToken) throws -> (isRevoked: Bool, user: UserRecord?) {
        if let standings, let user = standings.user(for: verified) { return (false, user) }
        let generation = standings?.generationBeforeRead()
        let standing = try store.readOne { transaction in
            try transaction.accessTokenStanding(
                id: verified.tokenID, userID: verified.subject, clientID: verified.clientID,
                issuedAt: verified.issuedAt)
        }
        if let standings, let generation, !standing.isRevoked, let user = standing.user, !user.isDisabled {
            standings.remember(user, for: verified, readAt: generation)
        }
        return standing
    }

    /// ``admit(_:acceptedScopes:challengeScope:)`` with `alsoReading` run in the same read
    /// transaction, given the live companion session the revocation check read for a token
    /// issued in one (nil otherwise), so that a caller needing more of the store reads it once.
    func admit<Extra>(
        _ verified: VerifiedAccessToken, acceptedScopes: Set<String>, challengeScope: String,
        alsoReading: (any StoreTransaction, CompanionSession?) throws -> Extra
    ) throws -> (VerifiedAccessToken, UserRecord, Extra) {
        let sector = verified.hasUser ? try subjects?.pairwiseSector(ofClientID: verified.clientID) : nil
        return try admit(
            verified, sector: sector, acceptedScopes: acceptedScopes, challengeScope: challengeScope,
            alsoReading: alsoReading)
    }

    private func admit<Extra>(
        _ verified: VerifiedAccessToken, sector: String?, acceptedScopes: Set<String>, challengeScope: String,
        alsoReading: (any StoreTransaction, CompanionSession?) throws -> Extra
    ) throws -> (VerifiedAccessToken, UserRecord, Extra) {
        let (revoked, user, extra) = try store.read { transaction in
            let userID =
                verified.hasUser
                ? try PairwiseSubjects.userID(subject: verified.subject, sector: sector, in: transaction) : nil
            var companionSession: CompanionSession?
            let revoked = try verifier.isRevoked(
                verified, userID: userID, companionSession: &companionSession, in: transaction)
            guard !revoked, let userID else { return (revoked, nil as UserRecord?, nil as Extra?) }
            return (revoked, try transaction.user(id: userID), try alsoReading(transaction, companionSession))
        }
        return try judge(
            verified, revoked: revoked, user: user, extra: extra, acceptedScopes: acceptedScopes,
            challengeScope: challengeScope)
    }

    /// The verdict on what the store said of `verified`; revocation first, then scope, then the
    /// person, so that a revoked token is never told which scope it lacks.
    private func judge<Extra>(
        _ verified: VerifiedAccessToken, revoked: Bool, user: UserRecord?, extra: Extra?,
        acceptedScopes: Set<String>, challengeScope: String
    ) throws -> (VerifiedAccessToken, UserRecord, Extra) {
        guard !revoked else { throw OAuthError.invalidToken("The access token has been revoked.") }
        guard verified.grantsAny(of: acceptedScopes) else {
            throw OAuthError.insufficientScope(
                "The access token does not grant access to this resource.", required: challengeScope)
        }
        guard let user, !user.isDisabled, let extra else {
            throw OAuthError.invalidToken("The account behind the access token is not available.")
        }
        return (verified, user, extra)
    }
}
