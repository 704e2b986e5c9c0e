import Crypto
import Foundation
import Hummingbird
import KioskCore
import SyncWire

/// A store's page in the console, `GET /console/stores/<id>`, for its manager (or the system manager): the
/// line live, the day's figures with a chart and the CSV export, the kiosks with their last contact,
/// enrollment (the credential shown once, with a ready `kioskd.toml` snippet) and revocation, and the
/// settings (capacity, opening hours, visit and slots). Every action is the ``StoreOffice``'s or the
/// ``Reports``', as through the API; each form answers with a redirect back (post/redirect/get), so a
/// reload never repeats it.
struct StoreConsole {
    let sessions: ConsoleSessions
    let office: StoreOffice
    let reports: Reports
    let directory: StoreDirectory
    let pages: PageResponse

    /// An enrollment's credential travels to the page that shows it sealed (ChaCha20-Poly1305 under the
    /// console's key), bound to the store and valid ten minutes: shown once without the server keeping it.
    static let enrollmentNoteLifetime: Int64 = 600_000

    func register(on router: some RouterMethods<ServerContext>) {
        router.get("console/stores/:store") { request, context -> Response in
            let strings = PageStrings(request)
            switch await access(request, context) {
            case .refused(let response): return response
            case .allowed(let who, let live):
                return try await page(request, context, who: who, live: live, strings)
            }
        }
        router.post("console/stores/:store/settings") { request, context -> Response in
            try await act(request, context) { (live, form) in
                let settings = try Self.settings(form)
                _ = try await office.update(live.record.id, settings)
                return "saved=1"
            }
        }
        registerCount(on: router)
        registerPause(on: router)
        router.post("console/stores/:store/devices") { request, context -> Response in
            try await act(request, context) { (live, form) in
                guard let role = KioskRole(rawValue: form["role"] ?? "both") else {
                    throw Refusal.invalid("printer, door or both", field: "role")
                }
                let enrolled = try await office.enroll(form["device"] ?? "", role: role, store: live.record.id)
                return "enrolled=" + seal(enrolled, at: directory.clock.now())
            }
        }
        router.post("console/stores/:store/devices/:device/revoke") { request, context -> Response in
            let device = context.parameters.get("device") ?? ""
            return try await act(request, context) { (live, _) in
                try await office.revoke(device, store: live.record.id)
                return sessions.signedQuery("revoked", device)
            }
        }
        router.get("console/stores/:store/live") { request, context -> Response in
            switch await access(request, context) {
            case .refused: throw Refusal.unauthorized
            case .allowed(_, let live):
                return stream(live, PageStrings(request)) { await access(request, context).isAllowed }
            }
        }
        router.get("console/stores/:store/export") { request, context -> Response in
            switch await access(request, context) {
            case .refused(let response): return response
            case .allowed(_, let live):
                let day: Int64
                do throws(Refusal) {
                    day = try reports.day(live, date: request.uri.queryParameters["date"].map(String.init))
                } catch {
                    return pages.refusal(error, PageStrings(request))
                }
                return Response.csv(try await reports.export(live, day: day))
            }
        }
    }

    enum Access {
        case allowed(ConsoleSessions.Who, StoreQueues.Live)
        case refused(Response)

        var isAllowed: Bool { if case .allowed = self { true } else { false } }
    }

    /// The session may see this store: else the login page (no session; back to the store's page after),
    /// a 403 page (another store's manager) or a 404 page.
    func access(_ request: Request, _ context: ServerContext) async -> Access {
        let strings = PageStrings(request)
        guard let who = await sessions.who(request) else {
            let page = "/console/stores/" + (context.parameters.get("store") ?? "").prefix(36)
            return .refused(ConsoleRoutes.toLogin(request, from: page))
        }
        guard let id = context.parameters.get("store").flatMap(UUID.init(uuidString:)), let live = directory.store(id)
        else { return .refused(pages.message(strings["problem"], strings["error.404"], strings, status: .notFound)) }
        guard who.mayManage(id) else {
            return .refused(
                pages.message(strings["problem"], strings["console.forbidden"], strings, status: .forbidden)
            )
        }
        return .allowed(who, live)
    }

