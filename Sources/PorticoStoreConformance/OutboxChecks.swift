import Foundation
import PorticoStore
import Testing

/// The durable outbox and the refresh families of browser sessions (back-channel logout): a
/// message is claimed by one owner at a time, only the lease's owner writes its outcome, a lease
/// that ends frees the message, and two nodes claiming at once never both get one.
struct OutboxTests: ConformanceChecks {
    let open: StoreConformance.Opener

    private static func message(_ id: String, at time: Date, topic: String = "test") -> OutboxMessage {
        OutboxMessage(id: id, topic: topic, payload: #"{"n":"\#(id)"}"#, createdAt: time)
    }

    func aClaimLeasesDueMessagesToOneOwnerWhoAloneWritesTheOutcome() throws {
        try withStore { store throws in
            let now = referenceTime
            try store.transaction { transaction throws in
                try transaction.enqueue(Self.message("a", at: now))
                try transaction.enqueue(Self.message("b", at: now + 1))
                var later = Self.message("c", at: now)
                later.nextAttemptAt = now + 600
                try transaction.enqueue(later)
            }
            #expect(try store.read { try $0.outboxMessage(id: "a") } == Self.message("a", at: now))
            #expect(try store.read { try $0.pendingOutboxMessageCount() } == 3)
            let claimed = try store.transaction {
                try $0.claimOutboxMessages(now: now + 1, leaseUntil: now + 60, owner: "node-1", limit: 10)
            }
            #expect(claimed.map(\.id) == ["a", "b"])
            // Leased: nobody else gets them, and nobody else writes their outcome.
            try store.transaction { transaction throws in
                #expect(
                    try transaction.claimOutboxMessages(now: now + 1, leaseUntil: now + 60, owner: "node-2", limit: 10)
                        .isEmpty)
                #expect(try !transaction.markOutboxMessageDelivered(id: "a", owner: "node-2", now: now + 2))
                #expect(try !transaction.markOutboxMessageFailed(id: "a", owner: "node-2", now: now + 2, error: "x"))
                #expect(
                    try !transaction.rescheduleOutboxMessage(id: "a", owner: "node-2", nextAttemptAt: now, error: "x"))
                #expect(try transaction.markOutboxMessageDelivered(id: "a", owner: "node-1", now: now + 2))
                #expect(try !transaction.markOutboxMessageDelivered(id: "a", owner: "node-1", now: now + 3))
                #expect(
                    try transaction.rescheduleOutboxMessage(
                        id: "b", owner: "node-1", nextAttemptAt: now + 30, error: "answered 503"))
            }
            try store.read { transaction throws in
                #expect(try transaction.outboxMessage(id: "a")?.deliveredAt == now + 2)
                let retried = try transaction.outboxMessage(id: "b")
                #expect(retried?.failedAttempts == 1)
                #expect(retried?.nextAttemptAt == now + 30)
                #expect(retried?.lastError == "answered 503")
                #expect(retried?.isPending == true)
                #expect(try transaction.pendingOutboxMessageCount() == 2)
                #expect(try transaction.pendingOutboxMessages(topic: "test", limit: 10).map(\.id) == ["c", "b"])
                #expect(try transaction.pendingOutboxMessages(topic: "other", limit: 10).isEmpty)
            }
            // Not due before its time; then anyone may claim it.
            #expect(
                try store.transaction {
                    try $0.claimOutboxMessages(now: now + 29, leaseUntil: now + 90, owner: "node-2", limit: 10)
                }.isEmpty)
            let again = try store.transaction {
                try $0.claimOutboxMessages(now: now + 30, leaseUntil: now + 90, owner: "node-2", limit: 1)
            }
            #expect(again.map(\.id) == ["b"])
            // An ended lease (its node died mid-attempt) frees the message for another node, and
            // the first owner can no longer write its outcome.
            let taken = try store.transaction {
                try $0.claimOutboxMessages(now: now + 90, leaseUntil: now + 150, owner: "node-3", limit: 10)
            }
            #expect(taken.map(\.id).sorted() == ["b"])
            // Given back unattempted (its node stops), it is due again at once, for anyone.
            try store.transaction { transaction throws in
                #expect(try !transaction.releaseOutboxMessage(id: "b", owner: "node-2"))
                #expect(try transaction.releaseOutboxMessage(id: "b", owner: "node-3"))
                #expect(try transaction.outboxMessage(id: "b")?.failedAttempts == 1)
                #expect(
                    try transaction.claimOutboxMessages(
                        now: now + 90, leaseUntil: now + 150, owner: "node-3", limit: 10
                    )
                    .map(\.id) == ["b"])
            }
            try store.transaction { transaction throws in
                #expect(try !transaction.markOutboxMessageDelivered(id: "b", owner: "node-2", now: now + 91))
                #expect(try transaction.markOutboxMessageFailed(id: "b", owner: "node-3", now: now + 91, error: "gone"))
            }
            try store.read { transaction throws in
                let failed = try transaction.outboxMessage(id: "b")
                #expect(failed?.failedAt == now + 91)
                #expect(failed?.failedAttempts == 2)
                #expect(try transaction.pendingOutboxMessageCount() == 1)
                let givenUp = try transaction.failedOutboxMessages(topic: "test", limit: 10)
                #expect(givenUp.map(\.id) == ["b"] && givenUp.first?.lastError == "gone")
                #expect(try transaction.failedOutboxMessages(topic: "other", limit: 10).isEmpty)
            }
            // Finished messages are deleted after their retention; pending ones never.
            try store.transaction { transaction throws in
                #expect(try transaction.deleteFinishedOutboxMessages(before: now + 2, limit: 10) == 0)
                #expect(try transaction.deleteFinishedOutboxMessages(before: now + 1000, limit: 1) == 1)
                #expect(try transaction.deleteFinishedOutboxMessages(before: now + 1000, limit: 10) == 1)
                #expect(try transaction.outboxMessage(id: "c") != nil)
            }
        }
    }

    /// A message still waiting stands in for another of the same topic and payload; one being
    /// attempted (leased) or finished does not, nor does one of another payload or topic.
    func aWaitingMessageStandsInForTheSameMessageButNotOneInFlight() throws {
        try withStore { store throws in
            let now = referenceTime
            try store.transaction { transaction throws in
                #expect(try transaction.enqueueCoalescing(Self.message("a", at: now)))
                var same = Self.message("b", at: now + 1)
                same.payload = Self.message("a", at: now).payload
                #expect(try !transaction.enqueueCoalescing(same))
                #expect(try transaction.enqueueCoalescing(Self.message("c", at: now + 1)))
                var otherTopic = Self.message("d", at: now + 1, topic: "other")
                otherTopic.payload = same.payload
                #expect(try transaction.enqueueCoalescing(otherTopic))
            }
            #expect(try store.read { try $0.outboxMessage(id: "b") } == nil)
            #expect(try store.read { try $0.pendingOutboxMessageCount() } == 3)
            // Leased (perhaps sent already): a new one is stored.
            let claimed = try store.transaction {
                try $0.claimOutboxMessages(now: now + 2, leaseUntil: now + 60, owner: "node-1", limit: 1)
            }
            #expect(claimed.map(\.id) == ["a"])
            var again = Self.message("e", at: now + 2)
            again.payload = Self.message("a", at: now).payload
            #expect(try store.transaction { try $0.enqueueCoalescing(again) })
            // Waiting for its next attempt after a failure: it stands in again.
            try store.transaction { transaction throws in
                #expect(
                    try transaction.rescheduleOutboxMessage(
                        id: "a", owner: "node-1", nextAttemptAt: now + 30, error: "x"))
                var third = Self.message("f", at: now + 3)
                third.payload = again.payload
                #expect(try !transaction.enqueueCoalescing(third))
            }
            // Delivered ones never stand in.
            try store.transaction { transaction throws in
                let taken = try transaction.claimOutboxMessages(
                    now: now + 30, leaseUntil: now + 90, owner: "node-2", limit: 10)
                #expect(taken.map(\.id).sorted() == ["a", "c", "d", "e"])
                for message in taken {
                    #expect(try transaction.markOutboxMessageDelivered(id: message.id, owner: "node-2", now: now + 31))
                }
                var fourth = Self.message("g", at: now + 32)
                fourth.payload = again.payload
                #expect(try transaction.enqueueCoalescing(fourth))
            }
        }
    }

    /// A postponed message is given back without an attempt counted, due at the time given, and
    /// only by the lease's owner.
    func aPostponedMessageComesBackLaterWithoutACountedAttempt() throws {
        try withStore { store throws in
            let now = referenceTime
            try store.transaction { try $0.enqueue(Self.message("a", at: now)) }
            let claimed = try store.transaction {
                try $0.claimOutboxMessages(now: now, leaseUntil: now + 60, owner: "node-1", limit: 10)
            }
            #expect(claimed.map(\.id) == ["a"])
            try store.transaction { transaction throws in
                #expect(try !transaction.postponeOutboxMessage(id: "a", owner: "node-2", until: now + 30))
                #expect(try transaction.postponeOutboxMessage(id: "a", owner: "node-1", until: now + 30))
                #expect(try !transaction.postponeOutboxMessage(id: "a", owner: "node-1", until: now + 40))
            }
            let postponed = try #require(try store.read { try $0.outboxMessage(id: "a") })
            #expect(postponed.failedAttempts == 0)
            #expect(postponed.nextAttemptAt == now + 30)
            #expect(postponed.lastError == nil)
            #expect(
                try store.transaction {
                    try $0.claimOutboxMessages(now: now + 29, leaseUntil: now + 90, owner: "node-2", limit: 10)
                }.isEmpty)
            let again = try store.transaction {
                try $0.claimOutboxMessages(now: now + 30, leaseUntil: now + 90, owner: "node-2", limit: 10)
            }
            #expect(again.map(\.id) == ["a"])
        }
    }

    func twoNodesClaimingAtOnceNeverGetTheSameMessage() throws {
        let first = try open()
        defer { first.close() }
        let second = try open()
        defer { second.close() }
        let stores = [first, second]
        let now = referenceTime
        for round in 0..<6 {
            try first.transaction { transaction throws in
                for index in 0..<20 { try transaction.enqueue(Self.message("r\(round)-\(index)", at: now)) }
            }
            let claimed = LockedList<String>()
            let finished = runOnThreads(2) { index in
                // Small batches, claimed until none is left, so the two interleave.
                while true {
                    let batch: [OutboxMessage]
                    do {
                        batch = try stores[index].transaction {
                            try $0.claimOutboxMessages(
                                now: now, leaseUntil: now + 60, owner: "node-\(index)", limit: 3)
                        }
                    } catch {
                        Issue.record("a claim failed: \(error)")
                        return
                    }
                    if batch.isEmpty { return }
                    for message in batch { claimed.append(message.id) }
                }
            }
            #expect(finished, "a claimer did not finish")
            let ids = claimed.all.filter { $0.hasPrefix("r\(round)-") }
            #expect(ids.count == 20)
            #expect(Set(ids).count == ids.count, "a message was claimed twice")
        }
    }

    func clientsKeepTheirBackChannelLogoutURIAndFamiliesTheirSession() throws {
        try withStore { store throws in
            let user = StoreFixtures.user()
            var client = StoreFixtures.client()
            client.backchannelLogoutURI = "https://app.example/backchannel?x=1"
            let now = referenceTime
            let browser = BrowserSession(token: "browser", userID: user.id, expiresAt: now.addingTimeInterval(3600))
            let family = RefreshFamily(
                clientID: client.id, userID: user.id, scopes: ["openid"], authTime: now, createdAt: now)
            let other = RefreshFamily(
                clientID: client.id, userID: user.id, scopes: ["openid"], authTime: now, createdAt: now + 1)
            try store.transaction { transaction throws in
                try transaction.insert(user)
                try transaction.insert(client)
                try transaction.insert(browser)
                try transaction.insert(family, token: "refresh-1", expiresAt: now.addingTimeInterval(60))
                try transaction.insert(other, token: "refresh-2", expiresAt: now.addingTimeInterval(60))
                try transaction.linkRefreshFamily(family.id, toBrowserSession: browser.hashedID, sessionID: "sid-1")
                // Linking again keeps the first (a family comes from one session).
                try transaction.linkRefreshFamily(
                    family.id, toBrowserSession: SecretHash.reference("other"), sessionID: "sid-2")
            }
            try store.read { transaction throws in
                #expect(try transaction.client(id: client.id)?.backchannelLogoutURI == client.backchannelLogoutURI)
                #expect(try transaction.sessionID(refreshFamilyID: family.id) == "sid-1")
                #expect(try transaction.sessionID(refreshFamilyID: other.id) == nil)
                #expect(
                    try transaction.sessionFamilies(browserSessionHashedID: browser.hashedID) == [
                        SessionFamily(familyID: family.id, clientID: client.id, userID: user.id, sessionID: "sid-1")
                    ])
            }
            // The family lives on after the browser session ends (refreshed ID tokens keep the
            // sid), and goes with the family.
            try store.transaction { transaction throws in
                #expect(try transaction.deleteSession(hashedID: browser.hashedID))
                #expect(try transaction.sessionID(refreshFamilyID: family.id) == "sid-1")
                client.backchannelLogoutURI = nil
                try transaction.update(client)
                #expect(try transaction.client(id: client.id)?.backchannelLogoutURI == nil)
                #expect(try transaction.deleteUser(id: user.id))
                #expect(try transaction.sessionFamilies(browserSessionHashedID: browser.hashedID).isEmpty)
            }
        }
    }
}

