/// What the kiosk is still to say, in order, bounded: speaking never holds up a decision, a print or a scan,
/// so when phrases come faster than the voice says them the queue drops one and counts it.
///
/// A call is what someone waits to hear: when the queue is full the oldest phrase that is not a call goes
/// (a decision said seconds late helps nobody), and only a queue of calls alone drops its oldest call.
public struct SpeechQueue<Phrase: Speakable>: Sendable, Equatable {
    public let capacity: Int
    public private(set) var waiting: [Phrase] = []
    /// Phrases dropped because the voice fell behind, since start.
    public private(set) var dropped = 0

    public init(capacity: Int = 4) {
        precondition(capacity > 0, "a speech queue holds at least one phrase")
        self.capacity = capacity
    }

    /// Queues `announcement`; answers the phrase dropped to make room, if one was.
    @discardableResult
    public mutating func add(_ phrase: Phrase) -> Phrase? {
        var gone: Phrase?
        if waiting.count == capacity {
            let index = waiting.firstIndex { !$0.announcement.isCall } ?? 0
            gone = waiting.remove(at: index)
            dropped += 1
        }
        waiting.append(phrase)
        return gone
    }

    /// The next phrase to say (first queued first).
    public mutating func next() -> Phrase? {
        waiting.isEmpty ? nil : waiting.removeFirst()
    }
}

/// What the speech queue holds: an announcement, with whatever its speaker keeps beside it (when it was asked
/// for).
public protocol Speakable: Sendable, Equatable {
    var announcement: Announcement { get }
}

extension Announcement: Speakable {
    public var announcement: Announcement { self }

    /// A ticket called to the entrance, the first time or again.
    public var isCall: Bool {
        switch self {
        case .called, .calledAgain: true
        default: false
        }
    }
}
