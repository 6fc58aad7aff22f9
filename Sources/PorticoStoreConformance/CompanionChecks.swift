import Foundation
import PorticoStore
import Testing

/// Companion clients, sessions and tickets: the primitives the companion endpoints rely on,
/// with the same meaning on every backend.
struct CompanionTests: ConformanceChecks {
    let open: StoreConformance.Opener

    /// A stored companion session (its family, user and client too) in `store`.
    private func session(in store: any Store, host: String? = "build-box") throws -> CompanionSession {
        let (user, client) = try StoreFixtures.userAndClient(in: store)
        let family = RefreshFamily(
            clientID: client.id, userID: user.id, scopes: ["openid", "companion"], authTime: referenceTime,
            createdAt: referenceTime)
        let session = CompanionSession(
            familyID: family.id, userID: user.id, clientID: client.id, hostName: host, createdAt: referenceTime)
        try store.transaction { transaction throws in
            try transaction.insert(
                family, token: RefreshToken.mint(familyID: family.id), expiresAt: referenceTime + 3600)
            try transaction.insert(session)
        }
        return session
    }

    func companionClientsAndSessionsAreFoundAndEndWithTheirFamily() throws {
        try withStore { store throws in
            let session = try session(in: store)
            try store.transaction { transaction throws in
                #expect(try !transaction.isCompanionClient(id: session.clientID))
                try transaction.markCompanionClient(id: session.clientID, at: referenceTime)
                try transaction.markCompanionClient(id: session.clientID, at: referenceTime)
            }
            #expect(throws: StoreError.self) {
                try store.transaction { try $0.markCompanionClient(id: "nobody", at: referenceTime) }
            }
            try store.read { transaction throws in
                #expect(try transaction.isCompanionClient(id: session.clientID))
                #expect(try transaction.companionClientIDs() == [session.clientID])
                #expect(try transaction.companionSession(id: session.id) == session)
                #expect(try transaction.companionSession(familyID: session.familyID) == session)
                #expect(try transaction.companionSession(id: "other") == nil)
                #expect(try transaction.liveCompanionSessions(userID: session.userID, now: referenceTime) == [session])
                // Its refresh token expired: no longer live.
                #expect(
                    try transaction.liveCompanionSessions(userID: session.userID, now: referenceTime + 3600).isEmpty)
            }
            #expect(throws: StoreError.self) { try store.transaction { try $0.insert(session) } }
            try store.transaction { transaction throws in
                #expect(try transaction.revokeRefreshFamily(id: session.familyID, now: referenceTime))
            }
            try store.read { transaction throws in
                #expect(try transaction.liveCompanionSessions(userID: session.userID, now: referenceTime).isEmpty)
                #expect(try transaction.companionSession(id: session.id) == session)
            }
            // Removing the client removes its companion mark and sessions.
            try store.transaction { transaction throws in
                #expect(try transaction.deleteClient(id: session.clientID))
            }
            try store.read { transaction throws in
                #expect(try !transaction.isCompanionClient(id: session.clientID))
                #expect(try transaction.companionSession(id: session.id) == nil)
            }
        }
    }

    func ticketsAreRedeemedOnceBeforeExpiryByTheirSessionOnly() throws {
        try withStore { store throws in
            let session = try session(in: store)
            let ticket = CompanionTicket(
                ticket: "plain-ticket", sessionID: session.id, kind: "consent", request: "sealed",
                createdAt: referenceTime, expiresAt: referenceTime + 300)
            #expect(ticket.hashedTicket != "plain-ticket")
            try store.transaction { transaction throws in
                try transaction.insert(ticket)
                try transaction.insert(
                    CompanionTicket(
                        ticket: "late-ticket", sessionID: session.id, kind: "continue", request: "sealed",
                        createdAt: referenceTime, expiresAt: referenceTime + 300))
            }
            #expect(throws: StoreError.self) {
                try store.transaction { transaction in
                    try transaction.insert(
                        CompanionTicket(
                            ticket: "orphan", sessionID: "no-session", kind: "consent", request: "x",
                            createdAt: referenceTime, expiresAt: referenceTime + 300))
                }
            }
            try store.transaction { transaction throws in
                #expect(
                    try transaction.consumeCompanionTicket("plain-ticket", sessionID: "other", now: referenceTime)
                        == nil)
                let redeemed = try transaction.consumeCompanionTicket(
                    "plain-ticket", sessionID: session.id, now: referenceTime + 10)
                #expect(redeemed?.kind == "consent")
                #expect(redeemed?.request == "sealed")
                #expect(redeemed?.consumedAt == referenceTime + 10)
                #expect(redeemed?.hashedTicket == ticket.hashedTicket)
                #expect(
                    try transaction.consumeCompanionTicket(
                        "plain-ticket", sessionID: session.id, now: referenceTime + 11)
                        == nil)
                // Expired at its expiry, to the second.
                #expect(
                    try transaction.consumeCompanionTicket(
                        "late-ticket", sessionID: session.id, now: referenceTime + 300)
                        == nil)
                #expect(
                    try transaction.consumeCompanionTicket("unknown", sessionID: session.id, now: referenceTime) == nil)
            }
            // Purged once expired, used or not.
            try store.transaction { transaction throws in
                #expect(try transaction.purgeExpired(now: referenceTime + 299).companionTickets == 0)
                #expect(try transaction.purgeExpired(now: referenceTime + 300).companionTickets == 2)
            }
        }
    }
}

extension RaceChecks {
    func twoRedemptionsOfOneCompanionTicketOneWins() throws {
        let session = try withStore { store throws in try CompanionTests(open: open).sessionForRace(in: store) }
        let rounds = try race(
            setUp: { store, round in
                try store.transaction { transaction in
                    try transaction.insert(
                        CompanionTicket(
                            ticket: "race-\(round)", sessionID: session.id, kind: "consent", request: "sealed",
                            createdAt: StoreFixtures.referenceTime, expiresAt: StoreFixtures.referenceTime + 300))
                }
            },
            { store, round in
                try store.transaction { transaction in
                    try transaction.consumeCompanionTicket(
                        "race-\(round)", sessionID: session.id, now: StoreFixtures.referenceTime) != nil
                }
            })
        for outcomes in rounds { #expect(wins(outcomes) { $0 } == 1) }
    }
}

extension CompanionTests {
    /// A stored session for the race check.
    fileprivate func sessionForRace(in store: any Store) throws -> CompanionSession {
        try session(in: store)
    }
}

/// The checks of this file, named as the tests they are.
enum CompanionChecks {
    static var all: [StoreConformance.Check] {
        [
            .init("CompanionTests.companionClientsAndSessionsAreFoundAndEndWithTheirFamily") {
                try CompanionTests(open: $0).companionClientsAndSessionsAreFoundAndEndWithTheirFamily()
            },
            .init("CompanionTests.ticketsAreRedeemedOnceBeforeExpiryByTheirSessionOnly") {
                try CompanionTests(open: $0).ticketsAreRedeemedOnceBeforeExpiryByTheirSessionOnly()
            },
            .init("RaceChecks.twoRedemptionsOfOneCompanionTicketOneWins") {
                try RaceChecks(open: $0).twoRedemptionsOfOneCompanionTicketOneWins()
            },
        ]
    }
}
