import Foundation
import Hummingbird
import KioskCore

/// The page every ticket's QR opens: `GET <status URL path><signed code>` (`/T/…` by default). The code is
/// verified against its store's key ring; the page shows the ticket's number, stage, people ahead and
/// estimated wait, the QR to show at the door (SVG drawn by the server), a booking's slot, and follows them
/// live (server-sent events from the app API's stream; without JavaScript, a reload shows the current state).
/// The device that took the ticket can cancel it here. A forged, altered or unknown code gets a page that
/// says so, with a 404.
struct TicketPage {
    let directory: StoreDirectory
    let desk: ShopperDesk
    let pages: PageResponse

    func register(on router: some RouterMethods<ServerContext>) {
        router.get(RouterPath("\(pages.segment)/:code")) { request, context -> Response in
            let strings = PageStrings(request)
            let code = context.parameters.get("code") ?? ""
            guard let claims = await verified(code) else { return invalid("invalid", strings) }
            let id = claims.ticket
            guard var status = desk.status(of: id), let live = directory.store(containing: id) else {
                return invalid("unknown", strings)
            }
            // Valid only as its issuer signed it (another kiosk's key over this ticket's id is a forgery).
            if let ticket = live.state.entries[id]?.ticket, !ticket.isSigned(by: claims) {
                return invalid("invalid", strings)
            }
            // The journey the page's own form sent (without JavaScript): a bad one is said on the page.
            var journeyError = false
            do throws(Refusal) {
                if let minutes = try TicketStatus.journey(of: request) {
                    status.planLeaving(journeyMinutes: minutes, at: directory.clock.now())
                }
            } catch { journeyError = true }
            var values = page(status, code: code, profile: live.record.profile, strings)
            values.merge(journey(status, live.record.profile, strings, error: journeyError)) { own, _ in own }
            return pages.page("ticket", values, strings)
        }
    }

    /// What a code says, once its signature checked out against its store's key ring (with who signed it).
    func verified(_ code: String) async -> TicketCodec.Claims? {
        guard code.utf8.count <= 300, let store = TicketCodec.claimedStore(of: code[...]),
            let keys = try? await directory.keyRing(of: store)
        else { return nil }
        let ring = KeyRing(devices: keys)
        return try? TicketCodec.decode(pages.statusURL + code, prefix: pages.statusURL, keyRing: ring, store: store)
    }

