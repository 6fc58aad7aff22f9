import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// Events reach the streams of the apps a person allowed, signed as SSF asks, by poll
/// (RFC 8936) and by push (RFC 8935).
@Suite struct SharedSignalsDeliveryTests {
    private func poll(_ provider: ProviderHarness, token: String, _ body: JSONValue) async throws -> TestReply {
        try await provider.json("POST", SharedSignals.pollPath, token: token, body: body)
    }

    /// A person who allowed `client` (openid profile email).
    private func person(_ provider: ProviderHarness, allowing clients: [Client], email: String = "ann@example.com")
        throws -> UserRecord
    {
        let user = try provider.addUser(email: email)
        let now = provider.clock.now
        try provider.store.transaction { transaction in
            for client in clients {
                try transaction.saveConsent(
                    userID: user.id, clientID: client.id, scopes: ["openid", "profile", "email"], now: now)
            }
        }
        return user
    }

    @Test func pollHandsOutAcknowledgesAndSaysWhenMoreWait() async throws {
        try await ProviderHarness.with(configuration: signalConfiguration()) { provider in
            let shop = try provider.addSignalReceiver(name: "Shop")
            let token = try await provider.streamToken(for: shop)
            _ = try await provider.createStream(token: token, delivery: ["method": .string(SharedSignals.pollMethod)])
            let user = try person(provider, allowing: [shop])
            _ = try UserAdministration.setDisabled(true, reference: user.id, reason: "hijacking", in: provider.store)
            _ = try UserAdministration.setDisabled(false, reference: user.id, in: provider.store)

            let first = try await poll(provider, token: token, ["maxEvents": 1, "returnImmediately": true])
            #expect(first.status == 200, "\(first.text)")
            #expect(first.json["moreAvailable"] == .bool(true))
            let sets = try #require(first.json["sets"]?.objectValue)
            #expect(sets.count == 1)
            let (jti, set) = try #require(sets.first)
            let claims = try await provider.verifiedSET(try #require(set.stringValue), for: shop)
            #expect(claims.jwtID == jti)
            #expect(claims.event?.type == SharedSignals.Event.accountDisabled.rawValue)
            #expect(claims.event?.fields["reason"] == "hijacking")
            #expect(
                claims["sub_id"]
                    == .object(["format": "iss_sub", "iss": .string(provider.issuer), "sub": .string(user.id)]))

            // Not acknowledged: handed out again, the same jti.
            let repeated = try await poll(provider, token: token, ["maxEvents": 1, "returnImmediately": true])
            #expect(repeated.json["sets"]?.objectValue?.keys.first == jti)

            let second = try await poll(
                provider, token: token, ["ack": [.string(jti)], "maxEvents": 10, "returnImmediately": true])
            #expect(second.json["moreAvailable"] == .bool(false))
            let rest = try #require(second.json["sets"]?.objectValue)
            #expect(rest.count == 1 && rest[jti] == nil)
            let enabled = try await provider.verifiedSET(try #require(rest.first?.value.stringValue), for: shop)
            #expect(enabled.event?.type == SharedSignals.Event.accountEnabled.rawValue)
            #expect(enabled["txn"] != claims["txn"])

            let refused = try #require(rest.first?.key)
            let errors: JSONValue = .object([refused: ["err": "invalid_key", "description": "unknown kid"]])
            let last = try await poll(provider, token: token, ["setErrs": errors, "returnImmediately": true])
            #expect(last.json["sets"]?.objectValue?.isEmpty == true)
            #expect(try provider.store.read { try $0.polledSignalCount(clientID: shop.id) } == 0)
        }
    }

    @Test func aLongPollWakesUpWhenAnEventArrives() async throws {
        try await ProviderHarness.with(configuration: signalConfiguration()) { provider in
            let shop = try provider.addSignalReceiver(name: "Shop")
            let token = try await provider.streamToken(for: shop)
            _ = try await provider.createStream(token: token, delivery: ["method": .string(SharedSignals.pollMethod)])
            let user = try person(provider, allowing: [shop])
            let waiting = Task { try await poll(provider, token: token, ["maxEvents": 5]) }
            try await Task.sleep(for: .milliseconds(500))
            _ = try UserAdministration.setDisabled(true, reference: user.id, in: provider.store)
            let reply = try await waiting.value
            let set = try #require(reply.json["sets"]?.objectValue?.first?.value.stringValue, "\(reply.text)")
            let claims = try await provider.verifiedSET(set, for: shop)
            #expect(claims.event?.type == SharedSignals.Event.accountDisabled.rawValue)
            #expect(claims.event?.fields["reason"] == nil)
        }
    }

    @Test func verificationCarriesTheStateAndTheStream() async throws {
        try await ProviderHarness.with(configuration: signalConfiguration()) { provider in
            let shop = try provider.addSignalReceiver(name: "Shop")
            let token = try await provider.streamToken(for: shop)
            let id = try await provider.createStream(
                token: token, delivery: ["method": .string(SharedSignals.pollMethod)], events: [])
            let verify = try await provider.json(
                "POST", SharedSignals.verificationPath, token: token, body: ["stream_id": .string(id), "state": "abc"])
            #expect(verify.status == 204, "\(verify.text)")
            let reply = try await poll(provider, token: token, ["returnImmediately": true])
            let set = try #require(reply.json["sets"]?.objectValue?.first?.value.stringValue)
            let claims = try await provider.verifiedSET(set, for: shop)
            #expect(claims.event?.type == SharedSignals.Event.verification.rawValue)
            #expect(claims.event?.fields["state"] == "abc")
            #expect(claims["sub_id"] == .object(["format": "opaque", "id": .string(id)]))
        }
    }

    /// Pairwise apps see their own `sub`; a person the receiver removed is not told about.
    @Test func subjectsArePairwiseAndCanBeRemoved() async throws {
        try await ProviderHarness.with(configuration: signalConfiguration()) { provider in
            let shop = try provider.addSignalReceiver(name: "Shop", pairwise: true)
            let token = try await provider.streamToken(for: shop)
            let id = try await provider.createStream(
                token: token, delivery: ["method": .string(SharedSignals.pollMethod)])
            let ann = try person(provider, allowing: [shop])
            let bob = try person(provider, allowing: [shop], email: "bob@example.com")
            let subjects = PairwiseSubjects(store: provider.store, clients: ClientCache(store: provider.store))
            let bobSub = try subjects.recordedSubject(for: bob.id, client: shop)
            let annSub = try subjects.recordedSubject(for: ann.id, client: shop)
            #expect(annSub != ann.id)

            let stranger = try await provider.json(
                "POST", SharedSignals.removeSubjectPath, token: token,
                body: [
                    "stream_id": .string(id),
                    "subject": ["format": "iss_sub", "iss": .string(provider.issuer), "sub": "nobody"],
                ])
            #expect(stranger.status == 400 && stranger.string("error") == "invalid_subject")
            let removed = try await provider.json(
                "POST", SharedSignals.removeSubjectPath, token: token,
                body: [
                    "stream_id": .string(id),
                    "subject": ["format": "iss_sub", "iss": .string(provider.issuer), "sub": .string(bobSub)],
                ])
            #expect(removed.status == 204, "\(removed.text)")

            _ = try UserAdministration.setDisabled(true, reference: bob.id, in: provider.store)
            _ = try UserAdministration.setDisabled(true, reference: ann.id, in: provider.store)
            let reply = try await poll(provider, token: token, ["returnImmediately": true])
            let sets = try #require(reply.json["sets"]?.objectValue)
            #expect(sets.count == 1)
            let claims = try await provider.verifiedSET(try #require(sets.first?.value.stringValue), for: shop)
            #expect(claims["sub_id"]?.objectValue?["sub"]?.stringValue == annSub)

            let added = try await provider.json(
                "POST", SharedSignals.addSubjectPath, token: token,
                body: [
                    "stream_id": .string(id),
                    "subject": ["format": "iss_sub", "iss": .string(provider.issuer), "sub": .string(bobSub)],
                ])
            #expect(added.status == 200)
            _ = try UserAdministration.setDisabled(false, reference: bob.id, in: provider.store)
            #expect(try provider.store.read { try $0.polledSignalCount(clientID: shop.id) } == 2)
        }
    }

    /// An account link unbound (by the person or the host) ends the person's sessions with the
    /// host app: it hears session-revoked.
    @Test func anUnboundAccountLinkRevokesTheSession() async throws {
        try await ProviderHarness.with(configuration: signalConfiguration()) { provider in
            let host = try provider.addSignalReceiver(name: "Host")
            let token = try await provider.streamToken(for: host)
            _ = try await provider.createStream(token: token, delivery: ["method": .string(SharedSignals.pollMethod)])
            let user = try person(provider, allowing: [host])
            let link = AccountLink(hostClientID: host.id, hostUserID: "mc_1", platformUserID: user.id)
            try provider.store.transaction { try $0.insert(link) }
            let now = provider.clock.now
            let unbound = try provider.store.transaction { transaction in
                try AccountUnlinking.unbind(link, by: .person, now: now, accessTokenLifetime: 600, in: transaction)
            }
            #expect(unbound)
            let reply = try await poll(provider, token: token, ["returnImmediately": true])
            let set = try #require(reply.json["sets"]?.objectValue?.first?.value.stringValue, "\(reply.text)")
            let claims = try await provider.verifiedSET(set, for: host)
            #expect(claims.event?.type == SharedSignals.Event.sessionRevoked.rawValue)
            #expect(claims.event?.fields["reason_admin"] == ["en": "account link unbound"])
        }
    }

    @Test func pushDeliversAndRecordsTheReceiversRefusal() async throws {
        var configuration = signalConfiguration()
        configuration.metrics = true
        try await ProviderHarness.with(configuration: configuration) { provider in
            let receiver = try SETReceiver()
            let shop = try provider.addSignalReceiver(name: "Shop")
            let token = try await provider.streamToken(for: shop)
            _ = try await provider.createStream(
                token: token,
                delivery: ["method": .string(SharedSignals.pushMethod), "endpoint_url": .string(receiver.uri)])
            let user = try person(provider, allowing: [shop])
            _ = try UserAdministration.setDisabled(true, reference: user.id, reason: "bulk-account", in: provider.store)
            try await waitUntil("a pushed SET") { receiver.tokens.count == 1 }
            #expect(receiver.contentTypes == ["application/secevent+jwt"])
            let claims = try await provider.verifiedSET(receiver.tokens[0], for: shop)
            #expect(claims.event?.fields["reason"] == "bulk-account")

            receiver.answer(400, body: #"{"err":"invalid_key","description":"kid unknown"}"#)
            _ = try UserAdministration.setDisabled(false, reference: user.id, in: provider.store)
            try await waitUntil("the second SET") { receiver.tokens.count == 2 }
            let refused = try await provider.verifiedSET(receiver.tokens[1], for: shop)
            let id = try #require(refused.jwtID)
            try await waitUntil("the refused SET given up") {
                try provider.store.read { try $0.outboxMessage(id: id) }?.failedAt != nil
            }
            let failed = try #require(try provider.store.read { try $0.outboxMessage(id: id) })
            #expect(failed.lastError?.contains("invalid_key: kid unknown") == true, "\(failed.lastError ?? "")")
            #expect(failed.failedAttempts == 1)
            // Shown to the operator: `portico client signals` names the event and the receiver's words.
            let shown = try provider.portico(["client", "signals", shop.id, "--json"])
            #expect(shown.status == 0, "\(shown.stderr)")
            let report = try #require(cliJSON(shown.stdout)?.objectValue)
            #expect(report["status"] == "enabled" && report["pending"] == 0)
            let entries = try #require(report["given_up"]?.arrayValue)
            let givenUp = entries.compactMap(\.objectValue)
            #expect(givenUp.count == 1)
            #expect(givenUp.first?["jti"]?.stringValue == id && givenUp.first?["event"] == "account-enabled")
            #expect(givenUp.first?["reason"]?.stringValue?.contains("invalid_key: kid unknown") == true)
            let text = try provider.portico(["client", "signals", shop.id])
            #expect(text.stdout.contains("given up") && text.stdout.contains("invalid_key: kid unknown"))
            let none = try provider.portico(["client", "signals", "no-such-app"])
            #expect(none.status == 1 && none.stderr.contains("has no Shared Signals stream"))
            // Per stream in /metrics: one delivered, one given up.
            try await waitUntil("the metrics") {
                let metrics = try await provider.get("/metrics").text
                return metrics.contains("portico_ssf_delivered_total{stream=\"\(shop.id)\"} 1")
                    && metrics.contains("portico_ssf_failed_total{stream=\"\(shop.id)\"} 1")
            }
            #expect(receiver.tokens.count == 2)
        }
    }
}
