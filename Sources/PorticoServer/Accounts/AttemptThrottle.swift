import Foundation
import PorticoHTTP
import PorticoStore

/// Rate limits on guessing: sign-in attempts per account and per address, password-reset
/// requests per address.
///
/// Attempts are rows in the shared store (``ThrottleAttempt``), so every node counts the same
/// attempts and a restart forgets nothing; the background purger deletes them once they no
/// longer count. The check and the counting happen in one write transaction *before* the
/// password is verified, so parallel requests cannot slip past a limit together; an attempt
/// that turns out to be no guess (a successful sign-in) is taken back afterwards. Refused
/// attempts are not counted, so an attacker cannot keep an account locked forever, and the
/// owner gets in again as soon as the window has passed.
struct AttemptThrottle: Sendable {
    /// One limit: at most `maximum` attempts under `key` within `window`.
    struct Limit: Sendable {
        /// What is counted (`sign-in:account:…`, `sign-in:address:…`).
        var key: String
        /// How many attempts the window holds before further ones are refused.
        var maximum: Int
        /// How far back attempts count.
        var window: TimeInterval
        /// Past `maximum`, whether attempts are spaced by a delay that doubles with each one
        /// (from this first delay up to ``maximumDelay``) instead of refused until the window
        /// has passed.
        var growingDelay: TimeInterval? = nil
    }

    /// The outcome of asking to make an attempt.
    enum Decision: Sendable {
        /// Go ahead; the attempt is counted under each limit's key (these rows).
        case allowed([ThrottleAttempt])
        /// Refused; the earliest a new attempt can be allowed is this many seconds away.
        case refused(retryAfter: TimeInterval)
    }

    /// Sign-in: 5 failures for one account within an hour, then growing delays.
    static let accountLimit = 5
    /// How far back an account's failures count.
    static let accountWindow: TimeInterval = 60 * 60
    /// The delay after the account's 5th failure; it doubles with each further one.
    static let firstAccountDelay: TimeInterval = 60
    /// The longest delay between two attempts on one account.
    static let maximumDelay: TimeInterval = 15 * 60
    /// Sign-in: 20 failures from one address within 15 minutes.
    static let addressLimit = 20
    /// Password-reset requests: 5 from one address within 15 minutes.
    static let resetRequestLimit = 5
    /// The window all three are counted in.
    static let window: TimeInterval = 15 * 60

    /// Where attempts are counted.
    let store: any Store
    /// The clock.
    let now: @Sendable () -> Date

    /// A throttle over `store` by the clock `now`.
    init(store: any Store, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.now = now
    }

    /// A throttle over the pages' store and clock.
    init(environment: PageEnvironment) {
        self.init(store: environment.store, now: environment.now)
    }

    /// The limits for a sign-in with `email` from `address`.
    ///
    /// The account's limit grows delays rather than locking: anyone who knows an address could
    /// keep a hard lock in place for ever with 5 guesses a window, while a delay lets the owner
    /// in as soon as it has passed, and still slows guessing to a few tries an hour (Keycloak's
    /// brute-force detection works this way: a wait that grows with each failure, capped). The
    /// address limit stays a hard one: it only ever holds back the guesser's own address.
    static func signInLimits(email: String, address: String) -> [Limit] {
        [
            Limit(
                key: "sign-in:account:" + storable(UserRecord.normalizedEmail(email)), maximum: accountLimit,
                window: accountWindow,
                growingDelay: firstAccountDelay),
            Limit(key: "sign-in:address:" + ThrottleAddress.bucket(address), maximum: addressLimit, window: window),
        ]
    }

    /// `text` as a throttle key can hold it on every backend: a NUL (which no account's address
    /// has, and PostgreSQL's text cannot hold) is written `\0`, so the attempt is still counted.
    static func storable(_ text: String) -> String {
        StoredText.canHold(text) ? text : text.replacingOccurrences(of: "\u{0}", with: "\\0")
    }

    /// Wrong passwords or codes on a signed-in person's account pages (`purpose` names the
    /// page): sign-in's account limit, 5 an hour, then growing delays, so a stolen session
    /// cannot guess the password that guards a change.
    static func accountPageLimits(purpose: String, userID: String) -> [Limit] {
        [
            Limit(
                key: purpose + ":account:" + userID, maximum: accountLimit, window: accountWindow,
                growingDelay: firstAccountDelay)
        ]
    }

    /// Sign-ups: 20 from one address within 15 minutes, like sign-in failures (every sign-up
    /// costs an Argon2id hash, so each attempt counts, and before the hash).
    static let signUpLimit = 20

    /// The limit for creating accounts from `address`.
    static func signUpLimits(address: String) -> [Limit] {
        [Limit(key: "sign-up:address:" + ThrottleAddress.bucket(address), maximum: signUpLimit, window: window)]
    }

    /// Sign-ups naming one e-mail address: 5 within an hour, from anywhere. Each one mails that
    /// address (a link, or a notice when it has an account), so this is what keeps the form from
    /// flooding a mailbox; it counts the address whether or not it has an account, so a refusal
    /// says nothing about who has one.
    static let signUpEmailLimit = 5
    /// How far back sign-ups naming one address count.
    static let signUpEmailWindow: TimeInterval = 60 * 60

