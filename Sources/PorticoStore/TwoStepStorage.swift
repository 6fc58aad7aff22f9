import Foundation

/// Two-step verification: authenticator-app enrollments, recovery codes, sign-ins waiting for
/// their second step, and the authentication methods (`amr`) a session or refresh family was
/// begun with.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements". Recovery codes arrive
/// already hashed (a keyed hash the provider computes), so the store never sees one.
public protocol TwoStepStorage {
    /// Stores a new pending enrollment, replacing a pending one of the same person; returns
    /// false, writing nothing, when the person already has a confirmed one.
    func savePendingTwoStepEnrollment(_ enrollment: TwoStepEnrollment) throws -> Bool
    /// The person's enrollment, pending or confirmed.
    func twoStepEnrollment(userID: String) throws -> TwoStepEnrollment?
    /// Confirms the pending enrollment whose sealed secret is `sealedSecret`, recording `step`
    /// as used. Conditional: false when there is none, it was confirmed already, or the secret
    /// is another one (a newer enrollment started in another tab).
    func confirmTwoStepEnrollment(userID: String, sealedSecret: String, step: Int64, at time: Date) throws -> Bool
    /// Records that the code of `step` was used. Conditional: false, writing nothing, unless the
    /// enrollment is confirmed and `step` is later than the last step used (a replayed or older
    /// code); of two racing calls with one step, exactly one returns true.
    func useTwoStepStep(userID: String, step: Int64) throws -> Bool
    /// Removes the person's enrollment and recovery codes; false when there was none.
    @discardableResult func deleteTwoStepEnrollment(userID: String) throws -> Bool

    /// Replaces the person's recovery codes with these hashes, all unused.
    func replaceRecoveryCodes(userID: String, hashes: [[UInt8]], at time: Date) throws
    /// Marks the unused recovery code with hash `hash` used. Conditional: false when there is
    /// no such code or it was used already; of two racing calls, exactly one returns true.
    func useRecoveryCode(userID: String, hash: [UInt8], at time: Date) throws -> Bool
    /// How many of the person's recovery codes are still unused.
    func unusedRecoveryCodeCount(userID: String) throws -> Int

    /// Stores a sign-in waiting for its second step; drops those expired at `now`.
    func insert(_ pending: PendingSecondStep, now: Date) throws
    /// The unexpired pending sign-in whose token is `token`.
    func pendingSecondStep(token: String, now: Date) throws -> PendingSecondStep?
    /// Ends a pending sign-in. Conditional: of two racing calls, exactly one returns true.
    func deletePendingSecondStep(token: String) throws -> Bool

    /// Records the `amr` values a browser session was begun with (removed with the session).
    func recordAuthenticationMethods(_ methods: [String], forSessionHashedID hashedID: String) throws
    /// The `amr` values recorded for a browser session, or nil.
    func authenticationMethods(sessionHashedID hashedID: String) throws -> [String]?
    /// Records the `amr` values a refresh family was begun with (removed with the family).
    func recordAuthenticationMethods(_ methods: [String], forRefreshFamily familyID: String) throws
    /// The `amr` values recorded for a refresh family, or nil.
    func authenticationMethods(refreshFamilyID familyID: String) throws -> [String]?
}
