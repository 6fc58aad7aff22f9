import PorticoStore
import Testing

/// The backend-neutral store conformance suite: what every ``PorticoStore/Store`` must do,
/// races included, run by each backend's tests.
///
/// A backend's test target runs every check against a fresh, empty, migrated database:
///
/// ```swift
/// @Test(arguments: StoreConformance.checks)
/// func conforms(_ check: StoreConformance.Check) throws {
///     let directory = try TemporaryDirectory()
///     try check.run { try SQLiteStore(path: directory.databasePath()) }
/// }
/// ```
///
/// The closure opens a new store on that database each time it is called; a check that races
/// two requests opens two, so that they use separate connections, as two nodes would. The
/// checks use the provider's policies (refresh rotation, device polls, consent union) on top
/// of the store's primitives, so that what is proven is what the provider relies on.
public enum StoreConformance {
    /// Opens a new store (new connections) on the database under test.
    public typealias Opener = @Sendable () throws -> any Store

    /// One named check.
    public struct Check: Sendable, CustomTestStringConvertible, CustomStringConvertible {
        /// `Suite.check`, as the tests it came from were named.
        public let name: String
        private let body: @Sendable (@escaping Opener) throws -> Void

        init(_ name: String, _ body: @escaping @Sendable (@escaping Opener) throws -> Void) {
            self.name = name
            self.body = body
        }

        /// Runs the check on the database that `open` opens stores on.
        public func run(_ open: @escaping Opener) throws {
            try body(open)
        }

        /// The name, as test reports show the argument.
        public var testDescription: String { name }
        /// The name.
        public var description: String { name }
    }

    /// Every check, in a stable order.
    public static var checks: [Check] {
        UserAndClientChecks.all + SessionCodeConsentChecks.all + TokenChecks.all + AccountRecoveryChecks.all
            + PurgeChecks.all + RaceChecks.all + PrimitiveChecks.all + DeviceSessionChecks.all
            + OutboxChecks.all
            + AccountLinkChecks.all
            + CompanionChecks.all
            + FirstSigningKeyChecks.all
            + SecurityChecks.all
            + DeviceSessionPurgeChecks.all
            + BearerAccessChecks.all
            + BulkLoadChecks.all
            + PendingSignupChecks.all
            + TwoStepChecks.all
            + StandingFeedChecks.all
            + RefreshRotationChecks.all
    }
}

/// What every group of checks shares: the opener, and a store from it for the body.
protocol ConformanceChecks {
    var open: StoreConformance.Opener { get }
}

extension ConformanceChecks {
    /// Runs `body` with a store opened on the database under test, then closes it.
    func withStore<T>(_ body: (any Store) throws -> T) throws -> T {
        let store = try open()
        defer { store.close() }
        return try body(store)
    }
}
