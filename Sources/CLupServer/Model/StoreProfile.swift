import Foundation
import KioskCore
import ServiceSupport
import SyncWire

/// What a system manager registers about a store (R10) and the app shows (R1).
public struct StoreProfile: Sendable, Codable, Equatable {
    public struct Location: Sendable, Codable, Equatable {
        public var latitude: Double
        public var longitude: Double

        public init(latitude: Double, longitude: Double) {
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    /// Opening hours of one weekday, local time `HH:MM`; a day without hours is closed.
    public struct Hours: Sendable, Codable, Equatable {
        public var open: String
        public var close: String

        public init(open: String, close: String) {
            self.open = open
            self.close = close
        }
    }

    public var name: String
    public var address: String
    public var location: Location
    public var capacity: Int
    /// Monday first, seven entries; `null` for a closed day.
    public var openingHours: [Hours?]
    /// The store's IANA time zone (`Europe/Rome`): opening hours, slots, the business day (ticket numbers restart
    /// at opening time) and the wait model's hours are on its clock. A store registered with a fixed
    /// `utcOffsetMinutes` (older clients, stores from before time zones) has `UTC±HH:MM`.
    public var timeZone: String
    public var averageVisitMinutes: Int
    public var slotMinutes: Int
    /// Bookings per slot.
    public var slotSize: Int
    /// How long before opening the app and the printers hand out tickets for the day (nil: all the time the
    /// store is closed, 0: only while open).
    public var ticketsBeforeOpeningMinutes: Int?
    /// The languages of the store's paper, window display and voice, first the main one (``SpokenLanguage``
    /// codes); its kiosks follow them (``StoreSettings``). English alone unless set.
    public var languages = ["en"]
    /// Large print on every ticket its printers print, for people with low vision (off unless set).
    public var largePrint = false
    /// Its kiosks' voice volume, 0–100 percent.
    public var voiceVolume = 90
    /// The store's line at the bottom of each ticket and on the window display (empty: none).
    public var footer = ""
    /// Minutes after a call that a ticket not seen at the door is called again (0: no second call), and how many
    /// times at most: its kiosks' display and voice and the holder's page say each (``RecallPolicy``). The
    /// ticket's window still counts from the first call, so a recall due at or after its end is not made.
    public var recallMinutes = 0
    public var recalls = 1
    /// No ticket is handed out — by its printers, by the app — once the wait a new one would be told passes the
    /// day's closing (``LastTickets``; off unless set).
    public var stopTicketsPastClosing = false

    public init(
        name: String,
        address: String,
        location: Location,
        capacity: Int,
        openingHours: [Hours?],
        timeZone: String,
        averageVisitMinutes: Int,
        slotMinutes: Int,
        slotSize: Int,
        ticketsBeforeOpeningMinutes: Int? = nil
    ) {
        self.name = name
        self.address = address
        self.location = location
        self.capacity = capacity
        self.openingHours = openingHours
        self.timeZone = timeZone
        self.averageVisitMinutes = averageVisitMinutes
        self.slotMinutes = slotMinutes
        self.slotSize = slotSize
        self.ticketsBeforeOpeningMinutes = ticketsBeforeOpeningMinutes
    }

    /// Checks every field; the error names the first wrong one.
    public func validate() throws(Refusal) {
        func bad(_ field: String, _ message: String) -> Refusal { .invalid(message, field: field) }
        // Sizes in scalars, bounded in bytes, before anything walks the text.
        if !TextLimit(1...200).allows(name) || name.trimmingCharacters(in: .whitespaces).isEmpty {
            throw bad("name", "must be 1 to 200 characters")
        }
        if !TextLimit(1...500).allows(address) || address.trimmingCharacters(in: .whitespaces).isEmpty {
            throw bad("address", "must be 1 to 500 characters")
        }
        if !(-90...90).contains(location.latitude) { throw bad("location.latitude", "must be within -90…90") }
        if !(-180...180).contains(location.longitude) { throw bad("location.longitude", "must be within -180…180") }
        if !StoreCapacity.range.contains(capacity) {
            throw bad(
                "capacity",
                "must be \(StoreCapacity.range.lowerBound) to \(StoreCapacity.range.upperBound) people"
            )
        }
        if openingHours.count != 7 { throw bad("openingHours", "needs 7 entries, Monday first (null = closed)") }
        for (day, hours) in openingHours.enumerated() {
            guard let hours else { continue }
            guard let open = TimeOfDay(hours.open), let close = TimeOfDay(closing: hours.close) else {
                throw bad("openingHours[\(day)]", "times are HH:MM (a closing time may be 24:00)")
            }
            if close.secondsAfterMidnight <= open.secondsAfterMidnight {
                throw bad("openingHours[\(day)].close", "must be after open")
            }
        }
        if !openingHours.contains(where: { $0 != nil }) {
            throw bad("openingHours", "at least one day must have opening hours")
        }
        if let minutes = ticketsBeforeOpeningMinutes, !(0...720).contains(minutes) {
            throw bad("ticketsBeforeOpeningMinutes", "must be 0 to 720, or null for all the time the store is closed")
        }
        do { _ = try TimeZoneDirectory.system.zone(named: timeZone) } catch {
            throw bad("timeZone", "\(error.reason)")
        }
        if !(1...600).contains(averageVisitMinutes) { throw bad("averageVisitMinutes", "must be 1 to 600") }
        if !(5...240).contains(slotMinutes) { throw bad("slotMinutes", "must be 5 to 240") }
        if !(0...capacity).contains(slotSize) { throw bad("slotSize", "must be 0 to the capacity") }
        if !StoreSettings.valid(languages: languages) {
            let codes = SpokenLanguage.allCases.map(\.rawValue).joined(separator: ", ")
            throw bad("languages", "1 or 2 of \(codes), none twice, the main one first")
        }
        if !StoreSettings.voiceVolumeRange.contains(voiceVolume) { throw bad("voiceVolume", "must be 0 to 100") }
        if !StoreSettings.valid(footer: footer) {
            throw bad("footer", "at most 80 characters, without control characters (a line, not a paragraph)")
        }
        if !RecallPolicy.minutes.contains(recallMinutes) {
            throw bad("recallMinutes", "must be 0 (no second call) to 60 minutes after the call")
        }
        if !RecallPolicy.timesRange.contains(recalls) { throw bad("recalls", "must be 1 to 5") }
    }

    /// The rules of ``timeZone`` (UTC if the system no longer knows the name: validated when it was set).
    var zone: StoreTimeZone { (try? TimeZoneDirectory.system.zone(named: timeZone)) ?? .utc }

    /// The week's hours as KioskCore's rules read them (validated when they were set; a stored profile that no
    /// longer reads is open all day).
    public var hours: StoreHours {
        let week = openingHours.map { day in
            day.flatMap { day in
                TimeOfDay(day.open).map { StoreHours.Opening(open: $0, close: TimeOfDay(closing: day.close)) }
            }
        }
        return
            (try? StoreHours(week: week, ticketsBeforeOpening: ticketsBeforeOpeningMinutes.map { .seconds($0 * 60) }))
            ?? .openAllDay
    }

    /// The store's hours on its clock: business days, when it opens and closes, when tickets are handed out.
    public var calendar: StoreCalendar { StoreCalendar(hours: hours, zone: zone) }
}

extension StoreProfile {
    enum CodingKeys: String, CodingKey {
        case name, address, location, capacity, openingHours, timeZone, utcOffsetMinutes, averageVisitMinutes
        case slotMinutes, slotSize, ticketsBeforeOpeningMinutes, languages, largePrint, voiceVolume, footer
        case recallMinutes, recalls, stopTicketsPastClosing
    }

