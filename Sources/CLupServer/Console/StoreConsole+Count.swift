import Foundation
import Hummingbird
import KioskCore

/// The store page's count controls: set the count inside as staff counted it, let people in without a
/// ticket (``StaffCount``), each through the ``StoreOffice`` as the API does, in the manager's name; and the
/// day's corrections among the figures, with a word about the sensors when there are many.
extension StoreConsole {
    /// Corrections in a day from which the page asks to check the exit's sensors.
    static let correctionsOften = 3

    func registerCount(on router: some RouterMethods<ServerContext>) {
        router.post("console/stores/:store/count") { request, context -> Response in
            try await act(request, context) { (who, live, form) in
                let inside = try Self.number(form["inside"], field: "inside")
                let count = try await office.correctCount(live.record.id, to: inside, by: Self.name(who))
                return sessions.signedQuery("counted", "\(count.correction?.inside ?? inside)")
            }
        }
        router.post("console/stores/:store/let-in") { request, context -> Response in
            try await act(request, context) { (who, live, form) in
                let people = try Self.number(form["people"], field: "people")
                let reason = (form["reason"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                _ = try await office.letIn(live.record.id, people: people, reason: reason, by: Self.name(who))
                return sessions.signedQuery("letIn", "\(people)")
            }
        }
    }

    /// A whole number a form field holds (at most seven digits: read before any arithmetic).
    static func number(_ text: String?, field: String) throws(Refusal) -> Int {
        guard let text, text.utf8.count <= 7, let number = Int(text) else {
            throw Refusal.invalid("a whole number", field: field)
        }
        return number
    }

    /// The page's values about the count: who corrected it last, the forms' bounds, and the sensors' note.
    static func countValues(
        _ state: QueueState,
        report: DayReport,
        clock: StoreClock,
        _ strings: PageStrings
    ) -> [String: Any] {
        var values: [String: Any] = [
            "countMax": StaffCount.inside.upperBound, "letInMax": StaffCount.people.upperBound,
        ]
        if let correction = state.correction {
            values["correctedBy"] = strings.format("console.corrected_by", correction.inside)
                .replacingOccurrences(of: "{t}", with: clock.time(correction.at.milliseconds))
                .replacingOccurrences(of: "{by}", with: correction.by)
        }
        if report.countCorrections >= correctionsOften {
            values["correctionsOften"] = strings.format("console.corrections_often", report.countCorrections)
        }
        return values
    }

    /// What the last count form did, from its signed query (a crafted link shows nothing).
    func countNotice(_ request: Request, _ strings: PageStrings) -> String? {
        if let counted = sessions.signed("counted", in: request) {
            return strings.format("console.counted", Int(counted) ?? 0)
        }
        if let people = sessions.signed("letIn", in: request) {
            return strings.format("console.let_in_done", Int(people) ?? 0)
        }
        return nil
    }
}
