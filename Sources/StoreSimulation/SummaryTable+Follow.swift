import Foundation

extension SummaryTable {
    /// One line a way of following the ticket (``FollowPolicy``), on the same shoppers.
    public static func follow(_ scenario: String, _ rows: [FollowFigures]) -> String {
        var lines = [
            "\(scenario): how app holders follow their ticket (each on the same shoppers)",
            "  policy          holders  at the door (min each)  people at the door (mean, p90)  late  "
                + "expired unused  empty places (place-min an hour)",
        ]
        for row in rows {
            lines.append(
                "  "
                    + row.policy.padding(toLength: 16, withPad: " ", startingAt: 0)
                    + String(
                        format: "%7d  %22.2f  %20.1f  %9.0f  %4d  %14d  %10.1f",
                        row.holders,
                        row.doorMinutesPerHolder,
                        row.peopleAtDoorMean,
                        row.peopleAtDoorP90,
                        row.lateArrivals,
                        row.expiredUnused,
                        row.emptyPlaceMinutesPerHour
                    )
            )
        }
        return lines.joined(separator: "\n")
    }
}