/// The checks of this file, named as the tests they are.
enum OutboxChecks {
    static var all: [StoreConformance.Check] {
        [
            .init("OutboxTests.aClaimLeasesDueMessagesToOneOwnerWhoAloneWritesTheOutcome") {
                try OutboxTests(open: $0).aClaimLeasesDueMessagesToOneOwnerWhoAloneWritesTheOutcome()
            },
            .init("OutboxTests.aWaitingMessageStandsInForTheSameMessageButNotOneInFlight") {
                try OutboxTests(open: $0).aWaitingMessageStandsInForTheSameMessageButNotOneInFlight()
            },
            .init("OutboxTests.aPostponedMessageComesBackLaterWithoutACountedAttempt") {
                try OutboxTests(open: $0).aPostponedMessageComesBackLaterWithoutACountedAttempt()
            },
            .init("OutboxTests.twoNodesClaimingAtOnceNeverGetTheSameMessage") {
                try OutboxTests(open: $0).twoNodesClaimingAtOnceNeverGetTheSameMessage()
            },
            .init("OutboxTests.clientsKeepTheirBackChannelLogoutURIAndFamiliesTheirSession") {
                try OutboxTests(open: $0).clientsKeepTheirBackChannelLogoutURIAndFamiliesTheirSession()
            },
        ]
    }
}
