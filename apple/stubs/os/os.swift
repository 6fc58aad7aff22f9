// A type-checking stub of Apple's os module: OSAllocatedUnfairLock (iOS 16, macOS 13) as the
// SDK declares it (developer.apple.com/documentation/os/osallocatedunfairlock). Nothing here runs.
@_exported import Foundation

@frozen public struct OSAllocatedUnfairLock<State>: @unchecked Sendable {
    public init(uncheckedState initialState: State) { fatalError("stub") }
    public func withLockUnchecked<R>(_ body: (inout State) throws -> R) rethrows -> R { fatalError("stub") }
    public func withLock<R: Sendable>(_ body: @Sendable (inout State) throws -> R) rethrows -> R { fatalError("stub") }
}

extension OSAllocatedUnfairLock where State: Sendable {
    public init(initialState: State) { fatalError("stub") }
}
