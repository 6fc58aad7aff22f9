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
/// two requests opens two, so that they use separate connections, as two nodes would.
///
/// The suite needs only `PorticoStore` (no server, no provider harness), so a new backend proves
/// itself with its own module and this one. It checks the storage contract — the primitives
/// (insert, compare-and-swap on a token hash, conditional updates that report the rows they
/// changed, whole-second times) that the provider's policies are built on. The policies
/// themselves (refresh rotation and its grace, device polls, consent union) are checked on top
/// of these by the provider's tests (`PolicyChecks` in `PorticoTesting`), which build their
/// checks with ``Check``, ``ConformanceChecks`` and ``RaceChecks`` from here.
public enum StoreConformance {
    /// Opens a new store (new connections) on the database under test.
    public typealias Opener = @Sendable () throws -> any Store

    /// One named check.
    public struct Check: Sendable, CustomTestStringConvertible, CustomStringConvertible {
        /// `Suite.check`, as the tests it came from were named.
        public let name: String
        private let body: @Sendable (@escaping Opener) throws -> Void

        /// A check named `name` (`Suite.check`) whose `body` runs on the database `open` opens stores on.
        public init(_ name: String, _ body: @escaping @Sendable (@escaping Opener) throws -> Void) {
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
            + DPoPChecks.all
            + DeveloperChecks.all
            + PushedRequestChecks.all
            + SignInCountChecks.all
    }
}

/// What every group of checks shares: the opener, and a store from it for the body. Public so
/// that checks built on the contract elsewhere (the provider's policy checks) are written alike.
public protocol ConformanceChecks {
    /// Opens a new store on the database under test.
    var open: StoreConformance.Opener { get }
}

extension ConformanceChecks {
    /// Runs `body` with a store opened on the database under test, then closes it.
    public func withStore<T>(_ body: (any Store) throws -> T) throws -> T {
        let store = try open()
        defer { store.close() }
        return try body(store)
    }
}
