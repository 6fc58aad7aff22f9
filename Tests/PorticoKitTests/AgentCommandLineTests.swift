import Foundation
import Testing

/// `portico-agent`'s command line without a provider: help, usage mistakes (exit 2) and
/// failures (exit 1) as one line.
@Suite struct AgentCommandLineTests {
    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let agent = try AgentProcess(issuer: "http://127.0.0.1:9", clientID: "")
        defer { agent.cleanUp() }
        return try agent.run(arguments, environment: environment.merging(["PORTICO_AGENT_CLIENT_ID": ""]) { $1 })
    }

    @Test func everyCommandHasHelp() throws {
        let overview = try run(["--help"])
        #expect(overview.status == 0)
        for command in ["login", "status", "logout", "serve", "pending", "approve", "deny"] {
            #expect(overview.stdout.contains("  \(command)"))
            let help = try run([command, "--help"])
            #expect(help.status == 0)
            #expect(help.stdout.hasPrefix("usage: portico-agent"))
            #expect(help.stdout.contains(command))
        }
    }

    @Test func mistakesAreOneLineAndExitTwo() throws {
        let cases: [([String], String)] = [
            ([], "no command given"),
            (["fly"], "unknown command fly"),
            (["login", "--browser"], "login does not take --browser"),
            (["approve"], "approve needs one consent ID"),
            (["deny", "1", "2"], "deny needs one consent ID"),
            (["serve", "--consent-timeout", "0"], "--consent-timeout needs a number"),
            (["--issuer", "ftp://x", "status"], "is not an http(s) URL"),
            (["status"], "no client id"),
            (["--issuer"], "--issuer needs a value"),
        ]
        for (arguments, message) in cases {
            let result = try run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.hasPrefix("portico-agent: "), "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments)")
        }
    }

    @Test func answeringConsentsWithoutARunningAgentSaysSo() throws {
        for arguments in [["pending"], ["approve", "1"], ["deny", "1"]] {
            let result = try run(arguments)
            #expect(result.status == 1)
            #expect(result.stderr == "portico-agent: the agent is not running (start `portico-agent serve`)\n")
        }
    }

    @Test func anUnreachableProviderIsOneLine() throws {
        let result = try run(["--client-id", "x", "login", "--device"])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("portico-agent: "))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }
}
