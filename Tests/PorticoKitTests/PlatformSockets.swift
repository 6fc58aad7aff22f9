#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The socket type constant for TCP: an enum on Glibc, a plain `Int32` on Darwin.
#if canImport(Glibc)
    let streamSocketType = Int32(SOCK_STREAM.rawValue)
#else
    let streamSocketType = SOCK_STREAM
#endif

/// Whether the tests run on Linux, where some tools (OpenSSL 3's command line) are known.
#if os(Linux)
    let isLinux = true
#else
    let isLinux = false
#endif

/// Closes a descriptor with the C library's `close`, whatever the platform's module is called.
func closeDescriptor(_ descriptor: Int32) {
    #if canImport(Glibc)
        _ = Glibc.close(descriptor)
    #else
        _ = Darwin.close(descriptor)
    #endif
}

/// Kills process `identifier` with SIGKILL through the C library, whatever its module is called.
func killProcess(_ identifier: Int32) {
    #if canImport(Glibc)
        _ = Glibc.kill(identifier, SIGKILL)
    #else
        _ = Darwin.kill(identifier, SIGKILL)
    #endif
}
