import Testing

@testable import PorticoServer

/// The cache of verified tokens that the access-token verifier and the Native SSO exchange
/// share: a token's exact text, only with the keys' generation it was verified with, and a full
/// cache starts again.
@Suite struct VerifiedTokenCacheTests {
    @Test func aRememberedTokenIsFoundByItsExactTextAndCounted() {
        let cache = VerifiedTokenCache<String>(capacity: 10)
        #expect(cache.value(of: "token-1", generation: 1) == nil)
        cache.remember("claims-1", of: "token-1", generation: 1)
        #expect(cache.value(of: "token-1", generation: 1) == "claims-1")
        #expect(cache.value(of: "token-1", generation: 1) == "claims-1")
        #expect(cache.value(of: "token-2", generation: 1) == nil)
        #expect(cache.value(of: "token-1 ", generation: 1) == nil)
        #expect(cache.hits == 2)
    }

    @Test func anEntryOfOtherKeysIsRefused() {
        let cache = VerifiedTokenCache<String>(capacity: 10)
        cache.remember("claims-1", of: "token-1", generation: 1)
        #expect(cache.value(of: "token-1", generation: 2) == nil, "the keys moved on")
        #expect(cache.hits == 0)
        // Verified again with the new keys, it counts again; the old generation no longer does.
        cache.remember("claims-1", of: "token-1", generation: 2)
        #expect(cache.value(of: "token-1", generation: 2) == "claims-1")
        #expect(cache.value(of: "token-1", generation: 1) == nil)
    }

    @Test func aFullCacheEmptiesItselfAndStartsAgain() {
        let cache = VerifiedTokenCache<Int>(capacity: 3)
        for number in 1...3 { cache.remember(number, of: "token-\(number)", generation: 1) }
        #expect(cache.count == 3)
        for number in 1...3 { #expect(cache.value(of: "token-\(number)", generation: 1) == number) }
        cache.remember(4, of: "token-4", generation: 1)
        #expect(cache.count == 1)
        for number in 1...3 { #expect(cache.value(of: "token-\(number)", generation: 1) == nil) }
        #expect(cache.value(of: "token-4", generation: 1) == 4)
        // Remembering a token it holds replaces it, and is not an insert beyond the capacity.
        cache.remember(5, of: "token-5", generation: 1)
        cache.remember(6, of: "token-6", generation: 1)
        cache.remember(44, of: "token-4", generation: 1)
        #expect(cache.count == 3)
        #expect(cache.value(of: "token-4", generation: 1) == 44)
    }

    @Test func theNativeSSOCacheKeepsItsCapacity() {
        #expect(VerifiedIDTokens().capacity == 4096)
    }
}
