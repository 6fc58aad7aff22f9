import Foundation
import PorticoStore
import Testing

struct RefreshTokenTests: ConformanceChecks {
    let open: StoreConformance.Opener

    /// A family with its first token `token(0)`, valid for a day from `referenceTime`.
    private func family(in store: any Store) throws -> RefreshFamily {
        let (user, client) = try StoreFixtures.userAndClient(in: store)
        let family = RefreshFamily(
            clientID: client.id, userID: user.id, scopes: ["openid", "profile"], authTime: referenceTime,
            createdAt: referenceTime)
        try store.insert(family, token: token(0, of: family), expiresAt: referenceTime.addingTimeInterval(86_400))
        return family
    }

    /// Token `number` of `family`, named as minted tokens are.
    private func token(_ number: Int, of family: RefreshFamily) -> String {
        "\(family.id).r\(number)"
    }

    func mintedTokensNameTheirFamilyAndAreRandom() {
        let first = RefreshToken.mint(familyID: "FAMILY")
        let second = RefreshToken.mint(familyID: "FAMILY")
        #expect(first.hasPrefix("FAMILY."))
        #expect(first != second)
        #expect(first.count == "FAMILY.".count + 43)
    }

    func familiesListAndRevokeByUserAndClient() throws {
        try withStore { store throws in
            let family = try family(in: store)
            let second = RefreshFamily(
                clientID: family.clientID, userID: family.userID, scopes: ["openid"], authTime: referenceTime,
                createdAt: referenceTime.addingTimeInterval(1))
            try store.insert(second, token: token(0, of: second), expiresAt: referenceTime.addingTimeInterval(60))
            #expect(try store.refreshFamilies(userID: family.userID).map(\.id) == [second.id, family.id])
            #expect(
                try store.revokeRefreshFamilies(userID: family.userID, clientID: family.clientID, now: referenceTime)
                    == 2)
            #expect(try store.refreshFamilies(userID: family.userID).isEmpty)
            #expect(try store.refreshFamilies(userID: family.userID, includeRevoked: true).count == 2)
            let orphan = RefreshFamily(clientID: "none", userID: "none", scopes: [], authTime: referenceTime)
            #expect(throws: StoreError.missingReference("client or user")) {
                try store.insert(orphan, token: "t", expiresAt: referenceTime)
            }
        }
    }
}

struct AccessTokenRevocationTests: ConformanceChecks {
    let open: StoreConformance.Opener

    func revokeCheckAndPurge() throws {
        try withStore { store throws in
            try store.revokeAccessToken(id: "jti-1", expiresAt: referenceTime.addingTimeInterval(3600))
            try store.revokeAccessToken(id: "jti-1", expiresAt: referenceTime.addingTimeInterval(60))
            try store.revokeAccessToken(id: "jti-2", expiresAt: referenceTime)
            #expect(try store.isAccessTokenRevoked(id: "jti-1"))
            #expect(try store.isAccessTokenRevoked(id: "jti-2"))
            #expect(try !store.isAccessTokenRevoked(id: "jti-3"))
            let report = try store.purgeExpired(now: referenceTime.addingTimeInterval(120))
            #expect(report.accessTokenRevocations == 1)
            #expect(try store.isAccessTokenRevoked(id: "jti-1"))
            #expect(try !store.isAccessTokenRevoked(id: "jti-2"))
        }
    }
}

struct AccountLinkTests: ConformanceChecks {
    let open: StoreConformance.Opener

