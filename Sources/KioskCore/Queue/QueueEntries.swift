import HashTreeCollections

extension QueueState {
    /// A ticket of the log and where it stands.
    public struct Entry: Sendable, Equatable {
        public var ticket: Ticket
        public var stage: Stage
    }

    /// Every ticket of the log, by id, in the form a day's queue can afford: a station keeps thousands of them
    /// in memory all day. An entry holds what is not the key (the ticket's id) and packs its code's prefix
    /// (one or two letters) into two bytes, 72 bytes in all against 136 for a ``Ticket`` and its stage; a
    /// ticket that does not fit that form (a booking, with its slot; a prefix that is not one or two capital
    /// letters) is kept whole beside it. Reading an entry gives back the ticket exactly as it was issued.
    ///
    /// A persistent hash tree: a copy of the state shares it, and a change to the copy copies only the path
    /// to what changed (a station keeps two folds of a day's queue, the server's order and its own events on
    /// top, in the memory of about one).
    public struct Entries: Sendable, Equatable {
        private var packed: TreeDictionary<TicketID, Packed> = [:]
        /// The tickets that do not fit ``Packed``, whole (their `Packed.prefix` is 0).
        private var whole: TreeDictionary<TicketID, Ticket> = [:]

        public var count: Int { packed.count }
        public var isEmpty: Bool { packed.isEmpty }

        public subscript(id: TicketID) -> Entry? {
            packed[id].map { Entry(ticket: ticket(id, $0), stage: $0.stage) }
        }

        /// Every entry, in no particular order.
        public var values: some Sequence<Entry> {
            packed.lazy.map { Entry(ticket: ticket($0.key, $0.value), stage: $0.value.stage) }
        }

        /// The bytes one packed entry takes in the tree, beside its 16-byte key.
        static var packedEntryBytes: Int { MemoryLayout<Packed>.stride }

        func contains(_ id: TicketID) -> Bool { packed[id] != nil }

        func stage(of id: TicketID) -> Stage? { packed[id]?.stage }

        func kind(of id: TicketID) -> TicketKind? { packed[id]?.kind }

        /// The stage and the kind, in one lookup (every event that moves a ticket asks both).
        func stageAndKind(of id: TicketID) -> (stage: Stage, kind: TicketKind)? {
            packed[id].map { ($0.stage, $0.kind) }
        }

        /// The time that places the ticket in a business day (``Ticket/dayTime``).
        func dayTime(of id: TicketID) -> Timestamp? {
            packed[id].map { dayTime(id, $0) }
        }

        func calledAt(_ id: TicketID) -> Timestamp? {
            packed[id].flatMap { $0.calledAt == Packed.notCalled ? nil : Timestamp(milliseconds: $0.calledAt) }
        }

        /// When each ticket was first called.
        var calledTimes: [TicketID: Timestamp] {
            var times: [TicketID: Timestamp] = [:]
            for (id, entry) in packed where entry.calledAt != Packed.notCalled {
                times[id] = Timestamp(milliseconds: entry.calledAt)
            }
            return times
        }

        /// The ids whose entries satisfy `predicate` (its arguments: the stage and the ticket's day time).
        func ids(where predicate: (Stage, Timestamp) -> Bool) -> [TicketID] {
            packed.compactMap { id, entry in predicate(entry.stage, dayTime(id, entry)) ? id : nil }
        }

        mutating func insert(_ ticket: Ticket, stage: Stage) {
            let prefix = ticket.slot == nil ? Packed.pack(ticket.code.prefix) : nil
            packed[ticket.id] = Packed(ticket, stage: stage, prefix: prefix ?? 0)
            if prefix == nil { whole[ticket.id] = ticket }
        }

        mutating func setStage(_ stage: Stage, of id: TicketID) {
            update(id) { $0.stage = stage }
        }

        /// Stamps `id` as called at `time`, unless it was called before.
        mutating func stampCall(_ id: TicketID, at time: Timestamp) {
            update(id) { $0.stampCall(at: time) }
        }

        /// Changes `id`'s entry, if there is one, by reading it and writing it back — never in place
        /// (`packed[id]?.stage = …`): swift-collections 1.6's in-place update reads a node it no longer holds
        /// once it has copied the path, and a copy of this tree that another thread drops at that moment (a
        /// station's snapshot) frees it — a bad pointer or a failed assertion in a debug build.
        private mutating func update(_ id: TicketID, _ change: (inout Packed) -> Void) {
            guard var entry = packed[id] else { return }
            change(&entry)
            packed[id] = entry
        }

        mutating func remove(_ id: TicketID) {
            packed[id] = nil
            whole[id] = nil
        }

        /// From the whole ticket where it is kept whole (a booking: its slot start), else the issue time.
        private func dayTime(_ id: TicketID, _ entry: Packed) -> Timestamp {
            entry.prefix == 0 ? whole[id]?.dayTime ?? entry.issuedAt : entry.issuedAt
        }

        private func ticket(_ id: TicketID, _ entry: Packed) -> Ticket {
            if entry.prefix == 0, let ticket = whole[id] { return ticket }
            return Ticket(
                id: id,
                store: entry.store,
                kind: entry.kind,
                code: TicketCode(prefix: Packed.unpack(entry.prefix), number: entry.number),
                issuedAt: entry.issuedAt,
                issuer: entry.issuer
            )
        }
    }
}

/// A ticket without its id, and its stage; fields ordered so that nothing is padded.
private struct Packed: Sendable, Equatable {
    static let notCalled = Int64.min

    var store: StoreID
    var issuer: DeviceID
    var issuedAt: Timestamp
    var number: Int
    /// When the ticket was first called, in milliseconds; ``notCalled`` until then.
    var calledAt = notCalled
    var stage: QueueState.Stage
    var kind: TicketKind
    /// The code's prefix, one capital letter per byte (the second 0 for a one-letter prefix); 0 when the
    /// ticket is kept whole.
    var prefix: UInt16

    init(_ ticket: Ticket, stage: QueueState.Stage, prefix: UInt16) {
        store = ticket.store
        issuer = ticket.issuer
        issuedAt = ticket.issuedAt
        number = ticket.code.number
        self.stage = stage
        kind = ticket.kind
        self.prefix = prefix
    }

    mutating func stampCall(at time: Timestamp) {
        if calledAt == Self.notCalled { calledAt = time.milliseconds }
    }

    /// One or two capital letters in two bytes; nil for any other prefix.
    static func pack(_ prefix: String) -> UInt16? {
        let bytes = Array(prefix.utf8)
        guard (1...2).contains(bytes.count), bytes.allSatisfy({ (0x41...0x5A).contains($0) }) else { return nil }
        return UInt16(bytes[0]) << 8 | UInt16(bytes.count == 2 ? bytes[1] : 0)
    }

    static func unpack(_ prefix: UInt16) -> String {
        let first = UInt8(prefix >> 8)
        let second = UInt8(prefix & 0xFF)
        return String(decoding: second == 0 ? [first] : [first, second], as: UTF8.self)
    }
}
