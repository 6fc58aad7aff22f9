/// One libFuzzer target: a name (the corpus folder `fuzz/corpus/<name>`) and the function that
/// feeds it one input.
///
/// A target must return normally for every input; it stops the process (`FuzzFailure`) when
/// an invariant fails, which libFuzzer reports as a crash and saves the input. Targets are
/// plain functions so that the normal test suite can replay the corpora without the fuzzer.
public struct FuzzTarget: Sendable {
    /// The target's name, as given to `PORTICO_FUZZ_TARGET` and `make fuzz`.
    public let name: String
    /// Feeds one input.
    public let run: @Sendable ([UInt8]) -> Void

    init(_ name: String, _ run: @escaping @Sendable ([UInt8]) -> Void) {
        self.name = name
        self.run = run
    }

    /// Every target, in the order `make fuzz` runs them.
    public static let all: [FuzzTarget] =
        internalParserTargets + [
            FuzzTarget("base64url", Base64URLTarget.run),
            FuzzTarget("jws", JOSETargets.jws),
            FuzzTarget("jwk", JOSETargets.jwk),
            FuzzTarget("companion-message", CompanionTargets.message),
            FuzzTarget("cbor", PasskeyTargets.cbor),
            FuzzTarget("webauthn-attestation", PasskeyTargets.attestation),
        ]

    #if DEBUG || PORTICO_FUZZING
        /// The targets of internal parsers (`@testable import`): in debug and fuzz builds only, so
        /// that `swift build -c release` of the whole package works.
        static let internalParserTargets: [FuzzTarget] = [
            FuzzTarget("form", HTTPTargets.form),
            FuzzTarget("percent", HTTPTargets.percent),
            FuzzTarget("cookie", HTTPTargets.cookie),
            FuzzTarget("basic", HTTPTargets.basic),
            FuzzTarget("json", JSONTarget.run),
            FuzzTarget("phc", ServerTargets.phc),
            FuzzTarget("redirect-uri", ServerTargets.redirectURI),
            FuzzTarget("user-code", ServerTargets.userCode),
            FuzzTarget("database-url", ServerTargets.databaseURL),
            FuzzTarget("sealed-request", ServerTargets.sealedRequest),
        ]
    #else
        static let internalParserTargets: [FuzzTarget] = []
    #endif

    /// The target named `name`, if there is one.
    public static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }
}
