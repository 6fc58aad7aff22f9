import Foundation

/// How the provider delivers back-channel logout tokens from its outbox (and, through the same
/// outbox, any other message it owes apps): how often it looks for due messages, how many it
/// attempts at once, how long it waits for a client's backend, and how it retries one that
/// failed.
///
/// The defaults retry with exponential backoff (5 s doubling up to an hour, with jitter) for a
/// day before giving a message up, so a client's backend that is down for maintenance, or a
/// provider restart, loses nothing; tests shorten the intervals to watch a retry happen.
public struct BackChannelLogoutSettings: Sendable {
    /// How long the deliverer sleeps when nothing was due; 1 s by default.
    public var pollInterval: Duration
    /// How long one POST to a client's backend may take (connecting included); 5 s by default.
    public var requestTimeout: Duration
    /// How long connecting to a client's backend may take; 2 s by default, short because a
    /// reachable backend accepts at once, and one that drops packets should cost little.
    public var connectTimeout: Duration
    /// The wait after the first failed attempt, doubled after each further one (with jitter:
    /// between half and all of it); 5 s by default.
    public var firstRetryDelay: Duration
    /// The longest wait between two attempts; an hour by default.
    public var maximumRetryDelay: Duration
    /// How long after it was enqueued a message is still retried; then it is given up as
    /// failed. A day by default (the least OpenID Connect deployments expect).
    public var retryWindow: Duration
    /// How many due messages one node claims at a time.
    public var batchSize: Int
    /// How long a claim keeps other nodes off a message; past it (a node died mid-delivery)
    /// another node retries it. Longer than a batch of requests takes.
    public var leaseDuration: Duration
    /// How long delivered and given-up messages are kept, for operators, before being deleted.
    public var retention: Duration
    /// How many deliveries one node attempts at once, each to a different app's backend (one
    /// at a time per backend); 8 by default. A backend that never answers holds one of them for
    /// ``requestTimeout``, and the others carry on.
    public var concurrency: Int = 8

    /// The defaults above.
    public init(
        pollInterval: Duration = .seconds(1), requestTimeout: Duration = .seconds(5),
        connectTimeout: Duration = .seconds(2), firstRetryDelay: Duration = .seconds(5),
        maximumRetryDelay: Duration = .seconds(3600),
        retryWindow: Duration = .seconds(24 * 3600), batchSize: Int = 10, leaseDuration: Duration? = nil,
        retention: Duration = .seconds(24 * 3600)
    ) {
        self.pollInterval = pollInterval
        self.requestTimeout = requestTimeout
        self.connectTimeout = connectTimeout
        self.firstRetryDelay = firstRetryDelay
        self.maximumRetryDelay = maximumRetryDelay
        self.retryWindow = retryWindow
        self.batchSize = batchSize
        self.leaseDuration = leaseDuration ?? max(.seconds(60), requestTimeout * (batchSize + 1))
        self.retention = retention
    }

    /// The wait before the attempt after `failedAttempts` failures (one or more): the doubling
    /// delay, capped, times a random factor in [0.5, 1] so that many messages failing together
    /// (a backend back from an outage) do not all come back at once.
    func retryDelay(afterFailedAttempts failedAttempts: Int, random: Double = Double.random(in: 0.5...1))
        -> TimeInterval
    {
        let first = Self.interval(firstRetryDelay)
        let doubled = first * pow(2, Double(min(max(failedAttempts - 1, 0), 40)))
        return min(doubled, Self.interval(maximumRetryDelay)) * random
    }

    /// `duration` in seconds, fractions included.
    static func interval(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
