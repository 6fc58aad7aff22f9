import Foundation
import PorticoCrypto
import PorticoTesting
import Testing

/// `portico client add --companion` and how `client list` marks it, through the real binary.
@Suite struct CompanionCommandTests {
    @Test func addCompanionMakesAPublicLoopbackAndDeviceClientThatListMarks() throws {
        let database = try CLIDatabase()
        let added = try database.portico(["client", "add", "--name", "Portico agent", "--companion", "--json"])
        #expect(added.status == 0, "\(added.stderr)")
        let object = try #require(cliJSON(added.stdout)?.objectValue)
        #expect(Set(object.keys) == ["client_id"])  // public: no secret
        let id = try #require(object["client_id"]?.stringValue)
        _ = try database.portico(["client", "add", "--name", "Shop", "--redirect-uri", "https://shop.example/cb"])

        let listed = try database.portico(["client", "list", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let clients = try #require(cliJSON(listed.stdout)?.arrayValue).compactMap(\.objectValue)
        let agent = try #require(clients.first { $0["client_id"]?.stringValue == id })
        #expect(agent["companion"] == .bool(true))
        #expect(agent["type"] == "public")
        #expect(agent["redirect_uris"] == ["http://127.0.0.1/callback"])
        #expect(
            agent["grant_types"]
                == ["authorization_code", "urn:ietf:params:oauth:grant-type:device_code", "refresh_token"])
        #expect(agent["scopes"]?.arrayValue?.contains("companion") == true)
        let shop = try #require(clients.first { $0["name"] == "Shop" })
        #expect(shop["companion"] == .bool(false))
        #expect(shop["scopes"]?.arrayValue?.contains("companion") == false)

        let text = try database.portico(["client", "list"])
        #expect(text.stdout.contains("\(id)  public  Portico agent  (companion)"))
        #expect(!text.stdout.contains("Shop  (companion)"))
        #expect(try database.portico(["client", "add", "--help"]).stdout.contains("--companion"))
    }

    @Test(arguments: [
        (["--name", "A", "--redirect-uri", "https://a.example/cb", "--scope", "companion"], "needs --companion"),
        (["--name", "A", "--companion", "--grant", "client_credentials"], "exactly the grants"),
        (["--name", "A", "--companion", "--scope", "openid"], "needs the companion scope"),
        (["--name", "A", "--companion", "--sso-group", "vendor"], "SSO group"),
        (["--name", "A", "--companion", "--redirect-uri", "http://evil.example/cb"], "use https"),
    ])
    func companionMistakesAreOneLine(arguments: [String], message: String) throws {
        let database = try CLIDatabase()
        let result = try database.portico(["client", "add"] + arguments)
        #expect(result.status != 0)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(
            try database.portico(["client", "list", "--json"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                == "[]")
    }
}
