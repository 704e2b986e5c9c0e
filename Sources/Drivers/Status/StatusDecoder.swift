/// A streaming parser over a printer's back channel.
///
/// Replies to real-time requests (`DLE EOT n`, `GS r 1`, Custom's full status), Automatic Status Back blocks
/// and XON/XOFF share one byte stream. They are told apart by their bit patterns (Epson ESC/POS reference,
/// "Identification of send status"):
///
/// | pattern          | meaning                                             |
/// |------------------|-----------------------------------------------------|
/// | `0x11`, `0x13`   | XON, XOFF                                           |
/// | `0xx1xx00`       | ASB header, followed by three bytes `0xx0xxxx`      |
/// | `0xx1xx10`       | reply to `DLE EOT n` (which `n`: the oldest pending)|
/// | `0xx0xxxx`       | reply to `GS r 1` (only while one is pending)       |
/// | `10 0F` + 4 bytes| Custom full status (only while one is pending)      |
///
/// The sender says which requests it made (``expect(_:)``) because a DLE EOT reply byte does not say which `n`
/// it answers; replies come in request order. Anything else is discarded and reported, and parsing resumes at
/// the next byte that can start a block, so one bad byte costs at most one block. It never traps.
public struct StatusDecoder: Sendable {
    public enum Event: Sendable, Equatable {
        case report(StatusReport)
        case xon
        case xoff
        /// Bytes that matched nothing expected: line noise, an unsolicited reply, a broken block.
        case discarded([UInt8])
    }

    private enum State: Sendable {
        case idle
        /// Inside an ASB block; holds the bytes so far (header included).
        case asb([UInt8])
        /// Saw `10` while a Custom full status was pending; waiting for `0F`.
        case customHeader
        /// Inside a Custom full-status block; holds the status bytes so far.
        case customBody([UInt8])
    }

    public let map: StatusBitMap
    private var state: State = .idle
    private var pending: [StatusSource] = []
    /// Bounds the queue of expected replies: a printer that never answers must not grow it forever.
    public static let maxPending = 64

    public init(map: StatusBitMap) {
        self.map = map
    }

    /// Records that a request was sent whose reply will arrive on the back channel.
    public mutating func expect(_ source: StatusSource) {
        guard source != .asb else { return }
        if pending.count >= Self.maxPending { pending.removeFirst() }
        pending.append(source)
    }

    /// Requests sent whose replies have not arrived.
    public var pendingRequests: [StatusSource] { pending }

    /// Forgets pending requests and any partial block: call after a read timeout or a reconnect.
    public mutating func reset() -> [UInt8] {
        let partial = partialBytes
        pending.removeAll()
        state = .idle
        return partial
    }

    private var partialBytes: [UInt8] {
        switch state {
        case .idle: return []
        case .asb(let bytes): return bytes
        case .customHeader: return [0x10]
        case .customBody(let bytes): return [0x10, 0x0F] + bytes
        }
    }

    public mutating func feed<S: Sequence>(_ bytes: S) -> [Event] where S.Element == UInt8 {
        var events: [Event] = []
        for byte in bytes {
            step(byte, into: &events)
        }
        return Self.coalesced(events)
    }

    private mutating func step(_ byte: UInt8, into events: inout [Event]) {
        switch state {
        case .idle:
            start(byte, into: &events)

        case .asb(var block):
            guard byte & 0x90 == 0 else {
                // Not an ASB data byte: the block is broken. Drop it and let this byte start anew.
                state = .idle
                events.append(.discarded(block))
                start(byte, into: &events)
                return
            }
            block.append(byte)
            if block.count == 4 {
                state = .idle
                let data = block
                events.append(.report(StatusReport(source: .asb, bytes: data, conditions: map.decode(.asb, data))))
            } else {
                state = .asb(block)
            }

        case .customHeader:
            if byte == 0x0F {
                state = .customBody([])
            } else {
                // `10` was not a Custom header after all: it is a valid ASB header (all clear).
                state = .asb([0x10])
                step(byte, into: &events)
            }

        case .customBody(var body):
            body.append(byte)
            if body.count == 4 {
                state = .idle
                if let index = pending.firstIndex(of: .customFull) { pending.remove(at: index) }
                events.append(
                    .report(StatusReport(source: .customFull, bytes: body, conditions: map.decode(.customFull, body)))
                )
            } else {
                state = .customBody(body)
            }
        }
    }

    private mutating func start(_ byte: UInt8, into events: inout [Event]) {
        if byte == 0x11 {
            events.append(.xon)
        } else if byte == 0x13 {
            events.append(.xoff)
        } else if byte == 0x10 && pending.contains(.customFull) {
            state = .customHeader
        } else if byte & 0x93 == 0x10 {
            state = .asb([byte])
        } else if byte & 0x93 == 0x12, let index = pending.firstIndex(where: Self.isDleEot) {
            let source = pending.remove(at: index)
            events.append(.report(StatusReport(source: source, bytes: [byte], conditions: map.decode(source, [byte]))))
        } else if byte & 0x90 == 0, let index = pending.firstIndex(of: .gsR1) {
            pending.remove(at: index)
            events.append(.report(StatusReport(source: .gsR1, bytes: [byte], conditions: map.decode(.gsR1, [byte]))))
        } else {
            events.append(.discarded([byte]))
        }
    }

    private static func isDleEot(_ source: StatusSource) -> Bool {
        switch source {
        case .dleEot1, .dleEot2, .dleEot3, .dleEot4: return true
        default: return false
        }
    }

    /// Merges runs of discarded bytes into one event, so garbage is reported once per run (linear time).
    private static func coalesced(_ events: [Event]) -> [Event] {
        var out: [Event] = []
        var run: [UInt8] = []
        for event in events {
            if case .discarded(let bytes) = event {
                run.append(contentsOf: bytes)
                continue
            }
            if !run.isEmpty {
                out.append(.discarded(run))
                run.removeAll()
            }
            out.append(event)
        }
        if !run.isEmpty { out.append(.discarded(run)) }
        return out
    }
}
