import Foundation

/// What `portico-bench-seed` is asked to create, read from its command line.
///
/// Why a type: the benchmark script passes a handful of counts, and a bad one must stop the
/// run with one clear line instead of seeding something the figures would then misdescribe.
struct SeedOptions {
    /// The usage text printed for `--help` and after a usage error.
    static let usage = """
        usage: portico-bench-seed --database sqlite:PATH|postgres://… --out DIR [--users N] [--families N]
                                  [--codes N] [--spare-codes N] [--refresh-tokens N]
                                  [--openid-refresh-tokens N] [--es256-codes N] [--sso-codes N]
                                  [--hash-samples N]
               portico-bench-seed --time-hashes N
               portico-bench-seed --time-rs256 SECONDS

        Seeds a Portico database for bench/idp/run.sh through the store, in large
        transactions: a confidential client allowed every grant, N users sharing one
        precomputed Argon2id hash (default costs), N background refresh-token families,
        and pre-minted authorization codes (scope openid profile, one PKCE verifier) and
        refresh tokens that the load scripts use once each. Writes into DIR:
          seed.env          client id and secret, redirect URI, PKCE verifier, password,
                            and HASH_MS, the measured milliseconds per Argon2id hash
          codes.txt         one authorization code per line (--codes)
          spare-codes.txt   more codes, for pre-steps that need tokens (--spare-codes)
          refresh.txt       one refresh token per line, each the head of its own family
                            with scope profile (a rotation issues an access token only)
          refresh-openid.txt  the same with scope openid profile (a rotation also signs an
                            RS256 ID token) (--openid-refresh-tokens)
          codes-es256.txt   codes like codes.txt for a second client whose ID tokens are
                            ES256 (CLIENT_ID_ES256 / CLIENT_SECRET_ES256 in seed.env), to
                            tell Portico's own cost from RSA's (--es256-codes)
          codes-sso.txt     codes of the SSO group's first app, whose people allowed it
                            openid profile device_sso (--sso-codes)

        --time-hashes N only times N Argon2id hashes at the default costs and prints
        HASH_MS=<median milliseconds>, touching no database (run.sh measures just before
        the sign-in scenario, so that the ceiling reflects the machine at that moment).

        --time-rs256 SECONDS only signs RS256 ID tokens with the server's own code (JWS.sign,
        one shared RSA-2048 key) on every core at once for SECONDS, and prints
        RS256_SIGNS_PER_CORE=<signatures per CPU-second of one thread>, touching no database.
        """

    /// The `sqlite:PATH` database to seed (migrated on opening).
    var databaseURL = ""
    /// Where the token files and `seed.env` go.
    var outputDirectory = ""
    /// People to create: `user<i>@bench.example`.
    var users = 1_000
    /// Refresh-token families to create for scale only; their tokens are not written out.
    var families = 1_000
    /// Authorization codes for the redemption scenario.
    var codes = 0
    /// Authorization codes for pre-steps (minting access tokens).
    var spareCodes = 0
    /// Refresh tokens (each in a family of its own, scope `profile`) for the rotation scenario.
    var refreshTokens = 0
    /// Refresh tokens whose families have `openid profile`, so each rotation signs an ID token.
    var openIDRefreshTokens = 0
    /// Authorization codes for the second client, whose ID tokens are ES256.
    var es256Codes = 0
    /// Codes (scope `openid profile device_sso`) of the first app of an SSO group, redeemed by
    /// a pre-step for the ID tokens and device secrets the Native SSO exchange sends.
    var ssoCodes = 0
    /// How many Argon2id hashes to time for `HASH_MS` (the median is reported).
    var hashSamples = 5
    /// With `--time-hashes N`: only time N hashes and print the median.
    var timeHashesOnly: Int?
    /// With `--time-rs256 SECONDS`: only time the server's RS256 signing on every core.
    var timeRS256Only: Int?

    /// Problems with the command line.
    enum Problem: Error, CustomStringConvertible {
        /// The caller asked for the usage text.
        case help
        /// A flag is unknown, lacks its value, or has a bad one.
        case usage(String)

        var description: String {
            switch self {
            case .help: SeedOptions.usage
            case .usage(let message): "portico-bench-seed: \(message)"
            }
        }
    }

    /// Parses `arguments` (without the program name).
    init(arguments: [String]) throws(Problem) {
        var remaining = arguments[...]
        while let flag = remaining.popFirst() {
            if flag == "--help" || flag == "-h" { throw .help }
            guard let value = remaining.popFirst() else { throw .usage("\(flag) needs a value") }
            switch flag {
            case "--database": databaseURL = value
            case "--out": outputDirectory = value
            case "--users": users = try Self.count(value, flag: flag, minimum: 1)
            case "--families": families = try Self.count(value, flag: flag, minimum: 0)
            case "--codes": codes = try Self.count(value, flag: flag, minimum: 0)
            case "--spare-codes": spareCodes = try Self.count(value, flag: flag, minimum: 0)
            case "--refresh-tokens": refreshTokens = try Self.count(value, flag: flag, minimum: 0)
            case "--openid-refresh-tokens": openIDRefreshTokens = try Self.count(value, flag: flag, minimum: 0)
            case "--es256-codes": es256Codes = try Self.count(value, flag: flag, minimum: 0)
            case "--sso-codes": ssoCodes = try Self.count(value, flag: flag, minimum: 0)
            case "--hash-samples": hashSamples = try Self.count(value, flag: flag, minimum: 1)
            case "--time-hashes": timeHashesOnly = try Self.count(value, flag: flag, minimum: 1)
            case "--time-rs256": timeRS256Only = try Self.count(value, flag: flag, minimum: 1)
            default: throw .usage("unknown option \(flag)")
            }
        }
        if timeHashesOnly != nil || timeRS256Only != nil { return }
        guard ["sqlite:", "postgres://", "postgresql://"].contains(where: databaseURL.hasPrefix) else {
            throw .usage("--database sqlite:PATH or postgres://… is required")
        }
        guard !outputDirectory.isEmpty else { throw .usage("--out DIR is required") }
    }

    private static func count(_ text: String, flag: String, minimum: Int) throws(Problem) -> Int {
        guard let number = Int(text), number >= minimum, number <= 100_000_000 else {
            throw .usage("\(flag) must be a whole number from \(minimum) to 100000000, not '\(text)'")
        }
        return number
    }
}
