import Foundation

/// Every operation of the store, available inside one transaction: the storage protocols of
/// each concern, composed.
///
/// The identity provider gets one of these from ``Store/transaction(_:)`` (or
/// ``Store/read(_:)``) and does the writes that belong together through it, so that they
/// commit or roll back together. Operations that take a presented secret (session id, code,
/// refresh token, device code) hash it themselves with ``SecretHash``, so no caller can look up
/// or store a plain secret. Failures are ``StoreError``s. A transaction must not be kept or used
/// after its body returns.
///
/// Backends offer primitives (insert, look up, compare-and-swap on a token hash, conditional
/// updates that report the rows they changed, bounded purges). What they mean for OAuth — a
/// refresh token's standing and its reuse grace, `slow_down`, the union of consents, a user
/// code given back once expired, what a replay revokes — is decided in `PorticoServer` on top
/// of them, once for every backend, by policy types that each ask for the narrow storage
/// protocols they use (`RefreshTokenPolicy` over ``RefreshTokenStorage``, `DevicePollPolicy`
/// over ``DeviceAuthorizationStorage``, `ConsentPolicy` over ``ConsentStorage``).
///
/// # Implementation requirements
///
/// A backend (SQLite and PostgreSQL today) must give every operation the same meaning; the
/// conformance suite `PorticoStoreConformance` (`StoreConformance`), which needs nothing but this
/// module, checks it, races included.
///
/// - **Each primitive is atomic by itself**, whatever the isolation level of the transaction
///   around it (PostgreSQL's READ COMMITTED included). An operation documented as *conditional*
///   (``AuthorizationCodeStorage/redeemAuthorizationCode(_:now:)``,
///   ``RefreshTokenStorage/swapRefreshToken(familyID:from:to:issuedAt:expiresAt:)``,
///   ``DeviceAuthorizationStorage/consumeDeviceAuthorization(deviceCode:now:)``, the approvals,
///   the revocations) is one statement whose condition the database checks as it writes
///   (`UPDATE … WHERE id = ? AND token_hash = ?`), never a read followed by an unconditional
///   write: of two transactions racing on one row, exactly one sees its condition hold. Do not
///   rely on the backend serialising whole transactions (SQLite's `BEGIN IMMEDIATE` happens to,
///   PostgreSQL does not).
/// - **"Rows changed"** (the `Bool` or `Int` a conditional update or delete returns) counts the
///   rows whose condition held and that the statement wrote, not the rows it matched before
///   its condition or the rows a cascade removed. `false`/`0` means nothing was written.
/// - **Times** are kept to whole seconds, rounded down (``StoredTime``): a record read back
///   carries the stored value, and "expired" means `now` is at or past the expiry, both in
///   whole seconds.
/// - **Retries**: a transaction body may be run more than once when the backend reports
///   ``StoreError/serializationFailure(_:)`` (``StoreError/isRetryable``), so bodies must not
///   have effects outside the transaction that cannot be repeated. Backends do not retry on
///   their own today; a caller that wants to may run the same body again.
/// - **Nesting**: starting a transaction from inside a body throws ``StoreError/misuse(_:)``
///   instead of deadlocking; so does writing inside ``Store/read(_:)``.
/// - **Errors**: constraint failures are ``StoreError/duplicate(field:)`` (naming the field as
///   callers know it) and ``StoreError/missingReference(_:)``; lock and serialization trouble,
///   lost connections and the rest map onto the backend-neutral cases of ``StoreError``.
public protocol StoreTransaction:
    UserStorage, ClientStorage, ProductScopeStorage, SigningKeyStorage, SessionStorage, AuthorizationCodeStorage,
    ConsentStorage, RefreshTokenStorage, AccessTokenRevocationStorage, DeviceAuthorizationStorage,
    AccountLinkStorage, PasswordResetStorage, ThrottleStorage, AuditLogStorage, PurgeStorage,
    DeviceSessionStorage, PairwiseSubjectStorage,
    OutboxStorage, SessionFamilyStorage,
    MiniProgramStorage,
    CompanionStorage,
    FirstSigningKeyStorage,
    ClientAssertionStorage,
    RefreshFamilyResourceStorage,
    BearerAccessStorage,
    BulkLoadStorage,
    PendingSignupStorage,
    TwoStepStorage,
    RefreshRotationStorage,
    SignalStreamStorage,
    PasskeyStorage,
    DPoPStorage,
    RegistrationStorage,
    DeveloperStorage,
    PushedRequestStorage,
    SignInCountStorage
{}
