import Foundation
import PorticoServer
import PorticoTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Admin commands against the database of a running server: what they add works at once.
@Suite struct AdminWhileServingTests {
    @Test func aClientAddedWhileServingGetsATokenAtOnce() async throws {
        try await ProviderHarness.with { harness in
            let scope = try harness.portico(["scope", "add", "reports:read", "--description", "Read reports"])
            #expect(scope.status == 0, "\(scope.stderr)")
            let added = try harness.portico([
                "client", "add", "--name", "Reporter", "--redirect-uri", "https://r.example/cb", "--grant",
                "client_credentials", "--scope", "reports:read", "--json",
            ])
            #expect(added.status == 0, "\(added.stderr)")
            let object = try #require(cliJSON(added.stdout)?.objectValue)
            let id = try #require(object["client_id"]?.stringValue)
            let secret = try #require(object["client_secret"]?.stringValue)

            var request = URLRequest(url: URL(string: harness.issuer + "/oauth/token")!)
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.setValue(
                "Basic " + Data("\(id):\(secret)".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
            request.httpBody = Data("grant_type=client_credentials&scope=reports%3Aread".utf8)
            let answer = try await CLIHTTP.send(request)
            #expect(answer.status == 200, "\(answer.body)")
            let token = try #require(cliJSON(answer.body)?.objectValue)
            #expect(token["access_token"]?.stringValue != nil)
            #expect(token["scope"]?.stringValue == "reports:read")

            // Removal takes effect within the client cache's time-to-live (5 s). (Credentials go in
            // the body this time: a 401 with a Basic challenge makes Linux URLSession wait forever on
            // a delegate session.)
            let removed = try harness.portico(["client", "remove", id])
            #expect(removed.status == 0)
            request.setValue(nil, forHTTPHeaderField: "Authorization")
            request.httpBody = Data(
                "grant_type=client_credentials&client_id=\(id)&client_secret=\(secret)".utf8)
            var refused = try await CLIHTTP.send(request)
            for _ in 0..<40 where refused.status != 401 {
                try await Task.sleep(for: .milliseconds(250))
                refused = try await CLIHTTP.send(request)
            }
            #expect(refused.status == 401)
            #expect(cliJSON(refused.body)?.objectValue?["error"] == .string("invalid_client"))
        }
    }
}
