/// Makes concurrent refreshes of one grant into one request.
///
/// A refresh token is single use (Portico rotates it, and a reused one revokes the family), so
/// a hundred callers seeing an expired access token must share one refresh. The key is the
/// store's coordination key, the provider and the client, so managers that share one store
/// share its refresh too. Each refresh carries its own deadline, so a hanging one ends and the
/// next caller starts afresh.
actor RefreshCoordinator {
    static let shared = RefreshCoordinator()

    private var inFlight: [String: Task<StoredGrant, any Error>] = [:]

    /// The result of the refresh running under `key`, starting `operation` if none runs.
    func run(key: String, _ operation: @escaping @Sendable () async throws -> StoredGrant) async throws -> StoredGrant {
        if let running = inFlight[key] { return try await running.value }
        let task = Task { try await operation() }
        inFlight[key] = task
        defer { if inFlight[key] == task { inFlight[key] = nil } }
        return try await task.value
    }
}
