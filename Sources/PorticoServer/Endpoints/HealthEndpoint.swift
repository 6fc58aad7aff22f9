import PorticoHTTP

/// `GET /healthz`: liveness for load balancers and `make run`'s wait loop.
///
/// It answers from a constant body on the HTTP thread without touching the database, so a
/// probe measures the process, not the storage, and costs next to nothing.
enum HealthEndpoint {
    private static let body = Array(#"{"status":"ok"}"#.utf8)

    static func register(on router: Router) {
        router.get("/healthz") { _ in
            var response = Response(status: .ok, body: body)
            response.headers["Content-Type"] = "application/json"
            response.headers["Cache-Control"] = "no-store"
            return response
        }
    }
}
