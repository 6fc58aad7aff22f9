import Foundation
import PorticoTesting
import Testing

/// `portico client add --dpop` and how `client list` shows it, through the real binary.
@Suite struct DPoPClientCommandTests {
    @Test func addDPoPIsStoredAndListed() throws {
        let database = try CLIDatabase()
        let added = try database.portico([
            "client", "add", "--name", "Bank App", "--public", "--redirect-uri", "com.bank.app:/callback", "--dpop",
            "--json",
        ])
        #expect(added.status == 0, "\(added.stderr)")
        let id = try #require(cliJSON(added.stdout)?.objectValue?["client_id"]?.stringValue)
        _ = try database.portico(["client", "add", "--name", "Shop", "--redirect-uri", "https://shop.example/cb"])

        let listed = try database.portico(["client", "list", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let clients = try #require(cliJSON(listed.stdout)?.arrayValue).compactMap(\.objectValue)
        #expect(clients.first { $0["client_id"]?.stringValue == id }?["dpop_bound_access_tokens"] == .bool(true))
        #expect(clients.first { $0["name"] == "Shop" }?["dpop_bound_access_tokens"] == .bool(false))

        let text = try database.portico(["client", "list"])
        #expect(text.stdout.contains("\(id)  public  Bank App  (dpop)"))
        #expect(!text.stdout.contains("Shop  (dpop)"))
        #expect(try database.portico(["client", "add", "--help"]).stdout.contains("--dpop"))
        #expect(try database.portico(["serve", "--help"]).stdout.contains("--dpop-nonce"))
    }
}
