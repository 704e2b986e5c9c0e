/// Ends a reconnect loop's wait early when the device comes back. Without one, the loop retries on its backoff.
public protocol ArrivalWatch: AnyObject {
    /// Returns true as soon as the device (probably) came back, false when `timeout` passes first or
    /// `shouldStop` (asked every 100 ms) says to give up.
    func waitForArrival(timeout: Duration, shouldStop: () -> Bool) -> Bool
}
