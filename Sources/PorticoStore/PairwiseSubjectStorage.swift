import Foundation

/// Pairwise subjects handed out (OIDC Core §8.1) and the provider's own secrets (their salt).
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol PairwiseSubjectStorage {
    /// The provider's secret `name`: the stored one, or `candidate`, stored now when there was
    /// none (several nodes starting at once agree on the first one stored).
    func providerSecret(name: String, candidate: [UInt8]) throws -> [UInt8]
    /// Remembers whose pairwise `subject` in `sector` is; the same triple again changes nothing.
    func recordPairwiseSubject(_ subject: String, sector: String, userID: String) throws
    /// The person whose pairwise subject in `sector` is `subject`.
    func userID(pairwiseSubject subject: String, sector: String) throws -> String?
}
