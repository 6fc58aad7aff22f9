// A type-checking stub of Darwin (Apple's C library) for PorticoKit's `#if canImport(Darwin)`
// branches. It re-exports Glibc, which has most of the same POSIX names, and adds or retypes
// what Darwin spells differently and PorticoKit uses (sys/socket.h, unistd.h of the iOS 18 SDK).
// What it cannot do: hide the Glibc-only names (MSG_NOSIGNAL, SOCK_CLOEXEC, SO_PEERCRED), or give
// every shared name Darwin's exact C type; see scripts/apple-typecheck. Nothing here runs.
@_exported import Glibc

/// Darwin declares socket types as plain `Int32` macros; Glibc as an enum.
public var SOCK_STREAM: Int32 { 1 }
/// Darwin's per-socket "no SIGPIPE on write" option (sys/socket.h), in place of MSG_NOSIGNAL.
public var SO_NOSIGPIPE: Int32 { 0x1022 }
/// The BSD way to read a Unix socket peer's user and group (unistd.h).
public func getpeereid(_ socket: Int32, _ user: UnsafeMutablePointer<uid_t>, _ group: UnsafeMutablePointer<gid_t>)
    -> Int32
{
    fatalError("stub")
}
