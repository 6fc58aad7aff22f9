import Foundation
import Testing

@testable import PorticoKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The companion socket's message rules and the peer check, without an agent.
struct CompanionProtocolTests {
    static func authorizeRequest() -> CompanionRequest {
        var request = CompanionRequest(.authorize)
        request.requestID = "r1"
        request.clientID = "app"
        request.redirectURI = "http://127.0.0.1/callback"
        request.scope = "openid profile"
        request.state = "s"
        request.nonce = "n"
        request.codeChallenge = String(repeating: "a", count: 43)
        request.codeChallengeMethod = "S256"
        return request
    }

    @Test func aRequestRoundTripsAsOneLineOfJSON() throws {
        let request = Self.authorizeRequest()
        let bytes = request.encoded()
        #expect(!bytes.contains(0x0A))
        #expect(try CompanionRequest(decoding: bytes) == request)
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""op":"authorize""#))
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""v":1"#))
    }

    @Test func whatIsNotAVersionOneRequestIsRefusedWithAReason() {
        func refusal(_ text: String) -> CompanionProtocolError? {
            do {
                _ = try CompanionRequest(decoding: Array(text.utf8))
                return nil
            } catch { return error }
        }
        #expect(refusal("not json")?.code == "invalid_request")
        #expect(refusal("[1]")?.code == "invalid_request")
        #expect(refusal(#"{"op":"ping"}"#)?.code == "invalid_request")
        #expect(refusal(#"{"v":"1","op":"ping"}"#)?.code == "invalid_request")
        #expect(refusal(#"{"v":true,"op":"ping"}"#)?.code == "invalid_request")
        #expect(refusal(#"{"v":2,"op":"ping"}"#) == .unsupportedVersion(2))
        #expect(refusal(#"{"v":1,"op":"reboot"}"#)?.code == "invalid_request")
        #expect(refusal(#"{"v":1,"op":"approve"}"#) == .invalid("approve needs id"))
        #expect(refusal(#"{"v":1,"op":"cancel","request_id":""}"#) == .invalid("cancel needs request_id"))
        #expect(refusal(#"{"v":1,"op":"ping","issuer":"a\u0000b"}"#) == .invalid("issuer contains a control character"))
        let long = String(repeating: "x", count: CompanionProtocol.maximumFieldLength + 1)
        #expect(refusal(#"{"v":1,"op":"approve","id":"\#(long)"}"#) == .invalid("id is too long"))
        #expect(refusal(String(repeating: " ", count: CompanionProtocol.maximumMessageBytes + 1)) == .tooLarge)

        var missingState = Self.authorizeRequest()
        missingState.state = nil
        #expect(refusal(String(decoding: missingState.encoded(), as: UTF8.self)) == .invalid("authorize needs state"))
        var plain = Self.authorizeRequest()
        plain.codeChallengeMethod = "plain"
        #expect(
            refusal(String(decoding: plain.encoded(), as: UTF8.self)) == .invalid("code_challenge_method must be S256"))
        #expect(refusal(#"{"v":1,"op":"ping"}"#) == nil)
    }

    @Test func repliesAreReadOnlyWhenTheyAreVersionOne() {
        var reply = CompanionReply()
        reply.code = "c"
        reply.state = "s"
        #expect(CompanionReply(decoding: reply.encoded()) == reply)
        #expect(CompanionReply(decoding: Array(#"{"v":2,"ok":true}"#.utf8)) == nil)
        #expect(CompanionReply(decoding: Array("{}".utf8)) == nil)
    }

    @Test func theKernelNamesThePeerAndOnlyTheSameUserIsAdmitted() throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, streamSocketType, 0, &pair) == 0)
        defer {
            close(pair[0])
            close(pair[1])
        }
        let peer = try #require(PeerCredentials.ofPeer(of: pair[0]))
        #expect(peer.userID == geteuid())
        #expect(peer.groupID == getegid())
        #expect(peer.processID == getpid())
        #expect(PeerCredentials.admits(peer))
        // Another user, as the kernel would name them: refused.
        var stranger = peer
        stranger.userID = peer.userID == 65534 ? 65533 : 65534
        #expect(!PeerCredentials.admits(stranger))
        #expect(PeerCredentials.admits(stranger, as: stranger.userID))
        // A peer the kernel cannot name (not a socket) is never admitted.
        var pipeEnds: [Int32] = [0, 0]
        #expect(pipe(&pipeEnds) == 0)
        defer {
            close(pipeEnds[0])
            close(pipeEnds[1])
        }
        #expect(PeerCredentials.ofPeer(of: pipeEnds[0]) == nil)
        #expect(!PeerCredentials.admits(PeerCredentials.ofPeer(of: pipeEnds[0])))
    }

    @Test func theSocketLivesInTheRuntimeDirectoryElseTheCacheOnePerIssuer() {
        let runtime = CompanionProtocol.socketPath(
            issuer: "https://id.example", environment: ["XDG_RUNTIME_DIR": "/run/user/1000", "HOME": "/home/ann"])
        #expect(runtime.path.hasPrefix("/run/user/1000/portico/agent-"))
        #expect(runtime.path.hasSuffix(".sock"))
        #expect(
            CompanionProtocol.socketPath(
                issuer: "https://id.example/", environment: ["XDG_RUNTIME_DIR": "/run/user/1000"])
                == runtime)
        #expect(
            CompanionProtocol.socketPath(
                issuer: "https://other.example", environment: ["XDG_RUNTIME_DIR": "/run/user/1000"])
                != runtime)
        #expect(
            CompanionProtocol.socketPath(issuer: "https://id.example", environment: ["HOME": "/home/ann"]).path
                .hasPrefix("/home/ann/.cache/portico/agent-"))
        #expect(
            CompanionProtocol.socketPath(
                issuer: "https://id.example", environment: ["XDG_CACHE_HOME": "/var/cache/ann", "HOME": "/home/ann"]
            ).path.hasPrefix("/var/cache/ann/portico/"))
        #expect(runtime.path.utf8.count < 108)
    }

    @Test func whenNothingCanShowTheSignInItFailsAtOnceWithAClearError() async throws {
        let provider = Provider(
            issuer: "https://id.example", authorizationEndpoint: URL(string: "https://id.example/authorize")!,
            tokenEndpoint: URL(string: "https://id.example/token")!)
        let nowhere = FileManager.default.temporaryDirectory.appendingPathComponent("no-agent-\(UUID()).sock")
        let headless = AutomaticUserAgent(
            companion: CompanionUserAgent(socketPath: nowhere),
            browserOpener: BrowserOpener(isAvailable: { false }, body: { _ in }))
        let manager = AuthorizationManager(
            provider: provider, clientID: "app", redirectURI: URL(string: "http://127.0.0.1/callback"),
            store: InMemoryTokenStore(), userAgent: headless)
        let error = await #expect(throws: AuthorizationError.self) {
            try await manager.authorize(AuthorizeRequest(scopes: [.profile]))
        }
        #expect(error?.code == .invalidInput)
        #expect(error?.message.contains("no browser") == true)
    }

    /// "At once" made checkable without timing it: an agent that is there but never answers
    /// holds the ping's connection for a minute, far beyond the ping's 200 ms, then hangs up.
    /// The sign-in fails after exactly one connection (no retry loop) and before that hold has
    /// ended (no waiting for the agent's answer or hang-up): a retry, or a wait on anything but
    /// the ping's own bound, fails one or the other.
    @Test func anAgentThatNeverAnswersIsAskedOnceAndNotWaitedFor() async throws {
        let provider = Provider(
            issuer: "https://id.example", authorizationEndpoint: URL(string: "https://id.example/authorize")!,
            tokenEndpoint: URL(string: "https://id.example/token")!)
        let agent = try SilentAgent(holding: .seconds(60))
        defer { agent.release() }
        let headless = AutomaticUserAgent(
            companion: CompanionUserAgent(socketPath: agent.path, pingTimeout: .milliseconds(200)),
            browserOpener: BrowserOpener(isAvailable: { false }, body: { _ in }))
        let manager = AuthorizationManager(
            provider: provider, clientID: "app", redirectURI: URL(string: "http://127.0.0.1/callback"),
            store: InMemoryTokenStore(), userAgent: headless)
        let error = await #expect(throws: AuthorizationError.self) {
            try await manager.authorize(AuthorizeRequest(scopes: [.profile]))
        }
        #expect(!agent.hasEndedItsWait, "it returned while the agent still held its only connection")
        #expect(agent.connections == 1, "one ping, no retry")
        #expect(error?.code == .invalidInput)
    }

    @Test func anAgentsRepliesMapToTheSDKsErrors() throws {
        let redirect = try #require(URL(string: "http://127.0.0.1/callback"))
        func code(_ error: String) -> AuthorizationError.Code? {
            do {
                _ = try CompanionUserAgent.outcome(of: .failure(error), redirectURI: redirect)
                return nil
            } catch { return error.code }
        }
        #expect(code("access_denied") == .userCancelled)
        #expect(code("timeout") == .timedOut)
        #expect(code("cancelled") == .cancelled)
        #expect(code("invalid_scope") == .serverError)
        do {
            _ = try CompanionUserAgent.outcome(of: .failure("signed_out"), redirectURI: redirect)
            Issue.record("signed_out must throw")
        } catch {
            #expect(error.isCompanionUnavailable)
        }
        var reply = CompanionReply()
        reply.code = "the-code"
        reply.state = "s"
        reply.iss = "https://id.example"
        let outcome = try CompanionUserAgent.outcome(of: reply, redirectURI: redirect)
        guard case .callback(let url, let used) = outcome.kind else {
            Issue.record("not a callback")
            return
        }
        #expect(used == redirect)
        #expect(url.absoluteString == "http://127.0.0.1/callback?code=the-code&state=s&iss=https://id.example")
    }

    @Test func aPhonesLinkCarriesTheRequestAndReturnsOnlyToItsRedirectURI() throws {
        let request = Self.authorizeRequest()
        let base = try #require(URL(string: "https://id.example/companion"))
        let link = try #require(CompanionLink.url(for: request, base: base))
        #expect(link.host == "id.example")
        #expect(try CompanionLink.request(from: link) == request)
        let repeated = try #require(URL(string: link.absoluteString + "&state=other"))
        #expect(throws: CompanionProtocolError.invalid("the link repeats state")) {
            try CompanionLink.request(from: repeated)
        }

        var code = CompanionReply()
        code.code = "c"
        code.state = "s"
        code.iss = "https://id.example"
        let back = try #require(CompanionLink.returnURL(for: request, answering: code))
        #expect(back.absoluteString == "http://127.0.0.1/callback?code=c&state=s&iss=https://id.example")
        // A code for another state, or a refusal of the request itself, never leaves the companion.
        var stray = code
        stray.state = "other"
        #expect(CompanionLink.returnURL(for: request, answering: stray) == nil)
        #expect(CompanionLink.returnURL(for: request, answering: .failure("invalid_request")) == nil)
        let denied = try #require(CompanionLink.returnURL(for: request, answering: .failure("access_denied")))
        #expect(denied.absoluteString == "http://127.0.0.1/callback?error=access_denied&state=s")
    }
}
