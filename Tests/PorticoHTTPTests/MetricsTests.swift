import Foundation
import PorticoTesting
import Testing

@testable import PorticoHTTP

/// The metrics registry's text and the server's request counting, scraped over real HTTP.
@Suite struct MetricsTests {
    /// A server recording into `registry`, with a few routes and `/metrics` rendering it.
    private func makeServer(_ registry: MetricsRegistry) throws -> HTTPServer {
        let router = Router()
        router.get("/healthz", constant: .json(raw: #"{"status":"ok"}"#))
        router.get("/clients/:id") { request in .text("client \(request.pathParameters["id"] ?? "?")") }
        router.post("/clients") { _ in .text("created", status: .created) }
        router.getAsync("/slow/:n") { _ in
            await Task.yield()
            return .text("slow")
        }
        router.get("/broken") { _ in throw CocoaError(.fileNoSuchFile) }
        router.get("/metrics") { _ in
            Response(headers: ["Content-Type": MetricsRegistry.contentType], body: Array(registry.render().utf8))
        }
        let server = HTTPServer(
            configuration: ServerConfiguration(port: 0, threads: 2, logRequests: false), router: router,
            metrics: registry)
        try server.start()
        return server
    }

    private func scrape(_ server: HTTPServer) async throws -> (PrometheusText, String) {
        let reply = try await fetch(server, "/metrics")
        #expect(reply.status == 200)
        #expect(reply.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        return (try PrometheusText(reply.text), reply.text)
    }

    @Test func countsRequestsByRoutePatternMethodAndStatus() async throws {
        let registry = MetricsRegistry()
        let server = try makeServer(registry)
        defer { server.shutdown() }
        for id in ["1", "2", "abc%20def"] {
            #expect(try await fetch(server, "/clients/\(id)").status == 200)
        }
        #expect(try await fetch(server, "/clients/7", method: "HEAD").status == 200)
        #expect(try await fetch(server, "/clients", method: "POST", body: Data("x".utf8)).status == 201)
        #expect(try await fetch(server, "/slow/1").status == 200)
        #expect(try await fetch(server, "/slow/2").status == 200)
        #expect(try await fetch(server, "/broken").status == 500)
        #expect(try await fetch(server, "/healthz").status == 200)
        #expect(try await fetch(server, "/nowhere").status == 404)
        #expect(try await fetch(server, "/clients/1/extra").status == 404)
        #expect(try await fetch(server, "/clients", method: "DELETE").status == 405)
        let odd = RawHTTPClient.exchange(
            port: server.port, "PROPFIND /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(odd.hasPrefix("HTTP/1.1 404"))

        let (metrics, text) = try await scrape(server)
        let requests = "portico_http_requests_total"
        #expect(metrics.types[requests] == "counter")
        #expect(metrics.help[requests]?.isEmpty == false)
        #expect(metrics.value(requests, ["route": "/clients/:id", "method": "GET", "status": "200"]) == 3)
        #expect(metrics.value(requests, ["route": "/clients/:id", "method": "HEAD", "status": "200"]) == 1)
        #expect(metrics.value(requests, ["route": "/clients", "method": "POST", "status": "201"]) == 1)
        #expect(metrics.value(requests, ["route": "/slow/:n", "method": "GET", "status": "200"]) == 2)
        #expect(metrics.value(requests, ["route": "/broken", "method": "GET", "status": "500"]) == 1)
        #expect(metrics.value(requests, ["route": "/healthz", "method": "GET", "status": "200"]) == 1)
        #expect(metrics.value(requests, ["route": "unmatched", "method": "GET", "status": "404"]) == 2)
        #expect(metrics.value(requests, ["route": "unmatched", "method": "DELETE", "status": "405"]) == 1)
        #expect(metrics.value(requests, ["route": "unmatched", "method": "other", "status": "404"]) == 1)
        // Raw paths and methods never become label values.
        #expect(!text.contains("abc") && !text.contains("/nowhere") && !text.contains("PROPFIND"))
        #expect(!text.contains("/clients/1"))

        let duration = "portico_http_request_duration_seconds"
        #expect(metrics.types[duration] == "histogram")
        let route = ["route": "/clients/:id", "method": "GET"]
        #expect(metrics.value(duration + "_count", route) == 3)
        let buckets = metrics.samples(duration + "_bucket", matching: route)
        #expect(buckets.count == HTTPMetrics.durationBuckets.count + 1)
        #expect(buckets.map(\.value) == buckets.map(\.value).sorted())
        #expect(buckets.last?.labels["le"] == "+Inf")
        #expect(buckets.last?.value == 3)
        #expect((metrics.value(duration + "_sum", route) ?? -1) > 0)
        // A route nobody called yet adds no histogram lines.
        #expect(metrics.samples(duration + "_count", matching: ["route": "/clients", "method": "GET"]).isEmpty)
    }

    @Test func connectionsAndRequestsInFlightIncludeTheScrapeItself() async throws {
        let server = try makeServer(MetricsRegistry())
        defer { server.shutdown() }
        let (metrics, _) = try await scrape(server)
        #expect((metrics.value("portico_http_connections_open") ?? 0) >= 1)
        #expect((metrics.value("portico_http_requests_in_flight") ?? 0) >= 1)
        #expect(metrics.types["portico_http_connections_open"] == "gauge")
    }

    @Test func concurrentRequestsAreAllCounted() async throws {
        let server = try makeServer(MetricsRegistry())
        defer { server.shutdown() }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<300 {
                group.addTask {
                    try await fetch(server, index.isMultiple(of: 3) ? "/slow/\(index)" : "/healthz").status
                }
            }
            for try await status in group { #expect(status == 200) }
        }
        let (metrics, _) = try await scrape(server)
        let requests = "portico_http_requests_total"
        #expect(metrics.value(requests, ["route": "/slow/:n", "method": "GET", "status": "200"]) == 100)
        #expect(metrics.value(requests, ["route": "/healthz", "method": "GET", "status": "200"]) == 200)
        #expect(
            metrics.value("portico_http_request_duration_seconds_count", ["route": "/healthz", "method": "GET"]) == 200)
    }

    @Test func aServerWithoutARegistryStillServes() async throws {
        let server = try startServer()
        defer { server.shutdown() }
        #expect(try await fetch(server, "/healthz").status == 200)
    }

    @Test func registryRendersHelpTypeAndEscapedLabels() throws {
        let registry = MetricsRegistry()
        let counter = registry.counter(
            "app_events_total", help: "Events.\nSecond line \\ end.", labels: ["kind": "a\"b\\c\nd"])
        counter.increment()
        counter.increment(by: 4)
        #expect(registry.counter("app_events_total", help: "", labels: ["kind": "a\"b\\c\nd"]) === counter)
        registry.counter("app_events_total", help: "", labels: ["kind": "other"]).increment()
        let gauge = registry.gauge("app_temperature_celsius", help: "A gauge.")
        gauge.set(-1.5)
        registry.gauge("app_files_open", help: "Sampled.") { 42 }
        registry.gauge("app_missing", help: "Sampled, absent.") { nil }
        registry.gauge("app_infinite", help: "Sampled, infinite.") { .infinity }
        let histogram = registry.histogram("app_wait_seconds", help: "Waits.", upperBounds: [0.1, 0.01, 1, 0.1])
        histogram.observe(.milliseconds(5))
        histogram.observe(.milliseconds(50))
        histogram.observe(.seconds(5))
        // Mistakes are logged and not exported, never fatal.
        _ = registry.counter("9bad name", help: "Invalid.")
        _ = registry.gauge("app_events_total", help: "Another type.")

        let text = registry.render()
        let metrics = try PrometheusText(text)
        #expect(text.contains("# HELP app_events_total Events.\\nSecond line \\\\ end.\n"))
        #expect(text.contains(#"app_events_total{kind="a\"b\\c\nd"} 5"#))
        #expect(metrics.value("app_events_total", ["kind": "a\"b\\c\nd"]) == 5)
        #expect(metrics.value("app_events_total", ["kind": "other"]) == 1)
        #expect(metrics.types["app_events_total"] == "counter")
        #expect(metrics.value("app_temperature_celsius") == -1.5)
        #expect(metrics.value("app_files_open") == 42)
        #expect(metrics.types["app_missing"] == "gauge")
        #expect(metrics.samples("app_missing").isEmpty)
        #expect(metrics.value("app_infinite") == .infinity)
        #expect(
            metrics.samples("app_wait_seconds_bucket").map { $0.labels["le"] ?? "" } == ["0.01", "0.1", "1", "+Inf"])
        #expect(metrics.samples("app_wait_seconds_bucket").map(\.value) == [1, 2, 2, 3])
        #expect(metrics.value("app_wait_seconds_count") == 3)
        #expect(abs((metrics.value("app_wait_seconds_sum") ?? 0) - 5.055) < 1e-9)
        #expect(!text.contains("9bad"))
        #expect(text.components(separatedBy: "# TYPE app_events_total").count == 2)
    }

    @Test func statusesBeyondTheSlotsAreCountedAsOther() throws {
        let counters = StatusCounters()
        for status in 200..<(200 + StatusCounters.slotCount + 2) {
            counters.increment(status)
            counters.increment(status)
        }
        counters.increment(200)
        let (byStatus, other) = counters.snapshot()
        #expect(byStatus.count == StatusCounters.slotCount)
        #expect(byStatus.first?.status == 200 && byStatus.first?.count == 3)
        #expect(other == 4)
        #expect(counters.total == UInt64(2 * (StatusCounters.slotCount + 2) + 1))
    }
}