    /// The limit for sign-ups naming `email`.
    static func signUpEmailLimits(email: String) -> [Limit] {
        [
            Limit(
                key: "sign-up:email:" + storable(UserRecord.normalizedEmail(email)), maximum: signUpEmailLimit,
                window: signUpEmailWindow)
        ]
    }

    /// The limit for asking for a password-reset link from `address`.
    static func resetRequestLimits(address: String) -> [Limit] {
        [
            Limit(
                key: "password-forgot:address:" + ThrottleAddress.bucket(address), maximum: resetRequestLimit,
                window: window)
        ]
    }

    /// Open dynamic registration (`serve --open-registration`): 10 registrations from one
    /// address within an hour. Without an initial access token anyone may add apps, so an
    /// address gets enough for a developer's trials and not enough to fill the client table.
    static let openRegistrationLimit = 10
    /// How far back an address's open registrations count.
    static let openRegistrationWindow: TimeInterval = 60 * 60

    /// The limit on open registrations from `address`; refused registrations count too.
    static func openRegistrationLimits(address: String) -> [Limit] {
        [
            Limit(
                key: "registration:address:" + ThrottleAddress.bucket(address), maximum: openRegistrationLimit,
                window: openRegistrationWindow)
        ]
    }

    /// Counts an attempt under every limit, or refuses it if any limit is reached.
    func attempt(_ limits: [Limit]) throws -> Decision {
        try store.transaction { try attempt(limits, in: $0) }
    }

    /// ``attempt(_:)`` inside a write transaction the caller has open, so that what the attempt
    /// leads to can commit with it (a passkey sign-in uses its challenge in the same one). A
    /// refusal writes nothing.
    func attempt(_ limits: [Limit], in transaction: any StoreTransaction) throws -> Decision {
        let now = now()
        // Counting and inserting are one step on every node: each key is held until commit.
        for key in Set(limits.map(\.key)).sorted() { try transaction.lockThrottleKey(key) }
        var wait: TimeInterval = 0
        for limit in limits {
            let times = try transaction.throttleAttempts(
                key: limit.key, since: now.addingTimeInterval(-limit.window))
            guard times.count >= limit.maximum else { continue }
            if let first = limit.growingDelay, let latest = times.last {
                // 1, 2, 4, 8 … minutes after the latest attempt, never more than the cap.
                let doublings = Double(min(times.count - limit.maximum, 16))
                let delay = min(first * pow(2, doublings), Self.maximumDelay)
                let remaining = latest.addingTimeInterval(delay).timeIntervalSince(now)
                if remaining > 0 { wait = max(wait, remaining, 1) }
                continue
            }
            // The window frees a place when the attempt that filled it ages out.
            let freed = times[times.count - limit.maximum].addingTimeInterval(limit.window)
            wait = max(wait, freed.timeIntervalSince(now), 1)
        }
        if wait > 0 { return .refused(retryAfter: wait) }
        let attempts = limits.map {
            ThrottleAttempt(key: $0.key, attemptedAt: now, expiresAt: now.addingTimeInterval($0.window))
        }
        for attempt in attempts { try transaction.insert(attempt) }
        return .allowed(attempts)
    }

    /// Counts an attempt as ``attempt(_:)`` does, or makes the refusal: the page `render`
    /// draws with the "try again in N minutes" text, with `Retry-After`. Returns the refusal to
    /// answer with, or nil and the attempts counted (to forgive when the guess was right).
    func attempt(
        _ limits: [Limit], refusal render: (Localized) throws -> Response
    ) throws -> (refusal: Response?, attempts: [ThrottleAttempt]) {
        switch try attempt(limits) {
        case .refused(let wait):
            var response = try render(Self.refusal(retryAfter: wait))
            response.headers["Retry-After"] = String(Int(wait.rounded(.up)))
            return (response, [])
        case .allowed(let attempts):
            return (nil, attempts)
        }
    }

    /// Takes back `attempts` (they were no guesses) and clears every count under `clearing`.
    func forgive(_ attempts: [ThrottleAttempt], clearing keys: [String] = []) throws {
        try store.transaction { try forgive(attempts, clearing: keys, in: $0) }
    }

    /// ``forgive(_:clearing:)`` inside a write transaction the caller has open (a passkey
    /// sign-in takes its attempt back in the transaction that starts the session).
    func forgive(_ attempts: [ThrottleAttempt], clearing keys: [String] = [], in transaction: any StoreTransaction)
        throws
    {
        for attempt in attempts { try transaction.deleteThrottleAttempt(id: attempt.id) }
        for key in keys { try transaction.deleteThrottleAttempts(key: key) }
    }

    /// "Too many attempts. Try again in N minutes." for a wait of `seconds`.
    static func refusal(retryAfter seconds: TimeInterval) -> Localized {
        let minutes = max(1, Int((seconds / 60).rounded(.up)))
        return Localized(
            "Too many attempts. Try again in \(minutes) \(minutes == 1 ? "minute" : "minutes").",
            zh: "尝试次数过多。请在 \(minutes) 分钟后重试。")
    }
}
