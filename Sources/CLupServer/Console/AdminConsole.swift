import Foundation
import Hummingbird
import KioskCore

/// The system manager's page, `GET /console/stores`: every store, and a form that registers a store and its
/// manager (``StoreOffice/register(_:)``, as `POST /v1/stores`). The form keeps one opening time for every
/// day and the usual visit and slot settings; the store's manager refines them on the store's page.
struct AdminConsole {
    let sessions: ConsoleSessions
    let office: StoreOffice
    let directory: StoreDirectory
    let pages: PageResponse

    static let defaults: [String: String] = [
        "capacity": "20", "open": "08:00", "close": "20:00", "timeZone": "Europe/Rome", "latitude": "", "longitude": "",
        "name": "", "address": "", "manager": "",
    ]

    func register(on router: some RouterMethods<ServerContext>) {
        router.get("console/stores") { request, _ -> Response in
            guard await sessions.who(request) == .admin else { return await refuse(request) }
            var notice: String?
            if let name = sessions.signed("registered", in: request) {
                notice = PageStrings(request).format("console.registered", text: name)
            }
            return page(request, form: Self.defaults, notice: notice, problem: nil, status: .ok)
        }
        router.post("console/stores") { request, _ -> Response in
            let form = await ConsoleForm.read(request)
            guard await sessions.who(request) == .admin else { return await refuse(request) }
            let strings = PageStrings(request)
            guard sessions.formIsGenuine(request, csrf: form["csrf"]) else {
                return page(
                    request,
                    form: form.fields,
                    notice: nil,
                    problem: strings["console.stale_form"],
                    status: .forbidden
                )
            }
            do {
                let registration = try Self.registration(form)
                _ = try await office.register(registration)
                let name = registration.store.name
                return ConsoleRoutes.redirect("/console/stores?" + sessions.signedQuery("registered", name))
            } catch {
                let error = ConsoleSessions.refusal(error, request)
                let problem = strings.format("console.problem", text: error.description)
                return page(request, form: form.fields, notice: nil, problem: problem, status: error.status)
            }
        }
    }

    private func refuse(_ request: Request) async -> Response {
        ConsoleRoutes.notAdmin(request, await sessions.who(request), at: "/console/stores", pages: pages)
    }

    private func page(
        _ request: Request,
        form: [String: String],
        notice: String?,
        problem: String?,
        status: HTTPResponse.Status
    ) -> Response {
        let strings = PageStrings(request)
        let sorted = directory.all.sorted { $0.record.profile.name < $1.record.profile.name }
        let stores = sorted.map { live -> [String: Any] in
            [
                "id": ConsoleRoutes.id(live.record.id), "name": live.record.profile.name,
                "address": live.record.profile.address, "capacity": live.state.capacity,
            ]
        }
        var values: [String: Any] = [
            "w": ConsoleView.words(strings), "wide": true, "script": ConsoleScript.text,
            "pageTitle": "\(strings["console.title"]) — \(strings["console.stores"])",
            "signedInAs": strings.format("console.signed_in_as", text: "admin"), "csrf": sessions.csrf(request),
            "stores": stores, "form": form.filter { $0.key != "password" && $0.key != "csrf" },
        ]
        values["notice"] = notice
        values["problem"] = problem
        return pages.page("consoleAdmin", values, strings, status: status)
    }

    /// The form as the API's registration; numbers that are not numbers are named.
    static func registration(_ form: ConsoleForm) throws(Refusal) -> StoreOffice.Registration {
        func number(_ name: String) throws(Refusal) -> Double {
            guard let text = form[name], let value = Double(text.trimmingCharacters(in: .whitespaces)),
                value.isFinite
            else { throw Refusal.invalid("a number", field: name) }
            return value
        }
        func whole(_ name: String) throws(Refusal) -> Int {
            let value = try number(name)
            guard value == value.rounded(), abs(value) <= 1_000_000 else {
                throw Refusal.invalid("a whole number", field: name)
            }
            return Int(value)
        }
        let close = String((form["close"] ?? "").prefix(5))
        let hours = StoreProfile.Hours(
            open: String((form["open"] ?? "").prefix(5)),
            // A time field cannot hold 24:00: a closing time of 00:00 is midnight, the end of the day.
            close: close == "00:00" ? "24:00" : close
        )
        let capacity = try whole("capacity")
        let profile = StoreProfile(
            name: form["name"] ?? "",
            address: form["address"] ?? "",
            location: .init(latitude: try number("latitude"), longitude: try number("longitude")),
            capacity: capacity,
            openingHours: Array(repeating: hours, count: 7),
            timeZone: String((form["timeZone"] ?? "").prefix(64)),
            averageVisitMinutes: 20,
            slotMinutes: 30,
            slotSize: max(1, capacity / 4)
        )
        return StoreOffice.Registration(
            store: profile,
            manager: .init(username: form["manager"] ?? "", password: form["password"] ?? "")
        )
    }
}
