// Internal parsers need `@testable import`, which only a debug build or the fuzz build
// (`-enable-testing -DPORTICO_FUZZING`, fuzz/run) allows: a release build leaves these out.
#if DEBUG || PORTICO_FUZZING
    import Foundation
    import PorticoCrypto
    import PorticoStore
    import PorticoStoreSQLite

    @testable import PorticoServer

    /// Targets for the identity provider's parsers: stored password hashes, redirect URIs, user
    /// codes, database URLs and sealed pending requests.
    enum ServerTargets {
        /// A PHC string: parsed strictly and bounded; one that parses with small costs is also
        /// verified (a wrong password never matches), since verification reads salt and hash.
        static func phc(_ bytes: [UInt8]) {
            let text = String(decoding: bytes, as: UTF8.self)
            let hasher = PasswordHasher()
            guard let parameters = PHCParameters(text) else {
                FuzzFailure.check(hasher.needsRehash(text), "an unreadable hash does not need a rehash")
                FuzzFailure.check(!hasher.verify("password", against: text), "an unreadable hash verified")
                return
            }
            FuzzFailure.check(parameters.memoryKiB <= PasswordHasher.maximumMemoryKiB, "memory not bounded")
            if parameters.memoryKiB <= 256, parameters.iterations <= 2, parameters.parallelism <= 2 {
                _ = hasher.verify("not the password \(bytes.count)", against: text)
            }
        }

        private static let confidential = Client(
            id: "confidential", name: "Confidential", type: .confidential, secret: "secret",
            redirectURIs: ["https://app.example/callback", "http://127.0.0.1/callback", "http://localhost:9000/cb?x=1"])
        private static let publicClient = Client(
            id: "public", name: "Public", type: .public,
            redirectURIs: ["com.example.app:/callback", "http://[::1]/cb", "http://127.0.0.1:8080/"])

        /// Redirect URI resolution: whatever is accepted is registered (or the same loopback URI on
        /// another port), has no fragment, and a confidential client never gets a custom scheme.
        static func redirectURI(_ bytes: [UInt8]) {
            let requested = String(decoding: bytes, as: UTF8.self)
            for client in [confidential, publicClient] {
                guard let resolved = try? RedirectURIPolicy.resolve(requested, for: client) else { continue }
                FuzzFailure.check(RedirectURIPolicy.sameBytes(resolved, requested), "resolved to another URI")
                FuzzFailure.check(!resolved.contains("#"), "a fragment was accepted")
                FuzzFailure.check(
                    client.redirectURIs.contains {
                        RedirectURIPolicy.sameBytes(resolved, $0)
                            || (client.type == .public
                                && RedirectURIPolicy.matchesOnAnotherPort(resolved, registered: $0))
                    },
                    "an unregistered URI was accepted")
                if client.type == .confidential {
                    let lowered = resolved.lowercased()
                    FuzzFailure.check(
                        lowered.hasPrefix("https:") || lowered.hasPrefix("http:"),
                        "custom scheme for a confidential client"
                    )
                }
            }
            // A URI registered with another client must not match.
            FuzzFailure.check(
                !RedirectURIPolicy.matchesOnAnotherPort(requested, registered: "https://app.example/callback"),
                "a non-loopback URI matched on another port")
        }

        /// User codes as typed: normalizing keeps only A–Z and 0–9, is idempotent, and formatting
        /// normalizes to the same code.
        static func userCode(_ bytes: [UInt8]) {
            let text = String(decoding: bytes, as: UTF8.self)
            let normalized = DeviceAuthorization.normalizedUserCode(text)
            FuzzFailure.check(
                normalized.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("0"..."9").contains($0) },
                "normalized code has other characters: \(normalized)")
            FuzzFailure.check(DeviceAuthorization.normalizedUserCode(normalized) == normalized, "not idempotent")
            FuzzFailure.check(
                DeviceAuthorization.normalizedUserCode(UserCode.formatted(text)) == normalized,
                "formatting changed the code")
        }

        /// `--database` URLs: parsed or refused with an error; a parsed URL's description parses
        /// back to the same URL.
        static func databaseURL(_ bytes: [UInt8]) {
            _ = backendRegistered
            let text = String(decoding: bytes, as: UTF8.self)
            guard let url = try? DatabaseURL(parsing: text) else { return }
            if let path = SQLiteBackend.path(of: url) {
                FuzzFailure.check(!path.isEmpty && !path.contains("\u{0}"), "bad SQLite path accepted")
            }
            FuzzFailure.check((try? DatabaseURL(parsing: url.description)) == url, "description does not parse back")
        }

        /// The backend whose URLs the target parses, registered once.
        static let backendRegistered: Void = StoreBackends.register(SQLiteBackend())

        /// The key ring seals are signed with: an in-memory store's fresh keys.
        static let keys: KeyRing? = (try? SQLiteStore(path: ":memory:")).flatMap { try? KeyRing(store: $0) }
        private static let now = Date(timeIntervalSince1970: 1_800_000_000)

        /// Sealed pending requests. Input starting with `e` is opened as a token: it is refused, or
        /// it is a request that seals and opens again to itself. Any other input is cut at NUL
        /// bytes into a request's fields: sealed and opened, it comes back unchanged.
        static func sealedRequest(_ bytes: [UInt8]) {
            guard let keys else {
                FuzzFailure.check(false, "no key ring")
                return
            }
            if bytes.first == UInt8(ascii: "e") {
                let token = String(decoding: bytes, as: UTF8.self)
                guard let request = try? PendingRequestSeal.open(token, keys: keys, now: now) else { return }
                roundTrip(request, keys: keys)
                return
            }
            var fields = bytes.split(separator: 0, omittingEmptySubsequences: false).map {
                String(decoding: $0, as: UTF8.self)
            }[...]
            func next() -> String { fields.popFirst() ?? "" }
            func optional() -> String? {
                let field = next()
                return field.isEmpty ? nil : field
            }
            let issuedAt = now.addingTimeInterval(-60)
            let request = AuthorizationRequest(
                id: next(), clientID: next(), redirectURI: next(), scopes: ScopeCatalog.parse(next()),
                state: optional(),
                nonce: optional(), codeChallenge: next(),
                prompts: Set(next().split(separator: " ").compactMap { Prompt(rawValue: String($0)) }),
                loginHint: optional(), authenticatedSince: optional().map { _ in issuedAt },
                language: PageLanguage(rawValue: next()), issuedAt: issuedAt,
                expiresAt: issuedAt.addingTimeInterval(PendingRequestSeal.lifetime), deviceUserCode: optional())
            roundTrip(request, keys: keys)
        }

        private static func roundTrip(_ request: AuthorizationRequest, keys: KeyRing) {
            guard let seal = PendingRequestSeal.seal(request, keys: keys) else {
                FuzzFailure.check(false, "sealing failed")
                return
            }
            let opened: AuthorizationRequest
            do {
                opened = try PendingRequestSeal.open(seal, keys: keys, now: now)
            } catch {
                // A request too big for a token is refused on opening, never half-read.
                FuzzFailure.check(
                    seal.utf8.count > JWSVerifier.maximumTokenLength, "a fresh seal did not open: \(error)")
                return
            }
            FuzzFailure.check(opened == request, "the request changed: \(request) vs \(opened)")
        }
    }
#endif