    /// Runs a form's action for a manager of the store, then back to the store's page with what happened
    /// (the action's query) or what was wrong (`problem=`); a forged or stale form changes nothing.
    func act(
        _ request: Request,
        _ context: ServerContext,
        _ action: (StoreQueues.Live, ConsoleForm) async throws -> String
    ) async throws -> Response {
        try await act(request, context) { _, live, form in try await action(live, form) }
    }

    /// The same, the action told who acts.
    func act(
        _ request: Request,
        _ context: ServerContext,
        _ action: (ConsoleSessions.Who, StoreQueues.Live, ConsoleForm) async throws -> String
    ) async throws -> Response {
        let form = await ConsoleForm.read(request)
        switch await access(request, context) {
        case .refused(let response): return response
        case .allowed(let who, let live):
            let back = "/console/stores/\(ConsoleRoutes.id(live.record.id))"
            guard sessions.formIsGenuine(request, csrf: form["csrf"]) else {
                return ConsoleRoutes.redirect(back + "?" + sessions.problemQuery("stale"))
            }
            do {
                return ConsoleRoutes.redirect(back + "?" + (try await action(who, live, form)))
            } catch {
                let error = ConsoleSessions.refusal(error, request)
                return ConsoleRoutes.redirect(back + "?" + sessions.problemQuery(error.description))
            }
        }
    }

    private func page(
        _ request: Request,
        _ context: ServerContext,
        who: ConsoleSessions.Who,
        live: StoreQueues.Live,
        _ strings: PageStrings
    )
        async throws -> Response
    {
        let query = request.uri.queryParameters
        let store = live.record.id
        let profile = live.record.profile
        let now = directory.clock.now()
        let devices = await devices(of: store)
        let line = ConsoleView.line(live, devices: devices, now: now, strings)
        let clock = StoreClock(profile)
        var problem = sessions.problem(request).map { $0 == "stale" ? strings["console.stale_form"] : $0 }
        let reportDay: Int64
        do throws(Refusal) {
            reportDay = try reports.day(live, date: query["date"].map(String.init))
        } catch {
            problem = error.description
            reportDay = clock.day(now.milliseconds)
        }
        let report = try await reports.report(live, day: reportDay)
        let day = Slots.day(report.date) ?? clock.day(now.milliseconds)
        let words = ConsoleView.words(strings)
        var values: [String: Any] = [
            "w": words, "wide": true, "script": ConsoleScript.text, "storeID": ConsoleRoutes.id(store),
            "pageTitle": "\(strings["console.title"]) — \(profile.name)", "storeName": profile.name,
            "signedInAs": strings.format("console.signed_in_as", text: Self.name(who)),
            "csrf": sessions.csrf(request), "opening": line.opening, "inside": line.inside, "capacity": line.capacity,
            "called": line.called,
            "waiting": line.waiting, "waitingCount": line.waitingCount, "printer": line.printer,
            "report": Self.dictionary(report), "today": StoreClock.date(clock.day(now.milliseconds)),
            "meanWait": ConsoleView.minutes(report.meanWaitSeconds, strings),
            "meanEstimate": ConsoleView.minutes(report.meanEstimateSeconds, strings),
            "accuracyChart": ConsoleView.accuracyChart(report, title: strings["console.accuracy_chart"]),
            "chart": ConsoleView.chart(
                report,
                hours: profile.openingHours[BusinessDay(number: day).weekday],
                title: strings["console.chart"]
            ),
            "profile": [
                "capacity": profile.capacity, "averageVisitMinutes": profile.averageVisitMinutes,
                "capacityMin": StoreCapacity.range.lowerBound, "capacityMax": StoreCapacity.range.upperBound,
                "slotMinutes": profile.slotMinutes, "slotSize": profile.slotSize,
                "ticketsBeforeOpening": profile.ticketsBeforeOpeningMinutes.map(String.init) ?? "",
                "largePrint": profile.largePrint, "voiceVolume": profile.voiceVolume, "footer": profile.footer,
                "recallMinutes": profile.recallMinutes, "recalls": profile.recalls,
                "stopTicketsPastClosing": profile.stopTicketsPastClosing,
            ],
            "languages": Self.languageChoices(profile.languages, strings),
            "hours": profile.openingHours.enumerated().map { index, hours -> [String: Any] in
                [
                    "index": index, "day": strings["weekday.\(index)"], "open": hours?.open ?? "",
                    "close": hours.map { $0.close == "24:00" ? "00:00" : $0.close } ?? "", "closed": hours == nil,
                ]
            },
            "devices": zip(devices, line.devices).map { device, kiosk -> [String: Any] in
                [
                    "device": device.device, "role": kiosk.role, "key": device.keyId ?? strings["console.no_key"],
                    "contact": kiosk.contact, "silent": kiosk.silent, "state": kiosk.state, "needs": kiosk.needs,
                    "trouble": kiosk.trouble,
                    "revokeNow": strings.format("console.revoke_now", text: device.device),
                ]
            },
        ]
        if let accuracy = report.estimateAccuracy {
            values["accuracy"] = [
                "median": ConsoleView.minutes(accuracy.medianAbsErrorSeconds, strings),
                "p90": ConsoleView.minutes(accuracy.p90AbsErrorSeconds, strings),
                "within3": "\(Int((accuracy.within3Minutes * 100).rounded())) %",
                "inRange": accuracy.rangeCoverage.map { coverage in
                    strings.format("console.in_range_of", Int((coverage * 100).rounded()))
                        .replacingOccurrences(of: "{target}", with: "\(Int((accuracy.targetCoverage * 100).rounded()))")
                        .replacingOccurrences(of: "{r}", with: "\(accuracy.ranged)")
                } ?? strings["console.no_ranges"],
                "worstHour": accuracy.worstHour.map { hour in
                    strings.format("console.worst_hour_at", text: String(format: "%02d:00", hour))
                        .replacingOccurrences(
                            of: "{m}",
                            with: ConsoleView.minutes(accuracy.worstHourMedianAbsErrorSeconds ?? 0, strings)
                        )
                } ?? "",
            ]
        }
        values.merge(Self.countValues(live.state, report: report, clock: clock, strings)) { $1 }
        values.merge(Self.pauseValues(line)) { $1 }
        values["problem"] = problem.map { strings.format("console.problem", text: $0) }
        if query["saved"] != nil { values["notice"] = strings["console.saved"] }
        if let notice = countNotice(request, strings) ?? pauseNotice(request, strings) { values["notice"] = notice }
        if let device = sessions.signed("revoked", in: request) {
            values["notice"] = strings.format("console.revoked", text: device)
        }
        if let note = query["enrolled"], let enrolled = open(String(note), store: store, at: now) {
            values["enrolled"] = true
            values["enrolledText"] = strings.format("console.enrolled", text: enrolled.device)
            values["credential"] = enrolled.credential
            values["snippet"] = snippet(enrolled, request: request, context, profile: profile)
        }
        return pages.page("consoleStore", values, strings)
    }

