import Foundation
import PorticoServer
import Testing

/// One case of argon2id.json: a PHC string made by the reference implementation.
struct Argon2idVectorCase: Decodable, Sendable {
    let password: String
    let phc: String
    let wrong: String
}

private struct Argon2idVectorFile: Decodable {
    let cases: [Argon2idVectorCase]
}

private let argon2idVectors: [Argon2idVectorCase] = {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Vectors/argon2id.json")
    guard let data = try? Data(contentsOf: url),
        let file = try? JSONDecoder().decode(Argon2idVectorFile.self, from: data)
    else { return [] }
    return file.cases
}()

/// Cheap settings for tests that only need a hash, not the production cost.
private let cheap = PasswordHashingSettings(memoryKiB: 1_024, iterations: 1, parallelism: 1)

@Suite struct PasswordHasherTests {
    @Test func vectorFileIsRead() {
        #expect(argon2idVectors.count >= 3)
    }

    @Test(arguments: argon2idVectors) func vectorVerifies(_ vector: Argon2idVectorCase) {
        let hasher = PasswordHasher()
        #expect(hasher.verify(vector.password, against: vector.phc))
        #expect(!hasher.verify(vector.wrong, against: vector.phc))
        #expect(!hasher.needsRehash(vector.phc))
    }

    @Test func defaultsAreTheDesignsSettings() {
        let settings = PasswordHasher().settings
        #expect(settings.memoryKiB == 19_456 && settings.iterations == 2 && settings.parallelism == 1)
        #expect(settings.saltLength == 16)
    }

    @Test func hashThenVerifyRoundTrip() throws {
        let hasher = PasswordHasher()
        let phc = try hasher.hash("correct horse battery staple")
        #expect(phc.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        #expect(hasher.verify("correct horse battery staple", against: phc))
        #expect(!hasher.verify("correct horse battery stapl", against: phc))
        #expect(!hasher.needsRehash(phc))
        // A fresh salt every time.
        #expect(try hasher.hash("correct horse battery staple") != phc)
    }

    @Test func unicodeAndEmptyPasswords() throws {
        let hasher = PasswordHasher(settings: cheap)
        for password in ["", "pässwörd-密码", "emoji 🔑", String(repeating: "x", count: 4_096)] {
            let phc = try hasher.hash(password)
            #expect(hasher.verify(password, against: phc))
            #expect(!hasher.verify(password + " ", against: phc))
        }
        // NFC and NFD spellings are different byte strings and so different passwords.
        let composed = try hasher.hash("\u{E9}")
        #expect(!hasher.verify("e\u{301}", against: composed))
    }

    @Test func needsRehashForOtherParameters() throws {
        let standard = PasswordHasher()
        let phc = try PasswordHasher(settings: cheap).hash("pw")
        #expect(standard.needsRehash(phc))
        #expect(standard.verify("pw", against: phc))  // still verifies with its own parameters
        for settings in [
            PasswordHashingSettings(memoryKiB: 65_536), PasswordHashingSettings(iterations: 3),
            PasswordHashingSettings(parallelism: 2), PasswordHashingSettings(hashLength: 64),
            PasswordHashingSettings(saltLength: 32),
        ] {
            #expect(PasswordHasher(settings: settings).needsRehash(argon2idVectors[0].phc), "\(settings)")
        }
        #expect(standard.needsRehash(argon2idVectors[0].phc.replacingOccurrences(of: "v=19", with: "v=16")))
        #expect(standard.needsRehash("not a hash"))
    }

    @Test func malformedPHCStringsAreFalseNeverACrash() {
        let hasher = PasswordHasher()
        let good = argon2idVectors.first?.phc ?? ""
        let malformed = [
            "", "$", "$$$$$", "argon2id",
            "$argon2i$v=19$m=19456,t=2,p=1$ZKH8IYBBDgMuXyj0qMBjvQ$BC/n1yIl2cowuZVImDVbAltK4C1H/e08Hqfm+CcGtKY",
            "$argon2d$v=19$m=19456,t=2,p=1$ZKH8IYBBDgMuXyj0qMBjvQ$BC/n1yIl2cowuZVImDVbAltK4C1H/e08Hqfm+CcGtKY",
            good.replacingOccurrences(of: "m=19456", with: "m=99999999999"),
            good.replacingOccurrences(of: "m=19456", with: "m=4294967295"),
            good.replacingOccurrences(of: "t=2", with: "t=0"),
            good.replacingOccurrences(of: "p=1", with: "p=0"),
            good.replacingOccurrences(of: "t=2", with: "t=-2"),
            good.replacingOccurrences(of: "v=19", with: "v=x"),
            good.replacingOccurrences(of: ",t=2", with: ""),
            String(good.dropLast(10)), good + "$", good + "!", good.replacingOccurrences(of: "$ZKH8", with: "$"),
            good.replacingOccurrences(of: "BC/n", with: "BC_n"), good + "\u{0}",
            String(repeating: "$argon2id", count: 1_000),
        ]
        for phc in malformed {
            #expect(!hasher.verify(argon2idVectors.first?.password ?? "", against: phc), "\(phc)")
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var bytes = Array(good.utf8)
            bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0x20...0x7E, using: &generator)
            let mutated = String(decoding: bytes, as: UTF8.self)
            if mutated != good {
                #expect(!hasher.verify(argon2idVectors.first?.password ?? "", against: mutated), "\(mutated)")
            }
        }
    }
}
