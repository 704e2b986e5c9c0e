/// What goes on a printed ticket.
public struct TicketPrintout: Sendable, Equatable {
    public var storeName: String
    public var code: TicketCode
    /// The signed code's QR text (status URL + the code, ``TicketCodec``).
    public var qrPayload: String
    public var peopleAhead: Int
    /// The wait until the ticket is called: from now, or from the opening when `opensAt` is set; and the range
    /// it falls in four times out of five (``WaitRange``), printed beside it when it says more than the point.
    public var estimatedWait: Duration
    public var estimatedRange: ClosedRange<Duration>?
    /// Issue time as the store reads it, e.g. "22.11.2026 09:41" (formatted by the caller, who knows the zone).
    public var printedAt: String
    /// When the store opens, if it is closed as the ticket is printed (`07:00`, formatted by the caller): the
    /// holder's place is in the line called from then.
    public var opensAt: String?
    /// The weekday of that opening (0: Monday) when it is a day or more away: named in each language printed.
    public var opensOn: Int?
    /// Whether staff paused the calls as the ticket is printed (``LinePause``), and until when (`10:45`, formatted
    /// by the caller; nil: until they resume): the wait counts what is left of it.
    public var paused = false
    public var pausedUntil: String?
    /// A short URL to type in if the QR cannot be scanned.
    public var statusURL: String?
    public var footer: String?
    public var logo: Bitmap?
    /// Large print, for people with low vision: the number bigger still, and the people ahead and the wait on
    /// lines of their own in large type, as large as `columns` allows.
    public var largePrint = false
    /// The printer cannot pull this ticket back when what it says stops being true (``TicketPromise``): it is
    /// printed with what stays true while it waits to be torn off — the number, the opening, and "scan the code to
    /// follow your place" — and the place and the wait are told at the tear-off (the voice, the window display)
    /// and on the phone.
    public var placeAtTearOff = false
    /// Characters a line holds at normal width (the profile's: 32 on 58 mm paper, 48 on 80 mm).
    public var columns = 48
    /// The store's languages, the main one first: its words in bold, a second language's below them.
    public var languages: [SpokenLanguage] = [.english]

    public init(
        storeName: String,
        code: TicketCode,
        qrPayload: String,
        peopleAhead: Int,
        estimatedWait: Duration,
        estimatedRange: ClosedRange<Duration>? = nil,
        printedAt: String,
        opensAt: String? = nil,
        statusURL: String? = nil,
        footer: String? = nil,
        logo: Bitmap? = nil
    ) {
        self.storeName = storeName
        self.code = code
        self.qrPayload = qrPayload
        self.peopleAhead = peopleAhead
        self.estimatedWait = estimatedWait
        self.estimatedRange = estimatedRange
        self.printedAt = printedAt
        self.opensAt = opensAt
        self.statusURL = statusURL
        self.footer = footer
        self.logo = logo
    }
}