    /// The `kioskd.toml` a new kiosk needs to sync with this server (its credential goes in its own file).
    private func snippet(
        _ enrolled: Enrolled,
        request: Request,
        _ context: ServerContext,
        profile: StoreProfile
    ) -> String {
        let scheme = sessions.transport.isHTTPS(request, context) ? "https" : "http"
        let host = request.head.authority ?? "clup.example"
        return """
            [store]
            id = "\(enrolled.store.uuidString.lowercased())"
            capacity = \(profile.capacity)
            time_zone = "\(profile.timeZone)"
            # The store's hours until the kiosk's first sync (then it follows the server's).
            hours = [\(Self.kioskHours(profile))]\(profile.ticketsBeforeOpeningMinutes.map { "\ntickets_before_opening_minutes = \($0)" } ?? "")
            average_visit_minutes = \(profile.averageVisitMinutes)
            status_url = "\(pages.statusURL)"

            [device]
            id = "\(enrolled.device)"

            [sync]
            server = "\(scheme)://\(host)"
            credential_file = "/etc/kioskd/credential"

            """ + Self.roleSections(enrolled.role)
    }

    /// The snippet's `[printer]` and `[door]`: the roles the credential allows switched on, with what an
    /// installer fills in (`kioskd devices` lists what is plugged in), the others off.
    static func roleSections(_ role: KioskRole) -> String {
        let printer =
            role == .door
            ? "[printer]\nenabled = false\n"
            : """
            [printer]
            # `kioskd devices` lists the printers plugged in: usb:// takes the first USB printer; tcp://HOST:9100,
            # serial:///dev/ttyUSB0?baud=19200 and cups://QUEUE name one. Profiles: docs/printers-and-scanners.md.
            address = "usb://"
            profile = "generic-80mm"

            """
        let door =
            role == .printer
            ? "[door]\nenabled = false\n"
            : """
            [door]
            enabled = true
            # `kioskd devices` lists the scanners: serial:///dev/ttyACM0 (serial or CDC-ACM), or
            # evdev:///dev/input/by-id/…-event-kbd (a USB keyboard-wedge scanner). Program it for QR with a CR suffix.
            scanner = "serial:///dev/ttyACM0"

            """
        return printer + "\n" + door
    }

