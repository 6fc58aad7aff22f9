import PorticoServer

/// `portico user add`: creates a platform account, reading its password from stdin.
///
/// The password never appears on the command line, where `ps` and shell history would keep it.
enum UserCommand {
    static let summary = "create platform accounts"
    static let usage = """
        usage: portico user add --email E --name N [--postal-code P] --password-stdin [--json]
                                [--database URL]

        Creates an account people sign in with. The password is the first line of standard
        input (at least 8 characters), e.g. `printf '%s\\n' "$PASSWORD" | portico user add ...`;
        it is stored only as an Argon2id hash. E-mail addresses are unique in any letter case.

          --email E         the address to sign in with
          --name N          the name apps see under the profile scope
          --postal-code P   shared under the postal_code scope
          --password-stdin  read the password from standard input (required)
          --json            print {"user_id": "..."}
          --database URL    sqlite:PATH or postgres://user@host:port/db
                            (PORTICO_DATABASE, default sqlite:./portico-data/portico.db)
        """

    static func run(_ arguments: inout Arguments, environment: [String: String]) throws {
        let url = try DatabaseOption.url(&arguments, environment: environment)
        _ = try Subcommand.action(&arguments, command: "user", actions: ["add"])
        guard let email = try arguments.value("email") else { throw CommandLineError.usage("user add needs --email E") }
        guard let name = try arguments.value("name") else { throw CommandLineError.usage("user add needs --name N") }
        let postalCode = try arguments.value("postal-code")
        guard arguments.flag("password-stdin") else {
            throw CommandLineError.usage(
                "user add needs --password-stdin: the password is read from standard input, never from arguments")
        }
        let json = arguments.flag("json")
        try arguments.finish()

        guard let password = readLine(strippingNewline: true), !password.isEmpty else {
            throw CommandLineError.usage("no password on standard input (--password-stdin reads its first line)")
        }
        let registration = UserRegistration(email: email, name: name, postalCode: postalCode, password: password)
        let store = try DatabaseOption.open(url)
        defer { store.close() }
        let user = try performing { () throws(AdminError) in try registration.register(in: store) }
        if json {
            print(JSONLine.object([("user_id", user.id)]))
        } else {
            print("Created user \(user.email) (\(user.name))")
            print("user_id: \(user.id)")
        }
    }
}
