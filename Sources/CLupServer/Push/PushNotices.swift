import Foundation
import KioskCore

/// Which Web Push notice a subscribed holder is due (issue 49, point 2): at most "time to leave" (once their
/// journey's leave-by time has come), "it is your turn" at each call, "your call ends in 3 minutes" once a call,
/// and "expired" or "cancelled" — each once, judged from the ticket's status now and the notices sent. The
/// subscription ends with the ticket: after the last notice, when it is used, or when the ticket is gone.
/// A pure rule: the duty's turn (``PushDesk/turn()``) reads statuses and the clock and acts on what this returns.
enum PushNotices {
    enum Notice: Equatable, Sendable {
        case leave
        case called(call: Int, endsAt: Int64?)
        case ending(call: Int, endsAt: Int64)
        case ended(stage: String)

        /// What is remembered as sent (one per call for the call's two notices).
        var key: String {
            switch self {
            case .leave: "leave"
            case .called(let call, _): "called-\(call)"
            case .ending(let call, _): "ending-\(call)"
            case .ended: "ended"
            }
        }
    }

    /// How long before a call window ends its holder is reminded.
    static let reminder: Int64 = 3 * 60_000

    struct Decision: Equatable {
        var notice: Notice?
        /// The subscription is over: forget it (after sending `notice`, if any).
        var forget: Bool
    }

    static func next(_ status: TicketStatus?, sent: [String], at now: Timestamp) -> Decision {
        guard let status else { return Decision(notice: nil, forget: true) }
        func once(_ notice: Notice, forget: Bool = false) -> Decision {
            Decision(notice: sent.contains(notice.key) ? nil : notice, forget: forget)
        }
        switch status.stage {
        case "admitted":
            return Decision(notice: nil, forget: true)
        case "expired", "cancelled":
            return once(.ended(stage: status.stage), forget: true)
        case "called":
            let call = status.call ?? 1
            let called = Notice.called(call: call, endsAt: status.callEndsAt)
            if !sent.contains(called.key) { return Decision(notice: called, forget: false) }
            if let ends = status.callEndsAt, ends - now.milliseconds <= reminder, ends > now.milliseconds {
                return once(.ending(call: call, endsAt: ends))
            }
            return Decision(notice: nil, forget: false)
        case "waiting", "booked":
            return status.leaveNow == true ? once(.leave) : Decision(notice: nil, forget: false)
        default:
            return Decision(notice: nil, forget: false)
        }
    }

    /// The message the service worker shows: title, text, the page to open, and a tag (one notice of a ticket
    /// replaces the one before), as JSON.
    static func message(
        _ notice: Notice,
        code: String,
        store: String,
        page: String,
        clock: StoreClock,
        _ strings: PageStrings
    ) -> Data {
        func fill(_ key: String, _ time: Int64? = nil) -> String {
            strings[key].replacingOccurrences(of: "{c}", with: code).replacingOccurrences(of: "{s}", with: store)
                .replacingOccurrences(of: "{t}", with: time.map(clock.time) ?? "")
        }
        let (title, body): (String, String) =
            switch notice {
            case .leave: (fill("push.leave_title"), fill("push.leave"))
            case .called(let call, let ends) where call > 1 && ends != nil:
                (fill("push.called_again_title"), fill("push.called_again", ends))
            case .called: (fill("push.called_title"), fill("push.called"))
            case .ending(_, let ends): (fill("push.ending_title"), fill("push.ending", ends))
            case .ended(let stage): (fill("push.\(stage)_title"), fill("push.\(stage)"))
            }
        let object: [String: String] = ["title": title, "body": body, "url": page, "tag": "clup-\(code)"]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }
}
