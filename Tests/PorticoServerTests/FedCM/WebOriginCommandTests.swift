import Foundation
import PorticoStore
import PorticoTesting
import Testing

/// `portico client add … --web-origin ORIGIN` (repeatable): checked as the console checks its
/// web origins, stored normalised, and read by the one lookup FedCM uses.
@Suite struct WebOriginCommandTests {
    @Test func originsAreStoredNormalisedAndRepeatable() throws {
        let database = try CLIDatabase()
        let result = try database.portico([
            "client", "add", "--name", "Web", "--public", "--redirect-uri", "https://web.example/cb", "--web-origin",
            "https://Web.Example", "--web-origin", "http://localhost:5173/", "--web-origin", "https://web.example",
            "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let id = try #require(cliJSON(result.stdout)?.objectValue?["client_id"]?.stringValue)
        let store = try openStore(url: database.url)
        defer { store.close() }
        #expect(try store.read { try $0.webOrigins(clientID: id) } == ["https://web.example", "http://localhost:5173"])
    }

    @Test(arguments: [
        ("ftp://web.example", "must start with https://"),
        ("http://web.example", "uses http on a host other than"),
        ("https://web.example/app", "must be only a scheme, a host and a port"),
        ("https://web.example?x=1", "must be only a scheme, a host and a port"),
        ("web.example", "web origin"),
    ])
    func invalidOriginsGiveOneLineAndChangeNothing(origin: String, message: String) throws {
        let database = try CLIDatabase()
        let result = try database.portico([
            "client", "add", "--name", "Web", "--redirect-uri", "https://web.example/cb", "--web-origin", origin,
        ])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("portico: "))
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stdout.isEmpty)
        let store = try openStore(url: database.url)
        defer { store.close() }
        #expect(try store.read { try $0.clients() }.isEmpty)
    }

    @Test func theHelpNamesTheOption() throws {
        let help = try PorticoProcess.run(["client", "add", "--help"])
        #expect((help.stdout + help.stderr).contains("--web-origin ORIGIN"))
    }
}
