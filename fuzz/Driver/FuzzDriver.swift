import Foundation
import PorticoFuzzTargets

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The target this process fuzzes, named by `PORTICO_FUZZ_TARGET` (see `fuzz/README.md`).
let selectedTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["PORTICO_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget.named(name) else {
        FileHandle.standardError.write(
            Data("PORTICO_FUZZ_TARGET must name one of: \(FuzzTarget.all.map(\.name).joined(separator: " "))\n".utf8))
        exit(2)
    }
    return target
}()

/// libFuzzer's entry point: one input for the selected target.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    selectedTarget.run(bytes)
    return 0
}

/// libFuzzer's driver, for a program that has a `main` of its own (SwiftPM gives every
/// executable one, so libFuzzer's `main` is never linked in).
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// With the fuzzer (`make fuzz`): libFuzzer's command line, for the target named by
/// `PORTICO_FUZZ_TARGET`. Without (a normal build): `portico-fuzz TARGET PATH...` runs each file,
/// or each file in each folder, through a target once, to replay a corpus or a crash.
@main
enum FuzzMain {
    static func main() {
        #if PORTICO_FUZZING
            _ = selectedTarget
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(runFuzzerDriver(&argc, &argv) { data, size in fuzzOneInput(data, size) })
        #else
            replay()
        #endif
    }

    private static func replay() {
        let arguments = CommandLine.arguments.dropFirst()
        guard let name = arguments.first, let target = FuzzTarget.named(name) else {
            let names = FuzzTarget.all.map(\.name).joined(separator: " ")
            FileHandle.standardError.write(Data("usage: portico-fuzz TARGET PATH...  (targets: \(names))\n".utf8))
            exit(2)
        }
        var count = 0
        for path in arguments.dropFirst() {
            for file in files(at: path) {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                target.run(Array(data))
                count += 1
            }
        }
        print("\(name): \(count) inputs replayed")
    }

    private static func files(at path: String) -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return [] }
        guard isFolder.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().map { path + "/" + $0 }
    }
}
