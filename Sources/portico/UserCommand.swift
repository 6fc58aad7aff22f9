import Foundation
import PorticoServer
import PorticoStore

/// `portico user add | list | disable | enable | remove`: platform accounts.
///
/// The password never appears on the command line, where `ps` and shell history would keep it.
enum UserCommand {
    static let summary = "create, list, disable and remove platform accounts"
    static let usage = """
        usage: portico user add --email E --name N [--postal-code P] --password-stdin
                                [--email-verified] [--json] [--database URL]
               portico user list [--json] [--database URL]
               portico user disable ID|EMAIL [--reason hijacking|bulk-account] [--database URL]
               portico user enable ID|EMAIL [--database URL]
               portico user update ID|EMAIL [--name N] [--email E] [--database URL]
               portico user remove ID|EMAIL [--database URL]
               portico user admin ID|EMAIL --on|--off [--database URL]

        add      creates an account people sign in with. The password is the first line of
                 standard input, under the sign-up page's rules (15 to 128 characters, not
                 a common password, not the address or name), e.g.
                 `printf '%s\\n' "$PASSWORD" | portico user add ...`; it is stored only as an
                 Argon2id hash. E-mail addresses are unique in any letter case.
                   --email E         the address to sign in with
                   --name N          the name apps see under the profile scope
                   --postal-code P   shared under the postal_code scope
                   --password-stdin  read the password from standard input (required)
                   --email-verified  you know the person receives mail at E: apps see
                                     email_verified true (default false until the person
                                     follows a mailed link, such as a password reset)
                   --json            print {"user_id": "..."}
        list     shows every account: id, e-mail address, name, and whether it is disabled
                   --json            a JSON array of {"user_id", "email", "name", "disabled",
                                     "created"}
        disable  refuses sign-in (with the same message as a wrong password), ends the
                 account's sessions, and refuses its refresh and access tokens until enabled;
                 apps with a Shared Signals stream hear RISC account-disabled
                   --reason R        hijacking or bulk-account, told to those apps
        enable   undoes disable
        update   changes the name and/or e-mail address (a new address is unverified);
                 apps with a Shared Signals stream hear token-claims-change (and
                 identifier-changed for a new address)
        remove   deletes the account and its personal data, ends its sessions, revokes its
                 refresh tokens and consents; an audit event records the id only
        admin    --on lets the person open the operator's list of every app in the
                 developer console (/developer/operator); --off takes it away

          --database URL    sqlite:PATH or postgres://user@host:port/db
                            (PORTICO_DATABASE, default \(DatabaseOption.defaultURL))
        """

    static func run(_ arguments: inout Arguments, environment: [String: String]) throws {
        let url = try DatabaseOption.url(&arguments, environment: environment)
        switch try Subcommand.action(
            &arguments, command: "user", actions: ["add", "list", "disable", "enable", "update", "remove", "admin"])
        {
        case "add": try add(&arguments, database: url)
        case "list": try list(&arguments, database: url)
        case "disable": try setDisabled(true, &arguments, database: url)
        case "enable": try setDisabled(false, &arguments, database: url)
        case "update": try update(&arguments, database: url)
        case "admin": try setAdmin(&arguments, database: url)
        default: try remove(&arguments, database: url)
        }
    }

