import Foundation
import PorticoCrypto
import PorticoStore

/// What the developer console does to apps, apart from HTTP: make one for a person, change
/// it, give it a new secret with an overlap, and delete it.
///
/// Why apart: who may do what (owners rotate and delete; co-developers edit) is decided here,
/// once, and every change is written to the audit log in the transaction that makes it.
struct DeveloperApps: Sendable {
    /// How long a rotated-away secret keeps working, so an app's servers can change over.
    static let secretOverlap: TimeInterval = 24 * 60 * 60

    /// The provider's store.
    let store: any Store
    /// The provider's clock.
    let now: @Sendable () -> Date
    /// Drops a changed app from this node's client cache.
    let forgetClient: @Sendable (String) -> Void

    /// Registers the app `form` describes for `ownerID` through ``ClientRegistration`` (the
    /// command line's checks and words), with its web origins; unverified.
    func create(_ form: DeveloperAppForm, ownerID: String) throws(AdminError) -> RegisteredClient {
        let origins = try form.checkedWebOrigins()
        let created = now()
        return try form.registration().register(
            in: store, clientID: RecordIdentifier.random(), actor: ownerID,
            alongside: { transaction, client in
                try transaction.insertDeveloperApp(
                    clientID: client.id, ownerID: ownerID, webOrigins: origins, createdAt: created)
            })
    }

    /// Replaces the settings of `client` with `form`'s, checked as a new registration is; its
    /// kind, secret, scopes, grants and standing stay.
    func save(_ form: DeveloperAppForm, to client: Client, by userID: String) throws(AdminError) {
        let origins = try form.checkedWebOrigins()
        var kept = form
        kept.appType = DeveloperAppForm.AppType(of: client)
        var registration = kept.registration()
        // The kind's grants stay; Shared Signals adds or takes away client credentials.
        let credentials = ClientCredentialsGrant.grantType
        registration.grantTypes = client.allowedGrantTypes.filter { $0 != credentials }
        if form.sharedSignals {
            registration.grantTypes.append(credentials)
        } else if client.allowedGrantTypes.contains(credentials)
            && !client.allowedScopes.contains(SharedSignals.manageScope)
        {
            registration.grantTypes.append(credentials)
        }
        // Scopes the form offers come from it; any other the operator gave stays.
        let offered = Set(DeveloperAppForm.offeredScopes)
        let granted = client.allowedScopes.filter { !offered.contains($0) && $0 != SharedSignals.manageScope }
        registration.scopes = (form.scopes ?? client.allowedScopes.filter { offered.contains($0) }) + granted
        // Keys stay as they are unless the app already signs with pasted keys.
        if client.jwks == nil {
            registration.jwks = nil
        } else if registration.jwks == nil {
            throw .invalid("paste the app's JWKS: an app that signs with its keys has no secret")
        }
        registration.isVerified = client.isVerified
        do {
            try store.transaction { transaction in
                _ = try registration.replace(client, in: transaction, store: store)
                _ = try transaction.setDeveloperAppOrigins(clientID: client.id, webOrigins: origins)
                try transaction.append(
                    AuditEvent(occurredAt: now(), actor: userID, action: "client.update", subject: client.id))
            }
        } catch {
            throw AdminError.wrapping(error)
        }
        forgetClient(client.id)
    }

    /// Gives the confidential `clientID` a new secret, keeping the old one working for
    /// ``secretOverlap``; returns the new secret (shown once), nil for an app without one.
    func rotateSecret(clientID: String, by userID: String) throws -> String? {
        let secret = SecureRandom.token()
        let time = now()
        let rotated = try store.transaction { transaction in
            guard
                try transaction.rotateClientSecret(
                    id: clientID, newHash: SecretHash.digest(secret),
                    previousExpiresAt: time.addingTimeInterval(Self.secretOverlap))
            else { return false }
            try transaction.append(
                AuditEvent(occurredAt: time, actor: userID, action: "client.rotate_secret", subject: clientID))
            return true
        }
        forgetClient(clientID)
        return rotated ? secret : nil
    }

    /// Makes the person with the e-mail address `email` a co-developer of `clientID`: they
    /// must have an account and not be its owner.
    func addCodeveloper(email: String, to app: DeveloperApp, by userID: String) throws -> Bool {
        let time = now()
        return try store.transaction { transaction in
            let address = email.trimmingCharacters(in: .whitespaces)
            guard !address.isEmpty, StoredText.canHold(address), let person = try transaction.user(email: address),
                person.id != app.ownerID
            else { return false }
            try transaction.setDeveloperCollaborator(
                clientID: app.clientID, userID: person.id, role: .developer, at: time)
            try transaction.append(
                AuditEvent(
                    occurredAt: time, actor: userID, action: "client.add_developer", subject: app.clientID,
                    details: (["user_id": .string(person.id)] as JSONValue).jsonString))
            return true
        }
    }

    /// Removes the co-developer `developerID` from `clientID`.
    func removeCodeveloper(_ developerID: String, from clientID: String, by userID: String) throws {
        let time = now()
        try store.transaction { transaction in
            guard try transaction.removeDeveloperCollaborator(clientID: clientID, userID: developerID) else { return }
            try transaction.append(
                AuditEvent(
                    occurredAt: time, actor: userID, action: "client.remove_developer", subject: clientID,
                    details: (["user_id": .string(developerID)] as JSONValue).jsonString))
        }
    }

    /// Deletes `clientID` and revokes everything issued to it (``ClientRemoval``).
    func delete(clientID: String, by userID: String) throws {
        let time = now()
        try store.transaction { transaction in
            _ = try ClientRemoval.remove(id: clientID, actor: userID, now: time, in: transaction)
        }
        forgetClient(clientID)
    }
}
