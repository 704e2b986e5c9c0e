import Foundation
import KioskCore

/// Summaries as a text table: one block a scenario, one line an estimator.
public enum SummaryTable {
    public static func text(_ summaries: [Score.Summary]) -> String {
        var lines: [String] = []
        for summary in summaries {
            lines.append(
                "\(summary.scenario): \(summary.scored) tickets scored; clup MAE ÷ oracle MAE (+15 s each) = "
                    + String(format: "%.2f", summary.clupOverOracle)
                    + " · no-shows \(summary.store.noShows), late \(summary.store.lateArrivals), "
                    + String(format: "%.1f at the door", summary.store.meanPeopleAtDoor)
                    + String(
                        format: " · learnt visit %.1f min (cv %.2f), never came %.0f%%, came after the window %.0f%%",
                        summary.learnt["visitMeanMinutes"] ?? 0,
                        summary.learnt["visitCV"] ?? 0,
                        (summary.learnt["neverCame"] ?? 0) * 100,
                        (summary.learnt["cameAfterWindow"] ?? 0) * 100
                    )
                    + (summary.truth.isEmpty
                        ? ""
                        : String(
                            format: " (true: %.1f min, cv %.2f, %.0f%% never come, %.0f%% came after)",
                            summary.truth["visitMeanMinutes"] ?? 0,
                            summary.truth["visitCV"] ?? 0,
                            (summary.truth["noShow"] ?? 0) * 100,
                            (summary.truth["cameAfterWindow"] ?? 0) * 100
                        ))
                    + String(
                        format: ", to the door app %.1f (planned %.1f), paper %.1f min",
                        summary.learnt["appDelayMinutes"] ?? 0,
                        summary.learnt["plannedAppDelayMinutes"] ?? 0,
                        summary.learnt["paperDelayMinutes"] ?? 0
                    )
            )
            let byWait = (0...WaitModel.noShowWaitEdges.count).compactMap { bin -> String? in
                let name = Score.waitBinName(bin)
                return summary.learnt[name].map { "\(name.dropFirst("appNoShow".count)) \(Int(($0 * 100).rounded()))%" }
            }
            if !byWait.isEmpty {
                lines.append(
                    "  learnt app places left unused (never came or after the window) by minutes waited when called: "
                        + byWait.joined(separator: ", ")
                        + String(format: "; bookings' %.0f%%", (summary.learnt["bookingNoShow"] ?? 0) * 100)
                )
            }
            let shifts = (0...RangeCalibration.edges.count).compactMap { group -> String? in
                let name = Score.shiftName(group)
                return summary.learnt[name].map {
                    "\(name.dropFirst("rangeShift".count)) ×\(String(format: "%.2f", exp($0)))"
                }
            }
            if !shifts.isEmpty {
                lines.append(
                    "  calibrated ranges moved (out ×, or their reach from the point ×) by minutes told: "
                        + shifts.joined(separator: ", ")
                )
            }
            lines.append("  estimator       MAE   p90 |err|  within 3 min    bias   in range   µs/ticket")
            for estimator in Score.Estimator.allCases {
                guard let f = summary.estimators[estimator.rawValue] else { continue }
                lines.append(
                    "  " + estimator.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)
                        + String(
                            format: "%6.1f m %8.1f m %10.0f%% %7.1f m",
                            f.maeSeconds / 60,
                            f.p90AbsSeconds / 60,
                            f.within3min * 100,
                            f.biasSeconds / 60
                        )
                        + (f.rangeCoverage.map { String(format: " %9.0f%%", $0 * 100) } ?? "          –")
                        + (f.microsecondsPerTicket.map { String(format: " %10.1f", $0) } ?? "")
                )
            }
        }
        return lines.joined(separator: "\n")
    }
}