    private static func add(_ arguments: inout Arguments, database url: String) throws {
        guard let email = try arguments.value("email") else { throw CommandLineError.usage("user add needs --email E") }
        guard let name = try arguments.value("name") else { throw CommandLineError.usage("user add needs --name N") }
        let postalCode = try arguments.value("postal-code")
        guard arguments.flag("password-stdin") else {
            throw CommandLineError.usage(
                "user add needs --password-stdin: the password is read from standard input, never from arguments")
        }
        let verified = arguments.flag("email-verified")
        let json = arguments.flag("json")
        try arguments.finish()

        guard let password = readLine(strippingNewline: true), !password.isEmpty else {
            throw CommandLineError.usage("no password on standard input (--password-stdin reads its first line)")
        }
        let registration = UserRegistration(
            email: email, name: name, postalCode: postalCode, password: password, isEmailVerified: verified)
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

    private static func list(_ arguments: inout Arguments, database url: String) throws {
        let json = arguments.flag("json")
        try arguments.finish()
        let store = try DatabaseOption.open(url)
        defer { store.close() }
        let users = try performing { () throws(AdminError) in try UserAdministration.list(in: store) }
        let formatter = ISO8601DateFormatter()
        if json {
            let objects = users.map { user in
                "{\"user_id\": \(JSONLine.quoted(user.id)), \"email\": \(JSONLine.quoted(user.email)), "
                    + "\"name\": \(JSONLine.quoted(user.name)), \"disabled\": \(user.isDisabled), "
                    + "\"created\": \(JSONLine.quoted(formatter.string(from: user.createdAt)))}"
            }
            print("[" + objects.joined(separator: ", ") + "]")
            return
        }
        guard !users.isEmpty else {
            print("no users yet; add one with 'portico user add'")
            return
        }
        let idWidth = max(7, users.map(\.id.count).max() ?? 7)
        let emailWidth = max(5, users.map(\.email.count).max() ?? 5)
        print(["USER_ID".padded(idWidth), "EMAIL".padded(emailWidth), "STATUS  ", "NAME"].joined(separator: "  "))
        for user in users {
            print(
                [
                    user.id.padded(idWidth), user.email.padded(emailWidth),
                    (user.isDisabled ? "disabled" : "active").padded(8), user.name,
                ].joined(separator: "  "))
        }
    }

    private static func setDisabled(_ disabled: Bool, _ arguments: inout Arguments, database url: String) throws {
        let verb = disabled ? "disable" : "enable"
        guard let reference = arguments.positional() else {
            throw CommandLineError.usage("user \(verb) needs a user ID or e-mail address")
        }
        let reason = disabled ? try arguments.value("reason") : nil
        try arguments.finish()
        let store = try DatabaseOption.open(url)
        defer { store.close() }
        let change = try performing { () throws(AdminError) in
            try UserAdministration.setDisabled(disabled, reference: reference, reason: reason, in: store)
        }
        let who = "\(change.user.email) (\(change.user.id))"
        if change.unchanged {
            print("user \(who) was already \(disabled ? "disabled" : "enabled")")
        } else if disabled {
            print("disabled user \(who); ended \(change.sessionsEnded) session(s)")
        } else {
            print("enabled user \(who)")
        }
    }

    private static func setAdmin(_ arguments: inout Arguments, database url: String) throws {
        guard let reference = arguments.positional() else {
            throw CommandLineError.usage("user admin needs a user ID or e-mail address")
        }
        let on = arguments.flag("on")
        let off = arguments.flag("off")
        guard on != off else { throw CommandLineError.usage("user admin needs exactly one of --on and --off") }
        try arguments.finish()
        let store = try DatabaseOption.open(url)
        defer { store.close() }
        let outcome = try performing { () throws(AdminError) in
            try OperatorGrant.set(on, reference: reference, in: store)
        }
        let who = "\(outcome.user.email) (\(outcome.user.id))"
        if !outcome.changed {
            print("user \(who) already was\(on ? "" : " not") an operator")
        } else {
            print(on ? "user \(who) is now an operator" : "user \(who) is no longer an operator")
        }
    }

    private static func update(_ arguments: inout Arguments, database url: String) throws {
        guard let reference = arguments.positional() else {
            throw CommandLineError.usage("user update needs a user ID or e-mail address")
        }
        let name = try arguments.value("name")
        let email = try arguments.value("email")
        try arguments.finish()
        let store = try DatabaseOption.open(url)
        defer { store.close() }
        let user = try performing { () throws(AdminError) in
            try UserProfileChange.update(reference, name: name, email: email, in: store)
        }
        print("updated user \(user.id): \(user.name) <\(user.email)>")
    }

    private static func remove(_ arguments: inout Arguments, database url: String) throws {
        guard let reference = arguments.positional() else {
            throw CommandLineError.usage("user remove needs a user ID or e-mail address")
        }
        try arguments.finish()
        let store = try DatabaseOption.open(url)
        defer { store.close() }
        let removal = try performing { () throws(AdminError) in try UserAdministration.remove(reference, in: store) }
        print(
            "removed user \(removal.userID): ended \(removal.sessions) session(s), revoked "
                + "\(removal.refreshFamilies) refresh token family(ies) and \(removal.consents) consent(s)")
    }
}
