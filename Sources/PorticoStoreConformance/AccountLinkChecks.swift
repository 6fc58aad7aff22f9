import Foundation
import PorticoStore
import Testing

/// What the account link needs of a store (migration 7): links found by their own id and by
/// either side, the conditional delete by id, and mini-programs under their host that outlive
/// it disabled.
struct AccountLinkChecks: ConformanceChecks {
    let open: StoreConformance.Opener

    func linksByIDAndEitherSide() throws {
        try withStore { store throws in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            let link = AccountLink(
                hostClientID: client.id, hostUserID: "mc-1", platformUserID: user.id,
                createdAt: StoreFixtures.referenceTime)
            try store.insert(link)
            try store.read { transaction throws in
                #expect(try transaction.accountLink(id: link.id) == link)
                #expect(try transaction.accountLink(hostClientID: client.id, platformUserID: user.id) == link)
                #expect(try transaction.accountLink(hostClientID: client.id, platformUserID: "someone") == nil)
                #expect(try transaction.accountLink(id: "no-such-link") == nil)
            }
            #expect(throws: StoreError.duplicate(field: "id")) {
                let other = StoreFixtures.user("bob@example.com")
                try store.insert(other)
                try store.insert(
                    AccountLink(id: link.id, hostClientID: client.id, hostUserID: "mc-2", platformUserID: other.id))
            }
            #expect(try store.transaction { try $0.deleteAccountLink(id: link.id) })
            #expect(try store.transaction { try $0.deleteAccountLink(id: link.id) } == false)
            #expect(try store.accountLink(id: link.id) == nil)
        }
    }

    func miniProgramsOutliveTheirHostDisabled() throws {
        try withStore { store throws in
            let host = StoreFixtures.client()
            let first = StoreFixtures.client(type: .public)
            let second = StoreFixtures.client(type: .public)
            try store.transaction { transaction in
                for client in [host, first, second] { try transaction.insert(client) }
                try transaction.insert(
                    MiniProgram(clientID: first.id, hostClientID: host.id, createdAt: StoreFixtures.referenceTime))
                try transaction.insert(
                    MiniProgram(
                        clientID: second.id, hostClientID: host.id,
                        createdAt: StoreFixtures.referenceTime.addingTimeInterval(1)))
            }
            #expect(throws: StoreError.missingReference("client")) {
                try store.transaction {
                    try $0.insert(MiniProgram(clientID: "ghost", hostClientID: host.id))
                }
            }
            try store.read { transaction throws in
                #expect(try transaction.miniProgram(clientID: first.id)?.hostClientID == host.id)
                #expect(try transaction.miniProgram(clientID: host.id) == nil)
                #expect(try transaction.miniPrograms(hostClientID: host.id).map(\.clientID) == [first.id, second.id])
                #expect(try transaction.miniPrograms(hostClientID: host.id).allSatisfy(\.isEnabled))
            }
            let removedAt = StoreFixtures.referenceTime.addingTimeInterval(60)
            let disabled = try store.transaction { transaction in
                _ = try transaction.deleteClient(id: host.id)
                return try transaction.disableMiniPrograms(hostClientID: host.id, now: removedAt)
            }
            #expect(disabled == 2)
            #expect(try store.transaction { try $0.disableMiniPrograms(hostClientID: host.id, now: removedAt) } == 0)
            let after = try store.read { try $0.miniProgram(clientID: first.id) }
            #expect(after?.disabledAt == removedAt)
            #expect(after?.isEnabled == false)
            // The mini-program's own removal takes its record with it.
            _ = try store.deleteClient(id: second.id)
            #expect(try store.read { try $0.miniProgram(clientID: second.id) } == nil)
        }
    }

    /// The checks of this file.
    static var all: [StoreConformance.Check] {
        [
            .init("AccountLinkChecks.linksByIDAndEitherSide") {
                try AccountLinkChecks(open: $0).linksByIDAndEitherSide()
            },
            .init("AccountLinkChecks.miniProgramsOutliveTheirHostDisabled") {
                try AccountLinkChecks(open: $0).miniProgramsOutliveTheirHostDisabled()
            },
        ]
    }
}
