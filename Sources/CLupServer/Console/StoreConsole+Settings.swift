import KioskCore

/// The store page's settings form: read as the API's settings (``StoreOffice/Settings``), and its choices.
extension StoreConsole {
    /// The settings form as the API's settings: a checked "closed" or an empty time closes that day.
    static func settings(_ form: ConsoleForm) throws(Refusal) -> StoreOffice.Settings {
        func number(_ name: String) throws(Refusal) -> Int {
            guard let text = form[name], let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw Refusal.invalid("a whole number", field: name)
            }
            return value
        }
        var hours: [StoreProfile.Hours?] = []
        for day in 0..<7 {
            let open = form["open\(day)"] ?? ""
            let close = form["close\(day)"] ?? ""
            if form["closed\(day)"] == "on" || open.isEmpty || close.isEmpty {
                hours.append(nil)
            } else {
                // A time field cannot hold 24:00: a closing time of 00:00 is midnight, the end of the day.
                let end = close.hasPrefix("00:00") ? "24:00" : String(close.prefix(5))
                hours.append(StoreProfile.Hours(open: String(open.prefix(5)), close: end))
            }
        }
        let before = (form["ticketsBeforeOpening"] ?? "").trimmingCharacters(in: .whitespaces)
        return StoreOffice.Settings(
            capacity: try number("capacity"),
            openingHours: hours,
            averageVisitMinutes: try number("averageVisitMinutes"),
            slotMinutes: try number("slotMinutes"),
            slotSize: try number("slotSize"),
            ticketsBeforeOpeningMinutes: .some(before.isEmpty ? nil : try number("ticketsBeforeOpening")),
            // "it,en": the main language first (the form offers each order of the languages there are).
            languages: form["languages"].map { $0.split(separator: ",").map(String.init) },
            // An unchecked box is not sent: the form always carries the volume beside it.
            largePrint: form["voiceVolume"] == nil ? nil : form["largePrint"] == "on",
            voiceVolume: form["voiceVolume"] == nil ? nil : try number("voiceVolume"),
            footer: form["footer"],
            // Absent from a form of a page served before they were: unchanged.
            recallMinutes: form["recallMinutes"] == nil ? nil : try number("recallMinutes"),
            recalls: form["recalls"] == nil ? nil : try number("recalls"),
            stopTicketsPastClosing: form["voiceVolume"] == nil ? nil : form["stopTicketsPastClosing"] == "on"
        )
    }

    /// The languages form's choices: each language alone, then each pair in both orders.
    static func languageChoices(_ chosen: [String], _ strings: PageStrings) -> [[String: Any]] {
        let codes = SpokenLanguage.allCases.map(\.rawValue)
        let orders = codes.map { [$0] } + codes.flatMap { first in codes.filter { $0 != first }.map { [first, $0] } }
        return orders.map { order in
            [
                "value": order.joined(separator: ","), "selected": order == chosen,
                "name": order.map { strings["console.language." + $0] }.joined(separator: " + "),
            ]
        }
    }
}
