import Foundation
import KioskCore

/// A day's events as CSV (RFC 4180, a header row, CRLF): one row per event with its log sequence, time
/// (UTC, ISO 8601, and the store's local HH:MM), the device that wrote it, its kind, the ticket's id, code
/// and kind, and a detail (a capacity, a refusal's reason, the door, the wait a ticket was told when issued and,
/// once it was called, the wait it had: from joining the line to its call). No personal data exists to leak; a
/// field a spreadsheet would read as a formula is neutralised with an apostrophe — at its start and after every
/// character some spreadsheet splits on (`;` for Italian Excel, tab, `|`, a comma or a line break), since a
/// spreadsheet that splits on `;` starts a new cell there.
enum EventCSV {
    static let header = ["sequence", "time_utc", "local_time", "device", "event", "ticket", "code", "kind", "detail"]

    static func text(
        _ events: [StoreEvent],
        clock: StoreClock,
        live: StoreQueues.Live,
        waited: [TicketID: Duration] = [:]
    ) -> String {
        var tickets: [TicketID: Ticket] = [:]
        for event in events {
            if case .ticketIssued(let ticket, _) = event.body { tickets[ticket.id] = ticket }
        }
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var lines = [header.joined(separator: ",")]
        for event in events {
            let id = event.ticketID
            let ticket = id.flatMap { tickets[$0] ?? live.state.entries[$0]?.ticket }
            let row = [
                event.sequence.map(String.init) ?? "",
                iso.string(from: Date(timeIntervalSince1970: Double(event.time.milliseconds) / 1000)),
                clock.time(event.time.milliseconds), event.device, event.kind,
                id?.uuidString.lowercased() ?? "", ticket?.code.description ?? "",
                ticket.map { ["paper", "app", "booking"][Int($0.kind.rawValue)] } ?? "",
                detail(event.body, clock) + waitedText(event, waited),
            ]
            lines.append(row.map(field).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    private static func detail(_ body: StoreEvent.Body, _ clock: StoreClock) -> String {
        switch body {
        case .capacityChanged(let capacity): return "capacity \(capacity)"
        case .ticketAdmitted(_, let door): return "door \(door)"
        case .scanRefused(let reason, _, let door): return "\(reason) at door \(door)"
        case .dayStarted(let day, _, _): return "business day \(day.number)"
        case .ticketIssued(_, let told?):
            return
                "told \(told.point.components.seconds) s (\(told.low.components.seconds)-\(told.high.components.seconds))"
        case .countCorrected(let inside, let by): return "\(inside) inside, counted by \(by)"
        case .letIn(let people, let reason, let by): return "\(people) let in by \(by): \(reason)"
        case .linePaused(let reason, let until?, let by):
            return "calls paused by \(by) until \(clock.time(until.milliseconds)): \(reason)"
        case .linePaused(let reason, nil, let by): return "calls paused by \(by): \(reason)"
        case .lineResumed(let by): return "calls resumed by \(by)"
        case .journeyTold(_, let minutes): return "holder's journey \(minutes) min"
        case .ticketIssued, .ticketTaken, .customerExited, .ticketExpired, .ticketCancelled: return ""
        case .unknown: return "of a newer version of clup-server"
        }
    }

    /// After a `ticketIssued`'s told wait: the wait it had, once it was called.
    private static func waitedText(_ event: StoreEvent, _ waited: [TicketID: Duration]) -> String {
        guard case .ticketIssued(let ticket, _) = event.body, let wait = waited[ticket.id] else { return "" }
        return " waited \(wait.components.seconds) s"
    }

    /// One field, worked on Unicode scalars: a `Character` would take `"\r\n"` as one, so a lone line feed
    /// after a carriage return slipped past the check and started a row whose first cell was a formula.
    static func field(_ text: String) -> String {
        var value = String.UnicodeScalarView()
        var cellStart = true
        var quote = false
        for scalar in text.unicodeScalars {
            if cellStart, formulaStarts.contains(scalar) { value.append("'") }
            value.append(scalar)
            cellStart = cellBreaks.contains(scalar)
            quote = quote || quoted.contains(scalar)
        }
        guard quote else { return String(value) }
        return "\"" + String(value).replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// What a spreadsheet reads as the start of a formula at a cell's start.
    private static let formulaStarts = Set("=+-@\t\r\n".unicodeScalars)
    /// After these, some spreadsheet starts a new cell or row.
    private static let cellBreaks = Set(";,\t|\r\n".unicodeScalars)
    /// A field with any of these is quoted (RFC 4180), so a line break stays inside its cell.
    private static let quoted = Set(",;\"\r\n".unicodeScalars)
}