    private func page(
        _ status: TicketStatus,
        code: String,
        profile: StoreProfile,
        _ strings: PageStrings
    )
        -> [String: Any]
    {
        let ahead = status.peopleAhead.map {
            strings.count($0, none: "ahead_none", one: "ahead_one", many: "ahead_many")
        }
        let minutes = status.estimatedWaitSeconds.map {
            strings.wait(seconds: $0, low: status.estimatedWaitLowSeconds, high: status.estimatedWaitHighSeconds)
        }
        let ranged = status.estimatedWaitSeconds.map {
            WaitRange.shownMinutes(
                point: .seconds($0),
                low: status.estimatedWaitLowSeconds.map { .seconds($0) },
                high: status.estimatedWaitHighSeconds.map { .seconds($0) }
            ).range != nil
        }
        let over = ["admitted", "expired", "cancelled"].contains(status.stage)
        var values: [String: Any] = [
            "title": strings["your_ticket"], "store": profile.name, "code": status.ticket.code,
            "pageTitle": "\(strings["your_ticket"]) \(status.ticket.code) — \(profile.name)",
            "ticketID": status.ticket.id.uuidString.lowercased(), "stage": status.stage,
            "stageText": strings["stage." + status.stage], "aheadText": ahead ?? "", "waitLabel": strings["wait"],
            "waitText": minutes ?? "", "live": strings["live"], "reload": strings["reload"],
            "notify": strings["notify"], "cancel": strings["cancel"], "cancelConfirm": strings["cancel_confirm"],
            "cancelYes": strings["cancel_yes"], "cancelNo": strings["cancel_no"], "visitLabel": strings["visit"],
            "rangeNoteText": strings["range_note"],
        ]
        if ranged == true { values["rangeNote"] = true }
        if status.stage == "called", let call = status.call, call > 1, let ends = status.callEndsAt {
            values["noticeText"] = strings["js.called_again"]
                .replacingOccurrences(of: "{t}", with: StoreClock(profile).time(ends))
        } else if status.stage == "called" {
            values["noticeText"] = strings["js.called"]
        }
        if let opens = status.opensAt, let ahead = status.peopleAhead {
            // Before opening: when the line is called, and the holder's place in it.
            let weekdays = (0..<7).map { strings["weekday.\($0)"] }
            let text = profile.calendar.text(
                of: Timestamp(milliseconds: opens),
                from: directory.clock.now(),
                weekdays: weekdays
            )
            values["opensText"] = text
            values["noticeText"] = strings["js.opens"].replacingOccurrences(of: "{t}", with: text)
                .replacingOccurrences(of: "{n}", with: "\(ahead + 1)")
        }
        if let pause = status.pause {
            let until = pause.until.map { StoreClock(profile).time($0) }
            values["noticeText"] = strings[until == nil ? "js.paused" : "js.paused_until"]
                .replacingOccurrences(of: "{t}", with: until ?? "").replacingOccurrences(of: "{r}", with: pause.reason)
        }
        if !over, let svg = QRPicture.svg(pages.statusURL + code, label: strings["qr_label"]) { values["qr"] = svg }
        if let start = status.ticket.slotStart, let end = status.ticket.slotEnd {
            let clock = StoreClock(profile)
            values["visitText"] =
                "\(clock.dayText(start, strings)) \(clock.time(start))–\(clock.time(end)), "
                + strings.format(
                    "valid_until",
                    text: clock.time(start + Int64(ShopperDesk.lateness.components.seconds) * 1000)
                )
        }
        return values
    }

    /// The journey form and the leave-by time, while the ticket waits for its turn; once an app ticket is called,
    /// the form stays (its holder's device tells the server the trip: ``HolderJourney``) and says until when the
    /// call lasts.
    private func journey(
        _ status: TicketStatus,
        _ profile: StoreProfile,
        _ strings: PageStrings,
        error: Bool
    )
        -> [String: Any]
    {
        let called = status.stage == "called" && status.ticket.kind == "app"
        guard ["waiting", "booked"].contains(status.stage) || called else { return [:] }
        var values: [String: Any] = [
            "journeyAsked": true, "journeyTitle": strings["journey_title"], "journeyLabel": strings["journey_label"],
            "journeySubmit": strings["journey_submit"], "journeyModes": strings["journey_modes"],
            "journeyFoot": strings["journey_foot"], "journeyBike": strings["journey_bike"],
            "journeyCar": strings["journey_car"], "journeyPrivate": strings["journey_private"],
            "storeLatitude": profile.location.latitude, "storeLongitude": profile.location.longitude,
        ]
        if error { values["journeyError"] = strings["error.journey"] }
        if let minutes = status.journeyMinutes { values["journeyValue"] = minutes }
        if called, let ends = status.callEndsAt {
            values["leaveText"] = strings["js.call_until"].replacingOccurrences(
                of: "{t}",
                with: StoreClock(profile).time(ends)
            )
        } else if status.leaveNow == true {
            values["leaveText"] = strings["js.leave_now"]
        } else if let at = status.leaveAt, let minutes = status.journeyMinutes {
            let time = StoreClock(profile).time(at)
            values["leaveText"] = strings["js.leave_at"].replacingOccurrences(of: "{t}", with: time)
                .replacingOccurrences(of: "{n}", with: "\(minutes)")
        }
        return values
    }

    private func invalid(_ key: String, _ strings: PageStrings) -> Response {
        pages.message(strings["invalid_title"], strings[key], strings, status: .notFound)
    }
}
