import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore

/// Fills a fresh database with what the identity-provider benchmark needs, through the store.
///
/// Why through the store and not SQL: the rows must be exactly what Portico writes (hashed
/// secrets, scope lists, timestamps), so the store's own insert operations are used, many to a
/// transaction so that a million rows take seconds rather than hours; people and refresh
/// families go through the bulk inserts (``BulkLoadStorage``: multi-row INSERTs on PostgreSQL). Every person shares one
/// Argon2id hash computed once with the default costs, so that signing in never triggers a
/// rehash and seeding never pays a million hashes.
struct Seeder {
    /// Rows per write transaction.
    static let batchSize = 25_000
    /// The client's redirect URI (loopback http, which the registration rules allow).
    static let redirectURI = "http://127.0.0.1:9/callback"
    /// Every person's password.
    static let password = "bench-password-1"
    /// People are `user<i>@` this domain, from 0.
    static let emailDomain = "bench.example"
    /// The product scope the client-credentials scenario asks for.
    static let productScope = "bench.read"
    /// The token exchange grant (RFC 8693): the narrowing and Native SSO scenarios.
    static let tokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
    /// The scopes of the Native SSO apps and their codes.
    static let ssoScopes = ["openid", "profile", "device_sso"]
    /// The scopes of pre-minted codes, background families and `refresh-openid.txt` families.
    static let grantedScopes = ["openid", "profile"]
    /// The scopes of `refresh.txt` families: without `openid`, a rotation issues an access
    /// token and a refresh token but no ID token (no RS256 signature).
    static let rotationScopes = ["profile"]
    /// How long pre-minted codes stay redeemable: far beyond the 60 s of real codes, because
    /// they are minted before the run rather than by a browser a moment before redemption.
    static let codeLifetime: TimeInterval = 6 * 3600

    let options: SeedOptions
    let store: any Store
    /// Progress lines go here (stderr), so stdout stays quiet.
    let log: (String) -> Void

    /// The file names inside the output directory.
    enum Output {
        static let environment = "seed.env"
        static let codes = "codes.txt"
        static let spareCodes = "spare-codes.txt"
        static let refreshTokens = "refresh.txt"
        static let openIDRefreshTokens = "refresh-openid.txt"
        static let es256Codes = "codes-es256.txt"
        static let ssoCodes = "codes-sso.txt"
    }

