#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Who is at the other end of a Unix socket, as the kernel says (`SO_PEERCRED` on Linux,
/// `getpeereid` on the BSDs): the one check that keeps other users off the companion, since
/// file permissions alone can be widened by mistake.
public struct PeerCredentials: Sendable, Equatable {
    /// The peer's process id (0 where the platform does not say).
    public var processID: Int32
    /// The peer's effective user id.
    public var userID: UInt32
    /// The peer's effective group id.
    public var groupID: UInt32

    /// Credentials as given.
    public init(processID: Int32, userID: UInt32, groupID: UInt32) {
        self.processID = processID
        self.userID = userID
        self.groupID = groupID
    }

    /// The credentials of the peer of the connected Unix socket `descriptor`; nil when the
    /// kernel will not say (not a Unix socket, already closed).
    public static func ofPeer(of descriptor: Int32) -> PeerCredentials? {
        #if os(Linux)
            // Glibc declares `struct ucred` only under _GNU_SOURCE, which Swift's module does not
            // set; this has its exact layout (pid_t, uid_t, gid_t: three 32-bit fields).
            struct KernelCredentials {
                var pid: Int32 = 0
                var uid: UInt32 = 0
                var gid: UInt32 = 0
            }
            var credentials = KernelCredentials()
            var length = socklen_t(MemoryLayout<KernelCredentials>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0,
                length == socklen_t(MemoryLayout<KernelCredentials>.size)
            else { return nil }
            return PeerCredentials(processID: credentials.pid, userID: credentials.uid, groupID: credentials.gid)
        #else
            var user = uid_t()
            var group = gid_t()
            guard getpeereid(descriptor, &user, &group) == 0 else { return nil }
            return PeerCredentials(processID: 0, userID: user, groupID: group)
        #endif
    }

    /// Whether a peer with `credentials` may talk to a process running as `userID`: only the
    /// same user, and never one the kernel could not name.
    public static func admits(_ credentials: PeerCredentials?, as userID: UInt32 = geteuid()) -> Bool {
        guard let credentials else { return false }
        return credentials.userID == userID
    }
}
