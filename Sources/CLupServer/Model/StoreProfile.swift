import KioskCore

/// What a system manager registers about a store (R10) and the app shows (R1).
public struct StoreProfile: Sendable, Codable, Equatable {
    public struct Location: Sendable, Codable, Equatable {
        public var latitude: Double
        public var longitude: Double
    }

    /// Opening hours of one weekday, local time `HH:MM`; a day without hours is closed.
    public struct Hours: Sendable, Codable, Equatable {
        public var open: String
        public var close: String
    }

    public var name: String
    public var address: String
    public var location: Location
    public var capacity: Int
    /// Monday first, seven entries; `null` for a closed day.
    public var openingHours: [Hours?]
    /// The store's UTC offset in minutes (ticket numbers restart at opening time, local time).
    public var utcOffsetMinutes: Int
    public var averageVisitMinutes: Int
    public var slotMinutes: Int
    /// Bookings per slot.
    public var slotSize: Int

    /// Checks every field; the error names the first wrong one.
    public func validate() throws(APIError) {
        func bad(_ field: String, _ message: String) -> APIError { .badRequest(message, field: field) }
        if name.trimmingCharacters(in: .whitespaces).isEmpty || name.count > 200 {
            throw bad("name", "must be 1 to 200 characters")
        }
        if address.trimmingCharacters(in: .whitespaces).isEmpty || address.count > 500 {
            throw bad("address", "must be 1 to 500 characters")
        }
        if !(-90...90).contains(location.latitude) { throw bad("location.latitude", "must be within -90…90") }
        if !(-180...180).contains(location.longitude) { throw bad("location.longitude", "must be within -180…180") }
        if !(1...100_000).contains(capacity) { throw bad("capacity", "must be 1 to 100000 people") }
        if openingHours.count != 7 { throw bad("openingHours", "needs 7 entries, Monday first (null = closed)") }
        for (day, hours) in openingHours.enumerated() {
            guard let hours else { continue }
            guard let open = TimeOfDay(hours.open), let close = TimeOfDay(hours.close) else {
                throw bad("openingHours[\(day)]", "times are HH:MM")
            }
            if close.secondsAfterMidnight <= open.secondsAfterMidnight {
                throw bad("openingHours[\(day)].close", "must be after open")
            }
        }
        if !(-14 * 60...14 * 60).contains(utcOffsetMinutes) { throw bad("utcOffsetMinutes", "must be within ±840") }
        if !(1...600).contains(averageVisitMinutes) { throw bad("averageVisitMinutes", "must be 1 to 600") }
        if !(5...240).contains(slotMinutes) { throw bad("slotMinutes", "must be 5 to 240") }
        if !(0...capacity).contains(slotSize) { throw bad("slotSize", "must be 0 to the capacity") }
    }

    /// Ticket numbers of the app and bookings restart when the store opens (the earliest opening time).
    var dayStart: TimeOfDay {
        openingHours.compactMap { $0.flatMap { TimeOfDay($0.open) } }.min {
            $0.secondsAfterMidnight < $1.secondsAfterMidnight
        }
            ?? TimeOfDay(hour: 0, minute: 0)
    }
}
