import Foundation
import ServiceLifecycle

extension StopSignal {
    /// Runs a blocking device loop on a thread of its own (never on the cooperative pool) and returns when it
    /// ends; graceful shutdown or cancellation of the calling service stops it through this signal.
    func runOnDedicatedThread(named name: String, _ loop: @escaping @Sendable () -> Void) async {
        let (finished, continuation) = AsyncStream<Void>.makeStream()
        let thread = Thread {
            loop()
            continuation.finish()
        }
        thread.name = name
        thread.start()
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                for await _ in finished {}
            } onCancel: {
                self.stop()
            }
        } onGracefulShutdown: {
            self.stop()
        }
    }
}
