import Drivers
import KioskCore
import StrictTOML

extension KioskConfig {
    static let weekdays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// `[store]`'s hours: `hours` (seven entries, Monday first, `"07:00-21:00"` or `"closed"`), or
    /// `opening_time` / `closing_time` / `closed_days` for a week that is the same every open day; and
    /// `tickets_before_opening_minutes`.
    static func parseHours(_ table: StrictTable) throws(TOMLFileError) -> StoreHours {
        var week: [StoreHours.Opening?]
        if let days = try table.strings("hours") {
            for key in ["opening_time", "closing_time", "closed_days"] where table.has(key) {
                throw table.error(key, "set either hours (the whole week) or \(key), not both")
            }
            guard days.count == 7 else {
                throw table.error("hours", "needs 7 entries, Monday first: \"07:00-21:00\" or \"closed\"")
            }
            week = []
            for (index, text) in days.enumerated() {
                if text == "closed" {
                    week.append(nil)
                    continue
                }
                let parts = text.split(separator: "-").map(String.init)
                guard parts.count == 2, let open = TimeOfDay(parts[0]), let close = TimeOfDay(closing: parts[1]) else {
                    throw table.error("hours", "\(weekdays[index]): '\(text)' — write \"07:00-21:00\" or \"closed\"")
                }
                week.append(StoreHours.Opening(open: open, close: close))
            }
        } else {
            var open = TimeOfDay(hour: 7, minute: 0)
            if let text = try table.string("opening_time") {
                guard let time = TimeOfDay(text) else { throw table.error("opening_time", "'\(text)' is not HH:MM") }
                open = time
            }
            var close: TimeOfDay?
            if let text = try table.string("closing_time"), !text.isEmpty {
                guard let time = TimeOfDay(closing: text) else {
                    throw table.error("closing_time", "'\(text)' is not HH:MM (24:00 for midnight)")
                }
                close = time
            }
            var closed: Set<Int> = []
            for name in try table.strings("closed_days") ?? [] {
                guard let day = weekdays.firstIndex(of: name.lowercased()) else {
                    throw table.error("closed_days", "'\(name)' is not a weekday (monday … sunday)")
                }
                closed.insert(day)
            }
            if !closed.isEmpty && close == nil {
                throw table.error("closed_days", "needs closing_time: without one the store never closes")
            }
            week = (0..<7).map { closed.contains($0) ? nil : StoreHours.Opening(open: open, close: close) }
        }
        let before = try table.int("tickets_before_opening_minutes", in: 0...720).map { Duration.seconds($0 * 60) }
        do {
            return try StoreHours(week: week, ticketsBeforeOpening: before)
        } catch {
            let day = error.field.map { "\(weekdays[$0]): " } ?? ""
            throw table.error(table.has("hours") ? "hours" : "closing_time", day + error.message)
        }
    }
}
