import PorticoHTTP

/// `GET /healthz`: liveness for load balancers and `make run`'s wait loop.
///
/// It answers from a constant body on the HTTP thread without touching the database, so a
/// probe measures the process, not the storage, and costs next to nothing.
enum HealthEndpoint {
    static func register(on router: Router) {
        var response = Response(status: .ok, body: Array(#"{"status":"ok"}"#.utf8))
        response.headers["Content-Type"] = "application/json"
        response.headers["Cache-Control"] = "no-store"
        router.get("/healthz", constant: response)
    }
}
