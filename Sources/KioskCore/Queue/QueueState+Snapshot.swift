import HashTreeCollections

extension QueueState {
    /// The state as it can be stored and read back: what the fold holds beyond the events it folded, so that a
    /// server starts from a store's last snapshot and folds only the events after it, never the store's whole
    /// history. ``init(snapshot:)`` gives back a state equal to the one snapshotted, which then folds the
    /// next events exactly as the original would (``QueueSnapshotTests`` checks both on random logs).
    ///
    /// The line's order is not stored: it follows from the waiting tickets and when they joined.
    public struct Snapshot: Sendable, Codable, Equatable {
        /// The form's version: a snapshot of another version is not read (the log is folded instead).
        public static let currentVersion = 1

        struct Stored: Sendable, Codable, Equatable {
            var ticket: Ticket
            var stage: Stage
            var calledAt: Timestamp?
        }

        public var version = Self.currentVersion
        var entries: [Stored]
        var capacity: Int
        var inside: Int
        var orphanEvents: Int
        /// Absent from snapshots of versions before events of unknown types were kept.
        var newerEvents: Int?
        var conflicts: [AdmissionConflict]
        var admittedBy: [TicketID: DeviceID]
        var day: BusinessDay?
        var dayStartedAt: Timestamp?
        var hours: DayHours?
        /// Absent from snapshots of versions before a day could keep the line (it did not).
        var lineKept: Bool?
        var openingStamped: Bool
        var insideAtLastDayEnd: Int
        var admittedTimes: [Timestamp]
        var exitTimes: [Timestamp]
        /// Absent from snapshots of versions before staff could correct the count (none was).
        var correction: CountCorrection?
        /// Absent from snapshots of versions before staff could pause the calls (none did).
        var pauses: LinePauses?
        /// Absent from snapshots of versions before holders told their journey (none did).
        var journeys: HolderJourneys?

        /// How many tickets it holds (one business day's, and those still live across its start).
        public var ticketCount: Int { entries.count }
    }

    public var snapshot: Snapshot {
        Snapshot(
            entries: entries.values.map {
                Snapshot.Stored(ticket: $0.ticket, stage: $0.stage, calledAt: entries.calledAt($0.ticket.id))
            }
            .sorted { $0.ticket.id.uuidString < $1.ticket.id.uuidString },
            capacity: capacity,
            inside: inside,
            orphanEvents: orphanEvents,
            newerEvents: newerEvents,
            conflicts: conflicts,
            admittedBy: Dictionary(uniqueKeysWithValues: admittedBy.map { ($0.key, $0.value) }),
            day: day,
            dayStartedAt: dayStartedAt,
            hours: hours,
            lineKept: lineKept,
            openingStamped: openingStamped.value,
            insideAtLastDayEnd: insideAtLastDayEnd,
            admittedTimes: admittedTimes,
            exitTimes: exitTimes,
            correction: correction,
            pauses: pauses,
            journeys: journeys
        )
    }

    /// The state a snapshot was taken of; nil for a snapshot of another version.
    public init?(snapshot: Snapshot) {
        guard snapshot.version == Snapshot.currentVersion else { return nil }
        self.init(capacity: snapshot.capacity)
        for stored in snapshot.entries {
            entries.insert(stored.ticket, stage: stored.stage)
            if let called = stored.calledAt { entries.stampCall(stored.ticket.id, at: called) }
            if case .waiting(let joined) = stored.stage {
                joinLine(LineKey(joined: joined, id: stored.ticket.id, kind: stored.ticket.kind))
            }
        }
        inside = snapshot.inside
        orphanEvents = snapshot.orphanEvents
        newerEvents = snapshot.newerEvents ?? 0
        conflicts = snapshot.conflicts
        admittedBy = TreeDictionary(uniqueKeysWithValues: snapshot.admittedBy.map { ($0.key, $0.value) })
        day = snapshot.day
        dayStartedAt = snapshot.dayStartedAt
        hours = snapshot.hours
        lineKept = snapshot.lineKept ?? false
        openingStamped = Flag(value: snapshot.openingStamped)
        insideAtLastDayEnd = snapshot.insideAtLastDayEnd
        admittedTimes = snapshot.admittedTimes
        exitTimes = snapshot.exitTimes
        correction = snapshot.correction
        pauses = snapshot.pauses ?? LinePauses()
        journeys = snapshot.journeys ?? HolderJourneys()
    }
}
