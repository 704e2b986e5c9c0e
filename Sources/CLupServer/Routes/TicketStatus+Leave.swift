import Hummingbird
import KioskCore

/// When the holder should leave for the store (issue 49, RASD §2.2.4: nobody waits outside), told in a status
/// read that carries the holder's journey. The journey is minutes only — the page works them out in the browser
/// from a position it never sends, or the shopper types them — and it is not kept: each read or stream that wants
/// the time sends it (`journeyMinutes=`), so a replica needs nothing from another and nothing outlives the
/// request.
extension TicketStatus {
    /// The journeys a status read accepts, in whole minutes: four hours is farther than anyone walks to a shop.
    static let journeyMinutes = 1...240

    /// The journey a request's `journeyMinutes` query parameter gives (nil when absent), or why it is refused.
    static func journey(of request: Request) throws(Refusal) -> Int? {
        guard let text = request.uri.queryParameters["journeyMinutes"] else { return nil }
        // Digits only, as the number is written (no sign, no leading zero), before any conversion.
        let digits = text.utf8.count <= 3 && text.utf8.allSatisfy { (0x30...0x39).contains($0) } && !text.hasPrefix("0")
        guard digits, let minutes = Int(text), journeyMinutes.contains(minutes) else {
            throw Refusal.invalid(
                "give the journey to the store as whole minutes from \(journeyMinutes.lowerBound) to "
                    + "\(journeyMinutes.upperBound)",
                field: "journeyMinutes"
            )
        }
        return minutes
    }

    /// Adds the leave-by time for a holder `minutes` away, by `rule` (``LeaveBy``): from the wait's range while
    /// the ticket waits, from the slot's start while a booking waits for it, "now" once called. The time is
    /// floored to its minute (the page shows hours and minutes, and a stream then changes at most once a
    /// minute while the line stands still).
    mutating func planLeaving(journeyMinutes minutes: Int, at now: Timestamp, rule: LeaveBy = .shipped) {
        journeyMinutes = minutes
        let wait: WaitRange
        switch stage {
        case "waiting":
            guard let point = estimatedWaitSeconds else { return }
            wait = WaitRange(
                point: .seconds(point),
                low: .seconds(estimatedWaitLowSeconds ?? point),
                high: .seconds(estimatedWaitHighSeconds ?? point)
            )
        case "booked":
            guard let start = ticket.slotStart else { return }
            let until = Duration.milliseconds(max(start - now.milliseconds, 0))
            wait = WaitRange(point: until, low: until, high: until)
        case "called":
            leaveNow = true
            return
        default:
            return
        }
        let minute: Int64 = 60_000
        let at = rule.time(wait: wait, journey: .seconds(minutes * 60), at: now).milliseconds
        let floored = at.floorDivided(by: minute) * minute
        leaveAt = floored
        leaveNow = floored <= now.milliseconds
    }
}
