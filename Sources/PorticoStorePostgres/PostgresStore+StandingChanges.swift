import PorticoStore
import PorticoStoreSQL

// Change notifications for nodes that keep standings in memory (schema version 13's triggers).
extension PostgresStore: StandingChangeFeed {
    /// Starts the listener connection and makes every pooled connection listen from its next
    /// checkout on; the generation is nil until the listener listens (a few milliseconds).
    public func followStandingChanges() {
        if standingFeed.start() { listener.start() }
    }

    /// Nil until ``followStandingChanges()`` listens, and while the listener reconnects.
    public var standingGeneration: UInt64? { standingFeed.generation }
}
