import Foundation
import PorticoFuzzTargets
import Testing

/// Replays every committed fuzz corpus through its target in the normal build, so an input
/// that once crashed (kept in `fuzz/corpus/<target>/crash-*`) fails the ordinary test suite
/// too, without the sanitizer build that `make fuzz` needs.
@Suite struct CorpusReplayTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fuzz/corpus")

    @Test func everyTargetHasACorpus() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).sorted()
        #expect(folders == FuzzTarget.all.map(\.name).sorted())
    }

    @Test(arguments: FuzzTarget.all.map(\.name))
    func replaysCorpus(_ name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        let folder = Self.corpus.appendingPathComponent(name)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(!files.isEmpty)
        for file in files {
            // A failed invariant aborts the process, naming the input's target in the log.
            target.run(Array(try Data(contentsOf: folder.appendingPathComponent(file))))
        }
    }
}
