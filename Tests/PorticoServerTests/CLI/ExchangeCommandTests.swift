import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import Testing

/// The command line of token exchange: `--sso-group`, `--resource`, `--subject-type`,
/// `--sector` and `scope add --resource`, through the real binary and a real SQLite file.
@Suite struct ExchangeCommandTests {
    @Test func registersGroupResourcesAndPairwiseSubjects() throws {
        let database = try CLIDatabase()
        let result = try database.portico([
            "client", "add", "--name", "Mail", "--redirect-uri", "https://mail.example/cb", "--sso-group", "vendor",
            "--grant", "authorization_code", "--grant", "refresh_token", "--grant",
            "urn:ietf:params:oauth:grant-type:token-exchange", "--resource", "https://api.example/orders",
            "--resource", "https://api.example/pay", "--subject-type", "pairwise", "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let id = try #require(cliJSON(result.stdout)?.objectValue?["client_id"]?.stringValue)
        let store = try openStore(url: database.url)
        defer { store.close() }
        let client = try #require(try store.client(id: id))
        #expect(client.ssoGroup == "vendor")
        #expect(client.resources == ["https://api.example/orders", "https://api.example/pay"])
        #expect(client.subjectType == .pairwise)
        #expect(client.sectorIdentifier == "mail.example")
        #expect(client.allowedScopes.contains("device_sso"))
        #expect(client.allowedGrantTypes.contains("urn:ietf:params:oauth:grant-type:token-exchange"))
    }

    @Test func defaultsChangeNothing() throws {
        let database = try CLIDatabase()
        let result = try database.portico([
            "client", "add", "--name", "Shop", "--redirect-uri", "https://shop.example/cb", "--json",
        ])
        let id = try #require(cliJSON(result.stdout)?.objectValue?["client_id"]?.stringValue)
        let store = try openStore(url: database.url)
        defer { store.close() }
        let client = try #require(try store.client(id: id))
        #expect(client.ssoGroup == nil)
        #expect(client.resources.isEmpty)
        #expect(client.subjectType == .public)
        #expect(client.sectorIdentifier == nil)
        #expect(!client.allowedScopes.contains("device_sso"))
    }

    @Test(arguments: [
        (["--scope", "device_sso"], "needs --sso-group"),
        (["--sso-group", "bad group"], "SSO group"),
        (["--resource", "https://api.example/x#frag"], "not an absolute URI"),
        (["--resource", "orders"], "not an absolute URI"),
        (["--subject-type", "secret"], "not public or pairwise"),
        (["--sector", "shop.example"], "--sector needs --subject-type pairwise"),
        (["--subject-type", "pairwise", "--sector", "bad sector!"], "must be a host name"),
        (
            ["--subject-type", "pairwise", "--redirect-uri", "https://other.example/cb"],
            "needs --sector NAME"
        ),
    ])
    func mistakesGiveOneLine(arguments: [String], message: String) throws {
        let database = try CLIDatabase()
        let result = try database.portico(
            ["client", "add", "--name", "A", "--redirect-uri", "https://a.example/cb"] + arguments)
        #expect(result.status != 0)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func scopeAddTakesAResource() throws {
        let database = try CLIDatabase()
        let added = try database.portico([
            "scope", "add", "orders:read", "--description", "See your orders", "--resource",
            "https://api.example/orders",
        ])
        #expect(added.status == 0, "\(added.stderr)")
        let store = try openStore(url: database.url)
        defer { store.close() }
        #expect(try store.productScope(name: "orders:read")?.resource == "https://api.example/orders")
        let refused = try database.portico([
            "scope", "add", "orders:write", "--description", "Change orders", "--resource", "relative/path",
        ])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("not an absolute URI"), "\(refused.stderr)")
    }

    @Test func helpNamesTheNewOptions() throws {
        let database = try CLIDatabase()
        let help = try database.portico(["client", "add", "--help"]).stdout
        for option in ["--sso-group", "--resource", "--subject-type", "--sector", "token-exchange"] {
            #expect(help.contains(option), "\(option)")
        }
        #expect(try database.portico(["scope", "add", "--help"]).stdout.contains("--resource URI"))
    }
}
