import Foundation
import PorticoStore
import Testing

/// Two-step verification's storage: a pending enrollment replaced but never a confirmed one,
/// confirmation bound to the secret shown, each time step and recovery code usable once (races
/// included), half-done sign-ins single use and expiring, and `amr` rows removed with what they
/// describe.
struct TwoStepChecks: ConformanceChecks {
    let open: StoreConformance.Opener

    private var now: Date { StoreFixtures.referenceTime }

    func enrollmentIsPendingThenConfirmedOnce() throws {
        try withStore { store in
            let (user, _) = try StoreFixtures.userAndClient(in: store)
            #expect(try store.read { try $0.twoStepEnrollment(userID: user.id) } == nil)
            let first = TwoStepEnrollment(userID: user.id, sealedSecret: "sealed-1", createdAt: now)
            #expect(try store.transaction { try $0.savePendingTwoStepEnrollment(first) })
            let second = TwoStepEnrollment(userID: user.id, sealedSecret: "sealed-2", createdAt: now + 60)
            #expect(try store.transaction { try $0.savePendingTwoStepEnrollment(second) })
            let pending = try #require(try store.read { try $0.twoStepEnrollment(userID: user.id) })
            #expect(pending.sealedSecret == "sealed-2" && !pending.isConfirmed && pending.lastUsedStep == nil)
            #expect(pending.createdAt == now + 60)
            // Confirming with the replaced secret does nothing; with the shown one it confirms once.
            #expect(
                try !store.transaction {
                    try $0.confirmTwoStepEnrollment(userID: user.id, sealedSecret: "sealed-1", step: 10, at: now)
                })
            // Steps cannot be used before confirmation.
            #expect(try !store.transaction { try $0.useTwoStepStep(userID: user.id, step: 10) })
            #expect(
                try store.transaction {
                    try $0.confirmTwoStepEnrollment(userID: user.id, sealedSecret: "sealed-2", step: 10, at: now + 90)
                })
            #expect(
                try !store.transaction {
                    try $0.confirmTwoStepEnrollment(userID: user.id, sealedSecret: "sealed-2", step: 11, at: now)
                })
            let confirmed = try #require(try store.read { try $0.twoStepEnrollment(userID: user.id) })
            #expect(confirmed.confirmedAt == now + 90 && confirmed.lastUsedStep == 10)
            // A confirmed enrollment is never replaced by a new pending one.
            let third = TwoStepEnrollment(userID: user.id, sealedSecret: "sealed-3", createdAt: now)
            #expect(try !store.transaction { try $0.savePendingTwoStepEnrollment(third) })
            #expect(try store.read { try $0.twoStepEnrollment(userID: user.id) }?.sealedSecret == "sealed-2")
            // Only later steps are accepted, each once.
            #expect(try !store.transaction { try $0.useTwoStepStep(userID: user.id, step: 10) })
            #expect(try !store.transaction { try $0.useTwoStepStep(userID: user.id, step: 9) })
            #expect(try store.transaction { try $0.useTwoStepStep(userID: user.id, step: 12) })
            #expect(try !store.transaction { try $0.useTwoStepStep(userID: user.id, step: 11) })
            #expect(try store.read { try $0.twoStepEnrollment(userID: user.id) }?.lastUsedStep == 12)
            // Removal takes the recovery codes too, and a new enrollment can begin.
            try store.transaction {
                try $0.replaceRecoveryCodes(userID: user.id, hashes: [[1, 2, 3]], at: now)
            }
            #expect(try store.transaction { try $0.deleteTwoStepEnrollment(userID: user.id) })
            #expect(try !store.transaction { try $0.deleteTwoStepEnrollment(userID: user.id) })
            #expect(try store.read { try $0.unusedRecoveryCodeCount(userID: user.id) } == 0)
            #expect(try store.transaction { try $0.savePendingTwoStepEnrollment(third) })
            // An unknown person cannot be enrolled.
            let stranger = TwoStepEnrollment(userID: "nobody", sealedSecret: "x", createdAt: now)
            #expect(throws: StoreError.self) { try store.transaction { try $0.savePendingTwoStepEnrollment(stranger) } }
        }
    }

    func recoveryCodesAreSingleUseAndReplaced() throws {
        try withStore { store in
            let (user, _) = try StoreFixtures.userAndClient(in: store)
            let hashes = (0..<10).map { [UInt8](repeating: UInt8($0), count: 32) }
            try store.transaction { try $0.replaceRecoveryCodes(userID: user.id, hashes: hashes, at: now) }
            #expect(try store.read { try $0.unusedRecoveryCodeCount(userID: user.id) } == 10)
            #expect(try store.transaction { try $0.useRecoveryCode(userID: user.id, hash: hashes[3], at: now) })
            #expect(try !store.transaction { try $0.useRecoveryCode(userID: user.id, hash: hashes[3], at: now) })
            #expect(try !store.transaction { try $0.useRecoveryCode(userID: "other", hash: hashes[4], at: now) })
            #expect(
                try !store.transaction {
                    try $0.useRecoveryCode(userID: user.id, hash: [UInt8](repeating: 99, count: 32), at: now)
                })
            #expect(try store.read { try $0.unusedRecoveryCodeCount(userID: user.id) } == 9)
            let fresh = [[UInt8](repeating: 200, count: 32)]
            try store.transaction { try $0.replaceRecoveryCodes(userID: user.id, hashes: fresh, at: now) }
            #expect(try store.read { try $0.unusedRecoveryCodeCount(userID: user.id) } == 1)
            #expect(try !store.transaction { try $0.useRecoveryCode(userID: user.id, hash: hashes[5], at: now) })
            // Removed with the person.
            #expect(try store.deleteUser(id: user.id))
            #expect(try store.read { try $0.unusedRecoveryCodeCount(userID: user.id) } == 0)
        }
    }

    func pendingSignInsAreSingleUseAndExpire() throws {
        try withStore { store in
            let (user, _) = try StoreFixtures.userAndClient(in: store)
            let pending = PendingSecondStep(
                token: "token-1", userID: user.id, isPersistent: true, sealedRequest: "sealed", returnPath: "/account",
                createdAt: now, expiresAt: now + 300)
            try store.transaction { try $0.insert(pending, now: now) }
            let read = try #require(try store.read { try $0.pendingSecondStep(token: "token-1", now: now + 10) })
            #expect(read == pending)
            #expect(read.hashedID != "token-1")
            #expect(try store.read { try $0.pendingSecondStep(token: "token-1", now: now + 300) } == nil)
            #expect(try store.read { try $0.pendingSecondStep(token: "token-2", now: now) } == nil)
            #expect(try store.transaction { try $0.deletePendingSecondStep(token: "token-1") })
            #expect(try !store.transaction { try $0.deletePendingSecondStep(token: "token-1") })
            // Inserting drops expired ones.
            let old = PendingSecondStep(
                token: "old", userID: user.id, isPersistent: false, sealedRequest: nil, returnPath: nil,
                createdAt: now, expiresAt: now + 5)
            try store.transaction { try $0.insert(old, now: now) }
            let later = PendingSecondStep(
                token: "later", userID: user.id, isPersistent: false, sealedRequest: nil, returnPath: nil,
                createdAt: now + 10, expiresAt: now + 300)
            try store.transaction { try $0.insert(later, now: now + 10) }
            #expect(try !store.transaction { try $0.deletePendingSecondStep(token: "old") })
            #expect(try store.read { try $0.pendingSecondStep(token: "later", now: now + 10) }?.isPersistent == false)
        }
    }

    func methodsGoWithTheirSessionAndFamily() throws {
        try withStore { store in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            let session = BrowserSession(token: "session-token", userID: user.id, createdAt: now, expiresAt: now + 3600)
            let family = RefreshFamily(
                clientID: client.id, userID: user.id, scopes: ["openid"], authTime: now, createdAt: now)
            try store.transaction { transaction in
                try transaction.insert(session)
                try transaction.insert(family, token: RefreshToken.mint(familyID: family.id), expiresAt: now + 3600)
            }
            #expect(try store.read { try $0.authenticationMethods(sessionHashedID: session.hashedID) } == nil)
            try store.transaction {
                try $0.recordAuthenticationMethods(["pwd", "otp"], forSessionHashedID: session.hashedID)
                try $0.recordAuthenticationMethods(["pwd", "mfa"], forRefreshFamily: family.id)
            }
            #expect(
                try store.read { try $0.authenticationMethods(sessionHashedID: session.hashedID) } == ["pwd", "otp"])
            #expect(try store.read { try $0.authenticationMethods(refreshFamilyID: family.id) } == ["pwd", "mfa"])
            #expect(throws: StoreError.self) {
                try store.transaction { try $0.recordAuthenticationMethods(["pwd"], forRefreshFamily: "no-family") }
            }
            try store.transaction { _ = try $0.deleteSession(token: "session-token") }
            #expect(try store.read { try $0.authenticationMethods(sessionHashedID: session.hashedID) } == nil)
        }
    }

    func twoNodesUsingOneStepAtOnceAcceptItOnce() throws {
        let first = try open()
        defer { first.close() }
        let second = try open()
        defer { second.close() }
        let (user, _) = try StoreFixtures.userAndClient(in: first)
        try first.transaction { transaction in
            _ = try transaction.savePendingTwoStepEnrollment(
                TwoStepEnrollment(userID: user.id, sealedSecret: "s", createdAt: now))
            _ = try transaction.confirmTwoStepEnrollment(userID: user.id, sealedSecret: "s", step: 0, at: now)
            try transaction.replaceRecoveryCodes(
                userID: user.id, hashes: (0..<8).map { [UInt8](repeating: UInt8($0), count: 32) }, at: now)
        }
        let stores = [first, second]
        for round in 1...8 {
            let outcomes = LockedList<Bool>()
            let start = StartLine(runners: 2)
            let finished = runOnThreads(2) { index in
                start.wait()
                let step =
                    (try? stores[index].transaction { try $0.useTwoStepStep(userID: user.id, step: Int64(round)) })
                let code =
                    (try? stores[index].transaction {
                        try $0.useRecoveryCode(
                            userID: user.id, hash: [UInt8](repeating: UInt8(round - 1), count: 32), at: now)
                    })
                outcomes.append(step == true)
                outcomes.append(code == true)
            }
            #expect(finished, "a racer did not finish")
            #expect(outcomes.all.filter { $0 }.count == 2, "round \(round): \(outcomes.all)")
        }
    }

    static var all: [StoreConformance.Check] {
        [
            .init("TwoStepTests.enrollmentIsPendingThenConfirmedOnce") {
                try TwoStepChecks(open: $0).enrollmentIsPendingThenConfirmedOnce()
            },
            .init("TwoStepTests.recoveryCodesAreSingleUseAndReplaced") {
                try TwoStepChecks(open: $0).recoveryCodesAreSingleUseAndReplaced()
            },
            .init("TwoStepTests.pendingSignInsAreSingleUseAndExpire") {
                try TwoStepChecks(open: $0).pendingSignInsAreSingleUseAndExpire()
            },
            .init("TwoStepTests.methodsGoWithTheirSessionAndFamily") {
                try TwoStepChecks(open: $0).methodsGoWithTheirSessionAndFamily()
            },
            .init("TwoStepTests.twoNodesUsingOneStepAtOnceAcceptItOnce") {
                try TwoStepChecks(open: $0).twoNodesUsingOneStepAtOnceAcceptItOnce()
            },
        ]
    }
}
