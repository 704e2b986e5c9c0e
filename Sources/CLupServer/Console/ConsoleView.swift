import Foundation
import Hummingbird
import KioskCore
import SyncWire

/// What the console pages show, built from the same state the API answers from: the line now, the kiosks
/// with their last contact, the day's figures as a chart. Pure: the caller passes the time and the words.
enum ConsoleView {
    /// The console's words as `w.<key>` for the templates.
    static func words(_ strings: PageStrings) -> [String: String] {
        var words: [String: String] = [:]
        for (key, value) in strings.table where key.hasPrefix("console.") {
            words[String(key.dropFirst("console.".count))] = value
        }
        return words
    }

    /// The line now, as the live stream sends it and the page first shows it.
    struct Line: Encodable {
        /// While the store is closed: when it opens, and how many wait for the opening ("" while open).
        var opening: String
        /// While staff paused the calls: who, why and until when ("" otherwise).
        var paused: String
        var inside: Int
        var capacity: Int
        var called: [String]
        var waiting: [String]
        var waitingCount: Int
        var printer: [String]
        var devices: [Kiosk]
    }

    struct Kiosk: Encodable {
        var device: String
        /// What it was enrolled as (printer, door, both), in words.
        var role: String
        var contact: String
        var silent: Bool
        /// Its printer, door, paper, sync and version, as it last reported them.
        var state: String
        /// What needs a person (``KioskProblem``, silence aside: ``silent``), in words; "" when nothing does.
        var needs: String
        /// Something needs a person: ``needs`` is not empty.
        var trouble: Bool
    }

    static let shownWaiting = 40

    static func line(
        _ live: StoreQueues.Live,
        devices: [EnrolledDevice],
        now: Timestamp,
        _ strings: PageStrings
    )
        -> Line
    {
        let state = live.state
        let called = state.called(at: now)
        let line = state.line(at: now)
        let printer = state.entries.values.filter { $0.stage == .inPrinter }.map(\.ticket)
            .sorted { $0.issuedAt < $1.issuedAt }
        var opening = ""
        if let opens = state.opensAt(after: now) {
            let weekdays = (0..<7).map { strings["weekday.\($0)"] }
            let text = live.record.profile.calendar.text(of: opens, from: now, weekdays: weekdays)
            opening = strings.format("console.closed_until", text: text)
                .replacingOccurrences(of: "{n}", with: "\(line.count)")
        }
        return Line(
            opening: opening,
            paused: StoreConsole.pauseText(state, clock: StoreClock(live.record.profile), now: now, strings) ?? "",
            inside: state.inside,
            capacity: state.capacity,
            called: called.map(\.code.description),
            waiting: line.dropFirst(called.count).prefix(shownWaiting).map(\.code.description),
            waitingCount: max(line.count - called.count, 0),
            printer: printer.map(\.code.description),
            devices: devices.map { kiosk($0, now: now, strings) }
        )
    }

    static func kiosk(_ device: EnrolledDevice, now: Timestamp, _ strings: PageStrings) -> Kiosk {
        let needs = device.problems.filter { $0 != .silent }.map { strings["console.p." + $0.rawValue] }
        var kiosk = Kiosk(
            device: device.device,
            role: strings["console.role_" + device.role.rawValue],
            contact: strings["console.never"],
            silent: false,
            state: state(of: device, strings),
            needs: needs.joined(separator: ", "),
            trouble: !needs.isEmpty
        )
        guard let last = device.lastContact else { return kiosk }
        kiosk.silent = device.problems.contains(.silent)
        let text = strings.format("console.seconds_ago", Int(max(now - last, .zero).components.seconds))
        kiosk.contact = kiosk.silent ? "\(text) — \(strings["console.silent"])" : text
        return kiosk
    }

    /// A kiosk's last report in words: its parts' states, paper, what sync set aside, and — unless the page
    /// shows them in columns of their own (`columns`) — a wrong clock and the version.
    static func state(of device: EnrolledDevice, _ strings: PageStrings, columns: Bool = false) -> String {
        guard let health = device.health else { return strings["console.no_report"] }
        var parts: [String] = []
        if let printer = health.printer {
            parts.append("\(strings["console.printer"]) \(strings["console.s." + printer])")
        }
        if let door = health.door { parts.append("\(strings["console.door"]) \(strings["console.s." + door])") }
        for (part, state) in [("console.light", health.light), ("console.voice", health.voice)]
        where state == "unavailable" {
            parts.append("\(strings[part]) \(strings["console.unavailable"])")
        }
        if let left = health.ticketsLeft { parts.append(strings.format("console.tickets_left", left)) }
        if health.paperLow, health.printer != "paper_near_end" { parts.append(strings["console.paper_low"]) }
        if let count = health.quarantined, count > 0 { parts.append(strings.format("console.quarantined", count)) }
        if let count = health.newerEvents, count > 0 { parts.append(strings.format("console.newer", count)) }
        if columns { return parts.joined(separator: " · ") }
        if let clock = clockText(device.clockOffsetSeconds, strings), device.problems.contains(.clock) {
            parts.append("\(strings["console.clock"]) \(clock)")
        }
        parts.append("v\(health.version)")
        return parts.joined(separator: " · ")
    }

