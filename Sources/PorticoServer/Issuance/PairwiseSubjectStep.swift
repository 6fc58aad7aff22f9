import PorticoStore

/// The `sub` a client registered with `--subject-type pairwise` sees (OpenID Connect Core §8.1):
/// grants speak of people by account id, and this step puts the client's own subject into the
/// access and ID tokens, recording it in the grant's transaction so that userinfo, the profile
/// and introspection find the person again.
///
/// A token issued to another client (a mini-program's, by delegation) has its subject already.
struct PairwiseSubjectStep: IssuanceStep {
    /// The subjects, and the salt they are made with.
    let subjects: PairwiseSubjects

    func mayRefuse(_ request: TokenRequest) -> Bool {
        false
    }

    func applies(to issuance: TokenIssuance, for request: TokenRequest) -> Bool {
        request.client.client.subjectType == .pairwise && issuance.accessToken.authTime != nil
            && issuance.accessToken.clientID == request.client.client.id
    }

    func shape(_ issuance: inout TokenIssuance, for request: TokenRequest, in transaction: any StoreTransaction)
        throws
    {
        let subject = try subjects.recordedSubject(
            for: issuance.accessToken.subject, client: request.client.client, in: transaction)
        issuance.accessToken.subject = subject
        issuance.identity?.subject = subject
    }
}
