import Foundation
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

/// `portico client add --backchannel-logout-uri` through the real binary: https (or loopback,
/// http allowed, with `--allow-loopback-callbacks`) is stored and listed; anything else, and a
/// host inside the server's network, is one line and exit 2 and stores nothing.
@Suite struct BackChannelCommandTests {
    @Test func aBackChannelLogoutURIIsStoredAndListed() throws {
        let database = try CLIDatabase()
        let added = try database.portico([
            "client", "add", "--name", "Host", "--redirect-uri", "https://host.example/cb",
            "--backchannel-logout-uri", "https://host.example/backchannel?tenant=1", "--json",
        ])
        #expect(added.status == 0, "\(added.stderr)")
        let id = try #require(cliJSON(added.stdout)?.objectValue?["client_id"]?.stringValue)
        let loopback = try database.portico([
            "client", "add", "--name", "Dev", "--redirect-uri", "http://127.0.0.1/cb",
            "--backchannel-logout-uri", "http://127.0.0.1:9000/logout", "--allow-loopback-callbacks",
        ])
        #expect(loopback.status == 0, "\(loopback.stderr)")

        let list = try database.portico(["client", "list"])
        #expect(list.status == 0)
        #expect(list.stdout.contains("backchannel-logout https://host.example/backchannel?tenant=1"))
        #expect(list.stdout.contains("backchannel-logout http://127.0.0.1:9000/logout"))
        let json = try database.portico(["client", "list", "--json"])
        let clients = try #require(cliJSON(json.stdout)?.arrayValue)
        let host = try #require(clients.first { $0.objectValue?["client_id"]?.stringValue == id })
        #expect(host.objectValue?["backchannel_logout_uri"]?.stringValue == "https://host.example/backchannel?tenant=1")
        let dev = try #require(clients.first { $0.objectValue?["client_id"]?.stringValue != id })
        #expect(dev.objectValue?["backchannel_logout_uri"]?.stringValue == "http://127.0.0.1:9000/logout")
    }

    @Test(arguments: [
        ("http://host.example/logout", "use https"),
        ("https://host.example/logout#x", "fragment"),
        ("/logout", "is not an absolute URI"),
        ("com.example.app:/logout", "only --public"),
        ("https://user:pw@host.example/logout", "user name or password"),
        ("http://127.0.0.1:9000/logout", "--allow-loopback-callbacks"),
        ("https://localhost/logout", "--allow-loopback-callbacks"),
        ("https://2130706433/logout", "loopback"),
        ("https://169.254.169.254/latest/meta-data", "private, link-local or reserved"),
        ("https://10.0.0.8/logout", "private, link-local or reserved"),
        ("https://0xc0.0xa8.1.1/logout", "private, link-local or reserved"),
        ("https://[fd00::1]/logout", "private, link-local or reserved"),
        ("https://[fe80::1]/logout", "private, link-local or reserved"),
    ])
    func aBadURIIsOneLineAndExitTwo(uri: String, message: String) throws {
        let database = try CLIDatabase()
        let result = try database.portico([
            "client", "add", "--name", "Host", "--redirect-uri", "https://host.example/cb",
            "--backchannel-logout-uri", uri,
        ])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("portico: back-channel logout URI"), "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stdout.isEmpty)
        let list = try database.portico(["client", "list", "--json"])
        #expect(try #require(cliJSON(list.stdout)?.arrayValue).isEmpty, "a refused app was stored")
    }

    /// The opt-in is for loopback only: private and link-local hosts stay refused with it.
    @Test func theLoopbackOptInAllowsNoPrivateAddress() throws {
        let database = try CLIDatabase()
        let result = try database.portico([
            "client", "add", "--name", "Host", "--redirect-uri", "https://host.example/cb",
            "--backchannel-logout-uri", "https://192.168.1.20/logout", "--allow-loopback-callbacks",
        ])
        #expect(result.status == 2)
        #expect(result.stderr.contains("private, link-local or reserved"), "\(result.stderr)")
    }
}
