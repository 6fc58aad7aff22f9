import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Stops the process when a target's invariant does not hold.
///
/// `abort()` (not `fatalError`) so that libFuzzer's deadly-signal handler saves the input at
/// once; the message says which invariant failed.
enum FuzzFailure {
    static func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
        guard !condition() else { return }
        FileHandle.standardError.write(Data("fuzz invariant failed: \(message())\n".utf8))
        abort()
    }
}
