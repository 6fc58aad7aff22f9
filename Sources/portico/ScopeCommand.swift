import PorticoServer

/// `portico scope add`: adds a product scope, like Login with Amazon's `AMZNScopeFactory`.
enum ScopeCommand {
    static let summary = "add product scopes for the platform's own APIs"
    static let usage = """
        usage: portico scope add NAME --description TEXT [--resource URI] [--database URL]

        Adds a product scope that apps may then be allowed (`client add --scope NAME`) and
        request; the consent page shows TEXT for it. NAME is a scope token (RFC 6749 §3.3):
        printable ASCII without spaces, quotes or backslashes, e.g. orders:read. Built-in
        names (openid, profile, ...) are taken.

          --description TEXT  what the scope lets an app do, in plain words
          --resource URI      the resource server that accepts it (RFC 8707): apps allowed
                              the scope may ask for access tokens meant for it
          --database URL      sqlite:PATH or postgres://user@host:port/db
                              (PORTICO_DATABASE, default \(DatabaseOption.defaultURL))
        """

    static func run(_ arguments: inout Arguments, environment: [String: String]) throws {
        let url = try DatabaseOption.url(&arguments, environment: environment)
        _ = try Subcommand.action(&arguments, command: "scope", actions: ["add"])
        guard let description = try arguments.value("description") else {
            throw CommandLineError.usage("scope add needs --description TEXT")
        }
        let resource = try arguments.value("resource")
        guard let name = arguments.positional() else { throw CommandLineError.usage("scope add needs a scope NAME") }
        try arguments.finish()
        let registration = ProductScopeRegistration(name: name, description: description, resource: resource)
        let store = try DatabaseOption.open(url)
        defer { store.close() }
        let scope = try performing { () throws(AdminError) in try registration.register(in: store) }
        print("added scope \(scope.name): \(scope.description)")
    }
}
