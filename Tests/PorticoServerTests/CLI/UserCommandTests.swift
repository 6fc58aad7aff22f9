import Foundation
import PorticoServer
import PorticoStore
import Testing

/// `portico user add` through the real binary: stdin password, Argon2id, unique e-mail.
@Suite struct UserCommandTests {
    @Test func addStoresAnArgon2idHashAndPrintsTheID() throws {
        let database = try CLIDatabase()
        let result = try database.portico(
            [
                "user", "add", "--email", "Ann@Example.com", "--name", "Ann Example", "--postal-code", "98101",
                "--password-stdin", "--json",
            ],
            stdin: "correct horse battery\n")
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(cliJSON(result.stdout)?.objectValue)
        #expect(Set(object.keys) == ["user_id"])
        let id = try #require(object["user_id"]?.stringValue)
        #expect(result.stdout.hasPrefix(#"{"user_id": ""#))

        let store = try openStore(url: database.url)
        defer { store.close() }
        let user = try #require(try store.user(id: id))
        #expect(user.email == "Ann@Example.com")
        #expect(user.name == "Ann Example")
        #expect(user.postalCode == "98101")
        #expect(user.passwordHash.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        #expect(PasswordHasher().verify("correct horse battery", against: user.passwordHash))
        #expect(!user.isEmailVerified)  // an operator's word is not proof, unless given
    }

    @Test func emailVerifiedIsSetOnlyWhenAsked() throws {
        let database = try CLIDatabase()
        let result = try database.portico(
            ["user", "add", "--email", "vi@example.com", "--name", "Vi", "--password-stdin", "--email-verified"],
            stdin: "long enough to be kept\n")
        #expect(result.status == 0, "\(result.stderr)")
        let store = try openStore(url: database.url)
        defer { store.close() }
        #expect(try store.user(email: "vi@example.com")?.isEmailVerified == true)
        let help = try database.portico(["user", "add", "--help"])
        #expect(help.stdout.contains("--email-verified"))
    }

    @Test func humanOutputNamesTheUser() throws {
        let database = try CLIDatabase()
        let result = try database.portico(
            ["user", "add", "--email", "bo@example.com", "--name", "Bo", "--password-stdin"],
            stdin: "long enough to be kept\r\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("bo@example.com"))
        #expect(result.stdout.contains("user_id:"))
        let store = try openStore(url: database.url)
        defer { store.close() }
        let user = try #require(try store.user(email: "bo@example.com"))
        #expect(PasswordHasher().verify("long enough to be kept", against: user.passwordHash))
    }

    @Test func duplicateEmailInAnyCaseFails() throws {
        let database = try CLIDatabase()
        let first = try database.portico(
            ["user", "add", "--email", "cy@example.com", "--name", "Cy", "--password-stdin"],
            stdin: "a first long password\n")
        #expect(first.status == 0)
        let second = try database.portico(
            ["user", "add", "--email", "CY@Example.COM", "--name", "Cy 2", "--password-stdin"],
            stdin: "a second long password\n")
        #expect(second.status == 1)
        #expect(second.stderr.hasPrefix("portico: "))
        #expect(second.stderr.contains("already exists"))
        #expect(second.stderr.split(separator: "\n").count == 1)
    }

    @Test(arguments: [
        (["--email", "a@example.com", "--name", "A", "--password-stdin"], "", "no password"),
        (["--email", "a@example.com", "--name", "A", "--password-stdin"], "\n", "no password"),
        (["--email", "a@example.com", "--name", "A", "--password-stdin"], "short\n", "at least 15 characters"),
        (["--email", "a@example.com", "--name", "A"], "password-1\n", "needs --password-stdin"),
        (["--email", "not-an-address", "--name", "A", "--password-stdin"], "password-1\n", "not an e-mail address"),
        (["--email", "a@localhost", "--name", "A", "--password-stdin"], "password-1\n", "not an e-mail address"),
        (["--email", "a b@example.com", "--name", "A", "--password-stdin"], "password-1\n", "not an e-mail address"),
        (["--name", "A", "--password-stdin"], "password-1\n", "needs --email"),
        (["--email", "a@example.com", "--password-stdin"], "password-1\n", "needs --name"),
        (
            ["--email", "a@example.com", "--name", "A", "--postal-code", "<b>", "--password-stdin"], "password-1\n",
            "postal code"
        ),
    ])
    func invalidInputGivesOneLineAndExitTwo(arguments: [String], stdin: String, message: String) throws {
        let database = try CLIDatabase()
        let result = try database.portico(["user", "add"] + arguments, stdin: stdin)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("portico: "))
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stdout.isEmpty)
    }
}