    /// How far a kiosk's clock is from the server's, in words ("3 s ahead"); nil when it did not say.
    static func clockText(_ seconds: Int?, _ strings: PageStrings) -> String? {
        guard let seconds else { return nil }
        return strings.format(seconds >= 0 ? "console.ahead" : "console.behind", abs(seconds))
    }

    /// Tickets by hour as a bar chart (inline SVG, labelled; the figures beside it give the totals), over
    /// the hours the store is open that day, or the hours with tickets.
    static func chart(_ report: DayReport, hours: StoreProfile.Hours?, title: String) -> String {
        var first = hours.flatMap { TimeOfDay($0.open) }.map { $0.secondsAfterMidnight / 3600 } ?? 23
        var last = hours.flatMap { TimeOfDay(closing: $0.close) }.map { ($0.secondsAfterMidnight - 1) / 3600 } ?? 0
        for (hour, count) in report.joinedByHour.enumerated() where count > 0 {
            first = min(first, hour)
            last = max(last, hour)
        }
        guard first <= last else { return "" }
        let top = max(report.joinedByHour.max() ?? 0, 1)
        let barWidth = 24
        let height = 120
        let width = (last - first + 1) * barWidth
        var bars = ""
        for hour in first...last {
            let count = report.joinedByHour[hour]
            let bar = count * (height - 30) / top
            let x = (hour - first) * barWidth
            bars +=
                "<rect x=\"\(x + 3)\" y=\"\(height - 16 - bar)\" width=\"\(barWidth - 6)\" height=\"\(bar)\" fill=\"#1f4e99\">"
            bars += "<title>\(hour):00 — \(count)</title></rect>"
            if count > 0 {
                bars +=
                    "<text x=\"\(x + barWidth / 2)\" y=\"\(height - 20 - bar)\" text-anchor=\"middle\">\(count)</text>"
            }
            bars += "<text x=\"\(x + barWidth / 2)\" y=\"\(height - 3)\" text-anchor=\"middle\">\(hour)</text>"
        }
        let total = report.joinedByHour.reduce(0, +)
        return """
            <svg class="chart" id="chart" viewBox="0 0 \(width) \(height)" role="img" aria-label="\(HTML.escape(title)): \(total)">\
            <title>\(HTML.escape(title))</title>\(bars)</svg>
            """
    }

    /// Each scored ticket's told wait (across) against its actual wait (up), with the line where they are equal:
    /// points above it were told too short, below too long.
    static func accuracyChart(_ report: DayReport, title: String) -> String {
        let points = report.toldAndWaited
        guard !points.isEmpty else { return "" }
        let size = 200
        let pad = 24
        // The axes reach the longest wait, in whole ten minutes.
        let longest = points.reduce(0) { max($0, $1.told, $1.waited) }
        let top = max((longest + 599) / 600 * 600, 600)
        func x(_ seconds: Int) -> Int { pad + seconds * (size - pad) / top }
        func y(_ seconds: Int) -> Int { size - pad - seconds * (size - pad * 2) / top }
        var marks = "<line x1=\"\(x(0))\" y1=\"\(y(0))\" x2=\"\(x(top))\" y2=\"\(y(top))\" stroke=\"#666\"/>"
        marks += "<text x=\"\(x(top))\" y=\"\(size - 6)\" text-anchor=\"end\">\(top / 60)</text>"
        marks += "<text x=\"2\" y=\"\(y(top) + 4)\">\(top / 60)</text>"
        for point in points.suffix(2000) {
            marks +=
                "<circle cx=\"\(x(point.told))\" cy=\"\(y(point.waited))\" r=\"2\" fill=\"#1f4e99\" fill-opacity=\"0.5\"/>"
        }
        return """
            <svg class="chart" id="accuracy-chart" viewBox="0 0 \(size) \(size)" role="img" \
            aria-label="\(HTML.escape(title)): \(points.count)"><title>\(HTML.escape(title))</title>\(marks)</svg>
            """
    }

    static func minutes(_ seconds: Int?, _ strings: PageStrings) -> String {
        seconds.map { strings.format("minutes", ($0 + 30) / 60) } ?? "—"
    }
}
