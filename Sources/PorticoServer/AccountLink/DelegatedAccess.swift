import PorticoStore

/// When an access token a host delegated to its mini-program (`act.sub` = the host) still
/// speaks for the person.
///
/// Why checked on every use rather than only revoked on unbind: a delegated token is only as
/// good as what it was exchanged from — the link of the person and the host, the person's
/// grant to the host, and the mini-program's place under that host. Reading all three here
/// (three point lookups, only for delegated tokens) makes an unbind, Remove of the host in Your
/// Account, a password reset, the host's removal or the mini-program's disabling take effect
/// on every node at once, with no list of delegated tokens to keep. A link made again later
/// does not revive tokens from before it.
enum DelegatedAccess {
    /// Whether `token`, delegated by `host` for the account `userID`, is still backed by a live
    /// link and an enabled mini-program of that host.
    static func isLive(
        _ token: VerifiedAccessToken, host: String, userID: String, in transaction: any StoreTransaction
    ) throws -> Bool {
        guard let miniProgram = try transaction.miniProgram(clientID: token.clientID), miniProgram.isEnabled,
            miniProgram.hostClientID == host
        else { return false }
        guard let link = try transaction.accountLink(hostClientID: host, platformUserID: userID),
            link.createdAt <= token.issuedAt
        else { return false }
        // The host's grant revoked since (Remove, a password reset) ends what it delegated.
        return try !transaction.isAccessTokenRevoked(
            id: token.tokenID, userID: userID, clientID: host, issuedAt: token.issuedAt)
    }
}