    func createGetListDelete() throws {
        try withStore { store throws in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            let link = AccountLink(
                hostClientID: client.id, hostUserID: "host-42", platformUserID: user.id, createdAt: referenceTime)
            try store.insert(link)
            #expect(try store.accountLink(hostClientID: client.id, hostUserID: "host-42") == link)
            #expect(try store.accountLinks(platformUserID: user.id) == [link])
            // One platform account per host user, and one host user per platform account, per host app.
            let other = StoreFixtures.user("other@example.com")
            try store.insert(other)
            #expect(throws: StoreError.duplicate(field: "host_client_id, host_user_id")) {
                try store.insert(AccountLink(hostClientID: client.id, hostUserID: "host-42", platformUserID: other.id))
            }
            #expect(throws: StoreError.duplicate(field: "host_client_id, platform_user_id")) {
                try store.insert(AccountLink(hostClientID: client.id, hostUserID: "host-99", platformUserID: user.id))
            }
            #expect(throws: StoreError.missingReference("client or user")) {
                try store.insert(AccountLink(hostClientID: client.id, hostUserID: "host-43", platformUserID: "ghost"))
            }
            #expect(try store.deleteAccountLink(hostClientID: client.id, hostUserID: "host-42"))
            #expect(try store.accountLink(hostClientID: client.id, hostUserID: "host-42") == nil)
            #expect(try store.deleteAccountLink(hostClientID: client.id, hostUserID: "host-42") == false)
        }
    }
}

struct AuditLogTests: ConformanceChecks {
    let open: StoreConformance.Opener

    func appendAndListNewestFirst() throws {
        try withStore { store throws in
            for index in 0..<5 {
                try store.append(
                    AuditEvent(
                        occurredAt: referenceTime, actor: "cli", action: "client.add", subject: "client-\(index)",
                        details: #"{"index": \#(index)}"#))
            }
            let recent = try store.recentAuditEvents(limit: 3)
            #expect(recent.map(\.subject) == ["client-4", "client-3", "client-2"])
            #expect(recent.first?.details == #"{"index": 4}"#)
            #expect(try store.recentAuditEvents(limit: -1).isEmpty)
        }
    }

    func eventsInvolvingOnePartyNewestFirst() throws {
        try withStore { store throws in
            let events = [
                ("ann", "user.signup", "ann"), ("cli", "user.update", "ann"), ("bob", "user.signup", "bob"),
                ("ann", "consent.revoke", "client-1"), ("cli", "client.add", "ann-client"),
            ]
            for (actor, action, subject) in events {
                try store.transaction {
                    try $0.append(AuditEvent(occurredAt: referenceTime, actor: actor, action: action, subject: subject))
                }
            }
            let ann = try store.read { try $0.auditEvents(involving: "ann", limit: 10) }
            #expect(ann.map(\.action) == ["consent.revoke", "user.update", "user.signup"])
            #expect(try store.read { try $0.auditEvents(involving: "ann", limit: 2) }.count == 2)
            #expect(try store.read { try $0.auditEvents(involving: "ann", limit: -1) }.isEmpty)
            #expect(try store.read { try $0.auditEvents(involving: "nobody", limit: 10) }.isEmpty)
        }
    }
}

/// The checks of this file, named as the tests they were.
enum TokenChecks {
    static var all: [StoreConformance.Check] {
        [
            .init("RefreshTokenTests.mintedTokensNameTheirFamilyAndAreRandom") {
                RefreshTokenTests(open: $0).mintedTokensNameTheirFamilyAndAreRandom()
            },
            .init("RefreshTokenTests.familiesListAndRevokeByUserAndClient") {
                try RefreshTokenTests(open: $0).familiesListAndRevokeByUserAndClient()
            },
            .init("AccessTokenRevocationTests.revokeCheckAndPurge") {
                try AccessTokenRevocationTests(open: $0).revokeCheckAndPurge()
            },
            .init("AccountLinkTests.createGetListDelete") { try AccountLinkTests(open: $0).createGetListDelete() },
            .init("AuditLogTests.appendAndListNewestFirst") { try AuditLogTests(open: $0).appendAndListNewestFirst() },
            .init("AuditLogTests.eventsInvolvingOnePartyNewestFirst") {
                try AuditLogTests(open: $0).eventsInvolvingOnePartyNewestFirst()
            },
        ]
    }
}
