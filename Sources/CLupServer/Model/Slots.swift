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
        return BusinessDay(year: y, month: m, day: d).number
    }

    /// Every slot of a local day with how many places are left; past slots are left out.
    static func of(
        day: Int64,
        profile: StoreProfile,
        booked: (Timestamp) -> Int,
        now: Timestamp
    ) -> [Slot] {
        guard let hours = profile.openingHours[BusinessDay(number: day).weekday], let open = TimeOfDay(hours.open),
            let close = TimeOfDay(closing: hours.close)
        else { return [] }
        // Slots start at the store's clock times: a day with a daylight-saving change has them at the same
        // local times as any other (a time the clock skips starts as much later: kept only once).
        let length = Int64(profile.slotMinutes) * 60
        let zone = profile.zone
        var slots: [Slot] = []
        var local = Int64(open.secondsAfterMidnight)
        while local + length <= Int64(close.secondsAfterMidnight) {
            let start = BusinessDay(number: day).instant(secondsAfterMidnight: Int(local), zone: zone).milliseconds
            if start > now.milliseconds, start > (slots.last?.start ?? .min) {
                let left = profile.slotSize - booked(Timestamp(milliseconds: start))
                slots.append(Slot(start: start, end: start + length * 1000, available: max(left, 0)))
            }
            local += length
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
