import KioskCore
import Logging
import ServiceLifecycle
import ServiceSupport
import StationStore
import Synchronization

/// Who was called last: notices each ticket as it is called (a place freed, the store opened, a ticket came
/// in while there was room) or called again (the store's second call), keeps the last five for the window
/// display, and has the voice call it out.
///
/// Calls follow from the queue and the clock, not from one event: the board looks on every change of the
/// queue and at least twice a second.
public final class CallBoard: Service, Sendable {
    let queue: QueueReplica
    let days: BusinessDayKeeper
    let clock: WallClock
    let changes: ChangeFeed
    let voice: Voice?
    private let watch = Mutex(CallWatch())

    init(queue: QueueReplica, days: BusinessDayKeeper, clock: WallClock, changes: ChangeFeed, voice: Voice?) {
        self.queue = queue
        self.days = days
        self.clock = clock
        self.changes = changes
        self.voice = voice
    }

    /// The last tickets called today, newest first (at most five).
    public var recent: [TicketCode] { watch.withLock { $0.recent } }

    /// One look: the tickets called since the last.
    func look() {
        let now = clock.now()
        // All of them: a window of the first few would "call" the next ticket into it whenever one leaves it.
        let state = queue.snapshot
        let called = state.calledIDs(at: now)
        let (window, recall) = (days.schedule.callWindow, days.schedule.recall)
        let code = { (id: TicketID) in state.entries[id]?.ticket.code }
        let (paused, fresh, again) = watch.withLock {
            let paused = $0.pauses(state.pauses, at: now)
            let fresh = $0.newlyCalled(called, on: days.businessDay(at: now), code: code)
            guard let recall else { return (paused, fresh, [TicketCode]()) }
            let again = $0.recalled(
                called,
                calls: { state.call(ofCalled: $0, at: now, window: window, recall: recall) },
                code: code
            )
            return (paused, fresh, again)
        }
        guard paused || !fresh.isEmpty || !again.isEmpty else { return }
        if let voice, voice.config.calls {
            if paused { voice.say(.callsPaused) }
            for code in fresh { voice.say(.called(code)) }
            for code in again { voice.say(.calledAgain(code)) }
        }
        changes.notify()
    }

    public func run() async throws {
        // A change of the queue wakes the board at once (a status does not); the heartbeat covers calls that come
        // with time alone (the store opening, a booking's slot starting).
        for await _ in queue.queueChanges.subscribe(heartbeat: .milliseconds(500)).cancelOnGracefulShutdown() {
            look()
        }
    }
}
