import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

/// `portico client add --mini-program-of`, `client list` and `client remove` of a host, through
/// the real binary and a real SQLite file.
@Suite struct MiniProgramCommandTests {
    /// A confidential host registered by the CLI; its id.
    private func addHost(_ database: CLIDatabase, extra: [String] = []) throws -> String {
        let result = try database.portico(
            ["client", "add", "--name", "Harbour Mall", "--redirect-uri", "https://mall.example/cb", "--json"] + extra)
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(cliJSON(result.stdout)?.objectValue?["client_id"]?.stringValue)
    }

    @Test func registersListsAndDisablesWithTheHost() throws {
        let database = try CLIDatabase()
        let host = try addHost(database)
        let added = try database.portico([
            "client", "add", "--name", "Ticket Booth", "--mini-program-of", host, "--scope", "openid", "--scope",
            "profile", "--json",
        ])
        #expect(added.status == 0, "\(added.stderr)")
        let object = try #require(cliJSON(added.stdout)?.objectValue)
        let mini = try #require(object["client_id"]?.stringValue)
        #expect(object["client_secret"] == nil)
        let plain = try database.portico(["client", "add", "--name", "Noodle Bar", "--mini-program-of", host])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout.contains("mini-program \"Noodle Bar\" of host \(host)"))

        let store = try openStore(url: database.url)
        let client = try #require(try store.client(id: mini))
        #expect(client.type == .public)
        #expect(client.redirectURIs.isEmpty)
        #expect(client.allowedGrantTypes.isEmpty)
        #expect(client.allowedScopes == ["openid", "profile"])
        #expect(try store.read { try $0.miniProgram(clientID: mini) }?.hostClientID == host)
        let defaults = try #require(
            try store.read { try $0.miniPrograms(hostClientID: host) }.last.flatMap {
                try store.client(id: $0.clientID)
            })
        #expect(!defaults.allowedScopes.contains("account_link"))
        #expect(!defaults.allowedScopes.contains("offline_access"))
        #expect(!defaults.allowedScopes.contains("companion"))
        store.close()

        // Listed under the host, indented.
        let list = try database.portico(["client", "list"])
        #expect(list.status == 0)
        let lines = list.stdout.split(separator: "\n").map(String.init)
        let hostLine = try #require(lines.firstIndex { $0.hasPrefix(host) })
        #expect(lines.contains("    mini-program \(mini)  Ticket Booth"))
        let miniLine = try #require(lines.firstIndex { $0 == "    mini-program \(mini)  Ticket Booth" })
        #expect(miniLine > hostLine)
        #expect(!lines.contains { $0.hasPrefix(mini) })
        let json = try database.portico(["client", "list", "--json"])
        let entries = try #require(cliJSON(json.stdout)?.arrayValue)
        let entry = try #require(entries.first { $0.objectValue?["client_id"]?.stringValue == mini }?.objectValue)
        #expect(entry["mini_program_of"]?.stringValue == host)
        #expect(entry["enabled"] == .bool(true))

        // Removing the host disables both, and says so.
        let removed = try database.portico(["client", "remove", host])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout.contains("disabled its 2 mini-programs"))
        let reopened = try openStore(url: database.url)
        defer { reopened.close() }
        #expect(try reopened.read { try $0.miniProgram(clientID: mini) }?.isEnabled == false)
        #expect(try reopened.client(id: mini) != nil)
        let after = try database.portico(["client", "list"])
        #expect(after.stdout.contains("\(mini)  public  Ticket Booth"))
        #expect(after.stdout.contains("mini-program of \(host) (removed), disabled"))
    }

    @Test(arguments: [
        (["--mini-program-of", "no-such-host"], "no client with id no-such-host"),
        (["--mini-program-of", "HOST", "--redirect-uri", "https://mini.example/cb"], "takes no --redirect-uri"),
        (["--mini-program-of", "HOST", "--grant", "authorization_code"], "takes no --grant"),
        (["--mini-program-of", "HOST", "--scope", "account_link"], "cannot have the scope account_link"),
        (["--mini-program-of", "HOST", "--companion"], "cannot be a --companion"),
        (["--mini-program-of", "HOST", "--backchannel-logout-uri", "https://mini.example/bc"], "its host is told"),
        (["--mini-program-of", "PUBLIC"], "is a public client"),
        (["--mini-program-of", "MINI"], "is itself a mini-program"),
        (["--public", "--redirect-uri", "http://127.0.0.1/cb", "--scope", "account_link"], "account_link scope"),
    ])
    func refusesWithOneLine(arguments: [String], message: String) throws {
        let database = try CLIDatabase()
        let host = try addHost(database)
        let publicApp = try database.portico([
            "client", "add", "--name", "App", "--public", "--redirect-uri", "http://127.0.0.1/cb", "--json",
        ])
        let publicID = try #require(cliJSON(publicApp.stdout)?.objectValue?["client_id"]?.stringValue)
        let mini = try database.portico(["client", "add", "--name", "Mini", "--mini-program-of", host, "--json"])
        let miniID = try #require(cliJSON(mini.stdout)?.objectValue?["client_id"]?.stringValue)
        let substituted = arguments.map { argument in
            switch argument {
            case "HOST": host
            case "PUBLIC": publicID
            case "MINI": miniID
            default: argument
            }
        }
        let result = try database.portico(["client", "add", "--name", "Refused"] + substituted)
        #expect(result.status != 0)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(!(try database.portico(["client", "list"]).stdout.contains("Refused")))
    }
}
