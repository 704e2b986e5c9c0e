import Drivers

/// The device loops' pause between connection attempts: 200 ms, doubling up to 2 s. A device that comes back
/// (an ``ArrivalWatch``'s notice) ends the pause at once and starts the backoff again.
struct ReconnectBackoff {
    private static let first: Duration = .milliseconds(200)
    private static let longest: Duration = .seconds(2)
    private var delay = first

    /// After a connection: the next loss starts from the shortest pause.
    mutating func reset() { delay = Self.first }

    /// Waits before the next attempt (a stop ends the wait); true when `watch` saw the device come back.
    mutating func wait(on signal: StopSignal, watch: (any ArrivalWatch)?) -> Bool {
        let cameBack: Bool
        if let watch {
            cameBack = watch.waitForArrival(timeout: delay, shouldStop: { signal.isStopped })
        } else {
            signal.sleep(delay)
            cameBack = false
        }
        delay = cameBack ? Self.first : min(delay * 2, Self.longest)
        return cameBack
    }
}
