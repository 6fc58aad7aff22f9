import Foundation
import PorticoCrypto
import Testing

@testable import PorticoServer

/// Sealed sign-in challenges: good on any node with the same secret until their expiry, and
/// nothing else is taken for one (another secret, a changed byte, a longer life, a stored
/// challenge's plain random bytes).
@Suite struct PasskeyChallengeSealTests {
    let seal = PasskeyChallengeSeal(secret: SecureRandom.bytes(count: 32))
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aSealedChallengeHoldsUntilItsExpiry() {
        let expiresAt = now.addingTimeInterval(300)
        let challenge = seal.make(expiresAt: expiresAt)
        #expect(challenge.count == 56)
        #expect(seal.expiry(of: challenge, now: now) == expiresAt)
        #expect(seal.expiry(of: challenge, now: now.addingTimeInterval(299)) == expiresAt)
        #expect(seal.expiry(of: challenge, now: expiresAt) == nil)
        #expect(seal.make(expiresAt: expiresAt) != challenge)
    }

    @Test func nothingElseIsTakenForOne() {
        let challenge = seal.make(expiresAt: now.addingTimeInterval(300))
        let other = PasskeyChallengeSeal(secret: SecureRandom.bytes(count: 32))
        #expect(other.expiry(of: challenge, now: now) == nil)
        for index in challenge.indices {
            var changed = challenge
            changed[index] ^= 0x01
            #expect(seal.expiry(of: changed, now: now) == nil, "byte \(index)")
        }
        // A longer life written into a real challenge.
        var extended = challenge
        extended[PasskeyChallengeSeal.randomLength + 5] &+= 1
        #expect(seal.expiry(of: extended, now: now) == nil)
        #expect(seal.expiry(of: Array(challenge.dropLast()), now: now) == nil)
        #expect(seal.expiry(of: SecureRandom.bytes(count: 32), now: now) == nil)
        #expect(seal.expiry(of: SecureRandom.bytes(count: 56), now: now) == nil)
    }
}
