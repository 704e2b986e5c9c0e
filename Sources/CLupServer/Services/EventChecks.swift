import KioskCore

/// What the server accepts from a kiosk's event batch, beyond its shape: each event is of this store and
/// this device, its times are within the server's clock window (a kiosk that was offline may send events up
/// to `maxAge` old; none may come from further ahead than `skew`), and its values are in the ranges a kiosk
/// makes. A kiosk credential is a secret of one box, not a key to rewrite the queue: a ticket cannot be dated
/// into next year, nor be anything but a paper ticket of that kiosk; the capacity is the manager's; a day's
/// start cannot come before the store's hours begin that day's line.
struct EventChecks: Sendable {
    /// Two minutes: a kiosk's clock follows NTP; one cut off from it for a month drifts within about a minute
    /// (a real-time clock of ±20 ppm), and more than that is a clock to fix, which the refusal says.
    var skew: Duration = .seconds(defaultSkewSeconds)
    var maxAge: Duration = .seconds(366 * 86_400)

    static let defaultSkewSeconds: Int64 = 120

    func check(
        _ events: [StoreEvent],
        store: StoreID,
        device: DeviceID,
        calendar: StoreCalendar,
        now: Timestamp
    ) throws(APIError) {
        let window = (now - maxAge)...(now + skew)
        for (i, event) in events.enumerated() {
            let at = "events[\(i)]"
            guard event.store == store else { throw APIError.badRequest("not this store", field: "\(at).store") }
            guard event.device == device else {
                throw APIError(
                    .forbidden,
                    "a device appends only its own events (it is '\(device)')",
                    field: "\(at).device"
                )
            }
            guard window.contains(event.time) else { throw Self.outside(window, field: "\(at).time") }
            switch event.body {
            case .ticketIssued(let ticket, _):
                let field = "\(at).body.ticket"
                guard ticket.store == store else {
                    throw APIError.badRequest("ticket of another store", field: "\(field).store")
                }
                guard ticket.kind == .paper, ticket.slot == nil else {
                    throw APIError(.forbidden, "kiosks issue paper tickets only", field: "\(field).kind")
                }
                guard ticket.issuer == device else {
                    throw APIError(.forbidden, "a device issues tickets as itself", field: "\(field).issuer")
                }
                guard window.contains(ticket.issuedAt), ticket.issuedAt <= event.time else {
                    throw Self.outside(window, field: "\(field).issuedAt")
                }
                guard TicketCode.isValidPrefix(ticket.code.prefix), TicketCode.numbers.contains(ticket.code.number)
                else {
                    throw APIError.badRequest(
                        "a code of 1–2 letters and a number \(TicketCode.numbers)",
                        field: "\(field).code"
                    )
                }
            case .ticketAdmitted(_, let door), .scanRefused(_, _, let door):
                guard door == device else {
                    throw APIError(.forbidden, "a door records its own decisions", field: "\(at).body.door")
                }
                if case .scanRefused(let reason, _, _) = event.body, reason.count > 200 {
                    throw APIError.badRequest("at most 200 characters", field: "\(at).body.reason")
                }
            case .capacityChanged:
                throw APIError(
                    .forbidden,
                    "the capacity is the store manager's: change it in the console (PUT /v1/stores/{id})",
                    field: "\(at).body"
                )
            case .dayStarted(let day, _):
                // The day's start that every device writes alike (its derived id); a kiosk does not restate hours.
                guard event.id == StoreEvent.dayStarted(day, store: store, device: device, at: event.time).id else {
                    throw APIError(.forbidden, "a kiosk writes a day's start with its derived id", field: "\(at).id")
                }
                // Its time is the previous opening day's closing: the day itself may be a few days ahead (a
                // weekend, holidays), never ahead of the day whose line the store's hours have begun (a start
                // sent early would end today's line; a kiosk's clock may be `skew` ahead).
                let today = now.milliseconds.floorDivided(by: 86_400_000)
                guard day.number >= today - 2, day <= calendar.businessDay(at: now + skew) else {
                    throw APIError.badRequest(
                        "the business day whose line has begun, by the store's hours, or an earlier one",
                        field: "\(at).body.day"
                    )
                }
            case .ticketTaken, .customerExited, .ticketExpired, .ticketCancelled:
                break
            }
        }
    }

    private static func outside(_ window: ClosedRange<Timestamp>, field: String) -> APIError {
        APIError.badRequest(
            "a time within the server's clock window (\(window.lowerBound.milliseconds)…\(window.upperBound.milliseconds) "
                + "ms since 1970) — check the kiosk's clock (NTP)",
            field: field
        )
    }
}
