import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// The transmitter's configuration and stream management (SSF 1.0 §7, §8.1): what a receiver
/// registered with `--ssf` may do with a client-credentials token of scope `ssf.manage`, and
/// the errors everyone else gets.
@Suite struct SharedSignalsStreamTests {
    @Test func theConfigurationNamesEveryEndpoint() async throws {
        try await ProviderHarness.with { provider in
            let reply = try await provider.get("/.well-known/ssf-configuration")
            #expect(reply.status == 200)
            let document = reply.json
            #expect(document["issuer"]?.stringValue == provider.issuer)
            #expect(document["jwks_uri"]?.stringValue == provider.issuer + "/oauth/jwks")
            #expect(
                document["delivery_methods_supported"]
                    == .array([.string(SharedSignals.pushMethod), .string(SharedSignals.pollMethod)]))
            for (name, path) in [
                ("configuration_endpoint", SharedSignals.configurationPath),
                ("status_endpoint", SharedSignals.statusPath),
                ("add_subject_endpoint", SharedSignals.addSubjectPath),
                ("remove_subject_endpoint", SharedSignals.removeSubjectPath),
                ("verification_endpoint", SharedSignals.verificationPath),
            ] {
                #expect(document[name]?.stringValue == provider.issuer + path, "\(name)")
            }
        }
    }

    /// `--ssf` needs client credentials, and only `--ssf` gives `ssf.manage`.
    @Test func registrationRules() async throws {
        try await ProviderHarness.with { provider in
            let store = provider.store
            var registration = ClientRegistration(name: "Receiver", redirectURIs: ["https://r.example/cb"])
            registration.isSignalReceiver = true
            #expect(throws: AdminError.self) { try registration.register(in: store) }
            registration.grantTypes = ["authorization_code", "client_credentials"]
            let registered = try registration.register(in: store)
            #expect(registered.client.allowedScopes.contains(SharedSignals.manageScope))
            var other = ClientRegistration(
                name: "Other", redirectURIs: ["https://o.example/cb"], scopes: [SharedSignals.manageScope],
                grantTypes: ["client_credentials"])
            other.isSignalReceiver = false
            #expect(throws: AdminError.self) { try other.register(in: store) }
        }
    }

    @Test func aReceiverManagesItsOneStream() async throws {
        try await ProviderHarness.with(configuration: signalConfiguration()) { provider in
            let client = try provider.addSignalReceiver(name: "Shop")
            let token = try await provider.streamToken(for: client)
            let id = try await provider.createStream(
                token: token,
                delivery: ["method": .string(SharedSignals.pushMethod), "endpoint_url": "https://shop.example/events"],
                events: [.sessionRevoked, .accountDisabled])
            // One stream per client.
            let again = try await provider.json(
                "POST", SharedSignals.configurationPath, token: token,
                body: ["delivery": ["method": .string(SharedSignals.pollMethod)]])
            #expect(again.status == 409 && again.string("error") == "conflict")

            let read = try await provider.json(
                "GET", SharedSignals.configurationPath + "?stream_id=\(id)", token: token)
            #expect(read.status == 200)
            #expect(read.string("aud") == client.id && read.string("iss") == provider.issuer)
            #expect(
                read.json["events_delivered"]
                    == .array([
                        .string(SharedSignals.Event.sessionRevoked.rawValue),
                        .string(SharedSignals.Event.accountDisabled.rawValue),
                    ]))
            let list = try await provider.json("GET", SharedSignals.configurationPath, token: token)
            #expect(JSONValue(parsing: list.body)?.arrayValue?.count == 1)

            let patched = try await provider.json(
                "PATCH", SharedSignals.configurationPath, token: token,
                body: ["stream_id": .string(id), "description": "shop events"])
            #expect(patched.status == 200 && patched.string("description") == "shop events")
            #expect(
                patched.json["delivery"]?.objectValue?["endpoint_url"]?.stringValue == "https://shop.example/events")

            let paused = try await provider.json(
                "POST", SharedSignals.statusPath, token: token,
                body: ["stream_id": .string(id), "status": "paused", "reason": "maintenance"])
            #expect(paused.status == 200)
            let status = try await provider.json("GET", SharedSignals.statusPath + "?stream_id=\(id)", token: token)
            #expect(status.string("status") == "paused" && status.string("reason") == "maintenance")
            let badStatus = try await provider.json(
                "POST", SharedSignals.statusPath, token: token, body: ["stream_id": .string(id), "status": "asleep"])
            #expect(badStatus.status == 400 && badStatus.string("error") == "invalid_request")

            let deleted = try await provider.json(
                "DELETE", SharedSignals.configurationPath + "?stream_id=\(id)", token: token)
            #expect(deleted.status == 204)
            let gone = try await provider.json(
                "GET", SharedSignals.configurationPath + "?stream_id=\(id)", token: token)
            #expect(gone.status == 404 && gone.string("error") == "not_found")
        }
    }

    @Test func strangersAndBadRequestsAreRefused() async throws {
        try await ProviderHarness.with(configuration: signalConfiguration()) { provider in
            let shop = try provider.addSignalReceiver(name: "Shop")
            let game = try provider.addSignalReceiver(name: "Game")
            let shopToken = try await provider.streamToken(for: shop)
            let gameToken = try await provider.streamToken(for: game)
            let shopStream = try await provider.createStream(
                token: shopToken, delivery: ["method": .string(SharedSignals.pollMethod)])

            // No token, a malformed one, and a token without ssf.manage.
            let none = try await provider.json("GET", SharedSignals.configurationPath, token: nil)
            #expect(none.status == 401 && none.string("error") == "invalid_token")
            let forged = try await provider.json("GET", SharedSignals.configurationPath, token: "not-a-token")
            #expect(forged.status == 401 && forged.string("error") == "invalid_token")
            let plain = try provider.addClient(name: "Plain", grants: ["client_credentials"])
            let plainToken = try await provider.streamToken(for: plain)
            let wrongScope = try await provider.json("GET", SharedSignals.configurationPath, token: plainToken)
            #expect(wrongScope.status == 403 && wrongScope.string("error") == "insufficient_scope")

            // Another client's stream is not found, and not changed.
            for (method, path, body) in [
                ("GET", SharedSignals.configurationPath + "?stream_id=\(shopStream)", nil),
                ("DELETE", SharedSignals.configurationPath + "?stream_id=\(shopStream)", nil),
                ("PATCH", SharedSignals.configurationPath, ["stream_id": .string(shopStream), "description": "x"]),
                ("POST", SharedSignals.statusPath, ["stream_id": .string(shopStream), "status": "disabled"]),
                ("POST", SharedSignals.verificationPath, ["stream_id": .string(shopStream)]),
            ] as [(String, String, JSONValue?)] {
                let reply = try await provider.json(method, path, token: gameToken, body: body)
                #expect(reply.status == 404 && reply.string("error") == "not_found", "\(method) \(path)")
            }
            let still = try #require(try provider.store.read { try $0.signalStream(clientID: shop.id) })
            #expect(still.status == "enabled" && still.description == nil)

            // Delivery URLs: https, or http on loopback only; nothing is created.
            for url in ["http://shop.example/events", "ftp://shop.example/x", "https://shop.example/e#frag", "events"] {
                let reply = try await provider.json(
                    "POST", SharedSignals.configurationPath, token: gameToken,
                    body: ["delivery": ["method": .string(SharedSignals.pushMethod), "endpoint_url": .string(url)]])
                #expect(reply.status == 400 && reply.string("error") == "invalid_request", "\(url): \(reply.text)")
            }
            #expect(try provider.store.read { try $0.signalStream(clientID: game.id) } == nil)
            let malformed = try await provider.request(
                "POST", SharedSignals.configurationPath,
                headers: ["Authorization": "Bearer \(gameToken)", "Content-Type": "application/json"], rawBody: "{")
            #expect(malformed.status == 400)
            let loopback = try await provider.createStream(
                token: gameToken,
                delivery: ["method": .string(SharedSignals.pushMethod), "endpoint_url": "http://127.0.0.1:9/events"])
            #expect(!loopback.isEmpty)
        }
    }
}
