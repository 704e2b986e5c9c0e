import Foundation
import Synchronization

/// A dedicated thread running a polling loop until ``stop()``: each endpoint's blocking I/O stays off the
/// Swift concurrency pool. The loop checks ``isStopping`` at least every 50 ms.
final class WorkerThread: Sendable {
    private let stopping = Atomic<Bool>(false)
    private let finished = Mutex<Bool>(false)

    init(name: String, _ body: @escaping @Sendable (WorkerThread) -> Void) {
        let thread = Thread { [self] in
            body(self)
            finished.withLock { $0 = true }
        }
        thread.name = name
        thread.start()
    }

    var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Asks the loop to end and waits until it has.
    func stop() {
        stopping.store(true, ordering: .releasing)
        while !finished.withLock({ $0 }) {
            usleep(2_000)
        }
    }
}
