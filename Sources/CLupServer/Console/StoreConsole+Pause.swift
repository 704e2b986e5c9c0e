import Foundation
import Hummingbird
import KioskCore

/// The store page's pause controls (``LinePause``): pause the calls with a reason and, if known, how long; resume
/// them — each through the ``StoreOffice`` as the API does, in the manager's name.
extension StoreConsole {
    func registerPause(on router: some RouterMethods<ServerContext>) {
        router.post("console/stores/:store/pause") { request, context -> Response in
            try await act(request, context) { (who, live, form) in
                let reason = (form["reason"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                let minutes = try (form["minutes"]).flatMap { $0.isEmpty ? nil : $0 }.map {
                    try Self.number($0, field: "minutes")
                }
                _ = try await office.pause(live.record.id, reason: reason, minutes: minutes, by: Self.name(who))
                return sessions.signedQuery("paused", "1")
            }
        }
        router.post("console/stores/:store/resume") { request, context -> Response in
            try await act(request, context) { (who, live, _) in
                _ = try await office.resume(live.record.id, by: Self.name(who))
                return sessions.signedQuery("resumed", "1")
            }
        }
    }

    /// The page's values about the calls: the pause that holds now (the line's words: who, why, until when), and
    /// the form's bounds.
    static func pauseValues(_ line: ConsoleView.Line) -> [String: Any] {
        var values: [String: Any] = ["pauseMinutesMax": LinePause.minutes.upperBound]
        if !line.paused.isEmpty { values["paused"] = line.paused }
        return values
    }

    /// "Calls paused by anna until 10:55: restock" while a pause holds (the page, and its live stream).
    static func pauseText(_ state: QueueState, clock: StoreClock, now: Timestamp, _ strings: PageStrings) -> String? {
        guard let pause = state.pauses.holding(at: now) else { return nil }
        let key = pause.end == nil ? "console.paused_by" : "console.paused_until"
        return strings[key]
            .replacingOccurrences(of: "{by}", with: pause.by)
            .replacingOccurrences(of: "{t}", with: pause.end.map { clock.time($0.milliseconds) } ?? "")
            .replacingOccurrences(of: "{r}", with: pause.reason)
    }

    /// What the last pause form did, from its signed query (a crafted link shows nothing).
    func pauseNotice(_ request: Request, _ strings: PageStrings) -> String? {
        if sessions.signed("paused", in: request) != nil { return strings["console.pause_done"] }
        if sessions.signed("resumed", in: request) != nil { return strings["console.resume_done"] }
        return nil
    }
}
