import KioskCore

/// A store's booking slots (R15, R16): its opening hours cut into `slotMinutes` pieces, each taking
/// `slotSize` bookings. Pure: the caller passes the day and what is booked.
enum Slots {
    struct Slot: Codable, Equatable {
        var start: Int64
        var end: Int64
        var available: Int
    }

    /// The day `date` (`YYYY-MM-DD`, the store's local date) as days since 1970-01-01, or nil.
    static func day(_ date: String) -> Int64? {
        let parts = date.split(separator: "-")
        guard parts.count == 3, parts[0].count == 4, let y = Int64(parts[0]), let m = Int64(parts[1]),
            let d = Int64(parts[2]), (1...12).contains(m), (1...31).contains(d)
        else { return nil }
        // Days from civil (Howard Hinnant's algorithm).
        let yy = m <= 2 ? y - 1 : y
        let era = (yy >= 0 ? yy : yy - 399) / 400
        let yoe = yy - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return days
    }

    /// Every slot of a local day with how many places are left; past slots are left out.
    static func of(
        day: Int64,
        profile: StoreProfile,
        booked: (Timestamp) -> Int,
        now: Timestamp
    ) -> [Slot] {
        guard let hours = profile.openingHours[BusinessDay(number: day).weekday], let open = TimeOfDay(hours.open),
            let close = TimeOfDay(hours.close)
        else { return [] }
        let midnight = day * 86_400_000 - Int64(profile.utcOffsetMinutes) * 60_000
        let length = Int64(profile.slotMinutes) * 60_000
        var slots: [Slot] = []
        var start = midnight + Int64(open.secondsAfterMidnight) * 1000
        let end = midnight + Int64(close.secondsAfterMidnight) * 1000
        while start + length <= end {
            if start > now.milliseconds {
                let left = profile.slotSize - booked(Timestamp(milliseconds: start))
                slots.append(Slot(start: start, end: start + length, available: max(left, 0)))
            }
            start += length
        }
        return slots
    }

    /// Bookings holding a place, by slot start: one pass over the queue for a whole day's slots.
    static func bookedCounts(_ state: QueueState) -> [Timestamp: Int] {
        var counts: [Timestamp: Int] = [:]
        for entry in state.entries.values {
            if let start = heldSlot(entry) { counts[start, default: 0] += 1 }
        }
        return counts
    }

    /// Bookings that hold a place in the slot starting at `start`.
    static func booked(_ state: QueueState, start: Timestamp) -> Int {
        state.entries.values.count { heldSlot($0) == start }
    }

    /// The start of the slot a booking holds a place in (nil for other tickets, and cancelled or expired
    /// bookings).
    private static func heldSlot(_ entry: QueueState.Entry) -> Timestamp? {
        guard entry.ticket.kind == .booking else { return nil }
        switch entry.stage {
        case .cancelled, .expired: return nil
        default: return entry.ticket.slot?.start
        }
    }
}
