import Foundation
import PorticoStore
import PorticoStorePostgres
import PorticoStoreSQLite

/// One subcommand: its name, a line for `portico --help`, its own help, and what it does.
struct Command {
    let name: String
    let summary: String
    let usage: String
    let run: (inout Arguments, [String: String]) throws -> Void
}

/// The subcommands, in the order `portico --help` lists them.
let commands = [
    Command(name: "serve", summary: ServeCommand.summary, usage: ServeCommand.usage, run: ServeCommand.run),
    Command(name: "client", summary: ClientCommand.summary, usage: ClientCommand.usage, run: ClientCommand.run),
    Command(name: "user", summary: UserCommand.summary, usage: UserCommand.usage, run: UserCommand.run),
    Command(name: "scope", summary: ScopeCommand.summary, usage: ScopeCommand.usage, run: ScopeCommand.run),
    Command(
        name: "registration-token", summary: RegistrationTokenCommand.summary, usage: RegistrationTokenCommand.usage,
        run: RegistrationTokenCommand.run),
    Command(name: "keys", summary: KeysCommand.summary, usage: KeysCommand.usage, run: KeysCommand.run),
    Command(name: "migrate", summary: MigrateCommand.summary, usage: MigrateCommand.usage, run: MigrateCommand.run),
    Command(name: "backup", summary: BackupCommand.summary, usage: BackupCommand.usage, run: BackupCommand.run),
]

let overview = """
    usage: portico COMMAND [OPTIONS]

    Portico: "Login with <your platform>", an OAuth 2.1 / OpenID Connect identity provider.

    commands:
    \(commands.map { "  " + $0.name.padding(toLength: 10, withPad: " ", startingAt: 0) + $0.summary }.joined(separator: "\n"))

    Run 'portico COMMAND --help' for a command's options.
    """

// The backends `--database` may name, by URL scheme: one line each.
StoreBackends.register(SQLiteBackend())
StoreBackends.register(PostgresBackend())

var words = Array(CommandLine.arguments.dropFirst())
let environment = ProcessInfo.processInfo.environment

func fail(_ error: CommandLineError) -> Never {
    FileHandle.standardError.write(Data("portico: \(error.description)\n".utf8))
    exit(error.exitCode)
}

guard let name = words.first, !name.hasPrefix("-") else {
    if words.contains("--help") || words.contains("-h") {
        print(overview)
        exit(0)
    }
    if let first = words.first { fail(.usage("unknown option \(first); try 'portico --help'")) }
    FileHandle.standardError.write(Data((overview + "\n").utf8))
    exit(2)
}
guard let command = commands.first(where: { $0.name == name }) else {
    fail(.usage("unknown command '\(name)'; try 'portico --help'"))
}
var arguments = Arguments(Array(words.dropFirst()))
if arguments.wantsHelp {
    print(command.usage)
    exit(0)
}
do {
    try command.run(&arguments, environment)
} catch let error as CommandLineError {
    fail(error)
} catch {
    fail(.failure("\(error)"))
}
