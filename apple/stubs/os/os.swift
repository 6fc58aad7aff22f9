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

// Logger (iOS 14, macOS 11) and the OSLogMessage interpolation PorticoKit uses.
public struct OSLogPrivacy: Sendable {
    public static let `public` = OSLogPrivacy()
    public static let `private` = OSLogPrivacy()
}

public struct OSLogInterpolation: StringInterpolationProtocol {
    public init(literalCapacity: Int, interpolationCount: Int) {}
    public mutating func appendLiteral(_ literal: String) {}
    public mutating func appendInterpolation(
        _ value: @autoclosure @escaping () -> String, privacy: OSLogPrivacy = .private
    ) {}
}

public struct OSLogMessage: ExpressibleByStringInterpolation, ExpressibleByStringLiteral {
    public init(stringInterpolation: OSLogInterpolation) {}
    public init(stringLiteral value: String) {}
}

public struct Logger: @unchecked Sendable {
    public init(subsystem: String, category: String) {}
    public func debug(_ message: OSLogMessage) {}
    public func info(_ message: OSLogMessage) {}
    public func error(_ message: OSLogMessage) {}
}