/// Lays a ticket out as an abstract document; the printer's encoder turns it into bytes.
public enum TicketLayout {
    public static func document(_ t: TicketPrintout) -> PrintDocument {
        var doc = PrintDocument()
        if let logo = t.logo { doc.append(.image(logo, .center)) }
        doc.append(.text(t.storeName, TextStyle(bold: true, alignment: .center)))
        let code = t.code.description
        if t.largePrint {
            let scale = min(6, max(1, t.columns / max(code.count, 1)))
            doc.append(.text(code, TextStyle(bold: true, widthScale: scale, heightScale: 6, alignment: .center)))
        } else {
            doc.append(.text(code, TextStyle(bold: true, widthScale: 4, heightScale: 4, alignment: .center)))
        }
        doc.append(.qr(t.qrPayload, QRSpec(errorCorrection: .medium, alignment: .center)))
        let languages = t.languages.isEmpty ? [.english] : t.languages
        for (index, language) in languages.enumerated() {
            let words = TicketWords.of(language)
            let main = index == 0
            if let opens = t.opensAt {
                let names = TicketWords.weekdays(language)
                let text =
                    t.opensOn.flatMap { names.indices.contains($0) ? names[$0] : nil }
                    .map { words.fill("opens_on", ["d": $0, "t": opens]) } ?? words.fill("opens", ["t": opens])
                if main { largeLines(t, text, into: &doc) } else { lines(t, text, bold: false, into: &doc) }
            }
            if t.placeAtTearOff {
                // A pause, the people ahead and the wait may all change before it is torn off.
                let text = words.fill("follow")
                if main { largeLines(t, text, into: &doc) } else { lines(t, text, bold: false, into: &doc) }
                continue
            }
            if t.paused {
                let text = t.pausedUntil.map { words.fill("paused_until", ["t": $0]) } ?? words.fill("paused")
                lines(t, text, bold: main, into: &doc)
            }
            var (people, wait) = aheadParts(
                t.peopleAhead,
                wait: t.estimatedWait,
                range: t.estimatedRange,
                fromOpening: t.opensAt != nil,
                words: words
            )
            // Nobody is called while paused: never "go to the door".
            if t.paused, wait == words.fill("go") { wait = words.fill("wait_call") }
            if main, t.largePrint {
                for part in [people, wait] { largeLines(t, part, into: &doc) }
            } else {
                lines(t, "\(people) · \(wait)", bold: main, into: &doc)
            }
            // A holder with a wait ahead may walk away: the page says when to walk back (issue 49).
            if main, wait != words.fill("go") {
                let text = words.fill("walk_back")
                if t.largePrint { largeLines(t, text, into: &doc) } else { lines(t, text, bold: false, into: &doc) }
            }
        }
        doc.append(.text(t.printedAt, TextStyle(alignment: .center)))
        if let url = t.statusURL { doc.append(.text(url, TextStyle(alignment: .center))) }
        if let footer = t.footer, !footer.isEmpty { doc.append(.text(footer, TextStyle(alignment: .center))) }
        doc.append(.cut(.partial))
        return doc
    }

    static func aheadLine(
        _ ahead: Int,
        wait: Duration,
        range: ClosedRange<Duration>? = nil,
        fromOpening: Bool = false,
        in language: SpokenLanguage = .english
    ) -> String {
        let (people, when) = aheadParts(
            ahead,
            wait: wait,
            range: range,
            fromOpening: fromOpening,
            words: TicketWords.of(language)
        )
        return "\(people) · \(when)"
    }

    /// "3 people ahead" and "about 8 min (5–12)": the line's two halves, in `words`' language.
    static func aheadParts(
        _ ahead: Int,
        wait: Duration,
        range: ClosedRange<Duration>?,
        fromOpening: Bool,
        words: SpokenCatalogue
    ) -> (people: String, wait: String) {
        let people =
            ahead == 0 ? words.fill("nobody") : ahead == 1 ? words.fill("one") : words.fill("many", ["n": "\(ahead)"])
        let (minutes, span) = WaitRange.shownMinutes(point: wait, low: range?.lowerBound, high: range?.upperBound)
        // "8–12": whole minutes around the point.
        let around = span.map { " (\($0.lowerBound)–\($0.upperBound))" } ?? ""
        let filled = ["m": "\(minutes)", "r": around]
        if fromOpening {
            return (people, minutes == 0 ? words.fill("at_opening") : words.fill("after_opening", filled))
        }
        return (people, minutes == 0 ? words.fill("go") : words.fill("about", filled))
    }

    /// `text` centred at normal width, broken between words where it is wider than the paper.
    static func lines(_ t: TicketPrintout, _ text: String, bold: Bool, into doc: inout PrintDocument) {
        for line in wrapped(text, columns: t.columns) {
            doc.append(.text(line, TextStyle(bold: bold, alignment: .center)))
        }
    }

    /// `text` bold and centred, in large type on a large-print ticket: double height, double width where it
    /// fits, and broken between words where even single width would not (a printer breaks mid-word).
    static func largeLines(_ t: TicketPrintout, _ text: String, into doc: inout PrintDocument) {
        guard t.largePrint else { return lines(t, text, bold: true, into: &doc) }
        let width = text.count * 2 <= t.columns ? 2 : 1
        for line in wrapped(text, columns: t.columns / width) {
            doc.append(.text(line, TextStyle(bold: true, widthScale: width, heightScale: 2, alignment: .center)))
        }
    }

    /// `text` in lines of at most `columns` characters, broken at spaces (a word longer than a line stays whole).
    static func wrapped(_ text: String, columns: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > columns {
                lines.append(line)
                line = ""
            }
            line += line.isEmpty ? String(word) : " \(word)"
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