    /// The week's hours as `kioskd.toml` writes them: `"07:00-21:00"` or `"closed"`, Monday first.
    static func kioskHours(_ profile: StoreProfile) -> String {
        profile.openingHours.map { $0.map { "\"\($0.open)-\($0.close)\"" } ?? "\"closed\"" }.joined(separator: ", ")
    }

    /// The line, then again after every change of the store's queue (and at each heartbeat, for the
    /// kiosks' last contact), until the client goes, the server stops or the session ends (`stillAllowed`,
    /// asked before each update: a logged-out or expired session's page stops hearing at the next heartbeat).
    private func stream(
        _ live: StoreQueues.Live,
        _ strings: PageStrings,
        stillAllowed: @escaping @Sendable () async -> Bool
    ) -> Response {
        // A heartbeat every 5 s: the kiosks' last contact changes without a change of the queue.
        let updates = live.changes.subscribe(heartbeat: .seconds(5))
        let store = live.record.id
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
            body: ResponseBody { writer in
                let encoder = JSONEncoder()
                for await _ in updates.cancelOnGracefulShutdown() {
                    guard await stillAllowed(), let live = directory.store(store) else { break }
                    let devices = await devices(of: store)
                    let line = ConsoleView.line(live, devices: devices, now: directory.clock.now(), strings)
                    var buffer = ByteBuffer(string: "event: queue\ndata: ")
                    buffer.writeBytes(try encoder.encode(line))
                    buffer.writeString("\n\n")
                    try await writer.write(buffer)
                }
                try await writer.finish(nil)
            }
        )
    }

    private func seal(_ enrolled: Enrolled, at now: Timestamp) -> String {
        let expires = now.milliseconds + Self.enrollmentNoteLifetime
        let plain = Data("\(expires)\n\(enrolled.device)\n\(enrolled.credential)\n\(enrolled.role.rawValue)".utf8)
        let box = try? ChaChaPoly.seal(plain, using: sessions.key, authenticating: Data(enrolled.store.uuidString.utf8))
        return box.map { HolderTokens.base64url($0.combined) } ?? ""
    }

    private func open(_ note: String, store: StoreID, at now: Timestamp) -> Enrolled? {
        guard note.utf8.count <= 400, let data = HolderTokens.data(base64url: note[...]),
            let box = try? ChaChaPoly.SealedBox(combined: data),
            let plain = try? ChaChaPoly.open(box, using: sessions.key, authenticating: Data(store.uuidString.utf8))
        else { return nil }
        let parts = String(decoding: plain, as: UTF8.self).split(separator: "\n")
        guard parts.count == 4, let expires = Int64(parts[0]), expires > now.milliseconds,
            let role = KioskRole(rawValue: String(parts[3]))
        else { return nil }
        return Enrolled(store: store, device: String(parts[1]), role: role, credential: String(parts[2]))
    }

    static func name(_ who: ConsoleSessions.Who) -> String {
        switch who {
        case .admin: return "admin"
        case .manager(let username, _): return username
        }
    }

    static func dictionary(_ report: DayReport) -> [String: Any] {
        [
            "date": report.date, "paper": report.paper, "app": report.app, "bookings": report.bookings,
            "admitted": report.admitted, "noShows": report.noShows, "cancelled": report.cancelled,
            "refusedScans": report.refusedScans, "peakInside": report.peakInside,
            "countCorrections": report.countCorrections, "peopleLetIn": report.peopleLetIn, "pauses": report.pauses,
        ]
    }

    /// The store's kiosks for the line's view; none — said in the log — when the database cannot list them
    /// (the page still shows the queue, which is in memory).
    func devices(of store: StoreID) async -> [EnrolledDevice] {
        do {
            return try await office.devices(store)
        } catch {
            ConsoleSessions.logger.warning(
                "cannot list the store's kiosks for the console: shown without them; check the database",
                metadata: ["store": "\(store)", "error": "\(error)"]
            )
            return []
        }
    }
}
