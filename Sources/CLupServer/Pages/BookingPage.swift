import Foundation
import Hummingbird
import KioskCore

/// Booking a visit in the browser, `GET /stores/<id>/book?date=YYYY-MM-DD` (the store's today by default):
/// the day's slots with the places left (the API's slot list, ``ShopperDesk``'s day), an optional
/// length of stay, and for a full slot the nearest free ones. Choosing a slot books it through the API (the
/// page's script) and opens the booking's ticket page with its QR.
struct BookingPage {
    let directory: StoreDirectory
    let desk: ShopperDesk
    let pages: PageResponse

    static let stays = [15, 30, 45, 60, 90, 120]

    func register(on router: some RouterMethods<ServerContext>) {
        router.get("stores/:store/book") { request, context -> Response in
            let strings = PageStrings(request)
            guard let id = context.parameters.get("store").flatMap(UUID.init(uuidString:)),
                let live = directory.store(id)
            else {
                return pages.message(strings["problem"], strings["error.404"], strings, status: .notFound)
            }
            let profile = live.record.profile
            let clock = StoreClock(profile)
            let today = clock.day(directory.clock.now().milliseconds)
            let date = request.uri.queryParameters["date"].map(String.init) ?? StoreClock.date(today)
            var values: [String: Any] = [
                "title": strings["book_title"], "pageTitle": "\(strings["book_title"]) — \(profile.name)",
                "store": profile.name, "storeID": id.uuidString.lowercased(), "back": strings["back"],
                "dayLabel": strings["day"], "showSlots": strings["show_slots"], "stay": strings["stay"],
                "stayUnknown": strings["stay_unknown"], "stays": Self.stays, "full": strings["full"],
                "nearestLabel": strings["nearest"], "noSlots": strings["no_slots"], "needsScript": strings["needs_js"],
                "date": date, "firstDate": StoreClock.date(today),
                "lastDate": StoreClock.date(today + Int64(desk.bookingHorizonDays)),
            ]
            do throws(Refusal) {
                let day = try desk.day(live, date: date)
                values["slotsTitle"] = strings.format(
                    "slots_on",
                    text: StoreClock.dayText(Slots.day(day.date) ?? today, strings)
                )
                values["slots"] = slots(day.slots, clock: clock, strings)
                return pages.page("book", values, strings)
            } catch {
                values["date"] = StoreClock.date(today)
                values["slotsTitle"] = strings.format("slots_on", text: "—")
                values["error"] = "\(strings["error.400"]) (\(error.description))"
                return pages.page("book", values, strings, status: error.status)
            }
        }
    }

    /// Each slot with its time and places left; a full one with up to two free slots before it and two after.
    private func slots(_ slots: [Slots.Slot], clock: StoreClock, _ strings: PageStrings) -> [[String: Any]] {
        func time(_ slot: Slots.Slot) -> String { "\(clock.time(slot.start))–\(clock.time(slot.end))" }
        return slots.enumerated().map { index, slot in
            var values: [String: Any] = [
                "start": String(slot.start), "time": time(slot), "free": slot.available > 0,
                "places": strings.count(slot.available, none: "full", one: "places_one", many: "places_many"),
            ]
            if slot.available == 0 {
                let before = slots[..<index].filter { $0.available > 0 }.suffix(2)
                let after = slots[(index + 1)...].filter { $0.available > 0 }.prefix(2)
                let choices = (before + after).map { ["start": String($0.start), "time": time($0)] }
                if !choices.isEmpty { values["nearest"] = ["choices": choices] }
            }
            return values
        }
    }
}
