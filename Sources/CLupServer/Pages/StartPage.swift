import Foundation
import Hummingbird
import KioskCore

/// The shopper's start page, `GET /`: the tickets this device holds (from local storage, by the script), a
/// search for stores by name or town (a plain form) or near the shopper (the browser's position, if
/// allowed), and for each store found its line now, the wait for a ticket taken now, one button that takes a
/// virtual ticket and a link to book a visit. The search is the API's store search (``StoreSearch``); a
/// search the API would refuse gets the page with its message and a 400.
struct StartPage {
    let desk: ShopperDesk
    let directory: StoreDirectory
    let pages: PageResponse

    func register(on router: some RouterMethods<ServerContext>) {
        router.get("/") { request, _ -> Response in
            let strings = PageStrings(request)
            let query = request.uri.queryParameters
            var values = words(strings)
            values["query"] = query["q"].map(String.init) ?? ""
            guard StoreSearch.parameters.contains(where: { query[$0[...]] != nil }) else {
                return pages.page("start", values, strings)
            }
            do throws(Refusal) {
                let search = try StoreSearch(request)
                values["searched"] = true
                values["stores"] = desk.stores(for: search).map { store(($0), strings) }
                return pages.page("start", values, strings)
            } catch {
                values["error"] = "\(strings["error.400"]) (\(error.description))"
                return pages.page("start", values, strings, status: error.status)
            }
        }
    }

    private func words(_ strings: PageStrings) -> [String: Any] {
        [
            "pageTitle": strings["app"], "app": strings["app"], "mineTitle": strings["mine"], "find": strings["find"],
            "searchLabel": strings["search_label"], "search": strings["search"], "nearMe": strings["near_me"],
            "results": strings["results"], "noStores": strings["no_stores"], "take": strings["take"],
            "book": strings["book"], "needsScript": strings["needs_js"],
        ]
    }

    private func store(_ store: ShopperDesk.StoreSummary, _ strings: PageStrings) -> [String: Any] {
        let minutes = strings.wait(
            seconds: store.estimatedWaitSeconds,
            low: store.estimatedWaitLowSeconds,
            high: store.estimatedWaitHighSeconds
        )
        var values: [String: Any] = [
            "id": store.id.uuidString.lowercased(), "name": store.name, "address": store.address,
            "waiting": strings.count(store.waiting, none: "waiting_none", one: "waiting_one", many: "waiting_many"),
            "waitNow": strings.format("wait_now", text: minutes),
        ]
        if let km = store.distanceKm {
            values["distance"] = strings.format("km", text: String(format: "%.1f", km))
        }
        values["canTake"] = true
        if let opens = store.opensAt, let calendar = directory.store(store.id)?.record.profile.calendar {
            let now = directory.clock.now()
            let weekdays = (0..<7).map { strings["weekday.\($0)"] }
            func text(_ ms: Int64) -> String {
                calendar.text(of: Timestamp(milliseconds: ms), from: now, weekdays: weekdays)
            }
            values["closedText"] = strings.format("closed_now", text: text(opens))
            if let from = store.ticketsFrom, from > now.milliseconds {
                values["canTake"] = false
                values["ticketsFromText"] = strings.format("tickets_from", text: text(from))
            }
        }
        return values
    }
}