    /// Seeds everything and writes the output files.
    func run() throws {
        let directory = URL(fileURLWithPath: options.outputDirectory, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard try store.read({ try $0.user(email: Self.email(0)) }) == nil else {
            throw SeedError.alreadySeeded
        }

        let (passwordHash, hashMilliseconds) = try timedPasswordHash()
        log(
            String(
                format: "argon2id (m=19456,t=2,p=1): %.1f ms per hash (median of %d)", hashMilliseconds,
                options.hashSamples))

        let clientSecret = SecureRandom.token()
        var client = Client(
            name: "Portico Bench", type: .confidential, secret: clientSecret, redirectURIs: [Self.redirectURI],
            allowedScopes: ["openid", "profile", "email", "postal_code", Self.productScope],
            allowedGrantTypes: ["authorization_code", "refresh_token", "client_credentials", Self.tokenExchange])
        // The introspection benchmark asks as this client, so it is a resource server too.
        client.mayIntrospect = true
        // The same client once more, but with ES256 ID tokens: redeeming its codes shows what
        // the server does when an RSA signature is not the cost of every request.
        let es256Secret = SecureRandom.token()
        let es256Client = Client(
            name: "Portico Bench ES256", type: .confidential, secret: es256Secret, redirectURIs: [Self.redirectURI],
            allowedScopes: client.allowedScopes, allowedGrantTypes: client.allowedGrantTypes,
            idTokenSigningAlgorithm: "ES256")
        // Two apps of one vendor for Native SSO: people sign in to the first (codes-sso.txt), the
        // second exchanges that sign-in.
        let ssoSecret = SecureRandom.token()
        var ssoFirst = Client(
            name: "Portico Bench Mail", type: .confidential, secret: ssoSecret, redirectURIs: [Self.redirectURI],
            allowedScopes: Self.ssoScopes,
            allowedGrantTypes: ["authorization_code", "refresh_token", Self.tokenExchange])
        ssoFirst.ssoGroup = "bench-vendor"
        var ssoSecond = Client(
            name: "Portico Bench Calendar", type: .confidential, secret: ssoSecret, redirectURIs: [Self.redirectURI],
            allowedScopes: Self.ssoScopes, allowedGrantTypes: ssoFirst.allowedGrantTypes)
        ssoSecond.ssoGroup = "bench-vendor"
        try store.transaction { transaction in
            try transaction.insert(ssoFirst)
            try transaction.insert(ssoSecond)
            if try transaction.productScope(name: Self.productScope) == nil {
                try transaction.insert(
                    ProductScope(name: Self.productScope, description: "Read the benchmark's resources"))
            }
            try transaction.insert(client)
            try transaction.insert(es256Client)
        }

        let userIDs = try timed("users", count: options.users) { try insertUsers(passwordHash: passwordHash) }
        try timed("background refresh families", count: options.families) {
            _ = try insertRefreshFamilies(
                options.families, scopes: Self.grantedScopes, clientID: client.id, userIDs: userIDs)
        }
        let refreshTokens = try timed("refresh tokens to rotate", count: options.refreshTokens) {
            try insertRefreshFamilies(
                options.refreshTokens, scopes: Self.rotationScopes, clientID: client.id, userIDs: userIDs)
        }
        let openIDRefreshTokens = try timed("openid refresh tokens to rotate", count: options.openIDRefreshTokens) {
            try insertRefreshFamilies(
                options.openIDRefreshTokens, scopes: Self.grantedScopes, clientID: client.id, userIDs: userIDs)
        }
        let verifier = SecureRandom.token()
        let challenge = PKCE.challenge(for: verifier)
        let codes = try timed("authorization codes", count: options.codes + options.spareCodes) {
            try insertCodes(
                options.codes + options.spareCodes, clientID: client.id, challenge: challenge, userIDs: userIDs)
        }

        let es256Codes = try timed("authorization codes, ES256 ID tokens", count: options.es256Codes) {
            try insertCodes(options.es256Codes, clientID: es256Client.id, challenge: challenge, userIDs: userIDs)
        }

        let ssoCodes = try timed("authorization codes, Native SSO", count: options.ssoCodes) {
            try insertCodes(
                options.ssoCodes, clientID: ssoFirst.id, challenge: challenge, userIDs: userIDs,
                scopes: Self.ssoScopes, consent: true)
        }

        try write(lines: codes.prefix(options.codes), to: directory.appendingPathComponent(Output.codes))
        try write(lines: ssoCodes[...], to: directory.appendingPathComponent(Output.ssoCodes))
        try write(lines: es256Codes[...], to: directory.appendingPathComponent(Output.es256Codes))
        try write(lines: codes.dropFirst(options.codes), to: directory.appendingPathComponent(Output.spareCodes))
        try write(lines: refreshTokens[...], to: directory.appendingPathComponent(Output.refreshTokens))
        try write(
            lines: openIDRefreshTokens[...], to: directory.appendingPathComponent(Output.openIDRefreshTokens))
        let environment = [
            "CLIENT_ID=\(client.id)",
            "CLIENT_SECRET=\(clientSecret)",
            "CLIENT_ID_ES256=\(es256Client.id)",
            "CLIENT_SECRET_ES256=\(es256Secret)",
            "SSO_FIRST_ID=\(ssoFirst.id)",
            "SSO_SECOND_ID=\(ssoSecond.id)",
            "SSO_SECRET=\(ssoSecret)",
            "REDIRECT_URI=\(Self.redirectURI)",
            "CODE_VERIFIER=\(verifier)",
            "PRODUCT_SCOPE=\(Self.productScope)",
            "PASSWORD=\(Self.password)",
            "EMAIL_DOMAIN=\(Self.emailDomain)",
            "USERS=\(options.users)",
            "FAMILIES=\(options.families)",
            String(format: "HASH_MS=%.2f", hashMilliseconds),
        ]
        try write(lines: environment[...], to: directory.appendingPathComponent(Output.environment))
    }

    /// The address of person `index`.
    static func email(_ index: Int) -> String {
        "user\(index)@\(emailDomain)"
    }

    /// One hash of the shared password (the one stored for everybody) and the median time of
    /// `hashSamples` hashes with the default costs, in milliseconds.
    private func timedPasswordHash() throws -> (String, Double) {
        try Self.timedPasswordHash(samples: options.hashSamples)
    }

    /// One hash of the shared password and the median time of `count` hashes with the
    /// default costs (m=19456 KiB, t=2, p=1), in milliseconds.
    static func timedPasswordHash(samples count: Int) throws -> (String, Double) {
        let hasher = PasswordHasher(settings: .standard)
        var hash = ""
        var samples: [Double] = []
        let clock = ContinuousClock()
        for _ in 0..<max(1, count) {
            let started = clock.now
            hash = try hasher.hash(password)
            samples.append(Self.milliseconds(clock.now - started))
        }
        samples.sort()
        return (hash, samples[samples.count / 2])
    }

    private func insertUsers(passwordHash: String) throws -> [String] {
        var ids: [String] = []
        ids.reserveCapacity(options.users)
        let now = Date()
        try inBatches(options.users) { transaction, range in
            let users = range.map { index in
                UserRecord(
                    email: Self.email(index), name: "Bench User \(index)", postalCode: "98109",
                    passwordHash: passwordHash, createdAt: now)
            }
            try transaction.insert(users: users)
            ids += users.map(\.id)
        }
        return ids
    }

    /// Inserts `count` families with `scopes` and one live token each, and returns the tokens.
    private func insertRefreshFamilies(_ count: Int, scopes: [String], clientID: String, userIDs: [String]) throws
        -> [String]
    {
        var tokens: [String] = []
        tokens.reserveCapacity(count)
        let now = Date()
        let expiry = now.addingTimeInterval(30 * 24 * 3600)
        try inBatches(count) { transaction, range in
            let starts = range.map { index in
                let family = RefreshFamily(
                    clientID: clientID, userID: userIDs[index % userIDs.count], scopes: scopes,
                    authTime: now, createdAt: now)
                return RefreshFamilyStart(
                    family: family, token: RefreshToken.mint(familyID: family.id), expiresAt: expiry)
            }
            try transaction.insert(families: starts)
            tokens += starts.map(\.token)
        }
        return tokens
    }

    /// Inserts `count` codes for `scopes`; with `consent`, each person also allowed them to the
    /// client (as the consent page would have recorded).
    private func insertCodes(
        _ count: Int, clientID: String, challenge: String, userIDs: [String], scopes: [String] = grantedScopes,
        consent: Bool = false
    ) throws -> [String] {
        var codes: [String] = []
        codes.reserveCapacity(count)
        let now = Date()
        try inBatches(count) { transaction, range in
            for index in range {
                let code = SecureRandom.token()
                let userID = userIDs[(index * 7919) % userIDs.count]
                if consent {
                    try transaction.saveConsent(userID: userID, clientID: clientID, scopes: Set(scopes), now: now)
                }
                try transaction.insert(
                    AuthorizationCode(
                        code: code, clientID: clientID, userID: userID,
                        redirectURI: Self.redirectURI, scopes: scopes, codeChallenge: challenge,
                        nonce: "bench-nonce", authTime: now, createdAt: now,
                        expiresAt: now.addingTimeInterval(Self.codeLifetime)))
                codes.append(code)
            }
        }
        return codes
    }

    /// Calls `body` with consecutive ranges of `0..<count`, one write transaction each.
    private func inBatches(_ count: Int, _ body: (any StoreTransaction, Range<Int>) throws -> Void) throws {
        var start = 0
        while start < count {
            let range = start..<min(count, start + Self.batchSize)
            try store.transaction { try body($0, range) }
            start = range.upperBound
        }
    }

    private func timed<T>(_ what: String, count: Int, _ body: () throws -> T) throws -> T {
        let clock = ContinuousClock()
        let started = clock.now
        let result = try body()
        let seconds = Self.milliseconds(clock.now - started) / 1000
        log(String(format: "%@: %d in %.1f s", what, count, seconds))
        return result
    }

    private func write(lines: ArraySlice<String>, to url: URL) throws {
        var text = lines.joined(separator: "\n")
        if !lines.isEmpty { text += "\n" }
        try Data(text.utf8).write(to: url)
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}

/// Why seeding stopped.
enum SeedError: Error, CustomStringConvertible {
    /// The database already has the benchmark's people; seeding needs a fresh one.
    case alreadySeeded

    var description: String {
        switch self {
        case .alreadySeeded: "the database is already seeded; point --database at a new file"
        }
    }
}
