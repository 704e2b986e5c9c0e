import Foundation
import Hummingbird
import KioskCore

/// The system manager's fleet page, `GET /console/fleet`: every store's kiosks with their version, protocol,
/// last contact, clock and what needs a person, filtered by version and problem (``Fleet``, as
/// `GET /v1/devices`). The version list offers the versions the fleet reports.
struct FleetConsole {
    let sessions: ConsoleSessions
    let fleet: Fleet
    let directory: StoreDirectory
    let pages: PageResponse

    func register(on router: some RouterMethods<ServerContext>) {
        router.get("console/fleet") { request, _ -> Response in
            // The filter first: a wrong one is named whoever asks (it tells nothing about the fleet).
            let query = request.uri.queryParameters
            let version = query["version"].map(Fleet.formDecoded).flatMap { $0.isEmpty ? nil : $0 }
            let problem = query["problem"].map(Fleet.formDecoded).flatMap { $0.isEmpty ? nil : $0 }
            let filter: (version: String?, problem: KioskProblem?)
            do throws(Refusal) {
                filter = try Fleet.filter(version: version, problem: problem)
            } catch {
                return refuse(request, error)
            }
            let who = await sessions.who(request)
            guard who == .admin else { return ConsoleRoutes.notAdmin(request, who, at: "/console/fleet", pages: pages) }
            do {
                let every = try await fleet.kiosks(of: nil)
                let shown = every.filter { Fleet.matches($0, version: filter.version, problem: filter.problem) }
                return page(request, every: every, shown: shown, version: filter.version, problem: filter.problem)
            } catch {
                let error = ConsoleSessions.refusal(error, request)
                return refuse(request, error)
            }
        }
    }

    /// A page saying why nothing is shown (a wrong filter, storage that failed).
    private func refuse(_ request: Request, _ error: Refusal) -> Response {
        let strings = PageStrings(request)
        let text = strings.format("console.problem_query", text: error.description)
        return pages.message(strings["problem"], text, strings, status: error.status)
    }

    private func page(
        _ request: Request,
        every: [EnrolledDevice],
        shown: [EnrolledDevice],
        version: String?,
        problem: KioskProblem?
    ) -> Response {
        let strings = PageStrings(request)
        let now = directory.clock.now()
        let names = Dictionary(directory.all.map { ($0.record.id, $0.record.profile.name) }) { first, _ in first }
        let versions = Set(every.compactMap { $0.health?.version }).sorted()
        let rows = shown.map { device -> [String: Any] in
            let kiosk = ConsoleView.kiosk(device, now: now, strings)
            return [
                "store": ConsoleRoutes.id(device.store), "storeName": names[device.store] ?? "—",
                "device": device.device, "role": kiosk.role, "version": device.health?.version ?? "—",
                "protocol": device.syncProtocol.map { strings.format("console.sync_protocol", $0) } ?? "",
                "contact": kiosk.contact, "silent": kiosk.silent,
                "clock": ConsoleView.clockText(device.clockOffsetSeconds, strings) ?? "—",
                "clockWrong": device.problems.contains(.clock),
                "outbox": device.health.map { "\($0.pendingEvents)" } ?? "—",
                "state": ConsoleView.state(of: device, strings, columns: true),
                "needs": kiosk.needs, "trouble": kiosk.trouble,
            ]
        }
        let values: [String: Any] = [
            "w": ConsoleView.words(strings), "wide": true,
            "pageTitle": "\(strings["console.title"]) — \(strings["console.fleet"])",
            "signedInAs": strings.format("console.signed_in_as", text: "admin"), "csrf": sessions.csrf(request),
            "kiosks": rows, "any": !rows.isEmpty, "count": strings.format("console.fleet_count", rows.count),
            "versions": versions.map { ["name": $0, "selected": $0 == version] },
            "problems": KioskProblem.allCases.map {
                ["name": $0.rawValue, "words": strings["console.p." + $0.rawValue], "selected": $0 == problem]
            },
        ]
        return pages.page("consoleFleet", values, strings, status: .ok)
    }
}
