import Foundation

/// Dynamic client registration (RFC 7591, RFC 7592): initial access tokens made by the
/// operator, and the registration access token of each client registered through the endpoint.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements". Only SHA-256 hashes of
/// the tokens are kept (``SecretHash``). The store holds no policy: whether a registration may
/// use a token is decided by ``consumeInitialAccessToken(hash:now:)``'s conditional write.
public protocol RegistrationStorage {
    /// Stores a new initial access token: usable `uses` times (nil: without limit) until
    /// `expiresAt` (nil: forever).
    func insertInitialAccessToken(hash: [UInt8], uses: Int?, expiresAt: Date?, createdAt: Date) throws
    /// Uses the initial access token with this hash once, if it exists, has uses left and has
    /// not expired at `now`: of two racing calls for its last use, exactly one returns true.
    func consumeInitialAccessToken(hash: [UInt8], now: Date) throws -> Bool
    /// Gives the client `clientID` the registration access token with this hash (replacing any
    /// previous one) and remembers the `token_endpoint_auth_method` it registered with.
    func setRegistrationAccessToken(clientID: String, hash: [UInt8], authMethod: String) throws
    /// The client whose registration access token has this hash, with its registered
    /// `token_endpoint_auth_method`; nil when no client has it.
    func registration(accessTokenHash hash: [UInt8]) throws -> (clientID: String, authMethod: String)?

    /// Suspends the client (`at` a time) or lifts its suspension (nil); false when there is no
    /// such client.
    func setClientSuspended(id: String, at time: Date?) throws -> Bool
    /// Marks the client verified by the operator; false when there is no such client.
    func markClientVerified(id: String) throws -> Bool
    /// How many people have allowed the client (have a consent for it).
    func consentCount(clientID: String) throws -> Int
}