    /// `timeZone`, or for older clients and stored profiles from before time zones `utcOffsetMinutes` (a fixed
    /// offset, checked before it is multiplied).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        address = try c.decode(String.self, forKey: .address)
        location = try c.decode(Location.self, forKey: .location)
        capacity = try c.decode(Int.self, forKey: .capacity)
        openingHours = try c.decode([Hours?].self, forKey: .openingHours)
        averageVisitMinutes = try c.decode(Int.self, forKey: .averageVisitMinutes)
        slotMinutes = try c.decode(Int.self, forKey: .slotMinutes)
        slotSize = try c.decode(Int.self, forKey: .slotSize)
        ticketsBeforeOpeningMinutes = try c.decodeIfPresent(Int.self, forKey: .ticketsBeforeOpeningMinutes)
        languages = try c.decodeIfPresent([String].self, forKey: .languages) ?? ["en"]
        largePrint = try c.decodeIfPresent(Bool.self, forKey: .largePrint) ?? false
        voiceVolume = try c.decodeIfPresent(Int.self, forKey: .voiceVolume) ?? 90
        footer = try c.decodeIfPresent(String.self, forKey: .footer) ?? ""
        recallMinutes = try c.decodeIfPresent(Int.self, forKey: .recallMinutes) ?? 0
        recalls = try c.decodeIfPresent(Int.self, forKey: .recalls) ?? 1
        stopTicketsPastClosing = try c.decodeIfPresent(Bool.self, forKey: .stopTicketsPastClosing) ?? false
        if let zone = try c.decodeIfPresent(String.self, forKey: .timeZone) {
            timeZone = zone
        } else if let minutes = try c.decodeIfPresent(Int.self, forKey: .utcOffsetMinutes) {
            guard (-14 * 60...14 * 60).contains(minutes) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .utcOffsetMinutes,
                    in: c,
                    debugDescription: "must be within ±840 (better: send timeZone, e.g. \"Europe/Rome\")"
                )
            }
            timeZone = StoreTimeZone.fixedName(minutes * 60)
        } else {
            throw DecodingError.keyNotFound(
                CodingKeys.timeZone,
                .init(codingPath: c.codingPath, debugDescription: "the store's IANA time zone, e.g. \"Europe/Rome\"")
            )
        }
    }

    /// Also `utcOffsetMinutes`, the zone's offset now, for clients from before time zones.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(address, forKey: .address)
        try c.encode(location, forKey: .location)
        try c.encode(capacity, forKey: .capacity)
        try c.encode(openingHours, forKey: .openingHours)
        try c.encode(timeZone, forKey: .timeZone)
        let now = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        try c.encode(zone.offset(at: now) / 60, forKey: .utcOffsetMinutes)
        try c.encode(averageVisitMinutes, forKey: .averageVisitMinutes)
        try c.encode(slotMinutes, forKey: .slotMinutes)
        try c.encode(slotSize, forKey: .slotSize)
        try c.encode(ticketsBeforeOpeningMinutes, forKey: .ticketsBeforeOpeningMinutes)
        try c.encode(languages, forKey: .languages)
        try c.encode(largePrint, forKey: .largePrint)
        try c.encode(voiceVolume, forKey: .voiceVolume)
        try c.encode(footer, forKey: .footer)
        try c.encode(recallMinutes, forKey: .recallMinutes)
        try c.encode(recalls, forKey: .recalls)
        try c.encode(stopTicketsPastClosing, forKey: .stopTicketsPastClosing)
    }
}
