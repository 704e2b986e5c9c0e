import KioskCore

extension EventChecks {
    /// A door's pause or resume of its store's calls (``LinePause``): values in range, written in the door's own
    /// name, and a pause that ends by itself within the hour — a stolen box cannot stop its store's calls for the
    /// day (a longer pause, or one until resumed, is the manager's, in the console).
    static func checkPause(_ event: StoreEvent, kiosk: KioskGrant, at: String) throws(Refusal) {
        if let problem = LinePause.problem(event.body, at: event.time) {
            throw Refusal.invalid(problem.message, field: "\(at).body.\(problem.field)")
        }
        let by: String
        switch event.body {
        case .linePaused(_, let until, let who):
            guard let until, until <= LinePause.end(after: event.time, minutes: LinePause.doorMinutes.upperBound) else {
                throw Refusal.invalid(
                    "a door's pause ends within \(LinePause.doorMinutes.upperBound) minutes — a longer one is the "
                        + "manager's, in the console",
                    field: "\(at).body.until"
                )
            }
            by = who
        case .lineResumed(let who): by = who
        default: return
        }
        guard by == kiosk.device else {
            throw Refusal(
                .forbidden,
                "a door records staff's pauses as itself ('\(kiosk.device)')",
                field: "\(at).body.by"
            )
        }
    }
}
