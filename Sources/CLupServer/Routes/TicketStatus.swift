import Foundation
import Hummingbird
import KioskCore

/// What the app shows for a ticket.
struct TicketStatus: ResponseEncodable, Equatable {
    struct Info: Codable, Equatable {
        var id: TicketID
        var code: String
        var kind: String
        var issuedAt: Int64
        var slotStart: Int64?
        var slotEnd: Int64?
        var expectedVisitMinutes: Int?
    }

    struct Pause: Codable, Equatable {
        var reason: String
        var until: Int64?
    }

    var ticket: Info
    /// `printing` (paper, still in the printer), `booked` (a booking before its slot), `waiting`, `called`
    /// (go to the door now), `admitted`, `expired` or `cancelled`.
    var stage: String
    var peopleAhead: Int?
    /// Until the ticket is called (``WaitEstimator``), and the range it falls in four times out of five.
    var estimatedWaitSeconds: Int?
    var estimatedWaitLowSeconds: Int?
    var estimatedWaitHighSeconds: Int?
    /// While the store is closed: when it opens (ms since 1970); the ticket is called from then, in line order.
    var opensAt: Int64?
    /// While staff paused the calls (``LinePause``): why, and until when (ms since 1970; absent: until they
    /// resume). The ticket keeps its place; its wait counts what is left of the pause.
    var pause: Pause?
    /// While called: which call it is (1, then 2 and on where the store calls a ticket not seen at the door
    /// again: ``RecallPolicy``), and when its call window ends (ms since 1970: the door refuses it after).
    var call: Int?
    var callEndsAt: Int64?
    /// Only in reads that sent the holder's journey (`journeyMinutes=`, ``planLeaving(journeyMinutes:at:rule:)``):
    /// that journey, when to leave (ms since 1970, floored to the minute) and whether that time has come.
    var journeyMinutes: Int?
    var leaveAt: Int64?
    var leaveNow: Bool?
    /// The signed code to show at the door; only in the answer that creates the ticket.
    var qr: String?
    /// A new holder token, when the request that created the ticket came without one: the device keeps it
    /// and sends it as `Clup-Holder` with its next tickets and to cancel.
    var holderToken: String?
    /// Only in answers to the ticket's holder (its `Clup-Holder`): what opens the holder's own status stream
    /// (`GET /v1/tickets/{id}/events?key=`) and nothing else.
    var streamKey: String?

    /// A status of `stage` that tells nothing more yet.
    init(ticket: Info, stage: String) {
        self.ticket = ticket
        self.stage = stage
    }

    init?(_ id: TicketID, in live: StoreQueues.Live, at now: Timestamp) {
        let state = live.state
        guard let entry = state.entries[id] else { return nil }
        let t = entry.ticket
        ticket = Info(
            id: t.id,
            code: t.code.description,
            kind: ["paper", "app", "booking"][Int(t.kind.rawValue)],
            issuedAt: t.issuedAt.milliseconds,
            slotStart: t.slot?.start.milliseconds,
            slotEnd: t.slot?.end.milliseconds,
            expectedVisitMinutes: t.slot?.expectedVisitMinutes
        )
        switch entry.stage {
        case .inPrinter: stage = "printing"
        case .admitted: stage = "admitted"
        case .expired: stage = "expired"
        case .cancelled: stage = "cancelled"
        case .waiting(let joined) where joined > now:
            stage = "booked"  // a booking before its slot: it joins the line when the slot starts
        case .waiting:
            let position = state.position(of: id, at: now)
            let ahead = position ?? state.lineLength(at: now)
            peopleAhead = ahead
            let called = state.isCalled(id, at: now)
            stage = called ? "called" : "waiting"
            if called, let since = state.callTime(of: id, at: now) {
                // Which call (``RecallPolicy``, within the store's window), from the one call time the window
                // counts from too; the ticket's window reaches its holder's journey (``HolderJourney``).
                let window = live.estimator.callWindow
                let profile = live.record.profile
                call =
                    RecallPolicy(minutes: profile.recallMinutes, times: profile.recalls)?
                    .call(since: since, window: window, at: now) ?? 1
                let own = state.callWindow(of: id, calledAt: since, policy: AdmissionPolicy(callWindow: window))
                callEndsAt = (since + own).milliseconds
            }
            opensAt = state.opensAt(after: now)?.milliseconds
            pause = state.pauses.holding(at: now).map { Pause(reason: $0.reason, until: $0.end?.milliseconds) }
            let wait = live.wait(position: ahead, at: now)
            estimatedWaitSeconds = ShopperDesk.seconds(wait.point)
            estimatedWaitLowSeconds = ShopperDesk.seconds(wait.low)
            estimatedWaitHighSeconds = ShopperDesk.seconds(wait.high)
        }
    }
}
