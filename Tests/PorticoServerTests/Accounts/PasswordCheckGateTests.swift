import Dispatch
import Foundation
import Synchronization
import Testing

@testable import PorticoServer

/// ``PasswordCheckGate`` on its own: turns, waiting places, and what it answers when full.
@Suite struct PasswordCheckGateTests {
    /// Takes the gate's one turn on a thread of its own until `released` is signalled.
    private static func holdTurn(
        of gate: PasswordCheckGate, entered: DispatchSemaphore, released: DispatchSemaphore
    ) {
        Thread {
            _ = gate.admit {
                entered.signal()
                released.wait()
            }
        }.start()
        entered.wait()
    }

    /// Every turn taken and no waiting place: nil at once, the work never run.
    @Test func withNoWaitingPlaceAFullGateTurnsAwayAtOnceWithoutRunningTheWork() {
        let gate = PasswordCheckGate(limits: .init(concurrent: 1, waiting: 0, maximumWait: .seconds(60)))
        let entered = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        Self.holdTurn(of: gate, entered: entered, released: released)
        let ran = Mutex(false)
        #expect(gate.admit { ran.withLock { $0 = true } } == nil)
        #expect(ran.withLock { $0 } == false)
        released.signal()
    }

    /// A check that finds every turn taken waits in its place, and runs once a turn frees.
    @Test func aWaitingCheckRunsWhenATurnFrees() {
        let gate = PasswordCheckGate(limits: .init(concurrent: 1, waiting: 1, maximumWait: .seconds(60)))
        let entered = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        Self.holdTurn(of: gate, entered: entered, released: released)
        let waited = DispatchSemaphore(value: 0)
        let result = Mutex<Int?>(nil)
        Thread {
            result.withLock { $0 = gate.admit { 7 } }
            waited.signal()
        }.start()
        released.signal()
        waited.wait()
        #expect(result.withLock { $0 } == 7)
    }
}
