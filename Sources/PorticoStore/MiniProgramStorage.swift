import Foundation

/// Mini-programs and the host apps they run in.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol MiniProgramStorage {
    /// Registers `miniProgram` (its client must already exist).
    func insert(_ miniProgram: MiniProgram) throws
    /// The mini-program whose client id is `clientID`; nil for any other client.
    func miniProgram(clientID: String) throws -> MiniProgram?
    /// Every mini-program of the host `hostClientID`, disabled ones too, oldest first.
    func miniPrograms(hostClientID: String) throws -> [MiniProgram]
    /// Disables every enabled mini-program of `hostClientID` at `now`; returns how many.
    @discardableResult func disableMiniPrograms(hostClientID: String, now: Date) throws -> Int
}
