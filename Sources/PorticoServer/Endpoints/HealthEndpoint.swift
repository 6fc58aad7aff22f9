import PorticoHTTP
import PorticoStore

/// `GET /healthz`: liveness for load balancers and `make run`'s wait loop, and what a node knows
/// of its database.
///
/// It answers from a prepared body on the HTTP thread without touching the database, so a probe
/// measures the process, not the storage, and costs next to nothing. On a store that follows
/// changes over a connection of its own (PostgreSQL's listener, which connects with the URL's
/// `target_session_attrs`), the body says `degraded` while that connection is down: no primary
/// answers (the primary died and no standby has been promoted yet, or the database is away), and
/// requests that need the database get 503 with `Retry-After`. It comes back to `ok` by itself
/// once a primary answers again.
///
/// The status stays 200 either way: the process is alive and answers what it can (discovery,
/// JWKS, verified tokens), and a balancer or orchestrator that took 503 here for "restart me" or
/// "take me out" would only replace one healthy node with another that cannot reach the
/// database either.
enum HealthEndpoint {
    static func register(on router: Router, store: any Store) {
        let ok = prepared(#"{"status":"ok"}"#)
        guard let feed = store as? any StandingChangeFeed else {
            router.get("/healthz", current: { ok })
            return
        }
        let degraded = prepared(#"{"status":"degraded","database":"no primary answers"}"#)
        // Idempotent: the standing cache starts it too; here so that /healthz knows either way.
        feed.followStandingChanges()
        router.get("/healthz", current: { feed.standingGeneration == nil ? degraded : ok })
    }

    private static func prepared(_ body: String) -> PreparedResponse {
        var response = Response(status: .ok, body: Array(body.utf8))
        response.headers["Content-Type"] = "application/json"
        response.headers["Cache-Control"] = "no-store"
        return PreparedResponse(response)
    }
}
