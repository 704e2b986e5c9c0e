import Foundation

/// A port known once a server listens.
public final class ListeningPort: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched while `condition` is locked.
    private let condition = NSCondition()
    private var value: Int?

    public init() {}

    public func set(_ port: Int) {
        condition.withLock {
            value = port
            condition.broadcast()
        }
    }

    /// The port, if the server listens already.
    public var current: Int? { condition.withLock { value } }

    /// Waits until the server listens; nil after `timeout`. Blocks: not for the cooperative pool.
    public func wait(timeout: Duration = .seconds(10)) -> Int? {
        let deadline = Date().addingTimeInterval(Double(timeout.components.seconds))
        return condition.withLock {
            while value == nil {
                if !condition.wait(until: deadline) { break }
            }
            return value
        }
    }
}
