/// The agent's `--help` texts.
enum AgentUsage {
    static let overview = """
        usage: portico-agent [--issuer URL] [--client-id ID] COMMAND

        The platform's signed-in companion on this computer: sign in once, and apps that sign in
        with Portico ask you only for consent here, never for your password again.

        commands:
          login [--device]   sign the agent in (in the browser, or with --device a code on another device)
          status [--json]    who is signed in, and whether the agent is serving
          logout             sign the agent out and revoke its tokens
          serve              answer apps on this computer (foreground; asks on the terminal if there is one)
          pending [--json]   consents waiting for you
          approve ID         allow a waiting consent
          deny ID            decline a waiting consent

        options:
          --issuer URL       the provider (default: $PORTICO_ISSUER, else http://127.0.0.1:8080)
          --client-id ID     the agent's companion client id (default: $PORTICO_AGENT_CLIENT_ID)
          -h, --help         show this help (portico-agent COMMAND --help for one command)

        Tokens are kept in $XDG_CONFIG_HOME/portico-agent (or ~/.config/portico-agent), readable by you
        only. Apps reach the agent over a socket in $XDG_RUNTIME_DIR/portico (else ~/.cache/portico).
        Exit status: 0 done, 1 failed, 2 a mistake on the command line.
        """

    static let commands: [String: String] = [
        "login": """
        usage: portico-agent [--issuer URL] [--client-id ID] login [--device]

        Signs the agent in with scope "openid companion": in your browser with a loopback
        redirect, or with --device by a code you enter on another device (for a computer
        without a browser). Shows who signed in.
        """,
        "status": """
        usage: portico-agent [--issuer URL] [--client-id ID] status [--json]

        Shows who is signed in to the agent and whether `serve` is running.
        --json prints {"issuer", "client_id", "signed_in", "name", "subject", "serving"}.
        """,
        "logout": """
        usage: portico-agent [--issuer URL] [--client-id ID] logout

        Revokes the agent's tokens at the provider and forgets them here; apps then sign in
        in the browser again.
        """,
        "serve": """
        usage: portico-agent [--issuer URL] [--client-id ID] serve [--consent-timeout SECONDS]

        Listens for apps on this computer until stopped (Ctrl-C, SIGTERM). A consent nobody
        answers within the time-out (120 s) ends as `timeout` for the app. On a terminal it
        also asks there (y/n); otherwise answer with `pending`, `approve` and `deny`.
        A systemd user unit: deploy/portico-agent.service.
        """,
        "pending": """
        usage: portico-agent [--issuer URL] pending [--json]

        Lists the consents waiting for you. --json prints
        [{"id", "client_id", "client_name", "kind": "consent"|"continue", "scopes": [...]}].
        """,
        "approve": """
        usage: portico-agent [--issuer URL] approve ID

        Allows the waiting consent ID (from `pending`): the app is signed in.
        """,
        "deny": """
        usage: portico-agent [--issuer URL] deny ID

        Declines the waiting consent ID (from `pending`): the app hears access_denied.
        """,
    ]
}
